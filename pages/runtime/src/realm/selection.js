// Selection (spec: "Pointer, focus, selection ... use the same Host-owned canonical identities";
// schemas.md §6: the v4 selection {selection_id, selected_at, kind "text", collapsed false,
// direction, text <= 1,024 bytes, anchor_path, focus_path, ranges <= 4 in Host-viewport
// coordinates}; Privacy: excluded, sensitive and redacted content). Each realm reads its own
// document's selection after trusted user input (a pointer drag, Shift+arrow keys; never a
// script-made selection alone), composed through its shadow roots (Selection.getComposedRanges), and
// reports it: the top records it, a child sends a `selection` / `selection-clear` observation up
// (the parent sanitizes and projects it like the others). A browser selection never spans two
// documents, so a drag from one realm into another selects only in the realm where it began.
import { W, doc, nDocQSA, nFragQSA, nCreateRange, nSetTimeout, eventTime, nowAbs } from '../core/natives.js';
import { normText, cutBytes, rectOut, iso } from '../core/util.js';
import { obsNow } from '../core/clock.js';
import {
  safe,
  wrap,
  nodeType,
  localName,
  parentOf,
  hostOf,
  isConnected,
  composedParent,
  treeRoot,
} from '../core/dom-reads.js';
import { ROLE, REALM, REALM_ID, TOP } from '../core/state.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { privacyOf, selfExcluded, selfRedacted, labelsSensitive, isSensitiveControl } from '../dom/privacy.js';
import { localPath } from './paths.js';
import { targetIdOf } from './identity.js';
import { clampPath } from '../dom/segments.js';
import { SELECTION_TEXT_BYTES } from '../dom/sanitize.js';
import { recordLocal } from './observation.js';
import { deepActive } from '../dom/active-element.js';
import { bindingAlive } from './store.js';

const nGetSelection = W.getSelection;
const MARKERS = '[data-wippy-attention],[data-wippy-composer],input,textarea,select,label,[contenteditable]';

