//! The reference Session's UI action broker at the WebSocket level (relay.md Part 2): the Host is
//! a raw socket, the agent the typed Session API. Every argument error of relay.md, the TTL and
//! prompt / target boundaries, the strict result envelope and its correlation, per-mode statuses,
//! `selected_target` among the offered targets (rect ignored), duplicates, one pending action per
//! session, broker-synthesised `expired` / `disconnected` / `unavailable`, and reconnect.

use crate::session_support;

use std::time::{Duration, Instant};

use attention_harness::server::session::ui_actions::{ActionCall, AgentRoute, BrokerError, Mode};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use session_support::*;
use tokio::sync::oneshot::Receiver;
use tokio_tungstenite::tungstenite::Message;

const HOST: &str = "host-0123456789abcdef";

fn target(id: &str) -> Value {
    json!({"snapshot_id": "snap-1", "target_id": id, "host_instance_id": HOST, "mount_id": "leaf-1", "generation": 1,
           "path_digest": format!("sha256:{}", "a".repeat(64)), "rect": {"x": 10, "y": 20, "width": 30, "height": 40}, "label": "Left"})
}

/// A Host tab: joins, sends one message carrying its runtime_context, returns the agent's route.
async fn host_tab(
    server: &attention_harness::server::Server,
    session: Option<&str>,
    enabled: bool,
) -> (Ws, String, AgentRoute) {
    let (mut ws, welcome) = join(server, session).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let rc = json!({"runtime_context": {"attention": {"agent_actions_enabled": enabled, "host_instance_id": HOST}}});
    let reply = send(&mut ws, &message(&format!("bind-{}", rand_id()), "hello", rc)).await;
    assert_eq!(reply["type"], "received", "{reply}");
    let route = server.session().broker().route(&sid).expect("the socket is bound as the session's route");
    (ws, sid, route)
}

fn rand_id() -> String {
    format!("{}-{}", std::process::id(), rand_nonce())
}
fn rand_nonce() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed) as u128
}

fn call(
    server: &attention_harness::server::Server,
    route: &AgentRoute,
    call_id: &str,
    mode: Mode,
    args: Value,
    ttl: u64,
) -> Receiver<Value> {
    server
        .session()
        .request_ui_action(ActionCall {
            delivery_handle: route.delivery_handle.clone(),
            call_id: call_id.into(),
            session_id: route.session_id.clone(),
            mode,
            args,
            ttl_secs: ttl,
        })
        .expect("a well-formed call")
}

async fn result(rx: Receiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .expect("a terminal result within 10 s")
        .expect("the broker answers")
}

/// The next `session_ui_action_request` the Host socket gets.
async fn host_request(ws: &mut Ws) -> Value {
    let f = next_json(ws).await;
    assert_eq!(f["type"], "session_ui_action_request", "{f}");
    f
}

fn answer(req: &Value, status: &str, selected: Option<Value>) -> Value {
    let d = &req["data"];
    let mut r = json!({"schema": "wippy.ui-action.v1", "message_type": "result", "result_id": format!("res-{}", rand_id()),
        "in_reply_to_action_id": d["action_id"], "request_id": d["request_id"], "session_id": d["session_id"],
        "host_instance_id": d["host_instance_id"], "completed_at": "2026-01-01T00:00:00.000Z", "status": status});
    if let Some(t) = selected {
        r["selected_target"] = t;
    }
    json!({"type": "session_ui_action_result", "session_id": d["session_id"], "data": r})
}

async fn host_send(ws: &mut Ws, frame: &Value) {
    ws.send(Message::Text(frame.to_string().into())).await.unwrap();
}

/// Nothing arrives on the Host socket within `ms`.
async fn host_gets_nothing(ws: &mut Ws, ms: u64) {
    if let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(ms), ws.next()).await {
        panic!("the Host got an unexpected frame: {m:?}");
    }
}

