//! Parity with the Session's own test suite (`wippyai/session` `src/context_attachments_test.lua`,
//! commit 2ce434033e43): the same fixtures, mutations and expected codes, re-stated in Rust so a
//! divergence from the Session shows up here first. Cases that only exercise Lua plumbing
//! (renderer tables, prompt builder) are left out.

use crate::contract_support;

use attention_harness::contract::canonical::{canonical_json, sha256_prefixed};
use attention_harness::contract::{codec, validate, Timestamp, ValidateOptions};
use contract_support::*;
use serde_json::{json, Value};

fn at(ts: &str) -> ValidateOptions<'static> {
    ValidateOptions {
        now: Some(Timestamp::parse_rfc3339(ts).unwrap()),
        session_id: Some("session-1".into()),
        ..Default::default()
    }
}

fn code(arr: &Value) -> Option<String> {
    validate(arr, &at("2026-09-04T12:01:00Z")).err().map(|e| e.code.as_str())
}

fn golden_attachment() -> Value {
    read_fixture("golden-v1-action-ref-envelope.json")[0].clone()
}

fn golden_payload() -> Value {
    v1_payload_with_action_ref()
}

fn with_payload(mut env: Value, payload: &Value) -> Value {
    set_content(&mut env, &canonical_json(payload).unwrap());
    env
}

/// The Session test's `compact()`: the golden as v2, with the action_ref label removed.
fn compact() -> (Value, Value) {
    let mut p = golden_payload();
    p["schema"] = json!("wippy.attention.v2");
    p["path_dictionary"] = p["candidates"][0]["path"].take();
    let c = p["candidates"][0].as_object_mut().unwrap();
    c.remove("path");
    c.remove("sample_point_ids");
    c.insert("path_indices".into(), json!([0, 1]));
    c.insert("sample_refs".into(), json!([0]));
    c.get_mut("action_ref").unwrap().as_object_mut().unwrap().remove("label");
    let mut env = golden_attachment();
    env["version"] = json!(2);
    env["attachment_id"] = json!("compact-1");
    (with_payload(env, &p), p)
}

#[test]
fn host_compact_golden_bytes_and_digest() {
    let (env, payload) = compact();
    assert_eq!(env["content_bytes"], 1040);
    assert_eq!(env["content_hash"], "sha256:d20ab08a1a88e882421a2a1f6187b261db1c6c56532f006a518fb0ce8aedf5f5");
    assert_eq!(code(&json!([env])), None);
    // Our encoder writes exactly the Host's compact golden.
    let mut v1 = golden_payload();
    v1["candidates"][0]["action_ref"].as_object_mut().unwrap().remove("label");
    assert_eq!(canonical_json(&codec::encode(&v1, 2).unwrap()).unwrap(), canonical_json(&payload).unwrap());
}

#[test]
fn v3_admission_and_tampered_dictionary() {
    let (env, payload) = compact();
    let mut p = codec::encode(&codec::expand(2, &payload, None).unwrap().0, 3).unwrap();
    let mut env3 = with_payload(env, &p);
    env3["version"] = json!(3);
    env3 = with_payload(env3, &p);
    assert_eq!(code(&json!([env3.clone()])), None);
    p["path_dictionary"][1][3]["tag_name"] = json!("button");
    assert_eq!(code(&json!([with_payload(env3, &p)])).as_deref(), Some("invalid-attention-expansion"));
}

#[test]
fn malformed_compact_mutations_reject_the_whole_array() {
    let changes: Vec<fn(&mut Value)> = vec![
        |p| p["candidates"][0]["path_indices"] = json!([-1]),
        |p| p["candidates"][0]["path_indices"] = json!([0.5]),
        |p| p["candidates"][0]["path_indices"] = json!([0, 2]),
        |p| p["candidates"][0]["sample_refs"] = json!([[0, 2]]),
        |p| p["candidates"][0]["sample_refs"] = json!([0, 0]),
        |p| p["path_dictionary"][0]["generation"] = json!(100),
        |p| p["coordinate_space"]["width"] = json!(-1),
        |p| p["capture"]["points"][0]["point_id"] = json!(""),
        |p| {
            let d = p["path_dictionary"][0].clone();
            p["path_dictionary"].as_array_mut().unwrap().push(d)
        },
    ];
    for (i, mutate) in changes.into_iter().enumerate() {
        let (env, mut p) = compact();
        mutate(&mut p);
        let got = code(&json!([golden_attachment(), with_payload(env, &p)]));
        let expected =
            if i == 6 { "invalid-attention-reconstruction-coordinate-space" } else { "invalid-attention-expansion" };
        assert_eq!(got.as_deref(), Some(expected), "mutation {i}");
    }
    // A 49-point lattice with one range is valid.
    let (env, mut p) = compact();
    p["capture"].as_object_mut().unwrap().remove("points");
    p["capture"]["point_encoding"] = json!({"kind": "css-euclidean-grid.v1", "origin": {"x": 120, "y": 112}});
    p["capture"]["sampled_points"] = json!(49);
    p["candidates"][0]["sample_refs"] = json!([[0, 49]]);
    assert_eq!(code(&json!([with_payload(env, &p)])), None);
}

