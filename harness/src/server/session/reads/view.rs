//! What the model would see for the current turn of a session: the `untrusted_user_observation`
//! block of the turn's automatic attachments (the contract's projection, `contract::projection`),
//! then every read of the history in order, each as its stored model.v1 result, its refusal
//! receipt or failure, or, once withdrawn, the stale-result notice instead of the observation.
//!
//! Attachments stay immutable in storage but leave the view (spec "Automatic attachments ... leave
//! the model view after expiry, a newer user turn, a fresh usable read or a completed browser
//! action"): only the newest user turn's attachments are rendered, and not once 30 s passed since
//! the server received that message (the spec gives attachments no own lifetime; we use the read
//! lifetime), a read received after it is still usable, or a browser action completed after it.

use serde::Serialize;
use serde_json::Value;

use super::history::{History, ReadRecord, READ_LIFETIME_MS};
use crate::contract::model_read::stale_notice;
use crate::contract::projection::{project_envelope, render_text, DEFAULT_RENDER_BUDGET};
use crate::contract::Timestamp;
use crate::server::session::{SessionService, StoreError};

/// One tool call/result pair as the model gets it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewedRead {
    pub call_id: String,
    pub tool: String,
    pub args: Value,
    /// The stored result, or the stale-result notice.
    pub content: Value,
    pub stale: bool,
}

/// Why the turn's attachments are not in the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttachmentsLeft {
    Expired,
    FreshRead,
    BrowserAction,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelView {
    pub turn_id: Option<String>,
    /// The rendered `untrusted_user_observation` blocks (text), one per attachment in view.
    pub observations: Vec<String>,
    pub attachments_left: Option<AttachmentsLeft>,
    pub reads: Vec<ViewedRead>,
}

impl ModelView {
    /// The whole text, in order: observations, then each call with its result.
    pub fn text(&self) -> String {
        let mut out: Vec<String> = self.observations.clone();
        for r in &self.reads {
            out.push(format!("[{} {}] {}", r.tool, r.call_id, r.content));
        }
        out.join("\n")
    }
}

fn viewed(r: &ReadRecord) -> Option<ViewedRead> {
    let content = if r.stale { stale_notice(r.stale_reason.as_deref().unwrap_or("stale")) } else { r.result_value()? };
    Some(ViewedRead {
        call_id: r.call_id.clone(),
        tool: r.tool.clone(),
        args: serde_json::from_str(&r.args).unwrap_or(Value::Null),
        content,
        stale: r.stale,
    })
}

/// Renders the model's view of `session_id` now (applying and persisting staleness first).
pub fn model_view(s_: &SessionService, session_id: &str) -> Result<ModelView, StoreError> {
    s_.check_storage()?;
    let history = History { store: s_.store() };
    let turn = history.turn(session_id)?;
    let now = s_.now_ms();
    let rows = history.refresh(session_id, turn.as_ref().map(|t| t.message_id.as_str()), now)?;
    let actions = history.action_times(session_id)?;
    let mut observations = Vec::new();
    let mut attachments_left = None;
    if let Some(t) = &turn {
        let at = Timestamp::parse_session(&t.created_at).map(|ts| ts.secs * 1000 + (ts.nanos / 1_000_000) as i64);
        let at = at.unwrap_or(i64::MIN);
        attachments_left = if now - at >= READ_LIFETIME_MS {
            Some(AttachmentsLeft::Expired)
        } else if rows.iter().any(|r| r.usable() && r.received_at_ms.is_some_and(|x| x >= at)) {
            Some(AttachmentsLeft::FreshRead)
        } else if actions.iter().any(|&x| x >= at) {
            Some(AttachmentsLeft::BrowserAction)
        } else {
            None
        };
        if attachments_left.is_none() {
            let message = s_.message(&t.message_id)?;
            for a in message.iter().flat_map(|m| m.attachments.iter()) {
                let Ok(env) = serde_json::from_str::<Value>(&a.envelope) else { continue };
                if let Ok(rendered) = project_envelope(&env, DEFAULT_RENDER_BUDGET) {
                    observations.push(render_text(&rendered));
                }
            }
        }
    }
    let reads = rows.iter().filter(|r| r.status != "pending").filter_map(viewed).collect();
    Ok(ModelView { turn_id: turn.map(|t| t.message_id), observations, attachments_left, reads })
}
