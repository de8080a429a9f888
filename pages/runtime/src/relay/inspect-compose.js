// Inspection composed over this realm and its child realms (spec: deep traversal through shadow
// roots, iframes (same-origin and OOPIF over relay.v2) and fragments; trees of at most 32 nodes;
// CSS never crosses its scope): the local walk (realm/inspect-walk.js) gives matches and iframe
// holes in document order; every hole is asked in parallel under a disjoint lease (queries and bytes
// split evenly, depth - 1, the caller's want as candidates) and its records are spliced in at the
// hole's place. The same functions answer a parent's `inspect` query in a child realm
// (relay/inspect-child.js) and the API's calls (host/inspect-tree.js, host/inspect-node.js).
// ctx: {deadlineAt, budgets: {depth, queries, bytes}, redacted (an embedding realm redacts this one),
//       omissions: [] (filled), parentRef: parent of this realm's document (null)}.
import { nOffsetWidth, nOffsetHeight } from '../core/natives.js';
import { nodeType, hostOf, safe, rectOf, composedParent } from '../core/dom-reads.js';
import { deepActive } from '../dom/active-element.js';
import { walkFind, walkTree, semanticMatcher, nodeIdMatcher } from '../realm/inspect-walk.js';
import { localRecord, issueLocal, treeParent, layoutOf } from '../realm/inspect-nodes.js';
import { hasUnsupportedTransform } from '../realm/paths.js';
import { selectScope } from '../dom/css-native.js';
import { privacyOf } from '../dom/privacy.js';
import { askChild } from './inspect-relay.js';

