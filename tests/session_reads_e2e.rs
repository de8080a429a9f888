//! The agent's Attention reads end to end in the real Host, in all four cells (layout x engine):
//! every read goes from the typed agent through the Session's guard and broker to
//! pages/host/reads.js and the runtime's `wippyAttention.inspect`, and the stored model.v1 results
//! are compared with Chromium (AX tree, box model, hit point). See harness/src/checks/reads.rs.

use attention_harness::checks::reads;
use attention_harness::{run_host, run_host_opts, Engine, HostOptions, Layout};
use rstest::rstest;

#[rstest]
fn authorized_fresh_reads_answer_with_attachments_and_actions_off_and_agree_with_chromium(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::authorized_fresh_reads(h).await.map(drop));
}

#[rstest]
fn a_read_target_copied_into_highlight_opens_the_overlay_on_that_element(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(HostOptions::new(layout, engine).actions(true), async |h| {
        reads::read_target_can_be_highlighted(h).await.map(drop)
    });
}

#[rstest]
fn the_guard_refuses_batches_duplicates_repair_and_budget_without_contacting_the_host(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::reads_guard(h).await.map(drop));
}

#[rstest]
fn reads_go_stale_on_a_dom_change_a_completed_highlight_and_a_new_user_turn(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(HostOptions::new(layout, engine).actions(true), async |h| reads::reads_staleness(h).await.map(drop));
}

#[rstest]
fn a_real_tree_of_8192_projected_bytes_is_kept_and_8193_is_the_byte_limit_partial(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::byte_limit_boundary(h).await.map(drop));
}

/// Roots walked up from a leaf by `get_node` reads (a Document, a ShadowRoot), then find_css
/// against native querySelectorAll on a privacy-filtered copy of the same scope.
#[rstest]
fn find_css_from_a_document_or_shadow_root_ref_returns_what_native_query_selector_all_returns(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::find_css_matches_native_qsa(h).await.map(drop));
}

#[rstest]
fn find_semantic_with_a_scope_answers_from_inside_that_document_or_shadow_root_only(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::find_semantic_keeps_to_its_scope(h).await.map(drop));
}
