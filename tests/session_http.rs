//! The reference Session's HTTP surface, one test per status and code: capabilities (§11), the
//! Attention setting (§10), staged transport and references (§12) and uploads. Every rejection is
//! proved to store nothing by reading the database (row counts and the rows themselves).

use crate::session_support;

use attention_harness::contract::delivery::{decide_from_response, SessionCapabilities};
use attention_harness::contract::{canonical_json, sha256_prefixed};
use attention_harness::server::session::{rfc3339_ms, SessionOptions};
use serde_json::{json, Value};
use session_support::*;

const JSON: (&str, &str) = ("Content-Type", "application/json");

// ---- §11 capabilities ------------------------------------------------------------------------

#[tokio::test]
async fn capabilities_need_a_token_are_never_cached_and_report_attention_with_real_handler_versions() {
    let server = server().await;
    let anon = http(&server, "GET", "/api/v1/sessions/capabilities", None, &[], b"").await;
    assert_eq!((anon.status, anon.code()), (401, "UNAUTHENTICATED".into()));
    assert_eq!(anon.json()["success"], false);
    assert_eq!(anon.header("cache-control"), Some("no-store"));
    let wrong = http(&server, "GET", "/api/v1/sessions/capabilities", Some("0123456789abcdef"), &[], b"").await;
    assert_eq!(wrong.status, 401);
    let ok = http(&server, "GET", "/api/v1/sessions/capabilities", Some(server.session().token()), &[], b"").await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.header("cache-control"), Some("no-store"));
    let body = ok.json();
    assert_eq!(body["success"], true);
    let caps = SessionCapabilities::parse(&body).unwrap();
    assert!(caps.attention_supported());
    assert_eq!(
        body["capabilities"]["attention"]["context_attachments"],
        json!({"transport": 1, "staging": true, "max_context_bytes": 32768,
               "handlers": [{"kind": "wippy.attention", "versions": [1, 2, 3, 4]}, {"kind": "wippy.attention.visual", "versions": [1]}]})
    );
    assert_eq!(
        (body["capabilities"]["message_receipt"].clone(), body["capabilities"]["steering"].clone()),
        (json!(1), json!(1))
    );
}

#[tokio::test]
async fn capabilities_report_only_the_versions_the_session_renders() {
    let server = server_with(SessionOptions { attention_versions: vec![1, 2, 3], ..SessionOptions::default() }).await;
    let ok = http(&server, "GET", "/api/v1/sessions/capabilities", Some(server.session().token()), &[], b"").await;
    assert_eq!(
        ok.json()["capabilities"]["attention"]["context_attachments"]["handlers"][0]["versions"],
        json!([1, 2, 3])
    );
}

#[tokio::test]
async fn a_session_without_attention_answers_404_and_the_host_decides_no_support() {
    let server = server_with(SessionOptions { capabilities_endpoint: false, ..SessionOptions::default() }).await;
    let r = http(&server, "GET", "/api/v1/sessions/capabilities", Some(server.session().token()), &[], b"").await;
    assert_eq!(r.status, 404);
    let decision = decide_from_response(r.status, &r.json());
    assert!(!decision.supported && decision.attention_version.is_none());
}

// ---- §10 PATCH attention-context -----------------------------------------------------------

async fn patch(server: &attention_harness::server::Server, sid: &str, token: Option<&str>, body: &str) -> Resp {
    http(server, "PATCH", &format!("/api/v1/sessions/{sid}/attention-context"), token, &[JSON], body.as_bytes()).await
}

