// Subscriptions of the inspection API (spec / relay.md v2: events tree, invalidation, cursor, focus,
// selection, geometry; at most 16 per caller and 128 in the whole Host, the next refused with a clear
// error and nothing registered; at most 10 notices/s per subscription with dropped-update counts
// (core/coalesce.js, one timer per subscription); `backpressure` when an interval merged too many;
// a terminal `invalidation` when the realm's document is replaced, the page is hidden or the parent
// binding is lost; notices carry change only: {kind, kinds, revisions, dropped}, never details).
// A caller is the realm that subscribed (its realm id): one realm's packages share its 16.
// The Host total is the top's to decide, so that subscriptions racing from many realms give exactly
// 128: a child realm's subscription is pending until the top grants it a slot (`subscribe-slot`, up
// the parent chain like a fromRoot call; the subscriptions of one turn go as one request). The handle
// is returned at once; its `settled` promise resolves to null once granted, or to the refusal, which
// its `error` then also shows (and the subscription is gone, nothing delivered). The total the top
// sends down (`inspect-total`) is for reading only (debug); a realm not bound to a parent yet is no
// part of the Host, and its subscriptions are granted locally (and reported once it is bound). A dispose or a
// terminal invalidation gives the slot back (`subscribe-release`); the top also drops the slots of a
// child binding that detached or whose realm changed.
import { W, nSetTimeout, nClearTimeout, nAddEL, nPostMessage, nPerfNow } from '../core/natives.js';
import { INSPECT, RELAY_SCHEMA } from '../core/constants.js';
import { safe } from '../core/dom-reads.js';
import { ROLE, REALM_ID, UP, INSPECTION, bindings } from '../core/state.js';
import { checkSubscribe } from '../core/inspect-args.js';
import { createCoalescer } from '../core/coalesce.js';
import { noticeUp, upCall } from '../relay/inspect-child.js';
import { usable } from '../relay/parent.js';
import { revisionsNow } from './inspect-result.js';

