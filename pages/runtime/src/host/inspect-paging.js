// Paged reads (find, getTree): a continuation is bound to caller | operation | scope | query and to
// the tree revision (core/continuations.js keeps them); a page is the full order's records from the
// continuation's offset up to its limit, with a new continuation when more follow.
import { canonicalJson } from '../core/canonical-json.js';
import { obsNow } from '../core/clock.js';
import { randHex } from '../core/dom-reads.js';
import { INSPECTION } from '../core/state.js';
import { issueContinuation, takeContinuation } from '../core/continuations.js';
import { result, outcomeOf } from './inspect-result.js';

// Continuation binding: caller | operation | scope | query.
export function bindingKey(caller, op, scope, query) {
  return caller + '|' + op + '|' + scope + '|' + canonicalJson(query === undefined ? null : query);
}
export function continuationStart(token, key) {
  if (!token) return { offset: 0 };
  const t = takeContinuation(INSPECTION.continuations, token, key, INSPECTION.revisions.tree, obsNow());
  if (t.ok) return { offset: t.ok.offset };
  return { res: result(t.outcome, { nodes: [] }, [{ reason: t.reason }]) };
}
function continuationAfter(more, key, offset) {
  if (!more) return null;
  return issueContinuation(
    INSPECTION.continuations,
    { binding: key, tree: INSPECTION.revisions.tree, offset: offset, work: offset },
    obsNow(),
    () => 'c-' + randHex(24),
  );
}
// A page of `records` (the full order's items from `from` up to offset + limit; `from` 0 unless
// the items before it were skipped undescribed): -> result.
export function paged(records, more, offset, limit, key, omissions, extra, from) {
  const base = from || 0;
  const nodes = records.slice(offset - base, offset - base + limit);
  const cont = continuationAfter(more || base + records.length > offset + limit, key, offset + limit);
  return result(outcomeOf(nodes, omissions), Object.assign({ nodes: nodes }, extra || {}), omissions, cont);
}
