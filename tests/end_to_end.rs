//! End to end, over Layout x Engine: trusted input through CDP into the reference Host, what the
//! runtime reports compared with Chromium's box model, the leaves' own logs and the Session rules.
//! Read-only checks (they point and snapshot, never click, type, mutate, navigate or act) run on
//! the one shared default Host of their cell (`run_shared_host`, checked unchanged before each use;
//! issue 23); every other test opens its own.

use attention_harness::checks::expect::Leaf;
use attention_harness::checks::{privacy, realms, sampling, trusted};
use attention_harness::golden;
use attention_harness::{run_host, run_shared_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn runtime_runs_before_page_scripts_in_host_cross_origin_fragment_and_srcdoc_realms(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| realms::runtime_before_page_scripts(h).await.map(drop));
}

#[rstest]
fn pointer_path_crosses_cross_origin_iframe_open_shadow_root_and_nested_artifact(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| sampling::pointer_path(h, Leaf::Oopif).await.map(drop));
}

#[rstest]
fn pointer_path_crosses_srcdoc_iframe_and_closed_shadow_root(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| sampling::pointer_path(h, Leaf::ClosedShadow).await.map(drop));
}

#[rstest]
fn pointer_path_reaches_left_and_right_leaves_in_their_own_realms(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| {
        sampling::pointer_path(h, Leaf::Left).await?;
        sampling::pointer_path(h, Leaf::Right).await.map(drop)
    });
}

#[rstest]
fn boundary_sample_yields_both_edge_to_edge_leaves_with_their_own_points(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| sampling::boundary_sample(h).await.map(drop));
}

#[rstest]
fn runtime_envelope_verifies_in_rust_and_passes_session_admission(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| sampling::envelope_accepted(h).await.map(drop));
}

#[rstest]
fn no_canary_from_password_excluded_redacted_or_composer_reaches_a_snapshot(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| privacy::canaries_absent(h).await.map(drop));
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
    run_host(layout, engine, async |h| {
        let (name, stable) = sampling::boundary_for_golden(h).await?;
        // The normalizer is the redaction (it keeps the golden a valid v1 payload); insta stores
        // the text, prints the diff and leaves a `.snap.new` for `cargo insta review` (README).
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(golden::golden_dir());
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings
            .set_description(format!("normalized by harness/src/golden.rs; accept a change with {}", golden::ACCEPT));
        settings.bind(|| insta::assert_snapshot!(name, golden::render(&stable)));
        Ok(())
    });
}

#[rstest]
fn action_refs_with_agent_actions_on_equal_the_contracts_fields_and_semantic_path_digest(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    let options = attention_harness::HostOptions::new(layout, engine).actions(true);
    attention_harness::run_host_opts(options, async |h| {
        attention_harness::checks::actions::action_refs_match_the_contract(h, Leaf::Oopif).await?;
        attention_harness::checks::actions::action_refs_match_the_contract(h, Leaf::ClosedShadow).await.map(drop)
    });
}

/// It points and snapshots only: the shared default Host of its cell (whose agent actions are off).
#[rstest]
fn no_candidate_carries_an_action_ref_with_agent_actions_off(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| {
        attention_harness::checks::actions::no_action_refs_when_disabled(h).await.map(drop)
    });
}

mod agent_actions {
    use attention_harness::checks::actions as a;
    use attention_harness::checks::expect::Leaf;
    use attention_harness::{run_host, run_host_opts, Engine, HostOptions, Layout};
    use rstest::rstest;

    fn on<F>(layout: Layout, engine: Engine, body: F)
    where
        F: AsyncFnOnce(&attention_harness::Host) -> anyhow::Result<String>,
    {
        run_host_opts(HostOptions::new(layout, engine).actions(true), async |h| body(h).await.map(drop));
    }

