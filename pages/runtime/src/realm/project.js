// Projection of child-realm results into this realm (spec: relay — the parent prepends its path
// chain up to and including the iframe segment and maps rects through the iframe's content box;
// a child can never name one of its parent's own targets; redaction of the iframe applies below it).
import { REALM_ID } from '../core/state.js';
import { lookupTable } from '../core/constants.js';
import { rectOut, intersect, sameRect, shortId } from '../core/util.js';
import { viewportRect } from '../core/dom-reads.js';
import { mapRect } from '../dom/segments.js';
import { localPath, iframeGeometry } from './paths.js';
import { privacyOf } from '../dom/privacy.js';
import { sanitizeSegment, sanitizeSummary } from '../dom/sanitize.js';

const RUNTIME_SOURCES = lookupTable({
  document: 'iframe-realm',
  'iframe-realm': 'iframe-realm',
  'fragment-realm': 'fragment-realm',
});

export function chainFor(binding) {
  // The iframe's geometry is read once: the path's iframe segment and the mapping use the same.
  const geom = iframeGeometry(binding.iframe);
  const lp = localPath(binding.iframe, true, geom);
  const p = privacyOf(binding.iframe);
  return { path: lp.path, fragment: lp.fragment, geom: geom, excluded: !!p.excluded, redacted: !!p.redacted };
}
export function projectDescriptor(d, chain) {
  if (!d || typeof d !== 'object' || typeof d.target_id !== 'string' || !Array.isArray(d.path) || !d.rect) return null;
  // A child can only name targets of other realms: never one of this realm's own ids.
  if (d.target_id.indexOf('t-' + REALM_ID + '-') === 0 || d.target_id.length === 0) return null;
  const rect = mapRect(d.rect, chain.geom);
  let clip = d.clip_rect ? mapRect(d.clip_rect, chain.geom) : rect;
  clip = intersect(clip, chain.geom.content);
  clip = intersect(clip, viewportRect());
  const out = {
    target_id: shortId(d.target_id, 128),
    path: chain.path.concat(d.path.map(sanitizeSegment).filter(Boolean)),
    rect: rectOut(rect),
    occluded: !!d.occluded,
    summary: sanitizeSummary(d.summary, chain.redacted),
    geometry_source: d.geometry_source === 'physical-host' ? 'physical-host' : 'document',
    runtime_source: (typeof d.runtime_source === 'string' && RUNTIME_SOURCES[d.runtime_source]) || 'iframe-realm',
  };
  if (!sameRect(clip, rect)) out.clip_rect = rectOut(clip);
  if (chain.redacted) {
    out.redacted = true;
    for (const s of out.path.slice(chain.path.length)) delete s.label;
  } else if (d.redacted) out.redacted = true;
  return out;
}
