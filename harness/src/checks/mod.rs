//! The end-to-end checks of the reference Host, shared by `cargo test` (one test per check and
//! layout x engine) and `attention-harness verify` (the operational table). Each check drives the
//! page with trusted input and compares what the runtime reports with Chromium's ground truth: the
//! box model, the leaf's own event log, the Session's own rules.

pub mod actions;
pub mod agent_view;
pub mod agreement;
pub mod capture;
pub mod conformance;
pub mod css_agreement;
pub mod css_grammar;
pub mod envelope_v4;
pub mod expand;
pub mod expect;
pub mod fidelity;
pub mod focus;
pub mod geometry;
pub mod history;
pub mod inspection;
pub mod outputs;
pub mod privacy;
pub mod read_pages;
pub mod reads;
pub mod realms;
pub mod sampling;
pub mod selection;
pub mod sensitive;
pub mod session;
pub mod trusted;

use std::time::Duration;

use anyhow::{anyhow, bail, ensure, Context};
use futures::future::BoxFuture;
use serde_json::Value;

use crate::attention::{Candidate, Omission, Rect, Reported, Segment, Snapshot};
use crate::host::{Corpus, Host, HostOptions, Mount};
use crate::oracle::BoxRect;

pub use expect::{expected_kinds, leaf_frame, Leaf};

/// Geometry tolerance against Chromium's box model, CSS px (issue: "within 0.5 CSS px").
pub const RECT_TOLERANCE: f64 = 0.5;
/// How long the runtime may take to learn about a pointer move (child realms report it up).
pub const POINTER_TIMEOUT: Duration = Duration::from_secs(5);

/// A named check; `run` returns a one-line detail on success.
pub struct Check {
    pub name: &'static str,
    /// The Host the check needs, from the default Host of a layout and engine.
    pub host: fn(HostOptions) -> HostOptions,
    pub run: for<'a> fn(&'a Host) -> BoxFuture<'a, anyhow::Result<String>>,
}

pub(crate) fn default_host(options: HostOptions) -> HostOptions {
    options
}

/// The mount of a corpus that is cross-origin in engine iframe, a Web Fragment in engine fragment.
fn corpus_mount(options: &HostOptions) -> Mount {
    match options.engine() {
        crate::host::Engine::Iframe => Mount::CrossOrigin,
        crate::host::Engine::Fragment => Mount::Fragment,
    }
}

/// The Shoelace corpus, cross-origin in engine iframe, a Web Fragment in engine fragment.
fn shoelace_corpus(options: HostOptions) -> HostOptions {
    let mount = corpus_mount(&options);
    options.corpus(Corpus::Shoelace, mount)
}

/// The Material Web corpus (roles and ARIA state from ElementInternals), mounted like Shoelace's.
fn material_corpus(options: HostOptions) -> HostOptions {
    let mount = corpus_mount(&options);
    options.corpus(Corpus::Material, mount)
}

/// The sensitive-controls corpus, cross-origin in engine iframe, a Web Fragment in engine fragment.
fn sensitive_corpus(options: HostOptions) -> HostOptions {
    let mount = corpus_mount(&options);
    options.corpus(Corpus::Sensitive, mount)
}

/// Every check `verify` runs, in order.
/// The hand-written ElementInternals corpus (closed roots the runtime must enter or declare it
/// cannot, required context, per-role state): a cross-origin iframe in both engines (it parses its
/// declarative shadow roots itself, so it is never a fragment).
fn internals_corpus(options: HostOptions) -> HostOptions {
    options.corpus(Corpus::Internals, Mount::CrossOrigin)
}

