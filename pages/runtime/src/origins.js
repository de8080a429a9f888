// Origin rules of the relay (spec: origins are canonical bare `http(s)://host[:port]`; no `null`,
// `*`, path, query, fragment or credentials; `frame_origin` may also be `about:srcdoc`).
// DOM-free (the Node unit tests import it); URL is captured at bundle evaluation, before page scripts.
export const nURL = globalThis.URL;

export function canonicalOrigin(s) {
  if (typeof s !== 'string' || s.length === 0 || s.length > 2048) return null;
  if (!/^https?:\/\/[^/?#@\s]+$/.test(s)) return null;
  try { const u = new nURL(s); return (u.origin === s) ? s : null; } catch (_) { return null; }
}
export function validFrameOrigin(s) { return s === 'about:srcdoc' || canonicalOrigin(s) !== null; }
