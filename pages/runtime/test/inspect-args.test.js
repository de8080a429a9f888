// The inspection API's argument rules (core/inspect-args.js): every boundary passes at N and fails at
// N + 1, unknown keys and malformed refs are refused, nothing throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkRefShape,
  checkOptions,
  checkFindQuery,
  checkHit,
  checkSubscribe,
  checkSessionRequest,
  FIND_OPTIONS,
  TREE_OPTIONS,
} from '../src/core/inspect-args.js';

const REF = { host_instance_id: 'host-1', node_id: 't-r1-n1', mount_id: 'm', generation: 1 };

test('a NodeRef has exactly its four fields with bounded strings and a generation of at least 1', () => {
  assert.deepEqual(checkRefShape(REF).ok, REF);
  assert.equal(checkRefShape({ ...REF, extra: 1 }).error, 'ref-unexpected-field');
  assert.equal(checkRefShape({ ...REF, generation: 0 }).error, 'ref-generation');
  assert.equal(checkRefShape({ ...REF, generation: 1.5 }).error, 'ref-generation');
  assert.equal(checkRefShape({ ...REF, node_id: '' }).error, 'ref-node_id');
  assert.ok(checkRefShape({ ...REF, node_id: 'x'.repeat(256) }).ok);
  assert.equal(checkRefShape({ ...REF, node_id: 'x'.repeat(257) }).error, 'ref-node_id');
  assert.ok(checkRefShape({ ...REF, host_instance_id: 'h'.repeat(160) }).ok);
  assert.equal(checkRefShape({ ...REF, host_instance_id: 'h'.repeat(161) }).error, 'ref-host_instance_id');
  assert.equal(checkRefShape(null).error, 'ref-not-object');
  assert.equal(checkRefShape([REF]).error, 'ref-not-object');
});

test('options: unknown keys are refused; limit 1..8 for find and 1..32 for tree; depth 0..32, default 2', () => {
  assert.deepEqual(checkOptions(undefined, FIND_OPTIONS, 8).ok, {
    fromRoot: false,
    limit: 8,
    depth: 2,
    continuation: null,
  });
  assert.equal(checkOptions({ bogus: 1 }, FIND_OPTIONS, 8).error, 'options-unexpected-field');
  assert.equal(checkOptions({ depth: 2 }, FIND_OPTIONS, 8).error, 'options-unexpected-field');
  assert.ok(checkOptions({ limit: 8 }, FIND_OPTIONS, 8).ok);
  assert.equal(checkOptions({ limit: 9 }, FIND_OPTIONS, 8).error, 'limit');
  assert.equal(checkOptions({ limit: 0 }, FIND_OPTIONS, 8).error, 'limit');
  assert.ok(checkOptions({ limit: 32 }, TREE_OPTIONS, 32).ok);
  assert.equal(checkOptions({ limit: 33 }, TREE_OPTIONS, 32).error, 'limit');
  assert.equal(checkOptions({ depth: 32 }, TREE_OPTIONS, 32).ok.depth, 32);
  assert.equal(checkOptions({ depth: 33 }, TREE_OPTIONS, 32).error, 'depth');
  assert.equal(checkOptions({ depth: -1 }, TREE_OPTIONS, 32).error, 'depth');
  assert.equal(checkOptions({ fromRoot: 'yes' }, FIND_OPTIONS, 8).error, 'fromRoot');
  assert.ok(checkOptions({ continuation: 'c'.repeat(160) }, FIND_OPTIONS, 8).ok);
  assert.equal(checkOptions({ continuation: 'c'.repeat(161) }, FIND_OPTIONS, 8).error, 'continuation');
  assert.equal(checkOptions({ [Symbol('x')]: 1 }, FIND_OPTIONS, 8).error, 'options-unexpected-field');
});

