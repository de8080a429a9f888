//! Role and name conformance (issue 24): on the conformance corpus (pages/apps/corpus-conformance.html,
//! built from HTML-AAM's element table, WAI-ARIA 1.2's roles and accname 1.2's steps), mounted as a
//! same-origin iframe, a cross-origin iframe and a Web Fragment in both layouts, the runtime's summary of every
//! element agrees with Chromium's AX node for at least 99 % of the elements Chromium does not ignore,
//! role and name separately (harness/src/checks/conformance.rs lists every disagreement).

use attention_harness::checks::conformance::corpus_conforms_to_chromium;
use attention_harness::{run_host_opts, Corpus, HostOptions, Layout, Mount};
use rstest::rstest;

#[rstest]
fn conformance_corpus_roles_and_names_agree_with_chromium_ax_tree_at_every_element(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values("same-origin", "cross-origin", "fragment")] mount: &str,
) {
    let mount = Mount::named(mount).expect("a corpus mount");
    let options = HostOptions::new(layout, mount.engine()).corpus(Corpus::Conformance, mount);
    run_host_opts(options, async |h| corpus_conforms_to_chromium(h).await.map(drop));
}
