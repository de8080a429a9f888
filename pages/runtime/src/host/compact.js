// The compact wippy.attention payloads, versions 2, 3 and 4 (schemas.md §4-6), written from a v1
// snapshot so that the Session's expansion gives back exactly that snapshot: a shared
// `path_dictionary` (v2: full segment objects; v3/v4: packed `[kind, mount_id, generation, attrs]`
// tuples, rects as `[x, y, w, h]`, `local_to_parent` as the bare 16-number matrix), indices
// introduced in first-use order across candidates, focus, and (v4) the selection's anchor and focus
// paths, every entry used; candidates carry `path_indices` and `sample_refs` (an observation id as
// a string, a capture point as its index, runs of three or more indices as `[start, count]`); the
// focus carries `path_indices`; the capture carries its points either as they are or as a
// `css-euclidean-grid.v1` `point_encoding` (lattice origin, `overrides`, `additional_points`),
// whichever is smaller; v4 carries the optional `selection` with `anchor_path_indices` /
// `focus_path_indices`. Versions 2 and 3 cannot carry a selection: the caller strips it first (as
// for v1). A snapshot a compact version cannot express gives `{error}` instead (the caller falls
// back to version 1). DOM-free.
import { canonicalJson } from '../core/canonical-json.js';
import { utf8Len } from '../core/util.js';

/** `ATTENTION_V2_LIMITS` of the Framework codec (schemas.md §4). */
export const COMPACT_LIMITS = {
  dictionary: 4128,
  points: 4096,
  expandedBytes: 262144,
};
export const POINT_ENCODING_KIND = 'css-euclidean-grid.v1';

// Members with no value are not members (canonical JSON drops them; so does the expansion).
function present(o, skip) {
  const out = {};
  for (const k of Object.keys(o || {})) {
    if (skip.indexOf(k) >= 0) continue;
    const v = o[k];
    if (v !== null && v !== undefined) out[k] = v;
  }
  return out;
}

/** The lattice offsets of schemas.md §4, in the codec's order (rows outer, columns inner). */
export function latticeOffsets(radius, step) {
  const out = [];
  const extent = Math.floor(radius / step);
  for (let y = -extent; y <= extent; y++) {
    for (let x = -extent; x <= extent; x++) {
      const dx = x * step,
        dy = y * step;
      if (dx * dx + dy * dy <= radius * radius) out.push([dx, dy]);
    }
  }
  return out;
}

function packRect(r) {
  return [r.x, r.y, r.width, r.height];
}

/** A v1 segment as a v3 tuple `[kind, mount_id, generation, attrs]` (no attributes: `[]`). */
export function packSegment(seg) {
  const attrs = {};
  for (const k of Object.keys(seg)) {
    const v = seg[k];
    if (v === null || v === undefined || k === 'kind' || k === 'mount_id' || k === 'generation') continue;
    if (k === 'rect' || k === 'clip_rect') attrs[k] = packRect(v);
    else if (k === 'local_to_parent') attrs[k] = v.matrix;
    else attrs[k] = v;
  }
  return [seg.kind, seg.mount_id, seg.generation, Object.keys(attrs).length ? attrs : []];
}

function dictionary() {
  const entries = [];
  const index = new Map();
  return {
    entries,
    indices(path) {
      return (path || []).map((seg) => {
        const key = canonicalJson(seg);
        let n = index.get(key);
        if (n === undefined) {
          n = entries.length;
          entries.push(seg);
          index.set(key, n);
        }
        return n;
      });
    },
  };
}

function sampleRefs(ids, pointIndex) {
  const out = [];
  let start = -1,
    count = 0;
  const flush = () => {
    if (count >= 3) out.push([start, count]);
    else for (let i = 0; i < count; i++) out.push(start + i);
    start = -1;
    count = 0;
  };
  for (const id of ids) {
    const i = pointIndex.get(id);
    if (i === undefined) {
      flush();
      out.push(id);
    } else if (count > 0 && start + count === i) count++;
    else {
      flush();
      start = i;
      count = 1;
    }
  }
  flush();
  return out;
}

