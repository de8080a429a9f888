// Role rules that need no layout (spec: summary.role always present — the explicit role's first
// token, else the element's implicit role, else `generic`), which roles take their name from
// content, which elements count as interactive for candidate promotion, and tri-state ARIA values.
// DOM-free: the caller passes attribute accessors.
import { cutBytes } from '../core/util.js';

const IMPLICIT_ROLE = {
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
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
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
  img: 'img',
  iframe: 'document',
  search: 'search',
  blockquote: 'blockquote',
  code: 'code',
  strong: 'strong',
  em: 'emphasis',
};
const INPUT_ROLE = {
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
};

// The role a page declared: the role attribute's first token, else the role a custom element set on
// its ElementInternals (`internals.role`), lower-cased, at most 256 bytes; null when none.
export function explicitRoleFor(get, internalRole) {
  const explicit = get('role');
  if (explicit && explicit.trim()) return cutBytes(explicit.trim().split(/\s+/)[0].toLowerCase(), 256);
  if (typeof internalRole === 'string' && internalRole.trim())
    return cutBytes(internalRole.trim().split(/\s+/)[0].toLowerCase(), 256);
  return null;
}
// The element's implicit (native) role.
export function implicitRoleFor(ln, get, has) {
  if (ln === 'a' || ln === 'area') return has('href') ? 'link' : 'generic';
  if (ln === 'img') return get('alt') === '' ? 'presentation' : 'img';
  if (ln === 'section') return has('aria-label') || has('aria-labelledby') ? 'region' : 'generic';
  if (ln === 'select') return has('multiple') || parseInt(get('size') || '1', 10) > 1 ? 'listbox' : 'combobox';
  if (ln === 'input') {
    const t = (get('type') || 'text').toLowerCase();
    return INPUT_ROLE[t] || 'textbox';
  }
  return IMPLICIT_ROLE[ln] || 'generic';
}
// ln: the element's localName; get(name): attribute value or null; has(name): attribute present;
// internalRole: the role a custom element set on its ElementInternals (`internals.role`), or null.
// Precedence as in Chromium: the host's role attribute, then the internals' default role, then the
// element's implicit role. (The required-context check is applied by the caller, which knows the
// ancestors: requiredContextAllows.)
export function roleFor(ln, get, has, internalRole) {
  return explicitRoleFor(get, internalRole) || implicitRoleFor(ln, get, has);
}

// ARIA required context as Chromium enforces it (measured on Chromium 156: an `option` outside a
// listbox, a `treeitem` outside a tree, a `listitem` outside a list is not that role; other roles
// such as tab, menuitem, row, cell, gridcell keep their role anywhere). The nearest flat-tree
// ancestor whose role is not generic/none/presentation must be one of the context roles (a `group`
// is enough); otherwise the declared role is dropped and the element has its implicit role.
export const REQUIRED_CONTEXT = {
  option: { listbox: 1, group: 1 },
  treeitem: { tree: 1, group: 1 },
  listitem: { list: 1, group: 1, directory: 1 },
};
const CONTEXT_TRANSPARENT = { generic: 1, none: 1, presentation: 1 };
// role: a declared role; ancestorRoles: an iterable of the flat-tree ancestors' computed roles,
// nearest first (consumed lazily, only up to the first one that decides).
export function requiredContextAllows(role, ancestorRoles) {
  const ctx = REQUIRED_CONTEXT[role];
  if (!ctx) return true;
  for (const r of ancestorRoles) {
    if (CONTEXT_TRANSPARENT[r]) continue;
    return !!ctx[r];
  }
  return false;
}

export const NAME_FROM_CONTENT = {
  button: 1,
  link: 1,
  heading: 1,
  tab: 1,
  menuitem: 1,
  menuitemcheckbox: 1,
  menuitemradio: 1,
  option: 1,
  cell: 1,
  columnheader: 1,
  rowheader: 1,
  treeitem: 1,
  switch: 1,
  checkbox: 1,
  radio: 1,
  tooltip: 1,
  row: 1,
};

