//! The agent's Attention reads through the reference Session (spec "Canonical inspection and agent
//! tools"; schemas.md §8; relay.md Part 2): a read tool call passes the guard ([`guard`]), its
//! arguments are normalized ([`args`]), and it goes to the bound Host tab as a private inspection
//! request on the UI action route (the broker's `mode: "inspect"`, the same binding, delivery
//! handle and connection checks as actions, expiring 2 s after it is sent). The Host answers from
//! `window.wippyAttention.inspect` (pages/host/reads.js); the broker accepts only an `inspection`
//! of at most 98,304 canonical bytes with a known outcome and integer revisions and at most 32
//! target refs on the same host ([`accept_inspection`]), and the Session persists only the
//! `wippy.attention.model.v1` projection in its private history ([`history`]). What the model
//! sees for a turn is [`view::model_view`]. `attention_context_set` is [`context_set`].
//!
//! Reads are not exclusive: at most [`MAX_PENDING_PER_SESSION`] pending per session and
//! [`MAX_PENDING_OVERALL`] in all; more ends `unavailable` "read capacity reached" without
//! reaching the Host.

pub mod args;
pub mod context_set;
pub mod guard;
pub mod history;
pub mod view;

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::contract::attention_v1::is_action_ref;
use crate::contract::canonical::canonical_json;
use crate::contract::lua::{get, is_integer, is_string, MAX_SAFE_INTEGER};
use crate::contract::model_read::{self, is_node_ref, ModelRead, OUTCOMES};

pub use args::{ArgError, ReadTool};
pub use guard::GuardReason;
use history::{Finished, History};

use super::ui_actions::{ActionCall, Mode};
use super::SessionService;

/// relay.md: `expires_at = now + 2 s` for inspect.
pub const INSPECT_EXPIRY_MS: i64 = 2000;
/// relay.md: the tool waits 3 s for a read, then cancels.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(3);
pub const MAX_PENDING_PER_SESSION: usize = 16;
pub const MAX_PENDING_OVERALL: usize = 128;
/// The inspect query: at most 16,384 canonical bytes and 2,048 nodes (JSON values).
pub const MAX_QUERY_BYTES: usize = 16_384;
pub const MAX_QUERY_NODES: usize = 2048;
pub const MAX_INSPECTION_BYTES: usize = 98_304;
pub const MAX_TARGETS: usize = 32;
pub const MAX_OMISSIONS: usize = 256;
pub const REASON_CAPACITY: &str = "read capacity reached";
pub const REASON_SCOPE_HOST: &str = "inspection scope is on another Host";
pub const OPERATIONS: [&str; 7] = ["cursor", "focus", "selection", "point", "tree", "find", "geometry"];
pub const QUERY_ARG_KEYS: [&str; 10] =
    ["x", "y", "coordinate_space", "radius_css_px", "step_css_px", "query", "limit", "depth", "continuation", "node"];

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count_nodes).sum(),
        Value::Object(m) => m.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// The broker's check of an inspect query (relay.md "Inspect arguments"); `Err` is the reason of
/// the `unavailable` result.
pub fn validate_query(q: &Value) -> Result<(), &'static str> {
    let v = Some(q);
    let op = get(v, "operation").and_then(Value::as_str);
    let scope = get(v, "scope");
    let shape = matches!(q, Value::Object(m) if m.keys().all(|k| ["operation", "scope", "args"].contains(&k.as_str())))
        && op.is_some_and(|o| OPERATIONS.contains(&o))
        && matches!(scope, Some(Value::Object(m)) if m.keys().all(|k| k == "fromRoot" || k == "node"))
        && get(scope, "fromRoot") == Some(&Value::Bool(true))
        && (get(scope, "node").is_none() || is_node_ref(get(scope, "node")))
        && matches!(get(v, "args"), Some(Value::Object(a)) if a.keys().all(|k| QUERY_ARG_KEYS.contains(&k.as_str())));
    if !shape {
        return Err("inspection query is invalid");
    }
    let bytes = canonical_json(q).map(|s| s.len()).unwrap_or(usize::MAX);
    if bytes > MAX_QUERY_BYTES || count_nodes(q) > MAX_QUERY_NODES {
        return Err("inspection query is too large");
    }
    Ok(())
}

/// The read concurrency limits, given the pending reads of this session and of all.
pub fn capacity_refusal(session_pending: usize, all_pending: usize) -> Option<&'static str> {
    (session_pending >= MAX_PENDING_PER_SESSION || all_pending >= MAX_PENDING_OVERALL).then_some(REASON_CAPACITY)
}

