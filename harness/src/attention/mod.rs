//! Typed model of what the Attention runtime reports: the `wippy.attention.v1` snapshot (capture,
//! pointer, focus, recent events, candidates with their path of segments, omissions) and the
//! `context_attachments` envelope that carries it. Field names are the wire names of the spec.
//!
//! The structs are `deny_unknown_fields` wherever the Session's schema is strict, so a runtime
//! that invents a member fails to deserialize here as it would fail admission. Deserializing is
//! a typing aid, not the validator: byte limits, string lengths, enums on optional members and
//! cross references are checked by `contract::validate` and `contract::attention_v1::validate_snapshot`.
//! The validator may use this model; the model never calls the validator, not even in its tests
//! (tests/layout.rs holds the layering). It does use `crate::json` (canonical JSON and sha256
//! digests, the strict reader: a leaf that imports nothing of the crate) to seal and verify
//! envelopes.
//!
//! What the runtime reports is read as a [`Reported`]: the typed value, plus the exact JSON the
//! runtime returned, for whatever must see the runtime's own bytes (the validator, goldens, codec
//! round trips, byte sizes). A typed value re-serialized is not that JSON: integers read into
//! `f64` fields come back as `1.0`, an empty `summary` sent as `[]` comes back as `{}`.

use crate::json::canonical::{canonical_json, sha256_prefixed, CanonicalError};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub mod inspect;
pub use inspect::{InspectionResult, NodeRecord, NodeRef, Outcome, Revisions};

/// The `schema` value of a v1 snapshot payload.
pub const SCHEMA_V1: &str = "wippy.attention.v1";
/// Envelope `kind` of semantic Attention attachments.
pub const ATTENTION_KIND: &str = "wippy.attention";
/// Envelope `kind` of approved visual captures.
pub const VISUAL_KIND: &str = "wippy.attention.visual";

/// Canonical JSON writes an empty object as `[]` (an empty Lua table), so a member whose schema
/// is an object with only optional fields (`summary`) arrives as `[]`. Accept both.
fn lua_table<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = Value::deserialize(d)?;
    let v = match v {
        Value::Array(a) if a.is_empty() => Value::Object(Default::default()),
        other => other,
    };
    T::deserialize(v).map_err(serde::de::Error::custom)
}

/// A value the runtime reported: the strict typed model of it, and the JSON it arrived as.
/// Dereferences to the typed value.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported<T> {
    value: T,
    json: Value,
}

impl<T: serde::de::DeserializeOwned> Reported<T> {
    /// Reads `json` strictly as a `T`; on failure, says where (serde's path to the member) and what.
    /// A member whose value is `null` is refused too: the model reads it as absent (`None`), so
    /// accepting it would make "the runtime left this out" and "the runtime sent null" the same.
    pub fn parse(json: Value) -> Result<Reported<T>, ParseError> {
        if let Some(path) = null_member(&json, "") {
            return Err(ParseError {
                path,
                message: "a member is null (the model has no null: leave the member out)".into(),
                json: json.to_string().chars().take(200).collect(),
            });
        }
        match serde_path_to_error::deserialize(&json) {
            Ok(value) => Ok(Reported { value, json }),
            Err(e) => Err(ParseError {
                path: e.path().to_string(),
                message: e.inner().to_string(),
                json: json.to_string().chars().take(200).collect(),
            }),
        }
    }
}

impl<T: serde::de::DeserializeOwned> Reported<T> {
    /// Reads an inspection answer strictly: as [`Reported::parse`], except that `null` is accepted
    /// in the members the inspection contract writes as `X|null` (`parent`, `state`, `resource`,
    /// `layout`, `clip`); the model then requires those members present.
    pub fn parse_inspection(json: Value) -> Result<Reported<T>, ParseError> {
        if let Some(path) = null_member_except(&json, "", &inspect::NULLABLE) {
            return Err(ParseError {
                path,
                message: "a member is null where the inspection contract allows no null".into(),
                json: json.to_string().chars().take(200).collect(),
            });
        }
        match serde_path_to_error::deserialize(&json) {
            Ok(value) => Ok(Reported { value, json }),
            Err(e) => Err(ParseError {
                path: e.path().to_string(),
                message: e.inner().to_string(),
                json: json.to_string().chars().take(200).collect(),
            }),
        }
    }
}

/// The path (`a.b[2].c`) of the first object member whose value is `null`.
fn null_member(v: &Value, at: &str) -> Option<String> {
    null_member_except(v, at, &[])
}

