// The top realm's event history as a pure store (spec: recent events — a 60 s window, at most 32
// events; when full the oldest move is dropped first (discrete events are preferred), else the
// oldest event; consecutive pointermoves over the same targets (ids and mount generations along
// the paths), pointer id/type/buttons/capture and no focus change in between compact to the newest;
// moves with no target never compact; events are kept in occurrence order and `sequence` is
// microseconds since the Host realm's time origin, bumped to stay strictly increasing).
// DOM-free: times come in as arguments. A store is {events: [], pointer: null}.
import { EVENT_WINDOW_MS, MAX_EVENTS, DISCRETE } from './constants.js';

// The compaction identity of a move, or null when it has no target.
export function compactKey(rec) {
  if (!rec.candidates.length) return null;
  return rec.candidates.map((c) => c.target_id + '@' + c.path.map((s) => s.mount_id + '#' + s.generation).join('/')).join('|') +
    '|' + rec.pointer_id + '|' + rec.pointer_type + '|' + rec.buttons + '|' + rec.pointer_capture;
}
// `sequence` of an event at absolute time t (ms): microseconds since the time origin.
export function seqFor(t, timeOrigin) { return Math.max(0, Math.round((t - timeOrigin) * 1000)); }

// Drops events observed before now - 60 s.
export function pruneEvents(events, now) {
  const cutoff = now - EVENT_WINDOW_MS;
  for (let i = events.length - 1; i >= 0; i--) if (events[i].observed_ms < cutoff) events.splice(i, 1);
}

// Records one event: rec = {type, t_abs, observed_ms, candidates, excluded, focusEpoch, pointer_*...}.
// Sets rec.key and rec.sequence; updates store.pointer when rec is the latest occurrence.
export function insertEvent(store, rec, timeOrigin) {
  const t = rec.t_abs;
  rec.key = (rec.type === 'pointermove' && !rec.excluded) ? compactKey(rec) : null;
  pruneEvents(store.events, rec.observed_ms);
  // Realms report asynchronously, so arrival order is not occurrence order: events are kept in
  // occurrence order (t_abs) and `sequence` is derived from it (microseconds since the Host realm's
  // time origin, bumped to stay strictly increasing), so it is monotonic and stable.
  const evs = store.events;
  let pos = evs.length;
  while (pos > 0 && evs[pos - 1].t_abs > t) pos--;
  const prev = evs[pos - 1], next = evs[pos];
  let seq = seqFor(t, timeOrigin);
  if (prev && seq <= prev.sequence) seq = prev.sequence + 1;
  if (next && seq >= next.sequence) { pos = evs.length; seq = Math.max(seqFor(t, timeOrigin), evs[evs.length - 1].sequence + 1); }
  rec.sequence = seq;
  const last = evs[pos - 1];
  if (pos === evs.length && rec.key && last && last.type === 'pointermove' && last.key === rec.key && last.focusEpoch === rec.focusEpoch) {
    evs[pos - 1] = rec; // consecutive moves over the same targets compact to the newest
  } else {
    evs.splice(pos, 0, rec);
  }
  while (evs.length > MAX_EVENTS) {
    let idx = evs.findIndex((x) => !DISCRETE[x.type]);
    if (idx < 0) idx = 0;
    evs.splice(idx, 1);
  }
  if (!store.pointer || store.pointer.t_abs <= t) store.pointer = rec;
}
