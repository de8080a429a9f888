//! The UI action broker of the reference Session (spec "Agent clarification actions", "Terminal
//! statuses"; relay.md Part 2 "UI action protocol"): an agent's `highlight` / `confirm` / `select` /
//! `capture_visual` request is checked (`validate_args`), bound to the Session's current Host route
//! (the socket whose last admitted `session_message` carried `runtime_context.attention` with a
//! `host_instance_id`), sent to that socket as `{type:"session_ui_action_request", session_id, data}`
//! (never with the `delivery_handle`), and ends with exactly one terminal result: the Host's
//! `{type:"session_ui_action_result", session_id, data}` once it passes `validate_result` and the
//! correlation checks, or a result the broker synthesises (`unavailable` for argument errors, a
//! pending action or a missing route, `expired` at `expires_at`, `disconnected` when the route's
//! socket closes, `unavailable` "turn route replaced" when a newer socket binds).
//!
//! Reads (`Mode::Inspect`, issue 20; see [`super::reads`], rules in [`super::inspection`]): a
//! private inspection request on the same route, `query` in place of targets, `expires_at` 2 s
//! after it is sent, no agent-actions gate, not exclusive (16 pending per session, 128 in all); an
//! `inspected` result must pass [`super::inspection::accept_inspection`] or becomes `error` with
//! the typed reason.
//!
//! Concurrency: one interactive action pending per session. A second result for a completed action
//! is refused as `duplicate`; every refused Host result is kept in [`Broker::refusals`].
//!
//! Tool-sent cancel (relay.md "Legs" 1: on timeout the tool sends `session_ui_action_cancel
//! {delivery_handle, call_id}`): [`Broker::cancel`] ends the pending action with the synthesised
//! `cancelled` "tool request cancelled" (every caller waiting on that call_id gets it, the request
//! cache keeps it) and tells the Host to close its overlay without a result. relay.md defines no
//! Host-side cancel message; the frame `{type:"session_ui_action_cancel", session_id, data:{action_id,
//! request_id}}` is **our addition** (pages/host/overlay.js closes the overlay it names, sends
//! nothing, and returns focus). A Host result for a cancelled action arriving later is refused as
//! `duplicate`. Cancelling a call_id the broker does not know, or one that already ended, is a typed
//! error ([`BrokerError::UnknownCall`], [`BrokerError::CallFinished`]) and changes nothing.
//!
//! Request cache (relay.md "Concurrency": a request cache of 1024; the same `call_id` with the same
//! fingerprint gets the cached result back): calls are keyed by (delivery_handle, session_id,
//! call_id); the fingerprint is the mode and the arguments with their defaults applied. A repeated
//! call while the first is pending waits for the same action (no second request reaches the Host);
//! after it ended, it gets the first result back, byte for byte. The same key with another
//! fingerprint is refused ([`BrokerError::CallIdReused`]). An entry is kept until its action's
//! expiry or 120 s after its result, whichever is later; while 1,024 entries are kept a new call
//! is refused ([`BrokerError::CacheFull`]). Argument errors, "another UI action is pending" and
//! route refusals are results like any other and are cached too.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::contract::attention_v1::{is_action_ref, is_rect};
use crate::contract::lua::{get, is_string, only_keys};

/// TTL bounds of an interactive action, seconds (relay.md: "an integer from 1 to 120").
pub const MIN_TTL_SECS: u64 = 1;
pub const MAX_TTL_SECS: u64 = 120;
/// `prompt` is a string of at most 512 bytes.
pub const MAX_PROMPT_BYTES: usize = 512;
/// 1-32 targets (0 only for a `select` with `capture_region: true`).
pub const MAX_TARGETS: usize = 32;
pub const SCHEMA: &str = "wippy.ui-action.v1";
/// How many calls the request cache keeps (relay.md "a request cache of 1024").
pub const REQUEST_CACHE: usize = 1024;
/// How long an ended call stays in the request cache after its result, ms (the broker's TTL).
pub const CACHE_KEEP_MS: i64 = (MAX_TTL_SECS as i64) * 1000;

/// The modes this broker routes: the four interactive ones and `inspect` (a private read; see
/// [`super::reads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Highlight,
    Confirm,
    Select,
    CaptureVisual,
    Inspect,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Highlight => "highlight",
            Mode::Confirm => "confirm",
            Mode::Select => "select",
            Mode::CaptureVisual => "capture_visual",
            Mode::Inspect => "inspect",
        }
    }
    /// relay.md "Statuses allowed per mode".
    pub fn allows(self, status: &str) -> bool {
        match self {
            Mode::CaptureVisual => {
                matches!(
                    status,
                    "prepared"
                        | "cancelled"
                        | "denied"
                        | "expired"
                        | "stale"
                        | "disconnected"
                        | "unavailable"
                        | "error"
                )
            }
            Mode::Inspect => matches!(
                status,
                "inspected"
                    | "unavailable"
                    | "expired"
                    | "stale"
                    | "error"
                    | "cancelled"
                    | "disconnected"
                    | "permission-denied"
            ),
            _ => TERMINAL_STATUSES.contains(&status) && !matches!(status, "prepared" | "denied"),
        }
    }
}

