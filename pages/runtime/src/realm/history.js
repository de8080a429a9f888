// The top realm's event history as a pure store (spec "What the Host observes": a 60 s window, at
// most 32 recent events; when full every discrete event is kept and the newest moves fill the
// remaining slots (only when discrete events alone overflow are the oldest of them dropped);
// consecutive pointermoves over the same targets (ids and mount generations along the paths),
// pointer id/type/buttons/capture compact to the newest; moves with no target never compact; a
// discrete event or a focus change that OCCURRED between two moves separates them whatever order
// the realms' reports arrive in, and the pending move before it is restored; events are kept in
// occurrence order and `sequence` is microseconds since the Host realm's time origin, bumped to
// stay strictly increasing). The same limits bound a child realm's buffer of observations
// (`boundObservations`). DOM-free: times come in as arguments.
// A store is {events: [], pointer: null, focusChanges: []}.
import { EVENT_WINDOW_MS, MAX_EVENTS, DISCRETE } from '../core/constants.js';

// Compacted-away moves an entry remembers (newest last) so that a separator reported late can
// restore the pending move before it. Reports arrive within the relay latency; 32 is far beyond.
export const MAX_MERGED = 32;

// The compaction identity of a move, or null when it has no target.
export function compactKey(rec) {
  if (!rec.candidates.length) return null;
  return (
    rec.candidates
      .map((c) => c.target_id + '@' + c.path.map((s) => s.mount_id + '#' + s.generation).join('/'))
      .join('|') +
    '|' +
    rec.pointer_id +
    '|' +
    rec.pointer_type +
    '|' +
    rec.buttons +
    '|' +
    rec.pointer_capture
  );
}
// `sequence` of an event at absolute time t (ms): microseconds since the time origin.
export function seqFor(t, timeOrigin) {
  return Math.max(0, Math.round((t - timeOrigin) * 1000));
}

// Drops events observed before now - 60 s.
export function pruneEvents(events, now) {
  const cutoff = now - EVENT_WINDOW_MS;
  for (let i = events.length - 1; i >= 0; i--) if (events[i].observed_ms < cutoff) events.splice(i, 1);
}
// Focus changes are kept by count (the newest 128, four times the event limit), not by the event
// list: a late report older than every kept event must still be separated from its neighbours.
function pruneFocusChanges(store) {
  const fc = store.focusChanges;
  if (fc && fc.length > 4 * MAX_EVENTS) fc.splice(0, fc.length - 4 * MAX_EVENTS);
}
// Whether a focus change occurred in (t1, t2].
function focusChangedBetween(store, t1, t2) {
  const fc = store.focusChanges || [];
  for (let i = fc.length - 1; i >= 0; i--) {
    if (fc[i] <= t1) return false;
    if (fc[i] <= t2) return true;
  }
  return false;
}
// Whether `newer` may absorb `older` (both in the store, older first in occurrence order).
function compactable(store, older, newer) {
  return !!(
    older &&
    newer &&
    older.type === 'pointermove' &&
    newer.type === 'pointermove' &&
    older.key &&
    older.key === newer.key &&
    older.t_abs <= newer.t_abs &&
    !focusChangedBetween(store, older.t_abs, newer.t_abs)
  );
}
// `newer` absorbs `older`: the newest complete move is kept, the older ones are remembered.
function absorb(newer, older) {
  // older's own list is taken over (it is dropped from older), so a move costs no copy of it.
  const m = older.merged || [];
  older.merged = null;
  m.push(older);
  if (newer.merged) for (let i = 0; i < newer.merged.length; i++) m.push(newer.merged[i]);
  // Usually already in occurrence order (a late report is the exception): sort only then.
  let ordered = true;
  for (let i = 1; i < m.length && ordered; i++) if (m[i - 1].t_abs > m[i].t_abs) ordered = false;
  if (!ordered) m.sort((a, b) => a.t_abs - b.t_abs);
  if (m.length > MAX_MERGED) m.splice(0, m.length - MAX_MERGED);
  newer.merged = m;
}
// A separator (discrete event or focus change) occurred at t: a move entry whose compacted span
// crosses t is split, the newest move before t becoming its own entry again (pending movement is
// recorded before the separator).
function splitAt(store, t) {
  const evs = store.events;
  for (let i = evs.length - 1; i >= 0; i--) {
    const e = evs[i];
    if (e.t_abs <= t) break;
    if (e.type !== 'pointermove' || !e.merged || !e.merged.length || e.merged[0].t_abs >= t) continue;
    const before = e.merged.filter((x) => x.t_abs < t);
    const after = e.merged.filter((x) => x.t_abs >= t);
    const pending = before.pop();
    pending.merged = before;
    e.merged = after;
    const prev = evs[i - 1];
    if (prev && pending.sequence <= prev.sequence) pending.sequence = prev.sequence + 1;
    if (pending.sequence >= e.sequence) pending.sequence = e.sequence - 1; // sequences are µs apart
    evs.splice(i, 0, pending);
    return;
  }
}
// Keeps at most MAX_EVENTS: every discrete event, the newest moves in the remaining slots; only
// when discrete events alone exceed the limit are the oldest of them dropped.
export function enforceLimit(evs, limit = MAX_EVENTS, isDiscrete = (x) => !!DISCRETE[x.type]) {
  let over = evs.length - limit;
  if (over <= 0) return;
  for (let i = 0; i < evs.length && over > 0;) {
    if (!isDiscrete(evs[i])) {
      evs.splice(i, 1);
      over--;
    } else i++;
  }
  if (over > 0) evs.splice(0, over);
}

