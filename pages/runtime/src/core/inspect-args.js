// Argument rules of the inspection API (spec: "Canonical inspection and agent tools"; schemas.md §8
// tool argument rules; relay.md inspect arguments): NodeRef shape, method options, find queries
// (semantic, exact node id, CSS), hit-test points, subscriptions and the Session route's request.
// Every check returns {ok: value} or {error: detail} (detail: a short fixed string naming the rule,
// never the caller's text); nothing throws. DOM-free: the Node tests import it.
import { INSPECT, INSPECT_EVENTS } from './constants.js';

const MAX_SAFE = 9007199254740991;
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
// A plain object of any realm (a same-origin frame's objects have that frame's Object.prototype).
function plain(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === null || (Object.getPrototypeOf(p) === null && Object.prototype.toString.call(v) === '[object Object]');
}
function keysWithin(o, allowed) {
  const ks = Object.keys(o);
  for (let i = 0; i < ks.length; i++) if (allowed.indexOf(ks[i]) < 0) return ks[i];
  // Symbols and non-enumerable own keys are refused too: only plain data crosses the API.
  if (Object.getOwnPropertySymbols(o).length > 0) return 'symbol';
  return null;
}
function str(v, min, max) {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}
const REF_KEYS = ['host_instance_id', 'node_id', 'mount_id', 'generation'];

// A NodeRef's shape: exactly {host_instance_id 1..160, node_id 1..256, mount_id 1..256, generation
// int 1..2^53-1}. Whether this runtime returned it is the registry's question (realm/inspect-nodes.js).
export function checkRefShape(v) {
  if (!plain(v)) return { error: 'ref-not-object' };
  if (keysWithin(v, REF_KEYS)) return { error: 'ref-unexpected-field' };
  if (!str(v.host_instance_id, 1, 160)) return { error: 'ref-host_instance_id' };
  if (!str(v.node_id, 1, 256)) return { error: 'ref-node_id' };
  if (!str(v.mount_id, 1, 256)) return { error: 'ref-mount_id' };
  if (
    typeof v.generation !== 'number' ||
    !Number.isInteger(v.generation) ||
    v.generation < 1 ||
    v.generation > MAX_SAFE
  )
    return { error: 'ref-generation' };
  return {
    ok: { host_instance_id: v.host_instance_id, node_id: v.node_id, mount_id: v.mount_id, generation: v.generation },
  };
}
export function sameRef(a, b) {
  return (
    !!a &&
    !!b &&
    a.host_instance_id === b.host_instance_id &&
    a.node_id === b.node_id &&
    a.mount_id === b.mount_id &&
    a.generation === b.generation
  );
}

// Method options {fromRoot?, limit?, depth?, continuation?}; `allowed` names the keys the method takes,
// `limitMax` its page size. -> {ok: {fromRoot, limit, depth, continuation}}.
export function checkOptions(o, allowed, limitMax) {
  if (o === undefined || o === null) o = {};
  if (!plain(o)) return { error: 'options-not-object' };
  if (keysWithin(o, allowed)) return { error: 'options-unexpected-field' };
  const out = { fromRoot: false, limit: limitMax, depth: INSPECT.depthDefault, continuation: null };
  if (hasOwn(o, 'fromRoot')) {
    if (typeof o.fromRoot !== 'boolean') return { error: 'fromRoot' };
    out.fromRoot = o.fromRoot;
  }
  if (hasOwn(o, 'limit')) {
    if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > limitMax) return { error: 'limit' };
    out.limit = o.limit;
  }
  if (hasOwn(o, 'depth')) {
    if (!Number.isInteger(o.depth) || o.depth < 0 || o.depth > INSPECT.depthMax) return { error: 'depth' };
    out.depth = o.depth;
  }
  if (hasOwn(o, 'continuation')) {
    if (!str(o.continuation, 1, INSPECT.continuationMax)) return { error: 'continuation' };
    out.continuation = o.continuation;
  }
  return { ok: out };
}
export const FIND_OPTIONS = ['fromRoot', 'limit', 'continuation'];
export const TREE_OPTIONS = ['fromRoot', 'limit', 'depth', 'continuation'];
export const READ_OPTIONS = ['fromRoot'];

