//! Agent clarification actions (spec "Agent clarification actions", operational verification item 1
//! and 5; relay.md "target_ref / action_ref fields", "path_digest computation"): the runtime's
//! `action_ref`s checked against the candidate they describe, Chromium's box model and the
//! contract module's own `path_digest` (one implementation of the digest on each side, compared).

use anyhow::{ensure, Context};
use serde_json::Value;

use super::sampling::boundary_point;
use super::{candidate_json, candidates, require_candidate, require_valid_payload, show_rect, snapshot_at, Leaf};
use crate::attention::{Candidate, Reported, SegmentKind, Snapshot};
use crate::contract::canonical::{legacy_path_digest, path_digest};
use crate::host::Host;
use crate::oracle::BoxRect;

/// Whether the Host's Attention configuration has agent actions on (`wippyAttention.configure`).
pub async fn agent_actions_enabled(host: &Host) -> anyhow::Result<bool> {
    let v = host.eval("window.wippyAttention.configure({}).agent_actions_enabled").await?;
    v.as_bool().context("wippyAttention.configure({}) did not report agent_actions_enabled")
}

/// Checks one candidate's `action_ref` field by field against the candidate and the snapshot;
/// returns it as the runtime sent it (what an agent copies verbatim into an action's `targets`).
pub fn require_action_ref(snap: &Reported<Snapshot>, cand: &Candidate) -> anyhow::Result<Value> {
    let what = cand.target_id.as_str();
    let r = cand.action_ref.as_ref().with_context(|| format!("candidate {what} has no action_ref"))?;
    let leaf = cand.path.last().context("candidate without path")?;
    ensure!(
        r.snapshot_id == snap.snapshot_id,
        "{what}: action_ref snapshot_id {} != {}",
        r.snapshot_id,
        snap.snapshot_id
    );
    ensure!(
        r.host_instance_id == snap.host_instance_id,
        "{what}: action_ref host_instance_id differs from the snapshot's"
    );
    ensure!(r.target_id == cand.target_id, "{what}: action_ref target_id {}", r.target_id);
    ensure!(
        r.mount_id == leaf.mount_id && r.generation == leaf.generation,
        "{what}: action_ref mount {}/{} is not the leaf segment's {}/{}",
        r.mount_id,
        r.generation,
        leaf.mount_id,
        leaf.generation
    );
    ensure!(
        r.rect == cand.rect,
        "{what}: action_ref rect {} != candidate rect {}",
        show_rect(&r.rect),
        show_rect(&cand.rect)
    );
    // The digests are over the path exactly as the runtime sent it.
    let json = candidate_json(snap, cand)?;
    let semantic = path_digest(&json["path"])?;
    ensure!(
        r.path_digest == semantic,
        "{what}: the runtime's path_digest {} is not the contract module's semantic digest {semantic} (legacy would be {})",
        r.path_digest,
        legacy_path_digest(&json["path"])?
    );
    Ok(json["action_ref"].clone())
}

/// With agent actions on: a boundary snapshot and a snapshot over a deeper leaf carry an
/// `action_ref` on every eligible candidate, each equal field by field to what the contract
/// derives (the semantic `path_digest` computed by harness/src/json/canonical.rs), and the
/// snapshots pass the Session's v1 schema including its `action-reference` stage.
pub async fn action_refs_match_the_contract(host: &Host, deeper: Leaf) -> anyhow::Result<String> {
    ensure!(agent_actions_enabled(host).await?, "this check needs a Host opened with actions=on");
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    require_valid_payload(snap.json())?;
    let mut checked = 0;
    for (truth, name) in [(&left, "left-leaf"), (&right, "right-leaf")] {
        require_action_ref(&snap, require_candidate(&snap, truth, name)?)?;
        checked += 1;
    }
    let truth = host.landmark_rect(deeper.landmark()).await?;
    let (x, y) = truth.center();
    let deep = snapshot_at(host, x, y).await?;
    require_valid_payload(deep.json())?;
    let leaf = require_action_ref(&deep, require_candidate(&deep, &truth, deeper.landmark())?)?;
    checked += 1;
    for s in [&snap, &deep] {
        for c in candidates(s) {
            let eligible = c.path.last().is_some_and(|l| l.kind == SegmentKind::Element)
                && c.rect.width > 0.0
                && c.rect.height > 0.0;
            ensure!(
                eligible == c.action_ref.is_some(),
                "candidate {} eligible={eligible} but action_ref present={}",
                c.target_id,
                c.action_ref.is_some()
            );
            if eligible {
                require_action_ref(s, c)?;
                checked += 1;
            }
        }
    }
    Ok(format!(
        "{checked} action_refs equal the contract's fields and semantic path_digest; {} leaf digest {}",
        deeper.landmark(),
        leaf["path_digest"]
    ))
}

/// With agent actions off (the Host default): no candidate carries an `action_ref`.
pub async fn no_action_refs_when_disabled(host: &Host) -> anyhow::Result<String> {
    ensure!(!agent_actions_enabled(host).await?, "this check needs a Host without actions=on");
    let (bx, by, _, _) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let with: Vec<&Candidate> = candidates(&snap).iter().filter(|c| c.action_ref.is_some()).collect();
    ensure!(with.is_empty(), "agent actions are off, yet {} candidates carry an action_ref", with.len());
    ensure!(!candidates(&snap).is_empty(), "the boundary snapshot has no candidates at all; nothing was proven");
    Ok(format!("{} candidates, none with an action_ref", candidates(&snap).len()))
}

// ---- Host-owned overlay, end to end (operational verification item 5) ---------------------------

use std::time::Duration;

use serde_json::json;

use super::focus::await_truth;
use super::session::{compose, composer_ready, enter_and_settle, session_id, session_of, settle};
use super::{leaf_log, wait_for, LeafEvent, Poll, POINTER_TIMEOUT};
use crate::agent::{ActionOptions, ActionResult, Agent, Status};
use crate::input::Key;
use crate::server::session::ui_actions::Mode;

const RESULT_WAIT: Duration = Duration::from_secs(15);

/// Binds the harness as the agent to the Host tab: a trusted message from the composer carries
/// the tab's runtime_context, which makes that socket the session's route.
pub async fn bound_agent(host: &Host) -> anyhow::Result<Agent> {
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    compose(host, "bind").await?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "the binding message was not received: {row}");
    Ok(Agent::bind(session_of(host)?, &sid)?)
}

