// Inspection across realms, parent side (spec / relay.md: new inspection operations travel over
// wippy.attention.relay.v2 with deadlines and depth / query / candidate / byte budgets; a child that
// speaks only relay.v1 keeps point and selection queries and yields an explicit omission here): one
// `query-request` with operation `inspect` to a granted child, and its answer projected into this
// realm (paths prefixed with the iframe's chain, rects mapped through its content box and clipped,
// summaries re-validated and redacted below a redacted iframe, refs remembered as the child's).
// Failures become omissions naming the iframe's NodeRef, as sampling's name its mount.
import { RELAY_V1, CODE_TO_REASON, INSPECT_OMISSIONS } from '../core/constants.js';
import { rectOut, rectFromTuple, intersect, utf8Len, cutBytes } from '../core/util.js';
import { safe, viewportRect } from '../core/dom-reads.js';
import { REALM_ID } from '../core/state.js';
import { checkRefShape } from '../core/inspect-args.js';
import { mapRect, clampPath } from '../dom/segments.js';
import { sanitizeSegment, sanitizeSummary } from '../dom/sanitize.js';
import { privacyOf } from '../dom/privacy.js';
import { chainFor } from '../realm/project.js';
import { hasUnsupportedTransform } from '../realm/paths.js';
import { issueLocal, issueVia, leanLayout } from '../realm/inspect-nodes.js';
import { getBinding, waitUsable, usable, declaredWithoutRuntime, sendInspect, hostInstance } from './parent.js';

const KINDS = { document: 1, 'shadow-root': 1, element: 1 };
// A child's layout ({rect, clip?, visible?, offscreen?}, tuples) in this realm's viewport, or null.
function projectLayout(l, chain) {
  if (!l || typeof l !== 'object' || !l.rect || chain.unsupported) return null;
  const r0 = rectFromTuple(l.rect);
  if (!r0) return null;
  const rect = mapRect(r0, chain.geom);
  const c0 = rectFromTuple(l.clip);
  let clip = c0 ? mapRect(c0, chain.geom) : rect;
  clip = intersect(intersect(clip, chain.geom.content), viewportRect());
  const inView = clip.width > 0 && clip.height > 0;
  return leanLayout(rectOut(rect), rectOut(clip), l.visible !== false && inView, !inView);
}
// A child's node record in this realm, or null when it is malformed or names one of this realm's ids.
export function projectRecord(r, chain, b, parentFallback) {
  if (!r || typeof r !== 'object') return null;
  const ref = checkRefShape(r.ref).ok;
  if (!ref || ref.node_id.indexOf('t-' + REALM_ID + '-') === 0 || ref.host_instance_id !== hostInstance()) return null;
  if (!KINDS[r.kind]) return null;
  const parent = r.parent ? checkRefShape(r.parent).ok || null : parentFallback;
  const summary = r.kind === 'element' ? sanitizeSummary(r.summary, chain.redacted) : {};
  const path = clampPath(
    chain.path.concat((Array.isArray(r.path) ? r.path.slice(0, 64) : []).map(sanitizeSegment).filter(Boolean)),
  );
  if (chain.redacted) for (const s of path.slice(chain.path.length)) delete s.label;
  if (!issueVia(ref, b)) return null;
  if (parent && parent !== parentFallback) issueVia(parent, b);
  const out = {
    ref: ref,
    parent: parent,
    kind: r.kind,
    state: summary.state || null,
    summary: summary,
    path: path,
    resource: typeof r.resource === 'string' && r.resource && utf8Len(r.resource) <= 256 ? r.resource : null,
    layout: projectLayout(r.layout, chain),
    provenance: {
      geometry_source: r.provenance && r.provenance.geometry_source === 'physical-host' ? 'physical-host' : 'document',
      runtime_source:
        r.provenance && r.provenance.runtime_source === 'fragment-realm' ? 'fragment-realm' : 'iframe-realm',
    },
  };
  if (r.placeholder === true) out.placeholder = true;
  return out;
}
export function projectOmission(o, b) {
  if (!o || typeof o !== 'object' || INSPECT_OMISSIONS.indexOf(o.reason) < 0) return null;
  const out = { reason: o.reason };
  const n = o.node ? checkRefShape(o.node).ok : null;
  if (n && n.host_instance_id === hostInstance()) {
    issueVia(n, b);
    out.node = n;
  }
  if (typeof o.detail === 'string' && /^[a-z0-9:-]{1,128}$/.test(o.detail)) out.detail = cutBytes(o.detail, 128);
  return out;
}
// A layout of the realm behind binding `b` (its viewport) in this realm's viewport: one hop of a child
// realm's getGeometry toward Host-viewport numbers (host/inspect-node.js). -> the layout or null
// (malformed, or the iframe is rotated, skewed or in perspective).
export function layoutUp(l, b) {
  const chain = chainFor(b);
  chain.unsupported = safe(() => hasUnsupportedTransform(b.iframe), false);
  return projectLayout(l, chain);
}
// Geometry frame of a child node ({x, y, sx, sy}: its origin and scale in the child viewport) here.
function projectFrame(f, chain) {
  if (!f || typeof f !== 'object' || chain.unsupported) return null;
  if (![f.x, f.y, f.sx, f.sy].every((v) => typeof v === 'number' && isFinite(v))) return null;
  const g = chain.geom;
  return { x: g.ox + f.x * g.sx, y: g.oy + f.y * g.sy, sx: f.sx * g.sx, sy: f.sy * g.sy };
}

