// Subscriptions of the inspection API (spec / relay.md v2: events tree, invalidation, cursor, focus,
// selection, geometry; at most 16 per caller and 128 in the whole Host, the next refused with a clear
// error and nothing registered; at most 10 notices/s per subscription with dropped-update counts
// (core/coalesce.js, one timer per subscription); `backpressure` when an interval merged too many;
// a terminal `invalidation` when the realm's document is replaced, the page is hidden or the parent
// binding is lost; notices carry change only: {kind, kinds, revisions, dropped}, never details).
// A caller is the realm that subscribed (its realm id): one realm's packages share its 16. The Host
// total counts every realm: children report their subtree's count with their revision notices and the
// top sends the total down (`inspect-total`), which a child checks before it registers one.
import { W, nSetTimeout, nClearTimeout, nAddEL, nPostMessage, nPerfNow } from '../core/natives.js';
import { INSPECT, RELAY_SCHEMA } from '../core/constants.js';
import { safe } from '../core/dom-reads.js';
import { ROLE, REALM_ID, INSPECTION, bindings } from '../core/state.js';
import { checkSubscribe } from '../core/inspect-args.js';
import { createCoalescer } from '../core/coalesce.js';
import { noticeUp } from '../relay/inspect-child.js';
import { usable } from '../relay/parent.js';
import { revisionsNow } from './inspect.js';

