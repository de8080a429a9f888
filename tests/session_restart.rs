//! Checklist item 4 across a real restart: `attention-harness serve --db FILE` is started as a
//! process, the reference Host (in the shared Chromium) sends a message with the runtime's envelope
//! through its composer with a trusted Enter, the server process is stopped (SIGINT, by pid) and a
//! new one is started on the same file; the history it serves is byte for byte the same and the
//! stored attachment is still the runtime's (same attachment_id and content_hash).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{ensure, Context};
use attention_harness::checks::expect::Leaf;
use attention_harness::checks::session::{compose, enter_and_settle};
use attention_harness::checks::{snapshot_at, wait_for, Poll};
use attention_harness::{Engine, Harness, Host, HostOptions, Layout};
use serde_json::{json, Value};

struct Served {
    child: Child,
    host: String,
    child_origin: String,
    token: String,
}

impl Served {
    fn start(db: &std::path::Path) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
            .args(["serve", "--db"])
            .arg(db)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("attention-harness serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut host, mut child_origin, mut token) = (None, None, None);
        for line in lines.by_ref() {
            let line = line.expect("serve's stdout");
            if let Some(v) = line.strip_prefix("Host site:") {
                host = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("Child site:") {
                child_origin = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("Session token:") {
                token = Some(v.trim().to_string());
            } else if line.starts_with("Press Ctrl-C") {
                break;
            }
        }
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Served {
            host: host.expect("serve printed the Host site"),
            child_origin: child_origin.expect("child site"),
            token: token.expect("serve printed the token"),
            child,
        }
    }

    /// SIGINT by pid (Ctrl-C), then wait for the exit.
    fn stop(mut self) {
        // SAFETY: a plain kill(2) on the pid of the child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "serve exited with {status}");
                return;
            }
            assert!(std::time::Instant::now() < deadline, "serve did not stop within 10 s of SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `GET /api/v1/sessions/{sid}/messages` from a served process: the raw body.
fn history(served: &Served, sid: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let addr = served.host.trim_start_matches("http://");
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = format!("GET /api/v1/sessions/{sid}/messages HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\r\n", served.token);
        s.write_all(req.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).await.unwrap();
        let text = String::from_utf8(raw).unwrap();
        assert!(text.starts_with("HTTP/1.1 200"), "history: {text}");
        text.split_once("\r\n\r\n").unwrap().1.to_string()
    })
}

#[test]
fn history_with_the_runtimes_attachment_survives_a_server_process_restart() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/attention-session");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join(format!("restart-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let first = Served::start(&db);
    let harness = Harness::global();
    let (sid, row) = harness.block_on(async {
        let cdp = harness.cdp().await.expect("browser");
        let options = HostOptions::new(Layout::Managed, Engine::Iframe);
        let host = Host::open(&cdp, &first.host, &first.child_origin, options)
            .await
            .expect("Host of the served process opens");
        let out = send_with_context(&host).await;
        host.close().await;
        out.expect("the composer's send")
    });
    let before = history(&first, &sid);
    let listed: Value = serde_json::from_str(&before).unwrap();
    let message = listed["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["request_id"] == row["request_id"])
        .cloned()
        .expect("message in the history");
    let check = |m: &Value| {
        let sent = &row["attachments"][0];
        let stored: Value = serde_json::from_str(m["attachments"][0]["envelope"].as_str().unwrap()).unwrap();
        assert_eq!(m["attachments"][0]["attachment_id"], sent["attachment_id"]);
        assert_eq!(m["attachments"][0]["content_hash"], sent["content_hash"]);
        assert_eq!(&stored, sent, "the stored envelope is the runtime's");
        assert_eq!(m["text"], "before restart");
    };
    check(&message);
    first.stop();

    let second = Served::start(&db);
    assert_ne!(second.token, "", "a new token per run");
    let after = history(&second, &sid);
    assert_eq!(after, before, "the history is byte for byte the same after the restart");
    let listed: Value = serde_json::from_str(&after).unwrap();
    check(&listed["messages"][0]);
    second.stop();
    let _ = std::fs::remove_file(&db);
}

/// Automatic context on (trusted click on the toggle), pointer on the left leaf, trusted Enter.
async fn send_with_context(host: &Host) -> anyhow::Result<(String, Value)> {
    let state = host.eval("window.__host.session.ready").await?;
    ensure!(state["status"] == "open", "composer not connected: {state}");
    let sid = state["session_id"].as_str().context("session id")?.to_string();
    let (x, y) = host.landmark_rect("composer-context-toggle").await?.center();
    host.click_at(x, y).await?;
    wait_for(host, "automatic context turning on", Duration::from_secs(10), || async {
        let on = host.eval("window.__host.session.state.automatic").await?;
        Ok(if on == json!(true) { Poll::Ready(()) } else { Poll::Pending(on.to_string()) })
    })
    .await?;
    compose(host, "before restart").await?;
    let (x, y) = host.landmark_rect(Leaf::Left.landmark()).await?.center();
    snapshot_at(host, x, y).await?;
    let row = enter_and_settle(host).await?;
    ensure!(
        row["delivery"] == "received" && row["attachments"].as_array().is_some_and(|a| a.len() == 1),
        "send: {row}"
    );
    Ok((sid, row))
}
