//! One opened reference Host: a fresh browser context and page on the shared browser, navigated to
//! the page [`HostOptions`] describe, with every frame's CDP session tracked (out-of-process iframes
//! included), console output collected, and the runtime's public API one call away.
//!
//! A [`Host`]'s methods, grouped by what a test does with them (each group in one module):
//! - open and close: [`Host::open`], [`Host::close`], [`Host::options`] (here; options in
//!   `host/options.rs`);
//! - observe, the runtime's public API: [`Host::wait_ready`], [`Host::eval`], [`Host::snapshot`],
//!   [`Host::snapshot_with`], [`Host::envelope`], [`Host::last_snapshot`], [`Host::console`] (here);
//! - input, trusted input as a user sends it: `move_to`, `click_at`, `drag`, `tap`, `press_key`,
//!   `type_text` ... (`input.rs`);
//! - read truth, what Chromium says beside the runtime: [`Host::landmark_rect`],
//!   [`Host::landmark_ax`], [`Host::locate_landmark`], [`Host::focused_truth`],
//!   [`Host::eval_in_frame`] (`host/truth.rs`), [`Host::screenshot_png`] (here); every other ground-truth read
//!   (frame chains, hit tests, located nodes, a frame's own session) is on [`Host::frames`], the
//!   page's [`FrameSessions`] (`frames.rs`, `oracle.rs`, `focus_truth.rs`), which takes no Host;
//! - inspect, the runtime's inspection API from the top realm or a child realm: `find_semantic`,
//!   `find_css`, `tree`, `node`, `geometry`, `hit_test`, `cursor`, `focus_read`, `selection_read`,
//!   `subscribe` (`host/inspect.rs`);
//! - act as the embedder: [`Host::capture_provider`] (`capture/`), and the reference Session behind
//!   the composer ([`Host::session`], the agent in `agent.rs`).

use std::sync::Mutex;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::{dom, emulation, page, target};
use chromiumoxide::cdp::js_protocol::runtime;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use crate::attention::{Envelope, Focus, Reported, Snapshot};
use crate::cdp::EvalError;
use crate::cdp::{Cdp, CdpError, Session};
use crate::frames::short;
pub use crate::frames::{ChildTarget, ComponentFailure, CssProblem, Frame, FrameSessions, HostError};

mod injection;
mod inspect;
mod options;
mod truth;
pub use injection::guarded_runtime;
pub use inspect::{HitQuery, InspectOptions, Inspected, Realm, SemanticQuery, Subscription};
pub use options::{Corpus, Declaration, Extra, Geometry, HostOptions, Mount, VIEWPORT};

/// The two reference Host shells (DESIGN.md "The two layouts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Declarative multi-panel Host built from `pages/host/layouts/default.json`.
    Managed,
    /// The older direct embedding with fixed Host chrome.
    Compat,
}

/// How the Host mounts pages: iframes, or Web Fragments (the real `web-fragments` package).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
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

/// How long navigation may take until the load event.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the runtime may take to negotiate with every child realm of the reference Host.
pub const READY_TIMEOUT: Duration = Duration::from_secs(15);
/// What [`READY_TIMEOUT`] and [`LOAD_TIMEOUT`] grow by for each realm an extra adds
/// ([`HostOptions::ready_deadline`], [`HostOptions::load_deadline`]).
/// Every realm of one site shares one renderer's main thread: on this 2-core machine a 64-realm Host
/// settles in 3.4-3.8 s alone (about 55 ms per realm) and in 15-19 s beside a second one (the
/// suite runs two tests at once), which a fixed 15 s cut (clean-clone CI, stop 28); four such
/// tests two at a time took over 20 s to the load event. 250 ms a realm
/// is about 4x the realm's own cost; a realm that never answers still fails the open, by name.
pub const READY_PER_REALM: Duration = Duration::from_millis(250);