/// relay.md "Terminal statuses" (reads add `inspected`, which no interactive mode allows).
pub const TERMINAL_STATUSES: &[&str] = &[
    "selected",
    "confirmed",
    "prepared",
    "cancelled",
    "denied",
    "rejected",
    "expired",
    "stale",
    "disconnected",
    "permission-denied",
    "unavailable",
    "error",
];

/// Reasons of the results the broker synthesises (relay.md).
pub const REASON_EXPIRED: &str = "UI action expired";
pub const REASON_DISCONNECTED: &str = "UI action route disconnected";
pub const REASON_REPLACED: &str = "turn route replaced";
pub const REASON_PENDING: &str = "another UI action is pending";
pub const REASON_ROUTE_EXPIRED: &str = "UI action route expired";
pub const REASON_NOT_AUTHORIZED: &str = "agent actions are not enabled for this Host";
pub const REASON_TOOL_CANCELLED: &str = "tool request cancelled";
/// The frame type of our Host-side cancel (not in relay.md; see the module comment).
pub const CANCEL_FRAME: &str = "session_ui_action_cancel";

/// Errors of the agent-facing API that are the caller's programming mistakes (not results).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BrokerError {
    #[error("ttl_secs must be an integer from 1 to 120, got {0}")]
    Ttl(u64),
    #[error("call_id must be 1..128 bytes")]
    CallId,
    /// The same call_id was used before with other arguments or another mode.
    #[error("call_id {0} was already used for another request")]
    CallIdReused(String),
    /// The request cache holds 1,024 calls that have not expired.
    #[error("UI action request capacity reached ({REQUEST_CACHE} calls)")]
    CacheFull,
    /// A cancel named a call_id this delivery handle never sent (or one the cache no longer keeps).
    #[error("no UI action call {0} to cancel on this route")]
    UnknownCall(String),
    /// A cancel named a call that already has its terminal result.
    #[error("UI action call {0} already ended; nothing to cancel")]
    CallFinished(String),
}

/// A call's fingerprint: its mode and its arguments as the broker understands them (defaults of
/// `allow_pointer`, `allow_keyboard`, `capture_region`, `targets` applied), in canonical JSON.
/// Arguments that are not an object fingerprint as themselves.
pub fn fingerprint(mode: Mode, args: &Value) -> String {
    let normal = match args {
        Value::Object(a) => {
            let mut n = a.clone();
            n.entry("targets").or_insert_with(|| json!([]));
            n.entry("allow_pointer").or_insert(json!(true));
            n.entry("allow_keyboard").or_insert(json!(true));
            if mode != Mode::CaptureVisual {
                n.entry("capture_region").or_insert(json!(false));
            }
            Value::Object(n)
        }
        other => other.clone(),
    };
    let body = crate::contract::canonical::canonical_json(&normal).unwrap_or_else(|_| normal.to_string());
    format!("{}\u{0}{body}", mode.as_str())
}

/// Validates action arguments as the broker's `validate_args` does; `Err` is the exact reason
/// string of relay.md's argument errors.
pub fn validate_args(mode: Mode, args: &Value) -> Result<(), &'static str> {
    let Value::Object(a) = args else { return Err("arguments must be an object") };
    if let Some(p) = a.get("prompt") {
        if !matches!(p, Value::String(s) if s.len() <= MAX_PROMPT_BYTES) {
            return Err("prompt is invalid");
        }
    }
    let targets = match a.get("targets") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(t)) if t.len() <= MAX_TARGETS => t.as_slice(),
        Some(_) => return Err("targets are invalid"),
    };
    for t in targets {
        if !is_action_ref(Some(t)) {
            return Err("target reference is invalid");
        }
    }
    for (key, error) in [("allow_pointer", "allow_pointer is invalid"), ("allow_keyboard", "allow_keyboard is invalid")]
    {
        if !matches!(a.get(key), None | Some(Value::Bool(_))) {
            return Err(error);
        }
    }
    let capture_region = match (mode, a.get("capture_region")) {
        (_, None) => false,
        (Mode::CaptureVisual, Some(_)) => return Err("capture_region is not allowed"),
        (_, Some(Value::Bool(b))) => *b,
        (_, Some(_)) => return Err("capture_region is invalid"),
    };
    match (mode, a.get("capture")) {
        (_, None) => {}
        (Mode::CaptureVisual, Some(c)) => {
            if !is_capture(c) {
                return Err("capture is invalid");
            }
        }
        (_, Some(_)) => return Err("capture is not allowed"),
    }
    if targets.is_empty() && !(mode == Mode::Select && capture_region) {
        return Err("targets are required");
    }
    Ok(())
}

