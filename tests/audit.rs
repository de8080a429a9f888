//! `audit` (issue 22) on pages the reference server serves that the Host does not mount: the Shoelace
//! and Material corpora as top-level pages, a page with a frame from the other site (out of process)
//! and a frame whose window is reused across navigation. Every page is opened with `?attention=off`,
//! so the server injects no runtime: the runtime in each document is the one audit injected through
//! CDP (each document is checked to have no runtime `<script>` of the server's). The agreement the
//! audit measures is held to the fidelity checks' thresholds (tests/fidelity.rs: element >= 99.5 %,
//! rect 100 %, role >= 99 %, name >= 98 %, state and text 100 %), and where the Host mounts the same
//! corpus at the same size, to the very figures the fidelity check measures there. One browser for
//! this process (Harness::global), a fresh context per test (AuditPage::open). Pages that do not
//! load (an HTTP error, a connection closed unanswered) come from a tiny server in the test.

mod report_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use attention_harness::audit::{self, AuditPage, AuditReport, AuditRequest, PageUrl, PageView};
use attention_harness::checks::agreement::Figures;
use attention_harness::checks::fidelity::{self, meets_thresholds};
use attention_harness::{Corpus, Engine, Frame, Harness, HostOptions, Layout, Mount};
use serde_json::{json, Value};

use report_support::{assert_images_decoded, assert_offline, open_report};

const CORPUS_VIEW: PageView = PageView { width: 480, height: 400, dpr: 1.0 };

fn request(url: &str, view: PageView) -> AuditRequest {
    AuditRequest { url: PageUrl::parse(url).expect("an http URL"), grid: audit::DEFAULT_GRID, view }
}

/// Opens `url` for an audit on the process's browser.
async fn open(h: &Harness, url: &str, view: PageView) -> AuditPage {
    let cdp = h.cdp().await.expect("the browser");
    let runtime = h.server().runtime_source().await.expect("the runtime bundle");
    AuditPage::open(&cdp, url, view, &runtime).await.unwrap_or_else(|e| panic!("cannot open {url}: {e}"))
}

/// Whether the runtime runs in a document that has no runtime `<script>` of the server's: asked of
/// the document itself in its own realm (`session` with `context`).
const INJECTED_NOT_SERVED: &str = "({ served: !!document.querySelector('script[src$=\"/runtime/attention.js\"]'), \
    runtime: typeof window.__wippyAttentionRuntime, api: typeof window.wippyAttention, href: location.href })";

fn assert_injected_not_served(v: &Value, what: &str) {
    assert_eq!(v["served"], json!(false), "{what}: the server injected a runtime script: {v}");
    assert_eq!(v["runtime"], json!("object"), "{what}: no runtime in the document: {v}");
    assert_eq!(v["api"], json!("object"), "{what}: no public API in the document: {v}");
}

fn show(r: &AuditReport) -> String {
    let mut t = r.text();
    t.truncate(6000);
    t
}

/// The figures the fidelity check measures for `corpus` mounted same-origin in the managed Host.
async fn fidelity_in_host(h: &Harness, corpus: Corpus) -> Figures {
    let options = HostOptions::new(Layout::Managed, Engine::Iframe).corpus(corpus, Mount::SameOrigin);
    let host = h.open_with(options).await.expect("the corpus Host");
    let f = fidelity::measure(&host).await;
    host.close().await;
    f.expect("the fidelity measurement")
}

