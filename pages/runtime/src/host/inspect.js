// The public inspection API of a realm (spec: "Canonical inspection and agent tools"; quickstart
// "使用公共 API"; relay.md v2): find / getTree / getNode / getGeometry / hitTest / getCursor / getFocus /
// getSelection, every one resolving (never rejecting, never throwing) to {outcome, data, omissions,
// revisions, continuation?}; bad input gives `invalid-request` and changes nothing. Scope: by default
// this realm's own subtree (its document; in the top realm the Host tree); fromRoot: true the whole
// Host tree, asked through the parent chain up to the top (never another tab or the outer page).
// Continuations are kept here (core/continuations.js). Also the Session's route
// `wippyAttention.inspect(request)` (top realm): relay.md's `inspection` object plus `targets`.
import { doc, nDateNow } from '../core/natives.js';
import { INSPECT, INSPECT_OUTCOMES, ROOT_BUDGET } from '../core/constants.js';
import { canonicalJson } from '../core/canonical-json.js';
import { iso, utf8Len, cutBytes, r3 } from '../core/util.js';
import { obsNow } from '../core/clock.js';
import { safe, randHex, nodeType, composedParent } from '../core/dom-reads.js';
import { ROLE, UP, TOP, INSPECTION } from '../core/state.js';
import {
  checkRefShape,
  checkOptions,
  checkFindQuery,
  checkHit,
  checkSessionRequest,
  FIND_OPTIONS,
  TREE_OPTIONS,
  READ_OPTIONS,
} from '../core/inspect-args.js';
import { issueContinuation, takeContinuation } from '../core/continuations.js';
import { checkSelector } from '../dom/css-native.js';
import { resolveRef, issueLocal, treeParent, localRecord, hostInstanceId } from '../realm/inspect-nodes.js';
import { currentFocusRecord } from '../realm/focus.js';
import { selectionOut } from '../realm/selection.js';
import { composeFind, composeTree, composeCss, localGeometry, localFrame } from '../relay/inspect-compose.js';
import { askChild } from '../relay/inspect-relay.js';
import { mergeChildWindows } from '../relay/parent.js';
import { upCall, localHits } from '../relay/inspect-child.js';
import { ackChildren } from '../relay/inspect-parent.js';
import { latticePoints } from './lattice.js';
import { eventOut } from './snapshot.js';
import { pathDigest } from './action-refs.js';
import { clampPath } from '../dom/segments.js';
import { privacyOf } from '../dom/privacy.js';

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
function result(outcome, data, omissions, continuation) {
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
function outcomeOf(nodes, omissions) {
  const missing = omissions.some((o) => MISSING[o.reason]);
  if (nodes.length === 0) return missing ? 'partial' : 'empty';
  return missing ? 'partial' : 'ok';
}
function ctxFor(budgets) {
  return {
    deadlineAt: nDateNow() + INSPECT.timeoutMs,
    budgets: budgets || { depth: ROOT_BUDGET.depth, queries: ROOT_BUDGET.queries, bytes: ROOT_BUDGET.bytes },
    redacted: false,
    omissions: [],
    parentRef: null,
  };
}
function notGranted() {
  return ROLE === 'child' && !UP.granted;
}
function unavailableHere() {
  return result('unavailable', { nodes: [] }, [
    { reason: 'capability-unavailable', detail: 'transport:unavailable:stage:query-call' },
  ]);
}
// A fromRoot call of a child realm, answered by the top through the parent chain.
async function viaTop(caller, method, args) {
  const r = await upCall(caller, method, args, INSPECT.timeoutMs * 2);
  if (!r || typeof r.outcome !== 'string')
    return result('unavailable', { nodes: [] }, [
      { reason: 'capability-unavailable', detail: 'transport:deadline-exceeded:stage:query-await' },
    ]);
  return r;
}
// A ref given by the caller: {node} | {via} | {up} | an invalid / stale result.
function refTarget(v) {
  const c = checkRefShape(v);
  if (c.error) return { res: invalid(c.error) };
  const r = resolveRef(c.ok);
  if (r.error) return { res: invalid('ref-unknown') };
  if (r.stale) return { res: result('stale', { nodes: [] }, [{ reason: 'stale-mount', node: c.ok }]) };
  return Object.assign({ ref: c.ok }, r);
}
function recOf(n) {
  const p = treeParent(n);
  return localRecord(n, p ? issueLocal(p) : null);
}

// Continuation binding: caller | operation | scope | query.
function bindingKey(caller, op, scope, query) {
  return caller + '|' + op + '|' + scope + '|' + canonicalJson(query === undefined ? null : query);
}
function continuationStart(token, key) {
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
// A page that came back empty although more were promised (a source that cannot reach past a cap)
// ends the continuation and names the missing rest (`candidate-budget`): continuations always end.
function paged(records, more, offset, limit, key, omissions, extra, from) {
  const base = from || 0;
  const nodes = records.slice(offset - base, offset - base + limit);
  let rest = more || base + records.length > offset + limit;
  if (rest && nodes.length === 0) {
    rest = false;
    omissions = omissions.concat([{ reason: 'candidate-budget' }]);
  }
  const cont = continuationAfter(rest, key, offset + limit);
  return result(outcomeOf(nodes, omissions), Object.assign({ nodes: nodes }, extra || {}), omissions, cont);
}

// find(query, options), and the Session route's find within `scopeRef` (relay.md Part 2: scope
// {fromRoot, node}; spec: every scope, root and node argument is a complete returned NodeRef): the
// search runs under that node (an exact {node_id} search includes the node itself, so get_node of a
// Document or ShadowRoot ref finds it), in this realm or the child realm it came from.
export async function find(caller, query, options, scopeRef) {
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
      const a = await askChild(
        t.via.iframe,
        { op: 'css', node_id: qq.scope.node_id, selector: qq.css, want: o.ok.limit, skip: start.offset },
        { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: o.ok.limit },
        ctx.deadlineAt,
        null,
      );
      if (a.invalid) return invalid(a.invalid);
      ctx.omissions = a.omissions;
      r = { records: a.records, more: a.more, skipped: start.offset };
    } else {
      const kind = nodeType(t.node);
      if (kind !== 9 && kind !== 11) return invalid('css-root-required');
      r = composeCss(t.node, qq.css, want, ctx, start.offset);
      if (r.error) return invalid(r.error);
    }
    return paged(r.records, r.more, start.offset, o.ok.limit, key, ctx.omissions, { root: qq.scope }, r.skipped);
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
  const ctx = ctxFor();
  const want = start.offset + o.ok.limit;
  let r;
  if (t && t.via) {
    const a = await askChild(
      t.via.iframe,
      { op: 'find', node_id: rootRef.node_id, query: query, want: want },
      { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: want },
      ctx.deadlineAt,
      null,
    );
    if (a.invalid) return invalid(a.invalid);
    ctx.omissions = a.omissions;
    r = { records: a.records, more: a.more };
  } else r = await composeFind(scope, qq, want, ctx);
  return paged(r.records, r.more, start.offset, o.ok.limit, key, ctx.omissions, { root: rootRef });
}

// getTree(root?, options)
export async function getTree(caller, root, options) {
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
  const ctx = ctxFor();
  const want = start.offset + o.ok.limit;
  let r;
  if (t && t.via) {
    const a = await askChild(
      t.via.iframe,
      { op: 'tree', node_id: rootRef.node_id, depth: o.ok.depth, want: want },
      { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: want },
      ctx.deadlineAt,
      null,
    );
    ctx.omissions = a.omissions;
    r = { records: a.records, more: a.more };
  } else r = await composeTree(rootNode, o.ok.depth, want, ctx);
  return paged(r.records, r.more, start.offset, o.ok.limit, key, ctx.omissions, { root: rootRef });
}

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
export async function getGeometry(caller, ref) {
  const r = await oneNode(caller, ref, 'geometry', 'getGeometry');
  if (r.outcome) return r;
  if (!r.records.length) return result(outcomeOf([], r.omissions), { nodes: [], geometry: null }, r.omissions);
  const rec = r.records[0];
  const om = r.omissions.slice();
  let geometry = null;
  if (r.unsupported || !rec.layout) {
    if (r.unsupported && !om.some((o) => o.reason === 'unsupported-transform'))
      om.push({ reason: 'unsupported-transform', node: r.ref });
  } else
    geometry = {
      rect: rec.layout.rect,
      clip: rec.layout.clip,
      visible: rec.layout.visible,
      offscreen: rec.layout.offscreen,
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

// Observation reads: the Host's records (top realm); a child realm asks the top.
export async function getCursor(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getCursor', [options]);
  // Child realms keep their pointermoves in their own windows (issue 23); the Host merges them
  // before it reads the latest pointer, as a snapshot does.
  await mergeChildWindows();
  const p = TOP.pointer;
  if (!p) return result('empty', { nodes: [], event: false }, []);
  const keep = new Set((p.candidates || []).map((c) => c.target_id));
  const e = safe(() => eventOut(p, keep), null);
  if (!e) return result('unknown', { nodes: [], event: false }, []);
  const ev = {
    event_id: e.event_id,
    type: e.type,
    sequence: e.sequence,
    observed_at: e.observed_at,
    point: e.point,
    pointer_type: e.pointer_type || null,
    candidate_ids: e.candidate_ids,
  };
  return result('ok', { nodes: [], event: ev }, []);
}
export async function getFocus(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getFocus', [options]);
  const fr = safe(currentFocusRecord, null);
  if (!fr || !fr.candidate) {
    const outcome = TOP.focusChanges && TOP.focusChanges.length ? 'cleared' : 'empty';
    return result(outcome, { nodes: [], focus: false }, []);
  }
  const f = fr.f;
  const focus = {
    focused_at: iso(f.focused_ms),
    event_id: f.event_id,
    sequence: f.sequence,
    summary: fr.candidate.summary,
    candidate_id: fr.candidate.target_id,
    path: clampPath(fr.candidate.path),
  };
  let nodes = f.el && !f.binding ? [safe(() => recOf(f.el), null)].filter(Boolean) : [];
  const omissions = [];
  if (f.binding && f.binding.iframe) {
    // Focus in a child realm: its node, asked of that child by the candidate's id (= node_id).
    const ctx = ctxFor();
    const a = await askChild(
      f.binding.iframe,
      { op: 'find', query: { node_id: fr.candidate.target_id }, want: 1 },
      { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: 1 },
      ctx.deadlineAt,
      null,
    );
    nodes = a.records.slice(0, 1);
    for (const o of a.omissions) if (o.reason !== 'redacted') omissions.push(o);
  }
  return result(outcomeOf([true], omissions), { nodes: nodes, focus: focus }, omissions);
}
export async function getSelection(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getSelection', [options]);
  const s = safe(() => selectionOut(false), { selection: null, omissions: [] });
  const om = s.omissions.map((x) => ({ reason: x.reason }));
  if (!s.selection) {
    if (om.some((x) => x.reason === 'selection-detached')) return result('stale', { nodes: [], selection: false }, om);
    if (om.length) return result('partial', { nodes: [], selection: false }, om);
    return result('empty', { nodes: [], selection: false }, []);
  }
  const sel = s.selection;
  const data = {
    nodes: [],
    selection: {
      selection_id: sel.selection_id,
      selected_at: sel.selected_at,
      kind: sel.kind,
      collapsed: sel.collapsed,
      direction: sel.direction,
      text: sel.text,
      ranges: sel.ranges,
      anchor_path: sel.anchor_path,
      focus_path: sel.focus_path,
    },
  };
  // The selection's endpoints as refs (their elements, the selection's own anchor and focus): in the top
  // realm's DOM directly; in a child realm asked of that child by the node ids it reported.
  const t = TOP.selection;
  if (t && !t.binding && s.selection.text !== undefined) {
    const elOf = (n) => (n && nodeType(n) === 3 ? treeParent(n) : n);
    const a = elOf(t.anchorNode),
      f = elOf(t.focusNode);
    if (a && nodeType(a) === 1 && !privacyOf(a).excluded) data.anchor = issueLocal(a);
    if (f && nodeType(f) === 1 && !privacyOf(f).excluded) data.focus = issueLocal(f);
  } else if (t && t.binding && t.binding.iframe) {
    const ids = [t.anchor_node_id, t.focus_node_id];
    const refs = await Promise.all(
      ids.map(async (id) => {
        if (typeof id !== 'string') return null;
        const ctx = ctxFor();
        const a = await askChild(
          t.binding.iframe,
          { op: 'find', query: { node_id: id }, want: 1 },
          { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: 1 },
          ctx.deadlineAt,
          null,
        );
        const rec = a.records[0];
        return rec && rec.ref.node_id === id ? rec.ref : null;
      }),
    );
    if (refs[0]) data.anchor = refs[0];
    if (refs[1]) data.focus = refs[1];
  }
  return result(om.length ? 'partial' : 'ok', data, om);
}

// One call by method name (the API object, a child's fromRoot call arriving at the top).
export function callMethod(caller, method, args) {
  const a = Array.isArray(args) ? args : [];
  switch (method) {
    case 'find':
      return find(caller, a[0], a[1]);
    case 'getTree':
      return getTree(caller, a[0], a[1]);
    case 'getNode':
      return getNode(caller, a[0]);
    case 'getGeometry':
      return getGeometry(caller, a[0]);
    case 'hitTest':
      return hitTestApi(caller, a[0], a[1]);
    case 'getCursor':
      return getCursor(caller, a[0]);
    case 'getFocus':
      return getFocus(caller, a[0]);
    case 'getSelection':
      return getSelection(caller, a[0]);
    default:
      return Promise.resolve(invalid('method'));
  }
}
// Never rejects: an unexpected failure is `unavailable` with an internal-error detail.
export function guarded(p) {
  return Promise.resolve(p).then(
    (r) => r,
    (e) => {
      // For the debug hook only (never in a result): how many calls failed and the last message.
      INSPECTION.errors = (INSPECTION.errors || 0) + 1;
      INSPECTION.lastError = String((e && e.message) || e).slice(0, 200);
      return result('unavailable', { nodes: [] }, [
        { reason: 'capability-unavailable', detail: 'transport:internal-error:stage:query-call' },
      ]);
    },
  );
}
// A child realm's fromRoot call (hub `inspect-up`): the top answers; a child realm asks its parent.
export function onInspectUpCall(e) {
  const msg = e.msg;
  const caller =
    'up:' +
    (e.binding.realmId || e.binding.mountId) +
    ':' +
    (typeof msg.caller === 'string' ? msg.caller.slice(0, 200) : '');
  const METHODS = ['find', 'getTree', 'getNode', 'getGeometry', 'hitTest', 'getCursor', 'getFocus', 'getSelection'];
  if (METHODS.indexOf(msg.method) < 0) {
    e.reply(invalid('method'));
    return;
  }
  const args = Array.isArray(msg.args) ? msg.args.slice(0, 2) : [];
  const run =
    ROLE === 'top'
      ? callMethod(caller, msg.method, withFromRoot(msg.method, args))
      : upCall(caller, msg.method, args, INSPECT.timeoutMs * 2);
  guarded(run).then((r) => e.reply(r || invalid('unanswered')));
}
function withFromRoot(method, args) {
  // Reads that take options get fromRoot: true at the top (the caller asked for the Host tree).
  const idx = { find: 1, getTree: 1, hitTest: 1, getCursor: 0, getFocus: 0, getSelection: 0 }[method];
  if (idx === undefined) return args;
  const out = args.slice();
  const o = out[idx];
  if (o === undefined || o === null) out[idx] = { fromRoot: true };
  else if (typeof o === 'object' && !Array.isArray(o)) out[idx] = Object.assign({}, o, { fromRoot: true });
  return out;
}

// The Session's route (top realm): relay.md's `inspection` object plus `targets`.
function targetsOf(nodes) {
  const out = [];
  const snapshotId = 'inspect-' + randHex(8);
  for (const n of nodes) {
    if (out.length >= INSPECT.targetsMax) break;
    if (!n || n.kind !== 'element' || !n.layout || !Array.isArray(n.path) || !n.path.length) continue;
    const leaf = n.path[n.path.length - 1];
    const r = n.layout.rect;
    if (!leaf || leaf.kind !== 'element' || !(r.width > 0 && r.height > 0)) continue;
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
export async function sessionInspect(req) {
  const c = checkSessionRequest(req);
  const requestId = c.ok ? c.ok.request_id : c.request_id || 'invalid';
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
        r = await getTree(caller, node === undefined ? null : node, Object.assign({ fromRoot: true }, opts));
        break;
      case 'find':
        delete opts.depth;
        r =
          a.depth !== undefined
            ? invalid('unexpected-field')
            : await find(caller, a.query, Object.assign({ fromRoot: true }, opts), node || null);
        break;
      case 'geometry':
        r = node === undefined ? invalid('node-reference-required') : await getGeometry(caller, node);
        break;
    }
  }
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