/// Binds the harness as the agent to the Host tab without touching anything of the user's: the
/// Host's composer sends the binding message itself (`window.__host.session.send`, what its form's
/// submit calls), with no input, so the pointer, the focus, the selection and the composer's draft
/// stay where they were. What a scenario's `read` and `action` steps use.
pub async fn bound_agent_untouched(host: &Host) -> anyhow::Result<Agent> {
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    let before = host.eval("window.__host.session.rows.length").await?.as_u64().unwrap_or(0);
    host.eval("(window.__host.session.send('bind'), true)").await?;
    let row = settle(host, before).await?;
    ensure!(row["delivery"] == "received", "the binding message was not received: {row}");
    Ok(Agent::bind(session_of(host)?, &sid)?)
}

/// The `action_ref` of the candidate at `leaf`'s box, from a snapshot taken with the pointer there.
pub async fn leaf_ref(host: &Host, leaf: Leaf) -> anyhow::Result<Value> {
    let truth = host.landmark_rect(leaf.landmark()).await?;
    let (x, y) = truth.center();
    let snap = snapshot_at(host, x, y).await?;
    require_action_ref(&snap, require_candidate(&snap, &truth, leaf.landmark())?)
}

pub async fn await_overlay(host: &Host, open: bool) -> anyhow::Result<()> {
    let what = if open { "the Host overlay opening" } else { "the Host overlay closing" };
    wait_for(host, what, POINTER_TIMEOUT, || async move {
        // Open means painted (`data-wippy-attention-ready`); closed means no overlay element at all.
        let n = host
            .eval("document.querySelectorAll('[data-wippy-attention-overlay]').length")
            .await?
            .as_u64()
            .unwrap_or(0);
        let ready = host
            .eval("document.querySelectorAll('[data-wippy-attention-overlay][data-wippy-attention-ready]').length")
            .await?
            .as_u64()
            .unwrap_or(0);
        let done = if open { n == 1 && ready == 1 } else { n == 0 };
        Ok(if done { Poll::Ready(()) } else { Poll::Pending(format!("{n} overlays, {ready} painted")) })
    })
    .await
}

/// Centre of an overlay element (Host viewport CSS px).
pub(crate) async fn overlay_point(host: &Host, selector: &str) -> anyhow::Result<(f64, f64)> {
    let r = host
        .eval(&format!(
            "(() => {{ const e = document.querySelector('[data-wippy-attention-overlay] ' + {}); if (!e) return null; const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            json!(selector)
        ))
        .await?;
    let a = r.as_array().with_context(|| format!("no overlay element {selector}"))?;
    Ok((a[0].as_f64().unwrap_or(f64::NAN), a[1].as_f64().unwrap_or(f64::NAN)))
}

pub(crate) async fn click_overlay(host: &Host, selector: &str) -> anyhow::Result<()> {
    let (x, y) = overlay_point(host, selector).await?;
    host.click_at(x, y).await?;
    Ok(())
}

/// Exactly one terminal result: the agent's, and no second one reached the broker.
pub(crate) async fn one_result(host: &Host, pending: crate::agent::PendingAction) -> anyhow::Result<ActionResult> {
    let r = pending.result(RESULT_WAIT).await?;
    let action = r.envelope["in_reply_to_action_id"].clone();
    let sent = host
        .eval(&format!("window.__host.overlay.results.filter((x) => x.in_reply_to_action_id === {action}).length"))
        .await?
        .as_u64()
        .unwrap_or(0);
    ensure!(sent <= 1, "the Host sent {sent} results for action {action}");
    let sid = r.envelope["session_id"].as_str().unwrap_or_default().to_string();
    let refused: Vec<_> = session_of(host)?.broker().refusals().into_iter().filter(|x| x.session_id == sid).collect();
    ensure!(refused.is_empty(), "the broker refused Host results: {}", crate::report::text::json(&refused));
    Ok(r)
}

pub(crate) fn require_status(r: &ActionResult, status: Status) -> anyhow::Result<()> {
    ensure!(
        r.status == status,
        "expected {status}, got {} ({}): {}",
        r.status,
        r.reason.as_deref().unwrap_or("no reason"),
        r.envelope
    );
    Ok(())
}

fn pointer_downs(log: &[LeafEvent]) -> usize {
    log.iter().filter(|e| e.is("pointerdown")).count()
}

/// Confirm by pointer over two targets at the boundary: a click on a target outline selects it and
/// never reaches the leaf below (its own log), the primary button confirms that target, and focus
/// returns to the composer (Chromium's focused element).
pub async fn confirm_by_pointer(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let l = require_action_ref(&snap, require_candidate(&snap, &left, "left-leaf")?)?;
    let r = require_action_ref(&snap, require_candidate(&snap, &right, "right-leaf")?)?;
    let (cx, cy) = host.landmark_rect("composer-input").await?.center();
    host.click_at(cx, cy).await?;
    await_truth(host, "composer-input").await?;
    let pending = agent
        .confirm(&[l.clone(), r.clone()], &ActionOptions { prompt: Some("Which one?".into()), ..Default::default() })?;
    await_overlay(host, true).await?;
    let before = pointer_downs(&leaf_log(host, Leaf::Right).await?);
    let target_sel = format!("[data-wippy-attention-target={}]", json!(r["target_id"].as_str().unwrap_or_default()));
    let (tx, ty) = overlay_point(host, &target_sel).await?;
    ensure!(
        (tx - right.center().0).abs() < 1.0 && (ty - right.center().1).abs() < 1.0,
        "the right outline is not over the right leaf"
    );
    host.click_at(tx, ty).await?;
    wait_for(host, "the right outline pressed", POINTER_TIMEOUT, || async {
        let p = host
            .eval(&format!(
                "document.querySelector('[data-wippy-attention-overlay] ' + {}).getAttribute('aria-pressed')",
                json!(target_sel)
            ))
            .await?;
        Ok(if p == "true" { Poll::Ready(()) } else { Poll::Pending(p.to_string()) })
    })
    .await?;
    let after = pointer_downs(&leaf_log(host, Leaf::Right).await?);
    ensure!(after == before, "the right leaf received {} pointerdowns through the overlay", after - before);
    click_overlay(host, "[data-wippy-attention-answer=primary]").await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Confirmed)?;
    let sel = res.selected_target.context("confirmed without selected_target")?;
    ensure!(
        sel["target_id"] == r["target_id"] && sel["path_digest"] == r["path_digest"],
        "confirmed {} instead of the right leaf",
        sel["target_id"]
    );
    await_overlay(host, false).await?;
    await_truth(host, "composer-input").await?;
    Ok(format!(
        "confirmed {} by pointer; leaf pointerdowns unchanged ({before}); focus back in the composer",
        sel["target_id"]
    ))
}

