// A child realm's window of pointermoves (issue 23: no move is pushed to the Host; the Host merges
// the children's windows when it needs them). The claim under test: recording a child's moves in
// its own window (compacted there, separated by its own discrete events and focus changes) and
// merging the window into the Host's history later gives exactly the history the Host had when
// every move was reported as it happened, whatever separators other realms reported meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertEvent, recordFocusChange, takeWindow, MAX_MERGED } from '../src/realm/history.js';
import { MAX_EVENTS, DISCRETE } from '../src/core/constants.js';

const ORIGIN = 1000;
const seg = (id, gen = 1) => ({ kind: 'element', mount_id: id, generation: gen });
const target = (id, gen = 1) => ({ target_id: 't-' + id, path: [seg('leaf', 1), seg(id, gen)] });
const store = () => ({ events: [], pointer: null, focusChanges: [] });
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
const copy = (r) => Object.assign({}, r, { candidates: r.candidates.slice(), merged: null, key: null });
// What a history says, comparably: each entry's id, sequence, type and the ids it absorbed; the pointer.
const shape = (s) => ({
  events: s.events.map((e) => [e.event_id, e.sequence, e.type, (e.merged || []).map((m) => m.event_id)]),
  pointer: s.pointer && s.pointer.event_id,
});

// A script of what happened, in occurrence order: {realm: 'child' | 'host', kind: 'event' | 'focus', rec}.
// Pushed: everything immediately. Pulled: the child's moves kept in its window (its own discrete
// events and focus changes separate the window and are reported at once), the window merged at
// the `pullAt` indexes and at the end.
function replay(script, pullAt = []) {
  const pushed = store();
  for (const s of script) {
    if (s.kind === 'focus') recordFocusChange(pushed, s.t);
    else insertEvent(pushed, copy(s.rec), ORIGIN);
  }
  const pulled = store();
  const win = store();
  const merge = () => {
    for (const r of takeWindow(win, 1_700_000_000_000 + 10_000)) insertEvent(pulled, copy(r), ORIGIN);
  };
  script.forEach((s, i) => {
    if (s.realm === 'child' && s.kind === 'event' && s.rec.type === 'pointermove')
      insertEvent(win, copy(s.rec), ORIGIN);
    else {
      if (s.realm === 'child') recordFocusChange(win, s.kind === 'focus' ? s.t : s.rec.t_abs);
      if (s.kind === 'focus') recordFocusChange(pulled, s.t);
      else insertEvent(pulled, copy(s.rec), ORIGIN);
    }
    if (pullAt.includes(i)) merge();
  });
  merge();
  return [shape(pushed), shape(pulled)];
}
const move = (realm, t, on, extra = {}) => ({
  realm,
  kind: 'event',
  rec: ev('pointermove', t, Object.assign({ candidates: on ? [target(on)] : [] }, extra)),
});
const discrete = (realm, type, t, on) => ({ realm, kind: 'event', rec: ev(type, t, { candidates: [target(on)] }) });
const focus = (realm, t) => ({ realm, kind: 'focus', t: ORIGIN + t });

test('child moves merged later compact as if each had been reported at once', () => {
  const script = [];
  for (let i = 0; i < 10; i++) script.push(move('child', i, 'a'));
  for (let i = 10; i < 20; i++) script.push(move('child', i, 'b'));
  const [pushed, pulled] = replay(script);
  assert.deepEqual(pulled, pushed);
  assert.equal(pushed.events.length, 2, 'one compacted move per target');
});

test('a separator in the Host between two child moves over one target splits them in the merge too', () => {
  const script = [move('child', 1, 'a'), move('child', 2, 'a'), focus('host', 3), move('child', 4, 'a')];
  script.push(discrete('host', 'click', 5, 'h'), move('child', 6, 'a'), move('child', 7, 'a'));
  const [pushed, pulled] = replay(script);
  assert.deepEqual(pulled, pushed);
  assert.equal(pushed.events.length, 4, 'move, move, click, move');
});

test("the child's own discrete events and focus changes separate its window", () => {
  const script = [move('child', 1, 'a'), discrete('child', 'pointerdown', 2, 'a'), move('child', 3, 'a')];
  script.push(discrete('child', 'pointerup', 4, 'a'), move('child', 5, 'a'), focus('child', 6), move('child', 7, 'a'));
  const [pushed, pulled] = replay(script, [2]);
  assert.deepEqual(pulled, pushed);
});

test('Host moves and child moves interleaved keep occurrence order and sequences', () => {
  const script = [];
  for (let i = 0; i < 40; i++) script.push(move(i % 3 ? 'child' : 'host', i * 2, i % 3 ? 'c' + (i % 2) : 'h'));
  const [pushed, pulled] = replay(script, [5, 17]);
  assert.deepEqual(pulled, pushed);
});

test('a full history keeps the same 32 events when the moves arrive in a merge', () => {
  const script = [];
  for (let i = 0; i < 50; i++) {
    script.push(move('child', i * 4, 'a' + (i % 5)));
    if (i % 3 === 0) script.push(discrete('host', 'click', i * 4 + 1, 'h'));
    if (i % 7 === 0) script.push(discrete('child', 'pointerdown', i * 4 + 2, 'a0'));
  }
  const [pushed, pulled] = replay(script, [10, 40]);
  assert.deepEqual(pulled, pushed);
  assert.equal(pushed.events.length, MAX_EVENTS);
});

test('moves with pointer-state changes, no target or excluded hits never compact, in either flow', () => {
  const script = [move('child', 1, 'a'), move('child', 2, 'a', { buttons: 1 }), move('child', 3, null)];
  script.push(
    move('child', 4, null),
    move('child', 5, 'a', { excluded: true }),
    move('child', 6, 'a', { excluded: true }),
  );
  script.push(move('child', 7, 'a', { pointer_capture: true }), move('child', 8, 'a'));
  const [pushed, pulled] = replay(script, [3]);
  assert.deepEqual(pulled, pushed);
});

test('a window holds at most 32 entries, each remembering at most MAX_MERGED moves, and empties when taken', () => {
  const win = store();
  for (let i = 0; i < 200; i++)
    insertEvent(win, ev('pointermove', i, { candidates: [target('a' + (i % 40))] }), ORIGIN);
  for (let i = 0; i < 100; i++) insertEvent(win, ev('pointermove', 300 + i, { candidates: [target('z')] }), ORIGIN);
  assert.ok(win.events.length <= MAX_EVENTS);
  const taken = takeWindow(win, 1_700_000_000_000 + 400);
  assert.ok(taken.length <= MAX_EVENTS * (MAX_MERGED + 1));
  assert.ok(
    taken.every((r, i) => i === 0 || taken[i - 1].t_abs <= r.t_abs),
    'oldest first',
  );
  assert.ok(taken.every((r) => r.type === 'pointermove' && !r.merged));
  assert.equal(win.events.length, 0);
  assert.equal(win.pointer, null);
  assert.deepEqual(takeWindow(win, 1_700_000_000_000 + 400), []);
});

test('moves older than 60 s leave the window before a merge', () => {
  const win = store();
  insertEvent(win, ev('pointermove', 0, { candidates: [target('a')] }), ORIGIN);
  insertEvent(win, ev('pointermove', 10, { candidates: [target('b')] }), ORIGIN);
  const taken = takeWindow(win, 1_700_000_000_000 + 60005);
  assert.deepEqual(
    taken.map((r) => r.t_abs - ORIGIN),
    [10],
  );
  assert.ok(!DISCRETE.pointermove);
});
