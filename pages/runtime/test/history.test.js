// The top realm's event history (spec: recent events): 60 s window, at most 32 events with every
// discrete event kept and the newest moves in the remaining slots, move compaction decided by
// occurrence order (not report arrival), occurrence order and strictly increasing sequence.
// Times are injected: t_abs (absolute ms) and observed_ms (wall clock ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  insertEvent,
  pruneEvents,
  compactKey,
  seqFor,
  recordFocusChange,
  enforceLimit,
  boundObservations,
  MAX_MERGED,
} from '../src/realm/history.js';

const ORIGIN = 1000; // the Host realm's time origin (ms)
const seg = (id, gen = 1) => ({ kind: 'element', mount_id: id, generation: gen });
const target = (id, gen = 1) => ({ target_id: 't-' + id, path: [seg('host', 1), seg(id, gen)] });
let n = 0;
function ev(type, t, extra = {}) {
  n++;
  return Object.assign(
    {
      event_id: 'ev-' + n,
      type: type,
      t_abs: ORIGIN + t,
      observed_ms: 1_700_000_000_000 + t,
      candidates: [],
      excluded: false,
      pointer_id: 1,
      pointer_type: 'mouse',
      buttons: 0,
      pointer_capture: false,
    },
    extra,
  );
}
const store = () => ({ events: [], pointer: null, focusChanges: [] });
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
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [1, 60000, 60001],
  );
  const events = s.events.slice();
  pruneEvents(events, 1_700_000_000_000 + 120001);
  assert.deepEqual(
    events.map((e) => e.t_abs - ORIGIN),
    [60001],
  );
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
  const first = ev('click', 10),
    third = ev('click', 30),
    late = ev('pointerdown', 20);
  insertEvent(s, first, ORIGIN);
  insertEvent(s, third, ORIGIN);
  insertEvent(s, late, ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [10, 20, 30],
  );
  assert.equal(s.pointer, third);
  assert.deepEqual(
    s.events.map((e) => e.sequence),
    [10000, 20000, 30000],
  );
});

