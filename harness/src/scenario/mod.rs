//! QA scenarios (issue 22): a bug report written down as a file (JSON, read strictly with serde:
//! an unknown step or field is an error naming it) and replayed with trusted CDP input: the
//! layout, engines and view it needs, then steps (open, move, click, drag, tap, key, type,
//! wait-for, snapshot, send, action, read, expect). [`load`] checks everything that can be checked before a
//! browser starts; `run.rs` replays it on a Host and stops at the first failed expectation.
//!
//! JSON only: no well-kept serde YAML crate is in the dependency set (serde_yaml is archived
//! upstream, serde_yml is not maintained), and a scenario is small enough to write as JSON.

pub mod golden;
pub mod read;
pub mod run;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::host::{Engine, Geometry, Layout};
use crate::qa::landmarks::{self, Target};
use crate::qa::{LayoutFile, View};
use crate::report::text;

/// A scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What bug class it reproduces, for people.
    #[serde(default)]
    pub description: String,
    #[serde(default = "managed")]
    pub layout: Layout,
    /// The engines it is replayed in, each in a fresh Host (default: both).
    #[serde(default = "both_engines")]
    pub engines: Vec<Engine>,
    /// A layout declaration, relative to the scenario file (managed lays it out, compat mounts its
    /// application panels in the page area).
    #[serde(default)]
    pub layout_file: Option<PathBuf>,
    /// `WxH`, CSS px at zoom 1.
    #[serde(default)]
    pub viewport: Option<String>,
    #[serde(default)]
    pub dpr: Option<u8>,
    #[serde(default)]
    pub zoom: Option<f64>,
    pub steps: Vec<Step>,
}

fn managed() -> Layout {
    Layout::Managed
}

fn both_engines() -> Vec<Engine> {
    Engine::ALL.to_vec()
}

/// Where a step points: `"boundary"`, a landmark name, `[x, y]` (Host-viewport CSS px), or
/// `{"landmark": name, "fx": 0.1, "fy": 0.5}` (a spot inside the landmark's rect, as fractions).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum At {
    Named(String),
    Xy([f64; 2]),
    Spot(Spot),
    /// A button of the Host's agent action overlay: `{"overlay": "primary"}` (or `cancel`).
    Overlay(OverlayButton),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverlayButton {
    pub overlay: String,
}

/// The overlay's answer buttons (pages/host/overlay.js `data-wippy-attention-answer`).
pub const OVERLAY_ANSWERS: &[&str] = &["primary", "cancel", "deny", "pointer-area"];

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spot {
    pub landmark: String,
    #[serde(default = "half")]
    pub fx: f64,
    #[serde(default = "half")]
    pub fy: f64,
}

fn half() -> f64 {
    0.5
}

/// A candidate as an expectation names it: role and/or accessible name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateSpec {
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

/// What an `expect` step checks of the last `read`: its status (`inspected`, `rejected`, or the
/// terminal status it failed with), its reason (the refusal's, e.g. `unexpected-field`, or the
/// result's), the stored result's `outcome` (`ok`, `empty` ...), and that some node it returned
/// has this role and/or name. Naming a status or reason lets the read end that way without failing
/// its own step.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadSpec {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub outcome: Option<String>,
    #[serde(default)]
    pub node: Option<CandidateSpec>,
}

