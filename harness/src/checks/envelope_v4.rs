//! `wippy.attention` version 4 from the runtime (issue 21; schemas.md §4-6, spec "Message
//! attachment contract", "Limits by attachment version"): the runtime's v4 envelope of a snapshot,
//! expanded by the project's own codec (`contract::codec`, the Session's expansion), is byte for
//! byte the snapshot (with its selection); the same with the selection taken out and
//! `selection-unavailable` added is byte for byte the runtime's v1 content; the Session admits it;
//! the model projection of v1 and v4 is the same apart from the selection. `checks::snapshot_at`
//! runs [`require_v4_expands_to`] on every snapshot it takes.

use anyhow::{anyhow, ensure, Context};
use serde_json::{json, Value};

use super::expand::{expand_envelope, expanded_snapshot};
use super::{require_valid_payload, wait_for, Poll, POINTER_TIMEOUT};
use crate::attention::{Envelope, OmissionReason, Reported, Snapshot};
use crate::contract::canonical::{canonical_json, strip_null_members};
use crate::contract::codec;
use crate::contract::projection::{project_envelope, DEFAULT_RENDER_BUDGET};
use crate::contract::{validate, Admitted, ValidateOptions};
use crate::host::Host;
use crate::report::text;

/// What a version 1 attachment of the same snapshot holds (schemas.md §3: `selection` only in a v4
/// reconstruction): the selection left out, `selection-unavailable` said instead (omissions are
/// capped at 128), so the capture is incomplete.
pub fn v1_equivalent(expanded: &Value) -> Value {
    let mut v = expanded.clone();
    let Some(o) = v.as_object_mut() else { return v };
    if o.remove("selection").is_some() {
        if let Some(om) = o.get_mut("omissions").and_then(Value::as_array_mut) {
            if om.len() < 128 {
                om.push(json!({"reason": OmissionReason::SelectionUnavailable.as_str()}));
            }
        }
        o.get_mut("capture").and_then(Value::as_object_mut).map(|c| c.insert("complete".into(), json!(false)));
    }
    v
}

/// The runtime's v1 and v4 envelopes of one snapshot, and the v4 one expanded.
pub struct V4Of {
    pub v1: Reported<Envelope>,
    pub v4: Reported<Envelope>,
    pub expanded: Value,
}

/// The runtime's v4 envelope of `snap` expands (contract::codec) to exactly `snap`, its v1
/// envelope holds exactly that without the selection, and the model projections of the two agree
/// apart from the selection.
pub async fn require_v4_expands_to(host: &Host, snap: &Reported<Snapshot>) -> anyhow::Result<V4Of> {
    let v4 = host.envelope_version(snap.json(), 4).await?;
    ensure!(v4.version == 4, "the runtime wrote version {} where version 4 was asked for", v4.version);
    let expanded = expand_envelope(&v4)?;
    let want = canonical_json(&strip_null_members(snap.json()))?;
    let got = canonical_json(&expanded)?;
    ensure!(
        got == want,
        "the v4 content expands to {} bytes that are not the snapshot's {} bytes",
        got.len(),
        want.len()
    );
    let v1 = host.envelope_version(snap.json(), 1).await?;
    ensure!(v1.version == 1, "version 1 asked for, {} written", v1.version);
    let v1_content = v1.verify().map_err(|e| anyhow!("the v1 envelope does not verify: {e}"))?;
    ensure!(
        canonical_json(&v1_content)? == canonical_json(&v1_equivalent(&expanded))?,
        "the expanded v4 content without its selection is not the runtime's v1 content"
    );
    require_same_projection(v1.json(), v4.json())?;
    Ok(V4Of { v1, v4, expanded })
}