// find's query: semantic {role?, name?, text?, resource_id?} (at least one, each 1..256 characters),
// exact {node_id}, or CSS {css 1..512, scope: NodeRef}. -> {ok: {mode, ...}}.
export function checkFindQuery(q) {
  if (!plain(q)) return { error: 'query-not-object' };
  if (hasOwn(q, 'css') || hasOwn(q, 'scope')) {
    if (keysWithin(q, ['css', 'scope'])) return { error: 'query-unexpected-field' };
    if (typeof q.css !== 'string' || q.css.length < 1) return { error: 'css' };
    if (q.css.length > INSPECT.selectorMax) return { error: 'css-too-long' };
    const r = checkRefShape(q.scope);
    if (r.error) return { error: 'css-scope' };
    return { ok: { mode: 'css', css: q.css, scope: r.ok } };
  }
  if (hasOwn(q, 'node_id')) {
    if (keysWithin(q, ['node_id'])) return { error: 'query-unexpected-field' };
    if (!str(q.node_id, 1, INSPECT.stringMax)) return { error: 'node_id' };
    return { ok: { mode: 'node', node_id: q.node_id } };
  }
  if (keysWithin(q, ['role', 'name', 'text', 'resource_id'])) return { error: 'query-unexpected-field' };
  const out = { mode: 'semantic' };
  let n = 0;
  for (const k of ['role', 'name', 'text', 'resource_id']) {
    if (!hasOwn(q, k)) continue;
    if (!str(q[k], 1, INSPECT.stringMax)) return { error: k };
    out[k] = q[k];
    n++;
  }
  if (n === 0) return { error: 'semantic-filter-required' };
  return { ok: out };
}

// hitTest's argument {x, y, coordinate_space?, radius_css_px?, step_css_px?}: x, y finite; coordinate
// space "host-viewport" (default) or a NodeRef; radius 0..100 (default 0); step (0, 100] (default 5).
export function checkHit(a) {
  if (!plain(a)) return { error: 'point-not-object' };
  if (keysWithin(a, ['x', 'y', 'coordinate_space', 'radius_css_px', 'step_css_px']))
    return { error: 'point-unexpected-field' };
  if (typeof a.x !== 'number' || !isFinite(a.x) || typeof a.y !== 'number' || !isFinite(a.y))
    return { error: 'point-required' };
  let space = 'host-viewport';
  if (hasOwn(a, 'coordinate_space') && a.coordinate_space !== 'host-viewport') {
    const r = checkRefShape(a.coordinate_space);
    if (r.error) return { error: 'invalid-coordinate-space' };
    space = r.ok;
  }
  let radius = 0,
    step = 5;
  if (hasOwn(a, 'radius_css_px')) {
    if (typeof a.radius_css_px !== 'number' || !(a.radius_css_px >= 0 && a.radius_css_px <= INSPECT.radiusMax))
      return { error: 'invalid-point-budget' };
    radius = a.radius_css_px;
  }
  if (hasOwn(a, 'step_css_px')) {
    if (typeof a.step_css_px !== 'number' || !(a.step_css_px > 0 && a.step_css_px <= INSPECT.stepMax))
      return { error: 'invalid-point-budget' };
    step = a.step_css_px;
  }
  return { ok: { x: a.x, y: a.y, space: space, radius: radius, step: step } };
}

// subscribe's spec {events: [unique event names, 1..6], fromRoot?: boolean}.
export function checkSubscribe(s) {
  if (!plain(s)) return { error: 'subscribe-not-object' };
  if (keysWithin(s, ['events', 'fromRoot'])) return { error: 'subscribe-unexpected-field' };
  if (!Array.isArray(s.events) || s.events.length < 1 || s.events.length > INSPECT_EVENTS.length)
    return { error: 'events' };
  const ev = [];
  for (const e of s.events) {
    if (typeof e !== 'string' || INSPECT_EVENTS.indexOf(e) < 0 || ev.indexOf(e) >= 0) return { error: 'events' };
    ev.push(e);
  }
  if (hasOwn(s, 'fromRoot') && typeof s.fromRoot !== 'boolean') return { error: 'fromRoot' };
  return { ok: { events: ev, fromRoot: s.fromRoot === true } };
}

export const SESSION_OPERATIONS = ['cursor', 'focus', 'selection', 'point', 'tree', 'find', 'geometry'];
const SESSION_ARGS = [
  'x',
  'y',
  'coordinate_space',
  'radius_css_px',
  'step_css_px',
  'query',
  'limit',
  'depth',
  'continuation',
  'node',
];
// The Session route's request {request_id 1..256, operation, scope: {fromRoot: true, node?}, args}.
// -> {ok: {request_id, operation, node, args}} or {error, request_id?}.
export function checkSessionRequest(r) {
  if (!plain(r)) return { error: 'request-not-object' };
  const rid = str(r.request_id, 1, 256) ? r.request_id : null;
  const fail = (e) => ({ error: e, request_id: rid });
  if (keysWithin(r, ['request_id', 'operation', 'scope', 'args'])) return fail('request-unexpected-field');
  if (!rid) return fail('request_id');
  if (SESSION_OPERATIONS.indexOf(r.operation) < 0) return fail('operation');
  if (!plain(r.scope) || keysWithin(r.scope, ['fromRoot', 'node']) || r.scope.fromRoot !== true)
    return fail('invalid-scope');
  let node = null;
  if (hasOwn(r.scope, 'node')) {
    const c = checkRefShape(r.scope.node);
    if (c.error) return fail('invalid-scope');
    node = c.ok;
  }
  const args = r.args === undefined ? {} : r.args;
  if (!plain(args)) return fail('args-not-object');
  if (keysWithin(args, SESSION_ARGS)) return fail('unexpected-field');
  return { ok: { request_id: rid, operation: r.operation, node: node, args: args } };
}