/// One step. `do` names it; every other key is the step's own (unknown keys are errors).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    /// Opens (or reopens) the Host: the scenario's layout and view, with these geometry variants
    /// (`scroll-panel`, `zoom-frame` ... pages/README.md) and agent actions.
    Open {
        #[serde(default)]
        geometry: Vec<String>,
        #[serde(default)]
        actions: bool,
        /// This Host's own view, over the scenario's: `WxH` CSS px at zoom 1, DPR 1-3, browser zoom.
        #[serde(default)]
        viewport: Option<String>,
        #[serde(default)]
        dpr: Option<u8>,
        #[serde(default)]
        zoom: Option<f64>,
    },
    /// Moves the pointer there and waits until the runtime's latest pointer is there.
    Move {
        at: At,
    },
    Click {
        at: At,
    },
    Drag {
        from: At,
        to: At,
        #[serde(default = "drag_steps")]
        steps: u32,
    },
    Tap {
        at: At,
    },
    /// A key by its DOM `key` or `code` (Tab, Enter, Escape, Space, Backspace, arrows, a).
    Key {
        key: String,
        #[serde(default)]
        shift: bool,
    },
    Type {
        text: String,
    },
    /// Waits for a landmark to exist, or for a snapshot with a candidate like this, or for the
    /// inspection API's `find({css, scope})` to return a node (needs `$W.attention`, issue 21).
    WaitFor {
        #[serde(default)]
        landmark: Option<String>,
        #[serde(default)]
        candidate: Option<CandidateSpec>,
        #[serde(default)]
        selector: Option<String>,
        #[serde(default = "wait_ms")]
        timeout_ms: u64,
    },
    /// Takes a snapshot; a named one is recorded as a golden by `record --scenario`.
    Snapshot {
        #[serde(default)]
        name: Option<String>,
    },
    /// The agent asks the Host for a UI action (`highlight`, `confirm`, `select`) on a candidate of
    /// the latest snapshot (like `target`, default the one under the pointer), through the
    /// reference Session; waits for the Host's overlay to open. `expect {status}` awaits its result.
    /// With `from_read`, the target is the last `read`'s `target_ref` (a read that returned exactly
    /// one node) instead of a snapshot's candidate.
    Action {
        mode: String,
        #[serde(default)]
        target: Option<CandidateSpec>,
        #[serde(default)]
        from_read: bool,
        #[serde(default)]
        prompt: Option<String>,
    },
    /// An agent read through the reference Session, as a model makes it: `tool` (one of the nine,
    /// `attention_find_semantic` ...) with its `args`, in a new batch of the current user turn (the
    /// Session's guard applies: one read per batch, four per turn; `send` starts a turn). The
    /// first read or action binds the agent to the Host tab with one message the composer sends with no
    /// input (pointer, focus and selection stay; it starts a turn). `expect {read}`
    /// checks the result.
    Read {
        tool: String,
        #[serde(default = "empty_args")]
        args: serde_json::Value,
    },
    /// Types `text` into the composer and sends it with a trusted Enter; waits until the Host's
    /// composer submitted it.
    Send {
        text: String,
    },
    /// Checks the latest snapshot (taking fresh ones until it holds, within `timeout_ms`).
    Expect {
        /// The last `read`'s result (checked once: a read's result does not change).
        #[serde(default)]
        read: Option<Box<ReadSpec>>,
        /// The candidate under the pointer (the pointer's first candidate id).
        #[serde(default)]
        top: Option<CandidateSpec>,
        /// Some candidate is like this.
        #[serde(default)]
        candidate: Option<CandidateSpec>,
        /// The path kinds of the candidate under the pointer, host first (`["host", "panel", ...]`).
        #[serde(default)]
        path: Option<Vec<String>>,
        /// Some omission has this reason.
        #[serde(default)]
        omission: Option<String>,
        /// No omission has this reason.
        #[serde(default)]
        no_omission: Option<String>,
        /// The snapshot's selection text (whitespace collapsed).
        #[serde(default)]
        selection: Option<String>,
        /// The terminal status of the last `action` (`done`, `cancelled`, `stale` ...).
        #[serde(default)]
        status: Option<String>,
        #[serde(default = "wait_ms")]
        timeout_ms: u64,
    },
}

fn empty_args() -> serde_json::Value {
    serde_json::Value::Object(Default::default())
}

fn drag_steps() -> u32 {
    12
}

fn wait_ms() -> u64 {
    5000
}

impl Step {
    /// The step's `do` name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Open { .. } => "open",
            Step::Move { .. } => "move",
            Step::Click { .. } => "click",
            Step::Drag { .. } => "drag",
            Step::Tap { .. } => "tap",
            Step::Key { .. } => "key",
            Step::Type { .. } => "type",
            Step::WaitFor { .. } => "wait-for",
            Step::Snapshot { .. } => "snapshot",
            Step::Send { .. } => "send",
            Step::Action { .. } => "action",
            Step::Read { .. } => "read",
            Step::Expect { .. } => "expect",
        }
    }
}

/// A scenario read and checked: its view (layout file validated), where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub path: PathBuf,
    pub scenario: Scenario,
    pub view: View,
    /// The view of each `open` step that sets its own (step index, view), checked like the scenario's.
    pub open_views: Vec<(usize, View)>,
}

