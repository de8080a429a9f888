//! Message delivery choices the Host makes before sending (spec "Message delivery" and
//! "Session capability descriptor"): inline versus staged transport from the size of the
//! complete encoded command, and whether a Session supports Attention at all, from its
//! `wippy.session.capabilities.v1` descriptor.
//!
//! Command size: the spec measures "the complete encoded UTF-8 command, including text, files,
//! envelope and runtime context". The Host encodes it with `JSON.stringify`; we measure the same
//! compact encoding with `serde_json::to_string` (identical length for any parsed JSON: no
//! whitespace, the same escapes for quotes, backslashes and control characters, raw non-ASCII).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest command that is still sent inline (exactly 32,768 bytes fits).
pub const MAX_INLINE_COMMAND_BYTES: usize = 32_768;

/// How a message with context attachments travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// `context_attachments` inside the WebSocket command.
    Inline,
    /// `POST /api/v1/sessions/context`, then a one-use `context_attachments_ref`.
    Staged,
}

/// Choose from the byte length of the complete encoded command.
pub fn choose_delivery(encoded_command_len: usize) -> Delivery {
    if encoded_command_len <= MAX_INLINE_COMMAND_BYTES {
        Delivery::Inline
    } else {
        Delivery::Staged
    }
}

/// Choose for a command value, measured as compact JSON.
pub fn choose_delivery_for(command: &Value) -> Delivery {
    choose_delivery(serde_json::to_string(command).map(|s| s.len()).unwrap_or(usize::MAX))
}

/// The staged transport's request body and the reference the message then carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedContext {
    /// `POST /api/v1/sessions/context` body: must equal the canonical JSON of the array, or the
    /// Session answers 422 `NONCANONICAL_CONTEXT`.
    pub body: String,
    /// `"sha256:"` + hex of `body`: the `content_hash` of the `context_attachments_ref`.
    pub content_hash: String,
    /// Byte length of `body` (2..=32768 for an accepted stage).
    pub content_bytes: usize,
}

impl StagedContext {
    /// Prepare the staging body for an attachments array.
    pub fn new(attachments: &Value) -> Result<StagedContext, crate::contract::CanonicalError> {
        let body = crate::contract::canonical_json(attachments)?;
        Ok(StagedContext {
            content_hash: crate::contract::sha256_prefixed(body.as_bytes()),
            content_bytes: body.len(),
            body,
        })
    }

    /// The strict `context_attachments_ref` object for the stage id the Session returned.
    pub fn reference(&self, id: &str) -> Value {
        serde_json::json!({"version": 1, "id": id, "content_hash": self.content_hash, "content_bytes": self.content_bytes})
    }

    /// Whether the body fits the staging limit (the same 32,768 bytes as inline commands).
    pub fn fits(&self) -> bool {
        (2..=MAX_INLINE_COMMAND_BYTES).contains(&self.content_bytes)
    }
}

/// `capabilities.attention.context_attachments.handlers[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handler {
    pub kind: String,
    #[serde(default)]
    pub versions: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextAttachmentsCapability {
    #[serde(default)]
    pub transport: u64,
    #[serde(default)]
    pub staging: bool,
    #[serde(default)]
    pub max_context_bytes: u64,
    #[serde(default)]
    pub handlers: Vec<Handler>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionCapability {
    #[serde(default)]
    pub context: u64,
    #[serde(default)]
    pub browser_operations: u64,
    #[serde(default)]
    pub context_attachments: Option<ContextAttachmentsCapability>,
}

/// `wippy.session.capabilities.v1`. Not strict: newer Sessions may add members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCapabilities {
    pub schema: String,
    #[serde(default)]
    pub message_receipt: u64,
    #[serde(default)]
    pub steering: u64,
    #[serde(default)]
    pub attention: Option<AttentionCapability>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilitiesError {
    #[error("capability descriptor is not JSON of the expected shape: {0}")]
    Shape(String),
    #[error("unexpected capability schema “{0}”")]
    Schema(String),
}

impl SessionCapabilities {
    /// Parse the 200 body `{success:true, capabilities:{…}}` or a bare descriptor.
    pub fn parse(body: &Value) -> Result<SessionCapabilities, CapabilitiesError> {
        let inner = body.get("capabilities").unwrap_or(body);
        let caps: SessionCapabilities =
            serde_json::from_value(inner.clone()).map_err(|e| CapabilitiesError::Shape(e.to_string()))?;
        if caps.schema != "wippy.session.capabilities.v1" {
            return Err(CapabilitiesError::Schema(caps.schema));
        }
        Ok(caps)
    }

    /// Attention is supported when `attention.context >= 1` and
    /// `attention.browser_operations >= 1`.
    pub fn attention_supported(&self) -> bool {
        self.attention.as_ref().is_some_and(|a| a.context >= 1 && a.browser_operations >= 1)
    }

    /// Whether the Session's renderer reports `kind` at `version`.
    pub fn supports(&self, kind: &str, version: u64) -> bool {
        self.attention
            .as_ref()
            .and_then(|a| a.context_attachments.as_ref())
            .is_some_and(|c| c.handlers.iter().any(|h| h.kind == kind && h.versions.contains(&version)))
    }

    /// The full decision the Host makes.
    pub fn decide(&self) -> AttentionSupport {
        let supported = self.attention_supported();
        let versions = |kind: &str| -> Vec<u64> {
            let mut v: Vec<u64> = self
                .attention
                .as_ref()
                .and_then(|a| a.context_attachments.as_ref())
                .map(|c| c.handlers.iter().filter(|h| h.kind == kind).flat_map(|h| h.versions.clone()).collect())
                .unwrap_or_default();
            v.sort_unstable();
            v.dedup();
            v
        };
        let attention_versions = versions(crate::attention::ATTENTION_KIND);
        let visual_versions = versions(crate::attention::VISUAL_KIND);
        AttentionSupport {
            supported,
            // The newest compact version both sides know (the Host writes v4 today).
            attention_version: if supported {
                attention_versions.iter().copied().filter(|v| (1..=4).contains(v)).max()
            } else {
                None
            },
            visual: supported && visual_versions.contains(&1),
            staging: self.attention.as_ref().and_then(|a| a.context_attachments.as_ref()).is_some_and(|c| c.staging),
            attention_versions,
        }
    }
}

/// What the Host may send to this Session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttentionSupport {
    /// `runtime_context` and pointing context may be sent.
    pub supported: bool,
    /// `wippy.attention` versions the Session renders.
    pub attention_versions: Vec<u64>,
    /// The version the Host should write (`None`: no Attention attachment may be sent).
    pub attention_version: Option<u64>,
    /// `wippy.attention.visual` v1 accepted.
    pub visual: bool,
    /// Staged transport available.
    pub staging: bool,
}

/// Decide from an HTTP answer: 404 is a Session release without the endpoint, i.e. no Attention.
pub fn decide_from_response(status: u16, body: &Value) -> AttentionSupport {
    let none = AttentionSupport {
        supported: false,
        attention_versions: vec![],
        attention_version: None,
        visual: false,
        staging: false,
    };
    if status != 200 {
        return none;
    }
    SessionCapabilities::parse(body).map(|c| c.decide()).unwrap_or(none)
}