/// `contract project` of a v1 and a v4 envelope of the same snapshot: identical, except that only
/// v4 renders the selection (and v1 then lists `selection-unavailable` and an incomplete capture).
pub fn require_same_projection(v1: &Value, v4: &Value) -> anyhow::Result<()> {
    let p1 = project_envelope(v1, DEFAULT_RENDER_BUDGET).map_err(|e| anyhow!("v1 projection: {e}"))?;
    let mut p4 = project_envelope(v4, DEFAULT_RENDER_BUDGET).map_err(|e| anyhow!("v4 projection: {e}"))?;
    let had_selection = p4.as_object_mut().and_then(|o| o.remove("selection")).is_some();
    let mut p1 = p1;
    if had_selection {
        let om = p1["omissions"].as_array_mut().context("projection without omissions")?;
        let last = om.pop();
        ensure!(
            last.as_ref().is_some_and(|o| o["reason"] == OmissionReason::SelectionUnavailable.as_str()),
            "the v1 projection does not end with selection-unavailable: its last omission is {}",
            text::opt(last.as_ref())
        );
        p1["capture"]["complete"] = p4["capture"]["complete"].clone();
        p1["partial"]["omissions_omitted"] = p4["partial"]["omissions_omitted"].clone();
    }
    // The schema both renderers show is the reconstruction's, v1.
    ensure!(p1 == p4, "the model sees a v1 and a v4 attachment of one snapshot differently:\nv1 {p1}\nv4 {p4}");
    Ok(())
}

/// The Session's complete admission rules over `[envelope]`, rendered (not inert).
pub fn require_admitted(envelope: &Value) -> anyhow::Result<Admitted> {
    let admitted = validate(&json!([envelope]), &ValidateOptions::default())
        .map_err(|e| anyhow!("the Session would reject it: {e}"))?;
    ensure!(
        admitted.attachments.len() == 1 && !admitted.attachments[0].is_inert(),
        "the attachment would be stored inert, not rendered"
    );
    Ok(admitted)
}

/// A snapshot budgeted for a version 4 attachment (`attachment_version: 4`) around the latest
/// pointer, which must be at (`x`, `y`).
pub async fn v4_snapshot_at(host: &Host, x: f64, y: f64) -> anyhow::Result<Reported<Snapshot>> {
    host.move_to_in_steps(x, y, 4).await?;
    let snap = wait_for(host, "a v4-budgeted snapshot at the pointer", POINTER_TIMEOUT, || async move {
        let snap = host.snapshot_with(json!({"attachment_version": 4})).await?;
        let at = snap.pointer.as_ref().map(|p| (p.point.x, p.point.y));
        Ok(match at {
            Some((px, py)) if (px - x).abs() <= 1.0 && (py - y).abs() <= 1.0 => Poll::Ready(snap),
            _ => Poll::Pending(format!(
                "pointer at {}, expected {}",
                text::opt(at.map(|(px, py)| text::point(px, py))),
                text::point(x, y)
            )),
        })
    })
    .await?;
    require_valid_payload(snap.json())?;
    Ok(snap)
}

/// `envelope-v4-expands-to-the-snapshot`: the boundary snapshot, budgeted for v4, and a snapshot
/// holding a dragged selection in the left leaf: each v4 envelope expands to exactly the snapshot,
/// the v1 one to it without the selection, the Session admits the v4 one (charged its expanded
/// bytes), and the model projections agree apart from the selection.
pub async fn envelope_v4_expands_to_the_snapshot(host: &Host) -> anyhow::Result<String> {
    let (bx, by, _, _) = super::sampling::boundary_point(host).await?;
    let snap = v4_snapshot_at(host, bx, by).await?;
    let of = require_v4_expands_to(host, &snap).await?;
    let admitted = require_admitted(of.v4.json())?;
    let expanded_len = canonical_json(&of.expanded)?.len();
    ensure!(
        admitted.expanded_bytes == expanded_len,
        "the Session charged {} expanded bytes, the expansion is {expanded_len}",
        admitted.expanded_bytes
    );
    let text = host.landmark_rect("left-leaf-text").await?;
    let (_, cy) = text.center();
    host.drag((text.x + 1.0, cy), (text.right() - 1.0, cy), 8).await?;
    let truth = super::selection::selection_truth(host, &["left-leaf-text"])
        .await?
        .context("the drag selected nothing in the page")?;
    let with_sel = wait_for(host, "the dragged selection in a v4 snapshot", POINTER_TIMEOUT, || async {
        let s = host.snapshot_with(json!({"attachment_version": 4})).await?;
        Ok(if s.selection.is_some() {
            Poll::Ready(s)
        } else {
            Poll::Pending(format!("omissions {}", super::omission_words(&s.omissions)))
        })
    })
    .await?;
    let of_sel = require_v4_expands_to(host, &with_sel).await?;
    require_admitted(of_sel.v4.json())?;
    let sel = with_sel.selection.as_ref().context("selection")?;
    ensure!(
        sel.text == super::selection::norm(&truth.text),
        "selection text {}, the page selected {}",
        text::quote(&sel.text),
        text::quote(&truth.text)
    );
    Ok(format!(
        "boundary: v1 {} / v4 {} content bytes, {} candidates; with a selection: v1 {} / v4 {} bytes",
        of.v1.content_bytes,
        of.v4.content_bytes,
        snap.candidates.len(),
        of_sel.v1.content_bytes,
        of_sel.v4.content_bytes
    ))
}

