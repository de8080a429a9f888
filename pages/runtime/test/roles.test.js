// Role rules that need no layout (spec: summary.role — explicit first token, implicit role, else
// generic), interactive promotion targets and ARIA tri-states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  roleFor,
  explicitRoleFor,
  implicitRoleFor,
  requiredContextAllows,
  stateFor,
  isInteractiveElement,
  triState,
  NAME_FROM_CONTENT,
  INTERACTIVE_ROLES,
  ariaValue,
  joinNameParts,
  displayIsInline,
} from '../src/dom/roles.js';

const role = (ln, attrs = {}) =>
  roleFor(
    ln,
    (n) => (n in attrs ? attrs[n] : null),
    (n) => n in attrs,
  );

test('an explicit role wins: its first valid token, lower-cased (issue 24: an invalid token is no role)', () => {
  assert.equal(role('div', { role: 'button' }), 'button');
  assert.equal(role('div', { role: '  Tab  link ' }), 'tab');
  assert.equal(role('button', { role: 'switch' }), 'switch');
  assert.equal(role('div', { role: 'x'.repeat(300) }), 'generic', 'an invalid token is not reported as the role');
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
  const cases = {
    checkbox: 'checkbox',
    radio: 'radio',
    range: 'slider',
    number: 'spinbutton',
    search: 'searchbox',
    submit: 'button',
    reset: 'button',
    button: 'button',
    image: 'button',
    email: 'textbox',
    tel: 'textbox',
    url: 'textbox',
    text: 'textbox',
    date: 'generic', // Chromium's internal Date role, no ARIA counterpart (issue 24)
    bogus: 'textbox',
    CHECKBOX: 'checkbox',
  };
  for (const [type, want] of Object.entries(cases)) assert.equal(role('input', { type }), want, type);
  assert.equal(role('input'), 'textbox');
});

test('implicit roles of the table, and generic for everything else', () => {
  const cases = {
    button: 'button',
    nav: 'navigation',
    main: 'main',
    header: 'banner',
    footer: 'contentinfo',
    aside: 'complementary',
    form: 'form',
    table: 'table',
    tr: 'row',
    td: 'cell',
    th: 'columnheader',
    ul: 'list',
    ol: 'list',
    li: 'listitem',
    dialog: 'dialog',
    details: 'group',
    summary: 'button',
    option: 'option',
    progress: 'progressbar',
    meter: 'meter',
    textarea: 'textbox',
    article: 'article',
    p: 'paragraph',
    h1: 'heading',
    h6: 'heading',
    hr: 'separator',
    fieldset: 'group',
    figure: 'figure',
    output: 'status',
    menu: 'list',
    html: 'document',
    body: 'generic',
    'wf-html': 'document',
    'wf-body': 'generic',
    label: 'generic',
    iframe: 'generic', // Chromium's internal Iframe role, no ARIA counterpart (issue 24)
    search: 'search',
    blockquote: 'blockquote',
    code: 'code',
    strong: 'strong',
    em: 'emphasis',
    div: 'generic',
    span: 'generic',
    'x-widget': 'generic',
  };
  for (const [ln, want] of Object.entries(cases)) assert.equal(role(ln), want, ln);
});

test('interactive elements are those whose computed role is a widget role (the oracle list), plus summary', () => {
  const interactive = (ln, attrs = {}, internalRole = null) =>
    isInteractiveElement(
      ln,
      roleFor(
        ln,
        (n) => (n in attrs ? attrs[n] : null),
        (n) => n in attrs,
        internalRole,
      ),
    );
  for (const ln of ['button', 'select', 'textarea', 'input', 'summary', 'option'])
    assert.equal(interactive(ln), true, ln);
  assert.equal(interactive('a', { href: '/' }), true);
  assert.equal(interactive('a'), false, 'an <a> without href is generic, as in Chromium');
  assert.equal(interactive('input', { type: 'search' }), true, 'searchbox');
  assert.equal(interactive('input', { type: 'number' }), true, 'spinbutton');
  assert.equal(
    interactive('select', { multiple: '' }),
    false,
    'listbox is a container, not a widget the oracle promotes to',
  );
  assert.equal(interactive('label'), false);
  assert.equal(interactive('div'), false);
  assert.equal(interactive('div', { role: 'button' }), true);
  assert.equal(interactive('span', { role: ' tab extra' }), true);
  assert.equal(interactive('div', { role: 'presentation' }), false);
  assert.equal(interactive('div', { role: 'region button' }), false);
  assert.equal(interactive('x-tab', {}, 'tab'), true, 'a role set on ElementInternals counts');
  assert.equal(interactive('x-tab', { role: 'presentation' }, 'tab'), false, 'the host attribute wins over internals');
  assert.deepEqual(INTERACTIVE_ROLES.slice().sort(), [
    'button',
    'checkbox',
    'combobox',
    'gridcell',
    'link',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'option',
    'radio',
    'searchbox',
    'slider',
    'spinbutton',
    'switch',
    'tab',
    'textbox',
    'treeitem',
  ]);
});

