// Inbound message routing (spec: relay — every inbound message must match the recorded origin and
// the live source window: `event.source === window.parent` for requests to this realm as child,
// `event.source === iframe.contentWindow` and the binding's origin for grants, denials, results and
// observations from a child).
import { W, nClearTimeout } from './natives.js';
import { CAP_SCHEMA, RELAY_SCHEMA, RELAY_V1 } from './constants.js';
import { safe } from './dom.js';
import { ROLE, UP, DBG, bindings } from './state.js';
import { onCapabilityRequest, onQueryRequest } from './relay-child.js';
import { onGrant, onRelayFromChild, usable, settle } from './relay-parent.js';

export function onMessage(ev) {
  const msg = ev.data;
  if (!msg || typeof msg !== 'object' || typeof msg.schema !== 'string' || msg.schema.indexOf('wippy.attention.') !== 0) return;
  if (ROLE === 'fragment-realm') return;
  const kind = (typeof msg.type === 'string' && /^[a-z-]{1,32}$/.test(msg.type)) ? msg.type : 'other';
  DBG.inbound[kind] = (DBG.inbound[kind] || 0) + 1;
  // From our parent?
  if (ROLE === 'child' && ev.source === W.parent) {
    if (msg.schema === CAP_SCHEMA && msg.type === 'capability-request') { onCapabilityRequest(msg, ev); return; }
    if ((msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) && msg.type === 'query-request') {
      if (!UP.granted || ev.origin !== UP.parentOrigin) return;
      onQueryRequest(msg).catch(() => { /* ignore */ });
      return;
    }
  }
  // From one of our children? Match the live source window and the recorded origin.
  if (!ev.source) return;
  let b = null;
  bindings.forEach((x) => { if (!b) { const cw = safe(() => x.iframe.contentWindow, null); if (cw && cw === ev.source) b = x; } });
  if (!b) { DBG.inbound.unmatched = (DBG.inbound.unmatched || 0) + 1; return; }
  if (msg.schema === CAP_SCHEMA && msg.type === 'capability-grant') {
    if (ev.origin !== b.expectedOrigin) return;
    onGrant(b, msg, ev);
    return;
  }
  if (msg.schema === CAP_SCHEMA && msg.type === 'capability-deny') {
    // The child speaks no relay version we offer: stop discovering, it is unavailable.
    if (ev.origin !== b.expectedOrigin || !b.requestIds.has(msg.request_id) || usable(b)) return;
    if (b.timer) { nClearTimeout(b.timer); b.timer = null; }
    b.state = 'unavailable'; b.lastCode = 'unsupported-version'; settle(b);
    return;
  }
  if (msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) {
    if (!b.childOrigin || ev.origin !== b.childOrigin) { DBG.inbound.badorigin = (DBG.inbound.badorigin || 0) + 1; return; }
    onRelayFromChild(b, msg);
  }
}

