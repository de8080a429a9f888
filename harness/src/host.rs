//! One opened reference Host: a fresh browser context and page on the shared browser, navigated to
//! a layout and engine, with every frame's CDP session tracked (out-of-process iframes included),
//! console output collected, and the runtime's public API one call away.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use crate::attention::{Envelope, Focus, Reported, Snapshot};
use crate::cdp::EvalError;
use crate::cdp::{Cdp, CdpError, Session};

/// The two reference Host shells (DESIGN.md "The two layouts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Declarative multi-panel Host built from `pages/host/layouts/default.json`.
    Managed,
    /// The older direct embedding with fixed Host chrome.
    Compat,
}

/// How the Host mounts pages: iframes, or Web Fragments (the real `web-fragments` package).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Iframe,
    Fragment,
}

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Managed, Layout::Compat];
    pub fn name(self) -> &'static str {
        match self {
            Layout::Managed => "managed",
            Layout::Compat => "compat",
        }
    }
}

impl Engine {
    pub const ALL: [Engine; 2] = [Engine::Iframe, Engine::Fragment];
    pub fn name(self) -> &'static str {
        match self {
            Engine::Iframe => "iframe",
            Engine::Fragment => "fragment",
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The viewport every Host is opened with (CSS px, DPR 1 unless [`OpenOptions::device_scale_factor`]
/// says otherwise), so geometry and goldens are stable.
pub const VIEWPORT: (u32, u32) = (1280, 720);

/// How a Host page is emulated when it is opened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenOptions {
    /// `Emulation.setDeviceMetricsOverride`'s `deviceScaleFactor` (device pixels per CSS px).
    pub device_scale_factor: f64,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions { device_scale_factor: 1.0 }
    }
}
/// How long navigation may take until the load event.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the runtime may take to negotiate with every child realm.
pub const READY_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("{what}: {source}")]
    Eval { what: String, source: EvalError },
    #[error("navigation to {url} failed: {reason}")]
    Navigation { url: String, reason: String },
    #[error("timed out after {after:?} waiting for {what}")]
    Timeout { what: String, after: Duration },
    #[error("no frame matches {0}")]
    NoFrame(String),
    #[error("no element with data-landmark=\"{0}\" in any frame")]
    NoLandmark(String),
    #[error("the runtime returned an unexpected value for {what}: {detail}")]
    Unexpected { what: String, detail: String },
    /// What the runtime returned is not the strict typed model (`crate::attention`): a member the
    /// model does not know, a missing one, or a wrong type.
    #[error("{what} is not a strict {model}: {source}")]
    Model { what: String, model: &'static str, source: crate::attention::ParseError },
}

/// A frame of the opened Host, for ground-truth reads.
#[derive(Debug, Clone)]
pub enum Frame {
    Top,
    /// The first frame whose URL contains this text (out-of-process iframes are searched first).
    UrlContains(String),
    /// The frame whose `name` attribute is this.
    Name(String),
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

/// Where the time of [`Host::open_url`] went, in milliseconds from the call (cumulative marks),
/// for the `host-open` benchmark.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct OpenTimings {
    /// The fresh browser context exists.
    pub context_ms: f64,
    /// The page target is created, attached and its domains enabled.
    pub page_ms: f64,
    /// The top document fired its load event.
    pub load_ms: f64,
    /// The reference Host reported every app realm mounted (`__host.ready`).
    pub mounted_ms: f64,
    /// The runtime negotiated with every child realm (`wippyAttention.ready()`).
    pub ready_ms: f64,
}

