//! The Session validator: one case per error code (each starts from a valid array and changes one
//! thing), every limit at N and N+1, the spec fixtures, inert kinds, visual v1.

use crate::contract_support;

use attention_harness::contract::attention_v1::Stage;
use attention_harness::contract::canonical::{canonical_json, lua_json_len, path_digest, sha256_prefixed};
use attention_harness::contract::codec;
use attention_harness::contract::validate::ATTENTION_V2_MAX_ENVELOPE_BYTES;
use attention_harness::contract::visual::{ResolvedMedia, VisualRequest};
use attention_harness::contract::{validate, Code, Disposition, ValidateOptions};
use contract_support::*;
use rstest::rstest;
use serde_json::{json, Value};

/// Run the validator and return `(code, path, attachment_id)` of the failure.
fn reject(arr: &Value, o: &ValidateOptions) -> (String, String, Option<String>) {
    let e = validate(arr, o).expect_err("expected a rejection");
    (e.code.as_str(), e.path, e.attachment_id)
}

fn accept(arr: &Value, o: &ValidateOptions) -> attention_harness::contract::Admitted {
    match validate(arr, o) {
        Ok(a) => a,
        Err(e) => panic!("expected acceptance, got {e}"),
    }
}

#[test]
fn spec_fixture_is_accepted_verbatim() {
    let arr = spec_array();
    assert_eq!(arr[0]["content_bytes"], 752);
    let a = accept(&arr, &opts());
    assert_eq!(a.attachments.len(), 1);
    assert!(matches!(a.attachments[0].disposition, Disposition::Attention { expanded_bytes: 752, .. }));
    assert_eq!(a.expanded_bytes, 752);
}

#[test]
fn golden_with_action_ref_is_1040_bytes_and_accepted() {
    let p = v1_payload_with_action_ref();
    let c = canonical_json(&p).unwrap();
    assert_eq!(c.len(), 1040);
    assert_eq!(
        sha256_prefixed(c.as_bytes()),
        "sha256:a1fce4912a4ec429c3d07ed3d71b1d5ceec6d327da7d8f7dc04b306f9e23580c"
    );
    assert_eq!(
        p["candidates"][0]["action_ref"]["path_digest"],
        "sha256:2c46a9ab38e76737a2418025f51d2c7f2f3d743bedaba84a04598fb2aed7758f"
    );
    // The committed fixture file is the same envelope.
    let file = read_fixture("golden-v1-action-ref-envelope.json");
    assert_eq!(file[0]["content"], json!(c));
    accept(&file, &opts());
}

#[test]
fn unknown_kinds_and_newer_versions_are_inert() {
    let arr = json!([
        seal("a", "example.future-context", 7, &json!({"anything": [1, 2, {"x": "y"}]})),
        seal("b", "wippy.attention", 5, &json!({"schema": "wippy.attention.v5"})),
        seal("c", "wippy.attention", 99, &json!("opaque")),
        seal("d", "wippy.attention.visual", 2, &json!({"schema": "whatever"})),
    ]);
    let a = accept(&arr, &opts());
    assert!(a.attachments.iter().all(|x| x.is_inert()), "{a:?}");
    assert_eq!(a.expanded_bytes, 0);
}

// ------------------------------------------------------------------------------------------
// One case per code
// ------------------------------------------------------------------------------------------

