//! `session_message` admission (spec "Message attachment contract" and "Message delivery";
//! schemas.md §1 "How a rejection reaches the client", §12 "Using the reference"). The command:
//!
//! ```json
//! {"type":"session_message","request_id":"…","data":{"text":"…",
//!   "context_attachments":[…] | "context_attachments_ref":{…}, "runtime_context":{…}}}
//! ```
//!
//! The whole send is admitted or rejected atomically: the attachments go through the contract
//! validator (`crate::contract::validate`, the one validator) with the session id and visual
//! authorization backed by this Session's uploads; a staged reference is resolved and consumed in
//! the same transaction as the message; `runtime_context` is stripped before persisting. Exactly
//! one answer per `request_id`: `received` (topic `session:<sid>:message:<mid>`), or an error
//! (topic `session:<sid>`, `success:false`, `code`, `detail_code` for the validator's code). A retry
//! with the same `request_id` and the same payload is a duplicate (same `message_id`); a changed
//! payload is `request_conflict`. "The same payload" is the fingerprint of schemas.md §2, the
//! SHA-256 of the canonical JSON of `{text, file_uuids or [], context_attachments or []}` (a
//! staged send: its `context_attachments_ref` in place of the array); a `data` that cannot be
//! canonicalized (deeper than 32 levels) is refused, and so is a member of `data` the Session does
//! not know ([`DATA_MEMBERS`]). A retry is answered from what was stored before its files or stage
//! are looked at (a file removed after the message was received does not turn the retry into
//! `file_unavailable`). Two sockets sending one `request_id` at once: the check-and-insert is one
//! transaction ([`super::store::Store::insert_message`]), the loser is answered as the retry.
//!
//! WebSocket error codes (lowercase, as the Session's `ERROR_CODES` reach the wire):
//! `invalid_request` (not a command / bad `request_id` / bad `text`), `unknown_command`,
//! `invalid_context_attachments` (+ `detail_code`), `invalid_context_reference`, `file_unavailable`
//! (`data.file_uuids`, the ordinary files of the message, names no upload of this session: a
//! missing file never silently becomes an attachment-free send),
//! `context_reference_unavailable`, `invalid_context_receipt`, `request_conflict`,
//! `storage_unavailable`.

use serde_json::{json, Map, Value};

use super::store::{Inserted, NewMessage, StoredAttachment, StoredMessage};
use super::{SessionService, Transport};
use crate::contract::visual::{ResolvedMedia, VisualRequest};
use crate::contract::{canonical_json, sha256_prefixed, validate, ValidateOptions};

/// The detail of `context_reference_unavailable`: the stage is gone, or was never this session's.
const STAGE_UNAVAILABLE: &str = "context reference is missing, used, cancelled or expired";

pub const MAX_REQUEST_ID: usize = 128;

/// The members of `session_message.data` the Session knows; any other is refused `invalid_request`.
pub const DATA_MEMBERS: [&str; 5] =
    ["text", "file_uuids", "context_attachments", "context_attachments_ref", "runtime_context"];

/// What admission answered: the frame to send and what to log.
pub struct Outcome {
    pub request_id: Option<String>,
    /// The command carried `data.runtime_context` (the tab binding; never stored).
    pub runtime_context: bool,
    pub transport: Transport,
    pub frame: Value,
}

fn error(
    session_id: &str,
    socket_id: &str,
    request_id: Option<&str>,
    code: &str,
    detail_code: Option<String>,
    message: String,
) -> Value {
    let mut v = json!({"type": "error", "topic": format!("session:{session_id}"), "success": false, "code": code,
                       "message": message, "socket_id": socket_id});
    if let Some(r) = request_id {
        v["request_id"] = json!(r);
    }
    if let Some(d) = detail_code {
        v["detail_code"] = json!(d);
    }
    v
}

fn received(session_id: &str, socket_id: &str, request_id: &str, message_id: &str, duplicate: bool) -> Value {
    json!({"type": "received", "topic": format!("session:{session_id}:message:{message_id}"), "success": true,
           "request_id": request_id, "message_id": message_id, "duplicate": duplicate, "socket_id": socket_id})
}

/// Visual authorization: the reference must be an upload of this session.
fn authorize(s: &SessionService, session_id: &str, r: &VisualRequest) -> Result<bool, String> {
    let id = r.reference.get("opaque_id").and_then(Value::as_str).ok_or("no opaque_id")?;
    if r.reference.get("kind").and_then(Value::as_str) != Some("upload") {
        return Ok(false);
    }
    Ok(s.store().upload(id).map_err(|e| e.to_string())?.is_some_and(|u| u.session_id == session_id))
}

