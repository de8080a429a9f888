// The realm's current document (issue 7: a realm never goes silently missing). When a same-origin
// iframe's initial about:blank document is replaced by a same-origin navigation the browser keeps the
// Window, so a runtime that reached the initial document (an embedder's init script, a Host writing
// into a blank iframe) is still installed, and the new document's own copy of the runtime finds it.
// Everything bound to a document is then bound again: a new realm id (a new document is a new realm
// instance), the parent binding renegotiated, child bindings of the dead document detached, the
// MutationObserver and readiness on the new document, the window listeners re-added (the same
// function objects, so a listener the browser kept is not added twice). Checked when the new
// document's runtime copy starts (adoptDocument on the frozen internal object) and, as a fallback, on
// every inbound message, input event and snapshot. What the relay does with the document (observe it
// for iframes, scan on DOM ready and load, route messages, forget the dead document's bindings) it
// learns from the hub (core/hub.js: `root`, `scan`, `message`, `document-replaced`).
import { W, doc, nAddEL, nDateNow } from '../core/natives.js';
import { POINTER_TYPES } from '../core/constants.js';
import { safe, wrap } from '../core/dom-reads.js';
import { ROLE, REALM, renewRealm } from '../core/state.js';
import { emit } from '../core/hub.js';
import { onPointerEvent } from './observation.js';
import { focusInListener, focusOutListener, onWindowBlur } from './focus.js';
import { onSelectionInput, onSelectionChange, SELECTION_INPUT_TYPES } from './selection.js';

const onPointer = wrap((ev) => {
  currentDocument();
  onPointerEvent(ev);
});
// A pointer event the selection also watches gets one listener call (observation, then selection
// input, each with its own error guard) instead of two: the browser's cost of a call is per move.
const onPointerAndSelection = function (ev) {
  onPointer(ev);
  onSelectionInput(ev);
};
const onBlur = wrap(onWindowBlur);
const onMsg = wrap((ev) => {
  currentDocument();
  emit('message', ev);
});
const onLoad = wrap(() => emit('scan'));
const capt = { capture: true, passive: true };

// DOMContentLoaded of the realm's current document (once per document: currentDocument resets it).
export function whenDomReady() {
  if (!REALM.domReady) {
    REALM.domReady = new Promise((resolve) => {
      if (doc().readyState !== 'loading') resolve();
      else nAddEL.call(doc(), 'DOMContentLoaded', () => resolve(), { once: true });
    });
  }
  return REALM.domReady;
}

function bindDocument() {
  REALM.boundDocument = doc();
  POINTER_TYPES.forEach((t) =>
    nAddEL.call(W, t, SELECTION_INPUT_TYPES.indexOf(t) >= 0 ? onPointerAndSelection : onPointer, capt),
  );
  nAddEL.call(W, 'focusin', focusInListener, capt);
  nAddEL.call(W, 'focusout', focusOutListener, capt);
  nAddEL.call(W, 'blur', onBlur, capt);
  SELECTION_INPUT_TYPES.forEach((t) => {
    if (POINTER_TYPES.indexOf(t) < 0) nAddEL.call(W, t, onSelectionInput, capt);
  });
  nAddEL.call(REALM.boundDocument, 'selectionchange', onSelectionChange, capt);
  nAddEL.call(W, 'message', onMsg, true);
  emit('root', REALM.boundDocument);
  whenDomReady().then(() => safe(() => emit('scan')));
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
  // The relay forgets the old grant as child (relay/child.js) and, as parent, the dead document's
  // iframes (relay/parent.js).
  emit('document-replaced');
  REALM.localFocus = null;
  REALM.localSelection = null;
  REALM.domReady = null;
  REALM.loaded = null;
  REALM.lastMutationAt = nDateNow();
  bindDocument();
  return d;
}