/// Select by keyboard (Enter on the auto-focused primary button), focus restored into `leaf`.
pub async fn select_by_keyboard_restores_focus(host: &Host, leaf: Leaf) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, leaf).await?;
    let (x, y) = host.landmark_rect(leaf.landmark()).await?.center();
    host.click_at(x, y).await?;
    await_truth(host, leaf.landmark()).await?;
    let pending = agent.select(std::slice::from_ref(&target), &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.press_key(Key::ENTER).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Selected)?;
    ensure!(
        res.selected_target.as_ref().is_some_and(|s| s["target_id"] == target["target_id"]),
        "selected another target: {}, expected {}",
        crate::report::text::opt(res.selected_target.as_ref()),
        target["target_id"]
    );
    await_overlay(host, false).await?;
    let f = await_truth(host, leaf.landmark()).await?;
    Ok(format!("selected by Enter; focus back on {} <{}> in {}", leaf.landmark(), f.tag, f.frame_url))
}

/// Escape cancels, focus returns to `leaf`.
pub async fn escape_cancels_and_restores_focus(host: &Host, leaf: Leaf) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, leaf).await?;
    let (x, y) = host.landmark_rect(leaf.landmark()).await?.center();
    host.click_at(x, y).await?;
    await_truth(host, leaf.landmark()).await?;
    let pending = agent.highlight(&[target], &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.press_key(Key::ESCAPE).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Cancelled)?;
    await_overlay(host, false).await?;
    let f = match await_truth(host, leaf.landmark()).await {
        Ok(f) => f,
        Err(e) => {
            let top = host.eval("(document.activeElement && document.activeElement.outerHTML.slice(0, 120)) + ' hasFocus=' + document.hasFocus()").await?;
            let inner = host.eval_in_frame(&super::leaf_frame(host.engine, leaf), "(document.activeElement && document.activeElement.outerHTML.slice(0, 120)) + ' hasFocus=' + document.hasFocus()").await?;
            anyhow::bail!("{e:#}; top active {top}; leaf realm active {inner}");
        }
    };
    Ok(format!("Escape cancelled; focus back on {} in {}", leaf.landmark(), f.frame_url))
}

/// allow_pointer false: a trusted click on the primary button does not answer; the keyboard
/// (Space) does. allow_keyboard false: Enter does not answer; a pointer click does.
pub async fn pointer_and_keyboard_are_permissioned_independently(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Left).await?;
    let no_pointer = ActionOptions { allow_pointer: false, ..Default::default() };
    let pending = agent.highlight(std::slice::from_ref(&target), &no_pointer)?;
    await_overlay(host, true).await?;
    click_overlay(host, "[data-wippy-attention-answer=primary]").await?;
    // The click was delivered (trusted) yet must not answer: the overlay is still the active one.
    let active =
        host.eval("window.__host.overlay.active !== null && window.__host.overlay.results.length === 0").await?;
    ensure!(active == true, "a pointer click answered an action with allow_pointer false");
    host.eval("document.querySelector('[data-wippy-attention-answer=primary]').focus(), true").await?;
    host.press_key(Key::SPACE).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Confirmed)?;
    await_overlay(host, false).await?;

    let no_keyboard = ActionOptions { allow_keyboard: false, ..Default::default() };
    let pending = agent.highlight(&[target], &no_keyboard)?;
    await_overlay(host, true).await?;
    host.press_key(Key::ENTER).await?;
    let active =
        host.eval("window.__host.overlay.active !== null && window.__host.overlay.results.length === 1").await?;
    ensure!(active == true, "Enter answered an action with allow_keyboard false");
    click_overlay(host, "[data-wippy-attention-answer=primary]").await?;
    let res = pending.result(RESULT_WAIT).await?;
    require_status(&res, Status::Confirmed)?;
    Ok("pointer refused without allow_pointer, keyboard refused without allow_keyboard; each other path answered"
        .into())
}

/// A request nobody answers ends `expired` at its TTL and the overlay closes.
pub async fn timeout_expires(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Right).await?;
    let t0 = std::time::Instant::now();
    let pending = agent.confirm(&[target], &ActionOptions { ttl_secs: 1, ..Default::default() })?;
    await_overlay(host, true).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Expired)?;
    await_overlay(host, false).await?;
    Ok(format!("expired after {} s (TTL 1 s)", crate::report::text::num(t0.elapsed().as_secs_f64())))
}

/// The target's realm is remounted while the overlay is up: `stale`, no selected_target.
pub async fn remount_makes_stale(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Left).await?;
    let pending = agent.confirm(&[target], &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.eval("window.__host.remount('leaf-left').then(() => true)").await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Stale)?;
    ensure!(res.selected_target.is_none(), "a stale result carries a selected_target");
    await_overlay(host, false).await?;
    Ok(format!("remount -> stale ({})", res.reason.as_deref().unwrap_or("no reason")))
}

/// A target from another Host instance (the same page reloaded) is stale.
pub async fn other_host_instance_is_stale(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let mut target = leaf_ref(host, Leaf::Left).await?;
    target["host_instance_id"] = json!("host-0000000000000000");
    let res = one_result(host, agent.confirm(&[target], &ActionOptions::default())?).await?;
    require_status(&res, Status::Stale)?;
    Ok(format!("changed Host instance -> stale ({})", res.reason.as_deref().unwrap_or("no reason")))
}

