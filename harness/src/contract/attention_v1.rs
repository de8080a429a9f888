//! The `wippy.attention.v1` payload schema (`validate_attention` in the Session): strict objects,
//! paths and segments, frame origins, summaries and state, provenance, `action_ref` consistency
//! with its `path_digest`, sample-point and candidate references, omissions. The result names
//! the first failing stage, which the validator appends to
//! `invalid-attention-reconstruction-` for v2-v4 reconstructions.

use super::canonical::path_digest_matches;
use super::lua::*;
use serde_json::Value;
use std::collections::HashSet;

/// Where a payload failed, in the Session's stage vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Root,
    CoordinateSpace,
    Capture,
    CapturePoint,
    Pointer,
    Focus,
    Selection,
    RecentEvents,
    RecentEvent,
    Candidates,
    Candidate,
    ActionReference,
    SamplePointReference,
    PointerCandidateReference,
    EventCandidateReference,
    FocusCandidateReference,
    Omissions,
    Omission,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Root => "root",
            Stage::CoordinateSpace => "coordinate-space",
            Stage::Capture => "capture",
            Stage::CapturePoint => "capture-point",
            Stage::Pointer => "pointer",
            Stage::Focus => "focus",
            Stage::Selection => "selection",
            Stage::RecentEvents => "recent-events",
            Stage::RecentEvent => "recent-event",
            Stage::Candidates => "candidates",
            Stage::Candidate => "candidate",
            Stage::ActionReference => "action-reference",
            Stage::SamplePointReference => "sample-point-reference",
            Stage::PointerCandidateReference => "pointer-candidate-reference",
            Stage::EventCandidateReference => "event-candidate-reference",
            Stage::FocusCandidateReference => "focus-candidate-reference",
            Stage::Omissions => "omissions",
            Stage::Omission => "omission",
        }
    }

    pub const ALL: [Stage; 18] = [
        Stage::Root,
        Stage::CoordinateSpace,
        Stage::Capture,
        Stage::CapturePoint,
        Stage::Pointer,
        Stage::Focus,
        Stage::Selection,
        Stage::RecentEvents,
        Stage::RecentEvent,
        Stage::Candidates,
        Stage::Candidate,
        Stage::ActionReference,
        Stage::SamplePointReference,
        Stage::PointerCandidateReference,
        Stage::EventCandidateReference,
        Stage::FocusCandidateReference,
        Stage::Omissions,
        Stage::Omission,
    ];
}

pub const REALM_KINDS: [&str; 9] =
    ["host", "panel", "artifact", "page", "iframe", "web-fragment", "web-component", "shadow-root", "element"];
pub const EVENT_TYPES: [&str; 6] = ["pointermove", "pointerdown", "pointerup", "click", "touchstart", "touchend"];
pub const POINTER_TYPES: [&str; 4] = ["mouse", "pen", "touch", "unknown"];
pub const OMISSION_REASONS: [&str; 22] = [
    "candidate-budget",
    "capability-unavailable",
    "child-disconnected",
    "child-timeout",
    "clipped",
    "depth-limit",
    "excluded",
    "navigation",
    "non-invertible-transform",
    "occluded",
    "point-budget",
    "query-budget",
    "redacted",
    "response-budget",
    "runtime-metadata-unavailable",
    "selection-detached",
    "selection-excluded",
    "selection-redacted",
    "selection-unavailable",
    "stale-mount",
    "unsupported-transform",
    "unsupported-boundary",
];
pub const CAPTURE_CODES: [&str; 12] = [
    "byte-limit",
    "capture-unavailable",
    "dimension-limit",
    "disabled",
    "encode-failed",
    "permission-denied",
    "pixel-limit",
    "privacy-excluded",
    "redaction-applied",
    "stale-target",
    "store-failed",
    "timeout",
];
/// Members of a `wippy.attention.v1` root (`selection` is added for a v4 reconstruction).
pub const ROOT_KEYS: [&str; 12] = [
    "schema",
    "snapshot_id",
    "host_instance_id",
    "mount_generation",
    "created_at",
    "coordinate_space",
    "capture",
    "pointer",
    "focus",
    "recent_events",
    "candidates",
    "omissions",
];

