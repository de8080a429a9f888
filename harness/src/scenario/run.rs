//! Replays a loaded scenario on a fresh Host per engine with trusted CDP input
//! (harness/src/input.rs), one [`StepOutcome`] per step with its duration, stopping at the first step
//! that fails (an expectation that did not hold within its timeout names the step and what it saw; a
//! step the browser never answers fails after [`step_limit`]). A named snapshot is compared with its
//! golden as its step ends, so the step's line already says whether it matched, differed or has none.

use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};

use crate::attention::{Reported, Snapshot};
use crate::checks::{self, wait_for, Poll};
use crate::harness::Harness;
use crate::host::{CssProblem, Engine, Host, HostError, HostOptions};
use crate::input::{Key, SHIFT};

use super::golden::{diff, golden_file, golden_text};
use super::{geometry_named, read, At, CandidateSpec, Loaded, Step};
use crate::report::html::Status;
use crate::report::text;

/// What one step did.
#[derive(Debug, Clone)]
pub struct StepOutcome {
    /// The step's position in the file (`steps[i]`).
    pub index: usize,
    /// Its `do` name.
    pub step: &'static str,
    /// The step itself did what it says (a golden that differs does not change this).
    pub pass: bool,
    pub detail: String,
    /// How long the step took.
    pub duration: Duration,
    /// A named snapshot's comparison with its golden (replay only; `record` writes them).
    pub golden: Option<GoldenCheck>,
    /// The snapshot the step took or checked, when it has one.
    pub snapshot: Option<Value>,
    /// The viewport screenshot with the snapshot drawn on it (when pictures are asked for, and for
    /// every failed step).
    pub picture: Option<Vec<u8>>,
    /// The part of the picture around the pointer (or the step's input point), zoomed.
    pub crop: Option<Vec<u8>>,
    /// The folder of a failed step's artifacts ([`write_artifacts`]).
    pub artifacts: Option<std::path::PathBuf>,
}

/// How a named snapshot compared with the golden beside its scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum GoldenCheck {
    Matches {
        name: String,
        file: std::path::PathBuf,
    },
    /// The golden's text and this run's differ: the unified diff, headed by the golden's file.
    Differs {
        name: String,
        file: std::path::PathBuf,
        diff: String,
    },
    /// No golden file: nothing was compared.
    Missing {
        name: String,
        file: std::path::PathBuf,
    },
}

impl StepOutcome {
    /// The step's status in the report and the exit code: a failed step fails; a step that worked
    /// fails when its golden differs and is `missing golden` when it has none.
    pub fn status(&self) -> Status {
        match (&self.golden, self.pass) {
            (_, false) => Status::Fail,
            (Some(GoldenCheck::Differs { .. }), true) => Status::Fail,
            (Some(GoldenCheck::Missing { .. }), true) => Status::MissingGolden,
            _ => Status::Pass,
        }
    }

    /// The step's detail with its golden's verdict: the diff of one that differs, the command that
    /// records one that is missing.
    pub fn full_detail(&self, scenario: &std::path::Path) -> String {
        match &self.golden {
            Some(GoldenCheck::Differs { name, file, diff }) => {
                format!("\u{201c}{name}\u{201d} differs from its golden {}:\n{diff}", file.display())
            }
            Some(GoldenCheck::Missing { name, file }) => format!(
                "\u{201c}{name}\u{201d} has no golden ({} does not exist): record it with \
                 `attention-harness record --scenario {}`",
                file.display(),
                scenario.display()
            ),
            Some(GoldenCheck::Matches { file, .. }) => {
                format!("{}; matches its golden {}", self.detail, file.display())
            }
            None => self.detail.clone(),
        }
    }
}

/// What a replay does besides running the steps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayOptions {
    /// A picture of every step (`--html`); a failed step always gets one.
    pub pictures: bool,
    /// Compare each named snapshot with its golden (`replay`; `record` writes them instead).
    pub compare_goldens: bool,
}

