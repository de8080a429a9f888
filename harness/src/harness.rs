//! The process-wide harness: one tokio runtime, one reference server and one Chromium per process
//! (Playwright's worker-scoped browser), a fresh browser context per test (its test-scoped context).
//! A browser that died is relaunched for the next test; the test that saw it die fails.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use futures::FutureExt;
use tokio::runtime::Runtime;
use tokio::sync::Mutex;

use crate::browser::{BrowserError, Chromium};
use crate::cdp::{Cdp, CdpError};
use crate::host::{Engine, Host, HostError, HostOptions, Layout};
use crate::report;
use crate::server::{default_pages_dir, Server, ServerError};

#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("cannot start the tokio runtime: {0}")]
    Runtime(std::io::Error),
}

struct Live {
    chromium: Arc<Chromium>,
    cdp: Cdp,
}

/// The shared server and browser. Get it with [`Harness::global`] in tests, or build one with
/// [`Harness::start`] in the CLI.
pub struct Harness {
    rt: Runtime,
    server: Server,
    live: Mutex<Option<Live>>,
}

static GLOBAL: OnceLock<Harness> = OnceLock::new();

impl Harness {
    /// Starts a runtime and the reference server for `pages` (the browser starts on first use).
    pub fn start(pages: PathBuf) -> Result<Harness, HarnessError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("attention-harness")
            .build()
            .map_err(HarnessError::Runtime)?;
        let server = rt.block_on(Server::start(pages))?;
        Ok(Harness { rt, server, live: Mutex::new(None) })
    }

    /// The process-wide harness for tests, serving the repository's `pages/`.
    /// Panics with the reason when it cannot start (no Chromium, no pages, no npm packages).
    pub fn global() -> &'static Harness {
        GLOBAL.get_or_init(|| {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
                .with_test_writer()
                .try_init();
            Harness::start(default_pages_dir()).unwrap_or_else(|e| panic!("attention-harness cannot start: {e}"))
        })
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Runs a future on the harness runtime, from a plain (non-async) test or the CLI.
    pub fn block_on<F: Future>(&self, fut: F) -> F::Output {
        self.rt.block_on(fut)
    }

    /// The DevTools connection of the live browser, launching (or relaunching) it when needed.
    pub async fn cdp(&self) -> Result<Cdp, HarnessError> {
        let mut live = self.live.lock().await;
        if let Some(l) = live.as_ref() {
            if !l.chromium.has_exited() && l.cdp.is_open() {
                return Ok(l.cdp.clone());
            }
            tracing::warn!(
                "Chromium (pid {}) is gone; relaunching. Its last stderr:\n{}",
                l.chromium.pid,
                l.chromium.stderr_tail()
            );
            let old = live.take();
            if let Some(old) = old {
                tokio::task::spawn_blocking(move || old.chromium.terminate()).await.ok();
            }
        }
        let chromium = tokio::task::spawn_blocking(|| Chromium::launch(&[]))
            .await
            .map_err(|e| HarnessError::Runtime(std::io::Error::other(e.to_string())))??;
        let cdp = match Cdp::connect(&chromium.ws_url).await {
            Ok(c) => c,
            Err(e) => {
                chromium.terminate();
                return Err(e.into());
            }
        };
        *live = Some(Live { chromium, cdp: cdp.clone() });
        Ok(cdp)
    }

    /// The pid of the live browser, if one runs.
    pub async fn browser_pid(&self) -> Option<u32> {
        self.live.lock().await.as_ref().filter(|l| !l.chromium.has_exited()).map(|l| l.chromium.pid)
    }

    /// Kills the live browser abruptly, as a crash would (for crash-recovery tests).
    pub async fn crash_browser_for_test(&self) {
        if let Some(l) = self.live.lock().await.as_ref() {
            l.chromium.kill_for_test();
        }
    }

    /// Ends the browser this harness started (the CLI calls this before exiting).
    pub fn shutdown(&self) {
        let live = self.rt.block_on(async { self.live.lock().await.take() });
        if let Some(l) = live {
            l.chromium.terminate();
        }
    }

    /// Opens the default reference Host of `layout` and `engine` in a fresh browser context.
    pub async fn open(&self, layout: Layout, engine: Engine) -> Result<Host, HarnessError> {
        self.open_with(HostOptions::new(layout, engine)).await
    }

    /// Opens the reference Host `options` describe in a fresh browser context.
    pub async fn open_with(&self, options: HostOptions) -> Result<Host, HarnessError> {
        let cdp = self.cdp().await?;
        if let Some((name, json)) = options.served_declaration() {
            self.server.serve_layout(name, json);
        }
        let mut host = Host::open(&cdp, self.server.host_origin(), self.server.child_origin(), options).await?;
        host.session = Some(self.server.session().clone());
        Ok(host)
    }
}

/// Runs one end-to-end test body against a freshly opened Host on the shared browser. When the
/// body fails (error or panic) it leaves a screenshot, the last snapshot and the console log under
/// `target/attention-artifacts/<test>/`, and the failure message names that folder.
pub fn run_host<F>(layout: Layout, engine: Engine, body: F)
where
    F: AsyncFnOnce(&Host) -> anyhow::Result<()>,
{
    run_host_opts(HostOptions::new(layout, engine), body)
}

/// [`run_host`] on the Host `options` describe (agent actions, extras, corpus, DPR ...).
pub fn run_host_opts<F>(options: HostOptions, body: F)
where
    F: AsyncFnOnce(&Host) -> anyhow::Result<()>,
{
    let harness = Harness::global();
    let test = report::current_test_name();
    let (layout, engine) = (options.layout(), options.engine());
    harness.block_on(async {
        let host = match harness.open_with(options).await {
            Ok(h) => h,
            Err(e) => panic!("[{test}] cannot open the {layout} / {engine} Host: {e}"),
        };
        let outcome = AssertUnwindSafe(body(&host)).catch_unwind().await;
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{e:#}")),
            Err(panic) => Some(report::panic_text(&panic)),
        };
        if let Some(message) = failure {
            let folder = report::write_artifacts(&test, &host).await;
            host.close().await;
            panic!("[{test}] {layout} / {engine}: {message}\n  artifacts: {}", folder.display());
        }
        host.close().await;
    });
}
