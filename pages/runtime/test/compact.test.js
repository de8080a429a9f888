// The compact wippy.attention encoder (host/compact.js, host/attachment-content.js) against the
// rules of schemas.md §4-6, read back by a small expander written here from those rules (not from
// the encoder): first-use dictionary order across candidates, focus, selection anchor and focus,
// every entry used, packed v3 tuples, sample refs, the css-euclidean-grid.v1 lattice. The byte-exact
// check against the Session's own codec is end to end (harness/src/checks/envelope_v4.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { encodeCompact, packSegment, latticeOffsets } from '../src/host/compact.js';
import { attachmentContent, v1Payload } from '../src/host/attachment-content.js';
import { latticePoints } from '../src/host/lattice.js';
import { canonicalJson } from '../src/core/canonical-json.js';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/contract/spec-v1-payload.json', import.meta.url)));

// --- an expander written from schemas.md §4-6 -------------------------------------------------
function unpack(t) {
  assert.equal(t.length, 4, 'a packed entry is a 4-tuple');
  const [kind, mount_id, generation, attrs] = t;
  const seg = { kind, mount_id, generation };
  for (const [k, v] of Object.entries(Array.isArray(attrs) ? {} : attrs)) {
    if (k === 'rect' || k === 'clip_rect') seg[k] = { x: v[0], y: v[1], width: v[2], height: v[3] };
    else if (k === 'local_to_parent')
      seg[k] = { matrix: v, convention: 'dommatrix-column-major', direction: 'local-to-parent' };
    else seg[k] = v;
  }
  return seg;
}
function expand(p) {
  const dict = p.schema === 'wippy.attention.v2' ? p.path_dictionary : p.path_dictionary.map(unpack);
  let next = 0;
  const used = new Set();
  const path = (ix) =>
    ix.map((i) => {
      if (!used.has(i)) {
        assert.equal(i, next, `index ${i} introduced out of first-use order (expected ${next})`);
        used.add(i);
        next++;
      }
      return dict[i];
    });
  const c = p.capture;
  let points = c.points;
  if (c.point_encoding) {
    const e = c.point_encoding;
    const over = new Map((e.overrides || []).map((o) => [o.index, o.point]));
    points = [];
    const ext = Math.floor(c.radius_css_px / c.grid_step_css_px);
    for (let y = -ext; y <= ext; y++)
      for (let x = -ext; x <= ext; x++) {
        const dx = x * c.grid_step_css_px,
          dy = y * c.grid_step_css_px;
        if (dx * dx + dy * dy > c.radius_css_px ** 2) continue;
        const n = points.length;
        points.push(over.get(n) || { point_id: 'p' + n, x: e.origin.x + dx, y: e.origin.y + dy });
      }
    points.push(...(e.additional_points || []));
  }
  const out = Object.assign({}, p, { schema: 'wippy.attention.v1' });
  delete out.path_dictionary;
  out.capture = Object.assign({}, c, { points });
  delete out.capture.point_encoding;
  out.candidates = p.candidates.map((k) => {
    const o = Object.assign({}, k, {
      path: path(k.path_indices),
      sample_point_ids: k.sample_refs.flatMap((r) =>
        typeof r === 'string'
          ? [r]
          : typeof r === 'number'
            ? [points[r].point_id]
            : points.slice(r[0], r[0] + r[1]).map((q) => q.point_id),
      ),
    });
    delete o.path_indices;
    delete o.sample_refs;
    return o;
  });
  if (p.focus) {
    out.focus = Object.assign({}, p.focus, { path: path(p.focus.path_indices) });
    delete out.focus.path_indices;
  }
  if (p.selection) {
    out.selection = Object.assign({}, p.selection, {
      anchor_path: path(p.selection.anchor_path_indices),
      focus_path: path(p.selection.focus_path_indices),
    });
    delete out.selection.anchor_path_indices;
    delete out.selection.focus_path_indices;
  }
  assert.equal(next, dict.length, 'every dictionary entry is used');
  return out;
}

