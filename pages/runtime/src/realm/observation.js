// Observation (spec: recent events — trusted pointermove / pointerdown / pointerup / click /
// touchstart / touchend only; each realm resolves its own events synchronously at event time with
// the sampling hit test ("the candidate IDs resolved at that time"); keyboard clicks are recorded at
// the activated element's centre). A child realm pushes nothing per pointermove (issue 23): its
// moves go into its own bounded window (the history store of realm/history.js: 60 s, 32 events,
// compaction, latest pointer; its own discrete events and focus changes separate it), which the
// parent pulls when it needs it ("The same limits apply when merging child observations"; relay
// operation `observations`, relay/parent.js mergeChildWindows; the first move after a merge tells
// the parent once, `window-pending`, so a merge asks only realms that have moves). Everything else (discrete events,
// focus, selection) is forwarded up at once (the hub's `observation-up`: relay/child.js sends it,
// or buffers at most 32 (60 s) before its grant). The parent maps a child's observation into its
// own space and records it (top) or keeps it (an intermediate realm: moves into its window, the
// rest forwarded up).
import { nTimeOrigin, eventTime, nowAbs, nSetTimeout } from '../core/natives.js';
import { obsNow, fromPeerClock } from '../core/clock.js';
import { POINTER_TYPES, INSPECT } from '../core/constants.js';
import { r3, nonneg, isInt, cutBytes, normText, rectOut } from '../core/util.js';
import { sanitizeSelection, SELECTION_TEXT_BYTES } from '../dom/sanitize.js';
import { mapRect } from '../dom/segments.js';
import { safe, nodeType, rectOf } from '../core/dom-reads.js';
import { ROLE, REALM_ID, REALM, INSPECTION } from '../core/state.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { privacyOf } from '../dom/privacy.js';
import { hitTest, isIframe, promote } from './hit-test.js';
import { describe } from './candidates.js';
import { MOVE_MEMO } from './resolve-cache.js';
import { clampPath } from '../dom/segments.js';
import { chainFor, projectDescriptor } from './project.js';
import { emit } from '../core/hub.js';
import { deepActive } from '../dom/active-element.js';
import { topRecord } from './store.js';
import { insertEvent, recordFocusChange, takeWindow as takeWindowOf, MAX_MERGED } from './history.js';
import { MAX_EVENTS } from '../core/constants.js';

