// Role rules that need no layout (spec: summary.role always present — the explicit role's first
// token, else the element's implicit role, else `generic`), which roles take their name from
// content, which elements count as interactive for candidate promotion, and tri-state ARIA values.
// DOM-free: the caller passes attribute accessors.
import { cutBytes } from './util.js';

const IMPLICIT_ROLE = {
  button: 'button', nav: 'navigation', main: 'main', header: 'banner', footer: 'contentinfo', aside: 'complementary',
  form: 'form', table: 'table', tr: 'row', td: 'cell', th: 'columnheader', ul: 'list', ol: 'list', li: 'listitem',
  dialog: 'dialog', details: 'group', summary: 'button', option: 'option', progress: 'progressbar', meter: 'meter',
  textarea: 'textbox', article: 'article', p: 'paragraph', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading',
  h5: 'heading', h6: 'heading', hr: 'separator', fieldset: 'group', figure: 'figure', output: 'status', menu: 'list',
  html: 'document', body: 'generic', 'wf-html': 'document', 'wf-body': 'generic', label: 'generic', img: 'img',
  iframe: 'document', search: 'search', blockquote: 'blockquote', code: 'code', strong: 'strong', em: 'emphasis',
};
const INPUT_ROLE = { checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  submit: 'button', reset: 'button', button: 'button', image: 'button', email: 'textbox', tel: 'textbox',
  url: 'textbox', text: 'textbox' };

// ln: the element's localName; get(name): attribute value or null; has(name): attribute present;
// internalRole: the role a custom element set on its ElementInternals (`internals.role`), or null.
// Precedence as in Chromium: the host's role attribute, then the internals' default role, then the
// element's implicit role.
export function roleFor(ln, get, has, internalRole) {
  const explicit = get('role');
  if (explicit && explicit.trim()) return cutBytes(explicit.trim().split(/\s+/)[0].toLowerCase(), 256);
  if (typeof internalRole === 'string' && internalRole.trim()) return cutBytes(internalRole.trim().split(/\s+/)[0].toLowerCase(), 256);
  if (ln === 'a' || ln === 'area') return has('href') ? 'link' : 'generic';
  if (ln === 'img') return get('alt') === '' ? 'presentation' : 'img';
  if (ln === 'section') return (has('aria-label') || has('aria-labelledby')) ? 'region' : 'generic';
  if (ln === 'select') return (has('multiple') || (parseInt(get('size') || '1', 10) > 1)) ? 'listbox' : 'combobox';
  if (ln === 'input') {
    const t = (get('type') || 'text').toLowerCase();
    return INPUT_ROLE[t] || 'textbox';
  }
  return IMPLICIT_ROLE[ln] || 'generic';
}

export const NAME_FROM_CONTENT = { button: 1, link: 1, heading: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1,
  option: 1, cell: 1, columnheader: 1, rowheader: 1, treeitem: 1, switch: 1, checkbox: 1, radio: 1, tooltip: 1, row: 1 };

// Widget roles a user acts on: a hit is promoted to the nearest flat-tree ancestor with one of these
// computed roles (README "Candidate promotion"; the same list as the fidelity oracle's
// harness/src/checks/fidelity.rs INTERACTIVE_ROLES).
export const INTERACTIVE_ROLES = ['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'switch', 'slider', 'textbox', 'searchbox', 'spinbutton', 'combobox', 'treeitem', 'gridcell'];
const INTERACTIVE_ROLE_SET = {}; INTERACTIVE_ROLES.forEach((r) => { INTERACTIVE_ROLE_SET[r] = 1; });
// An element the user acts on (a hit on its decoration is promoted to it): its computed role (roleFor:
// attribute, ElementInternals, implicit; a `summary` is a `button` here, Chromium's
// `DisclosureTriangle`). ln is kept for callers' clarity.
export function isInteractiveElement(ln, role) {
  return !!(role && INTERACTIVE_ROLE_SET[role]);
}

// ARIA attributes and the ElementInternals properties that carry the same state as a default (an
// attribute on the host wins; ARIA reflection names are irregular, hence a table).
export const ARIA_INTERNALS_PROP = {
  'aria-label': 'ariaLabel', 'aria-checked': 'ariaChecked', 'aria-selected': 'ariaSelected', 'aria-expanded': 'ariaExpanded',
  'aria-pressed': 'ariaPressed', 'aria-disabled': 'ariaDisabled', 'aria-required': 'ariaRequired', 'aria-current': 'ariaCurrent',
  'aria-invalid': 'ariaInvalid', 'aria-hidden': 'ariaHidden', 'aria-valuenow': 'ariaValueNow', 'aria-valuetext': 'ariaValueText',
  'aria-haspopup': 'ariaHasPopup', 'aria-level': 'ariaLevel', 'aria-readonly': 'ariaReadOnly',
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

export function triState(v) { if (v === 'true') return true; if (v === 'false') return false; if (v === 'mixed') return 'mixed'; return undefined; }
