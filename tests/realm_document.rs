//! The runtime follows its realm's current document (issue 7 item 1): an iframe created blank gets
//! the runtime in its initial about:blank document (the Host runs it there, as an embedder's init
//! script would), then navigates same-origin, which keeps the Window. In 50 consecutive loads the
//! navigated document's button is the candidate at its centre (Chromium's box model), and no load
//! leaves the realm silently missing (harness/src/checks/realms.rs).

use attention_harness::checks::realms::blank_then_navigated_realm_is_never_missing;
use attention_harness::{run_host_opts, Engine, Extra, HostOptions, Layout};
use rstest::rstest;

#[rstest]
fn a_runtime_that_reached_the_initial_about_blank_follows_the_navigated_document_in_50_loads(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
) {
    run_host_opts(HostOptions::new(layout, Engine::Iframe).extra(Extra::BlankNav), async |h| {
        let line = blank_then_navigated_realm_is_never_missing(h, 50).await?;
        eprintln!("{} {layout}: {line}", h.url);
        Ok(())
    });
}
