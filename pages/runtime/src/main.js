/*
 * attention.js: the Wippy Attention runtime (the system under test).
 *
 * Loaded as the first classic script of every HTML document (the server injects it; srcdoc documents
 * get it from the Host's mounting code; Web Fragment hidden realms get it in the gateway stub). It runs
 * synchronously before page scripts and:
 *   - remembers closed shadow roots (patched Element.prototype.attachShadow) so resolution can enter them;
 *   - observes trusted pointer/touch/focus input in its realm and reports it towards the top Host realm;
 *   - resolves points recursively (document -> shadow roots -> Web Fragments -> iframes via the relay);
 *   - in the top Host realm, exposes window.wippyAttention {ready, snapshot, envelope, canonicalJson, focus}
 *     producing `wippy.attention.v1` payloads and `wippy.attention` v1 envelopes.
 * Plain JavaScript, no dependencies, no build step. Design notes and relay message shapes: README.md.
 */
(function () {
  'use strict';
  if (window.__wippyAttentionRuntime) return;

  // ------------------------------------------------------------------------------------------------
  // Natives captured before any page script runs (pages and Web Fragments patch some of these).
  // ------------------------------------------------------------------------------------------------
  const W = window;
  const D = document;
  const getDesc = (proto, name) => { try { return Object.getOwnPropertyDescriptor(proto, name); } catch (_) { return undefined; } };
  const nParentNode = getDesc(Node.prototype, 'parentNode').get;
  const nFirstChild = getDesc(Node.prototype, 'firstChild').get;
  const nNextSibling = getDesc(Node.prototype, 'nextSibling').get;
  const nNodeType = getDesc(Node.prototype, 'nodeType').get;
  const nIsConnected = (getDesc(Node.prototype, 'isConnected') || {}).get;
  const nNodeValue = getDesc(Node.prototype, 'nodeValue').get;
  const nLocalName = getDesc(Element.prototype, 'localName').get;
  const nShadowRootGet = getDesc(Element.prototype, 'shadowRoot').get;
  const nHostGet = getDesc(ShadowRoot.prototype, 'host').get;
  const nGetAttribute = Element.prototype.getAttribute;
  const nHasAttribute = Element.prototype.hasAttribute;
  const nGetBCR = Element.prototype.getBoundingClientRect;
  const nAttachShadow = Element.prototype.attachShadow;
  const nDocEFP = Document.prototype.elementFromPoint;
  const nRootEFP = (ShadowRoot.prototype.elementFromPoint) || null;
  const nDocActive = getDesc(Document.prototype, 'activeElement').get;
  const nRootActive = getDesc(ShadowRoot.prototype, 'activeElement').get;
  const nDocGetById = Document.prototype.getElementById;
  const nFragGetById = DocumentFragment.prototype.getElementById;
  const nQSA = Element.prototype.querySelectorAll;
  const nDocQSA = Document.prototype.querySelectorAll;
  const nFragQSA = DocumentFragment.prototype.querySelectorAll;
  const nAddEL = EventTarget.prototype.addEventListener;
  const nGetCS = W.getComputedStyle.bind(W);
  const nPerfNow = performance.now.bind(performance);
  const nTimeOrigin = (typeof performance.timeOrigin === 'number' && isFinite(performance.timeOrigin)) ? performance.timeOrigin : Date.now() - performance.now();
  // Absolute monotonic-clock time (ms) of an event, comparable across realms: timeOrigin + timeStamp.
  function eventTime(ev) { const ts = ev && ev.timeStamp; return nTimeOrigin + ((typeof ts === 'number' && isFinite(ts) && ts > 0) ? ts : nPerfNow()); }
  function nowAbs() { return nTimeOrigin + nPerfNow(); }
  const nDateNow = Date.now;
  const nSetTimeout = W.setTimeout.bind(W);
  const nClearTimeout = W.clearTimeout.bind(W);
  const nPostMessage = W.postMessage; // called on other windows via .call
  const nMutationObserver = W.MutationObserver;
  const nJSONStringify = JSON.stringify;
  const nGetRandomValues = crypto.getRandomValues.bind(crypto);
  const nSubtle = (W.isSecureContext && crypto.subtle) ? crypto.subtle : null;
  const nTextEncoder = W.TextEncoder;
  const nWeakRef = W.WeakRef;
  const nURL = W.URL;
  const nDebug = (W.console && W.console.debug) ? W.console.debug.bind(W.console) : function () {};

  // ------------------------------------------------------------------------------------------------
  // Constants
  // ------------------------------------------------------------------------------------------------
  const SCHEMA = 'wippy.attention.v1';
  const CAP_SCHEMA = 'wippy.attention.capability.v1';
  const RELAY_SCHEMA = 'wippy.attention.relay.v2';
  const RELAY_V1 = 'wippy.attention.relay.v1';
  const EVENT_WINDOW_MS = 60000;
  const MAX_EVENTS = 32;
  const TEXT_MAX = 160;
  const EVENT_ONLY_TARGETS = 8;
  const DISCOVERY_INTERVAL_MS = 100;
  const DISCOVERY_ATTEMPTS = 50;
  const QUERY_TIMEOUT_MS = 1500;
  const GRANT_LIFETIME_MS = 60000;
  const GRANT_LIMITS = { points: 256, candidates: 128, bytes: 131072 };
  const ROOT_BUDGET = { depth: 8, queries: 128, points: 4096, candidates: 128, bytes: 131072 };
  const ENVELOPE_TARGET_BYTES = 30720; // serialized envelope headroom under 32 KiB
  const POINTER_TYPES = ['pointermove', 'pointerdown', 'pointerup', 'click', 'touchstart', 'touchend'];
  const DISCRETE = { pointerdown: 1, pointerup: 1, click: 1, touchstart: 1, touchend: 1 };
  const RELAY_CODES = ['invalid-request', 'unsupported-version', 'unauthorized', 'host-instance-mismatch',
    'capability-expired', 'capability-revoked', 'generation-mismatch', 'deadline-exceeded', 'detached',
    'navigation', 'disconnected', 'response-too-large', 'internal-error', 'unavailable'];
  const CODE_TO_REASON = {
    'deadline-exceeded': 'child-timeout', 'detached': 'stale-mount', 'generation-mismatch': 'stale-mount',
    'navigation': 'navigation', 'disconnected': 'child-disconnected', 'response-too-large': 'response-budget',
  };

  // ------------------------------------------------------------------------------------------------
  // Small utilities
  // ------------------------------------------------------------------------------------------------
  function randHex(bytes) {
    const a = new Uint8Array(bytes); nGetRandomValues(a);
    let s = ''; for (let i = 0; i < a.length; i++) s += (a[i] < 16 ? '0' : '') + a[i].toString(16);
    return s;
  }
  function randB36(n) { let s = ''; while (s.length < n) s += parseInt(randHex(4), 16).toString(36); return s.slice(0, n); }
  const REALM_ID = 'r' + randB36(6);
  function iso(ms) { return new Date(ms).toISOString(); }
  function r3(v) { v = +v; if (!isFinite(v)) return 0; const x = Math.round(v * 1000) / 1000; return Object.is(x, -0) ? 0 : x; }
  function nonneg(v) { v = r3(v); return v < 0 ? 0 : v; }
  function safe(fn, fallback) { try { return fn(); } catch (e) { nDebug('[wippy-attention]', e && e.message); return fallback; } }
  function nodeType(n) { try { return nNodeType.call(n); } catch (_) { return 0; } }
  function localName(el) { try { return nLocalName.call(el) || ''; } catch (_) { return ''; } }
  function attr(el, name) { try { return nGetAttribute.call(el, name); } catch (_) { return null; } }
  function hasAttr(el, name) { try { return nHasAttribute.call(el, name); } catch (_) { return false; } }
  function parentOf(n) { try { return nParentNode.call(n); } catch (_) { return null; } }
  function hostOf(root) { try { return nHostGet.call(root); } catch (_) { return null; } }
  function isConnected(n) { try { return nIsConnected ? nIsConnected.call(n) : true; } catch (_) { return false; } }
  function composedParent(n) {
    const p = parentOf(n); if (p) return p;
    if (nodeType(n) === 11) return hostOf(n);
    return null;
  }
  function treeRoot(n) { let r = n, p; while ((p = parentOf(r))) r = p; return r; }
  function rectOf(el) { try { const b = nGetBCR.call(el); return { x: b.left, y: b.top, width: b.width, height: b.height }; } catch (_) { return { x: 0, y: 0, width: 0, height: 0 }; } }
  function rectOut(r) { return { x: r3(r.x), y: r3(r.y), width: nonneg(r.width), height: nonneg(r.height) }; }
  function intersect(a, b) {
    const x1 = Math.max(a.x, b.x), y1 = Math.max(a.y, b.y);
    const x2 = Math.min(a.x + a.width, b.x + b.width), y2 = Math.min(a.y + a.height, b.y + b.height);
    return { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) };
  }
  function sameRect(a, b) { return Math.abs(a.x - b.x) < 0.001 && Math.abs(a.y - b.y) < 0.001 && Math.abs(a.width - b.width) < 0.001 && Math.abs(a.height - b.height) < 0.001; }
  function viewportRect() { return { x: 0, y: 0, width: W.innerWidth || 0, height: W.innerHeight || 0 }; }
  function utf8Len(s) { return new nTextEncoder().encode(s).length; }
  function cutScalars(s, max) {
    if (s.length <= max) return s;
    const arr = Array.from(s); return arr.length <= max ? s : arr.slice(0, max).join('');
  }
  function cutBytes(s, maxBytes) {
    if (typeof s !== 'string') return '';
    if (s.length * 3 <= maxBytes) return s;
    let out = ''; let n = 0;
    for (const ch of s) { const cp = ch.codePointAt(0); const b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; if (n + b > maxBytes) break; n += b; out += ch; }
    return out;
  }
  function normText(s) { return String(s || '').replace(/[\s\u00a0]+/g, ' ').trim(); }
  function shortId(s, max) {
    if (typeof s === 'string' && s.length > 0 && utf8Len(s) <= max) return s;
    return 'h' + fnv(String(s));
  }
  function fnv(s) { // two 32-bit FNV-1a variants -> 16 hex, a stable short identity, not a security hash
    let h1 = 0x811c9dc5, h2 = 0x01000193 ^ 0x5bd1e995;
    for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); h1 = Math.imul(h1 ^ c, 16777619) >>> 0; h2 = Math.imul(h2 ^ c, 2246822519) >>> 0; }
    return ('0000000' + h1.toString(16)).slice(-8) + ('0000000' + h2.toString(16)).slice(-8);
  }
  function canonicalOrigin(s) {
    if (typeof s !== 'string' || s.length === 0 || s.length > 2048) return null;
    if (!/^https?:\/\/[^/?#@\s]+$/.test(s)) return null;
    try { const u = new nURL(s); return (u.origin === s) ? s : null; } catch (_) { return null; }
  }
  function validFrameOrigin(s) { return s === 'about:srcdoc' || canonicalOrigin(s) !== null; }
  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }

  // ------------------------------------------------------------------------------------------------
  // Canonical JSON (schemas.md §2): sorted keys by UTF-8 bytes, Go scalar encoding with HTML escaping,
  // null members dropped, {} and [] both "[]", depth <= 32.
  // ------------------------------------------------------------------------------------------------
  function cmpCodePoints(a, b) {
    let i = 0, j = 0;
    while (i < a.length && j < b.length) {
      const ca = a.codePointAt(i), cb = b.codePointAt(j);
      if (ca !== cb) return ca < cb ? -1 : 1;
      i += ca > 0xffff ? 2 : 1; j += cb > 0xffff ? 2 : 1;
    }
    return (a.length - i) - (b.length - j) > 0 ? 1 : ((a.length - i) === (b.length - j) ? 0 : -1);
  }
  const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
  const HAS_SURROGATE = /[\ud800-\udfff]/;
  function encString(s) {
    if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) out += '\\"';
      else if (c === 0x5c) out += '\\\\';
      else if (c < 0x20) {
        out += c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : c === 0x08 ? '\\b' : c === 0x0c ? '\\f'
          : '\\u00' + (c < 16 ? '0' : '') + c.toString(16);
      }
      else if (c === 0x3c) out += '\\u003c';
      else if (c === 0x3e) out += '\\u003e';
      else if (c === 0x26) out += '\\u0026';
      else if (c === 0x2028) out += '\\u2028';
      else if (c === 0x2029) out += '\\u2029';
      else if (c >= 0xd800 && c <= 0xdbff) {
        const n = s.charCodeAt(i + 1);
        if (n >= 0xdc00 && n <= 0xdfff) { out += s[i] + s[i + 1]; i++; } else out += '\ufffd';
      }
      else if (c >= 0xdc00 && c <= 0xdfff) out += '\ufffd';
      else out += s[i];
    }
    return out + '"';
  }
  function encValue(v, depth, seen) {
    if (depth > 32) throw new Error('canonical JSON: nesting deeper than 32');
    if (v === null || v === undefined) return 'null';
    const t = typeof v;
    if (t === 'boolean') return v ? 'true' : 'false';
    if (t === 'number') {
      if (!isFinite(v)) throw new Error('canonical JSON: non-finite number');
      return Object.is(v, -0) ? '0' : String(v);
    }
    if (t === 'string') return encString(v);
    if (t === 'object') {
      if (seen.indexOf(v) >= 0) throw new Error('canonical JSON: cycle');
      seen.push(v);
      let out;
      if (Array.isArray(v)) {
        out = v.length === 0 ? '[]' : '[' + v.map((x) => encValue(x, depth + 1, seen)).join(',') + ']';
      } else {
        const keys = Object.keys(v).filter((k) => v[k] !== null && v[k] !== undefined && typeof v[k] !== 'function');
        if (keys.length === 0) out = '[]';
        else {
          // UTF-16 order equals code point (= UTF-8 byte) order unless a key has surrogates.
          if (keys.some((k) => HAS_SURROGATE.test(k))) keys.sort(cmpCodePoints); else keys.sort();
          out = '{' + keys.map((k) => encString(k) + ':' + encValue(v[k], depth + 1, seen)).join(',') + '}';
        }
      }
      seen.pop();
      return out;
    }
    throw new Error('canonical JSON: unsupported value');
  }
  function canonicalJson(value) { return encValue(value, 0, []); }

  // SHA-256: WebCrypto when available (secure contexts), otherwise a small pure-JS fallback.
  const K256 = new Uint32Array([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
  function sha256Js(bytes) {
    const l = bytes.length, nBlocks = ((l + 9 + 63) >> 6);
    const buf = new Uint8Array(nBlocks * 64); buf.set(bytes); buf[l] = 0x80;
    const bits = l * 8; const dv = new DataView(buf.buffer);
    dv.setUint32(buf.length - 4, bits >>> 0); dv.setUint32(buf.length - 8, Math.floor(bits / 4294967296));
    const H = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const w = new Uint32Array(64);
    for (let b = 0; b < nBlocks; b++) {
      for (let i = 0; i < 16; i++) w[i] = dv.getUint32(b * 64 + i * 4);
      for (let i = 16; i < 64; i++) {
        const x = w[i - 15], y = w[i - 2];
        const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let a = H[0], bb = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
      for (let i = 0; i < 64; i++) {
        const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const ch = (e & f) ^ (~e & g);
        const t1 = (h + S1 + ch + K256[i] + w[i]) >>> 0;
        const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const mj = (a & bb) ^ (a & c) ^ (bb & c);
        const t2 = (S0 + mj) >>> 0;
        h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = bb; bb = a; a = (t1 + t2) >>> 0;
      }
      H[0] += a; H[1] += bb; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
    }
    let hex = ''; for (let i = 0; i < 8; i++) hex += ('0000000' + H[i].toString(16)).slice(-8);
    return hex;
  }
  async function sha256Hex(str) {
    const bytes = new nTextEncoder().encode(str);
    if (nSubtle) {
      try {
        const d = new Uint8Array(await nSubtle.digest('SHA-256', bytes));
        let hex = ''; for (let i = 0; i < d.length; i++) hex += (d[i] < 16 ? '0' : '') + d[i].toString(16);
        return hex;
      } catch (_) { /* fall through */ }
    }
    return sha256Js(bytes);
  }

  // ------------------------------------------------------------------------------------------------
  // Realm role and closed shadow roots
  // ------------------------------------------------------------------------------------------------
  let ROLE = 'top';
  try {
    if (typeof W.name === 'string' && W.name.indexOf('wf:') === 0) ROLE = 'fragment-realm';
    else if (W.parent !== W) ROLE = 'child';
  } catch (_) { ROLE = 'child'; }
  const IS_SRCDOC = (function () { try { return W.location.href === 'about:srcdoc'; } catch (_) { return false; } })();
  // self.origin is the realm's real (possibly inherited) origin; location.origin is "null" for about:srcdoc.
  const OWN_ORIGIN = (function () { try { return (typeof W.origin === 'string' && W.origin !== 'null') ? W.origin : W.location.origin; } catch (_) { return 'null'; } })();

  const closedRoots = new WeakMap();
  const observedRoots = new WeakSet();
  function registerRoot(host, root) {
    try { if (host && root) { closedRoots.set(host, root); observeRoot(root); } } catch (_) { /* ignore */ }
  }
  // In a fragment realm, custom elements defined by fragment code live in this realm's prototypes but
  // render in the main document: forward their shadow roots to the main realm's registry.
  let forwardRoot = null;
  if (ROLE === 'fragment-realm') {
    try { const p = W.parent && W.parent.__wippyAttentionRuntime; if (p && p.registerRoot) forwardRoot = p.registerRoot; } catch (_) { forwardRoot = null; }
  }
  try {
    Element.prototype.attachShadow = function attachShadow(init) {
      const root = nAttachShadow.call(this, init);
      registerRoot(this, root);
      if (forwardRoot) { try { forwardRoot(this, root); } catch (_) { /* ignore */ } }
      return root;
    };
  } catch (_) { /* ignore */ }
  function shadowOf(el) {
    let r = null;
    try { r = nShadowRootGet.call(el); } catch (_) { r = null; }
    return r || closedRoots.get(el) || null;
  }

  // ------------------------------------------------------------------------------------------------
  // Identity: node ids, mount ids and generations
  // ------------------------------------------------------------------------------------------------
  const nodeIds = new WeakMap();
  let nodeCounter = 0;
  function nodeKey(el) {
    let k = nodeIds.get(el);
    if (!k) { k = REALM_ID + '-n' + (++nodeCounter); nodeIds.set(el, k); }
    return k;
  }
  const explicitGen = new WeakMap(); // element -> generation for its explicit mount id
  const explicitMax = new Map();     // mount id -> highest generation handed out in this realm
  function mountOf(el) {
    const m = attr(el, 'data-wippy-mount-id');
    if (m && m.length > 0 && utf8Len(m) <= 160) {
      let g = explicitGen.get(el);
      if (!g) { g = (explicitMax.get(m) || 0) + 1; explicitMax.set(m, g); explicitGen.set(el, g); }
      return { mount_id: m, generation: g };
    }
    return { mount_id: nodeKey(el), generation: 1 };
  }
  function targetIdOf(el) { return 't-' + nodeKey(el); }

  // ------------------------------------------------------------------------------------------------
  // Privacy
  // ------------------------------------------------------------------------------------------------
  const SENSITIVE_NAME = /(pass(word|wd|code|phrase)?|pwd|one[-_ ]?time|otp|totp|mfa|2fa|card[-_ ]?(number|num|no)|cc[-_]?(num|number|csc|cvc|cvv|exp)|cvv|cvc|csc|security[-_]?code|secret|api[-_]?key|token|credential|ssn|(^|[^a-z])pin([^a-z]|$))/i;
  function isSensitiveControl(el) {
    const ln = localName(el);
    if (ln !== 'input' && ln !== 'textarea' && ln !== 'select') return false;
    const type = (attr(el, 'type') || '').toLowerCase();
    if (ln === 'input' && (type === 'password' || type === 'hidden' || type === 'file')) return true;
    const ac = (attr(el, 'autocomplete') || '').toLowerCase();
    if (/(one-time-code|current-password|new-password|cc-[a-z-]+|webauthn)/.test(ac)) return true;
    const names = [attr(el, 'name'), attr(el, 'id'), ac, attr(el, 'inputmode') === 'numeric' ? attr(el, 'aria-label') : ''].join(' ');
    return SENSITIVE_NAME.test(names);
  }
  function selfExcluded(el) {
    const a = attr(el, 'data-wippy-attention');
    if (a && a.trim().toLowerCase() === 'exclude') return true;
    if (hasAttr(el, 'data-wippy-composer')) return true;
    return isSensitiveControl(el);
  }
  function selfRedacted(el) { const a = attr(el, 'data-wippy-attention'); return !!(a && a.trim().toLowerCase() === 'redact'); }
  // Walk the physical composed ancestry (never ownerDocument/getRootNode, which Web Fragments patch).
  function privacyOf(el) {
    let excluded = null, redacted = null;
    for (let n = el; n; n = composedParent(n)) {
      if (nodeType(n) !== 1) continue;
      if (!excluded && selfExcluded(n)) excluded = n;
      if (!redacted && selfRedacted(n)) redacted = n;
    }
    return { excluded, redacted };
  }

  // ------------------------------------------------------------------------------------------------
  // Accessibility summary
  // ------------------------------------------------------------------------------------------------
  const SKIP_TEXT = { script: 1, style: 1, template: 1, noscript: 1, 'wf-head': 1, head: 1, title: 1, textarea: 1, input: 1, select: 1, iframe: 1 };
  function isEditable(el) {
    const ce = attr(el, 'contenteditable');
    return ce !== null && ce.toLowerCase() !== 'false';
  }
  function collectText(el, limit) {
    let out = '';
    let budget = 4000;
    const stack = [el];
    while (stack.length && budget-- > 0) {
      const n = stack.pop();
      const t = nodeType(n);
      if (t === 3) { out += ' ' + (nNodeValue.call(n) || ''); if (out.length > limit * 4 + 64) break; continue; }
      if (t !== 1) continue;
      if (n !== el) {
        if (SKIP_TEXT[localName(n)] || selfExcluded(n) || selfRedacted(n) || isEditable(n) || labelsSensitive(n)) continue;
      }
      const kids = [];
      for (let c = nFirstChild.call(n); c; c = nNextSibling.call(c)) kids.push(c);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return cutScalars(normText(out), limit);
  }
  // A <label> of a sensitive control (password, one-time code ...) is treated as part of that control.
  function labelsSensitive(n) {
    if (localName(n) !== 'label') return false;
    const f = attr(n, 'for');
    if (f) { const t = byIdInRoot(n, f); if (t && isSensitiveControl(t)) return true; }
    try { const inner = nQSA.call(n, 'input,textarea,select'); for (let i = 0; i < inner.length; i++) if (isSensitiveControl(inner[i])) return true; } catch (_) { /* ignore */ }
    return false;
  }
  function byIdInRoot(el, id) {
    const root = treeRoot(el);
    try {
      if (nodeType(root) === 9) return nDocGetById.call(root, id);
      if (nodeType(root) === 11) return nFragGetById.call(root, id);
    } catch (_) { /* ignore */ }
    return null;
  }
  function textOfSafe(el) {
    const p = privacyOf(el);
    if (p.excluded || p.redacted || labelsSensitive(el)) return '';
    return collectText(el, TEXT_MAX);
  }
  const IMPLICIT_ROLE = {
    button: 'button', nav: 'navigation', main: 'main', header: 'banner', footer: 'contentinfo', aside: 'complementary',
    form: 'form', table: 'table', tr: 'row', td: 'cell', th: 'columnheader', ul: 'list', ol: 'list', li: 'listitem',
    dialog: 'dialog', details: 'group', summary: 'button', option: 'option', progress: 'progressbar', meter: 'meter',
    textarea: 'textbox', article: 'article', p: 'paragraph', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading',
    h5: 'heading', h6: 'heading', hr: 'separator', fieldset: 'group', figure: 'figure', output: 'status', menu: 'list',
    html: 'document', body: 'generic', 'wf-html': 'document', 'wf-body': 'generic', label: 'generic', img: 'img',
    iframe: 'document', search: 'search', blockquote: 'blockquote', code: 'code', strong: 'strong', em: 'emphasis',
  };
  function roleOf(el) {
    const explicit = attr(el, 'role');
    if (explicit && explicit.trim()) return cutBytes(explicit.trim().split(/\s+/)[0].toLowerCase(), 256);
    const ln = localName(el);
    if (ln === 'a' || ln === 'area') return hasAttr(el, 'href') ? 'link' : 'generic';
    if (ln === 'img') return attr(el, 'alt') === '' ? 'presentation' : 'img';
    if (ln === 'section') return (hasAttr(el, 'aria-label') || hasAttr(el, 'aria-labelledby')) ? 'region' : 'generic';
    if (ln === 'select') return (hasAttr(el, 'multiple') || (parseInt(attr(el, 'size') || '1', 10) > 1)) ? 'listbox' : 'combobox';
    if (ln === 'input') {
      const t = (attr(el, 'type') || 'text').toLowerCase();
      return ({ checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
        submit: 'button', reset: 'button', button: 'button', image: 'button', email: 'textbox', tel: 'textbox',
        url: 'textbox', text: 'textbox' })[t] || 'textbox';
    }
    return IMPLICIT_ROLE[ln] || 'generic';
  }
  const NAME_FROM_CONTENT = { button: 1, link: 1, heading: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1,
    option: 1, cell: 1, columnheader: 1, rowheader: 1, treeitem: 1, switch: 1, checkbox: 1, radio: 1, tooltip: 1, row: 1 };
  function nameOf(el, role) {
    const lb = attr(el, 'aria-labelledby');
    if (lb) {
      const parts = [];
      lb.split(/\s+/).forEach((id) => { if (!id) return; const ref = byIdInRoot(el, id); if (ref) { const t = textOfSafe(ref); if (t) parts.push(t); } });
      const s = normText(parts.join(' ')); if (s) return s;
    }
    const al = normText(attr(el, 'aria-label')); if (al) return al;
    const ln = localName(el);
    if (ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'meter' || ln === 'progress' || ln === 'output') {
      const t = (attr(el, 'type') || '').toLowerCase();
      if (ln === 'input' && (t === 'submit' || t === 'reset' || t === 'button')) {
        const v = normText(attr(el, 'value')); if (v) return v; return t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '';
      }
      if (ln === 'input' && t === 'image') { const a = normText(attr(el, 'alt')); if (a) return a; }
      const id = attr(el, 'id');
      if (id) {
        const root = treeRoot(el); let labels = [];
        try { labels = nodeType(root) === 9 ? nDocQSA.call(root, 'label[for]') : nodeType(root) === 11 ? nFragQSA.call(root, 'label[for]') : []; } catch (_) { labels = []; }
        for (let i = 0; i < labels.length; i++) if (attr(labels[i], 'for') === id) { const t = textOfSafe(labels[i]); if (t) return t; }
      }
      for (let n = parentOf(el); n && nodeType(n) === 1; n = parentOf(n)) if (localName(n) === 'label') { const t = textOfSafe(n); if (t) return t; break; }
    }
    if (ln === 'img' || ln === 'area') { const a = normText(attr(el, 'alt')); if (a) return a; }
    if (NAME_FROM_CONTENT[role] || ln === 'summary' || ln === 'legend' || ln === 'caption' || ln === 'figcaption') {
      const t = collectText(el, TEXT_MAX); if (t) return t;
    }
    if (ln === 'fieldset') { for (let c = nFirstChild.call(el); c; c = nNextSibling.call(c)) if (localName(c) === 'legend') return collectText(c, TEXT_MAX); }
    const title = normText(attr(el, 'title')); if (title) return title;
    return '';
  }
  function triState(v) { if (v === 'true') return true; if (v === 'false') return false; if (v === 'mixed') return 'mixed'; return undefined; }
  function stateOf(el) {
    const st = {}; const ln = localName(el);
    const set = (k, v) => { if (v !== undefined && v !== null && (typeof v === 'boolean' || typeof v === 'string' || (typeof v === 'number' && isFinite(v)))) st[k] = (typeof v === 'string') ? cutBytes(v, 64) : v; };
    try {
      const isFormCtl = ln === 'button' || ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'option' || ln === 'fieldset';
      if ((isFormCtl && el.disabled === true) || attr(el, 'aria-disabled') === 'true') set('disabled', true);
      if (ln === 'input') {
        const t = (attr(el, 'type') || '').toLowerCase();
        if (t === 'checkbox' || t === 'radio') set('checked', el.indeterminate ? 'mixed' : !!el.checked);
      }
      if (st.checked === undefined) set('checked', triState(attr(el, 'aria-checked')));
      set('expanded', triState(attr(el, 'aria-expanded')));
      if (st.expanded === undefined && ln === 'summary') { const p = parentOf(el); if (p && localName(p) === 'details') set('expanded', hasAttr(p, 'open')); }
      set('pressed', triState(attr(el, 'aria-pressed')));
      if (ln === 'option') set('selected', !!el.selected); else set('selected', triState(attr(el, 'aria-selected')));
      if (((ln === 'input' || ln === 'select' || ln === 'textarea') && el.required === true) || attr(el, 'aria-required') === 'true') set('required', true);
      const cur = attr(el, 'aria-current'); if (cur && cur !== 'false') set('current', cur === 'true' ? true : cur);
      const inv = attr(el, 'aria-invalid'); if (inv && inv !== 'false') set('invalid', true);
    } catch (_) { /* ignore */ }
    return Object.keys(st).length ? st : null;
  }
  function valueOf(el) {
    const ln = localName(el);
    try {
      if (ln === 'input') {
        const t = (attr(el, 'type') || '').toLowerCase();
        if (t === 'range' || t === 'color') return String(el.value);
        return null; // editable or state-only controls expose no value
      }
      if (ln === 'select' && !hasAttr(el, 'multiple')) {
        const o = el.options && el.options[el.selectedIndex];
        return o ? collectText(o, TEXT_MAX) : null;
      }
      if (ln === 'progress' || ln === 'meter') return hasAttr(el, 'value') ? String(el.value) : null;
    } catch (_) { /* ignore */ }
    return null;
  }
  function summarize(el, privacy) {
    const role = roleOf(el);
    const s = { role: role };
    const noText = privacy.redacted || privacy.textNone;
    if (!noText) {
      const name = cutBytes(cutScalars(nameOf(el, role), TEXT_MAX), 256);
      if (name) s.name = name;
      const ln = localName(el);
      if (ln !== 'input' && ln !== 'textarea' && ln !== 'select' && !isEditable(el)) {
        const text = cutBytes(collectText(el, TEXT_MAX), 1024);
        if (text) s.text = text;
      }
      const v = valueOf(el);
      if (v) s.value = cutBytes(cutScalars(normText(v), TEXT_MAX), 256);
    }
    const st = stateOf(el);
    if (st) s.state = st;
    return s;
  }

  // ------------------------------------------------------------------------------------------------
  // Paths (per realm). A child realm's paths have no document segment; the parent prepends its chain
  // up to and including the iframe segment.
  // ------------------------------------------------------------------------------------------------
  const BOUNDARY_KINDS = { panel: 1, artifact: 1, page: 1 };
  function boundaryKind(el) { const k = attr(el, 'data-wippy-kind'); return (k && BOUNDARY_KINDS[k]) ? k : null; }
  function copyIds(seg, el) {
    const put = (k, a, max) => { const v = attr(el, a); if (v !== null && v !== undefined) seg[k] = cutBytes(v, max); };
    put('panel_id', 'data-wippy-panel-id', 128);
    put('artifact_id', 'data-wippy-artifact-id', 128);
    put('page_id', 'data-wippy-page-id', 128);
    put('package_id', 'data-wippy-package-id', 256);
    put('label', 'data-wippy-label', 256);
  }
  function boundarySeg(el, kind, withRect) {
    const m = mountOf(el);
    const seg = { kind: kind, mount_id: m.mount_id, generation: m.generation };
    copyIds(seg, el);
    seg.tag_name = cutBytes(localName(el), 128);
    if (withRect) seg.rect = rectOut(rectOf(el));
    return seg;
  }
  function iframeGeometry(ifr) {
    const b = rectOf(ifr);
    let cs = null; try { cs = nGetCS(ifr); } catch (_) { cs = null; }
    const px = (v) => { const n = parseFloat(v); return isFinite(n) ? n : 0; };
    const bl = cs ? px(cs.borderLeftWidth) : 0, bt = cs ? px(cs.borderTopWidth) : 0;
    const pl = cs ? px(cs.paddingLeft) : 0, pt = cs ? px(cs.paddingTop) : 0;
    const br = cs ? px(cs.borderRightWidth) : 0, bb = cs ? px(cs.borderBottomWidth) : 0;
    const pr = cs ? px(cs.paddingRight) : 0, pb = cs ? px(cs.paddingBottom) : 0;
    let ow = 0, oh = 0; try { ow = ifr.offsetWidth; oh = ifr.offsetHeight; } catch (_) { /* ignore */ }
    const sx = ow > 0 ? b.width / ow : 1, sy = oh > 0 ? b.height / oh : 1;
    const ox = b.x + (bl + pl) * sx, oy = b.y + (bt + pt) * sy;
    const cw = Math.max(0, (ow - bl - br - pl - pr)) * sx, ch = Math.max(0, (oh - bt - bb - pt - pb)) * sy;
    return { rect: b, sx: sx || 1, sy: sy || 1, ox: ox, oy: oy, content: { x: ox, y: oy, width: cw, height: ch } };
  }
  // Mapping a point into a child realm supports translation and axis-aligned scale only: a rotation
  // or skew on the iframe or any ancestor (composed tree) makes the child unsupported for sampling.
  function hasUnsupportedTransform(el) {
    for (let n = el, guard = 0; n && guard < 256; n = composedParent(n), guard++) {
      if (nodeType(n) !== 1) continue;
      let cs = null; try { cs = nGetCS(n); } catch (_) { cs = null; }
      if (!cs) continue;
      if (cs.rotate && cs.rotate !== 'none' && !/^0(deg|rad|turn|grad)?$/.test(cs.rotate.trim())) return true;
      const t = cs.transform;
      if (!t || t === 'none') continue;
      const m = /^matrix(3d)?\(([^)]*)\)$/.exec(t);
      if (!m) return true;
      const v = m[2].split(',').map(Number);
      if (!m[1]) { if (Math.abs(v[1]) > 1e-9 || Math.abs(v[2]) > 1e-9) return true; }
      else if ([1, 2, 3, 4, 6, 7, 8, 9, 11].some((i) => Math.abs(v[i]) > 1e-9) || Math.abs(v[15] - 1) > 1e-9) return true;
    }
    return false;
  }
  function frameOriginOf(ifr, binding) {
    if (hasAttr(ifr, 'srcdoc')) return 'about:srcdoc';
    if (binding && binding.childOrigin && validFrameOrigin(binding.childOrigin)) return binding.childOrigin;
    try { const o = new nURL(attr(ifr, 'src') || '', D.baseURI).origin; if (canonicalOrigin(o)) return o; } catch (_) { /* ignore */ }
    return null;
  }
  function iframeSeg(ifr) {
    const m = mountOf(ifr);
    const seg = { kind: 'iframe', mount_id: m.mount_id, generation: m.generation };
    copyIds(seg, ifr);
    seg.tag_name = 'iframe';
    const fo = frameOriginOf(ifr, bindings.get(ifr)); if (fo) seg.frame_origin = fo;
    const g = iframeGeometry(ifr);
    seg.rect = rectOut(g.rect);
    const clip = intersect(g.rect, viewportRect());
    if (!sameRect(clip, g.rect)) seg.clip_rect = rectOut(clip);
    seg.local_to_parent = { matrix: [r3(g.sx), 0, 0, 0, 0, r3(g.sy), 0, 0, 0, 0, 1, 0, r3(g.ox), r3(g.oy), 0, 1],
      convention: 'dommatrix-column-major', direction: 'local-to-parent' };
    return seg;
  }
  // Build the realm-local path from the realm root to `leaf`. When asIframe is true the leaf is an
  // iframe being descended into and becomes an `iframe` segment.
  function localPath(leaf, asIframe) {
    const up = [];
    let viaShadow = false;
    let fragment = false;
    for (let n = leaf; n; ) {
      const t = nodeType(n);
      if (t === 1) {
        const ln = localName(n);
        if (n === leaf) {
          if (asIframe) up.push(iframeSeg(n));
          else { const m = mountOf(n); up.push({ kind: 'element', mount_id: m.mount_id, generation: m.generation, tag_name: cutBytes(ln, 128) }); }
          const bk = boundaryKind(n); if (bk) up.push(boundarySeg(n, bk, true));
        } else if (ln === 'web-fragment') {
          const m = mountOf(n);
          const seg = { kind: 'web-fragment', mount_id: m.mount_id, generation: m.generation };
          copyIds(seg, n); seg.tag_name = 'web-fragment';
          if (!seg.label) { const fid = attr(n, 'fragment-id'); if (fid) seg.label = cutBytes(fid, 256); }
          seg.rect = rectOut(rectOf(n));
          up.push(seg); fragment = true;
        } else if (ln === 'web-fragment-host') {
          // internal container of a fragment: not a segment
        } else {
          const bk = boundaryKind(n);
          if (viaShadow) {
            const hk = nodeKey(n);
            up.push({ kind: 'shadow-root', mount_id: hk + '-sr', generation: 1 });
            if (bk) up.push(boundarySeg(n, bk, true));
            else if (ln.indexOf('-') > 0) { const s = boundarySeg(n, 'web-component', true); up.push(s); }
          } else if (bk) up.push(boundarySeg(n, bk, true));
        }
        if (selfRedacted(n)) for (let i = 0; i < up.length; i++) delete up[i].label;
        viaShadow = false;
      } else if (t === 11) {
        viaShadow = true;
      } else if (t === 9) {
        if (ROLE === 'top') up.push({ kind: 'host', mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration });
        break;
      }
      n = composedParent(n);
    }
    up.reverse();
    return { path: up, fragment: fragment };
  }
  function clampPath(path) {
    if (path.length <= 32) return path;
    return path.slice(0, 16).concat(path.slice(path.length - 16));
  }

  // ------------------------------------------------------------------------------------------------
  // Hit testing in this realm: document -> shadow roots (open, closed) -> fragments (physical tree).
  // ------------------------------------------------------------------------------------------------
  const INTERACTIVE = { button: 1, a: 1, select: 1, textarea: 1, input: 1, summary: 1, label: 0, option: 1 };
  const INTERACTIVE_ROLES = { button: 1, link: 1, checkbox: 1, radio: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1,
    menuitemradio: 1, option: 1, switch: 1, slider: 1, textbox: 1, combobox: 1, treeitem: 1, gridcell: 1 };
  const DOCUMENT_ROOTS = { html: 1, body: 1, 'wf-document': 1, 'wf-html': 1, 'wf-body': 1 };
  function isIframe(el) {
    if (localName(el) !== 'iframe') return false;
    const nm = attr(el, 'name');
    return !(nm && nm.indexOf('wf:') === 0);
  }
  function deepHit(x, y) {
    let el = null;
    try { el = nDocEFP.call(D, x, y); } catch (_) { el = null; }
    for (let guard = 0; el && guard < 64; guard++) {
      const root = shadowOf(el);
      if (!root || !nRootEFP) break;
      let inner = null;
      try { inner = nRootEFP.call(root, x, y); } catch (_) { inner = null; }
      if (!inner || inner === el || treeRoot(inner) !== root) break;
      el = inner;
    }
    return el;
  }
  // Promote a hit on a non-interactive descendant to its nearest interactive ancestor in the same tree
  // (button text spans, link icons): the candidate is what the user points at, not its decoration.
  function isInteractive(n) {
    const ln = localName(n); const role = attr(n, 'role');
    return INTERACTIVE[ln] === 1 || (ln === 'a' && hasAttr(n, 'href')) || !!(role && INTERACTIVE_ROLES[role.trim().split(/\s+/)[0]]);
  }
  function promote(el) {
    if (isInteractive(el)) return el;
    for (let n = parentOf(el), depth = 0; n && nodeType(n) === 1 && depth < 16; n = parentOf(n), depth++) {
      if (isInteractive(n)) return n;
    }
    return el;
  }
  // -> {kind:'none'} | {kind:'excluded', el} | {kind:'element', el, redacted} | {kind:'iframe', el, x, y}
  function hitTest(x, y) {
    const raw = deepHit(x, y);
    if (!raw || nodeType(raw) !== 1) return { kind: 'none' };
    if (isIframe(raw)) {
      const p = privacyOf(raw);
      if (p.excluded) return { kind: 'excluded', el: p.excluded };
      const g = iframeGeometry(raw);
      const c = g.content;
      if (x >= c.x && y >= c.y && x < c.x + c.width && y < c.y + c.height) {
        return { kind: 'iframe', el: raw, x: (x - g.ox) / g.sx, y: (y - g.oy) / g.sy, redacted: !!p.redacted };
      }
      return { kind: 'element', el: raw, redacted: !!p.redacted };
    }
    const el = promote(raw);
    if (DOCUMENT_ROOTS[localName(el)]) return { kind: 'none' }; // empty page area: no target
    const p = privacyOf(el);
    if (p.excluded) return { kind: 'excluded', el: p.excluded };
    return { kind: 'element', el: el, redacted: !!p.redacted, redactRoot: p.redacted };
  }
  function containsRedacted(el) {
    try { return nQSA.call(el, '[data-wippy-attention="redact"]').length > 0; } catch (_) { return false; }
  }
  const liveByTarget = new Map(); // target_id -> WeakRef(element), Host realm only, bounded
  // Full realm-local descriptor of a candidate element.
  function describe(el, opts) {
    const lp = localPath(el, false);
    const rect = rectOf(el);
    const d = {
      target_id: targetIdOf(el),
      path: lp.path,
      rect: rectOut(rect),
      occluded: false,
      summary: summarize(el, { redacted: !!opts.redacted, textNone: !!opts.textNone }),
      geometry_source: lp.fragment ? 'physical-host' : 'document',
      runtime_source: lp.fragment ? 'fragment-realm' : (ROLE === 'top' ? 'document' : 'iframe-realm'),
    };
    const clip = intersect(rect, viewportRect());
    if (!sameRect(clip, rect)) d.clip_rect = rectOut(clip);
    if (opts.redacted || containsRedacted(el)) d.redacted = true;
    if (ROLE === 'top' && nWeakRef) {
      liveByTarget.set(d.target_id, new nWeakRef(el));
      if (liveByTarget.size > 512) liveByTarget.delete(liveByTarget.keys().next().value);
    }
    return d;
  }
  function occludedNow(el, d) {
    const cx = d.rect.x + d.rect.width / 2, cy = d.rect.y + d.rect.height / 2;
    const h = deepHit(cx, cy);
    if (!h) return true;
    for (let n = h; n; n = composedParent(n)) if (n === el) return false;
    return true;
  }

  // ------------------------------------------------------------------------------------------------
  // Projection of child-realm results into this realm (iframe chain prepended, rects mapped).
  // ------------------------------------------------------------------------------------------------
  function mapRect(r, g) { return { x: g.ox + r.x * g.sx, y: g.oy + r.y * g.sy, width: r.width * g.sx, height: r.height * g.sy }; }
  function chainFor(binding) {
    const lp = localPath(binding.iframe, true);
    const p = privacyOf(binding.iframe);
    return { path: lp.path, fragment: lp.fragment, geom: iframeGeometry(binding.iframe), excluded: !!p.excluded, redacted: !!p.redacted };
  }
  function projectDescriptor(d, chain) {
    if (!d || typeof d !== 'object' || typeof d.target_id !== 'string' || !Array.isArray(d.path) || !d.rect) return null;
    // A child can only name targets of other realms: never one of this realm's own ids.
    if (d.target_id.indexOf('t-' + REALM_ID + '-') === 0 || d.target_id.length === 0) return null;
    const rect = mapRect(d.rect, chain.geom);
    let clip = d.clip_rect ? mapRect(d.clip_rect, chain.geom) : rect;
    clip = intersect(clip, chain.geom.content);
    clip = intersect(clip, viewportRect());
    const out = {
      target_id: shortId(d.target_id, 128),
      path: chain.path.concat(d.path.map(sanitizeSegment).filter(Boolean)),
      rect: rectOut(rect),
      occluded: !!d.occluded,
      summary: sanitizeSummary(d.summary, chain.redacted),
      geometry_source: d.geometry_source === 'physical-host' ? 'physical-host' : 'document',
      runtime_source: ({ document: 'iframe-realm', 'iframe-realm': 'iframe-realm', 'fragment-realm': 'fragment-realm' })[d.runtime_source] || 'iframe-realm',
    };
    if (!sameRect(clip, rect)) out.clip_rect = rectOut(clip);
    if (chain.redacted) { out.redacted = true; for (const s of out.path.slice(chain.path.length)) delete s.label; }
    else if (d.redacted) out.redacted = true;
    return out;
  }
  const SEG_KINDS = { host: 1, panel: 1, artifact: 1, page: 1, iframe: 1, 'web-fragment': 1, 'web-component': 1, 'shadow-root': 1, element: 1 };
  const SEG_STR = { label: 256, panel_id: 128, surface_id: 128, artifact_id: 128, page_id: 128, package_id: 256, tag_name: 128, selector_hint: 512 };
  function cleanRect(r) {
    if (!r || typeof r !== 'object') return null;
    const v = [r.x, r.y, r.width, r.height].map(Number);
    if (!v.every(isFinite)) return null;
    return { x: r3(v[0]), y: r3(v[1]), width: nonneg(v[2]), height: nonneg(v[3]) };
  }
  // Child-supplied data is never trusted: keep only known fields with bounded, well-typed values.
  function sanitizeSegment(s) {
    if (!s || typeof s !== 'object' || !SEG_KINDS[s.kind] || s.kind === 'host') return null;
    if (typeof s.mount_id !== 'string' || !s.mount_id || utf8Len(s.mount_id) > 160) return null;
    const out = { kind: s.kind, mount_id: s.mount_id, generation: (isInt(s.generation) && s.generation >= 0) ? s.generation : 0 };
    for (const k in SEG_STR) if (typeof s[k] === 'string') out[k] = cutBytes(s[k], SEG_STR[k]);
    if (typeof s.frame_origin === 'string' && validFrameOrigin(s.frame_origin)) out.frame_origin = s.frame_origin;
    const r = cleanRect(s.rect); if (r) out.rect = r;
    const c = cleanRect(s.clip_rect); if (c) out.clip_rect = c;
    const l = s.local_to_parent;
    if (l && Array.isArray(l.matrix) && l.matrix.length === 16 && l.matrix.every((x) => typeof x === 'number' && isFinite(x))) {
      out.local_to_parent = { matrix: l.matrix.map(r3), convention: 'dommatrix-column-major', direction: 'local-to-parent' };
    }
    return out;
  }
  function sanitizeSummary(s, redact) {
    const out = { role: (s && typeof s.role === 'string') ? cutBytes(s.role, 256) : 'generic' };
    if (s && !redact) {
      if (typeof s.name === 'string' && s.name) out.name = cutBytes(cutScalars(s.name, TEXT_MAX), 256);
      if (typeof s.text === 'string' && s.text) out.text = cutBytes(cutScalars(s.text, TEXT_MAX), 1024);
      if (typeof s.value === 'string' && s.value) out.value = cutBytes(cutScalars(s.value, TEXT_MAX), 256);
    }
    if (s && s.state && typeof s.state === 'object' && !Array.isArray(s.state)) {
      const st = {};
      for (const k of ['checked', 'expanded', 'selected', 'disabled', 'pressed', 'current', 'invalid', 'required']) {
        const v = s.state[k];
        if (typeof v === 'boolean' || (typeof v === 'number' && isFinite(v))) st[k] = v;
        else if (typeof v === 'string') st[k] = cutBytes(v, 64);
      }
      if (Object.keys(st).length) out.state = st;
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------------
  // Child bindings (this realm as parent): discovery, capability, queries.
  // ------------------------------------------------------------------------------------------------
  const bindings = new Map(); // iframe element -> binding
  const HOST = { hostInstanceId: null, mountGeneration: 1 };
  const UP = { // this realm as child: binding to its parent
    granted: false, hostInstanceId: null, parentOrigin: null, parentMountId: null, parentGeneration: null,
    childMountId: null, childGeneration: null, tokens: new Map(), // token -> expiry ms
    currentToken: null, privacyText: 'safe',
  };
  if (ROLE === 'top') HOST.hostInstanceId = 'host-' + randHex(8);

  function selfMount() {
    if (ROLE === 'top') return { mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration };
    return { mount_id: UP.childMountId, generation: UP.childGeneration };
  }
  function hostInstance() { return ROLE === 'top' ? HOST.hostInstanceId : UP.hostInstanceId; }
  function canNegotiateDown() { return ROLE === 'top' || (ROLE === 'child' && UP.granted); }

  // The origin the child document must have, or null when it cannot host a runtime we can bind to:
  // opaque origins (sandbox without allow-same-origin, data:), about:blank without srcdoc.
  function expectedOriginFor(ifr) {
    const sb = attr(ifr, 'sandbox');
    if (sb !== null && !/(^|\s)allow-same-origin(\s|$)/i.test(sb)) return null;
    if (hasAttr(ifr, 'srcdoc')) return canonicalOrigin(OWN_ORIGIN);
    if (!attr(ifr, 'src')) return null;
    try { return canonicalOrigin(new nURL(attr(ifr, 'src') || 'about:blank', D.baseURI).origin); } catch (_) { return null; }
  }
  function getBinding(ifr) {
    let b = bindings.get(ifr);
    if (b) return b;
    const m = mountOf(ifr);
    b = { iframe: ifr, mountId: m.mount_id, generation: m.generation, state: 'discovering', attempts: 0, timer: null,
      token: null, realmId: null, childOrigin: null, expectedOrigin: expectedOriginFor(ifr), limits: null,
      requestIds: new Set(), waiters: [], pending: new Map(), renewTimer: null, expiresAt: 0, lastCode: null };
    bindings.set(ifr, b);
    safe(() => nAddEL.call(ifr, 'load', () => safe(() => onIframeLoad(b)), false));
    startDiscovery(b);
    return b;
  }
  function settle(b) { const w = b.waiters; b.waiters = []; w.forEach((f) => safe(() => f())); }
  function startDiscovery(b) {
    if (b.timer) nClearTimeout(b.timer);
    b.attempts = 0;
    b.requestIds.clear();
    if (b.state !== 'navigating') b.state = 'discovering';
    if (!canNegotiateDown()) return; // resumed once this realm is itself granted
    attemptDiscovery(b);
  }
  function attemptDiscovery(b) {
    b.timer = null;
    if (b.state === 'granted' || b.state === 'detached') return;
    if (!isConnected(b.iframe)) { detach(b); return; }
    b.expectedOrigin = expectedOriginFor(b.iframe);
    if (!b.expectedOrigin) { b.state = 'unsupported'; settle(b); return; }
    if (b.attempts >= DISCOVERY_ATTEMPTS) {
      b.state = 'unavailable'; b.lastCode = 'unavailable'; settle(b); return;
    }
    // A same-origin child whose document finished loading without a runtime will never answer.
    if (sameOriginLoadedWithoutRuntime(b)) { b.state = 'unavailable'; b.lastCode = 'unavailable'; settle(b); return; }
    b.attempts++;
    const self = selfMount();
    const req = {
      schema: CAP_SCHEMA, type: 'capability-request', request_id: 'cr-' + randHex(8),
      host_instance_id: hostInstance(), parent_mount_id: self.mount_id, parent_generation: self.generation,
      child_mount_id: b.mountId, child_generation: b.generation,
      parent_origin: canonicalOrigin(OWN_ORIGIN), target_origin: b.expectedOrigin,
      relay_versions: [RELAY_SCHEMA, RELAY_V1], attempt: b.attempts,
    };
    if (!req.parent_origin) { b.state = 'unavailable'; settle(b); return; }
    b.requestIds.add(req.request_id);
    if (b.requestIds.size > 64) b.requestIds.delete(b.requestIds.values().next().value);
    postIfLoaded(b, req);
    b.timer = nSetTimeout(() => safe(() => attemptDiscovery(b)), DISCOVERY_INTERVAL_MS);
  }
  // While the frame still shows its initial about:blank (readable by us, same origin) the real
  // document has not arrived: posting now would only make the browser log a target-origin mismatch.
  function postIfLoaded(b, msg) {
    const cw = safe(() => b.iframe.contentWindow, null);
    if (!cw) return;
    let href = null;
    try { href = cw.location.href; } catch (_) { href = null; } // cross-origin: the child document is there
    if (href === 'about:blank') return;
    if (href !== null && href !== 'about:srcdoc' && canonicalOrigin(safe(() => cw.origin, null)) !== b.expectedOrigin) return;
    try { nPostMessage.call(cw, msg, b.expectedOrigin); } catch (_) { /* retried */ }
  }
  function sameOriginLoadedWithoutRuntime(b) {
    try {
      const cw = b.iframe.contentWindow;
      if (!cw || cw.location.href === 'about:blank') return false;
      const doc = cw.document;
      return !!doc && doc.readyState === 'complete' && !cw.__wippyAttentionRuntime;
    } catch (_) { return false; } // cross-origin: unknowable, keep trying
  }
  function onIframeLoad(b) {
    if (b.state === 'detached') return;
    // A (re)load means the child document may have been replaced: the binding must be re-established
    // with whatever realm now lives there. Queries meanwhile report `navigation`.
    // In-flight queries are kept: if the same realm grants again (the first load event of a child
    // that was already bound) they are answered; a different realm fails them in onGrant.
    if (usable(b) || b.state === 'renewing') b.state = 'navigating';
    startDiscovery(b);
  }
  function detach(b) {
    b.state = 'detached';
    if (b.timer) nClearTimeout(b.timer);
    if (b.renewTimer) nClearTimeout(b.renewTimer);
    failPending(b, 'detached');
    settle(b);
    bindings.delete(b.iframe);
  }
  function failPending(b, code) {
    const p = b.pending; b.pending = new Map();
    p.forEach((entry) => safe(() => entry.resolve({ error: code })));
  }
  function onGrant(b, msg, ev) {
    if (!b.requestIds.has(msg.request_id)) return;
    if (msg.host_instance_id !== hostInstance() || msg.child_mount_id !== b.mountId || msg.child_generation !== b.generation) return;
    if (typeof msg.token !== 'string' || msg.token.length < 16 || msg.token.length > 128) return;
    if (msg.relay_version !== RELAY_SCHEMA && msg.relay_version !== RELAY_V1) return;
    // Keep the round's request ids: the child answers every retry with a fresh token and keeps only
    // the newest two, so the latest grant (postMessage preserves order per source) must win.
    if (b.timer) { nClearTimeout(b.timer); b.timer = null; }
    const realmId = (typeof msg.realm_id === 'string' && /^r[a-z0-9]{1,16}$/.test(msg.realm_id)) ? msg.realm_id : null;
    if (b.realmId && realmId !== b.realmId) failPending(b, 'navigation');
    if (b.token !== msg.token) { b.prevToken = b.token; b.token = msg.token; } b.realmId = realmId; b.childOrigin = ev.origin;
    b.relayVersion = msg.relay_version;
    const lim = msg.limits || {};
    b.limits = {
      points: Math.min(GRANT_LIMITS.points, isInt(lim.points) && lim.points > 0 ? lim.points : GRANT_LIMITS.points),
      candidates: Math.min(GRANT_LIMITS.candidates, isInt(lim.candidates) && lim.candidates > 0 ? lim.candidates : GRANT_LIMITS.candidates),
      bytes: Math.min(GRANT_LIMITS.bytes, isInt(lim.bytes) && lim.bytes > 0 ? lim.bytes : GRANT_LIMITS.bytes),
    };
    const life = (isInt(msg.expires_in_ms) && msg.expires_in_ms > 0) ? Math.min(msg.expires_in_ms, GRANT_LIFETIME_MS) : GRANT_LIFETIME_MS;
    b.expiresAt = nDateNow() + life;
    b.state = 'granted'; b.lastCode = null;
    if (b.renewTimer) nClearTimeout(b.renewTimer);
    const lead = Math.min(5000, life / 2);
    b.renewTimer = nSetTimeout(() => safe(() => { if (b.state === 'granted') { b.state = 'renewing'; b.attempts = 0; attemptDiscoveryRenew(b); } }), Math.max(50, life - lead));
    settle(b);
  }
  function attemptDiscoveryRenew(b) {
    // Renewal keeps the current token usable until expiry; a failed renewal ends in `unavailable`.
    b.state = 'granted-renewing';
    const tick = () => {
      if (b.state !== 'granted-renewing') return;
      if (nDateNow() >= b.expiresAt || b.attempts >= DISCOVERY_ATTEMPTS) { b.state = 'discovering'; startDiscovery(b); return; }
      b.attempts++;
      const self = selfMount();
      const req = { schema: CAP_SCHEMA, type: 'capability-request', request_id: 'cr-' + randHex(8), host_instance_id: hostInstance(),
        parent_mount_id: self.mount_id, parent_generation: self.generation, child_mount_id: b.mountId, child_generation: b.generation,
        parent_origin: canonicalOrigin(OWN_ORIGIN), target_origin: b.expectedOrigin, relay_versions: [RELAY_SCHEMA, RELAY_V1], attempt: b.attempts };
      b.requestIds.add(req.request_id);
      postIfLoaded(b, req);
      b.timer = nSetTimeout(() => safe(tick), DISCOVERY_INTERVAL_MS);
    };
    tick();
  }
  function usable(b) { return (b.state === 'granted' || b.state === 'granted-renewing') && nDateNow() < b.expiresAt; }
  function waitUsable(b, deadlineAt) {
    if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached') return Promise.resolve();
    return new Promise((resolve) => {
      let done = false;
      const fin = () => { if (!done) { done = true; resolve(); } };
      b.waiters.push(fin);
      nSetTimeout(fin, Math.max(0, deadlineAt - nDateNow()));
    });
  }
  function sendQuery(b, points, budgets, deadlineAt, options) {
    return new Promise((resolve) => {
      const cw = safe(() => b.iframe.contentWindow, null);
      if (!cw || !isConnected(b.iframe)) { resolve({ error: 'disconnected' }); return; }
      const id = 'q-' + randHex(8);
      const timeout = Math.max(0, deadlineAt - nDateNow());
      const msg = { schema: RELAY_SCHEMA, type: 'query-request', request_id: id, token: b.token, host_instance_id: hostInstance(),
        mount_id: b.mountId, generation: b.generation, operation: 'points', points: points, timeout_ms: Math.max(0, timeout - 50),
        budgets: budgets, options: options };
      const timer = nSetTimeout(() => { if (b.pending.delete(id)) resolve({ error: b.state === 'navigating' ? 'navigation' : 'deadline-exceeded' }); }, timeout);
      b.pending.set(id, { resolve: (r) => { nClearTimeout(timer); resolve(r); } });
      try { nPostMessage.call(cw, msg, b.childOrigin); } catch (_) { b.pending.delete(id); nClearTimeout(timer); resolve({ error: 'disconnected' }); }
    });
  }
  function sendSimple(b, operation, deadlineAt) {
    return new Promise((resolve) => {
      const cw = safe(() => b.iframe.contentWindow, null);
      if (!cw || !usable(b)) { resolve({ error: 'unavailable' }); return; }
      const id = 'q-' + randHex(8);
      const timeout = Math.max(0, deadlineAt - nDateNow());
      const timer = nSetTimeout(() => { if (b.pending.delete(id)) resolve({ error: 'deadline-exceeded' }); }, timeout);
      b.pending.set(id, { resolve: (r) => { nClearTimeout(timer); resolve(r); } });
      try {
        nPostMessage.call(cw, { schema: RELAY_SCHEMA, type: 'query-request', request_id: id, token: b.token, host_instance_id: hostInstance(),
          mount_id: b.mountId, generation: b.generation, operation: operation, timeout_ms: Math.max(0, timeout - 100) }, b.childOrigin);
      } catch (_) { b.pending.delete(id); nClearTimeout(timer); resolve({ error: 'disconnected' }); }
    });
  }
  function onRelayFromChild(b, msg) {
    if (msg.type === 'query-result' || msg.type === 'query-error') {
      const entry = b.pending.get(msg.request_id);
      if (!entry) return;
      b.pending.delete(msg.request_id);
      if (msg.type === 'query-error') entry.resolve({ error: RELAY_CODES.indexOf(msg.code) >= 0 ? msg.code : 'internal-error' });
      else entry.resolve({ result: msg });
      return;
    }
    if (msg.type === 'observation') {
      if (msg.token !== b.token && msg.token !== b.prevToken) { DBG.dropped++; return; }
      // Bounded work per child: at most 240 observations per second are projected.
      const sec = Math.floor(nDateNow() / 1000);
      if (b.obsSecond !== sec) { b.obsSecond = sec; b.obsCount = 0; }
      if (++b.obsCount > 240) { DBG.dropped++; return; }
      onChildObservation(b, msg);
    }
  }

  // Scan the physical tree (document and every known shadow root) for iframes; bounded work.
  function scanIframes() {
    if (ROLE === 'fragment-realm') return;
    const found = new Set();
    const roots = [D];
    let budget = 20000;
    for (let i = 0; i < roots.length && budget > 0; i++) {
      const root = roots[i];
      let all = [];
      try { all = nodeType(root) === 9 ? nDocQSA.call(root, '*') : nFragQSA.call(root, '*'); } catch (_) { all = []; }
      for (let j = 0; j < all.length && budget-- > 0; j++) {
        const el = all[j];
        if (isIframe(el)) found.add(el);
        const sr = shadowOf(el);
        if (sr) { roots.push(sr); observeRoot(sr); }
      }
    }
    found.forEach((ifr) => { if (!bindings.has(ifr)) getBinding(ifr); });
    bindings.forEach((b, ifr) => { if (!isConnected(ifr)) detach(b); });
  }
  let scanTimer = null;
  function scheduleScan() {
    if (scanTimer) return;
    scanTimer = nSetTimeout(() => { scanTimer = null; safe(scanIframes); }, 100);
  }
  let lastMutationAt = nDateNow();
  const mutationObserver = nMutationObserver ? new nMutationObserver(() => { lastMutationAt = nDateNow(); scheduleScan(); }) : null;
  const wrap = (fn) => function (ev) { try { fn(ev); } catch (e) { nDebug('[wippy-attention]', e && e.message); } };
  const focusInListener = wrap((ev) => onFocusIn(ev));
  const focusOutListener = wrap((ev) => onFocusOut(ev));
  function observeRoot(root) {
    if (observedRoots.has(root)) return;
    observedRoots.add(root);
    // Focus moving between two elements of one shadow tree is not dispatched beyond its shadow root
    // (target and relatedTarget retarget to the same host), so listen on every known root as well.
    if (nodeType(root) === 11 && ROLE !== 'fragment-realm') {
      try { nAddEL.call(root, 'focusin', focusInListener, true); nAddEL.call(root, 'focusout', focusOutListener, true); } catch (_) { /* ignore */ }
    }
    if (!mutationObserver) return;
    try { mutationObserver.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['src', 'srcdoc', 'name'] }); } catch (_) { /* ignore */ }
  }

  // ------------------------------------------------------------------------------------------------
  // Recursive point resolution in this realm.
  // points: [{point_id, x, y}] in this realm's viewport; budgets: remaining {depth, queries, points,
  // candidates, bytes}. Returns {hits: {point_id: [target_id]}, candidates: Map, omissions: []}.
  // ------------------------------------------------------------------------------------------------
  async function resolvePoints(points, budgets, deadlineAt, options) {
    const out = { hits: {}, candidates: new Map(), omissions: [], queriesUsed: 0, pointsUsed: 0 };
    const textNone = options && options.privacy_text === 'none';
    const groups = new Map();
    const excludedSeen = new Set();
    const redactedSeen = new Set();
    for (const p of points) {
      const h = safe(() => hitTest(p.x, p.y), { kind: 'none' });
      if (h.kind === 'none') continue;
      if (h.kind === 'excluded') {
        if (!excludedSeen.has(h.el)) { excludedSeen.add(h.el); out.omissions.push({ reason: 'excluded', point_id: p.point_id }); }
        continue;
      }
      if (h.kind === 'iframe') {
        let g = groups.get(h.el);
        if (!g) { g = { points: [], redacted: h.redacted }; groups.set(h.el, g); }
        g.points.push({ point_id: p.point_id, x: r3(h.x), y: r3(h.y) });
        continue;
      }
      const tid = targetIdOf(h.el);
      let c = out.candidates.get(tid);
      if (!c) {
        c = safe(() => describe(h.el, { redacted: h.redacted, textNone: textNone }), null);
        if (!c) continue;
        c.sample_point_ids = [];
        out.candidates.set(tid, c);
        const rr = h.redactRoot || (c.redacted ? h.el : null);
        if (c.redacted && rr && !redactedSeen.has(rr)) { redactedSeen.add(rr); out.omissions.push({ reason: 'redacted', point_id: p.point_id }); }
      }
      c.sample_point_ids.push(p.point_id);
      out.hits[p.point_id] = [tid];
    }
    if (groups.size === 0) return out;
    // Disjoint leases: each child query costs 1 query + its points; what remains is split evenly.
    const entries = Array.from(groups.entries());
    let queriesLeft = budgets.queries, pointsLeft = budgets.points;
    const plans = [];
    for (const [ifr, g] of entries) {
      const b = getBinding(ifr);
      const omitAll = (reason, code, stage) => {
        const o = { reason: reason, mount_id: b.mountId, point_id: g.points[0].point_id };
        if (code) o.detail = 'transport:' + code + ':stage:' + stage;
        out.omissions.push(o);
      };
      if (budgets.depth <= 0) { omitAll('depth-limit'); continue; }
      if (safe(() => hasUnsupportedTransform(ifr), false)) { omitAll('unsupported-transform'); continue; }
      if (queriesLeft <= 0) { omitAll('query-budget'); continue; }
      let pts = g.points;
      if (pts.length > pointsLeft) { out.omissions.push({ reason: 'point-budget', mount_id: b.mountId, point_id: pts[Math.max(0, pointsLeft)].point_id }); pts = pts.slice(0, Math.max(0, pointsLeft)); }
      if (pts.length === 0) continue;
      queriesLeft -= 1; pointsLeft -= pts.length;
      plans.push({ b: b, g: g, pts: pts, omitAll: omitAll });
    }
    const n = plans.length || 1;
    const candLease = Math.max(1, Math.floor(budgets.candidates / n));
    const byteLease = Math.max(1024, Math.floor(budgets.bytes / n));
    const leaseQ = Math.floor(queriesLeft / n), leaseP = Math.floor(pointsLeft / n);
    await Promise.all(plans.map(async (plan) => {
      const b = plan.b;
      await waitUsable(b, deadlineAt);
      if (!usable(b)) {
        if (b.state === 'detached') plan.omitAll('stale-mount', 'detached', 'query-call');
        else if (b.state === 'navigating') plan.omitAll('navigation', 'navigation', 'query-call');
        else if (b.state === 'unsupported') plan.omitAll('unsupported-boundary');
        else plan.omitAll('capability-unavailable', b.state === 'unavailable' ? (b.lastCode === 'unsupported-version' ? 'unsupported-version' : 'unavailable') : 'deadline-exceeded', 'query-call');
        return;
      }
      let pts = plan.pts;
      if (pts.length > b.limits.points) {
        out.omissions.push({ reason: 'point-budget', mount_id: b.mountId, point_id: pts[b.limits.points].point_id });
        pts = pts.slice(0, b.limits.points);
      }
      out.queriesUsed += 1; out.pointsUsed += pts.length;
      const chain = chainFor(b); // before awaiting: geometry and path as of the query
      const res = await sendQuery(b, pts, {
        depth: budgets.depth - 1, queries: leaseQ, points: leaseP,
        candidates: Math.min(candLease, b.limits.candidates), bytes: Math.min(byteLease, b.limits.bytes),
      }, deadlineAt, { privacy_text: textNone ? 'none' : 'safe' });
      if (res.error) {
        const reason = CODE_TO_REASON[res.error] || 'capability-unavailable';
        plan.omitAll(reason, res.error, 'query-await');
        return;
      }
      safe(() => mergeChildResult(out, b, chain, res.result, pts));
    }));
    return out;
  }
  function mergeChildResult(out, b, chain, r, pts) {
    const sent = new Set(pts.map((p) => p.point_id));
    if (chain.excluded) { out.omissions.push({ reason: 'excluded', mount_id: b.mountId }); return; }
    const cands = Array.isArray(r.candidates) ? r.candidates : [];
    const local = new Map();
    for (const d of cands.slice(0, GRANT_LIMITS.candidates)) {
      const pd = projectDescriptor(d, chain);
      if (!pd) continue;
      if (pd.path.length > 32 || d.clamped === true) pd.clamped = true;
      pd.path = clampPath(pd.path);
      pd.sample_point_ids = [];
      local.set(pd.target_id, pd);
    }
    const hits = (r.hits && typeof r.hits === 'object') ? r.hits : {};
    for (const pid of Object.keys(hits)) {
      if (!sent.has(pid) || !Array.isArray(hits[pid])) continue;
      for (const tid0 of hits[pid].slice(0, 4)) {
        if (typeof tid0 !== 'string') continue;
        const tid = shortId(tid0, 128);
        const c = local.get(tid);
        if (!c) continue;
        let existing = out.candidates.get(tid);
        if (!existing) { existing = c; out.candidates.set(tid, c); }
        if (existing.sample_point_ids.indexOf(pid) < 0) existing.sample_point_ids.push(pid);
        (out.hits[pid] = out.hits[pid] || []).push(tid);
      }
    }
    out.candidates.forEach((c, tid) => { if (c.sample_point_ids.length === 0) out.candidates.delete(tid); });
    if (Array.isArray(r.omissions)) {
      for (const o of r.omissions.slice(0, 128)) { const so = sanitizeOmission(o, sent); if (so) out.omissions.push(so); }
    }
    if (chain.redacted) out.omissions.push({ reason: 'redacted', mount_id: b.mountId });
    if (isInt(r.queries_used) && r.queries_used > 0) out.queriesUsed += r.queries_used;
    if (isInt(r.points_used) && r.points_used > 0) out.pointsUsed += r.points_used;
  }
  const OMISSION_REASONS = ['candidate-budget', 'capability-unavailable', 'child-disconnected', 'child-timeout', 'clipped',
    'depth-limit', 'excluded', 'navigation', 'non-invertible-transform', 'occluded', 'point-budget', 'query-budget', 'redacted',
    'response-budget', 'runtime-metadata-unavailable', 'selection-detached', 'selection-excluded', 'selection-redacted',
    'selection-unavailable', 'stale-mount', 'unsupported-transform', 'unsupported-boundary'];
  const DETAIL_RE = /^transport:([a-z-]+):stage:(query-call|query-await|project-result)$/;
  function sanitizeOmission(o, pointIds) {
    if (!o || typeof o !== 'object' || OMISSION_REASONS.indexOf(o.reason) < 0) return null;
    const out = { reason: o.reason };
    if (typeof o.point_id === 'string' && (!pointIds || pointIds.has(o.point_id))) out.point_id = o.point_id;
    if (typeof o.mount_id === 'string' && o.mount_id && utf8Len(o.mount_id) <= 160) out.mount_id = o.mount_id;
    if (typeof o.detail === 'string') {
      const m = DETAIL_RE.exec(o.detail);
      if (m) out.detail = 'transport:' + (RELAY_CODES.indexOf(m[1]) >= 0 ? m[1] : 'internal-error') + ':stage:' + m[2];
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------------
  // This realm as a child: answer capability requests and queries from window.parent.
  // ------------------------------------------------------------------------------------------------
  function replyUp(msg) {
    if (!UP.parentOrigin) return;
    try { nPostMessage.call(W.parent, msg, UP.parentOrigin); } catch (_) { /* ignore */ }
  }
  function onCapabilityRequest(msg, ev) {
    const po = canonicalOrigin(msg.parent_origin), to = canonicalOrigin(msg.target_origin);
    if (!po || !to || ev.origin !== po || to !== canonicalOrigin(OWN_ORIGIN)) return;
    // Where the browser tells us who embeds us (Chromium: location.ancestorOrigins), it must agree.
    try { const ao = W.location.ancestorOrigins; if (ao && ao.length > 0 && ao[0] !== 'null' && ao[0] !== po) return; } catch (_) { /* ignore */ }
    if (typeof msg.host_instance_id !== 'string' || !msg.host_instance_id || utf8Len(msg.host_instance_id) > 160) return;
    if (typeof msg.child_mount_id !== 'string' || !msg.child_mount_id || utf8Len(msg.child_mount_id) > 160) return;
    if (typeof msg.parent_mount_id !== 'string' || !msg.parent_mount_id || utf8Len(msg.parent_mount_id) > 160) return;
    if (!isInt(msg.child_generation) || msg.child_generation < 0 || !isInt(msg.parent_generation) || msg.parent_generation < 0) return;
    if (typeof msg.request_id !== 'string' || msg.request_id.length > 128) return;
    const versions = Array.isArray(msg.relay_versions) ? msg.relay_versions : [RELAY_V1];
    const version = versions.indexOf(RELAY_SCHEMA) >= 0 ? RELAY_SCHEMA : (versions.indexOf(RELAY_V1) >= 0 ? RELAY_V1 : null);
    if (!version) {
      try { nPostMessage.call(W.parent, { schema: CAP_SCHEMA, type: 'capability-deny', request_id: msg.request_id, code: 'unsupported-version' }, po); } catch (_) { /* ignore */ }
      return;
    }
    const rebind = UP.granted && (UP.hostInstanceId !== msg.host_instance_id || UP.childMountId !== msg.child_mount_id ||
      UP.childGeneration !== msg.child_generation || UP.parentOrigin !== po);
    if (rebind) { UP.tokens.clear(); bindings.forEach((b) => { b.state = 'discovering'; failPending(b, 'capability-revoked'); }); }
    UP.hostInstanceId = msg.host_instance_id; UP.parentOrigin = po;
    UP.parentMountId = msg.parent_mount_id; UP.parentGeneration = msg.parent_generation;
    UP.childMountId = msg.child_mount_id; UP.childGeneration = msg.child_generation;
    const now = nDateNow();
    UP.tokens.forEach((exp, tok) => { if (exp <= now) UP.tokens.delete(tok); });
    while (UP.tokens.size >= 2) UP.tokens.delete(UP.tokens.keys().next().value); // at most the renewed and the previous
    const token = randHex(24);
    UP.tokens.set(token, now + GRANT_LIFETIME_MS);
    UP.currentToken = token;
    const first = !UP.granted;
    UP.granted = true;
    replyUp({ schema: CAP_SCHEMA, type: 'capability-grant', request_id: msg.request_id, host_instance_id: msg.host_instance_id,
      parent_mount_id: msg.parent_mount_id, parent_generation: msg.parent_generation, child_mount_id: msg.child_mount_id,
      child_generation: msg.child_generation, parent_origin: po, target_origin: to, relay_version: version, token: token,
      expires_in_ms: GRANT_LIFETIME_MS, limits: { points: GRANT_LIMITS.points, candidates: GRANT_LIMITS.candidates, bytes: GRANT_LIMITS.bytes },
      realm_id: REALM_ID, frame_kind: IS_SRCDOC ? 'srcdoc' : 'document' });
    if (first || rebind) {
      safe(scanIframes);
      bindings.forEach((b) => { if (b.state === 'discovering' && !b.timer) startDiscovery(b); });
      flushUpBuffer();
    }
  }
  function queryError(id, code) { replyUp({ schema: RELAY_SCHEMA, type: 'query-error', request_id: id, code: code }); }
  async function onQueryRequest(msg) {
    const id = typeof msg.request_id === 'string' ? msg.request_id.slice(0, 128) : '';
    if (!id) return;
    const exp = UP.tokens.get(msg.token);
    if (!exp) { queryError(id, 'unauthorized'); return; }
    if (exp <= nDateNow()) { queryError(id, 'capability-expired'); return; }
    if (msg.host_instance_id !== UP.hostInstanceId) { queryError(id, 'host-instance-mismatch'); return; }
    if (msg.mount_id !== UP.childMountId || msg.generation !== UP.childGeneration) { queryError(id, 'generation-mismatch'); return; }
    const timeout = isInt(msg.timeout_ms) ? Math.min(Math.max(msg.timeout_ms, 0), 10000) : QUERY_TIMEOUT_MS;
    const deadlineAt = nDateNow() + timeout;
    if (msg.operation === 'ready') {
      const children = await readyChildren(deadlineAt);
      replyUp({ schema: RELAY_SCHEMA, type: 'query-result', request_id: id, operation: 'ready', children: children });
      return;
    }
    if (msg.operation !== 'points' || !Array.isArray(msg.points)) { queryError(id, 'invalid-request'); return; }
    if (msg.points.length > GRANT_LIMITS.points) { queryError(id, 'invalid-request'); return; }
    const points = [];
    for (const p of msg.points) {
      if (!p || typeof p.point_id !== 'string' || p.point_id.length > 128 || typeof p.x !== 'number' || typeof p.y !== 'number' || !isFinite(p.x) || !isFinite(p.y)) { queryError(id, 'invalid-request'); return; }
      points.push({ point_id: p.point_id, x: p.x, y: p.y });
    }
    const bg = msg.budgets || {};
    const num = (v, d) => (isInt(v) && v >= 0) ? v : d;
    const budgets = { depth: num(bg.depth, 0), queries: num(bg.queries, 0), points: num(bg.points, 0),
      candidates: Math.min(num(bg.candidates, GRANT_LIMITS.candidates), GRANT_LIMITS.candidates),
      bytes: Math.min(num(bg.bytes, GRANT_LIMITS.bytes), GRANT_LIMITS.bytes) };
    const opts = { privacy_text: (msg.options && msg.options.privacy_text === 'none') ? 'none' : 'safe' };
    let res;
    try { res = await resolvePoints(points, budgets, deadlineAt - 50, opts); } catch (e) { queryError(id, 'internal-error'); return; }
    let cands = Array.from(res.candidates.values());
    const omissions = res.omissions.slice(0, 128);
    if (cands.length > budgets.candidates) {
      cands.sort((a, b) => b.sample_point_ids.length - a.sample_point_ids.length);
      cands = cands.slice(0, budgets.candidates);
      omissions.push({ reason: 'candidate-budget', mount_id: UP.childMountId });
    }
    const keep = new Set(cands.map((c) => c.target_id));
    const hits = {};
    Object.keys(res.hits).forEach((pid) => { const t = res.hits[pid].filter((x) => keep.has(x)); if (t.length) hits[pid] = t; });
    let reply = { schema: RELAY_SCHEMA, type: 'query-result', request_id: id, operation: 'points', realm_id: REALM_ID,
      hits: hits, candidates: cands, omissions: omissions, queries_used: res.queriesUsed, points_used: res.pointsUsed };
    let size = utf8Len(nJSONStringify(reply));
    while (size > budgets.bytes && reply.candidates.length > 0) {
      reply.candidates = reply.candidates.slice(0, Math.floor(reply.candidates.length / 2));
      const k2 = new Set(reply.candidates.map((c) => c.target_id));
      Object.keys(reply.hits).forEach((pid) => { reply.hits[pid] = reply.hits[pid].filter((x) => k2.has(x)); if (!reply.hits[pid].length) delete reply.hits[pid]; });
      if (!reply.omissions.some((o) => o.reason === 'response-budget')) reply.omissions.push({ reason: 'response-budget', mount_id: UP.childMountId });
      size = utf8Len(nJSONStringify(reply));
    }
    if (size > budgets.bytes) { queryError(id, 'response-too-large'); return; }
    replyUp(reply);
  }

  // ------------------------------------------------------------------------------------------------
  // Observation
  // ------------------------------------------------------------------------------------------------
  let localSeq = 0;
  function newEventId() { localSeq++; return { event_id: 'ev-' + REALM_ID + '-' + localSeq, localSeq: localSeq }; }
  function pointOf(ev) {
    if (ev.type === 'touchstart' || ev.type === 'touchend') {
      const t = (ev.changedTouches && ev.changedTouches[0]) || (ev.touches && ev.touches[0]);
      if (!t) return null;
      return { x: t.clientX, y: t.clientY, touchId: t.identifier };
    }
    return { x: ev.clientX, y: ev.clientY };
  }
  function onPointerEvent(ev) {
    if (!ev || ev.isTrusted !== true) return;
    if (ROLE === 'fragment-realm') return; // fragments are observed physically by the realm owning the DOM
    // A click activated from the keyboard (Enter/Space on a control) has no pointer position
    // (detail 0, empty pointerType, client 0,0): its target is the activated element itself.
    const keyboardClick = ev.type === 'click' && ev.detail === 0 && !ev.pointerType;
    let kbTarget = null;
    let pt;
    if (keyboardClick) {
      try { kbTarget = ev.composedPath()[0]; } catch (_) { kbTarget = ev.target; }
      if (kbTarget && nodeType(kbTarget) === 1 && shadowOf(kbTarget)) { const a = deepActive(); if (a) kbTarget = a; }
      if (!kbTarget || nodeType(kbTarget) !== 1) return;
      if (isIframe(kbTarget)) return; // the child realm saw the activation itself
      const r = rectOf(kbTarget);
      pt = { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    } else pt = pointOf(ev);
    if (!pt || !isFinite(pt.x) || !isFinite(pt.y)) return;
    const now = nDateNow();
    const ids = newEventId();
    const tAbs = eventTime(ev);
    const rec = {
      event_id: ids.event_id, type: ev.type, observed_ms: now, t_abs: tAbs, realm_time_ms: nonneg(tAbs - nTimeOrigin),
      point: { x: r3(pt.x), y: r3(pt.y) },
    };
    if (ev.type === 'touchstart' || ev.type === 'touchend') {
      rec.pointer_type = 'touch';
      if (isInt(pt.touchId)) rec.pointer_id = pt.touchId;
    } else {
      if (isInt(ev.pointerId)) rec.pointer_id = ev.pointerId;
      const pt2 = ev.pointerType;
      rec.pointer_type = (pt2 === 'mouse' || pt2 === 'pen' || pt2 === 'touch') ? pt2 : (pt2 === undefined && ev.type === 'click' && !keyboardClick ? 'mouse' : 'unknown');
      if (isInt(ev.buttons) && ev.buttons >= 0) rec.buttons = ev.buttons;
      if (ev.type !== 'click') {
        let cap = false;
        try { const t0 = ev.composedPath && ev.composedPath()[0]; cap = !!(t0 && t0.hasPointerCapture && isInt(ev.pointerId) && t0.hasPointerCapture(ev.pointerId)); } catch (_) { cap = false; }
        rec.pointer_capture = cap;
      }
    }
    let h;
    if (keyboardClick) {
      const el = promote(kbTarget);
      const p = privacyOf(el);
      h = p.excluded ? { kind: 'excluded', el: p.excluded } : { kind: 'element', el: el, redacted: !!p.redacted };
    } else h = safe(() => hitTest(pt.x, pt.y), { kind: 'none' });
    let cands = [];
    if (h.kind === 'element') {
      const d = safe(() => describe(h.el, { redacted: h.redacted, textNone: false }), null);
      if (d) cands = [d];
    }
    // h.kind === 'iframe': the child realm receives this input itself and reports it; here we only
    // saw a border/edge event. Excluded hits record the event without candidates.
    if (h.kind === 'iframe') return;
    rec.excluded = h.kind === 'excluded';
    recordLocal({ kind: 'event', event: rec, candidates: cands });
  }
  // Deep active element of this realm: document -> open/closed shadow roots -> fragments.
  function deepActive() {
    let el = null; try { el = nDocActive.call(D); } catch (_) { el = null; }
    for (let g = 0; el && g < 64; g++) {
      const r = shadowOf(el);
      if (!r) break;
      let inner = null; try { inner = nRootActive.call(r); } catch (_) { inner = null; }
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }
  let localFocus = null; // {event_id, el}
  const seenFocusEvents = new WeakSet();
  function firstSight(ev) { if (seenFocusEvents.has(ev)) return false; seenFocusEvents.add(ev); return true; }
  function onFocusIn(ev) {
    if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || !firstSight(ev)) return;
    const el = deepActive();
    if (!el || nodeType(el) !== 1) return;
    if (isIframe(el)) return; // the child realm reports its own focus
    const p = privacyOf(el);
    if (p.excluded) {
      // Moving into excluded controls (the composer) keeps the last meaningful focus; sensitive
      // controls (passwords ...) invalidate it.
      if (isSensitiveControl(p.excluded) || isSensitiveControl(el)) { clearLocalFocus(); }
      return;
    }
    const ids = newEventId();
    const d = safe(() => describe(el, { redacted: !!p.redacted, textNone: false }), null);
    if (!d) return;
    localFocus = { event_id: ids.event_id, el: el };
    const tAbs = eventTime(ev);
    recordLocal({ kind: 'focus', focus: { event_id: ids.event_id, focused_ms: nDateNow(), t_abs: tAbs, realm_time_ms: nonneg(tAbs - nTimeOrigin) }, candidate: d });
  }
  function onFocusOut(ev) {
    if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || !firstSight(ev) || !localFocus) return;
    let src = null; try { src = (ev.composedPath && ev.composedPath()[0]) || ev.target; } catch (_) { src = ev.target; }
    if (src && nodeType(src) === 1 && src !== localFocus.el && privacyOf(src).excluded) return; // leaving the composer never clears
    const rt = ev.relatedTarget;
    if (rt && nodeType(rt) === 1) {
      const p = privacyOf(rt);
      if (p.excluded && !isSensitiveControl(p.excluded) && !isSensitiveControl(rt)) return; // transfer into the composer
    }
    // Defer: a focusin may follow immediately (moving within this realm) and replaces the record.
    const cleared = localFocus.event_id;
    nSetTimeout(() => safe(() => {
      if (!localFocus || localFocus.event_id !== cleared) return;
      const a = deepActive();
      if (a && a === localFocus.el) return;
      if (a && nodeType(a) === 1 && !isIframe(a)) {
        const p = privacyOf(a);
        if (p.excluded && !isSensitiveControl(p.excluded) && !isSensitiveControl(a)) return;
      }
      clearLocalFocus();
    }), 0);
  }
  function clearLocalFocus() {
    if (!localFocus) return;
    const id = localFocus.event_id; localFocus = null;
    recordLocal({ kind: 'focus-clear', event_id: id });
  }
  // The realm's window lost focus (another frame, another window): its element keeps being the
  // document's activeElement but no longer has focus. A child reports the clear (the top keeps the
  // record when its own focus is now in the composer, see topRecord); the top clears when the whole
  // Host document lost focus.
  function onWindowBlur(ev) {
    if (!ev || ev.isTrusted !== true || ROLE === 'fragment-realm' || ev.target !== W) return;
    nSetTimeout(() => safe(() => {
      if (D.hasFocus()) return;
      if (ROLE === 'top') { clearLocalFocus(); TOP.focus = null; }
      else clearLocalFocus();
    }), 0);
  }

  // Route an observation made in this realm: the top records it, a child forwards it up.
  function recordLocal(obs) {
    if (ROLE === 'top') topRecord(obs, null);
    else if (ROLE === 'child') sendUp(obs);
  }
  const upBuffer = [];
  const DBG = { sent: 0, dropped: 0, inbound: {} };
  function sendUp(obs) {
    if (!UP.granted || !UP.currentToken || (UP.tokens.get(UP.currentToken) || 0) <= nDateNow()) {
      upBuffer.push({ at: nDateNow(), obs: obs });
      while (upBuffer.length > MAX_EVENTS) upBuffer.shift();
      return;
    }
    DBG.sent++;
    replyUp({ schema: RELAY_SCHEMA, type: 'observation', token: UP.currentToken, realm_id: REALM_ID, observation: obs });
  }
  function flushUpBuffer() {
    const cutoff = nDateNow() - EVENT_WINDOW_MS;
    const items = upBuffer.splice(0, upBuffer.length);
    items.forEach((it) => { if (it.at >= cutoff) sendUp(it.obs); });
  }
  // An observation arriving from a child binding: project into this realm, then record or forward.
  function onChildObservation(b, msg) {
    const o = msg.observation;
    if (!o || typeof o !== 'object') return;
    const chain = chainFor(b);
    const projectList = (list) => (chain.excluded ? [] : (Array.isArray(list) ? list.slice(0, 4) : []).map((d) => { const pd = projectDescriptor(d, chain); if (pd) { if (pd.path.length > 32 || d.clamped === true) pd.clamped = true; pd.path = clampPath(pd.path); } return pd; }).filter(Boolean));
    if (o.kind === 'event' && o.event && typeof o.event === 'object') {
      const e = o.event;
      if (POINTER_TYPES.indexOf(e.type) < 0 || typeof e.event_id !== 'string' || !e.point) return;
      const x = Number(e.point.x), y = Number(e.point.y);
      if (!isFinite(x) || !isFinite(y)) return;
      const rec = {
        event_id: cutBytes(e.event_id, 128), type: e.type, observed_ms: isFinite(e.observed_ms) ? Math.min(Number(e.observed_ms), nDateNow()) : nDateNow(),
        t_abs: (typeof e.t_abs === 'number' && isFinite(e.t_abs)) ? Math.min(e.t_abs, nowAbs()) : nowAbs(),
        realm_time_ms: nonneg(e.realm_time_ms), point: { x: r3(chain.geom.ox + x * chain.geom.sx), y: r3(chain.geom.oy + y * chain.geom.sy) },
        excluded: !!e.excluded || chain.excluded,
      };
      if (isInt(e.pointer_id)) rec.pointer_id = e.pointer_id;
      if (['mouse', 'pen', 'touch', 'unknown'].indexOf(e.pointer_type) >= 0) rec.pointer_type = e.pointer_type;
      if (isInt(e.buttons) && e.buttons >= 0) rec.buttons = e.buttons;
      if (typeof e.pointer_capture === 'boolean') rec.pointer_capture = e.pointer_capture;
      const fwd = { kind: 'event', event: rec, candidates: projectList(o.candidates) };
      if (ROLE === 'top') topRecord(fwd, b); else sendUp(fwd);
    } else if (o.kind === 'focus' && o.focus && typeof o.focus.event_id === 'string') {
      if (chain.excluded) return;
      const list = projectList([o.candidate]);
      if (!list.length) return;
      const fwd = { kind: 'focus', focus: { event_id: cutBytes(o.focus.event_id, 128), focused_ms: isFinite(o.focus.focused_ms) ? Math.min(Number(o.focus.focused_ms), nDateNow()) : nDateNow(),
        t_abs: (typeof o.focus.t_abs === 'number' && isFinite(o.focus.t_abs)) ? Math.min(o.focus.t_abs, nowAbs()) : nowAbs(), realm_time_ms: nonneg(o.focus.realm_time_ms) }, candidate: list[0] };
      if (ROLE === 'top') topRecord(fwd, b); else sendUp(fwd);
    } else if (o.kind === 'focus-clear' && typeof o.event_id === 'string') {
      const fwd = { kind: 'focus-clear', event_id: o.event_id };
      if (ROLE === 'top') topRecord(fwd, b); else sendUp(fwd);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Top realm: event store, focus, snapshot
  // ------------------------------------------------------------------------------------------------
  const TOP = { seq: 0, events: [], pointer: null, focus: null, focusEpoch: 0 };
  function compactKey(rec) {
    if (!rec.candidates.length) return null;
    return rec.candidates.map((c) => c.target_id + '@' + c.path.map((s) => s.mount_id + '#' + s.generation).join('/')).join('|') +
      '|' + rec.pointer_id + '|' + rec.pointer_type + '|' + rec.buttons + '|' + rec.pointer_capture;
  }
  function topRecord(obs, binding) {
    if (obs.kind === 'event') {
      const e = obs.event;
      const t = (typeof e.t_abs === 'number' && isFinite(e.t_abs)) ? e.t_abs : nowAbs();
      const rec = Object.assign({}, e, { t_abs: t, candidates: obs.candidates || [], focusEpoch: TOP.focusEpoch,
        realmId: binding ? binding.realmId : REALM_ID, binding: binding });
      rec.key = (rec.type === 'pointermove' && !rec.excluded) ? compactKey(rec) : null;
      pruneEvents(rec.observed_ms);
      // Realms report asynchronously, so arrival order is not occurrence order: events are kept in
      // occurrence order (t_abs) and `sequence` is derived from it (microseconds since the Host realm's
      // time origin, bumped to stay strictly increasing), so it is monotonic and stable.
      const evs = TOP.events;
      let pos = evs.length;
      while (pos > 0 && evs[pos - 1].t_abs > t) pos--;
      const prev = evs[pos - 1], next = evs[pos];
      let seq = seqFor(t);
      if (prev && seq <= prev.sequence) seq = prev.sequence + 1;
      if (next && seq >= next.sequence) { pos = evs.length; seq = Math.max(seqFor(t), evs[evs.length - 1].sequence + 1); }
      rec.sequence = seq;
      const last = evs[pos - 1];
      if (pos === evs.length && rec.key && last && last.type === 'pointermove' && last.key === rec.key && last.focusEpoch === rec.focusEpoch) {
        evs[pos - 1] = rec; // consecutive moves over the same targets compact to the newest
      } else {
        evs.splice(pos, 0, rec);
      }
      while (evs.length > MAX_EVENTS) {
        let idx = evs.findIndex((x) => !DISCRETE[x.type]);
        if (idx < 0) idx = 0;
        evs.splice(idx, 1);
      }
      if (!TOP.pointer || TOP.pointer.t_abs <= t) TOP.pointer = rec;
    } else if (obs.kind === 'focus') {
      const t = (typeof obs.focus.t_abs === 'number' && isFinite(obs.focus.t_abs)) ? obs.focus.t_abs : nowAbs();
      if (TOP.focus && TOP.focus.t_abs > t) return; // a late report of an older focus change
      TOP.focusEpoch++;
      TOP.focus = { event_id: obs.focus.event_id, sequence: seqFor(t), t_abs: t, focused_ms: obs.focus.focused_ms,
        realm_time_ms: obs.focus.realm_time_ms, candidate: obs.candidate, binding: binding, realmId: binding ? binding.realmId : REALM_ID,
        el: binding ? null : (localFocus && localFocus.event_id === obs.focus.event_id ? localFocus.el : null) };
    } else if (obs.kind === 'focus-clear') {
      if (TOP.focus && TOP.focus.event_id === obs.event_id) {
        // Transfer rule: when the Host's own focus is now in excluded conversation controls, keep it.
        const a = deepActive();
        if (binding && a && nodeType(a) === 1 && !isIframe(a)) {
          const p = privacyOf(a);
          if (p.excluded && !isSensitiveControl(p.excluded) && !isSensitiveControl(a)) return;
        }
        TOP.focusEpoch++;
        TOP.focus = null;
      }
    }
  }
  function seqFor(t) { return Math.max(0, Math.round((t - nTimeOrigin) * 1000)); }
  function pruneEvents(now) {
    const cutoff = now - EVENT_WINDOW_MS;
    for (let i = TOP.events.length - 1; i >= 0; i--) if (TOP.events[i].observed_ms < cutoff) TOP.events.splice(i, 1);
  }
  function bindingAlive(b, realmId) {
    if (!b) return true;
    return bindings.get(b.iframe) === b && isConnected(b.iframe) && (b.state === 'granted' || b.state === 'granted-renewing' || b.state === 'renewing') && (!realmId || b.realmId === realmId);
  }
  function currentFocusRecord() {
    const f = TOP.focus;
    if (!f) return null;
    if (f.binding) {
      if (!bindingAlive(f.binding, f.realmId)) { TOP.focus = null; return null; }
      return { f: f, candidate: f.candidate };
    }
    const el = f.el;
    if (!el || !isConnected(el)) { TOP.focus = null; return null; }
    const p = privacyOf(el);
    if (p.excluded) { TOP.focus = null; return null; }
    const d = safe(() => describe(el, { redacted: !!p.redacted, textNone: false }), f.candidate);
    return { f: f, candidate: d };
  }
  function eventOut(rec, keep) {
    const e = { event_id: rec.event_id, sequence: rec.sequence, type: rec.type, observed_at: iso(rec.observed_ms),
      realm_time_ms: nonneg(rec.realm_time_ms), point: { x: r3(rec.point.x), y: r3(rec.point.y) },
      candidate_ids: rec.candidates.map((c) => c.target_id).filter((id, i, a) => keep.has(id) && a.indexOf(id) === i) };
    if (isInt(rec.pointer_id)) e.pointer_id = rec.pointer_id;
    if (rec.pointer_type) e.pointer_type = rec.pointer_type;
    if (isInt(rec.buttons)) e.buttons = rec.buttons;
    if (typeof rec.pointer_capture === 'boolean') e.pointer_capture = rec.pointer_capture;
    return e;
  }
  function candidateOut(c, textNone) {
    const o = { target_id: c.target_id, path: clampPath(c.path), rect: c.rect, sample_point_ids: c.sample_point_ids.slice(0, 4096),
      occluded: !!c.occluded, summary: textNone ? { role: c.summary.role, state: c.summary.state } : c.summary,
      provenance: { geometry_source: c.geometry_source, runtime_source: c.runtime_source } };
    if (c.clip_rect) o.clip_rect = c.clip_rect;
    return o;
  }
  function latticePoints(cx, cy, radius, step) {
    const pts = [];
    const extent = Math.floor(radius / step);
    for (let j = -extent; j <= extent; j++) {
      for (let i = -extent; i <= extent; i++) {
        const dx = i * step, dy = j * step;
        if (dx * dx + dy * dy <= radius * radius) pts.push({ point_id: 'p' + pts.length, x: r3(cx + dx), y: r3(cy + dy) });
      }
    }
    return pts;
  }
  async function snapshot(options) {
    options = options || {};
    const t0 = nPerfNow();
    const radius = (typeof options.radius_css_px === 'number' && options.radius_css_px >= 0 && options.radius_css_px <= 100) ? options.radius_css_px : 20;
    const step = (typeof options.step_css_px === 'number' && options.step_css_px >= 1 && options.step_css_px <= 100) ? options.step_css_px : 5;
    const textNone = !!(options.privacy && options.privacy.text === 'none') || options.privacy_text === 'none';
    const timeout = (typeof options.timeout_ms === 'number' && options.timeout_ms > 0) ? Math.min(options.timeout_ms, 10000) : QUERY_TIMEOUT_MS;
    // The pointer this snapshot is about, fixed now: a child realm may report a newer move while
    // the points resolve, and the sampled neighbourhood and `pointer` must describe the same one.
    const startPointer = TOP.pointer;
    let center = null;
    if (options.point && isFinite(options.point.x) && isFinite(options.point.y)) center = { x: +options.point.x, y: +options.point.y };
    else if (startPointer) center = startPointer.point;
    let points = center ? latticePoints(center.x, center.y, radius, step) : [];
    const omissions = [];
    if (points.length > ROOT_BUDGET.points) { omissions.push({ reason: 'point-budget' }); points = points.slice(0, ROOT_BUDGET.points); }
    safe(scanIframes);
    const res = await resolvePoints(points, Object.assign({}, ROOT_BUDGET), nDateNow() + timeout, { privacy_text: textNone ? 'none' : 'safe' });
    for (const o of res.omissions) omissions.push(o);

    const createdMs = nDateNow();
    pruneEvents(createdMs);
    // Candidate pool in priority order: sampled, pointer targets, focus target, recent-event targets.
    const pool = new Map();
    const prio = new Map();
    let order = 0;
    res.candidates.forEach((c, tid) => { pool.set(tid, c); prio.set(tid, 1000000 + c.sample_point_ids.length * 1000 - (order++)); });
    const addRef = (c, eventId, p) => {
      if (!c) return;
      let x = pool.get(c.target_id);
      if (!x) {
        x = Object.assign({}, c, { sample_point_ids: [] });
        pool.set(c.target_id, x); prio.set(c.target_id, p);
      } else prio.set(c.target_id, Math.max(prio.get(c.target_id), p));
      if (x.sample_point_ids.indexOf(eventId) < 0) x.sample_point_ids.push(eventId);
    };
    const ptr = startPointer && startPointer.observed_ms >= createdMs - EVENT_WINDOW_MS ? startPointer : null;
    if (ptr && !(ptr.binding && !bindingAlive(ptr.binding, ptr.realmId))) {
      for (const c of ptr.candidates) {
        const live = !ptr.binding ? refreshLocal(c) : c;
        addRef(live, ptr.event_id, 3000000);
      }
    }
    const fr = currentFocusRecord();
    if (fr && fr.candidate) addRef(fr.candidate, fr.f.event_id, 2000000);
    const evs = TOP.events.filter((e) => e.observed_ms <= createdMs);
    // Targets seen only by older recent events: at most EVENT_ONLY_TARGETS distinct ones, newest first;
    // other events keep only the candidate ids that are present.
    let eventOnly = 0;
    for (let i = evs.length - 1; i >= 0; i--) {
      const e = evs[i];
      if (e.binding && !bindingAlive(e.binding, e.realmId)) continue;
      for (const c of e.candidates) {
        if (!e.binding && !localAlive(c.target_id)) continue;
        if (pool.has(c.target_id)) addRef(c, e.event_id, 0);
        else if (eventOnly < EVENT_ONLY_TARGETS) { eventOnly++; addRef(c, e.event_id, 1000 - (evs.length - i)); }
      }
    }
    let ranked = Array.from(pool.keys()).sort((a, b) => prio.get(b) - prio.get(a));
    if (ranked.length > 128) { ranked = ranked.slice(0, 128); omissions.push({ reason: 'candidate-budget' }); }
    const vp = viewportRect();
    const build = (ids, events, extraOmissions) => {
      const keep = new Set(ids);
      const presentEvents = new Set(events.map((e) => e.event_id));
      if (ptr) presentEvents.add(ptr.event_id);
      if (fr) presentEvents.add(fr.f.event_id);
      const pids = new Set(points.map((p) => p.point_id));
      let anyRedacted = false;
      const cands = ids.map((id) => {
        const c = pool.get(id);
        if (c.redacted) anyRedacted = true;
        const o = candidateOut(c, textNone);
        o.sample_point_ids = o.sample_point_ids.filter((s) => pids.has(s) || presentEvents.has(s));
        return o;
      }).filter((o) => o.sample_point_ids.length > 0);
      const keep2 = new Set(cands.map((c) => c.target_id));
      const snap = {
        schema: SCHEMA, snapshot_id: 'snap-' + randHex(8), host_instance_id: HOST.hostInstanceId, mount_generation: HOST.mountGeneration,
        created_at: iso(createdMs),
        coordinate_space: { kind: 'host-viewport', width: r3(vp.width), height: r3(vp.height), device_pixel_ratio: (W.devicePixelRatio > 0 && isFinite(W.devicePixelRatio)) ? W.devicePixelRatio : 1 },
        capture: { radius_css_px: radius, grid_step_css_px: step, sampled_points: points.length, points: points,
          duration_ms: 0, complete: true },
        recent_events: events.map((e) => eventOut(e, keep2)),
        candidates: cands,
        omissions: omissions.concat(extraOmissions, (anyRedacted && !omissions.some((o) => o.reason === 'redacted')) ? [{ reason: 'redacted' }] : []).slice(0, 128),
      };
      if (ptr) snap.pointer = eventOut(ptr, keep2);
      if (fr && fr.candidate) {
        const fo = { event_id: fr.f.event_id, sequence: fr.f.sequence, focused_at: iso(Math.min(fr.f.focused_ms, createdMs)),
          realm_time_ms: nonneg(fr.f.realm_time_ms), path: clampPath(fr.candidate.path),
          summary: textNone ? { role: fr.candidate.summary.role, state: fr.candidate.summary.state } : fr.candidate.summary };
        if (keep2.has(fr.candidate.target_id)) fo.candidate_id = fr.candidate.target_id;
        snap.focus = fo;
      }
      const clamped = (c) => !!c && (c.clamped === true || c.path.length > 32);
      if ((cands.some((c) => clamped(pool.get(c.target_id))) || (fr && clamped(fr.candidate))) &&
          !snap.omissions.some((o) => o.reason === 'depth-limit') && snap.omissions.length < 128) {
        snap.omissions.push({ reason: 'depth-limit' }); // a path kept only its first and last 16 segments
      }
      snap.capture.complete = snap.omissions.length === 0;
      return snap;
    };
    let events = evs.slice();
    const est = new Map();
    const estSize = (id) => {
      let v = est.get(id);
      if (v === undefined) { v = Math.ceil(safe(() => canonicalJson(candidateOut(pool.get(id), textNone)).length, 2000) * 1.25) + 2; est.set(id, v); }
      return v;
    };
    // First cut from estimates (cheap), then verify on the real bytes below.
    let trimmed = false;
    {
      let total = envelopeSize(build([], events, [])) + 64;
      let n = 0;
      while (n < ranked.length && total + estSize(ranked[n]) <= ENVELOPE_TARGET_BYTES) { total += estSize(ranked[n]); n++; }
      if (n < ranked.length) { ranked = ranked.slice(0, Math.max(1, n)); trimmed = true; }
    }
    let snap = build(ranked, events, trimmed ? [{ reason: 'response-budget' }] : []);
    // Keep the whole v1 envelope comfortably inside 32 KiB: drop the lowest-priority candidates (as
    // many as the overflow needs, estimated from their own canonical size), then the older half of the
    // recent events, recording a response-budget omission.
    let size = envelopeSize(snap);
    let guard = 0;
    while (size > ENVELOPE_TARGET_BYTES && guard++ < 64) {
      const overflow = size - ENVELOPE_TARGET_BYTES;
      let n = ranked.length, acc = 0;
      while (n > 1 && acc < overflow) { n--; acc += estSize(ranked[n]); }
      if (n < ranked.length) ranked = ranked.slice(0, n);
      else if (events.length > 0) events = events.slice(Math.floor(events.length / 2) || 1);
      else break;
      snap = build(ranked, events, [{ reason: 'response-budget' }]);
      size = envelopeSize(snap);
    }
    snap.capture.duration_ms = r3(Math.max(0, nPerfNow() - t0));
    return snap;
  }
  function localAlive(tid) {
    const ref = liveByTarget.get(tid);
    if (!ref) return true;
    const e = ref.deref();
    return !!(e && isConnected(e));
  }
  function refreshLocal(c) {
    // A Host-realm pointer target: refresh geometry and summary from the live element when it still exists.
    const tid = c.target_id;
    const el = liveByTarget.get(tid);
    const e = el && el.deref ? el.deref() : null;
    if (!el) return c; // evicted from the bounded map: keep what the event saw
    if (!e || !isConnected(e)) return null; // detached: a retired identity is never a current target
    const p = privacyOf(e);
    if (p.excluded) return null;
    const d = safe(() => describe(e, { redacted: !!p.redacted, textNone: false }), c);
    if (d) d.occluded = safe(() => occludedNow(e, d), false);
    return d;
  }
  const ENVELOPE_OVERHEAD = 300; // the envelope's other members (ids up to 128 bytes, hash, timestamps)
  function envelopeSize(snap) {
    return utf8Len(encString(canonicalJson(snap))) + ENVELOPE_OVERHEAD;
  }
  async function envelope(snap, opts) {
    opts = opts || {};
    if (!snap || typeof snap !== 'object') snap = await snapshot();
    const content = canonicalJson(snap);
    const hash = await sha256Hex(content);
    const id = (typeof opts.attachment_id === 'string' && opts.attachment_id && utf8Len(opts.attachment_id) <= 128) ? opts.attachment_id : 'attachment-' + randHex(8);
    return { attachment_id: id, kind: 'wippy.attention', version: 1, created_at: iso(nDateNow()), content_type: 'application/json',
      content_bytes: utf8Len(content), content_hash: 'sha256:' + hash, content: content };
  }
  function focusApi() {
    const fr = currentFocusRecord();
    if (!fr || !fr.candidate) return null;
    const fo = { event_id: fr.f.event_id, sequence: fr.f.sequence, focused_at: iso(fr.f.focused_ms), realm_time_ms: nonneg(fr.f.realm_time_ms),
      candidate_id: fr.candidate.target_id, path: clampPath(fr.candidate.path), summary: fr.candidate.summary };
    return JSON.parse(nJSONStringify(fo));
  }
  let domReady = null;
  function whenDomReady() {
    if (!domReady) {
      domReady = new Promise((resolve) => {
        if (D.readyState !== 'loading') resolve();
        else nAddEL.call(D, 'DOMContentLoaded', () => resolve(), { once: true });
      });
    }
    return domReady;
  }
  async function readyChildren(deadlineAt) {
    await whenDomReady();
    safe(scanIframes);
    const list = Array.from(bindings.values());
    await Promise.all(list.map((b) => waitSettled(b, deadlineAt)));
    const out = [];
    await Promise.all(list.map(async (b) => {
      out.push({ mount_id: b.mountId, state: usable(b) ? 'granted' : (b.state === 'detached' || b.state === 'unsupported' ? b.state : 'unavailable') });
      if (usable(b)) {
        const r = await sendSimple(b, 'ready', deadlineAt);
        if (r.result && Array.isArray(r.result.children)) {
          for (const c of r.result.children.slice(0, 64)) {
            if (c && typeof c.mount_id === 'string' && ['granted', 'unavailable', 'unsupported', 'detached'].indexOf(c.state) >= 0) out.push({ mount_id: cutBytes(c.mount_id, 160), state: c.state });
          }
        }
      }
    }));
    return out;
  }
  function waitSettled(b, deadlineAt) {
    if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached') return Promise.resolve();
    return waitUsable(b, deadlineAt);
  }
  // Hosts often mount their apps after the load event (a fetched layout, a lazily imported engine):
  // "currently mounted" is taken after the window load event and a 200 ms DOM-quiet period (at most
  // 2 s of waiting), so ready() right after load does not resolve before the children exist.
  let loaded = null;
  function whenLoaded() {
    if (!loaded) {
      loaded = new Promise((resolve) => {
        if (D.readyState === 'complete') resolve();
        else { nAddEL.call(W, 'load', () => resolve(), { once: true }); nSetTimeout(resolve, 10000); }
      });
    }
    return loaded;
  }
  async function settleMounts(maxMs) {
    await whenLoaded();
    const start = nDateNow();
    while (nDateNow() - start < maxMs && nDateNow() - lastMutationAt < 200) {
      await new Promise((r) => nSetTimeout(r, 50));
    }
  }
  async function ready() {
    await settleMounts(2000);
    const children = await readyChildren(nDateNow() + DISCOVERY_ATTEMPTS * DISCOVERY_INTERVAL_MS + 1500);
    return { host_instance_id: HOST.hostInstanceId, children: children };
  }

  // ------------------------------------------------------------------------------------------------
  // Message routing (every inbound message is checked against origin and live source window)
  // ------------------------------------------------------------------------------------------------
  function onMessage(ev) {
    const msg = ev.data;
    if (!msg || typeof msg !== 'object' || typeof msg.schema !== 'string' || msg.schema.indexOf('wippy.attention.') !== 0) return;
    if (ROLE === 'fragment-realm') return;
    DBG.inbound[msg.type] = (DBG.inbound[msg.type] || 0) + 1;
    // From our parent?
    if (ROLE === 'child' && ev.source === W.parent) {
      if (msg.schema === CAP_SCHEMA && msg.type === 'capability-request') { onCapabilityRequest(msg, ev); return; }
      if ((msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) && msg.type === 'query-request') {
        if (!UP.granted || ev.origin !== UP.parentOrigin) return;
        onQueryRequest(msg).catch(() => { /* ignore */ });
        return;
      }
    }
    // From one of our children? Match the live source window and the recorded origin.
    if (!ev.source) return;
    let b = null;
    bindings.forEach((x) => { if (!b) { const cw = safe(() => x.iframe.contentWindow, null); if (cw && cw === ev.source) b = x; } });
    if (!b) { DBG.inbound.unmatched = (DBG.inbound.unmatched || 0) + 1; return; }
    if (msg.schema === CAP_SCHEMA && msg.type === 'capability-grant') {
      if (ev.origin !== b.expectedOrigin) return;
      onGrant(b, msg, ev);
      return;
    }
    if (msg.schema === CAP_SCHEMA && msg.type === 'capability-deny') {
      // The child speaks no relay version we offer: stop discovering, it is unavailable.
      if (ev.origin !== b.expectedOrigin || !b.requestIds.has(msg.request_id) || usable(b)) return;
      if (b.timer) { nClearTimeout(b.timer); b.timer = null; }
      b.state = 'unavailable'; b.lastCode = 'unsupported-version'; settle(b);
      return;
    }
    if (msg.schema === RELAY_SCHEMA || msg.schema === RELAY_V1) {
      if (!b.childOrigin || ev.origin !== b.childOrigin) { DBG.inbound.badorigin = (DBG.inbound.badorigin || 0) + 1; return; }
      onRelayFromChild(b, msg);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Install
  // ------------------------------------------------------------------------------------------------

  const capt = { capture: true, passive: true };
  if (ROLE !== 'fragment-realm') {
    POINTER_TYPES.forEach((t) => nAddEL.call(W, t, wrap(onPointerEvent), capt));
    nAddEL.call(W, 'focusin', focusInListener, capt);
    nAddEL.call(W, 'focusout', focusOutListener, capt);
    nAddEL.call(W, 'blur', wrap(onWindowBlur), capt);
    nAddEL.call(W, 'message', wrap(onMessage), true);
    observeRoot(D);
    whenDomReady().then(() => safe(scanIframes));
    nAddEL.call(W, 'load', wrap(() => scanIframes()), { once: true });
  }

  const internal = { registerRoot: registerRoot, role: ROLE, realmId: REALM_ID,
    // Diagnostics for harness debugging: binding states only, never tokens.
    debug: () => ({ role: ROLE, realm_id: REALM_ID, granted: UP.granted, seq: localSeq, sent: DBG.sent, dropped: DBG.dropped, inbound: DBG.inbound, events: ROLE === 'top' ? TOP.events.length : upBuffer.length,
      children: Array.from(bindings.values()).map((b) => ({ mount_id: b.mountId, generation: b.generation, state: b.state, attempts: b.attempts,
        expected_origin: b.expectedOrigin, child_origin: b.childOrigin, realm_id: b.realmId, pending: b.pending.size })) }) };
  try { Object.defineProperty(W, '__wippyAttentionRuntime', { value: Object.freeze(internal), configurable: false, enumerable: false, writable: false }); } catch (_) { /* ignore */ }

  let api;
  if (ROLE === 'top') {
    api = {
      role: 'top', host_instance_id: HOST.hostInstanceId,
      ready: () => ready(),
      snapshot: (o) => snapshot(o),
      envelope: (s, o) => envelope(s, o),
      canonicalJson: (v) => canonicalJson(v),
      focus: () => safe(focusApi, null),
    };
  } else {
    api = { role: ROLE, realm_id: REALM_ID, canonicalJson: (v) => canonicalJson(v),
      ready: () => readyChildren(nDateNow() + DISCOVERY_ATTEMPTS * DISCOVERY_INTERVAL_MS).then((children) => ({ granted: UP.granted, children: children })) };
  }
  try { Object.defineProperty(W, 'wippyAttention', { value: Object.freeze(api), configurable: false, enumerable: false, writable: false }); } catch (_) { /* ignore */ }
})();
