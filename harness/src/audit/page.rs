//! A page `audit` opens: any http(s) URL in a fresh browser context, with the Attention runtime
//! injected into every realm through CDP before page scripts run, the way the reference server's
//! `<script>` tag does for our own pages. On the page's session `Page.addScriptToEvaluateOnNewDocument`
//! (the top document and its in-process frames) and `Target.setAutoAttach {autoAttach,
//! waitForDebuggerOnStart: true, flatten: true}`; every out-of-process frame is attached paused,
//! gets the same script in its own session and is then resumed (`frames::watch` with an init
//! script). Chromium runs such a script in each new document, so a frame whose window is reused
//! across a navigation (an iframe's initial about:blank) gets it for its new document too, where the
//! runtime binds to that document. After the load event the runtime's `ready()` is awaited and the
//! page must settle: no request of any frame session in flight (`Network.*` events) and the layout
//! the same in every realm, both for [`SETTLE_FRAMES`] animation frames in a row (a page that loads
//! its components with a script import after its load event is not audited half-built).
//!
//! A page that did not load is no page to audit: the top document's HTTP response (CDP
//! `Network.responseReceived` of type `Document` for the page's main frame) with a status of 400 or
//! more, or a navigation Chromium ends without a document (`net::ERR_...`), is an [`OpenError`] that
//! names the status (`404 Not Found`) or Chromium's reason, before the runtime is awaited.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::{dom, emulation, network, page, target};
use chromiumoxide::cdp::js_protocol::runtime;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::attention::{Reported, Snapshot};
use crate::cdp::{Cdp, CdpError, EvalError, Session};
use crate::checks::agreement::PointRuntime;
use crate::frames::{auto_attach_paused, watch, FrameSessions, HostError};
use crate::host::{
    dispose_context, eval_snapshot, navigate, parse_snapshot, screenshot_png, AbortOnDrop, READY_TIMEOUT,
};

/// How many animation frames in a row every realm's layout must stay the same to count as settled.
pub const SETTLE_FRAMES: usize = 5;
/// How long the layout may take to settle before the audit goes on (and says it did not settle).
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

/// The HTTP response of the audited page's top document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DocumentResponse {
    pub status: u16,
    /// The server's reason phrase, else the status code's canonical one (`Not Found`); may be empty.
    pub status_text: String,
    pub mime_type: String,
}

impl std::fmt::Display for DocumentResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.status)?;
        if !self.status_text.is_empty() {
            write!(f, " {}", self.status_text)?;
        }
        Ok(())
    }
}

impl DocumentResponse {
    /// From a `Network.responseReceived` event's params.
    fn of(params: &Value) -> Option<DocumentResponse> {
        let r = &params["response"];
        let status = u16::try_from(r["status"].as_u64()?).ok()?;
        let given = r["statusText"].as_str().unwrap_or_default().trim();
        let status_text = if given.is_empty() {
            axum::http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or_default()
        } else {
            given
        };
        Some(DocumentResponse {
            status,
            status_text: status_text.to_string(),
            mime_type: r["mimeType"].as_str().unwrap_or_default().to_string(),
        })
    }
}

/// Why an audited page could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The server answered the top document with an HTTP error.
    #[error("the page did not load: the server answered {response}")]
    Status { response: DocumentResponse },
    /// Chromium ended the navigation without a document (DNS, connection, a download ...).
    #[error("the page did not load: {reason}")]
    NoDocument { reason: String },
    #[error(transparent)]
    Host(#[from] HostError),
}

/// The emulated window of an audited page.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PageView {
    /// CSS px.
    pub width: u32,
    pub height: u32,
    /// Device px per CSS px.
    pub dpr: f64,
}

/// An opened page with the runtime in every realm. Close it with [`AuditPage::close`].
pub struct AuditPage {
    pub url: String,
    pub view: PageView,
    /// The top document's HTTP response (`None` when Chromium reported none: not an http(s) load).
    pub response: Option<DocumentResponse>,
    frames: FrameSessions,
    context_id: String,
    /// Whether the layout settled before the audit started (see the module comment).
    pub settled: bool,
    watcher: tokio::task::JoinHandle<()>,
}

