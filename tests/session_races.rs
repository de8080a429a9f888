//! The reference Session under concurrency (issue 25): real sockets and real HTTP requests on
//! loopback, released together by a barrier so they overlap inside the Session, repeated for
//! several rounds; bounded in count and time. Each rule that held one request at a time must hold
//! when requests race: one message per `request_id` answered `received` once and duplicate
//! otherwise, the staging quota, one stage per request, a PATCH conflict only for a stale
//! `expected_revision`. Also the retry fingerprint (schemas.md §2) and retries whose file or stage
//! went away since.

use std::sync::Arc;

use crate::session_support;

use attention_harness::contract::{canonical_json, sha256_prefixed};
use attention_harness::server::Server;
use serde_json::{json, Value};
use session_support::*;
use tokio::sync::Barrier;

const JSON: (&str, &str) = ("Content-Type", "application/json");
/// Rounds of each race: enough that the old check-then-insert lost several of them.
const ROUNDS: usize = 20;

fn stage_path(sid: &str, rid: &str) -> String {
    format!("/api/v1/sessions/context?session_id={sid}&request_id={rid}")
}

async fn stage(server: &Server, sid: &str, rid: &str, body: &str) -> Resp {
    http(server, "POST", &stage_path(sid, rid), Some(server.session().token()), &[JSON], body.as_bytes()).await
}

fn one_envelope_array(id: &str) -> String {
    canonical_json(&Value::Array(vec![envelope(id)])).unwrap()
}

/// `n` requests at once, each on its own task and connection, written only when all are
/// connected (a barrier): `req(i)` gives method, path and body; the user's token, JSON body.
async fn race_http(server: &Server, n: usize, req: impl Fn(usize) -> (&'static str, String, Vec<u8>)) -> Vec<Resp> {
    let addr = server.host_origin().trim_start_matches("http://").to_string();
    let token = server.session().token().to_string();
    let barrier = Arc::new(Barrier::new(n));
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let (method, path, body) = req(i);
            let (addr, token, barrier) = (addr.clone(), token.clone(), barrier.clone());
            tokio::spawn(
                async move { http_at(&addr, Some(&barrier), method, &path, Some(&token), &[JSON], &body).await },
            )
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(tokio::time::timeout(TIMEOUT, t).await.expect("a racing request ends in time").expect("task"));
    }
    out
}

/// A JSON value nested `depth` arrays deep.
fn nested(depth: usize) -> Value {
    (0..depth).fold(json!("deep"), |v, _| json!([v]))
}

