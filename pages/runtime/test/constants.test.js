// Lookup tables of the runtime have no prototype (spec: relay — child-supplied names are never
// trusted): `constructor`, `toString`, `__proto__` are not members of any of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lookupTable, CODE_TO_REASON, DISCRETE } from '../src/core/constants.js';

test('lookup tables: no inherited members, frozen, listed members kept', () => {
  for (const t of [CODE_TO_REASON, DISCRETE, lookupTable({ a: 1 })]) {
    for (const k of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])
      assert.equal(t[k], undefined, k);
    assert.ok(Object.isFrozen(t));
  }
  assert.equal(CODE_TO_REASON['deadline-exceeded'], 'child-timeout');
  assert.equal(CODE_TO_REASON['disconnected'], 'child-disconnected');
  assert.equal(DISCRETE.click, 1);
  assert.equal(DISCRETE.pointermove, undefined);
});
