//! The remote-browser path (`--cdp-url`): a Chromium this test starts on loopback, reached by the
//! harness only through its DevTools URL. The verify rows of one cell pass through it, the harness
//! leaves none of its browser contexts behind, and the browser is still alive after the harness
//! exited (it never ends a browser it did not start); the test then ends it by its pid.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use attention_harness::browser::{find_chromium, FLAGS, LAUNCH_TIMEOUT};
use attention_harness::cdp::Cdp;
use chromiumoxide::cdp::browser_protocol::target::GetBrowserContextsParams;

/// A Chromium someone else runs, as far as the harness knows: started here, ended here by pid.
struct OtherBrowser {
    child: Child,
    ws_url: String,
    profile: std::path::PathBuf,
}

impl OtherBrowser {
    fn start() -> OtherBrowser {
        let exe = find_chromium().expect("Chromium for the remote-browser test");
        let profile = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/attention-profiles/remote-browser-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("profile folder under target/");
        let mut child = Command::new(exe)
            .args(FLAGS) // headless, --remote-debugging-port=0, localhost mapped to 127.0.0.1
            .arg(format!("--user-data-dir={}", profile.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start Chromium");
        let stderr = child.stderr.take().expect("Chromium's stderr");
        let (tx, rx) = mpsc::channel();
        // Reads the DevTools URL, then keeps draining stderr so Chromium never blocks on it.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(url.trim().to_string());
                    }
                }
            }
        });
        let ws_url = match rx.recv_timeout(LAUNCH_TIMEOUT) {
            Ok(u) => u,
            Err(_) => {
                let _ = child.kill();
                panic!("Chromium printed no DevTools URL within {LAUNCH_TIMEOUT:?}");
            }
        };
        OtherBrowser { child, ws_url, profile }
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for OtherBrowser {
    fn drop(&mut self) {
        // Ended by its pid (SIGTERM, then SIGKILL after 5 s).
        let pid = self.child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until && self.alive() {
            std::thread::sleep(Duration::from_millis(50));
        }
        if self.alive() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn browser_contexts(ws_url: &str) -> Vec<String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let cdp = Cdp::connect(ws_url).await.expect("the test's own DevTools connection");
        let r = cdp.execute(None, &GetBrowserContextsParams::default()).await.expect("Target.getBrowserContexts");
        r.browser_context_ids.iter().map(|id| id.inner().clone()).collect()
    })
}

#[test]
fn verify_runs_through_a_browser_the_harness_did_not_start_and_leaves_it_running() {
    let mut browser = OtherBrowser::start();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["verify", "--cdp-url", &browser.ws_url, "--layout", "managed", "--engine", "iframe", "--json"])
        .env_remove("ATTENTION_CDP_URL")
        .output()
        .expect("run attention-harness verify");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("verify --json printed no rows ({e}); stderr:\n{stderr}"));
    let expected = attention_harness::checks::all().len();
    assert_eq!(rows.len(), expected, "one row per check in managed/iframe; stderr:\n{stderr}");
    let failed: Vec<_> = rows.iter().filter(|r| r["status"] != "pass").collect();
    assert!(failed.is_empty(), "rows failed through the remote browser: {failed:#?}");
    assert!(rows.iter().all(|r| r["layout"] == "managed" && r["engine"] == "iframe"), "only the asked cell ran");
    assert_eq!(out.status.code(), Some(0), "verify exit code; stderr:\n{stderr}");
    assert!(browser.alive(), "the harness ended a browser it did not start");
    assert_eq!(browser_contexts(&browser.ws_url), Vec::<String>::new(), "the harness left browser contexts behind");
}

#[test]
fn an_unreachable_cdp_url_is_a_clear_error_within_seconds() {
    // A port that refuses connections, held for the test (refusing_port.rs).
    let port_held = super::refusing_port::RefusingPort::new();
    let port = port_held.port;
    let url = format!("ws://127.0.0.1:{port}/devtools/browser/none");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["verify", "--cdp-url", &url, "--layout", "managed", "--engine", "iframe"])
        .output()
        .expect("run attention-harness verify");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr:\n{stderr}");
    assert!(stderr.contains("cannot reach the browser at") && stderr.contains(&url), "message: {stderr}");
    // The server start (runtime bundle freshness check) is part of this; the connect itself is 2 s at most.
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn bad_remote_values_exit_2_with_the_flag_named() {
    for (args, says) in [
        (vec!["--cdp-url", "http://127.0.0.1:9222"], "--cdp-url"),
        (vec!["--bind", "not-an-address"], "--bind"),
        (vec!["--public-origin", "http://a.test/path", "--public-child-origin", "http://b.test"], "--public-origin"),
        (vec!["--public-origin", "http://a.test"], "two different hosts"),
        (vec!["--public-child-origin", "http://b.test"], "needs --public-origin"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
            .args(["verify", "--layout", "managed", "--engine", "iframe"])
            .args(&args)
            .env_remove("ATTENTION_CDP_URL")
            .output()
            .expect("run attention-harness verify");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