/// Asserts status and code, and that neither the setting nor any table changed.
async fn patch_rejected(
    server: &attention_harness::server::Server,
    sid: &str,
    token: Option<&str>,
    body: &str,
    status: u16,
    code: &str,
) -> Resp {
    let before = (counts(server), server.session().attention_state(sid).unwrap());
    let r = patch(server, sid, token, body).await;
    assert_eq!((r.status, r.code()), (status, code.to_string()), "{body}: {}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["success"], false);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!((counts(server), server.session().attention_state(sid).unwrap()), before, "{code}: nothing changed");
    r
}

#[tokio::test]
async fn patch_attention_context_answers_every_status_and_code_of_the_table_and_changes_nothing_on_rejection() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let token = Some(s.token());
    patch_rejected(&server, &sid, None, r#"{"enabled":true}"#, 401, "UNAUTHENTICATED").await;
    patch_rejected(&server, &"s".repeat(161), token, r#"{"enabled":true}"#, 400, "INVALID_SESSION_ID").await;
    patch_rejected(&server, &sid, Some(s.reader_token()), r#"{"enabled":true}"#, 403, "SESSION_FORBIDDEN").await;
    patch_rejected(&server, "no-such-session", token, r#"{"enabled":true}"#, 404, "SESSION_NOT_FOUND").await;
    patch_rejected(&server, &sid, Some(s.other_user_token()), r#"{"enabled":true}"#, 404, "SESSION_NOT_FOUND").await;
    for body in ["", "not json", "[]", "true", r#""enabled""#] {
        patch_rejected(&server, &sid, token, body, 400, "INVALID_JSON").await;
    }
    let r = patch_rejected(&server, &sid, token, r#"{"enabled":true,"extra":1}"#, 400, "UNKNOWN_FIELD").await;
    assert_eq!(r.json()["error"]["message"], "Unknown field: extra");
    for body in
        [r#"{}"#, r#"{"enabled":"true"}"#, r#"{"enabled":1}"#, r#"{"enabled":null}"#, r#"{"expected_revision":0}"#]
    {
        patch_rejected(&server, &sid, token, body, 422, "INVALID_ATTENTION_CONTEXT_ENABLED").await;
    }
    for body in [
        r#"{"enabled":true,"expected_revision":-1}"#,
        r#"{"enabled":true,"expected_revision":1.5}"#,
        r#"{"enabled":true,"expected_revision":"0"}"#,
        r#"{"enabled":true,"expected_revision":null}"#,
    ] {
        patch_rejected(&server, &sid, token, body, 422, "INVALID_ATTENTION_CONTEXT_REVISION").await;
    }
    let big = format!(r#"{{"enabled":true,"pad":"{}"}}"#, "x".repeat(8192));
    patch_rejected(&server, &sid, token, &big, 413, "REQUEST_BODY_TOO_LARGE").await;
    s.set_storage_available(false);
    patch_rejected(&server, &sid, token, r#"{"enabled":true}"#, 503, "ATTENTION_CONTEXT_STORAGE_UNAVAILABLE").await;
    s.set_storage_available(true);

    // Success: revision 0 -> 1, by the user; no-store.
    let ok = patch(&server, &sid, token, r#"{"enabled":true,"expected_revision":0}"#).await;
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    assert_eq!(ok.header("cache-control"), Some("no-store"));
    let state = &ok.json()["attention_context"];
    assert_eq!(
        (state["schema"].clone(), state["enabled"].clone(), state["revision"].clone(), state["updated_by"].clone()),
        (json!("wippy.attention.session.v1"), json!(true), json!(1), json!("user:reference"))
    );
    assert_eq!(s.attention_state(&sid).unwrap().unwrap().revision, 1);
    // No-op when unchanged: the revision stays.
    let same = patch(&server, &sid, token, r#"{"enabled":true}"#).await;
    assert_eq!((same.status, same.json()["attention_context"]["revision"].clone()), (200, json!(1)));
    assert_eq!(s.attention_state(&sid).unwrap().unwrap().revision, 1);
    // Stale expected_revision: 409 with the current state.
    let stale = patch_rejected(
        &server,
        &sid,
        token,
        r#"{"enabled":false,"expected_revision":0}"#,
        409,
        "ATTENTION_CONTEXT_REVISION_CONFLICT",
    )
    .await;
    assert_eq!(stale.json()["attention_context"]["revision"], 1);
    assert_eq!(stale.json()["attention_context"]["enabled"], true);
    let off = patch(&server, &sid, token, r#"{"enabled":false,"expected_revision":1}"#).await;
    assert_eq!((off.status, off.json()["attention_context"]["revision"].clone()), (200, json!(2)));
}

#[tokio::test]
async fn enabling_attention_context_without_version_4_is_capability_unavailable() {
    let server = server_with(SessionOptions { attention_versions: vec![1, 2, 3], ..SessionOptions::default() }).await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    patch_rejected(
        &server,
        &sid,
        Some(s.token()),
        r#"{"enabled":true}"#,
        409,
        "ATTENTION_CONTEXT_CAPABILITY_UNAVAILABLE",
    )
    .await;
    let off = patch(&server, &sid, Some(s.token()), r#"{"enabled":false}"#).await;
    assert_eq!(
        (off.status, off.json()["attention_context"]["revision"].clone()),
        (200, json!(0)),
        "turning off stays possible (a no-op here)"
    );
}

#[tokio::test]
async fn the_1024th_pending_stage_in_all_is_admitted_and_the_1025th_is_over_quota() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    // Only three reference actors exist (32 stages each at most), so the other 1,023 pending
    // stages of the whole Session belong to 32 other actors, written straight into its database.
    let db = rusqlite::Connection::open(s.db_path()).unwrap();
    let far = i64::MAX / 2;
    for i in 0..1023 {
        db.execute(
            "INSERT INTO stages (id, session_id, actor, request_id, body, content_hash, content_bytes, expires_at_ms, state)
             VALUES (?1, ?2, ?3, ?4, '[]', 'sha256:00', 2, ?5, 'pending')",
            rusqlite::params![format!("other-{i}"), format!("other-session-{}", i / 8), format!("user:other-{}", i / 32), format!("r{i}"), far],
        )
        .unwrap();
    }
    let a = canonical_array(&[envelope("a1")]);
    assert_eq!(stage(&server, &sid, "last", &a).await.status, 201, "the 1,024th pending stage fits the total quota");
    stage_rejected(
        &server,
        "POST",
        &stage_path(&sid, "over"),
        Some(s.token()),
        &[JSON],
        a.as_bytes(),
        (429, "CONTEXT_STAGE_QUOTA"),
    )
    .await;
}

#[tokio::test]
async fn a_repository_error_other_than_unavailable_storage_is_update_failed_and_changes_nothing() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    // A real repository failure: a trigger in the Session's own database refuses the write (the
    // handler sees an SQLite error, not unavailable storage).
    let db = rusqlite::Connection::open(s.db_path()).unwrap();
    db.execute_batch(
        "CREATE TRIGGER refuse_attention BEFORE UPDATE OF attention_enabled ON sessions
         BEGIN SELECT RAISE(ABORT, 'CANARY-REPOSITORY-DETAIL'); END;",
    )
    .unwrap();
    let r =
        patch_rejected(&server, &sid, Some(s.token()), r#"{"enabled":true}"#, 400, "ATTENTION_CONTEXT_UPDATE_FAILED")
            .await;
    assert!(
        !String::from_utf8_lossy(&r.body).contains("CANARY-REPOSITORY-DETAIL"),
        "the repository's own error text must not reach the client: {}",
        String::from_utf8_lossy(&r.body)
    );
    db.execute_batch("DROP TRIGGER refuse_attention").unwrap();
    let ok = patch(&server, &sid, Some(s.token()), r#"{"enabled":true}"#).await;
    assert_eq!(
        (ok.status, ok.json()["attention_context"]["revision"].clone()),
        (200, json!(1)),
        "the same write succeeds once the repository accepts it"
    );
}

// ---- §12 staging ---------------------------------------------------------------------------

fn stage_path(sid: &str, rid: &str) -> String {
    format!("/api/v1/sessions/context?session_id={sid}&request_id={rid}")
}

async fn stage(server: &attention_harness::server::Server, sid: &str, rid: &str, body: &str) -> Resp {
    http(server, "POST", &stage_path(sid, rid), Some(server.session().token()), &[JSON], body.as_bytes()).await
}

/// Asserts a staging rejection (status, code, validation code) that stored nothing.
async fn stage_rejected(
    server: &attention_harness::server::Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
    (status, code): (u16, &str),
) -> Resp {
    let before = counts(server);
    let r = http(server, method, path, token, headers, body).await;
    assert_eq!(
        (r.status, r.code()),
        (status, code.to_string()),
        "{method} {path}: {}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(r.json()["error"]["message"], "Context transport request rejected");
    assert_eq!(counts(server), before, "{code}: nothing stored");
    r
}

fn canonical_array(envs: &[Value]) -> String {
    canonical_json(&Value::Array(envs.to_vec())).unwrap()
}

/// An inert `example.note` v1 envelope whose canonical one-element array is exactly `target` bytes.
fn note_array_of_exactly(target: usize) -> String {
    let seal = |pad: usize| {
        let content = canonical_json(&json!({"note": "n".repeat(pad)})).unwrap();
        json!({"attachment_id": "note-1", "kind": "example.note", "version": 1, "created_at": "2026-09-04T12:00:00Z",
               "content_type": "application/json", "content_bytes": content.len(), "content_hash": sha256_prefixed(content.as_bytes()), "content": content})
    };
    let base = canonical_array(&[seal(0)]).len();
    // content_bytes gains digits as the pad grows; settle the pad by iterating.
    let mut pad = target - base;
    loop {
        let len = canonical_array(&[seal(pad)]).len();
        if len == target {
            return canonical_array(&[seal(pad)]);
        }
        pad = pad + target - len;
        assert!(len < target + 10, "cannot hit {target} exactly");
        if len > target {
            pad -= 2 * (len - target);
        }
    }
}

#[tokio::test]
async fn staging_get_reports_the_transport_and_checks_the_capabilities_version() {
    let server = server().await;
    let token = Some(server.session().token());
    let r = http(&server, "GET", "/api/v1/sessions/context", token, &[], b"").await;
    assert_eq!(
        r.json(),
        json!({"context_attachments_transport": {"version": 1, "staging": true, "max_context_bytes": 32768}})
    );
    let r = http(&server, "GET", "/api/v1/sessions/context?capabilities_version=1", token, &[], b"").await;
    assert_eq!(r.json()["context_attachments_capabilities"]["handlers"][0]["versions"], json!([1, 2, 3, 4]));
    stage_rejected(
        &server,
        "GET",
        "/api/v1/sessions/context?capabilities_version=2",
        token,
        &[],
        b"",
        (400, "INVALID_CAPABILITIES_VERSION"),
    )
    .await;
    stage_rejected(&server, "GET", "/api/v1/sessions/context", None, &[], b"", (401, "UNAUTHENTICATED")).await;
    stage_rejected(&server, "PUT", "/api/v1/sessions/context", token, &[], b"", (405, "METHOD_NOT_ALLOWED")).await;
}

#[tokio::test]
async fn staging_post_answers_every_code_and_stores_nothing_on_rejection() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let other_sid = s.create_session_for(attention_harness::server::session::Actor::Other).unwrap();
    let token = Some(s.token());
    let good = canonical_array(&[envelope("a1")]);
    let gb = good.as_bytes();
    let p = stage_path(&sid, "r1");
    stage_rejected(&server, "POST", &p, None, &[JSON], gb, (401, "UNAUTHENTICATED")).await;
    stage_rejected(&server, "POST", &p, Some(s.reader_token()), &[JSON], gb, (403, "SESSION_FORBIDDEN")).await;
    stage_rejected(
        &server,
        "POST",
        &stage_path("nope", "r1"),
        token,
        &[JSON],
        gb,
        (404, "CONTEXT_SESSION_UNAVAILABLE"),
    )
    .await;
    stage_rejected(
        &server,
        "POST",
        &stage_path(&other_sid, "r1"),
        token,
        &[JSON],
        gb,
        (404, "CONTEXT_SESSION_UNAVAILABLE"),
    )
    .await;
    stage_rejected(
        &server,
        "POST",
        "/api/v1/sessions/context?request_id=r1",
        token,
        &[JSON],
        gb,
        (404, "CONTEXT_SESSION_UNAVAILABLE"),
    )
    .await;
    for bad in [
        format!("/api/v1/sessions/context?session_id={sid}"),
        stage_path(&sid, &"r".repeat(161)),
        stage_path(&sid, "a%01b"),
    ] {
        stage_rejected(&server, "POST", &bad, token, &[JSON], gb, (400, "INVALID_REQUEST_ID")).await;
    }
    stage_rejected(
        &server,
        "POST",
        &p,
        token,
        &[JSON, ("Content-Encoding", "gzip")],
        gb,
        (415, "UNSUPPORTED_ENCODING"),
    )
    .await;
    stage_rejected(
        &server,
        "POST",
        &p,
        token,
        &[("Content-Type", "text/plain")],
        gb,
        (415, "UNSUPPORTED_CONTENT_TYPE"),
    )
    .await;
    stage_rejected(&server, "POST", &p, token, &[], gb, (415, "UNSUPPORTED_CONTENT_TYPE")).await;
    stage_rejected(
        &server,
        "POST",
        &p,
        token,
        &[JSON],
        note_array_of_exactly(32_769).as_bytes(),
        (413, "CONTEXT_BODY_TOO_LARGE"),
    )
    .await;
    stage_rejected(&server, "POST", &p, token, &[JSON], b"[\xff]", (400, "CONTEXT_BODY_REJECTED")).await;
    stage_rejected(&server, "POST", &p, token, &[JSON], b"[{", (400, "INVALID_JSON")).await;
    let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&good).unwrap()).unwrap();
    stage_rejected(&server, "POST", &p, token, &[JSON], pretty.as_bytes(), (422, "NONCANONICAL_CONTEXT")).await;
    stage_rejected(&server, "POST", &p, token, &[JSON], b"[]", (422, "INVALID_CONTEXT_STAGE")).await;
    // The validator's own codes.
    let mut bad_hash = envelope("a1");
    bad_hash["content_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    let mut expired = envelope("a1");
    expired["expires_at"] = json!("2000-01-01T00:00:00Z");
    let bearer_content = canonical_json(&json!({"authorization": {"bearer": "secret"}})).unwrap();
    let live = json!({"attachment_id": "x1", "kind": "example.future-context", "version": 7, "created_at": "2026-09-04T12:00:00Z",
                      "content_type": "application/json", "content_bytes": bearer_content.len(),
                      "content_hash": sha256_prefixed(bearer_content.as_bytes()), "content": bearer_content});
    let nine: Vec<Value> = (0..9).map(|i| envelope(&format!("n{i}"))).collect();
    let cases: Vec<(String, &str)> = vec![
        (canonical_array(&[bad_hash]), "content-hash-mismatch"),
        (canonical_array(&[envelope("d"), envelope("d")]), "duplicate-attachment-id"),
        (canonical_array(&[expired]), "expired"),
        (canonical_array(&[live]), "forbidden-live-field"),
        (canonical_array(&nine), "too-many-attachments"),
    ];
    for (body, validation) in cases {
        assert!(body.len() <= 32_768, "{validation}: the case must fit the body limit");
        let r =
            stage_rejected(&server, "POST", &p, token, &[JSON], body.as_bytes(), (422, "INVALID_CONTEXT_ATTACHMENTS"))
                .await;
        assert_eq!(r.json()["error"]["validation_code"], validation);
    }
    s.set_storage_available(false);
    stage_rejected(&server, "POST", &p, token, &[JSON], gb, (503, "CONTEXT_STAGING_UNAVAILABLE")).await;
    s.set_storage_available(true);
    assert!(s.stages(&sid).unwrap().is_empty());
}

#[tokio::test]
async fn a_staged_body_of_exactly_32768_bytes_is_accepted_with_its_reference() {
    let server = server().await;
    let sid = server.session().create_session().unwrap();
    let body = note_array_of_exactly(32_768);
    assert_eq!(body.len(), 32_768);
    let r = stage(&server, &sid, "r-max", &body).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let reference = &r.json()["context_attachments_ref"];
    assert_eq!(reference["content_bytes"], 32_768);
    assert_eq!(reference["content_hash"], sha256_prefixed(body.as_bytes()));
    let id = reference["id"].as_str().unwrap();
    assert!(
        id.len() == 36 && &id[14..15] == "7" && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'),
        "a UUIDv7: {id}"
    );
    let stored = server.session().stages(&sid).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!((stored[0].body.as_str(), stored[0].state.as_str()), (body.as_str(), "pending"));
    // Expires within 300 s.
    let expires =
        attention_harness::contract::Timestamp::parse_session(r.json()["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(expires.secs * 1000 + i64::from(expires.nanos / 1_000_000), stored[0].expires_at_ms);
}

#[tokio::test]
async fn stage_retries_conflicts_and_quotas() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let token = Some(s.token());
    let a = canonical_array(&[envelope("a1")]);
    let first = stage(&server, &sid, "same", &a).await;
    assert_eq!(first.status, 201);
    let again = stage(&server, &sid, "same", &a).await;
    assert_eq!(
        (again.status, again.json()["context_attachments_ref"].clone()),
        (201, first.json()["context_attachments_ref"].clone()),
        "an identical retry answers the same stage"
    );
    stage_rejected(
        &server,
        "POST",
        &stage_path(&sid, "same"),
        token,
        &[JSON],
        canonical_array(&[envelope("b1")]).as_bytes(),
        (409, "CONTEXT_STAGE_CONFLICT"),
    )
    .await;
    // 8 pending per session: the 9th is refused.
    for i in 1..8 {
        assert_eq!(stage(&server, &sid, &format!("q{i}"), &a).await.status, 201);
    }
    stage_rejected(
        &server,
        "POST",
        &stage_path(&sid, "q8"),
        token,
        &[JSON],
        a.as_bytes(),
        (429, "CONTEXT_STAGE_QUOTA"),
    )
    .await;
    // 32 pending per actor across sessions.
    let mut made = 8;
    'outer: for _ in 0..4 {
        let other = s.create_session().unwrap();
        for i in 0..8 {
            if made == 32 {
                stage_rejected(
                    &server,
                    "POST",
                    &stage_path(&other, &format!("p{i}")),
                    token,
                    &[JSON],
                    a.as_bytes(),
                    (429, "CONTEXT_STAGE_QUOTA"),
                )
                .await;
                break 'outer;
            }
            assert_eq!(stage(&server, &other, &format!("p{i}"), &a).await.status, 201);
            made += 1;
        }
    }
    // Cancelling frees a slot.
    let id = first.json()["context_attachments_ref"]["id"].as_str().unwrap().to_string();
    let del = http(&server, "DELETE", &format!("{}&id={id}", stage_path(&sid, "same")), token, &[], b"").await;
    assert_eq!(del.status, 200);
    assert_eq!(s.stages(&sid).unwrap()[0].state, "cancelled");
    assert_eq!(stage(&server, &sid, "q8", &a).await.status, 201);
}

#[tokio::test]
async fn delete_needs_a_valid_reference() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let token = Some(s.token());
    stage_rejected(
        &server,
        "DELETE",
        &format!("{}&id=bad%20id", stage_path(&sid, "r")),
        token,
        &[],
        b"",
        (400, "INVALID_CONTEXT_REFERENCE"),
    )
    .await;
    stage_rejected(&server, "DELETE", &stage_path(&sid, "r"), token, &[], b"", (400, "INVALID_CONTEXT_REFERENCE"))
        .await;
    stage_rejected(
        &server,
        "DELETE",
        &format!("{}&id=unknown", stage_path(&sid, "r")),
        token,
        &[],
        b"",
        (404, "CONTEXT_REFERENCE_UNAVAILABLE"),
    )
    .await;
}

// ---- §12 references in session_message -----------------------------------------------------

#[tokio::test]
async fn a_reference_is_one_use_and_resolves_to_the_staged_array() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let envs = [envelope("a1"), envelope("a2")];
    let r = stage(&server, &sid, "m1", &canonical_array(&envs)).await;
    let reference = r.json()["context_attachments_ref"].clone();
    let reply = send(&mut ws, &message("m1", "staged", json!({"context_attachments_ref": reference}))).await;
    assert_eq!(reply["type"], "received", "{reply}");
    let stored = s.message(reply["message_id"].as_str().unwrap()).unwrap().unwrap();
    let back: Vec<Value> = stored.attachments.iter().map(|a| serde_json::from_str(&a.envelope).unwrap()).collect();
    assert_eq!(back, envs.to_vec(), "the stored attachments are the staged array");
    assert_eq!(s.stages(&sid).unwrap()[0].state, "committed");
    // Retry with the same reference: a duplicate, same message.
    let dup = send(&mut ws, &message("m1", "staged", json!({"context_attachments_ref": reference}))).await;
    assert_eq!((dup["type"].clone(), dup["message_id"].clone()), (json!("received"), reply["message_id"].clone()));
    // A second message with the used reference: unavailable, nothing stored.
    let before = counts(&server);
    let again = send(&mut ws, &message("m2", "reuse", json!({"context_attachments_ref": reference}))).await;
    assert_eq!(again["code"], "context_reference_unavailable", "{again}");
    assert_eq!(counts(&server), before);
    // The committed stage cannot be staged again under its request id.
    let r = stage(&server, &sid, "m1", &canonical_array(&envs)).await;
    assert_eq!((r.status, r.code()), (409, "CONTEXT_STAGE_CONFLICT".into()));
}

#[tokio::test]
async fn malformed_mismatched_cancelled_and_expired_references_store_nothing() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let body = canonical_array(&[envelope("a1")]);
    let reference = stage(&server, &sid, "x1", &body).await.json()["context_attachments_ref"].clone();
    let mut wrong_hash = reference.clone();
    wrong_hash["content_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    let mut extra = reference.clone();
    extra["required"] = json!(true);
    let mut v2 = reference.clone();
    v2["version"] = json!(2);
    let mut unknown = reference.clone();
    unknown["id"] = json!("0190a6f2-0000-7000-8000-000000000000");
    let cases = [
        (wrong_hash, "invalid_context_reference"),
        (extra, "invalid_context_reference"),
        (v2, "invalid_context_reference"),
        (json!("a string"), "invalid_context_reference"),
        (unknown, "context_reference_unavailable"),
    ];
    for (i, (r, code)) in cases.into_iter().enumerate() {
        let before = counts(&server);
        let reply = send(&mut ws, &message(&format!("bad-{i}"), "t", json!({"context_attachments_ref": r}))).await;
        assert_eq!(reply["code"], code, "{reply}");
        assert_eq!(counts(&server), before);
    }
    assert_eq!(s.stages(&sid).unwrap()[0].state, "pending", "a failed resolve does not consume the stage");
    // Cancelled.
    let id = reference["id"].as_str().unwrap();
    assert_eq!(
        http(&server, "DELETE", &format!("{}&id={id}", stage_path(&sid, "x1")), Some(s.token()), &[], b"").await.status,
        200
    );
    let reply = send(&mut ws, &message("after-cancel", "t", json!({"context_attachments_ref": reference}))).await;
    assert_eq!(reply["code"], "context_reference_unavailable");
    // Expired: the Session's clock moves past 300 s.
    let fresh = stage(&server, &sid, "x2", &body).await.json()["context_attachments_ref"].clone();
    s.advance_clock_ms(300_001);
    let before = counts(&server);
    let reply = send(&mut ws, &message("after-expiry", "t", json!({"context_attachments_ref": fresh}))).await;
    assert_eq!(reply["code"], "context_reference_unavailable", "{reply}");
    assert_eq!(counts(&server), before);
    assert!(s.messages(&sid).unwrap().is_empty());
}

#[tokio::test]
async fn a_stage_expires_with_its_earliest_attachment() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut soon = envelope("a1");
    soon["expires_at"] = json!(rfc3339_ms(now + 60_000));
    let r = stage(&server, &sid, "e1", &canonical_array(&[soon])).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["expires_at"], rfc3339_ms(now + 60_000));
}

// ---- uploads -------------------------------------------------------------------------------

/// A real 10 x 10 PNG (the size `visual` declares) of exactly `len` bytes.
fn png_of(len: usize) -> Vec<u8> {
    real_png(10, 10, Some(len))
}

async fn upload(
    server: &attention_harness::server::Server,
    sid: &str,
    token: Option<&str>,
    content_type: &str,
    body: &[u8],
) -> Resp {
    http(
        server,
        "POST",
        &format!("/api/v1/uploads?session_id={sid}&name=shot.png"),
        token,
        &[("Content-Type", content_type)],
        body,
    )
    .await
}

#[tokio::test]
async fn uploads_sniff_the_type_from_the_bytes_record_sha256_and_enforce_the_size_limit() {
    let server = server().await;
    let s = server.session();
    let sid = s.create_session().unwrap();
    let token = Some(s.token());
    // PNG bytes declared as text: the bytes decide.
    let png = png_of(1_048_576);
    let r = upload(&server, &sid, token, "text/plain", &png).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let u = &r.json()["upload"];
    assert_eq!(
        (u["mime"].clone(), u["byte_size"].clone(), u["sha256"].clone()),
        (json!("image/png"), json!(1_048_576), json!(sha256_prefixed(&png)))
    );
    let webp = real_webp(10, 10);
    let r = upload(&server, &sid, token, "image/png", &webp).await;
    assert_eq!((r.status, r.json()["upload"]["mime"].clone()), (201, json!("image/webp")));
    let stored = s.uploads(&sid).unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].bytes, png);
    assert_eq!(stored[1].bytes, webp);
    let before = counts(&server);
    for (body, ct, status, code) in [
        (png_of(1_048_577), "image/png", 413, "UPLOAD_TOO_LARGE"),
        (b"GIF89a\x01\x00".to_vec(), "image/png", 415, "UNSUPPORTED_UPLOAD_TYPE"),
        (b"<svg/>".to_vec(), "image/png", 415, "UNSUPPORTED_UPLOAD_TYPE"),
        (Vec::new(), "image/png", 400, "EMPTY_UPLOAD"),
    ] {
        let r = upload(&server, &sid, token, ct, &body).await;
        assert_eq!((r.status, r.code()), (status, code.to_string()));
    }
    assert_eq!((upload(&server, &sid, None, "image/png", &png_of(400)).await.status), 401);
    assert_eq!(
        upload(&server, &sid, Some(s.reader_token()), "image/png", &png_of(400)).await.code(),
        "SESSION_FORBIDDEN"
    );
    assert_eq!(upload(&server, "nope", token, "image/png", &png_of(400)).await.code(), "SESSION_NOT_FOUND");
    assert_eq!(counts(&server), before, "refused uploads store nothing");
}

#[tokio::test]
async fn a_session_that_refuses_uploads_stores_none() {
    let server = server_with(SessionOptions { uploads_enabled: false, ..SessionOptions::default() }).await;
    let sid = server.session().create_session().unwrap();
    let r = upload(&server, &sid, Some(server.session().token()), "image/png", &png_of(400)).await;
    assert_eq!((r.status, r.code()), (403, "UPLOADS_DISABLED".into()));
    assert_eq!(counts(&server).uploads, 0);
}

/// A `wippy.attention.visual` v1 envelope that references `upload` with `hash`.
fn visual(sid: &str, upload: &str, hash: &str, bytes: usize) -> Value {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let expires = rfc3339_ms(now + 600_000);
    let payload = json!({"schema": "wippy.attention.visual.v1", "capture_id": "cap-1", "snapshot_id": "snap-1", "host_instance_id": "host-1",
        "created_at": "2026-09-04T12:00:00Z", "expires_at": expires, "candidate_ids": ["t1"], "region": {"x": 0, "y": 0, "width": 10, "height": 10},
        "media": {"content_type": "image/png", "content_bytes": bytes, "content_hash": hash, "pixel_width": 10, "pixel_height": 10},
        "reference": {"kind": "upload", "opaque_id": upload},
        "authorization": {"scope": "session", "session_id": sid, "audience": "agent-context", "expires_at": expires},
        "redactions_applied": 0});
    let mut env = serde_json::to_value(
        attention_harness::attention::Envelope::seal(
            "vis-1",
            "wippy.attention.visual",
            1,
            "2026-09-04T12:00:00Z",
            &payload,
        )
        .unwrap(),
    )
    .unwrap();
    env["expires_at"] = json!(expires);
    env
}

#[tokio::test]
async fn a_visual_attachment_is_admitted_only_for_an_upload_of_its_session_with_matching_bytes() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let png = png_of(500);
    let u = upload(&server, &sid, Some(s.token()), "image/png", &png).await.json()["upload"].clone();
    let uuid = u["uuid"].as_str().unwrap();
    let good = visual(&sid, uuid, &sha256_prefixed(&png), png.len());
    let before = counts(&server);
    for (i, (env, detail)) in [
        (visual(&sid, "no-such-upload", &sha256_prefixed(&png), png.len()), "visual-reference-unauthorized"),
        (visual(&sid, uuid, &sha256_prefixed(b"other"), png.len()), "visual-reference-integrity-mismatch"),
        (visual("another-session", uuid, &sha256_prefixed(&png), png.len()), "visual-session-mismatch"),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = send(&mut ws, &message(&format!("v-bad-{i}"), "t", json!({"context_attachments": [env]}))).await;
        assert_eq!(
            (reply["code"].clone(), reply["detail_code"].clone()),
            (json!("invalid_context_attachments"), json!(detail)),
            "{reply}"
        );
    }
    assert_eq!(counts(&server), before);
    let reply = send(&mut ws, &message("v-good", "see image", json!({"context_attachments": [good]}))).await;
    assert_eq!(reply["type"], "received", "{reply}");
}

#[tokio::test]
async fn a_retry_whose_stored_context_no_longer_matches_its_reference_is_an_invalid_receipt() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let reference =
        stage(&server, &sid, "rc", &canonical_array(&[envelope("a1")])).await.json()["context_attachments_ref"].clone();
    let cmd = message("rc", "t", json!({"context_attachments_ref": reference}));
    assert_eq!(send(&mut ws, &cmd).await["type"], "received");
    // The stored array changes behind the Session's back (a damaged database).
    let db = rusqlite::Connection::open(s.db_path()).unwrap();
    db.execute("UPDATE attachments SET envelope = replace(envelope, 'attachment-1', 'attachment-x')", []).unwrap();
    db.execute("UPDATE attachments SET envelope = replace(envelope, '\"a1\"', '\"zz\"')", []).unwrap();
    let before = counts(&server);
    let retry = send(&mut ws, &cmd).await;
    assert_eq!(retry["code"], "invalid_context_receipt", "{retry}");
    assert_eq!(counts(&server), before);
}

#[tokio::test]
async fn uploads_are_decoded_and_held_to_the_visual_limits_and_to_the_size_a_visual_attachment_declares() {
    let server = server().await;
    let s = server.session();
    let (mut ws, welcome) = join(&server, None).await;
    let sid = welcome["session_id"].as_str().unwrap().to_string();
    let token = Some(s.token());
    // Bytes that only start like an image.
    let mut fake_webp = b"RIFF\x10\x00\x00\x00WEBPgarbage".to_vec();
    fake_webp.resize(200, b'x');
    let mut fake_png = b"\x89PNG\r\n\x1a\n".to_vec();
    fake_png.resize(500, 0);
    let mut truncated = real_png(10, 10, None);
    truncated.truncate(truncated.len() - 20);
    let before = counts(&server);
    for (name, body) in [("webp", fake_webp), ("png", fake_png), ("truncated png", truncated)] {
        let r = upload(&server, &sid, token, "image/png", &body).await;
        assert_eq!((r.status, r.code()), (422, "UPLOAD_NOT_DECODABLE".to_string()), "{name}");
    }
    // At most 2048 x 2048 (= 4,194,304 pixels): the boundary is stored, one more pixel a side is not.
    for (w, h) in [(2049, 1), (1, 2049), (2049, 2049)] {
        let r = upload(&server, &sid, token, "image/png", &solid_png(w, h)).await;
        assert_eq!((r.status, r.code()), (422, "UPLOAD_DIMENSIONS_EXCEEDED".to_string()), "{w} x {h}");
    }
    assert_eq!(counts(&server), before, "refused uploads store nothing");
    let r = upload(&server, &sid, token, "image/png", &solid_png(2048, 2048)).await;
    assert_eq!(r.status, 201, "2048 x 2048 is within the limits: {}", String::from_utf8_lossy(&r.body));
    // A visual attachment must declare the upload's real pixel size (`visual` says 10 x 10).
    let png = real_png(12, 10, None);
    let u = upload(&server, &sid, token, "image/png", &png).await.json()["upload"].clone();
    let env = visual(&sid, u["uuid"].as_str().unwrap(), &sha256_prefixed(&png), png.len());
    let before = counts(&server);
    let reply = send(&mut ws, &message("v-size", "t", json!({"context_attachments": [env.clone()]}))).await;
    assert_eq!(
        (reply["code"].clone(), reply["detail_code"].clone()),
        (json!("invalid_context_attachments"), json!("visual-reference-integrity-mismatch")),
        "{reply}"
    );
    let staged = stage(&server, &sid, "v-size", &canonical_array(&[env])).await;
    assert_eq!(
        (staged.status, staged.code(), staged.json()["error"]["validation_code"].clone()),
        (422, "INVALID_CONTEXT_ATTACHMENTS".to_string(), json!("visual-reference-integrity-mismatch"))
    );
    assert_eq!(counts(&server), before);
}
