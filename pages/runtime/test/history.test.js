// The top realm's event history (spec: recent events): 60 s window, at most 32 events with the
// oldest move dropped first, move compaction, occurrence order and strictly increasing sequence.
// Times are injected: t_abs (absolute ms) and observed_ms (wall clock ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertEvent, pruneEvents, compactKey, seqFor } from '../src/history.js';

const ORIGIN = 1000; // the Host realm's time origin (ms)
const seg = (id, gen = 1) => ({ kind: 'element', mount_id: id, generation: gen });
const target = (id, gen = 1) => ({ target_id: 't-' + id, path: [seg('host', 1), seg(id, gen)] });
let n = 0;
function ev(type, t, extra = {}) {
  n++;
  return Object.assign({ event_id: 'ev-' + n, type: type, t_abs: ORIGIN + t, observed_ms: 1_700_000_000_000 + t, candidates: [],
    excluded: false, focusEpoch: 0, pointer_id: 1, pointer_type: 'mouse', buttons: 0, pointer_capture: false }, extra);
}
const store = () => ({ events: [], pointer: null });
const types = (s) => s.events.map((e) => e.type);

test('the 33rd event evicts the oldest move first (discrete events are preferred)', () => {
  const s = store();
  insertEvent(s, ev('click', 1), ORIGIN);
  insertEvent(s, ev('pointermove', 2), ORIGIN); // no target: never compacts
  insertEvent(s, ev('pointermove', 3), ORIGIN);
  for (let i = 0; i < 29; i++) insertEvent(s, ev('pointerdown', 10 + i), ORIGIN);
  assert.equal(s.events.length, 32);
  insertEvent(s, ev('pointerup', 100), ORIGIN);
  assert.equal(s.events.length, 32);
  assert.equal(s.events[0].type, 'click', 'the older discrete event survives');
  assert.equal(s.events[1].t_abs, ORIGIN + 3, 'the oldest move went first');
  insertEvent(s, ev('pointerup', 101), ORIGIN);
  assert.ok(!types(s).includes('pointermove'), 'then the next oldest move');
  assert.equal(s.events[0].type, 'click');
});

test('when only discrete events are left, the oldest event is dropped', () => {
  const s = store();
  for (let i = 0; i < 33; i++) insertEvent(s, ev('click', i), ORIGIN);
  assert.equal(s.events.length, 32);
  assert.equal(s.events[0].t_abs, ORIGIN + 1);
  assert.equal(s.events[31].t_abs, ORIGIN + 32);
});

test('events observed more than 60 s before the newest are pruned; exactly 60 s is kept', () => {
  const s = store();
  insertEvent(s, ev('click', 0), ORIGIN);
  insertEvent(s, ev('click', 1), ORIGIN);
  insertEvent(s, ev('click', 60000), ORIGIN);
  assert.equal(s.events.length, 3, 'the event at exactly now - 60 s stays');
  insertEvent(s, ev('click', 60001), ORIGIN);
  assert.deepEqual(s.events.map((e) => e.t_abs - ORIGIN), [1, 60000, 60001]);
  const events = s.events.slice();
  pruneEvents(events, 1_700_000_000_000 + 120001);
  assert.deepEqual(events.map((e) => e.t_abs - ORIGIN), [60001]);
});

test('consecutive moves over the same targets compact to the newest, with a new sequence', () => {
  const s = store();
  const a = ev('pointermove', 10, { candidates: [target('a')] });
  const b = ev('pointermove', 20, { candidates: [target('a')] });
  insertEvent(s, a, ORIGIN);
  insertEvent(s, b, ORIGIN);
  assert.equal(s.events.length, 1);
  assert.equal(s.events[0], b);
  assert.equal(b.sequence, seqFor(ORIGIN + 20, ORIGIN));
  assert.ok(b.sequence > a.sequence);
  assert.equal(s.pointer, b);
});

test('moves do not compact across a different target, generation, pointer state or focus change', () => {
  const variants = [
    { candidates: [target('b')] },
    { candidates: [target('a', 2)] },
    { candidates: [target('a'), target('c')] },
    { candidates: [target('a')], buttons: 1 },
    { candidates: [target('a')], pointer_id: 2 },
    { candidates: [target('a')], pointer_type: 'pen' },
    { candidates: [target('a')], pointer_capture: true },
    { candidates: [target('a')], focusEpoch: 1 },
  ];
  for (const v of variants) {
    const s = store();
    insertEvent(s, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
    insertEvent(s, ev('pointermove', 20, v), ORIGIN);
    assert.equal(s.events.length, 2, JSON.stringify(v));
  }
});

test('moves with no target, excluded moves and moves after a discrete event never compact', () => {
  let s = store();
  insertEvent(s, ev('pointermove', 10), ORIGIN);
  insertEvent(s, ev('pointermove', 20), ORIGIN);
  assert.equal(s.events.length, 2);
  assert.equal(compactKey(ev('pointermove', 1)), null);
  s = store();
  insertEvent(s, ev('pointermove', 10, { candidates: [target('a')], excluded: true }), ORIGIN);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')], excluded: true }), ORIGIN);
  assert.equal(s.events.length, 2);
  assert.equal(s.events[1].key, null);
  s = store();
  insertEvent(s, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('click', 15, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(types(s), ['pointermove', 'click', 'pointermove']);
});

test('a late report is inserted in occurrence order and never becomes the pointer', () => {
  const s = store();
  const first = ev('click', 10), third = ev('click', 30), late = ev('pointerdown', 20);
  insertEvent(s, first, ORIGIN);
  insertEvent(s, third, ORIGIN);
  insertEvent(s, late, ORIGIN);
  assert.deepEqual(s.events.map((e) => e.t_abs - ORIGIN), [10, 20, 30]);
  assert.equal(s.pointer, third);
  assert.deepEqual(s.events.map((e) => e.sequence), [10000, 20000, 30000]);
});

test('a late move never compacts with the move it precedes', () => {
  const s = store();
  insertEvent(s, ev('pointermove', 30, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  assert.equal(s.events.length, 2);
});

test('sequence is microseconds since the time origin, bumped to stay strictly increasing', () => {
  assert.equal(seqFor(ORIGIN + 1.5, ORIGIN), 1500);
  assert.equal(seqFor(ORIGIN - 5, ORIGIN), 0);
  const s = store();
  for (let i = 0; i < 3; i++) insertEvent(s, ev('click', 7), ORIGIN);
  assert.deepEqual(s.events.map((e) => e.sequence), [7000, 7001, 7002]);
  // An arrival that cannot fit between its neighbours' sequences goes to the end with a fresh one.
  const t = store();
  insertEvent(t, ev('click', 1), ORIGIN);       // 1000
  insertEvent(t, ev('click', 1.001), ORIGIN);   // 1001
  insertEvent(t, ev('click', 1.0005), ORIGIN);  // would be 1001 (rounded) between 1000 and 1001
  assert.deepEqual(t.events.map((e) => e.sequence), [1000, 1001, 1002]);
  for (let i = 1; i < t.events.length; i++) assert.ok(t.events[i].sequence > t.events[i - 1].sequence);
});