/// relay.md `capture`: `{scope? target|region|viewport, region? rect (required for region),
/// allow_adjustment? bool, allow_viewport_choice? bool, format? image/png|image/webp}`.
fn is_capture(c: &Value) -> bool {
    let v = Some(c);
    let scope = get(v, "scope").map(|s| s.as_str());
    only_keys(v, &["scope", "region", "allow_adjustment", "allow_viewport_choice", "format"])
        && matches!(scope, None | Some(Some("target" | "region" | "viewport")))
        && (get(v, "region").is_none() || is_rect(get(v, "region")))
        && (scope != Some(Some("region")) || get(v, "region").is_some())
        && matches!(get(v, "allow_adjustment"), None | Some(Value::Bool(_)))
        && matches!(get(v, "allow_viewport_choice"), None | Some(Value::Bool(_)))
        && matches!(get(v, "format").map(|f| f.as_str()), None | Some(Some("image/png" | "image/webp")))
}

/// The result envelope's own shape (`validate_result`): a strict object with bounded strings, a
/// terminal status and the status-bound members (`selected_target` exactly for selected/confirmed,
/// `prepared_file` exactly for prepared, `inspection`/`targets` never for interactive modes).
pub fn validate_result_envelope(r: &Value) -> Result<(), &'static str> {
    let v = Some(r);
    let keys = [
        "schema",
        "message_type",
        "result_id",
        "in_reply_to_action_id",
        "request_id",
        "session_id",
        "host_instance_id",
        "completed_at",
        "status",
        "reason",
        "selected_target",
        "prepared_file",
        "inspection",
        "targets",
    ];
    let status = get(v, "status").and_then(Value::as_str).unwrap_or_default();
    let ok = only_keys(v, &keys)
        && get(v, "schema").and_then(Value::as_str) == Some(SCHEMA)
        && get(v, "message_type").and_then(Value::as_str) == Some("result")
        && is_string(get(v, "result_id"), 128, false)
        && is_string(get(v, "in_reply_to_action_id"), 128, false)
        && is_string(get(v, "request_id"), 128, false)
        && is_string(get(v, "session_id"), 128, false)
        && is_string(get(v, "host_instance_id"), 160, false)
        && is_string(get(v, "completed_at"), 64, false)
        && (TERMINAL_STATUSES.contains(&status) || status == "inspected")
        && (get(v, "reason").is_none() || is_string(get(v, "reason"), 512, true));
    if !ok {
        return Err("result envelope is invalid");
    }
    let needs_target = matches!(status, "selected" | "confirmed");
    match get(v, "selected_target") {
        Some(t) if needs_target && is_action_ref(Some(t)) => {}
        None if !needs_target => {}
        _ => return Err("selected_target is invalid"),
    }
    if (status == "prepared") != get(v, "prepared_file").is_some() {
        return Err("prepared_file is invalid");
    }
    let inspected = status == "inspected";
    if inspected != get(v, "inspection").is_some() || inspected != get(v, "targets").is_some() {
        return Err(if inspected { "inspection is required" } else { "inspection is not allowed" });
    }
    Ok(())
}