// Records a focus change that occurred at t (a focus, a clear, an invalidation, a transfer into
// the composer): moves on both sides of it never compact, whenever the report arrives.
export function recordFocusChange(store, t) {
  if (!store.focusChanges) store.focusChanges = [];
  const fc = store.focusChanges;
  let pos = fc.length;
  while (pos > 0 && fc[pos - 1] > t) pos--;
  fc.splice(pos, 0, t);
  splitAt(store, t);
  pruneFocusChanges(store);
}

// Records one event: rec = {type, t_abs, observed_ms, candidates, excluded, pointer_*...}.
// Sets rec.key and rec.sequence; updates store.pointer when rec is the latest occurrence.
export function insertEvent(store, rec, timeOrigin) {
  const t = rec.t_abs;
  rec.key = rec.type === 'pointermove' && !rec.excluded ? compactKey(rec) : null;
  rec.merged = null;
  pruneEvents(store.events, rec.observed_ms);
  splitAt(store, t); // anything that occurred inside a compacted span separates it (re-joined below when compactable)
  // Realms report asynchronously, so arrival order is not occurrence order: events are kept in
  // occurrence order (t_abs) and `sequence` is derived from it (microseconds since the Host realm's
  // time origin, bumped to stay strictly increasing), so it is monotonic and stable.
  const evs = store.events;
  let pos = evs.length;
  while (pos > 0 && evs[pos - 1].t_abs > t) pos--;
  const prev = evs[pos - 1],
    next = evs[pos];
  let seq = seqFor(t, timeOrigin);
  if (prev && seq <= prev.sequence) seq = prev.sequence + 1;
  if (next && seq >= next.sequence) {
    pos = evs.length;
    seq = Math.max(seqFor(t, timeOrigin), evs[evs.length - 1].sequence + 1);
  }
  rec.sequence = seq;
  evs.splice(pos, 0, rec);
  // Compaction by occurrence: with the move before it, then the move after it absorbs it.
  let at = pos;
  if (compactable(store, evs[at - 1], rec)) {
    absorb(rec, evs[at - 1]);
    evs.splice(at - 1, 1);
    at--;
  }
  if (compactable(store, rec, evs[at + 1])) {
    absorb(evs[at + 1], rec);
    evs.splice(at, 1);
  }
  enforceLimit(evs);
  pruneFocusChanges(store);
  if (!store.pointer || store.pointer.t_abs <= t) store.pointer = rec;
}

// Empties a child realm's window of pointermoves (a store like the history, issue 23) for a merge
// by its parent: every move it holds, those compacted away included (the parent compacts them
// again, against separators from realms this one never saw), oldest first, without the window's
// own bookkeeping (key, merged, sequence). Moves observed before now - 60 s are left out.
export function takeWindow(win, now) {
  pruneEvents(win.events, now);
  const out = [];
  const plain = (r) => {
    const o = Object.assign({}, r);
    delete o.key;
    delete o.merged;
    delete o.sequence;
    return o;
  };
  for (const e of win.events) {
    for (const m of e.merged || []) if (m.observed_ms >= now - EVENT_WINDOW_MS) out.push(plain(m));
    out.push(plain(e));
  }
  win.events = [];
  win.pointer = null;
  out.sort((a, b) => a.t_abs - b.t_abs);
  return out;
}

// A child realm's buffer of observations before its grant ([{at, obs}], oldest first): the same
// limits as the history (60 s by `at`, 32 events, discrete events kept, the newest moves filling
// the rest). Focus observations are state, not events: they never count against the 32 and are
// kept (at most the newest 32 of them).
export function boundObservations(items, now) {
  const cutoff = now - EVENT_WINDOW_MS;
  for (let i = items.length - 1; i >= 0; i--) if (items[i].at < cutoff) items.splice(i, 1);
  const isEvent = (it) => it.obs && it.obs.kind === 'event' && it.obs.event;
  const events = items.filter(isEvent);
  const others = items.filter((it) => !isEvent(it));
  enforceLimit(events, MAX_EVENTS, (it) => !!DISCRETE[it.obs.event.type]);
  if (others.length > MAX_EVENTS) others.splice(0, others.length - MAX_EVENTS);
  const keep = new Set(events.concat(others));
  for (let i = items.length - 1; i >= 0; i--) if (!keep.has(items[i])) items.splice(i, 1);
}
