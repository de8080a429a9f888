//! One Host page as CDP reaches it: the browser connection, the page's own session, the
//! out-of-process iframes attached to it (and theirs), every frame's main-world execution context,
//! and the console output of all of them. [`FrameSessions`] is a cheap clone of that, and it is what
//! ground truth takes as its argument (the oracle, focus truth and the capture provider are methods
//! and functions on it), so none of them needs the Host. Tests reach it through `Host::frames()`
//! for a read of their own (a typed CDP command on a frame's session, say).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::{network, page, target};
use chromiumoxide::cdp::js_protocol::runtime;
use serde_json::Value;

use crate::cdp::{Cdp, CdpError, EvalError, Session};

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("{what}: {source}")]
    Eval { what: String, source: EvalError },
    #[error("navigation to {url} failed: {reason}")]
    Navigation { url: String, reason: String },
    #[error("timed out after {} ms waiting for {what}", .after.as_millis())]
    Timeout { what: String, after: Duration },
    #[error("no frame matches {0}")]
    NoFrame(String),
    #[error("no element with data-landmark=\"{0}\" in any frame")]
    NoLandmark(String),
    /// A `css:` landmark that cannot be resolved (`crate::css_landmark`).
    #[error("landmark \u{201c}{landmark}\u{201d}: {problem}")]
    CssLandmark { landmark: String, problem: CssProblem },
    /// A layout file's component panel did not mount: its module did not load, defines no such
    /// custom element, or creating it threw (the Host's `component-failed` report, host.js).
    #[error("{message}")]
    Component { panel: String, module: String, tag: String, reason: ComponentFailure, message: String },
    #[error("the runtime returned an unexpected value for {what}: {detail}")]
    Unexpected { what: String, detail: String },
    /// What the runtime returned is not the strict typed model (`crate::attention`): a member the
    /// model does not know, a missing one, or a wrong type.
    #[error("{what} is not a strict {model}: {source}")]
    Model { what: String, model: &'static str, source: crate::attention::ParseError },
}

/// Why a component panel did not mount (the `state` its generated document reported,
/// harness/src/server/qa_component.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentFailure {
    /// The module did not load or threw while it was evaluated.
    LoadFailed,
    /// The module loaded but `customElements.get(tag)` is undefined after it ran.
    Undefined,
    /// Creating the element or setting its attributes threw.
    CreateFailed,
}

impl ComponentFailure {
    /// The state the generated document reports, as a failure (`None` for any other).
    pub fn from_state(state: &str) -> Option<ComponentFailure> {
        match state {
            "load-failed" => Some(ComponentFailure::LoadFailed),
            "undefined" => Some(ComponentFailure::Undefined),
            "create-failed" => Some(ComponentFailure::CreateFailed),
            _ => None,
        }
    }
}

/// Why a `css:` landmark names no element (`crate::css_landmark`).
#[derive(Debug, thiserror::Error)]
pub enum CssProblem {
    #[error("\u{201c}{selector}\u{201d} is not a selector Chromium accepts ({message})")]
    InvalidSelector { selector: String, message: String },
    #[error(
        "the Host has no panel \u{201c}{panel}\u{201d} (panels: {}), and \u{201c}{selector}\u{201d} is not a selector \
         Chromium accepts either ({message})",
        panels.join(", ")
    )]
    NoPanel { panel: String, panels: Vec<String>, selector: String, message: String },
    #[error("nothing matches \u{201c}{selector}\u{201d} {scope} ({realms} realm{} searched)", if *realms == 1 { "" } else { "s" })]
    NoMatch { selector: String, scope: String, realms: usize },
}

/// A frame of the opened Host, for ground-truth reads. It prints as words (`the frame whose URL
/// contains “x”`), in Debug form too, since errors name it.
#[derive(Clone)]
pub enum Frame {
    Top,
    /// The first frame whose URL contains this text (out-of-process iframes are searched first).
    UrlContains(String),
    /// The frame whose `name` attribute is this.
    Name(String),
}

impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Frame::Top => write!(f, "the top frame"),
            Frame::UrlContains(part) => write!(f, "the frame whose URL contains \u{201c}{part}\u{201d}"),
            Frame::Name(name) => write!(f, "the frame named \u{201c}{name}\u{201d}"),
        }
    }
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Frame {
    /// Whether `frame` (a `Page.getFrameTree` frame) is this one; the top frame is found by its
    /// session, never by a tree entry.
    fn matches(&self, frame: &Value) -> bool {
        match self {
            Frame::UrlContains(part) => frame["url"].as_str().is_some_and(|u| u.contains(part.as_str())),
            Frame::Name(name) => frame["name"].as_str() == Some(name.as_str()),
            Frame::Top => false,
        }
    }
}

