// Which nodes of the inspection tree are rows of a tree read (issue 42: a tree an agent can use, as
// Chromium's accessibility tree and Playwright's aria snapshot present a page). What is not rendered
// (head, style, script, template, noscript, `display: none` and what is under it) is no row and its
// subtree is not walked; offscreen mounted nodes are rendered and stay. A nameless generic wrapper
// without state or interaction (role generic / none / presentation, or the html element that only
// repeats its Document; no accessible name, no state, not focusable or editable, no own text, no
// resource or mount id, no shadow root, not redacted, not an iframe or a placeholder) is passed
// through: no row and no depth level, its children lifted to its place. A lifted row keeps its
// complete ancestry: its `parent` ref and its path are those of the node itself.
import { nGetCS, nNodeValue } from '../core/natives.js';
import { hasAttr, localName, nodeType, safe } from '../core/dom-reads.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { privacyOf } from '../dom/privacy.js';
import { childNodes } from '../dom/flat-tree.js';
import { roleOf, stateOf, isEditable } from '../dom/summary.js';
import { isIframe } from './hit-test.js';
import { isPlaceholder } from './inspect-nodes.js';

const NOT_RENDERED = {
  head: 1,
  'wf-head': 1,
  style: 1,
  script: 1,
  template: 1,
  noscript: 1,
  title: 1,
  meta: 1,
  link: 1,
  base: 1,
};
const WRAPPER_ROLES = { generic: 1, none: 1, presentation: 1 };
const DOCUMENT_ELEMENTS = { html: 1, 'wf-html': 1 };
const NAMING = ['aria-label', 'aria-labelledby', 'title', 'data-wippy-resource-id', 'data-wippy-mount-id'];
const INTERACTIVE = ['tabindex', 'onclick', 'draggable'];

/** Whether the element renders (placeholders always count: their owner declares them). */
export function rendered(el) {
  if (nodeType(el) !== 1) return true;
  if (isPlaceholder(el)) return true;
  if (NOT_RENDERED[localName(el)]) return false;
  const cs = safe(() => nGetCS(el), null);
  return !(cs && cs.display === 'none');
}
function ownText(el) {
  const kids = childNodes(el);
  for (let i = 0; i < kids.length; i++) {
    if (nodeType(kids[i]) !== 3) continue;
    const v = safe(() => nNodeValue.call(kids[i]), '');
    if (v && v.trim()) return true;
  }
  return false;
}
/** Whether the element is a nameless generic wrapper without state or interaction. */
export function passThrough(el) {
  if (nodeType(el) !== 1 || isIframe(el) || isPlaceholder(el) || shadowOf(el)) return false;
  for (const a of NAMING) if (hasAttr(el, a)) return false;
  for (const a of INTERACTIVE) if (hasAttr(el, a)) return false;
  if (isEditable(el)) return false;
  const role = roleOf(el);
  if (!WRAPPER_ROLES[role] && !(role === 'document' && DOCUMENT_ELEMENTS[localName(el)])) return false;
  if (privacyOf(el).redacted) return false;
  if (stateOf(el, role)) return false;
  return !ownText(el);
}
// Passing through goes at most this deep below one row (a guard against pathological nesting: what
// lies deeper is listed as it is).
const LIFT_MAX = 256;
/** The rows below `n`: `children(n)` ([{node} | {hole}]) without what is not rendered, with
 * pass-through wrappers replaced by their own rows, in order. */
export function rowChildren(n, children) {
  const out = [];
  const visit = (list, depth) => {
    for (const c of list) {
      if (c.hole) {
        if (rendered(c.hole)) out.push(c);
        continue;
      }
      if (!rendered(c.node)) continue;
      if (depth < LIFT_MAX && safe(() => passThrough(c.node), false)) visit(children(c.node), depth + 1);
      else out.push(c);
    }
  };
  visit(children(n), 0);
  return out;
}
