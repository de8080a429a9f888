//! The Session's durable state in one SQLite file (rusqlite, bundled): sessions with their
//! Attention setting (schemas.md §9 "Stored state"), messages with their context attachments
//! (spec "Message attachment contract": text and attachments commit in one transaction), stages
//! (§12), uploads, and the tables of the private read history (`reads`, `read_events`; the
//! queries on them are `reads::history`'s). Every admitted message is one transaction; a
//! rejection writes nothing.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session database {path}: {source}")]
    Open { path: PathBuf, source: rusqlite::Error },
    #[error("cannot create the folder of the session database {path}: {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error("session database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("session storage is unavailable")]
    Unavailable,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL,
  attention_enabled INTEGER NOT NULL DEFAULT 0, attention_revision INTEGER NOT NULL DEFAULT 0,
  attention_updated_at TEXT NOT NULL, attention_updated_by TEXT NOT NULL DEFAULT 'system');
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL,
  request_id TEXT NOT NULL, request_fingerprint TEXT NOT NULL, text TEXT NOT NULL,
  context_ref TEXT, created_at TEXT NOT NULL, UNIQUE(session_id, request_id));
CREATE TABLE IF NOT EXISTS attachments (
  message_id TEXT NOT NULL, idx INTEGER NOT NULL, attachment_id TEXT NOT NULL, kind TEXT NOT NULL,
  version INTEGER NOT NULL, content_hash TEXT NOT NULL, content_bytes INTEGER NOT NULL,
  inert INTEGER NOT NULL, envelope TEXT NOT NULL, PRIMARY KEY(message_id, idx));
CREATE TABLE IF NOT EXISTS stages (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, actor TEXT NOT NULL, request_id TEXT NOT NULL,
  body TEXT NOT NULL, content_hash TEXT NOT NULL, content_bytes INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL, state TEXT NOT NULL, UNIQUE(session_id, request_id));
CREATE TABLE IF NOT EXISTS uploads (
  uuid TEXT PRIMARY KEY, session_id TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
  mime TEXT NOT NULL, byte_size INTEGER NOT NULL, sha256 TEXT NOT NULL, bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS reads (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, turn_id TEXT NOT NULL,
  batch_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
  query_key TEXT, continuation_in TEXT, status TEXT NOT NULL, reason TEXT,
  invalid INTEGER NOT NULL DEFAULT 0, result TEXT, received_at_ms INTEGER,
  tree_rev INTEGER, geometry_rev INTEGER, continuation_out TEXT,
  stale INTEGER NOT NULL DEFAULT 0, stale_reason TEXT);
CREATE TABLE IF NOT EXISTS read_events (
  session_id TEXT NOT NULL, kind TEXT NOT NULL, at_ms INTEGER NOT NULL);
";

/// The Attention setting of one session (`wippy.attention.session.v1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttentionState {
    pub enabled: bool,
    pub revision: i64,
    pub updated_at: String,
    pub updated_by: String,
}

impl AttentionState {
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::json!({"schema": "wippy.attention.session.v1", "enabled": self.enabled, "revision": self.revision,
            "updated_at": self.updated_at, "updated_by": self.updated_by})
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub owner: String,
    pub attention: AttentionState,
}

/// One stored context attachment: `envelope` is the envelope JSON exactly as admitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredAttachment {
    pub attachment_id: String,
    pub kind: String,
    pub version: i64,
    pub content_hash: String,
    pub content_bytes: i64,
    pub inert: bool,
    pub envelope: String,
}

/// One stored user message (never contains `runtime_context`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredMessage {
    pub message_id: String,
    pub session_id: String,
    pub request_id: String,
    pub text: String,
    /// The `context_attachments_ref` the message was sent with (staged transport), as JSON.
    pub context_ref: Option<String>,
    pub created_at: String,
    pub attachments: Vec<StoredAttachment>,
}

/// A stage of the staged transport (§12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredStage {
    pub id: String,
    pub session_id: String,
    pub actor: String,
    pub request_id: String,
    pub body: String,
    pub content_hash: String,
    pub content_bytes: i64,
    pub expires_at_ms: i64,
    /// `pending`, `committed` or `cancelled`.
    pub state: String,
}