/// Where the time of [`Host::open`] went, in milliseconds from the call (cumulative marks),
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
    options: HostOptions,
    pub url: String,
    /// The child site's origin (`http://localhost:<b>`), what cross-origin frame_origin must say.
    pub child_origin: String,
    /// The top page's session (also in `frames`): the runtime API evaluates there.
    pub(crate) page: Session,
    /// The page's sessions and tracked frames, for ground truth.
    frames: FrameSessions,
    context_id: String,
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
    /// Opens the Host page `options` describe, served from `host_origin` (whose Child site is
    /// `child_origin`), in a fresh browser context on `cdp`'s browser.
    pub async fn open(
        cdp: &Cdp,
        host_origin: &str,
        child_origin: &str,
        options: HostOptions,
    ) -> Result<Host, HostError> {
        let started = std::time::Instant::now();
        let create = target::CreateBrowserContextParams { dispose_on_detach: Some(true), ..Default::default() };
        let context_id = cdp.execute(None, &create).await?.browser_context_id.inner().clone();
        let url = options.url(host_origin);
        match Self::open_in_context(cdp, &context_id, &url, child_origin, options, started).await {
            Ok(host) => Ok(host),
            Err(e) => {
                // Nothing of a Host that failed to open is left behind in the shared browser.
                let _ = dispose_context(cdp, &context_id).await;
                Err(e)
            }
        }
    }

    async fn open_in_context(
        cdp: &Cdp,
        context_id: &str,
        url: &str,
        child_origin: &str,
        options: HostOptions,
        started: std::time::Instant,
    ) -> Result<Host, HostError> {
        let since = || started.elapsed().as_secs_f64() * 1000.0;
        let mut timings = OpenTimings { context_ms: since(), ..OpenTimings::default() };
        let context_id = context_id.to_string();
        let mut create = target::CreateTargetParams::new("about:blank");
        create.browser_context_id = Some(BrowserContextId::new(context_id.clone()));
        let target_id = cdp.execute(None, &create).await?.target_id;
        let mut attach = target::AttachToTargetParams::new(target_id.clone());
        attach.flatten = Some(true);
        let attached = cdp.execute(None, &attach).await?;
        let page = Session { cdp: cdp.clone(), id: attached.session_id.inner().clone() };
        let target_id = target_id.inner().clone();

        let frames = FrameSessions::new(cdp.clone(), page.clone());
        // Application pages served elsewhere get the runtime through CDP (host/injection.rs).
        let injected = options.injection();
        let watcher = AbortOnDrop(Some(tokio::spawn(crate::frames::watch(
            cdp.clone(),
            page.id.clone(),
            frames.tracked.clone(),
            cdp.events(),
            injected.clone(),
        ))));

        // Chromium runs one session's commands in order, so these are sent together: the same
        // effect as one after another, without waiting a round trip for each.
        let (w, h) = options.viewport_size();
        let metrics =
            emulation::SetDeviceMetricsOverrideParams::new(i64::from(w), i64::from(h), options.scale_factor(), false);
        let (page_domain, runtime_domain, dom_domain) =
            (page::EnableParams::default(), runtime::EnableParams::default(), dom::EnableParams::default());
        let attach =
            if injected.is_some() { crate::frames::auto_attach_paused() } else { crate::frames::auto_attach() };
        tokio::try_join!(
            page.execute(&page_domain),
            page.execute(&runtime_domain),
            page.execute(&dom_domain),
            page.execute(&attach),
            page.execute(&metrics),
        )?;
        if let Some(script) = &injected {
            // After Page.enable (without it the script never runs), before the navigation.
            page.execute(&page::AddScriptToEvaluateOnNewDocumentParams::new(&**script)).await?;
        }
        // The capture provider serves only Hosts whose agent actions are on, the only ones whose
        // overlay can ask for a capture; other Hosts get neither binding nor task.
        let capture = options.actions_enabled();
        if capture {
            page.execute(&runtime::AddBindingParams::new(crate::capture::provider::BINDING)).await?;
        }
        timings.page_ms = since();

        navigate(&page, url, options.load_deadline()).await?;
        timings.load_ms = since();
        let mut host = Host {
            layout: options.layout(),
            engine: options.engine(),
            options,
            url: url.to_string(),
            child_origin: child_origin.to_string(),
            page,
            frames,
            context_id,
            mouse: Mutex::new((0.0, 0.0)),
            last_snapshot: Mutex::new(None),
            timings,
            session: None,
            capture: None,
            watcher: watcher.take(),
        };
        if capture {
            host.capture = Some(crate::capture::CaptureProvider::start(
                host.frames.clone(),
                target_id.clone(),
                host.options.scale_factor(),
            ));
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

    /// The options this Host was opened with.
    pub fn options(&self) -> &HostOptions {
        &self.options
    }

    /// Waits until the runtime reports every child realm negotiated or given up on. Returns the
    /// runtime's `ready()` answer plus `page_ms`: how long `ready()` took after the Host mounted.
    pub async fn wait_ready(&self) -> Result<Value, HostError> {
        // The reference Host first mounts its apps (`window.__host.ready`), then the runtime
        // negotiates with every child realm. A Host that knows its apps are mounted says so
        // (`ready({mounted: true})`): that event replaces the runtime's 200 ms DOM-quiet guess.
        // `__harnessOpen.step` says how far this got, for the message when the deadline expires.
        let expr = "(async () => {
            let mounted = false;
            window.__harnessOpen = { step: 'the reference Host mounting its apps (__host.ready)' };
            if (window.__host) {
                const m = await window.__host.ready;
                const failed = m && m.ok === false && m.errors.find((e) => e.kind === 'component-failed');
                if (failed) return { component_failed: failed };
                if (m && m.ok === false) throw new Error('the Host reported errors: ' + JSON.stringify(m.errors));
                mounted = true;
            }
            if (!window.wippyAttention) throw new Error('the Attention runtime is not loaded in the Host document');
            const t0 = performance.now();
            window.__harnessOpen.step = 'the runtime negotiating with its child realms (wippyAttention.ready())';
            const ready = await window.wippyAttention.ready(mounted ? { mounted: true } : undefined);
            window.__harnessOpen.step = 'done';
            return Object.assign({}, ready, { page_ms: performance.now() - t0 });
        })()";
        let deadline = self.options.ready_deadline();
        match self.page.eval_in(expr, None, deadline).await {
            Ok(v) if v.get("component_failed").is_some() => Err(component_failed(&v["component_failed"])),
            Ok(v) => Ok(v),
            Err(EvalError::Cdp(CdpError::Timeout { .. })) => Err(HostError::Timeout {
                what: format!("wippyAttention.ready() in the Host document; {}", self.open_pending().await),
                after: deadline,
            }),
            Err(e) => Err(HostError::Eval { what: "wippyAttention.ready()".into(), source: e }),
        }
    }

    /// Waits until every realm has delivered to the Host realm what it observed of the input given so
    /// far. A child forwards its discrete events, focus and selection up at once and announces its
    /// moves (`window-pending`), by postMessage, which the browser delivers in order per sender; the
    /// runtime's `ready({mounted: true})` asks every granted child, and through it every grandchild,
    /// with the relay operation `ready`, so its answer comes after everything a realm sent up before
    /// it. Input given through CDP was handled by the realm when its command was acknowledged, so
    /// after this a snapshot sees all of it (`scenario` takes its snapshots so: a golden must not
    /// depend on how fast a child's messages crossed). Bounded by the open's ready deadline.
    pub async fn observations_delivered(&self) -> Result<(), HostError> {
        let expr = "window.wippyAttention.ready({ mounted: true }).then(() => true)";
        let deadline = self.options.ready_deadline();
        match self.page.eval_in(expr, None, deadline).await {
            Ok(_) => Ok(()),
            Err(EvalError::Cdp(CdpError::Timeout { .. })) => Err(HostError::Timeout {
                what: format!(
                    "the child realms delivering what they observed (wippyAttention.ready()); {}",
                    self.open_pending().await
                ),
                after: deadline,
            }),
            Err(e) => Err(HostError::Eval { what: "wippyAttention.ready()".into(), source: e }),
        }
    }

    /// What an open still waits for, read when its deadline expired (the harness's own deadline, not
    /// the spec's): the step of `wait_ready`, the frames Chromium attached, and every binding of the
    /// Host realm's runtime that is not settled (mount id, state, discovery attempts, queries in
    /// flight), from its debug hook (never tokens).
    async fn open_pending(&self) -> String {
        const EXPR: &str = "(() => {
            const step = window.__harnessOpen ? window.__harnessOpen.step : 'the page script (no __harnessOpen)';
            const rt = window.__wippyAttentionRuntime;
            if (!rt) return { step, realms: null };
            const children = rt.debug().children;
            const settled = (c) => c.state === 'unavailable' || c.state === 'unsupported' || c.state === 'detached';
            const pending = children.filter((c) => !settled(c) && !(c.state === 'granted' && c.pending === 0));
            return { step, total: children.length, realms: pending.map((c) =>
                c.mount_id + ' (' + c.state + ', ' + c.attempts + ' attempts, ' + c.pending + ' queries in flight)') };
        })()";
        let frames = self.frames.sessions().len();
        match self.page.eval_in(EXPR, None, Duration::from_secs(2)).await {
            Ok(v) => {
                let step = v["step"].as_str().unwrap_or("?").to_string();
                let realms: Vec<String> = v["realms"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|r| r.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                let total = v["total"].as_u64().unwrap_or(0);
                let shown = realms.iter().take(16).cloned().collect::<Vec<_>>().join(", ");
                let more = realms.len().saturating_sub(16);
                format!(
                    "still pending: {step}; {} of {total} child realms of the Host realm not settled{}{}; {frames} frame sessions attached",
                    realms.len(),
                    if realms.is_empty() { String::new() } else { format!(": {shown}") },
                    if more > 0 { format!(" and {more} more") } else { String::new() },
                )
            }
            Err(e) => format!("the page did not answer what is pending ({e}); {frames} frame sessions attached"),
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
        let snap = eval_snapshot(&self.page, &options).await?;
        record_duration(&snap);
        *self.last_snapshot.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap.clone());
        parse_snapshot(snap)
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

    /// The envelope the runtime builds for `snapshot` as attachment `version` (1-4): its `version`
    /// member says which version it wrote (a snapshot a compact version cannot express is v1).
    pub async fn envelope_version(&self, snapshot: &Value, version: u64) -> Result<Reported<Envelope>, HostError> {
        let expr = format!("window.wippyAttention.envelope({snapshot}, {{version: {version}}})");
        let env = self.eval(&expr).await?;
        parse_reported("window.wippyAttention.envelope(.., {version})", "Envelope", env)
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
        self.frames.console()
    }

    /// The page's CDP sessions and tracked frames: the ground-truth reads beyond the shortcuts of
    /// `host/truth.rs` (frame chains, Chromium's hit test, located nodes), and the typed escape hatch
    /// for a read of a test's own (`host.frames().page().execute(..)`).
    pub fn frames(&self) -> &FrameSessions {
        &self.frames
    }

    /// The capture provider of this Host page (configure it, read what it served). Hosts opened
    /// with agent actions on ([`HostOptions::actions`]) have one.
    pub fn capture_provider(&self) -> &crate::capture::CaptureProvider {
        self.capture.as_ref().expect("a Host opened with agent actions on has a capture provider")
    }

    /// Loads the Host's URL again in the same page and browser context, until the load event and
    /// the runtime's `ready()` (what reusing a context instead of opening a fresh one would cost:
    /// `bench open-cost` compares the two).
    pub async fn reload(&self) -> Result<(), HostError> {
        navigate(&self.page, &self.url, self.options.load_deadline()).await?;
        self.wait_ready().await.map(drop)
    }

    /// A PNG of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, HostError> {
        screenshot_png(&self.page).await
    }

    /// Disposes of the browser context (and with it the page and its frames).
    pub async fn close(self) {
        self.watcher.abort();
        let _ = dispose_context(&self.frames.cdp, &self.context_id).await;
    }
}

