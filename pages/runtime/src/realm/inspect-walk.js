// This realm's inspection walks (spec: semantic search with deep traversal; tree reads; exact node
// ids): the inspection tree of a realm (document -> its element -> ... ; an element's shadow root,
// open or closed through the registry, comes before its children; an iframe's child document is a
// "hole" the relay fills; Web Fragments are physical DOM of this realm and walked as such; excluded
// subtrees are absent), the semantic matcher (one role/name computation: dom/accname.js via
// dom/summary.js) and the pre-order walks that stop at what the caller asked for.
import { nDocElement, nTextContent, nGetCS } from '../core/natives.js';
import { normText } from '../core/util.js';
import { attr, hasAttr, localName, nodeType, composedParent } from '../core/dom-reads.js';
import { nodeIds } from '../core/state.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { selfExcluded, privacyOf } from '../dom/privacy.js';
import { childNodes, flatChildren, hasBox } from '../dom/flat-tree.js';
import { roleOf, nameOf, textOfSafe } from '../dom/summary.js';
import { isIframe } from './hit-test.js';
import { isPlaceholder } from './inspect-nodes.js';
import { rowChildren, takesLevel } from './tree-rows.js';

function hiddenFragmentFrame(el) {
  if (localName(el) !== 'iframe') return false;
  const nm = attr(el, 'name');
  return !!(nm && nm.indexOf('wf:') === 0);
}
// Children of n in the inspection tree: [{node} | {hole: iframe}]; ctx.excluded counts skipped subtrees.
export function treeChildren(n, ctx) {
  const t = nodeType(n);
  const out = [];
  const push = (c) => {
    if (nodeType(c) !== 1) return;
    if (hiddenFragmentFrame(c)) return;
    if (selfExcluded(c)) {
      if (ctx) ctx.excluded++;
      return;
    }
    out.push({ node: c });
  };
  if (t === 9) {
    let de = null;
    try {
      de = nDocElement.call(n);
    } catch (_) {
      de = null;
    }
    if (de) push(de);
    return out;
  }
  if (t === 1) {
    if (isIframe(n)) return [{ hole: n }];
    const sr = shadowOf(n);
    if (sr) out.push({ node: sr });
  }
  const kids = childNodes(n);
  for (let i = 0; i < kids.length; i++) push(kids[i]);
  return out;
}