/// The path of the first object member whose value is `null`, members named in `allowed` excepted.
fn null_member_except(v: &Value, at: &str, allowed: &[&str]) -> Option<String> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, v)| {
            let here = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
            if v.is_null() {
                (!allowed.contains(&k.as_str())).then_some(here)
            } else {
                null_member_except(v, &here, allowed)
            }
        }),
        Value::Array(a) => {
            a.iter().enumerate().find_map(|(i, v)| null_member_except(v, &format!("{at}[{i}]"), allowed))
        }
        _ => None,
    }
}

impl<T> Reported<T> {
    /// The JSON exactly as the runtime returned it.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The typed value.
    pub fn value(&self) -> &T {
        &self.value
    }

    pub fn into_parts(self) -> (T, Value) {
        (self.value, self.json)
    }
}

/// Serializes as the JSON the runtime returned (what goes back to the runtime or the Session).
impl<T> Serialize for Reported<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

impl<T> std::ops::Deref for Reported<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// Why a reported value is not the model's type: serde's path to the failing member, its
/// message, and the first 200 characters of the JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at `{path}`: {message} (JSON starts {json})")]
pub struct ParseError {
    pub path: String,
    pub message: String,
    pub json: String,
}

/// A `wippy.attention.v1` payload (also the v4 reconstruction, which may add `selection`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub schema: String,
    pub snapshot_id: String,
    pub host_instance_id: String,
    pub mount_generation: u64,
    pub created_at: String,
    pub coordinate_space: CoordinateSpace,
    pub capture: Capture,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<ObservedEvent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Focus>,
    /// Only in a v4 reconstruction; a stored v1 payload with `selection` is invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
    pub recent_events: Vec<ObservedEvent>,
    pub candidates: Vec<Candidate>,
    pub omissions: Vec<Omission>,
}

impl Snapshot {
    /// The payload as JSON (optional members left out).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("snapshot serializes")
    }

    /// Canonical JSON of the payload: the bytes an attachment's `content` must hold.
    pub fn canonical(&self) -> Result<String, CanonicalError> {
        canonical_json(&self.to_value())
    }

    /// Seal as a `wippy.attention` v1 envelope.
    pub fn seal(&self, attachment_id: &str, created_at: &str) -> Result<Envelope, CanonicalError> {
        Envelope::seal(attachment_id, ATTENTION_KIND, 1, created_at, &self.to_value())
    }
}

/// `coordinate_space`: the Host viewport in CSS pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinateSpace {
    /// Always `"host-viewport"`.
    pub kind: String,
    pub width: f64,
    pub height: f64,
    pub device_pixel_ratio: f64,
}

/// The sampled neighbourhood around the latest pointer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capture {
    pub radius_css_px: f64,
    pub grid_step_css_px: f64,
    pub sampled_points: u32,
    pub points: Vec<Point>,
    pub duration_ms: f64,
    pub complete: bool,
}

/// One query point of the capture lattice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub point_id: String,
    pub x: f64,
    pub y: f64,
}

/// A bare `{x, y}` in Host-viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Xy {
    pub x: f64,
    pub y: f64,
}

/// Trusted input types the Host records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventType {
    Pointermove,
    Pointerdown,
    Pointerup,
    Click,
    Touchstart,
    Touchend,
}

impl EventType {
    /// Everything but `pointermove` is a discrete event (projection ranks those first).
    pub fn is_discrete(self) -> bool {
        self != EventType::Pointermove
    }

    /// The wire name (`pointermove`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Pointermove => "pointermove",
            EventType::Pointerdown => "pointerdown",
            EventType::Pointerup => "pointerup",
            EventType::Click => "click",
            EventType::Touchstart => "touchstart",
            EventType::Touchend => "touchend",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PointerType {
    Mouse,
    Pen,
    Touch,
    Unknown,
}

impl PointerType {
    /// The wire name (`mouse`, `pen`, `touch`, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            PointerType::Mouse => "mouse",
            PointerType::Pen => "pen",
            PointerType::Touch => "touch",
            PointerType::Unknown => "unknown",
        }
    }
}

/// `pointer` and each `recent_events` item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedEvent {
    pub event_id: String,
    pub sequence: u64,
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub observed_at: String,
    pub realm_time_ms: f64,
    pub point: Xy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_type: Option<PointerType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_capture: Option<bool>,
    pub candidate_ids: Vec<String>,
}

