//! Grant lifetime and renewal, end to end (spec: "Recursive resolution" — an upstream runtime renews
//! an accepted grant before expiry, the renewal lead being the smaller of 5 s and half the
//! remaining lifetime; relay.md Part 1).
//!
//! Two hand-written peers (pages/apps/peer-fake.js `fake=renew`) grant with a short lifetime
//! (`renew-short` 2,000 ms: lead = half = 1,000 ms; `renew-mid` 12,000 ms: lead = 5,000 ms) and log, on
//! their own clock, every capability request they receive and every grant they send. The renewal
//! request must arrive `lifetime - lead` after the grant it renews (never earlier; at most a small
//! delivery bound later), again after each renewal, and the binding must stay granted past the first
//! grant's expiry. No 60 s wait: the lifetimes come from the child, as the spec lets a child choose.

use attention_harness::checks::{wait_for, Poll};
use attention_harness::{run_host_opts, Engine, Extra, Frame, Host, HostOptions, Layout};
use serde_json::Value;
use std::time::Duration;

/// How late a renewal request may arrive after its due time: two postMessage hops between
/// processes and timer lateness on a loaded 2-core machine.
const LATE_BOUND_MS: f64 = 300.0;

/// The renewal requests in a peer's log: (gap since the grant it renews, ms). A renewal request is
/// the first request after a quiet period of more than 500 ms (discovery retries come every 100 ms).
fn renewal_gaps(log: &[Value]) -> Vec<f64> {
    let mut gaps = Vec::new();
    let mut last_request: Option<f64> = None;
    let mut last_grant: Option<f64> = None;
    for e in log {
        let t = e["t"].as_f64().unwrap_or(f64::NAN);
        match e["type"].as_str() {
            Some("request") => {
                if let (Some(r), Some(g)) = (last_request, last_grant) {
                    if t - r > 500.0 {
                        gaps.push(t - g);
                    }
                }
                last_request = Some(t);
            }
            Some("grant") => last_grant = Some(t),
            _ => {}
        }
    }
    gaps
}

async fn peer_log(h: &Host, name: &str) -> anyhow::Result<Vec<Value>> {
    let v = h
        .eval_in_frame(&Frame::UrlContains(format!("name={name}")), "JSON.parse(JSON.stringify(window.__fakePeer.log))")
        .await?;
    Ok(v.as_array().cloned().unwrap_or_default())
}

async fn binding(h: &Host, mount: &str) -> anyhow::Result<Value> {
    let dbg = h.eval("window.__wippyAttentionRuntime.debug()").await?;
    dbg["children"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["mount_id"] == mount).cloned())
        .ok_or_else(|| anyhow::anyhow!("no binding for {mount} in {dbg}"))
}

#[test]
fn grants_are_renewed_at_the_smaller_of_5_s_and_half_the_lifetime_before_expiry() {
    run_host_opts(
        HostOptions::new(Layout::Managed, Engine::Iframe).extras([Extra::RenewShort, Extra::RenewMid]),
        async |h| {
            // renew-short: 2,000 ms lifetime, lead min(5,000, 1,000) = 1,000 ms: three renewals in ~3 s.
            // renew-mid: 12,000 ms lifetime, lead min(5,000, 6,000) = 5,000 ms: one renewal at 7 s.
            for (name, life, lead, renewals) in
                [("renew-short", 2000.0, 1000.0, 3usize), ("renew-mid", 12000.0, 5000.0, 1usize)]
            {
                let log = wait_for(h, &format!("{renewals} renewals of {name}"), Duration::from_secs(12), || async {
                    let log = peer_log(h, name).await?;
                    let n = renewal_gaps(&log).len();
                    Ok(if n >= renewals { Poll::Ready(log) } else { Poll::Pending(format!("{n} renewals so far")) })
                })
                .await?;
                let due = life - lead;
                for (i, gap) in renewal_gaps(&log).into_iter().take(renewals).enumerate() {
                    anyhow::ensure!(
                    gap >= due - 2.0 && gap <= due + LATE_BOUND_MS,
                    "{name}: renewal {} came {gap:.1} ms after the grant it renews; due at {due} ms (lifetime {life} - lead {lead})",
                    i + 1
                );
                    eprintln!("{name}: renewal {} at {gap:.1} ms after its grant (due {due} ms)", i + 1);
                }
                // Past the first grant's expiry the binding is still granted, thanks to the renewals.
                let b = binding(h, &format!("mount-{name}")).await?;
                anyhow::ensure!(
                    b["state"] == "granted"
                        && b["renewals"].as_u64().unwrap_or(0) >= renewals as u64
                        && b["lifetime_ms"] == life as u64,
                    "{name}: the binding after {renewals} renewals: {b}"
                );
            }
            Ok(())
        },
    );
}

