//! The `wippy.attention.visual` v1 payload (`validate_visual` in the Session) and the caller
//! hooks the validator uses to authorize and re-verify the uploaded image it references.

use super::attention_v1::{is_digest, is_rect};
use super::lua::*;
use serde_json::Value;
use std::collections::HashSet;

pub const VISUAL_SCHEMA: &str = "wippy.attention.visual.v1";
pub const VISUAL_MAX_BYTES: f64 = 1_048_576.0;
pub const VISUAL_MAX_DIMENSION: f64 = 2048.0;
pub const VISUAL_MAX_PIXELS: f64 = 4_194_304.0;

/// What the Session hands to the authorizer and the resolver: the payload's `reference`,
/// `authorization` and `media` objects.
#[derive(Debug, Clone, PartialEq)]
pub struct VisualRequest {
    pub reference: Value,
    pub authorization: Value,
    pub media: Value,
}

/// Bytes a resolver returns for a visual reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedMedia {
    pub content_type: String,
    pub data: Vec<u8>,
}

/// Decides whether the reference may be used in this session. Only `Ok(true)` authorizes;
/// `Ok(false)` and `Err` (the Lua authorizer throwing) both give `visual-reference-unauthorized`.
pub trait VisualAuthorizer {
    fn authorize(&self, request: &VisualRequest) -> Result<bool, String>;
}

impl<F: Fn(&VisualRequest) -> Result<bool, String>> VisualAuthorizer for F {
    fn authorize(&self, request: &VisualRequest) -> Result<bool, String> {
        self(request)
    }
}

/// Reads the referenced upload. `Ok(None)` or `Err` mean the data is missing.
pub trait VisualResolver {
    fn resolve(&self, request: &VisualRequest) -> Result<Option<ResolvedMedia>, String>;
}

impl<F: Fn(&VisualRequest) -> Result<Option<ResolvedMedia>, String>> VisualResolver for F {
    fn resolve(&self, request: &VisualRequest) -> Result<Option<ResolvedMedia>, String> {
        self(request)
    }
}

/// `validate_visual(payload)`: the schema, including `authorization.expires_at ==
/// payload.expires_at`. The envelope `expires_at` equality is checked by the caller.
pub fn validate_visual(payload: &Value) -> bool {
    let p = Some(payload);
    let ok = only_keys(
        p,
        &[
            "schema",
            "capture_id",
            "snapshot_id",
            "host_instance_id",
            "created_at",
            "expires_at",
            "candidate_ids",
            "region",
            "media",
            "reference",
            "authorization",
            "redactions_applied",
        ],
    ) && as_str(get(p, "schema")) == Some(VISUAL_SCHEMA)
        && is_string(get(p, "capture_id"), 160, false)
        && is_string(get(p, "snapshot_id"), 160, false)
        && is_string(get(p, "host_instance_id"), 160, false)
        && is_timestamp(get(p, "created_at"))
        && is_timestamp(get(p, "expires_at"))
        && bounded_array(get(p, "candidate_ids"), 128, 1)
        && is_rect(get(p, "region"))
        && is_integer(get(p, "redactions_applied"), 0.0, 4096.0);
    if !ok {
        return false;
    }
    let mut seen = HashSet::new();
    if !items(get(p, "candidate_ids")).iter().all(|id| is_string(Some(id), 160, false) && seen.insert(id.as_str())) {
        return false;
    }
    let media = get(p, "media");
    let w = num(get(media, "pixel_width")).unwrap_or(0.0);
    let h = num(get(media, "pixel_height")).unwrap_or(0.0);
    let media_ok = only_keys(media, &["content_type", "content_bytes", "content_hash", "pixel_width", "pixel_height"])
        && matches!(as_str(get(media, "content_type")), Some("image/png" | "image/webp"))
        && is_integer(get(media, "content_bytes"), 1.0, VISUAL_MAX_BYTES)
        && is_digest(get(media, "content_hash"))
        && is_integer(get(media, "pixel_width"), 1.0, VISUAL_MAX_DIMENSION)
        && is_integer(get(media, "pixel_height"), 1.0, VISUAL_MAX_DIMENSION)
        && w * h <= VISUAL_MAX_PIXELS;
    if !media_ok {
        return false;
    }
    let reference = get(p, "reference");
    let auth = get(p, "authorization");
    only_keys(reference, &["kind", "opaque_id"])
        && as_str(get(reference, "kind")) == Some("upload")
        && is_string(get(reference, "opaque_id"), 160, false)
        && only_keys(auth, &["scope", "session_id", "audience", "expires_at"])
        && as_str(get(auth, "scope")) == Some("session")
        && is_string(get(auth, "session_id"), 160, false)
        && as_str(get(auth, "audience")) == Some("agent-context")
        && is_timestamp(get(auth, "expires_at"))
        && get(auth, "expires_at") == get(p, "expires_at")
}