/// Audits a corpus page top-level at the corpus's own size and holds the result to the thresholds
/// and to the fidelity check's figures for the same corpus in the Host.
fn corpus_audit_agrees_like_the_fidelity_check(corpus: Corpus, page: &str) {
    let h = Harness::global();
    h.block_on(async {
        let url = h.server().host_url(&format!("{page}?attention=off"));
        let p = open(h, &url, CORPUS_VIEW).await;
        let ready = p.eval("document.getElementById('corpus').getAttribute('data-app-ready')").await.unwrap();
        assert_eq!(ready, json!("true"), "the audit started before the corpus announced itself rendered");
        assert_injected_not_served(&p.eval(INJECTED_NOT_SERVED).await.unwrap(), &url);
        let a = audit::audit_open(&p, &request(&url, CORPUS_VIEW), false, &|_, _| {}).await;
        p.close().await;
        let r = a.expect("the audit").report;
        eprintln!("{}", show(&r));
        assert!(r.points > 100, "only {} points compared on {url}", r.points);
        assert!(r.settled, "the corpus page never settled");
        assert!(meets_thresholds(&r.counts), "below the fidelity thresholds: {}", show(&r));
        let f = fidelity_in_host(h, corpus).await;
        eprintln!("fidelity in the Host: {}", f.line());
        let rates = |f: &Figures| {
            [f.element_pct(), f.rect_pct(), f.role_pct(), f.name_pct(), f.state_pct(), f.text_pct()]
                .map(|v| (v * 100.0).round() / 100.0)
        };
        // The page at the size the Host mounts it: the same points, the same figures.
        assert_eq!(r.points, f.points, "the audit {} and the fidelity check {}", r.counts.line(), f.line());
        assert_eq!(rates(&r.counts), rates(&f), "the audit {} and the fidelity check {}", r.counts.line(), f.line());
    });
}

#[test]
fn the_shoelace_corpus_as_a_top_level_page_agrees_with_chromium_as_the_fidelity_check_measures_it() {
    corpus_audit_agrees_like_the_fidelity_check(Corpus::Shoelace, "/apps/corpus-shoelace.html");
}

#[test]
fn the_material_corpus_as_a_top_level_page_agrees_with_chromium_as_the_fidelity_check_measures_it() {
    corpus_audit_agrees_like_the_fidelity_check(Corpus::Material, "/apps/corpus-material.html");
}

#[test]
fn points_in_a_frame_from_the_other_site_are_audited_with_the_runtime_injected_there() {
    let h = Harness::global();
    let view = PageView { width: 640, height: 480, dpr: 1.0 };
    h.block_on(async {
        let url = h.server().host_url("/apps/audit-cross-site.html?attention=off");
        let p = open(h, &url, view).await;
        let child_origin = h.server().child_origin().to_string();
        let oopif =
            p.frames().child_targets().into_iter().find(|c| c.url.starts_with(&child_origin)).unwrap_or_else(|| {
                panic!("no out-of-process frame from {child_origin}: {:?}", p.frames().child_targets())
            });
        assert_injected_not_served(&p.eval(INJECTED_NOT_SERVED).await.unwrap(), "the top document");
        let inner = p.frames().session(&oopif.session_id).eval(INJECTED_NOT_SERVED).await.unwrap();
        assert_injected_not_served(&inner, "the out-of-process frame");
        let a = audit::audit_open(&p, &request(&url, view), false, &|_, _| {}).await;
        p.close().await;
        let r = a.expect("the audit").report;
        eprintln!("{}", show(&r));
        let frame = r
            .frames
            .iter()
            .find(|f| f.out_of_process && f.url.starts_with(&child_origin))
            .unwrap_or_else(|| panic!("no point fell in the out-of-process frame: {}", show(&r)));
        // The frame is 480x400 of a 640x480 viewport: at least its 12 x 10 grid points land there.
        assert!(frame.points >= 120, "{} points in the frame: {}", frame.points, show(&r));
        assert!(
            frame.candidates_agree * 2 >= frame.points,
            "the runtime answered with Chromium's element at only {} of {} points in the frame: {}",
            frame.candidates_agree,
            frame.points,
            show(&r)
        );
        assert!(r.frames.iter().any(|f| !f.out_of_process && f.points > 0), "no top-document point: {}", show(&r));
        assert!(meets_thresholds(&r.counts), "below the fidelity thresholds: {}", show(&r));
    });
}