/// The Host's `component-failed` report (host.js) as the typed error.
fn component_failed(e: &Value) -> HostError {
    let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
    match ComponentFailure::from_state(e["reason"].as_str().unwrap_or_default()) {
        Some(reason) => HostError::Component {
            panel: text("panelId"),
            module: text("module"),
            tag: text("tag"),
            reason,
            message: text("message"),
        },
        None => HostError::Unexpected { what: "the Host's component report".into(), detail: e.to_string() },
    }
}

/// Navigates `page` to `url` and waits for its load event (at most `deadline`: [`LOAD_TIMEOUT`], or
/// [`HostOptions::load_deadline`] for a Host); on the deadline, says what the document was still loading.
pub(crate) async fn navigate(page: &Session, url: &str, deadline: Duration) -> Result<(), HostError> {
    // Subscribed before the navigation, so its load event cannot be missed.
    let mut events = page.cdp.events();
    let nav = page.execute(&page::NavigateParams::new(url)).await?;
    if let Some(err) = nav.error_text.filter(|e| !e.is_empty()) {
        return Err(HostError::Navigation { url: url.to_string(), reason: err });
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
    match tokio::time::timeout(deadline, load).await {
        Ok(r) => r?,
        Err(_) => {
            // The harness's own deadline: say what the page was still loading.
            let state = page
                .eval_in(
                    "document.readyState + ', ' + document.querySelectorAll('iframe').length + ' iframes, ' + \
                     performance.getEntriesByType('resource').filter((r) => !r.responseEnd).length + ' resources without a response'",
                    None,
                    Duration::from_secs(2),
                )
                .await
                .map(|v| v.as_str().unwrap_or("?").to_string())
                .unwrap_or_else(|e| format!("the page did not answer ({e})"));
            return Err(HostError::Timeout {
                what: format!("the load event of {url}; still pending: the document loading ({state})"),
                after: deadline,
            });
        }
    }
    Ok(())
}

/// A PNG of `page`'s viewport (`Page.captureScreenshot`).
pub(crate) async fn screenshot_png(page: &Session) -> Result<Vec<u8>, HostError> {
    let png = page::CaptureScreenshotParams { format: Some(page::CaptureScreenshotFormat::Png), ..Default::default() };
    let shot = page.execute(&png).await?;
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(AsRef::<str>::as_ref(&shot.data))
        .map_err(|e| HostError::Unexpected { what: "Page.captureScreenshot".into(), detail: e.to_string() })
}

/// The top realm's `wippyAttention.snapshot(options)` on `page`, as the runtime's JSON (an object).
pub(crate) async fn eval_snapshot(page: &Session, options: &Value) -> Result<Value, HostError> {
    let expr = format!("window.wippyAttention.snapshot({options})");
    let snap = page.eval(&expr).await.map_err(|e| HostError::Eval { what: short(&expr), source: e })?;
    if !snap.is_object() {
        return Err(HostError::Unexpected { what: "snapshot()".into(), detail: short(&snap.to_string()) });
    }
    Ok(snap)
}

/// A snapshot's JSON read as the strict typed model.
pub(crate) fn parse_snapshot(snap: Value) -> Result<Reported<Snapshot>, HostError> {
    parse_reported("window.wippyAttention.snapshot(..)", "Snapshot", snap)
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
pub(crate) struct AbortOnDrop(pub(crate) Option<JoinHandle<()>>);

impl AbortOnDrop {
    pub(crate) fn take(mut self) -> JoinHandle<()> {
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

/// Disposes of a browser context (and every page in it), waiting at most 5 s.
pub(crate) async fn dispose_context(cdp: &Cdp, context_id: &str) -> Result<Value, CdpError> {
    let dispose = target::DisposeBrowserContextParams::new(BrowserContextId::new(context_id));
    cdp.send_with_timeout(None, &dispose, Duration::from_secs(5)).await
}

/// Reads a runtime answer as the strict typed model, or names what failed and where.
fn parse_reported<T: serde::de::DeserializeOwned>(
    what: &str,
    model: &'static str,
    json: Value,
) -> Result<Reported<T>, HostError> {
    parse_reported_with(what, model, json, Reported::parse)
}

/// [`parse_reported`] with the model's parse function (`Reported::parse_inspection`, say).
fn parse_reported_with<T>(
    what: &str,
    model: &'static str,
    json: Value,
    parse: fn(Value) -> Result<Reported<T>, crate::attention::ParseError>,
) -> Result<Reported<T>, HostError> {
    parse(json).map_err(|source| HostError::Model { what: short(what), model, source })
}
