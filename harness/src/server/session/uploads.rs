//! `POST /api/v1/uploads?session_id=<id>[&name=<file name>]` (what visual capture needs, spec
//! operational item 6): the body is the file. Upload type "attention-capture": `image/png` and
//! `image/webp` only, at most 1,048,576 bytes (the visual payload's `media.content_bytes` limit).
//! The MIME type is sniffed from the bytes (PNG signature, RIFF....WEBP), never taken from the
//! `Content-Type` header, and the bytes are then decoded as that type: what does not decode is 422
//! `UPLOAD_NOT_DECODABLE`, an image over the visual limits (2048 x 2048, 4,194,304 pixels; the
//! header is checked before any pixel is decoded) 422 `UPLOAD_DIMENSIONS_EXCEEDED`. The SHA-256 is
//! recorded. A visual attachment naming an upload must declare its decoded `pixel_width` and
//! `pixel_height` (checked at admission, [`super::messages`]). A Session configured to refuse uploads answers
//! 403 `UPLOADS_DISABLED` and stores nothing.
//!
//! `DELETE /api/v1/uploads/{uuid}?session_id=<id>` removes an upload of the caller's session (a
//! removed composer file is cleaned up): 204, or 404 `UPLOAD_NOT_FOUND`.
//!
//! Answers: 201 `{success, upload:{uuid, name, mime, byte_size, sha256:"sha256:<hex>"}}`; 401
//! `UNAUTHENTICATED`; 403 `UPLOADS_DISABLED` / `SESSION_FORBIDDEN`; 404 `SESSION_NOT_FOUND`; 400
//! `EMPTY_UPLOAD`; 413 `UPLOAD_TOO_LARGE`; 415 `UNSUPPORTED_UPLOAD_TYPE`; 422 `UPLOAD_NOT_DECODABLE`,
//! `UPLOAD_DIMENSIONS_EXCEEDED`; 503
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
/// The visual limits (schemas.md §7, `crate::contract::visual`): each side at most 2048 pixels,
/// at most 4,194,304 pixels in all.
pub const MAX_IMAGE_SIDE: u32 = 2048;
pub const MAX_IMAGE_PIXELS: u64 = 4_194_304;

fn format_of(mime: &str) -> Option<image::ImageFormat> {
    match mime {
        "image/png" => Some(image::ImageFormat::Png),
        "image/webp" => Some(image::ImageFormat::WebP),
        _ => None,
    }
}

/// Why an upload's bytes are not an image the Session stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageRefusal {
    /// The bytes do not decode as the sniffed type.
    Undecodable(String),
    /// Decodes (or its header says) beyond the visual limits.
    TooLarge { width: u32, height: u32 },
}

/// The pixel size the header of `bytes` (of type `mime`) declares, without decoding the pixels.
pub fn dimensions(bytes: &[u8], mime: &str) -> Option<(u32, u32)> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
    reader.set_format(format_of(mime)?);
    reader.into_dimensions().ok()
}

/// Decodes `bytes` as `mime` in full and returns the decoded size: refused when the header
/// already declares more than the visual limits (checked before any pixel is allocated), when
/// the pixels do not decode, and when the decoded size is over the limits.
pub fn decode(bytes: &[u8], mime: &str) -> Result<(u32, u32), ImageRefusal> {
    let format = format_of(mime).ok_or_else(|| ImageRefusal::Undecodable(format!("{mime} is not decoded here")))?;
    let within =
        |w: u32, h: u32| w <= MAX_IMAGE_SIDE && h <= MAX_IMAGE_SIDE && u64::from(w) * u64::from(h) <= MAX_IMAGE_PIXELS;
    let (w, h) = dimensions(bytes, mime).ok_or_else(|| ImageRefusal::Undecodable("no readable image header".into()))?;
    if !within(w, h) {
        return Err(ImageRefusal::TooLarge { width: w, height: h });
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
    reader.set_format(format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| ImageRefusal::Undecodable(e.to_string()))?;
    let (w, h) = (img.width(), img.height());
    if !within(w, h) {
        return Err(ImageRefusal::TooLarge { width: w, height: h });
    }
    Ok((w, h))
}

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
    // The first bytes only say what the file claims to be: decode it (issue 25).
    match decode(&body, mime) {
        Ok(_) => {}
        Err(ImageRefusal::Undecodable(_)) => {
            return error_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                "UPLOAD_NOT_DECODABLE",
                "The upload does not decode as the image type it claims",
            )
        }
        Err(ImageRefusal::TooLarge { .. }) => {
            return error_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                "UPLOAD_DIMENSIONS_EXCEEDED",
                "The image exceeds 2048 x 2048 or 4194304 pixels",
            )
        }
    }
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
