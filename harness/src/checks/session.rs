//! The Host's composer against the reference Session (spec "Operational verification" items 1, 4
//! and 7; "Message delivery"): a trusted Enter in the composer sends `session_message`, and what the
//! Session stored (read from its database through the typed API, never from the page) is compared
//! with what the runtime produced and with Chromium's box model.

use std::time::Duration;

use anyhow::{anyhow, bail, ensure, Context};
use serde_json::{json, Value};

use super::{require_candidate, require_valid_payload, snapshot_at, wait_for, Leaf, Poll};
use crate::attention::{Envelope, Reported};
use crate::contract::delivery::{choose_delivery, Delivery, SessionCapabilities};
use crate::host::Host;
use crate::input::Key;
use crate::report::text;
use crate::server::session::{SessionService, StoredMessage, Transport};

/// How long a send may take from Enter to its receipt (snapshot, maybe staging, admission).
pub const RECEIPT_WAIT: Duration = Duration::from_secs(15);

/// The Session behind a Host opened by the harness.
pub fn session_of(host: &Host) -> anyhow::Result<&SessionService> {
    host.session.as_ref().ok_or_else(|| anyhow!("this Host was opened without a reference Session"))
}

/// Waits for the composer's Session connection; returns its state (`session_id`, `support` ...).
pub async fn composer_ready(host: &Host) -> anyhow::Result<Value> {
    let state = host.eval("window.__host.session.ready").await?;
    ensure!(state["status"] == "open", "the composer did not join the Session: {state}");
    Ok(state)
}

pub fn session_id(state: &Value) -> anyhow::Result<String> {
    state["session_id"].as_str().map(str::to_string).context("no session_id in the composer state")
}

/// Turns automatic pointing context on or off with a trusted click on the composer's toggle, and
/// waits until the Session's database says so.
pub async fn set_automatic_context(host: &Host, sid: &str, enabled: bool) -> anyhow::Result<()> {
    let session = session_of(host)?;
    let current = session.attention_state(sid)?.context("session not stored")?;
    if current.enabled == enabled {
        return Ok(());
    }
    let (x, y) = host.landmark_rect("composer-context-toggle").await?.center();
    host.click_at(x, y).await?;
    wait_for(host, "the toggle's PATCH reaching the Session", RECEIPT_WAIT, || async {
        let st = session.attention_state(sid)?.context("session not stored")?;
        Ok(if st.enabled == enabled {
            Poll::Ready(())
        } else {
            Poll::Pending(format!("enabled {}, revision {}", st.enabled, st.revision))
        })
    })
    .await?;
    // The page has the answer too, so the next send sees it.
    wait_for(host, "the composer showing the new setting", RECEIPT_WAIT, || async {
        let on = host.eval("window.__host.session.state.automatic").await?;
        Ok(if on == json!(enabled) { Poll::Ready(()) } else { Poll::Pending(on.to_string()) })
    })
    .await
}

/// Puts `text` in the composer: clears the draft, focuses it with a trusted click and types short
/// texts as trusted keys. Long texts (boundary padding) are set as the draft's value first, which
/// is setup, not the input under test; the Enter that sends is always a trusted key press.
pub async fn compose(host: &Host, text: &str) -> anyhow::Result<()> {
    let typed = text.len() <= 64;
    let value = if typed { String::new() } else { text.to_string() };
    host.eval(&format!("(() => {{ const i = document.querySelector('[data-landmark=composer-input]'); i.value = {}; return true; }})()", json!(value)))
        .await?;
    let (x, y) = host.landmark_rect("composer-input").await?.center();
    host.click_at(x, y).await?;
    if typed {
        host.type_text(text).await?;
    }
    let now = host.eval("document.querySelector('[data-landmark=composer-input]').value").await?;
    ensure!(
        now == json!(text),
        "the composer holds {} bytes, not the {} composed",
        now.as_str().map(str::len).unwrap_or(0),
        text.len()
    );
    Ok(())
}

