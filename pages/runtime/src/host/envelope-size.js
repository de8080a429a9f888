// The serialized size of a snapshot's context_attachments envelope (host/envelope.js), which the
// snapshot's byte budget (host/snapshot.js) is measured against: version 1, the canonical JSON of
// the snapshot as a JSON string plus the envelope's other members, against the 30 KiB target (the
// spec's generic 32 KiB envelope limit); versions 2-4, the canonical JSON of the whole envelope
// around the compact payload, exactly as the Session measures it, against the 16,384-byte v2-v4
// envelope limit (core/constants.js says where that number comes from), with the attachment id at
// its longest, and the snapshot's expanded canonical bytes against the 256 KiB budget.
import { utf8Len } from '../core/util.js';
import { canonicalJson, encString } from '../core/canonical-json.js';
import {
  ENVELOPE_TARGET_BYTES,
  COMPACT_ENVELOPE_MAX_BYTES,
  EXPANDED_BUDGET_BYTES,
  ATTACHMENT_ID_MAX_BYTES,
} from '../core/constants.js';
import { attachmentContent } from './attachment-content.js';

const ENVELOPE_OVERHEAD = 300; // the envelope's other members (ids up to 128 bytes, hash, timestamps)
export function envelopeSize(snap) {
  return utf8Len(encString(canonicalJson(snap))) + ENVELOPE_OVERHEAD;
}
/** The canonical JSON of the envelope `host/envelope.js` writes around `content` (a canonical
 * payload string) as `version` with `attachmentId` and `createdAt`; the hash is sha256:<64 hex>
 * (its value does not change the size). */
export function envelopeJson(attachmentId, version, createdAt, content) {
  return canonicalJson({
    attachment_id: attachmentId,
    kind: 'wippy.attention',
    version: version,
    created_at: createdAt,
    content_type: 'application/json',
    content_bytes: utf8Len(content),
    content_hash: 'sha256:' + '0'.repeat(64),
    content: content,
  });
}
// The longest id and a created_at of the length host/envelope.js writes (core/util.js iso()).
const LONGEST_ID = 'a'.repeat(ATTACHMENT_ID_MAX_BYTES);
const CREATED_AT = '2000-01-01T00:00:00.000Z';
/** The canonical envelope size of `snap` written as `version` with the longest attachment id
 * (Infinity when it falls back to v1). */
export function compactEnvelopeSize(snap, version) {
  const c = attachmentContent(snap, version);
  if (c.version !== version) return Infinity;
  return utf8Len(envelopeJson(LONGEST_ID, version, CREATED_AT, canonicalJson(c.payload)));
}
/** Whether `snap` fits the budget of a `version` attachment. */
export function fitsVersion(snap, version) {
  if (version === 1) return envelopeSize(snap) <= ENVELOPE_TARGET_BYTES;
  return (
    compactEnvelopeSize(snap, version) <= COMPACT_ENVELOPE_MAX_BYTES &&
    utf8Len(canonicalJson(snap)) <= EXPANDED_BUDGET_BYTES
  );
}
