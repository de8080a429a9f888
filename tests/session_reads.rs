//! The agent's Attention reads through the reference Session, with the Host as a raw socket that
//! answers inspect requests (issue 20): the private route (mode `inspect`, 2 s expiry, no delivery
//! handle, reads answer with agent actions off), the broker's inspection acceptance at its
//! boundaries (98,304 / 98,305 canonical bytes, outcomes, revisions, 32 / 33 targets, other host),
//! only the model.v1 projection stored, every guard reason by a real sequence of calls, every
//! staleness rule by its event, the model's view, bad input leaving only the refusal receipt, the
//! read concurrency limits with really overlapping requests (16 / 17 per session, 128 / 129 in
//! all), restart keeping the history, and `attention_context_set` (§9).

use crate::session_support;

use std::time::Duration;

use attention_harness::agent::{
    Agent, ArgError, ContextCode, FindSemantic, GuardReason, HitTestArgs, NodeRef, ReadOutcome, ReadTool, RejectReason,
    TreeArgs,
};
use attention_harness::server::session::inspection::{InspectionRefusal, MAX_INSPECTION_BYTES};
use attention_harness::server::session::reads::history::ReadRecord;
use attention_harness::server::session::ui_actions::{ActionCall, Mode};
use attention_harness::server::Server;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use session_support::*;
use tokio_tungstenite::tungstenite::Message;

const HOST: &str = "host-reads-0123456789";

fn node_ref(id: &str) -> NodeRef {
    NodeRef { host_instance_id: HOST.into(), node_id: id.into(), mount_id: "leaf-1".into(), generation: 1 }
}

fn record(id: &str, name: &str) -> Value {
    json!({"ref": node_ref(id), "parent": null, "kind": "element", "state": null, "summary": {"role": "button", "name": name},
           "path": [{"kind": "host", "mount_id": "host-1", "generation": 1}, {"kind": "element", "mount_id": "leaf-1", "generation": 1,
                     "rect": {"x": 1, "y": 1, "width": 5, "height": 5}}],
           "resource": null, "layout": {"rect": [1, 1, 5, 5], "visible": true, "offscreen": false}})
}

fn target(id: &str) -> Value {
    json!({"snapshot_id": "inspect-1", "target_id": id, "host_instance_id": HOST, "mount_id": "leaf-1", "generation": 1,
           "path_digest": format!("sha256:{}", "c".repeat(64)), "rect": {"x": 1, "y": 1, "width": 5, "height": 5}})
}

/// What the fake Host answers: nodes and revisions.
#[derive(Clone)]
struct Answer {
    nodes: Vec<Value>,
    tree: u64,
    geometry: u64,
    continuation: Option<String>,
}

impl Answer {
    fn one(id: &str) -> Answer {
        Answer { nodes: vec![record(id, "Save")], tree: 1, geometry: 1, continuation: None }
    }
    fn revs(mut self, tree: u64, geometry: u64) -> Answer {
        self.tree = tree;
        self.geometry = geometry;
        self
    }
}

fn inspection(req: &Value, a: &Answer) -> Value {
    let d = &req["data"];
    let mut i = json!({"request_id": d["request_id"], "host_instance_id": HOST, "measured_at": "2026-01-01T00:00:00.000Z",
        "revisions": {"tree": a.tree, "observation": 1, "geometry": a.geometry}, "outcome": "ok",
        "data": {"nodes": a.nodes}, "omissions": []});
    if let Some(c) = &a.continuation {
        i["continuation"] = json!(c);
    }
    i
}

fn result_frame(req: &Value, status: &str, extra: Value) -> Value {
    let d = &req["data"];
    let mut r = json!({"schema": "wippy.ui-action.v1", "message_type": "result", "result_id": format!("res-{}", d["action_id"].as_str().unwrap()),
        "in_reply_to_action_id": d["action_id"], "request_id": d["request_id"], "session_id": d["session_id"],
        "host_instance_id": d["host_instance_id"], "completed_at": "2026-01-01T00:00:00.000Z", "status": status});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            r[k] = v;
        }
    }
    json!({"type": "session_ui_action_result", "session_id": d["session_id"], "data": r})
}

async fn host_request(ws: &mut Ws) -> Value {
    let f = next_json(ws).await;
    assert_eq!(f["type"], "session_ui_action_request", "{f}");
    f
}

async fn host_send(ws: &mut Ws, frame: &Value) {
    ws.send(Message::Text(frame.to_string().into())).await.unwrap();
}

async fn host_gets_nothing(ws: &mut Ws, ms: u64) {
    if let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(ms), ws.next()).await {
        panic!("the Host got an unexpected frame: {m:?}");
    }
}

