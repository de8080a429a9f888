// Origin rules (spec: relay — canonical bare http(s) origins only; frame_origin may be about:srcdoc).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalOrigin, validFrameOrigin } from '../src/core/origins.js';

test('canonical bare http(s) origins are accepted as they are', () => {
  for (const o of [
    'http://127.0.0.1:8080',
    'http://localhost:41234',
    'https://example.com',
    'https://a.b.example:8443',
    'http://[::1]:3000',
  ]) {
    assert.equal(canonicalOrigin(o), o);
  }
});

test('null, *, paths, queries, fragments, credentials, default ports, upper case and other schemes are refused', () => {
  for (const o of [
    'null',
    '*',
    '',
    'http://a.com/',
    'http://a.com/path',
    'http://a.com?q=1',
    'http://a.com#f',
    'http://user:pw@a.com',
    'http://user@a.com',
    'http://a.com:80',
    'https://a.com:443',
    'HTTP://A.COM',
    'http://A.com',
    'ftp://a.com',
    'about:srcdoc',
    'data:text/html,x',
    'http://a com',
    ' http://a.com',
    'http://' + 'a'.repeat(2050) + '.com',
  ]) {
    assert.equal(canonicalOrigin(o), null, o);
  }
  for (const v of [null, undefined, 42, {}, ['http://a.com']]) assert.equal(canonicalOrigin(v), null);
});

test('frame origins are canonical origins or about:srcdoc', () => {
  assert.equal(validFrameOrigin('about:srcdoc'), true);
  assert.equal(validFrameOrigin('http://localhost:1234'), true);
  assert.equal(validFrameOrigin('about:blank'), false);
  assert.equal(validFrameOrigin('null'), false);
  assert.equal(validFrameOrigin('http://localhost:1234/'), false);
});

test('a repeated check gives the same answer as the first (the remembered answers are exact)', () => {
  const inputs = ['http://127.0.0.1:8080', 'http://a.com/', 'HTTP://A.COM', 'https://example.com', 'null'];
  const first = inputs.map(canonicalOrigin);
  for (let i = 0; i < 200; i++) canonicalOrigin('http://h' + i + '.example'); // beyond the bound: older answers are evicted
  for (let round = 0; round < 3; round++) assert.deepEqual(inputs.map(canonicalOrigin), first);
  assert.deepEqual(first, ['http://127.0.0.1:8080', null, null, 'https://example.com', null]);
});
