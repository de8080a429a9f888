//! Reading an offline HTML report (`report::html`) back in Chromium, for the tests of every command
//! that writes one (tests/report_html.rs, tests/audit.rs): a fresh browser context opens it from
//! file://, and the DOM (Runtime.evaluate) gives its rows, images and links, with every URL the page
//! requested (Network.requestWillBeSent).

use std::path::Path;
use std::time::Duration;

use attention_harness::cdp::Session;
use attention_harness::Harness;
use chromiumoxide::cdp::browser_protocol::{network, page, target};
use serde_json::{json, Value};

/// What the report shows, read through the DOM of the report opened in a fresh context.
pub struct Read {
    pub dom: Value,
    /// Every URL the page requested (Network.requestWillBeSent).
    pub requests: Vec<String>,
}

const READ_BACK: &str = r#"(() => {
  const rows = [...document.querySelectorAll('#rows tbody tr')].map(tr => ({
    name: tr.querySelector('.name').textContent,
    status: tr.querySelector('.status').textContent,
    detail: tr.querySelector('.detail').textContent,
    legend: tr.querySelector('.picture').textContent,
    labels: [...tr.querySelectorAll('.label')].map(e => e.textContent),
    omissions: [...tr.querySelectorAll('.omissions li')].map(e => e.textContent),
    time: tr.querySelector('.time') ? tr.querySelector('.time').textContent : null,
    images: [...tr.querySelectorAll('img')].map(i => ({kind: i.className, complete: i.complete, width: i.naturalWidth,
                                                      height: i.naturalHeight, shown_width: i.getBoundingClientRect().width})),
  }));
  const summary = document.querySelector('#summary');
  const failures = [...document.querySelectorAll('#failures li')].map(li => ({text: li.textContent,
    target: li.querySelector('a').getAttribute('href')}));
  const links = [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href'));
  const active = document.querySelectorAll('script, iframe, object, embed, svg, form, base, meta[http-equiv=refresh]').length;
  return {rows, links, failures, verdict: summary ? summary.dataset.verdict : null,
          totals: document.querySelector('#totals').textContent, subtitle: document.querySelector('h1 + p').textContent, scripts: document.scripts.length,
          images: document.images.length, title: document.title, heading: document.querySelector('h1').textContent,
          owned: window.__owned === undefined ? null : window.__owned, active};
})()"#;

/// Opens `file` in a fresh browser context with the Network domain on, waits for its load event
/// (and every image's decode), reads the report back and disposes of the context.
pub fn open_report(file: &Path) -> Read {
    let h = Harness::global();
    h.block_on(async {
        let cdp = h.cdp().await.expect("browser");
        let create = target::CreateBrowserContextParams { dispose_on_detach: Some(true), ..Default::default() };
        let context = cdp.execute(None, &create).await.expect("context").browser_context_id;
        let mut t = target::CreateTargetParams::new("about:blank");
        t.browser_context_id = Some(context.clone());
        let target_id = cdp.execute(None, &t).await.expect("target").target_id;
        let mut attach = target::AttachToTargetParams::new(target_id);
        attach.flatten = Some(true);
        let session = cdp.execute(None, &attach).await.expect("attach").session_id.inner().clone();
        let s = Session { cdp: cdp.clone(), id: session.clone() };
        s.execute(&network::EnableParams::default()).await.expect("Network.enable");
        s.execute(&page::EnableParams::default()).await.expect("Page.enable");
        let mut events = cdp.events();
        let url = format!("file://{}", file.canonicalize().expect("report file").display());
        s.execute(&page::NavigateParams::new(url.clone())).await.expect("navigate");
        let mut requests = Vec::new();
        let loaded = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let Ok(e) = events.recv().await else { return };
                if e.session_id.as_deref() != Some(session.as_str()) {
                    continue;
                }
                match e.method.as_str() {
                    "Network.requestWillBeSent" => {
                        requests.push(e.params.pointer("/request/url").and_then(Value::as_str).unwrap_or("").into())
                    }
                    "Page.loadEventFired" => return,
                    _ => {}
                }
            }
        })
        .await;
        assert!(loaded.is_ok(), "the report {url} fired no load event within 20 s");
        // Images decode after load only in odd cases; wait for each one's decode, bounded.
        s.eval("Promise.all([...document.images].map(i => i.decode().catch(() => null)))").await.expect("decode");
        let dom = s.eval(READ_BACK).await.expect("read the report back");
        // Anything requested after load (none should be) is caught too.
        while let Ok(e) = events.try_recv() {
            if e.session_id.as_deref() == Some(session.as_str()) && e.method == "Network.requestWillBeSent" {
                requests.push(e.params.pointer("/request/url").and_then(Value::as_str).unwrap_or("").into());
            }
        }
        let _ = cdp
            .send_with_timeout(None, &target::DisposeBrowserContextParams::new(context), Duration::from_secs(5))
            .await;
        Read { dom, requests }
    })
}

/// The report made no request but for itself (file://) and its inline images (data:).
pub fn assert_offline(r: &Read) {
    assert!(!r.requests.is_empty(), "no request seen at all: the Network domain did not report the report's own load");
    for u in &r.requests {
        assert!(u.starts_with("file://") || u.starts_with("data:"), "the report requested {u}");
    }
    for l in r.dom["links"].as_array().unwrap() {
        let l = l.as_str().unwrap_or("");
        // In-page links (the summary's links to its failing rows) stay in the page.
        assert!(l.starts_with("data:") || l.starts_with("#row-"), "a src/href that is not inline: {l:.80}");
    }
    assert_eq!(r.dom["scripts"], json!(0), "a report has no scripts");
}

/// Every screenshot of `rows` is decoded at `width` device px (a zoomed crop is checked for being
/// decoded only: its size depends on where the pointer is).
pub fn assert_images_decoded(rows: &[Value], width: u64) {
    for row in rows {
        for img in row["images"].as_array().unwrap() {
            if img["kind"] == "crop" {
                assert_eq!(img["complete"], json!(true), "{}: crop not complete", row["name"]);
                assert!(img["width"].as_u64().unwrap_or(0) > 0, "{}: crop not decoded", row["name"]);
                continue;
            }
            assert_eq!(img["complete"], json!(true), "{}: image not complete", row["name"]);
            assert_eq!(img["width"], json!(width), "{}: image not decoded at the screenshot's width", row["name"]);
        }
    }
}
