// Hit testing in this realm (spec: candidate resolution — the deepest element at a point through
// document -> open/closed shadow roots -> web-fragment -> fragment DOM, promoted to its nearest
// interactive ancestor; iframes hand the point, mapped into the child viewport, to the relay;
// excluded content yields no candidate).
import { doc, nDocEFP, nRootEFP, nQSA } from '../core/natives.js';
import { attr, hasAttr, localName, nodeType, treeRoot } from '../core/dom-reads.js';
import { shadowOf, internalsProp } from '../dom/shadow-roots.js';
import { privacyOf } from '../dom/privacy.js';
import { isInteractiveElement, ariaValue } from '../dom/roles.js';
import { flatParent, hasBox, slottedTextAt } from '../dom/flat-tree.js';
import { roleOf } from '../dom/summary.js';
import { iframeGeometry } from './paths.js';
import { hasHiddenRoot } from '../dom/hidden-roots.js';

export const DOCUMENT_ROOTS = { html: 1, body: 1, 'wf-document': 1, 'wf-html': 1, 'wf-body': 1 };
export function isIframe(el) {
  if (localName(el) !== 'iframe') return false;
  const nm = attr(el, 'name');
  return !(nm && nm.indexOf('wf:') === 0);
}
export function deepHit(x, y) {
  let el = null;
  try {
    el = nDocEFP.call(doc(), x, y);
  } catch (_) {
    el = null;
  }
  for (let guard = 0; el && guard < 64; guard++) {
    const root = shadowOf(el);
    if (!root || !nRootEFP) break;
    let inner = null;
    try {
      inner = nRootEFP.call(root, x, y);
    } catch (_) {
      inner = null;
    }
    if (!inner || inner === el || treeRoot(inner) !== root) break;
    el = inner;
  }
  return el;
}
// The node the pointer is on: the deepest element, or, when that is a shadow host whose own
// (slotted) text is under the point, that text node (elementFromPoint stops at the host for it).
export function deepHitNode(x, y, hit) {
  const el = hit === undefined ? deepHit(x, y) : hit;
  if (!el || !shadowOf(el)) return el;
  return slottedTextAt(el, x, y) || el;
}
export function isInteractive(n) {
  return isInteractiveElement(localName(n), roleOf(n));
}
function ariaHidden(n) {
  if (hasAttr(n, 'inert')) return true;
  const v = ariaValue(
    'aria-hidden',
    (name) => attr(n, name),
    (prop) => internalsProp(n, prop),
  );
  return v !== null && v.trim().toLowerCase() === 'true';
}
// Candidate promotion (README "Candidate promotion"): walk the flat tree outward from the hit (a
// slotted node's parent is its slot, a shadow root's is its host), elements only. The hit element is
// the first element that has a box (a slot, display: contents, has none); the candidate is the first
// element with a box whose computed role is an interactive widget role and that is not hidden from
// the accessibility tree (aria-hidden="true" or inert on it or a flat-tree ancestor), else the hit
// element. Null when no element on the way has a box.
export function promote(start) {
  const r = promoteAt(start, null);
  return r.el;
}
// promote(), at a point: {el, role} (role: el's computed role, read once here and handed on to its
// summary in the same task) or, when the walk reaches a shadow host whose root the runtime cannot
// enter before it found an interactive element, {hidden: host} (hidden-roots.js). The hit element
// itself is checked at the point; a host reached from its light-DOM child (slotted content) by
// probing its box.
// Per move this is the runtime's main cost, so only what decides the answer is read: whether
// chain[i] is hidden (it or a flat-tree ancestor, i.e. the outermost hidden index of the chain is
// >= i) is read only for an interactive element, from the outermost element inward, stopping at
// the first hidden one (the outermost: the same index a full pass finds); once the hit element is
// known, boxes are read only for interactive elements. Same result as reading everything.
export function promoteAt(start, at) {
  const chain = [];
  for (let n = start; n && chain.length < 256; n = flatParent(n)) if (nodeType(n) === 1) chain.push(n);
  let unread = chain.length; // chain[unread..] was read: not hidden unless hiddenUpTo >= unread
  let hiddenUpTo = -1;
  const shown = (i) => {
    while (hiddenUpTo < 0 && unread > i) {
      unread--;
      if (ariaHidden(chain[unread])) hiddenUpTo = unread;
    }
    return i > hiddenUpTo;
  };
  let raw = null,
    rawRole;
  for (let i = 0; i < chain.length; i++) {
    const n = chain[i];
    if (at && !DOCUMENT_ROOTS[localName(n)]) {
      // The deepest element hit is probed at the point; when the walk started at its slotted text,
      // or reached it from a light child, its box is probed too.
      const fromLight = i > 0 || n !== start;
      if (hasHiddenRoot(n, i === 0 ? at : null, fromLight)) return { el: null, hidden: n };
    }
    if (raw) {
      const role = roleOf(n);
      if (isInteractiveElement(localName(n), role) && shown(i) && hasBox(n)) return { el: n, role: role };
      continue;
    }
    if (!hasBox(n)) continue;
    raw = n;
    rawRole = roleOf(n);
    if (isInteractiveElement(localName(n), rawRole) && shown(i)) return { el: n, role: rawRole };
  }
  return { el: raw, role: rawRole };
}
// -> {kind:'none'} | {kind:'excluded', el} | {kind:'element', el, redacted, role, start?: the node hit}
//    | {kind:'iframe', el, x, y}
//    | {kind:'hidden', el: the host whose root cannot be entered}
// memo (optional): {promote(start, at), privacy(el)}, the same answers as promoteAt and privacyOf
// kept while they cannot have changed (realm/resolve-cache.js, for pointer events).
export function hitTest(x, y, memo) {
  const privacy = memo ? memo.privacy : privacyOf;
  const raw = deepHit(x, y);
  if (!raw || nodeType(raw) !== 1) return { kind: 'none' };
  if (isIframe(raw)) {
    const p = privacy(raw);
    if (p.excluded) return { kind: 'excluded', el: p.excluded };
    const g = iframeGeometry(raw);
    const c = g.content;
    if (x >= c.x && y >= c.y && x < c.x + c.width && y < c.y + c.height) {
      return { kind: 'iframe', el: raw, x: (x - g.ox) / g.sx, y: (y - g.oy) / g.sy, redacted: !!p.redacted };
    }
    return { kind: 'element', el: raw, redacted: !!p.redacted };
  }
  const start = deepHitNode(x, y, raw);
  const pr = memo ? memo.promote(start, { x: x, y: y }) : promoteAt(start, { x: x, y: y });
  if (pr.hidden) {
    const ph = privacy(pr.hidden);
    if (ph.excluded) return { kind: 'excluded', el: ph.excluded };
    return { kind: 'hidden', el: pr.hidden };
  }
  const el = pr.el;
  if (!el) return { kind: 'none' };
  if (DOCUMENT_ROOTS[localName(el)]) return { kind: 'none' }; // empty page area: no target
  const p = privacy(el);
  if (p.excluded) return { kind: 'excluded', el: p.excluded };
  return { kind: 'element', el: el, redacted: !!p.redacted, redactRoot: p.redacted, role: pr.role, start: start };
}
export function containsRedacted(el) {
  try {
    return nQSA.call(el, '[data-wippy-attention="redact"]').length > 0;
  } catch (_) {
    return false;
  }
}
