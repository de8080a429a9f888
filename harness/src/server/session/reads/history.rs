//! The Session's private function history of Attention reads (spec "Session stores each compact
//! read result in private function history"): one SQLite row per attempted read (the call's id,
//! tool and arguments; its model.v1 result, refusal receipt or failure; the server's receipt time
//! and the revisions it reported) and the events that withdraw results. Withdrawal is the
//! `metadata.stale` mark: the row stays, only its `stale` / `stale_reason` change.
//!
//! Staleness rules ([`History::refresh`]), all measured on the Session's clock (tests move it with
//! `SessionService::advance_clock_ms`): 30 s after the server received the result
//! (`expired`); a later user turn (`user-turn`); a browser action that completed after it
//! (`browser-action`); a newer read of the same query (`replaced`); for tree reads a later read
//! reporting another tree revision (`tree-revision`), for geometry another geometry revision
//! (`geometry-revision`), for point reads either. Cursor, focus and selection only go stale by
//! replacement (and the three general rules).

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::args::{ReadTool, Staleness};
use crate::server::session::store::{Store, StoreError};

/// How long a read stays usable after the server received it.
pub const READ_LIFETIME_MS: i64 = 30_000;

/// One row of the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadRecord {
    pub seq: i64,
    pub session_id: String,
    pub turn_id: String,
    pub batch_id: String,
    pub call_id: String,
    pub tool: String,
    /// The arguments as the model wrote them (canonical JSON).
    pub args: String,
    pub query_key: Option<String>,
    pub continuation_in: Option<String>,
    /// `pending`, `inspected`, `rejected` (guard or argument refusal) or `failed` (the broker's
    /// or Host's non-inspected terminal status).
    pub status: String,
    pub reason: Option<String>,
    pub invalid: bool,
    /// The model.v1 result, the refusal receipt, or the failure, as stored JSON.
    pub result: Option<String>,
    pub received_at_ms: Option<i64>,
    pub tree_rev: Option<i64>,
    pub geometry_rev: Option<i64>,
    pub continuation_out: Option<String>,
    /// `metadata.stale`.
    pub stale: bool,
    pub stale_reason: Option<String>,
}

impl ReadRecord {
    pub fn tool(&self) -> Option<ReadTool> {
        ReadTool::from_name(&self.tool)
    }
    pub fn result_value(&self) -> Option<serde_json::Value> {
        self.result.as_deref().and_then(|r| serde_json::from_str(r).ok())
    }
    /// An inspected result that is not withdrawn.
    pub fn usable(&self) -> bool {
        self.status == "inspected" && !self.stale
    }
}

/// A row to insert (the attempt, before the Host answers).
pub struct NewRead<'a> {
    pub session_id: &'a str,
    pub turn_id: &'a str,
    pub batch_id: &'a str,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub args: &'a str,
    pub query_key: Option<&'a str>,
    pub continuation_in: Option<&'a str>,
    pub status: &'a str,
    pub reason: Option<&'a str>,
    pub invalid: bool,
    pub result: Option<&'a str>,
}

/// What a finished read stores.
pub struct Finished<'a> {
    pub status: &'a str,
    pub reason: Option<&'a str>,
    pub result: &'a str,
    pub received_at_ms: i64,
    pub tree_rev: Option<i64>,
    pub geometry_rev: Option<i64>,
    pub continuation_out: Option<&'a str>,
}

/// The history over the Session's store.
pub struct History<'a> {
    pub store: &'a Store,
}

const COLUMNS: &str = "seq, session_id, turn_id, batch_id, call_id, tool, args, query_key, continuation_in, status, reason, invalid, result, received_at_ms, tree_rev, geometry_rev, continuation_out, stale, stale_reason";

fn row(r: &rusqlite::Row) -> rusqlite::Result<ReadRecord> {
    Ok(ReadRecord {
        seq: r.get(0)?,
        session_id: r.get(1)?,
        turn_id: r.get(2)?,
        batch_id: r.get(3)?,
        call_id: r.get(4)?,
        tool: r.get(5)?,
        args: r.get(6)?,
        query_key: r.get(7)?,
        continuation_in: r.get(8)?,
        status: r.get(9)?,
        reason: r.get(10)?,
        invalid: r.get::<_, i64>(11)? != 0,
        result: r.get(12)?,
        received_at_ms: r.get(13)?,
        tree_rev: r.get(14)?,
        geometry_rev: r.get(15)?,
        continuation_out: r.get(16)?,
        stale: r.get::<_, i64>(17)? != 0,
        stale_reason: r.get(18)?,
    })
}

/// The current user turn of a session: its newest stored message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRow {
    pub message_id: String,
    pub created_at: String,
}

