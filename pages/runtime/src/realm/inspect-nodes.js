// This realm's side of inspection identity and records (spec: NodeRef {host_instance_id, node_id,
// mount_id, generation}; "labels, selectors and resource IDs are never identities"): node ids (the
// candidates' target ids, documents and shadow roots included), the owning mount of a node (its
// nearest `data-wippy-mount-id` element, else the realm's own mount), the registry of the NodeRefs this
// realm returned (a ref is valid only when it is exactly one of those: never rebuilt from its fields),
// node records (ref, parent, kind, state, summary, path, resource, layout) and the revisions
// (tree: the DOM of any observed root changed; geometry: that, scroll or resize; observation: a new
// recorded event / focus / selection, counted by realm/store.js), announced on the hub (`inspection`).
import { W, nMutationObserver, nAddEL, nWeakRef, nGetCS } from '../core/natives.js';
import { INSPECT } from '../core/constants.js';
import { cutBytes, utf8Len, rectOut, rectTuple, intersect } from '../core/util.js';
import { attr, nodeType, composedParent, hostOf, isConnected, rectOf, viewportRect, safe } from '../core/dom-reads.js';
import { ROLE, HOST, UP, INSPECTION } from '../core/state.js';
import { emit } from '../core/hub.js';
import { sameRef } from '../core/inspect-args.js';
import { nodeKey, mountOf } from './identity.js';
import { localPath } from './paths.js';
import { summarize } from '../dom/summary.js';
import { privacyOf } from '../dom/privacy.js';
import { clampPath } from '../dom/segments.js';
import { hasBox } from '../dom/flat-tree.js';

export function hostInstanceId() {
  return ROLE === 'top' ? HOST.hostInstanceId : UP.hostInstanceId;
}
export function realmMount() {
  if (ROLE === 'top') return { mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration };
  return { mount_id: UP.childMountId, generation: Math.max(1, UP.childGeneration || 1) };
}
// The mount a node belongs to: its nearest element (itself included) carrying data-wippy-mount-id.
export function ownerMount(n) {
  for (let x = n, g = 0; x && g < 1024; x = composedParent(x), g++) {
    if (nodeType(x) !== 1) continue;
    const m = attr(x, 'data-wippy-mount-id');
    if (m && utf8Len(m) <= 160) return mountOf(x);
  }
  return realmMount();
}
export function nodeIdOf(n) {
  return 't-' + nodeKey(n);
}
export function kindOf(n) {
  const t = nodeType(n);
  return t === 9 ? 'document' : t === 11 ? 'shadow-root' : t === 1 ? 'element' : null;
}
// An owner-declared placeholder for content that is not mounted (virtualized rows, collapsed panels):
// an element with data-wippy-placeholder="unmounted" inside the owner's mount. It is found and listed
// like any element (its role and name are what the owner put on it) but has no layout.
export function isPlaceholder(el) {
  const v = attr(el, 'data-wippy-placeholder');
  return v !== null && v.trim().toLowerCase() === 'unmounted';
}
function remember(ref, entry) {
  const m = INSPECTION.issued;
  m.delete(ref.node_id);
  m.set(ref.node_id, entry);
  while (m.size > INSPECT.registryMax) m.delete(m.keys().next().value);
}
// The ref of a node of this realm, remembered as returned.
export function issueLocal(n) {
  const mount = ownerMount(n);
  const ref = {
    host_instance_id: hostInstanceId(),
    node_id: nodeIdOf(n),
    mount_id: mount.mount_id,
    generation: mount.generation,
  };
  remember(ref, { ref: ref, node: nWeakRef ? new nWeakRef(n) : { deref: () => n } });
  return ref;
}
// A ref a child realm returned through binding `b` (or, with `up`, the parent realm returned).
// -> false when the node id already belongs to this realm or to another child (a child can never take
// over a node id another realm returned; the record naming it is dropped).
export function issueVia(ref, b) {
  const e = INSPECTION.issued.get(ref.node_id);
  if (e && !e.up && e.via !== b && (!e.via || e.via.state !== 'detached')) return false;
  remember(ref, { ref: ref, via: b });
  return true;
}
export function issueUp(ref) {
  remember(ref, { ref: ref, up: true });
}
// -> {error: 'invalid-request'} (never returned by this realm, a field changed, another Host instance),
// {stale: true} (the node is gone), {node} (this realm's), {via: binding}, {up: true}.
export function resolveRef(ref) {
  const e = INSPECTION.issued.get(ref.node_id);
  if (!e || !sameRef(e.ref, ref) || ref.host_instance_id !== hostInstanceId()) return { error: 'invalid-request' };
  if (e.via) return { via: e.via };
  if (e.up) return { up: true };
  const n = e.node.deref();
  if (!n || !isConnected(n)) return { stale: true };
  return { node: n };
}

