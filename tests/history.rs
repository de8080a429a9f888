//! The observation history end to end, over Layout x Engine: compaction rules and limits driven by
//! trusted input, targets checked against Chromium's box model and the leaves' own logs.

use attention_harness::checks::history;
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn moves_compact_per_target_until_focus_discrete_buttons_pointer_type_or_unresolved_target_intervene(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| history::compaction_rules_under_trusted_input(h).await.map(drop));
}

#[rstest]
fn a_full_history_keeps_32_events_every_discrete_one_and_the_newest_moves(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| history::limits_prefer_discrete_and_newest_moves(h).await.map(drop));
}

#[rstest]
fn events_older_than_the_60_s_window_leave_the_history_on_the_runtime_clock(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| history::window_drops_events_older_than_60_s(h).await.map(drop));
}

#[rstest]
fn a_pointer_capture_change_stops_compaction_of_a_drag(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| history::pointer_capture_change_stops_compaction(h).await.map(drop));
}

#[rstest]
fn a_mount_generation_change_stops_compaction_over_the_same_target(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| history::mount_generation_change_stops_compaction(h).await.map(drop));
}

/// Engine iframe only: the late answer needs a child realm in a renderer of its own that can be
/// paused while the Host goes on (the right leaf, an out-of-process iframe); in engine fragment the
/// leaves are observed by the Host realm itself and no window is pulled.
#[rstest]
fn a_child_that_answers_a_merge_late_loses_no_move_to_the_next_snapshot(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host(layout, Engine::Iframe, async |h| {
        history::late_window_answer_reaches_the_next_snapshot(h).await.map(drop)
    });
}

/// One cell: what a child realm keeps between moves is the same code in every layout (paths are
/// all the layouts differ in, and they are compared elsewhere), and only engine iframe has a child
/// realm whose move resolution reaches the snapshot unchanged: in engine fragment the leaf is in
/// the Host document, whose pointer targets are described again at snapshot time.
#[test]
fn a_moves_candidate_is_read_again_when_the_hovered_node_or_the_dom_changes() {
    run_host(Layout::Managed, Engine::Iframe, async |h| {
        history::move_candidate_follows_hover_and_dom_changes(h).await.map(drop)
    });
}

/// Engine iframe only: the notice is dropped between an out-of-process leaf and the Host realm (in
/// engine fragment the leaves are observed by the Host realm itself and no window is pulled). One
/// child and its parent are the subject; the managed layout stands for both (the layout does not
/// reach the relay between the Host realm and its child).
#[test]
fn a_window_notice_the_host_dropped_is_said_again_at_the_childs_next_grant() {
    run_host(Layout::Managed, Engine::Iframe, async |h| {
        let line = history::dropped_window_notice_is_said_again_at_the_next_grant(h).await?;
        eprintln!("{line}");
        Ok(())
    });
}
