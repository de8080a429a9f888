// Candidate descriptors of this realm's elements (spec: candidates — target_id, path, rect,
// clip_rect, occluded, summary, provenance, redacted): built at sampling or event time, and, for
// Host-realm pointer targets, refreshed at snapshot time from the live element (bounded WeakRef map).
import { nWeakRef } from '../core/natives.js';
import { rectOut, intersect, sameRect } from '../core/util.js';
import { safe, rectOf, viewportRect, isConnected, composedParent } from '../core/dom-reads.js';
import { ROLE, liveByTarget } from '../core/state.js';
import { targetIdOf } from './identity.js';
import { localPath } from './paths.js';
import { summarize } from '../dom/summary.js';
import { privacyOf } from '../dom/privacy.js';
import { deepHit, containsRedacted } from './hit-test.js';

// Full realm-local descriptor of a candidate element. opts: {redacted, textNone, role?}; role is
// el's computed role when the caller read it in this same task (hit testing), else it is read here.
export function describe(el, opts) {
  return descriptorOf(el, describeFixed(el, opts), false);
}
// What a descriptor reads from the element besides its box: identity, path (with the elements its
// segments' rects come from), summary, sources and redaction. realm/resolve-cache.js keeps it for a
// pointer's candidate while none of it can have changed.
export function describeFixed(el, opts) {
  const lp = localPath(el, false);
  return {
    target_id: targetIdOf(el),
    path: lp.path,
    boxes: lp.boxes,
    summary: summarize(el, { redacted: !!opts.redacted, textNone: !!opts.textNone, role: opts.role }),
    fragment: lp.fragment,
    redacted: !!opts.redacted || containsRedacted(el),
  };
}
const copySummary = (s) =>
  s.state ? Object.assign({}, s, { state: Object.assign({}, s.state) }) : Object.assign({}, s);
// A descriptor from what describeFixed read, with el's rect read now; kept: f is kept for later
// moves, so the descriptor has copies of its objects and its path segments' rects are read now.
export function descriptorOf(el, f, kept) {
  const rect = rectOf(el);
  let path = f.path;
  if (kept) {
    path = path.map((seg) => Object.assign({}, seg));
    for (const [i, n] of f.boxes) path[i].rect = rectOut(rectOf(n));
  }
  const d = {
    target_id: f.target_id,
    path: path,
    rect: rectOut(rect),
    occluded: false,
    summary: kept ? copySummary(f.summary) : f.summary,
    geometry_source: f.fragment ? 'physical-host' : 'document',
    runtime_source: f.fragment ? 'fragment-realm' : ROLE === 'top' ? 'document' : 'iframe-realm',
  };
  const clip = intersect(rect, viewportRect());
  if (!sameRect(clip, rect)) d.clip_rect = rectOut(clip);
  if (f.redacted) d.redacted = true;
  if (ROLE === 'top' && nWeakRef) {
    liveByTarget.set(d.target_id, new nWeakRef(el));
    if (liveByTarget.size > 512) liveByTarget.delete(liveByTarget.keys().next().value);
  }
  return d;
}
export function occludedNow(el, d) {
  const cx = d.rect.x + d.rect.width / 2,
    cy = d.rect.y + d.rect.height / 2;
  const h = deepHit(cx, cy);
  if (!h) return true;
  for (let n = h; n; n = composedParent(n)) if (n === el) return false;
  return true;
}

export function localAlive(tid) {
  const ref = liveByTarget.get(tid);
  if (!ref) return true;
  const e = ref.deref();
  return !!(e && isConnected(e));
}
export function refreshLocal(c) {
  // A Host-realm pointer target: refresh geometry and summary from the live element when it still exists.
  const tid = c.target_id;
  const el = liveByTarget.get(tid);
  const e = el && el.deref ? el.deref() : null;
  if (!el) return c; // evicted from the bounded map: keep what the event saw
  if (!e || !isConnected(e)) return null; // detached: a retired identity is never a current target
  const p = privacyOf(e);
  if (p.excluded) return null;
  const d = safe(() => describe(e, { redacted: !!p.redacted, textNone: false }), c);
  if (d) d.occluded = safe(() => occludedNow(e, d), false);
  return d;
}
