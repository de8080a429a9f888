// What resolving a trusted pointermove reads from the DOM, kept per node while it cannot have
// changed (issue 23: the realm that receives a move resolves its candidate at the move, at close to
// the cost of one hit test): the promotion of the node hit to its candidate (hit-test.js promoteAt),
// an element's privacy (dom/privacy.js privacyOf) and the candidate's descriptor without its rects
// (candidates.js describeFixed; the rects are read at every move), the latter only while the
// pointer stays on the node it was read at: another node under the pointer is another :hover
// chain, so other computed styles for the summary to read. All are read from attributes, the
// composed tree, computed roles, styles and boxes. An entry is used only while the realm's tree and geometry
// revisions (realm/inspect-nodes.js: a MutationObserver on every root the runtime knows; scroll,
// resize) and its input epoch (a trusted discrete pointer or key event, a focus change) are the ones
// it was read at, every root on the node's composed ancestry was observed when it was read, and for
// at most PROBE_TTL_MS, the time hidden-roots.js keeps a box probe that found nothing. The point
// itself is still probed for a root the runtime cannot enter on every move (hit-test.js). Snapshot
// sampling and inspection never use these entries: they read the DOM at their own time.
import { nMutationObserver, nPerfNow } from '../core/natives.js';
import { nodeType, localName, composedParent, treeRoot } from '../core/dom-reads.js';
import { ROLE, REALM, INSPECTION } from '../core/state.js';
import { privacyOf } from '../dom/privacy.js';
import { PROBE_TTL_MS, hasHiddenRoot } from '../dom/hidden-roots.js';
import { flatParent } from '../dom/flat-tree.js';
import { promoteAt, DOCUMENT_ROOTS } from './hit-test.js';
import { treeObserved } from './inspect-nodes.js';
import { describeFixed, descriptorOf } from './candidates.js';

let stamp = { tree: -1, geometry: -1, input: -1 };
let promoted = new WeakMap();
let privacy = new WeakMap();
let described = new WeakMap();
// The entries of another tree, geometry or input are dropped at once.
function fresh() {
  const r = INSPECTION.revisions;
  if (r.tree !== stamp.tree || r.geometry !== stamp.geometry || REALM.inputEpoch !== stamp.input) {
    stamp = { tree: r.tree, geometry: r.geometry, input: REALM.inputEpoch };
    promoted = new WeakMap();
    privacy = new WeakMap();
    described = new WeakMap();
  }
}
// Whether every tree on n's composed ancestry reports its changes (documents and shadow roots).
function observedUp(n) {
  if (ROLE === 'fragment-realm' || !nMutationObserver) return false;
  let ok = true;
  for (let x = n, guard = 0; x && guard < 64; guard++) {
    const root = treeRoot(x);
    const t = nodeType(root);
    if (t !== 9 && t !== 11) return false; // detached
    if (!treeObserved(root)) ok = false;
    if (t === 9) break;
    x = composedParent(root);
  }
  return ok;
}
// An entry of `map` for `key` still valid, or undefined.
function entry(map, key, now) {
  fresh();
  const e = map.get(key);
  return e && now - e.at < PROBE_TTL_MS ? e : undefined;
}
// The first element of the promotion walk from `start` (itself, or the flat-tree parent of a text
// node) when promoteAt probes it at the point for a root the runtime cannot enter, else null.
function probedFirst(start) {
  let n = start;
  for (let guard = 0; n && nodeType(n) !== 1 && guard < 8; guard++) n = flatParent(n);
  return n && nodeType(n) === 1 && !DOCUMENT_ROOTS[localName(n)] ? n : null;
}
// The memo hit-test.js hitTest takes for a pointer event: the same answers as reading everything.
export const MOVE_MEMO = {
  promote(start, at) {
    const now = nPerfNow();
    const e = entry(promoted, start, now);
    // The point is new: it is probed as promoteAt probes it (a hit there finds the hidden root).
    if (e && !(e.first && hasHiddenRoot(e.first, at, e.first !== start))) return e.value;
    const r = promoteAt(start, at);
    if (!r.hidden && observedUp(start)) promoted.set(start, { value: r, at: now, first: probedFirst(start) });
    return r;
  },
  privacy(el) {
    const now = nPerfNow();
    const e = entry(privacy, el, now);
    if (e) return e.value;
    const p = privacyOf(el);
    if (observedUp(el)) privacy.set(el, { value: p, at: now });
    return p;
  },
  // The candidate's descriptor (candidates.js describe) for a pointer at `start` (the node hit):
  // its rects are read at every move, the rest is kept while the pointer stays on the same node
  // (the same :hover chain, so the same computed style of everything the summary reads).
  describe(el, opts, start) {
    const now = nPerfNow();
    const e = entry(described, el, now);
    const redacted = !!opts.redacted;
    if (e && e.start === start && e.redacted === redacted && e.role === opts.role)
      return descriptorOf(el, e.value, true);
    const f = describeFixed(el, opts);
    if (!observedUp(el)) return descriptorOf(el, f, false);
    described.set(el, { value: f, at: now, start: start, redacted: redacted, role: opts.role });
    return descriptorOf(el, f, true);
  },
};
