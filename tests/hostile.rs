//! A hostile cross-origin child gets nothing (spec: "Recursive resolution" — every inbound message
//! must match the recorded origin and the live source window, navigation or replacement invalidates
//! the binding, live capability credentials never enter a durable attachment; relay.md Part 1).
//!
//! The `hostile` extra (pages/apps/peer-hostile.js, no runtime) sends 10,000 seeded messages (8,000,
//! then 2,000 more from its next document after it navigated itself) to the Host realm, to its
//! sibling and through a nested window of its own, while trusted CDP input points at and clicks the
//! healthy `sibling` beside it. The proof compares counts from two sides: what the hostile page
//! says it posted per destination against the runtime's own per-source counters (debug hook), so
//! every message is accounted for as received and rejected. Then the sibling's candidate, pointer
//! and focus are checked against Chromium's box model and the sibling's own event log, nothing from
//! the hostile realm (or the real runtime it captured messages from) appears, no exception escaped
//! in any frame, and no capability token (the sibling's live ones, the captive's, any 48-hex run)
//! appears in the snapshot, its envelope or any console line.
//!
//! The seed comes from `ATTENTION_HOSTILE_SEED` (default below) and is in every failure message.

use anyhow::Context;
use attention_harness::attention::{EventType, SegmentKind};
use attention_harness::checks::{candidate_at, candidates, describe, require_valid_payload, wait_for, Poll};
use attention_harness::{run_host_opts, Engine, Extra, Frame, Host, HostOptions, Layout};
use rstest::rstest;
use serde_json::{json, Value};
use std::time::Duration;

const DEFAULT_SEED: u32 = 0x5eed_0c0d;
const BEFORE_NAVIGATION: u64 = 8000;
const AFTER_NAVIGATION: u64 = 2000;

fn seed() -> u32 {
    std::env::var("ATTENTION_HOSTILE_SEED")
        .ok()
        .and_then(|s| {
            s.trim()
                .strip_prefix("0x")
                .map(|h| u32::from_str_radix(h, 16).ok())
                .unwrap_or_else(|| s.trim().parse().ok())
        })
        .unwrap_or(DEFAULT_SEED)
}

/// Installs, in the Host document, a recorder of the capability grants and relay replies that reach
/// it (test instrumentation beside the runtime: the runtime itself never exposes tokens).
const RECORDER: &str = "(() => {
    if (window.__relayLog) return true;
    window.__relayLog = [];
    addEventListener('message', (e) => {
        const m = e.data;
        if (!m || typeof m !== 'object' || typeof m.schema !== 'string' || m.schema.indexOf('wippy.attention.') !== 0) return;
        const ifr = Array.from(document.querySelectorAll('iframe')).find((f) => f.contentWindow === e.source);
        const from = ifr ? ifr.getAttribute('data-wippy-mount-id') : null;
        if (from !== 'mount-sibling') return;
        window.__relayLog.push({ from, type: m.type, token: typeof m.token === 'string' ? m.token : null, realm_id: m.realm_id || null,
            request_id: typeof m.request_id === 'string' ? m.request_id : null, code: m.code || null,
            child_generation: m.child_generation === undefined ? null : m.child_generation, operation: m.operation || null });
    }, true);
    return true;
})()";

/// The Host realm's binding to a mount, from the runtime's debug hook (never tokens).
async fn binding(h: &Host, mount: &str) -> anyhow::Result<Value> {
    let dbg = h.eval("window.__wippyAttentionRuntime.debug()").await?;
    let found: Vec<Value> =
        dbg["children"].as_array().into_iter().flatten().filter(|b| b["mount_id"] == mount).cloned().collect();
    anyhow::ensure!(found.len() == 1, "expected exactly one binding for {mount}, got {found:?}");
    Ok(found[0].clone())
}

