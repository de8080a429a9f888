// Role rules that need no layout (spec: summary.role — explicit first token, implicit role, else
// generic), interactive promotion targets and ARIA tri-states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roleFor, isInteractiveElement, triState, NAME_FROM_CONTENT } from '../src/roles.js';

const role = (ln, attrs = {}) => roleFor(ln, (n) => (n in attrs ? attrs[n] : null), (n) => n in attrs);

test('an explicit role wins: its first token, lower-cased, at most 256 bytes', () => {
  assert.equal(role('div', { role: 'button' }), 'button');
  assert.equal(role('div', { role: '  Tab  link ' }), 'tab');
  assert.equal(role('button', { role: 'switch' }), 'switch');
  assert.equal(role('div', { role: 'x'.repeat(300) }).length, 256);
  assert.equal(role('button', { role: '   ' }), 'button', 'a blank role falls back to the implicit one');
});

test('links and areas need href; images with alt="" are presentation', () => {
  assert.equal(role('a', { href: '/x' }), 'link');
  assert.equal(role('a', { href: '' }), 'link');
  assert.equal(role('a'), 'generic');
  assert.equal(role('area', { href: '#' }), 'link');
  assert.equal(role('img', { alt: '' }), 'presentation');
  assert.equal(role('img'), 'img');
  assert.equal(role('img', { alt: 'Logo' }), 'img');
});

test('a section is a region only when labelled', () => {
  assert.equal(role('section', { 'aria-label': 'News' }), 'region');
  assert.equal(role('section', { 'aria-labelledby': 'h' }), 'region');
  assert.equal(role('section'), 'generic');
});

test('select: listbox when multiple or size > 1, else combobox', () => {
  assert.equal(role('select'), 'combobox');
  assert.equal(role('select', { size: '1' }), 'combobox');
  assert.equal(role('select', { size: '4' }), 'listbox');
  assert.equal(role('select', { multiple: '' }), 'listbox');
  assert.equal(role('select', { size: 'x' }), 'combobox');
});

test('input types map to their roles; unknown or missing types are textboxes', () => {
  const cases = { checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
    submit: 'button', reset: 'button', button: 'button', image: 'button', email: 'textbox', tel: 'textbox', url: 'textbox',
    text: 'textbox', date: 'textbox', CHECKBOX: 'checkbox' };
  for (const [type, want] of Object.entries(cases)) assert.equal(role('input', { type }), want, type);
  assert.equal(role('input'), 'textbox');
});

test('implicit roles of the table, and generic for everything else', () => {
  const cases = { button: 'button', nav: 'navigation', main: 'main', header: 'banner', footer: 'contentinfo', aside: 'complementary',
    form: 'form', table: 'table', tr: 'row', td: 'cell', th: 'columnheader', ul: 'list', ol: 'list', li: 'listitem', dialog: 'dialog',
    details: 'group', summary: 'button', option: 'option', progress: 'progressbar', meter: 'meter', textarea: 'textbox',
    article: 'article', p: 'paragraph', h1: 'heading', h6: 'heading', hr: 'separator', fieldset: 'group', figure: 'figure',
    output: 'status', menu: 'list', html: 'document', body: 'generic', 'wf-html': 'document', 'wf-body': 'generic',
    label: 'generic', iframe: 'document', search: 'search', blockquote: 'blockquote', code: 'code', strong: 'strong', em: 'emphasis',
    div: 'generic', span: 'generic', 'x-widget': 'generic' };
  for (const [ln, want] of Object.entries(cases)) assert.equal(role(ln), want, ln);
});

test('interactive elements: controls, links with href, interactive ARIA roles (first token)', () => {
  const has = (attrs) => (n) => n in attrs;
  for (const ln of ['button', 'select', 'textarea', 'input', 'summary', 'option']) assert.equal(isInteractiveElement(ln, null, has({})), true, ln);
  assert.equal(isInteractiveElement('a', null, has({ href: '/' })), true);
  assert.equal(isInteractiveElement('a', null, has({})), true, 'an <a> counts as interactive by name');
  assert.equal(isInteractiveElement('label', null, has({})), false);
  assert.equal(isInteractiveElement('div', null, has({})), false);
  assert.equal(isInteractiveElement('div', 'button', has({})), true);
  assert.equal(isInteractiveElement('span', ' tab extra', has({})), true);
  assert.equal(isInteractiveElement('div', 'presentation', has({})), false);
  assert.equal(isInteractiveElement('div', 'region button', has({})), false);
});

test('tri-state ARIA values and roles named from content', () => {
  assert.equal(triState('true'), true);
  assert.equal(triState('false'), false);
  assert.equal(triState('mixed'), 'mixed');
  assert.equal(triState('TRUE'), undefined);
  assert.equal(triState(null), undefined);
  assert.ok(NAME_FROM_CONTENT.button && NAME_FROM_CONTENT.link && NAME_FROM_CONTENT.heading);
  assert.ok(!NAME_FROM_CONTENT.textbox && !NAME_FROM_CONTENT.generic);
});
