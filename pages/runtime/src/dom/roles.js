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
  iframe: 'generic',
  search: 'search',
  blockquote: 'blockquote',
  code: 'code',
  strong: 'strong',
  em: 'emphasis',
  address: 'group',
  hgroup: 'group',
  optgroup: 'group',
  caption: 'caption',
  datalist: 'listbox',
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
  svg: 'img',
  thead: 'rowgroup',
  tbody: 'rowgroup',
  tfoot: 'rowgroup',
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

// WAI-ARIA 1.2's non-abstract roles, DPUB-ARIA's doc-* and Graphics-ARIA's graphics-* roles, and the
// ARIA 1.3 roles Chromium 156 already maps (comment, mark, suggestion, image, sectionheader,
// sectionfooter): a role attribute token outside this set is not a role (abstract roles such as
// widget or landmark, ARIA 1.2's abstract sectionhead, misspellings, tokens with a zero-width space or
// a control character in them).
export const ARIA_ROLES = {};
(
  'alert alertdialog application article banner blockquote button caption cell checkbox code columnheader ' +
  'combobox comment complementary contentinfo definition deletion dialog directory document emphasis feed ' +
  'figure form generic grid gridcell group heading img image insertion link list listbox listitem log main ' +
  'mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option ' +
  'paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search ' +
  'searchbox sectionfooter sectionheader separator slider spinbutton status strong subscript suggestion ' +
  'superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid ' +
  'treeitem graphics-document graphics-object graphics-symbol doc-abstract doc-acknowledgments ' +
  'doc-afterword doc-appendix doc-backlink doc-biblioentry doc-bibliography doc-biblioref doc-chapter ' +
  'doc-colophon doc-conclusion doc-cover doc-credit doc-credits doc-dedication doc-endnote doc-endnotes ' +
  'doc-epigraph doc-epilogue doc-errata doc-example doc-footnote doc-foreword doc-glossary doc-glossref ' +
  'doc-index doc-introduction doc-noteref doc-notice doc-pagebreak doc-pagefooter doc-pageheader doc-pagelist ' +
  'doc-part doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc'
)
  .split(' ')
  .forEach((r) => {
    ARIA_ROLES[r] = 1;
  });
