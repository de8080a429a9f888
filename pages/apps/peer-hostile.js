/*
 * A hostile cross-origin child (test fixture, not the runtime): loaded by apps/peer.html, active only
 * with ?hostile=1 in a document served without the runtime (?attention=off). It never answers the
 * Host's capability requests correctly; instead, when the test calls `__hostile.start(seed, count)`,
 * it sends `count` messages chosen by a seeded PRNG (mulberry32) to its parent (the Host realm), to
 * its sibling frame, and through a nested srcdoc frame of its own (a window the Host never bound):
 *   - forged capability-grant / -deny / -request and relay query-result / -error / -request /
 *     observation messages, built from the relay shapes (pages/runtime/README.md) and from the real
 *     capability requests the Host sends it (exact request ids, Host instance, mounts), each with at
 *     least one fatal defect: a request id of another round, another Host instance, mount or
 *     generation, wrong origins, a bad token, a bad relay version or deny code;
 *   - replays of real messages: the Host's own capability requests, and the grants, query results and
 *     errors a real runtime (a nested `captive` peer realm with the runtime, which this page binds to
 *     as its parent) sent this page;
 *   - oversized (up to 512 KiB), malformed (non-objects, wrong types, NaN), deeply nested (depth
 *     1,500) payloads and prototype-pollution keys (__proto__, constructor, prototype);
 *   - after `__hostile.navigate()`, the next document replays what the previous one captured
 *     (request ids of the previous discovery round, the captive's tokens) with the rest of the count.
 * `__hostile.stats()` says how many messages reached postMessage per destination (a send that
 * throws, such as an uncloneable value, is not counted), so the test can compare them with the
 * runtime's own per-source counters. Nothing is ever logged.
 */
