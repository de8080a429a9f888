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
use crate::remote::Remote;
use crate::report;
use crate::server::session::SessionOptions;
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
    #[error(transparent)]
    Remote(#[from] crate::remote::RemoteError),
    #[error(
        "cannot reach the browser at {url} within {} ms: {reason} (is it running, and is that its \
         DevTools WebSocket URL?)",
        .after.as_millis()
    )]
    Unreachable { url: String, after: std::time::Duration, reason: String },
    #[error("cannot start the tokio runtime: {0}")]
    Runtime(std::io::Error),
}

struct Live {
    /// The browser this harness launched; `None` for a browser someone else runs (`--cdp-url`),
    /// which is never ended: only the harness's own browser contexts are disposed.
    chromium: Option<Arc<Chromium>>,
    cdp: Cdp,
}

/// How long connecting to a browser someone else runs may take.
const REMOTE_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The shared server and browser. Get it with [`Harness::global`] in tests, or build one with
/// [`Harness::start`] in the CLI.
pub struct Harness {
    rt: Runtime,
    server: Server,
    live: Mutex<Option<Live>>,
    cdp_url: Option<String>,
}

static GLOBAL: OnceLock<Harness> = OnceLock::new();

impl Harness {
    /// Starts a runtime and the reference server for `pages` (the browser starts on first use),
    /// with the remote browser and server addresses of the environment ([`Remote::from_env`]).
    pub fn start(pages: PathBuf) -> Result<Harness, HarnessError> {
        Harness::start_remote(pages, Remote::from_env()?)
    }