// Synonyms reported as the role they stand for, as Chromium does: ARIA 1.3's `image` is `img`,
// ARIA 1.2's deprecated `directory` is a `list`.
const ROLE_SYNONYM = { image: 'img', directory: 'list' };
// A role attribute is a list of tokens separated by ASCII white space (a no-break space is not a
// separator): the first token that is a valid, non-abstract role wins, compared ASCII
// case-insensitively; null when none is.
export function firstValidRole(value) {
  if (typeof value !== 'string') return null;
  const tokens = value.split(/[ \t\n\f\r]+/);
  for (const t of tokens) {
    if (!t) continue;
    const r = t.replace(/[A-Z]+/g, (c) => c.toLowerCase());
    if (ARIA_ROLES[r] === 1 && Object.prototype.hasOwnProperty.call(ARIA_ROLES, r)) return ROLE_SYNONYM[r] || r;
  }
  return null;
}
// The role a page declared: the role attribute's first valid token, else the role a custom element
// set on its ElementInternals (`internals.role`, resolved the same way); null when none.
export function explicitRoleFor(get, internalRole) {
  return firstValidRole(get('role')) || firstValidRole(typeof internalRole === 'string' ? internalRole : null);
}
// Presentational role conflict resolution (WAI-ARIA 1.2 §9.3.3, as Chromium 156 applies it): `none`
// / `presentation` is ignored, and the element keeps its implicit role, when the element is
// focusable or carries one of these global ARIA attributes (measured: aria-disabled, aria-invalid,
// aria-haspopup, aria-errormessage, aria-hidden="false" do not count).
export const PRESENTATION_CONFLICT_ATTRS = [
  'aria-atomic',
  'aria-busy',
  'aria-controls',
  'aria-current',
  'aria-describedby',
  'aria-details',
  'aria-flowto',
  'aria-keyshortcuts',
  'aria-label',
  'aria-labelledby',
  'aria-live',
  'aria-owns',
  'aria-relevant',
  'aria-roledescription',
];
export function presentationConflict(has, focusable) {
  if (focusable) return true;
  for (const a of PRESENTATION_CONFLICT_ATTRS) if (has(a)) return true;
  return false;
}
// Roles that are exposed only with an accessible name (WAI-ARIA 1.2: region and form as role
// attributes; HTML-AAM: section, and aside scoped to sectioning content; a native <form> is a form in
// Chromium either way); without one the element has its implicit role.
export const NEEDS_NAME = { region: 1, form: 1 };
// Sectioning content and the roles that scope a header/footer (HTML-AAM: scoped to article, aside,
// main, nav or section it is not the page's banner/contentinfo but Chromium's
// sectionheader/sectionfooter) and an aside (complementary only with a name).
export const SECTIONING_TAGS = { article: 1, aside: 1, main: 1, nav: 1, section: 1 };
export const SECTIONING_ROLES = { article: 1, complementary: 1, main: 1, navigation: 1, region: 1 };
// Text-field types that take a `list` (a combobox then), and types Chromium gives an internal role
// with no ARIA counterpart (compared, and reported, as generic).
const LIST_INPUT = { text: 1, search: 1, email: 1, tel: 1, url: 1 };
const INTERNAL_INPUT = { color: 1, date: 1, 'datetime-local': 1, month: 1, time: 1, week: 1 };
// The element's implicit (native) role (HTML-AAM). ctx (optional, from the DOM-aware caller):
// {sectioned(forAside): inside sectioning content, named(): has an accessible name from author
// attributes, disclosure(): a summary that is its details' first summary child, cell(): the role of a
// td/th/tr/thead/tbody/tfoot/table from its table (layout and presentational tables, grids, header
// scope)}.
export function implicitRoleFor(ln, get, has, ctx) {
  const c = ctx || {};
  if (ln === 'a' || ln === 'area') return has('href') ? 'link' : 'generic';
  if (ln === 'img') return get('alt') === '' && !has('title') ? 'presentation' : 'img';
  if (ln === 'section')
    return (c.named ? c.named() : has('aria-label') || has('aria-labelledby')) ? 'region' : 'generic';
  if (ln === 'select') return has('multiple') || parseInt(get('size') || '1', 10) > 1 ? 'listbox' : 'combobox';
  if (ln === 'input') {
    const t = (get('type') || 'text').toLowerCase();
    const known = INPUT_ROLE[t] || INTERNAL_INPUT[t] || t === 'password' || t === 'file' || t === 'hidden';
    const type = known ? t : 'text';
    if (has('list') && (LIST_INPUT[type] || type === 'text')) return 'combobox';
    if (INTERNAL_INPUT[type]) return 'generic';
    if (type === 'file') return 'button';
    return INPUT_ROLE[type] || 'textbox';
  }
  if (ln === 'header' || ln === 'footer') {
    if (c.sectioned && c.sectioned(false)) return ln === 'header' ? 'sectionheader' : 'sectionfooter';
    return ln === 'header' ? 'banner' : 'contentinfo';
  }
  if (ln === 'aside') return c.sectioned && c.sectioned(true) && !(c.named && c.named()) ? 'generic' : 'complementary';
  if (ln === 'summary') return !c.disclosure || c.disclosure() ? 'button' : 'generic';
  if (c.cell && TABLE_PARTS[ln]) return c.cell();
  return IMPLICIT_ROLE[ln] || 'generic';
}
export const TABLE_PARTS = { table: 1, thead: 1, tbody: 1, tfoot: 1, tr: 1, td: 1, th: 1 };
// ln: the element's localName; get(name): attribute value or null; has(name): attribute present;
// internalRole: the role a custom element set on its ElementInternals (`internals.role`), or null;
// ctx: as implicitRoleFor's, plus focusable() (presentational role conflicts). Precedence as in
// Chromium: the host's role attribute, then the internals' default role, then the element's implicit
// role; `none` / `presentation` with a conflict, and `region` / `form` without a name, fall back to
// the implicit role; `none` on an element whose implicit role is generic is generic (Chromium). (The
// required-context check is applied by the caller, which knows the ancestors: requiredContextAllows.)
export function roleFor(ln, get, has, internalRole, ctx) {
  const declared = explicitRoleFor(get, internalRole);
  const implicit = () => implicitRoleFor(ln, get, has, ctx);
  if (!declared) return implicit();
  if (declared === 'none' || declared === 'presentation') {
    const focusable = ctx && ctx.focusable ? ctx.focusable() : false;
    const own = implicit();
    if (presentationConflict(has, focusable) || own === 'generic') return own;
    return declared;
  }
  if (NEEDS_NAME[declared] && ctx && ctx.named && !ctx.named()) return implicit();
  return declared;
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
  gridcell: 1,
  term: 1,
  math: 1,
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

// ASCII white space (the only white space accname and Chromium collapse: a no-break space stays)
// collapsed to one space and trimmed.
export function asciiCollapse(s) {
  return String(s || '')
    .replace(/[ \t\n\f\r]+/g, ' ')
    .replace(/^ | $/g, '');
}
// Parts of a name from content joined as Chromium joins them (inline parts as they are, other parts
// set apart by spaces), ASCII white space collapsed. keepEdges: one space is kept where the text
// starts or ends with white space (an inline element's content inside its parent's: the space in
// `Beta<span> tip</span>` is rendered, and Chromium's name keeps it); trimmed otherwise.
export function joinName(parts, keepEdges) {
  let out = '';
  for (const p of parts) {
    if (!p || typeof p.text !== 'string' || p.text === '') continue;
    out += p.inline ? p.text : ' ' + p.text + ' ';
  }
  return keepEdges ? out.replace(/[ \t\n\f\r]+/g, ' ') : asciiCollapse(out);
}
// The text CSS generated content contributes (accname 1.2 step 2F.ii): the computed `content` of a
// ::before / ::after, its strings concatenated (`none` / `normal` and non-string items such as
// counters and images give nothing); with an alternative text (`content: "★" / "Rating"`) the
// alternative.
export function pseudoContentText(content) {
  if (typeof content !== 'string' || content === 'none' || content === 'normal' || content === '') return '';
  const strings = [];
  let alt = null;
  const re = /"((?:[^"\\]|\\[\s\S])*)"|'((?:[^'\\]|\\[\s\S])*)'|(\/)/g;
  let m;
  while ((m = re.exec(content))) {
    if (m[3]) {
      alt = [];
      continue;
    }
    const raw = m[1] !== undefined ? m[1] : m[2];
    const text = raw.replace(/\\([0-9a-fA-F]{1,6}) ?|\\([\s\S])/g, (_, hex, ch) =>
      hex ? String.fromCodePoint(parseInt(hex, 16)) : ch,
    );
    (alt || strings).push(text);
  }
  return (alt ? alt : strings).join('');
}
