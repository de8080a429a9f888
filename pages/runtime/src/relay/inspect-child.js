// Inspection across realms, child side and upward (spec / relay.md v2): this realm answering its
// parent's `inspect` query (find / tree / node / css / geometry / hit over its own subtree, under
// the request's budgets, its reply cut to the byte budget with `response-budget`), revision notices
// sent up (a changed DOM below any realm moves the Host's tree revision; one message per task, and
// none until the parent has read its revisions since: `inspect-ack`), and fromRoot calls: a child asks its parent (`inspect-up`, with its current token), which
// answers itself when it is the top or asks its own parent, and the answer comes back down
// (`inspect-up-result`); refs in it are remembered as the Host's (`up`).
import { W, nPostMessage, nSetTimeout, nClearTimeout, nJSONStringify, doc } from '../core/natives.js';
import { RELAY_SCHEMA, INSPECT } from '../core/constants.js';
import { utf8Len, isInt } from '../core/util.js';
import { safe, randHex, isConnected } from '../core/dom-reads.js';
import { ROLE, REALM_ID, UP, INSPECTION } from '../core/state.js';
import { checkFindQuery, checkRefShape } from '../core/inspect-args.js';
import { checkSelector } from '../dom/css-native.js';
import { hitTest } from '../realm/hit-test.js';
import { issueUp, localRecord, issueLocal, treeParent } from '../realm/inspect-nodes.js';
import { composeFind, composeTree, composeCss, localGeometry } from './inspect-compose.js';
import { askChild } from './inspect-relay.js';
import { ackChildren } from './inspect-parent.js';

function clampInt(v, lo, hi, dflt) {
  return isInt(v) && v >= lo && v <= hi ? v : dflt;
}
export function childBudgets(bg) {
  const b = bg && typeof bg === 'object' ? bg : {};
  return {
    depth: clampInt(b.depth, 0, 8, 0),
    queries: clampInt(b.queries, 0, 128, 0),
    bytes: clampInt(b.bytes, 0, 131072, 131072),
    candidates: clampInt(b.candidates, 0, 128, 0),
  };
}
// A node id of a ref this realm returned: its node here, or the binding it came through.
function byId(nodeId) {
  const e = typeof nodeId === 'string' ? INSPECTION.issued.get(nodeId) : null;
  if (!e || e.up) return null;
  if (e.via) return { via: e.via };
  const n = e.node.deref();
  return n && isConnected(n) ? { node: n } : null;
}
async function forward(b, q, budgets, deadlineAt) {
  return askChild(
    b.iframe,
    q,
    { depth: budgets.depth, queries: budgets.queries, bytes: budgets.bytes, candidates: budgets.candidates },
    deadlineAt,
    null,
  );
}
// Points in this realm's viewport -> the elements there (the candidates' promotion), iframes asked.
export async function localHits(points, ctx, want) {
  const records = [];
  const seen = new Set();
  const groups = new Map();
  let excluded = false;
  for (const p of points) {
    const h = safe(() => hitTest(p.x, p.y), { kind: 'none' });
    if (h.kind === 'excluded') excluded = true;
    if (h.kind === 'iframe') {
      let g = groups.get(h.el);
      if (!g) groups.set(h.el, (g = { points: [], first: records.length }));
      g.points.push({ x: h.x, y: h.y });
      continue;
    }
    if (h.kind !== 'element') continue;
    const id = safe(() => issueLocal(h.el).node_id, '');
    if (seen.has(id)) continue;
    seen.add(id);
    const par = treeParent(h.el);
    const rec = localRecord(h.el, par ? issueLocal(par) : ctx.parentRef || null);
    if (ctx.redacted || h.redacted)
      rec.summary = rec.summary.state
        ? { role: rec.summary.role, state: rec.summary.state }
        : { role: rec.summary.role };
    records.push(rec);
  }
  if (excluded) ctx.omissions.push({ reason: 'excluded' });
  const entries = Array.from(groups.entries());
  const n = entries.length || 1;
  // One query per iframe carries at most the grant's 256 points; the rest are named, not sent.
  for (const [ifr, g] of entries)
    if (g.points.length > 256) ctx.omissions.push({ reason: 'point-budget', node: issueLocal(ifr) });
  const answers = await Promise.all(
    entries.map(([ifr, g]) =>
      askChild(
        ifr,
        { op: 'hit', points: g.points.slice(0, 256), want: want },
        {
          depth: ctx.budgets.depth,
          queries: Math.floor(ctx.budgets.queries / n),
          bytes: Math.floor(ctx.budgets.bytes / n),
          candidates: want,
        },
        ctx.deadlineAt,
        issueLocal(ifr),
      ),
    ),
  );
  // Child hits go where their first point was: records stay in the order of the points.
  let offset = 0;
  entries.forEach(([, g], i) => {
    const a = answers[i];
    for (const o of a.omissions) ctx.omissions.push(o);
    const fresh = a.records.filter((r) => !seen.has(r.ref.node_id));
    fresh.forEach((r) => seen.add(r.ref.node_id));
    records.splice(g.first + offset, 0, ...fresh);
    offset += fresh.length;
  });
  return { records: records.slice(0, want), more: records.length > want };
}

