// Privacy classification rules over plain attribute values (spec: Privacy — password, hidden and
// file inputs, one-time codes, cc-* autocomplete, credential-like names are excluded; `exclude` and
// `redact` markers). DOM-free: privacy.js reads the attributes and asks these rules.
// Separators between words may be '-', '_', a space or nothing ("security code", "api key").
const SENSITIVE_NAME =
  /(pass(word|wd|code|phrase)?|pwd|one[-_ ]?time|otp|totp|mfa|2fa|card[-_ ]?(number|num|no)|cc[-_ ]?(num|number|csc|cvc|cvv|exp)|cvv|cvc|csc|security[-_ ]?code|secret|api[-_ ]?key|token|credential|ssn|(^|[^a-z])pin([^a-z]|$))/i;
const SENSITIVE_AUTOCOMPLETE = /(one-time-code|current-password|new-password|cc-[a-z-]+|webauthn)/;

export const CONTROL_NAMES = { input: 1, textarea: 1, select: 1 };

// Whether a form control or an editing host (contenteditable) is sensitive (its content must never
// leave the realm). Attribute values are strings or null (absent): {localName, type, autocomplete,
// name, id, inputmode, ariaLabel, contenteditable}. An editing host has no type and usually no name:
// "similarly named editable controls" are judged by its name, id, autocomplete and aria-label.
export function isEditingHost(contenteditable) {
  return contenteditable !== null && contenteditable !== undefined && contenteditable.trim().toLowerCase() !== 'false';
}
export function classifyControl(c) {
  const ln = c.localName;
  if (ln !== 'input' && ln !== 'textarea' && ln !== 'select') {
    if (!isEditingHost(c.contenteditable)) return false;
    const ac = (c.autocomplete || '').toLowerCase();
    if (SENSITIVE_AUTOCOMPLETE.test(ac)) return true;
    return SENSITIVE_NAME.test([c.name, c.id, ac, c.ariaLabel].join(' '));
  }
  const type = (c.type || '').toLowerCase();
  if (ln === 'input' && (type === 'password' || type === 'hidden' || type === 'file')) return true;
  const ac = (c.autocomplete || '').toLowerCase();
  if (SENSITIVE_AUTOCOMPLETE.test(ac)) return true;
  const names = [c.name, c.id, ac, c.inputmode === 'numeric' ? c.ariaLabel : ''].join(' ');
  return SENSITIVE_NAME.test(names);
}
// `data-wippy-attention` marker value: 'exclude', 'redact', or null.
export function attentionMarker(value) {
  if (!value) return null;
  const v = value.trim().toLowerCase();
  return v === 'exclude' || v === 'redact' ? v : null;
}
