// What a CSS search selector may be and what it becomes before matching (spec "CSS search"), over the
// selector's CSS tokens (@csstools/css-tokenizer, pinned in ../../package.json; pages/README.md says
// why): the browser's own parser judges syntax first (`isValid`, the realm's native querySelectorAll
// on an inert node: dom/css-native.js), so whatever Chromium accepts (comments anywhere, escapes,
// every An+B form, forgiving :is/:where lists, `&`, `*|` and `|` namespaces) is accepted and whatever
// it throws on is `css-syntax`; then the spec's pseudo-class allowlist; then the state
// pseudo-classes (:checked ... :focus-within) are rewritten to attribute selectors of private
// attribute names that the inert copy carries for the elements in that live state, so the native
// engine matches the copy exactly as it matches the live tree, with the live state.
// Pure: no DOM; the Node tests pass their own `isValid`.
import { tokenize } from '@csstools/css-tokenizer';

export const MAX_SELECTOR = 512;
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
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
// Pseudo-class names are ASCII case-insensitive (`:CHECKED`; never the Kelvin sign's `k`).
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

// The pseudo-classes and pseudo-elements of a selector, from its tokens: [{name, fn, element, start,
// end, text}] (start / end: offsets of the colon and one past the name or the closing parenthesis;
// text: the pseudo as written, arguments included).
export function pseudosOf(selector) {
  const toks = tokenize({ css: selector });
  const out = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t[0] !== 'colon-token') continue;
    const elementPseudo = i + 1 < toks.length && toks[i + 1][0] === 'colon-token';
    const n = toks[elementPseudo ? i + 2 : i + 1];
    if (!n || (n[0] !== 'ident-token' && n[0] !== 'function-token')) continue;
    const fn = n[0] === 'function-token';
    let end = n[3] + 1;
    if (fn) {
      // The matching closing parenthesis (or the end: CSS closes open blocks at EOF).
      let depth = 1;
      let j = (elementPseudo ? i + 2 : i + 1) + 1;
      for (; j < toks.length && depth > 0; j++) {
        const k = toks[j][0];
        if (k === 'function-token' || k === '(-token') depth++;
        else if (k === ')-token') depth--;
        if (depth === 0) break;
      }
      end = j < toks.length && toks[j][0] === ')-token' ? toks[j][3] + 1 : selector.length;
    }
    out.push({
      name: asciiLower(n[4].value),
      fn: fn,
      element: elementPseudo,
      start: t[2],
      end: end,
      text: selector.slice(t[2], end),
    });
    if (elementPseudo) i++;
  }
  return out;
}

// The private attribute the inert copy gives an element in live state `p` (its name unguessable by a
// page: `salt` is random per realm).
export function stateAttr(salt, p) {
  return 'data-wippy-' + salt + '-' + p;
}

// selector -> {ok: {selector: what the native engine matches on the copy, states: the state
// pseudo-classes it uses}} or {error}: 'css' (not a string of 1..512), 'css-syntax' (the native
// parser throws), 'css-unsupported-pseudo-element', 'css-unsupported-pseudo' (a pseudo-class the
// browser knows outside the spec's list: :hover, :active, :visited, :lang() ...). A pseudo-class the
// browser does not know can only stand in an argument of a forgiving :is() / :where() that Chromium
// dropped (else the selector would not have parsed): it matches nothing there, natively too.
// isValid(text) -> whether the browser's own parser accepts `text` as a selector list.
export function checkSelector(selector, isValid, salt) {
  if (typeof selector !== 'string' || selector.length === 0 || selector.length > MAX_SELECTOR) return { error: 'css' };
  if (!isValid(selector)) return { error: 'css-syntax' };
  let ps;
  try {
    ps = pseudosOf(selector);
  } catch (_) {
    return { error: 'css-syntax' };
  }
  const states = [];
  let out = '';
  let at = 0;
  for (const p of ps) {
    if (p.element) return { error: 'css-unsupported-pseudo-element' };
    if (!hasOwn(ALLOWED, p.name)) {
      if (isValid(p.text)) return { error: 'css-unsupported-pseudo' };
      continue;
    }
    if (!p.fn && STATE_PSEUDOS.indexOf(p.name) >= 0) {
      if (states.indexOf(p.name) < 0) states.push(p.name);
      out += selector.slice(at, p.start) + '[' + stateAttr(salt || 'state', p.name) + ']';
      at = p.end;
    }
  }
  out += selector.slice(at);
  return { ok: { selector: out, states: states } };
}
