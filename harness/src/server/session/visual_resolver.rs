//! The prompt-time `visual_resolver` (spec "Optional visual capture": "When a later prompt is
//! built, the framework emits the image only when the authorized visual_resolver returns bytes that
//! pass the same checks. Otherwise it omits the image with a diagnostic"; schemas.md §7
//! "Rendering"). For each stored `wippy.attention.visual` v1 attachment of a message it reads the
//! referenced upload again and re-verifies, at time of use: the upload exists in the message's
//! session, the authorization has not expired, the bytes really are the declared type (sniffed),
//! their length is `media.content_bytes` and their SHA-256 is `media.content_hash`.

use serde_json::Value;

use super::store::StoreError;
use super::SessionService;
use crate::attention::VISUAL_KIND;
use crate::contract::sha256_prefixed;

/// What the model would receive for one visual attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VisualDelivery {
    /// The approved image, re-verified.
    Image { attachment_id: String, content_type: String, bytes: Vec<u8>, pixel_width: u64, pixel_height: u64 },
    /// Not emitted; `diagnostic` says why (the semantic parts of the message still render).
    Omitted { attachment_id: String, diagnostic: String },
}

/// As a message names it: `image a1 (image/png 320x200, 5120 bytes)`, `omitted a1: why`.
impl std::fmt::Display for VisualDelivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VisualDelivery::Image { attachment_id, content_type, bytes, pixel_width, pixel_height } => {
                write!(f, "image {attachment_id} ({content_type} {pixel_width}x{pixel_height}, {} bytes)", bytes.len())
            }
            VisualDelivery::Omitted { attachment_id, diagnostic } => write!(f, "omitted {attachment_id}: {diagnostic}"),
        }
    }
}

impl SessionService {
    /// The visual deliveries of a stored message, in attachment order.
    pub fn resolve_visuals(&self, message_id: &str) -> Result<Vec<VisualDelivery>, StoreError> {
        let Some(message) = self.store().message(message_id)? else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for a in message.attachments.iter().filter(|a| a.kind == VISUAL_KIND && a.version == 1) {
            let omitted =
                |d: &str| VisualDelivery::Omitted { attachment_id: a.attachment_id.clone(), diagnostic: d.to_string() };
            let payload: Value = serde_json::from_str::<Value>(&a.envelope)
                .ok()
                .and_then(|e| e["content"].as_str().and_then(|c| serde_json::from_str(c).ok()))
                .unwrap_or(Value::Null);
            let media = &payload["media"];
            let Some(uuid) = payload.pointer("/reference/opaque_id").and_then(Value::as_str) else {
                out.push(omitted("visual-reference-invalid: no upload reference"));
                continue;
            };
            let expires = payload
                .pointer("/authorization/expires_at")
                .and_then(Value::as_str)
                .and_then(crate::contract::Timestamp::parse_session);
            let now = self.now_timestamp();
            if expires.is_none_or(|e| (e.secs, e.nanos) <= (now.secs, now.nanos)) {
                out.push(omitted("visual-authorization-expired"));
                continue;
            }
            let upload = match self.store().upload(uuid)? {
                Some(u) if u.session_id == message.session_id => u,
                _ => {
                    out.push(omitted("visual-reference-invalid: the upload is missing"));
                    continue;
                }
            };
            let declared = media["content_type"].as_str().unwrap_or_default();
            if super::uploads::sniff(&upload.bytes) != Some(declared) || upload.mime != declared {
                out.push(omitted("visual-reference-invalid: the stored bytes are not the declared type"));
            } else if media["content_bytes"].as_u64() != Some(upload.bytes.len() as u64) {
                out.push(omitted("visual-reference-invalid: the stored size differs from the declared size"));
            } else if media["content_hash"].as_str() != Some(sha256_prefixed(&upload.bytes).as_str()) {
                out.push(omitted("visual-reference-integrity-mismatch"));
            } else if super::uploads::decode(&upload.bytes, declared).ok().map(|(w, h)| (u64::from(w), u64::from(h)))
                != media["pixel_width"].as_u64().zip(media["pixel_height"].as_u64())
            {
                out.push(omitted("visual-reference-integrity-mismatch: the image is not the declared pixel size"));
            } else {
                out.push(VisualDelivery::Image {
                    attachment_id: a.attachment_id.clone(),
                    content_type: declared.to_string(),
                    bytes: upload.bytes,
                    pixel_width: media["pixel_width"].as_u64().unwrap_or_default(),
                    pixel_height: media["pixel_height"].as_u64().unwrap_or_default(),
                });
            }
        }
        Ok(out)
    }

    /// Tests: replaces an upload's stored bytes (a tampered file the resolver must refuse).
    pub fn overwrite_upload_bytes(&self, uuid: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        self.store().overwrite_upload_bytes(uuid, bytes)
    }
}