impl AuditPage {
    /// Opens `url` in a fresh context on `cdp`'s browser with `runtime` (the runtime bundle's
    /// source) injected into every realm, waits for its load, the runtime's `ready()` and a settled
    /// layout. A page that did not load is an [`OpenError::Status`] or [`OpenError::NoDocument`].
    /// Nothing is left in the browser when it fails.
    pub async fn open(cdp: &Cdp, url: &str, view: PageView, runtime: &str) -> Result<AuditPage, OpenError> {
        let create = target::CreateBrowserContextParams { dispose_on_detach: Some(true), ..Default::default() };
        let context_id = cdp.execute(None, &create).await.map_err(HostError::from)?.browser_context_id.inner().clone();
        match Self::open_in(cdp, &context_id, url, view, runtime).await {
            Ok(p) => Ok(p),
            Err(e) => {
                let _ = dispose_context(cdp, &context_id).await;
                Err(e)
            }
        }
    }

    async fn open_in(
        cdp: &Cdp,
        context_id: &str,
        url: &str,
        view: PageView,
        runtime: &str,
    ) -> Result<AuditPage, OpenError> {
        let mut create = target::CreateTargetParams::new("about:blank");
        create.browser_context_id = Some(BrowserContextId::new(context_id));
        let target_id = cdp.execute(None, &create).await.map_err(HostError::from)?.target_id;
        let main_frame = target_id.inner().clone();
        let mut attach = target::AttachToTargetParams::new(target_id);
        attach.flatten = Some(true);
        let attached = cdp.execute(None, &attach).await.map_err(HostError::from)?;
        let page = Session { cdp: cdp.clone(), id: attached.session_id.inner().clone() };
        let frames = FrameSessions::new(cdp.clone(), page.clone());
        let script: Arc<str> = Arc::from(runtime);
        let watcher = AbortOnDrop(Some(tokio::spawn(watch(
            cdp.clone(),
            page.id.clone(),
            frames.tracked.clone(),
            cdp.events(),
            Some(script.clone()),
        ))));
        let metrics = emulation::SetDeviceMetricsOverrideParams::new(
            i64::from(view.width),
            i64::from(view.height),
            view.dpr,
            false,
        );
        // In order on the page's session: the script is in place before the navigation below.
        // Every request from here on is seen (settle waits for the network to go idle).
        let network = cdp.events();
        let mut document = cdp.events();
        async {
            page.execute(&page::EnableParams::default()).await?;
            page.execute(&network::EnableParams::default()).await?;
            page.execute(&runtime::EnableParams::default()).await?;
            page.execute(&dom::EnableParams::default()).await?;
            page.execute(&page::AddScriptToEvaluateOnNewDocumentParams::new(&*script)).await?;
            page.execute(&auto_attach_paused()).await?;
            page.execute(&metrics).await
        }
        .await
        .map_err(HostError::from)?;
        let navigated = navigate(&page, url, crate::host::LOAD_TIMEOUT).await;
        // The main frame's document response arrived before its load event (or the failure).
        let mut response = None;
        while let Ok(ev) = document.try_recv() {
            if ev.method == "Network.responseReceived"
                && ev.session_id.as_deref() == Some(page.id.as_str())
                && ev.params["type"] == "Document"
                && ev.params["frameId"].as_str() == Some(main_frame.as_str())
            {
                response = DocumentResponse::of(&ev.params).or(response);
            }
        }
        if let Some(r) = response.as_ref().filter(|r| r.status >= 400) {
            return Err(OpenError::Status { response: r.clone() });
        }
        match navigated {
            Err(HostError::Navigation { reason, .. }) => return Err(OpenError::NoDocument { reason }),
            Err(e) => return Err(e.into()),
            Ok(()) => {}
        }
        let mut opened = AuditPage {
            url: url.to_string(),
            view,
            response,
            frames,
            context_id: context_id.to_string(),
            settled: false,
            watcher: watcher.take(),
        };
        opened.wait_ready().await?;
        opened.settled = opened.settle(network).await?;
        Ok(opened)
    }

