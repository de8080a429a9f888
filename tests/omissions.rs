//! Explicit omissions from real page conditions (spec: "Partial results and errors", relay budgets):
//! each misbehaving child of the reference Host (pages/README.md "Omission extras") is mounted beside a
//! healthy `sibling` and sampled at their shared edge, so one lattice covers both. Each snapshot must
//! pass the same payload checks as every other (`require_valid_payload`), name the failing child's
//! mount with its reason and a detail in the safe grammar only, invent nothing inside the failing
//! realm, and keep the sibling's candidate (Chromium's box model) in the same snapshot.

use attention_harness::attention::{Candidate, Omission, OmissionReason, Reported, Snapshot};
use attention_harness::checks::{candidate_at, candidates, describe, require_valid_payload};
use attention_harness::contract::spec_rules::is_transport_detail;
use attention_harness::{run_host_opts, Engine, Extra, Host, HostOptions, Layout};
use rstest::rstest;
use serde_json::{json, Value};

/// The relay error codes a transport detail may name (relay.md Part 1; pages/runtime constants.js).
const RELAY_CODES: &[&str] = &[
    "invalid-request",
    "unsupported-version",
    "unauthorized",
    "host-instance-mismatch",
    "capability-expired",
    "capability-revoked",
    "generation-mismatch",
    "deadline-exceeded",
    "detached",
    "navigation",
    "disconnected",
    "response-too-large",
    "internal-error",
    "unavailable",
];

/// One case: the extra, the omission it must produce, the detail it must carry (None: no detail),
/// whether the omission names the extra's own mount, and the sampling options.
struct Case {
    extra: Extra,
    reason: &'static str,
    detail: Option<&'static str>,
    own_mount: bool,
    /// Whether the failing child may still contribute candidates (budget cases: it is healthy).
    child_candidates: bool,
    /// Offset of the sample point from the sibling's left edge, CSS px.
    dx: f64,
    radius: u32,
    step: u32,
    /// The per-query timeout option, ms (None: the 1,500 ms default).
    timeout_ms: Option<u32>,
}

const fn case(extra: Extra, reason: &'static str, detail: Option<&'static str>) -> Case {
    Case {
        extra,
        reason,
        detail,
        own_mount: true,
        child_candidates: false,
        dx: 0.0,
        radius: 20,
        step: 5,
        timeout_ms: None,
    }
}

const CASES: &[Case] = &[
    case(Extra::Bare, "capability-unavailable", Some("transport:unavailable:stage:query-call")),
    case(Extra::Hang, "child-timeout", Some("transport:deadline-exceeded:stage:query-await")),
    case(Extra::Vanish, "child-disconnected", Some("transport:disconnected:stage:query-await")),
    // The new realm's grant ends the in-flight query with `navigation`; a long deadline keeps a busy
    // machine (a slow navigation) from turning the race into child-timeout, and costs nothing when
    // the grant comes in time.
    Case {
        timeout_ms: Some(8000),
        ..case(Extra::Navigate, "navigation", Some("transport:navigation:stage:query-await"))
    },
    case(Extra::Remount, "stale-mount", Some("transport:generation-mismatch:stage:query-await")),
    case(Extra::Sandboxed, "unsupported-boundary", None),
    case(Extra::Rotated, "unsupported-transform", None),
    // Nine nested realms: the eighth level is granted depth 0, so the ninth is cut (its own mount).
    Case { own_mount: false, child_candidates: false, ..case(Extra::Nested, "depth-limit", None) },
    // More than the 256 granted points land in one child (radius 12, step 1: 453 points).
    Case { child_candidates: true, dx: -8.0, radius: 12, step: 1, ..case(Extra::Dense, "point-budget", None) },
    // Two children share 128 candidates (64 each); the grid child has ~150 distinct cells under the
    // lattice (radius 20, step 2) and its 64 candidates exceed its 64 KiB byte lease.
    Case { child_candidates: true, radius: 20, step: 2, ..case(Extra::Grid, "candidate-budget", None) },
    Case { child_candidates: true, radius: 20, step: 2, ..case(Extra::Grid, "response-budget", None) },
    // Two children share the root's 128 queries (63 each after their own); the fan child has ~75 of
    // its 100 tiny realms under the lattice (radius 20, step 2), so the ones past its lease are cut.
    // (63 sub-queries in one child: a longer timeout, so a busy machine does not turn this into child-timeout.)
    Case {
        own_mount: false,
        child_candidates: true,
        radius: 20,
        step: 2,
        timeout_ms: Some(8000),
        ..case(Extra::Fan, "query-budget", None)
    },
];

fn case_named(reason: &str) -> &'static Case {
    CASES.iter().find(|c| c.reason == reason).expect("a case per reason")
}