let nextId = 0;
function noop() {}
const SETTLED = Promise.resolve(null);
function refusal(reason, detail, limit) {
  return Object.freeze({ reason: reason, detail: detail, limit: limit });
}
function refused(reason, detail, limit) {
  const error = refusal(reason, detail, limit);
  return Object.freeze({ dispose: noop, error: error, settled: Promise.resolve(error) });
}
// The top: slots granted to subscriptions of descendant realms, slot id -> {b: the child binding it
// came through, realmId: that binding's realm then}.
const slots = new Map();
// The live slots per child binding (a binding that detached or whose realm changed loses its own).
function slotsByBinding() {
  const per = new Map();
  slots.forEach((s, id) => {
    if (s.b.state === 'detached' || s.b.realmId !== s.realmId) slots.delete(id);
    else per.set(s.b, (per.get(s.b) || 0) + 1);
  });
  return per;
}
// What the top counts for one child binding's subtree: its granted slots, or what it reported when
// more (subscriptions made before it was bound were granted there and only reported).
function subtreeCount(b, per) {
  return Math.max(per.get(b) || 0, b.inspectSubs || 0);
}
// The Host-wide count as this realm knows it (the top: exact; a child: the top's last total with this
// realm's own change since it was reported).
function hostTotal() {
  if (ROLE === 'top') {
    const per = slotsByBinding();
    let n = INSPECTION.subs.size;
    bindings.forEach((b) => {
      if (b.state !== 'detached') n += subtreeCount(b, per);
    });
    return n;
  }
  const own = INSPECTION.subs.size + INSPECTION.childSubs;
  // The parent's total counted this subtree as `reportedSubs` (it says so with the total).
  return Math.max(own, INSPECTION.hostSubs - (INSPECTION.reportedSubs || 0) + own);
}
// A child realm's pending subscriptions of this turn, asked for in one `subscribe-slot` request.
let asking = [];
function askSlot(rec) {
  asking.push(rec);
  if (asking.length > 1) return;
  nSetTimeout(() => {
    const batch = asking;
    asking = [];
    const byId = new Map(batch.map((r) => [r.id, r]));
    upCall(REALM_ID, 'subscribe-slot', [batch.map((r) => r.id)], INSPECT.timeoutMs * 2).then((res) => {
      const granted = new Set(res && Array.isArray(res.granted) ? res.granted : []);
      const giveBack = [];
      byId.forEach((r, id) => {
        // Disposed while pending: a slot granted meanwhile goes back at once.
        if (r.state === 'disposed') {
          if (granted.has(id)) giveBack.push(id);
        } else if (granted.has(id)) settleRec(r, null);
        else if (res) settleRec(r, refusal('subscription-limit', 'total', INSPECT.subsTotal));
        // No answer (the parent or the top is gone or too busy): the total cannot be confirmed.
        else settleRec(r, refusal('unavailable', 'subscribe-slot', INSPECT.subsTotal));
      });
      releaseSlots(giveBack);
    });
  }, 0);
}
function settleRec(rec, error) {
  if (rec.state !== 'pending') return;
  INSPECTION.pendingSubs--;
  if (error) {
    rec.state = 'refused';
    rec.error = error;
    if (error.reason === 'subscription-limit') INSPECTION.refused.total++;
    remove(rec, false);
  } else rec.state = 'active';
  countChanged();
  rec.settle(error);
}
function releaseSlots(ids) {
  if (ids.length) upCall(REALM_ID, 'subscribe-release', [ids], INSPECT.timeoutMs);
}
// A descendant realm asks for slots or gives them back (hub `subscribe-slot`, relay/inspect-parent.js):
// the top decides, in the order asked; a child realm passes the request on up and the answer down.
export function onSlotCall(e) {
  const ids = Array.isArray(e.msg.args) && Array.isArray(e.msg.args[0]) ? e.msg.args[0] : [];
  const list = ids.filter((id) => typeof id === 'string' && id.length <= 96).slice(0, INSPECT.subsTotal);
  const release = e.msg.method === 'subscribe-release';
  if (ROLE !== 'top') {
    // No answer from above stays no answer (the asking realm reports `unavailable`, not a refusal).
    upCall(REALM_ID, e.msg.method, [list], INSPECT.timeoutMs * 2).then((r) => e.reply(r));
    return;
  }
  if (release) {
    for (const id of list) if (slots.has(id) && slots.get(id).b === e.binding) slots.delete(id);
    e.reply({ released: list.length });
    sendTotalDown();
    return;
  }
  const granted = [];
  for (const id of list) {
    if (slots.has(id)) continue;
    if (hostTotal() >= INSPECT.subsTotal) {
      INSPECTION.refused.total++;
      continue;
    }
    slots.set(id, { b: e.binding, realmId: e.binding.realmId });
    granted.push(id);
  }
  e.reply({ granted: granted });
  sendTotalDown();
}
function countChanged() {
  if (ROLE === 'top') sendTotalDown();
  else noticeUp(['subs']);
}
// kinds / revisions: what changed in the Host (for fromRoot subscriptions in child realms).
export function sendTotalDown(total, kinds, revisions) {
  const t = total === undefined ? hostTotal() : total;
  const per = ROLE === 'top' ? slotsByBinding() : null;
  bindings.forEach((b) => {
    if (!usable(b)) return;
    const cw = safe(() => b.iframe.contentWindow, null);
    if (!cw) return;
    try {
      // `yours`: this subtree's count as the total includes it (what this realm knows of that child).
      const yours = per ? subtreeCount(b, per) : b.inspectSubs || 0;
      const msg = { schema: RELAY_SCHEMA, type: 'inspect-total', token: b.token, total: t, yours: yours };
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
  // In a child realm bound to a parent, pending until the top grants its slot (askSlot): the top
  // alone knows the total (what it last sent down may be behind or ahead of this realm's own count).
  const confirm = ROLE !== 'top' && UP.granted;
  if (!confirm && hostTotal() >= INSPECT.subsTotal) {
    INSPECTION.refused.total++;
    return refused('subscription-limit', 'total', INSPECT.subsTotal);
  }
  const id = 's-' + REALM_ID + '-' + ++nextId;
  const rec = {
    id: id,
    caller: caller,
    events: c.ok.events,
    fromRoot: c.ok.fromRoot,
    delivered: 0,
    state: confirm ? 'pending' : 'active',
    error: null,
    settle: noop,
  };
  const settled = confirm ? new Promise((res) => (rec.settle = res)) : SETTLED;
  if (confirm) INSPECTION.pendingSubs++;
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
  if (confirm) askSlot(rec);
  return Object.freeze({
    dispose: () => {
      if (remove(rec, false)) countChanged();
    },
    get error() {
      return rec.error;
    },
    settled: settled,
  });
}
// terminal: deliver the terminal `invalidation` (detach, disconnect); a dispose stops silently.
// A slot the top granted (an active child-realm subscription) is given back.
function remove(rec, terminal) {
  if (!INSPECTION.subs.delete(rec.id)) return false;
  if (rec.state === 'pending') {
    // Its slot request is out: askSlot gives back a slot it brings.
    INSPECTION.pendingSubs--;
    rec.state = 'disposed';
    rec.settle(refusal('cancelled', 'disposed', INSPECT.subsTotal));
  } else if (rec.state === 'active' && ROLE !== 'top' && UP.granted) releaseSlots([rec.id]);
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
