//! Inspection follow-ups (issue 19) against Chromium's own state: a child that speaks only relay.v1
//! (pages/apps/peer-fake.js `fake=v1`) keeps point sampling and is an explicit omission for
//! inspection while its sibling's results stay.

use std::time::Duration;

use attention_harness::attention::inspect::Outcome;
use attention_harness::checks::{candidate_at, describe, require_valid_payload, wait_for, Poll};
use attention_harness::host::{InspectOptions, Realm, SemanticQuery};
use attention_harness::{run_host_opts, Engine, Extra, Host, HostOptions, Layout};
use rstest::rstest;
use serde_json::json;

/// Mounts a Child-origin relay.v1-only peer (`apps/peer.html?name=v1&attention=off&fake=v1`, mount
/// `mount-v1`) right after the `sibling` extra, the way the Host mounts its extras, and waits until
/// the Host runtime holds a v1 grant from it. (The reference Host has no extra for it; the lead may
/// add one: pages/host/host.js omissionExtras `v1: {query: 'attention=off&fake=v1'}`.)
async fn mount_v1_peer(h: &Host) -> anyhow::Result<()> {
    let mounted = h
        .eval(
            "(() => {
                const sib = document.querySelector('[data-landmark=\"sibling-frame\"]');
                const origin = document.querySelector('meta[name=\"wippy-child-origin\"]').content;
                if (!sib || !origin) return false;
                const f = document.createElement('iframe');
                f.title = 'Relay v1 peer';
                f.src = origin + '/apps/peer.html?name=v1&attention=off&fake=v1';
                f.setAttribute('data-wippy-mount-id', 'mount-v1');
                f.setAttribute('data-landmark', 'v1-frame');
                const cs = getComputedStyle(sib);
                f.style.cssText = 'border:0;margin:0;padding:0;width:' + cs.width + ';height:' + cs.height;
                sib.after(f);
                return true;
            })()",
        )
        .await?;
    anyhow::ensure!(mounted == json!(true), "the sibling extra to mount the v1 peer beside is missing");
    wait_for(h, "a relay.v1 grant from the v1 peer", Duration::from_secs(10), || async {
        let b = h
            .eval(
                "(() => { const c = window.__wippyAttentionRuntime.debug().children.find((c) => c.mount_id === 'mount-v1');
                  return c ? c.state : null; })()",
            )
            .await?;
        Ok(if b == json!("granted") { Poll::Ready(()) } else { Poll::Pending(format!("binding state {b}")) })
    })
    .await
}

#[rstest]
fn a_relay_v1_child_keeps_points_and_is_an_explicit_omission_for_inspection(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host_opts(HostOptions::new(layout, Engine::Iframe).extra(Extra::Sibling), async |h| {
        mount_v1_peer(h).await?;
        // Points: a snapshot centred on the v1 peer's button resolves it (Chromium's box model), and
        // the sibling's button beside it too.
        let leaf = h.landmark_rect("v1-leaf").await?;
        let sibling_leaf = h.landmark_rect("sibling-leaf").await?;
        let snap = h
            .snapshot_with(json!({"point": {"x": leaf.x + leaf.width / 2.0, "y": leaf.y + leaf.height / 2.0}}))
            .await?;
        require_valid_payload(snap.json())?;
        let c = candidate_at(&snap, &leaf)
            .ok_or_else(|| anyhow::anyhow!("the v1 peer's button was not resolved: {}", describe(&snap)))?;
        anyhow::ensure!(
            c.path.iter().any(|s| s.mount_id == "mount-v1"),
            "the v1 candidate's path does not go through its iframe: {:?}",
            c.path
        );
        // Inspection: find from the root lists the v1 child as an explicit omission naming its iframe
        // and keeps the sibling's button (its layout = Chromium's box model).
        let iframe_id = h
            .eval("window.__wippyAttentionRuntime.nodeIdOf(document.querySelector('[data-landmark=\"v1-frame\"]'))")
            .await?;
        let r = h
            .find_semantic(
                &Realm::Top,
                &SemanticQuery { role: Some("button".into()), name: Some("Peer".into()), ..SemanticQuery::default() },
                &InspectOptions::from_root(),
            )
            .await?;
        anyhow::ensure!(r.outcome == Outcome::Partial, "find over a v1 child must be partial: {}", r.json());
        let om = r
            .omissions
            .iter()
            .find(|o| o.reason == "capability-unavailable")
            .ok_or_else(|| anyhow::anyhow!("no capability-unavailable omission: {}", r.json()))?;
        anyhow::ensure!(
            om.detail.as_deref() == Some("transport:unsupported-version:stage:query-call"),
            "the omission's detail: {:?}",
            om.detail
        );
        anyhow::ensure!(
            om.node.as_ref().map(|n| json!(n.node_id)) == Some(iframe_id.clone()),
            "the omission must name the v1 iframe ({iframe_id}): {:?}",
            om.node
        );
        let sib = r
            .data
            .nodes
            .iter()
            .find(|n| n.summary.name.as_deref() == Some("Peer sibling"))
            .ok_or_else(|| anyhow::anyhow!("the sibling's button was lost: {}", r.json()))?;
        let rect = &sib.layout.as_ref().ok_or_else(|| anyhow::anyhow!("sibling record without layout"))?.rect;
        anyhow::ensure!(
            (rect.x - sibling_leaf.x).abs() <= 0.5 && (rect.width - sibling_leaf.width).abs() <= 0.5,
            "sibling layout {rect:?} vs box model {sibling_leaf:?}"
        );
        anyhow::ensure!(
            !r.data.nodes.iter().any(|n| n.path.iter().any(|s| s.mount_id == "mount-v1")),
            "records invented inside the v1 child: {}",
            r.json()
        );
        // The runtime never sent the v1 peer an inspection query (it only knows ready and points).
        let ops = h
            .eval_in_frame(
                &attention_harness::frames::Frame::UrlContains("fake=v1".into()),
                "window.__fakePeer.operations",
            )
            .await?;
        anyhow::ensure!(
            ops.as_array().is_some_and(|a| a.iter().all(|o| o == "points" || o == "ready")),
            "the v1 peer was asked {ops}"
        );
        Ok(())
    });
}
