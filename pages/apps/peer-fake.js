/*
 * A hand-written misbehaving relay peer (test fixture, not the runtime): loaded by apps/peer.html,
 * active only with ?fake=MODE in a document served without the runtime (?attention=off). It grants
 * wippy.attention.capability.v1 exactly as a correct child would (same checks: the request comes from
 * window.parent, its origin is parent_origin, target_origin is this origin), then misbehaves on the
 * first `points` query (the `ready` query is answered correctly, with no children):
 *   hang      never answers (child-timeout)
 *   unready   answers nothing, not even `ready` (the Host's ready() waits for it until its own bound)
 *   vanish    asks the Host's test hook to remove its iframe, never answers (child-disconnected)
 *   remount   asks the Host's test hook to remount it, a new mount generation (stale-mount)
 *   navigate  navigates to a healthy peer (with the runtime), never answers (navigation)
 *   renew     grants with `expires_in_ms` = ?life=MS (a short lifetime, for renewal timing) and logs,
 *             on its own clock, every capability request received and grant sent (__fakePeer.log)
 *   v1        an older, correct peer that speaks only wippy.attention.relay.v1: it grants with
 *             relay_version v1 (denies unsupported-version when v1 is not offered), answers `ready`
 *             (no children) and `points` queries (its button `NAME-leaf`, hit by the point's position
 *             in its box) in v1, and refuses every other operation (`invalid-request`, as v1 has no
 *             inspection); `__fakePeer.operations` lists the operations it was asked for
 * The Host test hook accepts `{wippy_test: "remove" | "remount"}` only from extras that declare it.
 */
(function () {
  'use strict';
  var params = new URLSearchParams(location.search);
  var mode = params.get('fake');
  if (!mode || window.__wippyAttentionRuntime) return;
  var CAP = 'wippy.attention.capability.v1';
  var RELAY = 'wippy.attention.relay.v2';
  var V1 = 'wippy.attention.relay.v1';
  var isV1 = mode === 'v1';
  var relay = isV1 ? V1 : RELAY;
  function hex(n) {
    var a = new Uint8Array(n);
    crypto.getRandomValues(a);
    return Array.prototype.map
      .call(a, function (b) {
        return (b < 16 ? '0' : '') + b.toString(16);
      })
      .join('');
  }
  var realmId =
    'r' +
    Math.random()
      .toString(36)
      .slice(2, 8)
      .replace(/[^a-z0-9]/g, '0');
  var parentOrigin = null;
  var acted = false;
  var life = Math.max(100, Math.min(60000, parseInt(params.get('life') || '60000', 10) || 60000));
  window.__fakePeer = { mode: mode, queries: 0, grants: 0, log: [], operations: [] };
  window.addEventListener('message', function (ev) {
    var m = ev.data;
    if (ev.source !== window.parent || !m || typeof m !== 'object') return;
    if (m.schema === CAP && m.type === 'capability-request') {
      if (ev.origin !== m.parent_origin || m.target_origin !== location.origin) return;
      if (isV1 && (!Array.isArray(m.relay_versions) || m.relay_versions.indexOf(V1) < 0)) {
        window.parent.postMessage(
          { schema: CAP, type: 'capability-deny', request_id: m.request_id, code: 'unsupported-version' },
          ev.origin,
        );
        return;
      }
      parentOrigin = ev.origin;
      window.__fakePeer.grants++;
      if (mode === 'renew')
        window.__fakePeer.log.push({ t: performance.now(), type: 'request', request_id: m.request_id });
      window.parent.postMessage(
        {
          schema: CAP,
          type: 'capability-grant',
          request_id: m.request_id,
          host_instance_id: m.host_instance_id,
          parent_mount_id: m.parent_mount_id,
          parent_generation: m.parent_generation,
          child_mount_id: m.child_mount_id,
          child_generation: m.child_generation,
          parent_origin: m.parent_origin,
          target_origin: m.target_origin,
          relay_version: relay,
          token: hex(24),
          expires_in_ms: mode === 'renew' ? life : 60000,
          limits: { points: 256, candidates: 128, bytes: 131072 },
          realm_id: realmId,
          frame_kind: 'document',
        },
        ev.origin,
      );
      if (mode === 'renew')
        window.__fakePeer.log.push({ t: performance.now(), type: 'grant', request_id: m.request_id });
      return;
    }
    if (m.schema === relay && m.type === 'query-request' && ev.origin === parentOrigin) {
      window.__fakePeer.queries++;
      if (isV1) {
        answerV1(m);
        return;
      }
      // The Host's ready() asks granted children for their own children, and a snapshot first merges
      // the children's windows of pointermoves: both answered correctly (none), so the misbehaviour
      // is reserved for the first `points` query of a snapshot.
      if (mode === 'unready') return;
      if (m.operation === 'ready') {
        window.parent.postMessage(
          { schema: relay, type: 'query-result', request_id: m.request_id, operation: 'ready', children: [] },
          parentOrigin,
        );
        return;
      }
      if (m.operation === 'observations') {
        window.parent.postMessage(
          {
            schema: RELAY,
            type: 'query-result',
            request_id: m.request_id,
            operation: 'observations',
            observations: [],
          },
          parentOrigin,
        );
        return;
      }
      if (acted) return;
      acted = true;
      if (mode === 'vanish') window.parent.postMessage({ wippy_test: 'remove' }, parentOrigin);
      else if (mode === 'remount') window.parent.postMessage({ wippy_test: 'remount' }, parentOrigin);
      else if (mode === 'navigate')
        location.replace('/apps/peer.html?name=' + (params.get('name') || 'peer') + '-after');
      // hang: nothing, ever.
    }
  });
  // relay.v1: `ready` and `points` only, in the v1 schema.
  function answerV1(m) {
    window.__fakePeer.operations.push(String(m.operation));
    var out = { schema: V1, request_id: m.request_id };
    if (m.operation === 'ready') {
      out.type = 'query-result';
      out.operation = 'ready';
      out.children = [];
    } else if (m.operation === 'points' && Array.isArray(m.points)) {
      var button = document.querySelector('[data-landmark$="-leaf"]');
      var r = button ? button.getBoundingClientRect() : null;
      var tid = 't-' + realmId + '-n1';
      var hits = {};
      var ids = [];
      m.points.forEach(function (p) {
        if (r && p.x >= r.left && p.x < r.right && p.y >= r.top && p.y < r.bottom) {
          hits[p.point_id] = [tid];
          ids.push(p.point_id);
        }
      });
      out.type = 'query-result';
      out.operation = 'points';
      out.realm_id = realmId;
      out.hits = hits;
      out.candidates = ids.length
        ? [
            {
              target_id: tid,
              path: [{ kind: 'element', mount_id: tid.slice(2), generation: 1, tag_name: 'button' }],
              rect: { x: r.left, y: r.top, width: r.width, height: r.height },
              occluded: false,
              summary: { role: 'button', name: button.getAttribute('aria-label') || '' },
              geometry_source: 'document',
              runtime_source: 'iframe-realm',
              sample_point_ids: ids,
            },
          ]
        : [];
      out.omissions = [];
      out.queries_used = 0;
      out.points_used = m.points.length;
    } else {
      out.type = 'query-error';
      out.code = 'invalid-request';
    }
    window.parent.postMessage(out, parentOrigin);
  }
})();
