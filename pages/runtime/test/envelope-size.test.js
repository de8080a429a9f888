// The v2-v4 envelope budget (host/envelope-size.js): a compact snapshot fits when the canonical JSON of
// the whole envelope, with the longest attachment id, is at most 16,384 bytes (the Session's limit,
// core/constants.js), measured exactly: 16,384 fits, 16,385 does not, for versions 2, 3 and 4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compactEnvelopeSize, envelopeJson, fitsVersion } from '../src/host/envelope-size.js';
import { attachmentContent } from '../src/host/attachment-content.js';
import { canonicalJson } from '../src/core/canonical-json.js';
import { COMPACT_ENVELOPE_MAX_BYTES, ATTACHMENT_ID_MAX_BYTES } from '../src/core/constants.js';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/contract/spec-v1-payload.json', import.meta.url)));
const bytes = (s) => Buffer.byteLength(s, 'utf8');

// The fixture with one omission whose detail is `n` bytes: grows the envelope one byte at a time.
function padded(n) {
  const p = structuredClone(fixture);
  p.omissions = [{ reason: 'clipped', detail: 'd'.repeat(n) }];
  p.capture.complete = false;
  return p;
}

test('the v2-v4 envelope limit is 16,384 bytes and ids are budgeted at 128 bytes', () => {
  assert.equal(COMPACT_ENVELOPE_MAX_BYTES, 16384);
  assert.equal(ATTACHMENT_ID_MAX_BYTES, 128);
});

test('compactEnvelopeSize is the canonical byte length of the envelope with a 128-byte id', () => {
  for (const version of [2, 3, 4]) {
    const c = attachmentContent(fixture, version);
    const env = envelopeJson('x'.repeat(128), version, new Date(0).toISOString(), canonicalJson(c.payload));
    assert.equal(compactEnvelopeSize(fixture, version), bytes(env));
    // Every member of the envelope host/envelope.js writes is there.
    assert.deepEqual(Object.keys(JSON.parse(env)).sort(), [
      'attachment_id',
      'content',
      'content_bytes',
      'content_hash',
      'content_type',
      'created_at',
      'kind',
      'version',
    ]);
  }
});

test('a compact snapshot of exactly 16,384 envelope bytes fits and 16,385 does not', () => {
  for (const version of [2, 3, 4]) {
    const base = compactEnvelopeSize(padded(0), version);
    let n = COMPACT_ENVELOPE_MAX_BYTES - base;
    // The detail sits inside the content string: one more byte per byte.
    n += COMPACT_ENVELOPE_MAX_BYTES - compactEnvelopeSize(padded(n), version);
    assert.equal(compactEnvelopeSize(padded(n), version), 16384, `version ${version}`);
    assert.equal(fitsVersion(padded(n), version), true, `version ${version}`);
    assert.equal(compactEnvelopeSize(padded(n + 1), version), 16385, `version ${version}`);
    assert.equal(fitsVersion(padded(n + 1), version), false, `version ${version}`);
  }
});