/// The socket drops while the overlay is up: `disconnected`, the overlay closes; a new socket
/// binds again with the next message, and a later action works.
pub async fn disconnect_then_reconnect(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Left).await?;
    let pending = agent.select(std::slice::from_ref(&target), &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.eval("window.__host.session.disconnect(), true").await?;
    let res = pending.result(RESULT_WAIT).await?;
    require_status(&res, Status::Disconnected)?;
    await_overlay(host, false).await?;
    host.eval("window.__host.session.reconnect()").await?;
    let again = bound_agent(host).await?;
    ensure!(again.route().delivery_handle != agent.route().delivery_handle, "the new socket did not bind a new route");
    let pending = again.select(&[target], &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.press_key(Key::ENTER).await?;
    let res = pending.result(RESULT_WAIT).await?;
    require_status(&res, Status::Selected)?;
    Ok("disconnected, rebound, selected".into())
}

/// Interactive capabilities off (the Host default): the route is not authorized, the broker
/// sends nothing and no overlay opens (operational verification item 1).
pub async fn no_overlay_when_actions_off(host: &Host) -> anyhow::Result<String> {
    ensure!(!agent_actions_enabled(host).await?, "this check needs a Host without actions=on");
    let agent = bound_agent(host).await?;
    ensure!(!agent.route().agent_actions_authorized, "the tab reported agent actions on");
    let (bx, by, left, _) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let c = require_candidate(&snap, &left, "left-leaf")?;
    ensure!(c.action_ref.is_none(), "a candidate carries an action_ref with actions off");
    // Even a reference built by hand gets no overlay.
    let raw = candidate_json(&snap, c)?;
    let forged = json!({"snapshot_id": snap.snapshot_id, "target_id": c.target_id, "host_instance_id": snap.host_instance_id,
        "mount_id": "m", "generation": 1, "path_digest": path_digest(&raw["path"])?, "rect": raw["rect"]});
    let res = agent.confirm(&[forged], &ActionOptions::default())?.result(RESULT_WAIT).await?;
    require_status(&res, Status::PermissionDenied)?;
    let n = host.eval("document.querySelectorAll('[data-wippy-attention-overlay]').length").await?;
    ensure!(n == 0, "{n} overlays opened with actions off");
    ensure!(
        session_of(host)?.broker().sent().iter().all(|f| f["session_id"] != agent.route().session_id.as_str()),
        "a request reached the Host"
    );
    Ok("permission-denied, no request sent, no overlay".into())
}

/// The Host page navigates while the overlay is up: the interaction ends `stale` exactly once
/// (the Host answers on pagehide, before its socket closes; the broker's later disconnect finds
/// nothing pending).
pub async fn host_navigation_makes_stale(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Right).await?;
    let pending = agent.select(&[target], &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.eval("setTimeout(() => location.assign(location.href), 0), true").await?;
    let res = pending.result(RESULT_WAIT).await?;
    require_status(&res, Status::Stale)?;
    let refused: Vec<_> = session_of(host)?
        .broker()
        .refusals()
        .into_iter()
        .filter(|x| x.session_id == agent.route().session_id)
        .collect();
    ensure!(refused.is_empty(), "the broker refused Host results: {}", crate::report::text::json(&refused));
    Ok(format!("Host navigation -> stale ({})", res.reason.as_deref().unwrap_or("no reason")))
}

/// Remount and a changed Host instance, both `stale`.
pub async fn stale_targets(host: &Host) -> anyhow::Result<String> {
    let a = remount_makes_stale(host).await?;
    let b = other_host_instance_is_stale(host).await?;
    Ok(format!("{a}; {b}"))
}

/// Events of the leaf's own log that are input (pointer, touch, click, key, text input); focus
/// events are not: focus returning into the leaf is expected.
fn input_events(log: &[LeafEvent]) -> usize {
    log.iter().filter(|e| !matches!(e.event_type.as_str(), "focusin" | "focusout")).count()
}

/// Elements of the overlay anywhere in the Host document (root, outlines, answers, dialog).
const OVERLAY_PARTS: &str = "[data-wippy-attention-overlay], [data-wippy-attention-target], [data-wippy-attention-answer], [data-wippy-attention-region], #wippy-attention-overlay-title";

/// The Host's own results for `action_id` (what overlay.js sent on the socket).
async fn host_results_for(host: &Host, action_id: &Value) -> anyhow::Result<Vec<Value>> {
    let v = host
        .eval(&format!("window.__host.overlay.results.filter((x) => x.in_reply_to_action_id === {action_id})"))
        .await?;
    Ok(v.as_array().cloned().unwrap_or_default())
}

/// Internal failures of the Host's overlay end the action `error` at once, with a fixed reason, made
/// by the Host page's own script (the Host app; `Runtime.evaluate` in the Host realm, not input)
/// while the overlay is up:
/// - the whole overlay root removed (an app re-render dropping nodes it does not own; highlight
///   over the left leaf, focus in that leaf) -> "overlay was removed by the page";
/// - only its dialog removed (confirm over the right leaf, focus in the composer; the Host closes
///   the rest) -> "overlay was removed by the page";
/// - the overlay root's `style.pointerEvents` made to throw (an app bug in a style shim; select over
///   the left leaf, focus in the composer): the next geometry refresh's revalidation throws ->
///   "Host overlay failed", never the exception's text.
///
/// Each time: exactly one `error`, sent by the Host (no selected_target, no refusal, no second
/// result), nothing of the overlay left in the document, focus back on the control focused before
/// the overlay opened (Chromium's focused element), and the leaf under the overlay received no
/// input (its own log) although a trusted click was sent at its centre while the overlay was up.
pub async fn overlay_failures_end_error(host: &Host) -> anyhow::Result<String> {
    const REMOVE_ROOT: &str = "(() => { const e = document.querySelector('[data-wippy-attention-overlay]'); if (!e) return false; e.remove(); return true; })()";
    const REMOVE_DIALOG: &str = "(() => { const e = document.querySelector('[data-wippy-attention-overlay] [role=dialog]'); if (!e) return false; e.remove(); return true; })()";
    const BREAK_STYLE: &str = "(() => { const e = document.querySelector('[data-wippy-attention-overlay]'); if (!e) return false; Object.defineProperty(e.style, 'pointerEvents', { configurable: true, get() { return ''; }, set() { throw new Error('CANARY-EXCEPTION-TEXT style shim bug'); } }); return true; })()";
    let agent = bound_agent(host).await?;
    let mut out = Vec::new();
    let cases = [
        (
            Leaf::Left,
            Leaf::Left.landmark(),
            Mode::Highlight,
            "overlay root removed",
            REMOVE_ROOT,
            "overlay was removed by the page",
        ),
        (
            Leaf::Right,
            "composer-input",
            Mode::Confirm,
            "dialog removed",
            REMOVE_DIALOG,
            "overlay was removed by the page",
        ),
        (Leaf::Left, "composer-input", Mode::Select, "overlay style throws", BREAK_STYLE, "Host overlay failed"),
    ];
    for (leaf, focused, mode, what, page_js, reason) in cases {
        let target = leaf_ref(host, leaf).await?;
        let (fx, fy) = host.landmark_rect(focused).await?.center();
        host.click_at(fx, fy).await?;
        await_truth(host, focused).await?;
        let inputs = input_events(&leaf_log(host, leaf).await?);
        let targets = std::slice::from_ref(&target);
        let o = ActionOptions::default();
        let pending = match mode {
            Mode::Highlight => agent.highlight(targets, &o)?,
            Mode::Confirm => agent.confirm(targets, &o)?,
            _ => agent.select(targets, &o)?,
        };
        await_overlay(host, true).await?;
        let action_id = host.eval("window.__host.overlay.active && window.__host.overlay.active.action_id").await?;
        ensure!(action_id.is_string(), "no active overlay after it painted");
        let (lx, ly) = host.landmark_rect(leaf.landmark()).await?.center();
        host.click_at(lx, ly).await?;
        ensure!(host.eval(page_js).await? == true, "{what}: the page script found no overlay");
        let res = one_result(host, pending).await?;
        require_status(&res, Status::Error)?;
        ensure!(
            res.reason.as_deref() == Some(reason),
            "{what}: error for another reason: {}, expected {}",
            crate::report::text::quote_opt(res.reason.as_deref()),
            crate::report::text::quote(reason)
        );
        ensure!(res.selected_target.is_none(), "an error result carries a selected_target");
        ensure!(
            res.envelope["in_reply_to_action_id"] == action_id,
            "the error answers {} not the open action {action_id}",
            res.envelope["in_reply_to_action_id"]
        );
        let sent = host_results_for(host, &action_id).await?;
        ensure!(
            sent.len() == 1 && sent[0]["result_id"] == res.envelope["result_id"],
            "{what}: the Host sent {} results for the action (the broker's is {}), expected just that one: {}",
            sent.len(),
            res.envelope["result_id"],
            crate::report::text::json(&sent)
        );
        ensure!(
            !res.envelope.to_string().contains("CANARY-EXCEPTION-TEXT"),
            "the exception's text reached the result: {}",
            res.envelope
        );
        wait_for(host, "nothing of the overlay left in the document", POINTER_TIMEOUT, || async {
            let n = host
                .eval(&format!("document.querySelectorAll({}).length", json!(OVERLAY_PARTS)))
                .await?
                .as_u64()
                .unwrap_or(u64::MAX);
            Ok(if n == 0 { Poll::Ready(()) } else { Poll::Pending(format!("{n} overlay elements")) })
        })
        .await?;
        let active = host.eval("window.__host.overlay.active").await?;
        ensure!(active.is_null(), "the Host still has an active interaction: {active}");
        let f = await_truth(host, focused).await?;
        let after = input_events(&leaf_log(host, leaf).await?);
        ensure!(
            after == inputs,
            "{what}: {} received {} input events while the overlay was up",
            leaf.landmark(),
            after - inputs
        );
        out.push(format!("{what} -> error ({reason}); focus back on {focused} in {}", f.frame_url));
    }
    Ok(out.join("; "))
}

/// relay.md "Legs" 1: the tool gives up and sends `session_ui_action_cancel {delivery_handle,
/// call_id}` ([`Agent::cancel`]). The waiting caller gets exactly one `cancelled` "tool request
/// cancelled" from the broker; the Host, told by our cancel frame, closes the overlay without a
/// result of its own (its sent results hold none for the action), focus returns to the control
/// focused before (Chromium's focused element, the right leaf), the leaf below received no input;
/// a repeat of the call_id gets the same `cancelled`, a second cancel is
/// `BrokerError::CallFinished`, and the session is free: the next action opens and is answered.
pub async fn tool_cancel_closes_the_overlay(host: &Host) -> anyhow::Result<String> {
    use crate::agent::AgentError;
    use crate::server::session::ui_actions::BrokerError;
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Right).await?;
    let (x, y) = host.landmark_rect(Leaf::Right.landmark()).await?.center();
    host.click_at(x, y).await?;
    await_truth(host, Leaf::Right.landmark()).await?;
    let inputs = input_events(&leaf_log(host, Leaf::Right).await?);
    let sid = agent.route().session_id.clone();
    let cancels_before =
        session_of(host)?.broker().cancels_sent().iter().filter(|f| f["session_id"] == sid.as_str()).count();
    let pending =
        agent.select(std::slice::from_ref(&target), &ActionOptions { ttl_secs: 120, ..Default::default() })?;
    await_overlay(host, true).await?;
    let action_id = host.eval("window.__host.overlay.active && window.__host.overlay.active.action_id").await?;
    ensure!(action_id.is_string(), "no active overlay after it painted");
    let call_id = pending.call_id.clone();
    agent.cancel(&call_id)?;
    let retry = agent.repeat(&pending)?;
    let retry_call = agent.repeat(&pending)?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Cancelled)?;
    ensure!(
        res.reason.as_deref() == Some("tool request cancelled"),
        "cancelled for another reason: {}, expected “tool request cancelled”",
        crate::report::text::quote_opt(res.reason.as_deref())
    );
    ensure!(
        res.envelope["in_reply_to_action_id"] == action_id,
        "the result answers {} not the open action {action_id}",
        res.envelope["in_reply_to_action_id"]
    );
    let again = retry.result(RESULT_WAIT).await?;
    ensure!(again.envelope == res.envelope, "a repeated call_id got another result: {}", again.envelope);
    await_overlay(host, false).await?;
    let n = host.eval(&format!("document.querySelectorAll({}).length", json!(OVERLAY_PARTS))).await?;
    ensure!(n == 0, "{n} overlay elements left after the cancel");
    let f = await_truth(host, Leaf::Right.landmark()).await?;
    let sent = host_results_for(host, &action_id).await?;
    ensure!(
        sent.is_empty(),
        "the Host sent its own result for a cancelled action: {}",
        crate::report::text::json(&sent)
    );
    let frames: Vec<Value> =
        session_of(host)?.broker().cancels_sent().into_iter().filter(|f| f["session_id"] == sid.as_str()).collect();
    ensure!(
        frames.len() == cancels_before + 1 && frames.last().is_some_and(|f| f["data"]["action_id"] == action_id),
        "the Host was not sent exactly one cancel for the action {action_id} ({cancels_before} before it): {}",
        crate::report::text::json(&frames)
    );
    match agent.cancel(&call_id) {
        Err(AgentError::Broker(BrokerError::CallFinished(_))) => {}
        Ok(_) => anyhow::bail!("a second cancel of the call was accepted, expected call-finished"),
        Err(e) => anyhow::bail!("a second cancel of the call: {e:#}, expected call-finished"),
    }
    let after = input_events(&leaf_log(host, Leaf::Right).await?);
    ensure!(after == inputs, "the right leaf received {} input events while the overlay was up", after - inputs);
    // The session is free for the next action.
    let next = agent.select(std::slice::from_ref(&target), &ActionOptions::default())?;
    await_overlay(host, true).await?;
    host.press_key(Key::ENTER).await?;
    let res2 = one_result(host, next).await?;
    require_status(&res2, Status::Selected)?;
    await_overlay(host, false).await?;
    // A Host result for the cancelled action arriving late (the user's answer racing the cancel),
    // sent on the real socket by the Host page: refused as a duplicate, and the call's result stays.
    let late = json!({"schema": "wippy.ui-action.v1", "message_type": "result", "result_id": "res-late-answer",
        "in_reply_to_action_id": action_id, "request_id": call_id, "session_id": sid, "host_instance_id": agent.route().host_instance_id,
        "completed_at": res.envelope["completed_at"], "status": "selected", "selected_target": target});
    host.eval(&format!("window.__host.session.sendActionResult({late}), true")).await?;
    let broker = session_of(host)?.broker();
    let refused = wait_for(host, "the broker refusing the late Host result", POINTER_TIMEOUT, || async {
        let r: Vec<_> = broker
            .refusals()
            .into_iter()
            .filter(|x| x.session_id == sid && x.result["result_id"] == "res-late-answer")
            .collect();
        Ok(if r.is_empty() { Poll::Pending("no refusal yet".into()) } else { Poll::Ready(r) })
    })
    .await?;
    ensure!(
        refused.len() == 1 && refused[0].error == "duplicate",
        "the late Host result was not refused as a duplicate: {}",
        crate::report::text::json(&refused)
    );
    let cached = agent.repeat(&retry_call)?.result(RESULT_WAIT).await?;
    ensure!(cached.envelope == res.envelope, "the late Host result changed the call's result: {}", cached.envelope);
    Ok(format!("tool cancel -> cancelled ({}), overlay closed without a Host result, focus back on {} in {}; next action selected; a late Host result refused as duplicate", res.reason.as_deref().unwrap_or("no reason"), Leaf::Right.landmark(), f.frame_url))
}

