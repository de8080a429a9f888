//! Compact `wippy.attention` payloads v2, v3 and v4: encoding a v1 snapshot into them and
//! expanding them back to v1, with the Framework codec's limits, first-use dictionary order and
//! incremental byte accounting (`context_attention_codec_v2.lua` / `_v34.lua`).
//!
//! - v2: a shared `path_dictionary` of full segment objects; candidates carry `path_indices` and
//!   `sample_refs` (event id string, point index, or `[start, count]` range); the focus carries
//!   `path_indices`; the capture carries either `points` or a `css-euclidean-grid.v1`
//!   `point_encoding` (lattice + `overrides` + `additional_points`).
//! - v3: the same with packed dictionary tuples `[kind, mount_id, generation, attrs]`, rects as
//!   `[x, y, w, h]` and `local_to_parent` as the bare 16-number matrix.
//! - v4: v3 plus an optional `selection` with `anchor_path_indices` / `focus_path_indices`.
//!
//! `expand(encode(x))` reproduces `x` byte for byte in canonical form. The encoder uses
//! `point_encoding` when the capture's grid settings allow a lattice and there are at least as
//! many points as lattice positions, with `overrides` for points that differ from the default
//! lattice point and `additional_points` for the rest, unless plain `points` is smaller. The
//! lattice origin is taken from the point at the lattice centre. Dictionary entries are
//! deduplicated by canonical encoding and numbered in first-use order (candidates, focus, then
//! the v4 selection's anchor and focus paths); sample ids that name capture points become
//! indices, runs of three or more consecutive indices become `[start, count]` ranges, and
//! observation ids stay strings.
//!
//! Reference note: `schemas.md` section 6 says a v4 `selection` in the legacy form (full
//! `anchor_path` / `focus_path`) "is passed through unchanged". In the Framework code the
//! dictionary-usage check runs first and requires `anchor_path_indices` / `focus_path_indices`,
//! so such a selection is rejected. We follow the code (the spec says nothing on it).

use super::attention_v1::{is_segment, ROOT_KEYS, SEGMENT_KEYS, SELECTION_KEYS};
use super::canonical::{canonical_json, lua_json_encode, path_digest_matches};
use super::lua::*;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};

/// `ATTENTION_V2_LIMITS`.
pub mod limits {
    pub const DICTIONARY: usize = 4128;
    pub const PATH: usize = 32;
    pub const CANDIDATES: usize = 128;
    pub const POINTS: usize = 4096;
    pub const EVENTS: usize = 32;
    pub const OMISSIONS: usize = 128;
    pub const MEMBERSHIPS: usize = 4096;
    pub const TOTAL_MEMBERSHIPS: usize = 16384;
    pub const EXPANDED_BYTES: usize = 262_144;
    pub const SELECTION_RANGES: usize = 4;
    pub const SELECTION_TEXT_BYTES: usize = 1024;
}

pub const POINT_ENCODING_KIND: &str = "css-euclidean-grid.v1";

/// Why an expansion failed; the text mirrors the Framework codec's messages. The Session maps
/// every one of them to `invalid-attention-expansion`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("invalid compressed Attention context{}", .0.map(|s| format!(": {s}")).unwrap_or_default())]
    Invalid(Option<&'static str>),
    #[error("Attention expansion byte budget exceeded")]
    Budget,
    #[error("invalid compact Attention selection")]
    Selection,
    #[error("expanded Attention context exceeds the byte limit")]
    ExpandedTooLarge,
}

/// Why a v1 snapshot cannot be written in a compact version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("unsupported compact version {0} (2, 3 or 4)")]
    Version(u64),
    #[error("payload is not a wippy.attention.v1 snapshot: {0}")]
    NotV1(String),
    #[error("snapshot cannot be expressed in v{version}: {reason}")]
    Inexpressible { version: u64, reason: String },
}

/// Expand a compact payload of `version` (2, 3, 4) within `remaining` budget bytes (capped at
/// 262,144). Returns the v1 payload and its canonical byte length. Version 1 is returned as is.
pub fn expand(version: u64, payload: &Value, remaining: Option<usize>) -> Result<(Value, usize), ExpandError> {
    match version {
        1 => {
            let c = canonical_json(payload).map_err(|_| ExpandError::Invalid(None))?;
            Ok((payload.clone(), c.len()))
        }
        2 => expand_v2(payload, remaining),
        3 => expand_v3(payload, remaining),
        4 => expand_v4(payload, remaining),
        _ => Err(ExpandError::Invalid(None)),
    }
}

/// The version a payload's `schema` member names (`wippy.attention.v<N>`).
pub fn schema_version(payload: &Value) -> Option<u64> {
    payload.get("schema")?.as_str()?.strip_prefix("wippy.attention.v")?.parse().ok()
}

