// The Session's model.v1 projection as the Host measures it (core/model-projection.js; the Session's
// own is harness/src/contract/model_read.rs, and the Session boundary tests prove the two agree at the
// 8,192-byte ceiling): rows, 1-based mount and path dictionaries, geometry-free segments, target_ref
// only for exactly one node, rows without a complete NodeRef removed with the continuation dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { projectModel, modelBytes, isNodeRef } from '../src/core/model-projection.js';
import { canonicalJson } from '../src/core/canonical-json.js';

const ref = (id, mount) => ({ host_instance_id: 'h', node_id: id, mount_id: mount, generation: 1 });
const seg = (mount) => ({ kind: 'element', mount_id: mount, generation: 1, rect: { x: 1, y: 2, width: 3, height: 4 } });
const node = (id, mount, parent) => ({
  ref: ref(id, mount),
  parent: parent || null,
  kind: 'element',
  summary: { role: 'button', name: id },
  path: [seg('m0'), seg(mount)],
  layout: { rect: { x: 0, y: 0, width: 10, height: 10 } },
});
const inspection = (nodes, extra) =>
  Object.assign(
    {
      request_id: 'r',
      host_instance_id: 'h',
      measured_at: '2026-01-01T00:00:00.000Z',
      revisions: { tree: 1, observation: 2, geometry: 3 },
      outcome: 'ok',
      data: { nodes: nodes, root: ref('root', 'm0') },
      omissions: [],
    },
    extra || {},
  );

test('rows use 1-based mount and path dictionaries and segments lose their geometry', () => {
  const m = projectModel(inspection([node('a', 'm1'), node('b', 'm1', ref('a', 'm1'))]), []);
  assert.deepEqual(m.mounts, [
    ['h', 'm1', 1],
    ['h', 'm0', 1],
  ]);
  assert.deepEqual(m.paths, [
    { kind: 'element', mount_id: 'm0', generation: 1 },
    { kind: 'element', mount_id: 'm1', generation: 1 },
  ]);
  assert.deepEqual(m.nodes[1].slice(0, 2), [
    ['b', 1],
    ['a', 1],
  ]);
  assert.deepEqual(m.nodes[0][5], [1, 2]);
  assert.deepEqual(m.root, ['root', 2]);
  assert.equal(m.nodes[0][1], false);
  assert.equal(m.target_ref, undefined);
  assert.equal(
    modelBytes(inspection([node('a', 'm1')]), []),
    Buffer.byteLength(canonicalJson(projectModel(inspection([node('a', 'm1')]), []))),
  );
});

test('target_ref joins the one node by id, host and leaf mount', () => {
  const t = { target_id: 'a', host_instance_id: 'h', mount_id: 'm1', generation: 1, snapshot_id: 's' };
  assert.deepEqual(projectModel(inspection([node('a', 'm1')]), [t]).target_ref, t);
  assert.equal(projectModel(inspection([node('a', 'm1'), node('b', 'm1')]), [t]).target_ref, undefined);
  assert.equal(projectModel(inspection([node('a', 'm2')]), [t]).target_ref, undefined);
});

test('a row without a complete NodeRef of the host is removed and the continuation dropped', () => {
  const bad = node('x', 'm1');
  bad.ref.host_instance_id = 'other';
  const m = projectModel(inspection([node('a', 'm1'), bad], { continuation: 'c-1' }), []);
  assert.equal(m.nodes.length, 1);
  assert.equal(m.continuation, undefined);
  assert.equal(m.omissions[0].reason, 'projection-row-removed');
  assert.equal(projectModel(inspection([node('a', 'm1')], { continuation: 'c-1' }), []).continuation, 'c-1');
  assert.equal(isNodeRef(Object.assign(ref('a', 'm'), { extra: 1 })), false);
  assert.equal(isNodeRef(Object.assign(ref('a', 'm'), { generation: 0 })), false);
});
