//! Role and name conformance (issue 24): on the conformance corpus (pages/apps/corpus-conformance.html,
//! built from HTML-AAM's element table, WAI-ARIA 1.2's roles and accname 1.2's steps), the runtime's
//! summary of every element agrees with Chromium's AX node for at least 99 % of the elements Chromium
//! does not ignore, role and name separately (harness/src/checks/conformance.rs lists every
//! disagreement). Roles and names are computed inside the realm that holds the element (issue 44,
//! decision c): the corpus alone as a one-document page holds the subject, and the full Host proves
//! it end to end once per realm kind the corpus can be mounted as.

use attention_harness::checks::conformance::corpus_conforms_to_chromium;
use attention_harness::{run_document, run_host_opts, Corpus, HostOptions, Layout, Mount};
use rstest::rstest;

/// Stands for every realm kind (Host document, same-origin iframe, cross-origin iframe, Web
/// Fragment): the runtime computes an element's role and name with the same module in the realm
/// that holds it, so the corpus document alone (a fresh context, no Host) holds the subject. End to
/// end in each realm kind: [`conformance_corpus_roles_and_names_agree_in_every_realm_kind_of_the_host`].
#[test]
fn conformance_corpus_roles_and_names_agree_with_chromium_ax_tree_on_a_one_document_page() {
    run_document("corpus-conformance.html", async |h| corpus_conforms_to_chromium(h).await.map(drop));
}

/// The same rule end to end: the corpus mounted by the managed Host as a same-origin iframe, a
/// cross-origin (out-of-process) iframe and a Web Fragment. The layout does not reach a realm's
/// roles and names, so the compat layout is not repeated here.
#[rstest]
fn conformance_corpus_roles_and_names_agree_in_every_realm_kind_of_the_host(
    #[values("same-origin", "cross-origin", "fragment")] mount: &str,
) {
    let mount = Mount::named(mount).expect("a corpus mount");
    let options = HostOptions::new(Layout::Managed, mount.engine()).corpus(Corpus::Conformance, mount);
    run_host_opts(options, async |h| corpus_conforms_to_chromium(h).await.map(drop));
}