type Mutate = fn(&mut Value, &mut ValidateOptions<'static>);

fn base() -> Value {
    json!([seal("attachment-1", "wippy.attention", 1, &v1_payload())])
}

fn content_of(arr: &Value) -> Value {
    serde_json::from_str(arr[0]["content"].as_str().unwrap()).unwrap()
}

fn repayload(arr: &mut Value, f: impl FnOnce(&mut Value)) {
    let mut p = content_of(arr);
    f(&mut p);
    let c = canonical_json(&p).unwrap();
    set_content(&mut arr[0], &c);
}

#[rstest]
#[case::array_required(|a: &mut Value, _: &mut ValidateOptions<'static>| *a = json!({"0": a[0].clone()}), "array-required", "context_attachments")]
#[case::too_many(|a: &mut Value, _: &mut ValidateOptions<'static>| { let e = a[0].clone(); *a = json!((0..9).map(|i| { let mut x = e.clone(); x["attachment_id"] = json!(format!("a{i}")); x }).collect::<Vec<_>>()); }, "too-many-attachments", "context_attachments")]
#[case::lowered_count(|a: &mut Value, o: &mut ValidateOptions<'static>| { let mut x = a[0].clone(); x["attachment_id"] = json!("b"); a.as_array_mut().unwrap().push(x); o.max_count = Some(1); }, "too-many-attachments", "context_attachments")]
#[case::total_bytes(|a: &mut Value, _: &mut ValidateOptions<'static>| { a[0]["kind"] = json!("example.blob"); set_content(&mut a[0], &format!("\"{}\"", "x".repeat(32_700))); }, "total-bytes-exceeded", "context_attachments")]
#[case::envelope_extra_member(|a: &mut Value, _: &mut ValidateOptions<'static>| a[0]["required"] = json!(true), "invalid-envelope", "context_attachments[1]")]
#[case::envelope_missing_member(|a: &mut Value, _: &mut ValidateOptions<'static>| { a[0].as_object_mut().unwrap().remove("created_at"); }, "invalid-envelope", "context_attachments[1]")]
#[case::duplicate_id(|a: &mut Value, _: &mut ValidateOptions<'static>| { let x = a[0].clone(); a.as_array_mut().unwrap().push(x); }, "duplicate-attachment-id", "context_attachments[2].attachment_id")]
#[case::attachment_bytes(|_: &mut Value, o: &mut ValidateOptions<'static>| o.max_attachment_bytes = Some(1000), "attachment-bytes-exceeded", "context_attachments[1]")]
#[case::content_size(|a: &mut Value, _: &mut ValidateOptions<'static>| a[0]["content_bytes"] = json!(751), "content-size-mismatch", "context_attachments[1].content_bytes")]
#[case::hash_format(|a: &mut Value, _: &mut ValidateOptions<'static>| a[0]["content_hash"] = json!(format!("sha256:{}", "g".repeat(64))), "invalid-content-hash", "context_attachments[1].content_hash")]
#[case::hash_uppercase(|a: &mut Value, _: &mut ValidateOptions<'static>| { let h = a[0]["content_hash"].as_str().unwrap().to_string(); a[0]["content_hash"] = json!(format!("sha256:{}", h[7..].to_uppercase())); }, "content-hash-mismatch", "context_attachments[1].content_hash")]
#[case::hash_other(|a: &mut Value, _: &mut ValidateOptions<'static>| a[0]["content_hash"] = json!(sha256_prefixed(b"other")), "content-hash-mismatch", "context_attachments[1].content_hash")]
#[case::invalid_json(|a: &mut Value, _: &mut ValidateOptions<'static>| set_content(&mut a[0], "{\"a\":"), "invalid-json", "context_attachments[1].content")]
#[case::noncanonical_float(|a: &mut Value, _: &mut ValidateOptions<'static>| set_content(&mut a[0], "{\"a\":1.0}"), "noncanonical-content", "context_attachments[1].content")]
#[case::noncanonical_order(|a: &mut Value, _: &mut ValidateOptions<'static>| set_content(&mut a[0], "{\"b\":1,\"a\":2}"), "noncanonical-content", "context_attachments[1].content")]
#[case::noncanonical_empty_object(|a: &mut Value, _: &mut ValidateOptions<'static>| set_content(&mut a[0], "{}"), "noncanonical-content", "context_attachments[1].content")]
#[case::noncanonical_html(|a: &mut Value, _: &mut ValidateOptions<'static>| set_content(&mut a[0], "\"<b>\""), "noncanonical-content", "context_attachments[1].content")]
#[case::forbidden_nested(|a: &mut Value, _: &mut ValidateOptions<'static>| { a[0]["kind"] = json!("example.blob"); set_content(&mut a[0], "{\"a\":[{\"b\":{\"runtime_context\":1}}]}"); }, "forbidden-live-field", "context_attachments[1].content")]
#[case::forbidden_authorization_v2_visual(|a: &mut Value, _: &mut ValidateOptions<'static>| { a[0]["kind"] = json!("wippy.attention.visual"); a[0]["version"] = json!(2); set_content(&mut a[0], "{\"authorization\":{\"scope\":\"session\"}}"); }, "forbidden-live-field", "context_attachments[1].content")]
#[case::expired(|a: &mut Value, _: &mut ValidateOptions<'static>| a[0]["expires_at"] = json!(NOW), "expired", "context_attachments[1].expires_at")]
#[case::attention_payload(|a: &mut Value, _: &mut ValidateOptions<'static>| repayload(a, |p| p["extra"] = json!(1)), "invalid-attention-payload", "context_attachments[1].content")]
#[case::unsupported_version(|a: &mut Value, o: &mut ValidateOptions<'static>| { *a = json!([seal("attachment-1", "wippy.attention", 2, &codec::encode(&v1_payload(), 2).unwrap())]); o.supported_attention_versions = vec![1, 3, 4]; }, "unsupported-attention-version", "context_attachments[1]")]
#[case::expansion(|a: &mut Value, _: &mut ValidateOptions<'static>| *a = json!([seal("attachment-1", "wippy.attention", 2, &json!({"schema": "wippy.attention.v2"}))]), "invalid-attention-expansion", "context_attachments[1]")]
#[case::v4_expansion(|a: &mut Value, _: &mut ValidateOptions<'static>| *a = json!([seal("attachment-1", "wippy.attention", 4, &json!({"schema": "wippy.attention.v4"}))]), "invalid-attention-expansion", "context_attachments[1]")]
#[case::reconstruction_root(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = v1_payload(); p["mount_generation"] = json!(-1); *a = json!([seal("attachment-1", "wippy.attention", 3, &force_encode(&p, 3))]); }, "invalid-attention-reconstruction-root", "context_attachments[1]")]
#[case::reconstruction_coordinate_space(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = v1_payload(); p["coordinate_space"]["device_pixel_ratio"] = json!(0); *a = json!([seal("attachment-1", "wippy.attention", 2, &force_encode(&p, 2))]); }, "invalid-attention-reconstruction-coordinate-space", "context_attachments[1]")]
#[case::reconstruction_omission(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = v1_payload(); p["omissions"] = json!([{"reason": "bogus"}]); *a = json!([seal("attachment-1", "wippy.attention", 4, &force_encode(&p, 4))]); }, "invalid-attention-reconstruction-omission", "context_attachments[1]")]
fn each_code_fails_on_its_rule(#[case] mutate: Mutate, #[case] code: &str, #[case] path: &str) {
    let mut arr = base();
    let mut o = opts();
    accept(&arr, &o);
    mutate(&mut arr, &mut o);
    let (c, p, _) = reject(&arr, &o);
    assert_eq!((c.as_str(), p.as_str()), (code, path));
}

/// Encode a payload that is valid for the codec but not for the v1 schema: encode a valid twin
/// and patch the compact form, so the reconstruction (not the expansion) fails.
fn force_encode(broken: &Value, version: u64) -> Value {
    let mut compact = codec::encode(&v1_payload(), version).unwrap();
    for k in ["mount_generation", "coordinate_space", "omissions"] {
        compact[k] = broken[k].clone();
    }
    compact
}

#[test]
fn attachment_id_is_reported_after_the_envelope_check() {
    let mut arr = base();
    arr[0]["content_bytes"] = json!(1);
    assert_eq!(reject(&arr, &opts()).2.as_deref(), Some("attachment-1"));
    let mut arr = base();
    arr[0]["kind"] = json!("Bad");
    assert_eq!(reject(&arr, &opts()).2, None);
}

#[rstest]
#[case::uppercase("Wippy.attention")]
#[case::leading_digit("1abc")]
#[case::double_dot("a..b")]
#[case::dot_dash("a.-b")]
#[case::dash_dot("a-.b")]
#[case::double_dash("a--b")]
#[case::trailing_dot("a.")]
#[case::trailing_dash("a-")]
#[case::underscore("a_b")]
#[case::empty("")]
fn kind_grammar_rejects(#[case] kind: &str) {
    let mut arr = base();
    arr[0]["kind"] = json!(kind);
    assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
}

#[rstest]
#[case::plus_offset("2026-09-04T12:00:00+00:00")]
#[case::ten_fraction_digits("2026-09-04T12:00:00.1234567890Z")]
#[case::not_leap("2026-02-29T12:00:00Z")]
#[case::century_not_leap("2100-02-29T12:00:00Z")]
#[case::hour_24("2026-09-04T24:00:00Z")]
#[case::second_60("2026-09-04T23:59:60Z")]
#[case::lowercase_z("2026-09-04T12:00:00z")]
#[case::empty_fraction("2026-09-04T12:00:00.Z")]
fn created_at_grammar_rejects(#[case] ts: &str) {
    let mut arr = base();
    arr[0]["created_at"] = json!(ts);
    assert_eq!(reject(&arr, &opts()), ("invalid-envelope".into(), "context_attachments[1]".into(), None));
}

#[rstest]
#[case::leap_day("2024-02-29T23:59:59.123456789Z")]
#[case::leap_400("2000-02-29T00:00:00Z")]
#[case::one_digit("2026-09-04T12:00:00.1Z")]
#[case::nine_digits("2026-09-04T12:00:00.000000000Z")]
fn created_at_grammar_accepts(#[case] ts: &str) {
    let mut arr = base();
    arr[0]["created_at"] = json!(ts);
    accept(&arr, &opts());
}

#[rstest]
#[case::version_zero(json!(0))]
#[case::version_fraction(json!(1.5))]
#[case::version_above_safe(json!(9_007_199_254_740_992u64))]
#[case::version_string(json!("1"))]
fn version_rejects(#[case] v: Value) {
    let mut arr = base();
    arr[0]["version"] = v;
    assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
}

#[test]
fn content_type_and_null_members() {
    let mut arr = base();
    arr[0]["content_type"] = json!("application/json; charset=utf-8");
    assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
    // A null member is an absent member to the Session.
    let mut arr = base();
    arr[0]["expires_at"] = Value::Null;
    accept(&arr, &opts());
}

// ------------------------------------------------------------------------------------------
// Limits at N and N+1
// ------------------------------------------------------------------------------------------

fn small(i: usize) -> Value {
    seal(&format!("a{i}"), "example.note", 1, &json!({"n": i}))
}

#[test]
fn eight_attachments_pass_nine_fail() {
    let eight: Vec<Value> = (0..8).map(small).collect();
    accept(&json!(eight), &opts());
    let nine: Vec<Value> = (0..9).map(small).collect();
    assert_eq!(reject(&json!(nine), &opts()).0, "too-many-attachments");
}

/// One blob attachment whose array encoding is exactly `target` bytes.
fn blob_exact(target: usize) -> Value {
    let mut env = seal("blob", "example.blob", 1, &json!(""));
    for n in (target.saturating_sub(400))..target {
        set_content(&mut env, &format!("\"{}\"", "x".repeat(n)));
        if lua_json_len(&json!([env.clone()])) == target {
            return json!([env]);
        }
    }
    panic!("no blob of {target} bytes");
}

#[test]
fn array_32768_passes_32769_fails() {
    let ok = blob_exact(32_768);
    assert_eq!(lua_json_len(&ok), 32_768);
    accept(&ok, &opts());
    let over = blob_exact(32_769);
    assert_eq!(reject(&over, &opts()), ("total-bytes-exceeded".into(), "context_attachments".into(), None));
}

#[test]
fn attachment_limit_at_lowered_cap() {
    // With the default caps an attachment is always 2 bytes shorter than its array, so the
    // per-attachment limit is only reachable with a lowered cap (the Session allows lowering).
    let arr = blob_exact(20_002);
    let o = ValidateOptions { max_attachment_bytes: Some(20_000), ..opts() };
    assert_eq!(lua_json_len(&arr[0]), 20_000);
    accept(&arr, &o);
    let arr = blob_exact(20_003);
    assert_eq!(reject(&arr, &o).0, "attachment-bytes-exceeded");
    // Raising is ignored.
    let o = ValidateOptions { max_total_bytes: Some(1 << 20), ..opts() };
    assert_eq!(reject(&blob_exact(32_769), &o).0, "total-bytes-exceeded");
}

#[test]
fn content_bytes_32768_is_grammar_valid_32769_is_not() {
    let mut arr = base();
    arr[0]["content_bytes"] = json!(32_768);
    assert_eq!(reject(&arr, &opts()).0, "content-size-mismatch");
    arr[0]["content_bytes"] = json!(32_769);
    assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
}

#[rstest]
#[case::id(128, "attachment_id", true)]
#[case::id_over(129, "attachment_id", false)]
#[case::kind(128, "kind", true)]
#[case::kind_over(129, "kind", false)]
fn id_and_kind_128_bytes(#[case] len: usize, #[case] field: &str, #[case] ok: bool) {
    let mut arr = base();
    arr[0][field] = json!(if field == "kind" { format!("a{}", "b".repeat(len - 1)) } else { "i".repeat(len) });
    if ok {
        accept(&arr, &opts());
    } else {
        assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
    }
}

#[test]
fn multibyte_ids_count_bytes() {
    let mut arr = base();
    arr[0]["attachment_id"] = json!("é".repeat(64)); // 128 bytes
    accept(&arr, &opts());
    arr[0]["attachment_id"] = json!(format!("{}x", "é".repeat(64))); // 129 bytes, 65 chars
    assert_eq!(reject(&arr, &opts()).0, "invalid-envelope");
}

fn nested(depth: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = json!([v]);
    }
    v
}

