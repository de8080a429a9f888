//! A small CDP client on chromiumoxide's public `Connection`: chromiumoxide's typed commands (and raw
//! ones where a type is missing or does not match Chromium 156) with an optional flattened
//! `sessionId` (what chromiumoxide's `Page` cannot send, so OOPIFs are reachable), correlated
//! replies, a timeout on every call, and a broadcast of events.
//!
//! [`Cdp::execute`] / [`Session::execute`] send a typed command and deserialize its typed reply;
//! [`Cdp::send`] / [`Session::send`] send a typed command and return the reply as JSON, for replies
//! whose generated type does not deserialize against Chromium 156 (new enum values or fields in DOM
//! nodes, AX nodes, remote objects and frame trees); `call` is the raw form.
//!
//! chromiumoxide's `Browser`/`Handler` layer is not used: it drops out-of-process iframes from its
//! frame list, silently drops some Chromium 156 events, and cannot address child sessions
//! (`reference/spike.md` P1, P5). Its `Connection` and generated parameter types are used as is.

mod dom;
mod session;

pub use dom::quad_points;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::types::{CallId, Command, Message, MethodId};
use chromiumoxide::Connection;
use futures::StreamExt;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

pub use session::{EvalError, Session};

/// How long one CDP command may take before the call fails with [`CdpError::Timeout`].
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    #[error("cannot connect to Chromium's DevTools socket {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("CDP {method} failed: {message} (code {code})")]
    Protocol { method: String, code: i64, message: String },
    #[error("CDP {method} got no reply within {} ms", .after.as_millis())]
    Timeout { method: String, after: Duration },
    #[error("the DevTools connection is closed (Chromium exited or crashed) while sending {method}")]
    Closed { method: String },
    #[error("cannot encode CDP {method} parameters: {reason}")]
    Encode { method: String, reason: String },
    #[error("cannot decode the reply to CDP {method}: {reason}")]
    Decode { method: String, reason: String },
}

/// One CDP event, as Chromium sent it.
#[derive(Debug, Clone)]
pub struct Event {
    pub method: String,
    pub session_id: Option<String>,
    pub params: Value,
}

/// An event frame as it comes off the socket. chromiumoxide's own `CdpJsonEventMessage` lacks the
/// `sessionId` rename, so with it every event would look like a browser-level one.
#[derive(Debug, serde::Deserialize)]
struct RawEvent {
    method: MethodId,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default)]
    params: Value,
}

impl chromiumoxide::types::Method for RawEvent {
    fn identifier(&self) -> MethodId {
        self.method.clone()
    }
}

impl chromiumoxide::types::EventMessage for RawEvent {
    fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

struct Request {
    method: String,
    session_id: Option<String>,
    params: Value,
    reply: oneshot::Sender<Result<Value, CdpError>>,
}

/// A cloneable handle to one DevTools connection. The connection task ends when every handle is
/// dropped or Chromium closes the socket.
#[derive(Clone)]
pub struct Cdp {
    requests: mpsc::UnboundedSender<Request>,
    events: broadcast::Sender<Arc<Event>>,
}

impl Cdp {
    /// Connects to `ws://.../devtools/browser/...` and starts the task that drives the socket.
    pub async fn connect(ws_url: &str) -> Result<Cdp, CdpError> {
        let conn = Connection::<RawEvent>::connect(ws_url)
            .await
            .map_err(|e| CdpError::Connect { url: ws_url.to_string(), reason: e.to_string() })?;
        let (requests, rx) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(8192);
        tokio::spawn(drive(conn, rx, events.clone()));
        Ok(Cdp { requests, events })
    }

    /// Sends `method` to the browser (no session) or to a flattened session, and waits for the
    /// reply for at most [`COMMAND_TIMEOUT`].
    pub async fn call(&self, method: &str, session_id: Option<&str>, params: Value) -> Result<Value, CdpError> {
        self.call_with_timeout(method, session_id, params, COMMAND_TIMEOUT).await
    }

