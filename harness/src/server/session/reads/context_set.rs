//! `attention_context_set` (schemas.md §9, spec "When the user requests a change, the agent can use
//! attention_context_set. No additional confirmation prompt is shown."): the agent turns the
//! Session's automatic pointing-context setting on or off, the same stored setting `PATCH
//! /api/v1/sessions/{id}/attention-context` changes (one compare-and-swap, `Store::update_attention`).
//!
//! Authority is a one-use grant the Session issues for (session, agent) on the current connection
//! generation (the route's delivery handle: a new binding invalidates outstanding grants), living
//! [`GRANT_LIFETIME_MS`]. Requests are
//! `{request_id, reply_topic, session_id, agent_id, capability, enabled, expected_revision?, sender}`
//! and answers `{schema, request_id, session_id, error?, attention_context?}`. A replay cache
//! ([`REPLAY_KEEP_MS`], at most [`REPLAY_ENTRIES`]) answers an identical replay with the cached
//! response and the same `request_id` with other fields with `ATTENTION_CONTEXT_REQUEST_CONFLICT`.
//!
//! `sender` stands for the process id the runtime checks (1..160); we have no processes, so the
//! agent names itself.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::contract::canonical::{canonical_json, sha256_prefixed};
use crate::contract::lua::{get, is_integer, is_string, MAX_SAFE_INTEGER};
use crate::server::session::store::AttentionUpdate;
use crate::server::session::{AttentionState, SessionService};

pub const SCHEMA: &str = "wippy.attention.session-control.v1";
pub const GRANT_LIFETIME_MS: i64 = 30_000;
pub const REPLAY_KEEP_MS: i64 = 60_000;
pub const REPLAY_ENTRIES: usize = 256;
/// Outstanding grants at most (ours: §9 names `_EXHAUSTED` but no number; the replay cache's).
pub const MAX_GRANTS: usize = 256;
pub const REPLY_TOPIC_PREFIX: &str = "session_attention_context_result:";

/// §9's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ContextCode {
    AttentionContextRequestInvalid,
    AttentionContextReplyTopicInvalid,
    AttentionContextSessionStale,
    AttentionContextAgentStale,
    AttentionContextAuthorityStale,
    AttentionContextRequestConflict,
    AttentionContextUpdateRejected,
    AttentionContextRevisionConflict,
    AttentionContextCapabilityUnavailable,
    AttentionContextAuthorityInvalid,
    AttentionContextAuthorityExhausted,
    AttentionContextAuthorityUnavailable,
}

impl ContextCode {
    pub fn as_str(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }
}

/// A one-use grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub capability: String,
    pub session_id: String,
    pub agent_id: String,
    pub expires_at_ms: i64,
}

struct GrantEntry {
    grant: Grant,
    generation: String,
}

#[derive(Default)]
pub struct ContextState {
    grants: HashMap<String, GrantEntry>,
    /// request_id -> (canonical request, response, kept until).
    replays: HashMap<String, (String, Value, i64)>,
}

/// The reply topic of a request id: `session_attention_context_result:` + sha256 hex.
pub fn reply_topic(request_id: &str) -> String {
    format!("{REPLY_TOPIC_PREFIX}{}", &sha256_prefixed(request_id.as_bytes())[7..])
}

fn generation(s_: &SessionService, session_id: &str) -> Option<String> {
    s_.broker().route(session_id).map(|r| r.delivery_handle)
}

/// Issues a grant for `agent_id` in `session_id` on the current connection generation.
pub fn issue_grant(s_: &SessionService, session_id: &str, agent_id: &str) -> Result<Grant, ContextCode> {
    if session_id.is_empty() || session_id.len() > 128 || agent_id.is_empty() || agent_id.len() > 160 {
        return Err(ContextCode::AttentionContextAuthorityInvalid);
    }
    s_.check_storage().map_err(|_| ContextCode::AttentionContextAuthorityUnavailable)?;
    match s_.store().session(session_id) {
        Ok(Some(_)) => {}
        Ok(None) => return Err(ContextCode::AttentionContextAuthorityInvalid),
        Err(_) => return Err(ContextCode::AttentionContextAuthorityUnavailable),
    }
    let generation = generation(s_, session_id).ok_or(ContextCode::AttentionContextAuthorityUnavailable)?;
    let now = s_.now_ms();
    let mut st = s_.inner.context_set.lock().map_err(|_| ContextCode::AttentionContextAuthorityUnavailable)?;
    st.grants.retain(|_, g| g.grant.expires_at_ms > now);
    if st.grants.len() >= MAX_GRANTS {
        return Err(ContextCode::AttentionContextAuthorityExhausted);
    }
    let grant = Grant {
        capability: format!("acg-{}", crate::server::session::new_uuid_v4()),
        session_id: session_id.to_string(),
        agent_id: agent_id.to_string(),
        expires_at_ms: now + GRANT_LIFETIME_MS,
    };
    st.grants.insert(grant.capability.clone(), GrantEntry { grant: grant.clone(), generation });
    Ok(grant)
}

fn response(req: &Value, error: Option<(ContextCode, &str)>, state: Option<&AttentionState>) -> Value {
    let mut r = json!({"schema": SCHEMA, "request_id": req["request_id"], "session_id": req["session_id"]});
    if let Some((code, message)) = error {
        r["error"] = json!({"code": code.as_str(), "message": message});
    }
    if let Some(s) = state {
        r["attention_context"] = json!({"enabled": s.enabled, "revision": s.revision, "updated_at": s.updated_at, "updated_by": s.updated_by});
    }
    r
}

