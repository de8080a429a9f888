//! Visual capture (spec "Optional visual capture", "Privacy and security"; schemas.md §7): the
//! harness is the embedder that makes pixels for the Host's approved `ui_action_capture_visual`.
//! `limits` holds §7's exact limits, `privacy` which elements are never shown, `encode` the
//! redaction fill and the PNG / WebP encoders, `geometry` where Chromium has the approved target,
//! `provider` the CDP binding the Host realm calls.

pub mod encode;
pub mod geometry;
pub mod limits;
pub mod privacy;
pub mod provider;

pub use encode::Format;
pub use provider::{CaptureProvider, CaptureRecord, ProviderConfig, Redaction, Refusal};
