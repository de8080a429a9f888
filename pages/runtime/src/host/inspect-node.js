// The reads of one node or one point: getNode(ref), getGeometry(ref) and hitTest({x, y,
// coordinate_space, radius_css_px, step_css_px}, options?), here or in the child realm the ref came
// from.
import { INSPECT, ROOT_BUDGET } from '../core/constants.js';
import { r3, rectFromTuple } from '../core/util.js';
import { ROLE } from '../core/state.js';
import { checkOptions, checkHit, READ_OPTIONS } from '../core/inspect-args.js';
import { localGeometry, localFrame } from '../relay/inspect-compose.js';
import { askChild } from '../relay/inspect-relay.js';
import { localHits, upCall } from '../relay/inspect-child.js';
import { latticePoints } from './lattice.js';
import {
  result,
  invalid,
  outcomeOf,
  ctxFor,
  notGranted,
  unavailableHere,
  viaTop,
  refTarget,
  recOf,
} from './inspect-result.js';

// getNode(ref) and getGeometry(ref): one node, here or in the child realm it came from.
async function oneNode(caller, ref, op, method) {
  if (notGranted()) return unavailableHere();
  const t = refTarget(ref);
  if (t.res) return t.res;
  if (t.up) return viaTop(caller, method, [ref]);
  const ctx = ctxFor();
  if (t.via) {
    const a = await askChild(
      t.via.iframe,
      { op: op, node_id: t.ref.node_id, want: 1 },
      { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: 1 },
      ctx.deadlineAt,
      null,
    );
    return { ref: t.ref, records: a.records, omissions: a.omissions, frame: a.frame, unsupported: !!a.unsupported };
  }
  if (op === 'geometry') {
    const g = localGeometry(t.node, ctx);
    return { ref: t.ref, records: g.records, omissions: ctx.omissions, frame: g.frame, unsupported: g.unsupported };
  }
  return { ref: t.ref, records: [recOf(t.node)], omissions: ctx.omissions };
}
export async function getNode(caller, ref) {
  const r = await oneNode(caller, ref, 'node', 'getNode');
  if (r.outcome) return r;
  if (!r.records.length) {
    const stale = r.omissions.some((o) => o.reason === 'stale-mount');
    return result(stale ? 'stale' : outcomeOf([], r.omissions), { nodes: [] }, r.omissions);
  }
  return result(outcomeOf(r.records, r.omissions), { nodes: r.records.slice(0, 1) }, r.omissions);
}
// The up call that maps a child realm's layout into the Host viewport, one iframe per hop
// (host/inspect.js answers it; relay/inspect-relay.js layoutUp maps it).
export const LAYOUT_UP = 'layoutUp';
// A child realm's layout in Host-viewport numbers, as the Host's own read of the node gives them
// (spec: returned geometry is in Host viewport CSS pixels). -> {layout} or {omission}.
async function hostLayout(caller, layout) {
  const r = await upCall(caller, LAYOUT_UP, [layout], INSPECT.timeoutMs * 2);
  const l = r && r.outcome === 'ok' && r.data ? r.data.layout : null;
  if (l && typeof l === 'object' && rectFromTuple(l.rect)) return { layout: l };
  const o = r && Array.isArray(r.omissions) && r.omissions[0];
  if (o && o.reason === 'unsupported-transform') return { omission: { reason: 'unsupported-transform' } };
  return {
    omission: { reason: 'capability-unavailable', detail: 'transport:deadline-exceeded:stage:query-await' },
  };
}
export async function getGeometry(caller, ref) {
  const r = await oneNode(caller, ref, 'geometry', 'getGeometry');
  if (r.outcome) return r;
  if (!r.records.length) return result(outcomeOf([], r.omissions), { nodes: [], geometry: null }, r.omissions);
  let rec = r.records[0];
  const om = r.omissions.slice();
  let geometry = null;
  if (ROLE === 'child' && rec.layout && !r.unsupported) {
    // This realm's viewport is not the Host's: the numbers go up through every iframe to the top.
    const h = await hostLayout(caller, rec.layout);
    if (h.omission) {
      h.omission.node = r.ref;
      om.push(h.omission);
      return result('partial', { nodes: [rec], geometry: null }, om);
    }
    rec = Object.assign({}, rec, { layout: h.layout });
  }
  if (r.unsupported || !rec.layout) {
    if (r.unsupported && !om.some((o) => o.reason === 'unsupported-transform'))
      om.push({ reason: 'unsupported-transform', node: r.ref });
  } else
    geometry = {
      rect: rectFromTuple(rec.layout.rect),
      clip: rectFromTuple(rec.layout.clip || rec.layout.rect),
      visible: rec.layout.visible !== false,
      offscreen: rec.layout.offscreen === true,
      quality: 'exact',
      coordinate_space: 'host-viewport',
      node: r.ref,
    };
  const outcome = geometry ? outcomeOf([rec], om) : 'partial';
  return result(outcome, { nodes: [rec], geometry: geometry }, om);
}

// hitTest({x, y, coordinate_space, radius_css_px, step_css_px}, options?)
export async function hitTestApi(caller, args, options) {
  const h = checkHit(args);
  if (h.error) return invalid(h.error);
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (notGranted()) return unavailableHere();
  if (o.ok.fromRoot && ROLE === 'child') return viaTop(caller, 'hitTest', [args, options]);
  let cx = h.ok.x,
    cy = h.ok.y;
  const omissions = [];
  if (h.ok.space !== 'host-viewport') {
    const t = refTarget(h.ok.space);
    if (t.res) return t.res;
    if (t.up) return viaTop(caller, 'hitTest', [args, Object.assign({}, options, { fromRoot: true })]);
    let frame = null,
      unsupported = false;
    if (t.via) {
      const g = await oneNode(caller, h.ok.space, 'geometry', 'getGeometry');
      if (g.outcome) return g;
      frame = g.frame;
      unsupported = g.unsupported || !g.frame;
      for (const x of g.omissions) omissions.push(x);
    } else {
      const f = localFrame(t.node);
      unsupported = !f || !!f.unsupported;
      frame = unsupported ? null : f;
    }
    if (unsupported || !frame)
      return result('unavailable', { nodes: [] }, [{ reason: 'unsupported-transform', node: t.ref }]);
    cx = frame.x + h.ok.x * frame.sx;
    cy = frame.y + h.ok.y * frame.sy;
  }
  let pts = latticePoints(cx, cy, h.ok.radius, h.ok.step);
  // Nearest the centre first: the nodes come in the order of their nearest sample point.
  pts.sort((a, b) => (a.x - cx) ** 2 + (a.y - cy) ** 2 - ((b.x - cx) ** 2 + (b.y - cy) ** 2));
  if (pts.length > ROOT_BUDGET.points) {
    omissions.push({ reason: 'point-budget' });
    pts = pts.slice(0, ROOT_BUDGET.points);
  }
  const ctx = ctxFor();
  const r = await localHits(pts, ctx, INSPECT.treeMax);
  for (const x of ctx.omissions) omissions.push(x);
  if (r.more) omissions.push({ reason: 'candidate-budget' });
  return result(outcomeOf(r.records, omissions), { nodes: r.records, point: { x: r3(cx), y: r3(cy) } }, omissions);
}
