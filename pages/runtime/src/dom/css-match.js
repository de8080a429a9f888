// CSS search over an inert tree (dom/inert-tree.js) with css-select (pinned in ../../package.json;
// pages/README.md says why): the pseudo-class allowlist of the spec checked on css-what's parse
// (anything else, pseudo-elements and namespace prefixes give `invalid-request`), the css-select
// adapter over the inert plain objects, and the state pseudo-classes answered from the live state
// captured with the copy (:checked ... :focus-within), :root on the document's element only, and the
// of-type pseudo-classes comparing namespace and local name (SVG / MathML siblings are other types).
// Pure: no DOM; the Node tests run it on plain inert trees.
import { parse } from 'css-what';
import { compile } from 'css-select';
import nthCheck from 'nth-check';

const ALLOWED = {
  scope: 1,
  root: 1,
  empty: 1,
  is: 1,
  where: 1,
  not: 1,
  has: 1,
  'first-child': 1,
  'last-child': 1,
  'only-child': 1,
  'nth-child': 1,
  'nth-last-child': 1,
  'first-of-type': 1,
  'last-of-type': 1,
  'only-of-type': 1,
  'nth-of-type': 1,
  'nth-last-of-type': 1,
  checked: 1,
  disabled: 1,
  enabled: 1,
  required: 1,
  optional: 1,
  'read-only': 1,
  'read-write': 1,
  indeterminate: 1,
  focus: 1,
  'focus-visible': 1,
  'focus-within': 1,
};
export const STATE_PSEUDOS = [
  'checked',
  'disabled',
  'enabled',
  'required',
  'optional',
  'read-only',
  'read-write',
  'indeterminate',
  'focus',
  'focus-visible',
  'focus-within',
];
function tokensAllowed(groups, inHas) {
  for (const group of groups) {
    for (const t of group) {
      if (t.type === 'pseudo-element') return 'pseudo-element';
      if ((t.type === 'tag' || t.type === 'universal' || t.type === 'attribute') && t.namespace != null)
        return 'namespace';
      // The `s` flag ([a=b s]): Chromium's querySelectorAll does not take it (it throws).
      if (t.type === 'attribute' && t.ignoreCase === false) return 'attribute-flag';
      if (t.type === 'pseudo') {
        if (!Object.prototype.hasOwnProperty.call(ALLOWED, t.name)) return 'pseudo';
        // :has() inside :has() is invalid in Chromium's querySelectorAll (it throws).
        if (t.name === 'has' && inHas) return 'nested-has';
        if ((t.name === 'nth-child' || t.name === 'nth-last-child') && typeof t.data === 'string') {
          const of = splitOf(t.data);
          if (of && of.selector !== null) {
            let inner;
            try {
              inner = parse(of.selector);
            } catch (_) {
              return 'syntax';
            }
            const bad = tokensAllowed(inner, inHas);
            if (bad) return bad;
          }
        }
        if (Array.isArray(t.data)) {
          const inner = tokensAllowed(t.data, inHas || t.name === 'has');
          if (inner) return inner;
        }
      }
    }
  }
  return null;
}
// -> {ok: parsed groups} or {error}: a selector css-what cannot parse, or one naming a pseudo-class
// outside the spec's list (:hover, :active, :visited, :focus-within's relatives ...), a pseudo-element
// or a namespace prefix.
export function checkSelector(selector) {
  if (typeof selector !== 'string' || selector.length === 0 || selector.length > 512) return { error: 'css' };
  let groups;
  try {
    groups = parse(emptyLists(selector));
  } catch (_) {
    return { error: 'css-syntax' };
  }
  if (!groups.length || groups.some((g) => g.length === 0)) return { error: 'css-syntax' };
  // A selector list item starting with a combinator ("> a") is relative: querySelectorAll throws.
  if (groups.some((g) => TRAVERSALS[g[0].type])) return { error: 'css-syntax' };
  const bad = tokensAllowed(groups, false);
  if (bad) return { error: 'css-unsupported-' + bad };
  return { ok: groups };
}