/// Members of an observed event (`pointer` and each of `recent_events`).
pub const OBSERVED_EVENT_KEYS: [&str; 11] = [
    "event_id",
    "sequence",
    "type",
    "observed_at",
    "realm_time_ms",
    "point",
    "pointer_id",
    "pointer_type",
    "buttons",
    "pointer_capture",
    "candidate_ids",
];

/// Members of an expanded (v4) selection; the Session and the codec check them with different
/// value rules, but over the same members.
pub const SELECTION_KEYS: [&str; 9] =
    ["selection_id", "selected_at", "kind", "collapsed", "direction", "text", "anchor_path", "focus_path", "ranges"];

pub const SEGMENT_KEYS: [&str; 16] = [
    "kind",
    "mount_id",
    "generation",
    "label",
    "panel_id",
    "surface_id",
    "artifact_id",
    "page_id",
    "package_id",
    "tag_name",
    "selector_hint",
    "frame_origin",
    "rect",
    "clip_rect",
    "local_to_parent",
    "coordinate_quality",
];

/// Limits of the v1 schema.
pub const MAX_PATH_SEGMENTS: usize = 32;
pub const MAX_RECENT_EVENTS: usize = 32;
pub const MAX_CANDIDATES: usize = 128;
pub const MAX_POINTS: usize = 4096;
pub const MAX_OMISSIONS: usize = 128;
pub const MAX_CANDIDATE_IDS: usize = 128;

fn in_set(v: Option<&Value>, set: &[&str]) -> bool {
    as_str(v).is_some_and(|s| set.contains(&s))
}

/// `about:srcdoc`, or `^https?://[^/?#@]+$` of at most 2048 bytes (absent is fine).
pub fn is_frame_origin(v: Option<&Value>) -> bool {
    match v {
        None => true,
        Some(Value::String(s)) if s == "about:srcdoc" => true,
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 2048 => {
            let rest = s.strip_prefix("http://").or_else(|| s.strip_prefix("https://"));
            rest.is_some_and(|r| !r.is_empty() && !r.bytes().any(|b| matches!(b, b'/' | b'?' | b'#' | b'@')))
        }
        _ => false,
    }
}

pub fn is_point(v: Option<&Value>) -> bool {
    only_keys(v, &["x", "y"]) && is_number(get(v, "x")) && is_number(get(v, "y"))
}

pub fn is_query_point(v: Option<&Value>) -> bool {
    only_keys(v, &["point_id", "x", "y"])
        && is_string(get(v, "point_id"), 128, false)
        && is_number(get(v, "x"))
        && is_number(get(v, "y"))
}

pub fn is_rect(v: Option<&Value>) -> bool {
    only_keys(v, &["x", "y", "width", "height"])
        && is_number(get(v, "x"))
        && is_number(get(v, "y"))
        && num(get(v, "width")).is_some_and(|w| w >= 0.0)
        && num(get(v, "height")).is_some_and(|h| h >= 0.0)
}

fn same_rect(a: Option<&Value>, b: Option<&Value>) -> bool {
    ["x", "y", "width", "height"].iter().all(|k| num(get(a, k)) == num(get(b, k)))
}

pub fn is_action_ref(v: Option<&Value>) -> bool {
    only_keys(
        v,
        &["snapshot_id", "target_id", "host_instance_id", "mount_id", "generation", "path_digest", "rect", "label"],
    ) && is_string(get(v, "snapshot_id"), 128, false)
        && is_string(get(v, "target_id"), 128, false)
        && is_string(get(v, "host_instance_id"), 160, false)
        && is_string(get(v, "mount_id"), 160, false)
        && is_integer(get(v, "generation"), 0.0, MAX_SAFE_INTEGER)
        && is_digest(get(v, "path_digest"))
        && is_rect(get(v, "rect"))
        && opt_string(get(v, "label"), 256)
}

