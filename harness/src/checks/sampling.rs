//! Pointer paths, boundary sampling, the envelope and the boundary golden: what the runtime
//! reports around the pointer, checked against Chromium's box model and the Session's rules.

use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context};
use serde_json::Value;

use super::{candidates, expected_kinds, kinds, require_candidate, snapshot_at, Leaf};
use crate::attention::Envelope;
use crate::contract::validate::{validate, ValidateOptions};
use crate::host::{Engine, Host};
use crate::oracle::BoxRect;

/// Points at the centre of `leaf` and checks the candidate there: its rect is Chromium's box
/// within 0.5 px, its role and name are Chromium's accessibility tree's, it is the pointer's
/// candidate, and its path has exactly the expected kinds with the right frame origin.
pub async fn pointer_path(host: &Host, leaf: Leaf) -> anyhow::Result<String> {
    let truth = host.landmark_rect(leaf.landmark()).await?;
    let (x, y) = truth.center();
    let snap = snapshot_at(host, x, y).await?;
    let cand = require_candidate(&snap, &truth, leaf.landmark())?;
    let expected = expected_kinds(host.layout, host.engine, leaf);
    let got = kinds(cand);
    ensure!(got == expected, "{}: path kinds {got:?}, expected {expected:?}", leaf.landmark());

    let pointer_ids = snap.pointer("/pointer/candidate_ids").and_then(Value::as_array).cloned().unwrap_or_default();
    ensure!(
        pointer_ids.contains(&cand["target_id"]),
        "{}: the pointer's candidate_ids {pointer_ids:?} do not name the candidate under it ({})",
        leaf.landmark(),
        cand["target_id"]
    );

    let path = cand["path"].as_array().cloned().unwrap_or_default();
    let frame = path
        .iter()
        .find(|s| matches!(s["kind"].as_str(), Some("iframe") | Some("web-fragment")))
        .context("no frame segment")?;
    let origin = frame["frame_origin"].as_str();
    match (leaf, host.engine) {
        (Leaf::ClosedShadow, _) => ensure!(origin == Some("about:srcdoc"), "srcdoc frame_origin is {origin:?}"),
        (_, Engine::Iframe) => ensure!(
            origin == Some(host.child_origin.as_str()),
            "{}: frame_origin {origin:?}, expected the child site {}",
            leaf.landmark(),
            host.child_origin
        ),
        (_, Engine::Fragment) => {
            let provenance = &cand["provenance"];
            ensure!(
                provenance["geometry_source"] == "physical-host" && provenance["runtime_source"] == "fragment-realm",
                "{}: a fragment candidate must say geometry_source physical-host and runtime_source fragment-realm, got {provenance}",
                leaf.landmark()
            );
        }
    }
    for seg in &path {
        ensure!(
            seg["mount_id"].as_str().is_some_and(|m| !m.is_empty()) && seg["generation"].as_u64().is_some(),
            "segment without mount_id/generation: {seg}"
        );
    }
    // Role and accessible name as Chromium's accessibility tree computes them.
    let ax = host.landmark_ax(leaf.landmark()).await?;
    let (role, name) = (cand["summary"]["role"].as_str().unwrap_or(""), cand["summary"]["name"].as_str().unwrap_or(""));
    ensure!(
        role == ax.role && name == ax.name,
        "{}: summary says role {role:?} name {name:?}; Chromium's AX tree says role {:?} name {:?}",
        leaf.landmark(),
        ax.role,
        ax.name
    );
    let delta = super::rect_of(&cand["rect"]).map(|r| r.max_edge_delta(&truth)).unwrap_or(f64::NAN);
    Ok(format!("{} segments, rect within {delta:.3} px of the box model, AX {} {:?}", got.len(), ax.role, ax.name))
}

/// The boundary point of the left/right pair.
pub async fn boundary_point(host: &Host) -> anyhow::Result<(f64, f64, BoxRect, BoxRect)> {
    let left = host.landmark_rect("left-leaf").await?;
    let right = host.landmark_rect("right-leaf").await?;
    ensure!(
        (left.right() - right.x).abs() < 0.01,
        "the reference Host is broken: left-leaf ends at {} but right-leaf starts at {}",
        left.right(),
        right.x
    );
    Ok((left.right(), left.center().1, left, right))
}

