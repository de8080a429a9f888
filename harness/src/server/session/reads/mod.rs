//! The agent's Attention reads through the reference Session (spec "Canonical inspection and agent
//! tools"; schemas.md §8; relay.md Part 2): a read tool call passes the guard ([`guard`]), its
//! arguments are normalized ([`args`]), and it goes to the bound Host tab as a private inspection
//! request on the UI action route (the broker's `mode: "inspect"`, the same binding, delivery
//! handle and connection checks as actions, expiring 2 s after it is sent). The Host answers from
//! `window.wippyAttention.inspect` (pages/host/reads.js); the broker accepts only an `inspection`
//! of at most 98,304 canonical bytes with a known outcome and integer revisions and at most 32
//! target refs on the same host ([`super::inspection::accept_inspection`]), and the Session
//! persists only the `wippy.attention.model.v1` projection in its private history ([`history`]).
//! What the model sees for a turn is [`view::model_view`]. `attention_context_set` is
//! [`context_set`].
//!
//! Reads are not exclusive: at most [`super::inspection::MAX_PENDING_PER_SESSION`] pending per
//! session and [`super::inspection::MAX_PENDING_OVERALL`] in all; more ends `unavailable` "read
//! capacity reached" without reaching the Host.

pub mod args;
pub mod context_set;
pub mod guard;
pub mod history;
pub mod view;

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::contract::canonical::canonical_json;
use crate::contract::model_read::{self, ModelRead};

pub use args::{ArgError, ReadTool};
pub use guard::GuardReason;
use history::{Finished, History};

use super::inspection::INSPECT_EXPIRY_MS;
use super::ui_actions::{ActionCall, Mode};
use super::SessionService;

/// relay.md: the tool waits 3 s for a read, then cancels.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(3);

/// A browser action completed on the Host (the broker accepted its Host result): reads received
/// before now go stale, and the duplicate rule admits a repeated read.
pub(crate) fn browser_action_completed(s_: &SessionService, session_id: &str) {
    if let Err(e) = (History { store: s_.store() }).add_event(session_id, "action", s_.now_ms()) {
        tracing::warn!("read history: cannot record a completed action of {session_id}: {e}");
    }
}

/// Where a read runs: the turn's route (from `bind_turn`) and the model's batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadCtx {
    pub session_id: String,
    pub delivery_handle: String,
    pub host_instance_id: String,
    pub batch_id: String,
}

/// One read tool call as the model wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCall {
    pub call_id: String,
    pub tool: ReadTool,
    pub args: Value,
}

/// Why a read was refused before it reached the Host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RejectReason {
    Guard(GuardReason),
    Invalid(ArgError),
}

impl std::fmt::Display for RejectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RejectReason {
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::Guard(g) => g.as_str(),
            RejectReason::Invalid(a) => a.as_str(),
        }
    }
}

/// The typed end of one read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadOutcome {
    /// The Host answered and the broker accepted it: the stored model.v1 result.
    Inspected(Box<ModelRead>),
    /// The guard or the argument rules refused it; the refusal receipt as stored.
    Rejected { reason: RejectReason, receipt: Value },
    /// Another terminal status (`unavailable`, `expired`, `error`, `disconnected`, ...).
    Failed { status: String, reason: Option<String> },
}