test('ElementInternals role: used when no role attribute is set, before the implicit role', () => {
  assert.equal(role('x-tab'), 'generic');
  assert.equal(
    roleFor(
      'x-tab',
      () => null,
      () => false,
      'tab',
    ),
    'tab',
  );
  assert.equal(
    roleFor(
      'x-tab',
      () => null,
      () => false,
      '  Switch ',
    ),
    'switch',
  );
  assert.equal(
    roleFor(
      'x-tab',
      () => null,
      () => false,
      '',
    ),
    'generic',
    'an empty internals role is no role',
  );
  assert.equal(
    roleFor(
      'x-tab',
      (n) => (n === 'role' ? 'button' : null),
      (n) => n === 'role',
      'tab',
    ),
    'button',
  );
  assert.equal(
    roleFor(
      'button',
      () => null,
      () => false,
      null,
    ),
    'button',
  );
});

test('ARIA state: the attribute wins, ElementInternals supplies the default', () => {
  const attrs = { 'aria-checked': 'false' };
  const get = (n) => (n in attrs ? attrs[n] : null);
  const internals = {
    ariaChecked: 'true',
    ariaSelected: 'true',
    ariaLabel: 'Tab one',
    ariaHasPopup: 'menu',
    ariaDisabled: null,
  };
  const fromInternals = (p) => internals[p];
  assert.equal(ariaValue('aria-checked', get, fromInternals), 'false');
  assert.equal(ariaValue('aria-selected', get, fromInternals), 'true');
  assert.equal(ariaValue('aria-label', get, fromInternals), 'Tab one');
  assert.equal(ariaValue('aria-haspopup', get, fromInternals), 'menu', 'irregular reflection name ariaHasPopup');
  assert.equal(ariaValue('aria-disabled', get, fromInternals), null);
  assert.equal(ariaValue('aria-selected', get, null), null, 'no internals');
  assert.equal(ariaValue('aria-owns', get, fromInternals), null, 'no string reflection: never read from internals');
});

test('name from content: inline parts join as is, non-inline parts are set apart, white space collapses', () => {
  assert.equal(
    joinNameParts([
      { text: 'Save', inline: true },
      { text: ' changes', inline: true },
    ]),
    'Save changes',
  );
  assert.equal(
    joinNameParts([
      { text: 'Hel', inline: true },
      { text: 'lo', inline: true },
    ]),
    'Hello',
    'no space invented between inline parts',
  );
  assert.equal(
    joinNameParts([
      { text: 'Title', inline: false },
      { text: 'Body', inline: false },
    ]),
    'Title Body',
  );
  assert.equal(
    joinNameParts([
      { text: 'a', inline: true },
      { text: 'b', inline: false },
      { text: 'c', inline: true },
    ]),
    'a b c',
  );
  assert.equal(joinNameParts([{ text: '  \n General \t', inline: true }]), 'General');
  assert.equal(joinNameParts([{ text: '', inline: false }, null, { text: 'x', inline: true }]), 'x');
  assert.equal(joinNameParts([]), '');
  assert.equal(displayIsInline('inline'), true);
  assert.equal(displayIsInline('contents'), true, 'a slot is transparent');
  assert.equal(displayIsInline('inline-block'), false);
  assert.equal(displayIsInline('block'), false);
  assert.equal(displayIsInline('flex'), false);
});

test('tri-state ARIA values and roles named from content', () => {
  assert.equal(triState('true'), true);
  assert.equal(triState('false'), false);
  assert.equal(triState('mixed'), 'mixed');
  // Chromium reads ARIA tokens trimmed and case-insensitively (aria-selected="TRUE" selects a tab).
  assert.equal(triState('TRUE'), true);
  assert.equal(triState(' false '), false);
  assert.equal(triState('yes'), undefined);
  assert.equal(triState(''), undefined);
  assert.equal(triState(null), undefined);
  assert.ok(NAME_FROM_CONTENT.button && NAME_FROM_CONTENT.link && NAME_FROM_CONTENT.heading);
  assert.ok(!NAME_FROM_CONTENT.textbox && !NAME_FROM_CONTENT.generic);
});

// Required context, as measured in Chromium 156 (Accessibility.getPartialAXTree): see roles.js.
test('required context: option needs a listbox or group, treeitem a tree or group, listitem a list or group', () => {
  const allows = (role, ancestors) => requiredContextAllows(role, ancestors);
  assert.equal(allows('option', ['listbox']), true);
  assert.equal(
    allows('option', ['generic', 'none', 'presentation', 'listbox']),
    true,
    'generic-like ancestors are transparent',
  );
  assert.equal(allows('option', ['group']), true, 'a group alone is a context');
  assert.equal(allows('option', []), false, 'no ancestor at all');
  assert.equal(allows('option', ['generic', 'document']), false, 'outside any listbox');
  assert.equal(allows('option', ['combobox']), false, 'a combobox does not own options');
  assert.equal(allows('option', ['menu']), false);
  assert.equal(allows('option', ['list', 'listbox']), false, 'the nearest non-generic ancestor decides');
  assert.equal(allows('option', ['region', 'listbox']), false);
  assert.equal(allows('option', ['option', 'listbox']), false, 'an option inside an option is not one');
  assert.equal(allows('treeitem', ['group']), true);
  assert.equal(allows('treeitem', ['generic', 'tree']), true);
  assert.equal(allows('treeitem', ['document']), false);
  assert.equal(allows('listitem', ['generic', 'list']), true);
  assert.equal(allows('listitem', ['directory']), true);
  assert.equal(allows('listitem', ['generic', 'document']), false);
  for (const free of ['tab', 'menuitem', 'row', 'cell', 'gridcell', 'button', 'menuitemcheckbox'])
    assert.equal(allows(free, ['document']), true, free);
});

