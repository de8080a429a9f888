//! Trusted typing and pointer gestures, proven by the receiving realm's own state and log.

use attention_harness::checks::expect::{leaf_frame, Leaf};
use attention_harness::checks::{leaf_log, snapshot_at};
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn typed_text_lands_in_a_cross_origin_field_as_trusted_keys_and_never_in_a_snapshot(
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(Layout::Managed, engine, async |h| {
        let field = h.landmark_rect("probe-password").await?;
        let (x, y) = field.center();
        h.click_at(x, y).await?;
        let frame = leaf_frame(engine, Leaf::Left);
        let read = "document.querySelector('[data-landmark=\"probe-password\"]').value";
        let before = h.eval_in_frame(&frame, read).await?;
        let from = leaf_log(h, Leaf::Left).await?.len();
        h.type_text("xyzzy42").await?;
        let after = h.eval_in_frame(&frame, read).await?;
        // The caret sits wherever the click put it: the field gained exactly the typed text.
        let (before, after) = (before.as_str().unwrap_or_default(), after.as_str().unwrap_or_default());
        anyhow::ensure!(
            after.contains("xyzzy42") && after.replacen("xyzzy42", "", 1) == before,
            "the field went from {before:?} to {after:?}"
        );
        let keys: Vec<_> = leaf_log(h, Leaf::Left).await?.into_iter().skip(from).filter(|e| e.is("keydown")).collect();
        anyhow::ensure!(keys.len() == 7 && keys.iter().all(|e| e.is_trusted), "keydowns: {keys:?}");
        let snap = snapshot_at(h, x, y).await?;
        anyhow::ensure!(!snap.json().to_string().contains("xyzzy"), "typed password text reached the snapshot");
        Ok(())
    });
}
