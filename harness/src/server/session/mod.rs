//! The reference Session inside the embedded server: what a Wippy Session does on the other side of
//! the Host's composer (spec "Message attachment contract", "Message delivery", "Session capability
//! descriptor"; schemas.md §1, §9-§12). Admission uses the project's contract module
//! (`crate::contract::validate`), the one validator.
//!
//! One concern per file: [`auth`] (bearer tokens of the reference users), [`capabilities`]
//! (`GET /api/v1/sessions/capabilities`), [`attention_setting`] (`PATCH
//! /api/v1/sessions/{id}/attention-context`), [`ws`] (the WebSocket `/api/v1/ws/join`),
//! [`messages`] (`session_message` admission), [`staging`] (`/api/v1/sessions/context`),
//! [`uploads`] (`POST` / `DELETE /api/v1/uploads`), [`visual_resolver`] (prompt-time re-verification of visual attachments), [`store`] (SQLite), [`ui_actions`] (the UI action broker), [`reads`] (the agent's Attention reads: guard, arguments, private history, the model's view, `attention_context_set`). [`SessionService`] is also the typed
//! read API tests use (`server.session()`).

pub mod attention_setting;
pub mod auth;
pub mod capabilities;
pub mod inspection;
pub mod messages;
pub mod reads;
pub mod staging;
pub mod store;
pub mod ui_actions;
pub mod uploads;
pub mod visual_resolver;
pub mod ws;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::Router;
use serde::Serialize;
use serde_json::Value;

pub use auth::Actor;
pub use store::{AttentionState, Counts, StoreError, StoredAttachment, StoredMessage, StoredStage, StoredUpload};

/// How the reference Session behaves (one per server).
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// The SQLite file. Default: `target/attention-session/<pid>-<n>.sqlite`, removed when the
    /// Session ends (a file given here is kept).
    pub db: Option<PathBuf>,
    /// `false`: the capabilities endpoint answers 404, a Session release without Attention.
    pub capabilities_endpoint: bool,
    /// `wippy.attention` versions the renderer supports (capabilities, admission, and the
    /// `ATTENTION_CONTEXT_CAPABILITY_UNAVAILABLE` gate, which needs version 4).
    pub attention_versions: Vec<u64>,
    /// `false`: `POST /api/v1/uploads` refuses every upload.
    pub uploads_enabled: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            db: None,
            capabilities_endpoint: true,
            attention_versions: vec![1, 2, 3, 4],
            uploads_enabled: true,
        }
    }
}

/// How many WebSocket replies (and closes) the Session keeps in memory for tests to read: a
/// bounded buffer, the oldest dropped first (issue 25: every reply used to be kept, ~2.4 kB per
/// message without end). Far more than any test sends to one server before reading its answers.
pub const KEPT_REPLIES: usize = 2048;

/// One frame the Session sent back on a WebSocket (a `received` or an error), as sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    pub session_id: String,
    pub request_id: Option<String>,
    /// The byte length of the command frame this answers.
    pub command_bytes: usize,
    /// The command carried `data.runtime_context` (stripped before anything is stored).
    pub runtime_context: bool,
    /// Whether the command carried `context_attachments` inline, a `context_attachments_ref`, or
    /// neither.
    pub transport: Transport,
    pub frame: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    None,
    Inline,
    Staged,
}

impl Reply {
    pub fn is_received(&self) -> bool {
        self.frame["type"] == "received"
    }
    pub fn code(&self) -> Option<&str> {
        self.frame["code"].as_str()
    }
    pub fn detail_code(&self) -> Option<&str> {
        self.frame["detail_code"].as_str()
    }
}

/// A WebSocket that was closed by the Session, with its close code (1009: frame too large).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Closed {
    pub session_id: String,
    pub code: u16,
    pub frame_bytes: usize,
}

