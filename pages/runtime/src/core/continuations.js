// Continuation tokens of the inspection API (spec / relay.md: opaque, single use, bound to caller,
// scope, query, tree revision and the remaining aggregate work, expire after 30 s; a changed tree
// gives `stale` with `revision-changed`). The token is random; what it is bound to stays here, in
// the realm that issued it. Pure: the store, the clock (`now`, the observation clock in the runtime)
// and the id source are passed in, so the Node tests drive expiry with a fake clock.
import { INSPECT } from './constants.js';

// A remembered token: {binding: string (caller|scope|query key), tree: revision, offset: items already
// returned, work: remaining aggregate work, expiresAt, used}. At most `max` kept (oldest dropped).
export function issueContinuation(store, rec, now, newId, max = 256) {
  const token = newId();
  store.set(token, {
    binding: rec.binding,
    tree: rec.tree,
    offset: rec.offset,
    work: rec.work,
    expiresAt: now + INSPECT.continuationTtlMs,
    used: false,
  });
  while (store.size > max) store.delete(store.keys().next().value);
  return token;
}

// -> {ok: rec} (now marked used) or {outcome, reason}: `continuation-used` (unavailable) for a token
// already taken, `continuation-expired` (stale) after 30 s, `revision-changed` (stale) when the tree
// revision moved, `invalid-request` (unavailable) for an unknown token or one bound to another caller,
// scope or query. A refused token is spent as well (expired, changed, mismatched: never usable again).
export function takeContinuation(store, token, binding, tree, now) {
  const rec = typeof token === 'string' ? store.get(token) : undefined;
  if (!rec) return { outcome: 'unavailable', reason: 'invalid-request' };
  if (rec.used) return { outcome: 'unavailable', reason: 'continuation-used' };
  rec.used = true;
  if (rec.binding !== binding) return { outcome: 'unavailable', reason: 'invalid-request' };
  if (now >= rec.expiresAt) return { outcome: 'stale', reason: 'continuation-expired' };
  if (rec.tree !== tree) return { outcome: 'stale', reason: 'revision-changed' };
  return { ok: rec };
}