/// The Session test's complete-canonical-envelope boundary (the Session's 16,384-byte v2-v4 limit,
/// `schemas.md` §1 13.2, which fills the spec's lost "known kinds" table): a canonical envelope of
/// 16,384 bytes is admitted and 16,385 is refused with `attachment-bytes-exceeded`, far below the
/// generic 32 KiB array limit.
#[test]
fn complete_canonical_envelope_boundary_is_the_session_16384() {
    let (env, mut p) = compact();
    p["candidates"][0]["summary"]["state"] = json!({"padding": ""});
    let envelope_at = |p: &mut Value, padding: usize| {
        p["candidates"][0]["summary"]["state"]["padding"] = json!("x".repeat(padding));
        with_payload(env.clone(), p)
    };
    let base = canonical_json(&envelope_at(&mut p, 0)).unwrap().len();
    let sized = |p: &mut Value, target: usize| {
        let mut padding = target - base;
        // The padding string is inside the content string: one more byte per byte, exactly.
        let env = envelope_at(p, padding);
        padding = padding + target - canonical_json(&env).unwrap().len();
        envelope_at(p, padding)
    };
    let fits = sized(&mut p, 16_384);
    assert_eq!(canonical_json(&fits).unwrap().len(), 16_384);
    assert_eq!(code(&json!([fits])), None);
    let over = sized(&mut p, 16_385);
    assert_eq!(canonical_json(&over).unwrap().len(), 16_385);
    assert_eq!(code(&json!([over])).as_deref(), Some("attachment-bytes-exceeded"));
}

#[test]
fn reconstructed_paths_are_charged_across_mixed_v1_and_v2() {
    let (env, mut p) = compact();
    for s in p["path_dictionary"].as_array_mut().unwrap() {
        s["selector_hint"] = json!("x".repeat(512));
    }
    let source = {
        let c = p["candidates"][0].as_object_mut().unwrap();
        c.remove("action_ref");
        let mut indices = vec![json!(0)];
        indices.extend((2..=32).map(|_| json!(1)));
        c.insert("path_indices".into(), json!(indices));
        Value::Object(c.clone())
    };
    for index in 2..=4 {
        let mut c = source.clone();
        c["target_id"] = json!(format!("target-{index}"));
        p["candidates"].as_array_mut().unwrap().push(c);
    }
    let env = with_payload(env, &p);
    assert_eq!(code(&json!([env.clone()])), None);
    let (_, bytes) = codec::expand(2, &p, None).unwrap();
    let mut array = vec![golden_attachment()];
    let mut sum = 1040;
    for index in 1..=4 {
        let mut copy = env.clone();
        copy["attachment_id"] = json!(format!("compact-{index}"));
        array.push(copy);
        sum += bytes;
        if sum <= 262_144 {
            assert_eq!(code(&json!(array)), None);
        } else {
            assert!(canonical_json(&json!(array)).unwrap().len() < 32_768);
            assert_eq!(code(&json!(array)).as_deref(), Some("invalid-attention-expansion"));
            return;
        }
    }
    panic!("expansion fixture must cross the aggregate budget");
}