/// Current focus: a separate object, not a pointer event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Focus {
    pub event_id: String,
    pub sequence: u64,
    pub focused_at: String,
    pub realm_time_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_id: Option<String>,
    pub path: Vec<Segment>,
    #[serde(deserialize_with = "lua_table")]
    pub summary: Summary,
}

/// A sampled target: deduplicated by identity, with every sample that found it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    pub target_id: String,
    pub path: Vec<Segment>,
    pub rect: Rect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_rect: Option<Rect>,
    pub sample_point_ids: Vec<String>,
    pub occluded: bool,
    #[serde(deserialize_with = "lua_table")]
    pub summary: Summary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_ref: Option<ActionRef>,
}

/// Realm kinds a path segment may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SegmentKind {
    Host,
    Panel,
    Artifact,
    Page,
    Iframe,
    WebFragment,
    WebComponent,
    ShadowRoot,
    Element,
}

impl SegmentKind {
    /// The wire name (`web-fragment`, `shadow-root`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SegmentKind::Host => "host",
            SegmentKind::Panel => "panel",
            SegmentKind::Artifact => "artifact",
            SegmentKind::Page => "page",
            SegmentKind::Iframe => "iframe",
            SegmentKind::WebFragment => "web-fragment",
            SegmentKind::WebComponent => "web-component",
            SegmentKind::ShadowRoot => "shadow-root",
            SegmentKind::Element => "element",
        }
    }
}

/// One realm or element on the path from the Host to the final element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub kind: SegmentKind,
    pub mount_id: String,
    pub generation: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector_hint: Option<String>,
    /// `about:srcdoc` or a bare `http(s)://host[:port]` origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_rect: Option<Rect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_to_parent: Option<Transform>,
    /// `exact` or `approximate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinate_quality: Option<String>,
}

/// `local_to_parent`: a DOMMatrix in column-major order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transform {
    pub matrix: Vec<f64>,
    /// `dommatrix-column-major`.
    pub convention: String,
    /// `local-to-parent`.
    pub direction: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Bounded accessibility summary. `state` values are booleans, finite numbers or strings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<BTreeMap<String, Value>>,
}

/// Which contributor produced the geometry and the runtime data of a candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// `document` or `physical-host`.
    pub geometry_source: String,
    /// `document`, `iframe-realm` or `fragment-realm`.
    pub runtime_source: String,
}

/// Immutable target reference an agent copies verbatim into an action's `targets`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRef {
    pub snapshot_id: String,
    pub target_id: String,
    pub host_instance_id: String,
    pub mount_id: String,
    pub generation: u64,
    pub path_digest: String,
    pub rect: Rect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OmissionReason {
    CandidateBudget,
    CapabilityUnavailable,
    ChildDisconnected,
    ChildTimeout,
    Clipped,
    DepthLimit,
    Excluded,
    Navigation,
    NonInvertibleTransform,
    Occluded,
    PointBudget,
    QueryBudget,
    Redacted,
    ResponseBudget,
    RuntimeMetadataUnavailable,
    SelectionDetached,
    SelectionExcluded,
    SelectionRedacted,
    SelectionUnavailable,
    StaleMount,
    UnsupportedTransform,
    UnsupportedBoundary,
}

