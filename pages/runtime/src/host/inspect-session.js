// The Session's route `wippyAttention.inspect(request)` (top realm): relay.md's `inspection` object
// plus `targets`, within the Session's response budget. A tree or find page ends where the next row
// would take what the Session keeps, its `wippy.attention.model.v1` projection (measured as the
// Framework measures it, core/model-projection.js), over 8 KiB; the rest comes through the
// continuation, so a page always reaches the model (a single row over the ceiling stays the
// Session's `byte-limit` partial, the one thing that cannot be paged).
import { INSPECT } from '../core/constants.js';
import { canonicalJson } from '../core/canonical-json.js';
import { iso, utf8Len, cutBytes, rectFromTuple } from '../core/util.js';
import { obsNow } from '../core/clock.js';
import { randHex } from '../core/dom-reads.js';
import { checkSessionRequest } from '../core/inspect-args.js';
import { modelBytes, MAX_MODEL_BYTES } from '../core/model-projection.js';
import { hostInstanceId } from '../realm/inspect-nodes.js';
import { pathDigest } from './action-refs.js';
import { invalid } from './inspect-result.js';
import { find, getTree } from './inspect-tree.js';
import { getGeometry, hitTestApi } from './inspect-node.js';
import { getCursor, getFocus, getSelection } from './inspect-observation.js';

function targetsOf(nodes) {
  const out = [];
  const snapshotId = 'inspect-' + randHex(8);
  for (const n of nodes) {
    if (out.length >= INSPECT.targetsMax) break;
    if (!n || n.kind !== 'element' || !n.layout || !Array.isArray(n.path) || !n.path.length) continue;
    const leaf = n.path[n.path.length - 1];
    const r = rectFromTuple(n.layout.rect);
    if (!leaf || leaf.kind !== 'element' || !r || !(r.width > 0 && r.height > 0)) continue;
    const t = {
      snapshot_id: snapshotId,
      target_id: n.ref.node_id,
      host_instance_id: n.ref.host_instance_id,
      mount_id: leaf.mount_id,
      generation: leaf.generation,
      path_digest: pathDigest(n.path),
      rect: { x: r.x, y: r.y, width: r.width, height: r.height },
    };
    const name = n.summary && typeof n.summary.name === 'string' ? cutBytes(n.summary.name, 256) : '';
    if (name) t.label = name;
    out.push(t);
  }
  return out;
}
// relay.md's `inspection` object of read result `r`.
function inspectionOf(requestId, r) {
  const out = {
    request_id: requestId,
    host_instance_id: hostInstanceId(),
    measured_at: iso(obsNow()),
    revisions: r.revisions,
    outcome: r.outcome,
    data: r.data,
    omissions: r.omissions,
  };
  if (r.continuation) out.continuation = r.continuation;
  return out;
}
export async function sessionInspect(req) {
  const c = checkSessionRequest(req);
  const requestId = c.ok ? c.ok.request_id : c.request_id || 'invalid';
  // Whether the Session keeps page `p` whole: its model projection within 8 KiB.
  const fits = (p) => modelBytes(inspectionOf(requestId, p), targetsOf(p.data.nodes)) <= MAX_MODEL_BYTES;
  let r;
  if (c.error) r = invalid(c.error);
  else {
    const a = c.ok.args;
    const node = a.node !== undefined ? a.node : c.ok.node;
    const opts = {};
    for (const k of ['limit', 'depth', 'continuation']) if (a[k] !== undefined) opts[k] = a[k];
    const caller = 'session';
    switch (c.ok.operation) {
      case 'cursor':
        r = await getCursor(caller, {});
        break;
      case 'focus':
        r = await getFocus(caller, {});
        break;
      case 'selection':
        r = await getSelection(caller, {});
        break;
      case 'point': {
        const p = {};
        for (const k of ['x', 'y', 'coordinate_space', 'radius_css_px', 'step_css_px'])
          if (a[k] !== undefined) p[k] = a[k];
        r = await hitTestApi(caller, p, { fromRoot: true });
        break;
      }
      case 'tree':
        r = await getTree(caller, node === undefined ? null : node, Object.assign({ fromRoot: true }, opts), fits);
        break;
      case 'find':
        delete opts.depth;
        r =
          a.depth !== undefined
            ? invalid('unexpected-field')
            : await find(caller, a.query, Object.assign({ fromRoot: true }, opts), node || null, fits);
        break;
      case 'geometry':
        r = node === undefined ? invalid('node-reference-required') : await getGeometry(caller, node);
        break;
    }
  }
  const out = inspectionOf(requestId, r);
  out.targets = targetsOf((r.data && r.data.nodes) || []);
  // The inspection object within 98,304 canonical bytes: nodes cut from the end, `partial` with
  // `response-budget`, and no continuation (a later page could skip the rows cut).
  const size = () => {
    const x = Object.assign({}, out);
    delete x.targets;
    return utf8Len(canonicalJson(x));
  };
  if (size() > INSPECT.sessionBytes) {
    out.data = Object.assign({}, out.data, { nodes: out.data.nodes.slice() });
    while (out.data.nodes.length && size() > INSPECT.sessionBytes) out.data.nodes.pop();
    out.outcome = 'partial';
    out.omissions = out.omissions.concat([{ reason: 'response-budget' }]).slice(0, INSPECT.omissionsMax);
    delete out.continuation;
    out.targets = targetsOf(out.data.nodes);
  }
  return out;
}
