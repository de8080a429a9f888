// The public inspection API of a realm (spec: "Canonical inspection and agent tools"; quickstart
// "使用公共 API"; relay.md v2): find / getTree / getNode / getGeometry / hitTest / getCursor / getFocus /
// getSelection, every one resolving (never rejecting, never throwing) to {outcome, data, omissions,
// revisions, continuation?}; bad input gives `invalid-request` and changes nothing. Scope: by default
// this realm's own subtree (its document; in the top realm the Host tree); fromRoot: true the whole
// Host tree, asked through the parent chain up to the top (never another tab or the outer page).
// Continuations are kept here (core/continuations.js). Also the Session's route
// `wippyAttention.inspect(request)` (top realm): relay.md's `inspection` object plus `targets`.
// This module dispatches a call by method name and keeps every call from rejecting; the reads live in
// inspect-tree.js (find, getTree), inspect-node.js (getNode, getGeometry, hitTest),
// inspect-observation.js (cursor, focus, selection), inspect-scoped.js (a fragment realm's scope) and
// inspect-session.js (the Session's route), on inspect-result.js and inspect-paging.js.
import { INSPECT } from '../core/constants.js';
import { ROLE, INSPECTION } from '../core/state.js';
import { upCall } from '../relay/inspect-child.js';
import { layoutUp } from '../relay/inspect-relay.js';
import { result, invalid } from './inspect-result.js';
import { find, getTree } from './inspect-tree.js';
import { getNode, getGeometry, hitTestApi, LAYOUT_UP } from './inspect-node.js';
import { getCursor, getFocus, getSelection } from './inspect-observation.js';

// One call by method name (the API object, a child's fromRoot call arriving at the top).
export function callMethod(caller, method, args) {
  const a = Array.isArray(args) ? args : [];
  switch (method) {
    case 'find':
      return find(caller, a[0], a[1]);
    case 'getTree':
      return getTree(caller, a[0], a[1]);
    case 'getNode':
      return getNode(caller, a[0]);
    case 'getGeometry':
      return getGeometry(caller, a[0]);
    case 'hitTest':
      return hitTestApi(caller, a[0], a[1]);
    case 'getCursor':
      return getCursor(caller, a[0]);
    case 'getFocus':
      return getFocus(caller, a[0]);
    case 'getSelection':
      return getSelection(caller, a[0]);
    default:
      return Promise.resolve(invalid('method'));
  }
}
// Never rejects: an unexpected failure is `unavailable` with an internal-error detail.
export function guarded(p) {
  return Promise.resolve(p).then(
    (r) => r,
    (e) => {
      // For the debug hook only (never in a result): how many calls failed and the last message.
      INSPECTION.errors = (INSPECTION.errors || 0) + 1;
      INSPECTION.lastError = String((e && e.message) || e).slice(0, 200);
      return result('unavailable', { nodes: [] }, [
        { reason: 'capability-unavailable', detail: 'transport:internal-error:stage:query-call' },
      ]);
    },
  );
}
// A child realm's fromRoot call (hub `inspect-up`): the top answers; a child realm asks its parent.
export function onInspectUpCall(e) {
  const msg = e.msg;
  const caller =
    'up:' +
    (e.binding.realmId || e.binding.mountId) +
    ':' +
    (typeof msg.caller === 'string' ? msg.caller.slice(0, 200) : '');
  const METHODS = ['find', 'getTree', 'getNode', 'getGeometry', 'hitTest', 'getCursor', 'getFocus', 'getSelection'];
  const args = Array.isArray(msg.args) ? msg.args.slice(0, 2) : [];
  if (msg.method === LAYOUT_UP) {
    // One hop of a child realm's geometry toward the Host viewport: mapped through the iframe here,
    // answered at the top, passed on up from a child realm.
    const l = layoutUp(args[0], e.binding);
    if (!l) e.reply(result('unavailable', { nodes: [] }, [{ reason: 'unsupported-transform' }]));
    else if (ROLE === 'top') e.reply(result('ok', { nodes: [], layout: l }, []));
    else
      guarded(upCall(caller, LAYOUT_UP, [l], INSPECT.timeoutMs * 2)).then((r) => e.reply(r || invalid('unanswered')));
    return;
  }
  if (METHODS.indexOf(msg.method) < 0) {
    e.reply(invalid('method'));
    return;
  }
  const run =
    ROLE === 'top'
      ? callMethod(caller, msg.method, withFromRoot(msg.method, args))
      : upCall(caller, msg.method, args, INSPECT.timeoutMs * 2);
  guarded(run).then((r) => e.reply(r || invalid('unanswered')));
}
function withFromRoot(method, args) {
  // Reads that take options get fromRoot: true at the top (the caller asked for the Host tree).
  const idx = { find: 1, getTree: 1, hitTest: 1, getCursor: 0, getFocus: 0, getSelection: 0 }[method];
  if (idx === undefined) return args;
  const out = args.slice();
  const o = out[idx];
  if (o === undefined || o === null) out[idx] = { fromRoot: true };
  else if (typeof o === 'object' && !Array.isArray(o)) out[idx] = Object.assign({}, o, { fromRoot: true });
  return out;
}
