//! CSS search against Chromium's own selector engine: every selector of the corpus
//! (fixtures/inspection/selectors.txt, over 300) matched by `find({css, scope})` equals native
//! `querySelectorAll` on the same open or closed shadow root (and the realm's Document for the
//! document selectors), on a one-document page and in each realm kind of the full Host (the
//! grammar's 1,231 selectors likewise: all of them on one-document pages, a sample of each class
//! through every realm kind and the relay); the Shoelace and Material corpora likewise;
//! the focus pseudo-classes after a trusted click and Tab in each realm kind likewise; and on a tree
//! with excluded, redacted, sensitive and editable nodes, each privacy rule gives exactly native qSA
//! on a copy with the rules applied (each test fails when its rule is not).

use attention_harness::checks::css_agreement::{
    child_refusal_keeps_its_code, continuations_to_the_end, grammar_differential, grammar_on_one_document,
};
use attention_harness::checks::inspection::{
    css_corpus_differential, css_differential_in, focus_pseudo_classes_in, privacy_rule_in, realm_kinds, selectors,
    PrivacyRule, RealmKind,
};
use attention_harness::host::Realm;
use attention_harness::{run_document, run_host, run_host_opts, Corpus, Engine, HostOptions, Layout, Mount};
use rstest::rstest;

#[test]
fn the_selector_corpus_has_at_least_300_selectors_and_no_duplicate() {
    let s = selectors();
    assert!(s.len() >= 300, "{} selectors", s.len());
    let unique: std::collections::BTreeSet<_> = s.iter().collect();
    assert_eq!(unique.len(), s.len(), "a selector is listed twice");
}

/// The full Host, once per realm kind (issue 44, decision c): realm kind 0, the Host document; 1,
/// the same-origin srcdoc; 2, the right leaf, an out-of-process iframe (engine iframe) or a Web
/// Fragment (engine fragment). The search runs in the realm itself, so the layout cannot reach it:
/// the managed layout stands for both; the selectors' agreement in a realm alone is
/// [`every_corpus_selector_matches_native_on_a_one_document_page`].
#[rstest]
#[case::host(Engine::Iframe, 0)]
#[case::srcdoc(Engine::Iframe, 1)]
#[case::oopif(Engine::Iframe, 2)]
#[case::fragment(Engine::Fragment, 2)]
fn every_corpus_selector_matches_what_native_query_selector_all_matches(#[case] engine: Engine, #[case] realm: usize) {
    run_host(Layout::Managed, engine, async |h| {
        let rk = &realm_kinds(engine)[realm];
        let n = css_differential_in(h, rk).await?;
        eprintln!("managed/{engine} {}: {n} selector x scope pairs agree", rk.kind);
        Ok(())
    });
}

/// Stands for every realm kind (Host document, srcdoc, cross-origin iframe, Web Fragment): CSS
/// search matches inside the realm that holds the scope, with the same module in each, so one
/// document alone (`css-doc.html`, a fresh context, no Host) holds the subject: every corpus
/// selector on an open and a closed shadow root and the document selectors on the Document equal
/// native querySelectorAll. End to end in each realm kind:
/// [`every_corpus_selector_matches_what_native_query_selector_all_matches`].
#[test]
fn every_corpus_selector_matches_native_on_a_one_document_page() {
    run_document("css-doc.html", async |h| {
        let rk = RealmKind { kind: "one-document", realm: Realm::Top };
        let n = css_differential_in(h, &rk).await?;
        eprintln!("one-document css-doc.html: {n} selector x scope pairs agree");
        Ok(())
    });
}

#[rstest]
fn shoelace_and_material_corpus_selectors_match_native_query_selector_all(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    #[values((Corpus::Shoelace, "sl-"), (Corpus::Material, "md-"))] corpus: (Corpus, &str),
) {
    let mount = match engine {
        Engine::Iframe => Mount::CrossOrigin,
        Engine::Fragment => Mount::Fragment,
    };
    run_host_opts(HostOptions::new(layout, engine).corpus(corpus.0, mount), async |h| {
        let s = css_corpus_differential(h, corpus.1).await?;
        eprintln!("{layout}/{engine}: {s}");
        Ok(())
    });
}

fn privacy(layout: Layout, engine: Engine, rule: PrivacyRule) {
    run_host(layout, engine, async |h| {
        for rk in realm_kinds(engine) {
            let r = privacy_rule_in(h, &rk, rule).await?;
            eprintln!(
                "{layout}/{engine} {} {rule:?}: {} selectors, {} decided by the rule",
                rk.kind, r.compared, r.decided
            );
        }
        Ok(())
    });
}

#[rstest]
fn an_excluded_or_sensitive_subtree_cannot_affect_has_sibling_positions_or_empty(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    privacy(layout, engine, PrivacyRule::ExcludedSubtreeInvisible);
}