pub fn all() -> Vec<Check> {
    vec![
        Check {
            host: default_host,
            name: "runtime-runs-before-page-scripts",
            run: |h| Box::pin(realms::runtime_before_page_scripts(h)),
        },
        // The spec's operational checklist ("Operational verification"), items 1-4 and 7.
        Check {
            host: default_host,
            name: "checklist-1-automatic-context-off-sends-no-attachment",
            run: |h| Box::pin(session::checklist_1(h)),
        },
        Check {
            host: default_host,
            name: "checklist-2-pointer-path-left-leaf",
            run: |h| Box::pin(sampling::pointer_path(h, Leaf::Left)),
        },
        Check {
            host: default_host,
            name: "checklist-2-pointer-path-right-leaf",
            run: |h| Box::pin(sampling::pointer_path(h, Leaf::Right)),
        },
        Check {
            host: default_host,
            name: "checklist-2-pointer-path-oopif-leaf",
            run: |h| Box::pin(sampling::pointer_path(h, Leaf::Oopif)),
        },
        Check {
            host: default_host,
            name: "checklist-2-pointer-path-closed-shadow-leaf",
            run: |h| Box::pin(sampling::pointer_path(h, Leaf::ClosedShadow)),
        },
        Check {
            host: default_host,
            name: "checklist-3-boundary-sample-finds-both-leaves",
            run: |h| Box::pin(sampling::boundary_sample(h)),
        },
        Check {
            host: default_host,
            name: "checklist-4-message-and-attachment-persist",
            run: |h| Box::pin(session::checklist_4(h)),
        },
        Check {
            host: default_host,
            name: "checklist-4-v4-attachment-with-selection",
            run: |h| Box::pin(envelope_v4::checklist_4_v4_with_selection(h)),
        },
        Check {
            host: default_host,
            name: "envelope-v4-expands-to-the-snapshot",
            run: |h| Box::pin(envelope_v4::envelope_v4_expands_to_the_snapshot(h)),
        },
        Check {
            host: default_host,
            name: "checklist-7-capabilities-and-plain-message-received",
            run: |h| Box::pin(session::checklist_7(h)),
        },
        Check {
            host: default_host,
            name: "envelope-accepted-by-session-rules",
            run: |h| Box::pin(sampling::envelope_accepted(h)),
        },
        Check {
            host: default_host,
            name: "privacy-probes-leave-no-canary",
            run: |h| Box::pin(privacy::canaries_absent(h)),
        },
        Check {
            host: sensitive_corpus,
            name: "sensitive-controls-excluded-and-no-canary-leaves",
            run: |h| Box::pin(sensitive::sensitive_controls_leave_no_trace(h)),
        },
        Check {
            host: default_host,
            name: "trusted-input-reaches-leaves",
            run: |h| Box::pin(trusted::input_reaches_leaves(h)),
        },
        Check {
            host: default_host,
            name: "untrusted-events-are-ignored",
            run: |h| Box::pin(trusted::untrusted_ignored(h)),
        },
        Check {
            host: default_host,
            name: "sensitive-focus-clears-a-kept-focus",
            run: |h| Box::pin(focus::sensitive_focus_clears_a_kept_focus(h)),
        },
        Check {
            host: default_host,
            name: "excluded-focus-clears-a-kept-focus",
            run: |h| Box::pin(focus::excluded_focus_clears_a_kept_focus(h)),
        },
        Check {
            host: default_host,
            name: "tab-traversal-focus-matches-chromium",
            run: |h| Box::pin(focus::tab_traversal_matches_chromium(h)),
        },
        Check {
            host: default_host,
            name: "composer-transfer-keeps-focus-while-send-disables-it",
            run: |h| Box::pin(focus::composer_transfer_keeps_focus_while_send_disables_it(h)),
        },
        Check {
            host: default_host,
            name: "script-dispatched-focus-is-ignored",
            run: |h| Box::pin(focus::script_dispatched_focus_is_ignored(h)),
        },
        Check {
            host: default_host,
            name: "remounted-or-detached-focus-is-invalidated",
            run: |h| Box::pin(focus::remounted_or_detached_focus_is_invalidated(h)),
        },
        Check {
            host: default_host,
            name: "boundary-snapshot-matches-golden",
            run: |h| Box::pin(sampling::boundary_golden(h)),
        },
        Check {
            host: shoelace_corpus,
            name: "shoelace-corpus-agrees-with-chromium",
            run: |h| Box::pin(fidelity::corpus_agrees_with_chromium(h)),
        },
        Check {
            host: material_corpus,
            name: "material-corpus-agrees-with-chromium",
            run: |h| Box::pin(fidelity::corpus_agrees_with_chromium(h)),
        },
        Check {
            host: internals_corpus,
            name: "internals-corpus-agrees-with-chromium",
            run: |h| Box::pin(fidelity::corpus_agrees_with_chromium(h)),
        },
        Check {
            host: default_host,
            name: "checklist-1-interactive-capabilities-off-open-no-overlay",
            run: |h| Box::pin(actions::no_overlay_when_actions_off(h)),
        },
    ]
    .into_iter()
    .chain(actions::checks())
    .chain(capture::checks())
    .chain(inspection::checks())
    .chain(reads::checks())
    .chain(read_pages::checks())
    .chain(agent_view::checks())
    .collect()
}