impl std::fmt::Display for OmissionReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl OmissionReason {
    /// The wire name (`selection-excluded`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            OmissionReason::CandidateBudget => "candidate-budget",
            OmissionReason::CapabilityUnavailable => "capability-unavailable",
            OmissionReason::ChildDisconnected => "child-disconnected",
            OmissionReason::ChildTimeout => "child-timeout",
            OmissionReason::Clipped => "clipped",
            OmissionReason::DepthLimit => "depth-limit",
            OmissionReason::Excluded => "excluded",
            OmissionReason::Navigation => "navigation",
            OmissionReason::NonInvertibleTransform => "non-invertible-transform",
            OmissionReason::Occluded => "occluded",
            OmissionReason::PointBudget => "point-budget",
            OmissionReason::QueryBudget => "query-budget",
            OmissionReason::Redacted => "redacted",
            OmissionReason::ResponseBudget => "response-budget",
            OmissionReason::RuntimeMetadataUnavailable => "runtime-metadata-unavailable",
            OmissionReason::SelectionDetached => "selection-detached",
            OmissionReason::SelectionExcluded => "selection-excluded",
            OmissionReason::SelectionRedacted => "selection-redacted",
            OmissionReason::SelectionUnavailable => "selection-unavailable",
            OmissionReason::StaleMount => "stale-mount",
            OmissionReason::UnsupportedTransform => "unsupported-transform",
            OmissionReason::UnsupportedBoundary => "unsupported-boundary",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureCode {
    ByteLimit,
    CaptureUnavailable,
    DimensionLimit,
    Disabled,
    EncodeFailed,
    PermissionDenied,
    PixelLimit,
    PrivacyExcluded,
    RedactionApplied,
    StaleTarget,
    StoreFailed,
    Timeout,
}

/// An explicit record of something the snapshot does not contain, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Omission {
    pub reason: OmissionReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_code: Option<CaptureCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A text selection (v4 reconstruction only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    pub selection_id: String,
    pub selected_at: String,
    pub kind: String,
    pub collapsed: bool,
    pub direction: String,
    pub text: String,
    pub anchor_path: Vec<Segment>,
    pub focus_path: Vec<Segment>,
    pub ranges: Vec<SelectionRange>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionRange {
    pub rect: Rect,
    /// `"host-viewport"` or `{mount_id, generation}`.
    pub coordinate_space: Value,
}

/// One entry of `session_message.data.context_attachments`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub attachment_id: String,
    pub kind: String,
    pub version: u64,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    pub content_type: String,
    pub content_bytes: u64,
    pub content_hash: String,
    /// Canonical JSON of the payload.
    pub content: String,
}

/// Why [`Envelope::verify`] refused an envelope; each maps to the Session's code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("content_bytes {declared} does not match the content length {actual}")]
    ContentSizeMismatch { declared: u64, actual: usize },
    #[error("content_hash must be sha256: followed by 64 lowercase hex digits")]
    InvalidContentHash,
    #[error("content_hash {declared} does not match {actual}")]
    ContentHashMismatch { declared: String, actual: String },
    #[error("content is not JSON: {0}")]
    InvalidJson(String),
    #[error("content has no canonical form: {0}")]
    NoCanonicalForm(CanonicalError),
    #[error("content is not canonical JSON")]
    NoncanonicalContent,
}

impl EnvelopeError {
    /// The Session validator code for this failure.
    pub fn code(&self) -> &'static str {
        match self {
            EnvelopeError::ContentSizeMismatch { .. } => "content-size-mismatch",
            EnvelopeError::InvalidContentHash => "invalid-content-hash",
            EnvelopeError::ContentHashMismatch { .. } => "content-hash-mismatch",
            EnvelopeError::InvalidJson(_) | EnvelopeError::NoCanonicalForm(_) => "invalid-json",
            EnvelopeError::NoncanonicalContent => "noncanonical-content",
        }
    }
}

impl Envelope {
    /// Build an envelope around `payload`: canonical content, its byte length and digest.
    pub fn seal(
        attachment_id: impl Into<String>,
        kind: impl Into<String>,
        version: u64,
        created_at: impl Into<String>,
        payload: &Value,
    ) -> Result<Envelope, CanonicalError> {
        let content = canonical_json(payload)?;
        Ok(Envelope {
            attachment_id: attachment_id.into(),
            kind: kind.into(),
            version,
            created_at: created_at.into(),
            expires_at: None,
            content_type: "application/json".into(),
            content_bytes: content.len() as u64,
            content_hash: sha256_prefixed(content.as_bytes()),
            content,
        })
    }

    /// Check the content integrity rules, in the Session's order (size, hash format, hash,
    /// JSON, canonical form), and return the decoded payload.
    pub fn verify(&self) -> Result<Value, EnvelopeError> {
        if self.content.len() as u64 != self.content_bytes {
            return Err(EnvelopeError::ContentSizeMismatch {
                declared: self.content_bytes,
                actual: self.content.len(),
            });
        }
        let h = self.content_hash.as_bytes();
        if h.len() != 71 || !self.content_hash.starts_with("sha256:") || !h[7..].iter().all(|b| b.is_ascii_hexdigit()) {
            return Err(EnvelopeError::InvalidContentHash);
        }
        let actual = sha256_prefixed(self.content.as_bytes());
        if actual != self.content_hash {
            return Err(EnvelopeError::ContentHashMismatch { declared: self.content_hash.clone(), actual });
        }
        let payload: Value =
            crate::json::strict::parse(&self.content).map_err(|e| EnvelopeError::InvalidJson(e.to_string()))?;
        let canonical = canonical_json(&payload).map_err(EnvelopeError::NoCanonicalForm)?;
        if canonical != self.content {
            return Err(EnvelopeError::NoncanonicalContent);
        }
        Ok(payload)
    }