#[rstest]
fn a_redacted_node_has_no_queryable_attributes_or_text(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    privacy(layout, engine, PrivacyRule::RedactedHasNoAttributesOrText);
}

#[rstest]
fn an_editable_value_is_not_queryable(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    privacy(layout, engine, PrivacyRule::EditableValueUnavailable);
}

#[rstest]
fn a_safe_non_editable_value_attribute_stays_queryable(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    privacy(layout, engine, PrivacyRule::SafeValueAttributeQueryable);
}

#[rstest]
fn live_checked_and_selected_state_after_trusted_clicks_stays_queryable(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    privacy(layout, engine, PrivacyRule::LiveCheckedSelectedQueryable);
}

/// Focus pseudo-classes come from the browser's real focus state: after a trusted click and a
/// trusted Tab inside a closed shadow root in each realm kind, `:focus`, `:focus-within` and
/// `:focus-visible` (alone, combined, in `:has`) match what native qSA matches on the root, the
/// realm's document and the Host document (where Chromium gives a focused frame element no `:focus`).
#[rstest]
fn focus_pseudo_classes_follow_trusted_focus_in_every_realm_kind(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    #[values(0, 1, 2)] realm: usize,
) {
    run_host(layout, engine, async |h| {
        let rk = &realm_kinds(engine)[realm];
        let r = focus_pseudo_classes_in(h, rk).await?;
        eprintln!("{layout}/{engine} {}: {} pairs agree, {} with native matches", rk.kind, r.compared, r.matched);
        Ok(())
    });
}

/// Issue 43: every selector written from the Selectors 4 grammar and CSS Syntax (An+B, attribute
/// forms, forgiving lists, `:has` nestings, `&`, escapes, namespaces, comments, structure; over
/// 1,000) on the grammar tree, in an open and a closed shadow root and on the Document of a clean
/// standards, quirks and XHTML document: native-invalid and spec-refused forms are
/// invalid-request, every other equals native querySelectorAll over all its pages. Prints the
/// agreement and p50/p95 time per find.
/// Stands for every realm kind (Host document, srcdoc, cross-origin iframe, Web Fragment): the
/// search matches inside the realm that holds the scope, with the same module in each, so each
/// document runs alone as a one-document page (issue 44, decision c). The same rule end to end,
/// in every realm kind and through the relay from the top realm:
/// [`grammar_selectors_match_native_in_every_scope_and_realm_kind_from_itself_and_from_the_top`].
#[rstest]
fn every_grammar_selector_matches_native_on_a_one_document_page(
    #[values("css-doc.html", "css-doc-quirks.html", "css-doc.xhtml")] page: &str,
) {
    run_document(page, async |h| {
        let a = grammar_on_one_document(h, page).await?;
        eprintln!("one-document {page} grammar: {}", a.summary());
        a.ensure_all_equal("grammar")
    });
}

/// The grammar end to end on the full Host: of each grammar class the first, every eighth and the
/// last selector (`css_agreement::grammar_sample`), in an open and a closed shadow root of every
/// realm kind and on the Document of clean standards, quirks and XHTML documents in the Host and
/// of a standards document in the cross-origin iframe, called from the realm and from the top realm
/// through the relay, equal native querySelectorAll or refused as they must be. Every selector in
/// a realm alone: [`every_grammar_selector_matches_native_on_a_one_document_page`].
#[rstest]
fn grammar_selectors_match_native_in_every_scope_and_realm_kind_from_itself_and_from_the_top(
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(Layout::Managed, engine, async |h| {
        let a = grammar_differential(h).await?;
        eprintln!("managed/{engine} grammar: {}", a.summary());
        a.ensure_all_equal("grammar")
    });
}

/// Continuations through a child realm have no cap and end: 8, 9, 128, 129, 321 and 400 matches in
/// a child realm's shadow root, followed page by page from the realm and from the top realm, equal
/// native querySelectorAll's full list, and the last page has no continuation.
#[rstest]
fn continuations_through_a_child_realm_reach_every_native_match_and_end(
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(Layout::Managed, engine, async |h| {
        for rk in realm_kinds(engine).into_iter().skip(1) {
            let a = continuations_to_the_end(h, rk.kind, &rk.realm, 400).await?;
            eprintln!("managed/{engine} {}: {}", rk.kind, a.summary());
            a.ensure_all_equal("continuations")?;
        }
        Ok(())
    });
}

/// A child realm's refusal keeps its code through the top realm: CSS scoped to an element of the
/// child is invalid-request (css-root-required), and native-invalid or spec-refused selectors on a
/// child's root are invalid-request, not partial / capability-unavailable.
#[rstest]
fn a_child_realms_refusal_stays_invalid_request_through_the_top_realm(
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(Layout::Managed, engine, async |h| {
        for rk in realm_kinds(engine).into_iter().skip(1) {
            eprintln!("{}", child_refusal_keeps_its_code(h, rk.kind, &rk.realm).await?);
        }
        Ok(())
    });
}
