// Budget and lease arithmetic (spec: budgets — root depth 8, 128 queries, 4,096 points, 128
// candidates, 128 KiB; a child query costs 1 query and its points; the rest is split evenly as
// disjoint leases; grants clamped to 256 points / 128 candidates / 128 KiB and 60 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newLedger,
  admitQuery,
  splitLeases,
  leaseFor,
  grantLimits,
  grantLifetime,
  renewDelay,
  requestBudgets,
  requestTimeout,
} from '../src/relay/leases.js';
import { ROOT_BUDGET } from '../src/core/constants.js';

const pts = (n, from = 0) => Array.from({ length: n }, (_, i) => ({ point_id: 'p' + (from + i), x: 0, y: 0 }));

test('each admitted child query costs one query and its points', () => {
  const ledger = newLedger(ROOT_BUDGET);
  const a = admitQuery(ledger, pts(49));
  assert.deepEqual([a.reason, a.points.length, a.cut], [null, 49, null]);
  assert.deepEqual(ledger, { queries: 127, points: 4096 - 49 });
});

test('points beyond the ledger are cut at the first point that does not fit', () => {
  const ledger = { queries: 5, points: 3 };
  const a = admitQuery(ledger, pts(10));
  assert.equal(a.cut, 'p3');
  assert.deepEqual(
    a.points.map((p) => p.point_id),
    ['p0', 'p1', 'p2'],
  );
  assert.deepEqual(ledger, { queries: 4, points: 0 });
  const b = admitQuery(ledger, pts(2, 20));
  assert.deepEqual([b.reason, b.points.length, b.cut], [null, 0, 'p20']);
  assert.deepEqual(ledger, { queries: 4, points: 0 }, 'an empty query costs nothing');
});

test('no query left means query-budget, the ledger untouched', () => {
  const ledger = { queries: 1, points: 100 };
  admitQuery(ledger, pts(1));
  const b = admitQuery(ledger, pts(1));
  assert.equal(b.reason, 'query-budget');
  assert.deepEqual(ledger, { queries: 0, points: 99 });
});

