//! The reference Session's WebSocket: authentication, `session_message` admission through the
//! contract validator, exactly one `received` per request, duplicates and conflicts, the stripped
//! `runtime_context`, and the 1009 close. "Nothing persisted" is read from the database.

use crate::session_support;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use session_support::*;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn joining_without_a_valid_token_is_refused_with_401() {
    let server = server().await;
    let ws_base = server.host_origin().replace("http://", "ws://");
    for url in [format!("{ws_base}/api/v1/ws/join"), format!("{ws_base}/api/v1/ws/join?token=not-the-token")] {
        match tokio_tungstenite::connect_async(ws_request(&url, server.host_origin())).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 401, "{url}"),
            other => panic!("{url}: expected an HTTP 401 refusal, got {:?}", other.map(|_| "an open socket")),
        }
    }
    assert_eq!(counts(&server).sessions, 0, "a refused join creates no session");
}

#[tokio::test]
async fn a_plain_message_gets_exactly_one_received_and_is_stored_without_runtime_context() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let cmd = message(
        "req-plain-1",
        "hello",
        json!({"runtime_context": {"attention": {"agent_actions_enabled": false, "host_instance_id": "host-1"}}}),
    );
    let reply = send(&mut ws, &cmd).await;
    assert_eq!(reply["type"], "received", "{reply}");
    let mid = reply["message_id"].as_str().unwrap();
    assert_eq!(reply["topic"], format!("session:{sid}:message:{mid}"));
    assert_eq!(reply["request_id"], "req-plain-1");
    let stored = server.session().messages(&sid).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].message_id, mid);
    assert_eq!(stored[0].text, "hello");
    assert!(stored[0].attachments.is_empty());
    // runtime_context is a tab binding, never durable: no stored column holds it.
    let raw = std::fs::read(server.session().db_path()).unwrap();
    assert!(!String::from_utf8_lossy(&raw).contains("host-1"), "runtime_context reached the database file");
    assert_eq!(server.session().replies_to(&sid, "req-plain-1").len(), 1, "exactly one answer per request_id");
}

#[tokio::test]
async fn a_message_with_context_is_stored_atomically_with_its_attachment() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let env = envelope("attachment-1");
    let reply = send(&mut ws, &message("req-ctx-1", "look", json!({"context_attachments": [env.clone()]}))).await;
    assert_eq!(reply["type"], "received", "{reply}");
    let stored = &server.session().messages(&sid).unwrap()[0];
    assert_eq!(stored.attachments.len(), 1);
    let a = &stored.attachments[0];
    assert_eq!(
        (a.attachment_id.as_str(), a.content_hash.as_str()),
        ("attachment-1", env["content_hash"].as_str().unwrap())
    );
    let back: Value = serde_json::from_str(&a.envelope).unwrap();
    assert_eq!(back, env, "the stored envelope is the one sent");
    assert!(!a.inert);
}

#[tokio::test]
async fn a_retry_with_the_same_payload_is_a_duplicate_and_a_changed_one_a_conflict() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let first = send(&mut ws, &message("req-retry", "same", json!({"context_attachments": [envelope("a1")]}))).await;
    // A different tab binding does not make it a different payload.
    let again = send(
        &mut ws,
        &message(
            "req-retry",
            "same",
            json!({"context_attachments": [envelope("a1")], "runtime_context": {"attention": {}}}),
        ),
    )
    .await;
    assert_eq!(again["type"], "received", "{again}");
    assert_eq!(again["message_id"], first["message_id"], "a duplicate answers the same message_id");
    assert_eq!(again["duplicate"], true);
    let before = counts(&server);
    let changed = send(&mut ws, &message("req-retry", "different", json!({}))).await;
    assert_eq!(
        (changed["success"].clone(), changed["code"].clone()),
        (json!(false), json!("request_conflict")),
        "{changed}"
    );
    assert_eq!(counts(&server), before, "a conflict stores nothing");
    assert_eq!(server.session().messages(&sid).unwrap().len(), 1);
    assert_eq!(server.session().messages(&sid).unwrap()[0].text, "same");
}

/// One bad send per validator code family: the whole send is rejected with the validator's code.
#[tokio::test]
async fn an_invalid_attachment_rejects_the_whole_send_with_the_validators_code_and_stores_nothing() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let good = envelope("a1");
    let mut bad_json = good.clone();
    bad_json["content"] = json!("{");
    bad_json["content_bytes"] = json!(1);
    bad_json["content_hash"] = json!(attention_harness::contract::sha256_prefixed(b"{"));
    let mut bad_hash = good.clone();
    bad_hash["content_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    let mut extra = good.clone();
    extra["required"] = json!(true);
    let cases: Vec<(Value, &str)> = vec![
        (json!({"context_attachments": [bad_json]}), "invalid-json"),
        (json!({"context_attachments": [bad_hash]}), "content-hash-mismatch"),
        (json!({"context_attachments": [extra]}), "invalid-envelope"),
        (json!({"context_attachments": [good.clone(), good.clone()]}), "duplicate-attachment-id"),
        (json!({"context_attachments": {"not": "an array"}}), "array-required"),
    ];
    for (i, (data, detail)) in cases.into_iter().enumerate() {
        let before = counts(&server);
        let rid = format!("req-bad-{i}");
        let reply = send(&mut ws, &message(&rid, "text that must not be stored alone", data)).await;
        assert_eq!(reply["success"], false, "{reply}");
        assert_eq!(reply["code"], "invalid_context_attachments", "{reply}");
        assert_eq!(reply["detail_code"], detail, "{reply}");
        assert_eq!(reply["topic"], format!("session:{sid}"));
        assert_eq!(reply["request_id"], rid.as_str());
        assert!(reply.get("message_id").is_none());
        assert_eq!(counts(&server), before, "{detail}: nothing persisted, not even the text");
    }
    assert!(server.session().messages(&sid).unwrap().is_empty());
    // The session is still usable.
    let ok = send(&mut ws, &message("req-after", "next", json!({}))).await;
    assert_eq!(ok["type"], "received");
}

