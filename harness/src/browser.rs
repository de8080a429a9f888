//! Finds Chromium, launches it once per process with the DESIGN.md flags and a fresh profile under
//! `target/`, supervises it from a dedicated thread, and ends it (and only it, by pid, with the
//! helpers it forked) when the process exits.
//!
//! Why a supervisor thread: the child gets `PR_SET_PDEATHSIG(SIGKILL)`, which fires when the
//! *thread* that forked it exits; the supervisor lives exactly as long as the child. Why a
//! subreaper: Chromium's zygotes and crashpad handlers outlive the browser process for a moment;
//! as `PR_SET_CHILD_SUBREAPER` they are re-parented to us, and we reap them by pid instead of
//! leaving zombies to init (`reference/spike.md` §1, P6).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// Flags from DESIGN.md, plus the DevTools port and the `localhost` mapping for the child site.
pub const FLAGS: &[&str] = &[
    // For `chromium`; `chromium-headless-shell` is headless by build and ignores it.
    "--headless=new",
    "--no-sandbox",
    // Cross-origin iframes out of process, as in production: the desktop build's default, but
    // chromium-headless-shell keeps them in process unless told.
    "--site-per-process",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-startup-window",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // SpareRendererForSitePerProcess: every test opens a fresh browser context, so a spare renderer
    // warmed for the previous context is only thrown away. WebUIOmniboxAimPopup, WebUIOmniboxPopup
    // and PreloadTopChromeWebUI (the `chromium` build; chromium-headless-shell, preferred, has no
    // browser UI): Chromium 156 gives every new window (one per browser context here) an omnibox
    // popup built in WebUI, loaded at once in a renderer of its own; in a trace of the 64-realm
    // Host it took 1.7-4.2 s of main-thread time during the open, beside 3-4 s for each of the
    // Host's own renderers.
    "--disable-features=Translate,MediaRouter,OptimizationHints,PaintHolding,DestroyProfileOnBrowserClose,SpareRendererForSitePerProcess,WebUIOmniboxAimPopup,WebUIOmniboxPopup,PreloadTopChromeWebUI",
    "--hide-scrollbars",
    // No background work the tests do not ask for, and no throttling of a page because another
    // test's page is in front: two tests run at once in one browser (as Playwright launches it).
    "--disable-field-trial-config",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-hang-monitor",
    "--metrics-recording-only",
    "--password-store=basic",
    "--no-service-autorun",
    "--mute-audio",
    // The child site is http://localhost:<port>, served on IPv4 only; the URL keeps its site.
    "--host-resolver-rules=MAP localhost 127.0.0.1",
    "--remote-debugging-port=0",
];

/// How long Chromium may take to print its DevTools URL.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a closing Chromium may take before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("Chromium not found (looked at $CHROME, /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium, and chromium-headless-shell, chromium, chromium-browser, google-chrome on PATH). Install it with: apt-get update && apt-get install -y chromium chromium-headless-shell")]
    NotFound,
    #[error("$CHROME={0} does not exist or is not executable")]
    BadChromeEnv(PathBuf),
    #[error("cannot start Chromium {exe}: {source}")]
    Spawn { exe: PathBuf, source: std::io::Error },
    #[error("Chromium did not print its DevTools URL within {} ms; last stderr lines:\n{stderr}", .after.as_millis())]
    NoDevtoolsUrl { after: Duration, stderr: String },
    #[error("cannot create the profile folder {0}: {1}")]
    Profile(PathBuf, std::io::Error),
}

/// Where Debian installs its Chromium builds, in order of preference. `chromium-headless-shell` is
/// Debian's build of the same Chromium (same source and version) without the desktop browser's UI:
/// every browser context there costs no browser window, so a Host open costs about 2.5 times less
/// CPU than under `chromium --headless=new` (`bench open-cost`), which is what bounds the suite on
/// 2 cores. `chromium` is the fallback. The shell is run as its binary under /usr/lib: Debian's
/// /usr/bin/chromium-headless-shell is a script that does not `exec`, so its pid would not be the
/// browser's (SIGTERM would end the script and leave the browser to the orphan sweep).
pub const DEBIAN_CHROMIUM: &[&str] = &["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"];

/// Finds the Chromium executable: `$CHROME`, then [`DEBIAN_CHROMIUM`] in order, then
/// `chromium-headless-shell`, `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
pub fn find_chromium() -> Result<PathBuf, BrowserError> {
    let fixed: Vec<&Path> = DEBIAN_CHROMIUM.iter().map(Path::new).collect();
    find_chromium_in(std::env::var_os("CHROME"), &fixed, &std::env::var_os("PATH").unwrap_or_default())
}

