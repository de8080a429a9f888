//! Canonical JSON and digests: goldens, Go scalar formatting, idempotence (property), and
//! fuzz-style properties that no input panics the validator or the expanders.

use crate::contract_support;

use attention_harness::contract::canonical::{canonical_json, path_digest, path_digest_matches, sha256_prefixed};
use attention_harness::contract::validate::validate_slice;
use attention_harness::contract::{codec, json, projection, validate};
use contract_support::*;
use proptest::prelude::*;
use serde_json::{json, Value};

#[test]
fn spec_fixture_content_is_its_own_canonical_form() {
    let arr = spec_array();
    let content = arr[0]["content"].as_str().unwrap();
    let payload: Value = serde_json::from_str(content).unwrap();
    let c = canonical_json(&payload).unwrap();
    assert_eq!(c, content);
    assert_eq!(c.len(), 752);
    assert_eq!(
        sha256_prefixed(c.as_bytes()),
        "sha256:5f3351c84704bdd064d1da1cd4c2dc16ce5be1b521c0c86051cd7824177d895c"
    );
}

#[test]
fn path_digest_golden() {
    let path = v1_payload()["candidates"][0]["path"].clone();
    let golden = "sha256:2c46a9ab38e76737a2418025f51d2c7f2f3d743bedaba84a04598fb2aed7758f";
    assert_eq!(path_digest(&path).unwrap(), golden);
    assert!(path_digest_matches(&path, golden));
    assert!(!path_digest_matches(&path, &sha256_prefixed(b"")));
}

#[test]
fn canonical_scalars() {
    let cases = [
        ("3.0", "3"),
        ("1e2", "100"),
        ("1E21", "1e+21"),
        ("-1e-7", "-1e-7"),
        ("1.25e-5", "0.0000125"),
        ("-0", "0"),
        ("9007199254740993", "9007199254740993"),
        ("\"a<b>&c\u{2028}\"", "\"a\\u003cb\\u003e\\u0026c\\u2028\""),
        ("\"\\u0000\\u001b\\b\\f\"", "\"\\u0000\\u001b\\b\\f\""),
        ("{\"a\":null,\"b\":{\"c\":null}}", "{\"b\":[]}"),
        ("[{}, []]", "[[],[]]"),
        // serde_json (without float_roundtrip) reads this one ulp off; Go and our reader do not.
        ("3.958259281516499e-302", "3.958259281516499e-302"),
        ("18446744073709551615", "18446744073709552000"),
    ];
    for (input, expected) in cases {
        let v: Value = json::parse(input).unwrap();
        assert_eq!(canonical_json(&v).unwrap(), expected, "{input}");
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        (-1e25f64..1e25).prop_map(|f| json!(f)),
        "\\PC{0,8}".prop_map(Value::from),
        "[<>&\u{2028}\u{2029}\u{0}-\u{1f}\"\\\\a-c]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-cé<_A-C]{0,3}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn canonical_is_idempotent(v in arb_json()) {
        let once = canonical_json(&v).unwrap();
        let reparsed: Value = json::parse(&once).unwrap();
        prop_assert_eq!(canonical_json(&reparsed).unwrap(), once);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_validator(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = validate_slice(&bytes, &opts());
    }

    #[test]
    fn arbitrary_json_never_panics_validator_codecs_or_projection(v in arb_json()) {
        let _ = validate(&v, &opts());
        let _ = validate(&json!([v.clone()]), &opts());
        let mut env = seal("a", "wippy.attention", 1, &v);
        for version in 1..=4u64 {
            env["version"] = json!(version);
            let _ = validate(&json!([env.clone()]), &opts());
            let _ = codec::expand(version, &v, None);
        }
        let _ = projection::project(&v, 4, 4096);
    }

    #[test]
    fn mutated_compact_payloads_never_panic(
        version in 2u64..=4,
        path in prop::collection::vec(prop::sample::select(vec!["capture", "candidates", "path_dictionary", "focus", "pointer", "recent_events", "point_encoding", "sample_refs", "path_indices", "0", "1"]), 1..4),
        replacement in arb_json(),
    ) {
        let mut c = codec::encode(&lattice_payload(), version).unwrap();
        let mut pointer = String::new();
        for key in &path {
            let next = format!("{pointer}/{key}");
            if c.pointer(&next).is_none() { break }
            pointer = next;
        }
        if let Some(target) = c.pointer_mut(&pointer) { *target = replacement; }
        let _ = codec::expand(version, &c, None);
        let _ = validate(&json!([seal("a", "wippy.attention", version, &c)]), &opts());
    }
}
