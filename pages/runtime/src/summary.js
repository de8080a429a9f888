// The accessibility summary of a candidate (spec: summary — role always present; name from
// aria-labelledby, aria-label, labels, alt, button value, content, title; safe text of the subtree,
// 160 scalar values, skipping hidden/excluded/redacted/editable content; value only for range,
// color, single selects, progress, meter; state omitted when empty).
import { nFirstChild, nNextSibling, nNodeValue, nDocQSA, nFragQSA } from './natives.js';
import { TEXT_MAX } from './constants.js';
import { cutBytes, cutScalars, normText } from './util.js';
import { attr, hasAttr, localName, nodeType, parentOf, treeRoot, byIdInRoot } from './dom.js';
import { privacyOf, selfExcluded, selfRedacted, labelsSensitive } from './privacy.js';
import { roleFor, NAME_FROM_CONTENT, triState } from './roles.js';

export function roleOf(el) { return roleFor(localName(el), (n) => attr(el, n), (n) => hasAttr(el, n)); }
const SKIP_TEXT = { script: 1, style: 1, template: 1, noscript: 1, 'wf-head': 1, head: 1, title: 1, textarea: 1, input: 1, select: 1, iframe: 1 };
export function isEditable(el) {
  const ce = attr(el, 'contenteditable');
  return ce !== null && ce.toLowerCase() !== 'false';
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
  return collectText(el, TEXT_MAX);
}
export function nameOf(el, role) {
  const lb = attr(el, 'aria-labelledby');
  if (lb) {
    const parts = [];
    lb.split(/\s+/).forEach((id) => { if (!id) return; const ref = byIdInRoot(el, id); if (ref) { const t = textOfSafe(ref); if (t) parts.push(t); } });
    const s = normText(parts.join(' ')); if (s) return s;
  }
  const al = normText(attr(el, 'aria-label')); if (al) return al;
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
    const t = collectText(el, TEXT_MAX); if (t) return t;
  }
  if (ln === 'fieldset') { for (let c = nFirstChild.call(el); c; c = nNextSibling.call(c)) if (localName(c) === 'legend') return collectText(c, TEXT_MAX); }
  const title = normText(attr(el, 'title')); if (title) return title;
  return '';
}
export function stateOf(el) {
  const st = {}; const ln = localName(el);
  const set = (k, v) => { if (v !== undefined && v !== null && (typeof v === 'boolean' || typeof v === 'string' || (typeof v === 'number' && isFinite(v)))) st[k] = (typeof v === 'string') ? cutBytes(v, 64) : v; };
  try {
    const isFormCtl = ln === 'button' || ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'option' || ln === 'fieldset';
    if ((isFormCtl && el.disabled === true) || attr(el, 'aria-disabled') === 'true') set('disabled', true);
    if (ln === 'input') {
      const t = (attr(el, 'type') || '').toLowerCase();
      if (t === 'checkbox' || t === 'radio') set('checked', el.indeterminate ? 'mixed' : !!el.checked);
    }
    if (st.checked === undefined) set('checked', triState(attr(el, 'aria-checked')));
    set('expanded', triState(attr(el, 'aria-expanded')));
    if (st.expanded === undefined && ln === 'summary') { const p = parentOf(el); if (p && localName(p) === 'details') set('expanded', hasAttr(p, 'open')); }
    set('pressed', triState(attr(el, 'aria-pressed')));
    if (ln === 'option') set('selected', !!el.selected); else set('selected', triState(attr(el, 'aria-selected')));
    if (((ln === 'input' || ln === 'select' || ln === 'textarea') && el.required === true) || attr(el, 'aria-required') === 'true') set('required', true);
    const cur = attr(el, 'aria-current'); if (cur && cur !== 'false') set('current', cur === 'true' ? true : cur);
    const inv = attr(el, 'aria-invalid'); if (inv && inv !== 'false') set('invalid', true);
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
    if (ln !== 'input' && ln !== 'textarea' && ln !== 'select' && !isEditable(el)) {
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