/// Samples at the shared edge of two leaves in different realms: both must be distinct
/// candidates, and every sample point each one claims must really lie in that leaf's box.
pub async fn boundary_sample(host: &Host) -> anyhow::Result<String> {
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let capture = &snap["capture"];
    let points = capture["points"].as_array().cloned().unwrap_or_default();
    ensure!(capture["sampled_points"] == 49 && points.len() == 49, "expected 49 sample points, got {}", points.len());
    let ids: BTreeSet<&str> = points.iter().filter_map(|p| p["point_id"].as_str()).collect();
    ensure!(ids.len() == 49, "point ids are not unique");

    let lc = require_candidate(&snap, &left, "left-leaf")?;
    let rc = require_candidate(&snap, &right, "right-leaf")?;
    ensure!(lc["target_id"] != rc["target_id"], "both leaves share target_id {}", lc["target_id"]);

    let mut event_ids: BTreeSet<String> = BTreeSet::new();
    for e in snap["recent_events"].as_array().into_iter().flatten().chain(snap.get("pointer")).chain(snap.get("focus"))
    {
        if let Some(id) = e["event_id"].as_str() {
            event_ids.insert(id.to_string());
        }
    }
    for c in candidates(&snap) {
        for sid in c["sample_point_ids"].as_array().into_iter().flatten() {
            let sid = sid.as_str().unwrap_or_default();
            ensure!(
                ids.contains(sid) || event_ids.contains(sid),
                "candidate {} cites unknown sample {sid}",
                c["target_id"]
            );
        }
    }
    let point = |id: &str| {
        points
            .iter()
            .find(|p| p["point_id"] == id)
            .map(|p| (p["x"].as_f64().unwrap_or(f64::NAN), p["y"].as_f64().unwrap_or(f64::NAN)))
    };
    let inside = |r: &BoxRect, (x, y): (f64, f64)| x >= r.x && x < r.right() && y >= r.y && y < r.y + r.height;
    let strictly_inside = |r: &BoxRect, (x, y): (f64, f64)| x > r.x && x < r.right() && y > r.y && y < r.y + r.height;
    for (cand, truth, name) in [(lc, &left, "left-leaf"), (rc, &right, "right-leaf")] {
        let claimed: BTreeSet<&str> =
            cand["sample_point_ids"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        for id in claimed.iter().filter(|id| ids.contains(**id)) {
            let p = point(id).unwrap_or((f64::NAN, f64::NAN));
            ensure!(inside(truth, p), "{name} claims sample {id} at {p:?}, outside its box {truth:?}");
        }
        for p in &points {
            let (id, xy) = (
                p["point_id"].as_str().unwrap_or_default(),
                (p["x"].as_f64().unwrap_or(0.0), p["y"].as_f64().unwrap_or(0.0)),
            );
            ensure!(
                !strictly_inside(truth, xy) || claimed.contains(id),
                "sample {id} at {xy:?} lies inside {name} but the candidate does not list it"
            );
        }
    }
    let n = |c: &Value| c["sample_point_ids"].as_array().map(Vec::len).unwrap_or(0);
    Ok(format!("left-leaf {} samples, right-leaf {} samples, {} candidates", n(lc), n(rc), candidates(&snap).len()))
}

/// The envelope the runtime built for a boundary snapshot verifies in Rust (bytes, hash,
/// canonical form), passes the Session's complete admission rules, and meets the spec's stricter
/// rules for durable payloads (`contract::spec_rules`).
pub async fn envelope_accepted(host: &Host) -> anyhow::Result<String> {
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let raw = host.envelope(&snap).await?;
    let envelope: Envelope =
        serde_json::from_value(raw.clone()).context("the runtime's envelope is not a strict envelope")?;
    let payload = envelope.verify().map_err(|e| anyhow::anyhow!("envelope does not verify: {e} ({})", e.code()))?;
    ensure!(
        payload == crate::contract::canonical::strip_null_members(&snap),
        "the envelope's content is not the snapshot it was built from"
    );
    let array = Value::Array(vec![raw]);
    let admitted = validate(&array, &ValidateOptions::default())
        .map_err(|e| anyhow::anyhow!("the Session would reject it: {e}"))?;
    ensure!(
        admitted.attachments.len() == 1 && !admitted.attachments[0].is_inert(),
        "the attachment was stored inert, not rendered"
    );
    super::require_valid_payload(&payload)?;
    require_candidate(&payload, &left, "left-leaf")?;
    require_candidate(&payload, &right, "right-leaf")?;
    Ok(format!("{} content bytes, {}", envelope.content_bytes, envelope.content_hash))
}

/// The boundary snapshot, normalized, equals `fixtures/golden/boundary-<layout>-<engine>.snap`
/// (the `verify` row; it only reads the golden, see `golden::compare`).
pub async fn boundary_golden(host: &Host) -> anyhow::Result<String> {
    let (name, stable) = boundary_for_golden(host).await?;
    if let Err(e) = crate::golden::compare(&name, &stable) {
        bail!("{e}");
    }
    Ok(format!("fixtures/golden/{name}.snap"))
}

/// The golden's name for this layout x engine and the part of the boundary snapshot it holds
/// (the end-to-end test hands both to insta).
pub async fn boundary_for_golden(host: &Host) -> anyhow::Result<(String, Value)> {
    let (bx, by, _, _) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    // Only the sampled neighbourhood is golden: recent events depend on how the pointer got here.
    // `recent_events` stays, empty, so the golden remains a valid v1 payload.
    let mut stable = snap.clone();
    if let Some(o) = stable.as_object_mut() {
        o.remove("pointer");
        o.remove("focus");
        o.insert("recent_events".into(), Value::Array(Vec::new()));
    }
    let event_ids: Vec<Value> = snap["recent_events"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(snap.get("pointer"))
        .filter_map(|e| e.get("event_id").cloned())
        .collect();
    let keep_candidate =
        |c: &Value| c["sample_point_ids"].as_array().into_iter().flatten().any(|s| !event_ids.contains(s));
    if let Some(cands) = stable["candidates"].as_array_mut() {
        cands.retain(keep_candidate);
        for c in cands.iter_mut() {
            if let Some(ids) = c["sample_point_ids"].as_array_mut() {
                ids.retain(|s| !event_ids.contains(s));
            }
        }
    }
    let name = format!("boundary-{}-{}", host.layout, host.engine);
    Ok((name, stable))
}