/// An opened reference Host. Close it with [`Host::close`]; the test runner does.
pub struct Host {
    pub layout: Layout,
    pub engine: Engine,
    pub options: OpenOptions,
    pub url: String,
    /// The child site's origin (`http://localhost:<b>`), what cross-origin frame_origin must say.
    pub child_origin: String,
    pub page: Session,
    pub cdp: Cdp,
    pub(crate) context_id: String,
    pub(crate) tracked: Arc<Mutex<Tracked>>,
    pub(crate) mouse: Mutex<(f64, f64)>,
    pub(crate) last_snapshot: Mutex<Option<Value>>,
    /// Where the time of opening this Host went.
    pub timings: OpenTimings,
    /// The reference Session behind this Host's composer (set by the harness that opened it).
    pub session: Option<crate::server::session::SessionService>,
    /// The embedder's capture provider behind `window.__wippyCaptureProvider` (visual capture).
    pub(crate) capture: Option<crate::capture::CaptureProvider>,
    watcher: JoinHandle<()>,
}

impl Host {
    /// Opens `url` in a fresh browser context on `cdp`'s browser.
    pub async fn open_url(
        cdp: &Cdp,
        url: &str,
        child_origin: &str,
        layout: Layout,
        engine: Engine,
    ) -> Result<Host, HostError> {
        Self::open_url_with(cdp, url, child_origin, layout, engine, OpenOptions::default()).await
    }

    /// [`Host::open_url`] with emulation options (device scale factor).
    pub async fn open_url_with(
        cdp: &Cdp,
        url: &str,
        child_origin: &str,
        layout: Layout,
        engine: Engine,
        options: OpenOptions,
    ) -> Result<Host, HostError> {
        let started = std::time::Instant::now();
        let ctx = cdp.call("Target.createBrowserContext", None, json!({"disposeOnDetach": true})).await?;
        let context_id = str_field(&ctx, "browserContextId")?;
        match Self::open_in_context(cdp, &context_id, url, child_origin, layout, engine, options, started).await {
            Ok(host) => Ok(host),
            Err(e) => {
                // Nothing of a Host that failed to open is left behind in the shared browser.
                let _ = cdp
                    .call_with_timeout(
                        "Target.disposeBrowserContext",
                        None,
                        json!({"browserContextId": context_id}),
                        Duration::from_secs(5),
                    )
                    .await;
                Err(e)
            }
        }
    }

