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

// ln: the element's localName; get(name): attribute value or null; has(name): attribute present.
export function roleFor(ln, get, has) {
  const explicit = get('role');
  if (explicit && explicit.trim()) return cutBytes(explicit.trim().split(/\s+/)[0].toLowerCase(), 256);
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

const INTERACTIVE = { button: 1, a: 1, select: 1, textarea: 1, input: 1, summary: 1, label: 0, option: 1 };
const INTERACTIVE_ROLES = { button: 1, link: 1, checkbox: 1, radio: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1,
  menuitemradio: 1, option: 1, switch: 1, slider: 1, textbox: 1, combobox: 1, treeitem: 1, gridcell: 1 };
// An element the user acts on (a hit on its decoration is promoted to it): ln, the role attribute
// (string or null), has(name).
export function isInteractiveElement(ln, role, has) {
  return INTERACTIVE[ln] === 1 || (ln === 'a' && has('href')) || !!(role && INTERACTIVE_ROLES[role.trim().split(/\s+/)[0]]);
}

export function triState(v) { if (v === 'true') return true; if (v === 'false') return false; if (v === 'mixed') return 'mixed'; return undefined; }
