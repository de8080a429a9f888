// The capture lattice (schemas.md §4) and snapshot() option validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latticePoints, captureOptions } from '../src/host/lattice.js';

// Independent count from the definition: integer offsets (i, j) with |i|, |j| <= floor(r / step)
// and (i*step)^2 + (j*step)^2 <= r^2.
function definitionCount(radius, step) {
  let n = 0;
  const e = Math.floor(radius / step);
  for (let a = -e; a <= e; a++) for (let b = -e; b <= e; b++) if ((a * step) ** 2 + (b * step) ** 2 <= radius ** 2) n++;
  return n;
}

test('radius 20, step 5 gives 49 points p0..p48 in row-major order (rows outer, top to bottom)', () => {
  const pts = latticePoints(100, 200, 20, 5);
  assert.equal(pts.length, 49);
  assert.deepEqual(
    pts.map((p) => p.point_id),
    Array.from({ length: 49 }, (_, i) => 'p' + i),
  );
  assert.deepEqual(pts[0], { point_id: 'p0', x: 100, y: 180 }); // only the column dx = 0 reaches dy = -20
  assert.deepEqual(pts[1], { point_id: 'p1', x: 90, y: 185 }); // row dy = -15 starts at dx = -10 (15² + 15² = 450 > 400)
  assert.deepEqual(pts[48], { point_id: 'p48', x: 100, y: 220 });
  assert.ok(
    pts.some((p) => p.x === 100 && p.y === 200),
    'the centre is sampled',
  );
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1],
      b = pts[i];
    assert.ok(a.y < b.y || (a.y === b.y && a.x < b.x), `row-major order at ${b.point_id}`);
  }
});

test('point counts match the definition for several radius/step pairs', () => {
  const cases = [
    [20, 5, 49],
    [0, 5, 1],
    [10, 3, null],
    [7, 7, 5],
    [100, 1, null],
    [5, 100, 1],
    [12.5, 2.5, null],
    [100, 100, 5],
  ];
  for (const [r, s, known] of cases) {
    const pts = latticePoints(0, 0, r, s);
    assert.equal(pts.length, definitionCount(r, s), `radius ${r} step ${s}`);
    if (known !== null) assert.equal(pts.length, known, `radius ${r} step ${s}`);
    for (const p of pts) assert.ok(p.x * p.x + p.y * p.y <= r * r + 1e-9, `${p.point_id} inside the disc`);
  }
  assert.equal(latticePoints(0, 0, 100, 1).length, 31417); // Gauss circle N(100)
});

test('coordinates are rounded to 1/1000 px and -0 is 0', () => {
  const pts = latticePoints(0.12345, -0.0004, 3, 3);
  assert.deepEqual(
    pts.map((p) => [p.x, p.y]),
    [
      [0.123, -3],
      [-2.877, 0],
      [0.123, 0],
      [3.123, 0],
      [0.123, 3],
    ],
  );
  assert.ok(pts.every((p) => !Object.is(p.y, -0)));
});

test('capture options: defaults, ranges, privacy text and timeout bounds', () => {
  assert.deepEqual(captureOptions(undefined), { radius: 20, step: 5, textNone: false, timeout: 1500 });
  assert.deepEqual(captureOptions({ radius_css_px: 0, step_css_px: 1 }), {
    radius: 0,
    step: 1,
    textNone: false,
    timeout: 1500,
  });
  assert.equal(captureOptions({ radius_css_px: 100, step_css_px: 100 }).radius, 100);
  assert.equal(captureOptions({ radius_css_px: 100.5 }).radius, 20);
  assert.equal(captureOptions({ radius_css_px: -1 }).radius, 20);
  assert.equal(captureOptions({ radius_css_px: '30' }).radius, 20);
  assert.equal(captureOptions({ step_css_px: 0.5 }).step, 5);
  assert.equal(captureOptions({ step_css_px: 101 }).step, 5);
  assert.equal(captureOptions({ privacy: { text: 'none' } }).textNone, true);
  assert.equal(captureOptions({ privacy_text: 'none' }).textNone, true);
  assert.equal(captureOptions({ privacy: { text: 'safe' } }).textNone, false);
  assert.equal(captureOptions({ timeout_ms: 20000 }).timeout, 10000);
  assert.equal(captureOptions({ timeout_ms: 0 }).timeout, 1500);
  assert.equal(captureOptions({ timeout_ms: 250 }).timeout, 250);
});
