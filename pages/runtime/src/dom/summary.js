// The accessibility summary of a candidate (spec: summary — role always present; name from
// aria-labelledby, aria-label, labels, alt, button value, content, title; safe text of the subtree,
// 160 scalar values, skipping hidden/excluded/redacted/editable content; value only for range,
// color, single selects, progress, meter; state omitted when empty).
import { nNodeValue, nGetCS, nMatches } from '../core/natives.js';
import { TEXT_MAX } from '../core/constants.js';
import { cutBytes, cutScalars, normText } from '../core/util.js';
import { attr, hasAttr, localName, nodeType, parentOf } from '../core/dom-reads.js';
import { privacyOf, selfExcluded, selfRedacted, labelsSensitive } from './privacy.js';
import { stateFor, joinNameParts, joinName, displayIsInline, asciiCollapse } from './roles.js';
import { flatChildren } from './flat-tree.js';
import { roleOf, nameOf, aria } from './accname.js';

// Role and name: one implementation (accname.js), re-exported for the summary's callers.
export { roleOf, nameOf, aria } from './accname.js';
const SKIP_TEXT = {
  script: 1,
  style: 1,
  template: 1,
  noscript: 1,
  'wf-head': 1,
  head: 1,
  title: 1,
  textarea: 1,
  input: 1,
  select: 1,
  iframe: 1,
};
export function isEditable(el) {
  const ce = attr(el, 'contenteditable');
  return ce !== null && ce.toLowerCase() !== 'false';
}
// Inside editable content (an editing host or an element in one): editable values are unavailable.
function inEditable(el) {
  if (isEditable(el)) return true;
  try {
    return el.isContentEditable === true;
  } catch (_) {
    return false;
  }
}
// The safe text of a subtree as rendered: the text of its flat-tree descendants (a shadow host's
// shadow tree, a slot's assigned nodes or its fallback content), in order, skipping hidden (aria-hidden,
// `hidden`, display: none, visibility: hidden), excluded, redacted and editable content, form
// controls and labels of sensitive controls; inline content is joined as it is, blocks are set apart
// by a space (the same walk as the name from content, but only text: no aria-label, alt or title).
export function collectText(el, limit) {
  return cutScalars(joinNameParts(contentParts(el, { nodes: 4000 }, 0, false)), limit).trim();
}
export function textOfSafe(el) {
  const p = privacyOf(el);
  if (p.excluded || p.redacted || labelsSensitive(el)) return '';
  return cutScalars(nameFromContent(el), TEXT_MAX);
}
function hiddenFromNames(el) {
  const h = aria(el, 'aria-hidden');
  if (h !== null && h.trim().toLowerCase() === 'true') return true;
  if (hasAttr(el, 'hidden')) return true;
  return false;
}
// content-visibility: hidden (also hidden="until-found") skips an element's contents.
function displayOf(el) {
  try {
    const cs = nGetCS(el);
    return {
      display: cs.display,
      hidden:
        cs.display === 'none' ||
        cs.visibility === 'hidden' ||
        cs.visibility === 'collapse' ||
        cs.contentVisibility === 'hidden',
    };
  } catch (_) {
    return { display: 'inline', hidden: false };
  }
}
// Name from content (accessible name computation, step 2F, as Chromium computes it): the text
// alternatives of the element's flat-tree children (a shadow host's shadow tree, a slot's assigned
// nodes or its fallback content), skipping hidden, excluded, redacted and editable content; a child
// element contributes its aria-label, an image its alt, else its own content, else its title.
export function nameFromContent(el) {
  const budget = { nodes: 4000 };
  return joinNameParts(contentParts(el, budget, 0, true));
}
// names: true for the name from content (a child's aria-label, an image's alt, a title count),
// false for the rendered text only.
function contentParts(n, budget, depth, names) {
  const parts = [];
  if (depth > 64) return parts;
  let kids = flatChildren(n);
  // A closed <details> renders only its first <summary> (the rest is in the user-agent slot that
  // is not rendered).
  if (localName(n) === 'details' && !hasAttr(n, 'open')) {
    const sum = kids.find((k) => nodeType(k) === 1 && localName(k) === 'summary');
    kids = sum ? [sum] : [];
  }
  for (let i = 0; i < kids.length && budget.nodes-- > 0; i++) {
    const c = kids[i];
    const t = nodeType(c);
    if (t === 3) {
      parts.push({ text: nNodeValue.call(c) || '', inline: true });
      continue;
    }
    if (t !== 1) continue;
    const ln = localName(c);
    if (
      SKIP_TEXT[ln] ||
      selfExcluded(c) ||
      selfRedacted(c) ||
      isEditable(c) ||
      labelsSensitive(c) ||
      hiddenFromNames(c)
    )
      continue;
    const d = displayOf(c);
    if (d.hidden) continue;
    const inline = displayIsInline(d.display);
    if (ln === 'br') {
      parts.push({ text: ' ', inline: true });
      continue;
    }
    if (names) {
      const al = normText(aria(c, 'aria-label'));
      if (al) {
        parts.push({ text: al, inline });
        continue;
      }
      if (ln === 'img' || ln === 'area') {
        const a = normText(attr(c, 'alt'));
        if (a) parts.push({ text: a, inline });
        continue;
      }
    }
    // With its edges: the space of `Beta<span> tip</span>` is rendered (roles.js joinName).
    let text = joinName(contentParts(c, budget, depth + 1, names), true);
    if (!text.trim() && names) text = normText(attr(c, 'title')) || text;
    if (text) parts.push({ text, inline });
  }
  return parts;
}
// State as Chromium's accessibility tree exposes it for the element's computed role (roles.js
// stateFor): ARIA attributes, else the same state on the element's ElementInternals, and the native
// state of form controls (disabled via :disabled, incl. fieldsets and form-associated custom
// elements; a checkbox/radio's checkedness; an option's selectedness; a details summary's `open`;
// `required`; validity as Chromium reports it: a text field with an empty value is not invalid).
export function stateOf(el, role) {
  const ln = localName(el);
  const native = {};
  try {
    native.disabled = matchesDisabled(el);
    if (ln === 'input') {
      const t = (attr(el, 'type') || '').toLowerCase();
      if (t === 'checkbox' || t === 'radio')
        native.checked = t === 'checkbox' && el.indeterminate ? 'mixed' : !!el.checked;
    }
    if (ln === 'option') native.selected = !!el.selected;
    if (ln === 'summary') {
      const p = parentOf(el);
      if (p && localName(p) === 'details') native.expanded = hasAttr(p, 'open');
    }
    if ((ln === 'input' || ln === 'select' || ln === 'textarea') && el.required === true) native.required = true;
    if (
      (ln === 'input' || ln === 'select' || ln === 'textarea') &&
      el.willValidate === true &&
      el.validity &&
      el.validity.valid === false
    ) {
      const textField = ln === 'textarea' || (ln === 'input' && TEXT_INPUT[(attr(el, 'type') || 'text').toLowerCase()]);
      if (!(textField && el.value === '')) native.invalid = true;
    }
  } catch (_) {
    /* ignore */
  }
  return stateFor(role || roleOf(el), (n) => aria(el, n), native);
}
const TEXT_INPUT = { text: 1, email: 1, url: 1, tel: 1, search: 1, password: 1, number: 1 };
function matchesDisabled(el) {
  try {
    return nMatches.call(el, ':disabled');
  } catch (_) {
    return false;
  }
}
export function valueOf(el) {
  const ln = localName(el);
  try {
    if (ln === 'input') {
      const t = (attr(el, 'type') || '').toLowerCase();
      if (t === 'range' || t === 'color') return String(el.value);
      return null; // editable or state-only controls expose no value
    }
    if (ln === 'select' && !hasAttr(el, 'multiple')) {
      const o = el.options && el.options[el.selectedIndex];
      return o ? collectText(o, TEXT_MAX) : null;
    }
    if (ln === 'progress' || ln === 'meter') return hasAttr(el, 'value') ? String(el.value) : null;
  } catch (_) {
    /* ignore */
  }
  return null;
}
// privacy: {redacted, textNone, role?}: role when the caller read it for el in this same task.
export function summarize(el, privacy) {
  const role = typeof privacy.role === 'string' ? privacy.role : roleOf(el);
  const s = { role: role };
  const noText = privacy.redacted || privacy.textNone;
  if (!noText) {
    // A cut can end on the space between two words: what is reported stays whitespace-normalized.
    const name = asciiCollapse(cutBytes(cutScalars(nameOf(el, role), TEXT_MAX), 256));
    if (name) s.name = name;
    const ln = localName(el);
    // No text of what is not rendered content (a stylesheet, a script, a template) and none of
    // form controls or editable content.
    if (!SKIP_TEXT[ln] && !inEditable(el)) {
      const text = cutBytes(collectText(el, TEXT_MAX), 1024).trim();
      if (text) s.text = text;
    }
    const v = valueOf(el);
    if (v) s.value = cutBytes(cutScalars(normText(v), TEXT_MAX), 256).trim();
  }
  const st = stateOf(el, role);
  if (st) s.state = st;
  return s;
}
// The summary a candidate for exactly this element would carry, privacy applied as the hit test
// applies it (excluded: null; redacted: role and state only); the internal API's `summaryOf` test
// hook (host/api.js) for the per-element conformance check.
export function summaryForTest(el) {
  const p = privacyOf(el);
  if (p.excluded) return null;
  return summarize(el, { redacted: !!p.redacted, textNone: false });
}
