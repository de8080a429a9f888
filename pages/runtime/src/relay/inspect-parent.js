// Inspection messages a parent takes from a granted child (relay.v2, the child's current or previous
// token checked by relay/router.js): revision notices (the child's tree or geometry changed: this
// realm's revisions move, and the hub tells subscriptions and, in a child realm, the parent above)
// and fromRoot calls (`inspect-up`); the acknowledgement of notices once this realm's revisions were
// read (`inspect-ack`, ackChildren), handed to the API on the hub (`inspect-up`; a subscription's
// slot asked for or given back: `subscribe-slot`) with a reply function that answers the child
// (`inspect-up-result`).
import { nPostMessage } from '../core/natives.js';
import { RELAY_SCHEMA } from '../core/constants.js';
import { isInt } from '../core/util.js';
import { safe } from '../core/dom-reads.js';
import { INSPECTION, bindings } from '../core/state.js';
import { emit } from '../core/hub.js';
import { bump } from '../realm/inspect-nodes.js';

export function onInspectNotice(b, msg) {
  const kinds = Array.isArray(msg.kinds) ? msg.kinds.filter((k) => k === 'tree' || k === 'geometry') : [];
  // The child now stays quiet about these kinds until this realm has read its revisions (ackChildren).
  if (kinds.length) {
    if (!b.toldKinds) b.toldKinds = new Set();
    for (const k of kinds) b.toldKinds.add(k);
  }
  const before = b.inspectSubs || 0;
  if (isInt(msg.subs) && msg.subs >= 0 && msg.subs <= 100000) b.inspectSubs = msg.subs;
  let n = 0;
  bindings.forEach((x) => {
    if (x.state !== 'detached') n += x.inspectSubs || 0;
  });
  INSPECTION.childSubs = n;
  if (kinds.length) bump(Array.from(new Set(kinds)));
  if ((b.inspectSubs || 0) !== before) emit('inspection', ['subs']);
  return true;
}
// This realm's revisions are being reported (an inspection result, a subscription notice, a read
// by the parent above): every child that told of a change since the last report may tell again
// (`inspect-ack`, with the kinds it told; relay/inspect-child.js). Nothing is sent when no child
// told anything, so reads cost nothing while the children's DOMs are still.
export function ackChildren() {
  bindings.forEach((b) => {
    if (!b.toldKinds || !b.toldKinds.size) return;
    const kinds = Array.from(b.toldKinds);
    b.toldKinds.clear();
    if (b.state === 'detached' || !b.token || !b.childOrigin) return;
    const cw = safe(() => b.iframe.contentWindow, null);
    if (!cw) return;
    try {
      nPostMessage.call(cw, { schema: RELAY_SCHEMA, type: 'inspect-ack', token: b.token, kinds: kinds }, b.childOrigin);
    } catch (_) {
      /* ignore */
    }
  });
}
// At most this many fromRoot calls of one child are answered at a time; more are dropped (the child's
// own timer turns them into an omission), so a hostile child cannot queue unbounded work here.
const MAX_UP_PENDING = 32;
export function onInspectUp(b, msg) {
  if (typeof msg.request_id !== 'string' || msg.request_id.length > 128 || typeof msg.method !== 'string') return false;
  if ((b.upPending || 0) >= MAX_UP_PENDING) return false;
  b.upPending = (b.upPending || 0) + 1;
  const reply = (result) => {
    b.upPending = Math.max(0, (b.upPending || 1) - 1);
    const cw = safe(() => b.iframe.contentWindow, null);
    if (!cw || !b.childOrigin) return;
    try {
      nPostMessage.call(
        cw,
        { schema: RELAY_SCHEMA, type: 'inspect-up-result', request_id: msg.request_id, result: result },
        b.childOrigin,
      );
    } catch (_) {
      /* ignore */
    }
  };
  const slot = msg.method === 'subscribe-slot' || msg.method === 'subscribe-release';
  emit(slot ? 'subscribe-slot' : 'inspect-up', { binding: b, msg: msg, reply: reply });
  return true;
}
