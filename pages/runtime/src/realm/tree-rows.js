// Which nodes of the inspection tree are rows of a tree read, and which rows take a depth level
// (issue 42: a tree an agent can use, as Chromium's accessibility tree and Playwright's aria snapshot
// present a page). What is not rendered (head, style, script, template, noscript, `display: none` and
// what is under it) is no row and its subtree is not walked; offscreen mounted nodes are rendered and
// stay. Passed through (no row, its children lifted to its place, its ancestry kept in their paths):
// a nameless generic container without state or interaction (role generic / none / presentation, or
// the html element that only repeats its Document; no accessible name, no state, not focusable or
// editable, no resource id, no shadow root of its own, not redacted, not an iframe or a placeholder),
// also when it carries text: that text stays the safe text of the nearest listed element above it,
// by the summary's own rules (dom/summary.js: the subtree's safe text, 160 scalar values), as the
// aria snapshot keeps a generic's text in its nearest kept node. A mount wrapper passes too: its
// mount is a segment of every lifted row's path. A Web Fragment's internals (the web-fragment's
// shadow root, web-fragment-host and its shadow root, wf-html, wf-body) pass, as a child realm's
// document, html and body do (relay/inspect-compose.js), so a frame or fragment element's rows
// below are its content's meaningful nodes.
// Depth counts what Chromium's accessibility snapshot keeps as interesting (Puppeteer's
// interestingOnly): the root and every interactive row (a widget role, focusable by tabindex, or
// editable) take a level for what is listed below them; structure rows (landmarks, lists, headings,
// shadow roots, frames) are listed at their parent's level. So the default depth 2 lists a page's
// structure and its controls down to a control nested in a control.
import { nGetCS } from '../core/natives.js';
import { attr, hasAttr, hostOf, localName, nodeType, safe } from '../core/dom-reads.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { privacyOf } from '../dom/privacy.js';
import { roleOf, stateOf, isEditable } from '../dom/summary.js';
import { isInteractiveElement } from '../dom/roles.js';
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
const NAMING = ['aria-label', 'aria-labelledby', 'title', 'data-wippy-resource-id'];
// A Web Fragment's own elements between its web-fragment element and the fragment's content.
const FRAGMENT_INTERNALS = { 'web-fragment-host': 1, 'wf-html': 1, 'wf-body': 1 };
const FRAGMENT_HOSTS = { 'web-fragment': 1, 'web-fragment-host': 1 };
const INTERACTIVE = ['tabindex', 'onclick', 'draggable'];

/** Whether the element renders (placeholders always count: their owner declares them). */
export function rendered(el) {
  if (nodeType(el) !== 1) return true;
  if (isPlaceholder(el)) return true;
  if (NOT_RENDERED[localName(el)]) return false;
  const cs = safe(() => nGetCS(el), null);
  return !(cs && cs.display === 'none');
}
/** Whether the node is passed through: a nameless generic container without state or interaction,
 * or a Web Fragment's internals (see the module comment). */
export function passThrough(n) {
  const t = nodeType(n);
  if (t === 11) {
    const h = hostOf(n);
    return !!h && FRAGMENT_HOSTS[localName(h)] === 1;
  }
  if (t !== 1 || isIframe(n) || isPlaceholder(n)) return false;
  if (FRAGMENT_INTERNALS[localName(n)]) return true;
  if (shadowOf(n)) return false;
  for (const a of NAMING) if (hasAttr(n, a)) return false;
  for (const a of INTERACTIVE) if (hasAttr(n, a)) return false;
  if (isEditable(n)) return false;
  const role = roleOf(n);
  if (!WRAPPER_ROLES[role] && !(role === 'document' && DOCUMENT_ELEMENTS[localName(n)])) return false;
  if (privacyOf(n).redacted) return false;
  return !stateOf(n, role);
}
/** Whether a listed row takes a depth level for the rows below it: an interactive element (a widget
 * role, focusable by tabindex, or editable). */
export function takesLevel(n) {
  if (nodeType(n) !== 1) return false;
  const ti = attr(n, 'tabindex');
  if ((ti !== null && parseInt(ti, 10) >= 0) || isEditable(n)) return true;
  return isInteractiveElement(localName(n), roleOf(n));
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