#[tokio::test]
async fn every_argument_error_of_relay_md_ends_unavailable_with_its_reason_and_reaches_no_host() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let t = target("t-1");
    let mut bad_ref = target("t-1");
    bad_ref["token"] = json!("x");
    let cases: Vec<(Mode, Value, &str)> = vec![
        (Mode::Confirm, json!([t]), "arguments must be an object"),
        (Mode::Confirm, json!({"targets": [t], "prompt": 5}), "prompt is invalid"),
        (Mode::Confirm, json!({"targets": [t], "prompt": "x".repeat(513)}), "prompt is invalid"),
        (Mode::Confirm, json!({"targets": t}), "targets are invalid"),
        (Mode::Confirm, json!({"targets": vec![t.clone(); 33]}), "targets are invalid"),
        (Mode::Highlight, json!({}), "targets are required"),
        (Mode::Confirm, json!({"targets": []}), "targets are required"),
        (Mode::Select, json!({"targets": []}), "targets are required"),
        (Mode::Select, json!({"targets": [], "capture_region": false}), "targets are required"),
        (Mode::CaptureVisual, json!({"targets": []}), "targets are required"),
        (Mode::Confirm, json!({"targets": [bad_ref]}), "target reference is invalid"),
        (Mode::Confirm, json!({"targets": [{"target_id": "t-1"}]}), "target reference is invalid"),
        (Mode::Confirm, json!({"targets": [t], "allow_pointer": "yes"}), "allow_pointer is invalid"),
        (Mode::Confirm, json!({"targets": [t], "allow_keyboard": 1}), "allow_keyboard is invalid"),
        (Mode::Select, json!({"targets": [t], "capture_region": "true"}), "capture_region is invalid"),
        (Mode::CaptureVisual, json!({"targets": [t], "capture": {"scope": "region"}}), "capture is invalid"),
        (Mode::CaptureVisual, json!({"targets": [t], "capture": {"format": "image/jpeg"}}), "capture is invalid"),
        (Mode::Highlight, json!({"targets": [t], "capture": {}}), "capture is not allowed"),
        (Mode::CaptureVisual, json!({"targets": [t], "capture_region": true}), "capture_region is not allowed"),
    ];
    for (i, (mode, args, reason)) in cases.into_iter().enumerate() {
        let r = result(call(&server, &route, &format!("bad-{i}"), mode, args.clone(), 30)).await;
        assert_eq!(
            (r["status"].as_str(), r["reason"].as_str()),
            (Some("unavailable"), Some(reason)),
            "case {i} {args}: {r}"
        );
        assert_eq!(r["request_id"], format!("bad-{i}"));
    }
    assert!(server.session().broker().sent().is_empty(), "an argument error reaches no Host");
    host_gets_nothing(&mut ws, 200).await;
}

#[tokio::test]
async fn limits_pass_at_the_boundary_and_fail_one_past_it() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    // 512-byte prompt (multi-byte), 32 targets, TTL 120: sent.
    let prompt = "é".repeat(256);
    let rx = call(
        &server,
        &route,
        "edge-1",
        Mode::Confirm,
        json!({"targets": vec![target("t-1"); 32], "prompt": prompt}),
        120,
    );
    let req = host_request(&mut ws).await;
    assert_eq!(req["data"]["targets"].as_array().unwrap().len(), 32);
    host_send(&mut ws, &answer(&req, "cancelled", None)).await;
    assert_eq!(result(rx).await["status"], "cancelled");
    let r = result(call(
        &server,
        &route,
        "edge-2",
        Mode::Confirm,
        json!({"targets": [target("t-1")], "prompt": format!("{prompt}x")}),
        120,
    ))
    .await;
    assert_eq!(r["reason"], "prompt is invalid");
    // TTL 1 is accepted; 0 and 121 are typed errors of the call itself.
    let rx = call(&server, &route, "edge-3", Mode::Highlight, json!({"targets": [target("t-1")]}), 1);
    let req = host_request(&mut ws).await;
    host_send(&mut ws, &answer(&req, "cancelled", None)).await;
    assert_eq!(result(rx).await["status"], "cancelled");
    for ttl in [0, 121] {
        let e = server.session().request_ui_action(ActionCall {
            delivery_handle: route.delivery_handle.clone(),
            call_id: "ttl".into(),
            session_id: route.session_id.clone(),
            mode: Mode::Highlight,
            args: json!({"targets": [target("t-1")]}),
            ttl_secs: ttl,
        });
        assert_eq!(e.err(), Some(BrokerError::Ttl(ttl)));
    }
}

