//! Selection end to end, over Layout x Engine: real drags and Shift+arrow keys, compared with the
//! page's own getSelection() and range rects (schemas.md §6, spec "Privacy and security").

use attention_harness::checks::{selection, Leaf};
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn drag_and_shift_arrows_in_one_realm_report_the_pages_selection(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        selection::drag_and_shift_arrows_select_like_the_page(h, Leaf::Left, "left-leaf-text").await.map(drop)
    });
}

#[rstest]
fn drag_inside_an_open_shadow_root_reports_the_pages_selection(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        selection::drag_and_shift_arrows_select_like_the_page(h, Leaf::Oopif, "oopif-safe-text").await.map(drop)
    });
}

#[rstest]
fn drag_inside_a_closed_shadow_root_reports_the_pages_selection(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        selection::drag_and_shift_arrows_select_like_the_page(h, Leaf::ClosedShadow, "closed-shadow-safe-text")
            .await
            .map(drop)
    });
}

#[rstest]
fn drag_from_one_realm_into_another_reports_what_the_browser_selected(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| selection::drag_across_two_realms(h).await.map(drop));
}

#[rstest]
fn selections_over_redacted_and_excluded_probes_carry_no_text(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| selection::privacy_probes_selection(h).await.map(drop));
}

#[rstest]
fn a_selection_in_a_remounted_realm_is_detached(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| selection::remounted_selection_is_detached(h).await.map(drop));
}
