// The Host-owned agent action overlay (spec "Agent clarification actions", "Terminal statuses";
// relay.md Part 2 "UI action protocol"). Host code in the top realm, not part of the runtime: the
// Host owns the Session socket and the user's consent; the runtime only supplies fresh snapshots
// (with action_refs) for revalidation.
//
// - Opens for a `session_ui_action_request` addressed to this Host instance (others are ignored,
//   as another tab's request must be), only when the Host's Attention configuration enabled agent
//   actions (otherwise it answers `permission-denied` and nothing opens). Turning the setting off
//   while an overlay is up ends that interaction `permission-denied` (its authority is gone).
// - Modes highlight, confirm, select: one outlined button per target at its action_ref rect, a
//   dialog with the prompt (<= 512 bytes, as text), the primary button ("Done", "Yes, that’s it",
//   "Use this area") and "Cancel". The overlay covers the viewport, so pointer input meant for the
//   page below lands on it. Only trusted input answers: a click with detail > 0 is the pointer
//   path (needs allow_pointer), one with detail 0 the keyboard path (Enter / Space; needs
//   allow_keyboard). Escape cancels (a cancel grants nothing, so it is always allowed).
// - Mode capture_visual (spec "Optional visual capture"): target or region scope by default, the whole
//   viewport only with capture.allow_viewport_choice, "Adjust area" by trusted pointer drag (the region
//   is the drag rectangle), "Deny" -> `denied`. Approval asks the embedder's capture provider (a CDP
//   binding; the page never makes pixels), uploads the bytes and makes them a removable composer file
//   (`prepared` with prepared_file); a refused upload is `error`, a provider refusal its own status
//   (`stale`, `unavailable`; a `NotAllowedError`, the user or OS refusing screen capture, is `denied`).
//   The provider is given the approved rect (the one shown when the answering gesture began) and
//   checks the target against it in Chromium's own geometry.
// - Before accepting an answer the target is revalidated from a fresh runtime snapshot at its
//   displayed centre: same Host instance, the same target_id sampled there, leaf mount_id / generation and
//   path_digest unchanged, and not moved beyond the approved rect; otherwise `stale`. The approved
//   rect is the one shown when the user began the answer (a trusted pointerdown, or Enter / Space
//   keydown, on the primary button): a target that moves between that approval and the answer's
//   execution (the click) is `stale`, even if the outline followed it meanwhile.
//   While open, the displayed geometry refreshes every 300 ms (a moved target is outlined where it
//   is); a target that is gone or remounted ends the action `stale` at once.
// - Exactly one terminal result per request. Expiry and a closed socket close the overlay without
//   a result (the broker synthesises `expired` / `disconnected`); so does the Session's cancel frame
//   `{type:"session_ui_action_cancel", data:{action_id, request_id}}` (our addition to relay.md: the
//   tool timed out and the broker answered `cancelled` "tool request cancelled"). A Host navigation
//   (pagehide) sends `stale`. Any internal failure ends the interaction `error` with a fixed reason,
//   never an exception's text: a throw or rejection in a handler, the answer, revalidation or the
//   geometry refresh ("Host overlay failed"), or the overlay's own DOM removed from the document by
//   the Host page's scripts ("overlay was removed by the page", seen by a MutationObserver). On close, focus returns to the element focused before the overlay opened:
//   `wippyAttention.markFocus()` / `returnFocus()` (runtime focus-return.js) reach controls inside
//   closed shadow roots and child realms, which the Host cannot.

import { answerInspect, isInspect, resultEnvelope } from './reads.js';

const REFRESH_MS = 300;
// Fixed reasons of the Host's own `error` endings (never an exception's text).
const REASON_FAILED = 'Host overlay failed';
const REASON_REMOVED = 'overlay was removed by the page';
const MOVE_TOLERANCE = 0.5;

const TITLES = {
  highlight: 'Highlighted area',
  confirm: 'Confirm the target',
  select: 'Select a target',
  capture_visual: 'Add an image of this area',
};
const PRIMARY = {
  highlight: 'Done',
  confirm: 'Yes, that’s it',
  select: 'Use this area',
  capture_visual: 'Add image to message',
};