#[tokio::test]
async fn the_host_gets_the_request_without_delivery_handle_and_one_correlated_result_ends_it_once() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    let rx = call(
        &server,
        &route,
        "call-ok",
        Mode::Confirm,
        json!({"targets": [target("t-1"), target("t-2")], "prompt": "Is it this?"}),
        30,
    );
    let req = host_request(&mut ws).await;
    let d = &req["data"];
    assert!(
        !req.to_string().contains(&route.delivery_handle) && !req.to_string().contains("delivery_handle"),
        "delivery_handle reached the Host: {req}"
    );
    assert_eq!(
        (d["schema"].as_str(), d["message_type"].as_str(), d["mode"].as_str()),
        (Some("wippy.ui-action.v1"), Some("request"), Some("confirm"))
    );
    assert_eq!(
        (d["request_id"].as_str(), d["session_id"].as_str(), d["host_instance_id"].as_str()),
        (Some("call-ok"), Some(sid.as_str()), Some(HOST))
    );
    assert_eq!(
        (d["allow_pointer"].clone(), d["allow_keyboard"].clone(), d["capture_region"].clone()),
        (json!(true), json!(true), json!(false))
    );
    let created = attention_harness::contract::Timestamp::parse_session(d["created_at"].as_str().unwrap()).unwrap();
    let expires = attention_harness::contract::Timestamp::parse_session(d["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(expires.secs - created.secs, 30, "expires_at = created_at + TTL");
    // The Host refreshed the rect: selected_target is still "among the offered targets".
    let mut moved = target("t-2");
    moved["rect"]["x"] = json!(34);
    let ok = answer(&req, "confirmed", Some(moved.clone()));
    host_send(&mut ws, &ok).await;
    let r = result(rx).await;
    assert_eq!((r["status"].as_str(), r["selected_target"].clone()), (Some("confirmed"), moved));
    // A second result for the completed action is a duplicate.
    host_send(&mut ws, &ok).await;
    wait_refusals(&server, 1).await;
    assert_eq!(server.session().broker().refusals()[0].error, "duplicate");
}

async fn wait_refusals(server: &attention_harness::server::Server, n: usize) {
    let until = Instant::now() + Duration::from_secs(5);
    while server.session().broker().refusals().len() < n {
        assert!(
            Instant::now() < until,
            "the broker did not refuse {n} results within 5 s: {:?}",
            server.session().broker().refusals()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn uncorrelated_malformed_or_disallowed_results_are_refused_and_the_action_stays_pending() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let (mut other, _, _) = host_tab(&server, None, true).await;
    let rx = call(&server, &route, "call-c", Mode::Select, json!({"targets": [target("t-1")]}), 30);
    let req = host_request(&mut ws).await;
    let mut bad: Vec<(Value, &str)> = Vec::new();
    let mut f = answer(&req, "cancelled", None);
    f["data"]["extra"] = json!(1);
    bad.push((f, "result envelope is invalid"));
    let mut f = answer(&req, "cancelled", None);
    f["data"]["reason"] = json!("x".repeat(513));
    bad.push((f, "result envelope is invalid"));
    bad.push((answer(&req, "selected", None), "selected_target is invalid"));
    bad.push((answer(&req, "cancelled", Some(target("t-1"))), "selected_target is invalid"));
    bad.push((answer(&req, "denied", None), "status denied is not allowed for mode select"));
    let mut f = answer(&req, "cancelled", None);
    f["data"]["in_reply_to_action_id"] = json!("act-other");
    bad.push((f, "result is not correlated with the pending action"));
    let mut f = answer(&req, "cancelled", None);
    f["data"]["request_id"] = json!("call-other");
    bad.push((f, "result is not correlated with the pending action"));
    let mut f = answer(&req, "cancelled", None);
    f["data"]["host_instance_id"] = json!("host-ffffffffffffffff");
    bad.push((f, "result is not correlated with the pending action"));
    bad.push((answer(&req, "selected", Some(target("t-9"))), "selected_target is not among the offered targets"));
    let mut regen = target("t-1");
    regen["generation"] = json!(2);
    bad.push((answer(&req, "selected", Some(regen)), "selected_target is not among the offered targets"));
    for (frame, _) in &bad {
        host_send(&mut ws, frame).await;
    }
    wait_refusals(&server, bad.len()).await;
    // The right result from another socket of the same user (another session) is not the route's.
    host_send(&mut other, &answer(&req, "cancelled", None)).await;
    wait_refusals(&server, bad.len() + 1).await;
    let refusals = server.session().broker().refusals();
    for (i, (_, why)) in bad.iter().enumerate() {
        assert_eq!(refusals[i].error, *why, "refusal {i}");
    }
    assert_eq!(refusals[bad.len()].error, "sender is not a socket of this session");
    assert!(server.session().broker().is_pending(&route.session_id), "refused results leave the action pending");
    host_send(&mut ws, &answer(&req, "selected", Some(target("t-1")))).await;
    assert_eq!(result(rx).await["status"], "selected");
}

#[tokio::test]
async fn one_interactive_action_per_session_and_no_route_or_authority_gets_no_overlay() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let first = call(&server, &route, "one", Mode::Highlight, json!({"targets": [target("t-1")]}), 30);
    let req = host_request(&mut ws).await;
    let second = result(call(&server, &route, "two", Mode::Highlight, json!({"targets": [target("t-1")]}), 30)).await;
    assert_eq!(
        (second["status"].as_str(), second["reason"].as_str()),
        (Some("unavailable"), Some("another UI action is pending"))
    );
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    assert_eq!(result(first).await["status"], "confirmed");
    // A stale delivery handle has no route.
    let mut gone = route.clone();
    gone.delivery_handle = "dh-not-issued".into();
    let r = result(call(&server, &gone, "three", Mode::Highlight, json!({"targets": [target("t-1")]}), 30)).await;
    assert_eq!((r["status"].as_str(), r["reason"].as_str()), (Some("unavailable"), Some("UI action route expired")));
    // A Host tab with agent actions off: no request is sent.
    let (mut off, _, off_route) = host_tab(&server, None, false).await;
    assert!(!off_route.agent_actions_authorized);
    let r = result(call(&server, &off_route, "four", Mode::Confirm, json!({"targets": [target("t-1")]}), 30)).await;
    assert_eq!(r["status"], "permission-denied");
    host_gets_nothing(&mut off, 200).await;
    assert_eq!(server.session().broker().sent().len(), 1, "only the first action reached a Host");
}

#[tokio::test]
async fn an_unanswered_action_expires_at_its_ttl_exactly_once() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let t0 = Instant::now();
    let rx = call(&server, &route, "slow", Mode::Confirm, json!({"targets": [target("t-1")]}), 1);
    let req = host_request(&mut ws).await;
    let r = result(rx).await;
    let took = t0.elapsed();
    assert_eq!((r["status"].as_str(), r["reason"].as_str()), (Some("expired"), Some("UI action expired")));
    assert!(took >= Duration::from_millis(950) && took < Duration::from_secs(3), "expired after {took:?}, TTL 1 s");
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    wait_refusals(&server, 1).await;
    assert_eq!(server.session().broker().refusals()[0].error, "duplicate", "a late answer after expiry is a duplicate");
}

#[tokio::test]
async fn disconnect_ends_the_action_disconnected_and_a_new_socket_binds_again() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    let rx = call(&server, &route, "before", Mode::Select, json!({"targets": [target("t-1")]}), 60);
    host_request(&mut ws).await;
    ws.close(None).await.unwrap();
    let r = result(rx).await;
    assert_eq!(
        (r["status"].as_str(), r["reason"].as_str(), r["request_id"].as_str()),
        (Some("disconnected"), Some("UI action route disconnected"), Some("before"))
    );
    assert!(server.session().broker().route(&sid).is_none(), "a closed socket is no route");
    let r = result(call(&server, &route, "between", Mode::Select, json!({"targets": [target("t-1")]}), 60)).await;
    assert_eq!(r["status"], "unavailable", "the old route is gone: {r}");
    // Reconnect: the replacement socket binds with its next message; later actions work.
    let (mut ws2, sid2, route2) = host_tab(&server, Some(&sid), true).await;
    assert_eq!(sid2, sid);
    assert_ne!(route2.delivery_handle, route.delivery_handle, "a new binding gets a new delivery handle");
    let rx = call(&server, &route2, "after", Mode::Select, json!({"targets": [target("t-1")]}), 60);
    let req = host_request(&mut ws2).await;
    host_send(&mut ws2, &answer(&req, "selected", Some(target("t-1")))).await;
    assert_eq!(result(rx).await["status"], "selected");
}

