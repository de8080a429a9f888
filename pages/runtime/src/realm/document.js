// The realm's current document (issue 7: a realm never goes silently missing). When a same-origin
// iframe's initial about:blank document is replaced by a same-origin navigation the browser keeps the
// Window, so a runtime that reached the initial document (an embedder's init script, a Host writing
// into a blank iframe) is still installed, and the new document's own copy of the runtime finds it.
// Everything bound to a document is then bound again: a new realm id (a new document is a new realm
// instance), the parent binding renegotiated, child bindings of the dead document detached, the
// MutationObserver and readiness on the new document, the window listeners re-added (the same
// function objects, so a listener the browser kept is not added twice). Checked when the new
// document's runtime copy starts (adoptDocument on the frozen internal object) and, as a fallback, on
// every inbound message, input event and snapshot.
import { W, doc, nAddEL, nDateNow } from '../core/natives.js';
import { POINTER_TYPES } from '../core/constants.js';
import { safe, wrap } from '../core/dom-reads.js';
import { ROLE, REALM, UP, upBuffer, bindings, renewRealm } from '../core/state.js';
import { scanIframes, observeRoot } from '../relay/discovery.js';
import { onPointerEvent } from './observation.js';
import { focusInListener, focusOutListener, onWindowBlur } from './focus.js';
import { onMessage } from '../relay/router.js';
import { onSelectionInput, onSelectionChange, SELECTION_INPUT_TYPES } from './selection.js';
import { whenDomReady } from '../host/readiness.js';
import { detach } from '../relay/parent.js';

const onPointer = wrap((ev) => { currentDocument(); onPointerEvent(ev); });
// A pointer event the selection also watches gets one listener call (observation, then selection
// input, each with its own error guard) instead of two: the browser's cost of a call is per move.
const onPointerAndSelection = function (ev) { onPointer(ev); onSelectionInput(ev); };
const onBlur = wrap(onWindowBlur);
const onMsg = wrap((ev) => { currentDocument(); onMessage(ev); });
const onLoad = wrap(() => scanIframes());
const capt = { capture: true, passive: true };

function bindDocument() {
  REALM.boundDocument = doc();
  POINTER_TYPES.forEach((t) => nAddEL.call(W, t, SELECTION_INPUT_TYPES.indexOf(t) >= 0 ? onPointerAndSelection : onPointer, capt));
  nAddEL.call(W, 'focusin', focusInListener, capt);
  nAddEL.call(W, 'focusout', focusOutListener, capt);
  nAddEL.call(W, 'blur', onBlur, capt);
  SELECTION_INPUT_TYPES.forEach((t) => { if (POINTER_TYPES.indexOf(t) < 0) nAddEL.call(W, t, onSelectionInput, capt); });
  nAddEL.call(REALM.boundDocument, 'selectionchange', onSelectionChange, capt);
  nAddEL.call(W, 'message', onMsg, true);
  observeRoot(REALM.boundDocument);
  whenDomReady().then(() => safe(scanIframes));
  nAddEL.call(W, 'load', onLoad, { once: true });
}
export function installDocumentListeners() {
  if (ROLE === 'fragment-realm') return;
  bindDocument();
}
// Rebinds when the realm's document is no longer the one this runtime bound to. Returns the document.
export function currentDocument() {
  const d = doc();
  if (ROLE === 'fragment-realm' || !REALM.boundDocument || REALM.boundDocument === d) return d;
  renewRealm();
  // This realm as child: the old grant belonged to the dead document; the parent renegotiates on the
  // iframe's load event and gets a grant naming the new realm id.
  UP.granted = false; UP.hostInstanceId = null; UP.parentOrigin = null; UP.parentMountId = null; UP.parentGeneration = null;
  UP.childMountId = null; UP.childGeneration = null; UP.tokens.clear(); UP.currentToken = null;
  upBuffer.length = 0;
  // This realm as parent: the dead document's iframes are gone.
  Array.from(bindings.values()).forEach((b) => safe(() => detach(b)));
  REALM.localFocus = null; REALM.localSelection = null; REALM.domReady = null; REALM.loaded = null; REALM.lastMutationAt = nDateNow();
  bindDocument();
  return d;
}