fn copy_without(v: Option<&Value>, excluded: &[&str]) -> Map<String, Value> {
    as_map(v)
        .map(|m| {
            m.iter()
                .filter(|(k, x)| !excluded.contains(&k.as_str()) && !x.is_null())
                .map(|(k, x)| (k.clone(), x.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn finite(v: Option<&Value>) -> bool {
    is_number(v)
}

fn integer(v: Option<&Value>, min: f64) -> bool {
    num(v).is_some_and(|f| f.fract() == 0.0 && f >= min)
}

fn codec_rect(v: Option<&Value>) -> bool {
    super::attention_v1::is_rect(v)
}

fn canon_len(v: &Value) -> Option<usize> {
    canonical_json(v).ok().map(|s| s.len())
}

/// `expand_attention_v2`.
pub fn expand_v2(payload: &Value, remaining: Option<usize>) -> Result<(Value, usize), ExpandError> {
    use limits::*;
    let p = Some(payload);
    let invalid = ExpandError::Invalid(None);
    let mut root_keys = ROOT_KEYS.to_vec();
    root_keys.push("path_dictionary");
    if !(only_keys(p, &root_keys)
        && as_str(get(p, "schema")) == Some("wippy.attention.v2")
        && is_string(get(p, "snapshot_id"), 128, false)
        && is_string(get(p, "host_instance_id"), 160, false)
        && bounded_array(get(p, "path_dictionary"), DICTIONARY, 0)
        && bounded_array(get(p, "candidates"), CANDIDATES, 0)
        && bounded_array(get(p, "recent_events"), EVENTS, 0)
        && bounded_array(get(p, "omissions"), OMISSIONS, 0)
        && canonical_json(payload).is_ok())
    {
        return Err(invalid);
    }
    let invalid = ExpandError::Invalid(Some("capture"));
    let capture = get(p, "capture");
    if !(only_keys(
        capture,
        &["radius_css_px", "grid_step_css_px", "sampled_points", "points", "point_encoding", "duration_ms", "complete"],
    ) && num(get(capture, "radius_css_px")).is_some_and(|r| (0.0..=100.0).contains(&r))
        && num(get(capture, "grid_step_css_px")).is_some_and(|s| (1.0..=100.0).contains(&s))
        && integer(get(capture, "sampled_points"), 0.0)
        && num(get(capture, "sampled_points")).is_some_and(|n| n <= POINTS as f64)
        && get(capture, "points").is_none() != get(capture, "point_encoding").is_none())
    {
        return Err(invalid);
    }
    let invalid = ExpandError::Invalid(Some("observations"));
    let mut observations: HashSet<String> = HashSet::new();
    let mut observation = |event: Option<&Value>, focus: bool| -> bool {
        if !matches!(event, Some(Value::Object(_)) | Some(Value::Array(_)))
            || !is_string(get(event, "event_id"), 128, false)
        {
            return false;
        }
        if !focus && !bounded_array(get(event, "candidate_ids"), CANDIDATES, 0) {
            return false;
        }
        observations.insert(as_str(get(event, "event_id")).unwrap_or_default().to_string());
        true
    };
    if get(p, "pointer").is_some() && !observation(get(p, "pointer"), false) {
        return Err(invalid);
    }
    if get(p, "focus").is_some() && !observation(get(p, "focus"), true) {
        return Err(invalid);
    }
    for e in items(get(p, "recent_events")) {
        if !observation(Some(e), false) {
            return Err(invalid);
        }
    }

    let mut output = copy_without(p, &["path_dictionary", "candidates", "focus", "capture"]);
    output.insert("schema".into(), json!("wippy.attention.v1"));
    output.insert("candidates".into(), json!([]));
    let mut out_capture = copy_without(capture, &["point_encoding", "points"]);
    out_capture.insert("points".into(), json!([]));
    output.insert("capture".into(), Value::Object(out_capture));
    let focus = get(p, "focus");
    if focus.is_some() {
        if get(focus, "path").is_some() {
            return Err(invalid);
        }
        let mut f = copy_without(focus, &["path_indices"]);
        f.insert("path".into(), json!([]));
        output.insert("focus".into(), Value::Object(f));
    }
    let base = canon_len(&Value::Object(output.clone())).ok_or(invalid.clone())?;
    let budget = remaining.unwrap_or(EXPANDED_BYTES).min(EXPANDED_BYTES);
    let mut used = base;
    if used > budget {
        return Err(ExpandError::Budget);
    }
    let charge = |bytes: usize, used: &mut usize| -> bool {
        if bytes > budget - *used {
            return false;
        }
        *used += bytes;
        true
    };

    // Points.
    let invalid = ExpandError::Invalid(Some("points"));
    let mut points: Vec<Value> = Vec::new();
    let mut point_ids: HashSet<String> = HashSet::new();
    let mut append_point = |point: &Value, points: &mut Vec<Value>, used: &mut usize| -> bool {
        let pt = Some(point);
        if !(only_keys(pt, &["point_id", "x", "y"])
            && is_string(get(pt, "point_id"), 128, false)
            && finite(get(pt, "x"))
            && finite(get(pt, "y")))
        {
            return false;
        }
        let id = as_str(get(pt, "point_id")).unwrap_or_default();
        if point_ids.contains(id) || points.len() >= POINTS || observations.contains(id) {
            return false;
        }
        let Some(len) = canon_len(point) else { return false };
        if !charge(len + usize::from(!points.is_empty()), used) {
            return false;
        }
        point_ids.insert(id.to_string());
        points.push(point.clone());
        true
    };
    if let Some(raw) = get(capture, "points") {
        if !bounded_array(Some(raw), POINTS, 0) {
            return Err(invalid);
        }
        for point in items(Some(raw)) {
            if !append_point(point, &mut points, &mut used) {
                return Err(invalid);
            }
        }
    } else {
        let enc = get(capture, "point_encoding");
        let origin = get(enc, "origin");
        if !(only_keys(enc, &["kind", "origin", "overrides", "additional_points"])
            && as_str(get(enc, "kind")) == Some(POINT_ENCODING_KIND)
            && only_keys(origin, &["x", "y"])
            && finite(get(origin, "x"))
            && finite(get(origin, "y"))
            && (get(enc, "overrides").is_none() || bounded_array(get(enc, "overrides"), POINTS, 0))
            && (get(enc, "additional_points").is_none() || bounded_array(get(enc, "additional_points"), POINTS, 0)))
        {
            return Err(invalid);
        }
        let radius = num(get(capture, "radius_css_px")).unwrap_or(0.0);
        let step = num(get(capture, "grid_step_css_px")).unwrap_or(1.0);
        let extent = (radius / step).floor() as i64;
        if ((2 * extent + 1) as f64).powi(2) > POINTS as f64 {
            return Err(invalid);
        }
        let mut overrides: HashMap<u64, Value> = HashMap::new();
        for o in items(get(enc, "overrides")) {
            let o = Some(o);
            if !(only_keys(o, &["index", "point"]) && integer(get(o, "index"), 0.0)) {
                return Err(invalid);
            }
            let index = num(get(o, "index")).unwrap_or(0.0);
            let pt = get(o, "point");
            if index >= POINTS as f64
                || overrides.contains_key(&(index as u64))
                || !(only_keys(pt, &["point_id", "x", "y"])
                    && is_string(get(pt, "point_id"), 128, false)
                    && finite(get(pt, "x"))
                    && finite(get(pt, "y")))
            {
                return Err(invalid);
            }
            overrides.insert(index as u64, pt.cloned().unwrap_or(Value::Null));
        }
        let (ox, oy) = (num(get(origin, "x")).unwrap_or(0.0), num(get(origin, "y")).unwrap_or(0.0));
        for (count, (dx, dy)) in (0u64..).zip(lattice(radius, step)) {
            let point = overrides.remove(&count).unwrap_or_else(
                || json!({"point_id": format!("p{count}"), "x": number(ox + dx), "y": number(oy + dy)}),
            );
            if !append_point(&point, &mut points, &mut used) {
                return Err(invalid);
            }
        }
        if !overrides.is_empty() {
            return Err(invalid);
        }
        for point in items(get(enc, "additional_points")) {
            if !append_point(point, &mut points, &mut used) {
                return Err(invalid);
            }
        }
    }
    if Some(points.len() as f64) != num(get(capture, "sampled_points")) {
        return Err(invalid);
    }

    // Dictionary.
    let invalid = ExpandError::Invalid(Some("dictionary"));
    let dictionary = items(get(p, "path_dictionary"));
    let mut encoded_segments: Vec<usize> = Vec::with_capacity(dictionary.len());
    let mut canonical_seen: HashSet<String> = HashSet::new();
    for segment in dictionary {
        let s = Some(segment);
        if !(only_keys(s, &SEGMENT_KEYS)
            && is_string(get(s, "kind"), 32, false)
            && is_string(get(s, "mount_id"), 160, false)
            && integer(get(s, "generation"), 0.0))
        {
            return Err(invalid);
        }
        let Ok(encoded) = canonical_json(segment) else { return Err(invalid) };
        encoded_segments.push(encoded.len());
        if !canonical_seen.insert(encoded) {
            return Err(invalid);
        }
    }
    let mut used_segments = vec![false; dictionary.len()];
    let mut next_segment = 0usize;
    let mut expand_path = |indices: Option<&Value>, used: &mut usize| -> Option<Vec<Value>> {
        if !bounded_array(indices, PATH, 1) {
            return None;
        }
        let mut path = Vec::new();
        for index in items(indices) {
            if !integer(Some(index), 0.0) || index.as_f64()? >= dictionary.len() as f64 {
                return None;
            }
            let key = index.as_f64()? as usize;
            if !used_segments[key] {
                if key != next_segment {
                    return None;
                }
                used_segments[key] = true;
                next_segment += 1;
            }
            if !charge(encoded_segments[key] + usize::from(!path.is_empty()), used) {
                return None;
            }
            path.push(dictionary[key].clone());
        }
        Some(path)
    };

    // Candidates.
    let invalid = ExpandError::Invalid(Some("candidates"));
    let mut candidate_ids: HashSet<String> = HashSet::new();
    let mut memberships = 0usize;
    let mut out_candidates: Vec<Value> = Vec::new();
    for candidate in items(get(p, "candidates")) {
        let c = Some(candidate);
        if !(only_keys(
            c,
            &[
                "target_id",
                "path_indices",
                "rect",
                "clip_rect",
                "sample_refs",
                "occluded",
                "summary",
                "provenance",
                "action_ref",
            ],
        ) && is_string(get(c, "target_id"), 128, false)
            && !candidate_ids.contains(as_str(get(c, "target_id")).unwrap_or_default())
            && bounded_array(get(c, "sample_refs"), MEMBERSHIPS, 1)
            && is_table(get(c, "summary"))
            && codec_rect(get(c, "rect")))
        {
            return Err(invalid);
        }
        let mut expanded = copy_without(c, &["path_indices", "sample_refs"]);
        expanded.insert("path".into(), json!([]));
        expanded.insert("sample_point_ids".into(), json!([]));
        let Some(base_len) = canon_len(&Value::Object(expanded.clone())) else { return Err(invalid) };
        if !charge(base_len + usize::from(!out_candidates.is_empty()), &mut used) {
            return Err(invalid);
        }
        let Some(path) = expand_path(get(c, "path_indices"), &mut used) else { return Err(invalid) };
        let mut ids: Vec<Value> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut append_sample = |id: &str, ids: &mut Vec<Value>, used: &mut usize, memberships: &mut usize| -> bool {
            if seen.contains(id) || ids.len() >= MEMBERSHIPS || *memberships >= TOTAL_MEMBERSHIPS {
                return false;
            }
            let Ok(enc) = lua_json_encode(&Value::String(id.to_string())) else { return false };
            if !charge(enc.len() + usize::from(!ids.is_empty()), used) {
                return false;
            }
            ids.push(Value::String(id.to_string()));
            seen.insert(id.to_string());
            *memberships += 1;
            true
        };
        for r in items(get(c, "sample_refs")) {
            let ok = match r {
                Value::String(s) => observations.contains(s) && append_sample(s, &mut ids, &mut used, &mut memberships),
                Value::Number(_) => {
                    integer(Some(r), 0.0)
                        && r.as_f64().is_some_and(|f| f < points.len() as f64)
                        && append_sample(
                            points[r.as_f64().unwrap_or(0.0) as usize]["point_id"].as_str().unwrap_or_default(),
                            &mut ids,
                            &mut used,
                            &mut memberships,
                        )
                }
                _ => {
                    let rr = Some(r);
                    if !(bounded_array(rr, 2, 2) && integer(items(rr).first(), 0.0) && integer(items(rr).get(1), 1.0)) {
                        false
                    } else {
                        let start = items(rr)[0].as_f64().unwrap_or(0.0);
                        let count = items(rr)[1].as_f64().unwrap_or(0.0);
                        if start + count > points.len() as f64
                            || count > (MEMBERSHIPS - ids.len()) as f64
                            || count > (TOTAL_MEMBERSHIPS - memberships) as f64
                        {
                            false
                        } else {
                            let (start, count) = (start as usize, count as usize);
                            (start..start + count).all(|i| {
                                append_sample(
                                    points[i]["point_id"].as_str().unwrap_or_default(),
                                    &mut ids,
                                    &mut used,
                                    &mut memberships,
                                )
                            })
                        }
                    }
                }
            };
            if !ok {
                return Err(invalid);
            }
        }
        if let Some(action) = get(c, "action_ref") {
            let a = Some(action);
            let leaf = path.last();
            let path_value = Value::Array(path.clone());
            if !(is_table(a)
                && lua_eq(get(a, "snapshot_id"), get(p, "snapshot_id"))
                && lua_eq(get(a, "target_id"), get(c, "target_id"))
                && lua_eq(get(a, "host_instance_id"), get(p, "host_instance_id"))
                && lua_eq(get(a, "mount_id"), get(leaf, "mount_id"))
                && lua_eq(get(a, "generation"), get(leaf, "generation"))
                && codec_rect(get(a, "rect"))
                && get(a, "rect").and_then(|r| canonical_json(r).ok())
                    == get(c, "rect").and_then(|r| canonical_json(r).ok())
                && path_digest_matches(&path_value, as_str(get(a, "path_digest")).unwrap_or_default()))
            {
                return Err(invalid);
            }
        }
        expanded.insert("path".into(), Value::Array(path));
        expanded.insert("sample_point_ids".into(), Value::Array(ids));
        candidate_ids.insert(as_str(get(c, "target_id")).unwrap_or_default().to_string());
        out_candidates.push(Value::Object(expanded));
    }
    output.insert("candidates".into(), Value::Array(out_candidates));

    let invalid = ExpandError::Invalid(Some("focus"));
    if focus.is_some() {
        let Some(path) = expand_path(get(focus, "path_indices"), &mut used) else { return Err(invalid) };
        let f = output.get_mut("focus").and_then(Value::as_object_mut).expect("focus copied");
        f.insert("path".into(), Value::Array(path));
        if let Some(id) = f.get("candidate_id") {
            if !id.as_str().is_some_and(|s| candidate_ids.contains(s)) {
                return Err(invalid);
            }
        }
    }
    if next_segment != dictionary.len() {
        return Err(invalid);
    }
    let invalid = ExpandError::Invalid(Some("links"));
    let linked = |event: Option<&Value>| {
        items(get(event, "candidate_ids")).iter().all(|id| id.as_str().is_some_and(|s| candidate_ids.contains(s)))
    };
    if get(p, "pointer").is_some() && !linked(get(p, "pointer")) {
        return Err(invalid);
    }
    if !items(get(p, "recent_events")).iter().all(|e| linked(Some(e))) {
        return Err(invalid);
    }
    output
        .get_mut("capture")
        .and_then(Value::as_object_mut)
        .expect("capture")
        .insert("points".into(), Value::Array(points));
    let output = Value::Object(output);
    let invalid = ExpandError::Invalid(Some("accounting"));
    match canon_len(&output) {
        Some(n) if n == used && n <= budget => Ok((output, used)),
        _ => Err(invalid),
    }
}

/// Lattice offsets of `css-euclidean-grid.v1`: rows `y = -extent..=extent` (outer), columns
/// `x = -extent..=extent` (inner), kept when `dx² + dy² <= r²`.
pub fn lattice(radius: f64, step: f64) -> Vec<(f64, f64)> {
    let extent = (radius / step).floor() as i64;
    let mut out = Vec::new();
    for y in -extent..=extent {
        for x in -extent..=extent {
            let (dx, dy) = (x as f64 * step, y as f64 * step);
            if dx * dx + dy * dy <= radius * radius {
                out.push((dx, dy));
            }
        }
    }
    out
}

fn fixed_tuple(v: Option<&Value>, size: usize) -> Option<&[Value]> {
    match v {
        Some(Value::Array(a)) if a.len() == size && a.iter().all(|x| !x.is_null()) => Some(a),
        _ => None,
    }
}

fn v3_rect(v: Option<&Value>) -> Option<Value> {
    let t = fixed_tuple(v, 4)?;
    let f: Vec<f64> = t.iter().map(|x| num(Some(x))).collect::<Option<_>>()?;
    if f[2] < 0.0 || f[3] < 0.0 {
        return None;
    }
    Some(json!({"x": t[0], "y": t[1], "width": t[2], "height": t[3]}))
}

fn v3_transform(v: Option<&Value>) -> Option<Value> {
    let t = fixed_tuple(v, 16)?;
    if !t.iter().all(|x| finite(Some(x))) {
        return None;
    }
    Some(json!({"matrix": t, "convention": "dommatrix-column-major", "direction": "local-to-parent"}))
}

/// The packed v3/v4 attrs: every v1 segment member except the tuple's own kind, mount_id and
/// generation (the first three of `SEGMENT_KEYS`).
const V3_ATTRIBUTE_KEYS: &[&str] = SEGMENT_KEYS.split_at(3).1;

/// `unpack_attention_v3_dictionary`: packed tuples to full v1 segments.
pub fn unpack_v3_dictionary(dictionary: Option<&Value>) -> Option<Vec<Value>> {
    if !bounded_array(dictionary, limits::DICTIONARY, 0) {
        return None;
    }
    let mut out = Vec::new();
    for packed in items(dictionary) {
        let t = fixed_tuple(Some(packed), 4)?;
        let attrs = Some(&t[3]);
        if !(is_table(attrs)
            && only_keys(attrs, V3_ATTRIBUTE_KEYS)
            && is_string(Some(&t[0]), 32, false)
            && is_string(Some(&t[1]), 160, false)
            && integer(Some(&t[2]), 0.0))
        {
            return None;
        }
        let mut segment = Map::new();
        segment.insert("kind".into(), t[0].clone());
        segment.insert("mount_id".into(), t[1].clone());
        segment.insert("generation".into(), t[2].clone());
        for (k, v) in as_map(attrs)? {
            let value = match k.as_str() {
                "rect" | "clip_rect" => v3_rect(Some(v))?,
                "local_to_parent" => v3_transform(Some(v))?,
                _ => v.clone(),
            };
            segment.insert(k.clone(), value);
        }
        let segment = Value::Object(segment);
        if !is_segment(Some(&segment)) {
            return None;
        }
        out.push(segment);
    }
    Some(out)
}

/// `expand_attention_v3`.
pub fn expand_v3(payload: &Value, remaining: Option<usize>) -> Result<(Value, usize), ExpandError> {
    let p = Some(payload);
    if !is_table(p) || as_str(get(p, "schema")) != Some("wippy.attention.v3") {
        return Err(ExpandError::Invalid(Some("v3 envelope")));
    }
    let dictionary =
        unpack_v3_dictionary(get(p, "path_dictionary")).ok_or(ExpandError::Invalid(Some("v3 dictionary")))?;
    let mut normalized = copy_without(p, &[]);
    normalized.insert("schema".into(), json!("wippy.attention.v2"));
    normalized.insert("path_dictionary".into(), Value::Array(dictionary));
    expand_v2(&Value::Object(normalized), remaining)
}

fn v4_dictionary_usage_ok(p: Option<&Value>) -> bool {
    let dictionary = get(p, "path_dictionary");
    if !is_table(dictionary) {
        return false;
    }
    let len = items(dictionary).len();
    let mut seen = HashSet::new();
    let mut next = 0usize;
    let mut use_indices = |indices: Option<&Value>| -> bool {
        if !is_table(indices) {
            return false;
        }
        for index in items(indices) {
            if !integer(Some(index), 0.0) || index.as_f64().unwrap_or(f64::MAX) >= len as f64 {
                return false;
            }
            let i = index.as_f64().unwrap_or(0.0) as usize;
            if seen.insert(i) {
                if i != next {
                    return false;
                }
                next += 1;
            }
        }
        true
    };
    for c in items(get(p, "candidates")) {
        if !is_table(Some(c)) || !use_indices(get(Some(c), "path_indices")) {
            return false;
        }
    }
    if let Some(f) = get(p, "focus") {
        if !is_table(Some(f)) || !use_indices(get(Some(f), "path_indices")) {
            return false;
        }
    }
    if let Some(s) = get(p, "selection") {
        if !is_table(Some(s))
            || !use_indices(get(Some(s), "anchor_path_indices"))
            || !use_indices(get(Some(s), "focus_path_indices"))
        {
            return false;
        }
    }
    next == len
}

fn codec_timestamp(v: Option<&Value>) -> bool {
    is_string(v, 64, false) && as_str(v).and_then(Timestamp::parse_rfc3339).is_some()
}

/// `valid_attention_selection` of the codec (looser timestamps than the Session's).
pub fn valid_selection(s: Option<&Value>) -> bool {
    let ok = only_keys(s, &SELECTION_KEYS)
        && is_string(get(s, "selection_id"), 128, false)
        && codec_timestamp(get(s, "selected_at"))
        && as_str(get(s, "kind")) == Some("text")
        && get(s, "collapsed") == Some(&Value::Bool(false))
        && matches!(as_str(get(s, "direction")), Some("none" | "forward" | "backward"))
        && matches!(get(s, "text"), Some(Value::String(t)) if t.len() <= limits::SELECTION_TEXT_BYTES)
        && bounded_array(get(s, "anchor_path"), limits::PATH, 1)
        && bounded_array(get(s, "focus_path"), limits::PATH, 1)
        && bounded_array(get(s, "ranges"), limits::SELECTION_RANGES, 0);
    ok && items(get(s, "anchor_path")).iter().chain(items(get(s, "focus_path"))).all(|seg| is_segment(Some(seg)))
        && items(get(s, "ranges")).iter().all(|r| {
            let r = Some(r);
            let cs = get(r, "coordinate_space");
            only_keys(r, &["rect", "coordinate_space"])
                && codec_rect(get(r, "rect"))
                && (as_str(cs) == Some("host-viewport")
                    || (only_keys(cs, &["mount_id", "generation"])
                        && is_string(get(cs, "mount_id"), 160, false)
                        && integer(get(cs, "generation"), 0.0)))
        })
}

fn expand_v4_selection(selection: Option<&Value>, packed: Option<&Value>) -> Result<Option<Value>, ExpandError> {
    let Some(sel) = selection else { return Ok(None) };
    let s = Some(sel);
    if !is_table(s) {
        return Err(ExpandError::Selection);
    }
    if get(s, "anchor_path").is_some() || get(s, "focus_path").is_some() {
        return Ok(Some(sel.clone()));
    }
    if !only_keys(
        s,
        &[
            "selection_id",
            "selected_at",
            "kind",
            "collapsed",
            "direction",
            "text",
            "anchor_path_indices",
            "focus_path_indices",
            "ranges",
        ],
    ) {
        return Err(ExpandError::Selection);
    }
    let dictionary = unpack_v3_dictionary(packed).ok_or(ExpandError::Selection)?;
    let path = |indices: Option<&Value>| -> Option<Vec<Value>> {
        if !bounded_array(indices, limits::PATH, 1) {
            return None;
        }
        items(indices)
            .iter()
            .map(|i| if integer(Some(i), 0.0) { dictionary.get(i.as_f64()? as usize).cloned() } else { None })
            .collect()
    };
    let anchor = path(get(s, "anchor_path_indices")).ok_or(ExpandError::Selection)?;
    let focus = path(get(s, "focus_path_indices")).ok_or(ExpandError::Selection)?;
    let mut expanded = copy_without(s, &["anchor_path_indices", "focus_path_indices"]);
    expanded.insert("anchor_path".into(), Value::Array(anchor));
    expanded.insert("focus_path".into(), Value::Array(focus));
    let expanded = Value::Object(expanded);
    if !valid_selection(Some(&expanded)) {
        return Err(ExpandError::Selection);
    }
    Ok(Some(expanded))
}

fn compact_v4_for_v3(p: Option<&Value>) -> Result<Value, ExpandError> {
    let invalid = ExpandError::Invalid(Some("v4 envelope"));
    if !is_table(p) || !is_table(get(p, "path_dictionary")) || !is_table(get(p, "candidates")) {
        return Err(invalid);
    }
    let packed = items(get(p, "path_dictionary"));
    let mut dictionary: Vec<Value> = Vec::new();
    let mut remap: HashMap<usize, usize> = HashMap::new();
    let mut remap_path = |indices: Option<&Value>| -> Option<Vec<Value>> {
        if !is_table(indices) {
            return None;
        }
        items(indices)
            .iter()
            .map(|i| {
                if !integer(Some(i), 0.0) {
                    return None;
                }
                let i = i.as_f64()? as usize;
                let entry = packed.get(i)?;
                let n = *remap.entry(i).or_insert_with(|| {
                    dictionary.push(entry.clone());
                    dictionary.len() - 1
                });
                Some(Value::from(n))
            })
            .collect()
    };
    let mut compact = copy_without(p, &["selection", "path_dictionary", "candidates", "focus"]);
    let mut candidates = Vec::new();
    for c in items(get(p, "candidates")) {
        if !is_table(Some(c)) {
            return Err(invalid.clone());
        }
        let mut n = copy_without(Some(c), &["path_indices"]);
        n.insert("path_indices".into(), Value::Array(remap_path(get(Some(c), "path_indices")).ok_or(invalid.clone())?));
        candidates.push(Value::Object(n));
    }
    if let Some(f) = get(p, "focus") {
        let mut n = copy_without(Some(f), &["path_indices"]);
        n.insert("path_indices".into(), Value::Array(remap_path(get(Some(f), "path_indices")).ok_or(invalid.clone())?));
        compact.insert("focus".into(), Value::Object(n));
    }
    compact.insert("schema".into(), json!("wippy.attention.v3"));
    compact.insert("path_dictionary".into(), Value::Array(dictionary));
    compact.insert("candidates".into(), Value::Array(candidates));
    Ok(Value::Object(compact))
}

/// `expand_attention_v4`.
pub fn expand_v4(payload: &Value, remaining: Option<usize>) -> Result<(Value, usize), ExpandError> {
    let p = Some(payload);
    if !is_table(p) || as_str(get(p, "schema")) != Some("wippy.attention.v4") || !v4_dictionary_usage_ok(p) {
        return Err(ExpandError::Invalid(Some("v4 envelope")));
    }
    let selection = expand_v4_selection(get(p, "selection"), get(p, "path_dictionary"))?;
    let compact = compact_v4_for_v3(p)?;
    let (mut expanded, _) = expand_v3(&compact, remaining)?;
    if let Some(sel) = selection {
        expanded.as_object_mut().expect("object").insert("selection".into(), sel);
    }
    let budget = remaining.unwrap_or(limits::EXPANDED_BYTES).min(limits::EXPANDED_BYTES);
    match canon_len(&expanded) {
        Some(n) if n <= budget => Ok((expanded, n)),
        _ => Err(ExpandError::ExpandedTooLarge),
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

struct Dictionary {
    entries: Vec<Value>,
    index: HashMap<String, usize>,
}

impl Dictionary {
    fn indices(&mut self, path: Option<&Value>) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        for segment in items(path) {
            let key = canonical_json(segment).map_err(|e| e.to_string())?;
            let n = match self.index.get(&key) {
                Some(&n) => n,
                None => {
                    self.entries.push(segment.clone());
                    self.index.insert(key, self.entries.len() - 1);
                    self.entries.len() - 1
                }
            };
            out.push(Value::from(n));
        }
        Ok(out)
    }
}

fn pack_rect(r: &Value) -> Value {
    json!([r["x"], r["y"], r["width"], r["height"]])
}

/// A v1 segment as a v3 tuple `[kind, mount_id, generation, attrs]`.
pub fn pack_segment(segment: &Value) -> Value {
    let mut attrs = Map::new();
    if let Some(m) = segment.as_object() {
        for (k, v) in m {
            match k.as_str() {
                "kind" | "mount_id" | "generation" => {}
                "rect" | "clip_rect" => {
                    attrs.insert(k.clone(), pack_rect(v));
                }
                "local_to_parent" => {
                    attrs.insert(k.clone(), v["matrix"].clone());
                }
                _ => {
                    attrs.insert(k.clone(), v.clone());
                }
            }
        }
    }
    let attrs = if attrs.is_empty() { json!([]) } else { Value::Object(attrs) };
    json!([segment["kind"], segment["mount_id"], segment["generation"], attrs])
}

/// Encode a v1 snapshot payload (a v4 reconstruction may carry `selection`) as `version` 2, 3
/// or 4. The input must be a valid v1 payload; the output expands back to it exactly.
pub fn encode(v1: &Value, version: u64) -> Result<Value, EncodeError> {
    if !(2..=4).contains(&version) {
        return Err(EncodeError::Version(version));
    }
    let v1 = super::canonical::strip_null_members(v1);
    let allow_selection = version == 4;
    super::attention_v1::validate_attention(&v1, allow_selection)
        .map_err(|stage| EncodeError::NotV1(format!("fails the v1 schema at stage {}", stage.as_str())))?;
    let inexpressible = |reason: &str| EncodeError::Inexpressible { version, reason: reason.to_string() };
    let p = Some(&v1);
    let capture = get(p, "capture");
    let step = num(get(capture, "grid_step_css_px")).unwrap_or(0.0);
    if step < 1.0 {
        return Err(inexpressible("grid_step_css_px below 1 is not allowed in compact versions"));
    }
    let points = items(get(capture, "points"));
    let mut point_index: HashMap<&str, usize> = HashMap::new();
    for (i, pt) in points.iter().enumerate() {
        point_index.insert(pt["point_id"].as_str().unwrap_or_default(), i);
    }
    let mut observation_ids: HashSet<&str> = HashSet::new();
    for o in [get(p, "pointer"), get(p, "focus")].into_iter().flatten().chain(items(get(p, "recent_events"))) {
        observation_ids.insert(o["event_id"].as_str().unwrap_or_default());
    }
    if point_index.keys().any(|id| observation_ids.contains(id)) {
        return Err(inexpressible("a point_id equals an observation event_id"));
    }

    let mut dict = Dictionary { entries: Vec::new(), index: HashMap::new() };
    let mut candidates = Vec::new();
    let mut target_ids = HashSet::new();
    for c in items(get(p, "candidates")) {
        if !target_ids.insert(c["target_id"].as_str().unwrap_or_default()) {
            return Err(inexpressible("duplicate target_id"));
        }
        let mut out = copy_without(Some(c), &["path", "sample_point_ids"]);
        out.insert(
            "path_indices".into(),
            Value::Array(dict.indices(get(Some(c), "path")).map_err(|e| inexpressible(&e))?),
        );
        out.insert(
            "sample_refs".into(),
            Value::Array(sample_refs(items(get(Some(c), "sample_point_ids")), &point_index)),
        );
        candidates.push(Value::Object(out));
    }
    let mut root = copy_without(p, &["candidates", "focus", "capture", "selection"]);
    if let Some(f) = get(p, "focus") {
        let mut out = copy_without(Some(f), &["path"]);
        out.insert(
            "path_indices".into(),
            Value::Array(dict.indices(get(Some(f), "path")).map_err(|e| inexpressible(&e))?),
        );
        root.insert("focus".into(), Value::Object(out));
    }
    if let Some(s) = get(p, "selection") {
        let mut out = copy_without(Some(s), &["anchor_path", "focus_path"]);
        out.insert(
            "anchor_path_indices".into(),
            Value::Array(dict.indices(get(Some(s), "anchor_path")).map_err(|e| inexpressible(&e))?),
        );
        out.insert(
            "focus_path_indices".into(),
            Value::Array(dict.indices(get(Some(s), "focus_path")).map_err(|e| inexpressible(&e))?),
        );
        root.insert("selection".into(), Value::Object(out));
    }
    if dict.entries.len() > limits::DICTIONARY {
        return Err(inexpressible("more than 4128 distinct path segments"));
    }
    root.insert("capture".into(), encode_capture(capture));
    root.insert("candidates".into(), Value::Array(candidates));
    root.insert("schema".into(), json!(format!("wippy.attention.v{version}")));
    let dictionary = if version == 2 { dict.entries } else { dict.entries.iter().map(pack_segment).collect() };
    root.insert("path_dictionary".into(), Value::Array(dictionary));
    Ok(Value::Object(root))
}

fn sample_refs(ids: &[Value], point_index: &HashMap<&str, usize>) -> Vec<Value> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let flush = |run: &mut Option<(usize, usize)>, out: &mut Vec<Value>| {
        if let Some((start, count)) = run.take() {
            if count >= 3 {
                out.push(json!([start, count]));
            } else {
                out.extend((start..start + count).map(Value::from));
            }
        }
    };
    for id in ids {
        let s = id.as_str().unwrap_or_default();
        match point_index.get(s) {
            Some(&i) => match run {
                Some((start, count)) if start + count == i => run = Some((start, count + 1)),
                _ => {
                    flush(&mut run, &mut out);
                    run = Some((i, 1));
                }
            },
            None => {
                flush(&mut run, &mut out);
                out.push(id.clone());
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

fn encode_capture(capture: Option<&Value>) -> Value {
    let mut out = copy_without(capture, &["points"]);
    let points = items(get(capture, "points"));
    let radius = num(get(capture, "radius_css_px")).unwrap_or(0.0);
    let step = num(get(capture, "grid_step_css_px")).unwrap_or(1.0);
    let extent = (radius / step).floor();
    let grid = lattice(radius, step);
    let lattice_fits =
        (2.0 * extent + 1.0).powi(2) <= limits::POINTS as f64 && points.len() >= grid.len() && !grid.is_empty();
    if !lattice_fits {
        out.insert("points".into(), Value::Array(points.to_vec()));
        return Value::Object(out);
    }
    // The origin comes from the lattice centre, which has offset (0, 0).
    let centre = grid.iter().position(|&(dx, dy)| dx == 0.0 && dy == 0.0).unwrap_or(0);
    let (cdx, cdy) = grid[centre];
    let ox = num(get(Some(&points[centre]), "x")).unwrap_or(0.0) - cdx;
    let oy = num(get(Some(&points[centre]), "y")).unwrap_or(0.0) - cdy;
    let mut overrides = Vec::new();
    for (i, &(dx, dy)) in grid.iter().enumerate() {
        let default = json!({"point_id": format!("p{i}"), "x": number(ox + dx), "y": number(oy + dy)});
        if canonical_json(&default).ok() != canonical_json(&points[i]).ok() {
            overrides.push(json!({"index": i, "point": points[i]}));
        }
    }
    let mut encoding = Map::new();
    encoding.insert("kind".into(), json!(POINT_ENCODING_KIND));
    encoding.insert("origin".into(), json!({"x": number(ox), "y": number(oy)}));
    if !overrides.is_empty() {
        encoding.insert("overrides".into(), Value::Array(overrides));
    }
    if points.len() > grid.len() {
        encoding.insert("additional_points".into(), Value::Array(points[grid.len()..].to_vec()));
    }
    let mut raw = out.clone();
    raw.insert("points".into(), Value::Array(points.to_vec()));
    out.insert("point_encoding".into(), Value::Object(encoding));
    // Both forms expand to the same points; keep the smaller one (arbitrary points would
    // otherwise become one override each).
    let (raw, out) = (Value::Object(raw), Value::Object(out));
    match (canonical_json(&raw), canonical_json(&out)) {
        (Ok(r), Ok(o)) if r.len() < o.len() => raw,
        _ => out,
    }
}