/// relay.md `validate_prepared_file(prepared_file, user_id, session_id)`: the strict shape
/// `{uuid 1..160, name 1..256, mime_type image/png|image/webp, byte_size 1..1048576, sha256
/// "sha256:"+64 hex, scope target|region|viewport}`, naming an upload of this session and owner
/// whose stored type, size and digest are the ones declared.
pub fn validate_prepared_file(s_: &super::SessionService, pf: &Value, session_id: &str) -> Result<(), String> {
    let v = Some(pf);
    let sha = get(v, "sha256").and_then(Value::as_str).unwrap_or_default();
    let shape = only_keys(v, &["uuid", "name", "mime_type", "byte_size", "sha256", "scope"])
        && is_string(get(v, "uuid"), 160, false)
        && is_string(get(v, "name"), 256, false)
        && matches!(get(v, "mime_type").and_then(Value::as_str), Some("image/png" | "image/webp"))
        && get(v, "byte_size")
            .and_then(Value::as_i64)
            .is_some_and(|n| (1..=super::uploads::MAX_UPLOAD_BYTES as i64).contains(&n))
        && get(v, "byte_size").and_then(Value::as_f64).is_some_and(|n| n.fract() == 0.0)
        && sha.len() == 71
        && sha.starts_with("sha256:")
        && sha[7..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && matches!(get(v, "scope").and_then(Value::as_str), Some("target" | "region" | "viewport"));
    if !shape {
        return Err("prepared_file is invalid".into());
    }
    let uuid = pf["uuid"].as_str().unwrap_or_default();
    let owner = s_.store().session(session_id).ok().flatten().map(|r| r.owner);
    let upload = s_
        .store()
        .upload(uuid)
        .map_err(|e| format!("upload lookup failed: {e}"))?
        .ok_or("prepared_file names no upload")?;
    if upload.session_id != session_id || owner.as_deref() != Some(upload.owner.as_str()) {
        return Err("prepared_file is not an upload of this session".into());
    }
    if pf["mime_type"] != upload.mime.as_str()
        || pf["byte_size"].as_i64() != Some(upload.byte_size)
        || pf["sha256"] != upload.sha256.as_str()
    {
        return Err("prepared_file does not match its upload".into());
    }
    Ok(())
}

/// Everything of a target ref but `rect` (the Host refreshes geometry).
fn identity(t: &Value) -> Value {
    match t {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(k, _)| k.as_str() != "rect").map(|(k, v)| (k.clone(), v.clone())).collect())
        }
        other => other.clone(),
    }
}

/// The route the agent gets from the current turn (`bind_turn`): never sent to the Host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentRoute {
    pub delivery_handle: String,
    pub session_id: String,
    pub host_instance_id: String,
    pub agent_actions_authorized: bool,
}

/// One agent call (leg 1 of relay.md).
#[derive(Debug, Clone)]
pub struct ActionCall {
    pub delivery_handle: String,
    pub call_id: String,
    pub session_id: String,
    pub mode: Mode,
    pub args: Value,
    pub ttl_secs: u64,
}

/// A Host result the broker refused, with why (for tests; the Host gets nothing back).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    pub session_id: String,
    pub socket_id: String,
    pub error: String,
    pub result: Value,
}

struct Route {
    socket_id: String,
    host_instance_id: String,
    authorized: bool,
    delivery_handle: String,
    tx: mpsc::UnboundedSender<String>,
}

struct Pending {
    action_id: String,
    request_id: String,
    session_id: String,
    host_instance_id: String,
    socket_id: String,
    mode: Mode,
    targets: Vec<Value>,
    /// The caller waiting for this action (repeated calls wait in its cache entry).
    reply: oneshot::Sender<Value>,
    /// Its request-cache key.
    key: CacheKey,
}

/// (delivery_handle, session_id, call_id).
type CacheKey = (String, String, String);

struct CacheEntry {
    fingerprint: String,
    /// The action's own expiry (ms, Session clock); the entry lives at least until then.
    action_expires_ms: i64,
    /// The result once the action ended, and until when it is kept.
    done: Option<(Value, i64)>,
    /// Repeated calls waiting for the first one's result.
    waiters: Vec<oneshot::Sender<Value>>,
}

#[derive(Default)]
struct State {
    /// session id -> its current Host route.
    routes: HashMap<String, Route>,
    /// socket id -> its outbound channel (every joined socket, bound or not).
    sockets: HashMap<String, (String, mpsc::UnboundedSender<String>)>,
    /// session id -> its pending interactive action.
    pending: HashMap<String, Pending>,
    /// action id -> a pending read (reads are not exclusive: up to
    /// [`super::inspection::MAX_PENDING_PER_SESSION`] per session and
    /// [`super::inspection::MAX_PENDING_OVERALL`] in all).
    reads: HashMap<String, Pending>,
    /// action ids that ended (a later Host result for one is a `duplicate`).
    completed: HashSet<String>,
    refusals: Vec<Refusal>,
    /// Every request frame sent to a Host socket, as sent.
    sent: Vec<Value>,
    /// Every cancel frame (our addition) sent to a Host socket, as sent.
    cancels: Vec<Value>,
    /// The request cache.
    cache: HashMap<CacheKey, CacheEntry>,
}

