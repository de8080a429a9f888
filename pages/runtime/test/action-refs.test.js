import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathDigest, semanticPath, actionRefFor, eligible } from '../src/host/action-refs.js';

// relay.md "path_digest computation": the verified golden example.
test('path_digest of the relay.md golden path', () => {
  const path = [
    { generation: 3, kind: 'host', mount_id: 'host-1' },
    { generation: 1, kind: 'element', mount_id: 'leaf-1', tag_name: 'span' },
  ];
  assert.equal(pathDigest(path), 'sha256:2c46a9ab38e76737a2418025f51d2c7f2f3d743bedaba84a04598fb2aed7758f');
});

test('geometry members do not change the semantic digest', () => {
  const bare = [
    { generation: 3, kind: 'host', mount_id: 'host-1' },
    { generation: 1, kind: 'element', mount_id: 'leaf-1', tag_name: 'span' },
  ];
  const geo = [
    { generation: 3, kind: 'host', mount_id: 'host-1', rect: { x: 0, y: 0, width: 5, height: 5 } },
    {
      generation: 1,
      kind: 'element',
      mount_id: 'leaf-1',
      tag_name: 'span',
      clip_rect: { x: 1, y: 1, width: 1, height: 1 },
      coordinate_quality: 'exact',
      local_to_parent: { matrix: [1], convention: 'dommatrix-column-major', direction: 'local-to-parent' },
    },
  ];
  assert.deepEqual(semanticPath(geo), bare);
  assert.equal(pathDigest(geo), pathDigest(bare));
  const other = [bare[0], Object.assign({}, bare[1], { generation: 2 })];
  assert.notEqual(pathDigest(other), pathDigest(bare));
});

const cand = (over) =>
  Object.assign(
    {
      target_id: 't-1',
      rect: { x: 1, y: 2, width: 3, height: 4 },
      summary: { role: 'button', name: 'Go' },
      path: [
        { kind: 'host', mount_id: 'host-a', generation: 1 },
        { kind: 'element', mount_id: 'm-7', generation: 4, tag_name: 'button' },
      ],
    },
    over,
  );

test('action_ref takes the leaf mount, the candidate rect and the summary name', () => {
  const ref = actionRefFor(cand({}), 'snap-1', 'host-a', false);
  assert.deepEqual(Object.keys(ref).sort(), [
    'generation',
    'host_instance_id',
    'label',
    'mount_id',
    'path_digest',
    'rect',
    'snapshot_id',
    'target_id',
  ]);
  assert.equal(ref.mount_id, 'm-7');
  assert.equal(ref.generation, 4);
  assert.deepEqual(ref.rect, { x: 1, y: 2, width: 3, height: 4 });
  assert.equal(ref.label, 'Go');
  assert.equal(actionRefFor(cand({}), 'snap-1', 'host-a', true).label, undefined);
});

test('label is cut to 256 UTF-8 bytes', () => {
  const ref = actionRefFor(cand({ summary: { role: 'button', name: 'é'.repeat(200) } }), 's', 'h', false);
  assert.equal(new TextEncoder().encode(ref.label).length, 256);
});

test('zero-area or non-element leaves are not eligible', () => {
  assert.equal(eligible(cand({ rect: { x: 0, y: 0, width: 0, height: 4 } })), false);
  assert.equal(actionRefFor(cand({ path: [{ kind: 'host', mount_id: 'h', generation: 1 }] }), 's', 'h', false), null);
  assert.equal(eligible(cand({})), true);
});