/// [`find_chromium`] with its inputs explicit, so the search order is testable.
pub fn find_chromium_in(
    chrome: Option<std::ffi::OsString>,
    fixed: &[&Path],
    path: &std::ffi::OsStr,
) -> Result<PathBuf, BrowserError> {
    if let Some(p) = chrome {
        let p = PathBuf::from(p);
        return if is_executable(&p) { Ok(p) } else { Err(BrowserError::BadChromeEnv(p)) };
    }
    if let Some(p) = fixed.iter().find(|p| is_executable(p)) {
        return Ok(p.to_path_buf());
    }
    for name in ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(path) {
            let cand = dir.join(name);
            if is_executable(&cand) {
                return Ok(cand);
            }
        }
    }
    Err(BrowserError::NotFound)
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// Where temporary profiles live: `$ATTENTION_PROFILE_DIR`, else `target/attention-profiles`.
pub fn profile_root() -> PathBuf {
    std::env::var_os("ATTENTION_PROFILE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/attention-profiles"))
}

/// A running Chromium started by this process.
pub struct Chromium {
    pub pid: u32,
    pub ws_url: String,
    pub profile: PathBuf,
    exited: Arc<AtomicBool>,
    exit_rx: Mutex<Option<mpsc::Receiver<()>>>,
    stderr_tail: Arc<Mutex<Vec<String>>>,
}

/// The pid of the browser this process currently runs, for the exit hook.
static CURRENT_PID: AtomicU32 = AtomicU32::new(0);
static CURRENT: Mutex<Option<Arc<Chromium>>> = Mutex::new(None);
static EXIT_HOOK: Once = Once::new();

