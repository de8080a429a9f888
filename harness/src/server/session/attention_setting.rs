//! `PATCH /api/v1/sessions/{session_id}/attention-context` (schemas.md §10, stored state §9): the
//! user's automatic pointing-context setting. Every status and code of §10; the body is checked
//! before anything is read or written; an unchanged value is a no-op (the revision stays); a stale
//! `expected_revision` answers 409 with the current state; the write is a compare-and-swap on the
//! revision.
//!
//! Not in §10's table but needed: a body over `max_body` (8192 bytes) is answered 413
//! `REQUEST_BODY_TOO_LARGE` (the Wippy HTTP layer's own limit; §10 gives no code for it).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::store::{AttentionUpdate, StoreError};
use super::{error_response, json_response, unauthenticated, SessionService};

pub const MAX_BODY: usize = 8192;
pub const MAX_SESSION_ID: usize = 160;

fn storage_unavailable() -> Response {
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        "ATTENTION_CONTEXT_STORAGE_UNAVAILABLE",
        "Attention context storage is unavailable",
    )
}

pub async fn patch_attention(
    State(s): State<SessionService>,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    super::blocking(move || patch_blocking(s, session_id, headers, body)).await
}

fn patch_blocking(s: SessionService, session_id: String, headers: HeaderMap, body: Bytes) -> Response {
    let Some(actor) = s.inner.users.authenticate(&headers, None) else { return unauthenticated() };
    if session_id.is_empty() || session_id.len() > MAX_SESSION_ID {
        return error_response(StatusCode::BAD_REQUEST, "INVALID_SESSION_ID", "Invalid session id");
    }
    if !actor.can_write() {
        return error_response(StatusCode::FORBIDDEN, "SESSION_FORBIDDEN", "Not allowed to change this session");
    }
    if s.check_storage().is_err() {
        return storage_unavailable();
    }
    match s.store().session(&session_id) {
        Ok(Some(row)) if row.owner == actor.name() => {}
        Ok(_) => return error_response(StatusCode::NOT_FOUND, "SESSION_NOT_FOUND", "Session not found"),
        Err(_) => return storage_unavailable(),
    }
    if body.len() > MAX_BODY {
        return error_response(StatusCode::PAYLOAD_TOO_LARGE, "REQUEST_BODY_TOO_LARGE", "Request body too large");
    }
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body) else {
        return error_response(StatusCode::BAD_REQUEST, "INVALID_JSON", "Body must be a JSON object");
    };
    if let Some(k) = fields.keys().find(|k| *k != "enabled" && *k != "expected_revision") {
        return error_response(StatusCode::BAD_REQUEST, "UNKNOWN_FIELD", &format!("Unknown field: {k}"));
    }
    let Some(enabled) = fields.get("enabled").and_then(Value::as_bool) else {
        return error_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_ATTENTION_CONTEXT_ENABLED",
            "enabled must be a boolean",
        );
    };
    let expected = match fields.get("expected_revision") {
        None => None,
        Some(v) => match v.as_i64().or_else(|| {
            v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 9_007_199_254_740_991.0).map(|f| f as i64)
        }) {
            Some(n) if n >= 0 => Some(n),
            _ => {
                return error_response(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "INVALID_ATTENTION_CONTEXT_REVISION",
                    "expected_revision must be an integer >= 0",
                )
            }
        },
    };
    if enabled && !s.options().attention_versions.contains(&4) {
        return error_response(
            StatusCode::CONFLICT,
            "ATTENTION_CONTEXT_CAPABILITY_UNAVAILABLE",
            "Attention context is not supported by this Session",
        );
    }
    let conflict = |current: &super::AttentionState| {
        json_response(
            StatusCode::CONFLICT,
            json!({"success": false, "attention_context": current.to_value(),
                   "error": {"code": "ATTENTION_CONTEXT_REVISION_CONFLICT", "message": "Attention context revision conflict"}}),
        )
    };
    // Read, compare and write in one transaction: a conflict only for a stale `expected_revision`.
    match s.store().update_attention(&session_id, expected, enabled, &s.now_rfc3339(), actor.name()) {
        Ok(Some(AttentionUpdate::Conflict(current))) => conflict(&current),
        Ok(Some(AttentionUpdate::Unchanged(state) | AttentionUpdate::Updated(state))) => {
            json_response(StatusCode::OK, json!({"success": true, "attention_context": state.to_value()}))
        }
        Ok(None) => error_response(StatusCode::NOT_FOUND, "SESSION_NOT_FOUND", "Session not found"),
        Err(StoreError::Unavailable) => storage_unavailable(),
        Err(e) => {
            // The repository's own text stays in the server log, never in the reply.
            tracing::warn!("attention-context update of session {session_id} failed: {e}");
            error_response(
                StatusCode::BAD_REQUEST,
                "ATTENTION_CONTEXT_UPDATE_FAILED",
                "Attention context update failed",
            )
        }
    }
}