/// Presses a trusted Enter in the composer and waits for the submitted row to settle
/// (`received`, `undelivered` or `unconfirmed`). Returns the row.
pub async fn enter_and_settle(host: &Host) -> anyhow::Result<Value> {
    let before = host.eval("window.__host.session.rows.length").await?.as_u64().unwrap_or(0);
    host.press_key(Key::ENTER).await?;
    settle(host, before).await
}

/// Waits for the composer's row number `before` (the next one after `before` rows) to settle:
/// received, undelivered or unconfirmed; returns it.
pub async fn settle(host: &Host, before: u64) -> anyhow::Result<Value> {
    wait_for(host, "the submitted row's receipt", RECEIPT_WAIT, || async {
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
    .await
}

/// The stored message for a row's request id, read from the database.
pub fn stored_for(session: &SessionService, sid: &str, row: &Value) -> anyhow::Result<StoredMessage> {
    let rid = row["request_id"].as_str().context("row without request_id")?;
    session
        .messages(sid)?
        .into_iter()
        .find(|m| m.request_id == rid)
        .ok_or_else(|| anyhow!("the Session stored nothing for {rid}"))
}

/// The stored attachments equal what the runtime produced: same ids, hashes and content.
pub fn require_same_attachments(stored: &StoredMessage, sent: &Value) -> anyhow::Result<()> {
    let sent = sent.as_array().context("the row has no attachments array")?;
    ensure!(
        stored.attachments.len() == sent.len(),
        "stored {} attachments, sent {}",
        stored.attachments.len(),
        sent.len()
    );
    for (a, s) in stored.attachments.iter().zip(sent) {
        let s: Reported<Envelope> =
            Reported::parse(s.clone()).context("an attachment the Host sent is not a strict envelope")?;
        ensure!(a.attachment_id == s.attachment_id, "attachment_id {} != {}", a.attachment_id, s.attachment_id);
        ensure!(a.content_hash == s.content_hash, "content_hash {} != {}", a.content_hash, s.content_hash);
        // Byte-level identity: the stored JSON against the JSON the runtime produced.
        let env: Value = serde_json::from_str(&a.envelope)?;
        ensure!(&env == s.json(), "the stored envelope differs from the one the runtime produced");
    }
    Ok(())
}

/// Checklist 4 (first half) and the "done when": with automatic context on, a trusted
/// Enter with the pointer on the left leaf sends the runtime's envelope; the Session admits and
/// stores it with the text in one message; the stored payload is a valid v1 snapshot whose leaf
/// candidate is at Chromium's box; the Host's history read gives the same bytes back.
pub async fn composer_sends_context(host: &Host) -> anyhow::Result<(StoredMessage, String)> {
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    set_automatic_context(host, &sid, true).await?;
    compose(host, "what is this?").await?;
    let truth = host.landmark_rect(Leaf::Left.landmark()).await?;
    let (x, y) = truth.center();
    snapshot_at(host, x, y).await?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "the send was not received: {row}");
    ensure!(row["transport"] == "inline", "a one-snapshot message must go inline, went {}", row["transport"]);
    let stored = stored_for(session, &sid, &row)?;
    ensure!(stored.text == "what is this?", "stored text {}, sent “what is this?”", text::quote(&stored.text));
    ensure!(
        Some(stored.message_id.as_str()) == row["message_id"].as_str(),
        "the receipt's message_id is not the stored one"
    );
    require_same_attachments(&stored, &row["attachments"])?;
    // The Session lists versions 1-4, so the composer writes the current compact version 4; its
    // content is read through contract::codec's expansion (issue 21).
    let (env, payload) = super::expand::expanded_snapshot(&serde_json::from_str(&stored.attachments[0].envelope)?)
        .context("the stored attachment")?;
    ensure!(env.version == 4, "a Session listing versions 1-4 got version {}", env.version);
    require_valid_payload(payload.json())?;
    require_candidate(&payload, &truth, "the left leaf (stored payload)")?;
    let replies = session.replies_to(&sid, &stored.request_id);
    ensure!(
        replies.len() == 1 && replies[0].is_received(),
        "expected exactly one received, got {}",
        text::json(&replies)
    );
    ensure!(replies[0].transport == Transport::Inline);
    ensure!(replies[0].runtime_context, "an Attention Session must get the tab binding (runtime_context)");
    // History retrieval as the Host does it.
    let history = host
        .eval(&format!(
            "fetch('/api/v1/sessions/{sid}/messages', {{headers: {{Authorization: 'Bearer ' + document.querySelector('meta[name=wippy-session-token]').content}}}}).then(r => r.json())"
        ))
        .await?;
    let listed = history["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["message_id"] == json!(stored.message_id)))
        .cloned();
    let listed = listed.context("the history does not list the message")?;
    ensure!(listed == serde_json::to_value(&stored)?, "the history retrieval differs from the stored message");
    Ok((stored, sid))
}

/// `checklist-4`: text and attachment persist atomically, survive history retrieval and a restart
/// (a second Session opened on the same database file reads the same history byte for byte; the
/// process-level restart is `tests/session_restart.rs`).
pub async fn checklist_4(host: &Host) -> anyhow::Result<String> {
    let (stored, sid) = composer_sends_context(host).await?;
    let session = session_of(host)?;
    let reopened = crate::server::session::store::Store::open(session.db_path())?;
    let before = serde_json::to_string(&session.messages(&sid)?)?;
    let after = serde_json::to_string(&reopened.messages(&sid)?)?;
    ensure!(before == after, "history read through a fresh connection differs");
    Ok(format!(
        "message {} stored with attachment {} ({}), history equal after reopening ({} bytes)",
        stored.message_id,
        stored.attachments[0].attachment_id,
        stored.attachments[0].content_hash,
        after.len()
    ))
}

/// `checklist-1`: automatic attachment off sends no Attention attachment (nothing inline, no
/// stage); bounded observation still works (a snapshot at the left leaf finds it at Chromium's box).
pub async fn checklist_1(host: &Host) -> anyhow::Result<String> {
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    set_automatic_context(host, &sid, false).await?;
    compose(host, "no context please").await?;
    let truth = host.landmark_rect(Leaf::Left.landmark()).await?;
    let (x, y) = truth.center();
    let snap = snapshot_at(host, x, y).await?;
    require_candidate(&snap, &truth, "the left leaf")?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "not received: {row}");
    let stored = stored_for(session, &sid, &row)?;
    ensure!(
        stored.attachments.is_empty(),
        "automatic context is off but {} attachments were stored",
        stored.attachments.len()
    );
    ensure!(stored.context_ref.is_none(), "a context reference was sent");
    ensure!(session.stages(&sid)?.is_empty(), "a stage was made");
    let replies = session.replies_to(&sid, &stored.request_id);
    ensure!(
        replies.len() == 1 && replies[0].transport == Transport::None,
        "the command carried context: {}",
        text::json(&replies)
    );
    Ok(format!("message {} without attachments; snapshot still finds the left leaf", stored.message_id))
}

/// `checklist-7`: the capabilities the Host read report `attention.context` and
/// `attention.browser_operations`, and a plain message gets exactly one `received`.
pub async fn checklist_7(host: &Host) -> anyhow::Result<String> {
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    ensure!(state["capabilities_status"] == 200, "capabilities answered {}", state["capabilities_status"]);
    let caps = host.eval("window.__host.session.state.support").await?;
    ensure!(caps["supported"] == true, "the Host did not find Attention support: {caps}");
    let token = session.token();
    let body = host
        .eval(&format!("fetch('/api/v1/sessions/capabilities', {{headers: {{Authorization: 'Bearer {token}'}}}}).then(r => r.json())"))
        .await?;
    let parsed = SessionCapabilities::parse(&body).map_err(|e| anyhow!("{e}"))?;
    ensure!(parsed.attention_supported(), "capabilities lack attention.context / browser_operations: {body}");
    set_automatic_context(host, &sid, false).await?;
    compose(host, "plain message").await?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "not received: {row}");
    let stored = stored_for(session, &sid, &row)?;
    let replies = session.replies_to(&sid, &stored.request_id);
    ensure!(replies.len() == 1 && replies[0].is_received(), "expected exactly one received: {}", text::json(&replies));
    Ok(format!(
        "attention.context={} browser_operations={}; one received for {}",
        body["capabilities"]["attention"]["context"],
        body["capabilities"]["attention"]["browser_operations"],
        stored.request_id
    ))
}