/// Looks a check up by name.
pub fn named(name: &str) -> Option<Check> {
    all().into_iter().find(|c| c.name == name)
}

/// What one look at a condition found: done with a value, or not yet (and what it saw instead).
pub enum Poll<T> {
    Ready(T),
    Pending(String),
}

/// Looks at a condition until it is ready, one animation frame of the Host apart (each look is a
/// fresh round trip through the page, not a fixed sleep), for at most `timeout`. Fails naming
/// `what` did not happen and what the last look saw.
pub async fn wait_for<T, F, Fut>(host: &Host, what: &str, timeout: Duration, mut look: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Poll<T>>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let seen = match look().await? {
            Poll::Ready(v) => return Ok(v),
            Poll::Pending(seen) => seen,
        };
        if tokio::time::Instant::now() >= deadline {
            bail!("{what} did not happen within {}; last seen: {seen}", crate::report::text::duration(timeout));
        }
        host.eval("new Promise(r => requestAnimationFrame(() => r(true)))").await?;
    }
}

/// Moves the pointer to (x, y) with trusted input and returns the first snapshot whose latest
/// pointer is there (a child realm reports its moves up asynchronously).
pub async fn snapshot_at(host: &Host, x: f64, y: f64) -> anyhow::Result<Reported<Snapshot>> {
    host.move_to_in_steps(x, y, 4).await?;
    let what = format!("the runtime's latest pointer reaching ({x}, {y})");
    let snap = wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let snap = host.snapshot().await?;
        let at = snap.pointer.as_ref().map(|p| (p.point.x, p.point.y));
        Ok(match at {
            Some((px, py)) if (px - x).abs() <= 1.0 && (py - y).abs() <= 1.0 => Poll::Ready(snap),
            _ => Poll::Pending(format!(
                "pointer {}",
                snap.pointer.as_ref().map(|p| serde_json::json!(p.point).to_string()).unwrap_or_else(|| "none".into())
            )),
        })
    })
    .await?;
    require_valid_payload(snap.json())?;
    // Every snapshot taken here is also checked as the v4 attachment the composer sends (issue 21),
    // budgeted for v4 as the composer budgets it (the 16,384-byte v2-v4 limit is below v1's 30 KiB
    // target, so a v1-budgeted snapshot need not fit one): it expands to the snapshot, and the
    // Session's validator admits it (rendered, not inert).
    let v4_snap = host.snapshot_with(serde_json::json!({"attachment_version": 4})).await?;
    let of = envelope_v4::require_v4_expands_to(host, &v4_snap).await.context("the snapshot as a v4 attachment")?;
    envelope_v4::require_admitted(of.v4.json()).context("the Session admitting the snapshot's v4 attachment")?;
    let pointer = snap.pointer.as_ref().map(|p| p.point);
    let (px, py) = pointer.map(|p| (p.x, p.y)).unwrap_or((f64::NAN, f64::NAN));
    let (cx, cy) = sample_centre(&snap);
    ensure!(
        (cx - px).abs() < 0.01 && (cy - py).abs() < 0.01,
        "the runtime sampled around ({cx}, {cy}), not around its latest pointer ({px}, {py})"
    );
    Ok(snap)
}

