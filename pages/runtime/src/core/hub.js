// The hub: how a lower layer tells a higher one something without importing it (the layers and their
// rule: ../../README.md "Layers"). A module emits a named event; main.js, which sees every layer,
// wires the handlers once while the bundle is evaluated, before page scripts run. emit() calls the
// handlers synchronously, in the order they were wired, with the emitter's argument, and lets an
// exception propagate to the emitter exactly as the direct call it replaces did (the emitter's own
// guard catches it; later handlers of that event do not run). Nothing here is reachable from page
// scripts, and emit() uses no prototype method a page could patch.
//
// Events (emitted by -> wired to):
//   root               a document or shadow root became known (dom/shadow-roots.js, realm/document.js)
//                      -> relay/discovery.js observeRoot (MutationObserver, focus listeners on roots)
//   scan               the DOM may hold new iframes: DOM ready, window load (realm/document.js)
//                      -> relay/discovery.js scanIframes
//   message            an inbound postMessage, after the document check (realm/document.js)
//                      -> relay/router.js onMessage
//   document-replaced  the realm's document was replaced, the realm renewed (realm/document.js)
//                      -> relay/child.js forgetParent, then relay/parent.js detachAll
//   observation-up     an observation this child realm must forward to its parent (realm/observation.js)
//                      -> relay/child.js sendUp (or the pre-grant buffer)
//   observation-separator  the top recorded a discrete event or a focus report (realm/store.js), or a
//                      child announced moves while a cursor subscription listens (realm/observation.js)
//                      -> relay/parent.js requestMerge (children's windows of moves merged now)
//   inspection         a revision moved: [kinds] of tree / geometry / observation / cursor / focus /
//                      selection (realm/inspect-nodes.js, realm/store.js)
//                      -> relay/inspect-child.js noticeUp (a child tells its parent), host/subscriptions.js
//   inspect-up         a child realm's fromRoot call arrived (relay/inspect-parent.js)
//                      -> host/inspect.js (the top answers, a child asks its own parent)
//   inspect-total      the parent sent the Host's subscription total (relay/router.js)
//                      -> host/subscriptions.js onTotalFromParent
//   subscribe-slot     a child realm asked for subscription slots or gave them back (relay/inspect-parent.js)
//                      -> host/subscriptions.js onSlotCall (the top decides, a child asks its parent)
import { lookupTable } from './constants.js';

const HANDLERS = lookupTable({
  root: [],
  scan: [],
  message: [],
  'document-replaced': [],
  'observation-up': [],
  'observation-separator': [],
  inspection: [],
  'inspect-up': [],
  'inspect-total': [],
  'subscribe-slot': [],
});

function handlersOf(event) {
  const list = HANDLERS[event];
  if (!list) throw new Error('hub: unknown event ' + event);
  return list;
}

// Adds a handler (main.js, at bundle evaluation); handlers run in the order they were added.
export function on(event, handler) {
  const list = handlersOf(event);
  list[list.length] = handler;
}

// Calls every handler of the event now, in order, with `arg`.
export function emit(event, arg) {
  const list = handlersOf(event);
  for (let i = 0; i < list.length; i++) list[i](arg);
}