/// `^sha256:[a-f0-9]+$` and exactly 71 bytes.
pub fn is_digest(v: Option<&Value>) -> bool {
    as_str(v).is_some_and(|s| {
        s.len() == 71 && s.starts_with("sha256:") && s[7..].bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

pub fn is_transform(v: Option<&Value>) -> bool {
    only_keys(v, &["matrix", "convention", "direction"])
        && is_array(get(v, "matrix"))
        && items(get(v, "matrix")).len() == 16
        && as_str(get(v, "convention")) == Some("dommatrix-column-major")
        && as_str(get(v, "direction")) == Some("local-to-parent")
        && items(get(v, "matrix")).iter().all(|m| is_number(Some(m)))
}

/// One path segment (`is_path` body, also the codec's `v1_segment`).
pub fn is_segment(s: Option<&Value>) -> bool {
    only_keys(s, &SEGMENT_KEYS)
        && in_set(get(s, "kind"), &REALM_KINDS)
        && is_string(get(s, "mount_id"), 160, false)
        && is_integer(get(s, "generation"), 0.0, MAX_SAFE_INTEGER)
        && opt_string(get(s, "label"), 256)
        && opt_string(get(s, "panel_id"), 128)
        && opt_string(get(s, "surface_id"), 128)
        && opt_string(get(s, "artifact_id"), 128)
        && opt_string(get(s, "page_id"), 128)
        && opt_string(get(s, "package_id"), 256)
        && opt_string(get(s, "tag_name"), 128)
        && opt_string(get(s, "selector_hint"), 512)
        && is_frame_origin(get(s, "frame_origin"))
        && (get(s, "rect").is_none() || is_rect(get(s, "rect")))
        && (get(s, "clip_rect").is_none() || is_rect(get(s, "clip_rect")))
        && (get(s, "local_to_parent").is_none() || is_transform(get(s, "local_to_parent")))
        && (get(s, "coordinate_quality").is_none() || in_set(get(s, "coordinate_quality"), &["exact", "approximate"]))
}

/// `is_path`: 1..32 valid segments.
pub fn is_path(v: Option<&Value>) -> bool {
    bounded_array(v, MAX_PATH_SEGMENTS, 1) && items(v).iter().all(|s| is_segment(Some(s)))
}

fn is_mount_ref(v: Option<&Value>) -> bool {
    only_keys(v, &["mount_id", "generation"])
        && is_string(get(v, "mount_id"), 160, false)
        && is_integer(get(v, "generation"), 0.0, MAX_SAFE_INTEGER)
}

pub fn is_selection(v: Option<&Value>) -> bool {
    let ok = only_keys(v, &SELECTION_KEYS)
        && is_string(get(v, "selection_id"), 128, false)
        && is_timestamp(get(v, "selected_at"))
        && as_str(get(v, "kind")) == Some("text")
        && get(v, "collapsed") == Some(&Value::Bool(false))
        && in_set(get(v, "direction"), &["none", "forward", "backward"])
        && is_string(get(v, "text"), 1024, true)
        && is_path(get(v, "anchor_path"))
        && is_path(get(v, "focus_path"))
        && bounded_array(get(v, "ranges"), 4, 0);
    ok && items(get(v, "ranges")).iter().all(|r| {
        let r = Some(r);
        only_keys(r, &["rect", "coordinate_space"])
            && is_rect(get(r, "rect"))
            && (as_str(get(r, "coordinate_space")) == Some("host-viewport") || is_mount_ref(get(r, "coordinate_space")))
    })
}

pub fn is_summary(v: Option<&Value>) -> bool {
    if !only_keys(v, &["role", "name", "text", "value", "state"]) {
        return false;
    }
    for (k, max) in [("role", 256), ("name", 256), ("text", 1024), ("value", 256)] {
        if !opt_string(get(v, k), max) {
            return false;
        }
    }
    match get(v, "state") {
        None => true,
        // `type(state) ~= "table" or is_array(state)`: a non-empty object only.
        Some(Value::Object(m)) if !is_array(get(v, "state")) => {
            m.values().all(|x| matches!(x, Value::Bool(_) | Value::String(_) | Value::Null) || is_number(Some(x)))
        }
        _ => false,
    }
}

pub fn is_observed_event(v: Option<&Value>) -> bool {
    let ok = only_keys(v, &OBSERVED_EVENT_KEYS)
        && is_string(get(v, "event_id"), 128, false)
        && is_integer(get(v, "sequence"), 0.0, MAX_SAFE_INTEGER)
        && in_set(get(v, "type"), &EVENT_TYPES)
        && is_timestamp(get(v, "observed_at"))
        && num(get(v, "realm_time_ms")).is_some_and(|t| t >= 0.0)
        && is_point(get(v, "point"))
        && (get(v, "pointer_id").is_none() || is_integer(get(v, "pointer_id"), -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER))
        && (get(v, "pointer_type").is_none() || in_set(get(v, "pointer_type"), &POINTER_TYPES))
        && (get(v, "buttons").is_none() || is_integer(get(v, "buttons"), 0.0, MAX_SAFE_INTEGER))
        && (get(v, "pointer_capture").is_none() || matches!(get(v, "pointer_capture"), Some(Value::Bool(_))))
        && bounded_array(get(v, "candidate_ids"), MAX_CANDIDATE_IDS, 0);
    if !ok {
        return false;
    }
    let mut seen = HashSet::new();
    items(get(v, "candidate_ids"))
        .iter()
        .all(|id| is_string(Some(id), 128, false) && seen.insert(id.as_str().unwrap_or_default()))
}

pub fn is_omission(v: Option<&Value>) -> bool {
    only_keys(v, &["reason", "capture_code", "point_id", "mount_id", "detail"])
        && in_set(get(v, "reason"), &OMISSION_REASONS)
        && (get(v, "capture_code").is_none() || in_set(get(v, "capture_code"), &CAPTURE_CODES))
        && (get(v, "point_id").is_none() || is_string(get(v, "point_id"), 128, false))
        && (get(v, "mount_id").is_none() || is_string(get(v, "mount_id"), 160, false))
        && (get(v, "detail").is_none() || is_string(get(v, "detail"), 512, false))
}

pub fn is_provenance(v: Option<&Value>) -> bool {
    only_keys(v, &["geometry_source", "runtime_source"])
        && in_set(get(v, "geometry_source"), &["document", "physical-host"])
        && in_set(get(v, "runtime_source"), &["document", "iframe-realm", "fragment-realm"])
}

/// [`validate_attention`] of a typed snapshot built or decoded in Rust, as the payload it
/// serializes to (optional members left out); a v4 reconstruction may carry `selection`. What the
/// runtime reported is validated as the JSON it sent ([`crate::attention::Reported::json`]), not
/// through this re-serialization.
pub fn validate_snapshot(snapshot: &crate::attention::Snapshot) -> Result<(), Stage> {
    validate_attention(&snapshot.to_value(), snapshot.selection.is_some())
}

/// `validate_attention(payload, allow_selection)`: `Ok` or the first failing [`Stage`].
/// `allow_selection` is true only for a v4 reconstruction.
pub fn validate_attention(payload: &Value, allow_selection: bool) -> Result<(), Stage> {
    let p = Some(payload);
    let mut root_keys = ROOT_KEYS.to_vec();
    if allow_selection {
        root_keys.push("selection");
    }
    if !(only_keys(p, &root_keys)
        && as_str(get(p, "schema")) == Some(crate::attention::SCHEMA_V1)
        && is_string(get(p, "snapshot_id"), 128, false)
        && is_string(get(p, "host_instance_id"), 160, false)
        && is_integer(get(p, "mount_generation"), 0.0, MAX_SAFE_INTEGER)
        && is_timestamp(get(p, "created_at")))
    {
        return Err(Stage::Root);
    }
    let space = get(p, "coordinate_space");
    if !(only_keys(space, &["kind", "width", "height", "device_pixel_ratio"])
        && as_str(get(space, "kind")) == Some("host-viewport")
        && num(get(space, "width")).is_some_and(|w| w >= 0.0)
        && num(get(space, "height")).is_some_and(|h| h >= 0.0)
        && num(get(space, "device_pixel_ratio")).is_some_and(|d| d > 0.0))
    {
        return Err(Stage::CoordinateSpace);
    }
    let capture = get(p, "capture");
    let sampled = num(get(capture, "sampled_points"));
    if !(only_keys(
        capture,
        &["radius_css_px", "grid_step_css_px", "sampled_points", "points", "duration_ms", "complete"],
    ) && num(get(capture, "radius_css_px")).is_some_and(|r| (0.0..=100.0).contains(&r))
        && num(get(capture, "grid_step_css_px")).is_some_and(|s| s > 0.0 && s <= 100.0)
        && is_integer(get(capture, "sampled_points"), 0.0, MAX_POINTS as f64)
        && is_array(get(capture, "points"))
        && Some(items(get(capture, "points")).len() as f64) == sampled
        && items(get(capture, "points")).len() <= MAX_POINTS
        && num(get(capture, "duration_ms")).is_some_and(|d| d >= 0.0)
        && matches!(get(capture, "complete"), Some(Value::Bool(_))))
    {
        return Err(Stage::Capture);
    }
    let mut point_ids: HashSet<&str> = HashSet::new();
    for point in items(get(capture, "points")) {
        if !is_query_point(Some(point)) || !point_ids.insert(point["point_id"].as_str().unwrap_or_default()) {
            return Err(Stage::CapturePoint);
        }
    }
    let pointer = get(p, "pointer");
    if pointer.is_some() && !is_observed_event(pointer) {
        return Err(Stage::Pointer);
    }
    let focus = get(p, "focus");
    if focus.is_some()
        && !(only_keys(
            focus,
            &["event_id", "sequence", "focused_at", "realm_time_ms", "candidate_id", "path", "summary"],
        ) && is_string(get(focus, "event_id"), 128, false)
            && is_integer(get(focus, "sequence"), 0.0, MAX_SAFE_INTEGER)
            && is_timestamp(get(focus, "focused_at"))
            && num(get(focus, "realm_time_ms")).is_some_and(|t| t >= 0.0)
            && opt_string(get(focus, "candidate_id"), 128)
            && is_path(get(focus, "path"))
            && is_summary(get(focus, "summary")))
    {
        return Err(Stage::Focus);
    }
    let selection = get(p, "selection");
    if selection.is_some() && (!allow_selection || !is_selection(selection)) {
        return Err(Stage::Selection);
    }
    let events = get(p, "recent_events");
    if !bounded_array(events, MAX_RECENT_EVENTS, 0) {
        return Err(Stage::RecentEvents);
    }
    if !items(events).iter().all(|e| is_observed_event(Some(e))) {
        return Err(Stage::RecentEvent);
    }
    let mut observation_ids: HashSet<&str> = HashSet::new();
    for o in [pointer, focus].into_iter().flatten().chain(items(events).iter()) {
        if let Some(id) = as_str(get(Some(o), "event_id")) {
            observation_ids.insert(id);
        }
    }
    let candidates = get(p, "candidates");
    if !bounded_array(candidates, MAX_CANDIDATES, 0) {
        return Err(Stage::Candidates);
    }
    let mut candidate_ids: HashSet<&str> = HashSet::new();
    for c in items(candidates) {
        let c = Some(c);
        let sample_ids = get(c, "sample_point_ids");
        if !(only_keys(
            c,
            &[
                "target_id",
                "path",
                "rect",
                "clip_rect",
                "sample_point_ids",
                "occluded",
                "summary",
                "provenance",
                "action_ref",
            ],
        ) && is_string(get(c, "target_id"), 128, false)
            && is_path(get(c, "path"))
            && is_rect(get(c, "rect"))
            && (get(c, "clip_rect").is_none() || is_rect(get(c, "clip_rect")))
            && bounded_array(sample_ids, MAX_POINTS, 1)
            && matches!(get(c, "occluded"), Some(Value::Bool(_)))
            && is_summary(get(c, "summary"))
            && (get(c, "provenance").is_none() || is_provenance(get(c, "provenance")))
            && (get(c, "action_ref").is_none() || is_action_ref(get(c, "action_ref"))))
        {
            return Err(Stage::Candidate);
        }
        if let Some(action) = get(c, "action_ref") {
            let action = Some(action);
            let path = get(c, "path");
            let leaf = items(path).last();
            if !(lua_eq(get(action, "snapshot_id"), get(p, "snapshot_id"))
                && lua_eq(get(action, "target_id"), get(c, "target_id"))
                && lua_eq(get(action, "host_instance_id"), get(p, "host_instance_id"))
                && lua_eq(get(action, "mount_id"), get(leaf, "mount_id"))
                && lua_eq(get(action, "generation"), get(leaf, "generation"))
                && same_rect(get(action, "rect"), get(c, "rect"))
                && path_digest_matches(
                    path.unwrap_or(&Value::Null),
                    as_str(get(action, "path_digest")).unwrap_or_default(),
                ))
            {
                return Err(Stage::ActionReference);
            }
        }
        candidate_ids.insert(as_str(get(c, "target_id")).unwrap_or_default());
        let mut seen: HashSet<&str> = HashSet::new();
        for id in items(sample_ids) {
            let ok = is_string(Some(id), 128, false) && {
                let s = id.as_str().unwrap_or_default();
                seen.insert(s) && (point_ids.contains(s) || observation_ids.contains(s))
            };
            if !ok {
                return Err(Stage::SamplePointReference);
            }
        }
    }
    if let Some(ptr) = pointer {
        if !items(get(Some(ptr), "candidate_ids"))
            .iter()
            .all(|id| candidate_ids.contains(id.as_str().unwrap_or_default()))
        {
            return Err(Stage::PointerCandidateReference);
        }
    }
    for e in items(events) {
        if !items(get(Some(e), "candidate_ids"))
            .iter()
            .all(|id| candidate_ids.contains(id.as_str().unwrap_or_default()))
        {
            return Err(Stage::EventCandidateReference);
        }
    }
    if let Some(id) = as_str(get(focus, "candidate_id")) {
        if !candidate_ids.contains(id) {
            return Err(Stage::FocusCandidateReference);
        }
    }
    let omissions = get(p, "omissions");
    if !bounded_array(omissions, MAX_OMISSIONS, 0) {
        return Err(Stage::Omissions);
    }
    if !items(omissions).iter().all(|o| is_omission(Some(o))) {
        return Err(Stage::Omission);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{Envelope, OmissionReason};

    const FIXTURE: &str = include_str!("../../../fixtures/contract/spec-v1-envelope.json");

    #[test]
    fn the_spec_fixtures_typed_snapshot_passes_the_snapshot_rules() {
        let arr: Vec<Envelope> = serde_json::from_str(FIXTURE).unwrap();
        let snap = arr[0].snapshot().unwrap();
        assert_eq!(validate_snapshot(&snap), Ok(()));
    }

    #[test]
    fn every_omission_reason_the_validator_knows_is_a_model_reason_with_the_same_wire_name() {
        let all: Vec<OmissionReason> = serde_json::from_value(serde_json::json!(OMISSION_REASONS)).unwrap();
        assert_eq!(all.len(), OMISSION_REASONS.len());
        for r in all {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }
}
