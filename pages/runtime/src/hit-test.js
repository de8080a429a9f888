// Hit testing in this realm (spec: candidate resolution — the deepest element at a point through
// document -> open/closed shadow roots -> web-fragment -> fragment DOM, promoted to its nearest
// interactive ancestor; iframes hand the point, mapped into the child viewport, to the relay;
// excluded content yields no candidate).
import { D, nDocEFP, nRootEFP, nQSA } from './natives.js';
import { attr, hasAttr, localName, nodeType, parentOf, treeRoot } from './dom.js';
import { shadowOf } from './shadow-roots.js';
import { privacyOf } from './privacy.js';
import { isInteractiveElement } from './roles.js';
import { iframeGeometry } from './paths.js';

const DOCUMENT_ROOTS = { html: 1, body: 1, 'wf-document': 1, 'wf-html': 1, 'wf-body': 1 };
export function isIframe(el) {
  if (localName(el) !== 'iframe') return false;
  const nm = attr(el, 'name');
  return !(nm && nm.indexOf('wf:') === 0);
}
export function deepHit(x, y) {
  let el = null;
  try { el = nDocEFP.call(D, x, y); } catch (_) { el = null; }
  for (let guard = 0; el && guard < 64; guard++) {
    const root = shadowOf(el);
    if (!root || !nRootEFP) break;
    let inner = null;
    try { inner = nRootEFP.call(root, x, y); } catch (_) { inner = null; }
    if (!inner || inner === el || treeRoot(inner) !== root) break;
    el = inner;
  }
  return el;
}
// Promote a hit on a non-interactive descendant to its nearest interactive ancestor in the same tree
// (button text spans, link icons): the candidate is what the user points at, not its decoration.
export function isInteractive(n) {
  return isInteractiveElement(localName(n), attr(n, 'role'), (name) => hasAttr(n, name));
}
export function promote(el) {
  if (isInteractive(el)) return el;
  for (let n = parentOf(el), depth = 0; n && nodeType(n) === 1 && depth < 16; n = parentOf(n), depth++) {
    if (isInteractive(n)) return n;
  }
  return el;
}
// -> {kind:'none'} | {kind:'excluded', el} | {kind:'element', el, redacted} | {kind:'iframe', el, x, y}
export function hitTest(x, y) {
  const raw = deepHit(x, y);
  if (!raw || nodeType(raw) !== 1) return { kind: 'none' };
  if (isIframe(raw)) {
    const p = privacyOf(raw);
    if (p.excluded) return { kind: 'excluded', el: p.excluded };
    const g = iframeGeometry(raw);
    const c = g.content;
    if (x >= c.x && y >= c.y && x < c.x + c.width && y < c.y + c.height) {
      return { kind: 'iframe', el: raw, x: (x - g.ox) / g.sx, y: (y - g.oy) / g.sy, redacted: !!p.redacted };
    }
    return { kind: 'element', el: raw, redacted: !!p.redacted };
  }
  const el = promote(raw);
  if (DOCUMENT_ROOTS[localName(el)]) return { kind: 'none' }; // empty page area: no target
  const p = privacyOf(el);
  if (p.excluded) return { kind: 'excluded', el: p.excluded };
  return { kind: 'element', el: el, redacted: !!p.redacted, redactRoot: p.redacted };
}
export function containsRedacted(el) {
  try { return nQSA.call(el, '[data-wippy-attention="redact"]').length > 0; } catch (_) { return false; }
}