/// A Host tab with agent actions `enabled`, bound by one user message (the turn).
async fn tab(server: &Server, enabled: bool) -> (Ws, Agent) {
    let (mut ws, welcome) = join(server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    user_turn(&mut ws, enabled).await;
    (ws, Agent::bind(server.session(), &sid).expect("bound"))
}

/// A new user turn: one admitted message carrying the tab's runtime_context.
async fn user_turn(ws: &mut Ws, enabled: bool) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let rc = json!({"runtime_context": {"attention": {"agent_actions_enabled": enabled, "host_instance_id": HOST}}});
    let id = format!("turn-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let reply = send(ws, &message(&id, "what is this?", rc)).await;
    assert_eq!(reply["type"], "received", "{reply}");
}

/// Runs one read while the fake Host answers it with `a`; returns the result and the request.
async fn answered<F, Fut>(ws: &mut Ws, a: &Answer, read: F) -> (attention_harness::agent::ReadResult, Value)
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = attention_harness::agent::ReadResult>,
{
    let call = read();
    tokio::pin!(call);
    let req = tokio::select! {
        r = &mut call => panic!("the read ended before reaching the Host: {r:?}"),
        f = host_request(ws) => f,
    };
    let targets: Vec<Value> = a.nodes.iter().map(|n| target(n["ref"]["node_id"].as_str().unwrap())).collect();
    host_send(ws, &result_frame(&req, "inspected", json!({"inspection": inspection(&req, a), "targets": targets})))
        .await;
    (tokio::time::timeout(Duration::from_secs(10), call).await.expect("the read ends"), req)
}

fn history(server: &Server, agent: &Agent) -> Vec<ReadRecord> {
    server.session().read_history(&agent.route().session_id).expect("history readable")
}

fn semantic(name: &str) -> FindSemantic {
    FindSemantic { name: Some(name.into()), ..FindSemantic::default() }
}

#[tokio::test]
async fn a_read_is_a_private_inspect_request_that_answers_with_actions_off_and_only_model_v1_is_stored() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let b = agent.batch();
    let q = semantic("Save");
    let (r, req) = answered(&mut ws, &Answer::one("n1"), || b.find_semantic(&q)).await;
    let d = &req["data"];
    assert_eq!((d["mode"].as_str(), d["schema"].as_str()), (Some("inspect"), Some("wippy.ui-action.v1")));
    assert_eq!(d["query"]["operation"], "find");
    assert_eq!(d["query"]["scope"], json!({"fromRoot": true}));
    assert_eq!(d["query"]["args"], json!({"query": {"name": "Save"}, "limit": 8}));
    assert!(d.get("targets").is_none() && d.get("delivery_handle").is_none(), "{d}");
    assert!(!req.to_string().contains(&agent.route().delivery_handle), "the delivery handle never reaches the Host");
    let created = attention_harness::contract::Timestamp::parse_session(d["created_at"].as_str().unwrap()).unwrap();
    let expires = attention_harness::contract::Timestamp::parse_session(d["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(
        (expires.secs * 1000 + expires.nanos as i64 / 1_000_000)
            - (created.secs * 1000 + created.nanos as i64 / 1_000_000),
        2000
    );
    let m = r.inspected().unwrap_or_else(|| panic!("inspected: {r:?}"));
    assert_eq!(m.node(0).unwrap().node, node_ref("n1"));
    assert_eq!(m.target_ref.as_ref(), Some(&target("n1")), "one node: its target_ref");
    let rows = history(&server, &agent);
    assert_eq!(rows.len(), 1);
    let stored = rows[0].result_value().unwrap();
    assert_eq!(stored["schema"], "wippy.attention.model.v1");
    assert!(stored.get("data").is_none() && stored.get("targets").is_none(), "never the whole inspection: {stored}");
    assert_eq!((rows[0].tool.as_str(), rows[0].call_id.as_str()), ("attention_find_semantic", r.call_id.as_str()));
}

#[tokio::test]
async fn the_broker_accepts_98304_canonical_bytes_and_refuses_98305_and_every_other_rule_with_a_typed_reason() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, true).await;
    let route = agent.route().clone();
    // Broker-level calls (the guard's per-turn budget is not what is tested here).
    let mut n = 0;
    let mut call = |query: Value| {
        n += 1;
        server
            .session()
            .request_ui_action(ActionCall {
                delivery_handle: route.delivery_handle.clone(),
                call_id: format!("acc-{n}"),
                session_id: route.session_id.clone(),
                mode: Mode::Inspect,
                args: query,
                ttl_secs: 2,
            })
            .unwrap()
    };
    let query = json!({"operation": "tree", "scope": {"fromRoot": true}, "args": {"depth": 2}});
    let sized = |req: &Value, bytes: usize| {
        let mut i = inspection(req, &Answer::one("n1"));
        i["data"]["pad"] = json!("");
        let base = attention_harness::contract::canonical_json(&i).unwrap().len();
        i["data"]["pad"] = json!("p".repeat(bytes - base));
        assert_eq!(attention_harness::contract::canonical_json(&i).unwrap().len(), bytes);
        i
    };
    type Case = (&'static str, Box<dyn Fn(&Value) -> Value>, Option<InspectionRefusal>);
    let cases: Vec<Case> = vec![
        (
            "98304 bytes",
            Box::new(move |r| json!({"inspection": sized(r, MAX_INSPECTION_BYTES), "targets": [target("n1")]})),
            None,
        ),
        (
            "98305 bytes",
            Box::new(move |r| json!({"inspection": sized(r, MAX_INSPECTION_BYTES + 1), "targets": []})),
            Some(InspectionRefusal::TooLarge),
        ),
        (
            "unknown outcome",
            Box::new(|r| {
                let mut i = inspection(r, &Answer::one("n1"));
                i["outcome"] = json!("fine");
                json!({"inspection": i, "targets": []})
            }),
            Some(InspectionRefusal::OutcomeUnknown),
        ),
        (
            "negative revision",
            Box::new(|r| {
                let mut i = inspection(r, &Answer::one("n1"));
                i["revisions"]["tree"] = json!(-1);
                json!({"inspection": i, "targets": []})
            }),
            Some(InspectionRefusal::RevisionsInvalid),
        ),
        (
            "revisions without geometry",
            Box::new(|r| {
                let mut i = inspection(r, &Answer::one("n1"));
                i["revisions"] = json!({"tree": 1, "observation": 1});
                json!({"inspection": i, "targets": []})
            }),
            Some(InspectionRefusal::RevisionsInvalid),
        ),
        (
            "another host",
            Box::new(|r| {
                let mut i = inspection(r, &Answer::one("n1"));
                i["host_instance_id"] = json!("host-other");
                json!({"inspection": i, "targets": []})
            }),
            Some(InspectionRefusal::HostMismatch),
        ),
        (
            "32 targets",
            Box::new(|r| json!({"inspection": inspection(r, &Answer::one("n1")), "targets": vec![target("n1"); 32]})),
            None,
        ),
        (
            "33 targets",
            Box::new(|r| json!({"inspection": inspection(r, &Answer::one("n1")), "targets": vec![target("n1"); 33]})),
            Some(InspectionRefusal::TargetsInvalid),
        ),
        (
            "a target on another host",
            Box::new(|r| {
                let mut t = target("n1");
                t["host_instance_id"] = json!("host-other");
                json!({"inspection": inspection(r, &Answer::one("n1")), "targets": [t]})
            }),
            Some(InspectionRefusal::TargetOtherHost),
        ),
        (
            "257 omissions",
            Box::new(|r| {
                let mut i = inspection(r, &Answer::one("n1"));
                i["omissions"] = json!(vec![json!({"reason": "redacted"}); 257]);
                json!({"inspection": i, "targets": []})
            }),
            Some(InspectionRefusal::OmissionsInvalid),
        ),
    ];
    for (name, body, refusal) in cases {
        let rx = call(query.clone());
        let req = host_request(&mut ws).await;
        host_send(&mut ws, &result_frame(&req, "inspected", body(&req))).await;
        let r = tokio::time::timeout(Duration::from_secs(5), rx).await.unwrap().unwrap();
        match refusal {
            None => assert_eq!(r["status"], "inspected", "{name}: {}", r["reason"]),
            Some(why) => {
                assert_eq!((r["status"].as_str(), r["reason"].as_str()), (Some("error"), Some(why.as_str())), "{name}");
                assert!(r.get("inspection").is_none(), "{name}: a refused inspection is not passed on");
                assert!(server.session().broker().refusals().iter().any(|f| f.error == why.as_str()), "{name}: kept");
            }
        }
    }
    // inspected without inspection is refused as an envelope (the read then expires).
    let rx = call(query.clone());
    let req = host_request(&mut ws).await;
    host_send(&mut ws, &result_frame(&req, "inspected", json!({"targets": []}))).await;
    let r = tokio::time::timeout(Duration::from_secs(5), rx).await.unwrap().unwrap();
    assert_eq!(r["status"], "expired", "{r}");
    assert!(server.session().broker().refusals().iter().any(|f| f.error == "inspection is required"));
}