impl State {
    /// Removes the pending action or read `action_id` of `session_id`, if it is still pending.
    fn take(&mut self, session_id: &str, action_id: &str) -> Option<Pending> {
        if self.pending.get(session_id).is_some_and(|p| p.action_id == action_id) {
            return self.pending.remove(session_id);
        }
        self.reads.remove(action_id).filter(|p| p.session_id == session_id)
    }
    fn find(&self, session_id: &str, action_id: &str) -> Option<&Pending> {
        self.pending
            .get(session_id)
            .filter(|p| p.action_id == action_id)
            .or_else(|| self.reads.get(action_id).filter(|p| p.session_id == session_id))
    }
    /// Removes every pending action and read matching `f`.
    fn take_all(&mut self, f: impl Fn(&Pending) -> bool) -> Vec<Pending> {
        let sessions: Vec<String> = self.pending.iter().filter(|(_, p)| f(p)).map(|(k, _)| k.clone()).collect();
        let reads: Vec<String> = self.reads.iter().filter(|(_, p)| f(p)).map(|(k, _)| k.clone()).collect();
        let mut out: Vec<Pending> = sessions.into_iter().filter_map(|k| self.pending.remove(&k)).collect();
        out.extend(reads.into_iter().filter_map(|k| self.reads.remove(&k)));
        out
    }
}

/// The broker (one per Session). Cheap to clone.
#[derive(Clone, Default)]
pub struct Broker {
    state: Arc<Mutex<State>>,
}

fn rfc3339(ms: i64) -> String {
    super::rfc3339_ms(ms)
}

impl Broker {
    /// A joined socket: frames the broker sends it go to `tx`.
    pub(crate) fn socket_opened(&self, session_id: &str, socket_id: &str, tx: mpsc::UnboundedSender<String>) {
        if let Ok(mut s) = self.state.lock() {
            s.sockets.insert(socket_id.to_string(), (session_id.to_string(), tx));
        }
    }

    /// A socket closed: its route ends, and the action pending on it ends `disconnected`.
    pub(crate) fn socket_closed(&self, s_: &super::SessionService, socket_id: &str) {
        let ended = {
            let Ok(mut s) = self.state.lock() else { return };
            s.sockets.remove(socket_id);
            s.routes.retain(|_, r| r.socket_id != socket_id);
            s.take_all(|p| p.socket_id == socket_id)
        };
        for p in ended {
            self.finish(s_, p, "disconnected", REASON_DISCONNECTED);
        }
    }

    /// An admitted `session_message` carried `runtime_context.attention`: that socket becomes the
    /// session's route (a newer socket replaces an older one; its pending action ends `unavailable`
    /// "turn route replaced").
    pub(crate) fn bind(&self, s_: &super::SessionService, session_id: &str, socket_id: &str, runtime_context: &Value) {
        let attention = &runtime_context["attention"];
        let Some(host) = attention["host_instance_id"].as_str().filter(|h| !h.is_empty() && h.len() <= 160) else {
            return;
        };
        let authorized = attention["agent_actions_enabled"] == Value::Bool(true);
        let replaced = {
            let Ok(mut s) = self.state.lock() else { return };
            let Some((_, tx)) = s.sockets.get(socket_id).cloned() else { return };
            let same = s.routes.get(session_id).is_some_and(|r| r.socket_id == socket_id && r.host_instance_id == host);
            let handle = if same {
                s.routes[session_id].delivery_handle.clone()
            } else {
                format!("dh-{}", super::new_uuid_v4())
            };
            s.routes.insert(
                session_id.to_string(),
                Route {
                    socket_id: socket_id.to_string(),
                    host_instance_id: host.to_string(),
                    authorized,
                    delivery_handle: handle,
                    tx,
                },
            );
            if same {
                Vec::new()
            } else {
                s.take_all(|p| p.session_id == session_id && (p.socket_id != socket_id || p.host_instance_id != host))
            }
        };
        for p in replaced {
            self.finish(s_, p, "unavailable", REASON_REPLACED);
        }
    }

    /// The agent's route for a session (`bind_turn`), if a Host tab is bound.
    pub fn route(&self, session_id: &str) -> Option<AgentRoute> {
        let s = self.state.lock().ok()?;
        s.routes.get(session_id).map(|r| AgentRoute {
            delivery_handle: r.delivery_handle.clone(),
            session_id: session_id.to_string(),
            host_instance_id: r.host_instance_id.clone(),
            agent_actions_authorized: r.authorized,
        })
    }

    /// Every request frame sent to a Host, oldest first.
    pub fn sent(&self) -> Vec<Value> {
        self.state.lock().map(|s| s.sent.clone()).unwrap_or_default()
    }
    /// Every cancel frame sent to a Host (tool-sent cancels), oldest first.
    pub fn cancels_sent(&self) -> Vec<Value> {
        self.state.lock().map(|s| s.cancels.clone()).unwrap_or_default()
    }
    /// Every Host result the broker refused, oldest first.
    pub fn refusals(&self) -> Vec<Refusal> {
        self.state.lock().map(|s| s.refusals.clone()).unwrap_or_default()
    }
    /// How many reads of `session_id` are pending at the Host.
    pub fn pending_reads(&self, session_id: &str) -> usize {
        self.state.lock().map(|s| s.reads.values().filter(|p| p.session_id == session_id).count()).unwrap_or(0)
    }
    /// Whether `session_id` has an interactive action pending.
    pub fn is_pending(&self, session_id: &str) -> bool {
        self.state.lock().is_ok_and(|s| s.pending.contains_key(session_id))
    }