// The embedder's capture provider (the harness: harness/src/capture/provider.rs) is a binding
// `window.__wippyCaptureProvider(json)` that answers through `window.__wippyCaptureAnswer(id, answer)`.
// Without it (a plain browser) capture is `unavailable`: the page never makes pixels itself.
const pendingCaptures = new Map();
let captureSeq = 0;
window.__wippyCaptureAnswer = (id, answer) => {
  const resolve = pendingCaptures.get(id);
  if (resolve) {
    pendingCaptures.delete(id);
    resolve(answer);
  }
};
function providerCapture(request) {
  if (typeof window.__wippyCaptureProvider !== 'function')
    return Promise.resolve({ status: 'unavailable', reason: 'no capture provider' });
  const id = ++captureSeq;
  return new Promise((resolve) => {
    pendingCaptures.set(id, resolve);
    window.__wippyCaptureProvider(JSON.stringify(Object.assign({ id }, request)));
  });
}
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));

function deepActive() {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}

function randomId() {
  return crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
}

/**
 * `enabled`: the Host's agent-actions setting. `send(result)`: sends one result envelope on the
 * Session socket. Returns the handler and a test surface.
 */
export function attachOverlay({ enabled, send, prepareCapture }) {
  let actionsOn = enabled;
  let active = null;
  const results = [];

  function hostId() {
    return window.wippyAttention && window.wippyAttention.host_instance_id;
  }

  function respond(req, status, extra) {
    const r = resultEnvelope(req, status, extra);
    results.push(r);
    send(r);
  }

  /**
   * Ends interaction `a` if it is still the active one: closes whatever is left of its overlay,
   * sends `status` (null closes without a result: expiry, disconnect, the Session's cancel) and
   * returns focus. Each step runs even if an earlier one throws.
   */
  function end(a, status, extra) {
    if (!a || a.done || a !== active) return;
    a.done = true;
    active = null;
    clearInterval(a.refresh);
    clearTimeout(a.expiry);
    if (a.watch) a.watch.disconnect();
    window.removeEventListener('keydown', a.onKey, true);
    try {
      a.root.remove();
    } catch (_) {
      /* already gone */
    }
    try {
      if (status) respond(a.req, status, extra);
    } catch (_) {
      /* the broker's expiry remains */
    }
    // The runtime knows the deep control (closed shadow roots, child realms); fall back to ours.
    let back = false;
    try {
      back = window.wippyAttention && window.wippyAttention.returnFocus && window.wippyAttention.returnFocus();
    } catch (_) {
      back = false;
    }
    if (!back && a.previous && a.previous.isConnected && typeof a.previous.focus === 'function')
      a.previous.focus({ preventScroll: true });
  }

  /** Ends the active interaction (see `end`). */
  function finish(status, extra) {
    end(active, status, extra);
  }

  /** An internal failure of interaction `a`: exactly one `error` with a fixed reason (never the exception's text). */
  function fail(a) {
    end(a, 'error', { reason: REASON_FAILED });
  }

  /**
   * Wraps a handler of interaction `a` (event listener, timer): a throw, or a rejection of the
   * promise it returns, ends `a` with `error` instead of leaving the overlay up until expiry.
   */
  function guarded(a, fn) {
    return function (ev) {
      try {
        const p = fn.call(this, ev);
        if (p && typeof p.then === 'function') p.then(undefined, () => fail(a));
      } catch (_) {
        fail(a);
      }
    };
  }

  /** A fresh snapshot at `rect`'s centre, taken with the overlay transparent to the hit test. */
  async function freshAt(a, rect) {
    a.root.style.pointerEvents = 'none';
    let p;
    try {
      p = window.wippyAttention.snapshot({
        point: { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 },
        radius_css_px: 0,
        step_css_px: 1,
      });
    } finally {
      a.root.style.pointerEvents = '';
    }
    return p;
  }

  /** `{ok, ref, reason}`: the target as it is now, or why it is stale. */
  async function revalidate(a, t) {
    const ref = t.ref;
    if (ref.host_instance_id !== hostId()) return { ok: false, reason: 'Host instance changed' };
    const snap = await freshAt(a, t.shown);
    // Sampled at the point now: a candidate only known from an earlier event keeps that event's
    // geometry and proves nothing about where the target is.
    const points = new Set(((snap.capture && snap.capture.points) || []).map((p) => p.point_id));
    const c = (snap.candidates || []).find(
      (x) => x.target_id === ref.target_id && (x.sample_point_ids || []).some((id) => points.has(id)),
    );
    if (!c || !c.action_ref) return { ok: false, reason: 'target is gone' };
    const now = c.action_ref;
    if (now.mount_id !== ref.mount_id || now.generation !== ref.generation)
      return { ok: false, reason: 'target was remounted' };
    if (now.path_digest !== ref.path_digest) return { ok: false, reason: 'target path changed' };
    return { ok: true, rect: now.rect };
  }

  function place(button, r) {
    Object.assign(button.style, {
      left: `${r.x}px`,
      top: `${r.y}px`,
      width: `${Math.max(1, r.width)}px`,
      height: `${Math.max(1, r.height)}px`,
    });
  }

  function moved(a, b) {
    return ['x', 'y', 'width', 'height'].some((k) => Math.abs(a[k] - b[k]) > MOVE_TOLERANCE);
  }

  /** Trusted activation allowed on this path? (detail 0 = keyboard-activated click.) */
  function allowed(a, ev) {
    if (!ev.isTrusted) return false;
    return ev.detail === 0 ? a.req.allow_keyboard !== false : a.req.allow_pointer !== false;
  }

  async function answer(a) {
    if (a.answering || a.done) return;
    if (a.area) {
      await answerArea(a);
      return;
    }
    if (a.mode === 'capture_visual') {
      await answerCapture(a);
      return;
    }
    const t = a.targets.find((x) => x.pressed) || (a.mode === 'highlight' ? a.targets[0] : null);
    if (!t) return; // confirm / select need a chosen target
    a.answering = true;
    const approval = a.approval && a.approval.find((x) => x.t === t);
    const approved = approval ? approval.rect : Object.assign({}, t.shown);
    const v = await revalidate(a, t);
    if (a.done) return;
    if (!v.ok) {
      finish('stale', { reason: v.reason });
      return;
    }
    if (moved(v.rect, approved)) {
      finish('stale', { reason: 'target moved beyond the approved rect' });
      return;
    }
    const status = a.mode === 'select' ? 'selected' : 'confirmed';
    finish(status, { selected_target: Object.assign({}, t.ref, { rect: v.rect }) });
  }

  /**
   * Zero-target select with capture_region: the chosen area is returned as `selected_target`: the
   * action_ref of the candidate at the area's centre in a fresh snapshot, with `rect` = the area.
   */
  async function answerArea(a) {
    const r = a.region;
    if (!r) return; // nothing chosen yet
    a.answering = true;
    const snap = await freshAt(a, r);
    if (a.done) return;
    const c = (snap.candidates || []).find((x) => x.action_ref);
    if (!c) {
      finish('stale', { reason: 'no target under the selected area' });
      return;
    }
    finish('selected', { selected_target: Object.assign({}, c.action_ref, { rect: r }) });
  }

  /**
   * capture_visual approved: the area (the target's displayed rect, the dragged region or the
   * viewport) goes to the provider with the approved target; the overlay is hidden first so it is
   * not in the pixels. The provider revalidates (movement since approval = `stale`), redacts and
   * encodes; the bytes are uploaded and become a removable composer file (`prepared`). Nothing is
   * sent as a message.
   */
  async function answerCapture(a) {
    const t = a.targets.find((x) => x.pressed) || a.targets[0];
    if (a.scope === 'region' && !a.region) return; // "Adjust area" without a drag yet
    a.answering = true;
    // The rect the user approved (shown when the answering gesture began), not where the outline
    // has been moved since: the provider checks the target is still there.
    const approval = a.approval && a.approval.find((x) => x.t === t);
    const approved = approval ? Object.assign({}, approval.rect) : Object.assign({}, t.shown);
    const clip =
      a.scope === 'viewport'
        ? { x: 0, y: 0, width: window.innerWidth, height: window.innerHeight }
        : a.scope === 'region'
          ? Object.assign({}, a.region)
          : approved;
    const format = (a.req.capture && a.req.capture.format) || 'image/png';
    a.root.style.visibility = 'hidden';
    await nextFrame();
    await nextFrame();
    const cap = await providerCapture({ format, clip, target: t.ref, approved }).catch(() => ({
      status: 'error',
      reason: 'capture provider failed',
    }));
    if (a.done) return;
    if (cap.status !== 'ok') {
      // The embedder's screen capture refused by the user or the OS (a NotAllowedError) is a denial.
      if (cap.error_name === 'NotAllowedError') {
        finish('denied', { reason: 'screen capture was not allowed' });
        return;
      }
      finish(['stale', 'unavailable'].includes(cap.status) ? cap.status : 'error', {
        reason: String(cap.reason || 'capture failed').slice(0, 512),
      });
      return;
    }
    const capture_id = `cap-${randomId()}`;
    const meta = { capture_id, scope: a.scope, region: clip, host_instance_id: hostId() };
    const up = prepareCapture
      ? await prepareCapture(cap, meta).catch((e) => ({ ok: false, reason: String(e) }))
      : { ok: false, reason: 'no composer' };
    if (a.done) return;
    if (!up.ok) {
      finish('error', { reason: String(up.reason).slice(0, 512) });
      return;
    }
    const f = up.file;
    finish('prepared', {
      prepared_file: {
        uuid: f.uuid,
        name: f.name,
        mime_type: f.mime_type,
        byte_size: f.byte_size,
        sha256: f.sha256,
        scope: f.scope,
      },
    });
  }

  function setScope(a, scope) {
    a.scope = scope;
    for (const [k, b] of Object.entries(a.scopeButtons))
      b.setAttribute('aria-pressed', String(k === 'area' ? scope !== 'viewport' : k === scope));
    if (scope === 'viewport') setRegion(a, { x: 0, y: 0, width: window.innerWidth, height: window.innerHeight });
    else if (scope === 'target') {
      const t = a.targets.find((x) => x.pressed) || a.targets[0];
      setRegion(a, t.shown);
      a.region = null;
    }
  }

  function setRegion(a, r) {
    a.region = {
      x: Math.round(r.x * 1000) / 1000,
      y: Math.round(r.y * 1000) / 1000,
      width: Math.round(r.width * 1000) / 1000,
      height: Math.round(r.height * 1000) / 1000,
    };
    Object.assign(a.box.style, {
      display: 'block',
      left: `${a.region.x}px`,
      top: `${a.region.y}px`,
      width: `${a.region.width}px`,
      height: `${a.region.height}px`,
    });
  }

  /** Area selection by pointer drag on the overlay background (pointer path only). */
  function wireArea(a, dialog) {
    const box = document.createElement('div');
    box.setAttribute('data-wippy-attention-region', '');
    Object.assign(box.style, {
      position: 'absolute',
      display: 'none',
      boxSizing: 'border-box',
      border: '2px dashed #2878ff',
      background: 'rgba(40,120,255,0.12)',
      pointerEvents: 'none',
    });
    a.box = box;
    a.root.append(box);
    let start = null;
    a.root.addEventListener(
      'pointerdown',
      guarded(a, (ev) => {
        if (!ev.isTrusted || a.req.allow_pointer === false || dialog.contains(ev.target)) return;
        if (a.mode === 'capture_visual' && !a.adjusting) return;
        if (a.mode === 'capture_visual') a.scope = 'region';
        start = { x: ev.clientX, y: ev.clientY };
        a.root.setPointerCapture(ev.pointerId);
      }),
    );
    a.root.addEventListener(
      'pointermove',
      guarded(a, (ev) => {
        if (!start || !ev.isTrusted) return;
        setRegion(a, {
          x: Math.min(start.x, ev.clientX),
          y: Math.min(start.y, ev.clientY),
          width: Math.abs(ev.clientX - start.x),
          height: Math.abs(ev.clientY - start.y),
        });
      }),
    );
    a.root.addEventListener(
      'pointerup',
      guarded(a, (ev) => {
        if (!start || !ev.isTrusted) return;
        setRegion(a, {
          x: Math.min(start.x, ev.clientX),
          y: Math.min(start.y, ev.clientY),
          width: Math.abs(ev.clientX - start.x),
          height: Math.abs(ev.clientY - start.y),
        });
        start = null;
      }),
    );
  }

  async function refresh(a) {
    if (a.refreshing || a.answering || a.done) return;
    a.refreshing = true;
    try {
      for (const t of a.targets) {
        const v = await revalidate(a, t);
        if (a.done || a.answering) return;
        if (!v.ok) {
          finish('stale', { reason: v.reason });
          return;
        }
        t.shown = v.rect;
        place(t.button, v.rect);
      }
    } finally {
      a.refreshing = false;
    }
  }

  function open(req) {
    const previous = deepActive();
    if (window.wippyAttention && window.wippyAttention.markFocus) window.wippyAttention.markFocus();
    const root = document.createElement('div');
    root.setAttribute('data-wippy-attention-overlay', '');
    root.setAttribute('data-wippy-attention', 'exclude');
    Object.assign(root.style, { position: 'fixed', inset: '0', zIndex: '2147483647', background: 'rgba(0,0,0,0.04)' });
    const a = {
      req,
      mode: req.mode,
      root,
      previous,
      targets: [],
      done: false,
      answering: false,
      refreshing: false,
      area: req.targets.length === 0,
      region: null,
      box: null,
      approval: null,
      scope: 'target',
      adjusting: false,
      scopeButtons: {},
      watch: null,
    };
    // Active from here on: a throw while the overlay is built ends it `error` (handle()).
    active = a;
    req.targets.forEach((ref, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('data-wippy-attention-target', ref.target_id);
      b.setAttribute('aria-label', ref.label || `Target ${i + 1}`);
      Object.assign(b.style, {
        position: 'absolute',
        margin: '0',
        padding: '0',
        boxSizing: 'border-box',
        background: 'rgba(40,120,255,0.12)',
        border: '2px solid #2878ff',
      });
      place(b, ref.rect);
      const t = { ref, button: b, shown: Object.assign({}, ref.rect), pressed: false };
      if (req.mode !== 'highlight') {
        b.setAttribute('aria-pressed', 'false');
        b.addEventListener(
          'click',
          guarded(a, (ev) => {
            if (!allowed(a, ev)) return;
            for (const o of a.targets) {
              o.pressed = o === t;
              o.button.setAttribute('aria-pressed', String(o.pressed));
            }
          }),
        );
      }
      a.targets.push(t);
      root.append(b);
    });
    if (a.targets.length === 1 && req.mode !== 'highlight') {
      a.targets[0].pressed = true;
      a.targets[0].button.setAttribute('aria-pressed', 'true');
    }
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-labelledby', 'wippy-attention-overlay-title');
    Object.assign(dialog.style, {
      position: 'absolute',
      right: '16px',
      bottom: '16px',
      width: '280px',
      background: '#fff',
      border: '1px solid #888',
      padding: '12px',
      font: '14px sans-serif',
    });
    const h = document.createElement('h2');
    h.id = 'wippy-attention-overlay-title';
    h.textContent = a.area ? 'Select an area' : TITLES[req.mode];
    dialog.append(h);
    if (typeof req.prompt === 'string' && req.prompt) {
      const p = document.createElement('p');
      p.textContent = req.prompt;
      dialog.append(p);
    }
    const primary = document.createElement('button');
    primary.type = 'button';
    primary.textContent = PRIMARY[req.mode];
    primary.setAttribute('data-wippy-attention-answer', 'primary');
    primary.addEventListener(
      'click',
      guarded(a, (ev) => {
        if (allowed(a, ev)) return answer(a);
      }),
    );
    // The approval: the rects shown when the answering gesture began.
    const approve = () => {
      if (!a.answering) a.approval = a.targets.map((t) => ({ t, rect: Object.assign({}, t.shown) }));
    };
    primary.addEventListener(
      'pointerdown',
      guarded(a, (ev) => {
        if (ev.isTrusted && a.req.allow_pointer !== false) approve();
      }),
    );
    primary.addEventListener(
      'keydown',
      guarded(a, (ev) => {
        if (ev.isTrusted && (ev.key === 'Enter' || ev.key === ' ') && a.req.allow_keyboard !== false) approve();
      }),
    );
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.setAttribute('data-wippy-attention-answer', 'cancel');
    cancel.addEventListener(
      'click',
      guarded(a, (ev) => {
        if (allowed(a, ev)) end(a, 'cancelled');
      }),
    );
    let deny = null;
    if (req.mode === 'capture_visual') {
      const c = req.capture || {};
      const scopes = document.createElement('div');
      scopes.setAttribute('role', 'group');
      scopes.setAttribute('aria-label', 'Capture area');
      const mk = (label, key, onClick) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = label;
        b.setAttribute('data-wippy-attention-scope', key);
        b.setAttribute('aria-pressed', 'false');
        b.addEventListener(
          'click',
          guarded(a, (ev) => {
            if (allowed(a, ev) && !a.answering) onClick();
          }),
        );
        a.scopeButtons[key] = b;
        scopes.append(b);
        return b;
      };
      mk('Selected area', 'area', () => {
        a.adjusting = false;
        setScope(a, a.region && a.scope === 'region' ? 'region' : 'target');
      });
      if (c.allow_viewport_choice === true)
        mk('Entire app viewport', 'viewport', () => {
          a.adjusting = false;
          setScope(a, 'viewport');
        });
      if (c.allow_adjustment !== false && req.allow_pointer !== false) {
        const adj = mk('Adjust area', 'adjust', () => {
          a.adjusting = true;
          a.scope = 'region';
          adj.setAttribute('aria-pressed', 'true');
        });
      }
      dialog.append(scopes);
      deny = document.createElement('button');
      deny.type = 'button';
      deny.textContent = 'Deny';
      deny.setAttribute('data-wippy-attention-answer', 'deny');
      deny.addEventListener(
        'click',
        guarded(a, (ev) => {
          if (allowed(a, ev) && !a.answering) end(a, 'denied', { reason: 'the user denied the capture' });
        }),
      );
      wireArea(a, dialog);
    }
    if (a.area) {
      // Keyboard path: a 40 x 40 area centred on the current pointer (the newest recent event of a real pointer type), then "Use this area".
      const here = document.createElement('button');
      here.type = 'button';
      here.textContent = 'Use current pointer area';
      here.setAttribute('data-wippy-attention-answer', 'pointer-area');
      here.addEventListener(
        'click',
        guarded(a, async (ev) => {
          if (!ev.isTrusted || ev.detail !== 0 || a.req.allow_keyboard === false) return;
          const snap = await freshAt(a, { x: 0, y: 0, width: 0, height: 0 }).catch(() => null);
          // The last real pointer position: keyboard-activated clicks are recorded as `unknown`
          // pointer events at the activated control and are not where the pointer is.
          const moves = ((snap && snap.recent_events) || []).filter(
            (e) => e.pointer_type && e.pointer_type !== 'unknown',
          );
          const p = moves.length ? moves[moves.length - 1].point : null;
          if (!p || a.done) return;
          setRegion(a, { x: p.x - 20, y: p.y - 20, width: 40, height: 40 });
          primary.focus({ preventScroll: true });
        }),
      );
      dialog.append(here);
      wireArea(a, dialog);
    }
    dialog.append(primary, ...(deny ? [deny] : []), cancel);
    root.append(dialog);
    a.onKey = guarded(a, (ev) => {
      if (ev.isTrusted && ev.key === 'Escape') {
        ev.preventDefault();
        end(a, 'cancelled');
      }
    });
    window.addEventListener('keydown', a.onKey, true);
    // On the root element, not <body>: a transform the page puts on <body> would make <body> the
    // containing block of this fixed layer and shift the outlines and the drawn region away from
    // the viewport coordinates they are given in.
    document.documentElement.append(root);
    // Painted (two frames): from then on the browser routes pointer input to the overlay, also over
    // out-of-process iframes whose hit-test regions come from the compositor.
    requestAnimationFrame(() => requestAnimationFrame(() => root.setAttribute('data-wippy-attention-ready', '')));
    // The overlay's own DOM removed by the Host page's scripts (an app re-render replacing the body,
    // a stray `remove()`): the interaction cannot be answered any more, so it ends `error` at once.
    // Every childList change in the document (the root or an ancestor removed, or a part removed
    // from inside the root) is a mutation record; nothing is polled.
    const parts = [root, dialog, ...root.querySelectorAll('button')];
    a.watch = new MutationObserver(() => {
      if (!a.done && parts.some((n) => !n.isConnected)) end(a, 'error', { reason: REASON_REMOVED });
    });
    a.watch.observe(document, { childList: true, subtree: true });
    if (req.mode === 'capture_visual') {
      const c = req.capture || {};
      if (c.scope === 'region' && c.region) {
        setRegion(a, c.region);
        setScope(a, 'region');
        a.scopeButtons.area.setAttribute('aria-pressed', 'true');
      } else setScope(a, c.scope === 'viewport' && c.allow_viewport_choice === true ? 'viewport' : 'target');
    }
    (a.area ? dialog.querySelector('[data-wippy-attention-answer=pointer-area]') : primary).focus({
      preventScroll: true,
    });
    const ttl = Date.parse(req.expires_at) - Date.now();
    a.expiry = setTimeout(() => end(a, null), Math.max(0, ttl));
    a.refresh = setInterval(
      guarded(a, () => refresh(a)),
      REFRESH_MS,
    );
  }

  function handle(req) {
    if (!req || req.schema !== 'wippy.ui-action.v1' || req.message_type !== 'request') return;
    if (req.host_instance_id !== hostId()) return; // another tab's request: never ours to answer
    if (isInspect(req)) return void answerInspect(req, send); // reads: not exclusive, not gated by actions
    if (!actionsOn) {
      respond(req, 'permission-denied', { reason: 'agent actions are not enabled for this Host' });
      return;
    }
    if (active) {
      respond(req, 'unavailable', { reason: 'another UI action is pending' });
      return;
    }
    if (!['highlight', 'confirm', 'select', 'capture_visual'].includes(req.mode)) {
      respond(req, 'unavailable', { reason: `mode ${req.mode} is not supported by this Host` });
      return;
    }
    if (!Array.isArray(req.targets)) {
      respond(req, 'unavailable', { reason: 'targets are invalid' });
      return;
    }
    if (req.targets.length === 0 && !(req.mode === 'select' && req.capture_region === true)) {
      respond(req, 'unavailable', { reason: 'targets are required' });
      return;
    }
    if (req.targets.some((t) => t.host_instance_id !== hostId())) {
      respond(req, 'stale', { reason: 'Host instance changed' });
      return;
    }
    try {
      open(req);
    } catch (_) {
      if (active && active.req === req) fail(active);
      else respond(req, 'error', { reason: REASON_FAILED });
    }
  }

  /**
   * The Session's cancel (`{type:"session_ui_action_cancel", data:{action_id, request_id}}`, our
   * addition to relay.md: the tool gave up and the broker already answered `cancelled` "tool
   * request cancelled"): closes that overlay without a result and returns focus. Another or no
   * active action: nothing happens.
   */
  function cancelled(data) {
    const a = active;
    if (!a || !data || a.req.action_id !== data.action_id || a.req.request_id !== data.request_id) return false;
    end(a, null);
    return true;
  }

  // A Host navigation invalidates the active interaction.
  window.addEventListener('pagehide', () => finish('stale', { reason: 'Host navigated' }));

  return {
    handle,
    cancelled,
    /** The socket closed: the interaction ends without a result (the broker answers `disconnected`). */
    disconnected() {
      finish(null);
    },
    /** The Host's agent-actions setting changed; turned off, it ends the active interaction `permission-denied`. */
    setEnabled(on) {
      actionsOn = !!on;
      if (!actionsOn) finish('permission-denied', { reason: 'agent actions were turned off for this Host' });
    },
    get active() {
      return active ? { action_id: active.req.action_id, mode: active.mode, answering: active.answering } : null;
    },
    get results() {
      return results.slice();
    },
  };
}