#[tokio::test]
async fn a_newer_socket_binding_replaces_the_route_and_its_pending_action_ends_unavailable() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    let rx = call(&server, &route, "old-turn", Mode::Confirm, json!({"targets": [target("t-1")]}), 60);
    host_request(&mut ws).await;
    let (_ws2, _, route2) = host_tab(&server, Some(&sid), true).await;
    let r = result(rx).await;
    assert_eq!((r["status"].as_str(), r["reason"].as_str()), (Some("unavailable"), Some("turn route replaced")));
    assert_ne!(route2.delivery_handle, route.delivery_handle);
}

#[tokio::test]
async fn a_zero_target_select_with_capture_region_reaches_the_host() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let rx = call(
        &server,
        &route,
        "area",
        Mode::Select,
        json!({"targets": [], "capture_region": true, "allow_keyboard": false}),
        30,
    );
    let req = host_request(&mut ws).await;
    assert_eq!(
        (req["data"]["capture_region"].clone(), req["data"]["allow_keyboard"].clone(), req["data"]["targets"].clone()),
        (json!(true), json!(false), json!([]))
    );
    host_send(&mut ws, &answer(&req, "cancelled", None)).await;
    assert_eq!(result(rx).await["status"], "cancelled");
}

fn try_call(
    server: &attention_harness::server::Server,
    route: &AgentRoute,
    call_id: &str,
    mode: Mode,
    args: Value,
) -> Result<Receiver<Value>, BrokerError> {
    server.session().request_ui_action(ActionCall {
        delivery_handle: route.delivery_handle.clone(),
        call_id: call_id.into(),
        session_id: route.session_id.clone(),
        mode,
        args,
        ttl_secs: 30,
    })
}