/// The longest a step may take before it fails as not answered: its own `timeout_ms` (a wait or an
/// expectation) plus a minute, two minutes for `open` (a browser start under load), a minute for the
/// rest. A step that hits it names the limit: the browser hung or died.
pub fn step_limit(step: &Step) -> Duration {
    match step {
        Step::Open { .. } => Duration::from_secs(120),
        Step::WaitFor { timeout_ms, .. } | Step::Expect { timeout_ms, .. } => {
            Duration::from_millis(*timeout_ms) + Duration::from_secs(60)
        }
        _ => Duration::from_secs(60),
    }
}

/// One engine's replay.
#[derive(Debug, Clone)]
pub struct EngineRun {
    pub engine: Engine,
    pub steps: Vec<StepOutcome>,
    /// The named snapshots, in order: what `record --scenario` writes as goldens.
    pub named: Vec<Named>,
}

/// A snapshot a `snapshot` step named: its step's position, the name, the snapshot as reported.
#[derive(Debug, Clone)]
pub struct Named {
    pub index: usize,
    pub name: String,
    pub snapshot: Value,
}

impl EngineRun {
    pub fn passed(&self) -> bool {
        self.steps.iter().all(|s| s.pass)
    }

    /// A step failed, a golden differs or is missing.
    pub fn failed(&self) -> bool {
        self.steps.iter().any(|s| s.status().failed())
    }

    /// The failed step, named as `steps[i] (do)`.
    pub fn failure(&self) -> Option<String> {
        self.steps.iter().find(|s| !s.pass).map(|s| format!("steps[{}] ({}): {}", s.index, s.step, s.detail))
    }
}

/// A `wait-for` step's landmark: its rect once it exists, looked at until `timeout`. A `css:`
/// landmark whose selector Chromium refuses (or whose panel prefix names no panel and is no
/// selector either) never comes to exist: it fails at once, with the message `--point` gives.
/// -> the step's detail (the landmark and its rect).
pub async fn wait_for_landmark(host: &Host, landmark: &str, timeout: Duration) -> anyhow::Result<String> {
    let what = format!("landmark {} appearing", text::quote(landmark));
    wait_for(host, &what, timeout, || async {
        match host.landmark_rect(landmark).await {
            Ok(r) => Ok(Poll::Ready(r)),
            Err(
                e @ HostError::CssLandmark {
                    problem: CssProblem::InvalidSelector { .. } | CssProblem::NoPanel { .. },
                    ..
                },
            ) => Err(e.into()),
            Err(e) => Ok(Poll::Pending(e.to_string())),
        }
    })
    .await
    .map(|r| format!("landmark {} at {}", text::quote(landmark), text::rect(&r)))
}

/// The centre of a landmark's visible part (input outside the viewport reaches nothing).
pub async fn visible_centre(host: &Host, name: &str) -> anyhow::Result<(f64, f64)> {
    let r = host.landmark_rect(name).await?;
    let (w, h) = host.options().viewport_size();
    let (x0, y0) = (r.x.max(0.0), r.y.max(0.0));
    let (x1, y1) = ((r.x + r.width).min(f64::from(w)), (r.y + r.height).min(f64::from(h)));
    if x1 <= x0 || y1 <= y0 {
        bail!("landmark {} is outside the {w}x{h} CSS px viewport (at {})", text::quote(name), text::rect(&r));
    }
    Ok(((x0 + x1) / 2.0, (y0 + y1) / 2.0))
}

async fn point(host: &Host, at: &At) -> anyhow::Result<(f64, f64)> {
    match at {
        At::Xy([x, y]) => Ok((*x, *y)),
        At::Named(n) if n == "boundary" => checks::sampling::boundary_point(host).await.map(|(x, y, _, _)| (x, y)),
        At::Named(n) => visible_centre(host, n).await,
        At::Spot(s) => {
            let r = host.landmark_rect(&s.landmark).await?;
            Ok((r.x + s.fx * r.width, r.y + s.fy * r.height))
        }
        At::Overlay(b) => {
            checks::actions::overlay_point(host, &format!("[data-wippy-attention-answer={}]", b.overlay)).await
        }
    }
}

