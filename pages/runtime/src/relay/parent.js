// This realm as parent of its iframes (spec: capability.v1 and relay.v2, parent side — discovery
// every 100 ms, at most 50 attempts per round, a round restarts on the iframe's load; grants, renewal,
// binding states discovering / granted / granted-renewing / navigating / unavailable / unsupported /
// detached; queries `points`, `ready` and `observations` with deadlines; observations from children,
// rate-bounded; children's windows of pointermoves merged on demand: mergeChildWindows).
import { doc, nURL, nAddEL, nSetTimeout, nClearTimeout, nDateNow, nPostMessage } from '../core/natives.js';
import {
  CAP_SCHEMA,
  RELAY_SCHEMA,
  RELAY_V1,
  DISCOVERY_INTERVAL_MS,
  DISCOVERY_ATTEMPTS,
  RELAY_CODES,
} from '../core/constants.js';
import { canonicalOrigin } from '../core/origins.js';
import { safe, attr, hasAttr, isConnected, randHex } from '../core/dom-reads.js';
import { ROLE, OWN_ORIGIN, HOST, UP, DBG, bindings } from '../core/state.js';
import { mountOf } from '../realm/identity.js';
import { grantLimits, grantLifetime, renewDelay } from './leases.js';
import { onChildObservation, MAX_PULLED } from '../realm/observation.js';

export function selfMount() {
  if (ROLE === 'top') return { mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration };
  return { mount_id: UP.childMountId, generation: UP.childGeneration };
}
export function hostInstance() {
  return ROLE === 'top' ? HOST.hostInstanceId : UP.hostInstanceId;
}
export function canNegotiateDown() {
  return ROLE === 'top' || (ROLE === 'child' && UP.granted);
}

