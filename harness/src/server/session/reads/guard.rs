//! The Attention guard that runs before a read tool executes (spec "The Attention trait installs a
//! guard"; schemas.md §8 guard reasons), in this order:
//! 1. `history-unavailable`: the turn's complete history cannot be read (storage down, or no
//!    user turn). Nothing can be stored either, so this refusal leaves no row.
//! 2. `one-read-per-batch`: this batch already attempted a read.
//! 3. `read-budget-exhausted`: four reads were attempted in this user turn (invalid and refused
//!    attempts count).
//! 4. `repair-budget-exhausted`: two invalid attempts in this turn ended repair.
//! 5. The argument rules ([`super::args::normalize`]) and the continuation binding: a
//!    continuation is accepted only for the query whose result returned it (`invalid-continuation`
//!    otherwise).
//! 6. `duplicate-read`: an unchanged find_semantic / find_css / get_node / get_tree call that
//!    already answered in this turn, unless a later read reported another tree revision or a UI
//!    action completed since.
//!
//! Every refusal but the first is stored as the call's row (its id, tool and arguments, and the
//! refusal receipt); an admitted call gets a `pending` row in the same critical section, so
//! concurrent calls of one batch cannot both pass. Unrelated tools are not guarded here.

use serde::Serialize;
use serde_json::Value;

use super::args::{normalize, ArgError, Normalized};
use super::history::{History, NewRead, ReadRecord};
use super::{canonical, ReadCall, ReadCtx, RejectReason};
use crate::contract::model_read::refusal_receipt;
use crate::server::session::SessionService;

pub const MAX_READS_PER_TURN: usize = 4;
pub const MAX_INVALID_PER_TURN: usize = 2;

/// §8's guard reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GuardReason {
    HistoryUnavailable,
    ReadBudgetExhausted,
    RepairBudgetExhausted,
    OneReadPerBatch,
    DuplicateRead,
}

impl GuardReason {
    pub fn as_str(self) -> &'static str {
        match self {
            GuardReason::HistoryUnavailable => "history-unavailable",
            GuardReason::ReadBudgetExhausted => "read-budget-exhausted",
            GuardReason::RepairBudgetExhausted => "repair-budget-exhausted",
            GuardReason::OneReadPerBatch => "one-read-per-batch",
            GuardReason::DuplicateRead => "duplicate-read",
        }
    }
}

/// The guard's decision on the rows of the current turn (pure; `actions` are the completed
/// browser actions' times). `Ok` carries the normalized query.
pub fn decide(
    turn_rows: &[&ReadRecord],
    all_rows: &[ReadRecord],
    actions: &[i64],
    ctx: &ReadCtx,
    call: &ReadCall,
) -> Result<Normalized, RejectReason> {
    if turn_rows.iter().any(|r| r.batch_id == ctx.batch_id) {
        return Err(RejectReason::Guard(GuardReason::OneReadPerBatch));
    }
    if turn_rows.len() >= MAX_READS_PER_TURN {
        return Err(RejectReason::Guard(GuardReason::ReadBudgetExhausted));
    }
    if turn_rows.iter().filter(|r| r.invalid).count() >= MAX_INVALID_PER_TURN {
        return Err(RejectReason::Guard(GuardReason::RepairBudgetExhausted));
    }
    let n = normalize(call.tool, &call.args, &ctx.host_instance_id).map_err(RejectReason::Invalid)?;
    if let Some(c) = &n.continuation {
        let issued = all_rows
            .iter()
            .any(|r| r.continuation_out.as_deref() == Some(c) && r.query_key.as_ref() == Some(&n.query_key));
        if !issued {
            return Err(RejectReason::Invalid(ArgError::InvalidContinuation));
        }
    }
    if call.tool.duplicate_guarded() {
        let earlier = turn_rows.iter().rposition(|r| {
            r.status == "inspected" && r.query_key.as_ref() == Some(&n.query_key) && r.continuation_in == n.continuation
        });
        if let Some(i) = earlier {
            let e = turn_rows[i];
            let at = e.received_at_ms.unwrap_or(i64::MAX);
            let tree_changed =
                all_rows.iter().filter(|r| r.seq > e.seq).any(|r| r.tree_rev.is_some() && r.tree_rev != e.tree_rev);
            let acted = actions.iter().any(|&t| t >= at);
            if !tree_changed && !acted {
                return Err(RejectReason::Guard(GuardReason::DuplicateRead));
            }
        }
    }
    Ok(n)
}

/// Runs the guard for `call` and records the attempt. `Ok((row seq, query))`: go to the Host.
pub fn admit(s_: &SessionService, ctx: &ReadCtx, call: &ReadCall) -> Result<(i64, Normalized), (RejectReason, Value)> {
    let unavailable = || {
        let r = RejectReason::Guard(GuardReason::HistoryUnavailable);
        (r, refusal_receipt(r.as_str(), call.tool.name(), false))
    };
    let _one_at_a_time = s_.inner.reads_guard.lock().map_err(|_| unavailable())?;
    s_.check_storage().map_err(|_| unavailable())?;
    let history = History { store: s_.store() };
    let turn = history.turn(&ctx.session_id).map_err(|_| unavailable())?.ok_or_else(unavailable)?;
    let now = s_.now_ms();
    let rows = history.refresh(&ctx.session_id, Some(&turn.message_id), now).map_err(|_| unavailable())?;
    let actions = history.action_times(&ctx.session_id).map_err(|_| unavailable())?;
    let turn_rows: Vec<&ReadRecord> = rows.iter().filter(|r| r.turn_id == turn.message_id).collect();
    // serde_json's maps are sorted: a stable text (canonical JSON would write `{}` as `[]`).
    let args = call.args.to_string();
    let decided = decide(&turn_rows, &rows, &actions, ctx, call);
    let mut row = NewRead {
        session_id: &ctx.session_id,
        turn_id: &turn.message_id,
        batch_id: &ctx.batch_id,
        call_id: &call.call_id,
        tool: call.tool.name(),
        args: &args,
        query_key: None,
        continuation_in: None,
        status: "pending",
        reason: None,
        invalid: false,
        result: None,
    };
    match decided {
        Ok(n) => {
            row.query_key = Some(&n.query_key);
            row.continuation_in = n.continuation.as_deref();
            let seq = history.insert(&row).map_err(|_| unavailable())?;
            Ok((seq, n))
        }
        Err(reason) => {
            let invalid = matches!(reason, RejectReason::Invalid(_));
            let receipt = refusal_receipt(reason.as_str(), call.tool.name(), invalid);
            let text = canonical(&receipt);
            row.status = "rejected";
            row.reason = Some(reason.as_str());
            row.invalid = invalid;
            row.result = Some(&text);
            history.insert(&row).map_err(|_| unavailable())?;
            Err((reason, receipt))
        }
    }
}
