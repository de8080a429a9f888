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

/// A snapshot taken once every realm has delivered what it observed (`Host::observations_delivered`,
/// what a scenario's `snapshot` step does before it) holds the trusted click just given in a
/// cross-origin leaf, every time: its latest pointer is that click at that point, and its focus is
/// the button Chromium focused (the same landmark, the name of its AX node). Without the wait, a
/// snapshot taken right after the click could miss the leaf's messages still crossing to the Host
/// (a scenario's golden then had no candidates, no events and no focus). 40 clicks, alternating
/// between the two leaves so each one moves the focus.
#[test]
fn a_snapshot_after_the_realms_delivered_always_holds_the_click_just_given_in_a_child_realm() {
    use attention_harness::attention::EventType;
    run_host(Layout::Managed, Engine::Iframe, async |h| {
        let leaves = [
            ("left-leaf", h.landmark_rect("left-leaf").await?.center()),
            ("right-leaf", h.landmark_rect("right-leaf").await?.center()),
        ];
        let names = [h.landmark_ax("left-leaf").await?.name, h.landmark_ax("right-leaf").await?.name];
        for i in 0..40 {
            let (landmark, (x, y)) = leaves[i % 2];
            h.click_at(x, y).await?;
            h.observations_delivered().await?;
            let snap = h.snapshot().await?;
            let pointer = snap.pointer.as_ref().map(|p| (p.event_type, p.point.x, p.point.y));
            anyhow::ensure!(
                matches!(pointer, Some((EventType::Click, px, py)) if (px - x).abs() <= 1.0 && (py - y).abs() <= 1.0),
                "click {i} at ({x}, {y}) on {landmark}: the snapshot's latest pointer is {}",
                snap.pointer.as_ref().map(|p| serde_json::json!(p).to_string()).unwrap_or_else(|| "none".into())
            );
            let truth = h.focused_truth().await?.and_then(|f| f.landmark);
            anyhow::ensure!(
                truth.as_deref() == Some(landmark),
                "click {i}: Chromium focused {truth:?}, not {landmark}"
            );
            let focus = snap.focus.as_ref().and_then(|f| f.summary.name.as_deref());
            anyhow::ensure!(
                focus == Some(names[i % 2].as_str()),
                "click {i} on {landmark}: the snapshot's focus is {focus:?}, Chromium's focused button is named {:?}",
                names[i % 2]
            );
        }
        Ok(())
    });
}