impl Chromium {
    /// Launches Chromium with a fresh profile; returns once its DevTools URL is known.
    pub fn launch(extra_flags: &[String]) -> Result<Arc<Chromium>, BrowserError> {
        let exe = find_chromium()?;
        install_exit_hook();
        reap_orphans();
        remove_stale_profiles();
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let profile = profile_root().join(format!("{}-{}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(profile.join("tmp")).map_err(|e| BrowserError::Profile(profile.clone(), e))?;

        let (url_tx, url_rx) = mpsc::channel::<Result<(u32, String), BrowserError>>();
        let (exit_tx, exit_rx) = mpsc::channel::<()>();
        let exited = Arc::new(AtomicBool::new(false));
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let (exited2, tail2, profile2) = (exited.clone(), stderr_tail.clone(), profile.clone());
        let extra: Vec<String> = extra_flags.to_vec();
        std::thread::Builder::new()
            .name("chromium-supervisor".into())
            .spawn(move || supervise(exe, profile2, extra, url_tx, exit_tx, exited2, tail2))
            .map_err(|e| BrowserError::Spawn { exe: PathBuf::from("chromium-supervisor"), source: e })?;

        let (pid, ws_url) = match url_rx.recv_timeout(LAUNCH_TIMEOUT) {
            Ok(r) => r?,
            Err(_) => {
                return Err(BrowserError::NoDevtoolsUrl { after: LAUNCH_TIMEOUT, stderr: tail_text(&stderr_tail) });
            }
        };
        let chromium =
            Arc::new(Chromium { pid, ws_url, profile, exited, exit_rx: Mutex::new(Some(exit_rx)), stderr_tail });
        CURRENT_PID.store(pid, Ordering::SeqCst);
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(chromium.clone());
        Ok(chromium)
    }

    /// Whether the browser process has exited (closed, crashed or killed).
    pub fn has_exited(&self) -> bool {
        self.exited.load(Ordering::SeqCst)
    }

    /// The last lines Chromium wrote to stderr, for error messages.
    pub fn stderr_tail(&self) -> String {
        tail_text(&self.stderr_tail)
    }

    /// Ends the browser: SIGTERM, then SIGKILL after a grace period; reaps it and its orphans and
    /// removes the profile. Idempotent.
    pub fn terminate(&self) {
        if !self.has_exited() {
            unsafe { libc::kill(self.pid as i32, libc::SIGTERM) };
        }
        let rx = self.exit_rx.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(rx) = rx {
            if rx.recv_timeout(EXIT_GRACE).is_err() && !self.has_exited() {
                unsafe { libc::kill(self.pid as i32, libc::SIGKILL) };
                let _ = rx.recv_timeout(EXIT_GRACE);
            }
        }
        let _ = CURRENT_PID.compare_exchange(self.pid, 0, Ordering::SeqCst, Ordering::SeqCst);
        finish_orphans(EXIT_GRACE);
        let _ = std::fs::remove_dir_all(&self.profile);
    }

    /// Kills the browser abruptly (SIGKILL), as a crash would. For tests of crash recovery.
    pub fn kill_for_test(&self) {
        unsafe { libc::kill(self.pid as i32, libc::SIGKILL) };
    }
}

fn tail_text(tail: &Mutex<Vec<String>>) -> String {
    tail.lock().map(|t| t.join("\n")).unwrap_or_default()
}

fn supervise(
    exe: PathBuf,
    profile: PathBuf,
    extra: Vec<String>,
    url_tx: mpsc::Sender<Result<(u32, String), BrowserError>>,
    exit_tx: mpsc::Sender<()>,
    exited: Arc<AtomicBool>,
    tail: Arc<Mutex<Vec<String>>>,
) {
    let mut cmd = Command::new(&exe);
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(&extra)
        .env("TMPDIR", profile.join("tmp"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    unsafe {
        cmd.pre_exec(|| {
            // The browser dies with this thread (i.e. with us), even on SIGKILL of the harness.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            exited.store(true, Ordering::SeqCst);
            let _ = url_tx.send(Err(BrowserError::Spawn { exe, source: e }));
            return;
        }
    };
    let pid = child.id();
    if let Some(stderr) = child.stderr.take() {
        let tail = tail.clone();
        // Drains stderr for the browser's whole life, so Chromium never blocks on a full pipe.
        let _ = std::thread::Builder::new().name("chromium-stderr".into()).spawn(move || {
            let mut url_tx = Some(url_tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    if let Some(tx) = url_tx.take() {
                        let _ = tx.send(Ok((pid, url.trim().to_string())));
                    }
                }
                if let Ok(mut t) = tail.lock() {
                    t.push(line);
                    let excess = t.len().saturating_sub(40);
                    t.drain(..excess);
                }
            }
        });
    }
    let _ = child.wait();
    exited.store(true, Ordering::SeqCst);
    let _ = exit_tx.send(());
}

fn install_exit_hook() {
    EXIT_HOOK.call_once(|| unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        libc::atexit(on_exit);
    });
}

extern "C" fn on_exit() {
    let current = CURRENT.lock().ok().and_then(|mut c| c.take());
    if let Some(chromium) = current {
        chromium.terminate();
    }
}

/// Our child processes other than the current browser: orphaned Chromium helpers re-parented to
/// us as subreaper. Returns (pid, is_zombie).
fn orphan_children() -> Vec<(i32, bool)> {
    let me = std::process::id() as i32;
    let browser = CURRENT_PID.load(Ordering::SeqCst) as i32;
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return out };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        if pid == browser {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // Fields after the parenthesised command: state, ppid, ...
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else { continue };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let ppid: i32 = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid == me && is_chromium_process(pid, state) {
            out.push((pid, state == "Z"));
        }
    }
    out
}

fn is_chromium_process(pid: i32, state: &str) -> bool {
    if state == "Z" {
        // A zombie's cmdline is empty; its comm still names it.
        return std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| c.contains("chrom")).unwrap_or(false);
    }
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).contains("chrom"))
        .unwrap_or(false)
}

/// Removes profiles left by harness processes that no longer exist (killed before their exit
/// hook ran). Profiles are named `<pid>-<n>`; a live process's profiles are never touched.
fn remove_stale_profiles() {
    let Ok(dir) = std::fs::read_dir(profile_root()) else { return };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name.split_once('-').and_then(|(p, _)| p.parse::<u32>().ok()) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Reaps orphaned helpers that have already exited.
fn reap_orphans() {
    for (pid, zombie) in orphan_children() {
        if zombie {
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
        }
    }
}

/// After the browser is gone: waits up to `grace` for its helpers to exit, then kills the ones
/// still running (they are our descendants, by pid) and reaps them all.
fn finish_orphans(grace: Duration) {
    let deadline = Instant::now() + grace;
    loop {
        reap_orphans();
        let left = orphan_children();
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            for (pid, _) in &left {
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            for (pid, _) in &left {
                unsafe { libc::waitpid(*pid, std::ptr::null_mut(), 0) };
            }
            return;
        }
        // Helpers notice the browser's death through their IPC sockets within milliseconds;
        // there is no event to wait on for a grandchild, so look again shortly.
        std::thread::sleep(Duration::from_millis(10));
    }
}
