//! Shared builders for the contract tests: the spec's v1 fixture, sealed envelopes, a fixed clock.
#![allow(dead_code)]

use attention_harness::contract::canonical::{canonical_json, path_digest, sha256_prefixed};
use attention_harness::contract::{Timestamp, ValidateOptions};
use serde_json::{json, Value};

pub const CREATED_AT: &str = "2026-09-04T12:00:00.000Z";
pub const NOW: &str = "2026-09-04T12:00:00Z";

pub fn now() -> Timestamp {
    Timestamp::parse_session(NOW).unwrap()
}

pub fn opts() -> ValidateOptions<'static> {
    ValidateOptions { now: Some(now()), session_id: Some("session-1".into()), ..Default::default() }
}

pub fn fixture_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/contract").join(name)
}

pub fn read_fixture(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture_path(name)).unwrap()).unwrap()
}

/// The spec's 752-byte v1 payload.
pub fn v1_payload() -> Value {
    read_fixture("spec-v1-payload.json")
}

/// The spec's v1 envelope array, verbatim.
pub fn spec_array() -> Value {
    read_fixture("spec-v1-envelope.json")
}

/// Seal `payload` into an envelope with correct bytes and hash.
pub fn seal(id: &str, kind: &str, version: u64, payload: &Value) -> Value {
    let content = canonical_json(payload).unwrap();
    json!({
        "attachment_id": id,
        "kind": kind,
        "version": version,
        "created_at": CREATED_AT,
        "content_type": "application/json",
        "content_bytes": content.len(),
        "content_hash": sha256_prefixed(content.as_bytes()),
        "content": content,
    })
}

/// Put raw `content` into `env` and fix `content_bytes` and `content_hash` to match.
pub fn set_content(env: &mut Value, content: &str) {
    env["content"] = json!(content);
    env["content_bytes"] = json!(content.len());
    env["content_hash"] = json!(sha256_prefixed(content.as_bytes()));
}

/// A minimal valid candidate whose path has `segments` segments.
pub fn candidate(target_id: &str, segments: usize, sample: &str) -> Value {
    let path: Vec<Value> = (0..segments)
        .map(|i| {
            let kind = if i == 0 {
                "host"
            } else if i + 1 == segments {
                "element"
            } else {
                "web-component"
            };
            json!({"kind": kind, "mount_id": format!("m{i}"), "generation": 0})
        })
        .collect();
    json!({
        "target_id": target_id, "path": path,
        "rect": {"x": 0, "y": 0, "width": 1, "height": 1},
        "sample_point_ids": [sample], "occluded": false, "summary": []
    })
}

/// A valid observed event referencing `candidate_ids`.
pub fn event(id: &str, kind: &str, second: u32, candidate_ids: &[&str]) -> Value {
    json!({
        "event_id": id, "sequence": second, "type": kind,
        "observed_at": format!("2026-09-04T11:59:{second:02}Z"), "realm_time_ms": second * 1000,
        "point": {"x": 120, "y": 112}, "candidate_ids": candidate_ids
    })
}

/// The 1040-byte golden: the spec fixture plus its `action_ref`.
pub fn v1_payload_with_action_ref() -> Value {
    let mut p = v1_payload();
    let path = p["candidates"][0]["path"].clone();
    p["candidates"][0]["action_ref"] = json!({
        "snapshot_id": "snapshot-1", "target_id": "target-1", "host_instance_id": "host-1",
        "mount_id": "leaf-1", "generation": 1, "path_digest": path_digest(&path).unwrap(),
        "rect": p["candidates"][0]["rect"].clone(), "label": "Nested status"
    });
    p
}

/// A v1 payload with a full 49-point lattice (r=20, step=5) around (120, 112), used for codecs.
pub fn lattice_payload() -> Value {
    let mut p = v1_payload();
    let mut points = Vec::new();
    let mut n = 0;
    for y in -4i64..=4 {
        for x in -4i64..=4 {
            if (x * 5) * (x * 5) + (y * 5) * (y * 5) <= 400 {
                points.push(json!({"point_id": format!("p{n}"), "x": 120 + x * 5, "y": 112 + y * 5}));
                n += 1;
            }
        }
    }
    p["capture"]["points"] = Value::Array(points);
    p["capture"]["sampled_points"] = json!(n);
    p["candidates"][0]["sample_point_ids"] = json!(["p0", "p1", "p2", "p3", "p10", "pe"]);
    p["pointer"] = event("pe", "pointermove", 1, &["target-1"]);
    p
}
