// The one place holding this realm's shared mutable state (spec: realm roles top / child /
// fragment-realm; host_instance_id per top-realm load; the relay bindings in both directions; the
// top realm's event store and focus record). Other modules keep no mutable module-level state.
import { W, nDateNow } from './natives.js';
import { randHex, randB36 } from './dom-reads.js';

// Realm identity, fixed at bootstrap.
function detectRole() {
  try {
    if (typeof W.name === 'string' && W.name.indexOf('wf:') === 0) return 'fragment-realm';
    if (W.parent !== W) return 'child';
    return 'top';
  } catch (_) {
    return 'child';
  }
}
export const ROLE = detectRole();
// Per document: a same-origin navigation away from an iframe's initial about:blank keeps the Window
// (and this runtime) but replaces the document, which is a new realm instance (renewRealm).
function srcdocNow() {
  try {
    return W.location.href === 'about:srcdoc';
  } catch (_) {
    return false;
  }
}
// self.origin is the realm's real (possibly inherited) origin; location.origin is "null" for about:srcdoc.
function originNow() {
  try {
    return typeof W.origin === 'string' && W.origin !== 'null' ? W.origin : W.location.origin;
  } catch (_) {
    return 'null';
  }
}
export let REALM_ID = 'r' + randB36(6);
export let IS_SRCDOC = srcdocNow();
export let OWN_ORIGIN = originNow();
export function renewRealm() {
  REALM_ID = 'r' + randB36(6);
  IS_SRCDOC = srcdocNow();
  OWN_ORIGIN = originNow();
}

// The Host (top realm only): host_instance_id and mount_generation of the `host` segment.
export const HOST = { hostInstanceId: ROLE === 'top' ? 'host-' + randHex(8) : null, mountGeneration: 1 };

// Top realm: the Host's Attention configuration (action-refs.js; set by wippyAttention.configure).
export const ACTIONS = { enabled: false };

// This realm as child: its binding to window.parent.
export const UP = {
  granted: false,
  hostInstanceId: null,
  parentOrigin: null,
  parentMountId: null,
  parentGeneration: null,
  childMountId: null,
  childGeneration: null,
  tokens: new Map(), // token -> expiry ms
  currentToken: null,
  privacyText: 'safe',
};
// Observations made before the grant (at most MAX_EVENTS, flushed on grant): [{at, obs}].
export const upBuffer = [];

// This realm as parent: iframe element -> binding (relay/parent.js).
export const bindings = new Map();

// Top realm: the event store (history.js), the latest pointer and the focus record.
export const TOP = { seq: 0, events: [], pointer: null, focus: null, focusChanges: [], selection: null };

// Per-realm counters, timers and lifecycle promises.
export const REALM = {
  nodeCounter: 0, // node ids <realm>-n<k>
  inputEpoch: 0, // trusted discrete input and focus changes seen (realm/resolve-cache.js)
  localSeq: 0, // event ids ev-<realm>-<k>
  localFocus: null, // {event_id, el}: this realm's current focus
  localSelection: null, // {selection_id, key}: the selection this realm last reported (selection.js)
  selectionButton: false, // a trusted pointer button is down (a drag may be selecting)
  scanTimer: null, // pending iframe scan
  lastMutationAt: nDateNow(),
  domReady: null, // Promise: DOMContentLoaded
  loaded: null, // Promise: window load
  boundDocument: null, // the document the listeners, observer and ids below belong to
  forwardRoot: null, // fragment realm: the main realm's registerRoot
  forwardInternals: null, // fragment realm: the main realm's registerInternals
  lastFocus: null, // WeakRef: deep element of the last trusted focusin (focus-return.js)
  focusMark: null, // top realm: WeakRef of the control focused when an overlay opened
};

// The observation clock's offset (ms) over Date.now(): 0 except when a test advanced it through the
// internal debug hook `__wippyAttentionRuntime.advanceClock(ms)` (clock.js) to age events past the
// 60 s window without waiting. Never part of the public API or of a snapshot.
export const CLOCK = { offsetMs: 0 };

// Diagnostics (never tokens): sent/dropped observations, inbound message counts by type, messages
// from windows that are neither the parent nor a bound child (per-binding counts live on bindings).
export const DBG = { sent: 0, dropped: 0, unmatched: 0, inbound: Object.create(null) };

// Budget accounting of the latest point resolution this realm did (never tokens), for the internal
// debug hook: top realm `last` = the latest snapshot, child realm `last` = the latest `points` query it
// answered (with the point ids it received and its reply's size); `handled` counts `points` queries.
export const ACCT = { handled: 0, last: null };

// The inspection API of this realm (realm/inspect-nodes.js, relay/inspect-relay.js, host/inspect.js):
// revisions (the top's are the Host's; a child counts its own and tells its parent), the NodeRefs this
// realm returned (node_id -> {ref, node WeakRef | via binding | up}), continuations, subscriptions.
export const INSPECTION = {
  revisions: { tree: 0, observation: 0, geometry: 0 },
  issued: new Map(),
  continuations: new Map(),
  subs: new Map(), // subscription id -> record
  subsByCaller: new Map(), // caller -> count
  pendingSubs: 0, // child: subscriptions still waiting for the top's slot (host/subscriptions.js)
  childSubs: 0, // subscriptions registered in descendant realms (top: reported by children)
  hostSubs: 0, // a child's last known Host-wide total (sent down by its parent)
  hostRevisions: null, // a child's last known Host revisions (sent down with Host changes)
  reportedSubs: 0, // a child's subtree count as the parent's last total included it
  upPending: new Map(), // child: fromRoot requests sent to the parent, request id -> resolve
  noticeTimer: null, // child: pending revision notice to the parent
  refused: { caller: 0, total: 0 },
};

// Identity caches, keyed by object identity.
export const closedRoots = new WeakMap(); // shadow host -> ShadowRoot (open and closed)
export const internalsOf = new WeakMap(); // custom element -> its ElementInternals (role, ARIA defaults, own shadow root)
export const observedRoots = new WeakSet(); // roots under the MutationObserver / focus listeners
export const nodeIds = new WeakMap(); // element -> <realm>-n<k>
export const explicitGen = new WeakMap(); // element -> generation of its explicit mount id
export const explicitMax = new Map(); // mount id -> highest generation handed out in this realm
export const liveByTarget = new Map(); // target_id -> WeakRef(element), Host realm only, bounded
export const seenFocusEvents = new WeakSet(); // focus events already handled (window + root listeners)
