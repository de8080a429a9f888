// Privacy classification of every control kind the spec names (Privacy: password, hidden and file
// inputs, one-time codes, current/new passwords, cc-*, credential-like names) and its negatives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyControl, attentionMarker } from '../src/dom/privacy-rules.js';

const control = (localName, attrs = {}) =>
  Object.assign(
    { localName, type: null, autocomplete: null, name: null, id: null, inputmode: null, ariaLabel: null },
    attrs,
  );

test('password, hidden and file inputs are sensitive whatever their names (type is case-insensitive)', () => {
  for (const type of ['password', 'hidden', 'file', 'PASSWORD', 'File']) {
    assert.equal(classifyControl(control('input', { type, name: 'q' })), true, type);
  }
  assert.equal(classifyControl(control('textarea', { type: 'password' })), false, 'type only matters on input');
});

test('sensitive autocomplete tokens: one-time-code, current/new password, cc-*, webauthn', () => {
  for (const ac of [
    'one-time-code',
    'current-password',
    'new-password',
    'cc-number',
    'cc-exp',
    'cc-csc',
    'cc-name',
    'section-pay cc-exp-month',
    'username webauthn',
    'ONE-TIME-CODE',
  ]) {
    assert.equal(classifyControl(control('input', { type: 'text', autocomplete: ac })), true, ac);
  }
  assert.equal(classifyControl(control('select', { autocomplete: 'cc-exp-year' })), true);
  assert.equal(classifyControl(control('textarea', { autocomplete: 'one-time-code' })), true);
});

test('credential-like names or ids are sensitive', () => {
  for (const name of [
    'password',
    'user_passwd',
    'passcode',
    'passphrase',
    'pwd',
    'one-time',
    'onetime',
    'otp',
    'totp',
    'mfa-code',
    '2fa',
    'card-number',
    'cardnum',
    'card_no',
    'cc-num',
    'ccnumber',
    'cvv',
    'cvc',
    'csc',
    'security_code',
    'client-secret',
    'api_key',
    'apiKey',
    'access-token',
    'credential',
    'ssn',
    'pin',
    'user-pin',
    'PIN',
  ]) {
    assert.equal(classifyControl(control('input', { type: 'text', name })), true, `name ${name}`);
    assert.equal(classifyControl(control('input', { type: 'text', id: name })), true, `id ${name}`);
  }
});

test('a numeric input labelled like a credential is sensitive; the label alone does not count otherwise', () => {
  assert.equal(classifyControl(control('input', { inputmode: 'numeric', ariaLabel: 'Card PIN' })), true);
  assert.equal(classifyControl(control('input', { inputmode: 'numeric', ariaLabel: 'One-time code' })), true);
  assert.equal(classifyControl(control('input', { inputmode: 'text', ariaLabel: 'Card PIN' })), false);
  assert.equal(classifyControl(control('input', { ariaLabel: 'Password' })), false);
});

test('ordinary controls and non-controls are not sensitive', () => {
  for (const c of [
    control('input', { type: 'text', name: 'email', autocomplete: 'email' }),
    control('input', { type: 'search', name: 'q' }),
    control('input', { type: 'checkbox', name: 'remember' }),
    control('input', { type: 'text', name: 'spinner' }),
    control('input', { type: 'text', name: 'pinned' }),
    control('input', { type: 'text', name: 'shipping' }),
    control('input', { type: 'text', autocomplete: 'username' }),
    control('select', { name: 'country' }),
    control('textarea', { name: 'message' }),
    control('input'),
  ])
    assert.equal(classifyControl(c), false, JSON.stringify(c));
  assert.equal(classifyControl(control('div', { type: 'password', name: 'password' })), false);
  assert.equal(classifyControl(control('button', { name: 'password' })), false);
});

test('editing hosts (contenteditable) named like credentials are sensitive by name, id, autocomplete or aria-label', () => {
  for (const ce of ['', 'true', 'plaintext-only', 'TRUE']) {
    assert.equal(
      classifyControl(control('div', { contenteditable: ce, ariaLabel: 'Recovery passphrase' })),
      true,
      `aria-label, ce=${ce}`,
    );
    assert.equal(classifyControl(control('div', { contenteditable: ce, id: 'pin-code' })), true, `id, ce=${ce}`);
  }
  assert.equal(classifyControl(control('span', { contenteditable: 'true', name: 'api_token' })), true);
  assert.equal(classifyControl(control('div', { contenteditable: 'true', autocomplete: 'one-time-code' })), true);
  assert.equal(classifyControl(control('div', { contenteditable: 'true', autocomplete: 'cc-number' })), true);
  // Near misses and non-editable elements stay ordinary.
  assert.equal(classifyControl(control('div', { contenteditable: 'true', ariaLabel: 'Notes' })), false);
  assert.equal(classifyControl(control('div', { contenteditable: 'true', id: 'pinned-notes' })), false);
  assert.equal(classifyControl(control('div', { contenteditable: 'false', ariaLabel: 'Password' })), false);
  assert.equal(classifyControl(control('div', { ariaLabel: 'Password' })), false, 'not editable');
});

test('the data-wippy-attention marker: exclude and redact, trimmed and case-insensitive', () => {
  assert.equal(attentionMarker('exclude'), 'exclude');
  assert.equal(attentionMarker(' Exclude '), 'exclude');
  assert.equal(attentionMarker('REDACT'), 'redact');
  assert.equal(attentionMarker('hide'), null);
  assert.equal(attentionMarker(''), null);
  assert.equal(attentionMarker(null), null);
});

test('spaced credential names are sensitive: "security code", "api key", "cc number", "card number"', () => {
  for (const name of ['security code', 'Security Code', 'api key', 'cc number', 'card number', 'one time code']) {
    assert.equal(classifyControl({ localName: 'input', type: 'text', name: name }), true, name);
    assert.equal(classifyControl({ localName: 'input', type: 'text', id: name }), true, name);
  }
  assert.equal(classifyControl({ localName: 'input', type: 'text', name: 'security notes' }), false);
  assert.equal(classifyControl({ localName: 'input', type: 'text', name: 'api docs' }), false);
});