    /// Starts one action. The receiver yields its one terminal result envelope.
    pub fn request(
        &self,
        s_: &super::SessionService,
        call: ActionCall,
    ) -> Result<oneshot::Receiver<Value>, BrokerError> {
        if !(MIN_TTL_SECS..=MAX_TTL_SECS).contains(&call.ttl_secs) {
            return Err(BrokerError::Ttl(call.ttl_secs));
        }
        if call.call_id.is_empty() || call.call_id.len() > 128 {
            return Err(BrokerError::CallId);
        }
        let (tx, rx) = oneshot::channel();
        let now = s_.now_ms();
        let key: CacheKey = (call.delivery_handle.clone(), call.session_id.clone(), call.call_id.clone());
        let print = fingerprint(call.mode, &call.args);
        {
            let Ok(mut s) = self.state.lock() else { return Ok(rx) };
            s.cache.retain(|_, e| match &e.done {
                Some((_, keep_until)) => *keep_until > now,
                None => true,
            });
            if let Some(e) = s.cache.get_mut(&key) {
                if e.fingerprint != print {
                    return Err(BrokerError::CallIdReused(call.call_id.clone()));
                }
                match &e.done {
                    Some((result, _)) => {
                        let _ = tx.send(result.clone());
                    }
                    None => e.waiters.push(tx),
                }
                return Ok(rx);
            }
            if s.cache.len() >= REQUEST_CACHE {
                return Err(BrokerError::CacheFull);
            }
            let expires_at = now + (call.ttl_secs as i64) * 1000;
            s.cache.insert(
                key.clone(),
                CacheEntry { fingerprint: print, action_expires_ms: expires_at, done: None, waiters: Vec::new() },
            );
        }
        let action_id = format!("act-{}", super::new_uuid_v4());
        let mut pending = Pending {
            action_id: action_id.clone(),
            request_id: call.call_id.clone(),
            session_id: call.session_id.clone(),
            host_instance_id: String::new(),
            socket_id: String::new(),
            mode: call.mode,
            targets: Vec::new(),
            reply: tx,
            key,
        };
        let checked = match call.mode {
            Mode::Inspect => super::inspection::validate_query(&call.args),
            mode => validate_args(mode, &call.args),
        };
        if let Err(reason) = checked {
            self.finish(s_, pending, "unavailable", reason);
            return Ok(rx);
        }
        let inspect = call.mode == Mode::Inspect;
        let expires_at =
            now + if inspect { super::inspection::INSPECT_EXPIRY_MS } else { (call.ttl_secs as i64) * 1000 };
        let frame = {
            let Ok(mut s) = self.state.lock() else { return Ok(rx) };
            let route = s.routes.get(&call.session_id).filter(|r| r.delivery_handle == call.delivery_handle);
            let Some(route) = route else {
                drop(s);
                self.finish(s_, pending, "unavailable", REASON_ROUTE_EXPIRED);
                return Ok(rx);
            };
            // Reads are authorized by the binding itself (`inspection_authorized: true`).
            if !route.authorized && !inspect {
                drop(s);
                self.finish(s_, pending, "permission-denied", REASON_NOT_AUTHORIZED);
                return Ok(rx);
            }
            if inspect {
                let here = s.reads.values().filter(|p| p.session_id == call.session_id).count();
                let refusal = super::inspection::capacity_refusal(here, s.reads.len())
                    .or_else(|| super::inspection::scope_host_refusal(&call.args, &route.host_instance_id));
                if let Some(reason) = refusal {
                    drop(s);
                    self.finish(s_, pending, "unavailable", reason);
                    return Ok(rx);
                }
            } else if s.pending.contains_key(&call.session_id) {
                drop(s);
                self.finish(s_, pending, "unavailable", REASON_PENDING);
                return Ok(rx);
            }
            let a = call.args.as_object().cloned().unwrap_or_default();
            let targets: Vec<Value> = a.get("targets").and_then(Value::as_array).cloned().unwrap_or_default();
            let mut data = Map::new();
            data.insert("schema".into(), json!(SCHEMA));
            data.insert("message_type".into(), json!("request"));
            data.insert("action_id".into(), json!(action_id));
            data.insert("request_id".into(), json!(call.call_id));
            data.insert("session_id".into(), json!(call.session_id));
            data.insert("host_instance_id".into(), json!(route.host_instance_id));
            data.insert("created_at".into(), json!(rfc3339(now)));
            data.insert("expires_at".into(), json!(rfc3339(expires_at)));
            data.insert("mode".into(), json!(call.mode.as_str()));
            if let Some(p) = a.get("prompt") {
                data.insert("prompt".into(), p.clone());
            }
            if inspect {
                data.insert("query".into(), call.args.clone());
                data.insert("allow_pointer".into(), json!(false));
                data.insert("allow_keyboard".into(), json!(false));
            } else {
                data.insert("targets".into(), Value::Array(targets.clone()));
                data.insert("allow_pointer".into(), a.get("allow_pointer").cloned().unwrap_or(json!(true)));
                data.insert("allow_keyboard".into(), a.get("allow_keyboard").cloned().unwrap_or(json!(true)));
            }
            if call.mode == Mode::CaptureVisual {
                data.insert("capture".into(), a.get("capture").cloned().unwrap_or_else(|| json!({})));
            } else if !inspect {
                data.insert("capture_region".into(), a.get("capture_region").cloned().unwrap_or(json!(false)));
            }
            let frame = json!({"type": "session_ui_action_request", "session_id": call.session_id, "data": Value::Object(data)});
            pending.host_instance_id = route.host_instance_id.clone();
            pending.socket_id = route.socket_id.clone();
            pending.targets = targets;
            let sent = route.tx.send(frame.to_string()).is_ok();
            if !sent {
                drop(s);
                self.finish(s_, pending, "disconnected", REASON_DISCONNECTED);
                return Ok(rx);
            }
            s.sent.push(frame.clone());
            if inspect {
                s.reads.insert(action_id.clone(), pending);
            } else {
                s.pending.insert(call.session_id.clone(), pending);
            }
            frame
        };
        // Expiry: the broker ends the action `expired` at expires_at unless it ended before.
        let broker = self.clone();
        let service = s_.clone();
        let session_id = call.session_id.clone();
        let action = frame["data"]["action_id"].as_str().unwrap_or_default().to_string();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis((expires_at - now).max(0) as u64)).await;
            let p = broker.state.lock().ok().and_then(|mut s| s.take(&session_id, &action));
            if let Some(p) = p {
                broker.finish(&service, p, "expired", REASON_EXPIRED);
            }
        });
        Ok(rx)
    }

    /// The tool's `session_ui_action_cancel {delivery_handle, call_id}` (relay.md "Legs" 1): the
    /// pending action of that call ends `cancelled` "tool request cancelled" for every caller
    /// waiting on it, and its Host socket gets our cancel frame so the overlay closes without a
    /// result. Unknown call -> [`BrokerError::UnknownCall`]; ended call ->
    /// [`BrokerError::CallFinished`]; neither changes anything.
    pub fn cancel(&self, s_: &super::SessionService, delivery_handle: &str, call_id: &str) -> Result<(), BrokerError> {
        let now = s_.now_ms();
        let p = {
            let mut s = self.state.lock().map_err(|_| BrokerError::UnknownCall(call_id.to_string()))?;
            let key = s
                .cache
                .iter()
                .filter(|(k, e)| {
                    k.0 == delivery_handle && k.2 == call_id && e.done.as_ref().is_none_or(|(_, keep)| *keep > now)
                })
                .map(|(k, _)| k.clone())
                .next()
                .ok_or_else(|| BrokerError::UnknownCall(call_id.to_string()))?;
            if s.cache[&key].done.is_some() {
                return Err(BrokerError::CallFinished(call_id.to_string()));
            }
            let session_id = key.1.clone();
            let action_id = s
                .pending
                .get(&session_id)
                .filter(|p| p.key == key)
                .or_else(|| s.reads.values().find(|p| p.key == key))
                .map(|p| p.action_id.clone());
            // None: the call is between its cache entry and its pending action (request() is
            // still deciding): not cancellable yet, and nothing changed.
            let p = action_id
                .and_then(|a| s.take(&session_id, &a))
                .ok_or_else(|| BrokerError::UnknownCall(call_id.to_string()))?;
            let frame = json!({"type": CANCEL_FRAME, "session_id": p.session_id, "data": {"action_id": p.action_id, "request_id": p.request_id}});
            if let Some((_, tx)) = s.sockets.get(&p.socket_id) {
                if tx.send(frame.to_string()).is_ok() {
                    s.cancels.push(frame);
                }
            }
            p
        };
        self.finish(s_, p, "cancelled", REASON_TOOL_CANCELLED);
        Ok(())
    }

    /// A `session_ui_action_result` frame from a Host socket.
    pub(crate) fn on_result(&self, s_: &super::SessionService, socket_id: &str, frame: &Value) {
        let mut result = frame.get("data").cloned().unwrap_or(Value::Null);
        let session_id = frame["session_id"].as_str().unwrap_or_default().to_string();
        let verdict = (|| -> Result<Pending, String> {
            validate_result_envelope(&result).map_err(str::to_string)?;
            let mut s = self.state.lock().map_err(|_| "broker unavailable".to_string())?;
            if s.sockets.get(socket_id).map(|(sid, _)| sid.as_str()) != Some(session_id.as_str()) {
                return Err("sender is not a socket of this session".into());
            }
            let action_id = result["in_reply_to_action_id"].as_str().unwrap_or_default();
            if s.completed.contains(action_id) {
                return Err("duplicate".into());
            }
            let p = s.find(&session_id, action_id).or_else(|| s.pending.get(&session_id)).ok_or("no pending action")?;
            let correlated = p.action_id == action_id
                && p.socket_id == socket_id
                && result["request_id"] == p.request_id.as_str()
                && result["session_id"] == p.session_id.as_str()
                && result["host_instance_id"] == p.host_instance_id.as_str();
            if !correlated {
                return Err("result is not correlated with the pending action".into());
            }
            let status = result["status"].as_str().unwrap_or_default();
            if !p.mode.allows(status) {
                return Err(format!("status {status} is not allowed for mode {}", p.mode.as_str()));
            }
            if let Some(t) = result.get("selected_target") {
                if t["host_instance_id"] != p.host_instance_id.as_str() {
                    return Err("selected_target is on another Host".into());
                }
                if !p.targets.is_empty() && !p.targets.iter().any(|o| identity(o) == identity(t)) {
                    return Err("selected_target is not among the offered targets".into());
                }
            }
            let action_id = action_id.to_string();
            Ok(s.take(&session_id, &action_id).expect("checked above"))
        })();
        match verdict {
            Ok(p) => {
                // relay.md: a prepared_file that fails validate_prepared_file turns the result into `error`.
                if result["status"] == "prepared" {
                    if let Err(why) = validate_prepared_file(s_, &result["prepared_file"], &p.session_id) {
                        if let Value::Object(m) = &mut result {
                            m.remove("prepared_file");
                            m.insert("status".into(), json!("error"));
                            m.insert("reason".into(), json!(why));
                        }
                    }
                }
                // The broker's inspection acceptance (relay.md Part 2): a correlated `inspected`
                // result whose inspection or targets break the rules becomes `error` with the
                // typed reason, and the refused result is kept.
                if result["status"] == "inspected" {
                    if let Err(why) = super::inspection::accept_inspection(&result, &p.host_instance_id) {
                        if let Ok(mut s) = self.state.lock() {
                            s.refusals.push(Refusal {
                                session_id: session_id.clone(),
                                socket_id: socket_id.to_string(),
                                error: why.as_str().to_string(),
                                result: result.clone(),
                            });
                        }
                        if let Value::Object(m) = &mut result {
                            m.remove("inspection");
                            m.remove("targets");
                            m.insert("status".into(), json!("error"));
                            m.insert("reason".into(), json!(why.as_str()));
                        }
                    }
                } else if p.mode != Mode::Inspect {
                    s_.browser_action_completed(&p.session_id);
                }
                self.deliver(s_, p, result);
            }
            Err(error) => {
                if let Ok(mut s) = self.state.lock() {
                    s.refusals.push(Refusal { session_id, socket_id: socket_id.to_string(), error, result });
                }
            }
        }
    }

    /// Ends `p` with a result the broker synthesises.
    fn finish(&self, s_: &super::SessionService, p: Pending, status: &str, reason: &str) {
        let result = json!({
            "schema": SCHEMA, "message_type": "result", "result_id": format!("res-{}", super::new_uuid_v4()),
            "in_reply_to_action_id": p.action_id, "request_id": p.request_id, "session_id": p.session_id,
            "host_instance_id": if p.host_instance_id.is_empty() { "unbound".to_string() } else { p.host_instance_id.clone() },
            "completed_at": rfc3339(s_.now_ms()), "status": status, "reason": reason,
        });
        self.deliver(s_, p, result);
    }

    /// Ends `p` with `result`: every waiting caller gets it, and the request cache keeps it.
    fn deliver(&self, s_: &super::SessionService, p: Pending, result: Value) {
        let mut waiters = Vec::new();
        if let Ok(mut s) = self.state.lock() {
            s.completed.insert(p.action_id.clone());
            let now = s_.now_ms();
            if let Some(e) = s.cache.get_mut(&p.key) {
                let keep_until = e.action_expires_ms.max(now + CACHE_KEEP_MS);
                e.done = Some((result.clone(), keep_until));
                waiters = std::mem::take(&mut e.waiters);
            }
        }
        for r in waiters {
            let _ = r.send(result.clone());
        }
        let _ = p.reply.send(result);
    }
}