function shadowSegment(host) {
  return { kind: 'shadow-root', mount_id: nodeKey(host) + '-sr', generation: 1 };
}
// -> {path (realm-relative, the top's from `host`), fragment: the node is physical DOM of a Web Fragment}.
export function pathOf(n) {
  const t = nodeType(n);
  if (t === 9) {
    const host = { kind: 'host', mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration };
    return { path: ROLE === 'top' ? [host] : [], fragment: false };
  }
  if (t === 11) {
    const h = hostOf(n);
    if (!h) return { path: [], fragment: false };
    const lp = localPath(h, false);
    return { path: lp.path.concat([shadowSegment(h)]), fragment: lp.fragment };
  }
  return localPath(n, false);
}
// Layout in this realm's viewport: {rect, clip?, visible?, offscreen?} with rects as `[x, y, width,
// height]` (core/util.js rectTuple), `clip` only when it differs from `rect`, `visible` only when
// false and `offscreen` only when true (issue 42: lean rows; readers take `rect`, true and false for
// what is absent); null for a placeholder. `rect`, `clip`: rectOut's.
export function leanLayout(rect, clip, visible, offscreen) {
  const out = { rect: rectTuple(rect) };
  if (clip.x !== rect.x || clip.y !== rect.y || clip.width !== rect.width || clip.height !== rect.height)
    out.clip = rectTuple(clip);
  if (!visible) out.visible = false;
  if (offscreen) out.offscreen = true;
  return out;
}
export function layoutOf(n) {
  const t = nodeType(n);
  const vp = viewportRect();
  if (t === 9) return leanLayout(rectOut(vp), rectOut(vp), true, false);
  const el = t === 11 ? hostOf(n) : n;
  if (!el || (t === 1 && isPlaceholder(el))) return null;
  const r = rectOf(el);
  const clip = intersect(r, vp);
  const inView = clip.width > 0 && clip.height > 0;
  let shown = inView && hasBox(el);
  if (shown) {
    try {
      const cs = nGetCS(el);
      if (cs && cs.visibility !== 'visible') shown = false;
    } catch (_) {
      /* ignore */
    }
  }
  return leanLayout(rectOut(r), rectOut(clip), shown, !inView);
}
// The record of one node of this realm (never an excluded one: callers skip those).
export function localRecord(n, parentRef) {
  const kind = kindOf(n);
  const ref = issueLocal(n);
  let summary = {},
    resource = null;
  if (kind === 'element') {
    const p = privacyOf(n);
    summary = safe(() => summarize(n, { redacted: !!p.redacted, textNone: false }), {}) || {};
    const rid = attr(n, 'data-wippy-resource-id');
    if (rid !== null && rid.length > 0) resource = cutBytes(rid, 256);
  }
  const lp = safe(() => pathOf(n), { path: [], fragment: false });
  const rec = {
    ref: ref,
    parent: parentRef || null,
    kind: kind,
    state: summary.state ? summary.state : null,
    summary: summary,
    path: clampPath(lp.path),
    resource: resource,
    layout: safe(() => layoutOf(n), null),
    // As the candidates': a Web Fragment's nodes are physical Host DOM with fragment-realm provenance.
    provenance: {
      geometry_source: lp.fragment ? 'physical-host' : 'document',
      runtime_source: lp.fragment ? 'fragment-realm' : ROLE === 'top' ? 'document' : 'iframe-realm',
    },
  };
  if (kind === 'element' && isPlaceholder(n)) rec.placeholder = true;
  return rec;
}
// The parent of a node in the inspection tree of this realm (document -> elements -> shadow root ->
// elements), null at the realm's document.
export function treeParent(n) {
  const t = nodeType(n);
  if (t === 9) return null;
  if (t === 11) return hostOf(n);
  return composedParent(n);
}

// Revisions. tree / geometry move on DOM changes of any observed root (document and shadow roots, hub
// `root`), geometry also on scroll and resize; each change is announced on the hub (`inspection`).
let observer = null;
const observedRoots = new WeakSet();
export function bump(kinds) {
  const r = INSPECTION.revisions;
  for (const k of kinds) r[k] = (r[k] || 0) + 1;
  emit('inspection', kinds);
}
export function observeForInspection(root) {
  if (ROLE === 'fragment-realm' || !nMutationObserver) return;
  if (!observer) observer = new nMutationObserver(() => safe(() => bump(['tree', 'geometry'])));
  try {
    observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
    observedRoots.add(root);
  } catch (_) {
    /* ignore */
  }
}
// Whether a change under `root` (a document or shadow root) moves the tree revision. A root not
// observed yet (a parser-made shadow root no attachShadow call announced) is observed from now on,
// and false is returned: what was read under it before may already have changed unseen.
export function treeObserved(root) {
  if (observedRoots.has(root)) return true;
  observeForInspection(root);
  return false;
}
export function installInspectionListeners() {
  if (ROLE === 'fragment-realm') return;
  const geo = () => safe(() => bump(['geometry']));
  try {
    nAddEL.call(W, 'scroll', geo, { capture: true, passive: true });
    nAddEL.call(W, 'resize', geo, { passive: true });
  } catch (_) {
    /* ignore */
  }
}