pub(crate) struct Inner {
    pub options: SessionOptions,
    pub store: store::Store,
    pub users: auth::Users,
    /// The last [`KEPT_REPLIES`] replies (oldest dropped first): memory stays flat however many
    /// messages a long-running Session answers; what is durable is in the database.
    pub replies: Mutex<std::collections::VecDeque<Reply>>,
    pub closes: Mutex<std::collections::VecDeque<Closed>>,
    /// Test hook: `false` makes every storage access answer "unavailable" (503s).
    pub storage_available: AtomicBool,
    /// Test clock offset in milliseconds, added to the system time (stage expiry).
    pub clock_offset_ms: AtomicI64,
    /// Test clock: when not `i64::MIN`, the Session's time stands still at this instant (minus
    /// the offset) until moved with `advance_clock_ms` (read lifetimes to the millisecond).
    pub frozen_ms: AtomicI64,
    pub sockets: AtomicU64,
    /// Test hook: sessions whose commands get no answer at all (a stalled Session), and the frames
    /// they received.
    pub held_sessions: Mutex<std::collections::HashSet<String>>,
    pub held_frames: Mutex<Vec<(String, String)>>,
    /// The database file was chosen by default (per process): removed when the Session ends.
    pub temporary_db: bool,
    pub broker: ui_actions::Broker,
    /// Sessions whose uploads are refused (403 `UPLOADS_DISABLED`), as `serve --refuse-uploads`
    /// does for all, without touching the other tests sharing this server.
    pub refused_upload_sessions: Mutex<std::collections::HashSet<String>>,
    /// The Host site's origin: the only `Origin` a WebSocket join is admitted from.
    pub host_origin: std::sync::OnceLock<String>,
    /// The read guard's critical section (decision and attempt row together).
    pub reads_guard: Mutex<()>,
    /// `attention_context_set` grants and replay cache.
    pub context_set: Mutex<reads::context_set::ContextState>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.temporary_db {
            let _ = std::fs::remove_file(self.store.path());
        }
    }
}

/// The reference Session. Cheap to clone.
#[derive(Clone)]
pub struct SessionService {
    pub(crate) inner: Arc<Inner>,
}

static DB_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `target/attention-session/<pid>-<n>.sqlite`: per process and server, so parallel test
/// processes never share a file.
pub fn default_db_path() -> PathBuf {
    let n = DB_COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/attention-session");
    if n == 0 {
        remove_files_of_ended_processes(&dir);
    }
    dir.join(format!("{}-{n}.sqlite", std::process::id()))
}