#[test]
fn depth_32_passes_33_fails() {
    let mut arr = json!([seal("d", "example.deep", 1, &json!(0))]);
    set_content(&mut arr[0], &serde_json::to_string(&nested(32)).unwrap());
    accept(&arr, &opts());
    set_content(&mut arr[0], &serde_json::to_string(&nested(33)).unwrap());
    assert_eq!(
        reject(&arr, &opts()),
        ("invalid-json".into(), "context_attachments[1].content".into(), Some("d".into()))
    );
}

#[test]
fn expiry_is_strictly_after_now() {
    let mut arr = base();
    arr[0]["expires_at"] = json!("2026-09-04T12:00:00.000000001Z");
    accept(&arr, &opts());
    arr[0]["expires_at"] = json!("2026-09-04T11:59:59.999Z");
    assert_eq!(reject(&arr, &opts()).0, "expired");
}

// ------------------------------------------------------------------------------------------
// v2-v4 envelopes and the shared expansion budget
// ------------------------------------------------------------------------------------------

/// The fixture with `full` omissions of 400-byte details and one more whose detail is `last`
/// bytes: a knob that grows the compact envelope one byte at a time.
fn padded(full: usize, last: usize) -> Value {
    let mut p = v1_payload();
    let mut om: Vec<Value> = (0..full).map(|_| json!({"reason": "clipped", "detail": "d".repeat(400)})).collect();
    om.push(json!({"reason": "clipped", "detail": "d".repeat(last)}));
    p["omissions"] = json!(om);
    p
}