/// The operational checklist item 5 rows (each on a Host opened with agent actions on).
pub fn checks() -> Vec<super::Check> {
    use super::Check;
    vec![
        Check {
            host: actions_host,
            name: "checklist-5-highlight-by-keyboard-and-pointer-each-permissioned",
            run: |h| Box::pin(pointer_and_keyboard_are_permissioned_independently(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-confirm-by-pointer-swallows-input-below",
            run: |h| Box::pin(confirm_by_pointer(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-select-by-keyboard",
            run: |h| Box::pin(select_by_keyboard_restores_focus(h, Leaf::Left)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-cancel-by-escape",
            run: |h| Box::pin(escape_cancels_and_restores_focus(h, Leaf::ClosedShadow)),
        },
        Check { host: actions_host, name: "checklist-5-timeout-expires", run: |h| Box::pin(timeout_expires(h)) },
        Check { host: actions_host, name: "checklist-5-stale-target", run: |h| Box::pin(stale_targets(h)) },
        Check {
            host: actions_host,
            name: "checklist-5-moved-after-approval-is-stale",
            run: |h| Box::pin(moved_after_approval_is_stale(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-unavailable-while-pending-and-permission-denied-when-turned-off",
            run: |h| Box::pin(refused_while_pending_and_revoked(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-navigation-makes-stale",
            run: |h| Box::pin(host_navigation_makes_stale(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-disconnect-and-reconnect",
            run: |h| Box::pin(disconnect_then_reconnect(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-focus-restoration-oopif",
            run: |h| Box::pin(escape_cancels_and_restores_focus(h, Leaf::Oopif)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-cancel-by-tool",
            run: |h| Box::pin(tool_cancel_closes_the_overlay(h)),
        },
        Check {
            host: actions_host,
            name: "checklist-5-error-when-the-overlay-fails-or-is-removed",
            run: |h| Box::pin(overlay_failures_end_error(h)),
        },
    ]
}

/// The Host of the item 5 and 6 rows, whatever the engine: agent actions on.
pub(crate) fn actions_host(options: crate::host::HostOptions) -> crate::host::HostOptions {
    options.actions(true)
}

/// Zero-target select with capture_region: a trusted pointer drag over the left leaf chooses the
/// area; "Use this area" answers `selected` with that exact rect and the left leaf's identity.
pub async fn area_by_drag(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let left = host.landmark_rect("left-leaf").await?;
    let truth_ref = leaf_ref(host, Leaf::Left).await?;
    let area = ActionOptions { capture_region: true, allow_keyboard: false, ..Default::default() };
    let pending = agent.select(&[], &area)?;
    await_overlay(host, true).await?;
    let before = pointer_downs(&leaf_log(host, Leaf::Left).await?);
    let (x0, y0) = ((left.x + 4.0).round(), (left.y + 4.0).round());
    let (x1, y1) = ((left.right() - 6.0).round(), (left.y + left.height - 5.0).round());
    host.drag((x0, y0), (x1, y1), 4).await?;
    click_overlay(host, "[data-wippy-attention-answer=primary]").await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Selected)?;
    let sel = res.selected_target.context("selected without selected_target")?;
    let want = json!({"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0});
    let got = &sel["rect"];
    ensure!(
        ["x", "y", "width", "height"].iter().all(|k| got[k].as_f64() == want[k].as_f64()),
        "area {got} is not the drag rectangle {want}"
    );
    ensure!(
        sel["target_id"] == truth_ref["target_id"] && sel["path_digest"] == truth_ref["path_digest"],
        "the area names {} not the left leaf",
        sel["target_id"]
    );
    let after = pointer_downs(&leaf_log(host, Leaf::Left).await?);
    ensure!(after == before, "the left leaf received {} pointerdowns through the overlay", after - before);
    Ok(format!("dragged area {want} selected over {}", sel["target_id"]))
}

/// Zero-target select by keyboard: Enter on the auto-focused "Use current pointer area" takes a
/// 40 x 40 area at the pointer (moved over the right leaf with trusted input), Enter again answers.
pub async fn area_by_keyboard(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let right = host.landmark_rect("right-leaf").await?;
    let truth_ref = leaf_ref(host, Leaf::Right).await?; // moves the pointer to the right leaf's centre
    let (cx, cy) = right.center();
    let pending =
        agent.select(&[], &ActionOptions { capture_region: true, allow_pointer: false, ..Default::default() })?;
    await_overlay(host, true).await?;
    host.press_key(Key::ENTER).await?;
    wait_for(host, "the pointer area chosen", POINTER_TIMEOUT, || async {
        let shown =
            host.eval("getComputedStyle(document.querySelector('[data-wippy-attention-region]')).display").await?;
        Ok(if shown == "block" { Poll::Ready(()) } else { Poll::Pending(shown.to_string()) })
    })
    .await?;
    host.press_key(Key::ENTER).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Selected)?;
    let sel = res.selected_target.context("selected without selected_target")?;
    let r = &sel["rect"];
    let (x, y) = (r["x"].as_f64().unwrap_or(f64::NAN), r["y"].as_f64().unwrap_or(f64::NAN));
    ensure!(
        (x + 20.0 - cx).abs() <= 0.5 && (y + 20.0 - cy).abs() <= 0.5 && r["width"] == 40.0 && r["height"] == 40.0,
        "area {r} is not 40x40 at the pointer ({cx}, {cy})"
    );
    ensure!(sel["target_id"] == truth_ref["target_id"], "the area names {} not the right leaf", sel["target_id"]);
    Ok(format!("keyboard area {r} selected over {}", sel["target_id"]))
}

/// Geometry refresh (suite test 8): the target moves 24 px while the confirm overlay is up; the
/// outline follows it, and the confirmation returns the same target with the new rect (Chromium's
/// box model within 0.5 px).
pub async fn moved_target_is_confirmed_with_its_new_rect(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Left).await?;
    let pending = agent.confirm(std::slice::from_ref(&target), &ActionOptions::default())?;
    await_overlay(host, true).await?;
    let old = super::rect_of(&target["rect"]).context("target rect")?;
    let moved = move_left_leaf_under_the_outline(host, &target, old, 24.0).await?;
    host.press_key(Key::ENTER).await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::Confirmed)?;
    let s = res.selected_target.context("confirmed without selected_target")?;
    let r = super::rect_of(&s["rect"]).context("selected_target rect")?;
    ensure!(s["target_id"] == target["target_id"], "confirmed another target");
    ensure!(r.max_edge_delta(&moved) <= 0.5, "confirmed rect {r} is not the moved box {moved}");
    Ok(format!("moved {:.1} px, confirmed with the new rect", moved.x - old.x))
}

/// Moves the leaf `leaf` by `dx` CSS px (the page's own layout change, in the leaf's realm).
/// Moves the left leaf `dx` px to the right of `from` (Chromium's box model checks it moved) and
/// waits until the overlay's outline of `target` is centred on its new place. Returns that rect.
async fn move_left_leaf_under_the_outline(
    host: &Host,
    target: &Value,
    from: BoxRect,
    dx: f64,
) -> anyhow::Result<BoxRect> {
    shift_leaf(host, Leaf::Left, dx).await?;
    let moved = host.landmark_rect("left-leaf").await?;
    ensure!((moved.x - from.x - dx).abs() <= 0.5, "the leaf did not move {dx} px: {from} -> {moved}");
    let sel = format!("[data-wippy-attention-target={}]", json!(target["target_id"].as_str().unwrap_or_default()));
    wait_for(host, "the outline following the moved target", POINTER_TIMEOUT, || async {
        let (x, _) = overlay_point(host, &sel).await?;
        Ok(if (x - moved.center().0).abs() <= 0.5 {
            Poll::Ready(())
        } else {
            Poll::Pending(format!("outline centre x {x}"))
        })
    })
    .await?;
    Ok(moved)
}

async fn shift_leaf(host: &Host, leaf: Leaf, dx: f64) -> anyhow::Result<()> {
    let sel = format!("[data-landmark={}]", leaf.landmark());
    let js = format!("(() => {{ const e = document.querySelector({}); if (!e) return false; e.style.transform = {}; return true; }})()", json!(sel), json!(format!("translateX({dx}px)")));
    let done = host.eval_in_frame(&super::leaf_frame(host.engine, leaf), &js).await?;
    ensure!(done == true, "no {} in its realm", leaf.landmark());
    Ok(())
}

/// A target that moves between the user's approval and the answer's execution ends `stale`
/// (spec: the Host revalidates "movement beyond the approved rect" before accepting an answer).
/// Pointer path: the button is pressed on "Yes", the target moves 24 px, the button is released
/// (the click answers). Keyboard path: Space is held on the auto-focused primary button, the target
/// moves, Space is released. Each time the outline has followed the target before the gesture
/// ends (so the rect shown at the answer is the new one). The agent repeats the call_id while the
/// overlay is up and after the result: both repeats get the first result and the Host gets no
/// second request. Both end `stale` with no `selected_target`, the leaf under the overlay
/// receives no pointerdown, and the overlay closes.
pub async fn moved_after_approval_is_stale(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let mut out = Vec::new();
    for path in ["pointer", "keyboard"] {
        shift_leaf(host, Leaf::Left, 0.0).await?;
        let before = host.landmark_rect("left-leaf").await?;
        let target = leaf_ref(host, Leaf::Left).await?;
        let downs = pointer_downs(&leaf_log(host, Leaf::Left).await?);
        let pending = agent.confirm(std::slice::from_ref(&target), &ActionOptions::default())?;
        await_overlay(host, true).await?;
        if path == "pointer" {
            let (px, py) = overlay_point(host, "[data-wippy-attention-answer=primary]").await?;
            host.move_to(px, py).await?;
            host.press().await?;
        } else {
            host.key_down(Key::SPACE).await?;
        }
        // Approved: the gesture began. The page now moves the target, then the gesture ends.
        let approved =
            host.eval("window.__host.overlay.active !== null && window.__host.overlay.results.length").await?;
        // The outline follows the target (geometry refresh) before the gesture ends: what the user
        // sees now is not what they approved.
        let moved = move_left_leaf_under_the_outline(host, &target, before, 24.0).await?;
        if path == "pointer" {
            host.release().await?;
        } else {
            host.key_up(Key::SPACE).await?;
        }
        let retry = agent.repeat(&pending)?;
        let sent = sent_to_host(host, &agent)?;
        let res = one_result(host, pending).await?;
        require_status(&res, Status::Stale)?;
        ensure!(
            res.reason.as_deref() == Some("target moved beyond the approved rect"),
            "{path}: stale for another reason: {}, expected “target moved beyond the approved rect”",
            crate::report::text::quote_opt(res.reason.as_deref())
        );
        // The same call_id again (a retried tool call, once while pending and once after): the
        // first result, and the action does not run twice (no second request, no second overlay).
        let again = agent.repeat(&retry)?;
        for r in [retry, again] {
            let r = r.result(RESULT_WAIT).await?;
            ensure!(r.envelope == res.envelope, "{path}: a repeated call_id got another result: {}", r.envelope);
        }
        ensure!(sent_to_host(host, &agent)? == sent, "{path}: a repeated call_id reached the Host again");
        ensure!(res.selected_target.is_none(), "a stale result carries a selected_target");
        ensure!(approved != false, "{path}: the overlay closed before the gesture ended");
        await_overlay(host, false).await?;
        let after = pointer_downs(&leaf_log(host, Leaf::Left).await?);
        ensure!(after == downs, "{path}: the leaf received {} pointerdowns through the overlay", after - downs);
        out.push(format!("{path}: moved {:.1} px after approval -> stale", moved.x - before.x));
    }
    shift_leaf(host, Leaf::Left, 0.0).await?;
    Ok(out.join("; "))
}

/// How many requests the broker sent to this agent's Host route. The broker serves every Host of
/// the process, and other tests run beside this one: only this session's frames count.
fn sent_to_host(host: &Host, agent: &Agent) -> anyhow::Result<usize> {
    let sid = agent.route().session_id.as_str();
    Ok(session_of(host)?.broker().sent().iter().filter(|f| f["session_id"] == sid).count())
}

/// `unavailable` and `permission-denied` from real conditions while an overlay is up: a second
/// action of the same session is refused `unavailable` "another UI action is pending" (and an
/// argument error `unavailable` with its reason) without reaching the Host or disturbing the open
/// overlay; then the Host's agent-actions setting is turned off (`__host.setAgentActions(false)`),
/// which ends the open interaction `permission-denied`, stops `action_ref`s in snapshots (the right
/// leaf's candidate at Chromium's box has none) and makes the Host refuse a later request
/// `permission-denied` with no overlay.
pub async fn refused_while_pending_and_revoked(host: &Host) -> anyhow::Result<String> {
    let agent = bound_agent(host).await?;
    let target = leaf_ref(host, Leaf::Right).await?;
    let pending = agent.confirm(std::slice::from_ref(&target), &ActionOptions::default())?;
    await_overlay(host, true).await?;
    let open = host.eval("window.__host.overlay.active && window.__host.overlay.active.action_id").await?;
    let sent = sent_to_host(host, &agent)?;
    let second = agent.highlight(std::slice::from_ref(&target), &ActionOptions::default())?.result(RESULT_WAIT).await?;
    require_status(&second, Status::Unavailable)?;
    ensure!(
        second.reason.as_deref() == Some("another UI action is pending"),
        "second action: {}, expected “another UI action is pending”",
        crate::report::text::quote_opt(second.reason.as_deref())
    );
    let bad = agent
        .confirm(std::slice::from_ref(&target), &ActionOptions { prompt: Some("x".repeat(513)), ..Default::default() })?
        .result(RESULT_WAIT)
        .await?;
    require_status(&bad, Status::Unavailable)?;
    ensure!(
        bad.reason.as_deref() == Some("prompt is invalid"),
        "513-byte prompt: {}, expected “prompt is invalid”",
        crate::report::text::quote_opt(bad.reason.as_deref())
    );
    ensure!(sent_to_host(host, &agent)? == sent, "a refused action reached the Host");
    let still = host.eval("window.__host.overlay.active && window.__host.overlay.active.action_id").await?;
    ensure!(still == open && open.is_string(), "the open overlay changed ({open} -> {still})");

    host.eval("window.__host.setAgentActions(false)").await?;
    let res = one_result(host, pending).await?;
    require_status(&res, Status::PermissionDenied)?;
    ensure!(
        res.reason.as_deref() == Some("agent actions were turned off for this Host"),
        "revoked: {}, expected “agent actions were turned off for this Host”",
        crate::report::text::quote_opt(res.reason.as_deref())
    );
    ensure!(res.selected_target.is_none(), "a permission-denied result carries a selected_target");
    await_overlay(host, false).await?;
    ensure!(!agent_actions_enabled(host).await?, "the runtime still has agent actions on");
    let truth = host.landmark_rect(Leaf::Right.landmark()).await?;
    let (x, y) = truth.center();
    let snap = snapshot_at(host, x, y).await?;
    let c = require_candidate(&snap, &truth, Leaf::Right.landmark())?;
    ensure!(c.action_ref.is_none(), "a candidate still carries an action_ref after agent actions were turned off");
    let later = agent.confirm(std::slice::from_ref(&target), &ActionOptions::default())?.result(RESULT_WAIT).await?;
    require_status(&later, Status::PermissionDenied)?;
    let n = host.eval("document.querySelectorAll('[data-wippy-attention-overlay]').length").await?;
    ensure!(n == 0, "{n} overlays opened after agent actions were turned off");
    Ok(format!(
        "second action and bad prompt unavailable; setting off -> permission-denied ({}); later request {}",
        res.reason.as_deref().unwrap_or("no reason"),
        later.reason.as_deref().unwrap_or("no reason")
    ))
}
