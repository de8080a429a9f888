// What the Session keeps of a read (schemas.md §8; harness/src/contract/model_read.rs `project`): the
// compact `wippy.attention.model.v1` projection of the Host's `inspection` and its `targets`, and its
// size as the Framework measures it (`json.encode`, the canonical encoding's bytes). The Host pages
// its tree and find results by it (host/inspect-session.js), so every page it answers reaches the
// model instead of the 8 KiB `byte-limit` partial. A mirror of the Session's rules, kept in step by
// the Session boundary tests (harness/src/checks/reads.rs): rows `[ref, parent|false, kind|false,
// state|false, summary|{}, path indices, resource|false, layout|false]`, refs `[node_id,
// mount_index]` into a 1-based mount dictionary (in the order refs are written), a 1-based path
// dictionary of segments without geometry, the per-operation extras, `target_ref` for exactly one
// node. DOM-free.
import { canonicalJson } from './canonical-json.js';
import { utf8Len } from './util.js';

export const SCHEMA = 'wippy.attention.model.v1';
/** The ceiling of one successful compact result, bytes of `json.encode`. */
export const MAX_MODEL_BYTES = 8192;
const COLUMNS = ['ref', 'parent', 'kind', 'state', 'summary', 'path', 'resource', 'layout'];
const REF_COLUMNS = ['node_id', 'mount_index'];
const MOUNT_COLUMNS = ['host_instance_id', 'mount_id', 'generation'];
const SEGMENT_GEOMETRY = ['rect', 'clip', 'clip_rect', 'local_to_parent', 'geometry'];
const REF_KEYS = ['generation', 'host_instance_id', 'mount_id', 'node_id'];

const isObj = (v) => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v, max) => typeof v === 'string' && v.length > 0 && utf8Len(v) <= max;
/** `{host_instance_id 1..160, node_id 1..256, mount_id 1..256, generation int 1..2^53-1}`, strict. */
export function isNodeRef(v) {
  if (!isObj(v)) return false;
  const keys = Object.keys(v).sort();
  if (keys.length !== 4 || keys.some((k, i) => k !== REF_KEYS[i])) return false;
  const g = v.generation;
  return (
    str(v.host_instance_id, 160) &&
    str(v.node_id, 256) &&
    str(v.mount_id, 256) &&
    typeof g === 'number' &&
    Number.isInteger(g) &&
    g >= 1 &&
    g <= Number.MAX_SAFE_INTEGER
  );
}
const orFalse = (v) => (v === undefined || v === null ? false : v);

function dictionaries() {
  const mounts = [];
  const mountIndex = new Map();
  const paths = [];
  const pathIndex = new Map();
  const d = {
    mounts: mounts,
    paths: paths,
    nodeRef(r) {
      const key = canonicalJson([r.host_instance_id, r.mount_id, r.generation]);
      let i = mountIndex.get(key);
      if (i === undefined) {
        mounts.push([r.host_instance_id, r.mount_id, r.generation]);
        i = mounts.length;
        mountIndex.set(key, i);
      }
      return [r.node_id, i];
    },
    optRef(r) {
      return isNodeRef(r) ? d.nodeRef(r) : false;
    },
    path(p) {
      return (Array.isArray(p) ? p : []).map((s) => {
        const seg = stripGeometry(s);
        const key = canonicalJson(seg);
        let i = pathIndex.get(key);
        if (i === undefined) {
          paths.push(seg);
          i = paths.length;
          pathIndex.set(key, i);
        }
        return i;
      });
    },
  };
  return d;
}
function stripGeometry(seg) {
  if (!isObj(seg)) return seg;
  const o = {};
  for (const k of Object.keys(seg)) if (SEGMENT_GEOMETRY.indexOf(k) < 0) o[k] = seg[k];
  return o;
}
// relay.md: target_ref joined to the unique node by target_id == node_id, the same host and the
// terminal path segment's mount_id and generation (the ref's own without a path).
function joinTarget(node, host, targets) {
  const r = node.ref;
  const path = Array.isArray(node.path) ? node.path : [];
  const leaf = path.length ? path[path.length - 1] : null;
  const mount = leaf ? leaf.mount_id : r.mount_id;
  const generation = leaf ? leaf.generation : r.generation;
  return (
    targets.find(
      (t) =>
        t &&
        t.target_id === r.node_id &&
        t.host_instance_id === host &&
        t.mount_id === mount &&
        t.generation === generation,
    ) || null
  );
}

/** The model.v1 object the Session projects from `inspection` (relay.md's object) and `targets`. */
export function projectModel(inspection, targets) {
  const host = typeof inspection.host_instance_id === 'string' ? inspection.host_instance_id : '';
  const data = isObj(inspection.data) ? inspection.data : {};
  const d = dictionaries();
  const omissions = (Array.isArray(inspection.omissions) ? inspection.omissions : []).map((o) =>
    isObj(o) ? Object.assign({}, o) : o,
  );
  const nodes = [];
  const kept = [];
  let removed = 0;
  for (const n of Array.isArray(data.nodes) ? data.nodes : []) {
    const r = n && n.ref;
    if (!isNodeRef(r) || r.host_instance_id !== host) {
      removed++;
      continue;
    }
    kept.push(n);
    nodes.push([
      d.nodeRef(r),
      d.optRef(n.parent),
      orFalse(n.kind),
      orFalse(n.state),
      isObj(n.summary) ? n.summary : {},
      d.path(n.path),
      orFalse(n.resource),
      orFalse(n.layout),
    ]);
  }
  if (removed > 0)
    omissions.push({
      reason: 'projection-row-removed',
      detail: removed + ' node record(s) without a complete NodeRef of this host',
    });
  for (const o of omissions) if (isObj(o) && o.node !== undefined) o.node = d.optRef(o.node);
  const out = {
    schema: SCHEMA,
    status: 'inspected',
    outcome: inspection.outcome,
    revisions: inspection.revisions,
    measured_at: inspection.measured_at,
    host: host,
  };
  if (typeof inspection.continuation === 'string' && removed === 0) out.continuation = inspection.continuation;
  if (omissions.some((o) => isObj(o) && o.reason === 'invalid-request')) out.invalid = true;
  out.columns = COLUMNS;
  out.ref_columns = REF_COLUMNS;
  out.mount_columns = MOUNT_COLUMNS;
  out.nodes = nodes;
  if (isNodeRef(data.root)) out.root = d.nodeRef(data.root);
  if (isObj(data.geometry)) {
    const g = Object.assign({}, data.geometry);
    if (g.node !== undefined) g.node = d.optRef(g.node);
    out.geometry = g;
  }
  if (data.selection !== undefined) {
    out.selection = data.selection;
    for (const k of ['anchor', 'focus']) if (isNodeRef(data[k])) out[k] = d.nodeRef(data[k]);
  }
  if (data.focus !== undefined && data.focus !== null && !isNodeRef(data.focus) && out.selection === undefined)
    out.focus = data.focus;
  if (data.event !== undefined && data.event !== null) out.event = data.event;
  if (data.point !== undefined && data.point !== null) out.point = data.point;
  if (kept.length === 1) {
    const t = joinTarget(kept[0], host, Array.isArray(targets) ? targets : []);
    if (t) out.target_ref = t;
  }
  out.omissions = omissions;
  out.mounts = d.mounts;
  out.paths = d.paths;
  return out;
}
/** `json.encode` bytes of the Session's projection of `inspection` and `targets`. */
export function modelBytes(inspection, targets) {
  return utf8Len(canonicalJson(projectModel(inspection, targets)));
}