/// An upload; `bytes` are what was received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredUpload {
    pub uuid: String,
    pub session_id: String,
    pub owner: String,
    pub name: String,
    pub mime: String,
    pub byte_size: i64,
    pub sha256: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// Row counts of every table: what tests compare before and after a rejected request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Counts {
    pub sessions: i64,
    pub messages: i64,
    pub attachments: i64,
    pub stages: i64,
    pub uploads: i64,
    /// Rows of the private read history (`super::reads::history`).
    pub reads: i64,
}

/// A new message and its attachments, written in one transaction.
pub struct NewMessage<'a> {
    pub message_id: &'a str,
    pub session_id: &'a str,
    pub request_id: &'a str,
    pub fingerprint: &'a str,
    pub text: &'a str,
    pub context_ref: Option<&'a str>,
    pub created_at: &'a str,
    pub attachments: &'a [StoredAttachment],
    /// A stage this message consumes (one-use reference), marked `committed` in the same
    /// transaction.
    pub consumes_stage: Option<&'a str>,
}

/// What [`Store::insert_message`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inserted {
    New,
    /// The session already had a message of this `request_id`: nothing was written.
    Existing {
        message_id: String,
        fingerprint: String,
    },
    /// The stage the message consumes was consumed by another message first: nothing was written.
    StageGone,
}

/// What [`Store::insert_stage_checked`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageInsert {
    Created,
    Existing(StoredStage),
    Conflict,
    Quota,
}

/// What [`Store::update_attention`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttentionUpdate {
    Updated(AttentionState),
    Unchanged(AttentionState),
    Conflict(AttentionState),
}