/// Samples the shared edge of `extra` and `sibling` and checks everything but the reason itself.
async fn sample_pair(h: &Host, c: &Case) -> anyhow::Result<(Reported<Snapshot>, Vec<Omission>)> {
    let sibling_frame = h.landmark_rect("sibling-frame").await?;
    let sibling_leaf = h.landmark_rect("sibling-leaf").await?;
    let failing = h.landmark_rect(&format!("{}-frame", c.extra)).await?;
    let (x, y) = (sibling_frame.x + c.dx, sibling_frame.y + sibling_frame.height / 2.0);
    let mut opts = json!({"point": {"x": x, "y": y}, "radius_css_px": c.radius, "step_css_px": c.step});
    if let Some(t) = c.timeout_ms {
        opts["timeout_ms"] = json!(t);
    }
    let snap = h.snapshot_with(opts).await?;
    require_valid_payload(snap.json())?;
    let omissions = snap.omissions.clone();
    anyhow::ensure!(!snap.capture.complete, "a snapshot with an omission must not claim to be complete");
    for o in &omissions {
        if let Some(d) = o.detail.as_deref() {
            let code = d.strip_prefix("transport:").and_then(|r| r.split_once(":stage:")).map(|(c, _)| c).unwrap_or("");
            anyhow::ensure!(
                is_transport_detail(d) && RELAY_CODES.contains(&code),
                "omission detail {d:?} is not the safe grammar with an allowlisted relay code"
            );
        }
    }
    anyhow::ensure!(
        candidate_at(&snap, &sibling_leaf).is_some(),
        "the healthy sibling was lost from the same snapshot; candidates: {}",
        describe(&snap)
    );
    let own = format!("mount-{}", c.extra);
    if !c.child_candidates {
        let inside: Vec<&Candidate> =
            candidates(&snap).iter().filter(|cand| cand.path.iter().any(|s| s.mount_id == own)).collect();
        anyhow::ensure!(inside.is_empty(), "candidates invented inside the failing child {own}: {inside:?}");
    }
    anyhow::ensure!(failing.width > 0.0, "the failing child's frame has no box");
    Ok((snap, omissions))
}

fn check_reason(c: &Case, omissions: &[Omission]) -> anyhow::Result<()> {
    let own = format!("mount-{}", c.extra);
    let found = omissions.iter().find(|o| {
        o.reason.as_str() == c.reason
            && (if c.own_mount { o.mount_id.as_deref() == Some(own.as_str()) } else { o.mount_id.is_some() })
            && o.point_id.is_some()
            && match c.detail {
                Some(d) => o.detail.as_deref() == Some(d),
                None => o.detail.is_none(),
            }
    });
    anyhow::ensure!(
        found.is_some(),
        "no {} omission (mount {}, detail {:?}, with a point_id); omissions: {omissions:?}",
        c.reason,
        if c.own_mount { own.as_str() } else { "any" },
        c.detail
    );
    Ok(())
}

#[rstest]
fn every_omission_reason_comes_from_a_real_child_and_the_sibling_stays(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(
        "capability-unavailable",
        "child-timeout",
        "child-disconnected",
        "navigation",
        "stale-mount",
        "unsupported-boundary",
        "unsupported-transform",
        "depth-limit",
        "point-budget",
        "candidate-budget",
        "response-budget",
        "query-budget"
    )]
    reason: &str,
) {
    let c = case_named(reason);
    run_host_opts(HostOptions::new(layout, Engine::Iframe).extras([c.extra, Extra::Sibling]), async |h| {
        let started = std::time::Instant::now();
        let (snap, omissions) = sample_pair(h, c).await?;
        let wall = started.elapsed();
        check_reason(c, &omissions)?;
        if c.reason == "query-budget" {
            // The lease arithmetic, end to end: the root's 128 queries less its own 2, split between
            // the two children, give the fan 63 queries, one per tiny realm (2x4 px cells at the app's
            // x 80..100, y 12..52) that a lattice point falls in; every other reached cell is cut.
            let fan = h.landmark_rect("fan-frame").await?;
            let mut cells = std::collections::BTreeSet::new();
            for p in &snap.capture.points {
                let (px, py) = (p.x - fan.x, p.y - fan.y);
                if (80.0..100.0).contains(&px) && (12.0..52.0).contains(&py) {
                    cells.insert((((px - 80.0) / 2.0).floor() as i64, ((py - 12.0) / 4.0).floor() as i64));
                }
            }
            let cut = omissions.iter().filter(|o| o.reason == OmissionReason::QueryBudget).count();
            anyhow::ensure!(
                cells.len() > 63,
                "the lattice reaches only {} tiny realms, not more than the lease",
                cells.len()
            );
            anyhow::ensure!(
                cut == cells.len() - 63,
                "{} tiny realms under the lattice and a 63-query lease must cut {}, got {cut} query-budget omissions",
                cells.len(),
                cells.len() - 63
            );
            eprintln!("fan: {} realms under the lattice, 63 queried, {cut} cut with query-budget", cells.len());
        }
        if c.reason == "child-timeout" {
            // Deadline semantics, not speed (the <= 1,550 ms target is measured by
            // `bench hung-child`): the snapshot waited for the hung child until the default
            // 1,500 ms query deadline less the runtime's 30 ms assembly margin (timers never fire
            // early), and it did not wait a second deadline on top of the first.
            let ms = snap.capture.duration_ms;
            eprintln!("hung child: capture.duration_ms {ms:.1}, wall (incl. ground truth reads) {wall:?}");
            anyhow::ensure!(
                ms >= 1470.0,
                "the hung child was given up on after {ms} ms, before the 1,500 ms query deadline"
            );
            anyhow::ensure!(
                ms < 3000.0,
                "a hung child held the snapshot for {ms} ms: more than one 1,500 ms query deadline"
            );
        }
        Ok(())
    });
}