// --- a deep snapshot with focus and a selection -----------------------------------------------
const seg = (kind, id, extra) => Object.assign({ kind, mount_id: id, generation: 1 }, extra || {});
const host = seg('host', 'host-1');
const frame = seg('iframe', 'frame-1', {
  frame_origin: 'https://leaf.example',
  rect: { x: 10, y: 20, width: 300, height: 200 },
  local_to_parent: {
    matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 20, 0, 1],
    convention: 'dommatrix-column-major',
    direction: 'local-to-parent',
  },
});
function deepSnapshot() {
  const points = latticePoints(100.123, 50.5, 20, 5);
  const cand = (i, leaf, ids) => ({
    target_id: 't-' + i,
    path: [host, frame, seg('web-component', 'wc-' + i), seg('shadow-root', 'wc-' + i + '-sr'), leaf],
    rect: { x: i, y: 2, width: 10, height: 10 },
    sample_point_ids: ids,
    occluded: false,
    summary: { role: 'button', name: 'B' + i },
    provenance: { geometry_source: 'document', runtime_source: 'iframe-realm' },
  });
  const leaf = (i) => seg('element', 'leaf-' + i, { tag_name: 'button' });
  return {
    schema: 'wippy.attention.v1',
    snapshot_id: 'snap-1',
    host_instance_id: 'host-1',
    mount_generation: 1,
    created_at: '2026-09-04T12:00:00.000Z',
    coordinate_space: { kind: 'host-viewport', width: 1280, height: 720, device_pixel_ratio: 1 },
    capture: {
      radius_css_px: 20,
      grid_step_css_px: 5,
      sampled_points: points.length,
      points,
      duration_ms: 3,
      complete: true,
    },
    recent_events: [],
    pointer: {
      event_id: 'ev-a-1',
      sequence: 1,
      type: 'pointermove',
      observed_at: '2026-09-04T12:00:00.000Z',
      realm_time_ms: 1,
      point: { x: 100, y: 50 },
      candidate_ids: ['t-1'],
    },
    candidates: [
      cand(
        1,
        leaf(1),
        points.slice(0, 30).map((p) => p.point_id),
      ),
      cand(2, leaf(2), ['p31', 'p33', 'ev-a-1', 'p40', 'p41', 'p42', 'p43']),
    ],
    focus: {
      event_id: 'ev-a-2',
      sequence: 2,
      focused_at: '2026-09-04T12:00:00.000Z',
      realm_time_ms: 2,
      candidate_id: 't-2',
      path: [host, frame, seg('element', 'input-9', { tag_name: 'input' })],
      summary: { role: 'textbox' },
    },
    selection: {
      selection_id: 'sel-1',
      selected_at: '2026-09-04T12:00:00.000Z',
      kind: 'text',
      collapsed: false,
      direction: 'forward',
      text: 'Hello <world> & ü',
      anchor_path: [host, seg('element', 'p-anchor', { tag_name: 'p' })],
      focus_path: [host, frame, seg('element', 'p-focus', { tag_name: 'p' })],
      ranges: [{ rect: { x: 1, y: 2, width: 3, height: 4 }, coordinate_space: 'host-viewport' }],
    },
    omissions: [],
  };
}

test('v4 expands back to the snapshot with its selection, indices in first-use order, every entry used', () => {
  const snap = deepSnapshot();
  const { payload } = encodeCompact(snap, 4);
  assert.equal(payload.schema, 'wippy.attention.v4');
  assert.equal(canonicalJson(expand(payload)), canonicalJson(snap));
  // 5 + 1 (second leaf... shares host, frame) segments: host, frame, wc-1, sr-1, leaf-1, wc-2, sr-2,
  // leaf-2, input-9, p-anchor, p-focus: the selection's entries come after the focus's.
  assert.equal(payload.path_dictionary.length, 11);
  assert.deepEqual(payload.selection.anchor_path_indices, [0, 9]);
  assert.deepEqual(payload.selection.focus_path_indices, [0, 1, 10]);
  assert.deepEqual(payload.focus.path_indices, [0, 1, 8]);
  assert.equal(payload.selection.anchor_path, undefined);
});

test('sample refs: point ids become indices, runs of three or more a [start, count] pair, event ids stay', () => {
  const { payload } = encodeCompact(deepSnapshot(), 4);
  assert.deepEqual(payload.candidates[0].sample_refs, [[0, 30]]);
  assert.deepEqual(payload.candidates[1].sample_refs, [31, 33, 'ev-a-1', [40, 4]]);
});

