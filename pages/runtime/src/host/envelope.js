// The context_attachments entry for a snapshot (spec "Message attachment contract": {attachment_id,
// kind "wippy.attention", version, created_at, content_type application/json, content_bytes,
// content_hash "sha256:<hex>", content = canonical JSON of the payload}). `opts.version` (1-4,
// default 1) is the version the Session's capability descriptor lists (the composer chooses it);
// the payload for each version is host/attachment-content.js, and the envelope's `version` is the
// one actually written (a snapshot version 2-4 cannot express is written as version 1). Its
// serialized size, which the snapshot's byte budget is measured against, is host/envelope-size.js
// (snapshot.js needs it and this module needs snapshot.js). A version 2-4 envelope is never written
// over the 16,384-byte limit the Session enforces: a snapshot budgeted for that version always fits
// (an id of up to 128 canonical bytes); one that does not (budgeted for another version, or an id
// whose escapes make it longer) gives `attachment-bytes-exceeded` instead of an envelope the Session
// would refuse.
import { nSubtle } from '../core/natives.js';
import { obsNow } from '../core/clock.js';
import { iso, utf8Len } from '../core/util.js';
import { canonicalJson } from '../core/canonical-json.js';
import { COMPACT_ENVELOPE_MAX_BYTES } from '../core/constants.js';
import { sha256Hex } from '../core/sha256.js';
import { randHex } from '../core/dom-reads.js';
import { snapshot } from './snapshot.js';
import { attachmentContent, v1Payload } from './attachment-content.js';
import { envelopeJson } from './envelope-size.js';

export { v1Payload };

/** The attachment version `v` names, or null (only 1-4 exist; anything else is refused). */
export function attachmentVersion(v) {
  if (v === undefined || v === null) return 1;
  return v === 1 || v === 2 || v === 3 || v === 4 ? v : null;
}
export async function envelope(snap, opts) {
  opts = opts || {};
  const version = attachmentVersion(opts.version);
  if (version === null) return { error: 'invalid-request', detail: 'version must be 1, 2, 3 or 4' };
  if (!snap || typeof snap !== 'object') snap = await snapshot({ attachment_version: version });
  const c = attachmentContent(snap, version);
  const content = canonicalJson(c.payload);
  const hash = await sha256Hex(content, nSubtle);
  const id =
    typeof opts.attachment_id === 'string' && opts.attachment_id && utf8Len(opts.attachment_id) <= 128
      ? opts.attachment_id
      : 'attachment-' + randHex(8);
  const createdAt = iso(obsNow());
  if (c.version !== 1 && utf8Len(envelopeJson(id, c.version, createdAt, content)) > COMPACT_ENVELOPE_MAX_BYTES)
    return {
      error: 'attachment-bytes-exceeded',
      detail: 'the version ' + c.version + ' envelope is over ' + COMPACT_ENVELOPE_MAX_BYTES + ' canonical bytes',
    };
  return {
    attachment_id: id,
    kind: 'wippy.attention',
    version: c.version,
    created_at: createdAt,
    content_type: 'application/json',
    content_bytes: utf8Len(content),
    content_hash: 'sha256:' + hash,
    content: content,
  };
}
