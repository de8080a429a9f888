// Agent action references (spec "Agent clarification actions"; relay.md "target_ref / action_ref
// fields" and "path_digest computation"; schemas.md §3 action_ref): when the Host enabled agent
// actions (`wippyAttention.configure({agent_actions_enabled: true})`), every eligible candidate of a
// snapshot carries `action_ref = {snapshot_id, target_id, host_instance_id, mount_id, generation,
// path_digest, rect, label?}` with mount_id / generation of the leaf segment, rect = candidate rect and
// the semantic path_digest (harness/src/json/canonical.rs `path_digest`). Eligible: the leaf
// segment is an `element` and the candidate rect has a positive area (something an overlay can
// outline). *Pure*: no window/document at import time; the digest is the synchronous pure-JS SHA-256.
import { canonicalJson } from '../core/canonical-json.js';
import { sha256Js } from '../core/sha256.js';
import { utf8Bytes, cutBytes } from '../core/util.js';

/** Segment members that are geometry, removed for the semantic digest (canonical.rs PATH_GEOMETRY_KEYS). */
export const PATH_GEOMETRY_KEYS = ['rect', 'clip_rect', 'local_to_parent', 'coordinate_quality'];

export function semanticPath(path) {
  return path.map((seg) => {
    const o = {};
    for (const k of Object.keys(seg)) if (PATH_GEOMETRY_KEYS.indexOf(k) < 0) o[k] = seg[k];
    return o;
  });
}

/** `"sha256:" + lowercase_hex(SHA-256(canonical_json(semantic path)))`. */
export function pathDigest(path) {
  return 'sha256:' + sha256Js(utf8Bytes(canonicalJson(semanticPath(path))));
}

export function eligible(candidate) {
  const path = candidate && candidate.path;
  const leaf = Array.isArray(path) && path.length > 0 ? path[path.length - 1] : null;
  const r = candidate && candidate.rect;
  return !!leaf && leaf.kind === 'element' && !!r && r.width > 0 && r.height > 0;
}

/**
 * The action_ref of one output candidate (its path already clamped as emitted), or null when the
 * candidate is not eligible. `label` is the summary name (<= 256 UTF-8 bytes) unless text is off.
 */
export function actionRefFor(candidate, snapshotId, hostInstanceId, textNone) {
  if (!eligible(candidate)) return null;
  const leaf = candidate.path[candidate.path.length - 1];
  const r = candidate.rect;
  const ref = {
    snapshot_id: snapshotId,
    target_id: candidate.target_id,
    host_instance_id: hostInstanceId,
    mount_id: leaf.mount_id,
    generation: leaf.generation,
    path_digest: pathDigest(candidate.path),
    rect: { x: r.x, y: r.y, width: r.width, height: r.height },
  };
  const name =
    !textNone && candidate.summary && typeof candidate.summary.name === 'string'
      ? cutBytes(candidate.summary.name, 256)
      : '';
  if (name) ref.label = name;
  return ref;
}