    /// Waits for the runtime of the top document to negotiate with every child realm.
    async fn wait_ready(&self) -> Result<(), HostError> {
        let expr = "(async () => {
            if (!window.wippyAttention) throw new Error('the Attention runtime is not in the top document (the CDP injection did not run)');
            await window.wippyAttention.ready();
            return true;
        })()";
        match self.frames.page().eval_in(expr, None, READY_TIMEOUT).await {
            Ok(_) => Ok(()),
            Err(EvalError::Cdp(CdpError::Timeout { .. })) => Err(HostError::Timeout {
                what: "wippyAttention.ready() in the audited page's top document".into(),
                after: READY_TIMEOUT,
            }),
            Err(e) => Err(HostError::Eval { what: "wippyAttention.ready()".into(), source: e }),
        }
    }

    /// Waits until no request of the page's frame sessions is in flight and every realm's layout
    /// digest is unchanged, for [`SETTLE_FRAMES`] animation frames in a row; `false` when that did not
    /// happen within [`SETTLE_TIMEOUT`] (an animation, a request that never ends).
    async fn settle(
        &self,
        mut network: tokio::sync::broadcast::Receiver<Arc<crate::cdp::Event>>,
    ) -> Result<bool, HostError> {
        let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
        let mut last = String::new();
        let mut same = 0;
        let mut in_flight: HashSet<(String, String)> = HashSet::new();
        loop {
            let ours: HashSet<String> = self.frames.sessions().into_iter().map(|s| s.id).collect();
            let mut lagged = false;
            loop {
                match network.try_recv() {
                    Ok(ev) => {
                        let (Some(sid), Some(id)) = (ev.session_id.clone(), ev.params["requestId"].as_str()) else {
                            continue;
                        };
                        if !ours.contains(&sid) {
                            continue;
                        }
                        match ev.method.as_str() {
                            "Network.requestWillBeSent" => {
                                in_flight.insert((sid, id.to_string()));
                            }
                            "Network.loadingFinished" | "Network.loadingFailed" => {
                                in_flight.remove(&(sid, id.to_string()));
                            }
                            _ => {}
                        }
                    }
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => lagged = true,
                    Err(_) => break,
                }
            }
            if lagged {
                // Events were lost: what is in flight is not known; start counting afresh.
                in_flight.clear();
            }
            let digest = format!("{} {}", self.layout_digest().await?, in_flight.len());
            same = if digest == last && in_flight.is_empty() && !lagged { same + 1 } else { 0 };
            if same >= SETTLE_FRAMES {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            last = digest;
            self.frames
                .page()
                .eval("new Promise(r => requestAnimationFrame(() => r(true)))")
                .await
                .map_err(|e| HostError::Eval { what: "an animation frame".into(), source: e })?;
        }
    }

    /// Every frame session's document state, element count and rounded element boxes (open shadow
    /// roots and same-origin frames walked into), as one string.
    async fn layout_digest(&self) -> Result<String, HostError> {
        const EXPR: &str = "(() => {
            let n = 0, h = 0;
            const walk = (root) => {
                for (const e of root.querySelectorAll('*')) {
                    n++;
                    const r = e.getBoundingClientRect();
                    h = (h * 31 + Math.round(r.x * 4) + 7 * Math.round(r.y * 4) + 13 * Math.round(r.width * 4) + 17 * Math.round(r.height * 4)) % 1000000007;
                    if (e.shadowRoot) walk(e.shadowRoot);
                    if (e.localName === 'iframe') { try { if (e.contentDocument) walk(e.contentDocument); } catch (_) {} }
                }
            };
            walk(document);
            return document.readyState + ' ' + n + ' ' + h;
        })()";
        let mut parts = Vec::new();
        for s in self.frames.sessions() {
            // A frame gone between the list and the read has no layout to settle.
            match s.eval(EXPR).await {
                Ok(v) => parts.push(v.as_str().unwrap_or("?").to_string()),
                Err(EvalError::Thrown(t)) => parts.push(t),
                Err(EvalError::Cdp(_)) => {}
            }
        }
        Ok(parts.join(" | "))
    }

    /// The page's sessions and tracked frames.
    pub fn frames(&self) -> &FrameSessions {
        &self.frames
    }

    /// A PNG of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, HostError> {
        screenshot_png(self.frames.page()).await
    }

    /// Evaluates `expr` in the top document.
    pub async fn eval(&self, expr: &str) -> Result<Value, HostError> {
        self.frames.page().eval(expr).await.map_err(|e| HostError::Eval { what: crate::frames::short(expr), source: e })
    }

    /// Disposes of the browser context (the page and its frames with it).
    pub async fn close(self) {
        self.watcher.abort();
        let _ = dispose_context(self.frames.cdp(), &self.context_id).await;
    }
}

impl Drop for AuditPage {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

impl PointRuntime for AuditPage {
    fn frames(&self) -> &FrameSessions {
        &self.frames
    }
    fn snapshot<'a>(&'a self, options: Value) -> BoxFuture<'a, anyhow::Result<Reported<Snapshot>>> {
        Box::pin(async move { Ok(parse_snapshot(eval_snapshot(self.frames.page(), &options).await?)?) })
    }
}