fn valid_fields(req: &Value) -> bool {
    let v = Some(req);
    let keys =
        ["request_id", "reply_topic", "session_id", "agent_id", "capability", "enabled", "expected_revision", "sender"];
    matches!(req, Value::Object(m) if m.keys().all(|k| keys.contains(&k.as_str())))
        && is_string(get(v, "request_id"), 128, false)
        && is_string(get(v, "reply_topic"), 160, false)
        && is_string(get(v, "capability"), 160, false)
        && is_string(get(v, "session_id"), 128, false)
        && is_string(get(v, "agent_id"), 160, false)
        && is_string(get(v, "sender"), 160, false)
        && matches!(get(v, "enabled"), Some(Value::Bool(_)))
        && (get(v, "expected_revision").is_none() || is_integer(get(v, "expected_revision"), 0.0, MAX_SAFE_INTEGER))
}

/// Handles one `session_attention_context_request`; the answer is the response object.
pub fn handle(s_: &SessionService, req: &Value) -> Value {
    use ContextCode::*;
    if !valid_fields(req) {
        return response(req, Some((AttentionContextRequestInvalid, "Attention context request is invalid")), None);
    }
    let request_id = req["request_id"].as_str().unwrap_or_default().to_string();
    if req["reply_topic"] != reply_topic(&request_id).as_str() {
        return response(req, Some((AttentionContextReplyTopicInvalid, "Reply topic is invalid")), None);
    }
    let now = s_.now_ms();
    let print = canonical_json(req).unwrap_or_else(|_| req.to_string());
    let Ok(mut st) = s_.inner.context_set.lock() else {
        return response(req, Some((AttentionContextUpdateRejected, "Attention context update rejected")), None);
    };
    st.replays.retain(|_, (_, _, keep)| *keep > now);
    if let Some((p, cached, _)) = st.replays.get(&request_id) {
        return if *p == print {
            cached.clone()
        } else {
            response(req, Some((AttentionContextRequestConflict, "request_id reused with other fields")), None)
        };
    }
    let session_id = req["session_id"].as_str().unwrap_or_default();
    let agent_id = req["agent_id"].as_str().unwrap_or_default();
    let capability = req["capability"].as_str().unwrap_or_default();
    let current_generation = generation(s_, session_id);
    let answer = match st.grants.get(capability) {
        None => response(req, Some((AttentionContextAuthorityStale, "Attention context authority is stale")), None),
        Some(g) if g.grant.session_id != session_id => {
            response(req, Some((AttentionContextSessionStale, "Session is stale")), None)
        }
        Some(g) if g.grant.agent_id != agent_id => {
            response(req, Some((AttentionContextAgentStale, "Agent is stale")), None)
        }
        Some(g) if g.grant.expires_at_ms <= now || current_generation.as_deref() != Some(g.generation.as_str()) => {
            st.grants.remove(capability);
            response(req, Some((AttentionContextAuthorityStale, "Attention context authority is stale")), None)
        }
        Some(_) => {
            st.grants.remove(capability);
            update(s_, req, session_id, agent_id)
        }
    };
    if st.replays.len() >= REPLAY_ENTRIES {
        if let Some(oldest) = st.replays.iter().min_by_key(|(_, (_, _, keep))| *keep).map(|(k, _)| k.clone()) {
            st.replays.remove(&oldest);
        }
    }
    st.replays.insert(request_id, (print, answer.clone(), now + REPLAY_KEEP_MS));
    answer
}

/// The write: the same rules as the PATCH (§10: capability gate, compare-and-swap, no-op).
fn update(s_: &SessionService, req: &Value, session_id: &str, agent_id: &str) -> Value {
    use ContextCode::*;
    let enabled = req["enabled"].as_bool().unwrap_or_default();
    if enabled && !s_.options().attention_versions.contains(&4) {
        return response(
            req,
            Some((AttentionContextCapabilityUnavailable, "Attention context is not supported")),
            None,
        );
    }
    let expected = req.get("expected_revision").and_then(Value::as_f64).map(|f| f as i64);
    if s_.check_storage().is_err() {
        return response(req, Some((AttentionContextUpdateRejected, "Attention context update rejected")), None);
    }
    match s_.store().update_attention(session_id, expected, enabled, &s_.now_rfc3339(), agent_id) {
        Ok(Some(AttentionUpdate::Conflict(current))) => response(
            req,
            Some((AttentionContextRevisionConflict, "Attention context revision conflict")),
            Some(&current),
        ),
        Ok(Some(AttentionUpdate::Unchanged(state) | AttentionUpdate::Updated(state))) => {
            response(req, None, Some(&state))
        }
        Ok(None) => response(req, Some((AttentionContextSessionStale, "Session is stale")), None),
        Err(_) => response(req, Some((AttentionContextUpdateRejected, "Attention context update rejected")), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_topic_is_the_prefix_and_the_sha256_hex_of_the_request_id() {
        let t = reply_topic("call-1");
        assert!(t.starts_with(REPLY_TOPIC_PREFIX));
        assert_eq!(t.len(), REPLY_TOPIC_PREFIX.len() + 64);
        assert_ne!(t, reply_topic("call-2"));
    }

    #[test]
    fn codes_are_their_wire_names() {
        assert_eq!(ContextCode::AttentionContextAuthorityStale.as_str(), "ATTENTION_CONTEXT_AUTHORITY_STALE");
        assert_eq!(ContextCode::AttentionContextReplyTopicInvalid.as_str(), "ATTENTION_CONTEXT_REPLY_TOPIC_INVALID");
    }
}