fn like(c: &crate::attention::Candidate, spec: &CandidateSpec) -> bool {
    spec.role.as_ref().is_none_or(|r| c.summary.role.as_ref() == Some(r))
        && spec.name.as_ref().is_none_or(|n| c.summary.name.as_ref() == Some(n))
}

/// The candidate under the pointer: the pointer's first candidate id.
fn top(s: &Snapshot) -> Option<&crate::attention::Candidate> {
    let id = s.pointer.as_ref()?.candidate_ids.first()?;
    s.candidates.iter().find(|c| &c.target_id == id)
}

fn describe(c: Option<&crate::attention::Candidate>) -> String {
    match c {
        Some(c) => text::role_name(c.summary.role.as_deref(), c.summary.name.as_deref()),
        None => "no candidate".into(),
    }
}

/// An expectation's candidate as words: `button “Send”`, `any role named “Send”`.
fn spec_text(spec: &CandidateSpec) -> String {
    text::wanted(spec.role.as_deref(), spec.name.as_deref())
}

fn kind_name(k: &crate::attention::SegmentKind) -> String {
    serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks an `expect` step's members against one snapshot: `Ok(())` or what it saw instead.
fn holds(step: &Step, s: &Snapshot) -> Result<(), String> {
    let Step::Expect { top: want_top, candidate, path, omission, no_omission, selection, status: _, .. } = step else {
        return Ok(());
    };
    if let Some(spec) = want_top {
        if !top(s).is_some_and(|c| like(c, spec)) {
            return Err(format!(
                "expected the candidate under the pointer to be {}, found {}",
                spec_text(spec),
                describe(top(s))
            ));
        }
    }
    if let Some(spec) = candidate {
        if !s.candidates.iter().any(|c| like(c, spec)) {
            let all: Vec<String> = s.candidates.iter().map(|c| describe(Some(c))).collect();
            return Err(format!("expected a candidate {}, found {}", spec_text(spec), text::list(&all)));
        }
    }
    if let Some(kinds) = path {
        let got: Vec<String> = top(s).map(|c| c.path.iter().map(|p| kind_name(&p.kind)).collect()).unwrap_or_default();
        if &got != kinds {
            return Err(format!(
                "expected the path under the pointer {}, found {}",
                kinds.join(" > "),
                if got.is_empty() { "no candidate under the pointer".into() } else { got.join(" > ") }
            ));
        }
    }
    let reasons: Vec<String> = s
        .omissions
        .iter()
        .map(|o| serde_json::to_value(o.reason).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default())
        .collect();
    if let Some(r) = omission {
        if !reasons.contains(r) {
            return Err(format!("expected an omission {r}, found omissions: {}", text::list(&reasons)));
        }
    }
    if let Some(r) = no_omission {
        if reasons.contains(r) {
            return Err(format!("expected no omission {r}, found omissions: {}", text::list(&reasons)));
        }
    }
    if let Some(want) = selection {
        let got = s.selection.as_ref().map(|x| collapse(&x.text));
        if got.as_deref() != Some(collapse(want).as_str()) {
            return Err(format!(
                "expected the selection {}, found {} (omissions: {})",
                text::quote(&collapse(want)),
                got.as_deref().map(text::quote).unwrap_or_else(|| "no selection".into()),
                text::list(&reasons)
            ));
        }
    }
    Ok(())
}

struct Ctx {
    last: Option<Reported<Snapshot>>,
    agent: Option<crate::agent::Agent>,
    pending: Option<crate::agent::PendingAction>,
    read: Option<crate::agent::ReadResult>,
    /// Where the last pointer input went (the zoomed crop of a step without a snapshot pointer).
    at: Option<(f64, f64)>,
    /// A later `expect {read}` names how the current `read` step should end.
    read_end_expected: bool,
}

impl Ctx {
    fn new() -> Ctx {
        Ctx { last: None, agent: None, pending: None, read: None, at: None, read_end_expected: false }
    }

    /// The agent bound to the Host tab, the first time by a message the composer sends with no
    /// input: pointer, focus and selection stay where the scenario left them.
    async fn agent(&mut self, host: &Host) -> anyhow::Result<&crate::agent::Agent> {
        if self.agent.is_none() {
            self.agent = Some(checks::actions::bound_agent_untouched(host).await?);
        }
        self.agent.as_ref().context("the agent")
    }
}

async fn run_step(host: &Host, step: &Step, ctx: &mut Ctx) -> anyhow::Result<String> {
    match step {
        Step::Open { .. } => Ok(format!("opened {}", host.url)),
        Step::Move { at } => {
            let (x, y) = point(host, at).await?;
            ctx.at = Some((x, y));
            let snap = checks::snapshot_at(host, x, y).await?;
            let d = format!("pointer at ({x:.1}, {y:.1}): {}", describe(top(&snap)));
            ctx.last = Some(snap);
            Ok(d)
        }
        Step::Click { at } => {
            let (x, y) = point(host, at).await?;
            ctx.at = Some((x, y));
            host.click_at(x, y).await?;
            Ok(format!("clicked ({x:.1}, {y:.1})"))
        }
        Step::Tap { at } => {
            let (x, y) = point(host, at).await?;
            ctx.at = Some((x, y));
            host.tap(x, y).await?;
            Ok(format!("tapped ({x:.1}, {y:.1})"))
        }
        Step::Drag { from, to, steps } => {
            let (a, b) = (point(host, from).await?, point(host, to).await?);
            ctx.at = Some(b);
            host.drag(a, b, *steps).await?;
            Ok(format!("dragged ({:.1}, {:.1}) to ({:.1}, {:.1})", a.0, a.1, b.0, b.1))
        }
        Step::Key { key, shift } => {
            let k = Key::named(key).ok_or_else(|| anyhow!(super::no_key(key)))?;
            host.press_key_with(k, if *shift { SHIFT } else { 0 }).await?;
            Ok(format!("pressed {}{}", if *shift { "Shift+" } else { "" }, k.key))
        }
        Step::Type { text } => {
            host.type_text(text).await?;
            Ok(format!("typed {} characters", text.chars().count()))
        }
        Step::WaitFor { landmark, candidate, selector, timeout_ms } => {
            let timeout = Duration::from_millis(*timeout_ms);
            if let Some(l) = landmark {
                return wait_for_landmark(host, l, timeout).await;
            }
            if let Some(spec) = candidate {
                let what = format!("a candidate {}", spec_text(spec));
                let snap = wait_for(host, &what, timeout, || async {
                    let s = host.snapshot().await?;
                    Ok(if s.candidates.iter().any(|c| like(c, spec)) {
                        Poll::Ready(s)
                    } else {
                        Poll::Pending(format!("{} candidates", s.candidates.len()))
                    })
                })
                .await?;
                ctx.last = Some(snap);
                return Ok(format!("a candidate {}", spec_text(spec)));
            }
            let css = selector.as_deref().unwrap_or_default();
            // The inspection API (INSPECTION_API.md: `find({css, scope})` on `$W.attention`): CSS is
            // matched in one document and never crosses it, so the scope is the Host document, the
            // root `getTree` names. An invalid selector is refused at once, not waited on.
            let has = host.eval("!!(window.$W && window.$W.attention)").await?;
            if has != Value::Bool(true) {
                bail!("wait-for selector needs the runtime's inspection API ($W.attention.find), which this runtime does not have");
            }
            let expr = format!(
                "(async () => {{
                    const a = window.$W.attention;
                    const t = await a.getTree(null, {{ depth: 0 }});
                    const d = t && t.data || {{}};
                    const root = d.root || ((d.nodes || []).find((n) => n.kind === 'document') || {{}}).ref;
                    if (!root) return {{ error: 'getTree named no document root', tree: t }};
                    const r = await a.find({{ css: {css}, scope: root }});
                    return {{ outcome: r.outcome, n: (r.data && r.data.nodes || []).length, omissions: r.omissions }};
                }})()",
                css = json!(css)
            );
            let what = format!(
                "an element matching the selector {} appearing in the Host document (inspection API find)",
                text::quote(css)
            );
            let n = wait_for(host, &what, timeout, || async {
                let r = host.eval(&expr).await?;
                if let Some(e) = r.get("error") {
                    bail!("selector {}: {e} ({r})", text::quote(css));
                }
                let refused =
                    r["omissions"].as_array().and_then(|o| o.iter().find(|o| o["reason"] == "invalid-request"));
                if let Some(o) = refused {
                    bail!("the inspection API refused the selector {}: {o}", text::quote(css));
                }
                Ok(match r["n"].as_u64() {
                    Some(n) if n > 0 => Poll::Ready(n),
                    _ => Poll::Pending(format!("find answered {} with {} nodes", r["outcome"], r["n"])),
                })
            })
            .await?;
            Ok(format!("{n} nodes match {}", text::quote(css)))
        }
        Step::Snapshot { name } => {
            // What the steps before did, every realm has told the Host realm (a golden must not
            // depend on how fast a child's messages crossed).
            host.observations_delivered().await?;
            let s = host.snapshot().await?;
            let d = format!("{} candidates, {} omissions", s.candidates.len(), s.omissions.len());
            ctx.last = Some(s);
            Ok(match name {
                Some(n) => format!("{n}: {d}"),
                None => d,
            })
        }
        Step::Send { text } => {
            // The composer opens holding a draft (the Host's canary text): it is emptied first, then
            // clicked and typed into with trusted input, as the Session checks compose a message.
            checks::session::compose(host, text).await?;
            host.press_key(Key::ENTER).await?;
            let probe = format!("(window.__host.composerSubmits || []).includes({})", json!(text));
            wait_for(host, "the composer submitting the text", Duration::from_secs(5), || async {
                Ok(match host.eval(&probe).await? {
                    Value::Bool(true) => Poll::Ready(()),
                    v => Poll::Pending(format!("composerSubmits includes it: {v}")),
                })
            })
            .await?;
            Ok(format!("sent {} characters", text.chars().count()))
        }
        Step::Action { mode, target, from_read, prompt } => {
            let (aref, label) = if *from_read {
                let r = ctx.read.as_ref().context("from_read needs a read step first")?;
                let m =
                    r.inspected().with_context(|| format!("the last read was not inspected: {}", read::summary(r)))?;
                let t = m.target_ref.clone().with_context(|| {
                    format!(
                        "the last read gave no target_ref (it returns one for exactly one node): {}",
                        read::summary(r)
                    )
                })?;
                (t, format!("the read's node {}", text::list(&read::nodes(r))))
            } else {
                let snap = ctx.last.as_ref().context("an action needs a snapshot first (a move or snapshot step)")?;
                let cand = match target {
                    Some(spec) => snap
                        .candidates
                        .iter()
                        .find(|c| like(c, spec))
                        .with_context(|| format!("no candidate {}", spec_text(spec)))?,
                    None => top(snap).context("no candidate under the pointer")?,
                };
                (crate::agent::action_ref(snap.json(), &cand.target_id)?, describe(Some(cand)))
            };
            let agent = ctx.agent(host).await?;
            let o = crate::agent::ActionOptions { prompt: prompt.clone(), ..Default::default() };
            let pending = match mode.as_str() {
                "highlight" => agent.highlight(&[aref], &o)?,
                "confirm" => agent.confirm(&[aref], &o)?,
                _ => agent.select(&[aref], &o)?,
            };
            ctx.pending = Some(pending);
            checks::actions::await_overlay(host, true).await?;
            Ok(format!("{mode} on {label}: the overlay is open"))
        }
        Step::Read { tool, args } => {
            let t = crate::agent::ReadTool::from_name(tool)
                .with_context(|| format!("no read tool {}", text::quote(tool)))?;
            let r = ctx.agent(host).await?.batch().read_raw(t, args.clone()).await;
            let d = read::detail(&r);
            let well = read::ended_well(&r);
            ctx.read = Some(r);
            match well {
                Err(how) if !ctx.read_end_expected => bail!(
                    "{how} (a read that should end so needs a later expect {{read: {{status, reason}}}})\n{}",
                    d.lines().nth(1).unwrap_or_default()
                ),
                _ => Ok(d),
            }
        }
        Step::Expect {
            read: Some(spec),
            top: None,
            candidate: None,
            path: None,
            omission: None,
            no_omission: None,
            selection: None,
            ..
        } => {
            let r = ctx.read.as_ref().context("expect read needs a read step first")?;
            read::holds(spec, r).map_err(|why| anyhow!("the read expectation did not hold: {why}"))
        }
        Step::Expect { status: Some(want), timeout_ms, .. } => {
            let pending = ctx.pending.take().context("no action is in flight (an action step first)")?;
            let r = pending.result(Duration::from_millis(*timeout_ms)).await?;
            let got = serde_json::to_value(r.status)?.as_str().unwrap_or_default().to_string();
            if &got != want {
                let reason = r.reason.as_deref().map(|x| format!(" (reason: {x})")).unwrap_or_default();
                bail!("expected the action to end {want}, it ended {got}{reason}");
            }
            Ok(format!("the action ended {got}"))
        }
        Step::Expect { read, timeout_ms, .. } => {
            if let Some(spec) = read {
                let r = ctx.read.as_ref().context("expect read needs a read step first")?;
                read::holds(spec, r).map_err(|why| anyhow!("the read expectation did not hold: {why}"))?;
            }
            // The runtime reports asynchronously: look at fresh snapshots until it holds.
            let deadline = tokio::time::Instant::now() + Duration::from_millis(*timeout_ms);
            let mut seen = match ctx.last.take() {
                Some(s) => s,
                None => host.snapshot().await?,
            };
            loop {
                match holds(step, &seen) {
                    Ok(()) => {
                        let d = format!("holds: {}", describe(top(&seen)));
                        ctx.last = Some(seen);
                        return Ok(d);
                    }
                    Err(why) if tokio::time::Instant::now() >= deadline => {
                        ctx.last = Some(seen);
                        bail!("the expectation did not hold within {timeout_ms} ms: {why}");
                    }
                    Err(_) => {
                        host.eval("new Promise(r => requestAnimationFrame(() => r(true)))").await?;
                        seen = host.snapshot().await?;
                    }
                }
            }
        }
    }
}