/// Inline at exactly 32,768 bytes of encoded command, staged at 32,769 (spec "Message delivery").
/// The context is a fresh envelope from the runtime, pinned so the padding can be exact; the text
/// pads the command to the target length. Returns the stored message.
pub async fn send_command_of_exactly(host: &Host, target: usize) -> anyhow::Result<(Value, StoredMessage)> {
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    set_automatic_context(host, &sid, true).await?;
    let truth = host.landmark_rect(Leaf::Left.landmark()).await?;
    let (x, y) = truth.center();
    let snap = snapshot_at(host, x, y).await?;
    let env = host.envelope(&snap).await?;
    host.eval(&format!("(window.__host.session.pinContext([{}]), true)", env.json())).await?;
    let base =
        host.eval("window.__host.session.inlineCommandBytes('')").await?.as_u64().context("inlineCommandBytes")?
            as usize;
    ensure!(base < target, "the context alone is {base} bytes, over {target}");
    let text = "x".repeat(target - base);
    let measured = host.eval(&format!("window.__host.session.inlineCommandBytes({})", json!(text))).await?;
    ensure!(measured == json!(target), "padding gives {measured} bytes, not {target}");
    compose(host, &text).await?;
    let row = enter_and_settle(host).await?;
    host.eval("(window.__host.session.pinContext(null), true)").await?;
    ensure!(row["delivery"] == "received", "not received: {row}");
    ensure!(row["inline_bytes"] == json!(target), "the Host measured {} bytes, not {target}", row["inline_bytes"]);
    let stored = stored_for(session, &sid, &row)?;
    require_same_attachments(&stored, &json!([env]))?;
    let reply = session.replies_to(&sid, &stored.request_id).into_iter().next().context("no reply")?;
    match choose_delivery(target) {
        Delivery::Inline => {
            ensure!(
                row["transport"] == "inline" && reply.transport == Transport::Inline,
                "{target} bytes must go inline: {row}"
            );
            ensure!(
                reply.command_bytes == target,
                "the Session received a {}-byte command, not {target}",
                reply.command_bytes
            );
        }
        Delivery::Staged => {
            ensure!(
                row["transport"] == "staged" && reply.transport == Transport::Staged,
                "{target} bytes must be staged: {row}"
            );
            ensure!(
                row["command_bytes"] == json!(reply.command_bytes)
                    && reply.command_bytes <= crate::contract::delivery::MAX_INLINE_COMMAND_BYTES,
                "the staged command the Session received is {} bytes (the Host sent {})",
                reply.command_bytes,
                row["command_bytes"]
            );
            let stages = session.stages(&sid)?;
            let stage =
                stages.iter().find(|s| s.request_id == stored.request_id).context("no stage for the request")?;
            ensure!(stage.state == "committed", "the stage is {}", stage.state);
            ensure!(
                stage.body == crate::contract::canonical_json(&json!([env]))?,
                "the stage body is not the canonical array"
            );
        }
    }
    if stored.text.len() != text.len() {
        bail!("stored text has {} bytes, sent {}", stored.text.len(), text.len());
    }
    Ok((row, stored))
}
