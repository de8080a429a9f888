// CSS search over plain inert trees (dom/inert-tree.js + dom/css-match.js): the pseudo-class allowlist,
// the css-select adapter, and each privacy rule of the inert copy on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInert, HTML_NS, valueIsEditable } from '../src/dom/inert-tree.js';
import { selectInert, checkSelector } from '../src/dom/css-match.js';

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
const ids = (r) => r.matches.map((m) => m.attribs.id || m.name);
const doc = (body) => ({ children: [E('html', {}, [E('head'), E('body', {}, body)])] });
const sel = (tree, s, max = 100, opts = { document: true }) => selectInert(s, buildInert(tree, reader, opts).root, max);

test('the allowlist: spec pseudo-classes parse; :hover, :active, :visited, pseudo-elements, namespaces, nested :has are refused', () => {
  for (const s of [
    ':scope > a',
    ':root',
    'a:empty',
    ':is(a, b):where(.x)',
    'a:not(:has(> b))',
    'li:nth-child(2n+1)',
    'li:nth-last-of-type(1)',
    'input:checked:enabled:required',
    ':read-only',
    ':focus-visible',
    ':focus-within',
    ':indeterminate',
    ':optional',
    ':read-write',
    ':disabled',
    ':first-child:last-child:only-child',
    ':only-of-type:first-of-type:last-of-type',
  ])
    assert.ok(checkSelector(s).ok, s);
  for (const s of [
    'a:hover',
    'a:active',
    'a:visited',
    'a:link',
    'a:target',
    'p::before',
    'svg|rect',
    ':has(:has(a))',
    '> a',
    'a:contains(x)',
    'a:first',
    '',
    'a[',
    ':lang(en)',
  ])
    assert.ok(checkSelector(s).error, s);
  assert.ok(checkSelector('a'.repeat(512)).ok);
  assert.ok(checkSelector('a'.repeat(513)).error);
});

test('document scope: :scope and :root are the document element, results in document order, no descent past the tree given', () => {
  const t = doc([E('div', { id: 'a' }, [E('p', { id: 'b' })]), E('p', { id: 'c' })]);
  assert.deepEqual(ids(sel(t, ':scope')), ['html']);
  assert.deepEqual(ids(sel(t, ':root')), ['html']);
  assert.deepEqual(ids(sel(t, ':scope > body')), ['body']);
  assert.deepEqual(ids(sel(t, 'p')), ['b', 'c']);
  assert.deepEqual(ids(sel(t, 'div:has(> p)')), ['a']);
  assert.deepEqual(ids(sel(t, 'body > :nth-child(2)')), ['c']);
  assert.deepEqual(ids(sel(t, ':is(#c, #a)')), ['a', 'c']);
  assert.deepEqual(ids(sel(t, 'p', 1)), ['b']);
  assert.equal(sel(t, 'p', 1).more, true);
});

test('shadow-root scope: no element is :scope or :root; top-level children are first children of the root', () => {
  const sr = { children: [E('div', { id: 'a' }, [E('b', { id: 'b' })]), E('i', { id: 'i' })] };
  const o = { document: false };
  assert.deepEqual(ids(sel(sr, ':scope', 10, o)), []);
  assert.deepEqual(ids(sel(sr, ':scope > div', 10, o)), []);
  assert.deepEqual(ids(sel(sr, ':root', 10, o)), []);
  assert.deepEqual(ids(sel(sr, '* > div', 10, o)), []);
  assert.deepEqual(ids(sel(sr, ':first-child', 10, o)), ['a', 'b']);
  assert.deepEqual(ids(sel(sr, 'div > b', 10, o)), ['b']);
});

test('tag and attribute names are case-insensitive for HTML; type attribute values are case-insensitive', () => {
  const t = doc([E('input', { id: 'x', TYPE: 'CheckBox', 'data-Q': 'v' })]);
  assert.deepEqual(ids(sel(t, 'INPUT[type=checkbox]')), ['x']);
  assert.deepEqual(ids(sel(t, '[data-q=v]')), ['x']);
  assert.deepEqual(ids(sel(t, '[data-q=V]')), []);
});

test('of-type counts namespace and local name: an SVG <a> is another type than an HTML <a>', () => {
  const SVG = 'http://www.w3.org/2000/svg';
  const t = doc([E('a', { id: 'h1' }), E('a', { id: 's1' }, [], { ns: SVG }), E('a', { id: 'h2' })]);
  assert.deepEqual(ids(sel(t, 'a:first-of-type')), ['h1', 's1']);
  assert.deepEqual(ids(sel(t, 'a:last-of-type')), ['s1', 'h2']);
  assert.deepEqual(ids(sel(t, 'a:only-of-type')), ['s1']);
  assert.deepEqual(ids(sel(t, 'a:nth-of-type(2)')), ['h2']);
});