    /// [`Harness::start`] with `remote`: a browser reached at its DevTools URL instead of one
    /// launched (checked here, so an unreachable URL fails before any work), and the server on
    /// `remote.net`.
    pub fn start_remote(pages: PathBuf, remote: Remote) -> Result<Harness, HarnessError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("attention-harness")
            .build()
            .map_err(HarnessError::Runtime)?;
        let server = rt.block_on(Server::start_net(pages, SessionOptions::default(), &remote.net))?;
        let harness = Harness { rt, server, live: Mutex::new(None), cdp_url: remote.cdp_url };
        if harness.cdp_url.is_some() {
            harness.block_on(harness.cdp())?;
        }
        Ok(harness)
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
        if let Some(url) = &self.cdp_url {
            if let Some(l) = live.as_ref().filter(|l| l.cdp.is_open()) {
                return Ok(l.cdp.clone());
            }
            // A browser someone else runs: connect (again), never launch one in its place.
            let cdp = match tokio::time::timeout(REMOTE_CONNECT_TIMEOUT, Cdp::connect(url)).await {
                Ok(Ok(c)) => c,
                Ok(Err(e)) => {
                    return Err(HarnessError::Unreachable {
                        url: url.clone(),
                        after: REMOTE_CONNECT_TIMEOUT,
                        reason: e.to_string(),
                    })
                }
                Err(_) => {
                    return Err(HarnessError::Unreachable {
                        url: url.clone(),
                        after: REMOTE_CONNECT_TIMEOUT,
                        reason: "no answer".into(),
                    })
                }
            };
            *live = Some(Live { chromium: None, cdp: cdp.clone() });
            return Ok(cdp);
        }
        if let Some(l) = live.as_ref() {
            let chromium = l.chromium.as_ref().expect("a launched browser");
            if !chromium.has_exited() && l.cdp.is_open() {
                return Ok(l.cdp.clone());
            }
            tracing::warn!(
                "Chromium (pid {}) is gone; relaunching. Its last stderr:\n{}",
                chromium.pid,
                chromium.stderr_tail()
            );
            if let Some(old) = live.take().and_then(|l| l.chromium) {
                tokio::task::spawn_blocking(move || old.terminate()).await.ok();
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
        *live = Some(Live { chromium: Some(chromium), cdp: cdp.clone() });
        Ok(cdp)
    }

    /// The pid of the live browser this harness launched, if one runs (`None` for `--cdp-url`).
    pub async fn browser_pid(&self) -> Option<u32> {
        self.live.lock().await.as_ref().and_then(|l| l.chromium.as_ref()).filter(|c| !c.has_exited()).map(|c| c.pid)
    }

    /// Whether the browser is one someone else runs (`--cdp-url` / `ATTENTION_CDP_URL`).
    pub fn is_remote(&self) -> bool {
        self.cdp_url.is_some()
    }

    /// Kills the live browser abruptly, as a crash would (for crash-recovery tests).
    pub async fn crash_browser_for_test(&self) {
        if let Some(c) = self.live.lock().await.as_ref().and_then(|l| l.chromium.as_ref()) {
            c.kill_for_test();
        }
    }

    /// Ends the browser this harness started (the CLI calls this before exiting); a browser
    /// someone else runs is only disconnected from.
    pub fn shutdown(&self) {
        let live = self.rt.block_on(async { self.live.lock().await.take() });
        if let Some(c) = live.and_then(|l| l.chromium) {
            c.terminate();
        }
    }

    /// Opens the default reference Host of `layout` and `engine` in a fresh browser context.
    pub async fn open(&self, layout: Layout, engine: Engine) -> Result<Host, HarnessError> {
        self.open_with(HostOptions::new(layout, engine)).await
    }

    /// Opens the reference Host `options` describe in a fresh browser context.
    pub async fn open_with(&self, options: HostOptions) -> Result<Host, HarnessError> {
        let cdp = self.cdp().await?;
        // Application pages served elsewhere get the runtime by CDP injection, in every realm but
        // the harness's own pages (its server gives those theirs).
        let options = if options.page_urls().is_empty() || options.injection().is_some() {
            options
        } else {
            let runtime = self.server.runtime_source().await?;
            let own = [self.server.host_origin(), self.server.child_origin()];
            options.inject(crate::host::guarded_runtime(&runtime, &own))
        };
        if let Some((name, json)) = options.served_declaration() {
            self.server.serve_layout(name, json);
            if let Some(folder) = options.served_folder() {
                self.server.serve_folder(name, folder);
            }
        }
        cpu::count_open();
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

/// A Host whose extras add at least this many realms runs its test alone in the process: no other
/// test of [`run_host_opts`] or [`run_shared_host`] runs beside it (issue 23, robust under load).
/// Every realm of one site shares one renderer's main thread, so such a Host costs seconds of CPU
/// to open (64 realms: 3.4-3.8 s alone). Beside three other tests of this process and two busy
/// processes per core, 3 of the 4 64-realm cases of two `budgets::` runs missed their 31 s open
/// deadline; alone beside the same busy processes, all 6 of three runs opened.
pub const ALONE_FROM_REALMS: u32 = 32;

/// Taken for reading by every test body, for writing by one of a Host of [`ALONE_FROM_REALMS`]
/// realms or more (std's lock on Linux lets a waiting writer in before new readers).
static TURNS: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// This test's turn: alone when its Host is heavy, else beside the others.
enum Turn {
    Alone(#[allow(dead_code)] std::sync::RwLockWriteGuard<'static, ()>),
    Beside(#[allow(dead_code)] std::sync::RwLockReadGuard<'static, ()>),
}

fn take_turn(alone: bool) -> Turn {
    // A test that panicked held its turn: the lock guards no data, so its poison means nothing.
    if alone {
        Turn::Alone(TURNS.write().unwrap_or_else(|e| e.into_inner()))
    } else {
        Turn::Beside(TURNS.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// [`run_host`] on the Host `options` describe (agent actions, extras, corpus, DPR ...).
pub fn run_host_opts<F>(options: HostOptions, body: F)
where
    F: AsyncFnOnce(&Host) -> anyhow::Result<()>,
{
    let harness = Harness::global();
    let test = report::current_test_name();
    let (cell, page) = match options.one_document() {
        Some(page) => (format!("one-document page apps/{page}"), format!("one-document page apps/{page}")),
        None => {
            let cell = format!("{} / {}", options.layout(), options.engine());
            let page = format!("{cell} Host");
            (cell, page)
        }
    };
    let _turn = take_turn(options.extra_realms() >= ALONE_FROM_REALMS);
    let _cpu = cpu::TestCpu::start(harness, &test);
    harness.block_on(async {
        let host = match harness.open_with(options).await {
            Ok(h) => h,
            Err(e) => panic!("[{test}] cannot open the {page}: {e}"),
        };
        let outcome = AssertUnwindSafe(body(&host)).catch_unwind().await;
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{e:#}")),
            Err(panic) => Some(report::panic_text(&panic)),
        };
        if let Some(message) = failure {
            let folder = report::write_artifacts(&test, &host).await;
            report::write_failure(&folder, &message);
            host.close().await;
            panic!("[{test}] {cell}: {message}\n  artifacts: {}", folder.display());
        }
        host.close().await;
    });
}

/// [`run_host_opts`] on a one-document page ([`HostOptions::document`]): `page`, a file of
/// `pages/apps/`, alone in a fresh browser context, its realm the top realm. For a test whose
/// subject lives in one realm (issue 44, decision c); its doc comment names the realm kind it
/// stands for and the full-Host test that proves the same rule end to end.
pub fn run_document<F>(page: &str, body: F)
where
    F: AsyncFnOnce(&Host) -> anyhow::Result<()>,
{
    run_host_opts(HostOptions::document(page), body)
}

/// The shared read-only Hosts of this test process: one default Host per cell (issue 23, decision 1,
/// as Playwright's worker-scoped fixtures share a browser), each behind its own lock so the tests of
/// one cell take turns and the cells run side by side.
type SharedSlot = Arc<Mutex<Option<(Host, String)>>>;
static SHARED: std::sync::Mutex<Vec<((Layout, Engine), SharedSlot)>> = std::sync::Mutex::new(Vec::new());

/// The attributes `pages/apps/leaf-log.js` sets on a leaf button for a pointer event (` name="value"`
/// each in the markup: no value of theirs needs escaping).
const MOVE_TRACERS: [&str; 3] = ["data-pointer-move-count", "data-last-pointer-trusted", "data-last-pointer-type"];

/// The state a read-only test must leave as it found it, read from every realm: each frame session's
/// URL, element count and markup length, and the top document's focused element. A test that
/// changed the page (a navigation, a remount, a DOM change, a focus move) changes this; pointer
/// moves and snapshots do not. The leaves' own input log (`pages/apps/leaf-log.js`) writes what a
/// pointer move did onto the leaf button, so those attributes ([`MOVE_TRACERS`]) are left out of the
/// markup length; its click, key and focus counters stay in.
async fn page_digest(host: &Host) -> Result<String, HostError> {
    let expr = format!(
        "(() => {{ const moves = {tracers}; \
         let len = document.documentElement ? document.documentElement.outerHTML.length : 0; \
         for (const el of document.querySelectorAll(moves.map((a) => '[' + a + ']').join(','))) \
           for (const a of moves) {{ const v = el.getAttribute(a); if (v !== null) len -= a.length + v.length + 4; }} \
         return location.href + ' ' + document.getElementsByTagName('*').length + ' ' + len + ' ' + \
           (document.activeElement ? document.activeElement.tagName : '-'); }})()",
        tracers = serde_json::json!(MOVE_TRACERS)
    );
    let mut parts = Vec::new();
    for session in host.frames().sessions() {
        let v = session.eval(&expr).await.map_err(|e| HostError::Eval { what: "the page digest".into(), source: e })?;
        parts.push(v.as_str().unwrap_or("?").to_string());
    }
    parts.sort();
    Ok(format!("{} | {}", host.url, parts.join(" | ")))
}

/// [`run_host`] for a read-only test: a check that points, samples and snapshots but never inputs
/// a click, key or touch, mutates, navigates or acts. It runs on the one default Host of its cell
/// this test process keeps open, after checking that the Host is unchanged since it was opened
/// (its URL and [`page_digest`] of every realm); a Host that changed, or on which a test failed, is
/// closed and a fresh one opened. The body must not depend on what earlier tests did with the
/// pointer (recent events and the pointer may hold their moves): it asserts on what it samples or
/// points at itself.
pub fn run_shared_host<F>(layout: Layout, engine: Engine, body: F)
where
    F: AsyncFnOnce(&Host) -> anyhow::Result<()>,
{
    let harness = Harness::global();
    let test = report::current_test_name();
    let slot = {
        let mut all = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        match all.iter().find(|(k, _)| *k == (layout, engine)) {
            Some((_, s)) => s.clone(),
            None => {
                let s: SharedSlot = Arc::new(Mutex::new(None));
                all.push(((layout, engine), s.clone()));
                s
            }
        }
    };
    let _turn = take_turn(false);
    let _cpu = cpu::TestCpu::start(harness, &test);
    harness.block_on(async {
        let mut guard = slot.lock().await;
        // Reuse only a Host that is still what it was when it was opened.
        let reuse = match guard.as_ref() {
            Some((host, digest)) => {
                let alive = harness.browser_pid().await.is_some();
                alive && page_digest(host).await.ok().as_ref() == Some(digest)
            }
            None => false,
        };
        if !reuse {
            if let Some((old, _)) = guard.take() {
                old.close().await;
            }
            let host = match harness.open(layout, engine).await {
                Ok(h) => h,
                Err(e) => panic!("[{test}] cannot open the shared {layout} / {engine} Host: {e}"),
            };
            let digest = match page_digest(&host).await {
                Ok(d) => d,
                Err(e) => panic!("[{test}] cannot read the digest of the shared {layout} / {engine} Host: {e}"),
            };
            *guard = Some((host, digest));
        }
        let (host, _) = guard.as_ref().expect("a shared Host was just opened");
        let outcome = AssertUnwindSafe(body(host)).catch_unwind().await;
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{e:#}")),
            Err(panic) => Some(report::panic_text(&panic)),
        };
        if let Some(message) = failure {
            let folder = report::write_artifacts(&test, host).await;
            report::write_failure(&folder, &message);
            // A Host a test failed on is not shared further.
            if let Some((old, _)) = guard.take() {
                old.close().await;
            }
            drop(guard);
            panic!("[{test}] {layout} / {engine} (shared Host): {message}\n  artifacts: {}", folder.display());
        }
    });
}

/// Per-test CPU for `bench suite` (only with `ATTENTION_TEST_CPU=FILE`; otherwise nothing is
/// measured). libtest runs several tests at once and Chromium's processes serve them all, so a
/// test's own CPU cannot be read off one process. Instead the CPU of the whole browser process tree
/// (live processes plus what they reaped) and of this test process is sampled whenever a
/// `run_host` test starts or ends, and each interval's CPU is split evenly among the tests that ran
/// during it. The shares add up to what the processes used while browser tests ran; a test that
/// overlapped an expensive one is charged part of its cost, so the ranking is a fair estimate,
/// not a per-thread profile. One JSON line per test is appended to FILE: `{"test", "cpu_s",
/// "wall_s", "opens"}`, `opens` being how many Hosts the test opened in a fresh browser context (a
/// test on a shared Host that was still unchanged opened none).
pub mod cpu {
    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::sync::Mutex;
    use std::time::Instant;

    use super::Harness;

    thread_local! {
        /// Host opens on this thread since its test's [`TestCpu::start`]: a test body runs on its
        /// test's thread (`Harness::block_on` drives the future there), and so does every open in it.
        static OPENS: Cell<u32> = const { Cell::new(0) };
    }

    /// Counts a Host open for the test running on this thread.
    pub(crate) fn count_open() {
        OPENS.with(|o| o.set(o.get().saturating_add(1)));
    }

    struct Ledger {
        /// CPU seconds of this process and the browser tree at the last sample, and the browser's pid.
        last: f64,
        browser: Option<u32>,
        /// Running tests: id -> (name, CPU share so far, start).
        running: BTreeMap<u64, (String, f64, Instant)>,
        next: u64,
    }

    static LEDGER: Mutex<Ledger> = Mutex::new(Ledger { last: 0.0, browser: None, running: BTreeMap::new(), next: 0 });

    pub struct TestCpu {
        id: Option<u64>,
    }

    fn path() -> Option<std::path::PathBuf> {
        std::env::var_os("ATTENTION_TEST_CPU").map(Into::into)
    }

    /// CPU seconds (user + system) of `pid`, with what it reaped when `children`.
    pub fn cpu_s(pid: u32, children: bool) -> f64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
        let Some((_, rest)) = stat.rsplit_once(')') else { return 0.0 };
        // After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14), in ticks.
        let f: Vec<f64> = rest.split_whitespace().skip(11).take(4).map(|v| v.parse().unwrap_or(0.0)).collect();
        let ticks: f64 = if children { f.iter().sum() } else { f.iter().take(2).sum() };
        ticks / ticks_per_s()
    }

    fn ticks_per_s() -> f64 {
        let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if t > 0 {
            t as f64
        } else {
            100.0
        }
    }

    /// `root` and its descendants (found by parent pid in /proc), `root` first.
    pub fn tree_pids(root: u32) -> Vec<u32> {
        let mut parent_of = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
            let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
            if let Some(ppid) = ppid {
                parent_of.push((pid, ppid));
            }
        }
        let mut tree = vec![root];
        let mut i = 0;
        while i < tree.len() {
            let p = tree[i];
            tree.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
            i += 1;
        }
        tree
    }

    /// CPU seconds of `root` and its descendants: the live processes, and through their
    /// reaped-children counters the ones that already exited.
    pub fn tree_cpu_s(root: u32) -> f64 {
        tree_pids(root).into_iter().map(|p| cpu_s(p, true)).sum()
    }

    /// Splits the CPU used since the last sample among the running tests.
    fn settle(ledger: &mut Ledger, browser: Option<u32>) {
        let me = cpu_s(std::process::id(), false);
        let chromium = browser.map(tree_cpu_s).unwrap_or(0.0);
        let now = me + chromium;
        // A relaunched browser restarts its counters: only this process's CPU is comparable then.
        let delta = if browser == ledger.browser { now - ledger.last } else { 0.0 };
        ledger.browser = browser;
        ledger.last = now;
        let n = ledger.running.len();
        if n > 0 && delta > 0.0 {
            for (_, share, _) in ledger.running.values_mut() {
                *share += delta / n as f64;
            }
        }
    }

    impl TestCpu {
        pub fn start(harness: &Harness, test: &str) -> TestCpu {
            if path().is_none() {
                return TestCpu { id: None };
            }
            let browser = harness.block_on(harness.browser_pid());
            let mut l = LEDGER.lock().unwrap_or_else(|e| e.into_inner());
            settle(&mut l, browser);
            let id = l.next;
            l.next += 1;
            l.running.insert(id, (test.to_string(), 0.0, Instant::now()));
            OPENS.with(|o| o.set(0));
            TestCpu { id: Some(id) }
        }
    }

    impl Drop for TestCpu {
        fn drop(&mut self) {
            let (Some(id), Some(path)) = (self.id, path()) else { return };
            let browser = Harness::global().block_on(Harness::global().browser_pid());
            let mut l = LEDGER.lock().unwrap_or_else(|e| e.into_inner());
            settle(&mut l, browser);
            let Some((name, share, started)) = l.running.remove(&id) else { return };
            drop(l);
            let opens = OPENS.with(|o| o.replace(0));
            let line = serde_json::json!({"test": name, "cpu_s": share, "wall_s": started.elapsed().as_secs_f64(), "opens": opens});
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                let _ = writeln!(f, "{line}");
            }
        }
    }
}
