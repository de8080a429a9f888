//! The runtime reaches every realm before page scripts: each realm's first page script records
//! whether the runtime was already there (`window.__runtimeBeforePageScripts`), and the harness
//! reads that record through CDP in the Host document, the cross-origin and fragment realms, and
//! the srcdoc realm. In the iframe engine the cross-origin leaves are also out-of-process frames.

use anyhow::ensure;

use super::{leaf_frame, Leaf};
use crate::host::{Frame, Host};

pub async fn runtime_before_page_scripts(host: &Host) -> anyhow::Result<String> {
    let mut realms = vec![("host document".to_string(), Frame::Top)];
    for leaf in Leaf::ALL {
        realms.push((format!("{} realm", leaf.landmark()), leaf_frame(host.engine, leaf)));
    }
    for (name, frame) in &realms {
        let seen = host.eval_in_frame(frame, "window.__runtimeBeforePageScripts").await?;
        ensure!(seen == true, "in the {name} the first page script ran before the runtime (it saw {seen})");
    }
    // The cross-origin leaves must really be out of process (their own CDP targets), as in
    // production: a browser that keeps them in process (chromium-headless-shell without
    // --site-per-process) would make every "through an OOPIF" check pass on the easy case.
    let oopifs = host.frames().child_targets().iter().filter(|c| c.url.starts_with(&host.child_origin)).count();
    if host.engine == crate::host::Engine::Iframe {
        ensure!(oopifs >= 3, "the cross-origin leaves (left, right, bridge) are not out-of-process iframes: {oopifs} child targets on {}", host.child_origin);
    }
    Ok(format!("{} realms, {oopifs} out-of-process cross-origin frames", realms.len()))
}

/// Issue 7: an iframe created blank, the runtime run in its initial about:blank document by the Host,
/// then navigated same-origin (the browser keeps the Window): over `loads` consecutive loads (the
/// first Host load, then remounts), a snapshot at the centre of the navigated document's button must
/// have that button as candidate (Chromium's box model for its rect), and a load where the child
/// cannot answer must say so with an omission for its mount, never `complete: true` with a hole.
pub async fn blank_then_navigated_realm_is_never_missing(host: &Host, loads: usize) -> anyhow::Result<String> {
    const MOUNT: &str = "mount-blank-nav";
    let (mut found, mut omitted) = (0usize, 0usize);
    for load in 0..loads {
        if load > 0 {
            host.eval("window.__host.remount('blank-nav').then(() => true)").await?;
            host.wait_ready().await?;
        }
        let kept = host
            .eval("(() => { const f = document.querySelector('[data-wippy-mount-id=\"mount-blank-nav\"]'); return f && [f.getAttribute('data-window-kept'), f.getAttribute('data-blank-document-replaced')]; })()")
            .await?;
        // The case under test only: the browser kept the Window and replaced the document.
        ensure!(
            kept == serde_json::json!(["true", "true"]),
            "load {load}: the Host variant did not reproduce the case (window kept, document replaced: {kept})"
        );
        let at = host.locate_landmark("plain-leaf").await?;
        let truth = host.frames().node_rect(&at).await?;
        let (x, y) = truth.center();
        let snap = host
            .snapshot_with(serde_json::json!({"point": {"x": x.round(), "y": y.round()}, "radius_css_px": 0}))
            .await?;
        super::require_valid_payload(snap.json())?;
        let hit = super::candidates(&snap).iter().find(|c| {
            let tag = c.path.last().and_then(|s| s.tag_name.as_deref());
            let in_mount = c.path.iter().any(|s| s.mount_id == MOUNT);
            tag == Some("button") && in_mount && super::box_of(&c.rect).max_edge_delta(&truth) <= super::RECT_TOLERANCE
        });
        let omission = snap.omissions.iter().any(|o| o.mount_id.as_deref() == Some(MOUNT));
        match (hit, omission) {
            (Some(_), _) => found += 1,
            (None, true) => {
                ensure!(!snap.capture.complete, "load {load}: an omission for {MOUNT} but capture.complete is not false");
                omitted += 1;
            }
            (None, false) => anyhow::bail!(
                "load {load}: the blank-then-navigated realm is silently missing (complete {}, no candidate, no omission for {MOUNT}): {}",
                snap.capture.complete,
                snap.json()
            ),
        }
    }
    ensure!(found == loads, "the child answered in {found} of {loads} loads ({omitted} with an omission)");
    Ok(format!("{loads} loads: candidate in {found}, omission in {omitted}, silently missing in 0"))
}
