//! The harness as the agent (spec "Agent clarification actions", "Optional visual capture"; relay.md
//! Part 2 leg 1): a typed API that asks the reference Session's broker for `highlight`, `confirm`,
//! `select` or `capture_visual` on the
//! Host tab bound to a session, with targets copied verbatim from a snapshot's `action_ref`s (never
//! rebuilt from fields), and awaits the action's one terminal result.
//!
//! Reads (issue 20): [`Agent::batch`] opens one batch of the current user turn; its typed calls
//! (`get_cursor` ... `hit_test`, or `read_raw` with arguments as a model would write them) go
//! through the Session's guard and broker and come back as [`ReadResult`] (the stored model.v1
//! result, a typed refusal, or another terminal status). [`Agent::context_set`] is
//! `attention_context_set`.

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::server::session::ui_actions::{ActionCall, AgentRoute, BrokerError, Mode};
use crate::server::session::SessionService;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("session {0} has no bound Host tab (no admitted message carried runtime_context.attention)")]
    NoRoute(String),
    #[error("snapshot has no candidate {0} with an action_ref (are agent actions on?)")]
    NoActionRef(String),
    #[error(transparent)]
    Broker(#[from] BrokerError),
    #[error("no terminal result for {call_id} within {} ms", .waited.as_millis())]
    NoResult { call_id: String, waited: Duration },
    #[error("the broker dropped {0} without a result")]
    Dropped(String),
}

/// Every terminal status of relay.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Selected,
    Confirmed,
    Prepared,
    Cancelled,
    Denied,
    Rejected,
    Expired,
    Stale,
    Disconnected,
    PermissionDenied,
    Unavailable,
    Error,
}

