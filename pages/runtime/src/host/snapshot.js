// Snapshot assembly in the top realm (spec: the wippy.attention.v1 payload — capture lattice,
// candidates in pool priority order (sampled, pointer targets, focus target, at most 8 targets only
// known from recent events), recent events, pointer, focus, omissions; no dangling candidate ids;
// the children's windows of moves merged first; the serialized envelope trimmed to <= 30 KiB with
// `response-budget`, or for a compact attachment (`options.attachment_version` 2-4) its canonical
// envelope to the 16,384-byte v2-v4 limit, host/envelope-size.js; paths over 32 segments clamped with
// `depth-limit`; capture.complete = no omissions).
import { W, nPerfNow, nDateNow } from '../core/natives.js';
import {
  SCHEMA,
  EVENT_WINDOW_MS,
  EVENT_ONLY_TARGETS,
  ROOT_BUDGET,
  ENVELOPE_TARGET_BYTES,
  ASSEMBLY_MARGIN_MS,
} from '../core/constants.js';
import { iso, r3, nonneg, isInt } from '../core/util.js';
import { obsNow } from '../core/clock.js';
import { canonicalJson } from '../core/canonical-json.js';
import { safe, randHex, viewportRect } from '../core/dom-reads.js';
import { HOST, TOP, ACCT, ACTIONS } from '../core/state.js';
import { actionRefFor } from './action-refs.js';
import { latticePoints, captureOptions } from './lattice.js';
import { pruneEvents } from '../realm/history.js';
import { clampPath } from '../dom/segments.js';
import { scanIframes } from '../relay/discovery.js';
import { mergeChildWindows } from '../relay/parent.js';
import { resolvePoints } from '../relay/sampling.js';
import { refreshLocal, localAlive } from '../realm/candidates.js';
import { bindingAlive } from '../realm/store.js';
import { currentFocusRecord } from '../realm/focus.js';
import { envelopeSize, fitsVersion } from './envelope-size.js';
import { selectionOut } from '../realm/selection.js';