/// relay.md "Concurrency": the same call_id with the same fingerprint gets the cached result back.
/// A repeat while the action is pending waits for it (the Host sees one request and answers once);
/// a repeat after it ended gets the first result, byte for byte, without reaching the Host; the
/// fingerprint ignores spelled-out defaults; another mode or other arguments under the same
/// call_id are refused; an argument error is a cached result like any other.
#[tokio::test]
async fn a_repeated_call_id_gets_the_first_result_and_the_host_sees_one_request() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let args = json!({"targets": [target("t-1")], "prompt": "This one?"});
    let first = call(&server, &route, "same", Mode::Confirm, args.clone(), 30);
    let req = host_request(&mut ws).await;
    let again = try_call(&server, &route, "same", Mode::Confirm, args.clone())
        .expect("a repeat of a pending call waits for it");
    host_gets_nothing(&mut ws, 200).await;
    assert!(server.session().broker().is_pending(&route.session_id));
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    let (a, b) = (result(first).await, result(again).await);
    assert_eq!(a["status"], "confirmed");
    assert_eq!(a, b, "the repeat while pending got another result");
    // After the end: the same result again, and nothing reaches the Host.
    let spelled = json!({"targets": [target("t-1")], "prompt": "This one?", "allow_pointer": true, "allow_keyboard": true, "capture_region": false});
    for repeat in [args.clone(), spelled] {
        let c =
            result(try_call(&server, &route, "same", Mode::Confirm, repeat).expect("a repeat of an ended call")).await;
        assert_eq!(c, a, "a repeated call_id got another result");
    }
    host_gets_nothing(&mut ws, 200).await;
    assert_eq!(server.session().broker().sent().len(), 1, "the Host got more than one request");
    // The same call_id for another request is refused.
    for (mode, other) in [
        (Mode::Confirm, json!({"targets": [target("t-2")]})),
        (Mode::Highlight, args.clone()),
        (Mode::Confirm, json!({"targets": [target("t-1")], "prompt": "This one?", "allow_pointer": false})),
    ] {
        assert_eq!(
            try_call(&server, &route, "same", mode, other).err(),
            Some(BrokerError::CallIdReused("same".into()))
        );
    }
    // An argument error is cached as it is.
    let bad = json!({"targets": [target("t-1")], "prompt": 7});
    let e1 = result(try_call(&server, &route, "bad", Mode::Confirm, bad.clone()).unwrap()).await;
    let e2 = result(try_call(&server, &route, "bad", Mode::Confirm, bad).unwrap()).await;
    assert_eq!((e1["status"].as_str(), e1["reason"].as_str()), (Some("unavailable"), Some("prompt is invalid")));
    assert_eq!(e1, e2);
    host_gets_nothing(&mut ws, 100).await;
}

