//! The `contract` subcommands through `cli::run` (the lead wires them into main.rs): exit codes
//! and the encode -> expand round trip through files.

use crate::contract_support;

use attention_harness::contract::canonical::canonical_json;
use attention_harness::contract::cli::{run, ContractCommand};
use clap::Parser;
use contract_support::*;
use std::path::PathBuf;

#[derive(clap::Parser)]
struct TestCli {
    #[command(subcommand)]
    cmd: ContractCommand,
}

fn tmp(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contract-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn parse(args: &[&str]) -> ContractCommand {
    TestCli::try_parse_from(std::iter::once("contract").chain(args.iter().copied())).unwrap().cmd
}

#[test]
fn validate_exit_codes() {
    let ok = fixture_path("spec-v1-envelope.json");
    assert_eq!(run(&parse(&["validate", ok.to_str().unwrap(), "--now", "2026-09-04T12:00:00Z"])), 0);
    let mut arr = spec_array();
    arr[0]["content_bytes"] = serde_json::json!(1);
    let bad = tmp("bad.json", &arr.to_string());
    assert_eq!(run(&parse(&["validate", bad.to_str().unwrap(), "--session-id", "s"])), 1);
    assert_eq!(run(&parse(&["validate", "/nonexistent/file.json"])), 2);
    assert_eq!(run(&parse(&["validate", ok.to_str().unwrap(), "--now", "yesterday"])), 2);
    let not_json = tmp("not.json", "{");
    assert_eq!(run(&parse(&["validate", not_json.to_str().unwrap()])), 2);
}

#[test]
fn clap_rejects_unknown_versions() {
    assert!(TestCli::try_parse_from(["contract", "encode", "--envelope-version", "5", "x"]).is_err());
    assert!(TestCli::try_parse_from(["contract", "encode", "--envelope-version", "4", "-"]).is_ok());
}

#[test]
fn encode_expand_project_run() {
    let payload = tmp("payload.json", &canonical_json(&v1_payload_with_action_ref()).unwrap());
    let env = fixture_path("spec-v1-envelope.json");
    for v in ["2", "3", "4"] {
        assert_eq!(run(&parse(&["encode", "--envelope-version", v, payload.to_str().unwrap()])), 0);
        assert_eq!(run(&parse(&["encode", "--envelope-version", v, env.to_str().unwrap()])), 0);
    }
    let compact = attention_harness::contract::codec::encode(&v1_payload(), 4).unwrap();
    let compact_env = tmp("compact.json", &seal("a", "wippy.attention", 4, &compact).to_string());
    assert_eq!(run(&parse(&["expand", compact_env.to_str().unwrap()])), 0);
    assert_eq!(run(&parse(&["expand", payload.to_str().unwrap()])), 0);
    assert_eq!(run(&parse(&["project", env.to_str().unwrap()])), 0);
    assert_eq!(run(&parse(&["project", compact_env.to_str().unwrap()])), 0);
    let broken = tmp("broken.json", r#"{"schema":"wippy.attention.v2"}"#);
    assert_eq!(run(&parse(&["expand", broken.to_str().unwrap()])), 2);
}

#[test]
fn expand_after_encode_returns_the_original_snapshot() {
    use attention_harness::contract::cli::{encode_input, expand_input};
    for input in [v1_payload_with_action_ref(), spec_array(), spec_array()[0].clone()] {
        for version in [2, 3, 4] {
            let env = encode_input(input.clone(), version).unwrap();
            let back = expand_input(env).unwrap();
            assert_eq!(
                canonical_json(&back).unwrap(),
                canonical_json(&if input.is_array() || input.get("content").is_some() {
                    v1_payload()
                } else {
                    v1_payload_with_action_ref()
                })
                .unwrap()
            );
        }
    }
}

#[test]
fn rejection_line_format() {
    use attention_harness::contract::cli::rejection_line;
    use attention_harness::contract::validate;
    let mut arr = spec_array();
    arr[0]["content_bytes"] = serde_json::json!(1);
    let e = validate(&arr, &opts()).unwrap_err();
    assert_eq!(
        rejection_line(&e),
        r#"{"ok":false,"code":"content-size-mismatch","path":"context_attachments[1].content_bytes","attachment_id":"attachment-1"}"#
    );
    let e = validate(&serde_json::json!({"a": 1}), &opts()).unwrap_err();
    assert_eq!(rejection_line(&e), r#"{"ok":false,"code":"array-required","path":"context_attachments"}"#);
}