/// The newest grant the sibling sent the Host whose realm is not one of `old_realms`.
async fn await_new_grant(h: &Host, old_realms: &[String], what: &str) -> anyhow::Result<Value> {
    let old = json!(old_realms).to_string();
    wait_for(h, what, Duration::from_secs(10), || async {
        let g = h
            .eval(&format!("(window.__relayLog || []).filter((m) => m.type === 'capability-grant' && !{old}.includes(m.realm_id)).pop() || null"))
            .await?;
        Ok(if g.is_object() { Poll::Ready(g) } else { Poll::Pending("no grant from a new sibling realm yet".into()) })
    })
    .await
}

/// Posts a relay `ready` query from the Host document straight to the sibling's window (as its
/// parent would) and returns the sibling realm's reply: `query-result` or `query-error` with its code.
async fn probe(h: &Host, token: &str, generation: u64) -> anyhow::Result<Value> {
    let id = format!(
        "probe-{}-{generation}-{}",
        &token[..8.min(token.len())],
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos()
    );
    let sent = h
        .eval(&format!(
            "(() => {{ const f = document.querySelector('iframe[data-wippy-mount-id=\"mount-sibling\"]');
                f.contentWindow.postMessage({{ schema: 'wippy.attention.relay.v2', type: 'query-request', request_id: {id:?}, token: {token:?},
                  host_instance_id: window.wippyAttention.host_instance_id, mount_id: 'mount-sibling', generation: {generation},
                  operation: 'ready', timeout_ms: 500 }}, {origin:?}); return true; }})()",
            origin = h.child_origin
        ))
        .await?;
    anyhow::ensure!(sent == true, "the probe was not posted");
    wait_for(h, &format!("the sibling's reply to probe {id}"), Duration::from_secs(5), || async {
        let r = h.eval(&format!("(window.__relayLog || []).find((m) => m.request_id === {id:?}) || null")).await?;
        Ok(if r.is_object() { Poll::Ready(r) } else { Poll::Pending("no reply".into()) })
    })
    .await
}

/// Every maximal run of lowercase hex digits of exactly `len` characters in `text`.
fn hex_runs(text: &str, len: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            run.push(c);
        } else {
            if run.len() == len {
                out.push(run.clone());
            }
            run.clear();
        }
    }
    out
}

async fn hostile_frame_eval(h: &Host, phase: &str, expr: &str) -> anyhow::Result<Value> {
    // The hostile document of this phase (after its navigation the URL carries phase=2).
    let frame = Frame::UrlContains(if phase == "1" { "hostile=1".into() } else { "phase=2".into() });
    wait_for(h, &format!("the hostile document of phase {phase}"), Duration::from_secs(10), || async {
        match h.eval_in_frame(&frame, "(window.__hostile && window.__hostile.stats().phase) || null").await {
            Ok(p) if p == phase => Ok(Poll::Ready(())),
            Ok(p) => Ok(Poll::Pending(format!("phase {p}"))),
            Err(e) => Ok(Poll::Pending(e.to_string())),
        }
    })
    .await?;
    Ok(h.eval_in_frame(&frame, expr).await?)
}

async fn run_phase(h: &Host, phase: &str, seed: u32, count: u64, leaf: (f64, f64)) -> anyhow::Result<Value> {
    hostile_frame_eval(h, phase, &format!("(window.__hostile.start({seed}, {count}), true)")).await?;
    // Trusted input on the sibling while the messages flow: moves across its leaf, then a click.
    let (x, y) = leaf;
    for i in 0..6 {
        h.move_to(x - 12.0 + 4.0 * i as f64, y - 4.0 + (i % 3) as f64 * 3.0).await?;
    }
    h.click_at(x, y).await?;
    let frame = Frame::UrlContains(if phase == "1" { "hostile=1".into() } else { "phase=2".into() });
    let stats = wait_for(
        h,
        &format!("the hostile page sending its {count} phase-{phase} messages"),
        Duration::from_secs(90),
        || async {
            let s = h.eval_in_frame(&frame, "window.__hostile.stats()").await?;
            Ok(if s["done"] == true { Poll::Ready(s) } else { Poll::Pending(format!("{s}")) })
        },
    )
    .await?;
    let sent = stats["parent"].as_u64().unwrap_or(0)
        + stats["sibling"].as_u64().unwrap_or(0)
        + stats["sub"].as_u64().unwrap_or(0);
    anyhow::ensure!(
        sent + stats["failed"].as_u64().unwrap_or(0) == count,
        "phase {phase}: {sent} sent + {} failed is not the {count} drawn: {stats}",
        stats["failed"]
    );
    anyhow::ensure!(
        stats["sub_failed"] == 0 && stats["sub_relayed"] == stats["sub"],
        "phase {phase}: the nested window did not relay everything: {stats}"
    );
    Ok(stats)
}