/// A one-attachment array of a `version` envelope around `padded(full, last)`, with id `id`.
fn compact_array(id: &str, version: u64, full: usize, last: usize) -> Value {
    json!([seal(id, "wippy.attention", version, &codec::encode(&padded(full, last), version).unwrap())])
}

/// `(full, last)` such that the canonical array of `compact_array(id, version, ..)` is exactly
/// `target` bytes (the knob grows it one byte at a time).
fn compact_array_exact(id: &str, version: u64, target: usize) -> (usize, usize) {
    let len = |full: usize, last: usize| canonical_json(&compact_array(id, version, full, last)).unwrap().len();
    let mut full = 0;
    while len(full + 1, 1) <= target {
        full += 1;
    }
    let last = 1 + target - len(full, 1);
    assert!((1..512).contains(&last), "{last}");
    assert_eq!(len(full, last), target);
    (full, last)
}

/// A v2-v4 envelope is bounded by 16,384 bytes of its canonical JSON (the reference fills the
/// spec's lost "known kinds" table; `ATTENTION_V2_MAX_ENVELOPE_BYTES` says why): 16,384 passes,
/// 16,385 fails with `attachment-bytes-exceeded` on that attachment (Lua's 1-based path). Every byte is counted in
/// canonical JSON, Go's HTML escaping included: an id of `<&>` costs 6 bytes a character, so the
/// refused envelope is about 600 bytes fewer in a plain JSON encoding, under the limit there.
#[test]
fn v2_to_v4_envelope_16384_canonical_bytes_pass_16385_fail_with_html_escapes_counted() {
    let id = "<&>".repeat(40);
    for version in [2u64, 3, 4] {
        // The array is the envelope plus `[` and `]`.
        let (full, last) = compact_array_exact(&id, version, 16_386);
        let at = compact_array(&id, version, full, last);
        assert_eq!(canonical_json(&at[0]).unwrap().len(), 16_384);
        assert_eq!(ATTENTION_V2_MAX_ENVELOPE_BYTES, 16_384);
        accept(&at, &opts());
        let over = compact_array(&id, version, full, last + 1);
        assert_eq!(canonical_json(&over[0]).unwrap().len(), 16_385);
        let plain = serde_json::to_string(&over[0]).unwrap().len();
        assert!(plain + 500 < 16_384, "the plain encoding is {plain} bytes: the escapes count");
        assert_eq!(
            reject(&over, &opts()),
            ("attachment-bytes-exceeded".into(), "context_attachments[1]".into(), Some(id.clone())),
            "version {version}"
        );
    }
}

/// The same boundary with plain text, and the generic 32 KiB limits left as they are: a v1
/// envelope of 16,385 bytes (and far more) is admitted, only v2-v4 have the 16,384 limit.
#[test]
fn v2_to_v4_envelope_of_plain_text_16384_passes_16385_fails_while_v1_keeps_32_kib() {
    for version in [2u64, 3, 4] {
        let (full, last) = compact_array_exact("attachment-1", version, 16_386);
        let at = compact_array("attachment-1", version, full, last);
        assert_eq!(canonical_json(&at[0]).unwrap().len(), 16_384);
        let a = accept(&at, &opts());
        assert_eq!(a.attachments.len(), 1);
        let over = compact_array("attachment-1", version, full, last + 1);
        assert_eq!(serde_json::to_string(&over[0]).unwrap().len(), 16_385);
        assert_eq!(reject(&over, &opts()).0, "attachment-bytes-exceeded", "version {version}");
    }
    let v1 = json!([seal("attachment-1", "wippy.attention", 1, &padded(60, 1))]);
    let v1_bytes = canonical_json(&v1[0]).unwrap().len();
    assert!(v1_bytes > 16_385 && v1_bytes < 32_768, "{v1_bytes}");
    accept(&v1, &opts());
}

/// A v1 payload that is small when compacted but large when expanded: `count` candidates whose
/// paths repeat one big dictionary segment 32 times (`hint` sizes the segment), and a summary
/// text of `text` bytes on the first candidate as the one-byte knob.
fn wide_payload(count: usize, hint: usize, text: usize) -> Value {
    let mut p = v1_payload();
    let segment = json!({"kind": "element", "mount_id": "m", "generation": 1, "selector_hint": "h".repeat(hint),
        "label": "l".repeat(256), "package_id": "k".repeat(256)});
    let mut cands = Vec::new();
    for i in 0..count {
        let mut c = p["candidates"][0].clone();
        c["target_id"] = json!(format!("t{i:03}"));
        c["path"] = json!(vec![segment.clone(); 32]);
        cands.push(c);
    }
    cands[0]["summary"]["text"] = json!("y".repeat(text));
    p["candidates"] = json!(cands);
    p
}

