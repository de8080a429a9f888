// Path segment rules (spec: paths — at most 32 segments, first and last 16 kept; boundary kinds;
// iframe content-box mapping; transforms beyond translation + axis-aligned scale unsupported).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clampPath, boundaryKindOf, frameGeometry, mapRect, transformUnsupported } from '../src/dom/segments.js';

const path = (n) => Array.from({ length: n }, (_, i) => ({ kind: 'element', mount_id: 'm' + i, generation: 1 }));

test('a path of 32 segments is kept whole; 33 keeps the first 16 and the last 16', () => {
  const p32 = path(32);
  assert.equal(clampPath(p32), p32);
  const p33 = clampPath(path(33));
  assert.equal(p33.length, 32);
  assert.deepEqual(
    p33.slice(0, 16).map((s) => s.mount_id),
    Array.from({ length: 16 }, (_, i) => 'm' + i),
  );
  assert.deepEqual(
    p33.slice(16).map((s) => s.mount_id),
    Array.from({ length: 16 }, (_, i) => 'm' + (17 + i)),
  );
  const p100 = clampPath(path(100));
  assert.equal(p100.length, 32);
  assert.equal(p100[15].mount_id, 'm15');
  assert.equal(p100[16].mount_id, 'm84');
  assert.equal(p100[31].mount_id, 'm99');
  assert.deepEqual(clampPath([]), []);
});

test('boundary kinds are panel, artifact and page only', () => {
  assert.equal(boundaryKindOf('panel'), 'panel');
  assert.equal(boundaryKindOf('artifact'), 'artifact');
  assert.equal(boundaryKindOf('page'), 'page');
  for (const v of ['Panel', 'iframe', 'web-component', '', null]) assert.equal(boundaryKindOf(v), null, String(v));
});

test('the iframe content box: origin after border and padding, scaled by rect / layout size', () => {
  const box = { bl: 2, bt: 4, br: 2, bb: 4, pl: 3, pt: 1, pr: 3, pb: 1 };
  const g = frameGeometry({ x: 10, y: 20, width: 100, height: 50 }, box, 100, 50);
  assert.deepEqual([g.sx, g.sy, g.ox, g.oy], [1, 1, 15, 25]);
  assert.deepEqual(g.content, { x: 15, y: 25, width: 90, height: 40 });
  const s = frameGeometry({ x: 0, y: 0, width: 200, height: 50 }, box, 100, 50); // scaleX(2)
  assert.deepEqual([s.sx, s.sy, s.ox, s.oy], [2, 1, 10, 5]);
  assert.deepEqual(s.content, { x: 10, y: 5, width: 180, height: 40 });
  assert.deepEqual(mapRect({ x: 1, y: 2, width: 3, height: 4 }, s), { x: 12, y: 7, width: 6, height: 4 });
  const z = frameGeometry({ x: 5, y: 5, width: 0, height: 0 }, box, 0, 0); // not laid out
  assert.deepEqual([z.sx, z.sy], [1, 1]);
  assert.deepEqual(z.content, { x: 10, y: 10, width: 0, height: 0 });
});

test('translation and axis-aligned scale are supported; rotation, skew, 3D and unparsable transforms are not', () => {
  assert.equal(transformUnsupported('none', 'none'), false);
  assert.equal(transformUnsupported(undefined, ''), false);
  assert.equal(transformUnsupported('0deg', 'matrix(2, 0, 0, 0.5, 10, -4)'), false);
  assert.equal(transformUnsupported('0', 'none'), false);
  assert.equal(transformUnsupported('none', 'matrix3d(2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 5, 6, 0, 1)'), false);
  assert.equal(transformUnsupported('45deg', 'none'), true);
  assert.equal(transformUnsupported('z 90deg', 'none'), true);
  assert.equal(transformUnsupported('none', 'matrix(0.7071, 0.7071, -0.7071, 0.7071, 0, 0)'), true);
  assert.equal(transformUnsupported('none', 'matrix(1, 0, 0.5, 1, 0, 0)'), true);
  assert.equal(transformUnsupported('none', 'matrix3d(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.001, 0, 0, 0, 1)'), true);
  assert.equal(transformUnsupported('none', 'rotate(10deg)'), true);
});

test('boundary kinds: Object.prototype names are not boundary kinds (data-wippy-kind="toString")', () => {
  for (const v of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'])
    assert.equal(boundaryKindOf(v), null, v);
  assert.equal(boundaryKindOf('panel'), 'panel');
  assert.equal(boundaryKindOf(['panel']), null, 'a non-string value');
});