/// A process-wide server is never dropped, so its default file outlives the process: the first
/// Session of a process removes `<pid>-<n>.sqlite*` files whose process has ended.
fn remove_files_of_ended_processes(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some((pid, rest)) = name.split_once('-') else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if rest.contains(".sqlite") && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl SessionService {
    pub fn start(options: SessionOptions) -> Result<SessionService, StoreError> {
        let temporary_db = options.db.is_none();
        let db = options.db.clone().unwrap_or_else(default_db_path);
        let store = store::Store::open(&db)?;
        Ok(SessionService {
            inner: Arc::new(Inner {
                options,
                store,
                users: auth::Users::generate(),
                replies: Mutex::new(Default::default()),
                closes: Mutex::new(Default::default()),
                storage_available: AtomicBool::new(true),
                clock_offset_ms: AtomicI64::new(0),
                frozen_ms: AtomicI64::new(i64::MIN),
                sockets: AtomicU64::new(0),
                held_sessions: Mutex::new(Default::default()),
                held_frames: Mutex::new(Vec::new()),
                temporary_db,
                broker: ui_actions::Broker::default(),
                refused_upload_sessions: Mutex::new(Default::default()),
                host_origin: std::sync::OnceLock::new(),
                reads_guard: Mutex::new(()),
                context_set: Mutex::new(Default::default()),
            }),
        })
    }

    /// The routes, mounted on the Host site.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/api/v1/sessions", post(create_session))
            .route("/api/v1/sessions/capabilities", get(capabilities::get_capabilities))
            .route("/api/v1/sessions/{session_id}/attention-context", patch(attention_setting::patch_attention))
            .route("/api/v1/sessions/{session_id}/messages", get(get_messages))
            .route("/api/v1/sessions/context", axum::routing::any(staging::handle))
            .route("/api/v1/uploads", post(uploads::post_upload))
            .route("/api/v1/uploads/{uuid}", axum::routing::delete(uploads::delete_upload))
            .route("/api/v1/ws/join", get(ws::join))
            .with_state(self.clone())
    }

    // ---- typed read API for tests -------------------------------------------------------------

    /// The bearer token of the reference user (the one the Host page gets).
    pub fn token(&self) -> &str {
        self.inner.users.token(Actor::User)
    }
    /// The token of another reference user (owns none of the user's sessions).
    pub fn other_user_token(&self) -> &str {
        self.inner.users.token(Actor::Other)
    }
    /// The token of an authenticated actor without write permission.
    pub fn reader_token(&self) -> &str {
        self.inner.users.token(Actor::Reader)
    }
    /// The Host site's origin (`http://127.0.0.1:<port>`), set once by the server: the WebSocket
    /// join refuses every other `Origin`, and a join without one.
    pub fn set_host_origin(&self, origin: &str) {
        let _ = self.inner.host_origin.set(origin.to_string());
    }
    pub fn host_origin(&self) -> Option<&str> {
        self.inner.host_origin.get().map(String::as_str)
    }
    pub fn db_path(&self) -> &Path {
        self.inner.store.path()
    }
    pub fn options(&self) -> &SessionOptions {
        &self.inner.options
    }
    /// Creates a session owned by the reference user (what a WebSocket join without `session_id`
    /// does).
    pub fn create_session(&self) -> Result<String, StoreError> {
        self.create_session_for(Actor::User)
    }
    pub fn create_session_for(&self, actor: Actor) -> Result<String, StoreError> {
        self.check_storage()?;
        let id = new_uuid_v7();
        self.inner.store.create_session(&id, actor.name(), &self.now_rfc3339())?;
        Ok(id)
    }
    pub fn attention_state(&self, session_id: &str) -> Result<Option<AttentionState>, StoreError> {
        Ok(self.inner.store.session(session_id)?.map(|s| s.attention))
    }
    /// The stored history of a session, read from the database.
    pub fn messages(&self, session_id: &str) -> Result<Vec<StoredMessage>, StoreError> {
        self.inner.store.messages(session_id)
    }
    pub fn message(&self, message_id: &str) -> Result<Option<StoredMessage>, StoreError> {
        self.inner.store.message(message_id)
    }
    pub fn stages(&self, session_id: &str) -> Result<Vec<StoredStage>, StoreError> {
        self.inner.store.stages(session_id)
    }
    pub fn uploads(&self, session_id: &str) -> Result<Vec<StoredUpload>, StoreError> {
        self.inner.store.uploads(session_id)
    }
    /// From now on, refuse every upload to `session_id` (403), or accept them again.
    pub fn refuse_uploads_for(&self, session_id: &str, refuse: bool) {
        if let Ok(mut s) = self.inner.refused_upload_sessions.lock() {
            if refuse {
                s.insert(session_id.to_string());
            } else {
                s.remove(session_id);
            }
        }
    }
    pub(crate) fn uploads_refused_for(&self, session_id: &str) -> bool {
        self.inner.refused_upload_sessions.lock().is_ok_and(|s| s.contains(session_id))
    }
    /// Row counts of every table.
    pub fn counts(&self) -> Result<Counts, StoreError> {
        self.inner.store.counts()
    }
    /// The frames the Session answered on a WebSocket, oldest first: the last [`KEPT_REPLIES`]
    /// of them (the durable record is the database, [`SessionService::messages`]).
    pub fn replies(&self) -> Vec<Reply> {
        self.inner.replies.lock().map(|r| r.iter().cloned().collect()).unwrap_or_default()
    }
    /// The answers to one `request_id` in one session.
    pub fn replies_to(&self, session_id: &str, request_id: &str) -> Vec<Reply> {
        self.replies()
            .into_iter()
            .filter(|r| r.session_id == session_id && r.request_id.as_deref() == Some(request_id))
            .collect()
    }
    /// Sockets the Session closed itself (1009).
    pub fn closes(&self) -> Vec<Closed> {
        self.inner.closes.lock().map(|r| r.iter().cloned().collect()).unwrap_or_default()
    }
    /// Test hook: make storage unavailable (503 codes) or available again.
    pub fn set_storage_available(&self, available: bool) {
        self.inner.storage_available.store(available, Ordering::SeqCst);
    }
    /// Test hook: the Session stops answering (and storing) commands of `session_id`, as a stalled
    /// Session would; the frames it got are kept for [`SessionService::held_frames`].
    pub fn hold_replies(&self, session_id: &str, hold: bool) {
        if let Ok(mut h) = self.inner.held_sessions.lock() {
            if hold {
                h.insert(session_id.to_string());
            } else {
                h.remove(session_id);
            }
        }
    }
    /// The command frames a held session received, as text.
    pub fn held_frames(&self, session_id: &str) -> Vec<String> {
        self.inner
            .held_frames
            .lock()
            .map(|f| f.iter().filter(|(s, _)| s == session_id).map(|(_, t)| t.clone()).collect())
            .unwrap_or_default()
    }
    /// The UI action broker (agent clarification actions): routes, sent requests, refused results.
    pub fn broker(&self) -> &ui_actions::Broker {
        &self.inner.broker
    }
    /// Starts one agent action on the session's bound Host route; the receiver yields its one
    /// terminal result envelope (relay.md Part 2). Must be called inside the Tokio runtime.
    pub fn request_ui_action(
        &self,
        call: ui_actions::ActionCall,
    ) -> Result<tokio::sync::oneshot::Receiver<Value>, ui_actions::BrokerError> {
        self.inner.broker.request(self, call)
    }
    /// The tool's `session_ui_action_cancel {delivery_handle, call_id}` (relay.md "Legs" 1): the
    /// pending action ends `cancelled` "tool request cancelled" and the Host closes its overlay.
    pub fn cancel_ui_action(&self, delivery_handle: &str, call_id: &str) -> Result<(), ui_actions::BrokerError> {
        self.inner.broker.cancel(self, delivery_handle, call_id)
    }
    /// Runs one agent read tool call through the guard, the broker and the private history
    /// ([`reads::read`]). Must be called inside the Tokio runtime.
    pub async fn read(&self, ctx: &reads::ReadCtx, call: reads::ReadCall) -> reads::ReadResult {
        reads::read(self, ctx, call).await
    }
    /// A browser action completed on the Host (the broker accepted its Host result): the private
    /// read history records it, so reads received before now go stale.
    pub(crate) fn browser_action_completed(&self, session_id: &str) {
        reads::browser_action_completed(self, session_id)
    }
    /// The private read history of a session (staleness applied and persisted first).
    pub fn read_history(&self, session_id: &str) -> Result<Vec<reads::history::ReadRecord>, StoreError> {
        let h = reads::history::History { store: self.store() };
        let turn = h.turn(session_id)?;
        h.refresh(session_id, turn.as_ref().map(|t| t.message_id.as_str()), self.now_ms())
    }
    /// The session's current user turn (its newest stored message id).
    pub fn current_turn(&self, session_id: &str) -> Option<String> {
        (reads::history::History { store: self.store() }).turn(session_id).ok().flatten().map(|t| t.message_id)
    }
    /// What the model would see now for the session's current turn.
    pub fn model_view(&self, session_id: &str) -> Result<reads::view::ModelView, StoreError> {
        reads::view::model_view(self, session_id)
    }
    /// Issues a one-use `attention_context_set` grant (§9).
    pub fn grant_context_set(
        &self,
        session_id: &str,
        agent_id: &str,
    ) -> Result<reads::context_set::Grant, reads::context_set::ContextCode> {
        reads::context_set::issue_grant(self, session_id, agent_id)
    }
    /// One `session_attention_context_request` (§9); the answer is its response object.
    pub fn attention_context_request(&self, request: &Value) -> Value {
        reads::context_set::handle(self, request)
    }
    /// Test hook: stop the Session's clock at the current instant (`true`) or let it run again;
    /// [`SessionService::advance_clock_ms`] still moves it.
    pub fn freeze_clock(&self, frozen: bool) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let v = if frozen { now.as_millis() as i64 } else { i64::MIN };
        self.inner.frozen_ms.store(v, Ordering::SeqCst);
    }
    /// Test hook: move the Session's clock forward (stage expiry) without waiting.
    pub fn advance_clock_ms(&self, ms: i64) {
        self.inner.clock_offset_ms.fetch_add(ms, Ordering::SeqCst);
    }

    // ---- shared helpers -----------------------------------------------------------------------

    pub(crate) fn check_storage(&self) -> Result<(), StoreError> {
        if self.inner.storage_available.load(Ordering::SeqCst) {
            Ok(())
        } else {
            Err(StoreError::Unavailable)
        }
    }
    pub(crate) fn store(&self) -> &store::Store {
        &self.inner.store
    }
    pub(crate) fn now_ms(&self) -> i64 {
        let frozen = self.inner.frozen_ms.load(Ordering::SeqCst);
        let base = if frozen != i64::MIN {
            frozen
        } else {
            let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            d.as_millis() as i64
        };
        base + self.inner.clock_offset_ms.load(Ordering::SeqCst)
    }
    pub(crate) fn now_timestamp(&self) -> crate::contract::Timestamp {
        let ms = self.now_ms();
        crate::contract::Timestamp { secs: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) * 1_000_000) as u32 }
    }
    pub(crate) fn now_rfc3339(&self) -> String {
        rfc3339_ms(self.now_ms())
    }
    pub(crate) fn record_reply(&self, reply: Reply) {
        if let Ok(mut r) = self.inner.replies.lock() {
            if r.len() >= KEPT_REPLIES {
                r.pop_front();
            }
            r.push_back(reply);
        }
    }
    pub(crate) fn record_close(&self, closed: Closed) {
        if let Ok(mut c) = self.inner.closes.lock() {
            if c.len() >= KEPT_REPLIES {
                c.pop_front();
            }
            c.push_back(closed);
        }
    }
}