/// What a send with a selection left in the Session.
pub struct SentSelection {
    pub stored: crate::server::session::StoredMessage,
    /// The stored attachment, read strictly.
    pub envelope: Reported<Envelope>,
    /// Its content expanded by `contract::codec`.
    pub snapshot: Reported<Snapshot>,
    /// The page's own selection right before Send (`None`: the page selected nothing).
    pub truth: Option<super::selection::SelectionTruth>,
    /// The stored envelope's bytes as the Session keeps them.
    pub stored_bytes: String,
}

/// With automatic context on: types `text` in the composer, drags the mouse across
/// `landmark` (trusted CDP input), waits until the runtime has the drag's outcome (`settled`), then
/// clicks Send (a trusted click, which leaves the page's selection alone) and reads the message the
/// Session stored.
pub async fn send_after_drag(
    host: &Host,
    landmark: &str,
    text: &str,
    settled: impl Fn(&Snapshot, Option<&super::selection::SelectionTruth>) -> bool,
) -> anyhow::Result<SentSelection> {
    send_after_drag_with(host, landmark, text, settled, async || Ok(())).await
}

/// [`send_after_drag`] with `before_send` run once the runtime has settled and before Send is
/// clicked, while the drag's selection is still in place (to check it against the page).
pub async fn send_after_drag_with(
    host: &Host,
    landmark: &str,
    text: &str,
    settled: impl Fn(&Snapshot, Option<&super::selection::SelectionTruth>) -> bool,
    before_send: impl AsyncFnOnce() -> anyhow::Result<()>,
) -> anyhow::Result<SentSelection> {
    use super::session::{compose, composer_ready, session_id, session_of, set_automatic_context, stored_for};
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    set_automatic_context(host, &sid, true).await?;
    compose(host, text).await?;
    let b = host.landmark_rect(landmark).await?;
    let (top, bottom) = (b.y + 6.0_f64.min(b.height / 2.0), b.bottom() - 6.0_f64.min(b.height / 2.0));
    host.drag((b.x + 1.0, top), (b.right() - 1.0, bottom), 10).await?;
    let truth = super::selection::selection_truth(host, &[landmark]).await?;
    wait_for(host, "the runtime reporting the drag's selection", POINTER_TIMEOUT, || async {
        let s = host.snapshot().await?;
        Ok(if settled(&s, truth.as_ref()) {
            Poll::Ready(())
        } else {
            Poll::Pending(format!(
                "selection {}, omissions {}",
                text::quote_opt(s.selection.as_ref().map(|s| &s.text)),
                super::omission_words(&s.omissions)
            ))
        })
    })
    .await?;
    before_send().await?;
    let before = host.eval("window.__host.session.rows.length").await?.as_u64().unwrap_or(0);
    let (x, y) = host.landmark_rect("composer-send").await?.center();
    host.click_at(x, y).await?;
    let row = wait_for(host, "the submitted row's receipt", super::session::RECEIPT_WAIT, || async {
        let rows = host.eval("window.__host.session.rows").await?;
        let row = rows.as_array().and_then(|r| r.get(before as usize)).cloned();
        Ok(match row {
            Some(r) if matches!(r["delivery"].as_str(), Some("received" | "undelivered" | "unconfirmed")) => {
                Poll::Ready(r)
            }
            Some(r) => Poll::Pending(format!("row {}", r["delivery"])),
            None => Poll::Pending("no new row".into()),
        })
    })
    .await?;
    ensure!(row["delivery"] == "received", "the send was not received: {row}");
    let stored = stored_for(session, &sid, &row)?;
    ensure!(stored.text == text, "stored text {}, sent {}", text::quote(&stored.text), text::quote(text));
    ensure!(stored.attachments.len() == 1, "{} attachments stored", stored.attachments.len());
    let stored_bytes = stored.attachments[0].envelope.clone();
    let (envelope, snapshot) = expanded_snapshot(&serde_json::from_str(&stored_bytes)?)?;
    require_valid_payload(snapshot.json())?;
    Ok(SentSelection { stored, envelope, snapshot, truth, stored_bytes })
}