test('the 49-point lattice is written as a point encoding whose overrides are only the points it misses', () => {
  const snap = deepSnapshot();
  const { payload } = encodeCompact(snap, 4);
  const enc = payload.capture.point_encoding;
  assert.equal(payload.capture.points, undefined);
  assert.equal(enc.kind, 'css-euclidean-grid.v1');
  assert.deepEqual(enc.origin, { x: snap.capture.points[24].x, y: snap.capture.points[24].y });
  for (const o of enc.overrides || []) {
    const d = latticeOffsets(20, 5)[o.index];
    assert.notEqual(
      canonicalJson({ point_id: 'p' + o.index, x: enc.origin.x + d[0], y: enc.origin.y + d[1] }),
      canonicalJson(o.point),
    );
  }
  assert.ok(canonicalJson(payload).length < canonicalJson(snap).length / 2, 'the compact form is smaller');
});

test('v3 packs segments as [kind, mount_id, generation, attrs], [] without attributes', () => {
  assert.deepEqual(packSegment(host), ['host', 'host-1', 1, []]);
  assert.deepEqual(packSegment(frame), [
    'iframe',
    'frame-1',
    1,
    {
      frame_origin: 'https://leaf.example',
      rect: [10, 20, 300, 200],
      local_to_parent: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 20, 0, 1],
    },
  ]);
});

test('versions 1-3 leave the selection out with selection-unavailable; v4 keeps it', () => {
  const snap = deepSnapshot();
  for (const v of [1, 2, 3]) {
    const c = attachmentContent(snap, v);
    assert.equal(c.version, v);
    const back = v === 1 ? c.payload : expand(c.payload);
    assert.equal(canonicalJson(back), canonicalJson(v1Payload(snap)));
    assert.equal(back.selection, undefined);
    assert.deepEqual(back.omissions.slice(-1), [{ reason: 'selection-unavailable' }]);
    assert.equal(back.capture.complete, false);
  }
  const c4 = attachmentContent(snap, 4);
  assert.equal(c4.version, 4);
  assert.equal(expand(c4.payload).capture.complete, true);
});

test('v2 keeps full segment objects in the dictionary', () => {
  const { payload } = encodeCompact(v1Payload(deepSnapshot()), 2);
  assert.deepEqual(payload.path_dictionary[1], frame);
});

test('the spec fixture round-trips through v2, v3 and v4 (one point: plain points)', () => {
  for (const v of [2, 3, 4]) {
    const { payload } = encodeCompact(fixture, v);
    assert.ok(payload.capture.points, 'one point is smaller as it is');
    assert.equal(canonicalJson(expand(payload)), canonicalJson(fixture));
  }
});

test('what a compact version cannot express falls back to version 1, saying why', () => {
  const dup = deepSnapshot();
  dup.candidates[1].target_id = 't-1';
  const c = attachmentContent(dup, 4);
  assert.equal(c.version, 1);
  assert.equal(c.fallback, 'duplicate target_id');
  assert.equal(c.payload.selection, undefined);
  const wide = deepSnapshot();
  wide.candidates = Array.from({ length: 130 }, (_, i) => ({
    target_id: 'w' + i,
    path: Array.from({ length: 32 }, (_, j) => seg('element', `m${i}-${j}`)),
    rect: { x: 0, y: 0, width: 1, height: 1 },
    sample_point_ids: ['p0'],
    occluded: false,
    summary: { role: 'generic' },
  }));
  // 130 x 32 = 4160 distinct segments > 4128.
  assert.equal(attachmentContent(wide, 4).fallback, 'more than 4128 distinct path segments');
  wide.candidates = wide.candidates.slice(0, 128);
  wide.focus.path = wide.candidates[0].path;
  wide.selection.anchor_path = wide.candidates[1].path;
  wide.selection.focus_path = wide.candidates[1].path;
  // 4096 entries, all reused: fits.
  assert.equal(attachmentContent(wide, 4).version, 4);
  assert.equal(encodeCompact(deepSnapshot(), 5).error, 'unsupported compact version');
  assert.equal(encodeCompact(deepSnapshot(), 3).error, 'only version 4 carries a selection');
});