// Widget roles a user acts on: a hit is promoted to the nearest flat-tree ancestor with one of these
// computed roles (README "Candidate promotion"; the same list as the fidelity oracle's
// harness/src/checks/fidelity.rs INTERACTIVE_ROLES).
export const INTERACTIVE_ROLES = [
  'button',
  'link',
  'checkbox',
  'radio',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'switch',
  'slider',
  'textbox',
  'searchbox',
  'spinbutton',
  'combobox',
  'treeitem',
  'gridcell',
];
const INTERACTIVE_ROLE_SET = {};
INTERACTIVE_ROLES.forEach((r) => {
  INTERACTIVE_ROLE_SET[r] = 1;
});
// An element the user acts on (a hit on its decoration is promoted to it): its computed role (roleFor:
// attribute, ElementInternals, implicit; a `summary` is a `button` here, Chromium's
// `DisclosureTriangle`). ln is kept for callers' clarity.
export function isInteractiveElement(ln, role) {
  return !!(role && INTERACTIVE_ROLE_SET[role]);
}

// ARIA attributes and the ElementInternals properties that carry the same state as a default (an
// attribute on the host wins; ARIA reflection names are irregular, hence a table).
export const ARIA_INTERNALS_PROP = {
  'aria-label': 'ariaLabel',
  'aria-checked': 'ariaChecked',
  'aria-selected': 'ariaSelected',
  'aria-expanded': 'ariaExpanded',
  'aria-pressed': 'ariaPressed',
  'aria-disabled': 'ariaDisabled',
  'aria-required': 'ariaRequired',
  'aria-current': 'ariaCurrent',
  'aria-invalid': 'ariaInvalid',
  'aria-hidden': 'ariaHidden',
  'aria-valuenow': 'ariaValueNow',
  'aria-valuetext': 'ariaValueText',
  'aria-haspopup': 'ariaHasPopup',
  'aria-level': 'ariaLevel',
  'aria-readonly': 'ariaReadOnly',
};
// get(name): the attribute or null; fromInternals(prop): the internals' string property or null.
export function ariaValue(name, get, fromInternals) {
  const v = get(name);
  if (v !== null && v !== undefined) return v;
  const prop = ARIA_INTERNALS_PROP[name];
  if (!prop || !fromInternals) return null;
  const w = fromInternals(prop);
  return typeof w === 'string' ? w : null;
}

// Name from content (accessible name computation, step 2F): the text alternatives of the flat-tree
// children, in order. parts: [{text, inline}] — inline content (text, inline elements) is joined as
// is, a non-inline part (block, flex, inline-block ...) is set apart by spaces, as Chromium does;
// white space is then collapsed.
export function joinNameParts(parts) {
  let out = '';
  for (const p of parts) {
    if (!p || typeof p.text !== 'string' || p.text === '') continue;
    out += p.inline ? p.text : ' ' + p.text + ' ';
  }
  return out.replace(/[ \t\n\f\r]+/g, ' ').trim();
}
// Whether an element's computed `display` keeps it inline in a name from content (`contents`, as of
// a slot, is transparent: its children decide).
export function displayIsInline(display) {
  return display === 'inline' || display === 'contents' || display === '';
}

// ARIA tokens are read trimmed and ASCII case-insensitively (Chromium: aria-selected="TRUE" is true).
export function ariaToken(v) {
  return typeof v === 'string' ? v.trim().toLowerCase() : null;
}
export function triState(v) {
  const t = ariaToken(v);
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'mixed') return 'mixed';
  return undefined;
}