#[test]
fn golden_accepts_and_common_rejections() {
    assert_eq!(code(&json!([golden_attachment()])), None);
    // Stable panel and surface identity with a fresh action_ref.
    let mut p = golden_payload();
    p["candidates"][0]["path"][0]["panel_id"] = json!("panel-main");
    p["candidates"][0]["path"][0]["surface_id"] = json!("surface-primary");
    p["candidates"][0]["action_ref"]["path_digest"] =
        json!(attention_harness::contract::canonical::path_digest(&p["candidates"][0]["path"]).unwrap());
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])), None);
    // Unknown kinds and versions are preserved.
    let mut a = golden_attachment();
    a["kind"] = json!("example.future-context");
    a["version"] = json!(7);
    assert_eq!(code(&json!([a])), None);
    assert_eq!(code(&json!([golden_attachment(), golden_attachment()])).as_deref(), Some("duplicate-attachment-id"));
    let mut p = golden_payload();
    p.as_object_mut().unwrap().remove("snapshot_id");
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])).as_deref(), Some("invalid-attention-payload"));
    // Leading space: digest matches, bytes are not canonical.
    let mut a = golden_attachment();
    let content = format!(" {}", a["content"].as_str().unwrap());
    set_content(&mut a, &content);
    assert_eq!(code(&json!([a])).as_deref(), Some("noncanonical-content"));
    let mut a = golden_attachment();
    a["expires_at"] = json!("2026-09-04T12:00:30Z");
    assert_eq!(code(&json!([a])).as_deref(), Some("expired"));
}

#[test]
fn focus_shape_and_forbidden_fields() {
    let mut p = golden_payload();
    p["focus"] = json!({"event_id": "focus-1", "sequence": 7, "focused_at": "2026-09-04T12:00:00.000Z", "realm_time_ms": 123.5,
        "candidate_id": "target-1", "path": p["candidates"][0]["path"].clone(), "summary": {"name": "Nested status"}});
    p["candidates"][0]["sample_point_ids"] = json!(["focus-1"]);
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])), None);
    p["focus"].as_object_mut().unwrap().remove("sequence");
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])).as_deref(), Some("invalid-attention-payload"));
    for key in attention_harness::contract::validate::FORBIDDEN_LIVE_KEYS {
        let mut a = golden_attachment();
        a["kind"] = json!("example.future-context");
        a["version"] = json!(7);
        let a = with_payload(a, &json!({"nested": {key: "must-not-persist"}}));
        assert_eq!(code(&json!([a])).as_deref(), Some("forbidden-live-field"), "{key}");
    }
    let mut p = golden_payload();
    p["candidates"][0]["target_token"] = json!("forbidden");
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])).as_deref(), Some("forbidden-live-field"));
}

#[test]
fn action_reference_mismatches() {
    for mutate in [
        (|p: &mut Value| p["candidates"][0]["action_ref"]["mount_id"] = json!("wrong-mount")) as fn(&mut Value),
        |p| p["candidates"][0]["action_ref"]["path_digest"] = json!(format!("sha256:{}", "0".repeat(64))),
        |p| p["candidates"][0]["path"][1]["tag_name"] = json!("button"),
    ] {
        let mut p = golden_payload();
        mutate(&mut p);
        assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])).as_deref(), Some("invalid-attention-payload"));
    }
}

