// The runtime's surface per realm role (spec: the Host-facing API — in the top realm
// window.wippyAttention {role, host_instance_id, ready, snapshot, envelope, canonicalJson, focus};
// in child realms {role, realm_id, canonicalJson, ready}; in every realm the frozen internal
// window.__wippyAttentionRuntime {registerRoot, registerInternals, adoptDocument, role, realmId, attention,
// attentionWithin (a fragment realm's reads, scoped to its subtree), advanceClock,
// mountIdOf, nodeIdOf, summaryOf, debug} — the observation-clock test hook, binding states, counters and budget accounting, never tokens). Both are
// non-writable, non-configurable, non-enumerable.
import { W, nDateNow, nJSONParse, nJSONStringify } from '../core/natives.js';
import { DISCOVERY_ATTEMPTS, DISCOVERY_INTERVAL_MS } from '../core/constants.js';
import { canonicalJson } from '../core/canonical-json.js';
import { ROLE, REALM_ID, REALM, HOST, UP, TOP, DBG, ACCT, ACTIONS, bindings, upBuffer } from '../core/state.js';
import { registerRoot, registerInternals } from '../dom/shadow-roots.js';
import { advanceClock } from '../core/clock.js';
import { mountOf } from '../realm/identity.js';
import { nodeIdOf, kindOf } from '../realm/inspect-nodes.js';
import { safe, nodeType, treeRoot } from '../core/dom-reads.js';
import { snapshot } from './snapshot.js';
import { envelope } from './envelope.js';
import { focusApi } from '../realm/focus.js';
import { ready } from './readiness.js';
import { readyChildren } from '../relay/ready-children.js';
import { currentDocument } from '../realm/document.js';
import { summaryForTest } from '../dom/summary.js';
import { markFocus, returnFocus } from '../realm/focus-return.js';
import { INSPECTION } from '../core/state.js';
import { invalid, revisionsNow } from './inspect-result.js';
import { getNode, getGeometry } from './inspect-node.js';
import { scopedFind, scopedTree, scopedHitTest } from './inspect-scoped.js';
import { getCursor, getFocus, getSelection } from './inspect-observation.js';
import { sessionInspect } from './inspect-session.js';
import { guarded } from './inspect.js';
import { subscribe, debugSubscriptions } from './subscriptions.js';