(function () {
  'use strict';
  var params = new URLSearchParams(location.search);
  if (params.get('hostile') !== '1' || window.__wippyAttentionRuntime) return;
  var CAP = 'wippy.attention.capability.v1';
  var RELAY = 'wippy.attention.relay.v2';
  var V1 = 'wippy.attention.relay.v1';
  var STORE = 'wippy-hostile-capture';

  function mulberry32(a) {
    return function () {
      a |= 0;
      a = (a + 0x6d2b79f5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  var rnd = mulberry32(1);
  function int(n) {
    return Math.floor(rnd() * n);
  }
  function pick(list) {
    return list[int(list.length)];
  }
  function hex(n) {
    var s = '';
    while (s.length < n) s += int(16).toString(16);
    return s;
  }
  function clone(v) {
    return JSON.parse(JSON.stringify(v));
  }

  // What this document (and the previous one, after navigation) has seen.
  var prev = null;
  try {
    prev = JSON.parse(sessionStorage.getItem(STORE) || 'null');
  } catch (_) {
    prev = null;
  }
  var seen = { hostRequests: [], captive: [], captiveTokens: [], captiveRealm: null };
  var stats = {
    parent: 0,
    sibling: 0,
    sub: 0,
    failed: 0,
    kinds: {},
    phase: params.get('phase') || '1',
    done: false,
    started: false,
  };

  window.addEventListener('message', function (ev) {
    var m = ev.data;
    if (!m || typeof m !== 'object') return;
    if (ev.source === window.parent && m.type === 'capability-request') {
      seen.hostRequests.push(m);
      if (seen.hostRequests.length > 64) seen.hostRequests.shift();
    } else if (captive && ev.source === captive.contentWindow) {
      seen.captive.push(m);
      if (m.type === 'capability-grant' && typeof m.token === 'string') {
        seen.captiveTokens.push(m.token);
        seen.captiveRealm = m.realm_id;
      }
    }
  });

  // A real runtime realm this page binds to as its parent, to capture real relay messages.
  var captive = document.createElement('iframe');
  captive.src = '/apps/peer.html?name=captive';
  captive.title = 'captive';
  captive.style.cssText = 'position:absolute;left:0;top:0;width:90px;height:40px;border:0;opacity:0.01';
  // A window of our own that the Host never bound: messages from it must match no binding.
  var sub = document.createElement('iframe');
  sub.srcdoc =
    '<script>addEventListener("message",function(e){if(e.source===parent&&e.data&&e.data.relay){' +
    // eslint-disable-next-line no-useless-escape -- `<\/script>` kept as written: this markup is script text
    'try{top.postMessage(e.data.payload,"*");parent.postMessage({relayed:true,ok:true},"*")}catch(x){parent.postMessage({relayed:true,ok:false},"*")}}})<\/script>';
  sub.style.cssText = 'position:absolute;left:0;top:0;width:1px;height:1px;border:0;opacity:0';
  var subRelayed = 0,
    subFailed = 0;
  window.addEventListener('message', function (ev) {
    if (ev.source === sub.contentWindow && ev.data && ev.data.relayed) {
      if (ev.data.ok) subRelayed++;
      else subFailed++;
    }
  });
  function mount() {
    document.body.appendChild(captive);
    document.body.appendChild(sub);
  }
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);

  function captiveRequest(hostId) {
    return {
      schema: CAP,
      type: 'capability-request',
      request_id: 'cr-' + hex(16),
      host_instance_id: hostId,
      parent_mount_id: 'mount-hostile',
      parent_generation: 1,
      child_mount_id: 'mount-captive',
      child_generation: 1,
      parent_origin: location.origin,
      target_origin: location.origin,
      relay_versions: [RELAY, V1],
      attempt: 1,
    };
  }
  // Binds the captive realm and asks it real queries: its grant, results and error are then replayed.
  function captureReal() {
    var hostId = seen.hostRequests.length ? seen.hostRequests[0].host_instance_id : 'host-' + hex(16);
    var cw = captive.contentWindow;
    cw.postMessage(captiveRequest(hostId), location.origin);
    return waitFor(function () {
      return seen.captiveTokens.length > 0;
    }, 3000).then(function () {
      var tok = seen.captiveTokens[seen.captiveTokens.length - 1];
      var base = {
        schema: RELAY,
        type: 'query-request',
        token: tok,
        host_instance_id: hostId,
        mount_id: 'mount-captive',
        generation: 1,
      };
      cw.postMessage(
        Object.assign({}, base, {
          request_id: 'q-' + hex(16),
          operation: 'points',
          timeout_ms: 800,
          points: [
            { point_id: 'p0', x: 20, y: 32 },
            { point_id: 'p1', x: 60, y: 32 },
          ],
          budgets: { depth: 2, queries: 4, points: 64, candidates: 8, bytes: 8192 },
          options: { privacy_text: 'safe' },
        }),
        location.origin,
      );
      cw.postMessage(
        Object.assign({}, base, { request_id: 'q-' + hex(16), operation: 'ready', timeout_ms: 500 }),
        location.origin,
      );
      cw.postMessage(
        Object.assign({}, base, { request_id: 'q-' + hex(16), token: hex(48), operation: 'points', points: [] }),
        location.origin,
      );
      return waitFor(function () {
        return (
          seen.captive.filter(function (m) {
            return m.type === 'query-result' || m.type === 'query-error';
          }).length >= 3
        );
      }, 3000);
    });
  }
  function waitFor(cond, ms) {
    return new Promise(function (resolve) {
      var t0 = Date.now();
      (function poll() {
        if (cond() || Date.now() - t0 > ms) resolve(cond());
        else setTimeout(poll, 20);
      })();
    });
  }

  function siblingWindow() {
    try {
      for (var i = 0; i < window.parent.frames.length; i++)
        if (window.parent.frames[i] === window) return window.parent.frames[i + 1] || null;
    } catch (_) {
      /* ignore */
    }
    return null;
  }

  // ---- the forgeries ----
  var HOST_ORIGIN = (function () {
    try {
      return location.ancestorOrigins[0];
    } catch (_) {
      return 'http://127.0.0.1';
    }
  })();
  function realRequest() {
    var all = seen.hostRequests.length ? seen.hostRequests : (prev && prev.hostRequests) || [];
    if (all.length) return all[int(all.length)];
    return {
      schema: CAP,
      type: 'capability-request',
      request_id: 'cr-' + hex(16),
      host_instance_id: 'host-' + hex(16),
      parent_mount_id: 'host-' + hex(16),
      parent_generation: 1,
      child_mount_id: 'mount-hostile',
      child_generation: 1,
      parent_origin: HOST_ORIGIN,
      target_origin: location.origin,
      relay_versions: [RELAY, V1],
      attempt: 1,
    };
  }
  function badOrigin() {
    return pick([
      'null',
      '*',
      HOST_ORIGIN + '/',
      HOST_ORIGIN + '/path',
      'http://user:pw@localhost',
      location.origin + '?q',
      'javascript:alert(1)',
      '',
      7,
      null,
    ]);
  }
  function badToken() {
    return pick(['', 'short', hex(129), 48, null, { token: hex(48) }, [hex(48)], 'x y z with spaces and 16+ chars']);
  }
  // A grant that echoes a real request of the Host, with at least one fatal defect. Every defect is
  // computed from the real request `r`, never from the grant being built, so two defects cannot
  // cancel out (0 then +1 would give the real generation back).
  var GRANT_DEFECTS = [
    function (g) {
      g.request_id = 'cr-' + hex(16);
    },
    function (g) {
      g.request_id = pick(['__proto__', 'constructor', 'toString', null, 42, ['cr-x']]);
    },
    function (g) {
      g.request_id =
        prev && prev.hostRequests && prev.hostRequests.length ? pick(prev.hostRequests).request_id : 'cr-' + hex(16);
    },
    function (g) {
      g.host_instance_id = pick(['host-' + hex(16), '', null, '__proto__']);
    },
    function (g) {
      g.child_mount_id = pick(['mount-sibling', 'mount-' + hex(4), '', '__proto__']);
    },
    function (g, r) {
      g.child_generation = pick([r.child_generation + 1, String(r.child_generation), -1, 1.5, null]);
    },
    function (g) {
      g.parent_mount_id = pick(['host-' + hex(16), 'mount-sibling', '']);
    },
    function (g, r) {
      g.parent_generation = pick([r.parent_generation + 1, String(r.parent_generation), r.parent_generation - 1]);
    },
    function (g) {
      g.parent_origin = badOrigin();
    },
    function (g) {
      g.target_origin = pick([HOST_ORIGIN, badOrigin()]);
    },
    function (g) {
      g.token = badToken();
    },
    function (g) {
      g.relay_version = pick(['wippy.attention.relay.v3', 'wippy.attention.capability.v1', '', null, RELAY + ' ']);
    },
  ];
  function forgedGrant() {
    var r = realRequest();
    var g = {
      schema: CAP,
      type: 'capability-grant',
      request_id: r.request_id,
      host_instance_id: r.host_instance_id,
      parent_mount_id: r.parent_mount_id,
      parent_generation: r.parent_generation,
      child_mount_id: r.child_mount_id,
      child_generation: r.child_generation,
      parent_origin: r.parent_origin,
      target_origin: r.target_origin,
      relay_version: pick([RELAY, V1]),
      token: hex(48),
      expires_in_ms: pick([60000, 1e12, -1, 0]),
      limits: pick([
        { points: 256, candidates: 128, bytes: 131072 },
        { points: 1e9, candidates: 1e9, bytes: 1e12 },
        null,
      ]),
      realm_id: 'r' + hex(6),
      frame_kind: 'document',
    };
    var n = 1 + int(3);
    // `defects` (ignored by any runtime) names what is wrong, for diagnosing a failure.
    g.defects = [];
    for (var i = 0; i < n; i++) {
      var k = int(GRANT_DEFECTS.length);
      g.defects.push(k);
      GRANT_DEFECTS[k](g, r);
    }
    return g;
  }
  function forgedDeny() {
    var r = realRequest();
    return pick([
      { schema: CAP, type: 'capability-deny', request_id: 'cr-' + hex(16), code: 'unsupported-version' },
      {
        schema: CAP,
        type: 'capability-deny',
        request_id: r.request_id,
        code: pick(['unauthorized', 'constructor', '', null]),
      },
      { schema: CAP, type: 'capability-deny', request_id: pick(['__proto__', null, 7]), code: 'unsupported-version' },
    ]);
  }
  function hostileDescriptor() {
    return {
      target_id: pick(['t-' + hex(6) + '-n1', '__proto__', 'constructor']),
      rect: { x: pick([0, -1e9, NaN, 1e308]), y: 0, width: 100, height: 64 },
      path: [
        {
          kind: pick(['element', 'host', 'iframe', '__proto__']),
          mount_id: 'HOSTILE-MARK',
          generation: 1,
          tag_name: 'button',
          frame_origin: badOrigin(),
        },
      ],
      summary: { role: 'button', name: 'HOSTILE-MARK ' + hex(8), text: 'HOSTILE-MARK' },
      occluded: false,
      geometry_source: 'document',
      runtime_source: 'iframe-realm',
    };
  }
  function forgedResult() {
    var ids = seen.captive
      .filter(function (m) {
        return typeof m.request_id === 'string';
      })
      .map(function (m) {
        return m.request_id;
      });
    var rid = pick(['q-' + hex(16), ids.length ? pick(ids) : 'q-' + hex(16), '__proto__', 'constructor', null]);
    return pick([
      {
        schema: pick([RELAY, V1]),
        type: 'query-result',
        request_id: rid,
        operation: 'points',
        realm_id: 'r' + hex(6),
        hits: { p0: ['t-x'], __proto__: ['t-y'] },
        candidates: [hostileDescriptor(), hostileDescriptor()],
        omissions: [{ reason: 'constructor', detail: 'HOSTILE-MARK http://evil/' }],
        queries_used: 1e9,
        points_used: -5,
      },
      {
        schema: RELAY,
        type: 'query-result',
        request_id: rid,
        operation: 'ready',
        children: [{ mount_id: 'HOSTILE-MARK', state: 'granted' }],
      },
      {
        schema: RELAY,
        type: 'query-error',
        request_id: rid,
        code: pick(['deadline-exceeded', 'constructor', 'HOSTILE-MARK', null]),
      },
    ]);
  }
  function forgedObservation() {
    var tok = pick([
      hex(48),
      seen.captiveTokens.length ? pick(seen.captiveTokens) : hex(48),
      (prev && prev.captiveTokens && prev.captiveTokens[0]) || hex(48),
      undefined,
      0,
      { toString: null },
    ]);
    var now = Date.now();
    var o = pick([
      {
        kind: 'event',
        event: {
          event_id: 'ev-' + hex(6) + '-1',
          type: pick(['click', 'pointerdown', 'pointermove', 'constructor']),
          observed_ms: now,
          realm_time_ms: 5,
          point: { x: pick([10, NaN, 1e308, -1e308]), y: 10 },
          pointer_id: 1,
          pointer_type: 'mouse',
          buttons: 1,
          excluded: false,
        },
        candidates: [hostileDescriptor()],
      },
      {
        kind: 'focus',
        focus: { event_id: 'ev-' + hex(6) + '-2', focused_ms: now, realm_time_ms: 5 },
        candidate: hostileDescriptor(),
      },
      { kind: 'focus-clear', event_id: 'ev-' + hex(6) + '-1' },
      { kind: 'focus-invalidate', t_abs: performance.timeOrigin + performance.now() },
      { kind: '__proto__' },
    ]);
    return {
      schema: pick([RELAY, V1]),
      type: 'observation',
      token: tok,
      realm_id: seen.captiveRealm || 'r' + hex(6),
      observation: o,
    };
  }
  function forgedQueryRequest() {
    var r = realRequest();
    return {
      schema: RELAY,
      type: 'query-request',
      request_id: 'q-' + hex(16),
      token: pick([hex(48), seen.captiveTokens[0] || hex(48)]),
      host_instance_id: pick([r.host_instance_id, 'host-' + hex(16)]),
      mount_id: pick(['mount-sibling', 'mount-hostile']),
      generation: pick([1, 2, '1']),
      operation: pick(['points', 'ready', 'constructor']),
      points: [{ point_id: 'p0', x: 10, y: 10 }],
      timeout_ms: 100,
      budgets: { depth: 8, queries: 1e9, points: 1e9, candidates: 1e9, bytes: 1e12 },
    };
  }
  function forgedCapabilityRequest() {
    var r = clone(realRequest());
    r.request_id = 'cr-' + hex(16);
    if (rnd() < 0.5) r.parent_origin = location.origin;
    else r.host_instance_id = 'host-' + hex(16);
    return r;
  }
  function replay() {
    var pool = seen.captive.concat(seen.hostRequests, (prev && prev.captive) || [], (prev && prev.hostRequests) || []);
    return pool.length ? pool[int(pool.length)] : forgedGrant();
  }
  function deep(depth) {
    var v = { schema: RELAY, type: 'observation', token: hex(48), observation: null };
    var inner = pick([[], {}]);
    var cur = inner;
    for (var i = 0; i < depth; i++) {
      var next = Array.isArray(cur) ? [] : {};
      if (Array.isArray(cur)) cur.push(next);
      else cur.a = next;
      cur = next;
    }
    v.observation = { kind: 'event', event: inner, candidates: [inner] };
    if (rnd() < 0.5) {
      v.type = 'query-result';
      v.request_id = 'q-' + hex(16);
      v.candidates = [{ path: inner }];
    }
    return v;
  }
  function oversized() {
    var big = new Array(1 + int(512)).join(hex(1024));
    return pick([
      Object.assign(forgedGrant(), { token: big }),
      Object.assign(forgedResult(), { padding: big }),
      {
        schema: RELAY,
        type: 'query-result',
        request_id: 'q-' + hex(16),
        operation: 'points',
        candidates: new Array(20000).fill(0).map(function (_, i) {
          return { target_id: 't-' + i };
        }),
      },
      { schema: CAP, type: pick(['capability-grant', 'capability-request']), request_id: big },
    ]);
  }
  function malformed() {
    return pick([
      null,
      undefined,
      0,
      NaN,
      'wippy.attention.capability.v1',
      '{"schema":"wippy.attention.relay.v2","type":"query-result"}',
      [CAP, 'capability-grant'],
      true,
      new Date(),
      new ArrayBuffer(16),
      new Map([['schema', CAP]]),
      /wippy/,
      { schema: 42 },
      { schema: 'wippy.attention.' },
      { schema: CAP },
      { schema: CAP, type: 42 },
      { schema: RELAY, type: 'query-result' },
      { schema: RELAY, type: 'observation', observation: 'x' },
      { schema: 'wippy.attention.runtime.v1', type: 'bootstrap', host_instance_id: 'host-' + hex(16) },
      { schema: CAP.toUpperCase(), type: 'capability-grant' },
    ]);
  }
  function polluting() {
    var kind = pick(['grant', 'obs', 'result', 'plain']);
    var text = {
      grant:
        '{"schema":"' +
        CAP +
        '","type":"capability-grant","__proto__":{"polluted":"yes","token":"' +
        hex(48) +
        '","request_id":"' +
        realRequest().request_id +
        '"},"constructor":{"prototype":{"polluted":"yes"}}}',
      obs:
        '{"schema":"' +
        RELAY +
        '","type":"observation","token":"' +
        hex(48) +
        '","observation":{"kind":"event","__proto__":{"polluted":"yes"},"event":{"type":"constructor","__proto__":{"point":{"x":1,"y":1}}}}}',
      result:
        '{"schema":"' +
        RELAY +
        '","type":"query-result","request_id":"__proto__","hits":{"__proto__":["t-x"]},"candidates":[{"__proto__":{"target_id":"t-x"}}]}',
      plain:
        '{"__proto__":{"schema":"' +
        RELAY +
        '","type":"query-error","polluted":"yes"},"constructor":"x","prototype":"y"}',
    }[kind];
    var v = JSON.parse(text);
    if (rnd() < 0.3) v.type = pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']);
    return v;
  }
  var KINDS = [
    ['forged-grant', 20, forgedGrant],
    ['forged-deny', 5, forgedDeny],
    ['forged-result', 12, forgedResult],
    ['forged-observation', 15, forgedObservation],
    ['forged-query-request', 6, forgedQueryRequest],
    ['forged-capability-request', 6, forgedCapabilityRequest],
    ['replay', 12, replay],
    ['oversized', 1, oversized],
    [
      'deep',
      2,
      function () {
        return deep(200 + int(1300));
      },
    ],
    ['malformed', 10, malformed],
    ['polluting', 11, polluting],
  ];
  var TOTAL = KINDS.reduce(function (a, k) {
    return a + k[1];
  }, 0);
  function nextMessage() {
    var x = int(TOTAL);
    for (var i = 0; i < KINDS.length; i++) {
      if (x < KINDS[i][1]) return [KINDS[i][0], KINDS[i][2]()];
      x -= KINDS[i][1];
    }
    return ['malformed', malformed()];
  }

  function send(count) {
    var sib = siblingWindow();
    var left = count;
    return new Promise(function (resolve) {
      (function batch() {
        for (var i = 0; i < 25 && left > 0; i++, left--) {
          var km = nextMessage();
          var dest = rnd();
          try {
            if (dest < 0.7) {
              window.parent.postMessage(km[1], '*');
              stats.parent++;
            } else if (dest < 0.9 && sib) {
              sib.postMessage(km[1], '*');
              stats.sibling++;
            } else {
              sub.contentWindow.postMessage({ relay: true, payload: km[1] }, '*');
              stats.sub++;
            }
            stats.kinds[km[0]] = (stats.kinds[km[0]] || 0) + 1;
          } catch (_) {
            stats.failed++;
          }
        }
        if (left > 0) setTimeout(batch, 0);
        else resolve();
      })();
    });
  }

  window.__hostile = {
    // Captures real messages, then sends `count` seeded messages; resolves with stats().
    start: function (seed, count) {
      rnd = mulberry32((seed >>> 0) ^ (stats.phase === '1' ? 0 : 0x9e3779b9));
      stats.started = true;
      var p = stats.phase === '1' ? captureReal() : Promise.resolve(true);
      return p
        .then(function (captured) {
          stats.captured = { real: captured, host_requests: seen.hostRequests.length, captive: seen.captive.length };
          return send(count);
        })
        .then(function () {
          // Wait until the sub frame relayed (or failed) everything handed to it.
          return waitFor(function () {
            return subRelayed + subFailed >= stats.sub;
          }, 5000);
        })
        .then(function () {
          stats.sub_relayed = subRelayed;
          stats.sub_failed = subFailed;
          stats.done = true;
          return window.__hostile.stats();
        });
    },
    stats: function () {
      return JSON.parse(JSON.stringify(stats));
    },
    captiveRealm: function () {
      return seen.captiveRealm;
    },
    captiveTokens: function () {
      return seen.captiveTokens.slice();
    },
    // Keeps what was captured for the next document, then navigates this frame.
    navigate: function () {
      try {
        sessionStorage.setItem(
          STORE,
          JSON.stringify({
            hostRequests: seen.hostRequests,
            captive: seen.captive.filter(function (m) {
              return JSON.stringify(m).length < 65536;
            }),
            captiveTokens: seen.captiveTokens,
          }),
        );
      } catch (_) {
        /* ignore */
      }
      var u = new URL(location.href);
      u.searchParams.set('phase', '2');
      location.replace(u.toString());
      return true;
    },
    prevCaptured: function () {
      return prev
        ? {
            host_requests: (prev.hostRequests || []).length,
            captive: (prev.captive || []).length,
            tokens: (prev.captiveTokens || []).length,
          }
        : null;
    },
  };
})();