/// Inserts the frame `reuse` with `src` (marking its initial about:blank Window right after the
/// insertion, while the navigation is under way), or navigates it there when it exists; waits for its
/// load event. Returns whether the Window was kept and the document replaced.
async fn frame_to(p: &AuditPage, src: &str) -> Value {
    let expr = format!(
        "new Promise((resolve) => {{
            let f = document.getElementById('reuse');
            const fresh = !f;
            if (fresh) {{
                f = document.createElement('iframe');
                Object.assign(f, {{ id: 'reuse', name: 'reuse', title: 'Reused frame', src: {src:?} }});
                document.getElementById('frames').appendChild(f);
            }} else {{
                f.src = {src:?};
            }}
            f.contentWindow.__auditMark = 'the window before';
            const before = f.contentDocument;
            f.addEventListener('load', () => resolve({{
                kept: f.contentWindow.__auditMark === 'the window before',
                replaced: f.contentDocument !== before,
                href: f.contentWindow.location.href,
            }}), {{ once: true }});
        }})"
    );
    let loaded = tokio::time::timeout(Duration::from_secs(20), p.eval(&expr)).await;
    let v = loaded.unwrap_or_else(|_| panic!("the frame did not load {src} within 20 s")).unwrap();
    assert!(v["href"].as_str().is_some_and(|h| h.ends_with(src)), "the frame is at {v}, not {src}");
    v
}

/// The runtime's candidate at the centre of the element `data-landmark=name` (wherever it is)
/// against Chromium's box model of it.
async fn candidate_is_chromiums_box(p: &AuditPage, landmark: &str) {
    let at = p.frames().locate_landmark(landmark).await.expect("the landmark");
    let truth = p.frames().node_rect(&at).await.expect("its box");
    let (x, y) = truth.center();
    let opts = json!({"point": {"x": x.round(), "y": y.round()}, "radius_css_px": 0});
    let snap = p.eval(&format!("window.wippyAttention.snapshot({opts})")).await.unwrap();
    let rects: Vec<Value> = snap["candidates"].as_array().into_iter().flatten().map(|c| c["rect"].clone()).collect();
    let hit = rects.iter().any(|r| {
        let d = [r["x"].as_f64(), r["y"].as_f64(), r["width"].as_f64(), r["height"].as_f64()];
        let [Some(rx), Some(ry), Some(w), Some(hh)] = d else { return false };
        [(rx - truth.x), (ry - truth.y), (rx + w - truth.right()), (ry + hh - truth.bottom())]
            .iter()
            .all(|e| e.abs() <= 0.5)
    });
    assert!(hit, "no runtime candidate at {landmark} is Chromium's box {truth:?}: {rects:?}");
}