    async fn open_in_context(
        cdp: &Cdp,
        context_id: &str,
        url: &str,
        child_origin: &str,
        layout: Layout,
        engine: Engine,
        options: OpenOptions,
        started: std::time::Instant,
    ) -> Result<Host, HostError> {
        let since = || started.elapsed().as_secs_f64() * 1000.0;
        let mut timings = OpenTimings { context_ms: since(), ..OpenTimings::default() };
        let context_id = context_id.to_string();
        let target = cdp
            .call("Target.createTarget", None, json!({"url": "about:blank", "browserContextId": context_id}))
            .await?;
        let target_id = str_field(&target, "targetId")?;
        let attached = cdp.call("Target.attachToTarget", None, json!({"targetId": target_id, "flatten": true})).await?;
        let page = Session { cdp: cdp.clone(), id: str_field(&attached, "sessionId")? };

        let tracked = Arc::new(Mutex::new(Tracked::default()));
        let mut events = cdp.events();
        let watcher =
            AbortOnDrop(Some(tokio::spawn(watch(cdp.clone(), page.id.clone(), tracked.clone(), cdp.events()))));

        // Chromium runs one session's commands in order, so these are sent together: the same
        // effect as one after another, without waiting a round trip for each.
        let (w, h) = VIEWPORT;
        let metrics =
            json!({"width": w, "height": h, "deviceScaleFactor": options.device_scale_factor, "mobile": false});
        tokio::try_join!(
            page.call("Page.enable", json!({})),
            page.call("Runtime.enable", json!({})),
            page.call("DOM.enable", json!({})),
            page.call(
                "Target.setAutoAttach",
                json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
            ),
            page.call("Emulation.setDeviceMetricsOverride", metrics),
        )?;
        // The capture provider serves only Hosts whose agent actions are on (`actions=on`), the only
        // ones whose overlay can ask for a capture; other Hosts get neither binding nor task.
        let capture = url.contains("actions=on");
        if capture {
            page.call("Runtime.addBinding", json!({"name": crate::capture::provider::BINDING})).await?;
        }
        timings.page_ms = since();

        let nav = page.call("Page.navigate", json!({"url": url})).await?;
        if let Some(err) = nav.get("errorText").and_then(Value::as_str).filter(|e| !e.is_empty()) {
            return Err(HostError::Navigation { url: url.to_string(), reason: err.to_string() });
        }
        let load = async {
            loop {
                match events.recv().await {
                    Ok(ev) if ev.method == "Page.loadEventFired" && ev.session_id.as_deref() == Some(&page.id) => {
                        return Ok(())
                    }
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return Err(CdpError::Closed { method: "Page.loadEventFired".into() }),
                }
            }
        };
        match tokio::time::timeout(LOAD_TIMEOUT, load).await {
            Ok(r) => r?,
            Err(_) => return Err(HostError::Timeout { what: format!("the load event of {url}"), after: LOAD_TIMEOUT }),
        }
        timings.load_ms = since();
        let mut host = Host {
            layout,
            engine,
            options,
            url: url.to_string(),
            child_origin: child_origin.to_string(),
            page,
            cdp: cdp.clone(),
            context_id,
            tracked,
            mouse: Mutex::new((0.0, 0.0)),
            last_snapshot: Mutex::new(None),
            timings,
            session: None,
            capture: None,
            watcher: watcher.take(),
        };
        if capture {
            host.capture = Some(crate::capture::CaptureProvider::start(host.view(), target_id.clone()));
        }
        let ready = host.wait_ready().await?;
        // The page measured when the Host finished mounting, on its own clock: place that mark
        // between the load event and the end of ready().
        let ready_ms = since();
        let page_span = ready["page_ms"].as_f64().unwrap_or(0.0).max(0.0);
        host.timings.mounted_ms = (ready_ms - page_span).max(host.timings.load_ms);
        host.timings.ready_ms = ready_ms;
        Ok(host)
    }

