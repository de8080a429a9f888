// The pure role and name rules of issue 24 (dom/roles.js): role attribute token lists, HTML-AAM
// implicit roles with their context, presentational role conflicts, roles that need a name, and the
// name helpers (ASCII white space, generated content). The DOM walks that use them (dom/accname.js)
// are checked against Chromium's AX tree end to end (harness/src/checks/conformance.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  roleFor,
  firstValidRole,
  implicitRoleFor,
  presentationConflict,
  asciiCollapse,
  joinName,
  pseudoContentText,
  NAME_FROM_CONTENT,
} from '../src/dom/roles.js';

const getter = (attrs) => (n) => (n in attrs ? attrs[n] : null);
const haser = (attrs) => (n) => n in attrs;
const role = (ln, attrs = {}, ctx, internal = null) => roleFor(ln, getter(attrs), haser(attrs), internal, ctx);

test('a role attribute is a token list: the first valid, non-abstract role wins', () => {
  assert.equal(firstValidRole('foo button'), 'button');
  assert.equal(firstValidRole('button link'), 'button');
  assert.equal(firstValidRole('BUTTON'), 'button');
  assert.equal(firstValidRole('  link  '), 'link');
  assert.equal(firstValidRole('widget'), null, 'abstract');
  assert.equal(firstValidRole('structure range'), null, 'both abstract');
  assert.equal(firstValidRole('command checkbox'), 'checkbox');
  assert.equal(firstValidRole('sectionhead'), null, 'abstract in ARIA 1.2');
  assert.equal(firstValidRole('\u200bbutton'), null, 'a zero-width space is part of the token');
  assert.equal(firstValidRole('butt\u200bon link'), 'link');
  assert.equal(firstValidRole('\u0007checkbox'), null, 'a control character is part of the token');
  assert.equal(firstValidRole('switch\u00a0button'), null, 'a no-break space is not a separator');
  assert.equal(firstValidRole(''), null);
  assert.equal(firstValidRole('constructor'), null);
  assert.equal(firstValidRole('image'), 'img', 'ARIA 1.3 synonym');
  assert.equal(firstValidRole('directory'), 'list', 'deprecated, a list in Chromium');
  assert.equal(firstValidRole('doc-chapter'), 'doc-chapter');
  assert.equal(firstValidRole('graphics-document'), 'graphics-document');
  assert.equal(role('h3', { role: 'foo' }), 'heading', 'no valid token: the implicit role');
  assert.equal(role('div', {}, undefined, 'nonsense switch'), 'switch', 'ElementInternals roles resolve the same way');
});

test('HTML-AAM implicit roles beyond generic', () => {
  const cases = {
    address: 'group',
    hgroup: 'group',
    optgroup: 'group',
    dd: 'definition',
    dt: 'term',
    dfn: 'term',
    del: 'deletion',
    s: 'deletion',
    ins: 'insertion',
    mark: 'mark',
    sub: 'subscript',
    sup: 'superscript',
    time: 'time',
    caption: 'caption',
    svg: 'img',
    thead: 'rowgroup',
    tfoot: 'rowgroup',
    datalist: 'listbox',
    math: 'generic', // Chromium's MathMLMath, no ARIA counterpart
    span: 'generic',
  };
  for (const [ln, want] of Object.entries(cases)) assert.equal(implicitRoleFor(ln, getter({}), haser({})), want, ln);
  assert.equal(role('input', { type: 'text', list: 'l' }), 'combobox');
  assert.equal(role('input', { type: 'email', list: 'l' }), 'combobox');
  assert.equal(role('input', { type: 'color' }), 'generic');
  assert.equal(role('input', { type: 'file' }), 'button');
  assert.equal(role('img', { alt: '', title: 't' }), 'img', 'a title keeps an empty-alt image an image (Chromium)');
});

test('context-dependent roles: sectioning content, names, the disclosure summary', () => {
  const inSection = { sectioned: () => true, named: () => false };
  const top = { sectioned: () => false, named: () => false };
  assert.equal(role('header', {}, inSection), 'sectionheader');
  assert.equal(role('footer', {}, inSection), 'sectionfooter');
  assert.equal(role('header', {}, top), 'banner');
  assert.equal(role('footer', {}, top), 'contentinfo');
  assert.equal(role('aside', {}, inSection), 'generic');
  assert.equal(role('aside', {}, { sectioned: () => true, named: () => true }), 'complementary');
  assert.equal(role('aside', {}, top), 'complementary');
  assert.equal(role('section', {}, top), 'generic');
  assert.equal(role('section', {}, { named: () => true }), 'region');
  assert.equal(role('form', {}, top), 'form', 'a native form is a form without a name (Chromium)');
  assert.equal(role('summary', {}, { disclosure: () => false }), 'generic');
  assert.equal(role('summary', {}, { disclosure: () => true }), 'button');
  assert.equal(role('td', {}, { cell: () => 'gridcell' }), 'gridcell');
});

test('presentational role conflicts and roles that need a name', () => {
  assert.equal(role('button', { role: 'none' }, { focusable: () => true }), 'button');
  assert.equal(role('h2', { role: 'presentation', 'aria-label': 'x' }, { focusable: () => false }), 'heading');
  assert.equal(role('h2', { role: 'none', 'aria-describedby': 'd' }, { focusable: () => false }), 'heading');
  assert.equal(role('h2', { role: 'none', 'aria-disabled': 'true' }, { focusable: () => false }), 'none');
  assert.equal(role('h2', { role: 'none', 'aria-hidden': 'false' }, { focusable: () => false }), 'none');
  assert.equal(role('h2', { role: 'none' }, { focusable: () => false }), 'none');
  assert.equal(role('div', { role: 'none' }, { focusable: () => false }), 'generic', 'none on a generic element');
  assert.ok(presentationConflict(() => false, true));
  assert.ok(!presentationConflict((a) => a === 'aria-invalid', false));
  assert.equal(role('div', { role: 'region' }, { named: () => false }), 'generic');
  assert.equal(role('div', { role: 'region' }, { named: () => true }), 'region');
  assert.equal(role('div', { role: 'form' }, { named: () => false }), 'generic');
});

test('names keep no-break spaces, collapse ASCII white space, join blocks apart', () => {
  assert.equal(asciiCollapse('  a \t\n b  '), 'a b');
  assert.equal(asciiCollapse('\u00a0a\u00a0b'), '\u00a0a\u00a0b');
  assert.equal(
    joinName([
      { text: 'Block', inline: false },
      { text: 'Text', inline: true },
    ]),
    'Block Text',
  );
  assert.equal(
    joinName([
      { text: 'a', inline: true },
      { text: 'b', inline: true },
    ]),
    'ab',
  );
  assert.ok(!NAME_FROM_CONTENT.row, 'Chromium gives a row no name from content');
  assert.ok(NAME_FROM_CONTENT.gridcell && NAME_FROM_CONTENT.term);
});

test('CSS generated content contributes its strings, or its alternative text', () => {
  assert.equal(pseudoContentText('"Before "'), 'Before ');
  assert.equal(pseudoContentText('none'), '');
  assert.equal(pseudoContentText('normal'), '');
  assert.equal(pseudoContentText('"a" "b"'), 'ab');
  assert.equal(pseudoContentText('"\\2605" / "Rating"'), 'Rating');
  assert.equal(pseudoContentText('"say \\"hi\\""'), 'say "hi"');
  assert.equal(pseudoContentText('counter(x)'), '');
});
