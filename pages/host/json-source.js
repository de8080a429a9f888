// Strict JSON (RFC 8259) with positions, for the layout declaration checker (declaration.js): every
// syntax error carries the line and column where it is, every member and value of a valid file its
// own, so a rule broken anywhere in a declaration is reported as `FILE:LINE:COL: kind: message`.
// JSON.parse accepts exactly the same texts; it only cannot say where a key sits, nor report a key
// given twice (it keeps the last one silently), which this parser returns in `duplicates`.
// No DOM: the Host runs it in the browser and the harness CLI under Node.

/** A JSON syntax error at a 1-based `line` and `column` (code points). */
export class JsonSyntaxError extends Error {
  constructor(message, line, column) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

/** The map key of a member path such as `['layout', 'panels', 'main']` or `[..., 'children', 0]`. */
export const pathKey = (path) => JSON.stringify(path);

/**
 * Parses `text`. Returns `{value, at(path, {key}), duplicates}`: `at` gives `{line, column}` of the
 * value at `path` (or of its member name with `{key: true}`), falling back to the nearest ancestor
 * that has one; `duplicates` lists `{path}` of every member name given twice in one object. Throws a
 * [`JsonSyntaxError`] for anything JSON.parse would refuse.
 */
export function parseJsonSource(text) {
  let i = 0;
  const values = new Map();
  const keys = new Map();
  const duplicates = [];

  // Offsets to 1-based line and column, counting code points as an editor does.
  const where = (offset) => {
    let line = 1;
    let column = 1;
    for (let k = 0; k < offset && k < text.length; k++) {
      const c = text.charCodeAt(k);
      if (c === 0x0a) {
        line += 1;
        column = 1;
      } else if (!(c >= 0xdc00 && c <= 0xdfff)) {
        column += 1;
      }
    }
    return { line, column };
  };
  const fail = (message, offset = i) => {
    const { line, column } = where(offset);
    throw new JsonSyntaxError(message, line, column);
  };
  const shown = (offset) => (offset >= text.length ? 'the end of the file' : `\`${text[offset]}\``);

  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i += 1;
  };
  const expect = (ch, what) => {
    if (text[i] !== ch) fail(`expected ${what}, found ${shown(i)}`);
    i += 1;
  };

  const string = () => {
    const start = i;
    i += 1; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('unterminated string', start);
      const c = text[i];
      if (c === '"') {
        i += 1;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) fail('a control character in a string must be escaped');
      if (c === '\\') {
        const e = text[i + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          fail(`invalid escape \`\\${e ?? ''}\``);
        }
        continue;
      }
      out += c;
      i += 1;
    }
  };

  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const number = () => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail(`invalid number at ${shown(i)}`);
    i += m[0].length;
    if (i < text.length && /[0-9A-Za-z.+-]/.test(text[i])) fail(`invalid number \`${m[0]}${text[i]}\``, i);
    return Number(m[0]);
  };

  const value = (path, depth) => {
    if (depth > 512) fail('nested too deeply');
    ws();
    values.set(pathKey(path), where(i));
    const c = text[i];
    if (c === '{') {
      i += 1;
      const obj = {};
      const seen = new Set();
      ws();
      if (text[i] === '}') {
        i += 1;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a member name in double quotes, found ${shown(i)}`);
        const keyAt = where(i);
        const key = string();
        const sub = [...path, key];
        if (seen.has(key)) duplicates.push({ path: sub, line: keyAt.line, column: keyAt.column });
        seen.add(key);
        keys.set(pathKey(sub), keyAt);
        ws();
        expect(':', `\`:\` after the member name \`${key}\``);
        const v = value(sub, depth + 1);
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect('}', '`,` or `}` after an object member');
        return obj;
      }
    }
    if (c === '[') {
      i += 1;
      const arr = [];
      ws();
      if (text[i] === ']') {
        i += 1;
        return arr;
      }
      for (;;) {
        arr.push(value([...path, arr.length], depth + 1));
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect(']', '`,` or `]` after an array element');
        return arr;
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(`expected a JSON value, found ${shown(i)}`);
  };

  const parsed = value([], 0);
  ws();
  if (i < text.length) fail(`unexpected ${shown(i)} after the JSON value`);

  const at = (path, { key = false } = {}) => {
    for (let n = path.length; n >= 0; n--) {
      const k = pathKey(path.slice(0, n));
      const found = (key && n === path.length && keys.get(k)) || values.get(k);
      if (found) return found;
    }
    return { line: 1, column: 1 };
  };
  return { value: parsed, at, duplicates };
}