impl History<'_> {
    pub fn insert(&self, n: &NewRead) -> Result<i64, StoreError> {
        self.store.with(|c| {
            c.execute(
                "INSERT INTO reads (session_id, turn_id, batch_id, call_id, tool, args, query_key, continuation_in, status, reason, invalid, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![n.session_id, n.turn_id, n.batch_id, n.call_id, n.tool, n.args, n.query_key, n.continuation_in, n.status, n.reason, n.invalid as i64, n.result],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    pub fn finish(&self, seq: i64, f: &Finished) -> Result<(), StoreError> {
        self.store.with(|c| {
            c.execute(
                "UPDATE reads SET status = ?1, reason = ?2, result = ?3, received_at_ms = ?4, tree_rev = ?5, geometry_rev = ?6, continuation_out = ?7 WHERE seq = ?8",
                params![f.status, f.reason, f.result, f.received_at_ms, f.tree_rev, f.geometry_rev, f.continuation_out, seq],
            )
            .map(|_| ())
        })
    }

    /// Every row of a session, oldest first.
    pub fn records(&self, session_id: &str) -> Result<Vec<ReadRecord>, StoreError> {
        self.store.with(|c| {
            let mut st = c.prepare(&format!("SELECT {COLUMNS} FROM reads WHERE session_id = ?1 ORDER BY seq"))?;
            let rows = st.query_map(params![session_id], row)?;
            rows.collect()
        })
    }

    pub fn turn(&self, session_id: &str) -> Result<Option<TurnRow>, StoreError> {
        self.store.with(|c| {
            c.query_row(
                "SELECT message_id, created_at FROM messages WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1",
                params![session_id],
                |r| Ok(TurnRow { message_id: r.get(0)?, created_at: r.get(1)? }),
            )
            .optional()
        })
    }

    pub fn add_event(&self, session_id: &str, kind: &str, at_ms: i64) -> Result<(), StoreError> {
        self.store.with(|c| {
            c.execute(
                "INSERT INTO read_events (session_id, kind, at_ms) VALUES (?1, ?2, ?3)",
                params![session_id, kind, at_ms],
            )
            .map(|_| ())
        })
    }

    /// Times of the session's completed browser actions, oldest first.
    pub fn action_times(&self, session_id: &str) -> Result<Vec<i64>, StoreError> {
        self.store.with(|c| {
            let mut st =
                c.prepare("SELECT at_ms FROM read_events WHERE session_id = ?1 AND kind = 'action' ORDER BY at_ms")?;
            let rows = st.query_map(params![session_id], |r| r.get(0))?;
            rows.collect()
        })
    }

    fn mark(&self, seq: i64, reason: &str) -> Result<(), StoreError> {
        self.store.with(|c| {
            c.execute(
                "UPDATE reads SET stale = 1, stale_reason = ?1 WHERE seq = ?2 AND stale = 0",
                params![reason, seq],
            )
            .map(|_| ())
        })
    }

    /// Applies every staleness rule at `now_ms` for the current turn `turn_id` and persists the
    /// marks; returns the rows as they are now.
    pub fn refresh(&self, session_id: &str, turn_id: Option<&str>, now_ms: i64) -> Result<Vec<ReadRecord>, StoreError> {
        let rows = self.records(session_id)?;
        let actions = self.action_times(session_id)?;
        for (i, r) in rows.iter().enumerate() {
            if r.status != "inspected" || r.stale {
                continue;
            }
            if let Some(reason) = stale_reason(r, &rows[i + 1..], turn_id, &actions, now_ms) {
                self.mark(r.seq, reason)?;
            }
        }
        self.records(session_id)
    }
}

/// Why `r` is withdrawn, given the rows after it, the current turn, the completed actions and
/// the time; `None` while it is usable.
pub fn stale_reason(
    r: &ReadRecord,
    later: &[ReadRecord],
    turn_id: Option<&str>,
    actions: &[i64],
    now_ms: i64,
) -> Option<&'static str> {
    let at = r.received_at_ms?;
    if now_ms - at >= READ_LIFETIME_MS {
        return Some("expired");
    }
    if turn_id != Some(r.turn_id.as_str()) {
        return Some("user-turn");
    }
    if actions.iter().any(|&t| t >= at) {
        return Some("browser-action");
    }
    let answered = later.iter().filter(|l| l.status == "inspected");
    let mut tree = false;
    let mut geometry = false;
    for l in answered {
        if l.query_key.is_some() && l.query_key == r.query_key && l.continuation_in == r.continuation_in {
            return Some("replaced");
        }
        tree |= l.tree_rev.is_some() && l.tree_rev != r.tree_rev;
        geometry |= l.geometry_rev.is_some() && l.geometry_rev != r.geometry_rev;
    }
    match r.tool().map(ReadTool::staleness) {
        Some(Staleness::Tree | Staleness::Both) if tree => Some("tree-revision"),
        Some(Staleness::Geometry | Staleness::Both) if geometry => Some("geometry-revision"),
        _ => None,
    }
}