/// `POST /api/v1/sessions`: a new session for the caller, `{success, session_id}`.
async fn create_session(
    axum::extract::State(s): axum::extract::State<SessionService>,
    headers: axum::http::HeaderMap,
) -> Response {
    blocking(move || create_session_blocking(s, headers)).await
}

fn create_session_blocking(s: SessionService, headers: axum::http::HeaderMap) -> Response {
    let Some(actor) = s.inner.users.authenticate(&headers, None) else { return unauthenticated() };
    match s.create_session_for(actor) {
        Ok(id) => json_response(StatusCode::CREATED, serde_json::json!({"success": true, "session_id": id})),
        Err(_) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "SESSION_STORAGE_UNAVAILABLE",
            "Session storage is unavailable",
        ),
    }
}

/// `GET /api/v1/sessions/{id}/messages`: the history (text and attachment envelopes), for the Host.
async fn get_messages(
    axum::extract::State(s): axum::extract::State<SessionService>,
    axum::extract::Path(session_id): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    blocking(move || get_messages_blocking(s, session_id, headers)).await
}

fn get_messages_blocking(s: SessionService, session_id: String, headers: axum::http::HeaderMap) -> Response {
    let Some(actor) = s.inner.users.authenticate(&headers, None) else { return unauthenticated() };
    match s.store().session(&session_id) {
        Ok(Some(row)) if row.owner == actor.name() => {}
        Ok(_) => return error_response(StatusCode::NOT_FOUND, "SESSION_NOT_FOUND", "Session not found"),
        Err(_) => {
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "SESSION_STORAGE_UNAVAILABLE",
                "Session storage is unavailable",
            )
        }
    }
    match s.messages(&session_id) {
        Ok(list) => json_response(StatusCode::OK, serde_json::json!({"success": true, "messages": list})),
        Err(_) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "SESSION_STORAGE_UNAVAILABLE",
            "Session storage is unavailable",
        ),
    }
}

