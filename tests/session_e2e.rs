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
fn a_command_of_exactly_32768_bytes_goes_inline_and_32769_is_staged(#[values(Layout::Managed, Layout::Compat)] layout: Layout) {
    run_host(layout, Engine::Iframe, async |h| {
        let (row, stored) = session::send_command_of_exactly(h, 32_768).await?;
        anyhow::ensure!(row["transport"] == "inline" && stored.context_ref.is_none(), "32,768: {row}");
        let (row, stored) = session::send_command_of_exactly(h, 32_769).await?;
        anyhow::ensure!(row["transport"] == "staged" && stored.context_ref.is_some(), "32,769: {row}");
        Ok(())
    });
}

#[rstest]
fn automatic_context_off_sends_no_attachment_and_observation_still_works(#[values(Layout::Managed, Layout::Compat)] layout: Layout) {
    run_host(layout, Engine::Iframe, async |h| session::checklist_1(h).await.map(drop));
}

#[rstest]
fn capabilities_report_attention_and_a_plain_message_gets_its_received(#[values(Layout::Managed, Layout::Compat)] layout: Layout) {
    run_host(layout, Engine::Iframe, async |h| session::checklist_7(h).await.map(drop));
}