#[tokio::test]
async fn one_read_per_batch_while_an_action_in_the_same_batch_runs_normally() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, true).await;
    let b = agent.batch();
    let first = b.get_cursor();
    let second = b.get_focus();
    tokio::pin!(first);
    let req = tokio::select! {
        r = &mut first => panic!("{r:?}"),
        f = host_request(&mut ws) => f,
    };
    let refused = second.await;
    assert_eq!(refused.rejected(), Some(RejectReason::Guard(GuardReason::OneReadPerBatch)));
    let ReadOutcome::Rejected { receipt, .. } = &refused.outcome else { unreachable!() };
    assert_eq!(receipt["status"], "rejected");
    assert_eq!(receipt["original_registry_id"], "wippy.agent.tools:attention_get_focus");
    host_send(
        &mut ws,
        &result_frame(&req, "inspected", json!({"inspection": inspection(&req, &Answer::one("n1")), "targets": []})),
    )
    .await;
    assert!(first.await.inspected().is_some());
    let action = b.highlight(&[target("n1")], &Default::default()).unwrap();
    let hreq = host_request(&mut ws).await;
    assert_eq!(hreq["data"]["mode"], "highlight", "the unrelated tool of the batch reached the Host");
    host_send(&mut ws, &result_frame(&hreq, "cancelled", json!({}))).await;
    action.result(Duration::from_secs(5)).await.unwrap();
    let rows = history(&server, &agent);
    assert_eq!(rows.len(), 2, "the refused call is stored with its id, tool and arguments");
    assert_eq!((rows[1].status.as_str(), rows[1].reason.as_deref()), ("rejected", Some("one-read-per-batch")));
    assert_eq!(
        (rows[1].call_id.as_str(), rows[1].tool.as_str(), rows[1].args.as_str()),
        (refused.call_id.as_str(), "attention_get_focus", "{}")
    );
}