async fn hostile_run(h: &Host, seed: u32) -> anyhow::Result<()> {
    anyhow::ensure!(h.eval(RECORDER).await? == true, "recorder not installed");
    // The sibling's live token: make it grant again now that the recorder listens (a reload is a
    // new realm; the old realm's binding is replaced by the new grant).
    let before = binding(h, "mount-sibling").await?;
    let old_realm = before["realm_id"].as_str().unwrap_or_default().to_string();
    h.eval_in_frame(&Frame::UrlContains("name=sibling".into()), "(location.reload(), true)").await.ok();
    let grant = await_new_grant(h, &[old_realm], "the reloaded sibling's grant").await?;
    let sibling_token = grant["token"].as_str().unwrap_or_default().to_string();
    anyhow::ensure!(sibling_token.len() == 48, "the sibling's grant has no 48-hex token: {grant}");
    wait_for(h, "the sibling's binding granted again", Duration::from_secs(5), || async {
        let b = binding(h, "mount-sibling").await?;
        Ok(if b["state"] == "granted" && b["realm_id"] == grant["realm_id"] {
            Poll::Ready(())
        } else {
            Poll::Pending(b.to_string())
        })
    })
    .await?;
    let sibling_frame = Frame::UrlContains("name=sibling".into());
    wait_for(h, "the reloaded sibling app ready", Duration::from_secs(5), || async {
        Ok(match h.eval_in_frame(&sibling_frame, "window.__appReady === true").await {
            Ok(v) if v == true => Poll::Ready(()),
            other => Poll::Pending(format!("{other:?}")),
        })
    })
    .await?;

    let top0 = h.eval("window.__wippyAttentionRuntime.debug()").await?;
    let hostile0 = binding(h, "mount-hostile").await?;
    let sibling0 = binding(h, "mount-sibling").await?;
    let sib0 = h.eval_in_frame(&sibling_frame, "window.__wippyAttentionRuntime.debug()").await?;
    let leaf = h.landmark_rect("sibling-leaf").await?;

    let s1 = run_phase(h, "1", seed, BEFORE_NAVIGATION, leaf.center()).await?;
    anyhow::ensure!(
        s1["captured"]["real"] == true && s1["captured"]["host_requests"].as_u64().unwrap_or(0) > 0,
        "the hostile page captured no real messages to replay (captive grant/results, the Host's requests): {s1}"
    );
    let captive_realm = hostile_frame_eval(h, "1", "window.__hostile.captiveRealm()").await?;
    let captive_tokens = hostile_frame_eval(h, "1", "window.__hostile.captiveTokens()").await?;
    // Its own navigation; the next document goes on with what the previous one captured.
    hostile_frame_eval(h, "1", "window.__hostile.navigate()").await?;
    let carried = hostile_frame_eval(h, "2", "window.__hostile.prevCaptured()").await?;
    anyhow::ensure!(
        carried["host_requests"].as_u64().unwrap_or(0) > 0,
        "nothing carried across the hostile navigation: {carried}"
    );
    let s2 = run_phase(h, "2", seed, AFTER_NAVIGATION, (leaf.center().0 + 6.0, leaf.center().1)).await?;
    let n = |s: &Value, k: &str| s[k].as_u64().unwrap_or(0);
    let (to_parent, to_sibling, via_sub) =
        (n(&s1, "parent") + n(&s2, "parent"), n(&s1, "sibling") + n(&s2, "sibling"), n(&s1, "sub") + n(&s2, "sub"));
    eprintln!("hostile seed {seed}: to the Host {to_parent}, to the sibling {to_sibling}, through its own window {via_sub}; kinds {} / {}", s1["kinds"], s2["kinds"]);

    // Every message accounted for, none accepted (the runtime's own per-source counters).
    let top1 = h.eval("window.__wippyAttentionRuntime.debug()").await?;
    let hostile1 = binding(h, "mount-hostile").await?;
    let sib1 = h.eval_in_frame(&sibling_frame, "window.__wippyAttentionRuntime.debug()").await?;
    let d = |a: &Value, b: &Value, k: &str| b[k].as_u64().unwrap_or(0) as i64 - a[k].as_u64().unwrap_or(0) as i64;
    anyhow::ensure!(
        d(&hostile0, &hostile1, "inbound") == to_parent as i64,
        "the Host counted {} messages from the hostile window, it posted {to_parent}: {hostile1}",
        d(&hostile0, &hostile1, "inbound")
    );
    anyhow::ensure!(
        d(&hostile0, &hostile1, "accepted") == 0 && d(&hostile0, &hostile1, "rejected") == to_parent as i64,
        "hostile messages were accepted: {hostile1}"
    );
    anyhow::ensure!(
        hostile1["grants"] == 0 && hostile1["state"] != "granted" && hostile1["realm_id"].is_null(),
        "the hostile child was bound: {hostile1}"
    );
    anyhow::ensure!(
        d(&top0, &top1, "unmatched") == via_sub as i64,
        "the Host counted {} messages from unbound windows, the hostile page's own window relayed {via_sub}",
        d(&top0, &top1, "unmatched")
    );
    anyhow::ensure!(
        d(&sib0, &sib1, "unmatched") == to_sibling as i64 && sib1["granted"] == true,
        "the sibling counted {} messages from windows other than its parent, the hostile page posted {to_sibling}; sibling {sib1}",
        d(&sib0, &sib1, "unmatched")
    );
    let sibling_binding = binding(h, "mount-sibling").await?;
    anyhow::ensure!(
        sibling_binding["state"] == "granted" && d(&sibling0, &sibling_binding, "accepted") > 0 && d(&sibling0, &sibling_binding, "rejected") == 0,
        "the sibling's own binding must stay granted and accept its observations (nothing of it rejected): {sibling_binding}"
    );

    // The sibling stays right, nothing of the hostile realm appears.
    let snap = h.snapshot().await?;
    require_valid_payload(snap.json())?;
    let cand = candidate_at(&snap, &leaf)
        .with_context(|| format!("the sibling's leaf was lost; candidates: {}", describe(&snap)))?;
    let path = &cand.path;
    let frame_seg = path
        .iter()
        .find(|s| s.kind == SegmentKind::Iframe)
        .with_context(|| format!("no iframe segment in {cand:?}"))?;
    anyhow::ensure!(
        frame_seg.mount_id == "mount-sibling"
            && frame_seg.frame_origin.as_deref() == Some(h.child_origin.as_str())
            && path.last().is_some_and(|s| s.kind == SegmentKind::Element),
        "the sibling's path is wrong: {path:?}"
    );
    let pointer_ids = snap.pointer.as_ref().map(|p| p.candidate_ids.clone()).unwrap_or_default();
    anyhow::ensure!(
        pointer_ids.contains(&cand.target_id),
        "the latest pointer does not name the sibling's leaf: {:?}",
        snap.pointer
    );
    // The runtime's own JSON is what is scanned.
    let text = snap.json().to_string();
    for bad in ["HOSTILE-MARK", "mount-hostile", "mount-captive", "Peer hostile", "Peer captive", "polluted"] {
        anyhow::ensure!(!text.contains(bad), "{bad:?} from the hostile realm reached the snapshot");
    }
    if let Some(r) = captive_realm.as_str() {
        anyhow::ensure!(!text.contains(r), "the captive realm {r} reached the snapshot");
    }
    for c in candidates(&snap) {
        let through_sibling = c.path.iter().any(|s| s.mount_id == "mount-sibling");
        let in_host = !c.path.iter().any(|s| matches!(s.kind, SegmentKind::Iframe | SegmentKind::WebFragment));
        anyhow::ensure!(
            through_sibling || in_host,
            "a candidate from neither the sibling nor the Host document: {c:?}"
        );
    }
    // The click on the sibling's leaf, as the leaf's own log has it, is in the events.
    let log = h.eval_in_frame(&sibling_frame, "JSON.parse(JSON.stringify(window.__leafLog || []))").await?;
    let clicks = log
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["type"] == "click" && e["isTrusted"] == true && e["target"] == "sibling-leaf")
        .count();
    anyhow::ensure!(clicks == 2, "the sibling's leaf received {clicks} trusted clicks, expected the 2 of the test");
    let recorded = snap
        .recent_events
        .iter()
        .filter(|e| e.event_type == EventType::Click && e.candidate_ids.contains(&cand.target_id))
        .count();
    anyhow::ensure!(
        recorded == 2,
        "{recorded} click events on the sibling's leaf recorded, the leaf received 2: {:?}",
        snap.recent_events
    );
    // Focus (the click focused the leaf) survived forged focus-clear / focus-invalidate messages.
    let focus = h.focus().await?;
    anyhow::ensure!(
        focus.as_ref().and_then(|f| f.candidate_id.as_ref()) == Some(&cand.target_id),
        "the focus on the sibling's leaf was lost or replaced: {}",
        focus.as_ref().map_or_else(|| "null".to_string(), |f| f.json().to_string())
    );
    for frame in [Frame::Top, sibling_frame.clone()] {
        let polluted = h.eval_in_frame(&frame, "Object.prototype.polluted !== undefined || ({}).polluted !== undefined || Object.getOwnPropertyNames(Object.prototype).length").await?;
        anyhow::ensure!(polluted.is_number(), "Object.prototype of {frame:?} was polluted");
    }

    // No credential anywhere: the sibling's live token, the captive's real tokens, any 48-hex run.
    let envelope = h.envelope(&snap).await?;
    let console = h.console();
    let mut tokens: Vec<String> = vec![sibling_token];
    tokens.extend(captive_tokens.as_array().into_iter().flatten().filter_map(|t| t.as_str().map(str::to_string)));
    let all_grants = h.eval("(window.__relayLog || []).filter((m) => m.token).map((m) => m.token)").await?;
    tokens.extend(all_grants.as_array().into_iter().flatten().filter_map(|t| t.as_str().map(str::to_string)));
    for (what, text) in [("snapshot", snap.json().to_string()), ("envelope", envelope.json().to_string())]
        .into_iter()
        .chain(console.iter().map(|l| ("console", l.clone())))
    {
        for t in &tokens {
            anyhow::ensure!(!text.contains(t.as_str()), "a capability token appears in the {what}");
        }
        let runs = hex_runs(&text, 48);
        anyhow::ensure!(runs.is_empty(), "a 48-hex token-like run appears in the {what}: {runs:?}");
    }
    // No exception escaped, in any frame, and the runtime swallowed none either.
    let bad: Vec<&String> =
        console.iter().filter(|l| l.starts_with("[exception]") || l.contains("[wippy-attention]")).collect();
    anyhow::ensure!(bad.is_empty(), "exceptions or swallowed runtime errors in the console: {bad:?}");
    Ok(())
}

