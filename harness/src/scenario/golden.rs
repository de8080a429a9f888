//! The golden form of a scenario snapshot (issue 22): what `record --scenario` writes beside the
//! scenario and `replay` compares, keeping every part of a `wippy.attention.v1` snapshot that the
//! page's layout and the scenario's steps decide, and none that depends on how many pointermoves
//! Chromium delivered (it coalesces moves under load) or on when things happened.
//!
//! What is load-dependent, and so left out or rewritten (spec "What the Host observes"; the
//! runtime's pages/runtime/src/host/snapshot.js):
//! - `pointermove` items of `recent_events`. How many moves reach the page between two trusted
//!   positions, and where, varies with load; compaction ("consecutive sampled moves over the same
//!   ordered set of targets") turns that into a varying list. Discrete events (pointerdown,
//!   pointerup, click, touchstart, touchend) are one per input the scenario made: they stay, in order.
//! - The ids of those moves in candidates' `sample_point_ids`, and candidates that only a move found
//!   ("targets seen only by older recent events", up to 8): the targets the pointer crossed on
//!   its way depend on which positions were delivered. A candidate stays when a capture point, the
//!   latest `pointer`, the current `focus` or a kept discrete event found it.
//! - `sequence` (microseconds since the Host realm's time origin, so also when the run happened): the
//!   rank of the value among the kept pointer, focus and discrete events, so their order stays.
//! - What [`crate::golden::normalize`] rewrites for every golden: occurrence ids (`id-N` in order of
//!   first appearance, references kept), timestamps (`*_at`), `duration_ms`, `realm_time_ms`,
//!   digests, loopback ports.
//!
//! Everything else is kept verbatim: the capture lattice (every sample point and its coordinates),
//! the coordinate space, each kept candidate's full path (kinds, mount ids, labels, panel / page /
//! artifact ids, rects, transforms, frame origins), rect, clip rect, occlusion, summary (role, name,
//! text, value, state), provenance, action_ref and the capture points that found it, the pointer
//! (point, type, buttons, the candidates under it), focus, selection (text, paths, ranges), every
//! omission and `capture.complete`. Candidates keep the runtime's order (sampled by hits, pointer
//! and focus targets first), but the ones only a discrete event found are ordered by that event,
//! newest first: the runtime ranks them by their event's position in the list, which the dropped
//! moves shift.
//!
//! Bounds of the claim: a snapshot trimmed to the byte budget (`response-budget`) depends on the size
//! of its events, and a discrete event's target is among the runtime's 8 event-only targets only
//! while fewer than 8 targets seen by newer moves crowd it out; the shipped scenarios are far from
//! both. The form is still a valid `wippy.attention.v1` payload but for an `action_ref`'s
//! `path_digest`, a placeholder as every golden's digests are (`tests/goldens.rs` validates the
//! shipped ones).

use std::collections::{BTreeMap, BTreeSet};

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::host::Engine;

/// The event type the form drops from `recent_events`.
const MOVE: &str = "pointermove";

/// The golden file of snapshot `name` of the scenario at `scenario` in `engine`, beside it:
/// `<stem>.<name>.<engine>.golden.json`.
pub fn golden_file(scenario: &Path, name: &str, engine: Engine) -> PathBuf {
    let stem = scenario.file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    scenario.with_file_name(format!("{stem}.{name}.{engine}.golden.json"))
}

