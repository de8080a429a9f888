// Child-supplied data is never trusted (spec: relay — everything a child sends is re-validated by
// the parent: segment kinds and string bounds, origins, finite rects, summary fields, omission
// reasons; `detail` re-built from the allowlist). DOM-free.
import { TEXT_MAX, RELAY_CODES, OMISSION_REASONS, lookupTable } from '../core/constants.js';
import { r3, nonneg, isInt, utf8Len, cutBytes, cutScalars } from '../core/util.js';
import { validFrameOrigin } from '../core/origins.js';

const SEG_KINDS = lookupTable({
  host: 1,
  panel: 1,
  artifact: 1,
  page: 1,
  iframe: 1,
  'web-fragment': 1,
  'web-component': 1,
  'shadow-root': 1,
  element: 1,
});
const SEG_STR = lookupTable({
  label: 256,
  panel_id: 128,
  surface_id: 128,
  artifact_id: 128,
  page_id: 128,
  package_id: 256,
  tag_name: 128,
  selector_hint: 512,
});
export function cleanRect(r) {
  if (!r || typeof r !== 'object') return null;
  const v = [r.x, r.y, r.width, r.height].map(Number);
  if (!v.every(isFinite)) return null;
  return { x: r3(v[0]), y: r3(v[1]), width: nonneg(v[2]), height: nonneg(v[3]) };
}
// Child-supplied data is never trusted: keep only known fields with bounded, well-typed values.
export function sanitizeSegment(s) {
  if (!s || typeof s !== 'object' || typeof s.kind !== 'string' || !SEG_KINDS[s.kind] || s.kind === 'host') return null;
  if (typeof s.mount_id !== 'string' || !s.mount_id || utf8Len(s.mount_id) > 160) return null;
  const out = {
    kind: s.kind,
    mount_id: s.mount_id,
    generation: isInt(s.generation) && s.generation >= 0 ? s.generation : 0,
  };
  for (const k of Object.keys(SEG_STR))
    if (Object.prototype.hasOwnProperty.call(s, k) && typeof s[k] === 'string') out[k] = cutBytes(s[k], SEG_STR[k]);
  if (typeof s.frame_origin === 'string' && validFrameOrigin(s.frame_origin)) out.frame_origin = s.frame_origin;
  const r = cleanRect(s.rect);
  if (r) out.rect = r;
  const c = cleanRect(s.clip_rect);
  if (c) out.clip_rect = c;
  const l = s.local_to_parent;
  if (
    l &&
    Array.isArray(l.matrix) &&
    l.matrix.length === 16 &&
    l.matrix.every((x) => typeof x === 'number' && isFinite(x))
  ) {
    out.local_to_parent = {
      matrix: l.matrix.map(r3),
      convention: 'dommatrix-column-major',
      direction: 'local-to-parent',
    };
  }
  return out;
}
export function sanitizeSummary(s, redact) {
  const out = { role: s && typeof s.role === 'string' ? cutBytes(s.role, 256) : 'generic' };
  if (s && !redact) {
    if (typeof s.name === 'string' && s.name) out.name = cutBytes(cutScalars(s.name, TEXT_MAX), 256);
    if (typeof s.text === 'string' && s.text) out.text = cutBytes(cutScalars(s.text, TEXT_MAX), 1024);
    if (typeof s.value === 'string' && s.value) out.value = cutBytes(cutScalars(s.value, TEXT_MAX), 256);
  }
  if (s && s.state && typeof s.state === 'object' && !Array.isArray(s.state)) {
    const st = {};
    for (const k of ['checked', 'expanded', 'selected', 'disabled', 'pressed', 'current', 'invalid', 'required']) {
      const v = s.state[k];
      if (typeof v === 'boolean' || (typeof v === 'number' && isFinite(v))) st[k] = v;
      else if (typeof v === 'string') st[k] = cutBytes(v, 64);
    }
    if (Object.keys(st).length) out.state = st;
  }
  return out;
}

const DETAIL_RE = /^transport:([a-z-]+):stage:(query-call|query-await|project-result)$/;
export function sanitizeOmission(o, pointIds) {
  if (!o || typeof o !== 'object' || OMISSION_REASONS.indexOf(o.reason) < 0) return null;
  const out = { reason: o.reason };
  if (typeof o.point_id === 'string' && (!pointIds || pointIds.has(o.point_id))) out.point_id = o.point_id;
  if (typeof o.mount_id === 'string' && o.mount_id && utf8Len(o.mount_id) <= 160) out.mount_id = o.mount_id;
  if (typeof o.detail === 'string') {
    const m = DETAIL_RE.exec(o.detail);
    if (m) out.detail = 'transport:' + (RELAY_CODES.indexOf(m[1]) >= 0 ? m[1] : 'internal-error') + ':stage:' + m[2];
  }
  return out;
}

// A child's selection report (relay observation `selection`): bounded id, direction from the set,
// privacy flag from the set, text cut to 1,024 bytes (none at all when excluded or redacted), at
// most 64 segments per endpoint path re-validated like candidate paths, at most 4 finite rects.
// Returns null when nothing usable is left.
const SEL_DIRECTIONS = lookupTable({ none: 1, forward: 1, backward: 1 });
const SEL_PRIVACY = lookupTable({ excluded: 1, redacted: 1, unavailable: 1 });
export const SELECTION_TEXT_BYTES = 1024;
export function sanitizeSelection(s) {
  if (
    !s ||
    typeof s !== 'object' ||
    typeof s.selection_id !== 'string' ||
    !s.selection_id ||
    utf8Len(s.selection_id) > 128
  )
    return null;
  const privacy = typeof s.privacy === 'string' && SEL_PRIVACY[s.privacy] ? s.privacy : null;
  const out = { selection_id: s.selection_id, privacy: privacy };
  if (privacy === 'excluded' || privacy === 'unavailable') return out;
  const path = (p) => (Array.isArray(p) ? p.slice(0, 64).map(sanitizeSegment).filter(Boolean) : []);
  out.direction = typeof s.direction === 'string' && SEL_DIRECTIONS[s.direction] ? s.direction : 'none';
  out.text = privacy === 'redacted' ? '' : cutBytes(typeof s.text === 'string' ? s.text : '', SELECTION_TEXT_BYTES);
  out.anchor_path = path(s.anchor_path);
  out.focus_path = path(s.focus_path);
  out.ranges = (Array.isArray(s.ranges) ? s.ranges.slice(0, 4) : []).map(cleanRect).filter(Boolean);
  if (!out.anchor_path.length || !out.focus_path.length) return null;
  // The endpoint elements' node ids in the realm that reported it (inspection asks that realm for their refs).
  const nid = (v) => (typeof v === 'string' && /^t-[A-Za-z0-9_-]{1,126}$/.test(v) ? v : null);
  if (nid(s.anchor_node_id)) out.anchor_node_id = s.anchor_node_id;
  if (nid(s.focus_node_id)) out.focus_node_id = s.focus_node_id;
  return out;
}