// The document and every shadow root reachable from it (open and closed, bounded work).
function treeRoots() {
  const roots = [doc()];
  let budget = 20000;
  for (let i = 0; i < roots.length && budget > 0; i++) {
    let all = [];
    try {
      all = nodeType(roots[i]) === 9 ? nDocQSA.call(roots[i], '*') : nFragQSA.call(roots[i], '*');
    } catch (_) {
      all = [];
    }
    for (let j = 0; j < all.length && budget-- > 0; j++) {
      const sr = shadowOf(all[j]);
      if (sr) roots.push(sr);
    }
  }
  return roots;
}
// Position key of a boundary point in the composed tree: child indices from the document, a shadow
// root sorting before its host's light children (-1). Lexicographic order = document order.
function childIndex(p, n) {
  let i = 0;
  for (let c = p.firstChild; c && c !== n; c = c.nextSibling) i++;
  return i;
}
function nodeKey(n) {
  const k = [];
  for (let g = 0; n && g < 512; g++) {
    const p = parentOf(n);
    if (p) {
      k.push(childIndex(p, n));
      n = p;
    } else if (nodeType(n) === 11) {
      k.push(-1);
      n = hostOf(n);
    } else break;
  }
  return k.reverse();
}
function cmp(a, b) {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}
function elementOf(node) {
  if (nodeType(node) === 1) return node;
  const p = composedParent(node);
  if (p && nodeType(p) === 11) return hostOf(p);
  return p;
}
// The user's selection in this realm's document, composed through its shadow roots: null when there
// is none (or it is collapsed), else {range: StaticRange-like, sel}.
function composedRange() {
  let sel = null;
  try {
    sel = nGetSelection.call(W);
  } catch (_) {
    sel = null;
  }
  if (!sel || sel.rangeCount === 0) return null;
  let r = null;
  const roots = treeRoots().slice(1);
  try {
    r = sel.getComposedRanges({ shadowRoots: roots })[0];
  } catch (_) {
    r = null;
  }
  if (!r) {
    try {
      r = sel.getComposedRanges.apply(sel, roots)[0];
    } catch (_) {
      r = null;
    }
  }
  if (!r) {
    try {
      r = sel.getRangeAt(0);
    } catch (_) {
      r = null;
    }
  }
  if (!r || r.collapsed) return null;
  return { range: r, sel: sel };
}
function textControlSelection() {
  const a = deepActive();
  const ln = localName(a);
  if (ln !== 'input' && ln !== 'textarea') return null;
  try {
    if (typeof a.selectionStart === 'number' && a.selectionStart !== a.selectionEnd) return a;
  } catch (_) {
    /* no selection API */
  }
  return null;
}
// Privacy over everything the selection touches: any excluded (marker, composer, sensitive control
// or its label) or redacted element intersecting the composed range, or an ancestor of an endpoint.
function privacyOver(r) {
  const s = nodeKey(r.startContainer).concat([r.startOffset]);
  const e = nodeKey(r.endContainer).concat([r.endOffset]);
  let excluded = false,
    redacted = false;
  for (const root of treeRoots()) {
    let list = [];
    try {
      list = nodeType(root) === 9 ? nDocQSA.call(root, MARKERS) : nFragQSA.call(root, MARKERS);
    } catch (_) {
      list = [];
    }
    for (let i = 0; i < list.length; i++) {
      const el = list[i];
      const ex = selfExcluded(el) || labelsSensitive(el),
        rd = selfRedacted(el);
      if (!ex && !rd) continue;
      const before = nodeKey(el),
        p = before.slice(0, -1),
        after = p.concat([before[before.length - 1] + 1]);
      if (cmp(s, after) < 0 && cmp(before, e) < 0) {
        if (ex) excluded = true;
        if (rd) redacted = true;
      }
    }
  }
  for (const n of [r.startContainer, r.endContainer]) {
    const el = elementOf(n);
    if (!el) continue;
    const p = privacyOf(el);
    if (p.excluded) excluded = true;
    if (p.redacted) redacted = true;
  }
  return excluded ? 'excluded' : redacted ? 'redacted' : null;
}
// Client rects of the selected range in this realm's viewport: the range's bounding box when both
// ends are in one tree; across trees (a selection spanning shadow roots or Web Fragments) the
// bounding box of each end's part (start to the end of its tree, start of the end's tree to the end).
function rangeRects(r) {
  const rects = [];
  const box = (sc, so, ec, eo) => {
    try {
      const x = nCreateRange.call(doc());
      x.setStart(sc, so);
      x.setEnd(ec, eo);
      const b = x.getBoundingClientRect();
      if (b && (b.width > 0 || b.height > 0))
        rects.push(rectOut({ x: b.left, y: b.top, width: b.width, height: b.height }));
    } catch (_) {
      /* ignore */
    }
  };
  const sr = treeRoot(r.startContainer),
    er = treeRoot(r.endContainer);
  if (sr === er) box(r.startContainer, r.startOffset, r.endContainer, r.endOffset);
  else {
    box(r.startContainer, r.startOffset, sr, sr.childNodes.length);
    box(er, 0, r.endContainer, r.endOffset);
  }
  return rects.slice(0, 4);
}
function inEditableContent(el) {
  try {
    return el.isContentEditable === true;
  } catch (_) {
    return false;
  }
}
// The realm-local selection report, or null when this realm has no user selection.
export function readSelection(tAbs) {
  const base = { selection_id: 'sel-' + REALM_ID + '-' + ++REALM.localSeq, t_abs: tAbs, selected_ms: obsNow() };
  const ctl = textControlSelection();
  if (ctl) {
    // Editable values are never collected: a selection inside a sensitive or excluded control is
    // excluded, inside any other text control unavailable.
    const p = privacyOf(ctl);
    return Object.assign(base, {
      privacy: p.excluded || isSensitiveControl(ctl) ? 'excluded' : 'unavailable',
      key: 'ctl',
    });
  }
  const c = composedRange();
  if (!c) return null;
  const r = c.range;
  let dir = c.sel.direction;
  if (dir !== 'forward' && dir !== 'backward' && dir !== 'none') dir = 'none';
  const startEl = elementOf(r.startContainer),
    endEl = elementOf(r.endContainer);
  if (!startEl || !endEl) return null;
  const anchorEl = dir === 'backward' ? endEl : startEl,
    focusEl = dir === 'backward' ? startEl : endEl;
  const privacy = privacyOver(r);
  if (privacy === 'excluded') return Object.assign(base, { privacy: 'excluded', key: 'ex' });
  // Editable values are unavailable (spec): a selection in editable content (contenteditable) is
  // reported like one inside a text control, unless redaction already empties it.
  if (!privacy && (inEditableContent(startEl) || inEditableContent(endEl)))
    return Object.assign(base, { privacy: 'unavailable', key: 'ed' });
  const out = Object.assign(base, {
    privacy: privacy,
    direction: dir,
    text: privacy === 'redacted' ? '' : cutBytes(normText(safe(() => c.sel.toString(), '')), SELECTION_TEXT_BYTES),
    anchor_path: localPath(anchorEl, false).path,
    focus_path: localPath(focusEl, false).path,
    ranges: rangeRects(r),
  });
  out.key = JSON.stringify([out.privacy, out.direction, out.text, out.anchor_path, out.focus_path, out.ranges]);
  // The endpoints as the selection's own anchor / focus (a backward selection's anchor is the range's end).
  if (ROLE === 'top') {
    out.anchorNode = dir === 'backward' ? r.endContainer : r.startContainer;
    out.focusNode = dir === 'backward' ? r.startContainer : r.endContainer;
  } else {
    // A child realm names its endpoint elements by node id (= NodeRef node_id) for inspection refs.
    if (!privacyOf(anchorEl).excluded) out.anchor_node_id = targetIdOf(anchorEl);
    if (!privacyOf(focusEl).excluded) out.focus_node_id = targetIdOf(focusEl);
  }
  return out;
}

