// CSS search's pure parts: what a selector may be and what the native engine is given
// (dom/css-match.js, with a stand-in for the browser's parser), and each privacy rule of the inert
// copy (dom/inert-tree.js) on plain trees. The matching itself is Chromium's (dom/css-native.js),
// compared with native querySelectorAll end to end (tests/inspection_css.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInert, HTML_NS, valueIsEditable } from '../src/dom/inert-tree.js';
import { checkSelector, pseudosOf, stateAttr, MAX_SELECTOR } from '../src/dom/css-match.js';

// The browser's parser, as far as these tests need it: every text is valid except the ones listed.
const validExcept =
  (...bad) =>
  (t) =>
    !bad.includes(t);
const valid = validExcept();

test('the browser parser decides syntax first: what it throws on is css-syntax, whatever the allowlist says', () => {
  assert.deepEqual(checkSelector(':nth-child(n- 1 2)', validExcept(':nth-child(n- 1 2)')), { error: 'css-syntax' });
  assert.deepEqual(checkSelector('a:hover(', validExcept('a:hover(')), { error: 'css-syntax' });
  assert.deepEqual(checkSelector('', valid), { error: 'css' });
  assert.deepEqual(checkSelector(42, valid), { error: 'css' });
});

test('a selector of 512 characters is judged, one of 513 is refused', () => {
  assert.equal(MAX_SELECTOR, 512);
  assert.ok(checkSelector('a'.repeat(512), valid).ok);
  assert.deepEqual(checkSelector('a'.repeat(513), valid), { error: 'css' });
});

test('the allowlist: the spec pseudo-classes pass; known others and pseudo-elements are refused', () => {
  for (const s of [
    ':scope > a',
    ':root',
    'a:empty',
    ':is(a, b):where(.x)',
    'a:not(:has(> b))',
    'li:nth-child(2n+1 of .x)',
    'li:nth-last-of-type(1)',
    ':first-child:last-child:only-child',
    ':only-of-type:first-of-type:last-of-type',
    ':ROOT',
    ':f\\69 rst-child',
    '[title=":hover"]',
    '[a="x" /* :hover */ i]',
    '&',
    '*|a, |b',
  ])
    assert.ok(checkSelector(s, valid).ok, s);
  for (const [s, e] of [
    ['a:hover', 'css-unsupported-pseudo'],
    ['a:ACTIVE', 'css-unsupported-pseudo'],
    ['a:visit\\65 d', 'css-unsupported-pseudo'],
    [':is(a, :lang(en))', 'css-unsupported-pseudo'],
    [':has(:target)', 'css-unsupported-pseudo'],
    [':nth-child(2 of a:link)', 'css-unsupported-pseudo'],
    ['p::before', 'css-unsupported-pseudo-element'],
    ['p::part(x)', 'css-unsupported-pseudo-element'],
  ])
    assert.deepEqual(checkSelector(s, valid), { error: e }, s);
});

test('a pseudo-class the browser does not know can only be a dropped argument of a forgiving list: accepted', () => {
  // The browser accepted the whole selector but not `:foo` alone: Chromium dropped that argument.
  assert.ok(checkSelector(':is(:foo, .a)', validExcept(':foo')).ok);
  assert.ok(checkSelector(':where(:bar(1), .a)', validExcept(':bar(1)')).ok);
  // Known to the browser (valid alone): refused even there.
  assert.deepEqual(checkSelector(':is(:hover, .a)', validExcept(':foo')), { error: 'css-unsupported-pseudo' });
});

test('state pseudo-classes become the private state attributes, however they are written', () => {
  const at = (p) => '[' + stateAttr('s1', p) + ']';
  const ok = (s) => checkSelector(s, valid, 's1').ok;
  assert.deepEqual(ok('input:checked'), { selector: 'input' + at('checked'), states: ['checked'] });
  assert.deepEqual(ok(':not(:CHECKED), :Focus-Within').selector, ':not(' + at('checked') + '), ' + at('focus-within'));
  assert.deepEqual(ok(':che\\63 ked').states, ['checked']);
  assert.deepEqual(ok(':has(> :disabled:read-only)').states, ['disabled', 'read-only']);
  assert.deepEqual(ok('[title=":checked"]'), { selector: '[title=":checked"]', states: [] });
  assert.deepEqual(ok(':nth-child(1 of :focus)').selector, ':nth-child(1 of ' + at('focus') + ')');
  // The Kelvin sign is not an ASCII `k`: not the state pseudo-class (the browser decides on it).
  assert.deepEqual(checkSelector(':is(:chec\u212Aed, a)', validExcept(':chec\u212Aed'), 's1').ok.states, []);
});