// The origin the child document must have, or null when it cannot host a runtime we can bind to:
// opaque origins (sandbox without allow-same-origin, data:), about:blank without srcdoc.
function expectedOriginFor(ifr) {
  const sb = attr(ifr, 'sandbox');
  if (sb !== null && !/(^|\s)allow-same-origin(\s|$)/i.test(sb)) return null;
  if (hasAttr(ifr, 'srcdoc')) return canonicalOrigin(OWN_ORIGIN);
  if (!attr(ifr, 'src')) return null;
  try {
    return canonicalOrigin(new nURL(attr(ifr, 'src') || 'about:blank', doc().baseURI).origin);
  } catch (_) {
    return null;
  }
}
export function getBinding(ifr) {
  let b = bindings.get(ifr);
  if (b) return b;
  const m = mountOf(ifr);
  b = {
    iframe: ifr,
    mountId: m.mount_id,
    generation: m.generation,
    state: 'discovering',
    attempts: 0,
    timer: null,
    token: null,
    realmId: null,
    childOrigin: null,
    expectedOrigin: expectedOriginFor(ifr),
    limits: null,
    requestIds: new Set(),
    waiters: [],
    pending: new Map(),
    renewTimer: null,
    expiresAt: 0,
    lastCode: null,
    inbound: 0,
    accepted: 0,
    rejected: 0,
    grants: 0,
    renewals: 0,
    grantedAt: 0,
    renewStartedAt: 0,
    windowPending: false,
    windowPull: null,
    crossOrigin: false, // its document was seen unreadable since the last load event (readableDocument)
  };
  bindings.set(ifr, b);
  safe(() => nAddEL.call(ifr, 'load', () => safe(() => onIframeLoad(b)), false));
  startDiscovery(b);
  return b;
}
export function settle(b) {
  const w = b.waiters;
  b.waiters = [];
  w.forEach((f) => safe(() => f()));
}
export function startDiscovery(b) {
  if (b.timer) nClearTimeout(b.timer);
  b.attempts = 0;
  b.requestIds.clear();
  if (b.state !== 'navigating') b.state = 'discovering';
  if (!canNegotiateDown()) return; // resumed once this realm is itself granted
  attemptDiscovery(b);
}
// The capability request of binding `b`'s current attempt (discovery and renewal send the same one).
function capabilityRequest(b) {
  const self = selfMount();
  return {
    schema: CAP_SCHEMA,
    type: 'capability-request',
    request_id: 'cr-' + randHex(8),
    host_instance_id: hostInstance(),
    parent_mount_id: self.mount_id,
    parent_generation: self.generation,
    child_mount_id: b.mountId,
    child_generation: b.generation,
    parent_origin: canonicalOrigin(OWN_ORIGIN),
    target_origin: b.expectedOrigin,
    relay_versions: [RELAY_SCHEMA, RELAY_V1],
    attempt: b.attempts,
  };
}
function attemptDiscovery(b) {
  b.timer = null;
  if (b.state === 'granted' || b.state === 'detached') return;
  if (!isConnected(b.iframe)) {
    detach(b);
    return;
  }
  b.expectedOrigin = expectedOriginFor(b.iframe);
  if (!b.expectedOrigin) {
    b.state = 'unsupported';
    settle(b);
    return;
  }
  if (b.attempts >= DISCOVERY_ATTEMPTS) {
    b.state = 'unavailable';
    b.lastCode = 'unavailable';
    settle(b);
    return;
  }
  // A same-origin child whose document finished loading without a runtime will never answer.
  if (sameOriginLoadedWithoutRuntime(b)) {
    b.state = 'unavailable';
    b.lastCode = 'unavailable';
    settle(b);
    return;
  }
  b.attempts++;
  const req = capabilityRequest(b);
  if (!req.parent_origin) {
    b.state = 'unavailable';
    settle(b);
    return;
  }
  b.requestIds.add(req.request_id);
  if (b.requestIds.size > 64) b.requestIds.delete(b.requestIds.values().next().value);
  postIfLoaded(b, req);
  b.timer = nSetTimeout(() => safe(() => attemptDiscovery(b)), DISCOVERY_INTERVAL_MS);
}
// While the frame still shows its initial about:blank (readable by us, same origin) the real
// document has not arrived: posting now would only make the browser log a target-origin mismatch.
// The frame's document when this realm may read it, else null. Every discovery retry asks, and in a
// 64-realm Host the Host realm spent 400 ms of its open on it: reading a cross-origin frame's
// `location` throws (a SecurityError costs far more than the read), and even `contentDocument`,
// which answers null instead, costs tens of µs. So a frame seen cross-origin is not asked again
// until its next load event (relay/parent.js onIframeLoad): its document can change only by a
// navigation, which ends in one.
function readableDocument(b) {
  if (b.crossOrigin) return null;
  const d = safe(() => b.iframe.contentDocument, null);
  if (!d) b.crossOrigin = true;
  return d;
}
function postIfLoaded(b, msg) {
  const cw = safe(() => b.iframe.contentWindow, null);
  if (!cw) return;
  const d = readableDocument(b);
  const href = d ? safe(() => d.URL, null) : null; // null: cross-origin, the child document is there
  if (href === 'about:blank') return;
  if (href !== null && href !== 'about:srcdoc' && canonicalOrigin(safe(() => cw.origin, null)) !== b.expectedOrigin)
    return;
  try {
    nPostMessage.call(cw, msg, b.expectedOrigin);
  } catch (_) {
    /* retried */
  }
}
function sameOriginLoadedWithoutRuntime(b) {
  const d = readableDocument(b);
  if (!d) return false; // cross-origin: unknowable, keep trying
  try {
    const cw = b.iframe.contentWindow;
    if (!cw || d.URL === 'about:blank') return false;
    return d.readyState === 'complete' && !cw.__wippyAttentionRuntime;
  } catch (_) {
    return false;
  }
}
function onIframeLoad(b) {
  if (b.state === 'detached') return;
  // A (re)load means the child document may have been replaced: the binding must be re-established
  // with whatever realm now lives there. Queries meanwhile report `navigation`.
  // In-flight queries are kept: if the same realm grants again (the first load event of a child
  // that was already bound) they are answered; a different realm fails them in onGrant.
  if (usable(b) || b.state === 'renewing') b.state = 'navigating';
  b.crossOrigin = false;
  startDiscovery(b);
}
export function detach(b) {
  b.state = 'detached';
  if (b.timer) nClearTimeout(b.timer);
  if (b.renewTimer) nClearTimeout(b.renewTimer);
  // Queries in flight fail now, not at their deadline: `generation-mismatch` (stale-mount) when a live
  // iframe carries the same mount id (the mount was replaced, a new generation), else `disconnected`
  // (child-disconnected: the child went away mid-query).
  let replaced = false;
  bindings.forEach((x) => {
    if (x !== b && x.mountId === b.mountId && x.generation !== b.generation && isConnected(x.iframe)) replaced = true;
  });
  failPending(b, replaced ? 'generation-mismatch' : 'disconnected');
  settle(b);
  bindings.delete(b.iframe);
}
// The realm's document was replaced (hub `document-replaced`): the dead document's iframes are gone.
export function detachAll() {
  Array.from(bindings.values()).forEach((b) => safe(() => detach(b)));
}
export function failPending(b, code) {
  const p = b.pending;
  b.pending = new Map();
  p.forEach((entry) => safe(() => entry.resolve({ error: code })));
}
// -> whether the grant was accepted: it answers a request of the current round and echoes exactly
// what was asked (Host instance, both mounts and generations, both origins), with a usable token.
export function onGrant(b, msg, ev) {
  if (typeof msg.request_id !== 'string' || !b.requestIds.has(msg.request_id)) return false;
  if (
    msg.host_instance_id !== hostInstance() ||
    msg.child_mount_id !== b.mountId ||
    msg.child_generation !== b.generation
  )
    return false;
  const self = selfMount();
  if (msg.parent_mount_id !== self.mount_id || msg.parent_generation !== self.generation) return false;
  if (
    msg.parent_origin !== canonicalOrigin(OWN_ORIGIN) ||
    msg.target_origin !== b.expectedOrigin ||
    ev.origin !== b.expectedOrigin
  )
    return false;
  if (typeof msg.token !== 'string' || !/^[\x21-\x7e]{16,128}$/.test(msg.token)) return false;
  if (msg.relay_version !== RELAY_SCHEMA && msg.relay_version !== RELAY_V1) return false;
  // Keep the round's request ids: the child answers every retry with a fresh token (each valid until
  // it expires), and the latest grant (postMessage preserves order per source) wins.
  if (b.timer) {
    nClearTimeout(b.timer);
    b.timer = null;
  }
  const realmId = typeof msg.realm_id === 'string' && /^r[a-z0-9]{1,16}$/.test(msg.realm_id) ? msg.realm_id : null;
  // A different realm (the child navigated or was replaced): nothing of the old realm's binding
  // stays valid, neither its queries nor either of its tokens.
  if (b.realmId && realmId !== b.realmId) {
    failPending(b, 'navigation');
    b.token = null;
    b.prevToken = null;
  }
  if (b.token !== msg.token) {
    b.prevToken = b.token;
    b.token = msg.token;
  }
  b.realmId = realmId;
  b.childOrigin = ev.origin;
  b.relayVersion = msg.relay_version;
  b.limits = grantLimits(msg.limits);
  const life = grantLifetime(msg.expires_in_ms);
  b.expiresAt = nDateNow() + life;
  b.grants++;
  b.grantedAt = nDateNow();
  b.lifetime = life;
  b.state = 'granted';
  b.lastCode = null;
  if (b.renewTimer) nClearTimeout(b.renewTimer);
  b.renewTimer = nSetTimeout(
    () =>
      safe(() => {
        if (b.state === 'granted') {
          b.state = 'renewing';
          b.attempts = 0;
          b.renewals++;
          b.renewStartedAt = nDateNow();
          attemptDiscoveryRenew(b);
        }
      }),
    renewDelay(life),
  );
  settle(b);
  return true;
}
function attemptDiscoveryRenew(b) {
  // Renewal keeps the current token usable until expiry; a failed renewal ends in `unavailable`.
  b.state = 'granted-renewing';
  const tick = () => {
    if (b.state !== 'granted-renewing') return;
    if (nDateNow() >= b.expiresAt || b.attempts >= DISCOVERY_ATTEMPTS) {
      b.state = 'discovering';
      startDiscovery(b);
      return;
    }
    b.attempts++;
    const req = capabilityRequest(b);
    b.requestIds.add(req.request_id);
    postIfLoaded(b, req);
    b.timer = nSetTimeout(() => safe(tick), DISCOVERY_INTERVAL_MS);
  };
  tick();
}
export function usable(b) {
  return (b.state === 'granted' || b.state === 'granted-renewing') && nDateNow() < b.expiresAt;
}
// The Host's own statement that it mounted this iframe without the runtime (`data-wippy-runtime="absent"`
// on the iframe element, which only the parent document can set). It never skips or shortens discovery
// (100 ms x 50 attempts go on, and a grant that does arrive is used); it only means nobody waits for a
// grant that will not come: ready() reports the child `unavailable` and a snapshot omits it at once.
export function declaredWithoutRuntime(b) {
  return safe(() => attr(b.iframe, 'data-wippy-runtime'), null) === 'absent';
}
export function waitUsable(b, deadlineAt) {
  if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached')
    return Promise.resolve();
  if (declaredWithoutRuntime(b) && b.state !== 'navigating') return Promise.resolve();
  return new Promise((resolve) => {
    let done = false;
    const fin = () => {
      if (!done) {
        done = true;
        resolve();
      }
    };
    b.waiters.push(fin);
    nSetTimeout(fin, Math.max(0, deadlineAt - nDateNow()));
  });
}
// The schema of a query to child `b`: the relay version it granted (a relay.v1 peer reads points and
// ready queries in v1; relay.md: "v1 point and selection queries stay available for older peers").
function querySchema(b) {
  return b.relayVersion === RELAY_V1 ? RELAY_V1 : RELAY_SCHEMA;
}
// The `query-request` envelope to child `b` (relay.md: schema, request id, token, Host instance,
// mount, generation, operation, timeout), said once for every operation; the caller adds the
// operation's own members. Its schema is the version the child granted (querySchema), so no caller
// can send a relay.v1 child a v2 schema.
export function queryRequest(b, id, operation, timeoutMs) {
  return {
    schema: querySchema(b),
    type: 'query-request',
    request_id: id,
    token: b.token,
    host_instance_id: hostInstance(),
    mount_id: b.mountId,
    generation: b.generation,
    operation: operation,
    timeout_ms: Math.max(0, timeoutMs),
  };
}
// Posts `msg` to the child's window at its granted origin. -> false when it could not be posted.
function postToChild(b, msg) {
  const cw = safe(() => b.iframe.contentWindow, null);
  if (!cw) return false;
  try {
    nPostMessage.call(cw, msg, b.childOrigin);
    return true;
  } catch (_) {
    return false;
  }
}
// One query to child `b` that waits at most `waitMs` for its answer: -> a Promise of the answer
// ({result} or {error} as onRelayFromChild routes it), {error: 'disconnected'} when it could not be
// posted, or {error: timeoutError()} when no answer came in time. The child is told `marginMs` less,
// so its own answer (or error) can still arrive. `members` are the operation's own.
export function askRealm(b, operation, members, waitMs, marginMs, timeoutError) {
  return new Promise((resolve) => {
    const id = 'q-' + randHex(8);
    const timer = nSetTimeout(() => {
      if (b.pending.delete(id)) resolve({ error: timeoutError() });
    }, waitMs);
    b.pending.set(id, {
      resolve: (r) => {
        nClearTimeout(timer);
        resolve(r);
      },
    });
    const msg = Object.assign(queryRequest(b, id, operation, waitMs - marginMs), members);
    if (!postToChild(b, msg)) {
      b.pending.delete(id);
      nClearTimeout(timer);
      resolve({ error: 'disconnected' });
    }
  });
}
const navigationOrDeadline = (b) => () => (b.state === 'navigating' ? 'navigation' : 'deadline-exceeded');
export function sendQuery(b, points, budgets, deadlineAt, options) {
  if (!safe(() => b.iframe.contentWindow, null) || !isConnected(b.iframe))
    return Promise.resolve({ error: 'disconnected' });
  const wait = Math.max(0, deadlineAt - nDateNow());
  return askRealm(
    b,
    'points',
    { points: points, budgets: budgets, options: options },
    wait,
    50,
    navigationOrDeadline(b),
  );
}
// An inspection query (operation `inspect`, relay.v2 only: relay/inspect-relay.js checks the version).
export function sendInspect(b, inspect, budgets, deadlineAt) {
  if (!safe(() => b.iframe.contentWindow, null) || !isConnected(b.iframe))
    return Promise.resolve({ error: 'disconnected' });
  const wait = Math.max(0, deadlineAt - nDateNow());
  return askRealm(b, 'inspect', { budgets: budgets, inspect: inspect }, wait, 30, navigationOrDeadline(b));
}
export function sendSimple(b, operation, deadlineAt) {
  if (!safe(() => b.iframe.contentWindow, null) || !usable(b)) return Promise.resolve({ error: 'unavailable' });
  const wait = Math.max(0, deadlineAt - nDateNow());
  return askRealm(b, operation, {}, wait, 100, () => 'deadline-exceeded');
}
// -> whether the message was accepted: a result or error for a query in flight, or an observation
// carrying the current (or previous) token within the rate bound.
export function onRelayFromChild(b, msg) {
  if (msg.type === 'query-result' || msg.type === 'query-error') {
    if (typeof msg.request_id !== 'string') return false;
    const entry = b.pending.get(msg.request_id);
    if (!entry) return false;
    b.pending.delete(msg.request_id);
    if (msg.type === 'query-error')
      entry.resolve({
        error: RELAY_CODES.indexOf(msg.code) >= 0 ? msg.code : 'internal-error',
        detail: typeof msg.detail === 'string' && /^[a-z0-9:-]{1,64}$/.test(msg.detail) ? msg.detail : null,
      });
    else entry.resolve({ result: msg });
    return true;
  }
  if (msg.type === 'observation') {
    if (typeof msg.token !== 'string' || !b.token || (msg.token !== b.token && msg.token !== b.prevToken)) {
      DBG.dropped++;
      return false;
    }
    // Bounded work per child: at most 240 observations per second are projected.
    const sec = Math.floor(nDateNow() / 1000);
    if (b.obsSecond !== sec) {
      b.obsSecond = sec;
      b.obsCount = 0;
    }
    if (++b.obsCount > 240) {
      DBG.dropped++;
      return false;
    }
    onChildObservation(b, msg);
    return true;
  }
  return false;
}

