//! Pointer paths, boundary sampling, the envelope and the boundary golden: what the runtime
//! reports around the pointer, checked against Chromium's box model and the Session's rules.

use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context};
use serde_json::Value;

use super::{candidates, expected_kinds, kinds, require_candidate, snapshot_at, Leaf};
use crate::attention::{Candidate, Reported, SegmentKind, Snapshot};
use crate::contract::validate::{validate, ValidateOptions};
use crate::host::{Engine, Host};
use crate::oracle::BoxRect;
use crate::report::text;

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
    ensure!(got == expected, "{}: path kinds {}, expected {}", leaf.landmark(), got.join(" > "), expected.join(" > "));

    let pointer_ids = snap.pointer.as_ref().map(|p| p.candidate_ids.clone()).unwrap_or_default();
    ensure!(
        pointer_ids.contains(&cand.target_id),
        "{}: the pointer's candidate_ids {} do not name the candidate under it ({})",
        leaf.landmark(),
        text::list(&pointer_ids),
        cand.target_id
    );

    let path = &cand.path;
    let frame = path
        .iter()
        .find(|s| matches!(s.kind, SegmentKind::Iframe | SegmentKind::WebFragment))
        .context("no frame segment")?;
    let origin = frame.frame_origin.as_deref();
    match (leaf, host.engine) {
        (Leaf::ClosedShadow, _) => ensure!(
            origin == Some("about:srcdoc"),
            "srcdoc frame_origin is {}, expected about:srcdoc",
            text::opt(origin)
        ),
        (_, Engine::Iframe) => ensure!(
            origin == Some(host.child_origin.as_str()),
            "{}: frame_origin {}, expected the child site {}",
            leaf.landmark(),
            text::opt(origin),
            host.child_origin
        ),
        (_, Engine::Fragment) => {
            let provenance = cand.provenance.as_ref();
            ensure!(
                provenance
                    .is_some_and(|p| p.geometry_source == "physical-host" && p.runtime_source == "fragment-realm"),
                "{}: a fragment candidate must say geometry_source physical-host and runtime_source fragment-realm, got {}",
                leaf.landmark(),
                text::opt(provenance.map(text::json))
            );
        }
    }
    for seg in path {
        // `generation` is a u64 of the model: a segment without one does not parse.
        ensure!(!seg.mount_id.is_empty(), "segment without mount_id/generation: {}", text::json(seg));
    }
    // Role and accessible name as Chromium's accessibility tree computes them.
    let ax = host.landmark_ax(leaf.landmark()).await?;
    let (role, name) = (cand.summary.role.as_deref().unwrap_or(""), cand.summary.name.as_deref().unwrap_or(""));
    ensure!(
        role == ax.role && name == ax.name,
        "{}: summary says {}; Chromium's AX tree says {}",
        leaf.landmark(),
        text::role_name(Some(role), Some(name)),
        text::role_name(Some(&ax.role), Some(&ax.name))
    );
    let delta = super::box_of(&cand.rect).max_edge_delta(&truth);
    Ok(format!(
        "{} segments, rect within {delta:.3} px of the box model, AX {} {}",
        got.len(),
        ax.role,
        crate::report::text::quote(&ax.name)
    ))
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
    let capture = &snap.capture;
    let points = &capture.points;
    ensure!(capture.sampled_points == 49 && points.len() == 49, "expected 49 sample points, got {}", points.len());
    let ids: BTreeSet<&str> = points.iter().map(|p| p.point_id.as_str()).collect();
    ensure!(ids.len() == 49, "point ids are not unique");

    let lc = require_candidate(&snap, &left, "left-leaf")?;
    let rc = require_candidate(&snap, &right, "right-leaf")?;
    ensure!(lc.target_id != rc.target_id, "both leaves share target_id {}", lc.target_id);

    let mut event_ids: BTreeSet<String> = BTreeSet::new();
    for id in snap
        .recent_events
        .iter()
        .chain(&snap.pointer)
        .map(|e| &e.event_id)
        .chain(snap.focus.iter().map(|f| &f.event_id))
    {
        event_ids.insert(id.clone());
    }
    for c in candidates(&snap) {
        for sid in &c.sample_point_ids {
            ensure!(
                ids.contains(sid.as_str()) || event_ids.contains(sid),
                "candidate {} cites unknown sample {sid}",
                c.target_id
            );
        }
    }
    let point = |id: &str| points.iter().find(|p| p.point_id == id).map(|p| (p.x, p.y));
    let inside = |r: &BoxRect, (x, y): (f64, f64)| x >= r.x && x < r.right() && y >= r.y && y < r.y + r.height;
    let strictly_inside = |r: &BoxRect, (x, y): (f64, f64)| x > r.x && x < r.right() && y > r.y && y < r.y + r.height;
    for (cand, truth, name) in [(lc, &left, "left-leaf"), (rc, &right, "right-leaf")] {
        let claimed: BTreeSet<&str> = cand.sample_point_ids.iter().map(String::as_str).collect();
        for id in claimed.iter().filter(|id| ids.contains(**id)) {
            let p = point(id).unwrap_or((f64::NAN, f64::NAN));
            ensure!(
                inside(truth, p),
                "{name} claims sample {id} at {}, outside its box {truth}",
                text::point(p.0, p.1)
            );
        }
        for p in points {
            let (id, xy) = (p.point_id.as_str(), (p.x, p.y));
            ensure!(
                !strictly_inside(truth, xy) || claimed.contains(id),
                "sample {id} at {} lies inside {name} but the candidate does not list it",
                text::point(xy.0, xy.1)
            );
        }
    }
    let n = |c: &Candidate| c.sample_point_ids.len();
    Ok(format!("left-leaf {} samples, right-leaf {} samples, {} candidates", n(lc), n(rc), candidates(&snap).len()))
}