let nextId = 0;
function noop() {}
function refused(reason, detail, limit) {
  return Object.freeze({ dispose: noop, error: Object.freeze({ reason: reason, detail: detail, limit: limit }) });
}
// The Host-wide count as this realm knows it (the top: exact; a child: the top's last total with this
// realm's own change since it was reported).
function hostTotal() {
  const own = INSPECTION.subs.size + INSPECTION.childSubs;
  if (ROLE === 'top') return own;
  // The parent's total counted this subtree as `reportedSubs` (it says so with the total).
  return Math.max(own, INSPECTION.hostSubs - (INSPECTION.reportedSubs || 0) + own);
}
function countChanged() {
  if (ROLE === 'top') sendTotalDown();
  else noticeUp(['subs']);
}
// kinds / revisions: what changed in the Host (for fromRoot subscriptions in child realms).
export function sendTotalDown(total, kinds, revisions) {
  const t = total === undefined ? hostTotal() : total;
  bindings.forEach((b) => {
    if (!usable(b)) return;
    const cw = safe(() => b.iframe.contentWindow, null);
    if (!cw) return;
    try {
      // `yours`: this subtree's count as the total includes it (what this realm knows of that child).
      const msg = { schema: RELAY_SCHEMA, type: 'inspect-total', token: b.token, total: t, yours: b.inspectSubs || 0 };
      if (kinds && kinds.length) {
        msg.kinds = kinds;
        msg.revisions = revisions;
      }
      nPostMessage.call(cw, msg, b.childOrigin);
    } catch (_) {
      /* ignore */
    }
  });
}
export function subscribe(caller, spec, callback) {
  const c = checkSubscribe(spec);
  if (c.error) return refused('invalid-request', c.error);
  if (typeof callback !== 'function') return refused('invalid-request', 'callback');
  const mine = INSPECTION.subsByCaller.get(caller) || 0;
  if (mine >= INSPECT.subsPerCaller) {
    INSPECTION.refused.caller++;
    return refused('subscription-limit', 'per-caller', INSPECT.subsPerCaller);
  }
  if (hostTotal() >= INSPECT.subsTotal) {
    INSPECTION.refused.total++;
    return refused('subscription-limit', 'total', INSPECT.subsTotal);
  }
  const id = 's-' + REALM_ID + '-' + ++nextId;
  const rec = { id: id, caller: caller, events: c.ok.events, fromRoot: c.ok.fromRoot, delivered: 0 };
  rec.co = createCoalescer({
    // A monotonic clock: the 10 per second is real time, not the observation clock (which a test hook
    // moves and which follows Date.now).
    now: nPerfNow,
    setTimer: (fn, ms) => nSetTimeout(() => safe(fn), ms),
    clearTimer: (h) => nClearTimeout(h),
    deliver: (notice) => {
      rec.delivered++;
      try {
        callback(Object.freeze(notice));
      } catch (_) {
        /* the caller's own error */
      }
    },
  });
  INSPECTION.subs.set(id, rec);
  INSPECTION.subsByCaller.set(caller, mine + 1);
  countChanged();
  return Object.freeze({
    dispose: () => {
      if (remove(rec, false)) countChanged();
    },
  });
}
// terminal: deliver the terminal `invalidation` (detach, disconnect); a dispose stops silently.
function remove(rec, terminal) {
  if (!INSPECTION.subs.delete(rec.id)) return false;
  const n = (INSPECTION.subsByCaller.get(rec.caller) || 1) - 1;
  if (n > 0) INSPECTION.subsByCaller.set(rec.caller, n);
  else INSPECTION.subsByCaller.delete(rec.caller);
  if (terminal) rec.co.close('invalidation', revisionsNow());
  else rec.co.cancel();
  return true;
}
// A revision moved (hub `inspection`): every subscription listening to one of the kinds gets an update.
export function onInspectionChange(kinds) {
  if (kinds.indexOf('subs') >= 0) countChanged();
  if (ROLE === 'top') scheduleHostDown(kinds);
  if (!INSPECTION.subs.size) return;
  const rev = revisionsNow();
  INSPECTION.subs.forEach((rec) => {
    for (const k of kinds)
      if (rec.events.indexOf(k) >= 0) rec.co.push(k, ROLE === 'top' || !rec.fromRoot ? rev : hostRevisions(rev));
  });
}
// The top tells child realms with subscriptions what changed in the Host, at most every 100 ms.
const downKinds = new Set();
let downTimer = null;
function scheduleHostDown(kinds) {
  // Per recorded pointer move this runs: nothing to do unless a child realm has subscriptions.
  if (!INSPECTION.childSubs) return;
  for (const k of kinds) if (k !== 'subs' && k !== 'observation') downKinds.add(k);
  if (!downKinds.size || downTimer) return;
  downTimer = nSetTimeout(() => {
    downTimer = null;
    const ks = Array.from(downKinds);
    downKinds.clear();
    safe(() => sendTotalDown(undefined, ks, revisionsNow()));
  }, INSPECT.noticeIntervalMs);
}
function hostRevisions(fallback) {
  const r = INSPECTION.hostRevisions;
  return r ? { tree: r.tree, observation: r.observation, geometry: r.geometry } : fallback;
}
// Terminal invalidation of every subscription of this realm (detach, disconnect, navigation).
export function invalidateAll() {
  const all = Array.from(INSPECTION.subs.values());
  for (const rec of all) remove(rec, true);
  if (all.length) countChanged();
}
export function installSubscriptionListeners() {
  if (ROLE === 'fragment-realm') return;
  try {
    nAddEL.call(W, 'pagehide', () => safe(invalidateAll), true);
  } catch (_) {
    /* ignore */
  }
}
// The Host total sent down by the parent (a child realm): kept, and passed on to this realm's children.
// With kinds: a Host change, given to this realm's fromRoot subscriptions and passed on down.
export function onTotalFromParent(e) {
  INSPECTION.hostSubs = e.total;
  INSPECTION.reportedSubs = e.yours;
  const kinds = (e.kinds || []).filter((k) => typeof k === 'string' && k.length < 32);
  const r = e.revisions;
  if (
    kinds.length &&
    r &&
    typeof r === 'object' &&
    [r.tree, r.observation, r.geometry].every((v) => Number.isInteger(v) && v >= 0)
  ) {
    INSPECTION.hostRevisions = { tree: r.tree, observation: r.observation, geometry: r.geometry };
    INSPECTION.subs.forEach((rec) => {
      if (!rec.fromRoot) return;
      for (const k of kinds) if (rec.events.indexOf(k) >= 0) rec.co.push(k, hostRevisions(revisionsNow()));
    });
    sendTotalDown(e.total, kinds, INSPECTION.hostRevisions);
  } else sendTotalDown(e.total);
}
export function debugSubscriptions() {
  const by = {};
  INSPECTION.subsByCaller.forEach((n, c) => (by[c] = n));
  return {
    count: INSPECTION.subs.size,
    by_caller: by,
    child_subs: INSPECTION.childSubs,
    host_total: hostTotal(),
    refused_caller: INSPECTION.refused.caller,
    refused_total: INSPECTION.refused.total,
    delivered: Array.from(INSPECTION.subs.values()).map((r) => ({
      id: r.id,
      events: r.events,
      delivered: r.delivered,
      sent: r.co.state.sent,
    })),
  };
}