// Which ARIA states Chromium exposes for which roles (measured on Chromium 156 against
// Accessibility.getPartialAXTree; ARIA 1.2 "supported states" where it agrees):
// - checked: always for checkbox, switch, radio, menuitemcheckbox, menuitemradio (no aria-checked
//   = false); only when set for option and treeitem; `mixed` only for checkbox and
//   menuitemcheckbox (a mixed radio or switch is unchecked); never for other roles.
// - pressed: only a button with aria-pressed (a toggle button), mixed allowed.
// - expanded: for the roles below when aria-expanded is true/false (a details summary from `open`).
// - selected: option, tab, treeitem, gridcell, row, columnheader, rowheader when aria-selected
//   (native option: its selectedness); absent means not selected.
// - disabled: any role (aria-disabled="true", or the element matches :disabled).
// - required: only the roles below (aria-required, or a native required control).
// - invalid: aria-invalid "true" (or any unknown token) on any role; "grammar"/"spelling" are not
//   exposed as invalid; native form validity as Chromium reports it (see summary.js).
const CHECKED_ALWAYS = { checkbox: 1, switch: 1, radio: 1, menuitemcheckbox: 1, menuitemradio: 1 };
const CHECKED_WHEN_SET = { option: 1, treeitem: 1 };
const CHECKED_MIXED = { checkbox: 1, menuitemcheckbox: 1 };
const EXPANDED_ROLES = {
  application: 1,
  button: 1,
  checkbox: 1,
  combobox: 1,
  gridcell: 1,
  link: 1,
  listbox: 1,
  menuitem: 1,
  menuitemcheckbox: 1,
  menuitemradio: 1,
  row: 1,
  rowheader: 1,
  columnheader: 1,
  tab: 1,
  treeitem: 1,
  switch: 1,
};
const SELECTED_ROLES = { option: 1, tab: 1, treeitem: 1, gridcell: 1, row: 1, columnheader: 1, rowheader: 1 };
const REQUIRED_ROLES = {
  combobox: 1,
  gridcell: 1,
  listbox: 1,
  radiogroup: 1,
  spinbutton: 1,
  textbox: 1,
  searchbox: 1,
  tree: 1,
  treegrid: 1,
  columnheader: 1,
  rowheader: 1,
};
// role: the computed role; aria(name): the ARIA attribute or ElementInternals value (string) or null;
// native: {disabled, checked (true/false/'mixed' for a native checkbox/radio), selected (native
// option), expanded (summary of a details), required, invalid} — undefined where not native.
// Returns the summary's state object (only meaningful entries), or null when empty.
export function stateFor(role, aria, native) {
  const st = {};
  const n = native || {};
  if (n.disabled === true || ariaToken(aria('aria-disabled')) === 'true') st.disabled = true;
  if (CHECKED_ALWAYS[role] || CHECKED_WHEN_SET[role]) {
    let c = typeof n.checked === 'boolean' || n.checked === 'mixed' ? n.checked : triState(aria('aria-checked'));
    if (c === undefined && CHECKED_ALWAYS[role]) c = false;
    if (c === 'mixed' && !CHECKED_MIXED[role]) c = false;
    if (c !== undefined) st.checked = c;
  }
  if (role === 'button') {
    const p = triState(aria('aria-pressed'));
    if (p !== undefined) st.pressed = p;
  }
  if (EXPANDED_ROLES[role]) {
    let e = triState(aria('aria-expanded'));
    if (e === 'mixed') e = undefined;
    if (e === undefined && typeof n.expanded === 'boolean') e = n.expanded;
    if (e !== undefined) st.expanded = e;
  }
  if (SELECTED_ROLES[role]) {
    const s = typeof n.selected === 'boolean' ? n.selected : triState(aria('aria-selected'));
    if (s === true || s === false) st.selected = s;
  }
  if (REQUIRED_ROLES[role] && (n.required === true || ariaToken(aria('aria-required')) === 'true')) st.required = true;
  const cur = aria('aria-current');
  const curT = ariaToken(cur);
  if (curT && curT !== 'false') st.current = curT === 'true' ? true : cutBytes(cur.trim(), 64);
  const inv = ariaToken(aria('aria-invalid'));
  if (inv !== null && inv !== '') {
    if (inv !== 'false' && inv !== 'grammar' && inv !== 'spelling') st.invalid = true;
  } else if (n.invalid === true) st.invalid = true;
  return Object.keys(st).length ? st : null;
}