function replyTo(reply, id, body) {
  reply(
    Object.assign(
      { schema: RELAY_SCHEMA, type: 'query-result', request_id: id, operation: 'inspect', realm_id: REALM_ID },
      body,
    ),
  );
}
// A parent's `inspect` query (its token, Host instance and mount already checked by relay/child.js).
export async function answerInspect(msg, deadlineAt, reply, replyError) {
  const id = msg.request_id;
  const q = msg.inspect && typeof msg.inspect === 'object' ? msg.inspect : null;
  if (!q || typeof q.op !== 'string') return replyError(id, 'invalid-request');
  const budgets = childBudgets(msg.budgets);
  const want = clampInt(q.want, 1, Math.max(1, Math.min(budgets.candidates || 1, 128)), 1);
  // css: the matches before `skip` were earlier pages of the caller's continuation (not capped: the
  // page asked for is at most `want` records whatever its offset).
  const skip = clampInt(q.skip, 0, Number.MAX_SAFE_INTEGER, 0);
  const ctx = {
    deadlineAt: deadlineAt - 20,
    budgets: budgets,
    redacted: q.redacted === true,
    omissions: [],
    parentRef: null,
  };
  let res;
  const target = q.node_id !== undefined ? byId(q.node_id) : null;
  if (q.node_id !== undefined && !target)
    return replyTo(reply, id, { records: [], more: false, omissions: [{ reason: 'stale-mount' }] });
  if (target && target.via) {
    const f = await forward(target.via, q, budgets, ctx.deadlineAt);
    if (f.invalid) return replyError(id, 'invalid-request', f.invalid);
    res = { records: f.records, more: f.more, frame: f.frame, unsupported: f.unsupported };
    ctx.omissions = f.omissions;
  } else if (q.op === 'find') {
    const c = checkFindQuery(q.query);
    if (c.error || c.ok.mode === 'css') return replyError(id, 'invalid-request');
    res = await composeFind(target ? target.node : doc(), c.ok, want, ctx);
  } else if (q.op === 'tree') {
    const depth = clampInt(q.depth, 0, INSPECT.depthMax, 0);
    // Without a node: the frame's own tree read, its document passed through.
    res = await composeTree(target ? target.node : doc(), depth, want, ctx, !target);
  } else if (q.op === 'node') {
    if (!target) return replyError(id, 'invalid-request');
    const p = treeParent(target.node);
    res = { records: [localRecord(target.node, p ? issueLocal(p) : null)], more: false };
  } else if (q.op === 'css') {
    // The selector first (the browser's parser, then the allowlist), then the scope.
    const sel = typeof q.selector === 'string' ? checkSelector(q.selector) : { error: 'css' };
    if (sel.error) return replyError(id, 'invalid-request', sel.error);
    if (!target) return replyError(id, 'invalid-request', 'css-root-required');
    res = composeCss(target.node, q.selector, skip + want, ctx, skip);
    if (res.error) return replyError(id, 'invalid-request', res.error);
  } else if (q.op === 'geometry') {
    if (!target) return replyError(id, 'invalid-request');
    res = localGeometry(target.node, ctx);
  } else if (q.op === 'hit') {
    if (!Array.isArray(q.points) || q.points.length > 256) return replyError(id, 'invalid-request');
    const pts = q.points.filter(
      (p) => p && typeof p.x === 'number' && typeof p.y === 'number' && isFinite(p.x) && isFinite(p.y),
    );
    res = await localHits(pts, ctx, want);
  } else return replyError(id, 'invalid-request');
  const body = { records: res.records, more: !!res.more, omissions: ctx.omissions.slice(0, 128) };
  if (res.frame) body.frame = res.frame;
  if (res.unsupported) body.unsupported = true;
  // The reply within the byte budget: records dropped from the end, `response-budget` named.
  const size = () => utf8Len(nJSONStringify(body));
  let cut = false;
  while (body.records.length > 0 && size() > budgets.bytes) {
    body.records.pop();
    cut = true;
  }
  if (cut) {
    body.more = true;
    body.omissions.push({ reason: 'response-budget' });
  }
  if (size() > budgets.bytes) return replyError(id, 'response-too-large');
  replyTo(reply, id, body);
}