/// As a message says how a read ended: `inspected (status inspected, outcome ok, ...)`,
/// `rejected: duplicate-read`, `unavailable (no reason)`.
impl std::fmt::Display for ReadOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadOutcome::Inspected(m) => write!(f, "inspected ({m})"),
            ReadOutcome::Rejected { reason, .. } => write!(f, "rejected: {reason}"),
            ReadOutcome::Failed { status, reason } => {
                write!(f, "{status} ({})", reason.as_deref().unwrap_or("no reason"))
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReadResult {
    pub call_id: String,
    pub tool: ReadTool,
    pub args: Value,
    pub outcome: ReadOutcome,
}

impl ReadResult {
    pub fn inspected(&self) -> Option<&ModelRead> {
        match &self.outcome {
            ReadOutcome::Inspected(m) => Some(m),
            _ => None,
        }
    }
    pub fn rejected(&self) -> Option<RejectReason> {
        match &self.outcome {
            ReadOutcome::Rejected { reason, .. } => Some(*reason),
            _ => None,
        }
    }
}

fn canonical(v: &Value) -> String {
    canonical_json(v).unwrap_or_else(|_| v.to_string())
}

/// Runs one read tool call: guard, arguments, Host, acceptance, projection, history.
pub async fn read(s_: &SessionService, ctx: &ReadCtx, call: ReadCall) -> ReadResult {
    let decision = guard::admit(s_, ctx, &call);
    let (seq, normalized) = match decision {
        Ok(admitted) => admitted,
        Err((reason, receipt)) => {
            return ReadResult {
                call_id: call.call_id,
                tool: call.tool,
                args: call.args,
                outcome: ReadOutcome::Rejected { reason, receipt },
            }
        }
    };
    let history = History { store: s_.store() };
    let action = ActionCall {
        delivery_handle: ctx.delivery_handle.clone(),
        call_id: call.call_id.clone(),
        session_id: ctx.session_id.clone(),
        mode: Mode::Inspect,
        args: normalized.query.clone(),
        ttl_secs: (INSPECT_EXPIRY_MS / 1000) as u64,
    };
    let envelope = match s_.request_ui_action(action) {
        Ok(rx) => match tokio::time::timeout(TOOL_TIMEOUT, rx).await {
            Ok(Ok(e)) => e,
            Ok(Err(_)) => json!({"status": "error", "reason": "the broker dropped the read"}),
            Err(_) => {
                let _ = s_.cancel_ui_action(&ctx.delivery_handle, &call.call_id);
                json!({"status": "cancelled", "reason": super::ui_actions::REASON_TOOL_CANCELLED})
            }
        },
        Err(e) => json!({"status": "error", "reason": e.to_string()}),
    };
    let received_at_ms = s_.now_ms();
    let status = envelope["status"].as_str().unwrap_or("error").to_string();
    let (outcome, stored, revs, cont) = if status == "inspected" {
        let targets = envelope["targets"].as_array().cloned().unwrap_or_default();
        let projected = model_read::project(&envelope["inspection"], &targets);
        let typed: Option<ModelRead> = serde_json::from_value(projected.value.clone()).ok();
        match typed {
            Some(m) => {
                let revs = (Some(m.revisions.tree as i64), Some(m.revisions.geometry as i64));
                let cont = m.continuation.clone();
                (ReadOutcome::Inspected(Box::new(m)), projected.value, revs, cont)
            }
            None => (
                ReadOutcome::Failed { status: "error".into(), reason: Some("projection-invalid".into()) },
                json!({"schema": model_read::SCHEMA, "status": "error", "reason": "projection-invalid"}),
                (None, None),
                None,
            ),
        }
    } else {
        let reason = envelope["reason"].as_str().map(str::to_string);
        let stored = json!({"schema": model_read::SCHEMA, "status": status, "reason": reason});
        (ReadOutcome::Failed { status: status.clone(), reason }, stored, (None, None), None)
    };
    let stored_status = if matches!(outcome, ReadOutcome::Inspected(_)) { "inspected" } else { "failed" };
    let reason = stored["reason"].as_str().map(str::to_string);
    let finished = Finished {
        status: stored_status,
        reason: reason.as_deref(),
        result: &canonical(&stored),
        received_at_ms,
        tree_rev: revs.0,
        geometry_rev: revs.1,
        continuation_out: cont.as_deref(),
    };
    if let Err(e) = history.finish(seq, &finished) {
        tracing::warn!("read history: cannot store read {}: {e}", call.call_id);
    }
    ReadResult { call_id: call.call_id, tool: call.tool, args: call.args, outcome }
}
