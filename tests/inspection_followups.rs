//! Inspection follow-ups (issue 19) against Chromium's own state: a child that speaks only relay.v1
//! (pages/apps/peer-fake.js `fake=v1`) keeps point sampling and is an explicit omission for
//! inspection while its sibling's results stay; selection refs (`data.anchor` / `data.focus`) for a
//! selection made by a trusted drag inside a child realm (OOPIF, srcdoc with a closed root) are the
//! endpoint elements the frame's own selection names.

use std::time::Duration;

use attention_harness::attention::inspect::{OrFalse, Outcome};
use attention_harness::checks::{candidate_at, describe, require_valid_payload, wait_for, Poll};
use attention_harness::host::{InspectOptions, Realm, SemanticQuery};
use attention_harness::{run_host_opts, Engine, Extra, Host, HostOptions, Layout};
use chromiumoxide::cdp::js_protocol::runtime::{CallFunctionOnParams, RemoteObjectId};
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

/// The node ids (`__wippyAttentionRuntime.nodeIdOf`, the realm's own naming) of the elements holding
/// the anchor and the focus of the selection of the realm of `landmark`, from that frame's own
/// selection: `getSelection().anchorNode / focusNode` in a document, the composed range and its
/// direction inside a shadow root (where the document's selection is retargeted to the host).
async fn page_endpoints(h: &Host, landmark: &str) -> anyhow::Result<(String, String)> {
    let at = h.locate_landmark(landmark).await?;
    let object = at.session.resolve_node(at.backend_node_id).await?.ok_or_else(|| anyhow::anyhow!("no {landmark}"))?;
    let mut call = CallFunctionOnParams::new(
        "function () {
            const root = this.getRootNode();
            const sel = window.getSelection();
            if (!sel || sel.rangeCount === 0) return null;
            let a = sel.anchorNode, f = sel.focusNode;
            if (root.nodeType === 11) {
                const r = sel.getComposedRanges({ shadowRoots: [root] })[0];
                const back = sel.direction === 'backward';
                a = back ? r.endContainer : r.startContainer;
                f = back ? r.startContainer : r.endContainer;
            }
            const el = (n) => (n && n.nodeType === 3 ? n.parentElement : n);
            const id = (n) => window.__wippyAttentionRuntime.nodeIdOf(el(n));
            return { anchor: id(a), focus: id(f) };
        }",
    );
    call.object_id = Some(RemoteObjectId::new(object));
    call.return_by_value = Some(true);
    let reply = at.session.send(&call).await?;
    let v = reply.pointer("/result/value").cloned().unwrap_or_default();
    match (v["anchor"].as_str(), v["focus"].as_str()) {
        (Some(a), Some(f)) => Ok((a.to_string(), f.to_string())),
        _ => anyhow::bail!("the frame of {landmark} has no selection endpoints: {v}"),
    }
}

#[rstest]
fn selection_refs_in_a_child_realm_are_the_frames_own_anchor_and_focus_elements(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values("left-leaf-text", "closed-shadow-safe-text")] landmark: &str,
    #[values(false, true)] backward: bool,
) {
    run_host_opts(HostOptions::new(layout, Engine::Iframe), async |h| {
        let b = h.landmark_rect(landmark).await?;
        let cy = b.y + b.height / 2.0;
        let (from, to) = ((b.x + 1.0, cy), (b.x + b.width - 1.0, cy));
        if backward {
            h.drag(to, from, 8).await?;
        } else {
            h.drag(from, to, 8).await?;
        }
        let (anchor, focus) = page_endpoints(h, landmark).await?;
        let got = wait_for(h, "getSelection with anchor and focus refs", Duration::from_secs(5), || async {
            let r = h.selection_read(&Realm::Top, &InspectOptions::default()).await?;
            let ready = r.outcome == Outcome::Ok
                && matches!(r.data.selection, Some(OrFalse::Present(_)))
                && r.data.anchor.is_some()
                && r.data.focus.is_some();
            Ok(if ready { Poll::Ready(r) } else { Poll::Pending(r.json().to_string()) })
        })
        .await?;
        let (a, f) = (
            got.data.anchor.clone().unwrap_or_else(|| unreachable!()),
            got.data.focus.clone().unwrap_or_else(|| unreachable!()),
        );
        anyhow::ensure!(a.node_id == anchor, "data.anchor {a:?} is not the frame's anchor element {anchor}");
        anyhow::ensure!(f.node_id == focus, "data.focus {f:?} is not the frame's focus element {focus}");
        // The ref is live at the top: getNode gives that element's record, laid out as Chromium's box model.
        let n = h.node(&Realm::Top, &a).await?;
        let rec = n.data.nodes.first().ok_or_else(|| anyhow::anyhow!("getNode(anchor): {}", n.json()))?;
        let rect = &rec.layout.as_ref().ok_or_else(|| anyhow::anyhow!("anchor record without layout"))?.rect;
        anyhow::ensure!(
            (rect.x - b.x).abs() <= 0.5 && (rect.y - b.y).abs() <= 0.5 && (rect.width - b.width).abs() <= 0.5,
            "anchor layout {rect:?} vs box model {b:?}"
        );
        Ok(())
    });
}
