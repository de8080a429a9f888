// Recursive point resolution in this realm (spec: sampling — every point is hit-tested in this
// realm; the points landing in one iframe go to that child in one relay query under a disjoint
// lease; budget, transform, capability and transport failures become omissions with the child's
// mount_id and the first affected point_id; child results are projected and merged).
// points: [{point_id, x, y}] in this realm's viewport; budgets: remaining {depth, queries, points,
// candidates, bytes}. Returns {hits: {point_id: [target_id]}, candidates: Map, omissions: [], ...}.
import { GRANT_LIMITS, CODE_TO_REASON } from '../core/constants.js';
import { r3, isInt, shortId } from '../core/util.js';
import { safe } from '../core/dom-reads.js';
import { targetIdOf, mountOf } from '../realm/identity.js';
import { hitTest } from '../realm/hit-test.js';
import { describe } from '../realm/candidates.js';
import { hasUnsupportedTransform } from '../realm/paths.js';
import { clampPath } from '../dom/segments.js';
import { chainFor, projectDescriptor } from '../realm/project.js';
import { sanitizeOmission } from '../dom/sanitize.js';
import { getBinding, waitUsable, usable, sendQuery, declaredWithoutRuntime } from './parent.js';
import { newLedger, admitQuery, splitLeases, leaseFor, capToGrant } from './leases.js';

