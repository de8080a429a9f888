//! The inspection API's other reads against Chromium, over Layout x Engine: semantic search against
//! the accessibility tree, geometry and hitTest against the box model and `DOM.getNodeForLocation`
//! on the default Host (under the geometry variants, DPR 2, rotation and skew they run in
//! tests/geometry.rs, on the variant's Host beside the sampled geometry), calls made from inside
//! child realms, the limits at their boundaries (8/9 matches, 32/33 tree nodes, depth 32/33,
//! continuations, 16/17 and 128/129 subscriptions, 10 updates/s) and bad input. The reads that
//! neither input, mount nor subscribe run on the shared default Host of their cell
//! (`run_shared_host`, checked unchanged before each use).

use attention_harness::checks::inspection::{
    bad_input, callers, child_realm_geometry_is_in_the_host_viewport, coalescing, continuation_rules, document_of,
    fragment_reads_keep_to_their_subtree, fresh_reads_with_attachments_off, geometry_matches_box_model, leaf_ref,
    match_limit, realm_kinds, semantic_matches_ax, sixteen_realms, subscription_limits, subscriptions_racing,
    tree_limits, LEAVES,
};
use attention_harness::host::{InspectOptions, SemanticQuery};
use attention_harness::{run_host, run_host_opts, run_shared_host, Engine, Harness, HostOptions, Layout};
use rstest::rstest;

#[rstest]
fn semantic_find_agrees_with_chromiums_accessibility_tree_and_misses_nothing(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| semantic_matches_ax(h).await.map(|s| eprintln!("{s}")));
}

/// A Web Fragment package reads its own registered subtree by default, though the Host realm
/// answers for its physical DOM: its getTree() root is its own shadow root, and find and hitTest
/// miss the other fragment's button (Chromium's role, name and box) unless fromRoot.
#[rstest]
fn a_fragment_realm_reads_its_own_subtree_by_default_and_the_host_tree_from_root(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_shared_host(layout, Engine::Fragment, async |h| {
        fragment_reads_keep_to_their_subtree(h).await.map(|s| eprintln!("{s}"))
    });
}

#[rstest]
fn reads_from_inside_each_child_realm_reach_their_own_tree(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| {
        for rk in realm_kinds(engine) {
            let doc = document_of(h, &rk.realm).await?;
            let tree = h.tree(&rk.realm, None, &InspectOptions::default()).await?;
            anyhow::ensure!(!tree.data.nodes.is_empty(), "{}: getTree() is empty: {}", rk.kind, tree.json());
            let again = h.node(&rk.realm, &doc).await?;
            anyhow::ensure!(
                again.data.nodes.first().map(|n| &n.node_ref) == Some(&doc),
                "{}: getNode(document)",
                rk.kind
            );
        }
        // The top realm's three names of the API are one object.
        let same = h
            .eval("(async () => window.$W.attention === window.wippyAttention.attention && (await window.getWippyApi()).attention === window.$W.attention)()")
            .await?;
        anyhow::ensure!(
            same == serde_json::json!(true),
            "$W.attention, getWippyApi().attention, wippyAttention.attention differ"
        );
        Ok(())
    });
}

/// On the default Host; under the geometry variants, DPR 2, rotation and skew, the same reads are
/// compared in tests/geometry.rs on the variant's Host, which the sampled geometry opens anyway.
#[rstest]
fn geometry_and_hit_test_match_the_box_model_within_half_a_pixel(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(layout, engine, async |h| geometry_matches_box_model(h, &LEAVES).await.map(|s| eprintln!("{s}")));
}

/// The colleague's report: getGeometry from inside a child realm said `host-viewport` but gave
/// frame-local numbers.
#[rstest]
fn geometry_asked_from_inside_a_child_realm_is_in_host_viewport_pixels(
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_shared_host(Layout::Managed, engine, async |h| {
        child_realm_geometry_is_in_the_host_viewport(h, engine).await.map(|s| eprintln!("{s}"))
    });
}

#[rstest]
fn eight_matches_fit_and_the_ninth_comes_through_a_continuation(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| match_limit(h).await.map(drop));
}

#[rstest]
fn thirty_two_tree_nodes_fit_thirty_three_continue_and_depth_33_is_refused(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| tree_limits(h).await.map(drop));
}

#[rstest]
fn a_continuation_works_once_expires_after_30_s_and_goes_stale_on_a_tree_change(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| continuation_rules(h).await.map(drop));
}

#[rstest]
fn the_17th_subscription_of_a_caller_and_the_129th_in_all_are_refused(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(sixteen_realms(HostOptions::new(layout, engine)), async |h| {
        subscription_limits(h, &callers()).await.map(drop)
    });
}

/// 144 subscriptions from 9 child realms at once: the top alone decides the total, so exactly 128
/// are granted whatever the order they arrive in.
#[rstest]
fn subscriptions_racing_from_many_realms_give_exactly_128_in_all(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(sixteen_realms(HostOptions::new(layout, engine)), async |h| {
        let children: Vec<_> = callers().into_iter().skip(1).take(9).collect();
        eprintln!("{}", subscriptions_racing(h, &children).await?);
        Ok(())
    });
}

#[rstest]
fn many_trusted_moves_give_at_most_10_notices_a_second(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| coalescing(h).await.map(|s| eprintln!("{s}")));
}

/// One layout (compat), both engines: every call is refused by the top realm's argument rules before
/// any node is read, and the layouts differ in the path from the Host to each element (DESIGN.md,
/// "The two layouts"), which none of these calls reaches. The engine stays: the foreign ref is
/// minted by the other Host's left leaf, a srcdoc realm in one engine and a fragment in the other.
/// A fresh Host, though nothing is changed: on a Host other tests had pointed at, the top realm's
/// tree and geometry revisions moved (12 -> 15) while these calls ran. The leaves' input log writes
/// attributes on every move it sees, and those child-realm tree changes reach the top realm after
/// the moves (two reads in a row after moves over the left leaf, no input between, gave tree 8 then
/// 9), so a before / after comparison needs a Host with no such change still on its way.
#[rstest]
fn bad_input_is_invalid_request_and_changes_nothing(#[values(Engine::Iframe, Engine::Fragment)] engine: Engine) {
    let layout = Layout::Compat;
    run_host(layout, engine, async |h| {
        // A ref another Host instance returned: a second Host, open at the same time.
        let other = Harness::global().open_with(HostOptions::new(layout, engine)).await?;
        let foreign = leaf_ref(&other, "left-leaf").await;
        other.close().await;
        let s = bad_input(h, Some(&foreign?)).await?;
        eprintln!("{s}");
        Ok(())
    });
}

#[rstest]
fn fresh_reads_work_with_attachments_off(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        fresh_reads_with_attachments_off(h).await?;
        // And from inside a child realm, its own subtree.
        let r = h
            .find_semantic(
                &realm_kinds(engine)[1].realm,
                &SemanticQuery { role: Some("button".into()), ..SemanticQuery::default() },
                &InspectOptions::default(),
            )
            .await?;
        anyhow::ensure!(!r.data.nodes.is_empty(), "find from the srcdoc realm: {}", r.json());
        Ok(())
    });
}
