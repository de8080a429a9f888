//! `GET /api/v1/sessions/capabilities` (schemas.md §11, spec "Session capability descriptor"):
//! 401 without a token, `Cache-Control: no-store`, the `wippy.session.capabilities.v1` body with
//! the handler versions the validator really supports. A Session configured without the endpoint
//! answers 404, as a release that predates it (the Host then treats it as without Attention).

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::{error_response, json_response, unauthenticated, SessionService};
use crate::contract::delivery::MAX_INLINE_COMMAND_BYTES;

/// The descriptor this Session reports.
pub fn descriptor(s: &SessionService) -> Value {
    // As configured, unknown versions too: a test Session can play one whose renderer lists
    // versions this Host does not know (the Host must not guess one, issue 21).
    let mut versions: Vec<u64> = s.options().attention_versions.iter().copied().filter(|v| *v >= 1).collect();
    versions.sort_unstable();
    versions.dedup();
    let mut handlers = Vec::new();
    if !versions.is_empty() {
        handlers.push(json!({"kind": crate::attention::ATTENTION_KIND, "versions": versions}));
    }
    handlers.push(json!({"kind": crate::attention::VISUAL_KIND, "versions": [1]}));
    json!({
        "schema": "wippy.session.capabilities.v1",
        "message_receipt": 1,
        "steering": 1,
        "attention": {
            "context": 1,
            "browser_operations": 1,
            "context_attachments": {"transport": 1, "staging": true, "max_context_bytes": MAX_INLINE_COMMAND_BYTES, "handlers": handlers}
        }
    })
}

pub async fn get_capabilities(State(s): State<SessionService>, headers: HeaderMap) -> Response {
    if !s.options().capabilities_endpoint {
        return error_response(StatusCode::NOT_FOUND, "NOT_FOUND", "Not found");
    }
    if s.inner.users.authenticate(&headers, None).is_none() {
        return unauthenticated();
    }
    json_response(StatusCode::OK, json!({"success": true, "capabilities": descriptor(&s)}))
}