// How long a merge waits for a child's window: a child that grants but never answers costs a
// snapshot this much of its query timeout, not all of it. Each level of nesting passes its children
// 150 ms less (sendSimple's margin, then 50 ms here), so windows three realms deep are still merged.
export const MERGE_TIMEOUT_MS = 400;
// Pulls the window of pointermoves of every usable child that announced one (operation `observations`; spec: "The same
// limits apply when merging child observations") and records them as if each had been reported when
// it happened (realm/observation.js onChildObservation: projected into this realm; the top's history
// orders by occurrence). Resolves when every child answered or `deadlineAt` (Date.now() ms, at most
// MERGE_TIMEOUT_MS from now) passed; never rejects. The snapshot awaits it before it reads the pointer;
// the inspection API's getCursor should too (`await mergeChildWindows()`). An intermediate realm runs
// it for its own children when its parent pulls.
//
// A pull stays in flight until its answer is recorded (or PULL_KEEP_MS passed), not only while the
// merge that sent it waits: a child emptied its window into that answer and announces again only for
// moves made after it, so a later merge (the next snapshot) must wait for the answer still due, within
// its own deadline, or it would miss every move of a child that was slow to answer the first pull.
export function mergeChildWindows(deadlineAt) {
  const until = Math.min(
    typeof deadlineAt === 'number' && isFinite(deadlineAt) ? deadlineAt : Infinity,
    nDateNow() + MERGE_TIMEOUT_MS,
  );
  const asks = [];
  bindings.forEach((b) => {
    if (!usable(b)) return;
    // Children that said they have moves (`window-pending`, once per merge cycle) are asked; a pull
    // already in flight (sent by an earlier merge, answered or not) is awaited too.
    if (b.windowPending) {
      b.windowPending = false;
      const pull = pullWindow(b, until).then(() => {
        if (b.windowPull === pull) b.windowPull = null;
      });
      b.windowPull = pull;
    }
    if (b.windowPull) asks.push(b.windowPull);
  });
  if (!asks.length) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = nSetTimeout(resolve, Math.max(0, until - nDateNow()));
    Promise.all(asks).then(() => {
      nClearTimeout(timer);
      resolve();
    });
  });
}
// How long a pull's answer is still awaited and recorded after it was sent: a child empties its
// window when it answers, so a late answer (a loaded machine) must not lose its moves.
const PULL_KEEP_MS = 10000;
function recordWindow(b, r) {
  const list = r && r.result && Array.isArray(r.result.observations) ? r.result.observations : [];
  const n = Math.min(list.length, MAX_PULLED);
  for (let i = 0; i < n; i++) {
    const o = list[i];
    // A window holds pointermoves only; anything else a child puts there is ignored.
    if (o && o.kind === 'event' && o.event && o.event.type === 'pointermove')
      safe(() => onChildObservation(b, { observation: o }));
  }
}
// One child's window (operation `observations`, the child given until `until` to merge its own
// children): resolves when the answer is recorded, when PULL_KEEP_MS passed without one, or at once
// when the request cannot be posted. How long a merge waits for it is the merge's own deadline.
function pullWindow(b, until) {
  return new Promise((resolve) => {
    if (!safe(() => b.iframe.contentWindow, null) || !usable(b)) {
      resolve();
      return;
    }
    const id = 'q-' + randHex(8);
    const dropTimer = nSetTimeout(() => {
      b.pending.delete(id);
      resolve();
    }, PULL_KEEP_MS);
    b.pending.set(id, {
      resolve: (r) => {
        nClearTimeout(dropTimer);
        recordWindow(b, r);
        resolve();
      },
    });
    if (!postToChild(b, queryRequest(b, id, 'observations', Math.max(0, until - nDateNow()) - 100))) {
      b.pending.delete(id);
      nClearTimeout(dropTimer);
      resolve();
    }
  });
}
// A merge asked for by a separator (hub `observation-separator`): at most one in flight and one
// queued behind it, however many separators arrive.
let merging = null;
let mergeAgain = false;
export function requestMerge() {
  if (merging) {
    mergeAgain = true;
    return;
  }
  merging = mergeChildWindows().then(() => {
    merging = null;
    if (mergeAgain) {
      mergeAgain = false;
      requestMerge();
    }
  });
}