/// The selection text the runtime must report for the page's `toString()`: white space collapsed,
/// then cut to 1,024 UTF-8 bytes on a character boundary.
pub fn expected_selection_text(page: &str) -> String {
    let norm = super::selection::norm(page);
    let mut out = String::new();
    for c in norm.chars() {
        if out.len() + c.len_utf8() > codec::limits::SELECTION_TEXT_BYTES {
            break;
        }
        out.push(c);
    }
    out
}

/// A sent selection, stored as v4: its text is the page's own (cut to 1,024 bytes), its endpoint
/// paths have the leaf's segment kinds and end at the selected span, its range is the page's, and
/// the model's view of the turn (`contract project` of the stored envelope) shows it.
pub fn require_sent_selection(sent: &SentSelection, kinds: &[&str]) -> anyhow::Result<()> {
    ensure!(sent.envelope.version == 4, "the stored attachment is version {}, not 4", sent.envelope.version);
    let truth = sent.truth.as_ref().context("the page selected nothing")?;
    let sel = sent.snapshot.selection.as_ref().context("the stored v4 attachment carries no selection")?;
    let want = expected_selection_text(&truth.text);
    ensure!(
        sel.text == want,
        "stored selection text {} ({} bytes), the page selected {}",
        text::quote(&sel.text),
        sel.text.len(),
        text::quote(&truth.text)
    );
    let mut cut = truth.clone();
    cut.text = want.clone();
    super::selection::compare(&sent.snapshot, &cut, kinds, kinds)?;
    let projected = project_envelope(sent.envelope.json(), DEFAULT_RENDER_BUDGET)
        .map_err(|e| anyhow!("the stored message does not project: {e}"))?;
    ensure!(
        projected["selection"]["text"] == json!(want),
        "the model's view of the turn does not show the selection: {}",
        projected.get("selection").cloned().unwrap_or(Value::Null)
    );
    Ok(())
}

/// `checklist-4-v4-attachment-with-selection`: checklist 4 with the current compact attachment: a
/// real drag over the left leaf's text, then Send; the Session stored one v4 attachment whose
/// selection is the page's and which `contract::codec` expands to a strict snapshot with the left
/// leaf's path.
pub async fn checklist_4_v4_with_selection(host: &Host) -> anyhow::Result<String> {
    let sent = send_after_drag(host, "left-leaf-text", "what did I select?", |s, t| {
        t.is_some_and(|t| s.selection.as_ref().is_some_and(|x| x.text == expected_selection_text(&t.text)))
    })
    .await?;
    let kinds = super::selection::leaf_kinds(host, super::Leaf::Left);
    require_sent_selection(&sent, &kinds)?;
    require_admitted(sent.envelope.json())?;
    Ok(format!(
        "message {} stored a v4 attachment ({} content bytes) with the selection {}",
        sent.stored.message_id,
        sent.envelope.content_bytes,
        crate::report::text::quote(sent.snapshot.selection.as_ref().map(|s| s.text.as_str()).unwrap_or_default())
    ))
}
