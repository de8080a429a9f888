// CSS search in this realm (spec "CSS search": the browser's own parser decides validity; matching
// uses an inert privacy-filtered structure): the selector is judged by the realm's native
// querySelectorAll on an empty inert fragment (it touches no live content), held to the spec's
// allowlist (dom/css-match.js), and matched by the realm's native querySelectorAll on an inert native
// copy of the scope: the privacy-filtered tree of dom/inert-dom.js (excluded subtrees absent,
// redacted elements without attributes or text, editable values gone) rebuilt as shallow imports of
// the live elements into an inert document of the same kind (HTML or XML, quirks or not, the scope a
// Document or a ShadowRoot), each element in a live state the selector asks for carrying that
// state's private attribute. So every structural rule (An+B, attribute operators and flags,
// comments, escapes, namespaces, forgiving lists, :has, :scope, `&`) is Chromium's own, on exactly
// what privacy lets the caller see; the matches map back to the live nodes in document order.
import {
  nDOMParser,
  nParseFromString,
  nImportNode,
  nCreateTextNode,
  nCreateElementNS,
  nCreateDocumentFragment,
  nAppendChild,
  nRemoveChild,
  nSetAttribute,
  nRemoveAttributeNode,
  nCompatMode,
  nContentType,
  nNodeListLength,
  nNodeListItem,
  nFragQSA,
  nDocQSA,
  nDocElement,
  nAttachShadow,
  nAttributesGet,
  nNNMLength,
  nNNMItem,
  nAttrName,
} from '../core/natives.js';
import { nodeType, composedParent, randHex } from '../core/dom-reads.js';
import { checkSelector as checkText, stateAttr } from './css-match.js';
import { inertScope } from './inert-dom.js';
import { HTML_NS } from './inert-tree.js';

// The private state attributes' salt, random per realm (dom/css-match.js stateAttr).
const SALT = randHex(8);
const inertDocs = { html: null };
function parse(markup, type) {
  return nParseFromString.call(new nDOMParser(), markup, type);
}
// Whether the realm's native selector parser accepts `text` (a selector list of querySelectorAll).
let probe = null;
export function nativeValid(text) {
  try {
    if (!probe) {
      inertDocs.html = inertDocs.html || parse('<!DOCTYPE html>', 'text/html');
      probe = nCreateDocumentFragment.call(inertDocs.html);
    }
    nFragQSA.call(probe, text);
    return true;
  } catch (_) {
    return false;
  }
}
// selector -> {ok: {selector, states}} | {error} (dom/css-match.js checkSelector, natively judged).
export function checkSelector(selector) {
  return checkText(selector, nativeValid, SALT);
}

// The document a scope belongs to (walking up the composed tree, never ownerDocument).
function documentOf(scope) {
  let n = scope;
  for (let g = 0; n && g < 4096; g++) {
    if (nodeType(n) === 9) return n;
    n = composedParent(n);
  }
  return null;
}
// An empty inert document like the scope's: XML or HTML, and for HTML quirks or not (quirks mode
// makes class and id selectors ASCII case-insensitive).
function inertDocFor(scope) {
  const d = documentOf(scope);
  let type = 'text/html',
    quirks = false;
  try {
    if (d && nContentType && nContentType.call(d) !== 'text/html') type = 'application/xml';
    if (d && nCompatMode && nCompatMode.call(d) === 'BackCompat') quirks = true;
  } catch (_) {
    /* the defaults */
  }
  const doc =
    type === 'text/html' ? parse(quirks ? '' : '<!DOCTYPE html>', 'text/html') : parse('<x/>', 'application/xml');
  const el = nDocElement.call(doc);
  if (el) nRemoveChild.call(doc, el);
  return doc;
}
// The inert plain tree `from` (dom/inert-tree.js) rebuilt under `into` in `doc`; copy -> live node
// in `back`; the elements in a state of `states` get its private attribute.
function rebuild(doc, into, from, states, back) {
  for (const c of from.children) {
    if (c.type === 'text') {
      nAppendChild.call(into, nCreateTextNode.call(doc, c.data));
      continue;
    }
    const el = nImportNode.call(doc, c.live, false);
    // Only the attributes the privacy filter kept (none on a redacted element, no editable value).
    const html = c.ns === HTML_NS;
    const m = nAttributesGet.call(el);
    for (let i = nNNMLength.call(m) - 1; i >= 0; i--) {
      const a = nNNMItem.call(m, i);
      const name = nAttrName.call(a);
      if (!Object.prototype.hasOwnProperty.call(c.attribs, html ? name.toLowerCase() : name))
        nRemoveAttributeNode.call(el, a);
    }
    for (const s of states) if (c.state && c.state(s)) nSetAttribute.call(el, stateAttr(SALT, s), '');
    back.set(el, c.live);
    nAppendChild.call(into, el);
    rebuild(doc, el, c, states, back);
  }
}

// The live elements of `scope` (a Document or a ShadowRoot of this realm) that `selector` matches,
// in document order, at most `max`: {matches, more} | {excluded: true} (the scope lies in an excluded
// subtree) | {error}; cut: the scope holds more nodes than the copy takes (inert-tree.js). opts: {redacted: an embedding realm redacts this one, focusSafe}.
export function selectScope(scope, selector, max, opts) {
  const chk = checkSelector(selector);
  if (chk.error) return { error: chk.error };
  const o = opts || {};
  const inert = inertScope(scope, { redacted: !!o.redacted, focusSafe: o.focusSafe === true });
  if (inert.excluded) return { excluded: true };
  const back = new Map();
  let list;
  try {
    const doc = inertDocFor(scope);
    if (nodeType(scope) === 9) {
      rebuild(doc, doc, inert.root, chk.ok.states, back);
      list = nDocQSA.call(doc, chk.ok.selector);
    } else {
      // The host sits where a live one does, inside the document's element (never its root element:
      // Chromium's :scope of a shadow root search behaves otherwise when the host is the root).
      const html = nAppendChild.call(doc, nCreateElementNS.call(doc, HTML_NS, 'html'));
      const body = nAppendChild.call(html, nCreateElementNS.call(doc, HTML_NS, 'body'));
      const host = nAppendChild.call(body, nCreateElementNS.call(doc, HTML_NS, 'div'));
      const root = nAttachShadow.call(host, { mode: 'open' });
      rebuild(doc, root, inert.root, chk.ok.states, back);
      list = nFragQSA.call(root, chk.ok.selector);
    }
  } catch (_) {
    return { error: 'css-unsupported' };
  }
  const out = [];
  const len = nNodeListLength.call(list);
  let more = false;
  for (let i = 0; i < len; i++) {
    const live = back.get(nNodeListItem.call(list, i));
    if (!live) continue;
    if (out.length >= max) {
      more = true;
      break;
    }
    out.push(live);
  }
  return { matches: out, more: more, cut: inert.cut };
}
