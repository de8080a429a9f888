// The per-grant limits at the boundary (spec "Recursive resolution": 256 points, 128 candidates and
// a 128 KiB response per transport grant): N passes untouched, N + 1 is cut with the omission that
// names the mount and the first affected point. The browser side of the same rules is
// tests/budgets.rs (grant_limits_pass_at_the_limit_and_cut_one_past_it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limitCandidates, trimToBytes, firstPointOf } from '../src/relay/reply-limits.js';
import { capToGrant, grantLimits } from '../src/relay/leases.js';
import { GRANT_LIMITS } from '../src/core/constants.js';

const pts = (n) => Array.from({ length: n }, (_, i) => ({ point_id: 'p' + i, x: i, y: 0 }));
const cand = (i, samples) => ({ target_id: 't' + i, sample_point_ids: samples || ['p' + i] });

test('the grant limits are 256 points, 128 candidates and 131,072 bytes', () => {
  assert.deepEqual({ ...GRANT_LIMITS }, { points: 256, candidates: 128, bytes: 131072 });
  assert.deepEqual(grantLimits({ points: 256, candidates: 128, bytes: 131072 }), {
    points: 256,
    candidates: 128,
    bytes: 131072,
  });
  assert.deepEqual(grantLimits({ points: 257, candidates: 129, bytes: 131073 }), {
    points: 256,
    candidates: 128,
    bytes: 131072,
  });
});

test('256 points go to the child whole; the 257th is cut and named', () => {
  const all = pts(257);
  const at = capToGrant(all.slice(0, 256), GRANT_LIMITS.points);
  assert.deepEqual([at.points.length, at.cut], [256, null]);
  const over = capToGrant(all, GRANT_LIMITS.points);
  assert.deepEqual([over.points.length, over.cut], [256, 'p256']);
  assert.deepEqual(over.points, all.slice(0, 256), 'the first 256 in query order are kept');
});

test('128 candidates are kept whole; of 129 the least sampled is cut with candidate-budget', () => {
  const points = pts(129);
  const c128 = Array.from({ length: 128 }, (_, i) => cand(i));
  const at = limitCandidates(c128, GRANT_LIMITS.candidates, points, 'm-1');
  assert.deepEqual([at.candidates, at.omission], [c128, null]);
  const c129 = Array.from({ length: 129 }, (_, i) => cand(i));
  const over = limitCandidates(c129, GRANT_LIMITS.candidates, points, 'm-1');
  assert.equal(over.candidates.length, 128);
  assert.deepEqual(over.candidates, c129.slice(0, 128), 'equal sample counts keep sampling order (stable)');
  assert.deepEqual(over.omission, { reason: 'candidate-budget', mount_id: 'm-1', point_id: 'p128' });
  // A better-sampled late candidate is kept, the least sampled one goes.
  const mixed = c129.slice(0, 128).concat([cand(128, ['p128', 'p0'])]);
  const kept = limitCandidates(mixed, 128, points, 'm-1');
  assert.equal(kept.candidates[0].target_id, 't128');
  assert.equal(kept.omission.point_id, 'p127');
});

test('a reply of exactly 131,072 bytes is sent whole; one byte more halves it with response-budget', () => {
  const points = pts(128);
  const reply = (pad) => ({
    hits: Object.fromEntries(points.map((p, i) => [p.point_id, ['t' + i]])),
    candidates: Array.from({ length: 128 }, (_, i) => Object.assign(cand(i), { pad: i === 0 ? pad : '' })),
    omissions: [],
  });
  const sizeOf = (r) => Buffer.byteLength(JSON.stringify(r), 'utf8');
  const base = sizeOf(reply(''));
  const exact = reply('x'.repeat(GRANT_LIMITS.bytes - base));
  assert.equal(sizeOf(exact), 131072);
  assert.deepEqual(trimToBytes(exact, GRANT_LIMITS.bytes, sizeOf, points, 'm-1'), { untrimmed: 131072, size: 131072 });
  assert.equal(exact.candidates.length, 128);
  assert.deepEqual(exact.omissions, []);
  // One byte more, as a two-byte character for one ASCII: bytes, not UTF-16 units, are counted.
  const over = reply('x'.repeat(GRANT_LIMITS.bytes - base - 1) + 'é');
  assert.equal(sizeOf(over), 131073);
  const r = trimToBytes(over, GRANT_LIMITS.bytes, sizeOf, points, 'm-1');
  assert.equal(r.untrimmed, 131073);
  assert.ok(r.size <= 131072, `trimmed to ${r.size}`);
  assert.equal(over.candidates.length, 64, 'halved once');
  assert.equal(Object.keys(over.hits).length, 64, "the dropped candidates' hits go with them");
  assert.deepEqual(over.omissions, [{ reason: 'response-budget', mount_id: 'm-1', point_id: 'p64' }]);
});

test('a reply that cannot fit even empty stays over the limit (the caller answers response-too-large)', () => {
  const r = { hits: {}, candidates: [cand(0)], omissions: [], big: 'x'.repeat(200) };
  const out = trimToBytes(r, 100, (x) => JSON.stringify(x).length, pts(1), 'm-1');
  assert.ok(out.size > 100);
  assert.equal(r.candidates.length, 0);
  assert.equal(r.omissions.length, 1, 'one response-budget omission, not one per halving');
});

test('the first affected point follows query order, not candidate order', () => {
  assert.equal(firstPointOf([cand(5, ['p9', 'p2'])], pts(10)), 'p2');
});
