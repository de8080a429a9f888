// The paged reads: find(query, options) (semantic, exact node_id and CSS search) and
// getTree(root?, options), here or in the child realm the scope node came from; fromRoot calls of a
// child realm are answered by the top. `fits` (the Session route's): host/inspect-paging.js paged.
import { doc } from '../core/natives.js';
import { INSPECT } from '../core/constants.js';
import { nodeType } from '../core/dom-reads.js';
import { ROLE } from '../core/state.js';
import { checkOptions, checkFindQuery, FIND_OPTIONS, TREE_OPTIONS } from '../core/inspect-args.js';
import { checkSelector } from '../dom/css-native.js';
import { issueLocal } from '../realm/inspect-nodes.js';
import { composeFind, composeTree, composeCss } from '../relay/inspect-compose.js';
import { askChild } from '../relay/inspect-relay.js';
import { invalid, ctxFor, notGranted, unavailableHere, viaTop, refTarget } from './inspect-result.js';
import { bindingKey, continuationStart, paged } from './inspect-paging.js';

// A paged read answered by the child realm behind `iframe`: its records and whether more follow,
// its omissions the read's; a child's refusal keeps its code (`invalid`).
async function fromChild(iframe, req, want, ctx) {
  const b = ctx.budgets;
  const lease = { depth: b.depth, queries: b.queries, bytes: b.bytes, candidates: want };
  const a = await askChild(iframe, req, lease, ctx.deadlineAt, null);
  if (a.invalid) return { invalid: a.invalid };
  ctx.omissions = a.omissions;
  return { records: a.records, more: a.more };
}

// The page of a semantic find or a tree read from `offset`, `limit` rows at most: the records up to
// offset + limit come from the child realm behind the scope (`t.via`: `req` asked of it) or from
// `local(want, ctx)` here; `fits`: host/inspect-paging.js paged.
async function pageFrom(t, req, local, offset, limit, key, rootRef, fits) {
  const ctx = ctxFor();
  const want = offset + limit;
  let r;
  if (t && t.via) {
    r = await fromChild(t.via.iframe, Object.assign({ want: want }, req), want, ctx);
    if (r.invalid) return invalid(r.invalid);
  } else r = await local(want, ctx);
  return paged(r.records, r.more, offset, limit, key, ctx.omissions, { root: rootRef }, 0, fits);
}

// find(query, options), and the Session route's find within `scopeRef` (relay.md Part 2: scope
// {fromRoot, node}; spec: every scope, root and node argument is a complete returned NodeRef): the
// search runs under that node (an exact {node_id} search includes the node itself, so get_node of a
// Document or ShadowRoot ref finds it), in this realm or the child realm it came from.
export async function find(caller, query, options, scopeRef, fits) {
  const q = checkFindQuery(query);
  if (q.error) return invalid(q.error);
  // A CSS selector is judged before anything else: the browser's own parser, then the allowlist.
  const sel = q.ok.mode === 'css' ? checkSelector(q.ok.css) : {};
  if (sel.error) return invalid(sel.error);
  const o = checkOptions(options, FIND_OPTIONS, INSPECT.findMax);
  if (o.error) return invalid(o.error);
  if (notGranted()) return unavailableHere();
  if (o.ok.fromRoot && ROLE === 'child') return viaTop(caller, 'find', [query, options]);
  const qq = q.ok;
  if (qq.mode === 'css') {
    const t = refTarget(qq.scope);
    if (t.res) return t.res;
    if (t.up) return viaTop(caller, 'find', [query, Object.assign({}, options, { fromRoot: true })]);
    const key = bindingKey(caller, 'css', qq.scope.node_id, qq.css);
    const start = continuationStart(o.ok.continuation, key);
    if (start.res) return start.res;
    const want = start.offset + o.ok.limit;
    const ctx = ctxFor();
    let r;
    if (t.via) {
      // The child realm skips the earlier pages itself: each page asks for `limit` records only.
      r = await fromChild(
        t.via.iframe,
        { op: 'css', node_id: qq.scope.node_id, selector: qq.css, want: o.ok.limit, skip: start.offset },
        o.ok.limit,
        ctx,
      );
      if (r.invalid) return invalid(r.invalid);
      r.skipped = start.offset;
    } else {
      const kind = nodeType(t.node);
      if (kind !== 9 && kind !== 11) return invalid('css-root-required');
      r = composeCss(t.node, qq.css, want, ctx, start.offset);
      if (r.error) return invalid(r.error);
    }
    return paged(r.records, r.more, start.offset, o.ok.limit, key, ctx.omissions, { root: qq.scope }, r.skipped, fits);
  }
  let t = null;
  if (scopeRef) {
    t = refTarget(scopeRef);
    if (t.res) return t.res;
    if (t.up) return invalid('invalid-scope');
  }
  const scope = t ? t.node : doc();
  const rootRef = t ? t.ref : issueLocal(scope);
  const key = bindingKey(caller, 'find', rootRef.node_id, qq);
  const start = continuationStart(o.ok.continuation, key);
  if (start.res) return start.res;
  const req = { op: 'find', node_id: rootRef.node_id, query: query };
  const local = (want, ctx) => composeFind(scope, qq, want, ctx);
  return pageFrom(t, req, local, start.offset, o.ok.limit, key, rootRef, fits);
}

// getTree(root?, options); `fits` (the Session route's): host/inspect-paging.js paged.
export async function getTree(caller, root, options, fits) {
  const o = checkOptions(options, TREE_OPTIONS, INSPECT.treeMax);
  if (o.error) return invalid(o.error);
  if (notGranted()) return unavailableHere();
  if (o.ok.fromRoot && ROLE === 'child') return viaTop(caller, 'getTree', [root === undefined ? null : root, options]);
  let t = null;
  if (root !== undefined && root !== null) {
    t = refTarget(root);
    if (t.res) return t.res;
    if (t.up) return viaTop(caller, 'getTree', [root, Object.assign({}, options, { fromRoot: true })]);
  }
  const rootNode = t && t.node ? t.node : t ? null : doc();
  const rootRef = t ? t.ref : issueLocal(rootNode);
  const key = bindingKey(caller, 'tree', rootRef.node_id, { depth: o.ok.depth });
  const start = continuationStart(o.ok.continuation, key);
  if (start.res) return start.res;
  const req = { op: 'tree', node_id: rootRef.node_id, depth: o.ok.depth };
  const local = (want, ctx) => composeTree(rootNode, o.ok.depth, want, ctx);
  return pageFrom(t, req, local, start.offset, o.ok.limit, key, rootRef, fits);
}
