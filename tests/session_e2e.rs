//! End to end through the reference Host's composer: a trusted Enter (CDP key events) sends
//! `session_message`, and what the Session stored (its database, through the typed read API) is
//! compared with what the runtime produced and with Chromium's box model.

use attention_harness::checks::session;
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn trusted_enter_in_the_composer_sends_context_the_session_admits_and_stores(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| session::composer_sends_context(h).await.map(drop));
}

#[rstest]
fn a_command_of_exactly_32768_bytes_goes_inline_and_32769_is_staged(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host(layout, Engine::Iframe, async |h| {
        let (row, stored) = session::send_command_of_exactly(h, 32_768).await?;
        anyhow::ensure!(row["transport"] == "inline" && stored.context_ref.is_none(), "32,768: {row}");
        let (row, stored) = session::send_command_of_exactly(h, 32_769).await?;
        anyhow::ensure!(row["transport"] == "staged" && stored.context_ref.is_some(), "32,769: {row}");
        Ok(())
    });
}

#[rstest]
fn automatic_context_off_sends_no_attachment_and_observation_still_works(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host(layout, Engine::Iframe, async |h| session::checklist_1(h).await.map(drop));
}

#[rstest]
fn capabilities_report_attention_and_a_plain_message_gets_its_received(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host(layout, Engine::Iframe, async |h| session::checklist_7(h).await.map(drop));
}

use anyhow::{ensure, Context};
use attention_harness::checks::session::{
    compose, composer_ready, enter_and_settle, session_id, session_of, set_automatic_context,
};
use attention_harness::{run_host_opts, Harness, Host, HostOptions};
use serde_json::json;

/// Makes the composer send, as its context, the runtime's envelope with a forged hash: a context
/// the Session (and staging) must refuse.
async fn pin_forged_context(h: &Host) -> anyhow::Result<()> {
    let snap = h.snapshot().await?;
    // An envelope is strings and integers: the typed one re-serializes to what the runtime sent.
    let (mut env, _) = h.envelope(&snap).await?.into_parts();
    env.content_hash = format!("sha256:{}", "0".repeat(64));
    h.eval(&format!("(window.__host.session.pinContext([{}]), true)", json!(env))).await?;
    Ok(())
}

