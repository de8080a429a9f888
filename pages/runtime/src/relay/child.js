// This realm as a child (spec: capability.v1 and relay.v2, child side — accept a capability request
// only from window.parent with matching parent_origin / target_origin / ancestorOrigins, answer
// every request with a fresh 48-hex token and keep every token granted until it expires (at most
// MAX_LIVE_GRANTS); answer `points` and `ready`
// queries within the request's budgets, trimming to its byte budget; `observations` queries with this
// realm's window of pointermoves (realm/observation.js takeWindow, after merging its own children's);
// errors as relay codes; this realm's other observations sent up with the current token, or kept
// before the grant (at most 32, 60 s) and flushed when granted; the parent binding forgotten when the realm's document was replaced).
import { W, nPostMessage, nDateNow, nJSONStringify } from '../core/natives.js';
import {
  CAP_SCHEMA,
  RELAY_SCHEMA,
  RELAY_V1,
  GRANT_LIFETIME_MS,
  GRANT_LIMITS,
  EVENT_WINDOW_MS,
  MAX_LIVE_GRANTS,
} from '../core/constants.js';
import { obsNow } from '../core/clock.js';
import { isInt, utf8Len } from '../core/util.js';
import { canonicalOrigin } from '../core/origins.js';
import { safe, randHex } from '../core/dom-reads.js';
import { REALM_ID, IS_SRCDOC, OWN_ORIGIN, UP, ACCT, DBG, bindings, upBuffer } from '../core/state.js';
import { boundObservations } from '../realm/history.js';
import { requestBudgets, requestTimeout } from './leases.js';
import { limitCandidates, trimToBytes } from './reply-limits.js';
import { startDiscovery, failPending, mergeChildWindows } from './parent.js';
import { takeWindow, reannounceWindow } from '../realm/observation.js';
import { scanIframes } from './discovery.js';
import { resolvePoints } from './sampling.js';
import { readyChildren } from './ready-children.js';
import { answerInspect } from './inspect-child.js';

