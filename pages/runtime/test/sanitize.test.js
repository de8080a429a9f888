// Child-supplied data is re-validated by the parent (spec: relay — segment kinds and string
// bounds, origins, finite rects, summary fields, omission reasons, details from the allowlist).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sanitizeSegment,
  sanitizeSummary,
  sanitizeOmission,
  cleanRect,
  sanitizeSelection,
} from '../src/dom/sanitize.js';

test('segments: unknown kinds, host segments and bad mount ids are dropped', () => {
  assert.equal(sanitizeSegment({ kind: 'host', mount_id: 'h', generation: 1 }), null);
  assert.equal(sanitizeSegment({ kind: 'div', mount_id: 'h', generation: 1 }), null);
  assert.equal(sanitizeSegment({ kind: 'element', mount_id: '', generation: 1 }), null);
  assert.equal(sanitizeSegment({ kind: 'element', mount_id: 'é'.repeat(81), generation: 1 }), null, '162 bytes > 160');
  assert.ok(sanitizeSegment({ kind: 'element', mount_id: 'é'.repeat(80), generation: 1 }), '160 bytes pass');
  assert.equal(sanitizeSegment(null), null);
});

test('segments keep only known, bounded, well-typed fields', () => {
  const s = sanitizeSegment({
    kind: 'iframe',
    mount_id: 'm',
    generation: -2,
    label: 'x'.repeat(300),
    tag_name: 'iframe',
    extra: 'no',
    frame_origin: 'http://a.com/',
    rect: { x: 1.00004, y: 2, width: -3, height: 4 },
    clip_rect: { x: NaN, y: 0, width: 1, height: 1 },
    local_to_parent: { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10.12345, 20, 0, 1], convention: 'evil' },
  });
  assert.deepEqual(s, {
    kind: 'iframe',
    mount_id: 'm',
    generation: 0,
    label: 'x'.repeat(256),
    tag_name: 'iframe',
    rect: { x: 1, y: 2, width: 0, height: 4 },
    local_to_parent: {
      matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10.123, 20, 0, 1],
      convention: 'dommatrix-column-major',
      direction: 'local-to-parent',
    },
  });
  assert.equal(
    sanitizeSegment({ kind: 'iframe', mount_id: 'm', generation: 3, frame_origin: 'about:srcdoc' }).frame_origin,
    'about:srcdoc',
  );
  assert.equal(cleanRect({ x: 0, y: 0, width: Infinity, height: 1 }), null);
});

test('summaries: role defaults to generic, text fields bounded, dropped when redacted; state filtered', () => {
  assert.deepEqual(sanitizeSummary(null, false), { role: 'generic' });
  assert.deepEqual(
    sanitizeSummary(
      {
        role: 'button',
        name: 'Go',
        text: 't',
        value: 'v',
        state: { pressed: true, evil: 1, current: 'page', checked: {} },
      },
      true,
    ),
    { role: 'button', state: { pressed: true, current: 'page' } },
  );
  const s = sanitizeSummary({ role: 'link', name: 'n'.repeat(300), text: 'é'.repeat(200) }, false);
  assert.equal(s.name.length, 160);
  assert.equal([...s.text].length, 160);
  assert.deepEqual(sanitizeSummary({ role: 'x', state: [] }, false), { role: 'x' });
});

test('omissions: known reasons only, point ids only from the query, details rebuilt from the allowlist', () => {
  const sent = new Set(['p1']);
  assert.equal(sanitizeOmission({ reason: 'made-up' }, sent), null);
  assert.deepEqual(sanitizeOmission({ reason: 'excluded', point_id: 'p9', mount_id: 'm', text: 'secret' }, sent), {
    reason: 'excluded',
    mount_id: 'm',
  });
  assert.deepEqual(
    sanitizeOmission(
      { reason: 'child-timeout', point_id: 'p1', detail: 'transport:deadline-exceeded:stage:query-await' },
      sent,
    ),
    { reason: 'child-timeout', point_id: 'p1', detail: 'transport:deadline-exceeded:stage:query-await' },
  );
  assert.deepEqual(
    sanitizeOmission({ reason: 'child-timeout', detail: 'transport:weird-code:stage:query-call' }, sent),
    { reason: 'child-timeout', detail: 'transport:internal-error:stage:query-call' },
  );
  assert.deepEqual(sanitizeOmission({ reason: 'child-timeout', detail: 'free text' }, sent), {
    reason: 'child-timeout',
  });
});

test('segments: Object.prototype names are not segment kinds or string fields (hostile child)', () => {
  for (const kind of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    assert.equal(sanitizeSegment({ kind: kind, mount_id: 'm', generation: 1 }), null, kind);
  }
  assert.equal(sanitizeSegment({ kind: ['element'], mount_id: 'm', generation: 1 }), null, 'a non-string kind');
  // Inherited string fields are not copied; only own ones are.
  const proto = { label: 'inherited label', tag_name: 'inherited' };
  const seg = Object.assign(Object.create(proto), { kind: 'element', mount_id: 'm', generation: 1 });
  const out = sanitizeSegment(seg);
  assert.deepEqual(Object.keys(out).sort(), ['generation', 'kind', 'mount_id']);
  assert.equal(
    sanitizeSegment({ kind: 'element', mount_id: 'm', generation: 1, toString: 'x', constructor: 'y' }).toString,
    Object.prototype.toString,
  );
});

test('sanitizeSelection: bounded id, direction and privacy from their sets, text cut to 1,024 bytes, no text when redacted or excluded', () => {
  const seg = { kind: 'element', mount_id: 'm', generation: 1, tag_name: 'span' };
  const ok = sanitizeSelection({
    selection_id: 's1',
    direction: 'sideways',
    text: 'x'.repeat(1025),
    anchor_path: [seg],
    focus_path: [seg],
    ranges: [{ x: 1, y: 2, width: 3, height: 4 }, { x: NaN }],
    extra: 1,
  });
  assert.equal(ok.direction, 'none');
  assert.equal(Buffer.byteLength(ok.text), 1024);
  assert.equal(ok.ranges.length, 1);
  assert.equal(ok.extra, undefined);
  assert.equal(
    sanitizeSelection({ selection_id: 's', privacy: 'redacted', text: 'CANARY', anchor_path: [seg], focus_path: [seg] })
      .text,
    '',
  );
  const ex = sanitizeSelection({ selection_id: 's', privacy: 'excluded', text: 'CANARY', anchor_path: [seg] });
  assert.deepEqual(Object.keys(ex).sort(), ['privacy', 'selection_id']);
  assert.equal(
    sanitizeSelection({ selection_id: 's', privacy: 'constructor', anchor_path: [seg], focus_path: [seg] }).privacy,
    null,
  );
  assert.equal(sanitizeSelection({ selection_id: '', anchor_path: [seg], focus_path: [seg] }), null);
  assert.equal(
    sanitizeSelection({
      selection_id: 's',
      anchor_path: [{ kind: 'host', mount_id: 'h', generation: 1 }],
      focus_path: [seg],
    }),
    null,
  );
  assert.equal(
    sanitizeSelection({
      selection_id: 's',
      ranges: new Array(9).fill({ x: 0, y: 0, width: 1, height: 1 }),
      anchor_path: [seg],
      focus_path: [seg],
    }).ranges.length,
    4,
  );
});