export async function resolvePoints(points, budgets, deadlineAt, options) {
  // `accounting`: what this call did with its budgets, for the internal debug hook (core/state.js ACCT):
  // the budgets it had, what was left after its own direct queries (`remaining`), and per child query
  // the points sent, the lease handed down and what the child reported using.
  const out = {
    hits: {},
    candidates: new Map(),
    omissions: [],
    queriesUsed: 0,
    pointsUsed: 0,
    accounting: {
      budgets: Object.assign({}, budgets),
      remaining: { queries: budgets.queries, points: budgets.points },
      children: [],
    },
  };
  const textNone = options && options.privacy_text === 'none';
  const groups = new Map();
  const excludedSeen = new Set();
  const redactedSeen = new Set();
  const hiddenSeen = new Set();
  for (const p of points) {
    const h = safe(() => hitTest(p.x, p.y), { kind: 'none' });
    if (h.kind === 'none') continue;
    if (h.kind === 'excluded') {
      if (!excludedSeen.has(h.el)) {
        excludedSeen.add(h.el);
        out.omissions.push({ reason: 'excluded', point_id: p.point_id });
      }
      continue;
    }
    if (h.kind === 'hidden') {
      // A shadow root the runtime cannot enter: no candidate is invented at the host (hidden-roots.js).
      if (!hiddenSeen.has(h.el)) {
        hiddenSeen.add(h.el);
        out.omissions.push({ reason: 'unsupported-boundary', mount_id: mountOf(h.el).mount_id, point_id: p.point_id });
      }
      continue;
    }
    if (h.kind === 'iframe') {
      let g = groups.get(h.el);
      if (!g) {
        g = { points: [], redacted: h.redacted };
        groups.set(h.el, g);
      }
      g.points.push({ point_id: p.point_id, x: r3(h.x), y: r3(h.y) });
      continue;
    }
    const tid = targetIdOf(h.el);
    let c = out.candidates.get(tid);
    if (!c) {
      c = safe(() => describe(h.el, { redacted: h.redacted, textNone: textNone, role: h.role }), null);
      if (!c) continue;
      c.sample_point_ids = [];
      out.candidates.set(tid, c);
      const rr = h.redactRoot || (c.redacted ? h.el : null);
      if (c.redacted && rr && !redactedSeen.has(rr)) {
        redactedSeen.add(rr);
        out.omissions.push({ reason: 'redacted', point_id: p.point_id });
      }
    }
    c.sample_point_ids.push(p.point_id);
    out.hits[p.point_id] = [tid];
  }
  if (groups.size === 0) return out;
  // Disjoint leases: each child query costs 1 query + its points; what remains is split evenly.
  const entries = Array.from(groups.entries());
  const ledger = newLedger(budgets);
  const plans = [];
  for (const [ifr, g] of entries) {
    const b = getBinding(ifr);
    const omitAll = (reason, code, stage) => {
      const o = { reason: reason, mount_id: b.mountId, point_id: g.points[0].point_id };
      if (code) o.detail = 'transport:' + code + ':stage:' + stage;
      out.omissions.push(o);
    };
    if (budgets.depth <= 0) {
      omitAll('depth-limit');
      continue;
    }
    if (safe(() => hasUnsupportedTransform(ifr), false)) {
      omitAll('unsupported-transform');
      continue;
    }
    const admitted = admitQuery(ledger, g.points);
    if (admitted.reason) {
      omitAll(admitted.reason);
      continue;
    }
    if (admitted.cut !== null)
      out.omissions.push({ reason: 'point-budget', mount_id: b.mountId, point_id: admitted.cut });
    const pts = admitted.points;
    if (pts.length === 0) continue;
    plans.push({ b: b, g: g, pts: pts, omitAll: omitAll });
  }
  const leases = splitLeases(budgets, ledger, plans.length);
  out.accounting.remaining = { queries: ledger.queries, points: ledger.points };
  await Promise.all(
    plans.map(async (plan, i) => {
      const b = plan.b;
      await waitUsable(b, deadlineAt);
      if (!usable(b)) {
        if (b.state === 'detached') plan.omitAll('stale-mount', 'detached', 'query-call');
        else if (b.state === 'navigating') plan.omitAll('navigation', 'navigation', 'query-call');
        else if (b.state === 'unsupported') plan.omitAll('unsupported-boundary');
        else
          plan.omitAll(
            'capability-unavailable',
            b.state === 'unavailable'
              ? b.lastCode === 'unsupported-version'
                ? 'unsupported-version'
                : 'unavailable'
              : declaredWithoutRuntime(b)
                ? 'unavailable'
                : 'deadline-exceeded',
            'query-call',
          );
        return;
      }
      const capped = capToGrant(plan.pts, b.limits.points);
      if (capped.cut !== null)
        out.omissions.push({ reason: 'point-budget', mount_id: b.mountId, point_id: capped.cut });
      const pts = capped.points;
      out.queriesUsed += 1;
      out.pointsUsed += pts.length;
      const chain = chainFor(b); // before awaiting: geometry and path as of the query
      const lease = leaseFor(leases[i], b.limits);
      const acct = {
        mount_id: b.mountId,
        generation: b.generation,
        point_ids: pts.map((p) => p.point_id),
        lease: lease,
        outcome: 'pending',
        queries_used: 0,
        points_used: 0,
        candidates: 0,
      };
      out.accounting.children.push(acct);
      const res = await sendQuery(b, pts, lease, deadlineAt, { privacy_text: textNone ? 'none' : 'safe' });
      acct.outcome = res.error ? res.error : 'result';
      if (!res.error && res.result) {
        const r = res.result;
        if (isInt(r.queries_used) && r.queries_used > 0) acct.queries_used = r.queries_used;
        if (isInt(r.points_used) && r.points_used > 0) acct.points_used = r.points_used;
        if (Array.isArray(r.candidates)) acct.candidates = r.candidates.length;
      }
      if (res.error) {
        const reason = CODE_TO_REASON[res.error] || 'capability-unavailable';
        plan.omitAll(reason, res.error, 'query-await');
        return;
      }
      safe(() => mergeChildResult(out, b, chain, res.result, pts));
    }),
  );
  return out;
}
function mergeChildResult(out, b, chain, r, pts) {
  const sent = new Set(pts.map((p) => p.point_id));
  if (chain.excluded) {
    out.omissions.push({ reason: 'excluded', mount_id: b.mountId });
    return;
  }
  const cands = Array.isArray(r.candidates) ? r.candidates : [];
  const local = new Map();
  for (const d of cands.slice(0, GRANT_LIMITS.candidates)) {
    const pd = projectDescriptor(d, chain);
    if (!pd) continue;
    if (pd.path.length > 32 || d.clamped === true) pd.clamped = true;
    pd.path = clampPath(pd.path);
    pd.sample_point_ids = [];
    local.set(pd.target_id, pd);
  }
  const hits = r.hits && typeof r.hits === 'object' ? r.hits : {};
  for (const pid of Object.keys(hits)) {
    if (!sent.has(pid) || !Array.isArray(hits[pid])) continue;
    for (const tid0 of hits[pid].slice(0, 4)) {
      if (typeof tid0 !== 'string') continue;
      const tid = shortId(tid0, 128);
      const c = local.get(tid);
      if (!c) continue;
      let existing = out.candidates.get(tid);
      if (!existing) {
        existing = c;
        out.candidates.set(tid, c);
      }
      if (existing.sample_point_ids.indexOf(pid) < 0) existing.sample_point_ids.push(pid);
      (out.hits[pid] = out.hits[pid] || []).push(tid);
    }
  }
  out.candidates.forEach((c, tid) => {
    if (c.sample_point_ids.length === 0) out.candidates.delete(tid);
  });
  if (Array.isArray(r.omissions)) {
    for (const o of r.omissions.slice(0, 128)) {
      const so = sanitizeOmission(o, sent);
      if (so) out.omissions.push(so);
    }
  }
  if (chain.redacted) out.omissions.push({ reason: 'redacted', mount_id: b.mountId });
  if (isInt(r.queries_used) && r.queries_used > 0) out.queriesUsed += r.queries_used;
  if (isInt(r.points_used) && r.points_used > 0) out.pointsUsed += r.points_used;
}
