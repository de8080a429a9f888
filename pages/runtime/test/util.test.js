// Bounded text and numbers (spec: string bounds in UTF-8 bytes, text in Unicode scalar values,
// whitespace-normalized; coordinates rounded to 1/1000 px).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutBytes, cutScalars, normText, utf8Len, r3, nonneg, shortId, rectOut, intersect } from '../src/core/util.js';

test('cutBytes keeps at most N UTF-8 bytes and never splits a scalar', () => {
  assert.equal(cutBytes('abcdef', 4), 'abcd');
  assert.equal(cutBytes('ééé', 5), 'éé'); // 2 bytes each
  assert.equal(cutBytes('ééé', 6), 'ééé');
  assert.equal(cutBytes('€€', 5), '€'); // 3 bytes each
  assert.equal(cutBytes('a\u{1F600}b', 4), 'a'); // the emoji is 4 bytes
  assert.equal(cutBytes('a\u{1F600}b', 5), 'a\u{1F600}');
  assert.equal(utf8Len(cutBytes('ü'.repeat(200), 255)), 254);
  assert.equal(cutBytes('', 3), '');
  assert.equal(cutBytes(null, 3), '');
  assert.equal(cutBytes(42, 3), '');
});

test('cutScalars keeps at most N scalar values; surrogate pairs count once', () => {
  assert.equal(cutScalars('abcdef', 3), 'abc');
  assert.equal(cutScalars('\u{1F600}\u{1F601}\u{1F602}', 2), '\u{1F600}\u{1F601}');
  assert.equal(cutScalars('\u{1F600}\u{1F601}', 2), '\u{1F600}\u{1F601}', 'four UTF-16 units are two scalars');
  assert.equal(cutScalars('héllo', 160), 'héllo');
});

test('normText collapses whitespace and NBSP runs and trims', () => {
  assert.equal(normText('  a \n\t b\u00a0\u00a0c  '), 'a b c');
  assert.equal(normText(null), '');
  assert.equal(normText(undefined), '');
  assert.equal(normText(0), '');
  assert.equal(normText('\u2003x'), 'x');
});

test('r3 rounds to 1/1000, maps -0 and non-finite to 0; nonneg clamps at 0', () => {
  assert.equal(r3(1.23449), 1.234);
  assert.equal(r3(1.2345), 1.235);
  assert.ok(Object.is(r3(-0.0001), 0));
  assert.equal(r3(NaN), 0);
  assert.equal(r3(Infinity), 0);
  assert.equal(r3('2.5'), 2.5);
  assert.equal(nonneg(-3), 0);
  assert.deepEqual(rectOut({ x: -1.00001, y: 2, width: -5, height: 3.33333 }), {
    x: -1,
    y: 2,
    width: 0,
    height: 3.333,
  });
  assert.deepEqual(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 20, width: 10, height: 10 }), {
    x: 5,
    y: 20,
    width: 5,
    height: 0,
  });
});

test('shortId keeps ids within the byte bound and hashes longer ones to a stable h + 16 hex', () => {
  assert.equal(shortId('t-r1-n1', 128), 't-r1-n1');
  const long = 't-' + 'x'.repeat(200);
  assert.match(shortId(long, 128), /^h[0-9a-f]{16}$/);
  assert.equal(shortId(long, 128), shortId(long, 128));
  assert.notEqual(shortId(long, 128), shortId(long + 'y', 128));
  assert.match(shortId('', 128), /^h[0-9a-f]{16}$/);
  assert.equal(shortId('é'.repeat(64), 128), 'é'.repeat(64));
  assert.match(shortId('é'.repeat(65), 128), /^h/);
});

test('utf8Len counts the bytes TextEncoder writes, lone surrogates as U+FFFD', () => {
  const samples = [
    '',
    'a',
    'abc',
    'é',
    '€',
    'ü'.repeat(200),
    'a\u{1F600}b',
    '\u{10FFFF}',
    '\ud800',
    '\udc00',
    'x\ud83dy',
    '\ud83d',
    '\udc00\ud800',
    '\ud83d\ude00\ud83d',
    'mount-\u0436\u4e2d\u{1F600}',
    '\u007f\u0080\u07ff\u0800\uffff',
  ];
  for (const s of samples) assert.equal(utf8Len(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  for (let c = 0; c < 0x10000; c += 7) {
    const s = 'a' + String.fromCharCode(c) + String.fromCharCode(0xffff - c);
    assert.equal(utf8Len(s), new TextEncoder().encode(s).length, c);
  }
  assert.equal(utf8Len(undefined), 0);
  assert.equal(utf8Len(null), 4); // "null", as TextEncoder converts it
});