test('required context is lazy: ancestors after the deciding one are never read', () => {
  let read = 0;
  function* roles() {
    for (const r of ['generic', 'listbox', 'boom']) {
      read++;
      yield r;
    }
  }
  assert.equal(requiredContextAllows('option', roles()), true);
  assert.equal(read, 2);
  let none = 0;
  function* never() {
    none++;
    yield 'x';
  }
  assert.equal(requiredContextAllows('button', never()), true);
  assert.equal(none, 0);
});

test('explicit and implicit roles are separate: the fallback of a dropped role is the implicit one', () => {
  const get = (attrs) => (n) => (n in attrs ? attrs[n] : null);
  assert.equal(explicitRoleFor(get({ role: ' Option x' }), null), 'option');
  assert.equal(explicitRoleFor(get({}), 'tab'), 'tab');
  assert.equal(explicitRoleFor(get({}), null), null);
  assert.equal(
    implicitRoleFor('li', get({ role: 'option' }), () => true),
    'listitem',
  );
  assert.equal(
    implicitRoleFor('div', get({ role: 'option' }), () => true),
    'generic',
  );
});

test('state as Chromium exposes it per role', () => {
  const st = (role, attrs = {}, native) => stateFor(role, (n) => (n in attrs ? attrs[n] : null), native);
  // checked: always for checkable roles (false by default), only when set for option/treeitem, never elsewhere.
  assert.deepEqual(st('checkbox'), { checked: false });
  assert.deepEqual(st('switch', { 'aria-checked': 'mixed' }), { checked: false }, 'a switch is never mixed');
  assert.deepEqual(st('radio', { 'aria-checked': 'mixed' }), { checked: false });
  assert.deepEqual(st('checkbox', { 'aria-checked': 'mixed' }), { checked: 'mixed' });
  assert.deepEqual(st('menuitemcheckbox', { 'aria-checked': 'mixed' }), { checked: 'mixed' });
  assert.deepEqual(st('checkbox', { 'aria-checked': ' true ' }), { checked: true });
  assert.equal(st('option'), null);
  assert.deepEqual(st('option', { 'aria-checked': 'true' }), { checked: true });
  assert.equal(st('button', { 'aria-checked': 'true' }), null);
  assert.equal(st('menuitem', { 'aria-checked': 'true' }), null);
  assert.deepEqual(
    st('checkbox', { 'aria-checked': 'false' }, { checked: 'mixed' }),
    { checked: 'mixed' },
    'native state wins',
  );
  // pressed: buttons only.
  assert.deepEqual(st('button', { 'aria-pressed': 'mixed' }), { pressed: 'mixed' });
  assert.equal(st('switch', { 'aria-pressed': 'true' }).pressed, undefined);
  // expanded: widget roles, not generic or dialog; empty is absent.
  assert.deepEqual(st('button', { 'aria-expanded': 'false' }), { expanded: false });
  assert.equal(st('button', { 'aria-expanded': '' }), null);
  assert.equal(st('generic', { 'aria-expanded': 'true' }), null);
  assert.equal(st('dialog', { 'aria-expanded': 'true' }), null);
  assert.deepEqual(st('button', {}, { expanded: true }), { expanded: true }, 'a details summary');
  // selected: selectable roles only; native option selectedness.
  assert.deepEqual(st('tab', { 'aria-selected': 'TRUE' }), { selected: true });
  assert.equal(st('button', { 'aria-selected': 'true' }), null);
  assert.equal(st('option', { 'aria-selected': '' }), null);
  assert.deepEqual(st('option', {}, { selected: false }), { selected: false });
  // disabled on any role; required only where supported; invalid tokens.
  assert.deepEqual(st('heading', { 'aria-disabled': 'true' }), { disabled: true });
  assert.deepEqual(st('button', {}, { disabled: true }), { disabled: true });
  assert.equal(st('checkbox', { 'aria-required': 'true' }).required, undefined);
  assert.deepEqual(st('textbox', {}, { required: true }), { required: true });
  assert.deepEqual(st('generic', { 'aria-invalid': 'true' }), { invalid: true });
  assert.equal(st('button', { 'aria-invalid': 'spelling' }), null);
  assert.equal(
    st('textbox', { 'aria-invalid': 'false' }, { invalid: true }),
    null,
    'an explicit aria-invalid="false" wins',
  );
  assert.deepEqual(st('textbox', {}, { invalid: true }), { invalid: true });
  assert.deepEqual(st('link', { 'aria-current': 'page' }), { current: 'page' });
});