/// A child target session (an out-of-process iframe).
#[derive(Debug, Clone)]
pub struct ChildTarget {
    pub session_id: String,
    pub target_id: String,
    pub url: String,
    /// The session it was attached through: the frame that owns its `<iframe>` element.
    pub parent_session_id: String,
}

#[derive(Default)]
pub(crate) struct Tracked {
    pub children: Vec<ChildTarget>,
    /// frameId -> main-world execution context id, for frames in the page's process.
    pub contexts: HashMap<String, i64>,
    /// frameId -> (session id, main-world execution context id), for frames of every session.
    pub frame_contexts: HashMap<String, (String, i64)>,
    pub console: Vec<String>,
}

/// The page's CDP sessions and tracked frames (see the module comment). Cloning it is cheap: it
/// owns no task, and dropping or cloning it changes nothing on the page.
#[derive(Clone)]
pub struct FrameSessions {
    pub(crate) cdp: Cdp,
    pub(crate) page: Session,
    pub(crate) tracked: Arc<Mutex<Tracked>>,
}

impl std::fmt::Debug for FrameSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FrameSessions({})", self.page.id)
    }
}

impl FrameSessions {
    /// The sessions of a page attached as `page` on `cdp`, with nothing tracked yet; [`watch`] fills
    /// `tracked` in.
    pub(crate) fn new(cdp: Cdp, page: Session) -> FrameSessions {
        FrameSessions { cdp, page, tracked: Arc::new(Mutex::new(Tracked::default())) }
    }

    /// The top page's session (the Host document and its in-process frames): typed CDP commands for
    /// ground truth the oracle does not read (`frames.page().execute(..)`).
    pub fn page(&self) -> &Session {
        &self.page
    }

    /// The browser connection: browser-level commands and every event (subscribe before the command
    /// that causes one).
    pub fn cdp(&self) -> &Cdp {
        &self.cdp
    }

    /// The session with id `id` on this connection (a page or an out-of-process frame).
    pub fn session(&self, id: &str) -> Session {
        Session { cdp: self.cdp.clone(), id: id.to_string() }
    }

    /// The page's session, then every out-of-process frame's, in attach order.
    pub fn sessions(&self) -> Vec<Session> {
        let mut out = vec![self.page.clone()];
        out.extend(self.child_targets().into_iter().map(|c| self.session(&c.session_id)));
        out
    }

    /// The main-world execution context of a frame of any session (`frame_id`), with that session's id.
    pub fn frame_context(&self, frame_id: &str) -> Option<(String, i64)> {
        self.tracked.lock().ok().and_then(|t| t.frame_contexts.get(frame_id).cloned())
    }

    /// The main-world execution context of an in-process frame of the page (`frame_id`).
    pub(crate) fn main_context(&self, frame_id: &str) -> Option<i64> {
        self.tracked.lock().ok().and_then(|t| t.contexts.get(frame_id).copied())
    }

    /// Console messages and exceptions from every frame, oldest first.
    pub fn console(&self) -> Vec<String> {
        self.tracked.lock().map(|t| t.console.clone()).unwrap_or_default()
    }

    /// The out-of-process iframes attached so far.
    pub fn child_targets(&self) -> Vec<ChildTarget> {
        self.tracked.lock().map(|t| t.children.clone()).unwrap_or_default()
    }

    /// Evaluates `expr` in a given frame's main world: ground truth the runtime does not supply
    /// (a leaf's own event log, for example).
    pub async fn eval_in_frame(&self, frame: &Frame, expr: &str) -> Result<Value, HostError> {
        let (session, context) = self.resolve_frame(frame).await?;
        session
            .eval_in(expr, context, crate::cdp::COMMAND_TIMEOUT)
            .await
            .map_err(|e| HostError::Eval { what: format!("{} in {frame}", short(expr)), source: e })
    }