impl Status {
    /// The status as relay.md names it (`permission-denied`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Selected => "selected",
            Status::Confirmed => "confirmed",
            Status::Prepared => "prepared",
            Status::Cancelled => "cancelled",
            Status::Denied => "denied",
            Status::Rejected => "rejected",
            Status::Expired => "expired",
            Status::Stale => "stale",
            Status::Disconnected => "disconnected",
            Status::PermissionDenied => "permission-denied",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One terminal result, typed, with the envelope as received.
#[derive(Debug, Clone)]
pub struct ActionResult {
    pub status: Status,
    pub reason: Option<String>,
    pub selected_target: Option<Value>,
    /// `prepared` only: the composer file the capture became.
    pub prepared_file: Option<Value>,
    pub envelope: Value,
}

/// Options every action takes (relay.md defaults: pointer and keyboard allowed, no region).
#[derive(Debug, Clone)]
pub struct ActionOptions {
    pub prompt: Option<String>,
    pub allow_pointer: bool,
    pub allow_keyboard: bool,
    pub capture_region: bool,
    pub ttl_secs: u64,
}

impl Default for ActionOptions {
    fn default() -> Self {
        ActionOptions { prompt: None, allow_pointer: true, allow_keyboard: true, capture_region: false, ttl_secs: 30 }
    }
}

/// The `action_ref` of candidate `target_id` in `snapshot`, verbatim.
pub fn action_ref(snapshot: &Value, target_id: &str) -> Result<Value, AgentError> {
    snapshot["candidates"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["target_id"] == target_id)
        .and_then(|c| c.get("action_ref").cloned())
        .ok_or_else(|| AgentError::NoActionRef(target_id.to_string()))
}

/// The agent bound to one session's Host tab.
pub struct Agent {
    session: SessionService,
    route: AgentRoute,
}

/// An action in flight.
pub struct PendingAction {
    pub call_id: String,
    rx: tokio::sync::oneshot::Receiver<Value>,
    /// The call as sent, so the agent can repeat it ([`Agent::repeat`]).
    call: ActionCall,
}

impl PendingAction {
    /// Awaits the action's one terminal result.
    pub async fn result(self, timeout: Duration) -> Result<ActionResult, AgentError> {
        let envelope = tokio::time::timeout(timeout, self.rx)
            .await
            .map_err(|_| AgentError::NoResult { call_id: self.call_id.clone(), waited: timeout })?
            .map_err(|_| AgentError::Dropped(self.call_id.clone()))?;
        let status = serde_json::from_value(envelope["status"].clone())
            .map_err(|_| AgentError::Dropped(self.call_id.clone()))?;
        Ok(ActionResult {
            status,
            reason: envelope["reason"].as_str().map(str::to_string),
            selected_target: envelope.get("selected_target").cloned(),
            prepared_file: envelope.get("prepared_file").cloned(),
            envelope,
        })
    }
}

impl Agent {
    /// Binds to the session's current Host route (`bind_turn`).
    pub fn bind(session: &SessionService, session_id: &str) -> Result<Agent, AgentError> {
        let route = session.broker().route(session_id).ok_or_else(|| AgentError::NoRoute(session_id.to_string()))?;
        Ok(Agent { session: session.clone(), route })
    }
    pub fn route(&self) -> &AgentRoute {
        &self.route
    }
    pub fn highlight(&self, targets: &[Value], o: &ActionOptions) -> Result<PendingAction, AgentError> {
        self.ask(Mode::Highlight, targets, o)
    }
    pub fn confirm(&self, targets: &[Value], o: &ActionOptions) -> Result<PendingAction, AgentError> {
        self.ask(Mode::Confirm, targets, o)
    }
    pub fn select(&self, targets: &[Value], o: &ActionOptions) -> Result<PendingAction, AgentError> {
        self.ask(Mode::Select, targets, o)
    }
    /// `ui_action_capture_visual` with relay.md's `capture` object (`scope`, `region`,
    /// `allow_adjustment`, `allow_viewport_choice`, `format`).
    pub fn capture_visual(
        &self,
        targets: &[Value],
        capture: Value,
        o: &ActionOptions,
    ) -> Result<PendingAction, AgentError> {
        let mut args = common_args(targets, o);
        args.insert("capture".into(), capture);
        self.ask_raw(Mode::CaptureVisual, Value::Object(args), o.ttl_secs)
    }
    /// Any mode with raw arguments (argument-error tests).
    pub fn ask_raw(&self, mode: Mode, args: Value, ttl_secs: u64) -> Result<PendingAction, AgentError> {
        // Unique in the process, not per Agent: two agents bound to the same route share the
        // broker's request cache, where a reused call_id means "the same call again".
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let call_id = format!("call-{}-{n}", &self.route.delivery_handle[..self.route.delivery_handle.len().min(12)]);
        let call = ActionCall {
            delivery_handle: self.route.delivery_handle.clone(),
            call_id: call_id.clone(),
            session_id: self.route.session_id.clone(),
            mode,
            args,
            ttl_secs,
        };
        let rx = self.session.request_ui_action(call.clone())?;
        Ok(PendingAction { call_id, rx, call })
    }
    /// The tool gave up on `call_id` (relay.md "Legs" 1: `session_ui_action_cancel {delivery_handle,
    /// call_id}`): its waiting caller gets exactly one `cancelled` "tool request cancelled" and the
    /// Host closes the overlay without a result. An unknown or already ended call_id is a typed
    /// error ([`BrokerError::UnknownCall`], [`BrokerError::CallFinished`]) and changes nothing.
    pub fn cancel(&self, call_id: &str) -> Result<(), AgentError> {
        Ok(self.session.cancel_ui_action(&self.route.delivery_handle, call_id)?)
    }
    /// Sends the same call again, with the same call_id (a retried tool call): the broker's request
    /// cache answers it with the first call's result (relay.md "Concurrency").
    pub fn repeat(&self, p: &PendingAction) -> Result<PendingAction, AgentError> {
        let rx = self.session.request_ui_action(p.call.clone())?;
        Ok(PendingAction { call_id: p.call_id.clone(), rx, call: p.call.clone() })
    }
    fn ask(&self, mode: Mode, targets: &[Value], o: &ActionOptions) -> Result<PendingAction, AgentError> {
        let mut args = common_args(targets, o);
        args.insert("capture_region".into(), json!(o.capture_region));
        self.ask_raw(mode, Value::Object(args), o.ttl_secs)
    }
}

/// The arguments every interactive mode takes: targets, the optional prompt and the two input
/// permissions.
fn common_args(targets: &[Value], o: &ActionOptions) -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("targets".into(), Value::Array(targets.to_vec()));
    if let Some(p) = &o.prompt {
        args.insert("prompt".into(), json!(p));
    }
    args.insert("allow_pointer".into(), json!(o.allow_pointer));
    args.insert("allow_keyboard".into(), json!(o.allow_keyboard));
    args
}

// ---- reads and attention_context_set (issue 20) ----------------------------------------------

pub use crate::contract::model_read::{ModelRead, NodeRef, NodeView};
pub use crate::server::session::reads::context_set::ContextCode;
pub use crate::server::session::reads::{ArgError, GuardReason, ReadOutcome, ReadResult, ReadTool, RejectReason};
use crate::server::session::reads::{ReadCall, ReadCtx};
use crate::server::session::AttentionState;
use serde::Serialize;

/// `attention_find_semantic` arguments: at least one filter (§8), an optional scope NodeRef.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FindSemantic {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<NodeRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// `attention_get_tree` arguments.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TreeArgs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<NodeRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// `attention_hit_test` arguments (`coordinate_space`: "host-viewport" or a NodeRef).
#[derive(Debug, Clone, Default, Serialize)]
pub struct HitTestArgs {
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coordinate_space: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius_css_px: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_css_px: Option<f64>,
}

/// The result of `attention_context_set`: the stored setting, or §9's error code (with the
/// current state for a revision conflict), and the response as received.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextSetResult {
    pub state: Option<AttentionState>,
    pub error: Option<ContextCode>,
    pub response: Value,
}