    pub async fn call_with_timeout(
        &self,
        method: &str,
        session_id: Option<&str>,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let (reply, rx) = oneshot::channel();
        let req = Request { method: method.to_string(), session_id: session_id.map(str::to_string), params, reply };
        self.requests.send(req).map_err(|_| CdpError::Closed { method: method.to_string() })?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(CdpError::Closed { method: method.to_string() }),
            Err(_) => Err(CdpError::Timeout { method: method.to_string(), after: timeout }),
        }
    }

    /// Sends a typed chromiumoxide command, serialized as Chromium expects it; the reply as JSON.
    pub async fn send<C: Command>(&self, session_id: Option<&str>, cmd: &C) -> Result<Value, CdpError> {
        self.send_with_timeout(session_id, cmd, COMMAND_TIMEOUT).await
    }

    /// [`Cdp::send`] waiting at most `timeout` for the reply.
    pub async fn send_with_timeout<C: Command>(
        &self,
        session_id: Option<&str>,
        cmd: &C,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let method = cmd.identifier().to_string();
        let params = serde_json::to_value(cmd)
            .map_err(|e| CdpError::Encode { method: method.clone(), reason: e.to_string() })?;
        self.call_with_timeout(&method, session_id, params, timeout).await
    }

    /// Sends a typed command and deserializes the reply into its typed response.
    pub async fn execute<C: Command>(&self, session_id: Option<&str>, cmd: &C) -> Result<C::Response, CdpError> {
        let reply = self.send(session_id, cmd).await?;
        decode::<C>(cmd, reply)
    }

    /// A receiver of every event from now on. Subscribe before sending the command that causes
    /// the event, so it cannot be missed.
    pub fn events(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    /// Whether the connection task is still running.
    pub fn is_open(&self) -> bool {
        !self.requests.is_closed()
    }
}

/// The typed response of `cmd` from its JSON reply (an empty reply is an empty object).
fn decode<C: Command>(cmd: &C, reply: Value) -> Result<C::Response, CdpError> {
    let reply = if reply.is_null() { Value::Object(Default::default()) } else { reply };
    C::response_from_value(reply)
        .map_err(|e| CdpError::Decode { method: cmd.identifier().to_string(), reason: e.to_string() })
}

async fn drive(
    mut conn: Connection<RawEvent>,
    mut rx: mpsc::UnboundedReceiver<Request>,
    events: broadcast::Sender<Arc<Event>>,
) {
    let mut pending: HashMap<CallId, (String, oneshot::Sender<Result<Value, CdpError>>)> = HashMap::new();
    loop {
        tokio::select! {
            req = rx.recv() => {
                let Some(req) = req else { break };
                let method_id = req.method.clone().into();
                match conn.submit_command(method_id, req.session_id.map(Into::into), req.params) {
                    Ok(id) => { pending.insert(id, (req.method, req.reply)); }
                    Err(e) => { let _ = req.reply.send(Err(CdpError::Encode { method: req.method, reason: e.to_string() })); }
                }
            }
            msg = conn.next() => {
                match msg {
                    Some(Ok(Message::Response(resp))) => {
                        if let Some((method, reply)) = pending.remove(&resp.id) {
                            let result = match resp.error {
                                Some(err) => Err(CdpError::Protocol { method, code: err.code, message: err.message }),
                                None => Ok(resp.result.unwrap_or(Value::Null)),
                            };
                            let _ = reply.send(result);
                        }
                    }
                    Some(Ok(Message::Event(ev))) => {
                        let _ = events.send(Arc::new(Event { method: ev.method.to_string(), session_id: ev.session_id, params: ev.params }));
                    }
                    Some(Err(chromiumoxide::error::CdpError::InvalidMessage(_, e))) => {
                        // A frame that does not parse is logged and skipped; the socket goes on.
                        tracing::debug!("CDP message skipped: {e}");
                    }
                    Some(Err(e)) => {
                        tracing::debug!("DevTools socket ended: {e}");
                        break;
                    }
                    None => break,
                }
            }
        }
    }
    for (method, reply) in pending.into_values() {
        let _ = reply.send(Err(CdpError::Closed { method }));
    }
}