#[rstest]
fn child_without_runtime_is_an_explicit_capability_omission_and_siblings_stay(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(HostOptions::new(layout, engine).extra(Extra::NoRuntime), async |h| {
        // The Host marks the mount it serves without the runtime, so ready() does not wait out 50
        // discovery attempts (5 s) for it, while discovery itself goes on at the spec's pace.
        let waited = h.timings.ready_ms - h.timings.mounted_ms;
        anyhow::ensure!(waited < 3000.0, "ready() waited {waited:.0} ms for a child the Host declared without runtime");
        let child = no_runtime_binding(h).await?;
        anyhow::ensure!(
            child["state"] == "discovering" && child["attempts"].as_u64().is_some_and(|a| a < 50),
            "discovery must go on at 100 ms x 50 attempts after ready(): {child}"
        );
        let leaf = h.landmark_rect("plain-leaf").await?;
        let (x, y) = leaf.center();
        // No runtime there observes the pointer, so the Host cannot know it moved inside: ask for
        // the neighbourhood of an explicit point instead.
        h.move_to(x, y).await?;
        let snap = h.snapshot_with(serde_json::json!({"point": {"x": x, "y": y}})).await?;
        require_valid_payload(snap.json())?;
        anyhow::ensure!(snap.capture.sampled_points == 49, "the explicit point was not sampled");
        let omissions = &snap.omissions;
        anyhow::ensure!(
            omissions.iter().any(|o| o.reason == OmissionReason::CapabilityUnavailable
                && o.mount_id.as_deref() == Some("mount-no-runtime")),
            "no capability-unavailable omission naming the child's mount: {omissions:?}"
        );
        anyhow::ensure!(!snap.capture.complete, "a snapshot with an omitted child must not claim to be complete");
        anyhow::ensure!(
            candidate_at(&snap, &leaf).is_none(),
            "the runtime invented a candidate inside a realm it cannot query"
        );
        anyhow::ensure!(
            !snap.json().to_string().contains("Plain leaf"),
            "text from the runtime-less child leaked into the snapshot"
        );
        Ok(())
    });
}

/// The Host realm's binding to the `no-runtime` mount, from the runtime's debug hook (never tokens).
async fn no_runtime_binding(h: &Host) -> anyhow::Result<Value> {
    let dbg = h.eval("window.__wippyAttentionRuntime.debug()").await?;
    dbg["children"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["mount_id"] == "mount-no-runtime").cloned())
        .ok_or_else(|| anyhow::anyhow!("no binding for mount-no-runtime in {dbg}"))
}

#[test]
fn discovery_of_a_child_without_runtime_gives_up_after_50_attempts_at_100_ms() {
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe).extra(Extra::NoRuntime), async |h| {
        let first = no_runtime_binding(h).await?;
        let a0 = first["attempts"].as_u64().unwrap_or(0);
        let t0 = std::time::Instant::now();
        let last = attention_harness::checks::wait_for(
            h,
            "discovery of mount-no-runtime giving up",
            std::time::Duration::from_secs(8),
            || async {
                let b = no_runtime_binding(h).await?;
                Ok(if b["state"] == "unavailable" {
                    attention_harness::checks::Poll::Ready(b)
                } else {
                    attention_harness::checks::Poll::Pending(b.to_string())
                })
            },
        )
        .await?;
        let elapsed = t0.elapsed().as_secs_f64() * 1000.0;
        anyhow::ensure!(last["attempts"] == 50, "discovery gave up after {} attempts, not 50", last["attempts"]);
        // The remaining attempts at 100 ms each (timers may run late, never early).
        let expected = (50 - a0) as f64 * 100.0;
        anyhow::ensure!(
            elapsed >= expected - 150.0,
            "{} attempts took {elapsed:.0} ms; at 100 ms each they take at least {expected:.0} ms",
            50 - a0
        );
        eprintln!("discovery: attempts {a0} -> 50 in {elapsed:.0} ms");
        Ok(())
    });
}
