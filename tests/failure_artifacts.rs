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
