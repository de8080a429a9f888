//! The Session's attachment contract: canonical JSON, envelope and payload validation, v1-v4 codecs,
//! model projection and delivery choice, exactly as the Session and Framework implement them.
//!
//! Sources: `../shared/reference/schemas.md` (ported from the public Session validator
//! `context_attachments.lua` and the Framework codec / renderer) and the prose contract in
//! `../shared/spec/attention-context-reference.txt`. Where the two disagree the spec's text wins;
//! each such case is noted in the module that resolves it (`validate`, `spec_rules`, `codec`).
//!
//! Entry points: [`canonical::canonical_json`], [`canonical::sha256_prefixed`],
//! [`canonical::path_digest`] / [`canonical::path_digest_matches`], [`validate::validate`] with
//! [`validate::ValidateOptions`], [`codec::encode`] / [`codec::expand`], [`projection::project`],
//! [`delivery::choose_delivery`] / [`delivery::SessionCapabilities`], and the CLI in [`cli`].

pub mod attention_v1;
pub mod cli;
pub mod codec;
pub mod delivery;
pub mod model_read;
pub mod projection;
pub mod spec_rules;
pub mod validate;
pub mod visual;

// Canonical JSON, the strict reader and the Lua view live below the typed model (`crate::json`); the
// contract's rules are written in them, and they stay part of its surface under their old names.
pub use crate::json::strict as json;
pub use crate::json::{canonical, lua};

pub use canonical::{canonical_json, path_digest, path_digest_matches, sha256_prefixed, CanonicalError};
pub use lua::Timestamp;
pub use validate::{validate, Admitted, Code, Disposition, ValidateOptions, ValidationError};