// Revision notices to the parent: a changed tree or geometry here (hub `inspection`) is told once
// per task, and then not again until the parent has read its revisions (issue 23: a page that
// changes its DOM on every pointermove costs the parent nothing per move). After a notice of a kind
// this realm stays quiet about it until the parent's `inspect-ack` (sent when it reports its
// revisions: relay/inspect-parent.js ackChildren); a change made after the notice is told again then,
// so every read that follows a change here reports a revision that moved. A change of the
// subscription count of this realm's subtree ('subs') is told every time.
const pendingKinds = new Set();
let subsChanged = false;
// Per kind: this realm's revision when it last told the parent of that kind (under that token), or null.
const told = { token: null, tree: null, geometry: null };
function toldOf(k) {
  return told.token === UP.currentToken ? told[k] : null;
}
export function noticeUp(kinds) {
  if (ROLE !== 'child' || !UP.granted) return;
  for (const k of kinds) {
    if ((k === 'tree' || k === 'geometry') && toldOf(k) === null) pendingKinds.add(k);
    if (k === 'subs') subsChanged = true;
  }
  if ((!pendingKinds.size && !subsChanged) || INSPECTION.noticeTimer) return;
  INSPECTION.noticeTimer = nSetTimeout(() => {
    INSPECTION.noticeTimer = null;
    const ks = Array.from(pendingKinds);
    pendingKinds.clear();
    subsChanged = false;
    if (told.token !== UP.currentToken) Object.assign(told, { token: UP.currentToken, tree: null, geometry: null });
    for (const k of ks) told[k] = INSPECTION.revisions[k] || 0;
    postUp({
      schema: RELAY_SCHEMA,
      type: 'inspect-notice',
      token: UP.currentToken,
      realm_id: REALM_ID,
      kinds: ks,
      // Pending subscriptions are not told: the top counts them once it granted their slots.
      subs: INSPECTION.subs.size - INSPECTION.pendingSubs + INSPECTION.childSubs,
    });
  }, 0);
}
// The parent read its revisions after this realm's notices of `kinds` (relay/router.js checked
// origin and token): they may be told again; one that moved since its notice is told now. Children
// that told this realm are acknowledged in turn (this realm's revisions were read with theirs).
export function onAck(kinds) {
  const again = [];
  for (const k of ['tree', 'geometry']) {
    if (kinds.indexOf(k) < 0) continue;
    const t = toldOf(k);
    if (t === null) continue;
    told[k] = null;
    if ((INSPECTION.revisions[k] || 0) !== t) again.push(k);
  }
  ackChildren();
  if (again.length) noticeUp(again);
}
function postUp(msg) {
  if (!UP.parentOrigin) return false;
  try {
    nPostMessage.call(W.parent, msg, UP.parentOrigin);
    return true;
  } catch (_) {
    return false;
  }
}
// Refs of a result that came from the Host above: remembered as `up` (usable again through it).
function rememberUp(v, depth) {
  if (!v || typeof v !== 'object' || depth > 6) return;
  if (Array.isArray(v)) {
    for (const x of v.slice(0, 512)) rememberUp(x, depth + 1);
    return;
  }
  const r = checkRefShape(v);
  if (r.ok) {
    if (r.ok.host_instance_id === UP.hostInstanceId) issueUp(r.ok);
    return;
  }
  for (const k of Object.keys(v)) rememberUp(v[k], depth + 1);
}
// A fromRoot call from this child realm: asked of the parent, answered by the top. -> the API result,
// or null when the parent did not answer (the caller turns that into an omission).
export function upCall(caller, method, args, timeoutMs) {
  return new Promise((resolve) => {
    if (ROLE !== 'child' || !UP.granted || !UP.currentToken) {
      resolve(null);
      return;
    }
    const id = 'u-' + randHex(8);
    const timer = nSetTimeout(() => {
      if (INSPECTION.upPending.delete(id)) resolve(null);
    }, timeoutMs);
    INSPECTION.upPending.set(id, (result) => {
      nClearTimeout(timer);
      rememberUp(result, 0);
      resolve(result);
    });
    const ok = postUp({
      schema: RELAY_SCHEMA,
      type: 'inspect-up',
      token: UP.currentToken,
      request_id: id,
      caller: caller,
      method: method,
      args: args,
    });
    if (!ok) {
      INSPECTION.upPending.delete(id);
      nClearTimeout(timer);
      resolve(null);
    }
  });
}
// The parent's answer to one of this realm's fromRoot calls.
export function onUpResult(msg) {
  if (typeof msg.request_id !== 'string') return;
  const f = INSPECTION.upPending.get(msg.request_id);
  if (!f) return;
  INSPECTION.upPending.delete(msg.request_id);
  f(msg.result && typeof msg.result === 'object' ? msg.result : null);
}
