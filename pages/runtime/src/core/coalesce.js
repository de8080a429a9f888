// Coalescing of subscription notices (spec / relay.md v2 subscriptions: at most 10 updates/s per
// subscription, dropped-update reports, a `backpressure` notice meaning a fresh query is needed,
// notices report change only). One timer per subscription, not per event: the first update after a
// quiet 100 ms is delivered at once; later ones inside the interval are merged into one pending
// notice sent when the interval ends, whose `dropped` counts the updates merged away; when more than
// `backpressureAt` updates were merged into one pending notice it is sent as `backpressure`. Pure:
// the clock, the timer functions and the delivery are passed in (the Node tests use a fake clock).
import { INSPECT, INSPECT_EVENTS } from './constants.js';

// env: {now(), setTimer(fn, ms) -> handle, clearTimer(handle), deliver(notice)}.
// push(kind, revisions): an update of `kind`; close(kind, revisions): the terminal notice, sent at once
// (with what was pending counted as dropped); cancel(): stop silently; nothing is delivered after either.
export function createCoalescer(env, intervalMs = INSPECT.noticeIntervalMs, backpressureAt = INSPECT.backpressureAt) {
  const st = { lastAt: -Infinity, timer: null, pending: null, closed: false, sent: 0 };
  function send(kinds, revisions, dropped, kind) {
    st.lastAt = env.now();
    st.sent++;
    const order = INSPECT_EVENTS.filter((k) => kinds.indexOf(k) >= 0);
    env.deliver({ kind: kind || order[0], kinds: order, revisions: revisions, dropped: dropped });
  }
  function flush() {
    st.timer = null;
    // A timer may fire a little early by the coalescer's clock: never two notices closer than the
    // interval, whatever the timer did.
    const wait = st.lastAt + intervalMs - env.now();
    if (wait > 0 && st.pending && !st.closed) {
      st.timer = env.setTimer(flush, wait);
      return;
    }
    const p = st.pending;
    st.pending = null;
    if (!p || st.closed) return;
    send(p.kinds, p.revisions, p.count - 1, p.count - 1 > backpressureAt ? 'backpressure' : null);
  }
  return {
    state: st,
    push(kind, revisions) {
      if (st.closed) return;
      const now = env.now();
      if (!st.pending && !st.timer && now - st.lastAt >= intervalMs) {
        send([kind], revisions, 0, null);
        return;
      }
      if (!st.pending) st.pending = { kinds: [], revisions: revisions, count: 0 };
      if (st.pending.kinds.indexOf(kind) < 0) st.pending.kinds.push(kind);
      st.pending.revisions = revisions;
      st.pending.count++;
      if (!st.timer) st.timer = env.setTimer(flush, Math.max(0, st.lastAt + intervalMs - now));
    },
    // The caller disposed of it: nothing more is delivered, not even a terminal notice.
    cancel() {
      st.closed = true;
      if (st.timer) env.clearTimer(st.timer);
      st.timer = null;
      st.pending = null;
    },
    close(kind, revisions) {
      if (st.closed) return;
      st.closed = true;
      if (st.timer) env.clearTimer(st.timer);
      st.timer = null;
      const dropped = st.pending ? st.pending.count : 0;
      st.pending = null;
      send([kind], revisions, dropped, kind);
    },
  };
}