function leases(ctx, n) {
  const b = ctx.budgets;
  const out = [];
  for (let i = 0; i < n; i++) {
    const extraQ = i < b.queries % n ? 1 : 0;
    out.push({
      depth: b.depth,
      queries: Math.floor(b.queries / n) + extraQ,
      bytes: Math.floor(b.bytes / n),
      candidates: 0,
    });
  }
  return out;
}
// `parentNode`: the row's parent when the walk chose it (a tree read: the nearest listed row; null
// for none: ctx.parentRef), else (undefined) the node's parent in the inspection tree.
function localRec(n, ctx, parentNode) {
  const p = parentNode === undefined ? treeParent(n) : parentNode;
  const rec = localRecord(n, p ? issueLocal(p) : ctx.parentRef || null);
  if (ctx.redacted && rec.kind === 'element') {
    const s = { role: rec.summary.role || 'generic' };
    if (rec.summary.state) s.state = rec.summary.state;
    rec.summary = s;
    for (const seg of rec.path) delete seg.label;
  }
  return rec;
}
// Splices the holes' answers into the walk's order. -> {records (at most want), more}.
// `rowParents`: a tree walk's entries name each row's parent (see localRec).
async function fill(entries, stopped, want, ctx, holeRequest, rowParents) {
  const holes = entries.filter((e) => e.hole);
  const ls = leases(ctx, holes.length || 1);
  const answers = await Promise.all(
    holes.map((h, i) => {
      const lease = ls[i];
      lease.candidates = want;
      return askChild(h.hole, holeRequest(h), lease, ctx.deadlineAt, issueLocal(h.hole));
    }),
  );
  const byHole = new Map();
  holes.forEach((h, i) => byHole.set(h, answers[i]));
  const records = [];
  let more = stopped;
  for (const e of entries) {
    const a = e.hole ? byHole.get(e) : null;
    // A full page: more remain only if this entry holds something (a hole that answered nothing
    // and named nothing adds no page).
    if (records.length >= want) {
      if (!a || a.records.length || a.more || a.omissions.length) {
        more = true;
        break;
      }
      continue;
    }
    if (!e.hole) {
      records.push(localRec(e.node, ctx, rowParents && !e.root ? e.parent : undefined));
      continue;
    }
    for (const o of a.omissions) ctx.omissions.push(o);
    for (const r of a.records) {
      if (records.length >= want) {
        more = true;
        break;
      }
      records.push(r);
    }
    if (a.more) more = true;
  }
  return { records: records, more: more };
}
// Semantic ({role?, name?, text?, resource_id?}) or exact ({node_id}) search under `scope`.
export async function composeFind(scope, query, want, ctx) {
  // Below a redacted iframe nothing has a name or text to match.
  if (ctx.redacted && (query.name || query.text)) return { records: [], more: false };
  const wctx = { excluded: 0 };
  const exact = query.mode === 'node';
  const match = exact ? nodeIdMatcher(query.node_id) : semanticMatcher(query);
  const w = walkFind(scope, (n) => safe(() => match(n), false), want, wctx, exact);
  const q = exact ? { node_id: query.node_id } : Object.assign({}, query);
  delete q.mode;
  return fill(w.entries, w.stopped, want, ctx, () => ({ op: 'find', query: q, want: want }));
}
// The tree under `root` to `depth`, pre-order, at most `want` nodes; `passRoot`: realm/inspect-walk.js.
// A frame's content is asked with the depth left at the frame's level; its document is passed through.
export async function composeTree(root, depth, want, ctx, passRoot) {
  const w = walkTree(root, depth, want, { excluded: 0 }, passRoot);
  return fill(w.entries, w.stopped, want, ctx, (h) => ({ op: 'tree', depth: depth - h.level, want: want }), true);
}
// CSS over the inert copy of a document or shadow root of this realm (dom/css-native.js), at most
// `want` matches. The first `skip` matches (what earlier pages of a continuation returned) are
// matched but not described: -> {records: the matches from `skipped` on, skipped, more}, so a page
// costs its own records only. A scope larger than the copy's node budget is named
// (`candidate-budget`): its matches past the budget are missing, and no page promises them.
export function composeCss(scope, selector, want, ctx, skip) {
  const t = nodeType(scope);
  if (t !== 9 && t !== 11) return { error: 'css-root-required' };
  // Focus pseudo-classes match only while the deep focus is not excluded (dom/inert-dom.js).
  const active = deepActive();
  const focusSafe = !active || nodeType(active) !== 1 || !privacyOf(active).excluded;
  const sel = selectScope(scope, selector, want, { redacted: ctx.redacted, focusSafe: focusSafe });
  if (sel.error) return { error: sel.error };
  if (sel.excluded) {
    ctx.omissions.push({ reason: 'excluded', node: issueLocal(scope) });
    return { records: [], more: false };
  }
  if (sel.cut) ctx.omissions.push({ reason: 'candidate-budget', node: issueLocal(scope) });
  const from = Math.min(isFinite(skip) && skip > 0 ? skip : 0, sel.matches.length);
  const records = [];
  for (let i = from; i < sel.matches.length; i++) records.push(localRec(sel.matches[i], ctx));
  return { records: records, skipped: from, more: sel.more };
}
// The node's geometry frame in this realm: its origin (element: the border box; shadow root: its
// host's; document: the viewport) and composed scale ({x, y, sx, sy}), or {unsupported} under a
// rotation, skew or perspective of it or a composed ancestor.
export function localFrame(n) {
  const t = nodeType(n);
  if (t === 9) return { x: 0, y: 0, sx: 1, sy: 1 };
  const el = t === 11 ? hostOf(n) : n;
  if (!el) return null;
  if (safe(() => hasUnsupportedTransform(el), false)) return { unsupported: true };
  const r = rectOf(el);
  // Composed scale = bounding size / layout size; an element without a CSS layout size (SVG, an
  // inline box with zero size) takes its nearest ancestor's that has one.
  for (let x = el, g = 0; x && g < 256; x = composedParent(x), g++) {
    if (nodeType(x) !== 1) continue;
    let ow = 0,
      oh = 0;
    try {
      ow = nOffsetWidth ? nOffsetWidth.call(x) : 0;
      oh = nOffsetHeight ? nOffsetHeight.call(x) : 0;
    } catch (_) {
      ow = 0; // not an HTMLElement (SVG, MathML): try its parent
    }
    if (typeof ow === 'number' && ow > 0 && typeof oh === 'number' && oh > 0) {
      const b = x === el ? r : rectOf(x);
      return { x: r.x, y: r.y, sx: b.width / ow, sy: b.height / oh };
    }
  }
  return { x: r.x, y: r.y, sx: 1, sy: 1 };
}
export function localGeometry(n, ctx) {
  const rec = localRec(n, ctx);
  const frame = localFrame(n);
  return {
    records: [rec],
    more: false,
    frame: frame && !frame.unsupported ? frame : null,
    unsupported: !!(frame && frame.unsupported),
    layout: safe(() => layoutOf(n), null),
  };
}
