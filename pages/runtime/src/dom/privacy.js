// Privacy in the DOM (spec: Privacy): excluded elements (exclude markers, the composer, sensitive
// controls and the labels of sensitive controls) are never candidates and never text; redacted
// subtrees keep geometry but lose text. Walks the physical composed ancestry.
import { nQSA } from '../core/natives.js';
import { attr, hasAttr, localName, nodeType, composedParent, byIdInRoot } from '../core/dom-reads.js';
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
// Walk the physical composed ancestry (never ownerDocument/getRootNode, which Web Fragments patch).
export function privacyOf(el) {
  let excluded = null,
    redacted = null;
  // Both answers are the innermost marked element: once both are found, nothing above changes them.
  for (let n = el; n && !(excluded && redacted); n = composedParent(n)) {
    if (nodeType(n) !== 1) continue;
    if (!excluded && selfExcluded(n)) excluded = n;
    if (!redacted && selfRedacted(n)) redacted = n;
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