test('pseudosOf: names, functional arguments up to their own closing parenthesis, pseudo-elements', () => {
  const ps = pseudosOf('a:not(:is(b, c:nth-child(2n + 1))):HOVER::before');
  assert.deepEqual(
    ps.map((p) => [p.name, p.fn, p.element, p.text]),
    [
      ['not', true, false, ':not(:is(b, c:nth-child(2n + 1)))'],
      ['is', true, false, ':is(b, c:nth-child(2n + 1))'],
      ['nth-child', true, false, ':nth-child(2n + 1)'],
      ['hover', false, false, ':HOVER'],
      ['before', false, true, '::before'],
    ],
  );
  assert.deepEqual(
    pseudosOf(':is(a').map((p) => p.text),
    [':is(a'],
  );
});

// The inert copy's privacy rules, on plain trees.
const E = (name, attrs = {}, children = [], extra = {}) => ({ k: 'element', name, attrs, children, ...extra });
const T = (t) => ({ k: 'text', t });
const reader = {
  kind: (n) => n.k,
  children: (n) => n.children || [],
  name: (n) => n.name,
  ns: (n) => n.ns || HTML_NS,
  attrs: (n) => Object.entries(n.attrs),
  text: (n) => n.t,
  excluded: (n) => !!n.ex,
  redacted: (n) => !!n.red,
  editable: (n) => n.name === 'textarea' || n.attrs.contenteditable === 'true',
  valueEditable: (n) => valueIsEditable(n.name, n.ns || HTML_NS, n.attrs.type),
  state: (n) => (p) => !!(n.st && n.st[p]),
};
const doc = (body) => ({ children: [E('html', {}, [E('head'), E('body', {}, body)])] });
const body = (t) => buildInert(t, reader, { document: true }).root.children[0].children[1];
const byId = (n, id) => {
  if (n.attribs && n.attribs.id === id) return n;
  for (const c of n.children || []) {
    const f = byId(c, id);
    if (f) return f;
  }
  return null;
};

test('privacy: an excluded subtree is absent, so it counts for no sibling position, :has or :empty', () => {
  const b = body(
    doc([E('div', { id: 'a' }, [E('span', { id: 'secret' }, [T('pw')], { ex: true })]), E('p', { id: 'p' })]),
  );
  assert.equal(byId(b, 'secret'), null);
  assert.deepEqual(byId(b, 'a').children, []);
  assert.deepEqual(
    b.children.map((c) => c.attribs.id),
    ['a', 'p'],
  );
});

test('privacy: a redacted element keeps its place and state but has no attributes or text', () => {
  const b = body(
    doc([
      E('div', { id: 'r', class: 'k' }, [T('name'), E('b', { id: 'inner' })], { red: true, st: { disabled: true } }),
      E('p', { id: 'p' }),
    ]),
  );
  const r = b.children[0];
  assert.deepEqual(Object.keys(r.attribs), []);
  assert.deepEqual(
    r.children.map((c) => [c.type, c.name, Object.keys(c.attribs)]),
    [['tag', 'b', []]],
    'no text; attributes below a redacted element are gone too',
  );
  assert.equal(r.state('disabled'), true, 'live state stays');
  assert.equal(b.children[1].attribs.id, 'p', 'its sibling stays in place');
});

test('privacy: editable values are absent (text input value, textarea and contenteditable text); safe values stay', () => {
  const b = body(
    doc([
      E('input', { id: 't', type: 'text', value: 'typed' }),
      E('input', { id: 'n', value: 'typed' }),
      E('input', { id: 'c', type: 'checkbox', value: 'yes' }),
      E('input', { id: 'b', type: 'submit', value: 'Go' }),
      E('textarea', { id: 'ta' }, [T('draft')]),
      E('div', { id: 'ce', contenteditable: 'true' }, [T('draft'), E('i', { id: 'ci' }, [T('x')])]),
      E('option', { id: 'o', value: 'v1' }),
    ]),
  );
  const val = (id) => byId(b, id).attribs.value;
  assert.deepEqual(['t', 'n', 'c', 'b', 'o'].map(val), [undefined, undefined, 'yes', 'Go', 'v1']);
  assert.equal(byId(b, 't').attribs.type, 'text', 'the type attribute itself stays');
  assert.deepEqual(byId(b, 'ta').children, []);
  assert.deepEqual(
    byId(b, 'ce').children.map((c) => c.type),
    ['tag'],
  );
  assert.deepEqual(byId(b, 'ci').children, []);
});

test('text is kept as it is (white space and empty text decide :empty natively); the copy has no comments', () => {
  const b = body(doc([E('p', { id: 'a' }, [T(' ')]), E('p', { id: 'b' }, [T('')])]));
  assert.deepEqual(
    b.children.map((p) => p.children.map((c) => c.data)),
    [[' '], ['']],
  );
});

test('the node budget cuts the copy and says so', () => {
  const many = [];
  for (let i = 0; i < 50; i++) many.push(E('p', { id: 'p' + i }));
  const b = buildInert(doc(many), reader, { document: true, maxNodes: 10 });
  assert.equal(b.cut, true);
  assert.equal(buildInert(doc(many), reader, { document: true, maxNodes: 60 }).cut, false);
});