export function newEventId() {
  REALM.localSeq++;
  return { event_id: 'ev-' + REALM_ID + '-' + REALM.localSeq, localSeq: REALM.localSeq };
}
function pointOf(ev) {
  if (ev.type === 'touchstart' || ev.type === 'touchend') {
    const t = (ev.changedTouches && ev.changedTouches[0]) || (ev.touches && ev.touches[0]);
    if (!t) return null;
    return { x: t.clientX, y: t.clientY, touchId: t.identifier };
  }
  return { x: ev.clientX, y: ev.clientY };
}
export function onPointerEvent(ev) {
  if (!ev || ev.isTrusted !== true) return;
  if (ROLE === 'fragment-realm') return; // fragments are observed physically by the realm owning the DOM
  // A discrete event moves the input epoch: what a move resolved before it is read again (realm/resolve-cache.js).
  if (ev.type !== 'pointermove') REALM.inputEpoch++;
  // A click activated from the keyboard (Enter/Space on a control) has no pointer position
  // (detail 0, empty pointerType, client 0,0): its target is the activated element itself.
  const keyboardClick = ev.type === 'click' && ev.detail === 0 && !ev.pointerType;
  let kbTarget = null;
  let pt;
  if (keyboardClick) {
    try {
      kbTarget = ev.composedPath()[0];
    } catch (_) {
      kbTarget = ev.target;
    }
    if (kbTarget && nodeType(kbTarget) === 1 && shadowOf(kbTarget)) {
      const a = deepActive();
      if (a) kbTarget = a;
    }
    if (!kbTarget || nodeType(kbTarget) !== 1) return;
    if (isIframe(kbTarget)) return; // the child realm saw the activation itself
    const r = rectOf(kbTarget);
    pt = { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  } else pt = pointOf(ev);
  if (!pt || !isFinite(pt.x) || !isFinite(pt.y)) return;
  const now = obsNow();
  const ids = newEventId();
  const tAbs = eventTime(ev);
  const rec = {
    event_id: ids.event_id,
    type: ev.type,
    observed_ms: now,
    t_abs: tAbs,
    realm_time_ms: nonneg(tAbs - nTimeOrigin),
    point: { x: r3(pt.x), y: r3(pt.y) },
  };
  if (ev.type === 'touchstart' || ev.type === 'touchend') {
    rec.pointer_type = 'touch';
    if (isInt(pt.touchId)) rec.pointer_id = pt.touchId;
  } else {
    if (isInt(ev.pointerId)) rec.pointer_id = ev.pointerId;
    const pt2 = ev.pointerType;
    rec.pointer_type =
      pt2 === 'mouse' || pt2 === 'pen' || pt2 === 'touch'
        ? pt2
        : pt2 === undefined && ev.type === 'click' && !keyboardClick
          ? 'mouse'
          : 'unknown';
    if (isInt(ev.buttons) && ev.buttons >= 0) rec.buttons = ev.buttons;
    if (ev.type !== 'click') {
      let cap = false;
      try {
        const t0 = ev.composedPath && ev.composedPath()[0];
        cap = !!(t0 && t0.hasPointerCapture && isInt(ev.pointerId) && t0.hasPointerCapture(ev.pointerId));
      } catch (_) {
        cap = false;
      }
      rec.pointer_capture = cap;
    }
  }
  let h;
  if (keyboardClick) {
    const el = promote(kbTarget);
    const p = privacyOf(el);
    h = p.excluded ? { kind: 'excluded', el: p.excluded } : { kind: 'element', el: el, redacted: !!p.redacted };
  } else h = safe(() => hitTest(pt.x, pt.y, MOVE_MEMO), { kind: 'none' });
  let cands = [];
  if (h.kind === 'element') {
    const opts = { redacted: h.redacted, textNone: false, role: h.role };
    const d = safe(() => (h.start ? MOVE_MEMO.describe(h.el, opts, h.start) : describe(h.el, opts)), null);
    if (d) cands = [d];
  }
  // h.kind === 'iframe': the child realm receives this input itself and reports it; here we only
  // saw a border/edge event. Excluded hits record the event without candidates.
  if (h.kind === 'iframe') return;
  rec.excluded = h.kind === 'excluded';
  recordLocal({ kind: 'event', event: rec, candidates: cands });
}
// This child realm's window of pointermoves the parent has not pulled yet (a history store).
const WINDOW = { events: [], pointer: null, focusChanges: [] };
// At most this many moves leave a window in one pull: 32 entries, each with the moves it absorbed.
export const MAX_PULLED = MAX_EVENTS * (MAX_MERGED + 1);
const isMove = (obs) => obs.kind === 'event' && obs.event && obs.event.type === 'pointermove';
const separatorTime = (obs) =>
  obs.kind === 'event' ? obs.event.t_abs : obs.kind === 'focus' ? obs.focus && obs.focus.t_abs : obs.t_abs;
// Whether the parent was told that this realm (or one below it) has moves to merge since the
// parent last took them: one `window-pending` observation per merge cycle, never one per move, so
// a merge asks only the children that have something (and costs nothing when none has).
let announced = false;
function announce() {
  if (announced) return;
  announced = true;
  emit('observation-up', { kind: 'window-pending' });
}
// Says again that moves wait (when they do), with the token current now. relay/child.js calls it
// after each grant it issues and after refusing a pull: a `window-pending` sent before a grant can
// carry a token the parent refused (a late grant of a discovery round the parent already ended)
// and be dropped, and a pull this realm refused took nothing; either way `announced` stayed set and
// these moves would never be pulled. A realm with no waiting moves sends nothing.
export function reannounceWindow() {
  if (!announced) return;
  announced = false;
  announce();
}
function keepMove(obs) {
  insertEvent(WINDOW, Object.assign({}, obs.event, { candidates: obs.candidates || [] }), nTimeOrigin);
  announce();
}
// A child realm's observation on its way up: a move stays in the window; a discrete event or a
// focus report separates the window's moves (as it does the Host's history) and goes up now.
function childRecord(obs) {
  if (isMove(obs)) {
    keepMove(obs);
    return;
  }
  if (obs.kind === 'event' || /^focus/.test(obs.kind)) {
    const t = separatorTime(obs);
    if (typeof t === 'number' && isFinite(t)) recordFocusChange(WINDOW, t);
  }
  emit('observation-up', obs);
}
// Empties the window for a pull (relay/child.js, operation `observations`): history.takeWindow's
// moves, as the observations a push would have carried.
export function takeWindow() {
  announced = false;
  const out = [];
  for (const r of takeWindowOf(WINDOW, obsNow())) {
    const e = {
      event_id: r.event_id,
      type: r.type,
      observed_ms: r.observed_ms,
      t_abs: r.t_abs,
      realm_time_ms: r.realm_time_ms,
      point: r.point,
      excluded: !!r.excluded,
    };
    for (const k of ['pointer_id', 'pointer_type', 'buttons', 'pointer_capture']) if (r[k] !== undefined) e[k] = r[k];
    out.push({ kind: 'event', event: e, candidates: r.candidates });
  }
  return out.length > MAX_PULLED ? out.slice(out.length - MAX_PULLED) : out;
}
// Route an observation made in this realm: the top records it, a child keeps or forwards it.
export function recordLocal(obs) {
  if (ROLE === 'top') topRecord(obs, null);
  else if (ROLE === 'child') childRecord(obs);
}
// An observation arriving from a child binding: project into this realm, then record or forward.
export function onChildObservation(b, msg) {
  const o = msg.observation;
  if (!o || typeof o !== 'object') return;
  const chain = chainFor(b);
  const projectList = (list) =>
    chain.excluded
      ? []
      : (Array.isArray(list) ? list.slice(0, 4) : [])
          .map((d) => {
            const pd = projectDescriptor(d, chain);
            if (pd) {
              if (pd.path.length > 32 || d.clamped === true) pd.clamped = true;
              pd.path = clampPath(pd.path);
            }
            return pd;
          })
          .filter(Boolean);
  if (o.kind === 'event' && o.event && typeof o.event === 'object') {
    const e = o.event;
    if (POINTER_TYPES.indexOf(e.type) < 0 || typeof e.event_id !== 'string' || !e.point) return;
    const x = Number(e.point.x),
      y = Number(e.point.y);
    if (!isFinite(x) || !isFinite(y)) return;
    const rec = {
      event_id: cutBytes(e.event_id, 128),
      type: e.type,
      observed_ms: isFinite(e.observed_ms) ? Math.min(fromPeerClock(Number(e.observed_ms)), obsNow()) : obsNow(),
      t_abs: typeof e.t_abs === 'number' && isFinite(e.t_abs) ? Math.min(e.t_abs, nowAbs()) : nowAbs(),
      realm_time_ms: nonneg(e.realm_time_ms),
      point: { x: r3(chain.geom.ox + x * chain.geom.sx), y: r3(chain.geom.oy + y * chain.geom.sy) },
      excluded: !!e.excluded || chain.excluded,
    };
    if (isInt(e.pointer_id)) rec.pointer_id = e.pointer_id;
    if (['mouse', 'pen', 'touch', 'unknown'].indexOf(e.pointer_type) >= 0) rec.pointer_type = e.pointer_type;
    if (isInt(e.buttons) && e.buttons >= 0) rec.buttons = e.buttons;
    if (typeof e.pointer_capture === 'boolean') rec.pointer_capture = e.pointer_capture;
    const fwd = { kind: 'event', event: rec, candidates: projectList(o.candidates) };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'window-pending') {
    // The child (or a realm below it) has moves for the next merge (relay/parent.js mergeChildWindows).
    b.windowPending = true;
    if (ROLE === 'child') announce();
    else mergeForCursorListeners();
  } else if (o.kind === 'focus' && o.focus && typeof o.focus.event_id === 'string') {
    if (chain.excluded) return;
    const list = projectList([o.candidate]);
    if (!list.length) return;
    const fwd = {
      kind: 'focus',
      focus: {
        event_id: cutBytes(o.focus.event_id, 128),
        focused_ms: isFinite(o.focus.focused_ms)
          ? Math.min(fromPeerClock(Number(o.focus.focused_ms)), obsNow())
          : obsNow(),
        t_abs:
          typeof o.focus.t_abs === 'number' && isFinite(o.focus.t_abs) ? Math.min(o.focus.t_abs, nowAbs()) : nowAbs(),
        realm_time_ms: nonneg(o.focus.realm_time_ms),
      },
      candidate: list[0],
    };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'focus-clear' && typeof o.event_id === 'string') {
    const fwd = { kind: 'focus-clear', event_id: o.event_id };
    if (typeof o.t_abs === 'number' && isFinite(o.t_abs)) fwd.t_abs = Math.min(o.t_abs, nowAbs());
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'focus-change' && typeof o.t_abs === 'number' && isFinite(o.t_abs)) {
    const fwd = { kind: 'focus-change', t_abs: Math.min(o.t_abs, nowAbs()) };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'selection') {
    const s = sanitizeSelection(o.selection);
    if (!s) return;
    const ts = o.selection;
    s.t_abs = typeof ts.t_abs === 'number' && isFinite(ts.t_abs) ? Math.min(ts.t_abs, nowAbs()) : nowAbs();
    s.selected_ms = isFinite(ts.selected_ms) ? Math.min(fromPeerClock(Number(ts.selected_ms)), obsNow()) : obsNow();
    if (chain.excluded) {
      for (const k of ['direction', 'text', 'anchor_path', 'focus_path', 'ranges', 'anchor_node_id', 'focus_node_id'])
        delete s[k];
      s.privacy = 'excluded';
    } else if (s.privacy !== 'excluded' && s.privacy !== 'unavailable') {
      if (chain.redacted) {
        s.privacy = 'redacted';
        s.text = '';
      }
      s.text = cutBytes(normText(s.text), SELECTION_TEXT_BYTES);
      const proj = (p) => {
        if (chain.redacted) for (const seg of p) delete seg.label;
        return chain.path.concat(p);
      };
      s.anchor_path = proj(s.anchor_path);
      s.focus_path = proj(s.focus_path);
      s.ranges = s.ranges.map((r) => rectOut(mapRect(r, chain.geom)));
    }
    const fwd = { kind: 'selection', selection: s };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'selection-clear' && typeof o.selection_id === 'string') {
    const fwd = { kind: 'selection-clear', selection_id: o.selection_id };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  } else if (o.kind === 'focus-invalidate' && typeof o.t_abs === 'number' && isFinite(o.t_abs)) {
    const fwd = { kind: 'focus-invalidate', t_abs: Math.min(o.t_abs, nowAbs()) };
    if (ROLE === 'top') topRecord(fwd, b);
    else childRecord(fwd);
  }
}

// A `cursor` subscription is a reason for the Host to merge the children's windows (issue 23: it
// merges when it needs them), so moves inside a child realm reach cursor subscribers. One merge per
// notice interval at most (the subscriptions' own 10 per second), started by a child's
// `window-pending`, which a child sends once per merge cycle: while nobody listens nothing changes,
// and while someone does the Host pulls at most 10 times a second, never once per move.
let cursorMergeTimer = null;
function mergeForCursorListeners() {
  if (cursorMergeTimer || !cursorListened()) return;
  cursorMergeTimer = nSetTimeout(() => {
    cursorMergeTimer = null;
    emit('observation-separator');
  }, INSPECT.noticeIntervalMs);
}
function cursorListened() {
  // Subscriptions in descendant realms may listen for the Host's cursor (fromRoot); the top counts them.
  if (INSPECTION.childSubs > 0) return true;
  for (const rec of INSPECTION.subs.values()) if (rec.events && rec.events.indexOf('cursor') >= 0) return true;
  return false;
}
