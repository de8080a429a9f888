// Small DOM-free helpers: rounding, rects, UTF-8 length and bounded cuts of text (spec: string
// bounds are in UTF-8 bytes, text in Unicode scalar values; numbers rounded to 1/1000 px).
// Imported by the Node unit tests: touches no window/document at import time.
export const nTextEncoder = globalThis.TextEncoder;

export function iso(ms) {
  return new Date(ms).toISOString();
}
export function r3(v) {
  v = +v;
  if (!isFinite(v)) return 0;
  const x = Math.round(v * 1000) / 1000;
  return Object.is(x, -0) ? 0 : x;
}
export function nonneg(v) {
  v = r3(v);
  return v < 0 ? 0 : v;
}
export function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v);
}
export function rectOut(r) {
  return { x: r3(r.x), y: r3(r.y), width: nonneg(r.width), height: nonneg(r.height) };
}
/** A node layout's compact rect (issue 42: lean rows): `[x, y, width, height]`, as the v3 / v4
 * dictionaries write rects. */
export function rectTuple(r) {
  return [r.x, r.y, r.width, r.height];
}
/** `{x, y, width, height}` of a compact rect, or null when it is not four finite numbers. */
export function rectFromTuple(a) {
  if (!Array.isArray(a) || a.length !== 4 || !a.every((v) => typeof v === 'number' && isFinite(v))) return null;
  return { x: a[0], y: a[1], width: a[2], height: a[3] };
}
export function intersect(a, b) {
  const x1 = Math.max(a.x, b.x),
    y1 = Math.max(a.y, b.y);
  const x2 = Math.min(a.x + a.width, b.x + b.width),
    y2 = Math.min(a.y + a.height, b.y + b.height);
  return { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) };
}
export function sameRect(a, b) {
  return (
    Math.abs(a.x - b.x) < 0.001 &&
    Math.abs(a.y - b.y) < 0.001 &&
    Math.abs(a.width - b.width) < 0.001 &&
    Math.abs(a.height - b.height) < 0.001
  );
}
export function utf8Bytes(s) {
  return new nTextEncoder().encode(s);
}
// The UTF-8 length of a string without encoding it (what TextEncoder gives: a lone surrogate
// becomes U+FFFD, 3 bytes). Called for every mount id on every observation: no allocation.
export function utf8Len(s) {
  s = s === undefined ? '' : String(s);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
// At most `max` Unicode scalar values (never splits a surrogate pair).
export function cutScalars(s, max) {
  if (s.length <= max) return s;
  const arr = Array.from(s);
  return arr.length <= max ? s : arr.slice(0, max).join('');
}
// At most `maxBytes` UTF-8 bytes, cut at a scalar boundary; a non-string gives ''.
export function cutBytes(s, maxBytes) {
  if (typeof s !== 'string') return '';
  if (s.length * 3 <= maxBytes) return s;
  let out = '';
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    const b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (n + b > maxBytes) break;
    n += b;
    out += ch;
  }
  return out;
}
// Whitespace (incl. NBSP) runs collapse to one space, trimmed.
export function normText(s) {
  return String(s || '')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}
export function shortId(s, max) {
  if (typeof s === 'string' && s.length > 0 && utf8Len(s) <= max) return s;
  return 'h' + fnv(String(s));
}
export function fnv(s) {
  // two 32-bit FNV-1a variants -> 16 hex, a stable short identity, not a security hash
  let h1 = 0x811c9dc5,
    h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = Math.imul(h2 ^ c, 2246822519) >>> 0;
  }
  return ('0000000' + h1.toString(16)).slice(-8) + ('0000000' + h2.toString(16)).slice(-8);
}
