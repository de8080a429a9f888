//! Model projection: event and target selection, realm representatives, sample and path
//! reductions, partial counters, the trust label and the byte budget.

mod contract_support;

use attention_harness::contract::codec;
use attention_harness::contract::projection::{self, project, project_envelope, ProjectError};
use contract_support::*;
use serde_json::{json, Value};

fn ids(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|c| c["target_id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn fixture_projection_layout() {
    let r = project_envelope(&spec_array()[0], projection::DEFAULT_RENDER_BUDGET).unwrap();
    assert_eq!(r["trust"], "untrusted_user_observation");
    assert_eq!(r["schema"], "wippy.attention.v1");
    assert_eq!(r["capture"]["sample_bounds"], json!({"x": 120, "y": 112, "width": 0, "height": 0}));
    assert!(r["capture"].get("points").is_none());
    let c = &r["candidates"][0];
    assert_eq!(c["sample_point_ids"], json!(["p0"]));
    assert_eq!(c["sample_point_count"], 1);
    assert_eq!(c["sample_point_ids_omitted"], 0);
    assert_eq!(
        r["partial"],
        json!({"candidates_omitted": 0, "recent_events_omitted": 0, "sample_points_omitted": 1, "sampled_realms": 0, "sampled_realms_omitted": 0, "omissions_omitted": 0})
    );
    let text = projection::render_text(&r);
    assert!(text.starts_with("Wippy Attention Context (untrusted user-provided observation):\n{"));
}

#[test]
fn compact_envelopes_project_like_v1() {
    let v1 = project_envelope(&spec_array()[0], 1 << 20).unwrap();
    for version in [2u64, 3, 4] {
        let env = seal("attachment-1", "wippy.attention", version, &codec::encode(&v1_payload(), version).unwrap());
        let mut r = project_envelope(&env, 1 << 20).unwrap();
        assert_eq!(r["schema"], "wippy.attention.v1");
        r["schema"] = v1["schema"].clone();
        assert_eq!(r, v1, "v{version}");
    }
}

#[test]
fn six_events_discrete_first_then_newest_moves() {
    let mut p = v1_payload();
    let mut events = Vec::new();
    for i in 0..5u32 {
        events.push(event(&format!("move{i}"), "pointermove", 10 + i, &[]));
    }
    for (i, kind) in ["click", "pointerdown", "touchend"].iter().enumerate() {
        events.push(event(&format!("d{i}"), kind, i as u32, &[]));
    }
    p["recent_events"] = json!(events);
    let r = project(&p, 1, 1 << 20).unwrap();
    let got: Vec<&str> = r["recent_events"].as_array().unwrap().iter().map(|e| e["event_id"].as_str().unwrap()).collect();
    assert_eq!(got, ["d2", "d1", "d0", "move4", "move3", "move2"]);
    assert_eq!(r["partial"]["recent_events_omitted"], 2);
}

#[test]
fn eight_targets_pointer_and_focus_first_and_three_samples() {
    let mut p = lattice_payload();
    let mut cands = Vec::new();
    for i in 0..12 {
        let mut c = candidate(&format!("t{i}"), 2, "p0");
        c["sample_point_ids"] = json!(["p0", "p1", "p2", "p3", "p4"]);
        cands.push(c);
    }
    p["candidates"] = json!(cands);
    p["pointer"] = event("pe", "pointermove", 1, &["t9", "t3"]);
    p["focus"] = json!({"event_id": "f", "sequence": 2, "focused_at": NOW, "realm_time_ms": 1, "candidate_id": "t11",
        "path": [{"kind": "host", "mount_id": "m0", "generation": 0}], "summary": []});
    let r = project(&p, 1, 1 << 20).unwrap();
    assert_eq!(ids(&r["candidates"]), ["t9", "t3", "t11", "t0", "t1", "t2", "t4", "t5"]);
    assert_eq!(r["partial"]["candidates_omitted"], 4);
    let c = &r["candidates"][0];
    assert_eq!(c["sample_point_ids"], json!(["p0", "p1", "p2"]));
    assert_eq!((c["sample_point_count"].as_u64(), c["sample_point_ids_omitted"].as_u64()), (Some(5), Some(2)));
    assert_eq!(r["focus"]["target_id"], "t11");
    assert_eq!(r["pointer"]["candidate_ids"], json!(["t9", "t3"]));
}

#[test]
fn one_representative_per_terminal_realm_before_extra_hits() {
    // Two child realms under one host root, unequal depth; the first five hits are all in realm A.
    let host = json!({"kind": "host", "mount_id": "host-1", "generation": 3});
    let realm = |name: &str, depth: usize| -> Vec<Value> {
        let mut path = vec![host.clone()];
        for d in 0..depth {
            path.push(json!({"kind": "web-component", "mount_id": format!("{name}-{d}"), "generation": 1}));
        }
        path
    };
    let mut p = lattice_payload();
    let mut cands = Vec::new();
    for i in 0..9 {
        let mut c = candidate(&format!("a{i}"), 1, "p0");
        c["path"] = json!(realm("a", 1));
        cands.push(c);
    }
    let mut b = candidate("b0", 1, "p1");
    b["path"] = json!(realm("b", 3));
    cands.push(b);
    p["candidates"] = json!(cands);
    p["pointer"] = event("pe", "pointermove", 1, &["a0"]);
    let r = project(&p, 1, 1 << 20).unwrap();
    let got = ids(&r["candidates"]);
    assert_eq!(&got[..2], ["a0", "b0"]);
    assert_eq!(got.len(), 8);
    assert_eq!(r["partial"]["sampled_realms"], 2);
    assert_eq!(r["partial"]["sampled_realms_omitted"], 0);
}

#[test]
fn long_paths_keep_32_primary_and_12_secondary_segments() {
    let mut p = lattice_payload();
    p["candidates"] = json!([candidate("t0", 32, "p0"), candidate("t1", 32, "p0")]);
    p["pointer"] = event("pe", "pointermove", 1, &["t0"]);
    p["focus"] = json!({"event_id": "f", "sequence": 2, "focused_at": NOW, "realm_time_ms": 1,
        "path": candidate("x", 20, "p0")["path"].clone(), "summary": []});
    let r = project(&p, 1, 1 << 20).unwrap();
    assert_eq!(r["candidates"][0]["path"].as_array().unwrap().len(), 32);
    let secondary = r["candidates"][1]["path"].as_array().unwrap();
    assert_eq!(secondary.len(), 12);
    assert_eq!(secondary[4], json!({"kind": "omitted", "count": 21}));
    assert_eq!(secondary[11]["mount_id"], "m31");
    let focus = r["focus"]["path"].as_array().unwrap();
    assert_eq!((focus.len(), &focus[4]), (12, &json!({"kind": "omitted", "count": 9})));
}

#[test]
fn summary_state_keeps_only_known_keys_and_texts_are_truncated() {
    let mut p = v1_payload();
    p["candidates"][0]["summary"] = json!({"role": "r".repeat(100), "text": "a\r\nb\u{1}c", "state": {"checked": true, "level": 3}});
    let r = project(&p, 1, 1 << 20).unwrap();
    let s = &r["candidates"][0]["summary"];
    assert_eq!(s["role"].as_str().unwrap().len(), 64);
    assert_eq!(s["text"], "a\nbc");
    assert_eq!(s["state"], json!({"checked": true}));
}

#[test]
fn byte_budget_drops_candidates_and_omissions_then_fails() {
    let mut p = lattice_payload();
    p["candidates"] = json!((0..4).map(|i| candidate(&format!("t{i}"), 3, "p0")).collect::<Vec<_>>());
    p["omissions"] = json!(vec![json!({"reason": "child-timeout", "detail": "transport:timeout:stage:query-await"}); 3]);
    let full = projection::render_text(&project(&p, 1, 1 << 20).unwrap()).len();
    let r = project(&p, 1, full - 1).unwrap();
    assert_eq!(r["omissions"].as_array().unwrap().len(), 2);
    assert_eq!(r["partial"]["omissions_omitted"], 1);
    let tight = project(&p, 1, full - 400).unwrap();
    assert!(tight["candidates"].as_array().unwrap().len() < 4);
    assert_eq!(tight["partial"]["candidates_omitted"].as_u64().unwrap() as usize, 4 - tight["candidates"].as_array().unwrap().len());
    assert_eq!(project(&p, 1, 100), Err(ProjectError::Budget));
}
