// Subscription coalescing (core/coalesce.js) on a fake clock: at most 10 notices per second, one
// timer per subscription, dropped counts, backpressure, terminal and silent ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCoalescer } from '../src/core/coalesce.js';

function fakeEnv() {
  const env = { t: 0, timers: [], out: [], created: 0 };
  env.now = () => env.t;
  env.setTimer = (fn, ms) => {
    env.created++;
    const h = { at: env.t + ms, fn };
    env.timers.push(h);
    return h;
  };
  env.clearTimer = (h) => (env.timers = env.timers.filter((x) => x !== h));
  env.deliver = (n) => env.out.push(n);
  env.advance = (ms) => {
    const end = env.t + ms;
    for (;;) {
      env.timers.sort((a, b) => a.at - b.at);
      const h = env.timers[0];
      if (!h || h.at > end) break;
      env.timers.shift();
      env.t = h.at;
      h.fn();
    }
    env.t = end;
  };
  return env;
}
const R = { tree: 1, observation: 0, geometry: 1 };

test('the first update is delivered at once; updates inside 100 ms merge into one notice with dropped', () => {
  const env = fakeEnv();
  const c = createCoalescer(env);
  c.push('tree', R);
  assert.equal(env.out.length, 1);
  assert.deepEqual(env.out[0], { kind: 'tree', kinds: ['tree'], revisions: R, dropped: 0 });
  for (let i = 0; i < 5; i++) {
    env.advance(10);
    c.push(i % 2 ? 'geometry' : 'tree', R);
  }
  assert.equal(env.out.length, 1);
  env.advance(100);
  assert.equal(env.out.length, 2);
  assert.deepEqual(env.out[1].kinds, ['tree', 'geometry']);
  assert.equal(env.out[1].dropped, 4);
  assert.equal(env.created, 1, 'one timer for the interval, not one per update');
});
test('a steady stream of updates yields at most 10 notices per second', () => {
  const env = fakeEnv();
  const c = createCoalescer(env);
  for (let i = 0; i < 1000; i++) {
    c.push('tree', R);
    env.advance(1);
  }
  env.advance(200);
  assert.ok(env.out.length <= 11 && env.out.length >= 10, `notices in ~1.2 s: ${env.out.length}`);
  for (let i = 1; i < env.out.length; i++) assert.ok(env.out[i].dropped >= 0);
});
test('more than 50 updates merged into one notice turn it into backpressure (50 stay a plain notice)', () => {
  const env = fakeEnv();
  const c = createCoalescer(env);
  c.push('tree', R);
  for (let i = 0; i < 51; i++) c.push('tree', R);
  env.advance(100);
  assert.equal(env.out[1].kind, 'tree');
  assert.equal(env.out[1].dropped, 50);
  for (let i = 0; i < 52; i++) c.push('tree', R);
  env.advance(100);
  assert.equal(env.out[2].kind, 'backpressure');
  assert.equal(env.out[2].dropped, 51);
});
test('close delivers one terminal invalidation counting what was pending; cancel delivers nothing', () => {
  const env = fakeEnv();
  const c = createCoalescer(env);
  c.push('tree', R);
  c.push('tree', R);
  c.close('invalidation', R);
  assert.deepEqual(env.out[1], { kind: 'invalidation', kinds: ['invalidation'], revisions: R, dropped: 1 });
  c.push('tree', R);
  env.advance(500);
  assert.equal(env.out.length, 2);
  const env2 = fakeEnv();
  const d = createCoalescer(env2);
  d.push('tree', R);
  d.push('tree', R);
  d.cancel();
  env2.advance(500);
  assert.equal(env2.out.length, 1);
});
