// A Web Fragment realm's reads, scoped by default to the fragment's own subtree.
import { safe, composedParent } from '../core/dom-reads.js';
import { resolveRef, issueLocal } from '../realm/inspect-nodes.js';
import { result, outcomeOf } from './inspect-result.js';
import { find, getTree } from './inspect-tree.js';
import { hitTestApi } from './inspect-node.js';

// A Web Fragment realm's reads (host/api.js): its DOM is physical DOM of this realm, so this realm
// answers them, but by default within the fragment's own subtree (spec: "Public packages can inspect
// their own registered subtree"), `scope`: the root its physical DOM lives in (the shadow root of
// its web-fragment-host). fromRoot calls are this realm's; so is CSS search, whose scope is always
// a returned Document or ShadowRoot; the observation reads are the Host's records, as for every
// child realm.
const fromRootAsked = (options) => !!(options && typeof options === 'object' && options.fromRoot === true);
const cssQuery = (query) =>
  !!(query && typeof query === 'object' && Object.prototype.hasOwnProperty.call(query, 'css'));
function within(n, scope) {
  for (let x = n; x; x = composedParent(x)) if (x === scope) return true;
  return false;
}
export function scopedFind(caller, query, options, scope) {
  if (fromRootAsked(options) || cssQuery(query) || !scope) return find(caller, query, options);
  return find(caller, query, options, issueLocal(scope));
}
export function scopedTree(caller, root, options, scope) {
  if ((root === undefined || root === null) && !fromRootAsked(options) && scope) root = issueLocal(scope);
  return getTree(caller, root, options);
}
export async function scopedHitTest(caller, args, options, scope) {
  const r = await hitTestApi(caller, args, options);
  if (fromRootAsked(options) || !scope || (r.outcome !== 'ok' && r.outcome !== 'partial')) return r;
  // A node answered by a child realm below the fragment counts by its iframe element.
  const inScope = (rec) => {
    const t = safe(() => resolveRef(rec.ref), {});
    const n = t.node || (t.via && t.via.iframe) || null;
    return !!n && within(n, scope);
  };
  const nodes = r.data.nodes.filter(inScope);
  if (nodes.length === r.data.nodes.length) return r;
  return result(outcomeOf(nodes, r.omissions), Object.assign({}, r.data, { nodes: nodes }), r.omissions);
}