/// Page script: posts `n` well-formed capability requests for the granted binding `mount` from the
/// Host realm (its parent, so the child accepts them) and answers their request ids. The child
/// answers each with a fresh token the parent never asked for (it refuses those grants), as a
/// retry answered after the parent took an earlier grant, or a late request of an earlier discovery
/// round, would be.
const EXTRA_REQUESTS_FN: &str = "async (mount, n) => {
    const rt = window.__wippyAttentionRuntime;
    const b = rt.debug().children.find((c) => c.mount_id === mount);
    const roots = [document];
    let frame = null;
    while (roots.length && !frame) {
        const r = roots.shift();
        for (const el of r.querySelectorAll('*')) {
            if (el.localName === 'iframe' && rt.mountIdOf(el) === mount) { frame = el; break; }
            if (el.shadowRoot) roots.push(el.shadowRoot);
        }
    }
    if (!b || !frame) return null;
    const snap = await window.wippyAttention.snapshot({ x: 0, y: 0 });
    const ids = [];
    for (let i = 0; i < n; i++) {
        const id = 'extra-' + i;
        ids.push(id);
        frame.contentWindow.postMessage({
            schema: 'wippy.attention.capability.v1', type: 'capability-request', request_id: id,
            host_instance_id: snap.host_instance_id, parent_mount_id: snap.host_instance_id, parent_generation: 1,
            child_mount_id: b.mount_id, child_generation: b.generation,
            parent_origin: location.origin, target_origin: b.expected_origin,
            relay_versions: ['wippy.attention.relay.v2', 'wippy.attention.relay.v1'], attempt: i,
        }, b.expected_origin);
    }
    return ids;
}";

/// What a find through the relay for the left leaf's button answers: (nodes as role “name”, omission reasons).
async fn find_left_button(h: &Host) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let r =
        h.eval("window.$W.attention.find({role: 'button', name: 'Attention target left'}, {fromRoot: true})").await?;
    let nodes = r["data"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            format!(
                "{} “{}”",
                n["summary"]["role"].as_str().unwrap_or("?"),
                n["summary"]["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    let omissions = r["omissions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| format!("{} ({})", o["reason"].as_str().unwrap_or("?"), o["detail"].as_str().unwrap_or("no detail")))
        .collect();
    Ok((nodes, omissions))
}

/// A child answers every capability request with a fresh token (discovery retries come every
/// 100 ms, so under load several are answered before the parent takes the first grant; a late
/// request of an earlier round is answered too). Those extra grants never revoke the token the
/// parent holds: after three grants the parent refused, a find through the relay still reaches the
/// out-of-process leaf's button, which Chromium's accessibility tree has, with no omission.
#[test]
fn extra_capability_grants_never_revoke_the_token_the_parent_holds() {
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe), async |h| {
        let mount = "mount-leaf-left";
        let chromium = attention_harness::checks::agent_view::chromium_interactive(h).await?;
        let want = ("button".to_string(), "Attention target left".to_string());
        anyhow::ensure!(
            chromium.contains(&want),
            "Chromium's accessibility tree has no button “Attention target left”"
        );
        let before = find_left_button(h).await?;
        anyhow::ensure!(
            before == (vec!["button “Attention target left”".to_string()], vec![]),
            "before the extra grants the find answered {before:?}"
        );
        let rejected = binding(h, mount).await?["rejected"].as_u64().unwrap_or(0);
        let ids = h.eval(&format!("({EXTRA_REQUESTS_FN})('{mount}', 3)")).await?;
        anyhow::ensure!(ids.is_array(), "no granted binding or iframe for {mount}");
        wait_for(h, "the parent refusing the three grants it never asked for", Duration::from_secs(5), || async {
            let b = binding(h, mount).await?;
            let now = b["rejected"].as_u64().unwrap_or(0);
            Ok(if now >= rejected + 3 {
                Poll::Ready(())
            } else {
                Poll::Pending(format!("{} refused so far", now - rejected))
            })
        })
        .await?;
        let after = find_left_button(h).await?;
        anyhow::ensure!(
            after == before,
            "after three extra grants the find answered nodes {:?} with omissions {:?}; before it found {:?}",
            after.0,
            after.1,
            before.0
        );
        Ok(())
    });
}
