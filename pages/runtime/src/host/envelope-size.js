// The serialized size of a snapshot's context_attachments envelope (host/envelope.js), which the
// snapshot's byte budget (host/snapshot.js) is measured against: version 1, the canonical JSON of
// the snapshot as a JSON string plus the envelope's other members, against the 30 KiB target;
// versions 2-4, the canonical JSON of the whole envelope around the compact payload against the
// stricter of that target and the spec's 32 KiB v2-v4 envelope limit (so the same 30 KiB), and the
// snapshot's expanded canonical bytes against the 256 KiB budget (core/constants.js says why 32 KiB
// and not the Session code's 16,384).
import { utf8Len } from '../core/util.js';
import { canonicalJson, encString } from '../core/canonical-json.js';
import { ENVELOPE_TARGET_BYTES, COMPACT_ENVELOPE_MAX_BYTES, EXPANDED_BUDGET_BYTES } from '../core/constants.js';
import { attachmentContent } from './attachment-content.js';

const ENVELOPE_OVERHEAD = 300; // the envelope's other members (ids up to 128 bytes, hash, timestamps)
// The canonical envelope's members other than content: 253 bytes with an empty attachment id, so
// 400 covers an id of up to 128 bytes and its escaping as far as ids are in practice.
export const COMPACT_ENVELOPE_OVERHEAD = 400;
export function envelopeSize(snap) {
  return utf8Len(encString(canonicalJson(snap))) + ENVELOPE_OVERHEAD;
}
/** The canonical envelope size of `snap` written as `version` (Infinity when it falls back to v1). */
export function compactEnvelopeSize(snap, version) {
  const c = attachmentContent(snap, version);
  if (c.version !== version) return Infinity;
  return utf8Len(encString(canonicalJson(c.payload))) + COMPACT_ENVELOPE_OVERHEAD;
}
/** Whether `snap` fits the budget of a `version` attachment. */
export function fitsVersion(snap, version) {
  if (version === 1) return envelopeSize(snap) <= ENVELOPE_TARGET_BYTES;
  return (
    compactEnvelopeSize(snap, version) <= Math.min(ENVELOPE_TARGET_BYTES, COMPACT_ENVELOPE_MAX_BYTES) &&
    utf8Len(canonicalJson(snap)) <= EXPANDED_BUDGET_BYTES
  );
}