test('find queries: semantic needs one filter, node_id alone, css with a scope ref and at most 512 characters', () => {
  assert.equal(checkFindQuery({}).error, 'semantic-filter-required');
  assert.deepEqual(checkFindQuery({ role: 'button', name: 'Save' }).ok, {
    mode: 'semantic',
    role: 'button',
    name: 'Save',
  });
  assert.equal(checkFindQuery({ role: 'button', colour: 'red' }).error, 'query-unexpected-field');
  assert.equal(checkFindQuery({ name: '' }).error, 'name');
  assert.equal(checkFindQuery({ text: 'x'.repeat(257) }).error, 'text');
  assert.deepEqual(checkFindQuery({ node_id: 't-1' }).ok, { mode: 'node', node_id: 't-1' });
  assert.equal(checkFindQuery({ node_id: 't-1', role: 'x' }).error, 'query-unexpected-field');
  assert.equal(checkFindQuery({ css: 'a'.repeat(512), scope: REF }).ok.mode, 'css');
  assert.equal(checkFindQuery({ css: 'a'.repeat(513), scope: REF }).error, 'css-too-long');
  assert.equal(checkFindQuery({ css: 'a' }).error, 'css-scope');
  assert.equal(checkFindQuery({ css: 'a', scope: { ...REF, generation: 0 } }).error, 'css-scope');
});

test('hit test: finite x and y, radius 0..100, step in (0, 100], a coordinate space or a ref', () => {
  assert.deepEqual(checkHit({ x: 1, y: 2 }).ok, { x: 1, y: 2, space: 'host-viewport', radius: 0, step: 5 });
  assert.equal(checkHit({ x: NaN, y: 2 }).error, 'point-required');
  assert.equal(checkHit({ x: Infinity, y: 2 }).error, 'point-required');
  assert.equal(checkHit({ x: 1 }).error, 'point-required');
  assert.ok(checkHit({ x: 1, y: 2, radius_css_px: 100 }).ok);
  assert.equal(checkHit({ x: 1, y: 2, radius_css_px: 100.01 }).error, 'invalid-point-budget');
  assert.equal(checkHit({ x: 1, y: 2, radius_css_px: -1 }).error, 'invalid-point-budget');
  assert.ok(checkHit({ x: 1, y: 2, step_css_px: 100 }).ok);
  assert.ok(checkHit({ x: 1, y: 2, step_css_px: 0.01 }).ok);
  assert.equal(checkHit({ x: 1, y: 2, step_css_px: 0 }).error, 'invalid-point-budget');
  assert.equal(checkHit({ x: 1, y: 2, step_css_px: 101 }).error, 'invalid-point-budget');
  assert.deepEqual(checkHit({ x: 1, y: 2, coordinate_space: REF }).ok.space, REF);
  assert.equal(checkHit({ x: 1, y: 2, coordinate_space: 'page' }).error, 'invalid-coordinate-space');
  assert.equal(checkHit({ x: 1, y: 2, z: 3 }).error, 'point-unexpected-field');
});

test('subscribe: known unique events, boolean fromRoot, nothing else', () => {
  assert.deepEqual(checkSubscribe({ events: ['tree', 'invalidation'], fromRoot: true }).ok, {
    events: ['tree', 'invalidation'],
    fromRoot: true,
  });
  assert.equal(checkSubscribe({ events: [] }).error, 'events');
  assert.equal(checkSubscribe({ events: ['hover'] }).error, 'events');
  assert.equal(checkSubscribe({ events: ['tree', 'tree'] }).error, 'events');
  assert.equal(checkSubscribe({ events: ['tree'], when: 1 }).error, 'subscribe-unexpected-field');
});

test('the Session route: request id, operation, scope fromRoot true, args keys from the list only', () => {
  const ok = checkSessionRequest({
    request_id: 'r',
    operation: 'find',
    scope: { fromRoot: true },
    args: { query: { role: 'x' } },
  });
  assert.equal(ok.ok.operation, 'find');
  assert.equal(
    checkSessionRequest({ request_id: 'r', operation: 'hover', scope: { fromRoot: true } }).error,
    'operation',
  );
  assert.equal(
    checkSessionRequest({ request_id: 'r', operation: 'find', scope: { fromRoot: false } }).error,
    'invalid-scope',
  );
  assert.equal(
    checkSessionRequest({ request_id: 'r', operation: 'find', scope: { fromRoot: true }, args: { selector: 'a' } })
      .error,
    'unexpected-field',
  );
  assert.equal(
    checkSessionRequest({ request_id: 'r'.repeat(257), operation: 'find', scope: { fromRoot: true } }).error,
    'request_id',
  );
  const bad = checkSessionRequest({
    request_id: 'r',
    operation: 'tree',
    scope: { fromRoot: true, node: { node_id: 'x' } },
  });
  assert.equal(bad.error, 'invalid-scope');
  assert.equal(bad.request_id, 'r');
});
