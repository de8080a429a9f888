// Paged reads (find, getTree): a continuation is bound to caller | operation | scope | query and to
// the tree revision (core/continuations.js keeps them); a page is the full order's records from the
// continuation's offset up to its limit, with a new continuation when more follow. A caller that
// keeps only what fits a byte ceiling (the Session's 8 KiB model result, host/inspect-session.js)
// gives a `fits` judge: the page then ends before the first row that would not fit, and the rest
// comes through the continuation (a first row that alone does not fit is still answered, alone).
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
const TOKEN_HEX_BYTES = 24;
/** A continuation token's shape: what a `fits` judge measures a page with (the same length). */
export const CONTINUATION_SHAPE = 'c-' + '0'.repeat(2 * TOKEN_HEX_BYTES);
function continuationAfter(more, key, offset) {
  if (!more) return null;
  return issueContinuation(
    INSPECTION.continuations,
    { binding: key, tree: INSPECTION.revisions.tree, offset: offset, work: offset },
    obsNow(),
    () => 'c-' + randHex(TOKEN_HEX_BYTES),
  );
}
// A page of `records` (the full order's items from `from` up to offset + limit; `from` 0 unless
// the items before it were skipped undescribed): -> result. `fits(page)`, when given, judges a
// candidate result (its continuation of CONTINUATION_SHAPE when one will be issued) and the page
// is the longest prefix it accepts, at least one row.
export function paged(records, more, offset, limit, key, omissions, extra, from, fits) {
  const base = from || 0;
  let nodes = records.slice(offset - base, offset - base + limit);
  let hasMore = more || base + records.length > offset + limit;
  if (hasMore && nodes.length === 0) {
    // An empty page although more were promised (a source that cannot reach past a cap) ends the
    // continuation and names the missing rest: continuations always end.
    hasMore = false;
    omissions = omissions.concat([{ reason: 'candidate-budget' }]);
  }
  const outcome = outcomeOf(nodes, omissions);
  const page = (rows, cont) =>
    result(outcome, Object.assign({ nodes: rows }, extra || {}), omissions, cont ? CONTINUATION_SHAPE : null);
  if (fits && nodes.length > 1 && !fits(page(nodes, hasMore))) {
    // The judge's size grows with every row kept: bisect for the longest prefix that fits.
    let lo = 1,
      hi = nodes.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(page(nodes.slice(0, mid), true))) lo = mid;
      else hi = mid - 1;
    }
    nodes = nodes.slice(0, lo);
    hasMore = true;
  }
  const cont = continuationAfter(hasMore, key, offset + nodes.length);
  return result(outcome, Object.assign({ nodes: nodes }, extra || {}), omissions, cont);
}