/// The stored `request_fingerprint` of a message, read from the database file.
fn stored_fingerprint(server: &Server, message_id: &str) -> String {
    let db = rusqlite::Connection::open(server.session().db_path()).unwrap();
    db.query_row("SELECT request_fingerprint FROM messages WHERE message_id = ?1", [message_id], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn the_retry_fingerprint_is_the_one_of_schemas_2_and_a_changed_text_is_never_a_duplicate() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    // The reported attack: a member nested past the canonicalizer's depth limit made every payload
    // fingerprint the same. An unknown member of `data` is refused, deep or not, and stores nothing.
    for (rid, text) in [("pay", "pay 10 EUR"), ("pay", "pay 9999 EUR")] {
        let before = counts(&server);
        let reply = send(&mut ws, &message(rid, text, json!({"extra": nested(40)}))).await;
        assert_eq!(
            (reply["type"].clone(), reply["code"].clone()),
            (json!("error"), json!("invalid_request")),
            "{reply}"
        );
        assert_eq!(counts(&server), before, "{text}: a refused command stores nothing");
        let shallow = send(&mut ws, &message(&format!("{rid}-shallow"), text, json!({"note": 1}))).await;
        assert_eq!(shallow["code"], "invalid_request", "an unknown member is refused however shallow: {shallow}");
    }
    assert!(server.session().messages(&sid).unwrap().is_empty());
    // The fingerprint is sha256(canonical_json({text, file_uuids or [], context_attachments or []})).
    let first = send(&mut ws, &message("pay", "pay 10 EUR", json!({}))).await;
    assert_eq!(first["type"], "received", "{first}");
    let mid = first["message_id"].as_str().unwrap();
    let basis = json!({"text": "pay 10 EUR", "file_uuids": [], "context_attachments": []});
    assert_eq!(stored_fingerprint(&server, mid), sha256_prefixed(canonical_json(&basis).unwrap().as_bytes()));
    // Spelling out the defaults is the same request; changing the text is not.
    let same = send(&mut ws, &message("pay", "pay 10 EUR", json!({"file_uuids": [], "context_attachments": []}))).await;
    assert_eq!(
        (same["type"].clone(), same["duplicate"].clone(), same["message_id"].clone()),
        (json!("received"), json!(true), json!(mid))
    );
    let changed = send(&mut ws, &message("pay", "pay 9999 EUR", json!({}))).await;
    assert_eq!(changed["code"], "request_conflict", "{changed}");
    // A context that cannot be canonicalized (deeper than 32 levels) cannot be fingerprinted:
    // refused, never compared as the empty string.
    let before = counts(&server);
    let deep = send(&mut ws, &message("pay", "pay 9999 EUR", json!({"context_attachments": [nested(40)]}))).await;
    assert_eq!(
        (deep["code"].clone(), deep["detail_code"].clone()),
        (json!("invalid_context_attachments"), json!("invalid-json")),
        "{deep}"
    );
    assert_eq!(counts(&server), before);
    let stored = server.session().messages(&sid).unwrap();
    assert_eq!(stored.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["pay 10 EUR"]);
}

/// `clients` sockets of one session send the same command at once; every round must store one
/// message, answer one `received` and `duplicate` for the rest, all with its id.
async fn same_request_on_sockets(clients: usize) {
    let server = server().await;
    let (_first, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let mut sockets = Vec::new();
    for _ in 0..clients {
        sockets.push(join(&server, Some(&sid)).await.0);
    }
    for round in 0..ROUNDS {
        let rid = format!("race-{clients}-{round}");
        let cmd = message(&rid, &format!("round {round}"), json!({}));
        let barrier = Arc::new(Barrier::new(clients));
        let tasks: Vec<_> = sockets
            .drain(..)
            .map(|mut ws| {
                let (barrier, cmd) = (barrier.clone(), cmd.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    let reply = send(&mut ws, &cmd).await;
                    (ws, reply)
                })
            })
            .collect();
        let mut replies = Vec::new();
        for t in tasks {
            let (ws, reply) =
                tokio::time::timeout(TIMEOUT, t).await.expect("a racing send ends in time").expect("task");
            sockets.push(ws);
            replies.push(reply);
        }
        let stored: Vec<_> =
            server.session().messages(&sid).unwrap().into_iter().filter(|m| m.request_id == rid).collect();
        assert_eq!(stored.len(), 1, "round {round}: one message per request_id");
        let mid = stored[0].message_id.as_str();
        let firsts = replies.iter().filter(|r| r["duplicate"] == false).count();
        assert!(
            replies.iter().all(|r| r["type"] == "received" && r["message_id"] == mid),
            "round {round}: every socket gets `received` with the stored id: {replies:?}"
        );
        assert_eq!(firsts, 1, "round {round}: exactly one first answer, the rest duplicates: {replies:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_request_id_on_two_sockets_at_once_is_stored_once_and_answered_received_then_duplicate() {
    tokio::time::timeout(TIMEOUT * 3, same_request_on_sockets(2)).await.expect("the races end within the timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_request_id_on_four_sockets_at_once_is_stored_once_and_answered_received_then_duplicates() {
    tokio::time::timeout(TIMEOUT * 3, same_request_on_sockets(4)).await.expect("the races end within the timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_stage_posts_leave_exactly_the_quota_of_8_pending() {
    let server = server().await;
    let body = one_envelope_array("a1");
    for round in 0..ROUNDS {
        let sid = server.session().create_session().unwrap();
        let answers: Vec<(u16, String)> =
            race_http(&server, 20, |i| ("POST", stage_path(&sid, &format!("q{i}")), body.clone().into_bytes()))
                .await
                .iter()
                .map(|r| (r.status, r.code()))
                .collect();
        let created = answers.iter().filter(|(st, _)| *st == 201).count();
        let refused = answers.iter().filter(|(st, code)| *st == 429 && code == "CONTEXT_STAGE_QUOTA").count();
        assert_eq!((created, refused), (8, 12), "round {round}: 8 created, 12 over quota: {answers:?}");
        let pending = server.session().stages(&sid).unwrap().into_iter().filter(|s| s.state == "pending").count();
        assert_eq!(pending, 8, "round {round}: the session holds exactly its quota");
        // Let this round's stages expire: the next round starts below the per-actor quota (32).
        server.session().advance_clock_ms(300_001);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_stage_posted_ten_times_at_once_is_one_stage_answered_201_ten_times() {
    let server = server().await;
    let body = one_envelope_array("a1");
    for round in 0..ROUNDS {
        let sid = server.session().create_session().unwrap();
        let answers: Vec<(u16, String)> =
            race_http(&server, 10, |_| ("POST", stage_path(&sid, "same"), body.clone().into_bytes()))
                .await
                .iter()
                .map(|r| (r.status, String::from_utf8_lossy(&r.body).to_string()))
                .collect();
        let stages = server.session().stages(&sid).unwrap();
        assert_eq!(stages.len(), 1, "round {round}: one stage for one request");
        for (status, body) in &answers {
            assert_eq!(*status, 201, "round {round}: {body}");
            let v: Value = serde_json::from_str(body).unwrap();
            assert_eq!(v["context_attachments_ref"]["id"], stages[0].id.as_str(), "round {round}: the same stage");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_patches_without_expected_revision_never_conflict() {
    let server = server().await;
    let token = server.session().token().to_string();
    for round in 0..5 {
        let sid = server.session().create_session().unwrap();
        let answers: Vec<(u16, Value)> = race_http(&server, 20, |i| {
            (
                "PATCH",
                format!("/api/v1/sessions/{sid}/attention-context"),
                format!("{{\"enabled\":{}}}", i % 2 == 0).into_bytes(),
            )
        })
        .await
        .iter()
        .map(|r| (r.status, r.json()))
        .collect();
        for (status, body) in &answers {
            assert_eq!(*status, 200, "round {round}: §10 reserves 409 for a stale expected_revision: {body}");
        }
        // Each answer is a state some serialized order went through: revisions are distinct per
        // change, and the stored revision is the number of changes made.
        let state = server.session().attention_state(&sid).unwrap().unwrap();
        let max = answers.iter().filter_map(|(_, b)| b["attention_context"]["revision"].as_i64()).max().unwrap();
        assert_eq!(state.revision, max, "round {round}: the last answer's revision is the stored one");
    }
    // A stale expected_revision still conflicts, with the current state.
    let sid = server.session().create_session().unwrap();
    let path = format!("/api/v1/sessions/{sid}/attention-context");
    let ok = http(&server, "PATCH", &path, Some(&token), &[JSON], br#"{"enabled":true,"expected_revision":0}"#).await;
    assert_eq!(ok.status, 200);
    let stale =
        http(&server, "PATCH", &path, Some(&token), &[JSON], br#"{"enabled":false,"expected_revision":0}"#).await;
    assert_eq!((stale.status, stale.code()), (409, "ATTENTION_CONTEXT_REVISION_CONFLICT".to_string()));
    assert_eq!(stale.json()["attention_context"]["revision"], 1);
}

#[tokio::test]
async fn a_retry_after_its_file_was_removed_is_the_duplicate_it_is() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let png = real_png(4, 4, None);
    let up = http(&server, "POST", &format!("/api/v1/uploads?session_id={sid}"), Some(s.token()), &[], &png).await;
    assert_eq!(up.status, 201, "{}", String::from_utf8_lossy(&up.body));
    let uuid = up.json()["upload"]["uuid"].as_str().unwrap().to_string();
    let cmd = message("with-file", "see file", json!({"file_uuids": [uuid]}));
    let first = send(&mut ws, &cmd).await;
    assert_eq!(first["type"], "received", "{first}");
    let del =
        http(&server, "DELETE", &format!("/api/v1/uploads/{uuid}?session_id={sid}"), Some(s.token()), &[], b"").await;
    assert_eq!(del.status, 204);
    let before = counts(&server);
    let retry = send(&mut ws, &cmd).await;
    assert_eq!(
        (retry["type"].clone(), retry["duplicate"].clone(), retry["message_id"].clone()),
        (json!("received"), json!(true), first["message_id"].clone()),
        "{retry}"
    );
    assert_eq!(counts(&server), before);
    // A new request naming the removed file is still refused.
    let fresh = send(&mut ws, &message("new-with-file", "again", json!({"file_uuids": [uuid]}))).await;
    assert_eq!(fresh["code"], "file_unavailable", "{fresh}");
}

#[tokio::test]
async fn an_expired_stage_is_never_handed_back_a_retry_gets_a_fresh_one() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let body = one_envelope_array("a1");
    let first = stage(&server, &sid, "late", &body).await;
    assert_eq!(first.status, 201);
    let old = first.json();
    // Before expiry it is the same stage; after it, it is dead.
    s.advance_clock_ms(290_000);
    assert_eq!(
        stage(&server, &sid, "late", &body).await.json()["context_attachments_ref"],
        old["context_attachments_ref"]
    );
    s.advance_clock_ms(10_001);
    let again = stage(&server, &sid, "late", &body).await;
    assert_eq!(again.status, 201, "{}", String::from_utf8_lossy(&again.body));
    let fresh = again.json();
    assert_ne!(fresh["context_attachments_ref"]["id"], old["context_attachments_ref"]["id"], "a new stage");
    let expires = attention_harness::contract::Timestamp::parse_session(fresh["expires_at"].as_str().unwrap()).unwrap();
    let real = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    assert!(
        expires.secs * 1000 > real + 300_001,
        "expires_at {} is in the future of the Session's clock",
        fresh["expires_at"]
    );
    let stages = s.stages(&sid).unwrap();
    assert_eq!(stages.len(), 1, "the expired stage is replaced, not kept beside: {stages:?}");
    // The fresh reference is usable.
    let (mut ws, _) = join(&server, Some(&sid)).await;
    let reply =
        send(&mut ws, &message("late", "t", json!({"context_attachments_ref": fresh["context_attachments_ref"]})))
            .await;
    assert_eq!(reply["type"], "received", "{reply}");
}