#[tokio::test]
async fn four_attempted_reads_per_turn_count_invalid_and_refused_ones_and_a_new_turn_resets_them() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let r1 = agent.batch().read_raw(ReadTool::GetTree, json!({"depth": 33})).await;
    assert_eq!(r1.rejected(), Some(RejectReason::Invalid(ArgError::InvalidDepth)));
    let (r2, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_cursor().await }).await;
    assert!(r2.inspected().is_some());
    let (r3, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_focus().await }).await;
    assert!(r3.inspected().is_some());
    let (r4, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_selection().await }).await;
    assert!(r4.inspected().is_some(), "the fourth attempt runs");
    let r5 = agent.batch().get_cursor().await;
    assert_eq!(r5.rejected(), Some(RejectReason::Guard(GuardReason::ReadBudgetExhausted)));
    host_gets_nothing(&mut ws, 200).await;
    user_turn(&mut ws, false).await;
    let (r6, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_cursor().await }).await;
    assert!(r6.inspected().is_some(), "a new user turn has its own budget");
}

#[tokio::test]
async fn two_invalid_attempts_end_repair() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let r1 = agent.batch().read_raw(ReadTool::FindSemantic, json!({})).await;
    assert_eq!(r1.rejected(), Some(RejectReason::Invalid(ArgError::SemanticFilterRequired)));
    let r2 = agent.batch().read_raw(ReadTool::FindCss, json!({"selector": "b"})).await;
    assert_eq!(r2.rejected(), Some(RejectReason::Invalid(ArgError::CssRootRequired)));
    let r3 = agent.batch().find_semantic(&semantic("Save")).await;
    assert_eq!(
        r3.rejected(),
        Some(RejectReason::Guard(GuardReason::RepairBudgetExhausted)),
        "a valid call after two invalid ones"
    );
    host_gets_nothing(&mut ws, 200).await;
}

#[tokio::test]
async fn an_unchanged_tree_read_is_a_duplicate_until_the_tree_revision_changes_or_an_action_completes() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, true).await;
    let tree = TreeArgs::default();
    let (r1, _) =
        answered(&mut ws, &Answer::one("n1").revs(5, 1), || async { agent.batch().get_tree(&tree).await }).await;
    assert!(r1.inspected().is_some());
    let dup = agent.batch().get_tree(&tree).await;
    assert_eq!(dup.rejected(), Some(RejectReason::Guard(GuardReason::DuplicateRead)));
    host_gets_nothing(&mut ws, 200).await;
    // A later read (another query) reports tree revision 6: the same tree read is admitted.
    let (_, _) = answered(&mut ws, &Answer::one("n1").revs(6, 1), || async { agent.batch().get_cursor().await }).await;
    let (again, _) =
        answered(&mut ws, &Answer::one("n1").revs(6, 1), || async { agent.batch().get_tree(&tree).await }).await;
    assert!(again.inspected().is_some(), "{again:?}");
    // A completed UI action also admits it (new turn: the per-turn budget is not what is tested).
    user_turn(&mut ws, true).await;
    let agent = Agent::bind(server.session(), &agent.route().session_id).unwrap();
    let (_, _) =
        answered(&mut ws, &Answer::one("n1").revs(6, 1), || async { agent.batch().get_tree(&tree).await }).await;
    assert_eq!(agent.batch().get_tree(&tree).await.rejected(), Some(RejectReason::Guard(GuardReason::DuplicateRead)));
    let action = agent.highlight(&[target("n1")], &Default::default()).unwrap();
    let hreq = host_request(&mut ws).await;
    host_send(&mut ws, &result_frame(&hreq, "cancelled", json!({}))).await;
    action.result(Duration::from_secs(5)).await.unwrap();
    let (after, _) =
        answered(&mut ws, &Answer::one("n1").revs(6, 1), || async { agent.batch().get_tree(&tree).await }).await;
    assert!(after.inspected().is_some(), "a UI action ran since: {after:?}");
}