// The caller of an API call made in this realm: the realm (its packages share its limits).
const caller = () => 'realm:' + REALM_ID;
// The frozen API object of the caller `callerOf()` names (read at each call: a realm id can change):
// by default within `scopeOf()` when it names a node (a fragment realm's subtree), else this realm's
// own scope (host/inspect-scoped.js scopedFind / scopedTree / scopedHitTest then are find / getTree /
// hitTestApi).
function readsFor(callerOf, scopeOf) {
  return Object.freeze({
    find: (q, o) => guarded(scopedFind(callerOf(), q, o, scopeOf())),
    getTree: (root, o) => guarded(scopedTree(callerOf(), root, o, scopeOf())),
    getNode: (ref) => guarded(getNode(callerOf(), ref)),
    getGeometry: (ref) => guarded(getGeometry(callerOf(), ref)),
    hitTest: (a, o) => guarded(scopedHitTest(callerOf(), a, o, scopeOf())),
    getCursor: (o) => guarded(getCursor(callerOf(), o)),
    getFocus: (o) => guarded(getFocus(callerOf(), o)),
    getSelection: (o) => guarded(getSelection(callerOf(), o)),
    subscribe: (s, cb) =>
      safe(
        () => subscribe(callerOf(), s, cb),
        Object.freeze({ dispose() {}, error: { reason: 'invalid-request', detail: 'subscribe' } }),
      ),
  });
}
function makeAttention() {
  if (ROLE === 'fragment-realm') {
    // A fragment realm's DOM is physical DOM of the realm that owns the <web-fragment>: that realm
    // answers its reads (same origin: its internal object, called directly), scoped by default to
    // the fragment's own subtree, the root its physical DOM lives in (reached from its document
    // element by parentNode: the shadow root of its web-fragment-host), with its own caller identity.
    let scoped = null;
    const main = () => {
      if (!scoped) {
        const m = safe(() => W.parent.__wippyAttentionRuntime, null);
        const make = m && typeof m.attentionWithin === 'function' ? m.attentionWithin : null;
        scoped = make ? safe(() => make(W), null) : null;
      }
      return scoped;
    };
    const via =
      (m) =>
      (...a) => {
        const x = main();
        return x && typeof x[m] === 'function' ? x[m](...a) : Promise.resolve(invalid('no-main-realm'));
      };
    return Object.freeze({
      find: via('find'),
      getTree: via('getTree'),
      getNode: via('getNode'),
      getGeometry: via('getGeometry'),
      hitTest: via('hitTest'),
      getCursor: via('getCursor'),
      getFocus: via('getFocus'),
      getSelection: via('getSelection'),
      subscribe: (s, cb) => {
        const x = main();
        return x ? x.subscribe(s, cb) : Object.freeze({ dispose() {}, error: { reason: 'invalid-request' } });
      },
    });
  }
  return readsFor(caller, () => null);
}
export const ATTENTION = makeAttention();
// The reads of a Web Fragment realm this realm owns the DOM of (its API object above): by default
// within the root its physical DOM lives in (reached from its document element by parentNode: the
// shadow root of its web-fragment-host; anything else leaves the reads this realm's), as
// host/inspect-scoped.js scopedFind / scopedTree / scopedHitTest, counted as that realm's own caller. Only
// for a real fragment realm framed by this window (one object per such window), so a script here
// cannot mint callers to get past the per-caller subscription limit.
const WITHIN = new WeakMap();
function attentionWithin(win) {
  // One of this window's own child frames (indexed window access), not an object shaped like one.
  let framed = false;
  safe(() => {
    for (let i = 0; i < W.length && !framed; i++) framed = W[i] === win;
  });
  const rt = framed ? safe(() => win.__wippyAttentionRuntime, null) : null;
  const tag = rt && rt.role === 'fragment-realm' ? safe(() => rt.realmId, null) : null;
  if (typeof tag !== 'string' || !tag) return null;
  const known = WITHIN.get(win);
  if (known) return known;
  const sc = () => {
    const n = safe(() => treeRoot(win.document.documentElement), null);
    const t = n ? nodeType(n) : 0;
    return t === 11 || t === 1 ? n : null;
  };
  const c = 'fragment:' + tag.slice(0, 64);
  const api = readsFor(() => c, sc);
  WITHIN.set(win, api);
  return api;
}

function defineGlobal(name, value) {
  try {
    Object.defineProperty(W, name, { value: value, configurable: false, enumerable: false, writable: false });
  } catch (_) {
    /* ignore */
  }
}

