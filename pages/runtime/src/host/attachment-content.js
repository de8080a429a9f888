// What a wippy.attention attachment of a given version carries for a snapshot (spec "Message
// attachment contract"; schemas.md §3-6): version 4 the compact payload with the selection;
// versions 2 and 3 the compact payload without it; version 1 the snapshot itself. Versions 1-3
// cannot carry a selection, so they leave it out and say so with `selection-unavailable` (and the
// capture is then incomplete). A snapshot a compact version cannot express (host/compact.js: a grid
// step below 1, duplicate target ids, more than 4128 distinct segments) falls back to version 1, the
// one version every Session with Attention renders; `fallback` says why. DOM-free.
import { encodeCompact } from './compact.js';

export function v1Payload(snap) {
  if (!snap || !snap.selection) return snap;
  const p = Object.assign({}, snap);
  delete p.selection;
  p.omissions = (snap.omissions || []).concat([{ reason: 'selection-unavailable' }]).slice(0, 128);
  p.capture = Object.assign({}, snap.capture, { complete: false });
  return p;
}

/** `{version, payload, fallback?}`: the version actually written and its payload. */
export function attachmentContent(snap, version) {
  if (version === 2 || version === 3 || version === 4) {
    const r = encodeCompact(version === 4 ? snap : v1Payload(snap), version);
    if (r.payload) return { version: version, payload: r.payload };
    return { version: 1, payload: v1Payload(snap), fallback: r.error };
  }
  return { version: 1, payload: v1Payload(snap) };
}
