//! Explicit omissions: a child realm that never answers the capability negotiation is omitted with
//! a reason, and what the runtime could resolve is kept.

use attention_harness::checks::{candidate_at, snapshot_at};
use attention_harness::{run_host_with, Engine, Layout};
use rstest::rstest;

#[rstest]
fn child_without_runtime_is_an_explicit_capability_omission_and_siblings_stay(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_with(layout, engine, "extras=no-runtime", async |h| {
        let leaf = h.landmark_rect("plain-leaf").await?;
        let (x, y) = leaf.center();
        // No runtime there observes the pointer, so the Host cannot know it moved inside: ask for
        // the neighbourhood of an explicit point instead.
        h.move_to(x, y).await?;
        let snap = h.snapshot_with(serde_json::json!({"point": {"x": x, "y": y}})).await?;
        anyhow::ensure!(snap["capture"]["sampled_points"] == 49, "the explicit point was not sampled");
        let omissions = snap["omissions"].as_array().cloned().unwrap_or_default();
        anyhow::ensure!(
            omissions.iter().any(|o| o["reason"] == "capability-unavailable" && o["mount_id"].is_string()),
            "no capability-unavailable omission naming the child's mount: {omissions:?}"
        );
        anyhow::ensure!(snap["capture"]["complete"] == false, "a snapshot with an omitted child must not claim to be complete");
        anyhow::ensure!(candidate_at(&snap, &leaf).is_none(), "the runtime invented a candidate inside a realm it cannot query");
        anyhow::ensure!(!snap.to_string().contains("Plain leaf"), "text from the runtime-less child leaked into the snapshot");
        // The sibling boundary pair is still fully resolved in the same page.
        let (bx, by, left, right) = attention_harness::checks::sampling::boundary_point(h).await?;
        let pair = snapshot_at(h, bx, by).await?;
        anyhow::ensure!(candidate_at(&pair, &left).is_some() && candidate_at(&pair, &right).is_some(), "siblings lost");
        Ok(())
    });
}
