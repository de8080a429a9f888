//! The Session WebSocket, `GET /api/v1/ws/join?token=<bearer>[&session_id=<id>]` (spec "Message
//! delivery"). The handshake's `Origin` must be the Host site's (403 `ORIGIN_FORBIDDEN` otherwise,
//! or without one): the token alone does not admit a page of another origin. Authentication is
//! the `token` query parameter (a browser cannot set headers on a WebSocket); without a valid
//! token the upgrade is answered 401. Without `session_id` the socket
//! gets a fresh session of the user; with one, it rejoins that session (404 if it is not the
//! user's). The first frame the server sends is `{type:"welcome", topic:"session:<id>", session_id,
//! socket_id, attention_context}`.
//!
//! Frames: every text frame is one command, answered by [`super::messages::admit`], except
//! `session_ui_action_result`, which goes to the UI action broker ([`super::ui_actions`]); the broker's
//! `session_ui_action_request` frames go out on the same socket. An admitted message carrying
//! `runtime_context.attention` binds this socket as the session's Host route. A command frame over
//! 32,768 bytes closes the socket with code 1009 (message too big), so nothing is stored; exactly
//! 32,768 bytes is admitted. Only a `session_ui_action_result` may be larger (a read's inspection
//! is up to 98,304 bytes): frames up to [`MAX_RESULT_FRAME_BYTES`] are parsed to see which they
//! are, larger ones never are. Frames over 1 MiB are refused by the
//! WebSocket layer itself before they are buffered.

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use super::{error_response, unauthenticated, Closed, Reply, SessionService};
use crate::contract::delivery::MAX_INLINE_COMMAND_BYTES;

/// WebSocket close code "message too big" (RFC 6455 §7.4.1).
pub const CLOSE_MESSAGE_TOO_BIG: u16 = 1009;
/// A `session_ui_action_result` frame may be larger than a command: a read's `inspection` alone
/// may be 98,304 canonical bytes (relay.md Part 2), beside up to 32 target refs and the envelope;
/// we allow 98,304 + 32,768 bytes for the frame (relay.md gives no frame limit).
pub const MAX_RESULT_FRAME_BYTES: usize = 98_304 + MAX_INLINE_COMMAND_BYTES;
/// What the WebSocket layer buffers at most; beyond this it drops the connection itself.
const TRANSPORT_LIMIT: usize = 1 << 20;

#[derive(Deserialize)]
pub struct JoinQuery {
    token: Option<String>,
    session_id: Option<String>,
}

pub async fn join(
    State(s): State<SessionService>,
    Query(q): Query<JoinQuery>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    // A browser always sends the page's origin on a WebSocket handshake, and a page cannot forge
    // it: only the Host site's pages may join as the user, whatever token they hold (a page of the
    // child origin that got hold of the token is refused). Checked before the token, so another
    // origin learns nothing about tokens. Non-browser clients send the Host origin.
    let origin = headers.get(axum::http::header::ORIGIN).and_then(|v| v.to_str().ok());
    if origin.is_none() || origin != s.host_origin() {
        return error_response(StatusCode::FORBIDDEN, "ORIGIN_FORBIDDEN", "WebSocket join from another origin");
    }
    let Some(actor) = q.token.as_deref().and_then(|t| s.inner.users.authenticate(&headers, Some(t))) else {
        return unauthenticated();
    };
    let s2 = s.clone();
    let chosen = tokio::task::spawn_blocking(move || -> Result<String, Box<Response>> {
        match q.session_id {
            Some(id) => match s2.store().session(&id) {
                Ok(Some(row)) if row.owner == actor.name() => Ok(id),
                Ok(_) => Err(Box::new(error_response(StatusCode::NOT_FOUND, "SESSION_NOT_FOUND", "Session not found"))),
                Err(_) => Err(Box::new(error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "SESSION_STORAGE_UNAVAILABLE",
                    "Session storage is unavailable",
                ))),
            },
            None => s2.create_session_for(actor).map_err(|_| {
                Box::new(error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "SESSION_STORAGE_UNAVAILABLE",
                    "Session storage is unavailable",
                ))
            }),
        }
    })
    .await;
    let session_id = match chosen {
        Ok(Ok(id)) => id,
        Ok(Err(refusal)) => return *refusal,
        Err(_) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "The Session handler failed")
        }
    };
    upgrade
        .max_message_size(TRANSPORT_LIMIT)
        .max_frame_size(TRANSPORT_LIMIT)
        .on_upgrade(move |socket| run(s, session_id, socket))
}

