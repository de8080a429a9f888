//! Staged transport, `/api/v1/sessions/context` (schemas.md §12; spec "Message delivery": a
//! command over 32,768 bytes stages its context and sends a one-use `context_attachments_ref`).
//!
//! - `GET [?capabilities_version=1]`: the transport descriptor.
//! - `POST ?session_id&request_id`: body = the canonical JSON of the array, byte for byte, at most
//!   32,768 bytes, `Content-Type: application/json`, `Content-Encoding` absent or `identity`;
//!   validated by the contract validator with visual authorization; 201 with the reference and
//!   `expires_at` = min(now + 300 s, every attachment's `expires_at`). The same `request_id` with
//!   the same body answers the same stage again while it is pending and unexpired; after its expiry
//!   it gets a fresh stage (new id and `expires_at`, within the quotas), never the expired one; a
//!   different body, or a stage already committed or cancelled, is 409. Quotas: 8 pending per
//!   session, 32 per actor, 1024 in all (429). The retry lookup, the quota count and the insert
//!   are one transaction, so concurrent posts hold both.
//! - `DELETE ?session_id&request_id&id=`: cancels a pending stage.
//!
//! Errors are `{error:{code, message:"Context transport request rejected", validation_code?}}`.
//! Where §12 leaves the code open: an empty array is 422 `INVALID_CONTEXT_STAGE` (nothing to
//! stage); a body that is not UTF-8 is 400 `CONTEXT_BODY_REJECTED`; a missing, bad or foreign
//! `session_id` is 404 `CONTEXT_SESSION_UNAVAILABLE`; DELETE of an unknown or used stage is 404
//! `CONTEXT_REFERENCE_UNAVAILABLE`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{json, Value};

use super::store::{StageInsert, StoredStage};
use super::{json_response, SessionService};
use crate::contract::delivery::MAX_INLINE_COMMAND_BYTES;
use crate::contract::{canonical_json, sha256_prefixed, Timestamp};

pub const STAGE_TTL_MS: i64 = 300_000;
pub const MAX_PENDING_PER_SESSION: i64 = 8;
pub const MAX_PENDING_PER_ACTOR: i64 = 32;
pub const MAX_PENDING_TOTAL: i64 = 1024;

fn reject(status: StatusCode, code: &str, validation_code: Option<String>) -> Response {
    let mut error = json!({"code": code, "message": "Context transport request rejected"});
    if let Some(v) = validation_code {
        error["validation_code"] = json!(v);
    }
    json_response(status, json!({"error": error}))
}