/// Replays `loaded` in `engine`: each `open` opens a fresh Host; stops at the first failed step.
/// `progress` gets a line per step (the CLI prints them on stderr).
pub async fn replay(
    h: &Harness,
    loaded: &Loaded,
    engine: Engine,
    options: ReplayOptions,
    progress: &dyn Fn(&StepOutcome),
) -> EngineRun {
    let sc = &loaded.scenario;
    let mut run = EngineRun { engine, steps: Vec::new(), named: Vec::new() };
    let mut host: Option<Host> = None;
    let mut ctx = Ctx::new();
    for (index, step) in sc.steps.iter().enumerate() {
        let started = tokio::time::Instant::now();
        let limit = step_limit(step);
        let outcome: anyhow::Result<String> = tokio::time::timeout(limit, async {
            if let Step::Open { geometry, actions, .. } = step {
                if let Some(old) = host.take() {
                    old.close().await;
                }
                let mut o = HostOptions::new(sc.layout, engine).actions(*actions);
                for g in geometry {
                    o = o.geometry(geometry_named(g).with_context(|| super::no_geometry(g))?);
                }
                host = Some(h.open_with(loaded.view_at(index).apply(o)).await?);
                ctx = Ctx::new();
            }
            let on = host.as_ref().context("no Host is open")?;
            ctx.read_end_expected = read::end_expected(&sc.steps, index);
            run_step(on, step, &mut ctx).await
        })
        .await
        .unwrap_or_else(|_| {
            Err(anyhow!(
                "the step did not finish within {} s: the browser did not answer (it hung or crashed)",
                limit.as_secs()
            ))
        });
        let duration = started.elapsed();
        let (pass, detail) = match outcome {
            Ok(d) => (true, d),
            Err(e) => (false, format!("{e:#}")),
        };
        let takes = matches!(
            step,
            Step::Move { .. } | Step::Snapshot { .. } | Step::Expect { .. } | Step::WaitFor { candidate: Some(_), .. }
        );
        let snapshot = if takes { ctx.last.as_ref().map(|s| s.json().clone()) } else { None };
        let mut golden = None;
        if let (Step::Snapshot { name: Some(n) }, Some(s), true) = (step, &snapshot, pass) {
            run.named.push(Named { index, name: n.clone(), snapshot: s.clone() });
            if options.compare_goldens {
                golden = Some(compare_golden(&loaded.path, n, engine, s));
            }
        }
        let mut o = StepOutcome {
            index,
            step: step.name(),
            pass,
            detail,
            duration,
            golden,
            snapshot,
            picture: None,
            crop: None,
            artifacts: None,
        };
        let failed = o.status().failed();
        if options.pictures || failed {
            if let Some(on) = host.as_ref() {
                let blank = Some(o.snapshot.clone().unwrap_or_else(|| json!({})));
                let shown = crate::report::html::pictures_of(on, blank, ctx.at).await;
                (o.picture, o.crop) = (shown.picture, shown.crop);
            }
        }
        if failed {
            o.artifacts = Some(write_artifacts(loaded, engine, &o, host.as_ref(), ctx.read.as_ref()).await);
        }
        progress(&o);
        run.steps.push(o);
        if !pass {
            break;
        }
    }
    if let Some(old) = host.take() {
        // A dead browser must not hold the run: the close is bounded.
        let _ = tokio::time::timeout(Duration::from_secs(10), old.close()).await;
    }
    run
}

