//! Agent clarification actions (spec "Agent clarification actions", operational verification item 1
//! and 5; relay.md "target_ref / action_ref fields", "path_digest computation"): the runtime's
//! `action_ref`s checked against the candidate they describe, Chromium's box model and the
//! contract module's own `path_digest` (one implementation of the digest on each side, compared).

use anyhow::{ensure, Context};
use serde_json::Value;

use super::sampling::boundary_point;
use super::{candidates, require_candidate, require_valid_payload, snapshot_at, Leaf};
use crate::contract::canonical::{legacy_path_digest, path_digest};
use crate::host::Host;

/// Whether the Host's Attention configuration has agent actions on (`wippyAttention.configure`).
pub async fn agent_actions_enabled(host: &Host) -> anyhow::Result<bool> {
    let v = host.eval("window.wippyAttention.configure({}).agent_actions_enabled").await?;
    v.as_bool().context("wippyAttention.configure({}) did not report agent_actions_enabled")
}

/// Checks one candidate's `action_ref` field by field against the candidate and the snapshot.
pub fn require_action_ref(snap: &Value, cand: &Value) -> anyhow::Result<Value> {
    let what = cand["target_id"].as_str().unwrap_or("?");
    let r = cand.get("action_ref").with_context(|| format!("candidate {what} has no action_ref"))?;
    let leaf = cand["path"].as_array().and_then(|p| p.last()).context("candidate without path")?;
    ensure!(r["snapshot_id"] == snap["snapshot_id"], "{what}: action_ref snapshot_id {} != {}", r["snapshot_id"], snap["snapshot_id"]);
    ensure!(r["host_instance_id"] == snap["host_instance_id"], "{what}: action_ref host_instance_id differs from the snapshot's");
    ensure!(r["target_id"] == cand["target_id"], "{what}: action_ref target_id {}", r["target_id"]);
    ensure!(r["mount_id"] == leaf["mount_id"] && r["generation"] == leaf["generation"], "{what}: action_ref mount {}/{} is not the leaf segment's {}/{}", r["mount_id"], r["generation"], leaf["mount_id"], leaf["generation"]);
    ensure!(r["rect"] == cand["rect"], "{what}: action_ref rect {} != candidate rect {}", r["rect"], cand["rect"]);
    let semantic = path_digest(&cand["path"])?;
    ensure!(
        r["path_digest"] == semantic.as_str(),
        "{what}: the runtime's path_digest {} is not the contract module's semantic digest {semantic} (legacy would be {})",
        r["path_digest"],
        legacy_path_digest(&cand["path"])?
    );
    Ok(r.clone())
}

/// With agent actions on: a boundary snapshot and a snapshot over a deeper leaf carry an
/// `action_ref` on every eligible candidate, each equal field by field to what the contract
/// derives (the semantic `path_digest` computed by harness/src/contract/canonical.rs), and the
/// snapshots pass the Session's v1 schema including its `action-reference` stage.
pub async fn action_refs_match_the_contract(host: &Host, deeper: Leaf) -> anyhow::Result<String> {
    ensure!(agent_actions_enabled(host).await?, "this check needs a Host opened with actions=on");
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    require_valid_payload(&snap)?;
    let mut checked = 0;
    for (truth, name) in [(&left, "left-leaf"), (&right, "right-leaf")] {
        require_action_ref(&snap, require_candidate(&snap, truth, name)?)?;
        checked += 1;
    }
    let truth = host.landmark_rect(deeper.landmark()).await?;
    let (x, y) = truth.center();
    let deep = snapshot_at(host, x, y).await?;
    require_valid_payload(&deep)?;
    let leaf = require_action_ref(&deep, require_candidate(&deep, &truth, deeper.landmark())?)?;
    checked += 1;
    for s in [&snap, &deep] {
        for c in candidates(s) {
            let eligible = c["path"].as_array().and_then(|p| p.last()).is_some_and(|l| l["kind"] == "element")
                && c["rect"]["width"].as_f64().unwrap_or(0.0) > 0.0
                && c["rect"]["height"].as_f64().unwrap_or(0.0) > 0.0;
            ensure!(eligible == c.get("action_ref").is_some(), "candidate {} eligible={eligible} but action_ref present={}", c["target_id"], c.get("action_ref").is_some());
            if eligible {
                require_action_ref(s, c)?;
                checked += 1;
            }
        }
    }
    Ok(format!("{checked} action_refs equal the contract's fields and semantic path_digest; {} leaf digest {}", deeper.landmark(), leaf["path_digest"]))
}

/// With agent actions off (the Host default): no candidate carries an `action_ref`.
pub async fn no_action_refs_when_disabled(host: &Host) -> anyhow::Result<String> {
    ensure!(!agent_actions_enabled(host).await?, "this check needs a Host without actions=on");
    let (bx, by, _, _) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let with: Vec<&Value> = candidates(&snap).iter().filter(|c| c.get("action_ref").is_some()).collect();
    ensure!(with.is_empty(), "agent actions are off, yet {} candidates carry an action_ref", with.len());
    ensure!(!candidates(&snap).is_empty(), "the boundary snapshot has no candidates at all; nothing was proven");
    Ok(format!("{} candidates, none with an action_ref", candidates(&snap).len()))
}