/// relay.md "a request cache of 1024": 1,024 kept calls are accepted, the 1,025th is refused while
/// they are kept; repeats of kept calls still get their result; an ended call is kept 120 s after
/// its result (the Session clock is moved forward), after which a new call is accepted again.
#[tokio::test]
async fn the_request_cache_keeps_1024_calls_and_refuses_the_1025th_until_they_expire() {
    let server = server().await;
    let (mut ws, _sid, route) = host_tab(&server, None, true).await;
    let bad = json!({"targets": []});
    let mut first = Value::Null;
    for i in 0..attention_harness::server::session::ui_actions::REQUEST_CACHE {
        let r = result(
            try_call(&server, &route, &format!("c-{i}"), Mode::Confirm, bad.clone())
                .unwrap_or_else(|e| panic!("call {i}: {e}")),
        )
        .await;
        assert_eq!(r["reason"], "targets are required");
        if i == 0 {
            first = r;
        }
    }
    assert_eq!(try_call(&server, &route, "c-1024", Mode::Confirm, bad.clone()).err(), Some(BrokerError::CacheFull));
    assert_eq!(
        result(try_call(&server, &route, "c-0", Mode::Confirm, bad.clone()).unwrap()).await,
        first,
        "a kept call was forgotten"
    );
    // 119 s later they are all still kept; 121 s later none is.
    server.session().advance_clock_ms(119_000);
    assert_eq!(try_call(&server, &route, "c-1024", Mode::Confirm, bad.clone()).err(), Some(BrokerError::CacheFull));
    server.session().advance_clock_ms(2_000);
    let r = result(
        try_call(&server, &route, "c-1024", Mode::Confirm, bad.clone()).expect("expired entries free the cache"),
    )
    .await;
    assert_eq!(r["reason"], "targets are required");
    let again = result(try_call(&server, &route, "c-0", Mode::Confirm, bad).unwrap()).await;
    assert_ne!(again["result_id"], first["result_id"], "an expired call was answered from the cache");
    host_gets_nothing(&mut ws, 100).await;
}

/// Two agents bound to the same route (the same tab, one after the other, as `verify` does) share
/// the request cache, so their call_ids must never collide: the second agent's call is a new
/// call, not "the same call_id for another request".
#[tokio::test]
async fn two_agents_on_one_route_never_reuse_a_call_id() {
    use attention_harness::agent::{ActionOptions, Agent};
    let server = server().await;
    let (mut ws, sid, _route) = host_tab(&server, None, true).await;
    for (i, t) in ["t-1", "t-2"].into_iter().enumerate() {
        let agent = Agent::bind(server.session(), &sid).expect("the tab is bound");
        let pending =
            agent.confirm(&[target(t)], &ActionOptions::default()).unwrap_or_else(|e| panic!("agent {i}: {e}"));
        let req = host_request(&mut ws).await;
        assert_eq!(req["data"]["targets"][0]["target_id"], t);
        host_send(&mut ws, &answer(&req, "cancelled", None)).await;
        assert_eq!(pending.result(Duration::from_secs(10)).await.expect("a result").envelope["status"], "cancelled");
    }
}

/// A capture_visual result: `prepared` with a `prepared_file` that is a real upload of this session
/// (type, size and SHA-256 as stored) is delivered as is; a forged one (unknown uuid, or a digest
/// that is not the stored bytes') is turned into `error` (relay.md `validate_prepared_file`).
#[tokio::test]
async fn a_prepared_file_must_be_an_upload_of_the_session_or_the_result_becomes_error() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    // One real upload: a 1x1 PNG.
    let mut png = Vec::new();
    image::RgbaImage::new(1, 1).write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
    let token = server.session().token().to_string();
    let up =
        http(&server, "POST", &format!("/api/v1/uploads?session_id={sid}&name=cap.png"), Some(&token), &[], &png).await;
    assert_eq!(up.status, 201, "{}", up.json());
    let u = up.json()["upload"].clone();
    let real = json!({"uuid": u["uuid"], "name": u["name"], "mime_type": "image/png", "byte_size": u["byte_size"], "sha256": u["sha256"], "scope": "target"});
    let mut forged_uuid = real.clone();
    forged_uuid["uuid"] = json!("00000000-0000-4000-8000-000000000000");
    let mut forged_hash = real.clone();
    forged_hash["sha256"] = json!(format!("sha256:{}", "0".repeat(64)));
    let mut forged_shape = real.clone();
    forged_shape["byte_size"] = json!(1_048_577);
    for (pf, expect) in
        [(forged_uuid, "error"), (forged_hash, "error"), (forged_shape, "error"), (real.clone(), "prepared")]
    {
        let rx = call(
            &server,
            &route,
            &format!("call-cap-{}", rand_id()),
            Mode::CaptureVisual,
            json!({"targets": [target("t-1")]}),
            30,
        );
        let req = host_request(&mut ws).await;
        assert_eq!(req["data"]["capture"], json!({}), "the capture object reaches the Host");
        let mut frame = answer(&req, "prepared", None);
        frame["data"]["prepared_file"] = pf.clone();
        host_send(&mut ws, &frame).await;
        let r = result(rx).await;
        assert_eq!(r["status"], expect, "{pf} -> {r}");
        if expect == "prepared" {
            assert_eq!(r["prepared_file"], real);
        } else {
            assert!(
                r.get("prepared_file").is_none() && r["reason"].as_str().is_some_and(|x| x.contains("prepared_file")),
                "{r}"
            );
        }
    }
}