#[tokio::test]
async fn a_turn_whose_history_cannot_be_read_refuses_the_read_without_contacting_the_host() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    server.session().set_storage_available(false);
    let r = agent.batch().get_cursor().await;
    server.session().set_storage_available(true);
    assert_eq!(r.rejected(), Some(RejectReason::Guard(GuardReason::HistoryUnavailable)));
    host_gets_nothing(&mut ws, 200).await;
    assert!(history(&server, &agent).is_empty(), "nothing could be stored");
}

fn stale(server: &Server, agent: &Agent) -> Vec<(String, bool, Option<String>)> {
    history(server, agent).into_iter().map(|r| (r.tool, r.stale, r.stale_reason)).collect()
}

#[tokio::test]
async fn a_read_goes_stale_30_s_after_the_server_received_it_not_one_ms_earlier() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    server.session().freeze_clock(true);
    let (_, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_cursor().await }).await;
    server.session().advance_clock_ms(29_999);
    assert!(!history(&server, &agent)[0].stale, "29.999 s: still usable");
    server.session().advance_clock_ms(1);
    assert_eq!(history(&server, &agent)[0].stale_reason.as_deref(), Some("expired"));
    let view = server.session().model_view(&agent.route().session_id).unwrap();
    assert!(
        view.reads[0].stale && view.reads[0].content["status"] == "stale",
        "the model gets the notice: {:?}",
        view.reads
    );
    assert!(!view.text().contains("\"nodes\""), "not the old observation");
}

#[tokio::test]
async fn a_later_user_turn_withdraws_earlier_reads() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let (_, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_focus().await }).await;
    user_turn(&mut ws, false).await;
    assert_eq!(history(&server, &agent)[0].stale_reason.as_deref(), Some("user-turn"));
}

#[tokio::test]
async fn a_completed_browser_action_withdraws_earlier_reads() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, true).await;
    let (_, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_selection().await }).await;
    let action = agent.highlight(&[target("n1")], &Default::default()).unwrap();
    assert!(!history(&server, &agent)[0].stale, "a pending action withdraws nothing");
    let hreq = host_request(&mut ws).await;
    host_send(&mut ws, &result_frame(&hreq, "cancelled", json!({}))).await;
    action.result(Duration::from_secs(5)).await.unwrap();
    assert_eq!(history(&server, &agent)[0].stale_reason.as_deref(), Some("browser-action"));
}

#[tokio::test]
async fn revisions_withdraw_tree_geometry_and_point_reads_and_only_replacement_withdraws_cursor_focus_selection() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    // Turn 1: tree read at tree 1, then a cursor read at tree 2 / geometry 1.
    let (_, _) = answered(&mut ws, &Answer::one("n1").revs(1, 1), || async {
        agent.batch().get_tree(&TreeArgs::default()).await
    })
    .await;
    let (_, _) = answered(&mut ws, &Answer::one("n1").revs(2, 1), || async { agent.batch().get_cursor().await }).await;
    let s = stale(&server, &agent);
    assert_eq!(s[0].2.as_deref(), Some("tree-revision"));
    assert!(!s[1].1, "cursor does not use the revisions");
    // A newer cursor read replaces the older one, whatever the revisions.
    let (_, _) = answered(&mut ws, &Answer::one("n1").revs(2, 1), || async { agent.batch().get_cursor().await }).await;
    assert_eq!(stale(&server, &agent)[1].2.as_deref(), Some("replaced"));
    // Turn 2: geometry at geometry 1; a tree-only change keeps it; a geometry change withdraws it.
    user_turn(&mut ws, false).await;
    let g = node_ref("n1");
    let (_, _) =
        answered(&mut ws, &Answer::one("n1").revs(2, 1), || async { agent.batch().get_geometry(&g).await }).await;
    let (_, _) = answered(&mut ws, &Answer::one("n1").revs(3, 1), || async { agent.batch().get_focus().await }).await;
    assert!(!stale(&server, &agent)[3].1, "geometry ignores the tree revision");
    let (_, _) =
        answered(&mut ws, &Answer::one("n1").revs(3, 2), || async { agent.batch().get_selection().await }).await;
    let s = stale(&server, &agent);
    assert_eq!(s[3].2.as_deref(), Some("geometry-revision"));
    assert!(!s[4].1 && !s[5].1, "focus and selection keep theirs");
    // Turn 3: a point read goes stale on the tree revision, and (turn 4) on the geometry revision.
    for (turn, revs) in [(3, (4, 2)), (4, (3, 3))] {
        user_turn(&mut ws, false).await;
        let p = HitTestArgs { x: 3.0, y: 4.0, ..HitTestArgs::default() };
        let (_, _) =
            answered(&mut ws, &Answer::one("n1").revs(3, 2), || async { agent.batch().hit_test(&p).await }).await;
        let (_, _) =
            answered(&mut ws, &Answer::one("n1").revs(revs.0, revs.1), || async { agent.batch().get_cursor().await })
                .await;
        let s = stale(&server, &agent);
        let want = if turn == 3 { "tree-revision" } else { "geometry-revision" };
        assert_eq!(s[s.len() - 2].2.as_deref(), Some(want), "turn {turn}");
    }
}

