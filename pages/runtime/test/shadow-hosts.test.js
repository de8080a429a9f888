// Which elements can host a shadow root (DOM "attach a shadow root"): only those may hide a root
// the runtime cannot enter (hidden-roots.js), so only those are probed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canHostShadowRoot, isCustomElementName } from '../src/dom/shadow-hosts.js';

test('valid shadow host names and custom elements can host a shadow root', () => {
  for (const ln of [
    'div',
    'span',
    'p',
    'section',
    'article',
    'aside',
    'blockquote',
    'footer',
    'header',
    'main',
    'nav',
    'h1',
    'h6',
    'body',
  ])
    assert.equal(canHostShadowRoot(ln, true), true, ln);
  for (const ln of ['x-card', 'sl-button', 'md-filled-button', 'my-el-2', 'a-b'])
    assert.equal(canHostShadowRoot(ln, true), true, ln);
});

test('other elements, reserved names and non-HTML elements cannot', () => {
  for (const ln of [
    'button',
    'img',
    'input',
    'details',
    'summary',
    'a',
    'i',
    'li',
    'ul',
    'svg',
    'canvas',
    'iframe',
    'label',
    'td',
  ])
    assert.equal(canHostShadowRoot(ln, true), false, ln);
  for (const ln of ['font-face', 'missing-glyph', 'annotation-xml', 'color-profile'])
    assert.equal(canHostShadowRoot(ln, true), false, ln);
  assert.equal(canHostShadowRoot('div', false), false, 'an SVG or MathML element');
  assert.equal(canHostShadowRoot('x-card', false), false);
  assert.equal(canHostShadowRoot(null, true), false);
});

test('custom element names need a leading a-z, a hyphen and no upper case', () => {
  assert.equal(isCustomElementName('x-y'), true);
  assert.equal(isCustomElementName('xy'), false);
  assert.equal(isCustomElementName('1-x'), false);
  assert.equal(isCustomElementName('-x'), false);
  assert.equal(isCustomElementName('X-y'), false);
  assert.equal(isCustomElementName('x-Y'), false);
});