/// relay.md "Legs" 1: on timeout the tool sends `session_ui_action_cancel {delivery_handle,
/// call_id}` and the broker synthesises `cancelled` "tool request cancelled". Every caller waiting
/// on that call_id gets exactly that one result; the Host socket gets our private cancel frame
/// (action_id and request_id, never the delivery_handle) and no other; a late Host result for the
/// cancelled action is refused as `duplicate` and changes nothing; a repeat of the call_id gets the
/// cached `cancelled`; the session is free for the next action, which the Host answers as usual.
#[tokio::test]
async fn a_tool_cancel_ends_the_pending_action_cancelled_once_and_tells_the_host_to_close() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    let args = json!({"targets": [target("t-1")], "prompt": "This one?"});
    let rx = call(&server, &route, "tool-1", Mode::Confirm, args.clone(), 120);
    let req = host_request(&mut ws).await;
    let waiting = try_call(&server, &route, "tool-1", Mode::Confirm, args.clone())
        .expect("a repeat of a pending call waits for it");
    server.session().cancel_ui_action(&route.delivery_handle, "tool-1").expect("a pending call can be cancelled");
    let r = result(rx).await;
    assert_eq!(
        (r["status"].as_str(), r["reason"].as_str()),
        (Some("cancelled"), Some("tool request cancelled")),
        "{r}"
    );
    assert_eq!(
        (
            &r["in_reply_to_action_id"],
            r["request_id"].as_str(),
            r["session_id"].as_str(),
            r["host_instance_id"].as_str()
        ),
        (&req["data"]["action_id"], Some("tool-1"), Some(sid.as_str()), Some(HOST))
    );
    assert!(r.get("selected_target").is_none(), "{r}");
    assert_eq!(result(waiting).await, r, "the waiting repeat got another result");
    // The Host is told to close, with the action's identity only.
    let f = next_json(&mut ws).await;
    assert_eq!(
        f,
        json!({"type": "session_ui_action_cancel", "session_id": sid, "data": {"action_id": req["data"]["action_id"], "request_id": "tool-1"}})
    );
    assert!(!f.to_string().contains(&route.delivery_handle), "delivery_handle reached the Host: {f}");
    assert_eq!(server.session().broker().cancels_sent(), vec![f]);
    assert!(!server.session().broker().is_pending(&sid), "a cancelled action is still pending");
    // The Host's answer arrives late: a duplicate, nothing changes.
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    wait_refusals(&server, 1).await;
    assert_eq!(server.session().broker().refusals()[0].error, "duplicate");
    assert_eq!(
        result(try_call(&server, &route, "tool-1", Mode::Confirm, args).unwrap()).await,
        r,
        "the cached result changed"
    );
    host_gets_nothing(&mut ws, 200).await;
    // The session is free: the next action reaches the Host and ends with its answer.
    let next = call(&server, &route, "tool-2", Mode::Select, json!({"targets": [target("t-1")]}), 30);
    let req2 = host_request(&mut ws).await;
    host_send(&mut ws, &answer(&req2, "selected", Some(target("t-1")))).await;
    assert_eq!(result(next).await["status"], "selected");
    assert_eq!(server.session().broker().refusals().len(), 1);
    assert_eq!(server.session().broker().sent().len(), 2, "the Host got one request per action");
}