#[tokio::test]
async fn attachments_leave_the_model_view_after_a_fresh_usable_read() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let rc = json!({"runtime_context": {"attention": {"agent_actions_enabled": false, "host_instance_id": HOST}},
                    "context_attachments": [envelope("att-1")]});
    assert_eq!(send(&mut ws, &message("with-att", "look", rc)).await["type"], "received");
    let agent = Agent::bind(server.session(), &sid).unwrap();
    let before = server.session().model_view(&sid).unwrap();
    assert_eq!(before.observations.len(), 1);
    assert!(before.observations[0].contains("untrusted_user_observation"), "{}", before.observations[0]);
    let (_, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_cursor().await }).await;
    let after = server.session().model_view(&sid).unwrap();
    assert!(after.observations.is_empty());
    assert_eq!(
        after.attachments_left,
        Some(attention_harness::server::session::reads::view::AttachmentsLeft::FreshRead)
    );
    assert_eq!(after.reads.len(), 1);
    assert_eq!(after.reads[0].content["schema"], "wippy.attention.model.v1");
    assert_eq!(server.session().messages(&sid).unwrap()[0].attachments.len(), 1, "the attachment stays stored");
}

#[tokio::test]
async fn attachments_leave_the_model_view_after_expiry() {
    let server = server().await;
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let rc = json!({"context_attachments": [envelope("att-2")]});
    assert_eq!(send(&mut ws, &message("with-att-2", "look", rc)).await["type"], "received");
    assert_eq!(server.session().model_view(&sid).unwrap().observations.len(), 1);
    server.session().advance_clock_ms(30_000);
    let v = server.session().model_view(&sid).unwrap();
    assert_eq!(
        (v.observations.len(), v.attachments_left),
        (0, Some(attention_harness::server::session::reads::view::AttachmentsLeft::Expired))
    );
}

#[tokio::test]
async fn bad_input_at_every_boundary_reaches_no_host_and_leaves_only_the_refusal_receipt() {
    let server = server().await;
    let other = NodeRef { host_instance_id: "host-other".into(), ..node_ref("n1") };
    let cases: Vec<(ReadTool, Value, ArgError)> = vec![
        (ReadTool::FindSemantic, json!({"name": "a", "limit": 9}), ArgError::InvalidPageLimit),
        (ReadTool::GetTree, json!({"limit": 33}), ArgError::InvalidPageLimit),
        (ReadTool::GetTree, json!({"depth": 33}), ArgError::InvalidDepth),
        (ReadTool::GetTree, json!({"continuation": "c".repeat(257)}), ArgError::InvalidContinuation),
        (ReadTool::FindSemantic, json!({"name": "x".repeat(257)}), ArgError::InvalidRequest),
        (ReadTool::FindCss, json!({"selector": "b".repeat(513), "root": node_ref("d")}), ArgError::InvalidRequest),
        (ReadTool::HitTest, json!({"x": 1, "y": 1, "radius_css_px": 100.5}), ArgError::InvalidPointBudget),
        (ReadTool::HitTest, json!({"x": 1, "y": 1, "step_css_px": 0}), ArgError::InvalidPointBudget),
        (ReadTool::HitTest, json!({"x": 1, "y": 1, "coordinate_space": "page"}), ArgError::InvalidCoordinateSpace),
        (ReadTool::HitTest, json!({"x": 1}), ArgError::PointRequired),
        (ReadTool::GetNode, json!({"node": other}), ArgError::NodeReferenceRequired),
        (ReadTool::GetTree, json!({"root": other}), ArgError::InvalidScope),
        (
            ReadTool::GetNode,
            json!({"node": {"host_instance_id": HOST, "mount_id": "m", "generation": 1}}),
            ArgError::NodeIdRequired,
        ),
        (ReadTool::GetCursor, json!({"depth": 1}), ArgError::UnexpectedField),
    ];
    for (tool, args, reason) in cases {
        // Each in its own turn of a fresh tab: the repair budget is not what is tested.
        let (mut ws, agent) = tab(&server, false).await;
        let before = counts(&server);
        let r = agent.batch().read_raw(tool, args.clone()).await;
        assert_eq!(r.rejected(), Some(RejectReason::Invalid(reason)), "{tool:?} {args}");
        host_gets_nothing(&mut ws, 50).await;
        let after = counts(&server);
        assert_eq!(
            after,
            attention_harness::server::session::Counts { reads: before.reads + 1, ..before },
            "only the receipt"
        );
        let rows = history(&server, &agent);
        let receipt = rows[0].result_value().unwrap();
        assert_eq!(
            (receipt["status"].as_str(), receipt["reason"].as_str(), receipt["invalid"].as_bool()),
            (Some("rejected"), Some(reason.as_str()), Some(true))
        );
    }
}