const norm = (s) => normText(String(s || '')).toLowerCase();
// Whether the element is in the accessibility tree as Chromium builds it, near enough for search: it
// renders (a box, or display: contents), is not visibility-hidden, and neither it nor a composed
// ancestor is aria-hidden="true" or inert. Placeholders are declared by their owner and always count.
export function searchable(el) {
  if (isPlaceholder(el)) return true;
  let cs = null;
  try {
    cs = nGetCS(el);
  } catch (_) {
    cs = null;
  }
  if (!hasBox(el) && !(cs && cs.display === 'contents')) return false;
  if (cs && cs.visibility !== 'visible') return false;
  for (let x = el, g = 0; x && g < 1024; x = composedParent(x), g++) {
    if (nodeType(x) !== 1) continue;
    if (hasAttr(x, 'inert')) return false;
    const ah = attr(x, 'aria-hidden');
    if (ah !== null && ah.trim().toLowerCase() === 'true') return false;
  }
  return true;
}
function textMayContain(el, needle) {
  if (shadowOf(el)) return true;
  try {
    return norm(nTextContent.call(el)).indexOf(needle) >= 0;
  } catch (_) {
    return false;
  }
}
// The semantic matcher of a query {role?, name?, text?, resource_id?} (README "Inspection API"):
//   role: the computed role equals the token (ASCII case-insensitive);
//   name: the accessible name contains it (case-insensitive, white space collapsed);
//   text: the safe text (the candidates' summary text, 160 scalar values) contains it, the same way;
//         without role / name / resource_id only the innermost such elements match;
//   resource_id: data-wippy-resource-id equals it exactly.
// Redacted elements have no name or text to match. -> (el) => boolean.
export function semanticMatcher(q) {
  const role = q.role ? q.role.trim().toLowerCase() : null;
  const name = q.name ? norm(q.name) : null;
  const text = q.text ? norm(q.text) : null;
  const innermost = !!text && !role && !name && !q.resource_id;
  const textOk = (el) => textMayContain(el, text) && norm(textOfSafe(el)).indexOf(text) >= 0;
  return (el) => {
    if (q.resource_id && attr(el, 'data-wippy-resource-id') !== q.resource_id) return false;
    let r = null;
    if (role || name) {
      r = roleOf(el);
      if (role && String(r || '').toLowerCase() !== role) return false;
    }
    if (name || text) {
      const p = privacyOf(el);
      if (p.redacted) return false;
    }
    if (name && norm(nameOf(el, r)).indexOf(name) < 0) return false;
    if (text) {
      if (!textOk(el)) return false;
      if (innermost) {
        const kids = flatChildren(el);
        for (let i = 0; i < kids.length; i++)
          if (nodeType(kids[i]) === 1 && !selfExcluded(kids[i]) && textOk(kids[i])) return false;
      }
    }
    return searchable(el);
  };
}
export function nodeIdMatcher(nodeId) {
  return (n) => {
    const k = nodeIds.get(n);
    return !!k && 't-' + k === nodeId;
  };
}
// Pre-order walk from `start` (its own node excluded unless matchAll): entries in document order,
// [{node, parent}] matches and [{hole, parent}] iframes, until `want` matches were found; `stopped`
// only when one more match exists (the walk goes on for it, listing the holes on the way, so a
// continuation is given only when more remain); `matchAll` also tests documents and shadow roots.
export function walkFind(start, match, want, ctx, matchAll) {
  const entries = [];
  let found = 0;
  const stack = [{ node: start, parent: null }];
  let first = true;
  while (stack.length) {
    const it = stack.pop();
    if (it.hole) {
      entries.push(it);
      continue;
    }
    const n = it.node;
    // The start (the scope) is a candidate only for `matchAll` (an exact node_id search: a Document or
    // ShadowRoot, the scope itself included); a semantic search matches elements below it.
    if ((matchAll || (!first && nodeType(n) === 1)) && match(n)) {
      if (found >= want) return { entries: entries, stopped: true };
      entries.push(it);
      found++;
    }
    first = false;
    const kids = treeChildren(n, ctx);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i].node, hole: kids[i].hole, parent: n });
  }
  return { entries: entries, stopped: false };
}
// Pre-order list of the tree under `root` ({node, parent, level} and {hole, parent, level}; `parent`
// the nearest listed row's node, null for the root and for the rows of a passed-through root), at
// most `want` nodes (holes do not count; then `stopped`). Rows only (realm/tree-rows.js): what is not
// rendered is left out, wrappers are passed through, and below a row the level grows only when the
// row is the root or takes a level (takesLevel); rows deeper than `depth` are not listed. `passRoot`:
// the root itself is passed through (a child realm's document answering its frame's tree: the
// frame's rows below are the document's content).
export function walkTree(root, depth, want, ctx, passRoot) {
  const out = [];
  let count = 0;
  const stack = [];
  const below = (node, parent, level) => {
    const kids = rowChildren(node, (x) => treeChildren(x, ctx));
    for (let i = kids.length - 1; i >= 0; i--)
      stack.push({ node: kids[i].node, hole: kids[i].hole, parent: parent, level: level });
  };
  if (passRoot) below(root, null, 0);
  else stack.push({ node: root, parent: null, level: 0, root: true });
  while (stack.length) {
    const it = stack.pop();
    if (!it.hole) {
      if (count >= want) return { entries: out, stopped: true };
      count++;
    }
    out.push(it);
    if (it.hole) continue;
    const next = it.level + (it.root || takesLevel(it.node) ? 1 : 0);
    if (next <= depth) below(it.node, it.node, next);
  }
  return { entries: out, stopped: false };
}
