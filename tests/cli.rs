//! The command line as QA and integrators use it: exit codes, JSON shapes, clear errors.

use std::process::Command;

use serde_json::Value;

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_attention-harness")).args(args).output().expect("run attention-harness")
}

/// The CLI's part of verify: a row per selected check for the chosen cell, in JSON, exit 0 when all
/// pass. The pointer-path rows (checklist-2) stand for the rest: every check function verify runs is
/// also a test of its own in the four cells (tests/end_to_end.rs and the other browser files), and
/// the whole verify is the main job (`bash ci/verify`); running all of it here again took a minute of
/// the suite's two cores for no check the other tests do not make.
#[test]
fn verify_json_reports_every_selected_check_for_the_chosen_layout_and_engine() {
    let prefix = "checklist-2";
    let want: Vec<&str> =
        attention_harness::checks::all().iter().map(|c| c.name).filter(|n| n.starts_with(prefix)).collect();
    assert!(want.len() >= 4, "the four pointer-path rows: {want:?}");
    let out = cli(&["verify", "--layout", "compat", "--engine", "iframe", "--check", prefix, "--json"]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let names: Vec<&str> = rows.iter().filter_map(|r| r["check"].as_str()).collect();
    assert_eq!(names, want);
    for r in &rows {
        assert_eq!((r["layout"].as_str(), r["engine"].as_str()), (Some("compat"), Some("iframe")));
        assert!(r["check"].is_string() && r["detail"].is_string());
        assert_eq!(r["status"], "pass", "{r}");
    }
    assert!(out.status.success(), "verify exits 0 when every check passes");
    // The row that points at the privacy probes (password, excluded, redacted, composer canaries).
    let privacy = cli(&["verify", "--layout", "compat", "--engine", "iframe", "--check", "privacy-probes", "--json"]);
    assert!(privacy.status.success(), "{}", String::from_utf8_lossy(&privacy.stderr));
    for o in [&out, &privacy] {
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(!text.contains("CANARY-"), "a privacy canary reached verify's JSON output: {text}");
    }
}

#[test]
fn verify_check_runs_only_the_checks_whose_name_starts_with_the_prefix() {
    let prefix = "checklist-6-capture-png";
    let want: Vec<&str> =
        attention_harness::checks::all().iter().map(|c| c.name).filter(|n| n.starts_with(prefix)).collect();
    assert_eq!(want.len(), 1, "the prefix names one check: {want:?}");
    let out = cli(&["verify", "--layout", "managed", "--engine", "fragment", "--check", prefix, "--json"]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let names: Vec<&str> = rows.iter().filter_map(|r| r["check"].as_str()).collect();
    assert_eq!(names, want);
    assert_eq!(rows[0]["status"], "pass", "{}", rows[0]);
    assert!(out.status.success());
    let none = cli(&["verify", "--check", "no-such-check", "--json"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no-such-check"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
}

#[test]
fn snapshot_at_an_unknown_landmark_fails_with_exit_2_naming_the_landmarks() {
    let out = cli(&["snapshot", "--layout", "managed", "--point", "no-such-place"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-place") && err.contains("boundary"), "{err}");
}

#[test]
fn snapshot_rejects_a_malformed_point() {
    let out = cli(&["snapshot", "--layout", "compat", "--point", "12,abc"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("y in --point \u{201c}12,abc\u{201d} is not a number"), "{err}");
}

#[test]
fn snapshot_envelope_at_the_boundary_is_accepted_by_contract_validate() {
    let out = cli(&["snapshot", "--layout", "managed", "--point", "boundary", "--envelope"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = std::env::temp_dir().join(format!("attention-cli-{}.json", std::process::id()));
    std::fs::write(&dir, &out.stdout).unwrap();
    let v = cli(&["contract", "validate", dir.to_str().unwrap()]);
    let _ = std::fs::remove_file(&dir);
    assert_eq!(String::from_utf8_lossy(&v.stdout).trim(), r#"{"ok":true}"#);
    assert_eq!(v.status.code(), Some(0));
    let array: Value = serde_json::from_slice(&out.stdout).unwrap();
    let payload: Value = serde_json::from_str(array[0]["content"].as_str().unwrap()).unwrap();
    let names: Vec<&str> =
        payload["candidates"].as_array().unwrap().iter().filter_map(|c| c["summary"]["name"].as_str()).collect();
    assert!(names.contains(&"Attention target left") && names.contains(&"Attention target right"), "{names:?}");
}

#[test]
fn contract_validate_exit_codes_are_0_accepted_1_rejected_2_unreadable() {
    let dir = std::env::temp_dir().join(format!("attention-cli-bad-{}.json", std::process::id()));
    // `{}` is an empty Lua table, which the Session accepts as an empty array; a string is not.
    std::fs::write(&dir, "\"not an array\"").unwrap();
    let bad = cli(&["contract", "validate", dir.to_str().unwrap()]);
    let _ = std::fs::remove_file(&dir);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains(r#""code":"array-required""#));
    let missing = cli(&["contract", "validate", "/nonexistent/file.json"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// The CLI's JSON output is an output like any other (issue 11's canary scan): a snapshot and an
/// envelope taken where the reference Host's privacy probes are (password, exclude, redact with
/// their canaries, in a child realm and in the Host document) carry candidates but no canary.
#[test]
fn snapshot_json_at_the_privacy_probes_carries_no_canary() {
    for (point, extra) in [("privacy-probes", Some("--envelope")), ("host-privacy-probes", None)] {
        let mut args = vec!["snapshot", "--layout", "managed", "--point", point];
        args.extend(extra);
        let out = cli(&args);
        assert!(out.status.success(), "{point}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("CANARY-"), "a privacy canary reached the CLI's JSON at {point}: {text}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{point}: not JSON ({e})"));
        let payload: Value = match extra {
            Some(_) => serde_json::from_str(v[0]["content"].as_str().expect("an envelope with content")).unwrap(),
            None => v,
        };
        let n = payload["candidates"].as_array().map(Vec::len).unwrap_or(0);
        assert!(n > 0, "{point}: the snapshot has no candidates, so the absent canary proves nothing: {payload}");
    }
}

#[test]
fn verify_list_prints_the_checks_it_would_run_and_starts_no_browser() {
    let all: Vec<&str> = attention_harness::checks::all().iter().map(|c| c.name).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness")).args(["verify", "--list"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(listed, all, "verify --list names every check, in order");
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["verify", "--list", "--check", "checklist-2"])
        .output()
        .unwrap();
    let want: Vec<&str> = all.iter().copied().filter(|n| n.starts_with("checklist-2")).collect();
    assert!(!want.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().collect::<Vec<_>>(), want);
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["verify", "--list", "--check", "no-such-check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Runs the CLI with its stdout a pipe whose read end is closed before anything is written: every
/// write then meets a broken pipe, as under `| head -1` once head has its line.
fn into_a_closed_pipe(args: &[&str]) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (child.wait().unwrap(), err)
}

/// `verify --list | head -1`, `contract project FILE | head -1`, …: a reader that closes the pipe
/// early ends the printing quietly (the exit code the command has anyway, nothing on stderr), as a
/// Unix tool does; they panicked on the broken pipe before ("failed printing to stdout").
#[test]
fn commands_that_print_into_a_reader_that_stops_early_end_quietly() {
    let envelope = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/contract/spec-v1-envelope.json");
    for args in [
        &["verify", "--list"][..],
        &["contract", "project", envelope],
        &["contract", "encode", "--envelope-version", "4", envelope],
        &["contract", "expand", envelope],
    ] {
        let (status, err) = into_a_closed_pipe(args);
        assert!(status.success(), "{args:?} into a closed pipe: {status}, stderr: {err}");
        assert!(err.is_empty(), "{args:?} into a closed pipe printed on stderr: {err}");
    }
}

/// A command that opens a browser and prints after it (`snapshot`) ends as well when the reader is
/// gone: no panic, exit 0, and the browser is ended through the normal path, not a dying process.
#[test]
fn a_snapshot_into_a_reader_that_stops_early_ends_quietly() {
    let (status, err) = into_a_closed_pipe(&["snapshot", "--layout", "managed", "--point", "boundary"]);
    assert!(status.success(), "snapshot into a closed pipe: {status}, stderr: {err}");
    assert!(!err.contains("panicked"), "snapshot into a closed pipe panicked: {err}");
}