#[rstest]
fn hostile_child_gets_nothing_while_the_user_points_at_its_sibling(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    let seed = seed();
    run_host_opts(HostOptions::new(layout, Engine::Iframe).extras([Extra::Hostile, Extra::Sibling]), async |h| {
        hostile_run(h, seed)
            .await
            .with_context(|| format!("hostile seed {seed} (rerun with ATTENTION_HOSTILE_SEED={seed})"))
    });
}

#[test]
fn navigation_or_replacement_of_a_child_invalidates_its_binding() {
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe).extra(Extra::Sibling), async |h| {
        anyhow::ensure!(h.eval(RECORDER).await? == true, "recorder not installed");
        let first = binding(h, "mount-sibling").await?;
        let realm0 = first["realm_id"].as_str().unwrap_or_default().to_string();
        let sibling = Frame::UrlContains("name=sibling".into());
        // A reload: the recorder sees realm A's grant.
        h.eval_in_frame(&sibling, "(location.reload(), true)").await.ok();
        let a = await_new_grant(h, std::slice::from_ref(&realm0), "realm A's grant").await?;
        let (realm_a, token_a) = (
            a["realm_id"].as_str().unwrap_or_default().to_string(),
            a["token"].as_str().unwrap_or_default().to_string(),
        );
        anyhow::ensure!(
            probe(h, &token_a, 1).await?["type"] == "query-result",
            "realm A does not answer its own live token"
        );
        // Navigation: realm B replaces A in the same iframe.
        h.eval_in_frame(&sibling, "(location.replace(location.href), true)").await.ok();
        let b = await_new_grant(h, &[realm0.clone(), realm_a.clone()], "realm B's grant after navigation").await?;
        let (realm_b, token_b) = (
            b["realm_id"].as_str().unwrap_or_default().to_string(),
            b["token"].as_str().unwrap_or_default().to_string(),
        );
        let old = probe(h, &token_a, 1).await?;
        anyhow::ensure!(
            old["type"] == "query-error" && old["code"] == "unauthorized",
            "realm A's token still works after navigation: {old}"
        );
        anyhow::ensure!(
            probe(h, &token_b, 1).await?["type"] == "query-result",
            "realm B does not answer its own live token"
        );
        let bound = binding(h, "mount-sibling").await?;
        anyhow::ensure!(
            bound["realm_id"] == realm_b.as_str() && bound["state"] == "granted",
            "the Host's binding did not move to realm B: {bound}"
        );
        let leaf = h.landmark_rect("sibling-leaf").await?;
        let (x, y) = leaf.center();
        let snap = h.snapshot_with(json!({"point": {"x": x, "y": y}})).await?;
        require_valid_payload(snap.json())?;
        let cand = candidate_at(&snap, &leaf)
            .with_context(|| format!("no sibling leaf after navigation: {}", describe(&snap)))?;
        anyhow::ensure!(
            cand.target_id.contains(&realm_b) && !cand.target_id.contains(&realm_a),
            "the sibling's candidate is not from realm B ({realm_b}): {}",
            cand.target_id
        );

        // Replacement: a new iframe element, a new mount generation, realm C.
        h.eval("window.__host.remount('sibling').then(() => true)").await?;
        let c = await_new_grant(h, &[realm0, realm_a, realm_b], "realm C's grant after replacement").await?;
        anyhow::ensure!(c["child_generation"] == 2, "the replaced mount was not granted as generation 2: {c}");
        let token_c = c["token"].as_str().unwrap_or_default().to_string();
        let stale = probe(h, &token_b, 2).await?;
        anyhow::ensure!(
            stale["type"] == "query-error" && stale["code"] == "unauthorized",
            "realm B's token works in the replacement: {stale}"
        );
        let old_gen = probe(h, &token_c, 1).await?;
        anyhow::ensure!(
            old_gen["type"] == "query-error" && old_gen["code"] == "generation-mismatch",
            "generation 1 is still accepted: {old_gen}"
        );
        anyhow::ensure!(
            probe(h, &token_c, 2).await?["type"] == "query-result",
            "realm C does not answer its own token at generation 2"
        );
        let replaced = binding(h, "mount-sibling").await?;
        anyhow::ensure!(
            replaced["generation"] == 2 && replaced["realm_id"] == c["realm_id"] && replaced["state"] == "granted",
            "the Host's binding is not the replacement's (exactly one binding, generation 2): {replaced}"
        );
        Ok(())
    });
}
