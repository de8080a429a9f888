// The serialized size of a snapshot's context_attachments envelope (host/envelope.js): the canonical
// JSON of the snapshot as a JSON string, plus the envelope's other members. The snapshot's byte
// budget (30 KiB, host/snapshot.js) is measured against it.
import { utf8Len } from '../core/util.js';
import { canonicalJson, encString } from '../core/canonical-json.js';

const ENVELOPE_OVERHEAD = 300; // the envelope's other members (ids up to 128 bytes, hash, timestamps)
export function envelopeSize(snap) {
  return utf8Len(encString(canonicalJson(snap))) + ENVELOPE_OVERHEAD;
}
