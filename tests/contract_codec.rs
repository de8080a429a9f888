//! v2/v3/v4 codecs: golden shapes, dictionary and link rules, lattice encoding, limits, and a
//! property test that `expand(encode(x))` is `x` byte for byte for generated snapshots.

use crate::contract_support;

use attention_harness::contract::canonical::{canonical_json, path_digest};
use attention_harness::contract::codec::{self, expand, ExpandError};
use contract_support::*;
use proptest::prelude::*;
use rstest::rstest;
use serde_json::{json, Value};

fn roundtrip(p: &Value, version: u64) -> Value {
    let compact = codec::encode(p, version).unwrap_or_else(|e| panic!("encode v{version}: {e}"));
    let (expanded, bytes) = expand(version, &compact, None).unwrap_or_else(|e| panic!("expand v{version}: {e}"));
    let c = canonical_json(&expanded).unwrap();
    assert_eq!(c, canonical_json(p).unwrap(), "v{version} round trip");
    assert_eq!(bytes, c.len());
    compact
}

#[rstest]
#[case(2)]
#[case(3)]
#[case(4)]
fn fixtures_round_trip(#[case] version: u64) {
    roundtrip(&v1_payload(), version);
    roundtrip(&v1_payload_with_action_ref(), version);
    roundtrip(&lattice_payload(), version);
}

#[test]
fn v2_shape_of_the_fixture() {
    let c = roundtrip(&lattice_payload(), 2);
    assert_eq!(c["schema"], "wippy.attention.v2");
    assert_eq!(c["path_dictionary"], v1_payload()["candidates"][0]["path"]);
    assert_eq!(c["candidates"][0]["path_indices"], json!([0, 1]));
    // p0..p3 is a range, p10 an index, the pointer event an id string.
    assert_eq!(c["candidates"][0]["sample_refs"], json!([[0, 4], 10, "pe"]));
    assert_eq!(
        c["capture"]["point_encoding"],
        json!({"kind": "css-euclidean-grid.v1", "origin": {"x": 120, "y": 112}})
    );
    assert!(c["capture"].get("points").is_none());
}

