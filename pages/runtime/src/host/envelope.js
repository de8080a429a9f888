// The context_attachments entry for a snapshot (spec: envelope — {attachment_id, kind
// "wippy.attention", version 1, created_at, content_type application/json, content_bytes,
// content_hash "sha256:<hex>", content = canonical JSON of the snapshot}). Its serialized size, which
// the snapshot's byte budget is measured against, is host/envelope-size.js (snapshot.js needs it and
// this module needs snapshot.js).
import { nSubtle } from '../core/natives.js';
import { obsNow } from '../core/clock.js';
import { iso, utf8Len } from '../core/util.js';
import { canonicalJson } from '../core/canonical-json.js';
import { sha256Hex } from '../core/sha256.js';
import { randHex } from '../core/dom-reads.js';
import { snapshot } from './snapshot.js';

// A version 1 attachment cannot carry a selection (schemas.md §3: `selection` only in the v4
// reconstruction), so the v1 content leaves it out and says so with `selection-unavailable`.
export function v1Payload(snap) {
  if (!snap || !snap.selection) return snap;
  const p = Object.assign({}, snap);
  delete p.selection;
  p.omissions = (snap.omissions || []).concat([{ reason: 'selection-unavailable' }]).slice(0, 128);
  p.capture = Object.assign({}, snap.capture, { complete: false });
  return p;
}
export async function envelope(snap, opts) {
  opts = opts || {};
  if (!snap || typeof snap !== 'object') snap = await snapshot();
  const content = canonicalJson(v1Payload(snap));
  const hash = await sha256Hex(content, nSubtle);
  const id =
    typeof opts.attachment_id === 'string' && opts.attachment_id && utf8Len(opts.attachment_id) <= 128
      ? opts.attachment_id
      : 'attachment-' + randHex(8);
  return {
    attachment_id: id,
    kind: 'wippy.attention',
    version: 1,
    created_at: iso(obsNow()),
    content_type: 'application/json',
    content_bytes: utf8Len(content),
    content_hash: 'sha256:' + hash,
    content: content,
  };
}
