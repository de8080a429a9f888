//! Opening a Host: a Host that reports errors fails to open with those errors, and leaves no
//! browser context behind in the shared browser.

use attention_harness::{Declaration, Engine, Harness, HostOptions, Layout};
use chromiumoxide::cdp::browser_protocol::target::GetBrowserContextsParams;

#[test]
fn invalid_layout_declaration_fails_open_with_the_hosts_errors_and_leaks_no_context() {
    let h = Harness::global();
    h.block_on(async {
        let cdp = h.cdp().await.unwrap();
        let count =
            async || cdp.execute(None, &GetBrowserContextsParams::default()).await.unwrap().browser_context_ids.len();
        let before = count().await;
        let err = match h
            .open_with(HostOptions::new(Layout::Managed, Engine::Iframe).declaration(Declaration::Invalid))
            .await
        {
            Ok(_) => panic!("a Host with an invalid declaration must not open"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("the Host reported errors") && err.contains("kind"), "{err}");
        assert_eq!(count().await, before, "the failed Host's browser context was left behind");
    });
}