/// The envelope the runtime built for a boundary snapshot verifies in Rust (bytes, hash,
/// canonical form), passes the Session's complete admission rules, and meets the spec's stricter
/// rules for durable payloads (`contract::spec_rules`).
pub async fn envelope_accepted(host: &Host) -> anyhow::Result<String> {
    let (bx, by, left, right) = boundary_point(host).await?;
    let snap = snapshot_at(host, bx, by).await?;
    let envelope = host.envelope(&snap).await.context("the runtime's envelope is not a strict envelope")?;
    let payload = envelope.verify().map_err(|e| anyhow::anyhow!("envelope does not verify: {e} ({})", e.code()))?;
    ensure!(
        payload == crate::contract::canonical::strip_null_members(snap.json()),
        "the envelope's content is not the snapshot it was built from"
    );
    // The Session's rules see the envelope exactly as the runtime built it.
    let array = Value::Array(vec![envelope.json().clone()]);
    let admitted = validate(&array, &ValidateOptions::default())
        .map_err(|e| anyhow::anyhow!("the Session would reject it: {e}"))?;
    ensure!(
        admitted.attachments.len() == 1 && !admitted.attachments[0].is_inert(),
        "the attachment was stored inert, not rendered"
    );
    super::require_valid_payload(&payload)?;
    let payload: Reported<Snapshot> =
        Reported::parse(payload).context("the envelope's content is not a strict snapshot")?;
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
    // Goldens hold the runtime's own JSON, not a re-serialization of the model.
    let mut stable = snap.json().clone();
    if let Some(o) = stable.as_object_mut() {
        o.remove("pointer");
        o.remove("focus");
        o.insert("recent_events".into(), Value::Array(Vec::new()));
    }
    let event_ids: Vec<&str> = snap.recent_events.iter().chain(&snap.pointer).map(|e| e.event_id.as_str()).collect();
    let is_event = |s: &Value| s.as_str().is_some_and(|s| event_ids.contains(&s));
    let keep_candidate = |c: &Value| c["sample_point_ids"].as_array().into_iter().flatten().any(|s| !is_event(s));
    if let Some(cands) = stable["candidates"].as_array_mut() {
        cands.retain(keep_candidate);
        for c in cands.iter_mut() {
            if let Some(ids) = c["sample_point_ids"].as_array_mut() {
                ids.retain(|s| !is_event(s));
            }
        }
    }
    let name = format!("boundary-{}-{}", host.layout, host.engine);
    Ok((name, stable))
}