    /// Waits until the runtime reports every child realm negotiated or given up on. Returns the
    /// runtime's `ready()` answer plus `page_ms`: how long `ready()` took after the Host mounted.
    pub async fn wait_ready(&self) -> Result<Value, HostError> {
        // The reference Host first mounts its apps (`window.__host.ready`), then the runtime
        // negotiates with every child realm. A Host that knows its apps are mounted says so
        // (`ready({mounted: true})`): that event replaces the runtime's 200 ms DOM-quiet guess.
        let expr = "(async () => {
            let mounted = false;
            if (window.__host) {
                const m = await window.__host.ready;
                if (m && m.ok === false) throw new Error('the Host reported errors: ' + JSON.stringify(m.errors));
                mounted = true;
            }
            if (!window.wippyAttention) throw new Error('the Attention runtime is not loaded in the Host document');
            const t0 = performance.now();
            const ready = await window.wippyAttention.ready(mounted ? { mounted: true } : undefined);
            return Object.assign({}, ready, { page_ms: performance.now() - t0 });
        })()";
        match self.page.eval_in(expr, None, READY_TIMEOUT).await {
            Ok(v) => Ok(v),
            Err(EvalError::Cdp(CdpError::Timeout { .. })) => Err(HostError::Timeout {
                what: "wippyAttention.ready() in the Host document".into(),
                after: READY_TIMEOUT,
            }),
            Err(e) => Err(HostError::Eval { what: "wippyAttention.ready()".into(), source: e }),
        }
    }

    /// Evaluates `expr` in the top document (awaiting promises) and returns its JSON value.
    pub async fn eval(&self, expr: &str) -> Result<Value, HostError> {
        self.page.eval(expr).await.map_err(|e| HostError::Eval { what: short(expr), source: e })
    }

    /// Asks the Host's public API for a snapshot around the latest pointer.
    pub async fn snapshot(&self) -> Result<Reported<Snapshot>, HostError> {
        self.snapshot_with(json!({})).await
    }

    /// Asks for a snapshot with options (`point`, `radius_css_px`, `step_css_px`, ...), read as
    /// the strict typed model (with the runtime's JSON kept beside it).
    pub async fn snapshot_with(&self, options: Value) -> Result<Reported<Snapshot>, HostError> {
        let expr = format!("window.wippyAttention.snapshot({options})");
        let snap = self.eval(&expr).await?;
        if !snap.is_object() {
            return Err(HostError::Unexpected { what: "snapshot()".into(), detail: short(&snap.to_string()) });
        }
        record_duration(&snap);
        *self.last_snapshot.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap.clone());
        parse_reported(&expr, "Snapshot", snap)
    }

    /// The `context_attachments` entry the runtime builds for `snapshot` (the snapshot's own JSON
    /// is what goes back to the runtime).
    pub async fn envelope(&self, snapshot: &Reported<Snapshot>) -> Result<Reported<Envelope>, HostError> {
        self.envelope_of(snapshot.json()).await
    }

    /// The envelope the runtime builds for any JSON value (a snapshot a check changed on purpose).
    pub async fn envelope_of(&self, snapshot: &Value) -> Result<Reported<Envelope>, HostError> {
        let expr = format!("window.wippyAttention.envelope({snapshot})");
        let env = self.eval(&expr).await?;
        parse_reported("window.wippyAttention.envelope(..)", "Envelope", env)
    }

    /// The runtime's current focus (`wippyAttention.focus()`), `None` when it reports none.
    pub async fn focus(&self) -> Result<Option<Reported<Focus>>, HostError> {
        let expr = "window.wippyAttention.focus()";
        match self.eval(expr).await? {
            Value::Null => Ok(None),
            f => parse_reported(expr, "Focus", f).map(Some),
        }
    }

    /// The last snapshot this Host returned, for failure artifacts.
    pub fn last_snapshot(&self) -> Option<Value> {
        self.last_snapshot.lock().unwrap_or_else(|e| e.into_inner()).clone()
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
            .map_err(|e| HostError::Eval { what: format!("{} in {frame:?}", short(expr)), source: e })
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
        let tree = self.page.call("Page.getFrameTree", json!({})).await?;
        let mut frames = Vec::new();
        flatten_frames(&tree["frameTree"], &mut frames);
        let found = frames.into_iter().find(|f| match frame {
            Frame::UrlContains(part) => f["url"].as_str().is_some_and(|u| u.contains(part.as_str())),
            Frame::Name(name) => f["name"].as_str() == Some(name.as_str()),
            Frame::Top => false,
        });
        let found = match found {
            Some(f) => Some(f),
            // An in-process frame inside an out-of-process frame (a grandchild realm of the Child site).
            None => self.find_in_child_trees(frame).await,
        };
        let Some(f) = found else { return Err(HostError::NoFrame(format!("{frame:?}"))) };
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
            None => Err(HostError::NoFrame(format!("{frame:?} (no main-world context yet)"))),
        }
    }

    /// The first frame matching `frame` in the frame trees of the out-of-process frames.
    async fn find_in_child_trees(&self, frame: &Frame) -> Option<Value> {
        for child in self.child_targets() {
            let session = Session { cdp: self.cdp.clone(), id: child.session_id };
            let Ok(tree) = session.call("Page.getFrameTree", json!({})).await else { continue };
            let mut frames = Vec::new();
            flatten_frames(&tree["frameTree"], &mut frames);
            if let Some(f) = frames.into_iter().find(|f| match frame {
                Frame::UrlContains(part) => f["url"].as_str().is_some_and(|u| u.contains(part.as_str())),
                Frame::Name(name) => f["name"].as_str() == Some(name.as_str()),
                Frame::Top => false,
            }) {
                return Some(f);
            }
        }
        None
    }

    /// A handle on the same page, sessions and tracked frames, for a task that outlives a borrow of
    /// this Host (the capture provider). It owns nothing: dropping it stops no watcher and it is
    /// never closed (closing would dispose of the real Host's browser context).
    pub(crate) fn view(&self) -> Host {
        Host {
            layout: self.layout,
            engine: self.engine,
            options: self.options,
            url: self.url.clone(),
            child_origin: self.child_origin.clone(),
            page: self.page.clone(),
            cdp: self.cdp.clone(),
            context_id: self.context_id.clone(),
            tracked: self.tracked.clone(),
            mouse: Mutex::new((0.0, 0.0)),
            last_snapshot: Mutex::new(None),
            timings: self.timings,
            session: None,
            capture: None,
            watcher: tokio::spawn(async {}),
        }
    }

    /// The capture provider of this Host page (configure it, read what it served). Hosts opened
    /// with `actions=on` have one.
    pub fn capture_provider(&self) -> &crate::capture::CaptureProvider {
        self.capture.as_ref().expect("a Host opened with actions=on has a capture provider")
    }

    /// A PNG of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, HostError> {
        let shot = self.page.call("Page.captureScreenshot", json!({"format": "png"})).await?;
        let data = shot["data"].as_str().unwrap_or_default();
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| HostError::Unexpected { what: "Page.captureScreenshot".into(), detail: e.to_string() })
    }

    /// Disposes of the browser context (and with it the page and its frames).
    pub async fn close(self) {
        self.watcher.abort();
        let _ = self
            .cdp
            .call_with_timeout(
                "Target.disposeBrowserContext",
                None,
                json!({"browserContextId": self.context_id}),
                Duration::from_secs(5),
            )
            .await;
    }
}