function encodeCapture(capture) {
  const out = present(capture, ['points']);
  const points = capture.points || [];
  const radius = capture.radius_css_px;
  const step = capture.grid_step_css_px;
  const extent = Math.floor(radius / step);
  const grid = latticeOffsets(radius, step);
  const fits = (2 * extent + 1) * (2 * extent + 1) <= COMPACT_LIMITS.points && grid.length > 0;
  const raw = Object.assign({}, out, { points: points });
  if (!fits || points.length < grid.length) return raw;
  // The lattice origin is the point at the lattice centre (offset 0, 0); a point the default
  // lattice point does not reproduce byte for byte becomes an override.
  const centre = grid.findIndex((d) => d[0] === 0 && d[1] === 0);
  const ox = points[centre].x - grid[centre][0];
  const oy = points[centre].y - grid[centre][1];
  const overrides = [];
  for (let i = 0; i < grid.length; i++) {
    const def = { point_id: 'p' + i, x: ox + grid[i][0], y: oy + grid[i][1] };
    if (canonicalJson(def) !== canonicalJson(points[i])) overrides.push({ index: i, point: points[i] });
  }
  const enc = { kind: POINT_ENCODING_KIND, origin: { x: ox, y: oy } };
  if (overrides.length) enc.overrides = overrides;
  if (points.length > grid.length) enc.additional_points = points.slice(grid.length);
  const encoded = Object.assign({}, out, { point_encoding: enc });
  return canonicalJson(raw).length < canonicalJson(encoded).length ? raw : encoded;
}

/**
 * The version-`version` (2, 3, 4) payload of a v1 snapshot `snap` (with an optional `selection`,
 * v4 only): `{payload}`, or `{error}` when the version cannot express it.
 */
export function encodeCompact(snap, version) {
  if (version !== 2 && version !== 3 && version !== 4) return { error: 'unsupported compact version' };
  if (!snap || typeof snap !== 'object' || !snap.capture) return { error: 'not a snapshot' };
  if (snap.selection && version !== 4) return { error: 'only version 4 carries a selection' };
  const capture = snap.capture;
  if (!(capture.grid_step_css_px >= 1)) return { error: 'grid_step_css_px below 1' };
  const points = capture.points || [];
  const pointIndex = new Map();
  points.forEach((p, i) => pointIndex.set(p.point_id, i));
  const observations = new Set();
  for (const o of [snap.pointer, snap.focus].concat(snap.recent_events || [])) if (o) observations.add(o.event_id);
  for (const id of pointIndex.keys()) if (observations.has(id)) return { error: 'a point_id equals an event_id' };
  const dict = dictionary();
  const seen = new Set();
  const candidates = [];
  for (const c of snap.candidates || []) {
    if (seen.has(c.target_id)) return { error: 'duplicate target_id' };
    seen.add(c.target_id);
    const o = present(c, ['path', 'sample_point_ids']);
    o.path_indices = dict.indices(c.path);
    o.sample_refs = sampleRefs(c.sample_point_ids || [], pointIndex);
    candidates.push(o);
  }
  const root = present(snap, ['candidates', 'focus', 'capture', 'selection']);
  if (snap.focus) {
    const f = present(snap.focus, ['path']);
    f.path_indices = dict.indices(snap.focus.path);
    root.focus = f;
  }
  if (snap.selection) {
    const s = present(snap.selection, ['anchor_path', 'focus_path']);
    s.anchor_path_indices = dict.indices(snap.selection.anchor_path);
    s.focus_path_indices = dict.indices(snap.selection.focus_path);
    root.selection = s;
  }
  if (dict.entries.length > COMPACT_LIMITS.dictionary) return { error: 'more than 4128 distinct path segments' };
  root.capture = encodeCapture(capture);
  root.candidates = candidates;
  root.schema = 'wippy.attention.v' + version;
  root.path_dictionary = version === 2 ? dict.entries : dict.entries.map(packSegment);
  return { payload: root };
}

/** The UTF-8 length of the canonical JSON of `snap` as it expands (the 256 KiB budget's charge). */
export function expandedBytes(snap) {
  return utf8Len(canonicalJson(snap));
}