    /// The session (and, for in-process frames, the execution context) of a frame.
    pub async fn resolve_frame(&self, frame: &Frame) -> Result<(Session, Option<i64>), HostError> {
        match frame {
            Frame::Top => return Ok((self.page.clone(), None)),
            Frame::UrlContains(part) => {
                if let Some(child) = self.child_targets().into_iter().find(|c| c.url.contains(part.as_str())) {
                    return Ok((Session { cdp: self.cdp.clone(), id: child.session_id }, None));
                }
            }
            Frame::Name(_) => {}
        }
        let tree = self.page.send(&page::GetFrameTreeParams::default()).await?;
        let mut frames = Vec::new();
        flatten_frames(&tree["frameTree"], &mut frames);
        let found = frames.into_iter().find(|f| frame.matches(f));
        let found = match found {
            Some(f) => Some(f),
            // An in-process frame inside an out-of-process frame (a grandchild realm of the Child site).
            None => self.find_in_child_trees(frame).await,
        };
        let Some(f) = found else { return Err(HostError::NoFrame(frame.to_string())) };
        let id = f["id"].as_str().unwrap_or_default().to_string();
        // An out-of-process frame named by `name`: its target id is its frame id.
        if let Some(child) = self.child_targets().into_iter().find(|c| c.target_id == id) {
            return Ok((Session { cdp: self.cdp.clone(), id: child.session_id }, None));
        }
        let context = self.tracked.lock().ok().and_then(|t| t.contexts.get(&id).copied());
        if let Some(c) = context {
            return Ok((self.page.clone(), Some(c)));
        }
        match self.tracked.lock().ok().and_then(|t| t.frame_contexts.get(&id).cloned()) {
            Some((sid, c)) => Ok((Session { cdp: self.cdp.clone(), id: sid }, Some(c))),
            None => Err(HostError::NoFrame(format!("{frame} (no main-world context yet)"))),
        }
    }

    /// The first frame matching `frame` in the frame trees of the out-of-process frames.
    async fn find_in_child_trees(&self, frame: &Frame) -> Option<Value> {
        for child in self.child_targets() {
            let session = Session { cdp: self.cdp.clone(), id: child.session_id };
            let Ok(tree) = session.send(&page::GetFrameTreeParams::default()).await else { continue };
            let mut frames = Vec::new();
            flatten_frames(&tree["frameTree"], &mut frames);
            if let Some(f) = frames.into_iter().find(|f| frame.matches(f)) {
                return Some(f);
            }
        }
        None
    }
}

/// Attach to every new frame target of a session, flattened, without pausing it.
pub(crate) fn auto_attach() -> target::SetAutoAttachParams {
    let mut p = target::SetAutoAttachParams::new(true, false);
    p.flatten = Some(true);
    p
}

/// Attach to every new frame target of a session, flattened, paused before its first script
/// (`waitForDebuggerOnStart`) until [`watch`] has added the init script and resumed it.
pub(crate) fn auto_attach_paused() -> target::SetAutoAttachParams {
    let mut p = target::SetAutoAttachParams::new(true, true);
    p.flatten = Some(true);
    p
}

/// Readies a new target session: with an `init_script`, the Network domain on and the script every
/// new document of the target runs before page scripts (`Page.addScriptToEvaluateOnNewDocument`, which Chromium runs in each
/// new document, so in a window reused across a navigation too), its own children attached paused,
/// then the target resumed (`Runtime.runIfWaitingForDebugger`); without one, its children attached
/// as they come. Commands go in order (one session's commands run in order in Chromium).
async fn ready_child(cdp: &Cdp, session_id: &str, frame: bool, init_script: Option<&str>) -> Result<(), CdpError> {
    let s = Some(session_id);
    let Some(source) = init_script else {
        cdp.execute(s, &runtime::EnableParams::default()).await?;
        return cdp.execute(s, &auto_attach()).await.map(drop);
    };
    if frame {
        // Without Page.enable in the child session its init scripts never run (reference/spike.md §3).
        cdp.execute(s, &page::EnableParams::default()).await?;
        // Its requests are seen too (an audited page settles when no frame's request is in flight).
        cdp.execute(s, &network::EnableParams::default()).await?;
        cdp.execute(s, &runtime::EnableParams::default()).await?;
        cdp.execute(s, &page::AddScriptToEvaluateOnNewDocumentParams::new(source)).await?;
        cdp.execute(s, &auto_attach_paused()).await?;
    }
    // A worker attached paused is resumed too, or it would wait forever.
    cdp.execute(s, &runtime::RunIfWaitingForDebuggerParams::default()).await.map(drop)
}

/// The frames of a `Page.getFrameTree` reply, depth first, the root first (the reply is read as
/// JSON: only ids, names and URLs are wanted, and the generated `Frame` type would also have to
/// match every other field Chromium 156 sends).
pub(crate) fn flatten_frames(node: &Value, out: &mut Vec<Value>) {
    out.push(node["frame"].clone());
    if let Some(children) = node["childFrames"].as_array() {
        for c in children {
            flatten_frames(c, out);
        }
    }
}

