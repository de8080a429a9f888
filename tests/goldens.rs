//! The golden snapshots are valid `wippy.attention.v1` payloads (normalization keeps every field's
//! grammar) and survive encode then expand in v2, v3 and v4 byte for byte. Each is an insta
//! `.snap` file whose body is the JSON document (`harness/src/golden.rs`).

use attention_harness::contract::attention_v1::validate_attention;
use attention_harness::contract::canonical::canonical_json;
use attention_harness::contract::codec;
use attention_harness::golden::{golden_dir, golden_path, read_golden};
use attention_harness::{Engine, Layout};
use serde_json::Value;

fn goldens() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).expect("fixtures/golden") {
        let path = entry.unwrap().path();
        // `.snap` only: a pending `.snap.new` is not a golden until `cargo insta review` accepts it.
        if path.extension().is_some_and(|e| e == "snap") {
            let v = read_golden(&path).unwrap_or_else(|e| panic!("{e}"));
            out.push((path.file_name().unwrap().to_string_lossy().to_string(), v));
        }
    }
    for layout in Layout::ALL {
        for engine in Engine::ALL {
            let path = golden_path(&format!("boundary-{layout}-{engine}"));
            assert!(path.exists(), "no golden for {layout} x {engine}: {}", path.display());
        }
    }
    out
}

#[test]
fn every_golden_is_a_valid_v1_payload() {
    for (name, v) in goldens() {
        validate_attention(&v, false).unwrap_or_else(|stage| panic!("{name} fails the v1 schema at {stage:?}"));
    }
}

#[test]
fn every_golden_round_trips_through_v2_v3_v4_byte_for_byte() {
    for (name, v) in goldens() {
        let original = canonical_json(&v).unwrap();
        for version in [2u64, 3, 4] {
            let compact = codec::encode(&v, version).unwrap_or_else(|e| panic!("{name} v{version} encode: {e:?}"));
            let (back, _) =
                codec::expand(version, &compact, None).unwrap_or_else(|e| panic!("{name} v{version} expand: {e:?}"));
            assert_eq!(canonical_json(&back).unwrap(), original, "{name} changed in the v{version} round trip");
        }
    }
}

/// The shipped scenario goldens (`fixtures/scenarios/*.golden.json`, the golden form of
/// `scenario::golden`) are still valid v1 payloads: dropping moves and move-only candidates and
/// ranking sequences leaves no dangling reference and no broken grammar (an action_ref's
/// placeholder digest aside).
#[test]
fn every_shipped_scenario_golden_is_a_valid_v1_payload() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/scenarios") {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".golden.json") {
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // An action_ref's path_digest is a placeholder, as every golden's digests are
            // (`golden::normalize`); the digest of the normalized path stands in for the check.
            for c in v["candidates"].as_array_mut().unwrap() {
                if c.get("action_ref").is_some() {
                    assert_eq!(c["action_ref"]["path_digest"], attention_harness::golden::DIGEST);
                    c["action_ref"]["path_digest"] =
                        Value::String(attention_harness::contract::canonical::path_digest(&c["path"]).unwrap());
                }
            }
            validate_attention(&v, v.get("selection").is_some())
                .unwrap_or_else(|stage| panic!("{} fails the v1 schema at {stage:?}", path.display()));
            assert!(
                v["recent_events"].as_array().unwrap().iter().all(|e| e["type"] != "pointermove"),
                "{}: a golden holds no moves",
                path.display()
            );
            seen += 1;
        }
    }
    // boundary-at-zoom-125 (2 snapshots), drag-selection-across-frame (1), overlay-over-scrolled-panel
    // (1), signup-breakpoint-edge (2, QA's own application: fixtures/apps/signup), each in both engines.
    assert_eq!(seen, 12, "scenario goldens in {}", dir.display());
}

/// The scenario golden form (`scenario::golden`) on snapshots shaped as the runtime reports them: what
/// the delivered moves change is gone, what a layout bug changes is kept.
mod scenario_golden_form {
    use attention_harness::scenario::golden::{golden_form, golden_text};
    use serde_json::{json, Value};

    const MOVE: &str = "pointermove";

    fn ev(id: &str, seq: u64, ty: &str, x: f64, cands: &[&str]) -> Value {
        json!({"event_id": id, "sequence": seq, "type": ty, "observed_at": "2026-12-02T03:00:00.000Z",
               "realm_time_ms": seq as f64 / 1000.0, "point": {"x": x, "y": 10}, "pointer_id": 1,
               "pointer_type": "mouse", "buttons": 0, "pointer_capture": false, "candidate_ids": cands})
    }

    fn cand(id: &str, name: &str, x: f64, samples: &[&str]) -> Value {
        json!({"target_id": id, "path": [{"kind": "host", "mount_id": "host-1", "generation": 1},
                                         {"kind": "element", "mount_id": format!("r1ab-n{}", id.len()), "generation": 1, "tag_name": "button"}],
               "rect": {"x": x, "y": 0, "width": 10, "height": 10}, "sample_point_ids": samples,
               "occluded": false, "summary": {"role": "button", "name": name},
               "provenance": {"geometry_source": "document", "runtime_source": "document"}})
    }