fn resolve(s: &SessionService, r: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
    let id = r.reference.get("opaque_id").and_then(Value::as_str).ok_or("no opaque_id")?;
    Ok(s.store().upload(id).map_err(|e| e.to_string())?.map(|u| ResolvedMedia { content_type: u.mime, data: u.bytes }))
}

/// Validates a context array as this Session admits it (messages and staging share it).
pub fn validate_context(
    s: &SessionService,
    session_id: &str,
    attachments: &Value,
) -> Result<crate::contract::Admitted, crate::contract::ValidationError> {
    let sid = session_id.to_string();
    let authorizer = |r: &VisualRequest| authorize(s, &sid, r);
    let resolver = |r: &VisualRequest| resolve(s, r);
    let opts = ValidateOptions {
        now: Some(s.now_timestamp()),
        session_id: Some(session_id.to_string()),
        supported_attention_versions: s.options().attention_versions.clone(),
        require_visual_authorization: true,
        visual_authorizer: Some(&authorizer),
        visual_resolver: Some(&resolver),
        ..ValidateOptions::default()
    };
    validate(attachments, &opts)
}

/// Every `wippy.attention.visual` attachment of an admitted array names an upload whose image
/// really has the declared `media.pixel_width` x `pixel_height` (the validator checks type, length
/// and hash; the size is the Session's to check, from the stored image's header: the bytes were
/// decoded in full when uploaded, and their hash is checked). `Err` is the attachment's id.
pub fn check_visual_dimensions(s: &SessionService, attachments: &Value) -> Result<(), String> {
    for a in attachments.as_array().into_iter().flatten() {
        if a["kind"] != crate::attention::VISUAL_KIND {
            continue;
        }
        let id = a["attachment_id"].as_str().unwrap_or_default().to_string();
        let payload: Value = a["content"].as_str().and_then(|c| serde_json::from_str(c).ok()).unwrap_or(Value::Null);
        let media = &payload["media"];
        let declared = (media["pixel_width"].as_u64(), media["pixel_height"].as_u64());
        let upload = payload
            .pointer("/reference/opaque_id")
            .and_then(Value::as_str)
            .and_then(|u| s.store().upload(u).ok().flatten());
        let real = upload.and_then(|u| super::uploads::dimensions(&u.bytes, &u.mime));
        if real.map(|(w, h)| (Some(u64::from(w)), Some(u64::from(h)))) != Some(declared) {
            return Err(id);
        }
    }
    Ok(())
}