/// A wide payload whose canonical v1 form is exactly `target` bytes.
fn wide_exact(target: usize) -> Value {
    let size = |c: usize, h: usize, t: usize| canonical_json(&wide_payload(c, h, t)).unwrap().len();
    // The size is affine in `hint` for a fixed count: solve instead of searching.
    for count in 1..=16 {
        let base = size(count, 0, 0);
        let step = size(count, 1, 0) - base;
        if base > target {
            break;
        }
        let hint = ((target - base) / step).min(512);
        let s = size(count, hint, 0);
        if s <= target && target - s <= 1000 {
            let p = wide_payload(count, hint, target - s);
            assert_eq!(canonical_json(&p).unwrap().len(), target);
            return p;
        }
    }
    panic!("no wide payload of {target} bytes");
}

#[test]
fn expansion_262144_passes_262145_fails() {
    let at = wide_exact(262_144);
    let over = wide_exact(262_145);
    for version in [2u64, 3, 4] {
        let compact = codec::encode(&at, version).unwrap();
        let (_, bytes) = codec::expand(version, &compact, None).unwrap();
        assert_eq!(bytes, 262_144);
        let arr = json!([seal("attachment-1", "wippy.attention", version, &compact)]);
        assert!(canonical_json(&arr[0]).unwrap().len() <= ATTENTION_V2_MAX_ENVELOPE_BYTES);
        let a = accept(&arr, &opts());
        assert_eq!(a.expanded_bytes, 262_144);
        let compact = codec::encode(&over, version).unwrap();
        assert!(codec::expand(version, &compact, None).is_err());
        let arr = json!([seal("attachment-1", "wippy.attention", version, &compact)]);
        // The remaining budget is the expansion budget, so the overrun is an expansion failure.
        assert_eq!(reject(&arr, &opts()).0, "invalid-attention-expansion");
    }
}

#[test]
fn expanded_bytes_exceeded_when_v1_follows_a_large_v2() {
    // Leave 751 bytes: one byte less than the 752-byte v1 fixture needs.
    let compact = codec::encode(&wide_exact(262_144 - 751), 2).unwrap();
    let mut arr =
        json!([seal("big", "wippy.attention", 2, &compact), seal("small", "wippy.attention", 1, &v1_payload())]);
    assert_eq!(
        reject(&arr, &opts()),
        ("expanded-bytes-exceeded".into(), "context_attachments[2]".into(), Some("small".into()))
    );
    // One byte more room and both fit exactly.
    let compact = codec::encode(&wide_exact(262_144 - 752), 2).unwrap();
    arr[0] = seal("big", "wippy.attention", 2, &compact);
    assert_eq!(accept(&arr, &opts()).expanded_bytes, 262_144);
}