/// With `ATTENTION_METRICS=FILE`, appends each snapshot's `capture.duration_ms` to FILE (one
/// number a line), so a whole suite's figures can be summarized afterwards.
fn record_duration(snap: &Value) {
    let (Some(path), Some(ms)) =
        (std::env::var_os("ATTENTION_METRICS"), snap.pointer("/capture/duration_ms").and_then(Value::as_f64))
    else {
        return;
    };
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{ms}");
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// Aborts the frame watcher unless the Host that owns it was built.
struct AbortOnDrop(Option<JoinHandle<()>>);

impl AbortOnDrop {
    fn take(mut self) -> JoinHandle<()> {
        self.0.take().expect("taken once")
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.abort();
        }
    }
}

pub(crate) fn flatten_frames(node: &Value, out: &mut Vec<Value>) {
    out.push(node["frame"].clone());
    if let Some(children) = node["childFrames"].as_array() {
        for c in children {
            flatten_frames(c, out);
        }
    }
}

/// Reads a runtime answer as the strict typed model, or names what failed and where.
fn parse_reported<T: serde::de::DeserializeOwned>(
    what: &str,
    model: &'static str,
    json: Value,
) -> Result<Reported<T>, HostError> {
    Reported::parse(json).map_err(|source| HostError::Model { what: short(what), model, source })
}

fn str_field(v: &Value, key: &str) -> Result<String, HostError> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| HostError::Unexpected { what: key.to_string(), detail: short(&v.to_string()) })
}

fn short(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Follows the page's targets and frames: attaches to out-of-process iframes (and theirs),
/// records main-world contexts and collects console output.
async fn watch(
    cdp: Cdp,
    page_session: String,
    tracked: Arc<Mutex<Tracked>>,
    mut events: tokio::sync::broadcast::Receiver<Arc<crate::cdp::Event>>,
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
                let cdp = cdp.clone();
                tokio::spawn(async move {
                    let s = Some(child_sid.as_str());
                    let _ = cdp.call("Runtime.enable", s, json!({})).await;
                    let _ = cdp
                        .call(
                            "Target.setAutoAttach",
                            s,
                            json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
                        )
                        .await;
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