// After trusted user input (and on selectionchange while a trusted gesture is under way), read the
// selection once the browser has updated it; report it when it changed, or its clearing.
function check(tAbs) {
  const s = readSelection(tAbs);
  const last = REALM.localSelection;
  if (!s) {
    if (last) {
      REALM.localSelection = null;
      recordLocal({ kind: 'selection-clear', selection_id: last.selection_id, t_abs: tAbs });
    }
    return;
  }
  if (last && last.key === s.key) return;
  REALM.localSelection = { selection_id: s.selection_id, key: s.key };
  const report = { selection_id: s.selection_id, t_abs: s.t_abs, selected_ms: s.selected_ms, privacy: s.privacy };
  if (s.privacy !== 'excluded' && s.privacy !== 'unavailable') {
    Object.assign(report, {
      direction: s.direction,
      text: s.text,
      anchor_path: s.anchor_path,
      focus_path: s.focus_path,
      ranges: s.ranges,
    });
  }
  if (ROLE === 'top') {
    report.anchorNode = s.anchorNode;
    report.focusNode = s.focusNode;
  } else if (s.privacy !== 'excluded' && s.privacy !== 'unavailable') {
    if (s.anchor_node_id) report.anchor_node_id = s.anchor_node_id;
    if (s.focus_node_id) report.focus_node_id = s.focus_node_id;
  }
  recordLocal({ kind: 'selection', selection: report });
}
let pendingCheck = false;
function scheduleCheck(tAbs) {
  if (pendingCheck) return;
  pendingCheck = true;
  nSetTimeout(() => {
    pendingCheck = false;
    safe(() => check(tAbs));
  }, 0);
}
export const onSelectionInput = wrap((ev) => {
  if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm') return;
  if (ev.type === 'keydown' || ev.type === 'keyup') REALM.inputEpoch++; // realm/resolve-cache.js
  const type = ev.type;
  if (type === 'pointerdown') REALM.selectionButton = true;
  if (type === 'pointerup' || (type === 'pointermove' && ev.buttons === 0)) REALM.selectionButton = false;
  if (type === 'pointerup' || type === 'keyup' || type === 'keydown') scheduleCheck(eventTime(ev));
});
// Only while a trusted button is held (a drag whose pointerup may reach another realm): a selection
// the browser moved because the DOM changed (a removed subtree) is not user input.
export const onSelectionChange = wrap(() => {
  if (ROLE === 'fragment-realm') return;
  if (REALM.selectionButton) scheduleCheck(nowAbs());
});
export const SELECTION_INPUT_TYPES = ['pointerdown', 'pointermove', 'pointerup', 'keydown', 'keyup'];

// Top realm: the current selection in snapshot form, or the omission that replaces it.
export function selectionOut(textNone) {
  const s = TOP.selection;
  if (!s) return { selection: null, omissions: [] };
  const mount = s.mountId ? { mount_id: s.mountId } : {};
  if (
    s.binding
      ? !bindingAlive(s.binding, s.realmId)
      : (s.anchorNode && !isConnected(s.anchorNode)) || (s.focusNode && !isConnected(s.focusNode))
  ) {
    return { selection: null, omissions: [Object.assign({ reason: 'selection-detached' }, mount)] };
  }
  if (s.privacy === 'excluded')
    return { selection: null, omissions: [Object.assign({ reason: 'selection-excluded' }, mount)] };
  if (s.privacy === 'unavailable')
    return { selection: null, omissions: [Object.assign({ reason: 'selection-unavailable' }, mount)] };
  const out = {
    selection_id: s.selection_id,
    selected_at: iso(s.selected_ms),
    kind: 'text',
    collapsed: false,
    direction: s.direction,
    text: textNone || s.privacy === 'redacted' ? '' : s.text,
    anchor_path: clampPath(s.anchor_path),
    focus_path: clampPath(s.focus_path),
    ranges: s.ranges.slice(0, 4).map((r) => ({ rect: r, coordinate_space: 'host-viewport' })),
  };
  return {
    selection: out,
    omissions: s.privacy === 'redacted' ? [Object.assign({ reason: 'selection-redacted' }, mount)] : [],
  };
}