#[test]
fn the_runtime_is_in_a_frame_whose_window_is_reused_across_navigation_and_after_a_second_navigation() {
    let h = Harness::global();
    let view = PageView { width: 640, height: 400, dpr: 1.0 };
    h.block_on(async {
        let url = h.server().host_url("/apps/audit-reuse.html?attention=off");
        let p = open(h, &url, view).await;
        // The frame's initial about:blank Window, marked; the same-origin document it navigates to
        // gets the same Window (the mark survives), and the runtime there is bound to that document.
        let first = frame_to(&p, "/apps/plain.html?attention=off").await;
        assert_eq!(
            (first["kept"].clone(), first["replaced"].clone()),
            (json!(true), json!(true)),
            "the frame's Window was not kept across the navigation: the test proves nothing ({first})"
        );
        let inner = p.frames().eval_in_frame(&Frame::Name("reuse".into()), INJECTED_NOT_SERVED).await.unwrap();
        assert_injected_not_served(&inner, "the reused window's document");
        p.eval("window.wippyAttention.ready()").await.unwrap();
        candidate_is_chromiums_box(&p, "plain-leaf").await;
        // A second navigation (a new window): the runtime is there again.
        let second = frame_to(&p, "/apps/plain.html?attention=off&visit=2").await;
        assert_eq!(second["kept"], json!(false), "the second navigation is to a new Window: {second}");
        let inner = p.frames().eval_in_frame(&Frame::Name("reuse".into()), INJECTED_NOT_SERVED).await.unwrap();
        assert_injected_not_served(&inner, "the frame's second document");
        p.eval("window.wippyAttention.ready()").await.unwrap();
        candidate_is_chromiums_box(&p, "plain-leaf").await;
        let a = audit::audit_open(&p, &request(&url, view), false, &|_, _| {}).await;
        p.close().await;
        let r = a.expect("the audit").report;
        eprintln!("{}", show(&r));
        assert!(meets_thresholds(&r.counts), "below the fidelity thresholds: {}", show(&r));
    });
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/audit-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

#[test]
fn audit_cli_prints_the_typed_report_and_writes_an_html_report_chromium_reads_back() {
    let h = Harness::global();
    let url = h.server().host_url("/apps/audit-cross-site.html?attention=off");
    let dir = scratch("cli");
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["audit", "--url", &url, "--viewport", "640x480", "--json", "--html", dir.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let disagreements = report["disagreements"].as_array().expect("disagreements").clone();
    let want_code = if disagreements.is_empty() { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(want_code), "exit code for {} disagreements: {stderr}", disagreements.len());
    let points = report["points"].as_u64().unwrap();
    // The grid alone is 16 x 12 points over 640x480; element centres add to it.
    assert!(points > 192, "{points} points: {stdout}");
    assert!(stderr.contains(&format!("audit: {points}/{points} points")), "no progress on stderr: {stderr}");
    for k in ["candidate", "rect", "role", "name", "state", "text"] {
        assert!(report["rates"][k].as_f64().is_some(), "no {k} rate: {}", report["rates"]);
    }
    assert!(
        report["frames"].as_array().unwrap().iter().any(|f| f["out_of_process"] == json!(true)),
        "no out-of-process frame in the report: {}",
        report["frames"]
    );

    let r = open_report(&dir.join("report.html"));
    let rows = r.dom["rows"].as_array().unwrap();
    let withheld = report["withheld"].as_array().expect("withheld").clone();
    let elements = report["elements"].as_array().expect("elements").clone();
    assert_eq!(
        rows.len(),
        1 + withheld.len() + elements.len(),
        "a summary row, a row per withheld element and a row per disagreeing element: {rows:?}"
    );
    let grouped: usize = elements
        .iter()
        .flat_map(|e| e["differences"].as_array().unwrap())
        .map(|d| d["points"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        grouped,
        disagreements.len(),
        "every disagreement is in its element's group once: {}",
        report["elements"]
    );
    assert_eq!(rows[0]["name"], json!("agreement"));
    assert_eq!(rows[0]["status"], json!(if disagreements.is_empty() { "pass" } else { "fail" }));
    let rate = format!("candidate {:>6.2} %", report["rates"]["candidate"].as_f64().unwrap());
    assert!(rows[0]["detail"].as_str().unwrap().contains(&rate), "{} lacks {rate:?}", rows[0]["detail"]);
    // The summary's picture is the 640 px viewport; each element's a crop of it.
    assert_images_decoded(&rows[..1], 640);
    for row in &rows[1..] {
        let img = &row["images"][0];
        assert_eq!(img["complete"], json!(true), "{row}");
        let w = img["width"].as_u64().unwrap_or(0);
        assert!(w > 0 && w <= 640, "a crop is no wider than the viewport: {row}");
    }
    assert_offline(&r);
}

#[test]
fn audit_of_a_page_the_server_answers_404_exits_2_with_the_status_instead_of_auditing_it() {
    let h = Harness::global();
    let url = h.server().host_url("/apps/no-such-page.html?attention=off");
    // Chromium's own answer for the URL: the document's HTTP status.
    let status = h.block_on(async {
        let cdp = h.cdp().await.expect("the browser");
        let runtime = h.server().runtime_source().await.expect("the runtime bundle");
        match AuditPage::open(&cdp, &url, CORPUS_VIEW, &runtime).await {
            Err(audit::OpenError::Status { response }) => response,
            Err(e) => panic!("{url} failed otherwise: {e}"),
            Ok(p) => {
                p.close().await;
                panic!("{url} opened as an auditable page")
            }
        }
    });
    assert_eq!(status.status, 404, "{status}");
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["audit", "--url", &url])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "a page that did not load is no audit: {stdout}\n{stderr}");
    for want in ["did not load", "404 Not Found", url.as_str()] {
        assert!(stderr.contains(want), "stderr lacks {want:?}: {stderr}");
    }
    assert!(stdout.is_empty(), "no rates for a page that did not load: {stdout}");
}

/// A tiny server on a free port of this machine that answers every connection with `answer`
/// (after reading the request), or closes it unanswered when `answer` is empty; it lives as long as
/// the test process.
fn tiny_server(answer: &'static [u8]) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}/page.html", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 8192];
            let mut got = Vec::new();
            // The request's head (the reachability probe sends nothing and closes: read gives 0).
            while let Ok(n @ 1..) = conn.read(&mut buf) {
                got.extend_from_slice(&buf[..n]);
                if got.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let _ = conn.write_all(answer);
        }
    });
    url
}