/// Every snapshot a check looks at must be what the Session admits (the v1 schema, strict) and
/// meet the spec's stricter rules for durable payloads. It takes the JSON exactly as the runtime
/// (or an envelope's content) has it ([`Reported::json`]), never a re-serialization of the model.
pub fn require_valid_payload(snap: &Value) -> anyhow::Result<()> {
    let payload = crate::contract::canonical::strip_null_members(snap);
    // A snapshot is the expanded form: v1 plus the optional `selection` that a v4 attachment carries
    // (the spec observes selection; the Session's v1 validator admits it only after v4 expansion,
    // and the runtime's v1 envelope leaves it out with `selection-unavailable`).
    crate::contract::attention_v1::validate_attention(&payload, payload.get("selection").is_some())
        .map_err(|stage| anyhow!("the snapshot fails the Session's v1 schema at stage {}", stage.as_str()))?;
    let findings = crate::contract::spec_rules::spec_findings(&payload);
    ensure!(
        findings.is_empty(),
        "the snapshot breaks rules the spec states beyond the Session's validator:\n{}",
        findings.iter().map(|f| format!("{} ({}): {}", f.pointer, f.rule, f.message)).collect::<Vec<_>>().join("\n")
    );
    Ok(())
}

/// The candidates of a snapshot.
pub fn candidates(snap: &Snapshot) -> &[Candidate] {
    &snap.candidates
}

/// The candidate whose rect matches `truth` within [`RECT_TOLERANCE`].
pub fn candidate_at<'a>(snap: &'a Snapshot, truth: &BoxRect) -> Option<&'a Candidate> {
    candidates(snap).iter().find(|c| box_of(&c.rect).max_edge_delta(truth) <= RECT_TOLERANCE)
}

/// A rect of the model as the oracle's box.
pub fn box_of(r: &Rect) -> BoxRect {
    BoxRect { x: r.x, y: r.y, width: r.width, height: r.height }
}

/// A `{x, y, width, height}` of JSON that is not a snapshot's (an action's target, a leaf's log), or a node
/// layout's `[x, y, width, height]`.
pub fn rect_of(v: &Value) -> Option<BoxRect> {
    if let Some([x, y, width, height]) = v.as_array().map(Vec::as_slice) {
        // A node layout's `[x, y, width, height]`.
        return Some(BoxRect { x: x.as_f64()?, y: y.as_f64()?, width: width.as_f64()?, height: height.as_f64()? });
    }
    Some(BoxRect {
        x: v["x"].as_f64()?,
        y: v["y"].as_f64()?,
        width: v["width"].as_f64()?,
        height: v["height"].as_f64()?,
    })
}

/// The wire names of a path's segment kinds, Host first.
pub fn path_kinds(path: &[Segment]) -> Vec<String> {
    path.iter().map(|s| s.kind.as_str().to_string()).collect()
}

/// A path as a message shows it: `host-document m0 > shadow-root m3 > element <button> m3`.
pub fn path_words(path: &[Segment]) -> String {
    let seg = |s: &Segment| match &s.tag_name {
        Some(t) => format!("{} <{t}> {}", s.kind.as_str(), s.mount_id),
        None => format!("{} {}", s.kind.as_str(), s.mount_id),
    };
    path.iter().map(seg).collect::<Vec<_>>().join(" > ")
}

/// A snapshot's omissions by reason, joined: `selection-redacted, excluded`, or `none`.
pub fn omission_words(omissions: &[Omission]) -> String {
    crate::report::text::list_of(omissions.iter().map(|o| o.reason))
}

pub fn kinds(candidate: &Candidate) -> Vec<String> {
    path_kinds(&candidate.path)
}

/// The centre of the sampled points (the lattice is symmetric about the pointer).
fn sample_centre(snap: &Snapshot) -> (f64, f64) {
    let pts = &snap.capture.points;
    let n = pts.len().max(1) as f64;
    let sx: f64 = pts.iter().map(|p| p.x).sum();
    let sy: f64 = pts.iter().map(|p| p.y).sum();
    (sx / n, sy / n)
}