export function replyUp(msg) {
  if (!UP.parentOrigin) return;
  try {
    nPostMessage.call(W.parent, msg, UP.parentOrigin);
  } catch (_) {
    /* ignore */
  }
}
// An observation of this realm (or projected from a child of it) for the parent (hub `observation-up`).
export function sendUp(obs) {
  if (!UP.granted || !UP.currentToken || (UP.tokens.get(UP.currentToken) || 0) <= nDateNow()) {
    upBuffer.push({ at: obsNow(), obs: obs });
    boundObservations(upBuffer, obsNow());
    return;
  }
  DBG.sent++;
  replyUp({ schema: RELAY_SCHEMA, type: 'observation', token: UP.currentToken, realm_id: REALM_ID, observation: obs });
}
function flushUpBuffer() {
  const cutoff = obsNow() - EVENT_WINDOW_MS;
  const items = upBuffer.splice(0, upBuffer.length);
  items.forEach((it) => {
    if (it.at >= cutoff) sendUp(it.obs);
  });
}
// The realm's document was replaced (hub `document-replaced`): the old grant belonged to the dead
// document; the parent renegotiates on the iframe's load event and gets a grant naming the new realm id.
export function forgetParent() {
  UP.granted = false;
  UP.hostInstanceId = null;
  UP.parentOrigin = null;
  UP.parentMountId = null;
  UP.parentGeneration = null;
  UP.childMountId = null;
  UP.childGeneration = null;
  UP.tokens.clear();
  UP.currentToken = null;
  upBuffer.length = 0;
}
export function onCapabilityRequest(msg, ev) {
  const po = canonicalOrigin(msg.parent_origin),
    to = canonicalOrigin(msg.target_origin);
  if (!po || !to || ev.origin !== po || to !== canonicalOrigin(OWN_ORIGIN)) return;
  // Where the browser tells us who embeds us (Chromium: location.ancestorOrigins), it must agree.
  try {
    const ao = W.location.ancestorOrigins;
    if (ao && ao.length > 0 && ao[0] !== 'null' && ao[0] !== po) return;
  } catch (_) {
    /* ignore */
  }
  if (typeof msg.host_instance_id !== 'string' || !msg.host_instance_id || utf8Len(msg.host_instance_id) > 160) return;
  if (typeof msg.child_mount_id !== 'string' || !msg.child_mount_id || utf8Len(msg.child_mount_id) > 160) return;
  if (typeof msg.parent_mount_id !== 'string' || !msg.parent_mount_id || utf8Len(msg.parent_mount_id) > 160) return;
  if (
    !isInt(msg.child_generation) ||
    msg.child_generation < 0 ||
    !isInt(msg.parent_generation) ||
    msg.parent_generation < 0
  )
    return;
  if (typeof msg.request_id !== 'string' || msg.request_id.length > 128) return;
  const versions = Array.isArray(msg.relay_versions) ? msg.relay_versions : [RELAY_V1];
  const version =
    versions.indexOf(RELAY_SCHEMA) >= 0 ? RELAY_SCHEMA : versions.indexOf(RELAY_V1) >= 0 ? RELAY_V1 : null;
  if (!version) {
    try {
      nPostMessage.call(
        W.parent,
        { schema: CAP_SCHEMA, type: 'capability-deny', request_id: msg.request_id, code: 'unsupported-version' },
        po,
      );
    } catch (_) {
      /* ignore */
    }
    return;
  }
  const rebind =
    UP.granted &&
    (UP.hostInstanceId !== msg.host_instance_id ||
      UP.childMountId !== msg.child_mount_id ||
      UP.childGeneration !== msg.child_generation ||
      UP.parentOrigin !== po);
  if (rebind) {
    UP.tokens.clear();
    bindings.forEach((b) => {
      b.state = 'discovering';
      failPending(b, 'capability-revoked');
    });
  }
  UP.hostInstanceId = msg.host_instance_id;
  UP.parentOrigin = po;
  UP.parentMountId = msg.parent_mount_id;
  UP.parentGeneration = msg.parent_generation;
  UP.childMountId = msg.child_mount_id;
  UP.childGeneration = msg.child_generation;
  const now = nDateNow();
  UP.tokens.forEach((exp, tok) => {
    if (exp <= now) UP.tokens.delete(tok);
  });
  // Every token granted stays valid until its own expiry, not only the newest: the parent asks again
  // every 100 ms until a grant reaches it, so under load it takes the grant of an earlier request
  // while this realm already answered later ones (and a late request of an earlier round is
  // answered too). Dropping all but the newest two revoked the token the parent held: its queries
  // were refused `unauthorized` until it renewed, up to a minute later.
  while (UP.tokens.size >= MAX_LIVE_GRANTS) UP.tokens.delete(UP.tokens.keys().next().value);
  const token = randHex(24);
  UP.tokens.set(token, now + GRANT_LIFETIME_MS);
  UP.currentToken = token;
  const first = !UP.granted;
  UP.granted = true;
  replyUp({
    schema: CAP_SCHEMA,
    type: 'capability-grant',
    request_id: msg.request_id,
    host_instance_id: msg.host_instance_id,
    parent_mount_id: msg.parent_mount_id,
    parent_generation: msg.parent_generation,
    child_mount_id: msg.child_mount_id,
    child_generation: msg.child_generation,
    parent_origin: po,
    target_origin: to,
    relay_version: version,
    token: token,
    expires_in_ms: GRANT_LIFETIME_MS,
    limits: { points: GRANT_LIMITS.points, candidates: GRANT_LIMITS.candidates, bytes: GRANT_LIMITS.bytes },
    realm_id: REALM_ID,
    frame_kind: IS_SRCDOC ? 'srcdoc' : 'document',
  });
  if (first || rebind) {
    safe(scanIframes);
    bindings.forEach((b) => {
      if (b.state === 'discovering' && !b.timer) startDiscovery(b);
    });
  }
  // Observations kept while no token was usable (before the first grant, or after the current one
  // expired before its renewal) go up with this one, whichever grant it is.
  flushUpBuffer();
  reannounceWindow();
}
// detail (inspect refusals only): why the request is invalid (`css-syntax` ...), kept by the parent.
function queryError(id, code, detail) {
  const msg = { schema: RELAY_SCHEMA, type: 'query-error', request_id: id, code: code };
  if (typeof detail === 'string' && /^[a-z0-9:-]{1,64}$/.test(detail)) msg.detail = detail;
  replyUp(msg);
}
// Why this realm refuses query `msg` (a relay code), or null when it answers it.
function refusal(msg) {
  const exp = UP.tokens.get(msg.token);
  if (!exp) return 'unauthorized';
  if (exp <= nDateNow()) return 'capability-expired';
  if (msg.host_instance_id !== UP.hostInstanceId) return 'host-instance-mismatch';
  if (msg.mount_id !== UP.childMountId || msg.generation !== UP.childGeneration) return 'generation-mismatch';
  return null;
}
export async function onQueryRequest(msg) {
  const id = typeof msg.request_id === 'string' ? msg.request_id.slice(0, 128) : '';
  if (!id) return;
  const refused = refusal(msg);
  if (refused) {
    queryError(id, refused);
    // A refused pull took none of the window's moves: the parent spent its notice on it.
    if (msg.operation === 'observations') reannounceWindow();
    return;
  }
  const timeout = requestTimeout(msg.timeout_ms);
  const deadlineAt = nDateNow() + timeout;
  if (msg.operation === 'observations') {
    // The parent merges this realm's window of pointermoves (and, through it, its children's).
    await mergeChildWindows(deadlineAt - 50);
    replyUp({
      schema: RELAY_SCHEMA,
      type: 'query-result',
      request_id: id,
      operation: 'observations',
      observations: takeWindow(),
    });
    return;
  }
  if (msg.operation === 'ready') {
    const children = await readyChildren(deadlineAt);
    replyUp({ schema: RELAY_SCHEMA, type: 'query-result', request_id: id, operation: 'ready', children: children });
    return;
  }
  if (msg.operation === 'inspect') {
    try {
      await answerInspect(msg, deadlineAt, replyUp, queryError);
    } catch (_) {
      queryError(id, 'internal-error');
    }
    return;
  }
  if (msg.operation !== 'points' || !Array.isArray(msg.points)) {
    queryError(id, 'invalid-request');
    return;
  }
  if (msg.points.length > GRANT_LIMITS.points) {
    queryError(id, 'invalid-request');
    return;
  }
  const points = [];
  for (const p of msg.points) {
    if (
      !p ||
      typeof p.point_id !== 'string' ||
      p.point_id.length > 128 ||
      typeof p.x !== 'number' ||
      typeof p.y !== 'number' ||
      !isFinite(p.x) ||
      !isFinite(p.y)
    ) {
      queryError(id, 'invalid-request');
      return;
    }
    points.push({ point_id: p.point_id, x: p.x, y: p.y });
  }
  const budgets = requestBudgets(msg.budgets);
  const opts = { privacy_text: msg.options && msg.options.privacy_text === 'none' ? 'none' : 'safe' };
  let res;
  try {
    res = await resolvePoints(points, budgets, deadlineAt - 50, opts);
  } catch (_) {
    queryError(id, 'internal-error');
    return;
  }
  let cands = Array.from(res.candidates.values());
  const acct = Object.assign(
    {
      point_ids: points.map((p) => p.point_id),
      queries_used: res.queriesUsed,
      points_used: res.pointsUsed,
      candidates_found: cands.length,
      reply_bytes_untrimmed: 0,
      reply_bytes: 0,
      outcome: 'result',
    },
    res.accounting,
  );
  ACCT.handled += 1;
  ACCT.last = acct;
  const omissions = res.omissions.slice(0, 128);
  const limited = limitCandidates(cands, budgets.candidates, points, UP.childMountId);
  cands = limited.candidates;
  if (limited.omission) omissions.push(limited.omission);
  const keep = new Set(cands.map((c) => c.target_id));
  const hits = {};
  Object.keys(res.hits).forEach((pid) => {
    const t = res.hits[pid].filter((x) => keep.has(x));
    if (t.length) hits[pid] = t;
  });
  const reply = {
    schema: RELAY_SCHEMA,
    type: 'query-result',
    request_id: id,
    operation: 'points',
    realm_id: REALM_ID,
    hits: hits,
    candidates: cands,
    omissions: omissions,
    queries_used: res.queriesUsed,
    points_used: res.pointsUsed,
  };
  const sized = trimToBytes(reply, budgets.bytes, (r) => utf8Len(nJSONStringify(r)), points, UP.childMountId);
  const size = sized.size;
  acct.reply_bytes_untrimmed = sized.untrimmed;
  acct.reply_bytes = size;
  acct.candidates_sent = reply.candidates.length;
  if (size > budgets.bytes) {
    acct.outcome = 'response-too-large';
    queryError(id, 'response-too-large');
    return;
  }
  replyUp(reply);
}