#[tokio::test]
async fn a_continuation_from_another_query_is_refused_and_its_own_query_may_use_it() {
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let mut page = Answer::one("n1");
    page.continuation = Some("cont-abc".into());
    let (r, _) = answered(&mut ws, &page, || async { agent.batch().get_tree(&TreeArgs::default()).await }).await;
    assert_eq!(r.inspected().unwrap().continuation.as_deref(), Some("cont-abc"));
    let wrong = agent
        .batch()
        .find_semantic(&FindSemantic {
            name: Some("x".into()),
            continuation: Some("cont-abc".into()),
            ..FindSemantic::default()
        })
        .await;
    assert_eq!(wrong.rejected(), Some(RejectReason::Invalid(ArgError::InvalidContinuation)));
    let next = TreeArgs { continuation: Some("cont-abc".into()), ..TreeArgs::default() };
    let (r2, req) = answered(&mut ws, &Answer::one("n2"), || async { agent.batch().get_tree(&next).await }).await;
    assert!(r2.inspected().is_some());
    assert_eq!(req["data"]["query"]["args"]["continuation"], "cont-abc");
}

#[tokio::test]
async fn sixteen_reads_pend_per_session_and_the_seventeenth_is_refused_while_they_really_overlap() {
    let server = server().await;
    let mut tabs = Vec::new();
    for _ in 0..8 {
        tabs.push(tab(&server, false).await);
    }
    let query = json!({"operation": "cursor", "scope": {"fromRoot": true}, "args": {}});
    let ask = |agent: &Agent, id: String| {
        let r = agent.route();
        server
            .session()
            .request_ui_action(ActionCall {
                delivery_handle: r.delivery_handle.clone(),
                call_id: id,
                session_id: r.session_id.clone(),
                mode: Mode::Inspect,
                args: query.clone(),
                ttl_secs: 2,
            })
            .unwrap()
    };
    let mut pending = Vec::new();
    for (t, (ws, agent)) in tabs.iter_mut().enumerate() {
        for i in 0..16 {
            pending.push(ask(agent, format!("cap-{t}-{i}")));
        }
        for _ in 0..16 {
            host_request(ws).await;
        }
        assert_eq!(server.session().broker().pending_reads(&agent.route().session_id), 16);
    }
    let mut seventeenth = ask(&tabs[0].1, "cap-0-16".into());
    let r = tokio::time::timeout(Duration::from_secs(1), &mut seventeenth).await.unwrap().unwrap();
    assert_eq!((r["status"].as_str(), r["reason"].as_str()), (Some("unavailable"), Some("read capacity reached")));
    host_gets_nothing(&mut tabs[0].0, 100).await;
    // 8 x 16 = 128 pending in all: a ninth session's first read is refused too.
    let (mut ws9, agent9) = tab(&server, false).await;
    let r = tokio::time::timeout(Duration::from_secs(1), ask(&agent9, "cap-9".into())).await.unwrap().unwrap();
    assert_eq!(r["reason"], "read capacity reached", "129th overall");
    host_gets_nothing(&mut ws9, 100).await;
    // They all end at their 2 s expiry.
    for rx in pending {
        let r = tokio::time::timeout(Duration::from_secs(5), rx).await.unwrap().unwrap();
        assert_eq!(r["status"], "expired");
    }
}