// :is() and :where() take a forgiving list: empty, they are valid and match nothing (as in Chromium);
// css-what refuses the empty form, so it is written as :not(*) before parsing.
function emptyLists(selector) {
  return selector.replace(/:(is|where)\(\s*\)/gi, ':not(*)');
}
// ":nth-child(An+B of S)": {formula, selector} (selector null without "of").
function splitOf(data) {
  const m = /^([\s\S]*?)\s+of\s+([\s\S]+)$/i.exec(String(data).trim());
  return m ? { formula: m[1].trim(), selector: m[2].trim() } : { formula: String(data).trim(), selector: null };
}
const TRAVERSALS = { child: 1, descendant: 1, adjacent: 1, sibling: 1, parent: 1, 'column-combinator': 1 };
// css-select resolves its aliases (:checked, :disabled ...) before user pseudo-classes, so the state
// pseudo-classes are renamed to private names before compiling; those answer from the captured state.
// The selector's :scope is renamed too (css-select's own :scope anchors :has()'s relative selectors).
function renameStates(groups) {
  return groups.map((g) =>
    g.map((t) => {
      if (t.type !== 'pseudo') return t;
      let name = STATE_PSEUDOS.indexOf(t.name) >= 0 || t.name === 'scope' ? 'wippy-' + t.name : t.name;
      // The "of S" form css-select does not know: answered by the runtime (S compiled with css-select).
      if (
        (t.name === 'nth-child' || t.name === 'nth-last-child') &&
        typeof t.data === 'string' &&
        splitOf(t.data).selector
      )
        name = 'wippy-' + t.name + '-of';
      return Object.assign({}, t, { name: name, data: Array.isArray(t.data) ? renameStates(t.data) : t.data });
    }),
  );
}
const isTag = (n) => n.type === 'tag';
function textOf(n) {
  if (n.type === 'text') return n.data;
  let s = '';
  if (n.children) for (const c of n.children) s += textOf(c);
  return s;
}
export const ADAPTER = {
  isTag: isTag,
  getAttributeValue: (el, name) => el.attribs[name],
  getChildren: (n) => n.children || [],
  getName: (el) => el.name,
  getParent: (n) => n.parent || null,
  getSiblings: (n) => (n.parent ? n.parent.children : [n]),
  prevElementSibling: (n) => {
    const sib = n.parent ? n.parent.children : [];
    for (let i = sib.indexOf(n) - 1; i >= 0; i--) if (sib[i].type === 'tag') return sib[i];
    return null;
  },
  getText: textOf,
  hasAttrib: (el, name) => Object.prototype.hasOwnProperty.call(el.attribs, name),
  removeSubsets: (nodes) => {
    const set = new Set(nodes);
    return nodes.filter((n) => {
      for (let p = n.parent; p; p = p.parent) if (set.has(p)) return false;
      return true;
    });
  },
  // No hover / active / visited: those pseudo-classes are refused before matching.
  isHovered: () => false,
  isVisited: () => false,
  isActive: () => false,
};
const sameType = (a, b) => a.type === 'tag' && b.localName === a.localName && b.ns === a.ns;
function typeIndex(el, fromEnd) {
  const sib = el.parent ? el.parent.children.filter((s) => sameType(el, s)) : [el];
  const i = sib.indexOf(el);
  return fromEnd ? sib.length - 1 - i : i;
}
function nth(fn) {
  return (el, data) => {
    let test;
    try {
      test = nthCheck(String(data || '').trim());
    } catch (_) {
      return false;
    }
    return test(fn(el));
  };
}
const PSEUDOS = {
  // Selectors 4 / Chromium: no element child and no text child with data (white space counts as text;
  // css-select's own :empty ignores white space).
  empty: (el) => el.children.every((c) => c.type !== 'tag' && !(c.type === 'text' && c.data !== '')),
  root: (el) => !!el.isDocElement,
  // The selector's own :scope, as Chromium's querySelectorAll: on a document it is its element
  // (= :root); on a shadow root no element is :scope (":scope > div" matches nothing there). (The
  // :scope css-select inserts for :has()'s relative selectors keeps its own meaning.)
  'wippy-scope': (el) => !!el.isDocElement,
  'first-of-type': (el) => typeIndex(el, false) === 0,
  'last-of-type': (el) => typeIndex(el, true) === 0,
  'only-of-type': (el) => typeIndex(el, false) === 0 && typeIndex(el, true) === 0,
  'nth-of-type': nth((el) => typeIndex(el, false)),
  'nth-last-of-type': nth((el) => typeIndex(el, true)),
};
for (const p of STATE_PSEUDOS) PSEUDOS['wippy-' + p] = (el) => !!(el.state && el.state(p));
const ofCache = new Map();
function nthOf(fromEnd) {
  return (el, data) => {
    let entry = ofCache.get(data);
    if (!entry) {
      const of = splitOf(data);
      entry = { test: nthCheck(of.formula), sel: compile(renameStates(parse(of.selector)), BASE_OPTIONS) };
      if (ofCache.size > 64) ofCache.clear();
      ofCache.set(data, entry);
    }
    if (!entry.sel(el)) return false;
    const sib = (el.parent ? el.parent.children : [el]).filter((x) => x.type === 'tag' && entry.sel(x));
    const i = sib.indexOf(el);
    return entry.test(fromEnd ? sib.length - 1 - i : i);
  };
}
PSEUDOS['wippy-nth-child-of'] = nthOf(false);
PSEUDOS['wippy-nth-last-child-of'] = nthOf(true);
const BASE_OPTIONS = { adapter: ADAPTER, pseudos: PSEUDOS, cacheResults: false, xmlMode: false };

// The elements of the inert tree `root` (descendants of the scope, in document order) matching
// `selector`, at most `max` (-> {matches, more}); {error} when the selector is refused.
export function selectInert(selector, root, max) {
  const chk = checkSelector(selector);
  if (chk.error) return { error: chk.error };
  let test;
  try {
    test = compile(renameStates(chk.ok), BASE_OPTIONS);
  } catch (_) {
    return { error: 'css-unsupported' };
  }
  const out = [];
  let more = false;
  const stack = root.children.slice().reverse();
  try {
    while (stack.length) {
      const n = stack.pop();
      if (n.type !== 'tag') continue;
      if (test(n)) {
        if (out.length >= max) {
          more = true;
          break;
        }
        out.push(n);
      }
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
  } catch (_) {
    return { error: 'css-unsupported' };
  }
  return { matches: out, more: more };
}
