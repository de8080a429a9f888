// Canonical JSON (schemas.md §2) against the vectors the Rust Session tests use
// (tests/runtime_canonical_json.rs, harness/src/json/canonical.rs), with expected bytes
// written out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../src/core/canonical-json.js';

test('HTML-significant characters are escaped like Go', () => {
  assert.equal(canonicalJson('a<b>c&d'), '"a\\u003cb\\u003ec\\u0026d"');
  assert.equal(canonicalJson('<a & b>'), '"\\u003ca \\u0026 b\\u003e"');
});

test('U+2028 and U+2029 are escaped, other non-ASCII text is kept as is', () => {
  assert.equal(canonicalJson('line\u2028para\u2029end'), '"line\\u2028para\\u2029end"');
  assert.equal(canonicalJson('emoji \u{1F600} and \u{10FFFF} and é'), '"emoji \u{1F600} and \u{10FFFF} and é"');
  assert.equal(canonicalJson('é✓'), '"é✓"');
});

test('control characters use the short escapes where Go has them, \\u00XX otherwise; DEL and / stay', () => {
  assert.equal(
    canonicalJson('controls \u0000 \u001f \n \r \t \b \f " \\ /'),
    '"controls \\u0000 \\u001f \\n \\r \\t \\b \\f \\" \\\\ /"',
  );
  assert.equal(canonicalJson('\u0001\u007f'), '"\\u0001\u007f"');
});

test('lone surrogates become U+FFFD, pairs are kept', () => {
  assert.equal(canonicalJson('a\ud800b'), '"a\ufffdb"');
  assert.equal(canonicalJson('a\udc00b'), '"a\ufffdb"');
  assert.equal(canonicalJson('\ud83d\ude00'), '"\ud83d\ude00"');
  assert.equal(canonicalJson('x\ud83d'), '"x\ufffd"');
});

test('numbers follow Go float formatting', () => {
  const cases = [
    [3.0, '3'],
    [100, '100'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [1e-7, '1e-7'],
    [1.5e-7, '1.5e-7'],
    [1e-10, '1e-10'],
    [0.000001, '0.000001'],
    [-0, '0'],
    [0.1, '0.1'],
    [-2.5, '-2.5'],
    [123456789012, '123456789012'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [5e-324, '5e-324'],
    [123456789.125, '123456789.125'],
    [-2.5e-8, '-2.5e-8'],
    [9007199254740991, '9007199254740991'],
    [-9007199254740991, '-9007199254740991'],
  ];
  for (const [n, want] of cases) assert.equal(canonicalJson(n), want, `number ${n}`);
  assert.equal(canonicalJson([0.1, 1.5, -0.0, 3.0, 1e21, 1e-7]), '[0.1,1.5,0,3,1e+21,1e-7]');
});

test('non-finite numbers are refused', () => {
  assert.throws(() => canonicalJson(NaN), /non-finite/);
  assert.throws(() => canonicalJson({ a: Infinity }), /non-finite/);
});

test('object keys sort by code point, null members are dropped, {} and [] are both []', () => {
  assert.equal(
    canonicalJson({ z: 1, 'é': 2, Z: 3, a: { b: null, c: [] }, e: {} }),
    '{"Z":3,"a":{"c":[]},"e":[],"z":1,"é":2}',
  );
  assert.equal(canonicalJson({ b: 1, a: [], A: {} }), '{"A":[],"a":[],"b":1}');
  assert.equal(canonicalJson({ a: null }), '[]');
  assert.equal(canonicalJson({ a: undefined, f: () => 1 }), '[]');
  assert.equal(canonicalJson({}), '[]');
  assert.equal(canonicalJson([null, 1]), '[null,1]');
  assert.equal(canonicalJson({ 'é': 1, a: 2, _: 3, Z: 4 }), '{"Z":4,"_":3,"a":2,"é":1}');
});

test('keys with surrogates sort by code point, not by UTF-16 unit', () => {
  // U+FF61 (one unit 0xFF61) sorts before U+1F600 (units 0xD83D 0xDE00) by code point; UTF-16 order
  // would put the emoji first.
  assert.equal(canonicalJson({ '\u{1F600}': 1, '\uff61': 2 }), '{"\uff61":2,"\u{1F600}":1}');
  assert.equal(canonicalJson({ 'a\u{1F600}': 1, a: 2, 'a\uffff': 3 }), '{"a":2,"a\uffff":3,"a\u{1F600}":1}');
});

test('nested structures keep array order', () => {
  assert.equal(
    canonicalJson({ nested: [{ '<': '>' }, [[]], { k: [1, 'x', true, false] }] }),
    '{"nested":[{"\\u003c":"\\u003e"},[[]],{"k":[1,"x",true,false]}]}',
  );
});

test('depth 32 is accepted, depth 33 throws (root is depth 0)', () => {
  let v = 1;
  for (let i = 0; i < 32; i++) v = [v];
  assert.equal(canonicalJson(v), '['.repeat(32) + '1' + ']'.repeat(32));
  assert.throws(() => canonicalJson([v]), /deeper than 32/);
  let o = 'x';
  for (let i = 0; i < 33; i++) o = { k: o };
  assert.throws(() => canonicalJson(o), /deeper than 32/);
});

test('a cycle throws, a shared (non-cyclic) reference does not', () => {
  const a = { x: 1 };
  a.self = a;
  assert.throws(() => canonicalJson(a), /cycle/);
  const shared = { s: 1 };
  assert.equal(canonicalJson([shared, shared]), '[{"s":1},{"s":1}]');
});

test('unsupported values throw', () => {
  assert.throws(() => canonicalJson(10n), /unsupported/);
  assert.throws(() => canonicalJson(Symbol('s')), /unsupported/);
});