#[tokio::test]
async fn both_inline_context_and_a_reference_is_an_invalid_reference() {
    let server = server().await;
    let (mut ws, _) = join(&server, None).await;
    let before = counts(&server);
    let reply = send(
        &mut ws,
        &message("req-both", "x", json!({"context_attachments": [envelope("a1")],
            "context_attachments_ref": {"version": 1, "id": "abc", "content_hash": format!("sha256:{}", "0".repeat(64)), "content_bytes": 10}})),
    )
    .await;
    assert_eq!(reply["code"], "invalid_context_reference", "{reply}");
    assert_eq!(counts(&server), before);
}

/// Pads a command's text so its encoded frame is exactly `target` bytes.
fn command_of_exactly(request_id: &str, target: usize) -> String {
    let base = serde_json::to_string(&message(request_id, "", json!({}))).unwrap();
    let text = "x".repeat(target - base.len());
    let frame = serde_json::to_string(&message(request_id, &text, json!({}))).unwrap();
    assert_eq!(frame.len(), target);
    frame
}

#[tokio::test]
async fn a_frame_of_exactly_32768_bytes_is_admitted() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let reply = send_raw(&mut ws, &command_of_exactly("req-32768", 32_768)).await;
    assert_eq!(reply["type"], "received", "{reply}");
    let r = &server.session().replies_to(&sid, "req-32768")[0];
    assert_eq!(r.command_bytes, 32_768);
}

#[tokio::test]
async fn a_frame_of_32769_bytes_closes_the_socket_with_1009_and_stores_nothing() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let before = counts(&server);
    ws.send(Message::Text(command_of_exactly("req-32769", 32_769).into())).await.unwrap();
    let close = loop {
        match tokio::time::timeout(TIMEOUT, ws.next()).await.expect("the server answers within the timeout") {
            Some(Ok(Message::Close(frame))) => break frame,
            Some(Ok(Message::Text(t))) => panic!("no correlated reply may come: {t}"),
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(close.map(|c| c.code), Some(CloseCode::Size), "close code 1009");
    assert_eq!(counts(&server), before, "nothing persisted");
    assert!(server.session().replies_to(&sid, "req-32769").is_empty());
    assert_eq!(
        server.session().closes().iter().map(|c| (c.code, c.frame_bytes)).collect::<Vec<_>>(),
        vec![(1009, 32_769)]
    );
}

#[tokio::test]
async fn malformed_commands_get_their_codes_and_store_nothing() {
    let server = server().await;
    let (mut ws, _) = join(&server, None).await;
    let before = counts(&server);
    let r = send_raw(&mut ws, "not json").await;
    assert_eq!((r["code"].clone(), r["success"].clone()), (json!("invalid_request"), json!(false)));
    let r = send(&mut ws, &json!({"type": "session_message", "data": {"text": "no id"}})).await;
    assert_eq!(r["code"], "invalid_request");
    let r =
        send(&mut ws, &json!({"type": "session_message", "request_id": "r".repeat(129), "data": {"text": "long id"}}))
            .await;
    assert_eq!(r["code"], "invalid_request");
    let r = send(&mut ws, &json!({"type": "session_message", "request_id": "r1", "data": {"text": 5}})).await;
    assert_eq!((r["code"].clone(), r["request_id"].clone()), (json!("invalid_request"), json!("r1")));
    let r = send(&mut ws, &json!({"type": "steer", "request_id": "r2"})).await;
    assert_eq!(r["code"], "unknown_command");
    assert_eq!(counts(&server), before);
}

#[tokio::test]
async fn a_socket_rejoins_its_own_session_but_never_another_users() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    assert_eq!(send(&mut ws, &message("r1", "first", json!({}))).await["type"], "received");
    drop(ws);
    let (mut again, welcome) = join(&server, Some(&sid)).await;
    assert_eq!(welcome["session_id"], sid.as_str());
    // The retry on the new socket is the same message.
    assert_eq!(send(&mut again, &message("r1", "first", json!({}))).await["duplicate"], true);
    let foreign = server.session().create_session_for(attention_harness::server::session::Actor::Other).unwrap();
    let url = format!(
        "{}/api/v1/ws/join?token={}&session_id={foreign}",
        server.host_origin().replace("http://", "ws://"),
        server.session().token()
    );
    match tokio_tungstenite::connect_async(ws_request(&url, server.host_origin())).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 404),
        other => panic!("expected 404, got {:?}", other.map(|_| "an open socket")),
    }
    assert_eq!(server.session().messages(&sid).unwrap().len(), 1);
}
