// Budget and lease arithmetic of the relay (spec: budgets — the root starts with depth 8, 128
// queries, 4,096 points, 128 candidates, 128 KiB; each direct child query costs 1 query and its
// points; what remains is split evenly as disjoint leases, depth - 1; grants are clamped to the
// runtime's limits and lifetime, renewed `min(5 s, lifetime / 2)` before expiry). DOM-free.
// Ledger scope: queries and points are a ledger (a realm's own queries are paid first, only the rest
// is leased). Candidates and bytes are not: each child's lease is a share of the realm's whole
// candidate / byte budget, the realm's own local candidates are not deducted first, so children may
// together return more than the realm can pass up; the realm cuts that overflow at the end
// (reply-limits.js, at the root the snapshot's 128-candidate / 30 KiB trim). The leases stay
// disjoint; the work of the overflow is wasted, not duplicated.
import { GRANT_LIMITS, GRANT_LIFETIME_MS, QUERY_TIMEOUT_MS } from '../core/constants.js';
import { isInt } from '../core/util.js';

// What is left of a realm's budgets while its child queries are planned.
export function newLedger(budgets) {
  return { queries: budgets.queries, points: budgets.points };
}

// Admits one child query of `points` against the ledger. -> {reason: 'query-budget'} when no query
// is left; else {reason: null, points (maybe cut), cut: point_id of the first point cut or null}.
// An admitted non-empty query costs 1 query and its points.
export function admitQuery(ledger, points) {
  if (ledger.queries <= 0) return { reason: 'query-budget', points: [], cut: null };
  let pts = points,
    cut = null;
  if (pts.length > ledger.points) {
    cut = pts[Math.max(0, ledger.points)].point_id;
    pts = pts.slice(0, Math.max(0, ledger.points));
  }
  if (pts.length > 0) {
    ledger.queries -= 1;
    ledger.points -= pts.length;
  }
  return { reason: null, points: pts, cut: cut };
}

// The disjoint leases the `count` admitted child queries pass down, one per child in query order:
// each budget is divided exactly (the first `total % count` children get one more), with no floor,
// so the leases together never exceed what the ledger (queries, points) or this realm's budgets
// (candidates, bytes) hold, whatever the number of children (a child may get 0 of a budget: it then
// answers with that budget's omission).
export function splitLeases(budgets, ledger, count) {
  const n = Math.max(0, count | 0);
  const share = (total, i) => {
    const t = Math.max(0, total);
    return Math.floor(t / n) + (i < t % n ? 1 : 0);
  };
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({
      depth: budgets.depth - 1,
      queries: share(ledger.queries, i),
      points: share(ledger.points, i),
      candidates: share(budgets.candidates, i),
      bytes: share(budgets.bytes, i),
    });
  }
  return out;
}
// A lease, further bounded by what the child granted.
export function leaseFor(lease, limits) {
  return {
    depth: lease.depth,
    queries: lease.queries,
    points: lease.points,
    candidates: Math.min(lease.candidates, limits.candidates),
    bytes: Math.min(lease.bytes, limits.bytes),
  };
}

// Parent side: the limits a grant offers, clamped to ours (a missing or bad value means ours).
export function grantLimits(lim) {
  lim = lim || {};
  return {
    points: Math.min(GRANT_LIMITS.points, isInt(lim.points) && lim.points > 0 ? lim.points : GRANT_LIMITS.points),
    candidates: Math.min(
      GRANT_LIMITS.candidates,
      isInt(lim.candidates) && lim.candidates > 0 ? lim.candidates : GRANT_LIMITS.candidates,
    ),
    bytes: Math.min(GRANT_LIMITS.bytes, isInt(lim.bytes) && lim.bytes > 0 ? lim.bytes : GRANT_LIMITS.bytes),
  };
}
// Parent side: the points of one child query within its grant's point limit. -> {points, cut:
// point_id of the first point cut (the `point-budget` omission's point) or null}.
export function capToGrant(points, limit) {
  if (points.length <= limit) return { points: points, cut: null };
  return { points: points.slice(0, limit), cut: points[limit].point_id };
}
// Parent side: a grant's lifetime in ms, at most GRANT_LIFETIME_MS.
export function grantLifetime(expiresInMs) {
  return isInt(expiresInMs) && expiresInMs > 0 ? Math.min(expiresInMs, GRANT_LIFETIME_MS) : GRANT_LIFETIME_MS;
}
// Parent side: when to start renewing a grant of `life` ms (at least 50 ms from now).
export function renewDelay(life) {
  return Math.max(50, life - Math.min(5000, life / 2));
}

// Child side: the budgets of a query request (bad values mean 0, candidates and bytes bounded by
// what we granted).
export function requestBudgets(bg) {
  bg = bg || {};
  const num = (v, d) => (isInt(v) && v >= 0 ? v : d);
  return {
    depth: num(bg.depth, 0),
    queries: num(bg.queries, 0),
    points: num(bg.points, 0),
    candidates: Math.min(num(bg.candidates, GRANT_LIMITS.candidates), GRANT_LIMITS.candidates),
    bytes: Math.min(num(bg.bytes, GRANT_LIMITS.bytes), GRANT_LIMITS.bytes),
  };
}
// Child side: a query request's timeout in ms (0..10,000, default QUERY_TIMEOUT_MS).
export function requestTimeout(timeoutMs) {
  return isInt(timeoutMs) ? Math.min(Math.max(timeoutMs, 0), 10000) : QUERY_TIMEOUT_MS;
}