/// A cancel that names no pending call is a typed error and changes nothing: a call_id never sent,
/// one sent on another route (another delivery handle), one that ended with the Host's answer, with
/// an argument error, with expiry, or was cancelled already (`CallFinished`), and one the request
/// cache no longer keeps (`UnknownCall`). The pending action of the session is untouched, its
/// cached results stay as they were, and no frame reaches a Host.
#[tokio::test]
async fn cancelling_an_unknown_or_ended_call_is_a_typed_error_and_changes_nothing() {
    let server = server().await;
    let (mut ws, sid, route) = host_tab(&server, None, true).await;
    let (mut other_ws, _other_sid, other) = host_tab(&server, None, true).await;
    let broker = server.session().broker().clone();
    let cancel = |dh: &str, id: &str| server.session().cancel_ui_action(dh, id);
    assert_eq!(cancel(&route.delivery_handle, "never-sent"), Err(BrokerError::UnknownCall("never-sent".into())));
    // Ended by the Host's answer.
    let t1 = json!({"targets": [target("t-1")]});
    let rx = call(&server, &route, "answered", Mode::Confirm, t1.clone(), 30);
    let req = host_request(&mut ws).await;
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    let answered = result(rx).await;
    assert_eq!(answered["status"], "confirmed");
    assert_eq!(cancel(&route.delivery_handle, "answered"), Err(BrokerError::CallFinished("answered".into())));
    // Ended with an argument error (the broker's own result).
    let bad = result(call(&server, &route, "bad-args", Mode::Confirm, json!({"targets": []}), 30)).await;
    assert_eq!(bad["reason"], "targets are required");
    assert_eq!(cancel(&route.delivery_handle, "bad-args"), Err(BrokerError::CallFinished("bad-args".into())));
    // Ended by expiry.
    let rx = call(&server, &route, "expires", Mode::Highlight, t1.clone(), 1);
    host_request(&mut ws).await;
    assert_eq!(result(rx).await["status"], "expired");
    assert_eq!(cancel(&route.delivery_handle, "expires"), Err(BrokerError::CallFinished("expires".into())));
    // Cancelled already.
    let rx = call(&server, &route, "twice", Mode::Select, t1.clone(), 30);
    host_request(&mut ws).await;
    cancel(&route.delivery_handle, "twice").expect("the first cancel");
    let cancelled = result(rx).await;
    assert_eq!(cancelled["reason"], "tool request cancelled");
    assert_eq!(next_json(&mut ws).await["type"], "session_ui_action_cancel");
    assert_eq!(cancel(&route.delivery_handle, "twice"), Err(BrokerError::CallFinished("twice".into())));
    let cancels = broker.cancels_sent().len();
    // While another action is pending: a wrong cancel leaves it pending, and it ends as usual.
    let rx = call(&server, &route, "pending", Mode::Confirm, t1.clone(), 30);
    let req = host_request(&mut ws).await;
    assert_eq!(cancel(&route.delivery_handle, "answered"), Err(BrokerError::CallFinished("answered".into())));
    assert_eq!(
        cancel(&other.delivery_handle, "pending"),
        Err(BrokerError::UnknownCall("pending".into())),
        "another route's handle cancelled this call"
    );
    assert_eq!(cancel(&route.delivery_handle, "pending-other"), Err(BrokerError::UnknownCall("pending-other".into())));
    assert!(broker.is_pending(&sid), "a refused cancel ended the pending action");
    host_gets_nothing(&mut ws, 200).await;
    host_gets_nothing(&mut other_ws, 50).await;
    assert_eq!(broker.cancels_sent().len(), cancels, "a refused cancel sent a frame");
    host_send(&mut ws, &answer(&req, "confirmed", Some(target("t-1")))).await;
    assert_eq!(result(rx).await["status"], "confirmed");
    // The cached results are unchanged.
    assert_eq!(result(try_call(&server, &route, "answered", Mode::Confirm, t1.clone()).unwrap()).await, answered);
    assert_eq!(result(try_call(&server, &route, "twice", Mode::Select, t1.clone()).unwrap()).await, cancelled);
    assert!(broker.refusals().is_empty(), "{:?}", broker.refusals());
    // Once the request cache no longer keeps a call (120 s after its result), it is unknown.
    server.session().advance_clock_ms(121_000);
    assert_eq!(cancel(&route.delivery_handle, "answered"), Err(BrokerError::UnknownCall("answered".into())));
    host_gets_nothing(&mut ws, 100).await;
}
