//! `snapshot --envelope --envelope-version 1|4` (issue 21): prints the envelope of the version asked for and
//! says on stderr which version the runtime wrote; `contract validate` accepts that output as it is
//! and `contract expand` turns the v4 one back into the v1 payload, whose candidates are the same
//! as those of the v1 envelope printed at the same point.

use std::process::Command;

use serde_json::Value;

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_attention-harness")).args(args).output().expect("run attention-harness")
}

fn to_file(tag: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("attention-cli-v4-{tag}-{}.json", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn names(payload: &Value) -> Vec<String> {
    let mut n: Vec<String> = payload["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["summary"]["name"].as_str().map(str::to_string))
        .collect();
    n.sort();
    n
}

#[test]
fn snapshot_envelope_version_4_is_validated_and_expanded_by_the_contract_commands() {
    let v4 = cli(&["snapshot", "--layout", "managed", "--point", "boundary", "--envelope", "--envelope-version", "4"]);
    assert!(v4.status.success(), "{}", String::from_utf8_lossy(&v4.stderr));
    assert!(
        String::from_utf8_lossy(&v4.stderr).contains("wippy.attention version 4 (asked for 4)"),
        "stderr: {}",
        String::from_utf8_lossy(&v4.stderr)
    );
    let array: Value = serde_json::from_slice(&v4.stdout).unwrap();
    assert_eq!(array[0]["version"], 4);
    let file = to_file("v4", &v4.stdout);
    let valid = cli(&["contract", "validate", file.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&valid.stdout).trim(), r#"{"ok":true}"#);
    let expanded = cli(&["contract", "expand", file.to_str().unwrap()]);
    let _ = std::fs::remove_file(&file);
    assert!(expanded.status.success(), "{}", String::from_utf8_lossy(&expanded.stderr));
    let payload: Value = serde_json::from_slice(&expanded.stdout).unwrap();
    assert_eq!(payload["schema"], "wippy.attention.v1");
    let got = names(&payload);
    assert!(
        got.iter().any(|n| n == "Attention target left") && got.iter().any(|n| n == "Attention target right"),
        "{got:?}"
    );

    let v1 = cli(&["snapshot", "--layout", "managed", "--point", "boundary", "--envelope", "--envelope-version", "1"]);
    assert!(v1.status.success(), "{}", String::from_utf8_lossy(&v1.stderr));
    assert!(String::from_utf8_lossy(&v1.stderr).contains("wippy.attention version 1 (asked for 1)"));
    let array: Value = serde_json::from_slice(&v1.stdout).unwrap();
    assert_eq!(array[0]["version"], 1);
    let content: Value = serde_json::from_str(array[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(names(&content), got, "v1 and v4 at the boundary name different candidates");
}

/// Without `--envelope-version`, `--envelope` writes the current version, 4, within the 16,384-byte v2-v4
/// envelope limit.
#[test]
fn snapshot_envelope_without_a_version_writes_version_4() {
    let out = cli(&["snapshot", "--layout", "managed", "--point", "boundary", "--envelope"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wippy.attention version 4 (asked for 4)"),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let array: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(array[0]["version"], 4);
    let bytes = attention_harness::contract::canonical::canonical_json(&array[0]).unwrap().len();
    assert!(bytes <= 16_384, "a {bytes}-byte v4 envelope");
}

#[test]
fn snapshot_version_outside_1_to_4_or_without_envelope_is_a_usage_error() {
    for args in [
        &["snapshot", "--layout", "managed", "--point", "boundary", "--envelope", "--envelope-version", "5"][..],
        &["snapshot", "--layout", "managed", "--point", "boundary", "--envelope-version", "4"][..],
    ] {
        let out = cli(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