/// A rect for failure messages, as JSON.
pub fn show_rect(r: &Rect) -> String {
    serde_json::to_string(r).unwrap_or_default()
}

/// A short description of the candidates, for failure messages.
pub fn describe(snap: &Snapshot) -> String {
    candidates(snap)
        .iter()
        .map(|c| {
            format!("{} {} rect={}", c.summary.name.as_deref().unwrap_or("-"), kinds(c).join(" > "), show_rect(&c.rect))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The JSON the runtime sent for `cand`, one of `snap`'s own candidates (by position, not by
/// `target_id`, which v1 does not require to be unique): what digests and agent targets are made
/// from, as the runtime's bytes and never a re-serialization.
pub fn candidate_json<'a>(snap: &'a Reported<Snapshot>, cand: &Candidate) -> anyhow::Result<&'a Value> {
    let i = snap
        .candidates
        .iter()
        .position(|c| std::ptr::eq(c, cand))
        .with_context(|| format!("candidate {} is not one of this snapshot's", cand.target_id))?;
    Ok(&snap.json()["candidates"][i])
}

/// Finds the candidate for `leaf`, or fails naming what the snapshot had instead.
pub fn require_candidate<'a>(snap: &'a Snapshot, truth: &BoxRect, what: &str) -> anyhow::Result<&'a Candidate> {
    candidate_at(snap, truth)
        .ok_or_else(|| anyhow!("no candidate for {what} at Chromium's box {truth}; candidates: {}", describe(snap)))
}

/// One entry of a leaf realm's own event log (`pages/apps/leaf-log.js`): what the page received,
/// independent of the runtime.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafEvent {
    /// The DOM event type (`pointerdown`, `keydown`, `focusin`, ...).
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(rename = "isTrusted")]
    pub is_trusted: bool,
    /// The target's `data-landmark`, else its local name.
    pub target: Option<String>,
    pub x: Option<f64>,
    pub y: Option<f64>,
    /// The event's `timeStamp`.
    pub t: f64,
    #[serde(rename = "pointerType", default)]
    pub pointer_type: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
}

/// As a message lists it: `pointerdown on left-leaf (touch, untrusted)`.
impl std::fmt::Display for LeafEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}", self.event_type, self.target.as_deref().unwrap_or("?"))?;
        let mut notes: Vec<&str> = self.pointer_type.iter().map(String::as_str).collect();
        notes.extend(self.code.as_deref());
        notes.push(if self.is_trusted { "trusted" } else { "untrusted" });
        write!(f, " ({})", notes.join(", "))
    }
}

impl LeafEvent {
    /// Whether this is a `ty` event (the DOM type name).
    pub fn is(&self, ty: &str) -> bool {
        self.event_type == ty
    }
}

/// Reads a realm's `__leafLog` (ground truth of what it received).
pub async fn leaf_log(host: &Host, leaf: Leaf) -> anyhow::Result<Vec<LeafEvent>> {
    let frame = leaf_frame(host.engine, leaf);
    let log = host
        .eval_in_frame(&frame, "JSON.parse(JSON.stringify(window.__leafLog || []))")
        .await
        .with_context(|| format!("reading the {} realm's own event log", leaf.landmark()))?;
    let log = if log.is_null() { Value::Array(Vec::new()) } else { log };
    serde_json::from_value(log)
        .with_context(|| format!("the {} realm's event log is not a list of entries", leaf.landmark()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_fixture_is_a_valid_payload_and_a_broken_one_is_not() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/contract/spec-v1-payload.json"))
                .unwrap();
        let good: Value = serde_json::from_str(&text).unwrap();
        require_valid_payload(&good).unwrap();
        let mut bad = good.clone();
        bad["candidates"][0]["path"][0]["frame_origin"] = Value::from("http://localhost:1/path?q");
        assert!(require_valid_payload(&bad).is_err(), "a frame_origin with a path must be refused");
        let mut extra = good;
        extra["unexpected"] = Value::from(1);
        assert!(require_valid_payload(&extra).is_err(), "v1 objects are strict");
    }
}
