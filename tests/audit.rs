//! `audit` (issue 22) on pages the reference server serves that the Host does not mount: the Shoelace
//! and Material corpora as top-level pages, a page with a frame from the other site (out of process)
//! and a frame whose window is reused across navigation. Every page is opened with `?attention=off`,
//! so the server injects no runtime: the runtime in each document is the one audit injected through
//! CDP (each document is checked to have no runtime `<script>` of the server's). The agreement the
//! audit measures is held to the fidelity checks' thresholds (tests/fidelity.rs: element >= 99.5 %,
//! rect 100 %, role >= 99 %, name >= 98 %, state and text 100 %), and where the Host mounts the same
//! corpus at the same size, to the very figures the fidelity check measures there. One browser for
//! this process (Harness::global), a fresh context per test (AuditPage::open).

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
    assert_eq!(rows.len(), 1 + disagreements.len(), "a summary row and a row per disagreement: {rows:?}");
    assert_eq!(rows[0]["name"], json!("agreement"));
    assert_eq!(rows[0]["status"], json!(if disagreements.is_empty() { "pass" } else { "fail" }));
    let rate = format!("candidate {:>6.2} %", report["rates"]["candidate"].as_f64().unwrap());
    assert!(rows[0]["detail"].as_str().unwrap().contains(&rate), "{} lacks {rate:?}", rows[0]["detail"]);
    // The summary's picture is the 640 px viewport; each disagreement's a crop of it.
    assert_images_decoded(&rows[..1], 640);
    for (row, d) in rows[1..].iter().zip(&disagreements) {
        let name = format!("({},{}) {}", d["x"], d["y"], d["aspect"].as_str().unwrap());
        assert_eq!(row["name"].as_str(), Some(name.as_str()), "{row}");
        let img = &row["images"][0];
        assert_eq!(img["complete"], json!(true), "{row}");
        let w = img["width"].as_u64().unwrap_or(0);
        assert!(w > 0 && w <= 640, "a crop is no wider than the viewport: {row}");
    }
    assert_offline(&r);
}