/// Runs `audit --url URL`; its exit code, stdout and stderr.
fn audit_cli(url: &str) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["audit", "--url", url])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// `audit --url URL` of a page that did not load: exit 2, stderr names the URL and `why`, nothing
/// on stdout, no panic.
fn assert_not_audited(url: &str, why: &str) {
    let (code, stdout, stderr) = audit_cli(url);
    assert_eq!(code, Some(2), "a page that did not load is no audit: {stdout}\n{stderr}");
    for want in ["did not load", why, url] {
        assert!(stderr.contains(want), "stderr lacks {want:?}: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stdout.is_empty(), "no rates for a page that did not load: {stdout}");
}

#[test]
fn audit_of_an_http_error_with_an_empty_body_exits_2_naming_the_status() {
    let url = tiny_server(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert_not_audited(&url, "503 Service Unavailable");
}

#[test]
fn audit_of_a_navigation_the_server_closes_unanswered_exits_2_naming_chromiums_net_error() {
    assert_not_audited(&tiny_server(b""), "net::ERR_");
}

/// Whether the pixel at (x, y) is in `r` (a box holds its top and left edges, not its bottom and right).
fn holds(r: &attention_harness::oracle::BoxRect, x: f64, y: f64) -> bool {
    x >= r.x && x < r.right() && y >= r.y && y < r.bottom()
}

/// The points of `all` that lie inside `r`.
fn inside(points: &[Value], r: &attention_harness::oracle::BoxRect) -> usize {
    points.iter().filter(|p| holds(r, p[0].as_f64().unwrap(), p[1].as_f64().unwrap())).count()
}

#[test]
fn what_the_runtime_withholds_by_design_is_listed_as_withheld_and_an_in_process_frame_is_listed() {
    let h = Harness::global();
    let view = PageView { width: 640, height: 400, dpr: 1.0 };
    let a = h.block_on(async {
        let url = h.server().host_url("/apps/audit-withheld.html?attention=off");
        let p = open(h, &url, view).await;
        // Chromium's boxes of what the spec withholds, and its verdict that the frame is in-process.
        let mut boxes = Vec::new();
        for (landmark, reason) in [("password", "sensitive"), ("composer", "composer"), ("excluded", "excluded")] {
            let at = p.frames().locate_landmark(landmark).await.expect("the landmark");
            boxes.push((landmark, reason, p.frames().node_rect(&at).await.expect("its box")));
        }
        let frame_url = h.server().host_url("/apps/plain.html?attention=off");
        assert!(
            !p.frames().child_targets().iter().any(|c| c.url == frame_url),
            "the same-origin frame got a CDP session of its own: the test proves nothing about in-process frames"
        );
        let a = audit::audit_open(&p, &request(&url, view), true, &|_, _| {}).await;
        p.close().await;
        let a = a.expect("the audit");
        let r = &a.report;
        eprintln!("{}", show(r));
        let json = serde_json::to_value(r).unwrap();
        assert_eq!(json["response"]["status"], json!(200), "{}", json["response"]);
        // Withheld by design: each of the three elements, with its reason and Chromium's box; the
        // withheld elements inside that box hold every grid point of it, and no point outside it.
        let withheld = json["withheld"].as_array().unwrap();
        let rect_of = |w: &Value| {
            let e = &w["element"]["rect"];
            attention_harness::oracle::BoxRect {
                x: e["x"].as_f64().unwrap(),
                y: e["y"].as_f64().unwrap(),
                width: e["width"].as_f64().unwrap(),
                height: e["height"].as_f64().unwrap(),
            }
        };
        for (landmark, reason, b) in &boxes {
            let near = |a: f64, b: f64| (a - b).abs() <= 0.5;
            let own = withheld.iter().find(|w| {
                let r = rect_of(w);
                w["reason"] == json!(reason)
                    && near(r.x, b.x)
                    && near(r.y, b.y)
                    && near(r.right(), b.right())
                    && near(r.bottom(), b.bottom())
            });
            assert!(own.is_some(), "{landmark} at {b} is not listed as withheld ({reason}): {withheld:?}");
            let within: Vec<&Value> = withheld
                .iter()
                .filter(|w| {
                    let r = rect_of(w);
                    r.x >= b.x - 0.5
                        && r.y >= b.y - 0.5
                        && r.right() <= b.right() + 0.5
                        && r.bottom() <= b.bottom() + 0.5
                })
                .collect();
            let points: Vec<Value> = within.iter().flat_map(|w| w["points"].as_array().unwrap().clone()).collect();
            assert_eq!(
                inside(&points, b),
                points.len(),
                "{landmark}: a withheld point outside Chromium's box {b}: {within:?}"
            );
            let viewport = attention_harness::oracle::BoxRect { x: 0.0, y: 0.0, width: 640.0, height: 400.0 };
            for (x, y) in attention_harness::checks::agreement::grid(&viewport, f64::from(audit::DEFAULT_GRID)) {
                if holds(b, x, y) {
                    assert!(
                        points.iter().any(|p| p == &json!([x, y])),
                        "{landmark}: the grid point ({x},{y}) in its box {b} is not withheld: {within:?}"
                    );
                }
            }
        }
        assert_eq!(r.counts.withheld, r.withheld.iter().map(|w| w.points.len()).sum::<usize>());
        assert!(r.disagreements.is_empty(), "withheld content made the audit fail: {}", show(r));
        // The label of the password field is text the runtime never reads: the form's text agrees.
        assert!(r.counts.text_comparable > 0 && r.rates.text == 100.0, "{}", show(r));
        // Every frame: the top document and the in-process frame, with the points that fell in it.
        assert_eq!(r.frames.len(), 2, "{}", show(r));
        let inner =
            r.frames.iter().find(|f| f.url == frame_url).unwrap_or_else(|| panic!("no frame {frame_url}: {}", show(r)));
        assert!(!inner.top && !inner.out_of_process, "{inner:?}");
        assert!(inner.points >= 8, "the 320x64 frame holds at least a row of 8 grid points: {}", show(r));
        assert_eq!(inner.candidates_agree, inner.points, "{}", show(r));
        a
    });
    let r = &a.report;
    // The HTML report says what was compared and lists each withheld element.
    let dir = scratch("withheld");
    let path = attention_harness::report::html::write(&dir, &r.html(a.screenshot.as_deref())).expect("the report");
    let read = open_report(&path);
    let rows = read.dom["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1 + r.withheld.len(), "{rows:?}");
    let summary = rows[0]["detail"].as_str().unwrap();
    for want in ["compared at each point", "Chromium's hit test", "withheld by design", "200 OK", "in-process"] {
        assert!(summary.contains(want), "the summary lacks {want:?}: {summary}");
    }
    assert!(rows[1..].iter().all(|row| row["status"] == json!("pass")), "{rows:?}");
    assert!(rows[1..].iter().any(|row| row["detail"].as_str().unwrap().contains("sensitive control")), "{rows:?}");
    assert_offline(&read);
}