#[test]
fn strict_boundaries_and_parity_corpus() {
    let strict: Vec<fn(&mut Value)> = vec![
        |p| p["extra"] = json!(true),
        |p| p["coordinate_space"]["extra"] = json!(true),
        |p| p["capture"]["extra"] = json!(true),
        |p| p["capture"]["points"][0]["extra"] = json!(true),
        |p| p["candidates"][0]["extra"] = json!(true),
        |p| p["candidates"][0]["path"][0]["extra"] = json!(true),
        |p| p["candidates"][0]["summary"]["extra"] = json!(true),
        |p| p["omissions"] = json!([{"reason": "excluded", "extra": true}]),
        |p| p["candidates"][0]["path"][1]["frame_origin"] = json!("https://example.com/private?token=secret#target"),
        |p| p["omissions"] = json!([{"reason": "redacted", "capture_code": "future-code"}]),
        |p| p["omissions"] = json!([{"reason": "excluded", "point_id": ""}]),
        |p| p["omissions"] = json!([{"reason": "excluded", "mount_id": ""}]),
        |p| p["omissions"] = json!([{"reason": "excluded", "detail": ""}]),
        |p| p["mount_generation"] = json!(9_007_199_254_740_992u64),
    ];
    for (i, mutate) in strict.into_iter().enumerate() {
        let mut p = golden_payload();
        mutate(&mut p);
        assert_eq!(
            code(&json!([with_payload(golden_attachment(), &p)])).as_deref(),
            Some("invalid-attention-payload"),
            "case {i}"
        );
    }
    let mut p = golden_payload();
    p["mount_generation"] = json!(9_007_199_254_740_991u64);
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])), None);
    for ts in ["2026-09-04T12:00:00Z", "2024-02-29T23:59:59.123456789Z"] {
        let mut a = golden_attachment();
        a["kind"] = json!("example.future-context");
        a["version"] = json!(7);
        a["created_at"] = json!(ts);
        assert_eq!(code(&json!([a])), None);
    }
    for ts in
        ["2026-09-04T12:00:00+00:00", "2026-09-04T12:00:00.1234567890Z", "2026-02-29T12:00:00Z", "2026-01-01T24:00:00Z"]
    {
        let mut a = golden_attachment();
        a["created_at"] = json!(ts);
        assert_eq!(code(&json!([a])).as_deref(), Some("invalid-envelope"), "{ts}");
    }
    for (origin, ok) in [
        ("about:srcdoc", true),
        ("https://example.test", true),
        ("http://127.0.0.1:8086", true),
        ("ftp://example.test", false),
        ("https://example.test/path", false),
        ("https://user@example.test", false),
        ("null", false),
    ] {
        let mut p = golden_payload();
        p["candidates"][0].as_object_mut().unwrap().remove("action_ref");
        p["candidates"][0]["path"][1]["frame_origin"] = json!(origin);
        let got = code(&json!([with_payload(golden_attachment(), &p)]));
        assert_eq!(got.is_none(), ok, "{origin}: {got:?}");
    }
    for cc in [
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
    ] {
        let mut p = golden_payload();
        p["omissions"] = json!([{"reason": "redacted", "capture_code": cc}]);
        assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])), None, "{cc}");
    }
    let id = "p".repeat(128);
    let mut p = golden_payload();
    p["capture"]["points"][0]["point_id"] = json!(id);
    p["candidates"][0]["sample_point_ids"] = json!([id]);
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])), None);
    p["capture"]["points"][0]["point_id"] = json!(format!("{id}x"));
    p["candidates"][0]["sample_point_ids"] = json!([format!("{id}x")]);
    assert_eq!(code(&json!([with_payload(golden_attachment(), &p)])).as_deref(), Some("invalid-attention-payload"));
    let mut nested = json!(true);
    for _ in 0..33 {
        nested = json!({"nested": nested});
    }
    assert!(canonical_json(&nested).is_err());
}

fn visual() -> (Value, Value) {
    let data = b"visual-bytes";
    let payload = json!({
        "schema": "wippy.attention.visual.v1", "capture_id": "capture-1", "snapshot_id": "snapshot-1",
        "host_instance_id": "host-1", "created_at": "2026-09-04T12:00:00Z", "expires_at": "2026-09-04T12:05:00Z",
        "candidate_ids": ["target-1"], "region": {"x": 1, "y": 2, "width": 3, "height": 4},
        "media": {"content_type": "image/png", "content_bytes": data.len(), "content_hash": sha256_prefixed(data), "pixel_width": 3, "pixel_height": 4},
        "reference": {"kind": "upload", "opaque_id": "upload-1"},
        "authorization": {"scope": "session", "session_id": "session-1", "audience": "agent-context", "expires_at": "2026-09-04T12:05:00Z"},
        "redactions_applied": 0
    });
    let mut env = seal("visual-1", "wippy.attention.visual", 1, &payload);
    env["created_at"] = json!("2026-09-04T12:00:00Z");
    env["expires_at"] = json!("2026-09-04T12:05:00Z");
    (env, payload)
}

#[test]
fn visual_parity() {
    let (env, _) = visual();
    assert_eq!(code(&json!([env.clone()])), None);
    let mut m = env.clone();
    m["expires_at"] = json!("2026-09-04T12:04:00Z");
    assert_eq!(code(&json!([m])).as_deref(), Some("invalid-visual-payload"));
    let (env2, mut p) = visual();
    p["authorization"]["extra"] = json!(true);
    assert_eq!(code(&json!([with_payload(env2, &p)])).as_deref(), Some("invalid-visual-payload"));
    let other = ValidateOptions { session_id: Some("session-2".into()), ..at("2026-09-04T12:01:00Z") };
    assert_eq!(validate(&json!([env.clone()]), &other).unwrap_err().code.as_str(), "visual-session-mismatch");
    let mut v2 = env.clone();
    v2["version"] = json!(2);
    assert_eq!(code(&json!([v2])).as_deref(), Some("forbidden-live-field"));
    assert_eq!(validate(&json!([env.clone()]), &at("2026-09-04T12:06:00Z")).unwrap_err().code.as_str(), "expired");
    let (env3, mut p) = visual();
    p["media"]["content_bytes"] = json!(1_048_577);
    assert_eq!(code(&json!([with_payload(env3, &p)])).as_deref(), Some("invalid-visual-payload"));
}
