//! The harness as the agent (spec "Agent clarification actions", "Optional visual capture"; relay.md
//! Part 2 leg 1): a typed API that asks the reference Session's broker for `highlight`, `confirm`,
//! `select` or `capture_visual` on the
//! Host tab bound to a session, with targets copied verbatim from a snapshot's `action_ref`s (never
//! rebuilt from fields), and awaits the action's one terminal result.

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
    #[error("no terminal result for {call_id} within {waited:?}")]
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