export function eventOut(rec, keep) {
  const e = {
    event_id: rec.event_id,
    sequence: rec.sequence,
    type: rec.type,
    observed_at: iso(rec.observed_ms),
    realm_time_ms: nonneg(rec.realm_time_ms),
    point: { x: r3(rec.point.x), y: r3(rec.point.y) },
    candidate_ids: rec.candidates.map((c) => c.target_id).filter((id, i, a) => keep.has(id) && a.indexOf(id) === i),
  };
  if (isInt(rec.pointer_id)) e.pointer_id = rec.pointer_id;
  if (rec.pointer_type) e.pointer_type = rec.pointer_type;
  if (isInt(rec.buttons)) e.buttons = rec.buttons;
  if (typeof rec.pointer_capture === 'boolean') e.pointer_capture = rec.pointer_capture;
  return e;
}
export function candidateOut(c, textNone) {
  const o = {
    target_id: c.target_id,
    path: clampPath(c.path),
    rect: c.rect,
    sample_point_ids: c.sample_point_ids.slice(0, 4096),
    occluded: !!c.occluded,
    summary: textNone ? { role: c.summary.role, state: c.summary.state } : c.summary,
    provenance: { geometry_source: c.geometry_source, runtime_source: c.runtime_source },
  };
  if (c.clip_rect) o.clip_rect = c.clip_rect;
  return o;
}
export async function snapshot(options) {
  options = options || {};
  const t0 = nPerfNow();
  const { radius, step, textNone, timeout } = captureOptions(options);
  // The attachment version the snapshot is budgeted for (out of range: 1, as other options).
  const version = [2, 3, 4].indexOf(options.attachment_version) >= 0 ? options.attachment_version : 1;
  // The children's windows of pointermoves are merged (issue 23: no move is pushed), so the pointer
  // and the recent events hold every move made before this call, in every realm. Without a point
  // the lattice is centred on the pointer, so the merge comes first; with one, the points are hit
  // tested at once, in the caller's task (the Host's overlay turns itself transparent to the hit
  // test only for that task), and the merge is awaited before the pointer is read.
  const explicit = !!(options.point && isFinite(options.point.x) && isFinite(options.point.y));
  const merging = mergeChildWindows(nDateNow() + timeout - ASSEMBLY_MARGIN_MS);
  if (!explicit) await merging;
  // The pointer this snapshot is about, fixed once the merge is done: a later merge (a separator
  // elsewhere) may bring a newer move while the points resolve, and the sampled neighbourhood and
  // `pointer` must describe the same one.
  let startPointer = explicit ? null : TOP.pointer;
  let center = null;
  if (explicit) center = { x: +options.point.x, y: +options.point.y };
  else if (startPointer) center = startPointer.point;
  let points = center ? latticePoints(center.x, center.y, radius, step) : [];
  const omissions = [];
  if (points.length > ROOT_BUDGET.points) {
    omissions.push({ reason: 'point-budget' });
    points = points.slice(0, ROOT_BUDGET.points);
  }
  safe(scanIframes);
  // Child queries end by the snapshot's start + the query timeout, less a margin for assembling the
  // snapshot after a hung child's timer fired, so the whole snapshot returns within the timeout + a small bound.
  const deadlineAt = nDateNow() - (nPerfNow() - t0) + timeout - ASSEMBLY_MARGIN_MS;
  const res = await resolvePoints(points, Object.assign({}, ROOT_BUDGET), deadlineAt, {
    privacy_text: textNone ? 'none' : 'safe',
  });
  if (explicit) {
    await merging;
    startPointer = TOP.pointer;
  }
  for (const o of res.omissions) omissions.push(o);
  ACCT.handled += 1;
  ACCT.last = Object.assign(
    { point_count: points.length, queries_used: res.queriesUsed, points_used: res.pointsUsed },
    res.accounting,
  );

  const createdMs = obsNow();
  pruneEvents(TOP.events, createdMs);
  // Candidate pool in priority order: sampled, pointer targets, focus target, recent-event targets.
  const pool = new Map();
  const prio = new Map();
  let order = 0;
  res.candidates.forEach((c, tid) => {
    pool.set(tid, c);
    prio.set(tid, 1000000 + c.sample_point_ids.length * 1000 - order++);
  });
  const addRef = (c, eventId, p) => {
    if (!c) return;
    let x = pool.get(c.target_id);
    if (!x) {
      x = Object.assign({}, c, { sample_point_ids: [] });
      pool.set(c.target_id, x);
      prio.set(c.target_id, p);
    } else prio.set(c.target_id, Math.max(prio.get(c.target_id), p));
    if (x.sample_point_ids.indexOf(eventId) < 0) x.sample_point_ids.push(eventId);
  };
  const ptr = startPointer && startPointer.observed_ms >= createdMs - EVENT_WINDOW_MS ? startPointer : null;
  if (ptr && !(ptr.binding && !bindingAlive(ptr.binding, ptr.realmId))) {
    for (const c of ptr.candidates) {
      const live = !ptr.binding ? refreshLocal(c) : c;
      addRef(live, ptr.event_id, 3000000);
    }
  }
  const fr = currentFocusRecord();
  if (fr && fr.candidate) addRef(fr.candidate, fr.f.event_id, 2000000);
  const evs = TOP.events.filter((e) => e.observed_ms <= createdMs);
  // Targets seen only by older recent events: at most EVENT_ONLY_TARGETS distinct ones, newest first;
  // other events keep only the candidate ids that are present.
  let eventOnly = 0;
  for (let i = evs.length - 1; i >= 0; i--) {
    const e = evs[i];
    if (e.binding && !bindingAlive(e.binding, e.realmId)) continue;
    for (const c of e.candidates) {
      if (!e.binding && !localAlive(c.target_id)) continue;
      if (pool.has(c.target_id)) addRef(c, e.event_id, 0);
      else if (eventOnly < EVENT_ONLY_TARGETS) {
        eventOnly++;
        addRef(c, e.event_id, 1000 - (evs.length - i));
      }
    }
  }
  // The current selection (or the selection-* omission replacing it), a separate object like focus.
  const sel = selectionOut(textNone);
  for (const o of sel.omissions) omissions.push(o);
  let ranked = Array.from(pool.keys()).sort((a, b) => prio.get(b) - prio.get(a));
  if (ranked.length > 128) {
    ranked = ranked.slice(0, 128);
    omissions.push({ reason: 'candidate-budget' });
  }
  const vp = viewportRect();
  const snapshotId = 'snap-' + randHex(8);
  const withRef = (o) => {
    if (!ACTIONS.enabled) return o;
    const ref = actionRefFor(o, snapshotId, HOST.hostInstanceId, textNone);
    if (ref) o.action_ref = ref;
    return o;
  };
  const build = (ids, events, extraOmissions) => {
    const presentEvents = new Set(events.map((e) => e.event_id));
    if (ptr) presentEvents.add(ptr.event_id);
    if (fr) presentEvents.add(fr.f.event_id);
    const pids = new Set(points.map((p) => p.point_id));
    let anyRedacted = false;
    const cands = ids
      .map((id) => {
        const c = pool.get(id);
        if (c.redacted) anyRedacted = true;
        const o = candidateOut(c, textNone);
        o.sample_point_ids = o.sample_point_ids.filter((s) => pids.has(s) || presentEvents.has(s));
        return withRef(o);
      })
      .filter((o) => o.sample_point_ids.length > 0);
    const keep2 = new Set(cands.map((c) => c.target_id));
    const snap = {
      schema: SCHEMA,
      snapshot_id: snapshotId,
      host_instance_id: HOST.hostInstanceId,
      mount_generation: HOST.mountGeneration,
      created_at: iso(createdMs),
      coordinate_space: {
        kind: 'host-viewport',
        width: r3(vp.width),
        height: r3(vp.height),
        device_pixel_ratio: W.devicePixelRatio > 0 && isFinite(W.devicePixelRatio) ? W.devicePixelRatio : 1,
      },
      capture: {
        radius_css_px: radius,
        grid_step_css_px: step,
        sampled_points: points.length,
        points: points,
        duration_ms: 0,
        complete: true,
      },
      recent_events: events.map((e) => eventOut(e, keep2)),
      candidates: cands,
      omissions: omissions
        .concat(
          extraOmissions,
          anyRedacted && !omissions.some((o) => o.reason === 'redacted') ? [{ reason: 'redacted' }] : [],
        )
        .slice(0, 128),
    };
    if (ptr) snap.pointer = eventOut(ptr, keep2);
    if (fr && fr.candidate) {
      const fo = {
        event_id: fr.f.event_id,
        sequence: fr.f.sequence,
        focused_at: iso(Math.min(fr.f.focused_ms, createdMs)),
        realm_time_ms: nonneg(fr.f.realm_time_ms),
        path: clampPath(fr.candidate.path),
        summary: textNone
          ? { role: fr.candidate.summary.role, state: fr.candidate.summary.state }
          : fr.candidate.summary,
      };
      if (keep2.has(fr.candidate.target_id)) fo.candidate_id = fr.candidate.target_id;
      snap.focus = fo;
    }
    if (sel.selection) snap.selection = sel.selection;
    const clamped = (c) => !!c && (c.clamped === true || c.path.length > 32);
    if (
      (cands.some((c) => clamped(pool.get(c.target_id))) || (fr && clamped(fr.candidate))) &&
      !snap.omissions.some((o) => o.reason === 'depth-limit') &&
      snap.omissions.length < 128
    ) {
      snap.omissions.push({ reason: 'depth-limit' }); // a path kept only its first and last 16 segments
    }
    snap.capture.complete = snap.omissions.length === 0;
    return snap;
  };
  let events = evs.slice();
  if (version !== 1) {
    const compact = trimCompact();
    compact.capture.duration_ms = r3(Math.max(0, nPerfNow() - t0));
    return compact;
  }
  const est = new Map();
  const estSize = (id) => {
    let v = est.get(id);
    if (v === undefined) {
      v = Math.ceil(safe(() => canonicalJson(withRef(candidateOut(pool.get(id), textNone))).length, 2000) * 1.25) + 2;
      est.set(id, v);
    }
    return v;
  };
  // First cut from estimates (cheap), then verify on the real bytes below.
  let trimmed = false;
  {
    let total = envelopeSize(build([], events, [])) + 64;
    let n = 0;
    while (n < ranked.length && total + estSize(ranked[n]) <= ENVELOPE_TARGET_BYTES) {
      total += estSize(ranked[n]);
      n++;
    }
    if (n < ranked.length) {
      ranked = ranked.slice(0, Math.max(1, n));
      trimmed = true;
    }
  }
  let snap = build(ranked, events, trimmed ? [{ reason: 'response-budget' }] : []);
  // Keep the whole v1 envelope comfortably inside 32 KiB: drop the lowest-priority candidates (as
  // many as the overflow needs, estimated from their own canonical size), then the older half of the
  // recent events, recording a response-budget omission.
  let size = envelopeSize(snap);
  let guard = 0;
  while (size > ENVELOPE_TARGET_BYTES && guard++ < 64) {
    const overflow = size - ENVELOPE_TARGET_BYTES;
    let n = ranked.length,
      acc = 0;
    while (n > 1 && acc < overflow) {
      n--;
      acc += estSize(ranked[n]);
    }
    if (n < ranked.length) ranked = ranked.slice(0, n);
    else if (events.length > 0) events = events.slice(Math.floor(events.length / 2) || 1);
    else break;
    snap = build(ranked, events, [{ reason: 'response-budget' }]);
    size = envelopeSize(snap);
  }
  snap.capture.duration_ms = r3(Math.max(0, nPerfNow() - t0));
  return snap;

  // A compact attachment is measured on its own encoding (paths shared through the dictionary, so
  // a candidate costs far less than its v1 form): the longest prefix of the ranked candidates that
  // fits, found on the real bytes by bisection (the size grows with every candidate kept), then
  // the older half of the recent events when even one candidate does not fit.
  function trimCompact() {
    let snap = build(ranked, events, []);
    if (fitsVersion(snap, version)) return snap;
    const cut = (n) => build(ranked.slice(0, n), events, [{ reason: 'response-budget' }]);
    for (let guard = 0; guard < 64; guard++) {
      if (ranked.length > 0 && fitsVersion(cut(1), version)) {
        let lo = 1,
          hi = ranked.length;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (fitsVersion(cut(mid), version)) lo = mid;
          else hi = mid - 1;
        }
        return cut(lo);
      }
      if (events.length === 0) break;
      events = events.slice(Math.floor(events.length / 2) || 1);
      if (fitsVersion(cut(ranked.length), version)) return cut(ranked.length);
    }
    return cut(Math.min(1, ranked.length));
  }
}