export function defineInternal() {
  const internal = {
    registerRoot: registerRoot,
    registerInternals: registerInternals,
    role: ROLE,
    attention: ATTENTION,
    // A fragment realm's API object asks for its reads here (attentionWithin).
    attentionWithin: attentionWithin,
    get realmId() {
      return REALM_ID;
    },
    adoptDocument: () => {
      safe(currentDocument);
    },
    // Test hook: moves this realm's observation clock forward (the 60 s window) without a wait.
    advanceClock: (ms) => advanceClock(ms),
    // Test hook: the mount id this realm gives an element (what an omission's mount_id names), so
    // a test can tell which element an omission is about.
    mountIdOf: (el) => safe(() => (nodeType(el) === 1 ? mountOf(el).mount_id : null), null),
    // Test hook (B1): the node_id a NodeRef of this realm carries for an Element, Document or
    // ShadowRoot (= the candidates' target_id for an element), null for anything else.
    nodeIdOf: (n) => safe(() => (kindOf(n) ? nodeIdOf(n) : null), null),
    // Test hook (issue 24): the summary a candidate for exactly this element would carry (the same
    // `summarize` the snapshot calls, with the same privacy: null when excluded, redacted as the
    // candidate would be), without the promotion to an interactive ancestor, so a check can compare
    // every element with Chromium's AX node (harness/src/checks/conformance.rs).
    summaryOf: (el) => safe(() => (nodeType(el) === 1 ? summaryForTest(el) : null), null),
    // Diagnostics for harness debugging: binding states only, never tokens.
    debug: () => ({
      accounting: nJSONParse(nJSONStringify(ACCT)),
      // The inspection API: revisions, subscription counts (limits at 16 per caller, 128 in all),
      // how many NodeRefs and continuations this realm remembers.
      inspection: Object.assign(
        {
          revisions: revisionsNow(),
          issued: INSPECTION.issued.size,
          continuations: INSPECTION.continuations.size,
          errors: INSPECTION.errors || 0,
          last_error: INSPECTION.lastError || null,
        },
        debugSubscriptions(),
      ),
      role: ROLE,
      realm_id: REALM_ID,
      granted: UP.granted,
      seq: REALM.localSeq,
      sent: DBG.sent,
      dropped: DBG.dropped,
      unmatched: DBG.unmatched,
      inbound: DBG.inbound,
      events: ROLE === 'top' ? TOP.events.length : upBuffer.length,
      children: Array.from(bindings.values()).map((b) => ({
        mount_id: b.mountId,
        generation: b.generation,
        state: b.state,
        attempts: b.attempts,
        expected_origin: b.expectedOrigin,
        child_origin: b.childOrigin,
        realm_id: b.realmId,
        pending: b.pending.size,
        // Its window of pointermoves: announced and not pulled yet, a pull's answer still due, or neither.
        window: b.windowPending ? 'announced' : b.windowPull ? 'pulling' : 'idle',
        inbound: b.inbound,
        accepted: b.accepted,
        rejected: b.rejected,
        grants: b.grants,
        renewals: b.renewals,
        granted_at: b.grantedAt,
        renew_started_at: b.renewStartedAt,
        lifetime_ms: b.lifetime || 0,
      })),
    }),
  };
  try {
    Object.defineProperty(W, '__wippyAttentionRuntime', {
      value: Object.freeze(internal),
      configurable: false,
      enumerable: false,
      writable: false,
    });
  } catch (_) {
    /* ignore */
  }
}

export function definePublicApi() {
  let api;
  if (ROLE === 'top') {
    api = {
      role: 'top',
      host_instance_id: HOST.hostInstanceId,
      ready: (o) => ready(o),
      snapshot: (o) => {
        safe(currentDocument);
        return snapshot(o);
      },
      envelope: (s, o) => envelope(s, o),
      canonicalJson: (v) => canonicalJson(v),
      focus: () => safe(focusApi, null),
      // Host-owned overlays: mark the focused control before opening, give focus back on close.
      markFocus: () => safe(markFocus, false),
      returnFocus: () => safe(returnFocus, false),
      // The Host's Attention configuration: {agent_actions_enabled?: boolean}; returns the current one.
      // The public inspection API of the Host's own packages (the same object as $W.attention).
      attention: ATTENTION,
      // The Session's read route: relay.md's `inspection` object plus `targets` (INSPECTION_API.md).
      inspect: (req) =>
        sessionInspect(req).catch(() => ({
          request_id: 'invalid',
          host_instance_id: HOST.hostInstanceId,
          measured_at: new Date(nDateNow()).toISOString(),
          revisions: revisionsNow(),
          outcome: 'unavailable',
          data: { nodes: [] },
          omissions: [{ reason: 'invalid-request' }],
          targets: [],
        })),
      configure: (c) => {
        if (c && typeof c.agent_actions_enabled === 'boolean') ACTIONS.enabled = c.agent_actions_enabled;
        return { agent_actions_enabled: ACTIONS.enabled };
      },
    };
  } else {
    api = {
      role: ROLE,
      get realm_id() {
        return REALM_ID;
      },
      canonicalJson: (v) => canonicalJson(v),
      attention: ATTENTION,
      ready: () => {
        safe(currentDocument);
        return readyChildren(nDateNow() + DISCOVERY_ATTEMPTS * DISCOVERY_INTERVAL_MS).then((children) => ({
          granted: UP.granted,
          children: children,
        }));
      },
    };
  }
  // $W.attention and (await getWippyApi()).attention: the API in every realm (quickstart "使用公共 API").
  const wippyApi = Object.freeze({ attention: ATTENTION });
  defineGlobal('$W', wippyApi);
  defineGlobal('getWippyApi', () => Promise.resolve(wippyApi));
  try {
    Object.defineProperty(W, 'wippyAttention', {
      value: Object.freeze(api),
      configurable: false,
      enumerable: false,
      writable: false,
    });
  } catch (_) {
    /* ignore */
  }
}