pub(crate) fn short(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Follows the page's targets and frames: attaches to out-of-process iframes (and theirs),
/// records main-world contexts and collects console output. With `init_script`, the page's
/// auto-attach pauses new targets ([`auto_attach_paused`]) and each out-of-process frame gets the
/// script before it runs one of its own ([`ready_child`]).
pub(crate) async fn watch(
    cdp: Cdp,
    page_session: String,
    tracked: Arc<Mutex<Tracked>>,
    mut events: tokio::sync::broadcast::Receiver<Arc<crate::cdp::Event>>,
    init_script: Option<Arc<str>>,
) {
    let mut ours: Vec<String> = vec![page_session.clone()];
    loop {
        let ev = match events.recv().await {
            Ok(ev) => ev,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!("host watcher lagged by {n} CDP events");
                continue;
            }
            Err(_) => return,
        };
        let Some(sid) = ev.session_id.clone() else { continue };
        if !ours.contains(&sid) {
            continue;
        }
        match ev.method.as_str() {
            "Target.attachedToTarget" => {
                let child_sid = ev.params["sessionId"].as_str().unwrap_or_default().to_string();
                let info = &ev.params["targetInfo"];
                if info["type"].as_str() != Some("iframe") {
                    if init_script.is_some() && ev.params["waitingForDebugger"].as_bool() == Some(true) {
                        let (cdp, script) = (cdp.clone(), init_script.clone());
                        tokio::spawn(async move {
                            let _ = ready_child(&cdp, &child_sid, false, script.as_deref()).await;
                        });
                    }
                    continue;
                }
                ours.push(child_sid.clone());
                if let Ok(mut t) = tracked.lock() {
                    t.children.push(ChildTarget {
                        session_id: child_sid.clone(),
                        target_id: info["targetId"].as_str().unwrap_or_default().to_string(),
                        url: info["url"].as_str().unwrap_or_default().to_string(),
                        parent_session_id: sid.clone(),
                    });
                }
                let (cdp, script) = (cdp.clone(), init_script.clone());
                tokio::spawn(async move {
                    if let Err(e) = ready_child(&cdp, &child_sid, true, script.as_deref()).await {
                        tracing::debug!("readying the frame session {child_sid}: {e}");
                    }
                });
            }
            "Target.detachedFromTarget" => {
                let gone = ev.params["sessionId"].as_str().unwrap_or_default();
                if let Ok(mut t) = tracked.lock() {
                    t.children.retain(|c| c.session_id != gone);
                }
            }
            "Target.targetInfoChanged" => {
                let info = &ev.params["targetInfo"];
                if let (Some(id), Some(url), Ok(mut t)) =
                    (info["targetId"].as_str(), info["url"].as_str(), tracked.lock())
                {
                    for c in t.children.iter_mut().filter(|c| c.target_id == id) {
                        c.url = url.to_string();
                    }
                }
            }
            "Runtime.executionContextCreated" => {
                let ctx = &ev.params["context"];
                if ctx.pointer("/auxData/isDefault").and_then(Value::as_bool) == Some(true) {
                    if let (Some(frame), Some(id), Ok(mut t)) =
                        (ctx.pointer("/auxData/frameId").and_then(Value::as_str), ctx["id"].as_i64(), tracked.lock())
                    {
                        if sid == page_session {
                            t.contexts.insert(frame.to_string(), id);
                        }
                        t.frame_contexts.insert(frame.to_string(), (sid.clone(), id));
                    }
                }
            }
            "Runtime.consoleAPICalled" => {
                let args: Vec<String> = ev.params["args"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|x| {
                                x.get("value")
                                    .map(|v| v.to_string())
                                    .or_else(|| x["description"].as_str().map(str::to_string))
                                    .unwrap_or_default()
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let line = format!("[{}] {}", ev.params["type"].as_str().unwrap_or("log"), args.join(" "));
                if let Ok(mut t) = tracked.lock() {
                    t.console.push(line);
                }
            }
            "Runtime.exceptionThrown" => {
                let d = &ev.params["exceptionDetails"];
                let text = d
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or(d["text"].as_str())
                    .unwrap_or("exception");
                if let Ok(mut t) = tracked.lock() {
                    t.console.push(format!("[exception] {text}"));
                }
            }
            _ => {}
        }
    }
}
