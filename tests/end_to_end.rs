//! End to end, over Layout x Engine: trusted input through CDP into the reference Host, what the
//! runtime reports compared with Chromium's box model, the leaves' own logs and the Session rules.

use attention_harness::checks::expect::Leaf;
use attention_harness::checks::{privacy, realms, sampling, trusted};
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn runtime_runs_before_page_scripts_in_host_cross_origin_fragment_and_srcdoc_realms(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| realms::runtime_before_page_scripts(h).await.map(drop));
}

#[rstest]
fn pointer_path_crosses_cross_origin_iframe_open_shadow_root_and_nested_artifact(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| sampling::pointer_path(h, Leaf::Oopif).await.map(drop));
}

#[rstest]
fn pointer_path_crosses_srcdoc_iframe_and_closed_shadow_root(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| sampling::pointer_path(h, Leaf::ClosedShadow).await.map(drop));
}

#[rstest]
fn pointer_path_reaches_left_and_right_leaves_in_their_own_realms(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        sampling::pointer_path(h, Leaf::Left).await?;
        sampling::pointer_path(h, Leaf::Right).await.map(drop)
    });
}

#[rstest]
fn boundary_sample_yields_both_edge_to_edge_leaves_with_their_own_points(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| sampling::boundary_sample(h).await.map(drop));
}

#[rstest]
fn runtime_envelope_verifies_in_rust_and_passes_session_admission(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| sampling::envelope_accepted(h).await.map(drop));
}

#[rstest]
fn no_canary_from_password_excluded_redacted_or_composer_reaches_a_snapshot(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| privacy::canaries_absent(h).await.map(drop));
}

#[rstest]
fn leaves_behind_oopif_open_and_closed_shadow_roots_receive_trusted_pointer_key_and_touch(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| trusted::input_reaches_leaves(h).await.map(drop));
}

#[rstest]
fn script_dispatched_events_never_enter_the_observation_history(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| trusted::untrusted_ignored(h).await.map(drop));
}

#[rstest]
fn boundary_snapshot_matches_its_golden(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| sampling::boundary_golden(h).await.map(drop));
}

#[rstest]
fn action_refs_with_agent_actions_on_equal_the_contracts_fields_and_semantic_path_digest(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    attention_harness::run_host_with(layout, engine, "actions=on", async |h| {
        attention_harness::checks::actions::action_refs_match_the_contract(h, Leaf::Oopif).await?;
        attention_harness::checks::actions::action_refs_match_the_contract(h, Leaf::ClosedShadow).await.map(drop)
    });
}

#[rstest]
fn no_candidate_carries_an_action_ref_with_agent_actions_off(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| attention_harness::checks::actions::no_action_refs_when_disabled(h).await.map(drop));
}