test('what remains is split evenly into disjoint leases, one level shallower', () => {
  const ledger = newLedger(ROOT_BUDGET);
  for (let i = 0; i < 3; i++) admitQuery(ledger, pts(10));
  const leases = splitLeases(ROOT_BUDGET, ledger, 3);
  assert.deepEqual(
    leases[0],
    { depth: 7, queries: 42, points: 1356, candidates: 43, bytes: 43691 },
    'the first child takes the remainder',
  );
  assert.deepEqual(leases[2], { depth: 7, queries: 41, points: 1355, candidates: 42, bytes: 43690 });
  const many = splitLeases(
    { depth: 1, queries: 0, points: 0, candidates: 5, bytes: 4000 },
    { queries: 0, points: 0 },
    10,
  );
  assert.deepEqual(
    many.map((l) => l.candidates),
    [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
    'no floor: 5 candidates for 10 children',
  );
  assert.equal(
    many.reduce((a, l) => a + l.bytes, 0),
    4000,
    'no 1 KiB floor: the byte leases add up to the budget',
  );
  assert.deepEqual(splitLeases(ROOT_BUDGET, newLedger(ROOT_BUDGET), 0), [], 'no query: no lease');
  assert.deepEqual(
    leaseFor(
      { depth: 7, queries: 3, points: 9, candidates: 200, bytes: 500000 },
      { points: 256, candidates: 100, bytes: 65536 },
    ),
    { depth: 7, queries: 3, points: 9, candidates: 100, bytes: 65536 },
  );
});

test('grant limits are clamped to ours; missing or bad values mean ours', () => {
  assert.deepEqual(grantLimits(undefined), { points: 256, candidates: 128, bytes: 131072 });
  assert.deepEqual(grantLimits({ points: 64, candidates: 8, bytes: 4096 }), { points: 64, candidates: 8, bytes: 4096 });
  assert.deepEqual(grantLimits({ points: 1000, candidates: 129, bytes: 131073 }), {
    points: 256,
    candidates: 128,
    bytes: 131072,
  });
  assert.deepEqual(grantLimits({ points: 0, candidates: -1, bytes: 1.5 }), {
    points: 256,
    candidates: 128,
    bytes: 131072,
  });
});

test('grant lifetime is at most 60 s and renewal starts min(5 s, lifetime / 2) before expiry', () => {
  assert.equal(grantLifetime(undefined), 60000);
  assert.equal(grantLifetime(0), 60000);
  assert.equal(grantLifetime(30000), 30000);
  assert.equal(grantLifetime(60001), 60000);
  assert.equal(grantLifetime(1.5), 60000);
  assert.equal(renewDelay(60000), 55000);
  assert.equal(renewDelay(6000), 3000);
  assert.equal(renewDelay(60), 50, 'at least 50 ms');
});

test('child side: request budgets are non-negative integers bounded by the grant; timeouts 0..10 s', () => {
  assert.deepEqual(requestBudgets(undefined), { depth: 0, queries: 0, points: 0, candidates: 128, bytes: 131072 });
  assert.deepEqual(requestBudgets({ depth: 7, queries: 41, points: 1355, candidates: 42, bytes: 43690 }), {
    depth: 7,
    queries: 41,
    points: 1355,
    candidates: 42,
    bytes: 43690,
  });
  assert.deepEqual(requestBudgets({ depth: -1, queries: 2.5, points: '9', candidates: 500, bytes: 1e9 }), {
    depth: 0,
    queries: 0,
    points: 0,
    candidates: 128,
    bytes: 131072,
  });
  assert.equal(requestTimeout(-5), 0);
  assert.equal(requestTimeout(20000), 10000);
  assert.equal(requestTimeout(1450), 1450);
  assert.equal(requestTimeout('5'), 1500);
});

test('1, 4, 16, 64, 127 and 200 sibling realms: leases are disjoint and never exceed what the root has left', () => {
  const sum = (ls, k) => ls.reduce((a, l) => a + l[k], 0);
  for (const n of [1, 4, 16, 64, 127, 200]) {
    const budgets = { depth: 8, queries: 128, points: 4096, candidates: 128, bytes: 131072 };
    const ledger = newLedger(budgets);
    const admitted = Math.min(n, 128);
    const pts = (k) => Array.from({ length: 4 }, (_, i) => ({ point_id: 'p' + (k * 4 + i), x: 0, y: 0 }));
    for (let k = 0; k < n; k++)
      assert.equal(admitQuery(ledger, pts(k)).reason, k < 128 ? null : 'query-budget', `child ${k} of ${n}`);
    assert.equal(ledger.queries, 128 - admitted, `${n} children cost ${admitted} queries`);
    assert.equal(ledger.points, 4096 - 4 * admitted, `${n} children cost their points`);
    const leases = splitLeases(budgets, ledger, admitted);
    assert.equal(leases.length, admitted);
    assert.equal(sum(leases, 'queries'), ledger.queries, `${n}: query leases add up to what is left, no more`);
    assert.equal(sum(leases, 'points'), ledger.points, `${n}: point leases add up to what is left, no more`);
    assert.equal(sum(leases, 'candidates'), 128, `${n}: candidate leases are disjoint (sum 128)`);
    assert.equal(sum(leases, 'bytes'), 131072, `${n}: byte leases are disjoint (sum 128 KiB), no 1 KiB floor`);
    assert.ok(leases.every((l) => l.depth === 7));
    assert.ok(Math.max(...leases.map((l) => l.queries)) - Math.min(...leases.map((l) => l.queries)) <= 1, 'even split');
  }
});

test('the 129th child query of one realm is refused with query-budget', () => {
  const ledger = newLedger({ depth: 8, queries: 128, points: 4096, candidates: 128, bytes: 131072 });
  for (let k = 0; k < 128; k++) assert.equal(admitQuery(ledger, [{ point_id: 'p' + k, x: 0, y: 0 }]).reason, null);
  assert.equal(admitQuery(ledger, [{ point_id: 'p128', x: 0, y: 0 }]).reason, 'query-budget');
});