/// Runs a handler's SQLite and hashing work off the async workers (the harness shares its runtime
/// with the CDP client).
pub(crate) async fn blocking(f: impl FnOnce() -> Response + Send + 'static) -> Response {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|_| {
        error_response(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "The Session handler failed")
    })
}

/// A JSON response with `Cache-Control: no-store`.
pub(crate) fn json_response(status: StatusCode, body: Value) -> Response {
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `{success:false, error:{code, message}}`.
pub(crate) fn error_response(status: StatusCode, code: &str, message: &str) -> Response {
    json_response(status, serde_json::json!({"success": false, "error": {"code": code, "message": message}}))
}

pub(crate) fn unauthenticated() -> Response {
    error_response(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", "Authentication required")
}

/// 16 random bytes from the OS.
pub(crate) fn random_bytes() -> [u8; 16] {
    let mut b = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut b);
    }
    b
}

fn format_uuid(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// A UUIDv7 (RFC 9562): 48-bit Unix ms, version 7, variant 10, random rest.
pub(crate) fn new_uuid_v7() -> String {
    let mut b = random_bytes();
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis() as u64;
    b[..6].copy_from_slice(&ms.to_be_bytes()[2..8]);
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    format_uuid(&b)
}

/// A UUIDv4 (message ids).
pub(crate) fn new_uuid_v4() -> String {
    let mut b = random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    format_uuid(&b)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of Unix milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z", sod / 3600, sod % 3600 / 60, sod % 60, ms.rem_euclid(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_of_known_instants_parses_back_to_the_same_instant() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        let t = crate::contract::Timestamp::parse_session(&rfc3339_ms(1_788_000_000_456)).unwrap();
        assert_eq!((t.secs, t.nanos), (1_788_000_000, 456_000_000));
    }

    #[test]
    fn the_replies_kept_in_memory_are_the_last_kept_replies_however_many_were_answered() {
        let dir = std::env::temp_dir().join(format!("replies-{}-{}", std::process::id(), new_uuid_v4()));
        let s = SessionService::start(SessionOptions { db: Some(dir.join("s.sqlite")), ..SessionOptions::default() })
            .unwrap();
        let reply = |i: usize| Reply {
            session_id: "s".into(),
            request_id: Some(format!("r{i}")),
            command_bytes: 1,
            runtime_context: false,
            transport: Transport::None,
            frame: serde_json::json!({"type": "received", "n": i}),
        };
        for i in 0..KEPT_REPLIES + 5 {
            s.record_reply(reply(i));
        }
        let kept = s.replies();
        assert_eq!(kept.len(), KEPT_REPLIES, "a bounded buffer");
        assert_eq!(kept[0].request_id.as_deref(), Some("r5"), "the oldest are dropped first");
        assert_eq!(kept[KEPT_REPLIES - 1].request_id, Some(format!("r{}", KEPT_REPLIES + 4)));
        assert_eq!(s.replies_to("s", &format!("r{}", KEPT_REPLIES + 4)).len(), 1);
        for i in 0..KEPT_REPLIES + 5 {
            s.record_close(Closed { session_id: "s".into(), code: 1009, frame_bytes: i });
        }
        assert_eq!(s.closes().len(), KEPT_REPLIES);
        drop(s);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn uuid_v7_has_its_version_and_variant_bits() {
        let id = new_uuid_v7();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "7");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, new_uuid_v7());
    }
}
