//! Opening a Host: a Host that reports errors fails to open with those errors, and leaves no
//! browser context behind in the shared browser; when the harness's own ready deadline expires,
//! the error says what was still pending; a reloaded Host is a new document in the same context.

use std::time::Duration;

use attention_harness::checks::expect::Leaf;
use attention_harness::{Declaration, Engine, Extra, Harness, HostOptions, Layout};
use chromiumoxide::cdp::browser_protocol::target::GetBrowserContextsParams;

/// The tests count the shared browser's contexts: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How many browser contexts the shared browser has.
async fn context_count(h: &Harness) -> usize {
    let cdp = h.cdp().await.unwrap();
    cdp.execute(None, &GetBrowserContextsParams::default()).await.unwrap().browser_context_ids.len()
}

/// Opens a Host that must not open: -> its error, after checking that it left the shared browser
/// with as many browser contexts as before (`why` says what the Host was, for the panic).
fn failed_open(options: HostOptions, why: &str) -> String {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let h = Harness::global();
    h.block_on(async {
        let before = context_count(h).await;
        let err = match h.open_with(options).await {
            Ok(h) => {
                // What the Host realm's runtime had settled each child realm as, for the message.
                const STATES: &str = "JSON.stringify(window.__wippyAttentionRuntime.debug().children.map((c) => \
                    [c.mount_id, c.state, c.attempts, c.pending]))";
                let states = h.eval(STATES).await.map_or_else(|e| format!("(unreadable: {e})"), |v| v.to_string());
                h.close().await;
                panic!(
                    "{why} must not open; its child realms as [mount id, state, attempts, queries in flight]: {states}"
                )
            }
            Err(e) => e.to_string(),
        };
        assert_eq!(context_count(h).await, before, "{why} left its browser context behind: {err}");
        err
    })
}

#[test]
fn invalid_layout_declaration_fails_open_with_the_hosts_errors_and_leaks_no_context() {
    let options = HostOptions::new(Layout::Managed, Engine::Iframe).declaration(Declaration::Invalid);
    let err = failed_open(options, "a Host with an invalid declaration");
    assert!(err.contains("the Host reported errors") && err.contains("kind"), "{err}");
}

/// The harness's own ready deadline (not a spec timeout) names what was still pending when it
/// expires (issue 23, part 4). A peer that grants a capability and then answers nothing, not even
/// `ready`, keeps the runtime's `ready()` waiting for that child's answer until the runtime's own
/// bound (50 discovery attempts at 100 ms, then 1.5 s: 6.5 s after `ready()` started), so a 5 s
/// harness deadline expires first, in the negotiation step, with the peer's realm not settled.
#[test]
fn an_expired_ready_deadline_names_the_step_and_the_child_realm_still_pending() {
    let options =
        HostOptions::new(Layout::Managed, Engine::Iframe).extra(Extra::Unready).ready_timeout(Duration::from_secs(5));
    let err = failed_open(options, "a Host whose peer never answers `ready` (not ready within 5 s)");
    assert!(err.contains("timed out after 5000 ms waiting for wippyAttention.ready()"), "{err}");
    assert!(err.contains("still pending: the runtime negotiating with its child realms"), "{err}");
    assert!(err.contains("child realms of the Host realm not settled: ") && err.contains("mount-unready ("), "{err}");
}

/// `Host::reload` (what `bench open-cost` compares with a fresh open) loads a new document in the
/// same page and browser context: the old document's mark is gone, the browser has as many contexts
/// as before, the runtime is ready again, and the pointer path through the new out-of-process leaf
/// agrees with Chromium's box model (the frame sessions of the new documents were attached).
#[test]
fn a_reloaded_host_is_a_new_document_in_the_same_context_with_its_realms_ready() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let h = Harness::global();
    h.block_on(async {
        let host = h.open(Layout::Managed, Engine::Iframe).await.unwrap();
        let contexts = context_count(h).await;
        host.eval("window.__beforeReload = true").await.unwrap();
        host.reload().await.unwrap();
        let mark = host.eval("window.__beforeReload === undefined").await.unwrap();
        let after = context_count(h).await;
        let path = attention_harness::checks::sampling::pointer_path(&host, Leaf::Oopif).await;
        host.close().await;
        assert_eq!(mark, serde_json::json!(true), "the reloaded Host still has the old document's mark");
        assert_eq!(after, contexts, "a reload changed the number of browser contexts");
        path.expect("the pointer path through the reloaded Host's out-of-process leaf");
    });
}
