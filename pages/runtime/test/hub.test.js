// core/hub.js: how a lower layer tells a higher one something (README "Layers"). An event must
// behave as the direct calls it replaced: synchronous, in wiring order, the emitter's argument, and
// an exception reaching the emitter (later handlers of that event do not run, as the statements after
// a throwing call did not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { on, emit } from '../src/core/hub.js';

test('handlers run synchronously, in wiring order, with the argument', () => {
  const seen = [];
  on('document-replaced', (a) => seen.push(['first', a]));
  on('document-replaced', (a) => seen.push(['second', a]));
  seen.push(['before']);
  emit('document-replaced', 7);
  seen.push(['after']);
  assert.deepEqual(seen, [['before'], ['first', 7], ['second', 7], ['after']]);
});

test('an exception reaches the emitter and stops the later handlers', () => {
  const seen = [];
  on('scan', () => {
    seen.push('one');
    throw new Error('boom');
  });
  on('scan', () => seen.push('two'));
  assert.throws(() => emit('scan'), /boom/);
  assert.deepEqual(seen, ['one']);
});

test('an event nobody wired does nothing; an unknown name is a programming error', () => {
  assert.equal(emit('observation-up', {}), undefined);
  assert.throws(() => emit('no-such-event'), /unknown event no-such-event/);
  assert.throws(() => on('toString', () => {}), /unknown event toString/);
});