impl Loaded {
    /// The view the `open` step at `index` opens its Host at: its own, else the scenario's.
    pub fn view_at(&self, index: usize) -> &View {
        self.open_views.iter().find(|(i, _)| *i == index).map(|(_, v)| v).unwrap_or(&self.view)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read the scenario {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("scenario {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Reads and checks a scenario: strict JSON (the member path of an unknown field or step is
/// named), the layout file by the Host's rules, every step's names and points, all before a
/// browser starts.
pub fn load(pages: &Path, path: &Path) -> Result<Loaded, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read { path: path.into(), source })?;
    let invalid = |message: String| ScenarioError::Invalid { path: path.into(), message };
    let de = &mut serde_json::Deserializer::from_str(&text);
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let at = e.path().to_string();
        invalid(format!("at {at}: {}", e.inner()))
    })?;
    let layout_file = scenario.layout_file.as_ref().map(|f| path.parent().unwrap_or(Path::new(".")).join(f));
    // A view (the scenario's, or an open step's over it, `what` naming where), checked as the CLI's.
    let view_of = |viewport: Option<&String>, dpr: Option<u8>, zoom: Option<f64>, what: &str| {
        let view_args = crate::qa::ViewArgs {
            layout_file: layout_file.clone(),
            viewport: match viewport.or(scenario.viewport.as_ref()) {
                Some(v) => {
                    Some(crate::qa::view::parse_viewport(v).map_err(|e| invalid(format!("{what}viewport: {e}")))?)
                }
                None => None,
            },
            dpr: match dpr.or(scenario.dpr) {
                Some(d) if !(1..=3).contains(&d) => return Err(invalid(format!("{what}dpr {d} is not 1, 2 or 3"))),
                d => d,
            },
            zoom: match zoom.or(scenario.zoom) {
                Some(z) => {
                    Some(crate::qa::view::parse_zoom(&z.to_string()).map_err(|e| invalid(format!("{what}zoom: {e}")))?)
                }
                None => None,
            },
        };
        view_args.check(pages, &[scenario.layout]).map_err(|e| invalid(format!("{what}{e}")))
    };
    crate::qa::view::check_engines(layout_file.as_deref(), &scenario.engines).map_err(|e| invalid(e.to_string()))?;
    let view = view_of(None, None, None, "")?;
    if scenario.engines.is_empty() {
        return Err(invalid("engines: name at least one".into()));
    }
    if !matches!(scenario.steps.first(), Some(Step::Open { .. })) {
        return Err(invalid("steps[0]: the first step must be `open`".into()));
    }
    let mut css = view.css_viewport();
    let mut open_views = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        if let Step::Open { viewport, dpr, zoom, .. } = step {
            // Each open is at the scenario's view, or its own over it; the points after it are in it.
            css = view.css_viewport();
            if viewport.is_some() || dpr.is_some() || zoom.is_some() {
                let own = view_of(viewport.as_ref(), *dpr, *zoom, &format!("steps[{i}] (open): "))?;
                css = own.css_viewport();
                open_views.push((i, own));
            }
        }
        let at = |a: &At| {
            check_at(a, css, view.layout_file.as_ref(), scenario.layout)
                .map_err(|e| invalid(format!("steps[{i}] ({}): {e}", step.name())))
        };
        match step {
            Step::Open { geometry, .. } => {
                for g in geometry {
                    geometry_named(g).ok_or_else(|| invalid(format!("steps[{i}] (open): {}", no_geometry(g))))?;
                }
            }
            Step::Move { at: a } | Step::Click { at: a } | Step::Tap { at: a } => at(a)?,
            Step::Drag { from, to, .. } => {
                at(from)?;
                at(to)?;
            }
            Step::Key { key, .. } => {
                crate::input::Key::named(key).ok_or_else(|| invalid(format!("steps[{i}] (key): {}", no_key(key))))?;
            }
            Step::WaitFor { landmark, candidate, selector, .. } => {
                let given =
                    [landmark.is_some(), candidate.is_some(), selector.is_some()].iter().filter(|b| **b).count();
                if given != 1 {
                    return Err(invalid(format!("steps[{i}] (wait-for): name one of landmark, candidate, selector")));
                }
                if let Some(l) = landmark {
                    at(&At::Named(l.clone()))?;
                }
            }
            Step::Action { mode, target, from_read, .. } => {
                if !["highlight", "confirm", "select"].contains(&mode.as_str()) {
                    return Err(invalid(format!(
                        "steps[{i}] (action): mode {} is not highlight, confirm or select",
                        text::quote(mode)
                    )));
                }
                if *from_read && target.is_some() {
                    return Err(invalid(format!("steps[{i}] (action): name a target or from_read, not both")));
                }
            }
            Step::Read { tool, args } => {
                if crate::agent::ReadTool::from_name(tool).is_none() {
                    let all: Vec<&str> =
                        crate::server::session::reads::args::ALL_TOOLS.iter().map(|t| t.name()).collect();
                    return Err(invalid(format!(
                        "steps[{i}] (read): no read tool {} (tools: {})",
                        text::quote(tool),
                        all.join(", ")
                    )));
                }
                let Some(given) = args.as_object() else {
                    return Err(invalid(format!("steps[{i}] (read): args must be an object, not {args}")));
                };
                // An argument the tool does not take (a typo like `depht`) is refused here, naming it,
                // unless a later `expect {read}` says the read should end refused.
                let known = crate::server::session::reads::args::allowed(
                    crate::agent::ReadTool::from_name(tool).expect("checked above"),
                );
                let unknown: Vec<&str> = given.keys().map(String::as_str).filter(|k| !known.contains(k)).collect();
                if !unknown.is_empty() && !read::end_expected(&scenario.steps, i) {
                    return Err(invalid(format!(
                        "steps[{i}] (read): {tool} takes no argument {} (its arguments: {})",
                        unknown.iter().map(|k| text::quote(k)).collect::<Vec<_>>().join(", "),
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    )));
                }
            }
            Step::Expect { read, top, candidate, path, omission, no_omission, selection, status, .. } => {
                if let Some(r) = read {
                    if r.status.is_none() && r.reason.is_none() && r.outcome.is_none() && r.node.is_none() {
                        return Err(invalid(format!("steps[{i}] (expect): read expects nothing")));
                    }
                    if status.is_some() {
                        return Err(invalid(format!("steps[{i}] (expect): read and status are separate expectations")));
                    }
                }
                if let Some(st) = status {
                    serde_json::from_value::<crate::agent::Status>(serde_json::Value::String(st.clone()))
                        .map_err(|_| invalid(format!("steps[{i}] (expect): no action status {}", text::quote(st))))?;
                }
                if read.is_none()
                    && top.is_none()
                    && candidate.is_none()
                    && path.is_none()
                    && omission.is_none()
                    && no_omission.is_none()
                    && selection.is_none()
                    && status.is_none()
                {
                    return Err(invalid(format!("steps[{i}] (expect): expects nothing")));
                }
                for r in [omission, no_omission].into_iter().flatten() {
                    serde_json::from_value::<crate::attention::OmissionReason>(serde_json::Value::String(r.clone()))
                        .map_err(|_| invalid(format!("steps[{i}] (expect): no omission reason {}", text::quote(r))))?;
                }
            }
            Step::Type { .. } | Step::Snapshot { .. } | Step::Send { .. } => {}
        }
    }
    Ok(Loaded { path: path.to_path_buf(), scenario, view, open_views })
}

