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