#[test]
fn v3_packs_segments_and_v4_is_v3_with_selection() {
    let mut p = lattice_payload();
    p["candidates"][0]["path"][0]["rect"] = json!({"x": 0, "y": 0, "width": 1280, "height": 720});
    p["candidates"][0]["path"][0]["local_to_parent"] = json!({"matrix": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "convention": "dommatrix-column-major", "direction": "local-to-parent"});
    let c = roundtrip(&p, 3);
    assert_eq!(
        c["path_dictionary"][0],
        json!(["host", "host-1", 3, {"rect": [0, 0, 1280, 720], "local_to_parent": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}])
    );
    // A segment without attributes packs its attrs as [] (an empty table).
    assert_eq!(canonical_json(&c["path_dictionary"][1]).unwrap(), r#"["element","leaf-1",1,{"tag_name":"span"}]"#);
    let mut bare = v1_payload();
    bare["candidates"][0]["path"][1].as_object_mut().unwrap().remove("tag_name");
    let c = roundtrip(&bare, 3);
    assert_eq!(canonical_json(&c["path_dictionary"][1]).unwrap(), r#"["element","leaf-1",1,[]]"#);
    let c4 = roundtrip(&p, 4);
    assert_eq!(c4["schema"], "wippy.attention.v4");
}

#[test]
fn lattice_overrides_and_additional_points() {
    let mut p = lattice_payload();
    p["capture"]["points"][5]["x"] = json!(999.5);
    let extra = json!({"point_id": "extra", "x": 1, "y": 2});
    p["capture"]["points"].as_array_mut().unwrap().push(extra.clone());
    p["capture"]["sampled_points"] = json!(50);
    let c = roundtrip(&p, 2);
    let enc = &c["capture"]["point_encoding"];
    assert_eq!(enc["overrides"], json!([{"index": 5, "point": p["capture"]["points"][5]}]));
    assert_eq!(enc["additional_points"], json!([extra]));
}

#[test]
fn default_lattice_has_49_points() {
    assert_eq!(codec::lattice(20.0, 5.0).len(), 49);
    assert_eq!(codec::lattice(0.0, 5.0), vec![(0.0, 0.0)]);
}

fn v2() -> Value {
    codec::encode(&lattice_payload(), 2).unwrap()
}

type Mutate = fn(&mut Value);

#[rstest]
#[case::schema(|c: &mut Value| c["schema"] = json!("wippy.attention.v1"), "invalid compressed Attention context")]
#[case::selection_in_v2(|c: &mut Value| c["selection"] = json!({}), "invalid compressed Attention context")]
#[case::step_below_one(|c: &mut Value| c["capture"]["grid_step_css_px"] = json!(0.5), "invalid compressed Attention context: capture")]
#[case::points_and_encoding(|c: &mut Value| c["capture"]["points"] = json!([]), "invalid compressed Attention context: capture")]
#[case::focus_with_path(|c: &mut Value| c["focus"] = json!({"event_id": "f", "path": []}), "invalid compressed Attention context: observations")]
#[case::count_mismatch(|c: &mut Value| c["capture"]["sampled_points"] = json!(48), "invalid compressed Attention context: points")]
#[case::unused_override(|c: &mut Value| c["capture"]["point_encoding"]["overrides"] = json!([{"index": 49, "point": {"point_id": "z", "x": 0, "y": 0}}]), "invalid compressed Attention context: points")]
#[case::point_collides_with_event(|c: &mut Value| c["capture"]["point_encoding"]["overrides"] = json!([{"index": 0, "point": {"point_id": "pe", "x": 0, "y": 0}}]), "invalid compressed Attention context: points")]
#[case::duplicate_dictionary(|c: &mut Value| { let d = c["path_dictionary"][0].clone(); c["path_dictionary"].as_array_mut().unwrap().push(d); }, "invalid compressed Attention context: dictionary")]
#[case::first_use_order(|c: &mut Value| c["candidates"][0]["path_indices"] = json!([1, 0]), "invalid compressed Attention context: candidates")]
#[case::index_out_of_range(|c: &mut Value| c["candidates"][0]["path_indices"] = json!([0, 2]), "invalid compressed Attention context: candidates")]
#[case::range_past_points(|c: &mut Value| c["candidates"][0]["sample_refs"] = json!([[47, 3]]), "invalid compressed Attention context: candidates")]
#[case::range_zero(|c: &mut Value| c["candidates"][0]["sample_refs"] = json!([[0, 0]]), "invalid compressed Attention context: candidates")]
#[case::duplicate_sample(|c: &mut Value| c["candidates"][0]["sample_refs"] = json!([0, [0, 2]]), "invalid compressed Attention context: candidates")]
#[case::unknown_event(|c: &mut Value| c["candidates"][0]["sample_refs"] = json!(["nope"]), "invalid compressed Attention context: candidates")]
#[case::duplicate_target(|c: &mut Value| { let x = c["candidates"][0].clone(); c["candidates"].as_array_mut().unwrap().push(x); }, "invalid compressed Attention context: candidates")]
#[case::unused_entry(|c: &mut Value| c["path_dictionary"].as_array_mut().unwrap().push(json!({"kind": "panel", "mount_id": "x", "generation": 0})), "invalid compressed Attention context: focus")]
#[case::dangling_link(|c: &mut Value| c["pointer"]["candidate_ids"] = json!(["target-9"]), "invalid compressed Attention context: links")]
fn v2_expansion_rules(#[case] mutate: Mutate, #[case] message: &str) {
    let mut c = v2();
    assert!(expand(2, &c, None).is_ok());
    mutate(&mut c);
    assert_eq!(expand(2, &c, None).unwrap_err().to_string(), message);
}

#[test]
fn v2_budget_is_the_smaller_of_remaining_and_262144() {
    let c = v2();
    let (_, n) = expand(2, &c, None).unwrap();
    assert!(expand(2, &c, Some(n)).is_ok());
    assert!(matches!(expand(2, &c, Some(n - 1)), Err(ExpandError::Invalid(_) | ExpandError::Budget)));
    assert_eq!(expand(2, &c, Some(10)), Err(ExpandError::Budget));
}

#[test]
fn v3_and_v4_specific_rules() {
    let mut c3 = codec::encode(&v1_payload(), 3).unwrap();
    c3["path_dictionary"][0] = json!(["host", "host-1", 3]);
    assert_eq!(expand(3, &c3, None).unwrap_err().to_string(), "invalid compressed Attention context: v3 dictionary");
    let mut c3 = codec::encode(&v1_payload(), 3).unwrap();
    c3["path_dictionary"][0] = json!(["window", "host-1", 3, []]);
    assert!(expand(3, &c3, None).is_err(), "unpacked segments must be v1 segments");
    let mut c3 = codec::encode(&v1_payload(), 3).unwrap();
    c3["path_dictionary"][0] = json!(["host", "host-1", 3, {"rect": [0, 0, -1, 0]}]);
    assert!(expand(3, &c3, None).is_err());

    let mut c4 = codec::encode(&v1_payload(), 4).unwrap();
    c4["candidates"][0]["path_indices"] = json!([1, 0]);
    assert_eq!(expand(4, &c4, None).unwrap_err().to_string(), "invalid compressed Attention context: v4 envelope");
    // Legacy selection paths do not satisfy v4 dictionary usage.
    let mut c4 = codec::encode(&v1_payload(), 4).unwrap();
    c4["selection"] = json!({"anchor_path": [], "focus_path": []});
    assert!(expand(4, &c4, None).is_err());
}

#[test]
fn v4_selection_only_entries_are_dropped_for_expansion() {
    let mut p = v1_payload();
    let sel_path = json!([{"kind": "host", "mount_id": "host-1", "generation": 3}, {"kind": "iframe", "mount_id": "frame-1", "generation": 2, "frame_origin": "http://127.0.0.1:8080"}]);
    p["selection"] = json!({
        "selection_id": "s1", "selected_at": "2026-09-04T12:00:00.5Z", "kind": "text", "collapsed": false,
        "direction": "none", "text": "a < b & c", "anchor_path": sel_path, "focus_path": sel_path, "ranges": []
    });
    let c = roundtrip(&p, 4);
    assert_eq!(c["selection"]["anchor_path_indices"], json!([0, 2]));
    assert_eq!(c["path_dictionary"].as_array().unwrap().len(), 3);
}

#[test]
fn codec_point_and_membership_limits() {
    // 4096 explicit points are accepted by the v2 expander, 4097 are not.
    let mut p = v1_payload();
    p["capture"]["radius_css_px"] = json!(0);
    let pts: Vec<Value> = (0..4096).map(|i| json!({"point_id": format!("p{i}"), "x": 120, "y": i})).collect();
    p["capture"]["points"] = json!(pts);
    p["capture"]["sampled_points"] = json!(4096);
    p["candidates"][0]["sample_point_ids"] = json!((0..4096).map(|i| format!("p{i}")).collect::<Vec<_>>());
    let c = roundtrip(&p, 2);
    // r=0 gives a one-point lattice; plain points are smaller here, and the refs are one range.
    assert!(c["capture"].get("points").is_some());
    assert_eq!(c["candidates"][0]["sample_refs"], json!([[0, 4096]]));
    let mut over = c.clone();
    over["capture"]["points"].as_array_mut().unwrap().push(json!({"point_id": "p4096", "x": 0, "y": 0}));
    over["capture"]["sampled_points"] = json!(4097);
    assert_eq!(expand(2, &over, None).unwrap_err().to_string(), "invalid compressed Attention context: capture");
    let mut over = c.clone();
    over["capture"]["points"].as_array_mut().unwrap().push(json!({"point_id": "p4096", "x": 0, "y": 0}));
    assert_eq!(expand(2, &over, None).unwrap_err().to_string(), "invalid compressed Attention context: points");
    // A lattice with (2*extent+1)^2 > 4096 is refused: r=100, step=3 gives extent 33.
    let mut big = v2();
    big["capture"]["radius_css_px"] = json!(100);
    big["capture"]["grid_step_css_px"] = json!(3);
    assert_eq!(expand(2, &big, None).unwrap_err().to_string(), "invalid compressed Attention context: points");
}

#[test]
fn total_memberships_16384_pass_16385_fail() {
    let mut p = v1_payload();
    p["capture"]["radius_css_px"] = json!(0);
    let pts: Vec<Value> = (0..4096).map(|i| json!({"point_id": format!("{i}"), "x": 0, "y": i})).collect();
    p["capture"]["points"] = json!(pts);
    p["capture"]["sampled_points"] = json!(4096);
    let all: Vec<String> = (0..4096).map(|i| format!("{i}")).collect();
    let mut cands = Vec::new();
    for i in 0..4 {
        let mut c = p["candidates"][0].clone();
        c["target_id"] = json!(format!("t{i}"));
        c["sample_point_ids"] = json!(all);
        cands.push(c);
    }
    p["candidates"] = json!(cands);
    let c = roundtrip(&p, 2);
    let mut over = c.clone();
    let mut extra = over["candidates"][0].clone();
    extra["target_id"] = json!("t4");
    extra["sample_refs"] = json!([0]);
    over["candidates"].as_array_mut().unwrap().push(extra);
    assert_eq!(expand(2, &over, None).unwrap_err().to_string(), "invalid compressed Attention context: candidates");
}

#[test]
fn encode_refuses_what_compact_versions_cannot_say() {
    let mut p = v1_payload();
    p["capture"]["grid_step_css_px"] = json!(0.5);
    assert!(codec::encode(&p, 2).is_err());
    let mut p = v1_payload();
    let c = p["candidates"][0].clone();
    p["candidates"].as_array_mut().unwrap().push(c);
    assert!(codec::encode(&p, 2).is_err(), "duplicate target ids");
    assert!(codec::encode(&v1_payload(), 5).is_err());
}

// ------------------------------------------------------------------------------------------
// Property: expand(encode(x)) == x for generated snapshots
// ------------------------------------------------------------------------------------------

fn seg_pool() -> Vec<Value> {
    vec![
        json!({"kind": "host", "mount_id": "host-1", "generation": 3}),
        json!({"kind": "panel", "mount_id": "panel-1", "generation": 1, "panel_id": "main", "rect": {"x": 0, "y": 0, "width": 800.5, "height": 600}}),
        json!({"kind": "iframe", "mount_id": "frame-1", "generation": 2, "frame_origin": "http://localhost:8080", "local_to_parent": {"matrix": [1,0,0,0,0,1,0,0,0,0,1,0,10.25,20,0,1], "convention": "dommatrix-column-major", "direction": "local-to-parent"}}),
        json!({"kind": "web-fragment", "mount_id": "frag-1", "generation": 0, "package_id": "pkg<&>", "coordinate_quality": "approximate"}),
        json!({"kind": "shadow-root", "mount_id": "sr-1", "generation": 7, "clip_rect": {"x": 1, "y": 2, "width": 3, "height": 4}}),
        json!({"kind": "element", "mount_id": "leaf-1", "generation": 1, "tag_name": "button", "label": "Go \u{2028} \"now\""}),
        json!({"kind": "element", "mount_id": "leaf-2", "generation": 1, "selector_hint": "#x > .y"}),
    ]
}

prop_compose! {
    fn snapshot()(
        radius in prop::sample::select(vec![0.0, 5.0, 10.0, 20.0, 12.5]),
        step in prop::sample::select(vec![1.0, 2.5, 5.0, 10.0]),
        ox in -50i32..2000, oy in -50i32..2000, half in any::<bool>(),
        perturb in prop::collection::vec(0usize..500, 0..3),
        extra in 0usize..3,
        paths in prop::collection::vec(prop::collection::vec(0usize..7, 1..6), 0..6),
        samples in prop::collection::vec(prop::collection::vec(0usize..60, 1..8), 6),
        with_pointer in any::<bool>(), with_focus in any::<bool>(), n_events in 0usize..4,
        text in "[a-z<>& é\u{7f}\n]{0,12}", action in any::<bool>(),
    ) -> Value {
        let pool = seg_pool();
        let (ox, oy) = (ox as f64 + if half { 0.5 } else { 0.0 }, oy as f64);
        let mut points: Vec<Value> = codec::lattice(radius, step).iter().enumerate()
            .map(|(i, (dx, dy))| json!({"point_id": format!("p{i}"), "x": ox + dx, "y": oy + dy})).collect();
        for k in perturb { if !points.is_empty() { let i = k % points.len(); points[i]["y"] = json!(-1.25); } }
        for k in 0..extra { points.push(json!({"point_id": format!("x{k}"), "x": k, "y": 0.1})); }
        let mut obs: Vec<String> = Vec::new();
        if with_pointer { obs.push("ptr".into()); }
        for i in 0..n_events { obs.push(format!("ev{i}")); }
        if with_focus { obs.push("foc".into()); }
        let ids: Vec<String> = points.iter().map(|p| p["point_id"].as_str().unwrap().to_string()).chain(obs.iter().cloned()).collect();
        let mut candidates = Vec::new();
        for (i, path_idx) in paths.iter().enumerate() {
            let path: Vec<Value> = path_idx.iter().map(|&k| pool[k].clone()).collect();
            let mut sample: Vec<String> = Vec::new();
            for &s in &samples[i] { let id = ids[s % ids.len()].clone(); if !sample.contains(&id) { sample.push(id); } }
            let rect = json!({"x": i, "y": 2.5, "width": 10, "height": 0});
            let mut c = json!({"target_id": format!("t{i}"), "path": path, "rect": rect, "sample_point_ids": sample,
                "occluded": i % 2 == 1, "summary": if i == 0 { json!([]) } else { json!({"role": "button", "text": text, "state": {"checked": true, "level": 2}}) }});
            if action {
                let leaf = path.last().unwrap();
                c["action_ref"] = json!({"snapshot_id": "snap", "target_id": format!("t{i}"), "host_instance_id": "host-1",
                    "mount_id": leaf["mount_id"], "generation": leaf["generation"], "path_digest": path_digest(&json!(path)).unwrap(), "rect": rect});
            }
            candidates.push(c);
        }
        let target_ids: Vec<String> = (0..candidates.len()).map(|i| format!("t{i}")).collect();
        let mut p = json!({
            "schema": "wippy.attention.v1", "snapshot_id": "snap", "host_instance_id": "host-1", "mount_generation": 3,
            "created_at": "2026-09-04T12:00:00Z",
            "coordinate_space": {"kind": "host-viewport", "width": 1280, "height": 720, "device_pixel_ratio": 1.25},
            "capture": {"radius_css_px": radius, "grid_step_css_px": step, "sampled_points": points.len(), "points": points, "duration_ms": 3.5, "complete": true},
            "recent_events": (0..n_events).map(|i| event(&format!("ev{i}"), if i % 2 == 0 {"pointermove"} else {"click"}, i as u32, &target_ids.iter().take(i).map(String::as_str).collect::<Vec<_>>())).collect::<Vec<_>>(),
            "candidates": candidates,
            "omissions": [{"reason": "child-timeout", "mount_id": "frame-1", "detail": "transport:timeout:stage:query-await"}],
        });
        if with_pointer { p["pointer"] = event("ptr", "pointermove", 9, &target_ids.iter().take(1).map(String::as_str).collect::<Vec<_>>()); }
        if with_focus && !paths.is_empty() {
            p["focus"] = json!({"event_id": "foc", "sequence": 1, "focused_at": "2026-09-04T11:59:59Z", "realm_time_ms": 1.5,
                "candidate_id": "t0", "path": [pool[0].clone(), pool[6].clone()], "summary": {"name": "n"}});
        } else if with_focus {
            // A sample id may name the focus only when there is one.
            if let Some(arr) = p["candidates"].as_array_mut() { for c in arr { c["sample_point_ids"].as_array_mut().unwrap().retain(|s| s != "foc"); if c["sample_point_ids"].as_array().unwrap().is_empty() { c["sample_point_ids"] = json!(["p0"]); } } }
        }
        p
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn encode_then_expand_round_trips(p in snapshot()) {
        let valid = attention_harness::contract::attention_v1::validate_attention(&p, false);
        prop_assume!(valid.is_ok());
        for version in [2u64, 3, 4] {
            let compact = codec::encode(&p, version).unwrap();
            let (expanded, bytes) = expand(version, &compact, None).unwrap();
            let c = canonical_json(&expanded).unwrap();
            prop_assert_eq!(&c, &canonical_json(&p).unwrap());
            prop_assert_eq!(bytes, c.len());
        }
    }

    #[test]
    fn typed_snapshot_round_trips(p in snapshot()) {
        prop_assume!(attention_harness::contract::attention_v1::validate_attention(&p, false).is_ok());
        let typed: attention_harness::attention::Snapshot = serde_json::from_value(p.clone()).unwrap();
        prop_assert_eq!(typed.canonical().unwrap(), canonical_json(&p).unwrap());
        prop_assert_eq!(attention_harness::contract::attention_v1::validate_snapshot(&typed), Ok(()));
    }
}

#[test]
fn scattered_points_stay_plain_when_smaller() {
    let mut p = lattice_payload();
    for (i, pt) in p["capture"]["points"].as_array_mut().unwrap().iter_mut().enumerate() {
        pt["x"] = json!(i * 7 % 13);
    }
    let c = roundtrip(&p, 2);
    assert!(c["capture"].get("point_encoding").is_none());
    assert_eq!(c["capture"]["points"], p["capture"]["points"]);
}