fn check_at(a: &At, css: (u32, u32), file: Option<&LayoutFile>, layout: Layout) -> Result<(), String> {
    match a {
        At::Overlay(b) if OVERLAY_ANSWERS.contains(&b.overlay.as_str()) => Ok(()),
        At::Overlay(b) => {
            Err(format!("no overlay button {} (buttons: {})", text::quote(&b.overlay), OVERLAY_ANSWERS.join(", ")))
        }
        At::Named(n) => landmarks::target(n, css, file, layout).map(drop),
        At::Xy([x, y]) => landmarks::target(&format!("{x},{y}"), css, file, layout).map(drop),
        At::Spot(s) => {
            if !((0.0..=1.0).contains(&s.fx) && (0.0..=1.0).contains(&s.fy)) {
                return Err(format!(
                    "fx and fy are fractions of the landmark's rect (0..=1), not {} and {}",
                    s.fx, s.fy
                ));
            }
            match landmarks::target(&s.landmark, css, file, layout)? {
                Target::Landmark(_) | Target::Boundary => Ok(()),
                Target::Point(..) => Err(format!("{} is not a landmark", text::quote(&s.landmark))),
            }
        }
    }
}

/// The geometry variants a scenario can name.
const GEOMETRIES: [Geometry; 10] = [
    Geometry::ZoomFrame,
    Geometry::ZoomLeaf,
    Geometry::ScaleFrame,
    Geometry::ScaleTranslateFrame,
    Geometry::ScalePanel,
    Geometry::ScrollPage,
    Geometry::ScrollPanel,
    Geometry::BorderFrame,
    Geometry::RotateFrame,
    Geometry::SkewFrame,
];

/// The geometry variant host.js knows by `name`.
pub fn geometry_named(name: &str) -> Option<Geometry> {
    GEOMETRIES.into_iter().find(|g| g.to_string() == name)
}

/// What a scenario says when it names no geometry variant: `no geometry variant “x” (variants:
/// zoom-frame, ...)`.
pub fn no_geometry(name: &str) -> String {
    let all: Vec<String> = GEOMETRIES.iter().map(ToString::to_string).collect();
    format!("no geometry variant {} (variants: {})", text::quote(name), all.join(", "))
}

/// What a scenario says when it names no key: `no key “x” (keys: Tab, ...)`.
pub fn no_key(name: &str) -> String {
    format!("no key {} (keys: {})", text::quote(name), crate::input::Key::names())
}