/// Leaves what a failed step needs to be understood without running it again, with or without
/// `--html`, in `<artifacts root>/replay-<stem>-<engine>-steps-<i>/`: `failure.txt` (the step and
/// its detail, with a golden's diff), `screenshot.png` (the annotated picture), `crop.png`,
/// `snapshot.json` (the step's snapshot, else the Host's last), `read.json` (the last read: its
/// summary and what the model keeps), `console.log` and `host.txt`. Best effort: a dead browser
/// still leaves the failure and the console.
async fn write_artifacts(
    loaded: &Loaded,
    engine: Engine,
    o: &StepOutcome,
    host: Option<&Host>,
    read: Option<&crate::agent::ReadResult>,
) -> std::path::PathBuf {
    let stem = loaded.path.file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    let name = format!("replay-{stem}-{engine}-steps-{}", o.index);
    let dir = match host {
        Some(h) => tokio::time::timeout(Duration::from_secs(20), crate::report::write_artifacts(&name, h))
            .await
            .unwrap_or_else(|_| crate::report::artifacts_root().join(&name)),
        None => crate::report::artifacts_root().join(&name),
    };
    let _ = std::fs::create_dir_all(&dir);
    let failure = format!(
        "{} in {engine}: steps[{}] ({}): {}",
        loaded.path.display(),
        o.index,
        o.step,
        o.full_detail(&loaded.path)
    );
    crate::report::write_failure(&dir, &failure);
    if let Some(png) = &o.picture {
        let _ = std::fs::write(dir.join("screenshot.png"), png);
    }
    if let Some(png) = &o.crop {
        let _ = std::fs::write(dir.join("crop.png"), png);
    }
    if let Some(s) = &o.snapshot {
        let _ = std::fs::write(dir.join("snapshot.json"), serde_json::to_string_pretty(s).unwrap_or_default());
    }
    if let Some(r) = read {
        let v = json!({"summary": read::summary(r), "kept": serde_json::from_str::<Value>(&read::kept(r)).ok()});
        let _ = std::fs::write(dir.join("read.json"), serde_json::to_string_pretty(&v).unwrap_or_default());
    }
    dir
}

/// Compares a named snapshot with its golden beside the scenario.
fn compare_golden(scenario: &std::path::Path, name: &str, engine: Engine, snapshot: &Value) -> GoldenCheck {
    let file = golden_file(scenario, name, engine);
    let name = name.to_string();
    match std::fs::read_to_string(&file) {
        Ok(old) => {
            let new = golden_text(snapshot);
            if old == new {
                GoldenCheck::Matches { name, file }
            } else {
                let diff = diff(&old, &new, &file);
                GoldenCheck::Differs { name, file, diff }
            }
        }
        Err(_) => GoldenCheck::Missing { name, file },
    }
}