    #[rstest]
    fn confirm_by_pointer_swallows_the_click_below_and_returns_focus_to_the_composer(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::confirm_by_pointer);
    }

    #[rstest]
    fn select_by_enter_returns_focus_into_the_cross_origin_or_fragment_leaf(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, async |h| a::select_by_keyboard_restores_focus(h, Leaf::Left).await);
    }

    #[rstest]
    fn escape_cancels_and_returns_focus_into_the_closed_shadow_root_leaf(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, async |h| a::escape_cancels_and_restores_focus(h, Leaf::ClosedShadow).await);
    }

    #[rstest]
    fn escape_cancels_and_returns_focus_into_the_out_of_process_iframe_leaf(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, async |h| a::escape_cancels_and_restores_focus(h, Leaf::Oopif).await);
    }

    #[rstest]
    fn pointer_and_keyboard_paths_are_permissioned_independently(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::pointer_and_keyboard_are_permissioned_independently);
    }

    #[rstest]
    fn an_unanswered_overlay_expires_at_its_ttl(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::timeout_expires);
    }

    #[rstest]
    fn a_remounted_target_ends_the_action_stale(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::remount_makes_stale);
    }

    #[rstest]
    fn a_target_of_another_host_instance_is_stale(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::other_host_instance_is_stale);
    }

    #[rstest]
    fn a_dropped_socket_ends_disconnected_and_a_rebound_socket_works(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::disconnect_then_reconnect);
    }

    #[rstest]
    fn a_host_navigation_ends_the_action_stale_exactly_once(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::host_navigation_makes_stale);
    }

    #[rstest]
    fn a_zero_target_select_takes_the_area_of_a_pointer_drag(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::area_by_drag);
    }

    #[rstest]
    fn a_zero_target_select_takes_the_pointer_area_by_keyboard(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::area_by_keyboard);
    }

    #[rstest]
    fn a_target_moved_while_the_overlay_is_up_is_confirmed_with_its_new_rect(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::moved_target_is_confirmed_with_its_new_rect);
    }

    #[rstest]
    fn a_target_moved_between_approval_and_execution_ends_stale(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::moved_after_approval_is_stale);
    }

    #[rstest]
    fn a_second_action_is_unavailable_and_turning_actions_off_ends_the_open_one_permission_denied(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::refused_while_pending_and_revoked);
    }

    #[rstest]
    fn png_and_webp_captures_of_target_viewport_agent_region_and_dragged_region_are_exact_redacted_and_delivered(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
        #[values(1.0, 2.0)] dpr: f64,
    ) {
        let options = HostOptions::new(layout, engine).actions(true).device_scale_factor(dpr);
        run_host_opts(options, async |h| {
            let detail = attention_harness::checks::capture::captures_end_to_end(h).await?;
            eprintln!("{layout}/{engine} DPR {dpr}: {detail}");
            Ok(())
        });
    }

    #[rstest]
    fn denied_cancelled_stale_refused_and_unsupported_captures_end_once_without_a_draft(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        run_host_opts(HostOptions::new(layout, engine).actions(true), async |h| {
            let detail = attention_harness::checks::capture::captures_that_end_without_a_draft(h).await?;
            eprintln!("{layout}/{engine}: {detail}");
            Ok(())
        });
    }

    #[rstest]
    fn an_overlay_removed_or_failing_in_the_host_ends_the_action_error_once_and_returns_focus(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::overlay_failures_end_error);
    }

    #[rstest]
    fn a_tool_cancel_ends_the_action_cancelled_once_and_the_host_closes_the_overlay(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        on(layout, engine, a::tool_cancel_closes_the_overlay);
    }

    #[rstest]
    fn with_interactive_capabilities_off_no_overlay_opens(
        #[values(Layout::Managed, Layout::Compat)] layout: Layout,
        #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    ) {
        run_host(layout, engine, async |h| a::no_overlay_when_actions_off(h).await.map(drop));
    }
}

#[rstest]
fn privacy_text_none_keeps_geometry_and_structure_without_any_text(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| privacy::text_none_keeps_geometry_without_text(h).await.map(drop));
}

/// Every sensitive control kind the spec names, in the light DOM and a closed shadow root of a
/// same-origin iframe, a cross-origin iframe and a Web Fragment: enumerated by Chromium, pointed at,
/// focused, typed into and selected with trusted input; then every output that leaves the realms
/// (relay messages, socket frames, the Session's rows and SQLite file, console, artifacts) is
/// scanned for canaries.
#[rstest]
fn every_sensitive_control_kind_is_excluded_and_no_canary_leaves_the_realms(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values("same-origin", "cross-origin", "fragment")] mount: &str,
) {
    let corpus_mount = attention_harness::Mount::named(mount).expect("a corpus mount");
    let options = attention_harness::HostOptions::new(layout, corpus_mount.engine())
        .corpus(attention_harness::Corpus::Sensitive, corpus_mount);
    attention_harness::run_host_opts(options, async |h| {
        let detail = attention_harness::checks::sensitive::sensitive_controls_leave_no_trace(h).await?;
        eprintln!("{layout}/{mount}: {detail}");
        Ok(())
    });
}

/// The shared Host is what `run_shared_host` promises: trusted moves over a leaf button, which the
/// leaf's own input log records on the button, leave it shared (the next read-only test gets the
/// same page, marked here by a window property no digest reads), and a DOM change makes the next
/// test get a freshly opened Host. One cell: the check is the harness's, and the left leaf's button
/// is a logged element of its own document only in the iframe engine.
#[test]
fn the_shared_host_outlives_pointer_moves_over_a_leaf_and_is_reopened_after_a_dom_change() {
    const MARK: &str = "window.__sharedHostMark";
    let (layout, engine) = (Layout::Managed, Engine::Iframe);
    run_shared_host(layout, engine, async |h| {
        let (x, y) = h.landmark_rect("left-leaf").await?.center();
        attention_harness::checks::snapshot_at(h, x, y).await?;
        let counted = h
            .eval_in_frame(
                &attention_harness::Frame::UrlContains("side=left".into()),
                "document.querySelector('[data-landmark=left-leaf]').getAttribute('data-pointer-move-count')",
            )
            .await?;
        anyhow::ensure!(
            counted.is_string(),
            "the left leaf logged no move on its button ({counted}): nothing is proven"
        );
        h.eval(&format!("{MARK} = 'kept'")).await?;
        Ok(())
    });
    run_shared_host(layout, engine, async |h| {
        let mark = h.eval(MARK).await?;
        anyhow::ensure!(mark == serde_json::json!("kept"), "a Host that only saw pointer moves was reopened ({mark})");
        h.eval("document.body.appendChild(document.createElement('div')).id = 'changed-by-a-test'").await?;
        Ok(())
    });
    run_shared_host(layout, engine, async |h| {
        let mark = h.eval(&format!("typeof {MARK}")).await?;
        anyhow::ensure!(mark == serde_json::json!("undefined"), "a Host whose DOM changed was shared again");
        Ok(())
    });
}