    /// [`verify`](Self::verify), then deserialize the payload as a v1 [`Snapshot`].
    pub fn snapshot(&self) -> Result<Snapshot, anyhow::Error> {
        let payload = self.verify()?;
        Ok(serde_json::from_value(payload)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../fixtures/contract/spec-v1-envelope.json");

    #[test]
    fn spec_v1_fixture_verifies() {
        let arr: Vec<Envelope> = serde_json::from_str(FIXTURE).unwrap();
        let env = &arr[0];
        assert_eq!(env.content_bytes, 752);
        assert_eq!(env.content.len(), 752);
        assert_eq!(env.content_hash, "sha256:5f3351c84704bdd064d1da1cd4c2dc16ce5be1b521c0c86051cd7824177d895c");
        let payload = env.verify().expect("fixture verifies");
        assert_eq!(payload["snapshot_id"], "snapshot-1");
        let snap = env.snapshot().unwrap();
        assert_eq!(snap.candidates[0].path[1].kind, SegmentKind::Element);
        assert_eq!(snap.candidates[0].path[1].generation, 1);
        // Typed round trip gives the same canonical bytes.
        assert_eq!(snap.canonical().unwrap(), env.content);
        assert_eq!(snap.seal("attachment-1", "2026-09-04T12:00:00.000Z").unwrap(), *env);
    }

    #[test]
    fn verify_reports_each_integrity_failure() {
        let arr: Vec<Envelope> = serde_json::from_str(FIXTURE).unwrap();
        let mut e = arr[0].clone();
        e.content_bytes = 751;
        assert_eq!(e.verify().unwrap_err().code(), "content-size-mismatch");
        let mut e = arr[0].clone();
        e.content_hash = e.content_hash.to_uppercase().replace("SHA256", "sha256");
        assert_eq!(e.verify().unwrap_err().code(), "content-hash-mismatch");
        let mut e = arr[0].clone();
        e.content_hash.push('0');
        assert_eq!(e.verify().unwrap_err().code(), "invalid-content-hash");
        let e = Envelope::seal("a", "x", 1, "2026-09-04T12:00:00Z", &serde_json::json!({"a": 1})).unwrap();
        let mut bad = e.clone();
        bad.content = "{\"a\":1.0}".into();
        bad.content_bytes = bad.content.len() as u64;
        bad.content_hash = sha256_prefixed(bad.content.as_bytes());
        assert_eq!(bad.verify().unwrap_err().code(), "noncanonical-content");
    }

    #[test]
    fn wire_names_are_serde_names() {
        use SegmentKind as K;
        for k in [
            K::Host,
            K::Panel,
            K::Artifact,
            K::Page,
            K::Iframe,
            K::WebFragment,
            K::WebComponent,
            K::ShadowRoot,
            K::Element,
        ] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        use EventType as E;
        for t in [E::Pointermove, E::Pointerdown, E::Pointerup, E::Click, E::Touchstart, E::Touchend] {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
        for t in [PointerType::Mouse, PointerType::Pen, PointerType::Touch, PointerType::Unknown] {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
    }

    #[test]
    fn reported_keeps_the_json_and_names_what_failed() {
        let json = serde_json::json!({"x": 1, "y": 2});
        let xy: Reported<Xy> = Reported::parse(json.clone()).unwrap();
        assert_eq!((xy.x, xy.y), (1.0, 2.0));
        // The runtime's JSON, not a re-serialization (which would say 1.0).
        assert_eq!(xy.json(), &json);
        assert_ne!(&serde_json::to_value(xy.value()).unwrap(), &json);
        let e = Reported::<Candidate>::parse(
            serde_json::json!({"target_id": "t", "rect": {"x": 0, "y": 0, "width": 1, "height": 1, "z": 0}}),
        )
        .unwrap_err();
        assert!(e.path.contains("rect") && e.message.contains("z"), "{e}");
        let e = Reported::<Summary>::parse(serde_json::json!({"role": "button", "name": null})).unwrap_err();
        assert_eq!(e.path, "name");
    }

    #[test]
    fn empty_summary_is_an_empty_table() {
        let c: Candidate = serde_json::from_value(serde_json::json!({
            "target_id": "t", "path": [{"kind": "host", "mount_id": "h", "generation": 0}],
            "rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "sample_point_ids": ["p0"],
            "occluded": false, "summary": []
        }))
        .unwrap();
        assert_eq!(c.summary, Summary::default());
    }
}