pub struct Store {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Store {
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder { path: dir.to_path_buf(), source })?;
        }
        let conn = Connection::open(path).map_err(|source| StoreError::Open { path: path.to_path_buf(), source })?;
        conn.execute_batch(SCHEMA).map_err(|source| StoreError::Open { path: path.to_path_buf(), source })?;
        Ok(Store { path: path.to_path_buf(), conn: Mutex::new(conn) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let mut conn = self.conn.lock().map_err(|_| StoreError::Unavailable)?;
        Ok(f(&mut conn)?)
    }

    pub fn create_session(&self, id: &str, owner: &str, now: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO sessions (id, owner, created_at, attention_updated_at) VALUES (?1, ?2, ?3, ?3)",
                params![id, owner, now],
            )
            .map(|_| ())
        })
    }

    pub fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        self.with(|c| {
            c.query_row(
                "SELECT id, owner, attention_enabled, attention_revision, attention_updated_at, attention_updated_by FROM sessions WHERE id = ?1",
                params![id],
                |r| {
                    Ok(SessionRow {
                        id: r.get(0)?,
                        owner: r.get(1)?,
                        attention: AttentionState { enabled: r.get::<_, i64>(2)? != 0, revision: r.get(3)?, updated_at: r.get(4)?, updated_by: r.get(5)? },
                    })
                },
            )
            .optional()
        })
    }

    /// The PATCH of §10 as one `BEGIN IMMEDIATE` transaction under the connection lock: with
    /// `expected`, a revision other than it is a conflict (the current state comes back); an
    /// unchanged value is a no-op (the revision stays); otherwise `enabled` is written and the
    /// revision goes up by one. Without `expected` no conflict is possible: concurrent writers are
    /// serialized, each seeing the one before it. `None` when the session does not exist.
    pub fn update_attention(
        &self,
        id: &str,
        expected: Option<i64>,
        enabled: bool,
        now: &str,
        by: &str,
    ) -> Result<Option<AttentionUpdate>, StoreError> {
        self.with(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let Some(current) = Self::attention_in(&tx, id)? else { return Ok(None) };
            if expected.is_some_and(|e| e != current.revision) {
                return Ok(Some(AttentionUpdate::Conflict(current)));
            }
            if current.enabled == enabled {
                return Ok(Some(AttentionUpdate::Unchanged(current)));
            }
            tx.execute(
                "UPDATE sessions SET attention_enabled = ?1, attention_revision = attention_revision + 1, attention_updated_at = ?2, attention_updated_by = ?3 WHERE id = ?4",
                params![enabled as i64, now, by, id],
            )?;
            let updated = Self::attention_in(&tx, id)?;
            tx.commit()?;
            Ok(updated.map(AttentionUpdate::Updated))
        })
    }

    fn attention_in(c: &Connection, id: &str) -> rusqlite::Result<Option<AttentionState>> {
        c.query_row(
            "SELECT attention_enabled, attention_revision, attention_updated_at, attention_updated_by FROM sessions WHERE id = ?1",
            params![id],
            |r| Ok(AttentionState { enabled: r.get::<_, i64>(0)? != 0, revision: r.get(1)?, updated_at: r.get(2)?, updated_by: r.get(3)? }),
        )
        .optional()
    }

    pub fn message_by_request(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> Result<Option<(StoredMessage, String)>, StoreError> {
        let found: Option<(String, String)> = self.with(|c| {
            c.query_row(
                "SELECT message_id, request_fingerprint FROM messages WHERE session_id = ?1 AND request_id = ?2",
                params![session_id, request_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
        })?;
        match found {
            Some((mid, fp)) => Ok(self.message(&mid)?.map(|m| (m, fp))),
            None => Ok(None),
        }
    }

    /// Check-and-insert in one `BEGIN IMMEDIATE` transaction under the connection lock: when the
    /// session already has a message of this `request_id` (another socket raced this one, or a
    /// retry), nothing is written and that message's id and fingerprint come back, so the caller
    /// answers it as the retry it is. The `UNIQUE(session_id, request_id)` constraint backs this up
    /// for writers outside this process.
    pub fn insert_message(&self, m: &NewMessage) -> Result<Inserted, StoreError> {
        self.with(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let prior: Option<(String, String)> = tx
                .query_row(
                    "SELECT message_id, request_fingerprint FROM messages WHERE session_id = ?1 AND request_id = ?2",
                    params![m.session_id, m.request_id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            if let Some((message_id, fingerprint)) = prior {
                return Ok(Inserted::Existing { message_id, fingerprint });
            }
            tx.execute(
                "INSERT INTO messages (message_id, session_id, request_id, request_fingerprint, text, context_ref, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![m.message_id, m.session_id, m.request_id, m.fingerprint, m.text, m.context_ref, m.created_at],
            )?;
            for (i, a) in m.attachments.iter().enumerate() {
                tx.execute(
                    "INSERT INTO attachments (message_id, idx, attachment_id, kind, version, content_hash, content_bytes, inert, envelope) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![m.message_id, i as i64, a.attachment_id, a.kind, a.version, a.content_hash, a.content_bytes, a.inert as i64, a.envelope],
                )?;
            }
            if let Some(stage) = m.consumes_stage {
                let n = tx.execute("UPDATE stages SET state = 'committed' WHERE id = ?1 AND state = 'pending'", params![stage])?;
                if n != 1 {
                    // Another message consumed it between resolve and commit: nothing is written.
                    return Ok(Inserted::StageGone);
                }
            }
            tx.commit()?;
            Ok(Inserted::New)
        })
    }

    pub fn message(&self, message_id: &str) -> Result<Option<StoredMessage>, StoreError> {
        let head = self.with(|c| {
            c.query_row(
                "SELECT message_id, session_id, request_id, text, context_ref, created_at FROM messages WHERE message_id = ?1",
                params![message_id],
                |r| {
                    Ok(StoredMessage {
                        message_id: r.get(0)?,
                        session_id: r.get(1)?,
                        request_id: r.get(2)?,
                        text: r.get(3)?,
                        context_ref: r.get(4)?,
                        created_at: r.get(5)?,
                        attachments: vec![],
                    })
                },
            )
            .optional()
        })?;
        let Some(mut m) = head else { return Ok(None) };
        m.attachments = self.attachments(&m.message_id)?;
        Ok(Some(m))
    }

    fn attachments(&self, message_id: &str) -> Result<Vec<StoredAttachment>, StoreError> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT attachment_id, kind, version, content_hash, content_bytes, inert, envelope FROM attachments WHERE message_id = ?1 ORDER BY idx",
            )?;
            let rows = st.query_map(params![message_id], |r| {
                Ok(StoredAttachment {
                    attachment_id: r.get(0)?,
                    kind: r.get(1)?,
                    version: r.get(2)?,
                    content_hash: r.get(3)?,
                    content_bytes: r.get(4)?,
                    inert: r.get::<_, i64>(5)? != 0,
                    envelope: r.get(6)?,
                })
            })?;
            rows.collect()
        })
    }

    /// The history of a session, oldest first.
    pub fn messages(&self, session_id: &str) -> Result<Vec<StoredMessage>, StoreError> {
        let ids: Vec<String> = self.with(|c| {
            let mut st = c.prepare("SELECT message_id FROM messages WHERE session_id = ?1 ORDER BY seq")?;
            let rows = st.query_map(params![session_id], |r| r.get(0))?;
            rows.collect()
        })?;
        ids.iter().filter_map(|id| self.message(id).transpose()).collect()
    }

    pub fn counts(&self) -> Result<Counts, StoreError> {
        self.with(|c| {
            let n = |t: &str| c.query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get::<_, i64>(0));
            Ok(Counts {
                sessions: n("sessions")?,
                messages: n("messages")?,
                attachments: n("attachments")?,
                stages: n("stages")?,
                uploads: n("uploads")?,
                reads: n("reads")?,
            })
        })
    }

    /// Check-and-insert of a stage in one `BEGIN IMMEDIATE` transaction under the connection lock,
    /// so concurrent posts can neither overrun the quotas nor create two stages of one request:
    /// - a stage of this `(session_id, request_id)` exists: a pending unexpired one with the same
    ///   hash is handed back; a pending but expired one with the same hash is replaced by `s` (a
    ///   fresh id and expiry, within the quotas); anything else is a conflict;
    /// - otherwise `s` is inserted when the pending, unexpired stages of its session, its actor and
    ///   of everyone are below `limits` (`per_session, per_actor, total`).
    pub fn insert_stage_checked(
        &self,
        s: &StoredStage,
        now_ms: i64,
        limits: (i64, i64, i64),
    ) -> Result<StageInsert, StoreError> {
        self.with(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let prior = Self::stage_rows_in(
                &tx,
                &format!("SELECT {} FROM stages WHERE session_id = ?1 AND request_id = ?2", Self::STAGE_COLS),
                params![s.session_id, s.request_id],
            )?
            .into_iter()
            .next();
            let replaces = match prior {
                Some(p) if p.content_hash == s.content_hash && p.state == "pending" && p.expires_at_ms > now_ms => {
                    return Ok(StageInsert::Existing(p))
                }
                Some(p) if p.content_hash == s.content_hash && p.state == "pending" => Some(p.id),
                Some(_) => return Ok(StageInsert::Conflict),
                None => None,
            };
            let q = "SELECT COALESCE(SUM(session_id = ?1), 0), COALESCE(SUM(actor = ?2), 0), COUNT(*) FROM stages WHERE state = 'pending' AND expires_at_ms > ?3";
            let (per_session, per_actor, total): (i64, i64, i64) =
                tx.query_row(q, params![s.session_id, s.actor, now_ms], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            if per_session >= limits.0 || per_actor >= limits.1 || total >= limits.2 {
                return Ok(StageInsert::Quota);
            }
            if let Some(old) = replaces {
                tx.execute("DELETE FROM stages WHERE id = ?1", params![old])?;
            }
            tx.execute(
                "INSERT INTO stages (id, session_id, actor, request_id, body, content_hash, content_bytes, expires_at_ms, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![s.id, s.session_id, s.actor, s.request_id, s.body, s.content_hash, s.content_bytes, s.expires_at_ms, s.state],
            )?;
            tx.commit()?;
            Ok(StageInsert::Created)
        })
    }

    fn stage_rows_in(c: &Connection, sql: &str, p: impl rusqlite::Params) -> rusqlite::Result<Vec<StoredStage>> {
        let mut st = c.prepare(sql)?;
        let rows = st.query_map(p, |r| {
            Ok(StoredStage {
                id: r.get(0)?,
                session_id: r.get(1)?,
                actor: r.get(2)?,
                request_id: r.get(3)?,
                body: r.get(4)?,
                content_hash: r.get(5)?,
                content_bytes: r.get(6)?,
                expires_at_ms: r.get(7)?,
                state: r.get(8)?,
            })
        })?;
        rows.collect()
    }

    fn stage_rows(&self, sql: &str, p: impl rusqlite::Params) -> Result<Vec<StoredStage>, StoreError> {
        self.with(|c| Self::stage_rows_in(c, sql, p))
    }

    const STAGE_COLS: &'static str =
        "id, session_id, actor, request_id, body, content_hash, content_bytes, expires_at_ms, state";

    pub fn stage(&self, id: &str) -> Result<Option<StoredStage>, StoreError> {
        Ok(self
            .stage_rows(&format!("SELECT {} FROM stages WHERE id = ?1", Self::STAGE_COLS), params![id])?
            .into_iter()
            .next())
    }

    pub fn stage_by_request(&self, session_id: &str, request_id: &str) -> Result<Option<StoredStage>, StoreError> {
        Ok(self
            .stage_rows(
                &format!("SELECT {} FROM stages WHERE session_id = ?1 AND request_id = ?2", Self::STAGE_COLS),
                params![session_id, request_id],
            )?
            .into_iter()
            .next())
    }

    pub fn stages(&self, session_id: &str) -> Result<Vec<StoredStage>, StoreError> {
        self.stage_rows(
            &format!("SELECT {} FROM stages WHERE session_id = ?1 ORDER BY rowid", Self::STAGE_COLS),
            params![session_id],
        )
    }

    pub fn cancel_stage(&self, id: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            c.execute("UPDATE stages SET state = 'cancelled' WHERE id = ?1 AND state = 'pending'", params![id])
                .map(|n| n == 1)
        })
    }

    pub fn insert_upload(&self, u: &StoredUpload) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO uploads (uuid, session_id, owner, name, mime, byte_size, sha256, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![u.uuid, u.session_id, u.owner, u.name, u.mime, u.byte_size, u.sha256, u.bytes],
            )
            .map(|_| ())
        })
    }

    pub fn upload(&self, uuid: &str) -> Result<Option<StoredUpload>, StoreError> {
        self.with(|c| {
            c.query_row(
                "SELECT uuid, session_id, owner, name, mime, byte_size, sha256, bytes FROM uploads WHERE uuid = ?1",
                params![uuid],
                |r| {
                    Ok(StoredUpload {
                        uuid: r.get(0)?,
                        session_id: r.get(1)?,
                        owner: r.get(2)?,
                        name: r.get(3)?,
                        mime: r.get(4)?,
                        byte_size: r.get(5)?,
                        sha256: r.get(6)?,
                        bytes: r.get(7)?,
                    })
                },
            )
            .optional()
        })
    }

    /// Removes an upload (composer-file removal cleans it up); `true` when it existed.
    pub fn delete_upload(&self, uuid: &str) -> Result<bool, StoreError> {
        self.with(|c| c.execute("DELETE FROM uploads WHERE uuid = ?1", params![uuid]).map(|n| n == 1))
    }

    /// Replaces the stored bytes of an upload and nothing else (tests: a tampered stored file that
    /// the resolver must refuse at prompt time).
    pub fn overwrite_upload_bytes(&self, uuid: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        self.with(|c| c.execute("UPDATE uploads SET bytes = ?2 WHERE uuid = ?1", params![uuid, bytes]).map(|n| n == 1))
    }

    pub fn uploads(&self, session_id: &str) -> Result<Vec<StoredUpload>, StoreError> {
        let ids: Vec<String> = self.with(|c| {
            let mut st = c.prepare("SELECT uuid FROM uploads WHERE session_id = ?1 ORDER BY rowid")?;
            let rows = st.query_map(params![session_id], |r| r.get(0))?;
            rows.collect()
        })?;
        ids.iter().filter_map(|id| self.upload(id).transpose()).collect()
    }
}