async fn run(s: SessionService, session_id: String, mut socket: WebSocket) {
    let socket_id = format!("socket-{}", s.inner.sockets.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
    let attention = s.attention_state(&session_id).ok().flatten().map(|a| a.to_value());
    let welcome = json!({"type": "welcome", "topic": format!("session:{session_id}"), "session_id": session_id,
                         "socket_id": socket_id, "attention_context": attention});
    if socket.send(Message::Text(welcome.to_string().into())).await.is_err() {
        return;
    }
    let (tx, mut outbound) = tokio::sync::mpsc::unbounded_channel::<String>();
    s.inner.broker.socket_opened(&session_id, &socket_id, tx);
    serve_frames(&s, &session_id, &socket_id, &mut socket, &mut outbound).await;
    s.inner.broker.socket_closed(&s, &socket_id);
}

/// The socket's life: inbound commands and `session_ui_action_result`s, outbound broker requests.
async fn serve_frames(
    s: &SessionService,
    session_id: &str,
    socket_id: &str,
    socket: &mut WebSocket,
    outbound: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    loop {
        let msg = tokio::select! {
            m = socket.recv() => match m { Some(Ok(m)) => m, _ => return },
            Some(frame) = outbound.recv() => {
                if socket.send(Message::Text(frame.into())).await.is_err() { return }
                continue;
            }
        };
        let text = match msg {
            Message::Text(t) => t,
            Message::Binary(b) if b.len() > MAX_INLINE_COMMAND_BYTES => {
                close_too_big(s, session_id, socket, b.len()).await;
                return;
            }
            Message::Binary(_) => {
                let _ = socket
                    .send(Message::Close(Some(CloseFrame { code: 1003, reason: "text frames only".into() })))
                    .await;
                return;
            }
            Message::Close(_) => return,
            _ => continue,
        };
        let bytes = text.len();
        if bytes > MAX_RESULT_FRAME_BYTES {
            close_too_big(s, session_id, socket, bytes).await;
            return;
        }
        let parsed: Option<serde_json::Value> = serde_json::from_str(&text).ok();
        let is_result = parsed.as_ref().is_some_and(|v| v["type"] == "session_ui_action_result");
        if bytes > MAX_INLINE_COMMAND_BYTES && !is_result {
            close_too_big(s, session_id, socket, bytes).await;
            return;
        }
        if is_result {
            s.inner.broker.on_result(s, socket_id, parsed.as_ref().unwrap_or(&serde_json::Value::Null));
            continue;
        }
        if s.inner.held_sessions.lock().is_ok_and(|h| h.contains(session_id)) {
            if let Ok(mut f) = s.inner.held_frames.lock() {
                f.push((session_id.to_string(), text.to_string()));
            }
            continue;
        }
        let s2 = s.clone();
        let (sid, sock) = (session_id.to_string(), socket_id.to_string());
        let text = text.to_string();
        // SQLite and SHA-256 work off the async workers.
        let outcome = tokio::task::spawn_blocking(move || super::messages::admit(&s2, &sid, &sock, &text)).await;
        let Ok(outcome) = outcome else { return };
        if outcome.frame["type"] == "received" {
            if let Some(rc) = parsed.as_ref().and_then(|v| v["data"].get("runtime_context")) {
                s.inner.broker.bind(s, session_id, socket_id, rc);
            }
        }
        s.record_reply(Reply {
            session_id: session_id.to_string(),
            request_id: outcome.request_id.clone(),
            command_bytes: bytes,
            runtime_context: outcome.runtime_context,
            transport: outcome.transport,
            frame: outcome.frame.clone(),
        });
        if socket.send(Message::Text(outcome.frame.to_string().into())).await.is_err() {
            return;
        }
    }
}

async fn close_too_big(s: &SessionService, session_id: &str, socket: &mut WebSocket, frame_bytes: usize) {
    s.record_close(Closed { session_id: session_id.to_string(), code: CLOSE_MESSAGE_TOO_BIG, frame_bytes });
    let _ = socket
        .send(Message::Close(Some(CloseFrame { code: CLOSE_MESSAGE_TOO_BIG, reason: "message too big".into() })))
        .await;
}