    /// A snapshot after a press at `down` and moves; `moves` are the moves Chromium delivered on the
    /// way, each with the target it crossed (a load-dependent part), `base` shifts every sequence.
    fn snapshot(moves: &[(&str, &str)], base: u64) -> Value {
        let mut events = vec![ev("e-down", base + 10, "pointerdown", 5.0, &["t-down"])];
        let mut cands =
            vec![cand("t-main", "Main", 100.0, &["p0", "p1", "e-ptr"]), cand("t-down", "Pressed", 5.0, &["e-down"])];
        for (i, (id, target)) in moves.iter().enumerate() {
            events.push(ev(id, base + 20 + i as u64, MOVE, 50.0 + i as f64, &[target]));
            if *target == "t-main" {
                cands[0]["sample_point_ids"].as_array_mut().unwrap().push(json!(id));
            } else {
                cands.push(cand(target, "Crossed", 50.0, &[id]));
            }
        }
        let ptr = ev("e-ptr", base + 99, MOVE, 100.0, &["t-main"]);
        events.push(ptr.clone());
        json!({"schema": "wippy.attention.v1", "snapshot_id": format!("snap-{base}"), "host_instance_id": "host-1",
               "mount_generation": 1, "created_at": "2026-12-02T03:00:01.000Z",
               "coordinate_space": {"kind": "host-viewport", "width": 1280, "height": 720, "device_pixel_ratio": 1},
               "capture": {"radius_css_px": 20, "grid_step_css_px": 5, "sampled_points": 2,
                           "points": [{"point_id": "p0", "x": 100, "y": 10}, {"point_id": "p1", "x": 105, "y": 10}],
                           "duration_ms": 3.5, "complete": false},
               "pointer": ptr, "recent_events": events, "candidates": cands,
               "omissions": [{"reason": "redacted", "point_id": "p1"}]})
    }

    #[test]
    fn more_or_fewer_delivered_moves_give_the_same_golden() {
        let few = golden_text(&snapshot(&[], 1_000));
        let many = golden_text(&snapshot(&[("e-m1", "t-x"), ("e-m2", "t-main"), ("e-m3", "t-y")], 987_654));
        assert_eq!(few, many);
        let form = golden_form(&snapshot(&[("e-m1", "t-x")], 5));
        let types: Vec<&str> =
            form["recent_events"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["pointerdown"], "moves dropped, the press kept");
        let names: Vec<&str> =
            form["candidates"].as_array().unwrap().iter().map(|c| c["summary"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Main", "Pressed"], "the move-only target dropped, the press's kept");
        assert_eq!(form["recent_events"][0]["sequence"], 1);
        assert_eq!(form["pointer"]["sequence"], 2, "the press came before the pointer");
    }

    #[test]
    fn what_a_layout_bug_changes_changes_the_golden() {
        let base = snapshot(&[("e-m1", "t-x")], 1);
        let text = golden_text(&base);
        let mut changes: Vec<(&str, Value)> = Vec::new();
        let mut v = base.clone();
        v["candidates"][0]["rect"]["x"] = json!(101);
        changes.push(("a rect", v));
        let mut v = base.clone();
        v["candidates"][0]["summary"]["name"] = json!("Other");
        changes.push(("a name", v));
        let mut v = base.clone();
        v["candidates"][1]["summary"]["role"] = json!("link");
        changes.push(("the pressed target's role", v));
        let mut v = base.clone();
        v["candidates"][0]["path"][1]["tag_name"] = json!("a");
        changes.push(("a path segment", v));
        let mut v = base.clone();
        v["candidates"][0]["sample_point_ids"] = json!(["p0", "e-ptr"]);
        changes.push(("the sample points that found a candidate", v));
        let mut v = base.clone();
        v["omissions"] = json!([{"reason": "excluded", "point_id": "p1"}]);
        changes.push(("an omission", v));
        let mut v = base.clone();
        v["capture"]["points"][1]["x"] = json!(104);
        changes.push(("a sample point", v));
        let mut v = base.clone();
        v["pointer"]["point"]["x"] = json!(99);
        changes.push(("the pointer", v));
        let mut v = base.clone();
        v["recent_events"][0]["point"]["x"] = json!(6);
        changes.push(("where the press was", v));
        let mut v = base.clone();
        v["selection"] = json!({"text": "Hello"});
        changes.push(("a selection", v));
        for (what, v) in changes {
            assert_ne!(golden_text(&v), text, "{what} did not change the golden");
        }
    }

    #[test]
    fn the_focus_keeps_its_candidate_and_its_place_in_the_order() {
        let mut s = snapshot(&[], 1);
        s["focus"] = json!({"event_id": "e-focus", "sequence": 50, "focused_at": "2026-12-02T03:00:00.000Z",
                            "realm_time_ms": 0.05, "candidate_id": "t-focus", "path": [], "summary": {"role": "textbox"}});
        s["candidates"].as_array_mut().unwrap().push(cand("t-focus", "Field", 300.0, &["e-focus", "e-m9"]));
        let form = golden_form(&s);
        assert_eq!(form["focus"]["candidate_id"], "t-focus");
        let focused = form["candidates"].as_array().unwrap().iter().position(|c| c["target_id"] == "t-focus");
        assert_eq!(focused, Some(1), "the focus target before the press's: {form}");
        assert_eq!(form["candidates"][1]["sample_point_ids"], json!(["e-focus"]));
        assert_eq!(
            (form["recent_events"][0]["sequence"].as_u64(), form["focus"]["sequence"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(form["pointer"]["sequence"], 3);
    }
}