test('privacy: an excluded subtree is absent, so it counts for no sibling position, :has or :empty', () => {
  const t = doc([E('div', { id: 'a' }, [E('span', { id: 'secret' }, [T('pw')], { ex: true })]), E('p', { id: 'p' })]);
  assert.deepEqual(ids(sel(t, '#secret')), []);
  assert.deepEqual(ids(sel(t, 'div:empty')), ['a']);
  assert.deepEqual(ids(sel(t, 'div:has(span)')), []);
  const u = doc([E('span', { id: 'x' }, [], { ex: true }), E('p', { id: 'p' })]);
  assert.deepEqual(ids(sel(u, 'p:first-child')), ['p']);
});

test('privacy: a redacted element keeps its place and state but has no attributes or text', () => {
  const t = doc([
    E('div', { id: 'r', class: 'k' }, [T('name'), E('b', { id: 'inner' })], { red: true, st: { disabled: true } }),
    E('p', { id: 'p' }),
  ]);
  assert.deepEqual(sel(t, '#r').matches, []);
  assert.deepEqual(sel(t, '.k').matches, []);
  assert.deepEqual(sel(t, '#inner').matches, [], 'attributes below a redacted element are gone too');
  assert.equal(sel(t, 'div:has(> b)').matches.length, 1, 'the element and its children stay');
  assert.equal(sel(t, 'div:disabled').matches.length, 1, 'live state stays');
  assert.deepEqual(ids(sel(t, 'p:nth-child(2)')), ['p'], 'its sibling position stays');
  const v = doc([E('div', { id: 'only-text' }, [T('x')], { red: true })]);
  assert.equal(sel(v, 'div:empty').matches.length, 1, 'no text: a redacted element holding only text is :empty');
});

test('privacy: editable values are absent (text input value, textarea and contenteditable text); safe values stay', () => {
  const t = doc([
    E('input', { id: 't', type: 'text', value: 'typed' }),
    E('input', { id: 'n', value: 'typed' }),
    E('input', { id: 'c', type: 'checkbox', value: 'yes' }),
    E('input', { id: 'b', type: 'submit', value: 'Go' }),
    E('textarea', { id: 'ta' }, [T('draft')]),
    E('div', { id: 'ce', contenteditable: 'true' }, [T('draft')]),
    E('option', { id: 'o', value: 'v1' }),
  ]);
  assert.deepEqual(ids(sel(t, '[value]')), ['c', 'b', 'o']);
  assert.deepEqual(ids(sel(t, '[value=typed]')), []);
  assert.deepEqual(ids(sel(t, 'textarea:empty, div:empty')), ['ta', 'ce']);
  assert.deepEqual(ids(sel(t, '[type=text]')), ['t'], 'the type attribute itself stays');
});

test('state pseudo-classes answer from the captured live state, not from attributes', () => {
  const t = doc([
    E('input', { id: 'a', type: 'checkbox', checked: '' }, [], { st: { checked: false } }),
    E('input', { id: 'b', type: 'checkbox' }, [], {
      st: { checked: true, focus: true, 'focus-visible': true, 'focus-within': true },
    }),
  ]);
  assert.deepEqual(ids(sel(t, ':checked')), ['b']);
  assert.deepEqual(ids(sel(t, ':not(:checked)')).includes('a'), true);
  assert.deepEqual(ids(sel(t, 'input:focus')), ['b']);
  assert.deepEqual(ids(sel(t, ':focus-visible')), ['b']);
});

test('the node budget cuts the copy and says so', () => {
  const many = [];
  for (let i = 0; i < 50; i++) many.push(E('p', { id: 'p' + i }));
  const b = buildInert(doc(many), reader, { document: true, maxNodes: 10 });
  assert.equal(b.cut, true);
});

test(':nth-child(An+B of S) counts only the siblings matching S, and S is held to the allowlist', () => {
  const t = doc([
    E('p', { id: 'p1', class: 'x' }),
    E('p', { id: 'p2' }),
    E('p', { id: 'p3', class: 'x' }),
    E('p', { id: 'p4', class: 'x' }),
  ]);
  assert.deepEqual(ids(sel(t, ':nth-child(2 of .x)')), ['p3']);
  assert.deepEqual(ids(sel(t, ':nth-last-child(1 of .x)')), ['p4']);
  assert.deepEqual(ids(sel(t, 'p:nth-child(odd of .x)')), ['p1', 'p4']);
  assert.deepEqual(ids(sel(t, 'p:nth-child(2)')), ['p2']);
  assert.ok(checkSelector(':nth-child(2 of a:hover)').error);
});

test(':empty counts white space as text (as Chromium), :is() and :where() empty match nothing, the s flag is refused', () => {
  const t = doc([E('p', { id: 'a' }), E('p', { id: 'b' }, [T(' ')]), E('p', { id: 'c' }, [T('')])]);
  assert.deepEqual(ids(sel(t, 'p:empty')), ['a', 'c']);
  assert.deepEqual(ids(sel(t, ':is()')), []);
  assert.deepEqual(ids(sel(t, 'p:where( )')), []);
  assert.ok(checkSelector('[a=b s]').error);
  assert.ok(checkSelector('[a=b i]').ok);
});
