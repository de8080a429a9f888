// The shape every inspection read resolves to (spec: "Canonical inspection and agent tools"; relay.md
// v2): {outcome, data, omissions, revisions, continuation?}, the outcome a result's omissions imply,
// `invalid-request` for bad input, the query context (deadline, budgets) a read starts with, and
// how a caller's ref resolves here, in a child realm, or at the top (a fromRoot call of a child realm).
import { nDateNow } from '../core/natives.js';
import { INSPECT, INSPECT_OUTCOMES, ROOT_BUDGET } from '../core/constants.js';
import { ROLE, UP, INSPECTION } from '../core/state.js';
import { checkRefShape } from '../core/inspect-args.js';
import { resolveRef, issueLocal, treeParent, localRecord } from '../realm/inspect-nodes.js';
import { upCall } from '../relay/inspect-child.js';
import { ackChildren } from '../relay/inspect-parent.js';

// Omissions that mean something the caller asked for is missing (the result is `partial`).
const MISSING = {
  'capability-unavailable': 1,
  'child-timeout': 1,
  'child-disconnected': 1,
  navigation: 1,
  'stale-mount': 1,
  'depth-limit': 1,
  'query-budget': 1,
  'point-budget': 1,
  'candidate-budget': 1,
  'response-budget': 1,
  'unsupported-boundary': 1,
  'unsupported-transform': 1,
};
// The revisions as reported (a result, a notice, the debug read): children that told of changes
// since the last report may tell again (relay/inspect-parent.js ackChildren).
export function revisionsNow() {
  ackChildren();
  const r = INSPECTION.revisions;
  return { tree: r.tree, observation: r.observation, geometry: r.geometry };
}
export function result(outcome, data, omissions, continuation) {
  const out = {
    outcome: INSPECT_OUTCOMES.indexOf(outcome) >= 0 ? outcome : 'unavailable',
    data: data || { nodes: [] },
    omissions: (omissions || []).slice(0, INSPECT.omissionsMax),
    revisions: revisionsNow(),
  };
  if (continuation) out.continuation = continuation;
  return out;
}
export function invalid(detail) {
  const o = { reason: 'invalid-request' };
  if (detail) o.detail = detail;
  return result('unavailable', { nodes: [] }, [o]);
}
export function outcomeOf(nodes, omissions) {
  const missing = omissions.some((o) => MISSING[o.reason]);
  if (nodes.length === 0) return missing ? 'partial' : 'empty';
  return missing ? 'partial' : 'ok';
}
export function ctxFor(budgets) {
  return {
    deadlineAt: nDateNow() + INSPECT.timeoutMs,
    budgets: budgets || { depth: ROOT_BUDGET.depth, queries: ROOT_BUDGET.queries, bytes: ROOT_BUDGET.bytes },
    redacted: false,
    omissions: [],
    parentRef: null,
  };
}
export function notGranted() {
  return ROLE === 'child' && !UP.granted;
}
export function unavailableHere() {
  return result('unavailable', { nodes: [] }, [
    { reason: 'capability-unavailable', detail: 'transport:unavailable:stage:query-call' },
  ]);
}
// A fromRoot call of a child realm, answered by the top through the parent chain.
export async function viaTop(caller, method, args) {
  const r = await upCall(caller, method, args, INSPECT.timeoutMs * 2);
  if (!r || typeof r.outcome !== 'string')
    return result('unavailable', { nodes: [] }, [
      { reason: 'capability-unavailable', detail: 'transport:deadline-exceeded:stage:query-await' },
    ]);
  return r;
}
// A ref given by the caller: {node} | {via} | {up} | an invalid / stale result.
export function refTarget(v) {
  const c = checkRefShape(v);
  if (c.error) return { res: invalid(c.error) };
  const r = resolveRef(c.ok);
  if (r.error) return { res: invalid('ref-unknown') };
  if (r.stale) return { res: result('stale', { nodes: [] }, [{ reason: 'stale-mount', node: c.ok }]) };
  return Object.assign({ ref: c.ok }, r);
}
export function recOf(n) {
  const p = treeParent(n);
  return localRecord(n, p ? issueLocal(p) : null);
}
