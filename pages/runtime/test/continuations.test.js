// Continuations (core/continuations.js): single use, bound, 30 s of the (fake) clock, revision-bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueContinuation, takeContinuation } from '../src/core/continuations.js';

let n = 0;
const id = () => 'c-' + ++n;
const rec = { binding: 'caller|find|scope|q', tree: 7, offset: 8, work: 8 };

test('a continuation is taken once: the second use is continuation-used', () => {
  const s = new Map();
  const t = issueContinuation(s, rec, 1000, id);
  assert.equal(takeContinuation(s, t, rec.binding, 7, 1001).ok.offset, 8);
  assert.deepEqual(takeContinuation(s, t, rec.binding, 7, 1002), {
    outcome: 'unavailable',
    reason: 'continuation-used',
  });
});
test('a continuation expires after 30 s: at 29,999 ms it is taken, at 30,000 ms it is stale', () => {
  const s = new Map();
  const a = issueContinuation(s, rec, 0, id);
  assert.ok(takeContinuation(s, a, rec.binding, 7, 29999).ok);
  const b = issueContinuation(s, rec, 0, id);
  assert.deepEqual(takeContinuation(s, b, rec.binding, 7, 30000), { outcome: 'stale', reason: 'continuation-expired' });
});
test('a changed tree revision makes it stale with revision-changed', () => {
  const s = new Map();
  const t = issueContinuation(s, rec, 0, id);
  assert.deepEqual(takeContinuation(s, t, rec.binding, 8, 1), { outcome: 'stale', reason: 'revision-changed' });
});
test('another caller, scope or query, or an unknown token, is invalid-request and spends the token', () => {
  const s = new Map();
  const t = issueContinuation(s, rec, 0, id);
  assert.deepEqual(takeContinuation(s, t, 'other|find|scope|q', 7, 1), {
    outcome: 'unavailable',
    reason: 'invalid-request',
  });
  assert.deepEqual(takeContinuation(s, t, rec.binding, 7, 1), { outcome: 'unavailable', reason: 'continuation-used' });
  assert.deepEqual(takeContinuation(s, 'c-unknown', rec.binding, 7, 1), {
    outcome: 'unavailable',
    reason: 'invalid-request',
  });
});
test('the store keeps at most its bound, dropping the oldest', () => {
  const s = new Map();
  const first = issueContinuation(s, rec, 0, id, 3);
  for (let i = 0; i < 3; i++) issueContinuation(s, rec, 0, id, 3);
  assert.equal(s.size, 3);
  assert.equal(takeContinuation(s, first, rec.binding, 7, 1).reason, 'invalid-request');
});