/// The strict `context_attachments_ref`: `{version:1, id, content_hash, content_bytes}`.
fn parse_ref(v: &Value) -> Option<(String, String, i64)> {
    let m = v.as_object()?;
    if m.len() != 4 || m.get("version")?.as_i64()? != 1 {
        return None;
    }
    let id = m.get("id")?.as_str()?;
    let ok_id =
        (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let hash = m.get("content_hash")?.as_str()?;
    let ok_hash = hash.len() == 71
        && hash.starts_with("sha256:")
        && hash[7..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let bytes = m.get("content_bytes")?.as_i64()?;
    (ok_id && ok_hash && (2..=32_768).contains(&bytes)).then(|| (id.to_string(), hash.to_string(), bytes))
}

/// Admits or rejects one text frame of a socket joined to `session_id`.
pub fn admit(s: &SessionService, session_id: &str, socket_id: &str, frame: &str) -> Outcome {
    let has_rc =
        serde_json::from_str::<Value>(frame).ok().is_some_and(|c| c.pointer("/data/runtime_context").is_some());
    let err = |rid: Option<&str>, code: &str, detail: Option<String>, msg: String, transport: Transport| Outcome {
        request_id: rid.map(str::to_string),
        runtime_context: has_rc,
        transport,
        frame: error(session_id, socket_id, rid, code, detail, msg),
    };
    let Ok(Value::Object(cmd)) = serde_json::from_str::<Value>(frame) else {
        return err(None, "invalid_request", None, "command is not a JSON object".into(), Transport::None);
    };
    let rid = cmd
        .get("request_id")
        .and_then(Value::as_str)
        .filter(|r| (1..=MAX_REQUEST_ID).contains(&r.len()) && !r.chars().any(char::is_control));
    let Some(rid) = rid else {
        return err(
            None,
            "invalid_request",
            None,
            "request_id must be a string of 1..128 bytes".into(),
            Transport::None,
        );
    };
    if cmd.get("type").and_then(Value::as_str) != Some("session_message") {
        return err(Some(rid), "unknown_command", None, "unknown command type".into(), Transport::None);
    }
    let empty = Map::new();
    let data = cmd.get("data").and_then(Value::as_object).unwrap_or(&empty);
    if let Some(k) = data.keys().find(|k| !DATA_MEMBERS.contains(&k.as_str())) {
        // Refused, not ignored: a member the Session neither stores nor fingerprints would let two
        // different commands be "the same" retry.
        return err(Some(rid), "invalid_request", None, format!("unknown member of data: {k}"), Transport::None);
    }
    let transport = match (data.contains_key("context_attachments"), data.contains_key("context_attachments_ref")) {
        (true, true) => {
            return err(
                Some(rid),
                "invalid_context_reference",
                None,
                "context_attachments and context_attachments_ref are exclusive".into(),
                Transport::Inline,
            )
        }
        (true, false) => Transport::Inline,
        (false, true) => Transport::Staged,
        _ => Transport::None,
    };
    let Some(text) = data.get("text").and_then(Value::as_str) else {
        return err(Some(rid), "invalid_request", None, "data.text must be a string".into(), transport);
    };
    let file_uuids: Vec<&str> = match data.get("file_uuids") {
        None => Vec::new(),
        Some(Value::Array(a))
            if a.len() <= 32 && a.iter().all(|u| u.as_str().is_some_and(|u| (1..=160).contains(&u.len()))) =>
        {
            a.iter().filter_map(Value::as_str).collect()
        }
        Some(_) => {
            return err(
                Some(rid),
                "invalid_request",
                None,
                "data.file_uuids must be an array of at most 32 upload ids".into(),
                transport,
            )
        }
    };
    // The retry fingerprint (schemas.md §2): canonical JSON of {text, file_uuids or [],
    // context_attachments or []}; a staged send fingerprints its `context_attachments_ref` in
    // place of the array (the array is resolved later, and only once). A payload that cannot be
    // canonicalized (nested deeper than 32 levels) cannot be told apart from another: refused.
    let mut basis = Map::new();
    basis.insert("text".into(), Value::String(text.to_string()));
    basis.insert("file_uuids".into(), json!(file_uuids));
    match transport {
        Transport::Staged => basis.insert("context_attachments_ref".into(), data["context_attachments_ref"].clone()),
        _ => basis.insert("context_attachments".into(), data.get("context_attachments").cloned().unwrap_or(json!([]))),
    };
    let fingerprint = match canonical_json(&Value::Object(basis)) {
        Ok(c) => sha256_prefixed(c.as_bytes()),
        Err(e) => {
            let (code, detail) = match transport {
                Transport::Inline => ("invalid_context_attachments", Some("invalid-json".to_string())),
                Transport::Staged => ("invalid_context_reference", None),
                Transport::None => ("invalid_request", None),
            };
            return err(Some(rid), code, detail, format!("data cannot be fingerprinted: {e}"), transport);
        }
    };
    if s.check_storage().is_err() {
        return err(Some(rid), "storage_unavailable", None, "session storage is unavailable".into(), transport);
    }
    // A retry of an earlier request is answered from what was stored, before anything else is
    // looked at: its files may have been removed since, its stage consumed.
    match s.store().message_by_request(session_id, rid) {
        Ok(Some((prior, prior_fp))) => {
            return retry(session_id, socket_id, rid, &prior, &prior_fp, &fingerprint, has_rc, transport)
        }
        Ok(None) => {}
        Err(_) => {
            return err(Some(rid), "storage_unavailable", None, "session storage is unavailable".into(), transport)
        }
    }
    for uuid in &file_uuids {
        match s.store().upload(uuid) {
            Ok(Some(u)) if u.session_id == session_id => {}
            Ok(_) => {
                return err(
                    Some(rid),
                    "file_unavailable",
                    None,
                    "data.file_uuids names no upload of this session".into(),
                    transport,
                )
            }
            Err(_) => {
                return err(Some(rid), "storage_unavailable", None, "session storage is unavailable".into(), transport)
            }
        }
    }
    // The context: inline, or resolved from a one-use stage.
    let mut stage_id = None;
    let attachments: Option<Value> = match transport {
        Transport::Inline => data.get("context_attachments").cloned(),
        Transport::Staged => {
            let Some((id, hash, bytes)) = parse_ref(&data["context_attachments_ref"]) else {
                return err(
                    Some(rid),
                    "invalid_context_reference",
                    None,
                    "malformed context_attachments_ref".into(),
                    transport,
                );
            };
            let stage = match s.store().stage(&id) {
                Ok(st) => st,
                Err(_) => {
                    return err(
                        Some(rid),
                        "storage_unavailable",
                        None,
                        "session storage is unavailable".into(),
                        transport,
                    )
                }
            };
            let usable = stage
                .filter(|st| st.session_id == session_id && st.state == "pending" && st.expires_at_ms > s.now_ms());
            let Some(stage) = usable else {
                return err(Some(rid), "context_reference_unavailable", None, STAGE_UNAVAILABLE.into(), transport);
            };
            if stage.content_hash != hash || stage.content_bytes != bytes {
                return err(
                    Some(rid),
                    "invalid_context_reference",
                    None,
                    "context reference does not match its stage".into(),
                    transport,
                );
            }
            stage_id = Some(stage.id.clone());
            Some(serde_json::from_str(&stage.body).unwrap_or(Value::Null))
        }
        Transport::None => None,
    };
    let mut stored = Vec::new();
    if let Some(atts) = &attachments {
        match validate_context(s, session_id, atts) {
            Ok(admitted) => {
                if let Err(id) = check_visual_dimensions(s, atts) {
                    return err(
                        Some(rid),
                        "invalid_context_attachments",
                        Some("visual-reference-integrity-mismatch".into()),
                        format!(
                            "attachment {id}: the image's pixel size is not the declared pixel_width x pixel_height"
                        ),
                        transport,
                    );
                }
                for (a, adm) in atts.as_array().into_iter().flatten().zip(admitted.attachments.iter()) {
                    stored.push(StoredAttachment {
                        attachment_id: adm.attachment_id.clone(),
                        kind: adm.kind.clone(),
                        version: adm.version as i64,
                        content_hash: a["content_hash"].as_str().unwrap_or_default().to_string(),
                        content_bytes: a["content_bytes"].as_i64().unwrap_or_default(),
                        inert: adm.is_inert(),
                        envelope: a.to_string(),
                    });
                }
            }
            Err(e) => {
                return err(Some(rid), "invalid_context_attachments", Some(e.code.as_str()), e.to_string(), transport);
            }
        }
    }
    let message_id = super::new_uuid_v4();
    let context_ref =
        if transport == Transport::Staged { Some(data["context_attachments_ref"].to_string()) } else { None };
    let new = NewMessage {
        message_id: &message_id,
        session_id,
        request_id: rid,
        fingerprint: &fingerprint,
        text,
        context_ref: context_ref.as_deref(),
        created_at: &s.now_rfc3339(),
        attachments: &stored,
        consumes_stage: stage_id.as_deref(),
    };
    match s.store().insert_message(&new) {
        Ok(Inserted::New) => {}
        // Another socket of this session stored the same request_id first (a Host retrying on a
        // reconnected socket): this command is its retry.
        Ok(Inserted::Existing { message_id: mid, fingerprint: prior_fp }) => {
            return match s.store().message(&mid) {
                Ok(Some(prior)) => {
                    retry(session_id, socket_id, rid, &prior, &prior_fp, &fingerprint, has_rc, transport)
                }
                _ => err(Some(rid), "storage_unavailable", None, "session storage is unavailable".into(), transport),
            };
        }
        Ok(Inserted::StageGone) => {
            return err(Some(rid), "context_reference_unavailable", None, STAGE_UNAVAILABLE.into(), transport)
        }
        Err(e) => return err(Some(rid), "storage_unavailable", None, format!("message not stored: {e}"), transport),
    }
    Outcome {
        request_id: Some(rid.into()),
        runtime_context: has_rc,
        transport,
        frame: received(session_id, socket_id, rid, &message_id, false),
    }
}

/// The answer to a retry of a stored request: a duplicate with the first message id when the
/// fingerprints match (and a staged context still matches its reference), `request_conflict`
/// otherwise.
#[allow(clippy::too_many_arguments)]
fn retry(
    session_id: &str,
    socket_id: &str,
    rid: &str,
    prior: &StoredMessage,
    prior_fp: &str,
    fingerprint: &str,
    has_rc: bool,
    transport: Transport,
) -> Outcome {
    let err = |code: &str, msg: &str| Outcome {
        request_id: Some(rid.to_string()),
        runtime_context: has_rc,
        transport,
        frame: error(session_id, socket_id, Some(rid), code, None, msg.to_string()),
    };
    if prior_fp != fingerprint {
        return err("request_conflict", "request_id was used with a different payload");
    }
    if let Some(r) = prior.context_ref.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()) {
        let stored: Vec<Value> =
            prior.attachments.iter().filter_map(|a| serde_json::from_str(&a.envelope).ok()).collect();
        let hash = sha256_prefixed(canonical_json(&Value::Array(stored)).unwrap_or_default().as_bytes());
        if r["content_hash"].as_str() != Some(hash.as_str()) {
            return err("invalid_context_receipt", "stored context no longer matches the reference");
        }
    }
    Outcome {
        request_id: Some(rid.into()),
        runtime_context: has_rc,
        transport,
        frame: received(session_id, socket_id, rid, &prior.message_id, true),
    }
}
