// Canonical JSON (schemas.md §2): keys sorted by code point (= UTF-8 byte order), no whitespace, Go
// string escaping with HTML escapes (\u003c \u003e \u0026 \u2028 \u2029, \b \f short escapes), lone
// surrogates -> U+FFFD, null/undefined members dropped, {} and [] both "[]", -0 -> 0, numbers via
// String(n) (Go's float formatting), depth > 32 or a cycle throws. DOM-free.
function cmpCodePoints(a, b) {
  let i = 0,
    j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i),
      cb = b.codePointAt(j);
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j) > 0 ? 1 : a.length - i === b.length - j ? 0 : -1;
}
// eslint-disable-next-line no-control-regex -- the control characters are what needs escaping
const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const HAS_SURROGATE = /[\ud800-\udfff]/;
export function encString(s) {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20) {
      out +=
        c === 0x0a
          ? '\\n'
          : c === 0x0d
            ? '\\r'
            : c === 0x09
              ? '\\t'
              : c === 0x08
                ? '\\b'
                : c === 0x0c
                  ? '\\f'
                  : '\\u00' + (c < 16 ? '0' : '') + c.toString(16);
    } else if (c === 0x3c) out += '\\u003c';
    else if (c === 0x3e) out += '\\u003e';
    else if (c === 0x26) out += '\\u0026';
    else if (c === 0x2028) out += '\\u2028';
    else if (c === 0x2029) out += '\\u2029';
    else if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (n >= 0xdc00 && n <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else out += '\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\ufffd';
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
        if (keys.some((k) => HAS_SURROGATE.test(k))) keys.sort(cmpCodePoints);
        else keys.sort();
        out = '{' + keys.map((k) => encString(k) + ':' + encValue(v[k], depth + 1, seen)).join(',') + '}';
      }
    }
    seen.pop();
    return out;
  }
  throw new Error('canonical JSON: unsupported value');
}
export function canonicalJson(value) {
  return encValue(value, 0, []);
}
