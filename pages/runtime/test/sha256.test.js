// The pure-JS SHA-256 fallback (used outside secure contexts) against the FIPS 180-2 vectors and
// Node's own crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, webcrypto } from 'node:crypto';
import { sha256Js, sha256Hex } from '../src/core/sha256.js';

const enc = (s) => new TextEncoder().encode(s);

test('known vectors: empty, "abc", the 56-byte two-block message, a million "a"', () => {
  assert.equal(sha256Js(enc('')), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256Js(enc('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(
    sha256Js(enc('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
  assert.equal(
    sha256Js(new Uint8Array(1000000).fill(0x61)),
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  );
});

test('every length around the block and padding boundaries matches node:crypto', () => {
  for (let len = 0; len <= 200; len++) {
    const bytes = new Uint8Array(len).map((_, i) => (i * 31 + len) & 0xff);
    assert.equal(sha256Js(bytes), createHash('sha256').update(bytes).digest('hex'), `length ${len}`);
  }
});

test('non-ASCII text is hashed as its UTF-8 bytes', async () => {
  const s = 'Grüße, 世界 \u{1F600} \u2028';
  const want = createHash('sha256').update(s, 'utf8').digest('hex');
  assert.equal(await sha256Hex(s, null), want);
  assert.equal(await sha256Hex(s, webcrypto.subtle), want);
});

test('a failing WebCrypto falls back to the pure-JS digest', async () => {
  const broken = {
    digest: async () => {
      throw new Error('no');
    },
  };
  assert.equal(await sha256Hex('abc', broken), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
