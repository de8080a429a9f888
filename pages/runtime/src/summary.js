// The accessibility summary of a candidate (spec: summary — role always present; name from
// aria-labelledby, aria-label, labels, alt, button value, content, title; safe text of the subtree,
// 160 scalar values, skipping hidden/excluded/redacted/editable content; value only for range,
// color, single selects, progress, meter; state omitted when empty).
import { nFirstChild, nNextSibling, nNodeValue, nDocQSA, nFragQSA, nGetCS } from './natives.js';
import { TEXT_MAX } from './constants.js';
import { cutBytes, cutScalars, normText } from './util.js';
import { attr, hasAttr, localName, nodeType, parentOf, treeRoot, byIdInRoot } from './dom.js';
import { privacyOf, selfExcluded, selfRedacted, labelsSensitive } from './privacy.js';
import { roleFor, NAME_FROM_CONTENT, triState, ariaValue, joinNameParts, displayIsInline } from './roles.js';
import { internalsProp } from './shadow-roots.js';
import { flatChildren } from './flat-tree.js';

// Role: the role attribute, else the role the element set on its ElementInternals, else implicit.
export function roleOf(el) {
  const ir = internalsProp(el, 'role');
  return roleFor(localName(el), (n) => attr(el, n), (n) => hasAttr(el, n), typeof ir === 'string' ? ir : null);
}
// An ARIA attribute, else the same state set on the element's ElementInternals.
export function aria(el, name) { return ariaValue(name, (n) => attr(el, n), (p) => internalsProp(el, p)); }
const SKIP_TEXT = { script: 1, style: 1, template: 1, noscript: 1, 'wf-head': 1, head: 1, title: 1, textarea: 1, input: 1, select: 1, iframe: 1 };
export function isEditable(el) {
  const ce = attr(el, 'contenteditable');
  return ce !== null && ce.toLowerCase() !== 'false';
}
// Inside editable content (an editing host or an element in one): editable values are unavailable.
function inEditable(el) {
  if (isEditable(el)) return true;
  try { return el.isContentEditable === true; } catch (_) { return false; }
}
export function collectText(el, limit) {
  let out = '';
  let budget = 4000;
  const stack = [el];
  while (stack.length && budget-- > 0) {
    const n = stack.pop();
    const t = nodeType(n);
    if (t === 3) { out += ' ' + (nNodeValue.call(n) || ''); if (out.length > limit * 4 + 64) break; continue; }
    if (t !== 1) continue;
    if (n !== el) {
      if (SKIP_TEXT[localName(n)] || selfExcluded(n) || selfRedacted(n) || isEditable(n) || labelsSensitive(n)) continue;
    }
    const kids = [];
    for (let c = nFirstChild.call(n); c; c = nNextSibling.call(c)) kids.push(c);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return cutScalars(normText(out), limit);
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
function displayOf(el) {
  try { const cs = nGetCS(el); return { display: cs.display, hidden: cs.display === 'none' || cs.visibility === 'hidden' || cs.visibility === 'collapse' }; } catch (_) { return { display: 'inline', hidden: false }; }
}
// Name from content (accessible name computation, step 2F, as Chromium computes it): the text
// alternatives of the element's flat-tree children (a shadow host's shadow tree, a slot's assigned
// nodes or its fallback content), skipping hidden, excluded, redacted and editable content; a child
// element contributes its aria-label, an image its alt, else its own content, else its title.
export function nameFromContent(el) {
  const budget = { nodes: 4000 };
  return joinNameParts(contentParts(el, budget, 0));
}
function contentParts(n, budget, depth) {
  const parts = [];
  if (depth > 64) return parts;
  const kids = flatChildren(n);
  for (let i = 0; i < kids.length && budget.nodes-- > 0; i++) {
    const c = kids[i];
    const t = nodeType(c);
    if (t === 3) { parts.push({ text: nNodeValue.call(c) || '', inline: true }); continue; }
    if (t !== 1) continue;
    const ln = localName(c);
    if (SKIP_TEXT[ln] || selfExcluded(c) || selfRedacted(c) || isEditable(c) || labelsSensitive(c) || hiddenFromNames(c)) continue;
    const d = displayOf(c);
    if (d.hidden) continue;
    const inline = displayIsInline(d.display);
    if (ln === 'br') { parts.push({ text: ' ', inline: true }); continue; }
    const al = normText(aria(c, 'aria-label'));
    if (al) { parts.push({ text: al, inline }); continue; }
    if (ln === 'img' || ln === 'area') { const a = normText(attr(c, 'alt')); if (a) parts.push({ text: a, inline }); continue; }
    let text = joinNameParts(contentParts(c, budget, depth + 1));
    if (!text) text = normText(attr(c, 'title'));
    if (text) parts.push({ text, inline });
  }
  return parts;
}
export function nameOf(el, role) {
  const lb = attr(el, 'aria-labelledby');
  if (lb) {
    const parts = [];
    lb.split(/\s+/).forEach((id) => { if (!id) return; const ref = byIdInRoot(el, id); if (ref) { const t = textOfSafe(ref); if (t) parts.push(t); } });
    const s = normText(parts.join(' ')); if (s) return s;
  }
  const al = normText(aria(el, 'aria-label')); if (al) return al;
  const ln = localName(el);
  if (ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'meter' || ln === 'progress' || ln === 'output') {
    const t = (attr(el, 'type') || '').toLowerCase();
    if (ln === 'input' && (t === 'submit' || t === 'reset' || t === 'button')) {
      const v = normText(attr(el, 'value')); if (v) return v; return t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '';
    }
    if (ln === 'input' && t === 'image') { const a = normText(attr(el, 'alt')); if (a) return a; }
    const id = attr(el, 'id');
    if (id) {
      const root = treeRoot(el); let labels = [];
      try { labels = nodeType(root) === 9 ? nDocQSA.call(root, 'label[for]') : nodeType(root) === 11 ? nFragQSA.call(root, 'label[for]') : []; } catch (_) { labels = []; }
      for (let i = 0; i < labels.length; i++) if (attr(labels[i], 'for') === id) { const t = textOfSafe(labels[i]); if (t) return t; }
    }
    for (let n = parentOf(el); n && nodeType(n) === 1; n = parentOf(n)) if (localName(n) === 'label') { const t = textOfSafe(n); if (t) return t; break; }
  }
  if (ln === 'img' || ln === 'area') { const a = normText(attr(el, 'alt')); if (a) return a; }
  if (NAME_FROM_CONTENT[role] || ln === 'summary' || ln === 'legend' || ln === 'caption' || ln === 'figcaption') {
    const t = cutScalars(nameFromContent(el), TEXT_MAX); if (t) return t;
  }
  if (ln === 'fieldset') { for (let c = nFirstChild.call(el); c; c = nNextSibling.call(c)) if (localName(c) === 'legend') return cutScalars(nameFromContent(c), TEXT_MAX); }
  const title = normText(attr(el, 'title')); if (title) return title;
  return '';
}
export function stateOf(el) {
  const st = {}; const ln = localName(el);
  const set = (k, v) => { if (v !== undefined && v !== null && (typeof v === 'boolean' || typeof v === 'string' || (typeof v === 'number' && isFinite(v)))) st[k] = (typeof v === 'string') ? cutBytes(v, 64) : v; };
  try {
    const isFormCtl = ln === 'button' || ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'option' || ln === 'fieldset';
    if ((isFormCtl && el.disabled === true) || aria(el, 'aria-disabled') === 'true') set('disabled', true);
    if (ln === 'input') {
      const t = (attr(el, 'type') || '').toLowerCase();
      if (t === 'checkbox' || t === 'radio') set('checked', el.indeterminate ? 'mixed' : !!el.checked);
    }
    if (st.checked === undefined) set('checked', triState(aria(el, 'aria-checked')));
    set('expanded', triState(aria(el, 'aria-expanded')));
    if (st.expanded === undefined && ln === 'summary') { const p = parentOf(el); if (p && localName(p) === 'details') set('expanded', hasAttr(p, 'open')); }
    set('pressed', triState(aria(el, 'aria-pressed')));
    if (ln === 'option') set('selected', !!el.selected); else set('selected', triState(aria(el, 'aria-selected')));
    if (((ln === 'input' || ln === 'select' || ln === 'textarea') && el.required === true) || aria(el, 'aria-required') === 'true') set('required', true);
    const cur = aria(el, 'aria-current'); if (cur && cur !== 'false') set('current', cur === 'true' ? true : cur);
    const inv = aria(el, 'aria-invalid'); if (inv && inv !== 'false') set('invalid', true);
  } catch (_) { /* ignore */ }
  return Object.keys(st).length ? st : null;
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
  } catch (_) { /* ignore */ }
  return null;
}
export function summarize(el, privacy) {
  const role = roleOf(el);
  const s = { role: role };
  const noText = privacy.redacted || privacy.textNone;
  if (!noText) {
    const name = cutBytes(cutScalars(nameOf(el, role), TEXT_MAX), 256);
    if (name) s.name = name;
    const ln = localName(el);
    if (ln !== 'input' && ln !== 'textarea' && ln !== 'select' && !inEditable(el)) {
      const text = cutBytes(collectText(el, TEXT_MAX), 1024);
      if (text) s.text = text;
    }
    const v = valueOf(el);
    if (v) s.value = cutBytes(cutScalars(normText(v), TEXT_MAX), 256);
  }
  const st = stateOf(el);
  if (st) s.state = st;
  return s;
}