test('a late move compacts by occurrence: consecutive moves over one target, whatever the arrival order', () => {
  const s = store();
  const newer = ev('pointermove', 30, { candidates: [target('a')] });
  insertEvent(s, newer, ORIGIN);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  assert.equal(s.events.length, 1);
  assert.equal(s.events[0], newer, 'the newest complete move is kept');
  // A late move over another target between two moves over `a` separates them.
  const t = store();
  insertEvent(t, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
  insertEvent(t, ev('pointermove', 30, { candidates: [target('a')] }), ORIGIN);
  insertEvent(t, ev('pointermove', 20, { candidates: [target('b')] }), ORIGIN);
  assert.deepEqual(
    t.events.map((e) => e.t_abs - ORIGIN),
    [10, 20, 30],
    'the compacted move at 10 is restored',
  );
});

test('a focus change that occurred between two moves separates them, whenever it is reported', () => {
  // Reported before the second move.
  let s = store();
  insertEvent(s, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
  recordFocusChange(s, ORIGIN + 15);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [10, 20],
  );
  // Reported after both moves (a child realm's focus report arriving late): the pending move
  // before it (the newest before 15) is restored, the later ones stay compacted.
  s = store();
  for (const t of [10, 12, 14, 16, 18]) insertEvent(s, ev('pointermove', t, { candidates: [target('a')] }), ORIGIN);
  assert.equal(s.events.length, 1);
  recordFocusChange(s, ORIGIN + 15);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [14, 18],
  );
  assert.ok(s.events[0].sequence < s.events[1].sequence);
  // A move arriving after the late report over the same target still compacts with the newer side only.
  insertEvent(s, ev('pointermove', 13, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [14, 18],
  );
  insertEvent(s, ev('pointermove', 19, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [14, 19],
  );
  // A focus change reported before a late move that occurred before it.
  s = store();
  recordFocusChange(s, ORIGIN + 15);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [10, 20],
  );
  // A focus change before both moves or after both does not separate them.
  s = store();
  recordFocusChange(s, ORIGIN + 5);
  insertEvent(s, ev('pointermove', 10, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('pointermove', 20, { candidates: [target('a')] }), ORIGIN);
  recordFocusChange(s, ORIGIN + 25);
  assert.deepEqual(
    s.events.map((e) => e.t_abs - ORIGIN),
    [20],
  );
});

test('a discrete event reported after the moves around it separates them; the pending move is recorded before it', () => {
  const s = store();
  for (const t of [10, 12, 14, 16]) insertEvent(s, ev('pointermove', t, { candidates: [target('a')] }), ORIGIN);
  insertEvent(s, ev('pointerdown', 13, { candidates: [target('a')] }), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.type + '@' + (e.t_abs - ORIGIN)),
    ['pointermove@12', 'pointerdown@13', 'pointermove@16'],
  );
  for (let i = 1; i < s.events.length; i++) assert.ok(s.events[i].sequence > s.events[i - 1].sequence);
});

test('remembered compacted moves are bounded', () => {
  const s = store();
  for (let i = 0; i < 3 * MAX_MERGED; i++)
    insertEvent(s, ev('pointermove', 10 + i, { candidates: [target('a')] }), ORIGIN);
  assert.equal(s.events.length, 1);
  assert.equal(s.events[0].merged.length, MAX_MERGED);
});

test('a full history keeps every discrete event and the newest moves, whatever the arrival order', () => {
  // 10 clicks (move + down + up + click each), then 12 moves alternating between targets.
  const all = [];
  let t = 0;
  for (let i = 0; i < 10; i++) {
    all.push(ev('pointermove', t++, { candidates: [target('l')] }));
    for (const ty of ['pointerdown', 'pointerup', 'click']) all.push(ev(ty, t++, { candidates: [target('l')] }));
  }
  for (let i = 0; i < 12; i++) all.push(ev('pointermove', t++, { candidates: [target(i % 2 ? 'l' : 'r')] }));
  for (const order of ['occurrence', 'reversed', 'interleaved']) {
    const s = store();
    const list =
      order === 'occurrence'
        ? all.slice()
        : order === 'reversed'
          ? all.slice().reverse()
          : all.filter((_, i) => i % 2 === 0).concat(all.filter((_, i) => i % 2 === 1));
    for (const e of list) insertEvent(s, Object.assign({}, e), ORIGIN);
    assert.equal(s.events.length, 32, order);
    assert.equal(s.events.filter((e) => e.type !== 'pointermove').length, 30, order + ': every discrete event');
    assert.deepEqual(
      s.events.filter((e) => e.type === 'pointermove').map((e) => e.t_abs - ORIGIN),
      [50, 51],
      order + ': the newest moves',
    );
  }
});

test('enforceLimit: N events pass, N + 1 drops the oldest move, then the oldest discrete event', () => {
  const mk = (types) => types.map((ty, i) => ({ type: ty, i: i }));
  const evs = mk(['click', 'pointermove', 'click', 'pointermove']);
  enforceLimit(evs, 4);
  assert.equal(evs.length, 4);
  enforceLimit(evs, 3);
  assert.deepEqual(
    evs.map((e) => e.i),
    [0, 2, 3],
  );
  enforceLimit(evs, 1);
  assert.deepEqual(
    evs.map((e) => e.i),
    [2],
  );
});

test('a child buffer before its grant keeps the same limits: 60 s, 32 events, discrete preferred, focus reports kept', () => {
  const now = 1_700_000_100_000;
  const item = (kind, type, at) => ({
    at: at,
    obs: kind === 'event' ? { kind: 'event', event: { type: type } } : { kind: kind },
  });
  const items = [];
  for (let i = 0; i < 40; i++) items.push(item('event', i % 4 === 0 ? 'pointermove' : 'click', now - 1000 + i));
  items.push(item('focus', null, now - 500));
  items.push(item('event', 'click', now - 60001)); // too old
  items.sort((a, b) => a.at - b.at);
  boundObservations(items, now);
  const evs = items.filter((x) => x.obs.kind === 'event');
  assert.equal(evs.length, 32);
  assert.equal(evs.filter((x) => x.obs.event.type === 'click').length, 30, 'every discrete event of the window');
  assert.ok(
    items.some((x) => x.obs.kind === 'focus'),
    'the focus report is kept',
  );
  assert.ok(!items.some((x) => x.at === now - 60001), 'older than 60 s is dropped');
  assert.ok(
    items.some((x) => x.at === now - 60000 + 59000 + 36),
    'the newest moves stay',
  );
});

test('sequence is microseconds since the time origin, bumped to stay strictly increasing', () => {
  assert.equal(seqFor(ORIGIN + 1.5, ORIGIN), 1500);
  assert.equal(seqFor(ORIGIN - 5, ORIGIN), 0);
  const s = store();
  for (let i = 0; i < 3; i++) insertEvent(s, ev('click', 7), ORIGIN);
  assert.deepEqual(
    s.events.map((e) => e.sequence),
    [7000, 7001, 7002],
  );
  // An arrival that cannot fit between its neighbours' sequences goes to the end with a fresh one.
  const t = store();
  insertEvent(t, ev('click', 1), ORIGIN); // 1000
  insertEvent(t, ev('click', 1.001), ORIGIN); // 1001
  insertEvent(t, ev('click', 1.0005), ORIGIN); // would be 1001 (rounded) between 1000 and 1001
  assert.deepEqual(
    t.events.map((e) => e.sequence),
    [1000, 1001, 1002],
  );
  for (let i = 1; i < t.events.length; i++) assert.ok(t.events[i].sequence > t.events[i - 1].sequence);
});
