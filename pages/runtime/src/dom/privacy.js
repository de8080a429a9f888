// Privacy in the DOM (spec: Privacy): excluded elements (exclude markers, the composer, sensitive
// controls and the labels of sensitive controls) are never candidates and never text; redacted
// subtrees keep geometry but lose text. Walks the physical composed ancestry.
import { nQSA, nClosest } from '../core/natives.js';
import { attr, hasAttr, localName, nodeType, composedParent, byIdInRoot, treeRoot, hostOf } from '../core/dom-reads.js';
import { classifyControl, attentionMarker, isEditingHost, CONTROL_NAMES } from './privacy-rules.js';

// A sensitive form control, or a sensitive editing host (contenteditable with a credential-like
// name, id, autocomplete or aria-label): its subtree is excluded.
export function isSensitiveControl(el) {
  const ln = localName(el);
  const ce = CONTROL_NAMES[ln] ? null : attr(el, 'contenteditable');
  if (!CONTROL_NAMES[ln] && !isEditingHost(ce)) return false;
  return classifyControl({
    localName: ln,
    type: attr(el, 'type'),
    autocomplete: attr(el, 'autocomplete'),
    name: attr(el, 'name'),
    id: attr(el, 'id'),
    inputmode: attr(el, 'inputmode'),
    ariaLabel: attr(el, 'aria-label'),
    contenteditable: ce,
  });
}
export function selfExcluded(el) {
  if (attentionMarker(attr(el, 'data-wippy-attention')) === 'exclude') return true;
  if (hasAttr(el, 'data-wippy-composer')) return true;
  return isSensitiveControl(el);
}
export function selfRedacted(el) {
  return attentionMarker(attr(el, 'data-wippy-attention')) === 'redact';
}
// Every element that can be excluded or redacted by itself matches this (a superset: the attribute
// values are judged by selfExcluded / selfRedacted).
const MARKED = '[data-wippy-attention],[data-wippy-composer],input,textarea,select,[contenteditable]';
// The nearest inclusive ancestor of el in its own tree (document or shadow root) that matches
// MARKED, null when there is none up to the tree's root, undefined when the browser cannot tell.
function nearestMarked(el) {
  try {
    return nClosest.call(el, MARKED);
  } catch (_) {
    return undefined;
  }
}
// Walk the physical composed ancestry (never ownerDocument/getRootNode, which Web Fragments patch).
// Per tree the browser's own `closest` skips the elements that carry no marker (the answer is read
// per move: issue 23); an element it finds is judged as before, and from a tree's root the walk goes
// on at its host.
export function privacyOf(el) {
  let excluded = null,
    redacted = null;
  // Both answers are the innermost marked element: once both are found, nothing above changes them.
  for (let n = el; n && !(excluded && redacted);) {
    if (nodeType(n) !== 1) {
      n = composedParent(n);
      continue;
    }
    const m = nearestMarked(n);
    if (m === null) {
      const root = treeRoot(n);
      n = nodeType(root) === 11 ? hostOf(root) : null;
      continue;
    }
    const at = m === undefined ? n : m;
    if (!excluded && selfExcluded(at)) excluded = at;
    if (!redacted && selfRedacted(at)) redacted = at;
    n = composedParent(at);
  }
  return { excluded, redacted };
}
// A <label> of a sensitive control (password, one-time code ...) is treated as part of that control.
export function labelsSensitive(n) {
  if (localName(n) !== 'label') return false;
  const f = attr(n, 'for');
  if (f) {
    const t = byIdInRoot(n, f);
    if (t && isSensitiveControl(t)) return true;
  }
  try {
    const inner = nQSA.call(n, 'input,textarea,select');
    for (let i = 0; i < inner.length; i++) if (isSensitiveControl(inner[i])) return true;
  } catch (_) {
    /* ignore */
  }
  return false;
}
// Inside the excluded conversation controls: the chat composer, its upload list and previews
// (`[data-wippy-composer]` on the element or a composed ancestor).
export function inConversationControls(el) {
  for (let n = el; n; n = composedParent(n)) if (nodeType(n) === 1 && hasAttr(n, 'data-wippy-composer')) return true;
  return false;
}
// Focus moving into these keeps the last meaningful focus (spec: "unless the user moves into excluded
// conversation controls"): the composer, never a sensitive control in it. Focus on any other
// excluded element (data-wippy-attention="exclude", sensitive controls) clears it.
export function isTransferTarget(el, p) {
  return !!p.excluded && inConversationControls(el) && !isSensitiveControl(p.excluded) && !isSensitiveControl(el);
}