fn next_id(prefix: &str) -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!("{prefix}-{}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
}

/// One model generation's batch of tool calls within the current user turn: the guard admits one
/// read per batch; actions in the same batch run as [`Agent`]'s do.
pub struct Batch<'a> {
    agent: &'a Agent,
    pub batch_id: String,
}

impl Agent {
    /// The current user turn: the id of the session's newest stored message (`None` before one).
    pub fn turn(&self) -> Option<String> {
        self.session.current_turn(&self.route.session_id)
    }
    /// A new batch of tool calls (the guard's "batch").
    pub fn batch(&self) -> Batch<'_> {
        Batch { agent: self, batch_id: next_id("batch") }
    }
    /// `attention_context_set {enabled, expected_revision?}` as `agent_id`: the Session issues a
    /// one-use grant, the request carries it and its reply topic, no confirmation is asked.
    pub fn context_set(&self, agent_id: &str, enabled: bool, expected_revision: Option<i64>) -> ContextSetResult {
        let grant = self.session.grant_context_set(&self.route.session_id, agent_id);
        let capability = match &grant {
            Ok(g) => g.capability.clone(),
            Err(code) => {
                return ContextSetResult {
                    state: None,
                    error: Some(*code),
                    response: json!({"error": {"code": code.as_str()}}),
                }
            }
        };
        let request_id = next_id("ctx");
        let mut req = json!({
            "request_id": request_id, "reply_topic": crate::server::session::reads::context_set::reply_topic(&request_id),
            "session_id": self.route.session_id, "agent_id": agent_id, "capability": capability,
            "enabled": enabled, "sender": format!("agent:{agent_id}"),
        });
        if let Some(r) = expected_revision {
            req["expected_revision"] = json!(r);
        }
        context_result(self.session.attention_context_request(&req))
    }
}

/// Types a §9 response.
pub fn context_result(response: Value) -> ContextSetResult {
    let error = serde_json::from_value(response["error"]["code"].clone()).ok();
    let state = response.get("attention_context").and_then(|a| {
        Some(AttentionState {
            enabled: a["enabled"].as_bool()?,
            revision: a["revision"].as_i64()?,
            updated_at: a["updated_at"].as_str()?.to_string(),
            updated_by: a["updated_by"].as_str()?.to_string(),
        })
    });
    ContextSetResult { state, error, response }
}

impl Batch<'_> {
    fn ctx(&self) -> ReadCtx {
        let r = &self.agent.route;
        ReadCtx {
            session_id: r.session_id.clone(),
            delivery_handle: r.delivery_handle.clone(),
            host_instance_id: r.host_instance_id.clone(),
            batch_id: self.batch_id.clone(),
        }
    }
    /// Any read tool with raw arguments, exactly as a model would write them.
    pub async fn read_raw(&self, tool: ReadTool, args: Value) -> ReadResult {
        let call = ReadCall { call_id: next_id("read"), tool, args };
        self.agent.session.read(&self.ctx(), call).await
    }
    async fn read_typed(&self, tool: ReadTool, args: impl Serialize) -> ReadResult {
        self.read_raw(tool, serde_json::to_value(args).unwrap_or(Value::Null)).await
    }
    pub async fn get_cursor(&self) -> ReadResult {
        self.read_raw(ReadTool::GetCursor, json!({})).await
    }
    pub async fn get_focus(&self) -> ReadResult {
        self.read_raw(ReadTool::GetFocus, json!({})).await
    }
    pub async fn get_selection(&self) -> ReadResult {
        self.read_raw(ReadTool::GetSelection, json!({})).await
    }
    pub async fn find_semantic(&self, args: &FindSemantic) -> ReadResult {
        self.read_typed(ReadTool::FindSemantic, args).await
    }
    pub async fn find_css(&self, selector: &str, root: &NodeRef, limit: Option<u64>) -> ReadResult {
        let mut a = json!({"selector": selector, "root": root});
        if let Some(l) = limit {
            a["limit"] = json!(l);
        }
        self.read_raw(ReadTool::FindCss, a).await
    }
    pub async fn get_node(&self, node: &NodeRef) -> ReadResult {
        self.read_raw(ReadTool::GetNode, json!({"node": node})).await
    }
    pub async fn get_tree(&self, args: &TreeArgs) -> ReadResult {
        self.read_typed(ReadTool::GetTree, args).await
    }
    pub async fn get_geometry(&self, node: &NodeRef) -> ReadResult {
        self.read_raw(ReadTool::GetGeometry, json!({"node": node})).await
    }
    pub async fn hit_test(&self, args: &HitTestArgs) -> ReadResult {
        self.read_typed(ReadTool::HitTest, args).await
    }
    /// `ui_action_highlight` in this batch (actions are not guarded).
    pub fn highlight(&self, targets: &[Value], o: &ActionOptions) -> Result<PendingAction, AgentError> {
        self.agent.highlight(targets, o)
    }
}