fn query_param(uri: &Uri, name: &str) -> Option<String> {
    uri.query()?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn id_ok(v: &str) -> bool {
    (1..=160).contains(&v.len()) && !v.chars().any(char::is_control)
}

fn stage_id_ok(v: &str) -> bool {
    (1..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn created(stage: &StoredStage) -> Response {
    json_response(
        StatusCode::CREATED,
        json!({"context_attachments_ref": {"version": 1, "id": stage.id, "content_hash": stage.content_hash, "content_bytes": stage.content_bytes},
               "expires_at": super::rfc3339_ms(stage.expires_at_ms)}),
    )
}

pub async fn handle(
    State(s): State<SessionService>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    super::blocking(move || handle_blocking(s, method, uri, headers, body)).await
}

fn handle_blocking(s: SessionService, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let Some(actor) = s.inner.users.authenticate(&headers, None) else {
        return reject(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", None);
    };
    if method == Method::GET {
        let mut out = json!({"context_attachments_transport": {"version": 1, "staging": true, "max_context_bytes": MAX_INLINE_COMMAND_BYTES}});
        match query_param(&uri, "capabilities_version").as_deref() {
            None => {}
            Some("1") => {
                out["context_attachments_capabilities"] =
                    super::capabilities::descriptor(&s)["attention"]["context_attachments"].clone()
            }
            Some(_) => return reject(StatusCode::BAD_REQUEST, "INVALID_CAPABILITIES_VERSION", None),
        }
        return json_response(StatusCode::OK, out);
    }
    if method != Method::POST && method != Method::DELETE {
        return reject(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", None);
    }
    let session_id = query_param(&uri, "session_id").filter(|v| id_ok(v));
    let Some(session_id) = session_id else {
        return reject(StatusCode::NOT_FOUND, "CONTEXT_SESSION_UNAVAILABLE", None);
    };
    let Some(request_id) = query_param(&uri, "request_id").filter(|v| id_ok(v)) else {
        return reject(StatusCode::BAD_REQUEST, "INVALID_REQUEST_ID", None);
    };
    if !actor.can_write() {
        return reject(StatusCode::FORBIDDEN, "SESSION_FORBIDDEN", None);
    }
    if s.check_storage().is_err() {
        return reject(StatusCode::SERVICE_UNAVAILABLE, "CONTEXT_STAGING_UNAVAILABLE", None);
    }
    match s.store().session(&session_id) {
        Ok(Some(row)) if row.owner == actor.name() => {}
        Ok(_) => return reject(StatusCode::NOT_FOUND, "CONTEXT_SESSION_UNAVAILABLE", None),
        Err(_) => return reject(StatusCode::SERVICE_UNAVAILABLE, "CONTEXT_STAGING_UNAVAILABLE", None),
    }
    if method == Method::DELETE {
        let Some(id) = query_param(&uri, "id").filter(|v| stage_id_ok(v)) else {
            return reject(StatusCode::BAD_REQUEST, "INVALID_CONTEXT_REFERENCE", None);
        };
        return match s.store().stage(&id) {
            Ok(Some(st)) if st.session_id == session_id && st.state == "pending" => match s.store().cancel_stage(&id) {
                Ok(true) => json_response(StatusCode::OK, json!({"cancelled": true, "id": id})),
                _ => reject(StatusCode::NOT_FOUND, "CONTEXT_REFERENCE_UNAVAILABLE", None),
            },
            Ok(_) => reject(StatusCode::NOT_FOUND, "CONTEXT_REFERENCE_UNAVAILABLE", None),
            Err(_) => reject(StatusCode::SERVICE_UNAVAILABLE, "CONTEXT_STAGING_UNAVAILABLE", None),
        };
    }
    post(&s, actor, &session_id, &request_id, &headers, &body)
}

fn post(
    s: &SessionService,
    actor: super::Actor,
    session_id: &str,
    request_id: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(|v| v.trim().to_ascii_lowercase());
    if header("content-encoding").is_some_and(|e| e != "identity") {
        return reject(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_ENCODING", None);
    }
    let media = header("content-type").map(|c| c.split(';').next().unwrap_or("").trim().to_string());
    if media.as_deref() != Some("application/json") {
        return reject(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_CONTENT_TYPE", None);
    }
    if body.len() > MAX_INLINE_COMMAND_BYTES {
        return reject(StatusCode::PAYLOAD_TOO_LARGE, "CONTEXT_BODY_TOO_LARGE", None);
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return reject(StatusCode::BAD_REQUEST, "CONTEXT_BODY_REJECTED", None);
    };
    let Ok(parsed) = serde_json::from_str::<Value>(text) else {
        return reject(StatusCode::BAD_REQUEST, "INVALID_JSON", None);
    };
    if canonical_json(&parsed).ok().as_deref() != Some(text) {
        return reject(StatusCode::UNPROCESSABLE_ENTITY, "NONCANONICAL_CONTEXT", None);
    }
    let content_hash = sha256_prefixed(body);
    // A retry of the same request, answered before validation; the transaction below decides again
    // (a concurrent post may land in between). An expired stage is never handed back.
    match s.store().stage_by_request(session_id, request_id) {
        Ok(Some(prior)) if prior.content_hash == content_hash && prior.state == "pending" => {
            if prior.expires_at_ms > s.now_ms() {
                return created(&prior);
            }
        }
        Ok(Some(_)) => return reject(StatusCode::CONFLICT, "CONTEXT_STAGE_CONFLICT", None),
        Ok(None) => {}
        Err(_) => return reject(StatusCode::SERVICE_UNAVAILABLE, "CONTEXT_STAGING_UNAVAILABLE", None),
    }
    if let Err(e) = super::messages::validate_context(s, session_id, &parsed) {
        return reject(StatusCode::UNPROCESSABLE_ENTITY, "INVALID_CONTEXT_ATTACHMENTS", Some(e.code.as_str()));
    }
    if super::messages::check_visual_dimensions(s, &parsed).is_err() {
        return reject(
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CONTEXT_ATTACHMENTS",
            Some("visual-reference-integrity-mismatch".into()),
        );
    }
    let list = parsed.as_array().map(Vec::as_slice).unwrap_or(&[]);
    if list.is_empty() {
        return reject(StatusCode::UNPROCESSABLE_ENTITY, "INVALID_CONTEXT_STAGE", None);
    }
    let now = s.now_ms();
    let mut expires = now + STAGE_TTL_MS;
    for a in list {
        if let Some(t) = a.get("expires_at").and_then(Value::as_str).and_then(Timestamp::parse_session) {
            expires = expires.min(t.secs * 1000 + i64::from(t.nanos / 1_000_000));
        }
    }
    let stage = StoredStage {
        id: super::new_uuid_v7(),
        session_id: session_id.to_string(),
        actor: actor.name().to_string(),
        request_id: request_id.to_string(),
        body: text.to_string(),
        content_hash,
        content_bytes: body.len() as i64,
        expires_at_ms: expires,
        state: "pending".into(),
    };
    // The retry lookup, the quotas and the insert are one transaction (concurrent posts).
    match s.store().insert_stage_checked(
        &stage,
        now,
        (MAX_PENDING_PER_SESSION, MAX_PENDING_PER_ACTOR, MAX_PENDING_TOTAL),
    ) {
        Ok(StageInsert::Created) => created(&stage),
        Ok(StageInsert::Existing(prior)) => created(&prior),
        Ok(StageInsert::Conflict) => reject(StatusCode::CONFLICT, "CONTEXT_STAGE_CONFLICT", None),
        Ok(StageInsert::Quota) => reject(StatusCode::TOO_MANY_REQUESTS, "CONTEXT_STAGE_QUOTA", None),
        Err(_) => reject(StatusCode::SERVICE_UNAVAILABLE, "CONTEXT_STAGING_UNAVAILABLE", None),
    }
}