#[rstest]
#[case(2)]
#[case(3)]
#[case(4)]
fn compact_versions_are_accepted_and_expand_to_the_fixture(#[case] version: u64) {
    let compact = codec::encode(&v1_payload_with_action_ref(), version).unwrap();
    let arr = json!([seal("attachment-1", "wippy.attention", version, &compact)]);
    let a = accept(&arr, &opts());
    match &a.attachments[0].disposition {
        Disposition::Attention { payload, expanded_bytes } => {
            assert_eq!(*expanded_bytes, 1040);
            assert_eq!(canonical_json(payload).unwrap(), canonical_json(&v1_payload_with_action_ref()).unwrap());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn selection_only_in_v4_reconstruction() {
    let mut p = v1_payload();
    p["selection"] = json!({
        "selection_id": "s1", "selected_at": "2026-09-04T12:00:00Z", "kind": "text", "collapsed": false,
        "direction": "forward", "text": "Ready", "anchor_path": p["candidates"][0]["path"].clone(),
        "focus_path": [{"kind": "host", "mount_id": "host-9", "generation": 0}],
        "ranges": [{"rect": {"x": 1, "y": 2, "width": 3, "height": 4}, "coordinate_space": "host-viewport"}]
    });
    let arr = json!([seal("attachment-1", "wippy.attention", 1, &p)]);
    assert_eq!(reject(&arr, &opts()).0, "invalid-attention-payload");
    let compact = codec::encode(&p, 4).unwrap();
    assert_eq!(compact["path_dictionary"].as_array().unwrap().len(), 3);
    let arr = json!([seal("attachment-1", "wippy.attention", 4, &compact)]);
    accept(&arr, &opts());
    assert!(codec::encode(&p, 3).is_err());
}

// ------------------------------------------------------------------------------------------
// v1 payload: stages and limits (checked through validate_attention and through envelopes)
// ------------------------------------------------------------------------------------------

use attention_harness::contract::attention_v1::validate_attention;

fn stage(p: &Value) -> Result<(), Stage> {
    validate_attention(p, false)
}

#[test]
fn path_32_segments_pass_33_fail() {
    let mut p = v1_payload();
    p["candidates"][0] = candidate("target-1", 32, "p0");
    assert_eq!(stage(&p), Ok(()));
    accept(&json!([seal("a", "wippy.attention", 1, &p)]), &opts());
    p["candidates"][0] = candidate("target-1", 33, "p0");
    assert_eq!(stage(&p), Err(Stage::Candidate));
    assert_eq!(reject(&json!([seal("a", "wippy.attention", 1, &p)]), &opts()).0, "invalid-attention-payload");
}

#[test]
fn recent_events_32_pass_33_fail() {
    let mut p = v1_payload();
    p["recent_events"] =
        json!((0..32).map(|i| event(&format!("e{i}"), "pointermove", i % 60, &["target-1"])).collect::<Vec<_>>());
    assert_eq!(stage(&p), Ok(()));
    accept(&json!([seal("a", "wippy.attention", 1, &p)]), &opts());
    p["recent_events"].as_array_mut().unwrap().push(event("e32", "click", 1, &[]));
    assert_eq!(stage(&p), Err(Stage::RecentEvents));
}

#[test]
fn candidates_128_pass_129_fail() {
    let mut p = v1_payload();
    p["candidates"] = json!((0..128).map(|i| candidate(&format!("t{i}"), 1, "p0")).collect::<Vec<_>>());
    assert_eq!(stage(&p), Ok(()));
    accept(&json!([seal("a", "wippy.attention", 1, &p)]), &opts());
    p["candidates"].as_array_mut().unwrap().push(candidate("t128", 1, "p0"));
    assert_eq!(stage(&p), Err(Stage::Candidates));
    assert_eq!(reject(&json!([seal("a", "wippy.attention", 1, &p)]), &opts()).0, "invalid-attention-payload");
}

#[test]
fn points_4096_pass_4097_fail() {
    let mut p = v1_payload();
    let pts: Vec<Value> = (0..4096).map(|i| json!({"point_id": format!("p{i}"), "x": i, "y": 0})).collect();
    p["capture"]["points"] = json!(pts);
    p["capture"]["sampled_points"] = json!(4096);
    assert_eq!(stage(&p), Ok(()));
    p["capture"]["points"].as_array_mut().unwrap().push(json!({"point_id": "p4096", "x": 0, "y": 1}));
    p["capture"]["sampled_points"] = json!(4097);
    assert_eq!(stage(&p), Err(Stage::Capture));
}

#[test]
fn candidate_ids_128_pass_129_fail() {
    let mut p = v1_payload();
    p["candidates"] = json!((0..129).map(|i| candidate(&format!("t{i}"), 1, "p0")).take(128).collect::<Vec<_>>());
    let ids: Vec<String> = (0..128).map(|i| format!("t{i}")).collect();
    p["pointer"] = event("pe", "pointerdown", 1, &ids.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(stage(&p), Ok(()));
    p["pointer"]["candidate_ids"].as_array_mut().unwrap().push(json!("t128"));
    assert_eq!(stage(&p), Err(Stage::Pointer));
}

type PayloadMutate = fn(&mut Value);

#[rstest]
#[case::root_schema(|p: &mut Value| p["schema"] = json!("wippy.attention.v2"), Stage::Root)]
#[case::root_snapshot_129(|p: &mut Value| p["snapshot_id"] = json!("s".repeat(129)), Stage::Root)]
#[case::root_created_at(|p: &mut Value| p["created_at"] = json!("2026-09-04"), Stage::Root)]
#[case::root_selection(|p: &mut Value| p["selection"] = json!({}), Stage::Root)]
#[case::coordinate_space(|p: &mut Value| p["coordinate_space"]["kind"] = json!("document"), Stage::CoordinateSpace)]
#[case::capture_count(|p: &mut Value| p["capture"]["sampled_points"] = json!(2), Stage::Capture)]
#[case::capture_radius(|p: &mut Value| p["capture"]["radius_css_px"] = json!(100.5), Stage::Capture)]
#[case::capture_step_zero(|p: &mut Value| p["capture"]["grid_step_css_px"] = json!(0), Stage::Capture)]
#[case::capture_point_extra(|p: &mut Value| p["capture"]["points"][0]["z"] = json!(0), Stage::CapturePoint)]
#[case::pointer_type(|p: &mut Value| p["pointer"] = json!({"event_id": "e", "sequence": 0, "type": "mouseover", "observed_at": NOW, "realm_time_ms": 0, "point": {"x": 0, "y": 0}, "candidate_ids": []}), Stage::Pointer)]
#[case::pointer_dup_ids(|p: &mut Value| p["pointer"] = event("pe", "click", 1, &["target-1", "target-1"]), Stage::Pointer)]
#[case::pointer_buttons(|p: &mut Value| { p["pointer"] = event("pe", "click", 1, &[]); p["pointer"]["buttons"] = json!(-1); }, Stage::Pointer)]
#[case::focus_pointer_field(|p: &mut Value| p["focus"] = json!({"event_id": "f", "sequence": 0, "focused_at": NOW, "realm_time_ms": 0, "path": p["candidates"][0]["path"].clone(), "summary": [], "point": {"x": 0, "y": 0}}), Stage::Focus)]
#[case::recent_event(|p: &mut Value| p["recent_events"] = json!([{"event_id": "e"}]), Stage::RecentEvent)]
#[case::segment_kind(|p: &mut Value| p["candidates"][0]["path"][0]["kind"] = json!("window"), Stage::Candidate)]
#[case::segment_mount_160(|p: &mut Value| p["candidates"][0]["path"][0]["mount_id"] = json!("m".repeat(161)), Stage::Candidate)]
#[case::frame_origin_path(|p: &mut Value| p["candidates"][0]["path"][0]["frame_origin"] = json!("https://a.example/x"), Stage::Candidate)]
#[case::frame_origin_credentials(|p: &mut Value| p["candidates"][0]["path"][0]["frame_origin"] = json!("https://u@a.example"), Stage::Candidate)]
#[case::frame_origin_null(|p: &mut Value| p["candidates"][0]["path"][0]["frame_origin"] = json!("null"), Stage::Candidate)]
#[case::transform(|p: &mut Value| p["candidates"][0]["path"][0]["local_to_parent"] = json!({"matrix": [1, 0, 0], "convention": "dommatrix-column-major", "direction": "local-to-parent"}), Stage::Candidate)]
#[case::summary_state_empty(|p: &mut Value| p["candidates"][0]["summary"]["state"] = json!([]), Stage::Candidate)]
#[case::summary_state_nested(|p: &mut Value| p["candidates"][0]["summary"]["state"] = json!({"checked": {"a": 1}}), Stage::Candidate)]
#[case::summary_text_1025(|p: &mut Value| p["candidates"][0]["summary"]["text"] = json!("t".repeat(1025)), Stage::Candidate)]
#[case::provenance(|p: &mut Value| p["candidates"][0]["provenance"] = json!({"geometry_source": "document", "runtime_source": "worker"}), Stage::Candidate)]
#[case::sample_ids_empty(|p: &mut Value| p["candidates"][0]["sample_point_ids"] = json!([]), Stage::Candidate)]
#[case::sample_unknown(|p: &mut Value| p["candidates"][0]["sample_point_ids"] = json!(["p9"]), Stage::SamplePointReference)]
#[case::sample_duplicate(|p: &mut Value| p["candidates"][0]["sample_point_ids"] = json!(["p0", "p0"]), Stage::SamplePointReference)]
#[case::pointer_reference(|p: &mut Value| p["pointer"] = event("pe", "click", 1, &["target-9"]), Stage::PointerCandidateReference)]
#[case::event_reference(|p: &mut Value| p["recent_events"] = json!([event("e1", "click", 1, &["target-9"])]), Stage::EventCandidateReference)]
#[case::focus_reference(|p: &mut Value| p["focus"] = json!({"event_id": "f", "sequence": 0, "focused_at": NOW, "realm_time_ms": 0, "candidate_id": "target-9", "path": p["candidates"][0]["path"].clone(), "summary": []}), Stage::FocusCandidateReference)]
#[case::omissions_129(|p: &mut Value| p["omissions"] = json!(vec![json!({"reason": "clipped"}); 129]), Stage::Omissions)]
#[case::omission_reason(|p: &mut Value| p["omissions"] = json!([{"reason": "timeout"}]), Stage::Omission)]
#[case::omission_capture_code(|p: &mut Value| p["omissions"] = json!([{"reason": "redacted", "capture_code": "clipped"}]), Stage::Omission)]
#[case::omission_detail_empty(|p: &mut Value| p["omissions"] = json!([{"reason": "redacted", "detail": ""}]), Stage::Omission)]
fn v1_stages(#[case] mutate: PayloadMutate, #[case] expected: Stage) {
    let mut p = v1_payload();
    assert_eq!(stage(&p), Ok(()));
    mutate(&mut p);
    assert_eq!(stage(&p), Err(expected));
}

#[rstest]
#[case::snapshot(|a: &mut Value| a["snapshot_id"] = json!("snapshot-2"))]
#[case::target(|a: &mut Value| a["target_id"] = json!("target-2"))]
#[case::host(|a: &mut Value| a["host_instance_id"] = json!("host-2"))]
#[case::leaf_mount(|a: &mut Value| a["mount_id"] = json!("host-1"))]
#[case::leaf_generation(|a: &mut Value| a["generation"] = json!(3))]
#[case::rect(|a: &mut Value| a["rect"]["x"] = json!(101))]
#[case::digest(|a: &mut Value| a["path_digest"] = json!(sha256_prefixed(b"x")))]
fn action_ref_must_match_its_candidate(#[case] mutate: PayloadMutate) {
    let mut p = v1_payload_with_action_ref();
    assert_eq!(stage(&p), Ok(()));
    mutate(&mut p["candidates"][0]["action_ref"]);
    assert_eq!(stage(&p), Err(Stage::ActionReference));
}

#[test]
fn action_ref_accepts_semantic_and_legacy_digests() {
    let mut p = v1_payload_with_action_ref();
    p["candidates"][0]["path"][1]["rect"] = json!({"x": 1, "y": 1, "width": 2, "height": 2});
    // Semantic digest ignores geometry: still the golden digest.
    assert_eq!(stage(&p), Ok(()));
    let legacy = sha256_prefixed(canonical_json(&p["candidates"][0]["path"]).unwrap().as_bytes());
    p["candidates"][0]["action_ref"]["path_digest"] = json!(legacy);
    assert_eq!(stage(&p), Ok(()));
    assert_ne!(legacy, path_digest(&p["candidates"][0]["path"]).unwrap());
}

// ------------------------------------------------------------------------------------------
// Visual v1
// ------------------------------------------------------------------------------------------

const IMAGE: &[u8] = b"\x89PNG fake image bytes";
const EXPIRES: &str = "2026-09-04T12:05:00Z";

fn visual_payload() -> Value {
    json!({
        "schema": "wippy.attention.visual.v1", "capture_id": "cap-1", "snapshot_id": "snapshot-1",
        "host_instance_id": "host-1", "created_at": NOW, "expires_at": EXPIRES,
        "candidate_ids": ["target-1"], "region": {"x": 0, "y": 0, "width": 10, "height": 10},
        "redactions_applied": 0,
        "media": {"content_type": "image/png", "content_bytes": IMAGE.len(), "content_hash": sha256_prefixed(IMAGE), "pixel_width": 10, "pixel_height": 10},
        "reference": {"kind": "upload", "opaque_id": "upload-1"},
        "authorization": {"scope": "session", "session_id": "session-1", "audience": "agent-context", "expires_at": EXPIRES}
    })
}

fn visual_array(p: &Value) -> Value {
    let mut env = seal("visual-1", "wippy.attention.visual", 1, p);
    env["expires_at"] = json!(EXPIRES);
    json!([env])
}

fn allow(_: &VisualRequest) -> Result<bool, String> {
    Ok(true)
}
fn deny(_: &VisualRequest) -> Result<bool, String> {
    Ok(false)
}
fn throws(_: &VisualRequest) -> Result<bool, String> {
    Err("boom".into())
}
fn resolve_ok(_: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
    Ok(Some(ResolvedMedia { content_type: "image/png".into(), data: IMAGE.to_vec() }))
}
fn resolve_missing(_: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
    Ok(None)
}
fn resolve_webp(_: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
    Ok(Some(ResolvedMedia { content_type: "image/webp".into(), data: IMAGE.to_vec() }))
}
fn resolve_tampered(_: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
    let mut d = IMAGE.to_vec();
    d[0] ^= 1;
    Ok(Some(ResolvedMedia { content_type: "image/png".into(), data: d }))
}

#[test]
fn visual_v1_accepted_with_authorization() {
    let arr = visual_array(&visual_payload());
    let a = accept(&arr, &opts());
    assert!(matches!(a.attachments[0].disposition, Disposition::Visual { .. }));
    let o = ValidateOptions {
        require_visual_authorization: true,
        visual_authorizer: Some(&allow),
        visual_resolver: Some(&resolve_ok),
        ..opts()
    };
    accept(&arr, &o);
}

type VisualMutate = fn(&mut Value, &mut ValidateOptions<'static>);

#[rstest]
#[case::schema(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = visual_payload(); p["schema"] = json!("x"); *a = visual_array(&p); }, "invalid-visual-payload", ".content")]
#[case::envelope_expiry_missing(|a: &mut Value, _: &mut ValidateOptions<'static>| { a[0].as_object_mut().unwrap().remove("expires_at"); }, "invalid-visual-payload", ".content")]
#[case::auth_expiry(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = visual_payload(); p["authorization"]["expires_at"] = json!("2026-09-04T12:06:00Z"); *a = visual_array(&p); }, "invalid-visual-payload", ".content")]
#[case::pixels(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = visual_payload(); p["media"]["pixel_width"] = json!(2048); p["media"]["pixel_height"] = json!(2049); *a = visual_array(&p); }, "invalid-visual-payload", ".content")]
#[case::pixel_area(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = visual_payload(); p["media"]["pixel_width"] = json!(2048); p["media"]["pixel_height"] = json!(2048); p["media"]["content_bytes"] = json!(1_048_577); *a = visual_array(&p); }, "invalid-visual-payload", ".content")]
#[case::media_type(|a: &mut Value, _: &mut ValidateOptions<'static>| { let mut p = visual_payload(); p["media"]["content_type"] = json!("image/jpeg"); *a = visual_array(&p); }, "invalid-visual-payload", ".content")]
#[case::session(|_: &mut Value, o: &mut ValidateOptions<'static>| o.session_id = Some("session-2".into()), "visual-session-mismatch", ".content.authorization.session_id")]
#[case::no_session(|_: &mut Value, o: &mut ValidateOptions<'static>| o.session_id = None, "visual-session-mismatch", ".content.authorization.session_id")]
#[case::no_authorizer(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; }, "visual-authorization-unavailable", ".content.reference")]
#[case::denied(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&deny); }, "visual-reference-unauthorized", ".content.reference")]
#[case::authorizer_throws(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&throws); }, "visual-reference-unauthorized", ".content.reference")]
#[case::no_resolver(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&allow); }, "visual-verification-unavailable", ".content.reference")]
#[case::missing_data(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&allow); o.visual_resolver = Some(&resolve_missing); }, "visual-reference-invalid", ".content.reference")]
#[case::wrong_type(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&allow); o.visual_resolver = Some(&resolve_webp); }, "visual-reference-invalid", ".content.reference")]
#[case::integrity(|_: &mut Value, o: &mut ValidateOptions<'static>| { o.require_visual_authorization = true; o.visual_authorizer = Some(&allow); o.visual_resolver = Some(&resolve_tampered); }, "visual-reference-integrity-mismatch", ".content.reference")]
fn visual_codes(#[case] mutate: VisualMutate, #[case] code: &str, #[case] suffix: &str) {
    let mut arr = visual_array(&visual_payload());
    let mut o = opts();
    accept(&arr, &o);
    mutate(&mut arr, &mut o);
    let (c, p, id) = reject(&arr, &o);
    assert_eq!(
        (c.as_str(), p.as_str(), id.as_deref()),
        (code, format!("context_attachments[1]{suffix}").as_str(), Some("visual-1"))
    );
}

#[test]
fn hash_failed_has_a_name_but_no_trigger() {
    assert_eq!(Code::HashFailed.as_str(), "hash-failed");
    assert_eq!(
        Code::InvalidAttentionReconstruction(Stage::CapturePoint).as_str(),
        "invalid-attention-reconstruction-capture-point"
    );
}

#[test]
fn spec_rules_beyond_the_session() {
    use attention_harness::contract::spec_rules::spec_findings;
    assert_eq!(spec_findings(&v1_payload_with_action_ref()), vec![]);
    // The Session admits a wildcard origin and a raw exception detail; the spec does not.
    let mut p = v1_payload();
    p["candidates"][0]["path"][0]["frame_origin"] = json!("http://*");
    p["omissions"] = json!([{"reason": "child-timeout", "detail": "transport:TypeError: boom:stage:query-call"}]);
    accept(&json!([seal("a", "wippy.attention", 1, &p)]), &opts());
    let rules: Vec<&str> = spec_findings(&p).iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["omission-detail", "frame-origin"]);
}

#[test]
fn codes_parse_back_from_their_wire_names() {
    for c in Code::SIMPLE {
        assert_eq!(Code::parse(&c.as_str()), Some(c));
    }
    for s in Stage::ALL {
        let c = Code::InvalidAttentionReconstruction(s);
        assert_eq!(Code::parse(&c.as_str()), Some(c));
    }
    assert_eq!(Code::parse("invalid-attention-reconstruction-bogus"), None);
    assert_eq!(Code::parse("invalid_context_attachments"), None);
    let e = validate(&json!({}), &opts()).err();
    assert!(e.is_none(), "an empty object is an empty Lua table, i.e. an empty array");
    let e = validate(&json!("x"), &opts()).unwrap_err();
    assert_eq!(
        e.to_value(),
        json!({"code": "array-required", "path": "context_attachments", "message": "context_attachments must be an array"})
    );
    assert_eq!(e.to_string(), "array-required at context_attachments: context_attachments must be an array");
}
