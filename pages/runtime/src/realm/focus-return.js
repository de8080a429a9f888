// Focus return for Host-owned overlays (spec "Terminal statuses": "focus returns to the control that
// was active before the overlay opened"). Chromium clears a frame's focused element when focus moves
// to another frame, so the Host alone cannot give focus back to a control inside an out-of-process
// iframe or a closed shadow root. Every realm remembers the deep element of its last trusted focusin
// (a WeakRef, never cleared by blur); the top realm marks its deep active element when an overlay
// opens (`wippyAttention.markFocus()`) and `wippyAttention.returnFocus()` focuses the mark again; when
// the mark is an iframe it posts `{schema: wippy.attention.focus.v1, type: focus-return}` to that
// child (its binding's granted origin), which focuses its own remembered element and forwards the
// same way, down to the realm that held the control. A child only obeys its live parent window
// from the granted parent origin.
import { W, nAddEL, nWeakRef } from '../core/natives.js';
import { safe, wrap } from '../core/dom-reads.js';
import { ROLE, UP, REALM, bindings } from '../core/state.js';
import { deepActive } from '../dom/active-element.js';

export const FOCUS_SCHEMA = 'wippy.attention.focus.v1';

function ref(el) {
  return el && nWeakRef ? new nWeakRef(el) : null;
}
function live(r) {
  const el = r && r.deref ? r.deref() : null;
  return el && el.isConnected ? el : null;
}

function focusAndDescend(el) {
  if (!el) return false;
  safe(() => el.focus({ preventScroll: true }));
  const b = bindings.get(el);
  if (b && b.childOrigin) {
    const cw = safe(() => el.contentWindow, null);
    if (cw) safe(() => cw.postMessage({ schema: FOCUS_SCHEMA, type: 'focus-return' }, b.childOrigin));
  }
  return true;
}

function onFocusIn(ev) {
  if (!ev || ev.isTrusted !== true) return;
  const el = deepActive();
  if (el) REALM.lastFocus = ref(el);
}

function onReturnMessage(ev) {
  const m = ev.data;
  if (!m || m.schema !== FOCUS_SCHEMA || m.type !== 'focus-return') return;
  if (ROLE !== 'child' || ev.source !== W.parent || !UP.granted || ev.origin !== UP.parentOrigin) return;
  focusAndDescend(live(REALM.lastFocus));
}

export function installFocusReturn() {
  nAddEL.call(W, 'focusin', wrap(onFocusIn), { capture: true, passive: true });
  if (ROLE === 'child') nAddEL.call(W, 'message', wrap(onReturnMessage), true);
}

/** Top realm: remember the control focused now (before an overlay takes focus). */
export function markFocus() {
  REALM.focusMark = ref(deepActive());
  return !!REALM.focusMark;
}

/** Top realm: focus the marked control again, descending into child realms; false when it is gone. */
export function returnFocus() {
  const el = live(REALM.focusMark);
  REALM.focusMark = null;
  return focusAndDescend(el);
}
