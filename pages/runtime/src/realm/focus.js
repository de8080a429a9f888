// Focus (spec: focus — each realm tracks its deep active element (document -> shadow roots incl.
// closed -> fragments); focus entering the composer or other excluded controls keeps the last
// meaningful focus (transfer rule), sensitive controls clear it (a `focus-invalidate` observation
// with the occurrence time, so a focus kept from any other realm is cleared too); a focusout that does not land
// elsewhere, or the window losing focus, clears it; the top re-validates Host-realm focus at read
// time). The focus record itself lives in core/state.js (REALM.localFocus, TOP.focus).
import { W, doc, nSetTimeout, nTimeOrigin, eventTime, nJSONStringify } from '../core/natives.js';
import { iso, nonneg } from '../core/util.js';
import { obsNow } from '../core/clock.js';
import { safe, wrap, nodeType, isConnected } from '../core/dom-reads.js';
import { ROLE, REALM, TOP, seenFocusEvents } from '../core/state.js';
import { deepActive } from '../dom/active-element.js';
import { privacyOf, isTransferTarget } from '../dom/privacy.js';
import { isIframe } from './hit-test.js';
import { describe } from './candidates.js';
import { clampPath } from '../dom/segments.js';
import { newEventId, recordLocal } from './observation.js';
import { bindingAlive } from './store.js';

function firstSight(ev) {
  if (seenFocusEvents.has(ev)) return false;
  seenFocusEvents.add(ev);
  return true;
}
export function onFocusIn(ev) {
  if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || !firstSight(ev)) return;
  const el = deepActive();
  if (!el || nodeType(el) !== 1) return;
  if (isIframe(el)) return; // the child realm reports its own focus
  const p = privacyOf(el);
  if (p.excluded) {
    // Moving into the excluded conversation controls (the composer) keeps the last meaningful
    // focus; any other excluded element (sensitive controls, exclude markers) invalidates it.
    // The invalidation also reaches the top when this realm holds no focus record of its own:
    // the current focus may be a record kept from another realm across a composer transfer.
    if (!isTransferTarget(el, p)) {
      clearLocalFocus(eventTime(ev));
      recordLocal({ kind: 'focus-invalidate', t_abs: eventTime(ev) });
    } else recordLocal({ kind: 'focus-change', t_abs: eventTime(ev) }); // no record, but moves on both sides do not compact
    return;
  }
  const ids = newEventId();
  const d = safe(() => describe(el, { redacted: !!p.redacted, textNone: false }), null);
  if (!d) return;
  REALM.localFocus = { event_id: ids.event_id, el: el };
  const tAbs = eventTime(ev);
  recordLocal({
    kind: 'focus',
    focus: { event_id: ids.event_id, focused_ms: obsNow(), t_abs: tAbs, realm_time_ms: nonneg(tAbs - nTimeOrigin) },
    candidate: d,
  });
}
export function onFocusOut(ev) {
  if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || !firstSight(ev) || !REALM.localFocus) return;
  let src = null;
  try {
    src = (ev.composedPath && ev.composedPath()[0]) || ev.target;
  } catch (_) {
    src = ev.target;
  }
  if (src && nodeType(src) === 1 && src !== REALM.localFocus.el && privacyOf(src).excluded) return; // leaving the composer never clears
  const rt = ev.relatedTarget;
  if (rt && nodeType(rt) === 1) {
    const p = privacyOf(rt);
    if (isTransferTarget(rt, p)) return; // transfer into the composer
  }
  // Defer: a focusin may follow immediately (moving within this realm) and replaces the record.
  const cleared = REALM.localFocus.event_id;
  const tOut = eventTime(ev);
  nSetTimeout(
    () =>
      safe(() => {
        if (!REALM.localFocus || REALM.localFocus.event_id !== cleared) return;
        const a = deepActive();
        if (a && a === REALM.localFocus.el) return;
        if (a && nodeType(a) === 1 && !isIframe(a)) {
          const p = privacyOf(a);
          if (isTransferTarget(a, p)) return;
        }
        clearLocalFocus(tOut);
      }),
    0,
  );
}
// Clears this realm's focus record; t_abs is when the focus change occurred (the focusout / blur).
export function clearLocalFocus(tAbs) {
  if (!REALM.localFocus) return;
  const id = REALM.localFocus.event_id;
  REALM.localFocus = null;
  recordLocal({ kind: 'focus-clear', event_id: id, t_abs: tAbs });
}
// The realm's window lost focus (another frame, another window): its element keeps being the
// document's activeElement but no longer has focus. A child reports the clear (the top keeps the
// record when its own focus is now in the composer, see topRecord); the top clears when the whole
// Host document lost focus.
export function onWindowBlur(ev) {
  if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || ev.target !== W) return;
  const tBlur = eventTime(ev);
  nSetTimeout(
    () =>
      safe(() => {
        if (doc().hasFocus()) return;
        if (ROLE === 'top') {
          clearLocalFocus(tBlur);
          TOP.focus = null;
        } else clearLocalFocus(tBlur);
      }),
    0,
  );
}

// A focus change moves the input epoch (:focus styles may change boxes: realm/resolve-cache.js).
export const focusInListener = wrap((ev) => {
  REALM.inputEpoch++;
  onFocusIn(ev);
});
export const focusOutListener = wrap((ev) => {
  REALM.inputEpoch++;
  onFocusOut(ev);
});
export function currentFocusRecord() {
  const f = TOP.focus;
  if (!f) return null;
  if (f.binding) {
    if (!bindingAlive(f.binding, f.realmId)) {
      TOP.focus = null;
      return null;
    }
    return { f: f, candidate: f.candidate };
  }
  const el = f.el;
  if (!el || !isConnected(el)) {
    TOP.focus = null;
    return null;
  }
  const p = privacyOf(el);
  if (p.excluded) {
    TOP.focus = null;
    return null;
  }
  const d = safe(() => describe(el, { redacted: !!p.redacted, textNone: false }), f.candidate);
  return { f: f, candidate: d };
}
export function focusApi() {
  const fr = currentFocusRecord();
  if (!fr || !fr.candidate) return null;
  const fo = {
    event_id: fr.f.event_id,
    sequence: fr.f.sequence,
    focused_at: iso(fr.f.focused_ms),
    realm_time_ms: nonneg(fr.f.realm_time_ms),
    candidate_id: fr.candidate.target_id,
    path: clampPath(fr.candidate.path),
    summary: fr.candidate.summary,
  };
  return JSON.parse(nJSONStringify(fo));
}
