// Inbound message routing (spec: relay — every inbound message must match the recorded origin and
// the live source window: `event.source === window.parent` for requests to this realm as child,
// `event.source === iframe.contentWindow` and the binding's origin for grants, denials, results and
// observations from a child). Every message is counted against its source before anything else
// (debug(): per binding `inbound` = `accepted` + `rejected`; `unmatched` for windows that are
// neither the parent nor a bound child), so a test can prove that a hostile child got nothing.
import { W, nClearTimeout } from '../core/natives.js';
import { CAP_SCHEMA, RELAY_SCHEMA, RELAY_V1 } from '../core/constants.js';
import { safe } from '../core/dom-reads.js';
import { isInt } from '../core/util.js';
import { emit } from '../core/hub.js';
import { ROLE, UP, DBG, bindings } from '../core/state.js';
import { onCapabilityRequest, onQueryRequest } from './child.js';
import { onGrant, onRelayFromChild, usable, settle } from './parent.js';
import { onUpResult, onAck } from './inspect-child.js';
import { onInspectNotice, onInspectUp } from './inspect-parent.js';

function bindingOf(source) {
  let b = null;
  bindings.forEach((x) => {
    if (!b) {
      const cw = safe(() => x.iframe.contentWindow, null);
      if (cw && cw === source) b = x;
    }
  });
  return b;
}
function ours(msg) {
  return (
    !!msg && typeof msg === 'object' && typeof msg.schema === 'string' && msg.schema.indexOf('wippy.attention.') === 0
  );
}

export function onMessage(ev) {
  if (ROLE === 'fragment-realm') return;
  const msg = ev.data;
  // From our parent?
  if (ROLE === 'child' && ev.source && ev.source === W.parent) {
    if (!ours(msg)) return;
    countKind(msg);
    if (msg.schema === CAP_SCHEMA && msg.type === 'capability-request') {
      onCapabilityRequest(msg, ev);
      return;
    }
    if (msg.schema === RELAY_SCHEMA && msg.type === 'inspect-up-result') {
      if (UP.granted && ev.origin === UP.parentOrigin) onUpResult(msg);
      return;
    }
    if (msg.schema === RELAY_SCHEMA && msg.type === 'inspect-total') {
      if (UP.granted && ev.origin === UP.parentOrigin && UP.tokens.has(msg.token) && isInt(msg.total) && msg.total >= 0)
        emit('inspect-total', {
          total: msg.total,
          yours: isInt(msg.yours) && msg.yours >= 0 ? msg.yours : 0,
          kinds: Array.isArray(msg.kinds) ? msg.kinds.slice(0, 8) : [],
          revisions: msg.revisions,
        });
      return;
    }
    if (msg.schema === RELAY_SCHEMA && msg.type === 'inspect-ack') {
      if (UP.granted && ev.origin === UP.parentOrigin && UP.tokens.has(msg.token) && Array.isArray(msg.kinds))
        onAck(msg.kinds.slice(0, 8));
      return;
    }
    if ((msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) && msg.type === 'query-request') {
      if (!UP.granted || ev.origin !== UP.parentOrigin) return;
      onQueryRequest(msg).catch(() => {
        /* ignore */
      });
    }
    return;
  }
  // From one of our children? Match the live source window, then the recorded origin.
  const b = ev.source ? bindingOf(ev.source) : null;
  if (!b) {
    DBG.unmatched++;
    return;
  }
  b.inbound++;
  const accepted = ours(msg) && (countKind(msg), fromChild(b, msg, ev));
  if (accepted) b.accepted++;
  else b.rejected++;
}
function countKind(msg) {
  const kind = typeof msg.type === 'string' && /^[a-z-]{1,32}$/.test(msg.type) ? msg.type : 'other';
  DBG.inbound[kind] = (DBG.inbound[kind] || 0) + 1;
}
// -> whether the message was accepted (changed the binding or answered a pending query).
function fromChild(b, msg, ev) {
  if (msg.schema === CAP_SCHEMA && msg.type === 'capability-grant') {
    if (ev.origin !== b.expectedOrigin) return false;
    return onGrant(b, msg, ev);
  }
  if (msg.schema === CAP_SCHEMA && msg.type === 'capability-deny') {
    // The child speaks no relay version we offer: stop discovering, it is unavailable.
    if (
      ev.origin !== b.expectedOrigin ||
      typeof msg.request_id !== 'string' ||
      !b.requestIds.has(msg.request_id) ||
      msg.code !== 'unsupported-version' ||
      usable(b)
    )
      return false;
    if (b.timer) {
      nClearTimeout(b.timer);
      b.timer = null;
    }
    b.state = 'unavailable';
    b.lastCode = 'unsupported-version';
    settle(b);
    return true;
  }
  if (msg.schema === RELAY_SCHEMA && (msg.type === 'inspect-notice' || msg.type === 'inspect-up')) {
    if (!b.childOrigin || ev.origin !== b.childOrigin) return false;
    if (typeof msg.token !== 'string' || !b.token || (msg.token !== b.token && msg.token !== b.prevToken)) return false;
    if (msg.type === 'inspect-notice') return onInspectNotice(b, msg);
    return onInspectUp(b, msg);
  }
  if (msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) {
    if (!b.childOrigin || ev.origin !== b.childOrigin) return false;
    return onRelayFromChild(b, msg);
  }
  return false;
}