// Ask the child realm behind iframe `ifr` one inspection operation. inspect: {op, ...} (relay
// README "Inspection relay"); lease: {depth, queries, candidates, bytes}; parentRef: the parent given
// to child records that name none (the iframe, for the child's document).
// -> {records, more, omissions, frame?, reached: boolean, invalid?: the child's reason when it
// refused the request as invalid (its code kept: the caller answers `invalid-request`, not partial)}.
export async function askChild(ifr, inspect, lease, deadlineAt, parentRef) {
  const out = { records: [], more: false, omissions: [], frame: null, reached: false };
  const iframeRef = issueLocal(ifr);
  const omit = (reason, detail) => {
    const o = { reason: reason, node: iframeRef };
    if (detail) o.detail = detail;
    out.omissions.push(o);
    return out;
  };
  const p = privacyOf(ifr);
  if (p.excluded) return omit('excluded');
  if (lease.depth <= 0) return omit('depth-limit');
  if (lease.queries <= 0) return omit('query-budget');
  const b = getBinding(ifr);
  await waitUsable(b, deadlineAt);
  if (!usable(b)) {
    if (b.state === 'detached') return omit('stale-mount', 'transport:detached:stage:query-call');
    if (b.state === 'navigating') return omit('navigation', 'transport:navigation:stage:query-call');
    if (b.state === 'unsupported') return omit('unsupported-boundary');
    const code =
      b.state === 'unavailable'
        ? b.lastCode === 'unsupported-version'
          ? 'unsupported-version'
          : 'unavailable'
        : declaredWithoutRuntime(b)
          ? 'unavailable'
          : 'deadline-exceeded';
    return omit('capability-unavailable', 'transport:' + code + ':stage:query-call');
  }
  // Inspection needs relay.v2: a child that negotiated v1 answers points and selection only.
  if (b.relayVersion === RELAY_V1)
    return omit('capability-unavailable', 'transport:unsupported-version:stage:query-call');
  const chain = chainFor(b);
  chain.unsupported = safe(() => hasUnsupportedTransform(ifr), false);
  if (chain.unsupported) omit('unsupported-transform');
  const inner = Object.assign({}, inspect, { redacted: !!inspect.redacted || chain.redacted });
  const budgets = {
    depth: lease.depth - 1,
    queries: Math.max(0, lease.queries - 1),
    points: 0,
    candidates: lease.candidates,
    bytes: lease.bytes,
  };
  const res = await sendInspect(b, inner, budgets, deadlineAt);
  if (res.error === 'invalid-request') {
    out.reached = true;
    out.invalid = res.detail || 'child-invalid-request';
    return out;
  }
  if (res.error)
    return omit(CODE_TO_REASON[res.error] || 'capability-unavailable', 'transport:' + res.error + ':stage:query-await');
  const r = res.result || {};
  out.reached = true;
  if (chain.excluded) return omit('excluded');
  const recs = Array.isArray(r.records) ? r.records.slice(0, Math.max(0, lease.candidates)) : [];
  for (const rec of recs) {
    const pr = projectRecord(rec, chain, b, parentRef);
    if (pr) out.records.push(pr);
  }
  out.more = r.more === true || (Array.isArray(r.records) && r.records.length > recs.length);
  if (Array.isArray(r.omissions))
    for (const o of r.omissions.slice(0, 128)) {
      const po = projectOmission(o, b);
      if (po) out.omissions.push(po);
    }
  if (r.frame) out.frame = projectFrame(r.frame, chain);
  if (r.frame && !out.frame && chain.unsupported) out.unsupported = true;
  if (r.unsupported === true) out.unsupported = true;
  if (r.geometry && typeof r.geometry === 'object') out.geometry = r.geometry;
  if (chain.redacted) out.omissions.push({ reason: 'redacted', node: iframeRef });
  return out;
}
