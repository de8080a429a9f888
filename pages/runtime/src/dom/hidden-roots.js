// Shadow roots the runtime cannot enter (spec "Partial results and errors": a boundary the runtime
// cannot traverse is an explicit `unsupported-boundary` omission, never a host presented as the
// final element). A declarative closed root (<template shadowrootmode="closed">) on an element that
// never hands it out (no ElementInternals) is invisible to page script: `shadowRoot` is null, the
// attachShadow patch never saw it, and every hit test retargets to the host. What still shows is the
// caret: `document.caretPositionFromPoint(x, y, {shadowRoots})` (CSSOM View) retargets a caret that
// lies in a shadow tree it was not given to just before that tree's host, i.e. to (the host's parent,
// the host's index). A caret never lands exactly there from the host's own content, padding or
// descendants (an element's own box gives (host, 0) or a position in its own text; measured on
// Chromium 156 for empty, inline-block, flex, grid, user-select: none, pseudo-element icons,
// replaced children), so that position at a point inside the host proves a root the runtime cannot
// see. The point itself is probed first; when the walk reaches a host from its own light-DOM child
// (slotted content: the caret lands in the light DOM), a few points of the host's box are probed.
// Only elements that can host a shadow root are considered (HTML custom elements and the DOM
// standard's valid shadow host names; `body` is left out: the page itself). One natural position
// looks the same: an inline element with no rendered content (an empty padded `span` alone on its
// line) puts the caret just before itself; an inline element whose content box has no width is
// therefore never taken for a host (a hidden root that renders something gives it width). A probe
// point counts only where the host itself is hit (so a caret after an overlapping previous sibling
// is never read as one before the host).
import { doc, nCaretPositionFromPoint, nNamespaceURI, nPerfNow, nDocEFP, nRootEFP, nGetCS } from '../core/natives.js';
import { localName, nodeType, parentOf, hostOf, rectOf, viewportRect, treeRoot } from '../core/dom-reads.js';
import { shadowOf } from './shadow-roots.js';
import { childNodes } from './flat-tree.js';
import { canHostShadowRoot } from './shadow-hosts.js';

const XHTML = 'http://www.w3.org/1999/xhtml';
const hidden = new WeakSet(); // hosts proved to have a root the runtime cannot enter (roots are never removed)
const probed = new WeakMap(); // host -> time of a probe that found nothing (layout may change: kept briefly)
export const PROBE_TTL_MS = 250;

// Whether el could host a shadow root at all (DOM: attach a shadow root, valid shadow host name).
export function canHostShadow(el) {
  if (nodeType(el) !== 1) return false;
  let ns = null;
  try {
    ns = nNamespaceURI.call(el);
  } catch (_) {
    ns = null;
  }
  return canHostShadowRoot(localName(el), ns === XHTML);
}
// The shadow roots the runtime knows on el's composed ancestor chain (so the caret is not
// retargeted out of them).
function knownRootsAbove(el) {
  const roots = [];
  for (let n = parentOf(el), guard = 0; n && guard < 4096; guard++) {
    if (nodeType(n) === 11) {
      roots.push(n);
      n = hostOf(n);
      continue;
    }
    n = parentOf(n);
  }
  return roots;
}
// Whether the caret at (x, y) sits just before el, retargeted out of a shadow tree of el's.
export function caretRetargetedTo(el, x, y, roots) {
  if (!nCaretPositionFromPoint) return false;
  const parent = parentOf(el);
  if (!parent) return false;
  let cp = null;
  try {
    cp = nCaretPositionFromPoint.call(doc(), x, y, { shadowRoots: roots || knownRootsAbove(el) });
  } catch (_) {
    cp = null;
  }
  if (!cp) return false;
  let node = null,
    offset = -1;
  try {
    node = cp.offsetNode;
    offset = cp.offset;
  } catch (_) {
    return false;
  }
  return node === parent && offset === childNodes(parent).indexOf(el);
}
// Whether el has a shadow root the runtime cannot enter. `at` ({x, y}, optional): a point over el
// (probed first). `probe`: also probe el's box (when the point is on el's slotted light content).
// The cheap answers come first (a host probed less than PROBE_TTL_MS ago without a point answers
// false before its style is read), and the known roots above el are collected only for a caret probe.
export function hasHiddenRoot(el, at, probe) {
  if (hidden.has(el)) return true;
  if (!canHostShadow(el) || localName(el) === 'body' || shadowOf(el)) return false;
  if (!at && !probe) return false;
  const probeDue = () => {
    const last = probed.get(el);
    return last === undefined || nPerfNow() - last >= PROBE_TTL_MS;
  };
  if (!at && !probeDue()) return false;
  if (emptyInline(el)) return false;
  let roots = null;
  const rootsAbove = () => roots || (roots = knownRootsAbove(el));
  if (at && caretRetargetedTo(el, at.x, at.y, rootsAbove())) {
    hidden.add(el);
    return true;
  }
  if (!probe || (at && !probeDue())) return false;
  probed.set(el, nPerfNow());
  const r = rectOf(el);
  const v = viewportRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  for (const [fx, fy] of [
    [0.5, 0.5],
    [0.25, 0.25],
    [0.75, 0.25],
    [0.25, 0.75],
    [0.75, 0.75],
  ]) {
    const x = r.x + r.width * fx,
      y = r.y + r.height * fy;
    if (x < 0 || y < 0 || x >= v.width || y >= v.height) continue;
    if (hitInScope(el, x, y) !== el) continue;
    if (caretRetargetedTo(el, x, y, rootsAbove())) {
      hidden.add(el);
      return true;
    }
  }
  return false;
}
// The element hit at (x, y) in el's own tree (document or shadow root), retargeted there.
function hitInScope(el, x, y) {
  const root = treeRoot(el);
  try {
    if (nodeType(root) === 9) return nDocEFP.call(root, x, y);
    if (nodeType(root) === 11 && nRootEFP) return nRootEFP.call(root, x, y);
  } catch (_) {
    /* ignore */
  }
  return null;
}
// An inline element whose content box has no width (padding and border only).
function emptyInline(el) {
  let cs = null;
  try {
    cs = nGetCS(el);
  } catch (_) {
    return false;
  }
  if (!cs || cs.display !== 'inline') return false;
  const r = rectOf(el);
  const px = (v) => {
    const n = parseFloat(v);
    return isFinite(n) ? n : 0;
  };
  const content = r.width - px(cs.paddingLeft) - px(cs.paddingRight) - px(cs.borderLeftWidth) - px(cs.borderRightWidth);
  return content <= 0.5;
}
