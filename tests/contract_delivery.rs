//! Delivery choice at the 32,768 / 32,769-byte boundary and the capability descriptor decision.

use attention_harness::contract::delivery::*;
use serde_json::{json, Value};

fn command_of_len(len: usize) -> Value {
    let mut cmd = json!({"type": "session_message", "data": {"text": "", "context_attachments": []}});
    let base = serde_json::to_string(&cmd).unwrap().len();
    cmd["data"]["text"] = json!("é".repeat((len - base) / 2) + &"x".repeat((len - base) % 2));
    assert_eq!(serde_json::to_string(&cmd).unwrap().len(), len);
    cmd
}

#[test]
fn inline_up_to_32768_staged_from_32769() {
    assert_eq!(choose_delivery(32_768), Delivery::Inline);
    assert_eq!(choose_delivery(32_769), Delivery::Staged);
    // Measured in UTF-8 bytes of the whole command, not characters.
    assert_eq!(choose_delivery_for(&command_of_len(32_768)), Delivery::Inline);
    assert_eq!(choose_delivery_for(&command_of_len(32_769)), Delivery::Staged);
}

fn spec_descriptor() -> Value {
    json!({"success": true, "capabilities": {
        "schema": "wippy.session.capabilities.v1", "message_receipt": 1, "steering": 1,
        "attention": {"context": 1, "browser_operations": 1, "context_attachments": {
            "transport": 1, "staging": true, "max_context_bytes": 32768,
            "handlers": [{"kind": "wippy.attention", "versions": [1, 2, 3, 4]}, {"kind": "wippy.attention.visual", "versions": [1]}]}}}})
}

#[test]
fn spec_descriptor_supports_attention_v4_and_visual() {
    let caps = SessionCapabilities::parse(&spec_descriptor()).unwrap();
    assert!(caps.attention_supported());
    assert!(caps.supports("wippy.attention", 4));
    assert!(!caps.supports("wippy.attention", 5));
    let d = caps.decide();
    assert_eq!(
        d,
        AttentionSupport {
            supported: true,
            attention_versions: vec![1, 2, 3, 4],
            attention_version: Some(4),
            visual: true,
            staging: true
        }
    );
}

#[test]
fn attention_needs_both_context_and_browser_operations() {
    for (context, ops, expected) in [(1, 1, true), (0, 1, false), (1, 0, false), (2, 3, true)] {
        let mut d = spec_descriptor();
        d["capabilities"]["attention"]["context"] = json!(context);
        d["capabilities"]["attention"]["browser_operations"] = json!(ops);
        let got = decide_from_response(200, &d);
        assert_eq!(got.supported, expected, "context={context} ops={ops}");
        assert_eq!(got.attention_version.is_some(), expected);
    }
    let mut d = spec_descriptor();
    d["capabilities"].as_object_mut().unwrap().remove("attention");
    assert!(!decide_from_response(200, &d).supported);
}

#[test]
fn older_sessions_and_partial_handlers() {
    assert!(!decide_from_response(404, &json!({})).supported);
    assert!(!decide_from_response(401, &spec_descriptor()).supported);
    let mut d = spec_descriptor();
    d["capabilities"]["attention"]["context_attachments"]["handlers"] =
        json!([{"kind": "wippy.attention", "versions": [1, 2, 3]}]);
    let got = decide_from_response(200, &d);
    assert_eq!((got.attention_version, got.visual), (Some(3), false));
    let mut d = spec_descriptor();
    d["capabilities"]["schema"] = json!("wippy.session.capabilities.v2");
    assert!(SessionCapabilities::parse(&d).is_err());
}

#[test]
fn staged_body_is_the_canonical_array() {
    let arr = serde_json::from_str::<Value>(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/contract/spec-v1-envelope.json"))
            .unwrap(),
    )
    .unwrap();
    let staged = StagedContext::new(&arr).unwrap();
    assert!(staged.body.starts_with(r#"[{"attachment_id":"attachment-1","content":"{\"candidates\""#));
    assert_eq!(staged.body, attention_harness::contract::canonical_json(&arr).unwrap());
    assert_eq!(staged.content_hash, attention_harness::contract::sha256_prefixed(staged.body.as_bytes()));
    assert_eq!(staged.content_bytes, staged.body.len());
    assert!(staged.fits());
    assert_eq!(staged.reference("0190f5d2-stage")["content_hash"], json!(staged.content_hash));
    let empty = StagedContext::new(&json!([])).unwrap();
    assert_eq!((empty.body.as_str(), empty.content_bytes, empty.fits()), ("[]", 2, true));
}
