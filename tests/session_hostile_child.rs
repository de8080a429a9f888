//! The hostile child against the Session's token (issue 25, item 7), in Chromium: script running
//! in the Host's cross-origin iframe (the child site, where the hostile app lives) tries to read
//! the bearer token, by fetching the Host pages from its own origin (the child site used to serve
//! them, token filled in) and from the Host origin (CORS keeps the body from it), and then to join
//! the Session's WebSocket as the user with the token it is handed, as if it had stolen it. Every
//! way must fail: no token is readable, the join is refused by its `Origin`. The same join from the
//! Host's own document opens (the refusal is the origin, not a broken join).

use std::time::Duration;

use anyhow::ensure;
use attention_harness::checks::{wait_for, Poll};
use attention_harness::{run_host_opts, Engine, Extra, Frame, HostOptions, Layout};
use serde_json::Value;

/// The hostile script: fetches, then a join with `token`; resolves to what it saw.
fn attempt(host_origin: &str, token: &str) -> String {
    let ws = host_origin.replace("http://", "ws://");
    format!(
        r#"(async () => {{
  const read = async (url) => {{
    try {{ const r = await fetch(url); return {{ status: r.status, text: await r.text() }}; }}
    catch (e) {{ return {{ status: 0, text: '', error: String(e) }}; }}
  }};
  const out = {{ origin: location.origin }};
  out.pages = {{}};
  for (const url of ['/', '/host/managed.html', '/host/compat.html', '{host_origin}/host/managed.html', '{host_origin}/host/compat.html']) {{
    out.pages[url] = await read(url);
  }}
  const meta = document.querySelector('meta[name="wippy-session-token"]');
  out.meta = meta ? meta.content : null;
  out.join = await new Promise((resolve) => {{
    const ws = new WebSocket('{ws}/api/v1/ws/join?token=' + encodeURIComponent('{token}'));
    const timer = setTimeout(() => resolve({{ timeout: true }}), 8000);
    ws.onmessage = (m) => {{ clearTimeout(timer); resolve({{ opened: true, first: String(m.data) }}); ws.close(); }};
    ws.onclose = (e) => {{ clearTimeout(timer); resolve({{ opened: false, close_code: e.code }}); }};
  }});
  return out;
}})()"#
    )
}

#[test]
fn a_hostile_child_can_neither_read_the_token_nor_join_the_session_with_it() {
    let harness = attention_harness::Harness::global();
    let server = harness.server();
    let (host_origin, child_origin, token) =
        (server.host_origin().to_string(), server.child_origin().to_string(), server.session().token().to_string());
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe).extra(Extra::Hostile), async |h| {
        let frame = Frame::UrlContains("hostile=1".into());
        wait_for(h, "the hostile child document", Duration::from_secs(10), || async {
            Ok(match h.eval_in_frame(&frame, "location.origin").await {
                Ok(o) if o == child_origin.as_str() => Poll::Ready(()),
                Ok(o) => Poll::Pending(format!("origin {o}")),
                Err(e) => Poll::Pending(e.to_string()),
            })
        })
        .await?;
        let seen: Value = h.eval_in_frame(&frame, &attempt(&host_origin, &token)).await?;
        ensure!(seen["origin"] == child_origin.as_str(), "the script ran on the child origin: {seen}");
        for (url, page) in seen["pages"].as_object().into_iter().flatten() {
            let text = page["text"].as_str().unwrap_or_default();
            ensure!(!text.contains(&token), "{url} handed the token to the child origin");
            if !url.starts_with("http") {
                ensure!(page["status"] == 404, "the child site serves the Host page {url}: {page}");
            } else {
                ensure!(page["status"] == 0, "the Host page {url} was readable cross-origin: {page}");
            }
        }
        ensure!(seen["meta"].is_null(), "the child document carries a token: {seen}");
        ensure!(seen["join"]["opened"] == false, "the child origin joined the Session as the user: {seen}");
        // The control: the Host's own document joins with the same token.
        let own: Value = h.eval(&attempt(&host_origin, &token)).await?;
        ensure!(own["join"]["opened"] == true, "the Host origin's join did not open: {own}");
        ensure!(own["join"]["first"].as_str().unwrap_or_default().contains("\"welcome\""), "{own}");
        Ok(())
    });
}