/// relay.md: `scope.node` is a NodeRef **on the bound host**.
pub fn scope_host_refusal(q: &Value, host: &str) -> Option<&'static str> {
    match q["scope"].get("node") {
        Some(n) if n["host_instance_id"] != host => Some(REASON_SCOPE_HOST),
        _ => None,
    }
}

/// Why the broker refused an `inspected` result (the reason of the `error` it becomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum InspectionRefusal {
    #[error("inspection-invalid")]
    Invalid,
    #[error("inspection-too-large")]
    TooLarge,
    #[error("inspection-outcome-unknown")]
    OutcomeUnknown,
    #[error("inspection-revisions-invalid")]
    RevisionsInvalid,
    #[error("inspection-host-mismatch")]
    HostMismatch,
    #[error("inspection-request-mismatch")]
    RequestMismatch,
    #[error("inspection-omissions-invalid")]
    OmissionsInvalid,
    #[error("inspection-targets-invalid")]
    TargetsInvalid,
    #[error("inspection-target-other-host")]
    TargetOtherHost,
}

impl InspectionRefusal {
    pub fn as_str(self) -> &'static str {
        match self {
            InspectionRefusal::Invalid => "inspection-invalid",
            InspectionRefusal::TooLarge => "inspection-too-large",
            InspectionRefusal::OutcomeUnknown => "inspection-outcome-unknown",
            InspectionRefusal::RevisionsInvalid => "inspection-revisions-invalid",
            InspectionRefusal::HostMismatch => "inspection-host-mismatch",
            InspectionRefusal::RequestMismatch => "inspection-request-mismatch",
            InspectionRefusal::OmissionsInvalid => "inspection-omissions-invalid",
            InspectionRefusal::TargetsInvalid => "inspection-targets-invalid",
            InspectionRefusal::TargetOtherHost => "inspection-target-other-host",
        }
    }
}

/// relay.md "`inspected` requires `inspection` and `targets`": `inspection = {request_id 1..256,
/// host_instance_id (= the result's host), measured_at, revisions {tree, observation, geometry}
/// (ints >= 0), outcome, data, omissions (<= 256 of {reason 1..64, node?}), continuation?
/// 1..160}` of at most 98,304 canonical bytes; `targets` at most 32 target refs on the same host.
pub fn accept_inspection(result: &Value, host: &str) -> Result<(), InspectionRefusal> {
    use InspectionRefusal::*;
    let i = &result["inspection"];
    let v = Some(i);
    let keys =
        ["request_id", "host_instance_id", "measured_at", "revisions", "outcome", "data", "omissions", "continuation"];
    if !matches!(i, Value::Object(m) if m.keys().all(|k| keys.contains(&k.as_str())))
        || !matches!(get(v, "data"), Some(Value::Object(_)))
        || !crate::contract::lua::is_timestamp(get(v, "measured_at"))
        || !(get(v, "continuation").is_none() || is_string(get(v, "continuation"), 160, false))
    {
        return Err(Invalid);
    }
    if canonical_json(i).map(|s| s.len()).unwrap_or(usize::MAX) > MAX_INSPECTION_BYTES {
        return Err(TooLarge);
    }
    if !get(v, "outcome").and_then(Value::as_str).is_some_and(|o| OUTCOMES.contains(&o)) {
        return Err(OutcomeUnknown);
    }
    let revs = get(v, "revisions");
    let rev_ok = matches!(revs, Some(Value::Object(m)) if m.len() == 3)
        && ["tree", "observation", "geometry"].iter().all(|k| is_integer(get(revs, k), 0.0, MAX_SAFE_INTEGER));
    if !rev_ok {
        return Err(RevisionsInvalid);
    }
    if i["host_instance_id"] != host || result["host_instance_id"] != host {
        return Err(HostMismatch);
    }
    if !is_string(get(v, "request_id"), 256, false) || i["request_id"] != result["request_id"] {
        return Err(RequestMismatch);
    }
    let omissions = get(v, "omissions").and_then(Value::as_array);
    let omissions_ok = omissions.is_some_and(|o| {
        o.len() <= MAX_OMISSIONS
            && o.iter().all(|x| {
                is_string(get(Some(x), "reason"), 64, false)
                    && (get(Some(x), "node").is_none() || is_node_ref(get(Some(x), "node")))
            })
    });
    if !omissions_ok {
        return Err(OmissionsInvalid);
    }
    let targets = result["targets"].as_array().ok_or(TargetsInvalid)?;
    if targets.len() > MAX_TARGETS || !targets.iter().all(|t| is_action_ref(Some(t))) {
        return Err(TargetsInvalid);
    }
    if targets.iter().any(|t| t["host_instance_id"] != host) {
        return Err(TargetOtherHost);
    }
    Ok(())
}

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