/// The golden form of `snapshot` (a v1 payload as the runtime reported it), not yet id-normalized.
pub fn golden_form(snapshot: &Value) -> Value {
    let mut v = snapshot.clone();
    let Some(root) = v.as_object_mut() else { return v };
    let str_of = |x: &Value, k: &str| x.get(k).and_then(Value::as_str).map(str::to_string);

    // Kept discrete events, oldest first as the runtime lists them.
    let events: Vec<Value> = root
        .get("recent_events")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(|e| e.get("type").and_then(Value::as_str) != Some(MOVE)).cloned().collect())
        .unwrap_or_default();
    let event_index: BTreeMap<String, usize> =
        events.iter().enumerate().filter_map(|(i, e)| Some((str_of(e, "event_id")?, i))).collect();

    // What may have found a kept candidate: a capture point, the pointer, the focus, a kept event.
    let mut anchors: BTreeSet<String> = root
        .get("capture")
        .and_then(|c| c.get("points"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|p| str_of(p, "point_id")).collect())
        .unwrap_or_default();
    for k in ["pointer", "focus"] {
        if let Some(id) = root.get(k).and_then(|x| str_of(x, "event_id")) {
            anchors.insert(id);
        }
    }
    let strong = anchors.clone();
    anchors.extend(event_index.keys().cloned());

    // Candidates: sample ids filtered to the anchors; those found by none of them dropped.
    let mut anchored = Vec::new();
    let mut by_event: Vec<(usize, usize, Value)> = Vec::new();
    if let Some(cands) = root.get("candidates").and_then(Value::as_array) {
        for (order, c) in cands.iter().enumerate() {
            let mut c = c.clone();
            let ids: Vec<Value> = c
                .get("sample_point_ids")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter(|s| s.as_str().is_some_and(|s| anchors.contains(s))).cloned().collect())
                .unwrap_or_default();
            if ids.is_empty() {
                continue;
            }
            let found_strongly = ids.iter().any(|s| s.as_str().is_some_and(|s| strong.contains(s)));
            let newest_event = ids.iter().filter_map(|s| s.as_str().and_then(|s| event_index.get(s))).max().copied();
            c["sample_point_ids"] = Value::Array(ids);
            match (found_strongly, newest_event) {
                (false, Some(e)) => by_event.push((e, order, c)),
                _ => anchored.push(c),
            }
        }
    }
    // Newest event first; one event's targets in the runtime's order.
    by_event.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    anchored.extend(by_event.into_iter().map(|(_, _, c)| c));
    let kept: BTreeSet<String> = anchored.iter().filter_map(|c| str_of(c, "target_id")).collect();
    root.insert("candidates".into(), Value::Array(anchored));

    // Events and the pointer name only kept candidates; focus names its candidate only if kept.
    let keep_ids = |e: &mut Value| {
        if let Some(ids) = e.get_mut("candidate_ids").and_then(Value::as_array_mut) {
            ids.retain(|s| s.as_str().is_some_and(|s| kept.contains(s)));
        }
    };
    let mut events = events;
    events.iter_mut().for_each(keep_ids);
    root.insert("recent_events".into(), Value::Array(events));
    if let Some(p) = root.get_mut("pointer") {
        keep_ids(p);
    }
    if let Some(f) = root.get_mut("focus").and_then(Value::as_object_mut) {
        if f.get("candidate_id").and_then(Value::as_str).is_some_and(|id| !kept.contains(id)) {
            f.remove("candidate_id");
        }
    }

    // Sequences as ranks among what is kept.
    let mut seqs: Vec<u64> = Vec::new();
    for k in ["pointer", "focus"] {
        seqs.extend(root.get(k).and_then(|x| x.get("sequence")).and_then(Value::as_u64));
    }
    if let Some(a) = root.get("recent_events").and_then(Value::as_array) {
        seqs.extend(a.iter().filter_map(|e| e.get("sequence").and_then(Value::as_u64)));
    }
    seqs.sort_unstable();
    seqs.dedup();
    let rank = |x: &mut Value| {
        if let Some(s) = x.get("sequence").and_then(Value::as_u64) {
            if let Ok(i) = seqs.binary_search(&s) {
                x["sequence"] = Value::from(i as u64 + 1);
            }
        }
    };
    for k in ["pointer", "focus"] {
        if let Some(x) = root.get_mut(k) {
            rank(x);
        }
    }
    if let Some(a) = root.get_mut("recent_events").and_then(Value::as_array_mut) {
        a.iter_mut().for_each(rank);
    }
    v
}

/// The text of a scenario golden: the [`golden_form`], normalized and pretty-printed by
/// [`crate::golden::render`], with a final newline.
pub fn golden_text(snapshot: &Value) -> String {
    crate::golden::render(&golden_form(snapshot)) + "\n"
}

/// The unified diff of a golden's text and this run's, headed by the golden's file.
pub fn diff(golden: &str, actual: &str, file: &Path) -> String {
    similar::TextDiff::from_lines(golden, actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{} (golden)", file.display()), "this run")
        .to_string()
}
