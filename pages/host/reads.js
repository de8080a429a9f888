// The Host's answer to the Session's private inspection requests (relay.md Part 2: mode `inspect`
// on the same `wippy.ui-action.v1` route as actions; issue 20). overlay.js hands every request with
// `mode: "inspect"` here before its action checks, so reads answer even with agent actions off.
//
// - A request for another Host instance is ignored (never ours to answer).
// - An expired request gets nothing (the broker synthesises `expired`).
// - The answer is one `inspected` result whose `inspection` is exactly what
//   `window.wippyAttention.inspect({request_id, operation, scope, args})` resolved, without its
//   `targets`, which travel beside it as the envelope's `targets`.
// - Without the runtime's route, or when it fails, the answer is `unavailable` with a fixed reason
//   (never an exception's text).

export const REASON_NO_ROUTE = 'inspection route unavailable';

/** One `wippy.ui-action.v1` result envelope answering `req` (also the overlay's, overlay.js). */
export function resultEnvelope(req, status, extra) {
  return Object.assign(
    {
      schema: 'wippy.ui-action.v1',
      message_type: 'result',
      result_id: `res-${crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)}`,
      in_reply_to_action_id: req.action_id,
      request_id: req.request_id,
      session_id: req.session_id,
      host_instance_id: req.host_instance_id,
      completed_at: new Date().toISOString(),
      status,
    },
    extra || {},
  );
}

/** Whether `req` is a read request (overlay.js routes it here). */
export function isInspect(req) {
  return !!req && req.mode === 'inspect';
}

/**
 * Answers one read request through `send(result)`. Resolves when the answer was sent (or
 * dropped); never rejects.
 */
export async function answerInspect(req, send) {
  const route = window.wippyAttention;
  if (!req || req.schema !== 'wippy.ui-action.v1' || req.message_type !== 'request') return;
  if (!route || req.host_instance_id !== route.host_instance_id) return;
  let result;
  try {
    if (typeof route.inspect !== 'function' || !req.query) throw new Error('no route');
    const q = req.query;
    const inspection = await route.inspect({
      request_id: req.request_id,
      operation: q.operation,
      scope: q.scope,
      args: q.args,
    });
    const { targets, ...rest } = inspection;
    result = resultEnvelope(req, 'inspected', { inspection: rest, targets: Array.isArray(targets) ? targets : [] });
  } catch (_) {
    result = resultEnvelope(req, 'unavailable', { reason: REASON_NO_ROUTE });
  }
  if (Date.parse(req.expires_at) <= Date.now()) return;
  try {
    send(result);
  } catch (_) {
    /* the broker's expiry remains */
  }
}