fn composer_value(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

#[rstest]
fn a_rejected_send_shows_undelivered_keeps_the_draft_and_is_never_resent(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host(layout, Engine::Iframe, async |h| {
        let session = session_of(h)?;
        let sid = session_id(&composer_ready(h).await?)?;
        set_automatic_context(h, &sid, true).await?;
        pin_forged_context(h).await?;
        // Other tests share this server: compare this session's own rows.
        let rows =
            || -> anyhow::Result<(usize, usize)> { Ok((session.messages(&sid)?.len(), session.stages(&sid)?.len())) };
        let before = rows()?;
        compose(h, "forged context").await?;
        let row = enter_and_settle(h).await?;
        ensure!(row["delivery"] == "undelivered", "expected Undelivered, got {row}");
        ensure!(row["code"] == "invalid_context_attachments" && row["detail_code"] == "content-hash-mismatch", "{row}");
        ensure!(rows()? == before, "a rejected send stored something");
        let label = h
            .eval(&format!(
                "document.querySelector('[data-request-id=\"{}\"] .delivery').textContent",
                row["request_id"].as_str().unwrap()
            ))
            .await?;
        ensure!(label == "Undelivered", "the row says {label}");
        let draft = composer_value(&h.eval("document.querySelector('[data-landmark=composer-input]').value").await?);
        ensure!(draft == "forged context", "the draft is not kept: {draft:?}");
        // A later send goes through; the rejected one was sent exactly once (the socket is ordered).
        h.eval("(window.__host.session.pinContext(null), true)").await?;
        set_automatic_context(h, &sid, false).await?;
        compose(h, "next").await?;
        let next = enter_and_settle(h).await?;
        ensure!(next["delivery"] == "received", "{next}");
        let rid = row["request_id"].as_str().context("request id")?;
        ensure!(session.replies_to(&sid, rid).len() == 1, "the rejected request was sent more than once");
        Ok(())
    });
}

#[rstest]
fn no_receipt_shows_delivery_not_confirmed_and_nothing_is_resent(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host_opts(HostOptions::new(layout, Engine::Iframe).receipt_timeout_ms(400), async |h| {
        let session = session_of(h)?;
        let sid = session_id(&composer_ready(h).await?)?;
        session.hold_replies(&sid, true);
        compose(h, "into the void").await?;
        let row = enter_and_settle(h).await?;
        ensure!(row["delivery"] == "unconfirmed", "expected Delivery not confirmed, got {row}");
        let label = h
            .eval(&format!(
                "document.querySelector('[data-request-id=\"{}\"] .delivery').textContent",
                row["request_id"].as_str().unwrap()
            ))
            .await?;
        ensure!(label == "Delivery not confirmed", "the row says {label}");
        // Unknown acceptance: the composer stays as the send left it (cleared), nothing is resent.
        let draft = composer_value(&h.eval("document.querySelector('[data-landmark=composer-input]').value").await?);
        ensure!(draft.is_empty(), "the composer was refilled: {draft:?}");
        session.hold_replies(&sid, false);
        // The later message must be `received`: it waits the default 10 s for its receipt, so a
        // machine busy enough to answer after 400 ms cannot fail what the stall above proved.
        ensure!(
            h.eval("window.__host.session.setReceiptTimeout(10000)").await? == 10000,
            "the receipt timeout was not raised"
        );
        compose(h, "after").await?;
        let next = enter_and_settle(h).await?;
        ensure!(next["delivery"] == "received", "{next}");
        let held = session.held_frames(&sid);
        ensure!(
            held.len() == 1 && held[0].contains("into the void"),
            "the Session got {} frames while stalled",
            held.len()
        );
        ensure!(session.messages(&sid)?.len() == 1, "only the later message is stored");
        Ok(())
    });
}

/// A Session release without the capabilities endpoint (404): the Host treats it as without
/// Attention: the toggle is disabled and a message carries neither context nor runtime_context.
#[test]
fn a_session_without_attention_gets_plain_messages_only() {
    let harness = Harness::global();
    harness.block_on(async {
        let options =
            attention_harness::server::session::SessionOptions { capabilities_endpoint: false, ..Default::default() };
        let server =
            attention_harness::server::Server::start_with(attention_harness::server::default_pages_dir(), options)
                .await
                .unwrap();
        let cdp = harness.cdp().await.unwrap();
        let options = HostOptions::new(Layout::Compat, Engine::Iframe);
        let mut host = Host::open(&cdp, server.host_origin(), server.child_origin(), options).await.unwrap();
        host.session = Some(server.session().clone());
        let result = async {
            let state = composer_ready(&host).await?;
            ensure!(state["capabilities_status"] == 404 && state["support"]["supported"] == false, "{state}");
            let disabled =
                host.eval("document.querySelector('[data-landmark=composer-context-toggle]').disabled").await?;
            ensure!(disabled == true, "the toggle must be disabled without Attention");
            let sid = session_id(&state)?;
            compose(&host, "plain only").await?;
            let row = enter_and_settle(&host).await?;
            ensure!(row["delivery"] == "received" && row["transport"] == "none", "{row}");
            let stored = &server.session().messages(&sid)?[0];
            ensure!(stored.attachments.is_empty() && stored.context_ref.is_none());
            let reply = &server.session().replies_to(&sid, &stored.request_id)[0];
            ensure!(!reply.runtime_context, "runtime_context was sent to a Session without Attention");
            Ok::<_, anyhow::Error>(())
        }
        .await;
        host.close().await;
        result.unwrap();
    });
}

/// A context too large to go inline is staged; when staging refuses it, the row is Undelivered with
/// the staging code and no message is sent.
#[test]
fn a_refused_stage_leaves_the_row_undelivered_and_sends_nothing() {
    run_host(Layout::Compat, Engine::Iframe, async |h| {
        let session = session_of(h)?;
        let sid = session_id(&composer_ready(h).await?)?;
        set_automatic_context(h, &sid, true).await?;
        pin_forged_context(h).await?;
        let base = h.eval("window.__host.session.inlineCommandBytes('')").await?.as_u64().context("bytes")? as usize;
        compose(h, &"y".repeat(32_769 - base)).await?;
        let row = enter_and_settle(h).await?;
        h.eval("(window.__host.session.pinContext(null), true)").await?;
        ensure!(row["delivery"] == "undelivered" && row["transport"] == "staged", "{row}");
        ensure!(row["code"] == "INVALID_CONTEXT_ATTACHMENTS" && row["detail_code"] == "content-hash-mismatch", "{row}");
        ensure!(session.stages(&sid)?.is_empty() && session.messages(&sid)?.is_empty(), "something was stored");
        ensure!(
            session.replies_to(&sid, row["request_id"].as_str().unwrap_or("")).is_empty(),
            "a message was sent after the stage failed"
        );
        Ok(())
    });
}
