//! The agent's Attention reads end to end in the real Host, in all four cells (layout x engine)
//! except where a test's comment says why its outcome cannot depend on the cell:
//! every read goes from the typed agent through the Session's guard and broker to
//! pages/host/reads.js and the runtime's `wippyAttention.inspect`, and the stored model.v1 results
//! are compared with Chromium (AX tree, box model, hit point). See harness/src/checks/reads.rs.

use attention_harness::checks::{read_pages, reads};
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

/// One cell (compat, iframe): every refusal here is the Session's guard deciding before the Host is
/// asked (the check proves the Host saw no request for them), so no refusal can depend on the layout
/// or the engine. The reads it lets through are only checked for being answered (not for what they
/// say), and each is answered by the top realm's `wippyAttention.inspect` in every cell; what
/// find_semantic, hit_test and get_cursor answer is checked in all four cells by the other tests of
/// this file.
#[test]
fn the_guard_refuses_batches_duplicates_repair_and_budget_without_contacting_the_host() {
    run_host(Layout::Compat, Engine::Iframe, async |h| reads::reads_guard(h).await.map(drop));
}

#[rstest]
fn reads_go_stale_on_a_dom_change_a_completed_highlight_and_a_new_user_turn(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(HostOptions::new(layout, engine).actions(true), async |h| reads::reads_staleness(h).await.map(drop));
}

/// The Host's pages reach the model: N rows that project to 8,192 bytes are kept whole, one byte
/// more and the page ends before its last row, which the continuation brings (harness/src/checks/
/// reads.rs `model_page_boundary`). All four cells: the Session route answers from the top realm
/// in each.
#[rstest]
fn a_tree_page_that_would_project_over_8192_bytes_ends_before_the_row_and_continues(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| reads::model_page_boundary(h).await.map(drop));
}

/// Find pages reach the model too: 8 rows that project to 8,192 bytes are kept whole, one byte more
/// and the page ends before its last row, which the continuation brings (harness/src/checks/
/// read_pages.rs). All four cells: the Session route answers from the top realm in each.
#[rstest]
fn a_find_page_that_would_project_over_8192_bytes_ends_before_the_row_and_continues(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| read_pages::find_page_boundary(h).await.map(drop));
}

/// What cannot be paged: one row whose complete ancestry projects over 8,192 bytes reaches the
/// model as the `byte-limit` partial, with no rows and no continuation.
#[rstest]
fn a_single_row_over_8192_bytes_reaches_the_model_as_the_byte_limit_partial(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| read_pages::single_row_over_the_ceiling(h).await.map(drop));
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

/// A tree an agent can use (issue 42): from the root with the defaults (`attention_get_tree {}`)
/// and its continuations, the agent sees every non-sensitive interactive element Chromium's
/// accessibility tree exposes in the Host (every frame) in at most 2 reads, each row's parent a row
/// listed before it; finds by role see them all too; the median node row of the stored results
/// takes at most 200 bytes; no page reaches the model as the byte-limit partial, and none carries a
/// privacy canary (sensitive, excluded or redacted text). Not rendered
/// elements (head, style, script) are no rows and nameless generic wrappers (html, body, ...) are
/// passed through.
#[rstest]
fn from_the_root_every_non_sensitive_interactive_element_is_seen_within_one_turns_reads(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    use attention_harness::checks::agent_view;
    run_host(layout, engine, async |h| {
        agent_view::seen_from_the_root(h).await?;
        let rows = h
            .eval("window.wippyAttention.inspect({request_id: 'rows', operation: 'tree', scope: {fromRoot: true}, args: {depth: 32, limit: 32}})")
            .await?;
        let kinds: Vec<String> = rows["data"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| {
                n["path"].as_array().and_then(|p| p.last()).and_then(|s| s["tag_name"].as_str()).map(str::to_string)
            })
            .collect();
        for tag in ["html", "head", "body", "style", "script", "template"] {
            anyhow::ensure!(!kinds.iter().any(|k| k.eq_ignore_ascii_case(tag)), "a {tag} row in the tree: {kinds:?}");
        }
        Ok(())
    });
}
