// The top realm's record of what was observed (spec: recent events, pointer and focus of the
// snapshot): events go into the history store (history.js) in occurrence order; the latest
// occurrence is the pointer; a late report of an older focus never overwrites a newer one; a
// focus-clear clears only the current record and keeps it when the Host's own focus moved into
// the composer (transfer rule); a focus-invalidate (focus on a sensitive control in any realm)
// clears any earlier focus. Every focus report (focus, clear, invalidate, a move into the composer
// as `focus-change`) is also a focus change at its OCCURRENCE time for move compaction
// (history.recordFocusChange), whatever order the realms' reports arrive in. Events and focus from
// a binding that is gone are stale. Children's pointermoves arrive late, when their windows are
// merged (relay/parent.js mergeChildWindows): the history orders by occurrence, so the result is the
// one an immediate report would have given. A discrete event or a focus report asks for that merge
// (hub `observation-separator`).
import { nTimeOrigin, nowAbs } from '../core/natives.js';
import { nodeType, isConnected } from '../core/dom-reads.js';
import { REALM_ID, REALM, TOP, bindings } from '../core/state.js';
import { privacyOf, isTransferTarget } from '../dom/privacy.js';
import { isIframe } from './hit-test.js';
import { deepActive } from '../dom/active-element.js';
import { insertEvent, recordFocusChange, seqFor } from './history.js';
import { emit } from '../core/hub.js';
import { DISCRETE } from '../core/constants.js';
import { bump } from './inspect-nodes.js';

// The inspection API's observation revision and the subscription kind of each observation.
const OBS_KIND = {
  event: 'cursor',
  focus: 'focus',
  'focus-clear': 'focus',
  'focus-invalidate': 'focus',
  selection: 'selection',
  'selection-clear': 'selection',
};
export function topRecord(obs, binding) {
  recordObservation(obs, binding);
  const k = obs && Object.prototype.hasOwnProperty.call(OBS_KIND, obs.kind) ? OBS_KIND[obs.kind] : null;
  if (k) bump(['observation', k]);
}
const timeOf = (t) => (typeof t === 'number' && isFinite(t) ? t : nowAbs());
function recordObservation(obs, binding) {
  if (obs.kind === 'focus') recordFocusChange(TOP, timeOf(obs.focus.t_abs));
  else if (obs.kind === 'focus-clear' || obs.kind === 'focus-invalidate' || obs.kind === 'focus-change')
    recordFocusChange(TOP, timeOf(obs.t_abs));
  if (/^focus/.test(obs.kind)) emit('observation-separator', null);
  if (obs.kind === 'event') {
    const e = obs.event;
    const t = typeof e.t_abs === 'number' && isFinite(e.t_abs) ? e.t_abs : nowAbs();
    const rec = Object.assign({}, e, {
      t_abs: t,
      candidates: obs.candidates || [],
      realmId: binding ? binding.realmId : REALM_ID,
      binding: binding,
    });
    insertEvent(TOP, rec, nTimeOrigin);
    // A discrete event separates moves in every realm: the children's windows are merged now
    // (relay/parent.js mergeChildWindows, wired through the hub), not at the next snapshot.
    if (DISCRETE[e.type]) emit('observation-separator', null);
  } else if (obs.kind === 'focus') {
    const t = typeof obs.focus.t_abs === 'number' && isFinite(obs.focus.t_abs) ? obs.focus.t_abs : nowAbs();
    if (TOP.focus && TOP.focus.t_abs > t) return; // a late report of an older focus change
    TOP.focus = {
      event_id: obs.focus.event_id,
      sequence: seqFor(t, nTimeOrigin),
      t_abs: t,
      focused_ms: obs.focus.focused_ms,
      realm_time_ms: obs.focus.realm_time_ms,
      candidate: obs.candidate,
      binding: binding,
      realmId: binding ? binding.realmId : REALM_ID,
      el: binding
        ? null
        : REALM.localFocus && REALM.localFocus.event_id === obs.focus.event_id
          ? REALM.localFocus.el
          : null,
    };
  } else if (obs.kind === 'focus-clear') {
    if (TOP.focus && TOP.focus.event_id === obs.event_id) {
      // Transfer rule: when the Host's own focus is now in excluded conversation controls, keep it.
      const a = deepActive();
      if (binding && a && nodeType(a) === 1 && !isIframe(a)) {
        const p = privacyOf(a);
        if (isTransferTarget(a, p)) return;
      }
      TOP.focus = null;
    }
  } else if (obs.kind === 'selection') {
    // The newest user selection of any realm is the current one (a browser selection never spans two
    // documents; another realm's selection is replaced by a newer one elsewhere).
    const t = timeOf(obs.selection.t_abs);
    if (TOP.selection && TOP.selection.t_abs > t) return;
    TOP.selection = Object.assign({}, obs.selection, {
      t_abs: t,
      binding: binding,
      realmId: binding ? binding.realmId : REALM_ID,
      mountId: binding ? binding.mountId : null,
    });
  } else if (obs.kind === 'selection-clear') {
    if (
      TOP.selection &&
      TOP.selection.selection_id === obs.selection_id &&
      (binding ? TOP.selection.binding === binding : !TOP.selection.binding)
    )
      TOP.selection = null;
  } else if (obs.kind === 'focus-invalidate') {
    // A later focus on a sensitive control, in any realm, invalidates the current focus, also
    // one kept across a transfer into the composer (spec: "Sensitive content ... invalidate focus").
    const t = typeof obs.t_abs === 'number' && isFinite(obs.t_abs) ? obs.t_abs : nowAbs();
    if (TOP.focus && TOP.focus.t_abs <= t) {
      TOP.focus = null;
    }
  }
}
export function bindingAlive(b, realmId) {
  if (!b) return true;
  return (
    bindings.get(b.iframe) === b &&
    isConnected(b.iframe) &&
    (b.state === 'granted' || b.state === 'granted-renewing' || b.state === 'renewing') &&
    (!realmId || b.realmId === realmId)
  );
}
