// Origin rules of the relay (spec: origins are canonical bare `http(s)://host[:port]`; no `null`,
// `*`, path, query, fragment or credentials; `frame_origin` may also be `about:srcdoc`).
// DOM-free (the Node unit tests import it); URL is captured at bundle evaluation, before page scripts.
export const nURL = globalThis.URL;

// The answer is a pure function of the string: the last answers are kept (a bounded map), since the
// same few origins are checked on every relayed observation.
const known = new Map();
export function canonicalOrigin(s) {
  if (typeof s !== 'string' || s.length === 0 || s.length > 2048) return null;
  if (known.has(s)) return known.get(s);
  let out = null;
  if (/^https?:\/\/[^/?#@\s]+$/.test(s)) {
    try {
      const u = new nURL(s);
      out = u.origin === s ? s : null;
    } catch (_) {
      out = null;
    }
  }
  if (known.size >= 64) known.delete(known.keys().next().value);
  known.set(s, out);
  return out;
}
export function validFrameOrigin(s) {
  return s === 'about:srcdoc' || canonicalOrigin(s) !== null;
}
