//! A failing end-to-end test leaves a screenshot, the last snapshot, the console log and its failure
//! message beside its name, and its failure message names that folder.

use std::panic::{catch_unwind, AssertUnwindSafe};

use attention_harness::report::artifacts_root;
use attention_harness::{run_host, Engine, Layout};

#[test]
fn failing_test_leaves_screenshot_snapshot_and_console_and_names_the_folder() {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        run_host(Layout::Compat, Engine::Iframe, async |h| {
            h.eval("console.log('marker-from-the-page')").await?;
            h.snapshot().await?;
            anyhow::bail!("deliberate failure")
        })
    }));
    let panic = outcome.expect_err("the body failed, so run_host must fail the test");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    let folder = artifacts_root().join(attention_harness::report::current_test_name());
    assert!(message.contains("deliberate failure") && message.contains(&folder.display().to_string()), "{message}");
    let png = std::fs::read(folder.join("screenshot.png")).expect("screenshot.png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let snap: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("snapshot.json")).unwrap()).unwrap();
    assert_eq!(snap["schema"], "wippy.attention.v1");
    let console = std::fs::read_to_string(folder.join("console.log")).unwrap();
    assert!(console.contains("marker-from-the-page"), "{console}");
    let failure = std::fs::read_to_string(folder.join("failure.txt")).expect("failure.txt");
    assert!(failure.contains("deliberate failure"), "failure.txt: {failure}");
}

/// A replay that fails without `--html` still leaves its failed step's artifacts (the annotated
/// screenshot, the zoomed crop, the step's snapshot, the last read, the page's console, the
/// failure), in one folder its failure line names.
#[test]
fn a_failed_replay_without_html_leaves_its_artifacts_in_the_folder_its_failure_line_names() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/failure-artifacts-tests");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fails-after-a-read.json");
    let sc = serde_json::json!({"engines": ["iframe"], "steps": [
        {"do": "open"},
        {"do": "read", "tool": "attention_find_semantic", "args": {"name": "Attention target left"}},
        {"do": "move", "at": "left-leaf"},
        {"do": "expect", "top": {"name": "Attention target right"}, "timeout_ms": 200}
    ]});
    std::fs::write(&file, serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["replay", file.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("FAIL ")).expect("a failure line");
    let folder = line
        .split_once("(artifacts: ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(d, _)| std::path::PathBuf::from(d))
        .unwrap_or_else(|| panic!("the failure line names no artifacts folder: {line}"));
    assert!(line.contains("steps[3] (expect)"), "{line}");
    for png in ["screenshot.png", "crop.png"] {
        let bytes = std::fs::read(folder.join(png)).unwrap_or_else(|e| panic!("{png}: {e}"));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{png}");
    }
    let snap: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("snapshot.json")).unwrap()).unwrap();
    assert_eq!(snap["schema"], "wippy.attention.v1");
    let read: serde_json::Value = serde_json::from_slice(&std::fs::read(folder.join("read.json")).unwrap()).unwrap();
    assert!(read["summary"].as_str().unwrap().starts_with("attention_find_semantic ended inspected"), "{read}");
    assert_eq!(read["kept"]["schema"], "wippy.attention.model.v1", "{read}");
    assert!(std::fs::metadata(folder.join("console.log")).is_ok(), "console.log");
    let failure = std::fs::read_to_string(folder.join("failure.txt")).unwrap();
    assert!(failure.contains("expected the candidate under the pointer to be any role named"), "{failure}");
}
