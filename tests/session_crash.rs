//! `kill -9` in the middle of a stream of sends (issue 25): `attention-harness serve --db FILE` runs
//! as a child process, one client sends messages one at a time (at most one in flight) and records
//! what it sent and what was acknowledged `received`; the test kills the server with SIGKILL by its
//! pid while the stream runs and starts a new one on the same file. Then, read from the new
//! server's history: every acknowledged message is there, once, with its acknowledged id and text;
//! nothing is there that was not sent; and of what was sent but not acknowledged (the one in flight)
//! at most that one message may be there (the Session can commit and die before its answer goes
//! out; the spec's retry makes that safe): re-sent with its request_id it is answered `received`
//! and is stored exactly once. Three kill/restart cycles on one file.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::session_support::{http_at, ws_request, Ws, TIMEOUT};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

struct Serve {
    child: Child,
    host: String,
    token: String,
}

impl Serve {
    fn start(db: &std::path::Path) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
            .args(["serve", "--db"])
            .arg(db)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("attention-harness serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut host, mut token) = (None, None);
        for line in lines.by_ref() {
            let line = line.expect("serve's stdout");
            if let Some(v) = line.strip_prefix("Host site:") {
                host = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("Session token:") {
                token = Some(v.trim().to_string());
            } else if line.starts_with("Press Ctrl-C") {
                break;
            }
        }
        std::thread::spawn(move || for _ in lines {});
        Serve {
            host: host.expect("serve printed the Host site"),
            token: token.expect("serve printed the token"),
            child,
        }
    }

    fn kill9(&mut self) {
        // SAFETY: kill(2) on the pid of the child this test started.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, libc::SIGKILL) }, 0, "SIGKILL delivered");
        let status = self.child.wait().expect("the killed server is reaped");
        assert!(!status.success(), "serve died of the SIGKILL: {status}");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

async fn join(serve: &Serve, session_id: Option<&str>) -> (Ws, String) {
    let mut url = format!("{}/api/v1/ws/join?token={}", serve.host.replace("http://", "ws://"), serve.token);
    if let Some(id) = session_id {
        url.push_str(&format!("&session_id={id}"));
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_request(&url, &serve.host)).await.expect("socket opens");
    let welcome = next_text(&mut ws).await.expect("welcome");
    let v: Value = serde_json::from_str(&welcome).unwrap();
    (ws, v["session_id"].as_str().unwrap().to_string())
}

async fn next_text(ws: &mut Ws) -> Option<String> {
    loop {
        match tokio::time::timeout(TIMEOUT, ws.next()).await.expect("a frame or the end within the timeout") {
            Some(Ok(Message::Text(t))) => return Some(t.to_string()),
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

fn command(rid: &str) -> String {
    json!({"type": "session_message", "request_id": rid, "data": {"text": format!("text of {rid}")}}).to_string()
}

/// The stored history, `request_id -> (message_id, text)`, and how many rows each request has.
async fn history(serve: &Serve, sid: &str) -> (HashMap<String, (String, String)>, HashMap<String, usize>) {
    let addr = serve.host.trim_start_matches("http://");
    let r = http_at(addr, None, "GET", &format!("/api/v1/sessions/{sid}/messages"), Some(&serve.token), &[], b"").await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let (mut rows, mut n) = (HashMap::new(), HashMap::new());
    for m in r.json()["messages"].as_array().unwrap() {
        let rid = m["request_id"].as_str().unwrap().to_string();
        *n.entry(rid.clone()).or_insert(0) += 1;
        rows.insert(rid, (m["message_id"].as_str().unwrap().to_string(), m["text"].as_str().unwrap().to_string()));
    }
    (rows, n)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_mid_stream_loses_no_acknowledged_message_and_invents_none() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/attention-session/crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("crash.sqlite");
    let mut serve = Serve::start(&db);
    let (_first, sid) = join(&serve, None).await;
    let (sent, acked) = (Arc::new(Mutex::new(Vec::<String>::new())), Arc::new(Mutex::new(HashMap::new())));
    for cycle in 0..3 {
        let (mut ws, _) = join(&serve, Some(&sid)).await;
        let before = acked.lock().unwrap().len();
        // The stream: one send at a time until the socket dies with the server.
        let stream = {
            let (sent, acked) = (sent.clone(), acked.clone());
            tokio::spawn(async move {
                for i in 0.. {
                    let rid = format!("c{cycle}-m{i}");
                    sent.lock().unwrap().push(rid.clone());
                    if ws.send(Message::Text(command(&rid).into())).await.is_err() {
                        return;
                    }
                    let Some(answer) = next_text(&mut ws).await else { return };
                    let v: Value = serde_json::from_str(&answer).unwrap();
                    assert_eq!(v["type"], "received", "{answer}");
                    acked.lock().unwrap().insert(rid, v["message_id"].as_str().unwrap().to_string());
                }
            })
        };
        // Kill once the stream is well under way (acknowledgements are arriving).
        let deadline = std::time::Instant::now() + TIMEOUT;
        let mut tick = tokio::time::interval(Duration::from_millis(5));
        while acked.lock().unwrap().len() < before + 20 {
            assert!(std::time::Instant::now() < deadline, "cycle {cycle}: 20 acknowledgements within the timeout");
            tick.tick().await;
        }
        serve.kill9();
        tokio::time::timeout(TIMEOUT, stream).await.expect("the stream ends with the server").unwrap();
        serve = Serve::start(&db);
        let (rows, counts) = history(&serve, &sid).await;
        let sent_now: HashSet<String> = sent.lock().unwrap().iter().cloned().collect();
        let acked_now = acked.lock().unwrap().clone();
        for (rid, mid) in &acked_now {
            let row = rows.get(rid).unwrap_or_else(|| panic!("cycle {cycle}: acknowledged {rid} was lost"));
            assert_eq!((&row.0, &row.1), (mid, &format!("text of {rid}")), "cycle {cycle}: {rid} as acknowledged");
        }
        assert!(counts.values().all(|n| *n == 1), "cycle {cycle}: one row per request: {counts:?}");
        let unacked: Vec<&String> = rows.keys().filter(|r| !acked_now.contains_key(*r)).collect();
        assert!(unacked.iter().all(|r| sent_now.contains(*r)), "cycle {cycle}: stored but never sent: {unacked:?}");
        assert!(unacked.len() <= 1, "cycle {cycle}: only the one in flight may be stored unacknowledged: {unacked:?}");
        eprintln!(
            "cycle {cycle}: {} sent, {} acknowledged, {} stored, {} stored unacknowledged",
            sent_now.len(),
            acked_now.len(),
            rows.len(),
            unacked.len()
        );
        // The one in flight, retried as a Host would: answered, stored exactly once.
        let in_flight = sent.lock().unwrap().last().cloned().unwrap();
        if !acked_now.contains_key(&in_flight) {
            let (mut ws, _) = join(&serve, Some(&sid)).await;
            ws.send(Message::Text(command(&in_flight).into())).await.unwrap();
            let v: Value = serde_json::from_str(&next_text(&mut ws).await.unwrap()).unwrap();
            assert_eq!(v["type"], "received", "cycle {cycle}: the retry of {in_flight}: {v}");
            assert_eq!(v["duplicate"], rows.contains_key(&in_flight), "duplicate exactly when it was stored");
            acked.lock().unwrap().insert(in_flight.clone(), v["message_id"].as_str().unwrap().to_string());
            assert_eq!(history(&serve, &sid).await.1.get(&in_flight), Some(&1));
        }
    }
    drop(serve);
    let _ = std::fs::remove_dir_all(&dir);
}
