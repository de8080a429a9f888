//! Focus end to end, over Layout x Engine: trusted clicks and Tab / Shift+Tab, what the runtime
//! reports compared with the element Chromium says has focus (spec "What the Host observes").

use attention_harness::checks::focus;
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn focus_kept_across_the_composer_is_cleared_by_a_later_sensitive_focus_in_leaf_or_host(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::sensitive_focus_clears_a_kept_focus(h).await.map(drop));
}

#[rstest]
fn focus_kept_across_the_composer_is_cleared_by_a_later_focus_on_an_excluded_element_outside_it(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::excluded_focus_clears_a_kept_focus(h).await.map(drop));
}

#[rstest]
fn tab_and_shift_tab_through_every_realm_report_chromiums_focused_element(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::tab_traversal_matches_chromium(h).await.map(drop));
}

#[rstest]
fn composer_transfer_keeps_the_last_focus_and_its_timestamp_also_while_send_disables_the_composer(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::composer_transfer_keeps_focus_while_send_disables_it(h).await.map(drop));
}

#[rstest]
fn script_dispatched_focus_events_never_change_the_reported_focus(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::script_dispatched_focus_is_ignored(h).await.map(drop));
}

#[rstest]
fn remounted_or_detached_focused_element_invalidates_the_focus(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| focus::remounted_or_detached_focus_is_invalidated(h).await.map(drop));
}
