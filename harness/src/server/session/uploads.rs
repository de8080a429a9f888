//! `POST /api/v1/uploads?session_id=<id>[&name=<file name>]` (what visual capture needs, spec
//! operational item 6): the body is the file. Upload type "attention-capture": `image/png` and
//! `image/webp` only, at most 1,048,576 bytes (the visual payload's `media.content_bytes` limit).
//! The MIME type is sniffed from the bytes (PNG signature, RIFF....WEBP), never taken from the
//! `Content-Type` header; the SHA-256 is recorded. A Session configured to refuse uploads answers
//! 403 `UPLOADS_DISABLED` and stores nothing.
//!
//! `DELETE /api/v1/uploads/{uuid}?session_id=<id>` removes an upload of the caller's session (a
//! removed composer file is cleaned up): 204, or 404 `UPLOAD_NOT_FOUND`.
//!
//! Answers: 201 `{success, upload:{uuid, name, mime, byte_size, sha256:"sha256:<hex>"}}`; 401
//! `UNAUTHENTICATED`; 403 `UPLOADS_DISABLED` / `SESSION_FORBIDDEN`; 404 `SESSION_NOT_FOUND`; 400
//! `EMPTY_UPLOAD`; 413 `UPLOAD_TOO_LARGE`; 415 `UNSUPPORTED_UPLOAD_TYPE`; 503
//! `UPLOAD_STORAGE_UNAVAILABLE`.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use super::store::StoredUpload;
use super::{error_response, json_response, unauthenticated, SessionService};
use crate::contract::sha256_prefixed;

pub const MAX_UPLOAD_BYTES: usize = 1_048_576;

#[derive(Deserialize)]
pub struct UploadQuery {
    session_id: Option<String>,
    name: Option<String>,
}

/// The MIME type the bytes really are, if allowed.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

pub async fn post_upload(
    State(s): State<SessionService>,
    Query(q): Query<UploadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    super::blocking(move || upload_blocking(s, q, headers, body)).await
}

fn upload_blocking(s: SessionService, q: UploadQuery, headers: HeaderMap, body: Bytes) -> Response {
    let Some(actor) = s.inner.users.authenticate(&headers, None) else { return unauthenticated() };
    if !s.options().uploads_enabled || s.uploads_refused_for(q.session_id.as_deref().unwrap_or_default()) {
        return error_response(StatusCode::FORBIDDEN, "UPLOADS_DISABLED", "Uploads are disabled");
    }
    if !actor.can_write() {
        return error_response(StatusCode::FORBIDDEN, "SESSION_FORBIDDEN", "Not allowed to upload to this session");
    }
    if s.check_storage().is_err() {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "UPLOAD_STORAGE_UNAVAILABLE",
            "Upload storage is unavailable",
        );
    }
    let session_id = q.session_id.unwrap_or_default();
    match s.store().session(&session_id) {
        Ok(Some(row)) if row.owner == actor.name() => {}
        Ok(_) => return error_response(StatusCode::NOT_FOUND, "SESSION_NOT_FOUND", "Session not found"),
        Err(_) => {
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "UPLOAD_STORAGE_UNAVAILABLE",
                "Upload storage is unavailable",
            )
        }
    }
    if body.is_empty() {
        return error_response(StatusCode::BAD_REQUEST, "EMPTY_UPLOAD", "The upload is empty");
    }
    if body.len() > MAX_UPLOAD_BYTES {
        return error_response(StatusCode::PAYLOAD_TOO_LARGE, "UPLOAD_TOO_LARGE", "The upload exceeds 1048576 bytes");
    }
    let Some(mime) = sniff(&body) else {
        return error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_UPLOAD_TYPE",
            "Only image/png and image/webp are accepted",
        );
    };
    let upload = StoredUpload {
        uuid: super::new_uuid_v4(),
        session_id,
        owner: actor.name().to_string(),
        name: q.name.filter(|n| !n.is_empty() && n.len() <= 255).unwrap_or_else(|| "upload".into()),
        mime: mime.to_string(),
        byte_size: body.len() as i64,
        sha256: sha256_prefixed(&body),
        bytes: body.to_vec(),
    };
    match s.store().insert_upload(&upload) {
        Ok(()) => json_response(
            StatusCode::CREATED,
            json!({"success": true, "upload": {"uuid": upload.uuid, "name": upload.name, "mime": upload.mime,
                                                "byte_size": upload.byte_size, "sha256": upload.sha256}}),
        ),
        Err(_) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "UPLOAD_STORAGE_UNAVAILABLE",
            "Upload storage is unavailable",
        ),
    }
}

pub async fn delete_upload(
    State(s): State<SessionService>,
    Path(uuid): Path<String>,
    Query(q): Query<UploadQuery>,
    headers: HeaderMap,
) -> Response {
    super::blocking(move || {
        let Some(actor) = s.inner.users.authenticate(&headers, None) else { return unauthenticated() };
        if !actor.can_write() {
            return error_response(StatusCode::FORBIDDEN, "SESSION_FORBIDDEN", "Not allowed to change this session");
        }
        let session_id = q.session_id.unwrap_or_default();
        let mine =
            s.store().upload(&uuid).ok().flatten().filter(|u| u.session_id == session_id && u.owner == actor.name());
        if mine.is_none() {
            return error_response(StatusCode::NOT_FOUND, "UPLOAD_NOT_FOUND", "Upload not found");
        }
        match s.store().delete_upload(&uuid) {
            Ok(_) => axum::response::IntoResponse::into_response(StatusCode::NO_CONTENT),
            Err(_) => error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "UPLOAD_STORAGE_UNAVAILABLE",
                "Upload storage is unavailable",
            ),
        }
    })
    .await
}