#[tokio::test]
async fn a_restarted_server_keeps_the_private_history() {
    let dir = std::env::temp_dir().join(format!("reads-restart-{}", std::process::id()));
    let db = dir.join("s.sqlite");
    let options = || attention_harness::server::session::SessionOptions { db: Some(db.clone()), ..Default::default() };
    let (sid, before) = {
        let server = server_with(options()).await;
        let (mut ws, agent) = tab(&server, false).await;
        let (_, _) = answered(&mut ws, &Answer::one("n1"), || async { agent.batch().get_cursor().await }).await;
        let _ = agent.batch().read_raw(ReadTool::GetTree, json!({"depth": 99})).await;
        (agent.route().session_id.clone(), history(&server, &agent))
    };
    let server = server_with(options()).await;
    let after = server.session().read_history(&sid).unwrap();
    assert_eq!(after.len(), 2);
    assert_eq!(after, before, "the same rows, results and receipts");
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn attention_context_set_changes_the_stored_setting_with_one_use_grants_and_a_replay_cache() {
    use attention_harness::agent::context_result;
    use attention_harness::server::session::reads::context_set::reply_topic;
    let server = server().await;
    let (mut ws, agent) = tab(&server, false).await;
    let sid = agent.route().session_id.clone();
    let on = agent.context_set("agent-1", true, None);
    assert_eq!(on.error, None, "{}", on.response);
    assert_eq!(on.state.as_ref().map(|s| (s.enabled, s.revision)), Some((true, 1)));
    assert!(server.session().attention_state(&sid).unwrap().unwrap().enabled, "the same stored setting");
    let same = agent.context_set("agent-1", true, None);
    assert_eq!(same.state.as_ref().unwrap().revision, 1, "no-op keeps the revision");
    let stale_rev = agent.context_set("agent-1", false, Some(0));
    assert_eq!(stale_rev.error, Some(ContextCode::AttentionContextRevisionConflict));
    assert_eq!(stale_rev.state.as_ref().unwrap().revision, 1, "with the current state");
    // The PATCH sees the agent's write.
    let patch = http(
        &server,
        "PATCH",
        &format!("/api/v1/sessions/{sid}/attention-context"),
        Some(server.session().token()),
        &[],
        br#"{"enabled":false,"expected_revision":1}"#,
    )
    .await;
    assert_eq!(patch.status, 200, "{:?}", String::from_utf8_lossy(&patch.body));
    assert_eq!(patch.json()["attention_context"]["revision"], 2);

    let grant = server.session().grant_context_set(&sid, "agent-1").unwrap();
    let req = |id: &str, cap: &str, enabled: bool| {
        json!({"request_id": id, "reply_topic": reply_topic(id), "session_id": sid, "agent_id": "agent-1",
               "capability": cap, "enabled": enabled, "sender": "agent:agent-1"})
    };
    let first = server.session().attention_context_request(&req("r-1", &grant.capability, true));
    assert!(first.get("error").is_none(), "{first}");
    assert_eq!(
        server.session().attention_context_request(&req("r-1", &grant.capability, true)),
        first,
        "identical replay: cached"
    );
    let conflict = context_result(server.session().attention_context_request(&req("r-1", &grant.capability, false)));
    assert_eq!(conflict.error, Some(ContextCode::AttentionContextRequestConflict));
    let reused = context_result(server.session().attention_context_request(&req("r-2", &grant.capability, false)));
    assert_eq!(reused.error, Some(ContextCode::AttentionContextAuthorityStale), "one use");
    let g = server.session().grant_context_set(&sid, "agent-1").unwrap();
    let mut bad_topic = req("r-3", &g.capability, false);
    bad_topic["reply_topic"] = json!("session_attention_context_result:00");
    assert_eq!(
        context_result(server.session().attention_context_request(&bad_topic)).error,
        Some(ContextCode::AttentionContextReplyTopicInvalid)
    );
    let mut bad = req("r-4", &g.capability, false);
    bad["expected_revision"] = json!(-1);
    assert_eq!(
        context_result(server.session().attention_context_request(&bad)).error,
        Some(ContextCode::AttentionContextRequestInvalid)
    );
    let mut other_agent = req("r-5", &g.capability, false);
    other_agent["agent_id"] = json!("agent-2");
    assert_eq!(
        context_result(server.session().attention_context_request(&other_agent)).error,
        Some(ContextCode::AttentionContextAgentStale)
    );
    // Expiry: 30 s on the Session clock.
    server.session().advance_clock_ms(30_000);
    assert_eq!(
        context_result(server.session().attention_context_request(&req("r-6", &g.capability, false))).error,
        Some(ContextCode::AttentionContextAuthorityStale)
    );
    // A new connection generation invalidates outstanding grants.
    let g2 = server.session().grant_context_set(&sid, "agent-1").unwrap();
    let (mut ws2, _) = join(&server, Some(&sid)).await;
    user_turn(&mut ws2, false).await;
    assert_eq!(
        context_result(server.session().attention_context_request(&req("r-7", &g2.capability, false))).error,
        Some(ContextCode::AttentionContextAuthorityStale)
    );
    assert_eq!(
        server.session().grant_context_set("", "agent-1").unwrap_err(),
        ContextCode::AttentionContextAuthorityInvalid
    );
    host_gets_nothing(&mut ws, 50).await;
}
