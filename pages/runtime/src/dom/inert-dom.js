// The DOM side of the inert copy (dom/inert-tree.js): a reader over the captured natives for one
// scope (a document or a shadow root: its light tree only), the privacy answers of dom/privacy.js,
// and the live state of each element for the state pseudo-classes, read lazily (once per element and
// pseudo-class, in the task that runs the query) with the browser's own matching (`Element.matches`,
// captured before page scripts); :focus / :focus-within come from the runtime's current safe focus
// (the deep active element through open and owned closed roots, unless it is excluded: then nothing
// matches them); given that, the browser's own :focus / :focus-within / :focus-visible answer (a shadow
// host matches :focus when its shadow tree holds the focus, as in Chromium).
import {
  nFirstChild,
  nNextSibling,
  nNodeValue,
  nNamespaceURI,
  nAttributesGet,
  nNNMLength,
  nNNMItem,
  nAttrName,
  nAttrValue,
  nMatches,
} from '../core/natives.js';
import { attr, localName, nodeType, composedParent, hostOf } from '../core/dom-reads.js';
import { selfExcluded, selfRedacted, labelsSensitive, privacyOf } from './privacy.js';
import { isEditingHost } from './privacy-rules.js';
import { buildInert, valueIsEditable } from './inert-tree.js';

function kids(n) {
  const out = [];
  try {
    for (let c = nFirstChild.call(n); c && out.length < 100000; c = nNextSibling.call(c)) out.push(c);
  } catch (_) {
    /* ignore */
  }
  return out;
}
function attrsOf(el) {
  const out = [];
  try {
    const m = nAttributesGet.call(el);
    const len = nNNMLength.call(m);
    for (let i = 0; i < len; i++) {
      const a = nNNMItem.call(m, i);
      out.push([nAttrName.call(a), nAttrValue.call(a)]);
    }
  } catch (_) {
    /* ignore */
  }
  return out;
}
function matchesNative(el, sel) {
  try {
    return nMatches.call(el, sel) === true;
  } catch (_) {
    return false;
  }
}
// focusSafe: whether the realm's current focus is safe to match (none when the focused element is
// excluded: then no element is :focus, :focus-visible or :focus-within, not even its ancestors).
export function domReader(focusSafe) {
  return {
    kind: (n) => {
      const t = nodeType(n);
      // CDATA sections (XML documents) are text too: they make their parent non-:empty.
      return t === 1 ? 'element' : t === 3 || t === 4 ? 'text' : null;
    },
    children: kids,
    name: (n) => localName(n),
    ns: (n) => {
      try {
        return nNamespaceURI.call(n) || '';
      } catch (_) {
        return '';
      }
    },
    attrs: attrsOf,
    text: (n) => {
      try {
        return nNodeValue.call(n) || '';
      } catch (_) {
        return '';
      }
    },
    excluded: (n) => selfExcluded(n),
    redacted: (n) => selfRedacted(n) || labelsSensitive(n),
    editable: (n) => localName(n) === 'textarea' || isEditingHost(attr(n, 'contenteditable')),
    valueEditable: (n) => {
      let ns = '';
      try {
        ns = nNamespaceURI.call(n) || '';
      } catch (_) {
        ns = '';
      }
      return valueIsEditable(localName(n), ns, attr(n, 'type'));
    },
    state: (n) => {
      const cache = Object.create(null);
      return (p) => {
        if (p in cache) return cache[p];
        let v;
        if ((p === 'focus' || p === 'focus-within' || p === 'focus-visible') && !focusSafe) v = false;
        else v = matchesNative(n, ':' + p);
        cache[p] = v;
        return v;
      };
    },
  };
}
// The inert copy of `scope` (a document or a shadow root); {excluded: true} when the scope itself lies
// in an excluded subtree. opts: {redacted: the embedding realm redacts this realm, focusSafe}.
export function inertScope(scope, opts) {
  const o = opts || {};
  const t = nodeType(scope);
  let redacted = !!o.redacted,
    editable = false;
  if (t === 11) {
    const host = hostOf(scope);
    const p = host ? privacyOf(host) : { excluded: null, redacted: null };
    if (p.excluded) return { excluded: true };
    if (p.redacted) redacted = true;
    for (let n = host; n; n = composedParent(n))
      if (nodeType(n) === 1 && isEditingHost(attr(n, 'contenteditable'))) editable = true;
  }
  const built = buildInert(scope, domReader(o.focusSafe === true), {
    redacted: redacted,
    editable: editable,
    document: t === 9,
  });
  return { root: built.root, cut: built.cut };
}
