//! QA's inputs on the command line (issue 22): a layout file validated by the Host's own rules,
//! the view options (viewport, DPR, zoom) reaching the page, and bad input refused up front: a
//! clear message naming the problem, exit 2, before any browser starts.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use attention_harness::attention::inspect::{GeometryData, InspectionResult};
use attention_harness::qa::landmarks::{REFERENCE, REFERENCE_PREFIXES};
use attention_harness::qa::LayoutFile;
use attention_harness::{run_host_opts, Engine, HostOptions, Layout};
use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs the CLI from the repository root: its output and how long it took.
pub(crate) fn cli(args: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    (out, t0.elapsed())
}

/// Runs the CLI expecting a usage error before any browser starts
/// ([`crate::cli_support::run_expecting_no_launch`]): exit 2, nothing on stdout, and stderr naming
/// every one of `names`. How long it took is printed, not asserted.
pub(crate) fn refused(args: &[&str], names: &[&str]) -> String {
    let (out, took, launched) = crate::cli_support::run_expecting_no_launch(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    eprintln!("{args:?} refused in {took:?}");
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!launched, "{args:?} started a browser before refusing: {err}");
    for n in names {
        assert!(err.contains(n), "{args:?}: the error does not name {n:?}: {err}");
    }
    assert!(out.stdout.is_empty(), "{args:?} printed a result: {}", String::from_utf8_lossy(&out.stdout));
    err
}

/// The lines of a refusal that are problems: `FILE:LINE:COL: kind: message`, as (line, col, kind).
fn problem_lines(err: &str, file: &str) -> Vec<(u32, u32, String)> {
    err.lines()
        .filter_map(|l| l.strip_prefix(&format!("{file}:")))
        .map(|rest| {
            let mut parts = rest.splitn(4, ':');
            let line = parts.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no line in {rest:?}"));
            let col = parts.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no column in {rest:?}"));
            let kind = parts.next().unwrap_or_default().trim().to_string();
            assert!(parts.next().is_some_and(|m| m.starts_with(' ') && m.len() > 1), "no message in {rest:?}");
            (line, col, kind)
        })
        .collect()
}

/// Where `needle` first starts in `file` (1-based line and column).
fn position_of(file: &str, needle: &str) -> (u32, u32) {
    let text = std::fs::read_to_string(repo(file)).expect("the fixture");
    let (n, line) = text.lines().enumerate().find(|(_, l)| l.contains(needle)).expect("the needle");
    (n as u32 + 1, line.find(needle).unwrap() as u32 + 1)
}

#[test]
fn a_layout_file_the_host_rejects_is_the_clis_error_one_line_per_problem_at_its_line_and_column() {
    let bad = "fixtures/layouts/invalid-unknown-panel.json";
    for cmd in [
        vec!["snapshot", "--point", "10,10", "--layout-file", bad],
        vec!["verify", "--layout-file", bad],
        vec!["inspect", "--layout-file", bad, "tree"],
    ] {
        let err = refused(&cmd, &["does not validate (2 problems)", "`sidebar`", "`wide`", bad]);
        let (line, col) = position_of(bad, "\"wide\"");
        let (pline, pcol) = position_of(bad, "\"sidebar\"");
        assert_eq!(
            problem_lines(&err, bad),
            vec![(line, pcol, "unknown-panel".into()), (line, col, "invalid-size".into())],
            "{err}"
        );
        assert_eq!(pline, line);
    }
    let err = refused(
        &["snapshot", "--point", "1,1", "--layout-file", "fixtures/layouts/not-json.json"],
        &["fixtures/layouts/not-json.json:1:26: invalid-json: expected a JSON value, found the end of the file"],
    );
    assert_eq!(problem_lines(&err, "fixtures/layouts/not-json.json").len(), 1, "{err}");
    refused(
        &["snapshot", "--point", "1,1", "--layout-file", "fixtures/layouts/no-such-file.json"],
        &["fixtures/layouts/no-such-file.json:1:1: unreadable: cannot read the layout file"],
    );
    // Compat loads a layout file with the same checker and refuses it the same way.
    for cmd in [
        vec!["snapshot", "--layout", "compat", "--point", "1,1", "--layout-file", bad],
        vec!["inspect", "--layout", "compat", "--layout-file", bad, "tree"],
    ] {
        let err = refused(&cmd, &["does not validate (2 problems)", "`sidebar`", "`wide`", bad]);
        assert_eq!(problem_lines(&err, bad).len(), 2, "{err}");
    }
    refused(&["inspect", "tree"], &["--layout"]);
}

/// The misspelled key: refused with its path and the nearest known key, where it is.
#[test]
fn an_unknown_key_in_a_layout_file_is_refused_with_its_path_and_the_nearest_known_key() {
    let file = "fixtures/layouts/misspelled-key.json";
    let err = refused(
        &["snapshot", "--point", "panel-chat", "--layout-file", file],
        &["`layout.layouts.default.children[2].sise` is not a known key; nearest known: `size`"],
    );
    let (line, col) = position_of(file, "\"sise\"");
    assert_eq!(problem_lines(&err, file), vec![(line, col, "unknown-key".into())], "{err}");
}

/// Fixed sizes against the page's CSS viewport, at the boundary: default.json's fixed panels are
/// 180 + 240 + 320 = 740 px wide, so a 740 px viewport passes and 739 px is refused, naming them.
#[test]
fn fixed_sizes_that_exactly_fit_the_viewport_pass_and_one_px_less_of_viewport_is_refused() {
    let pages = repo("pages");
    let default = repo("pages/host/layouts/default.json");
    LayoutFile::load(&pages, &default, (740, 100)).expect("740 px of fixed panels fit a 740 px viewport");
    let err = LayoutFile::load(&pages, &default, (739, 100)).unwrap_err().to_string();
    assert!(err.contains("nav 180px + tools 240px + chat 320px = 740px do not fit in the 739px width"), "{err}");
    let file = "pages/host/layouts/default.json";
    refused(
        &["snapshot", "--point", "1,1", "--layout-file", file, "--viewport", "739x600"],
        &[&format!("{file}:4:18: does-not-fit: layout.layouts.default: fixed sizes nav 180px + tools 240px + chat 320px = 740px do not fit in the 739px width of the 739x600 CSS px viewport")],
    );
    // The zoomed viewport is what must hold them: 925 px at 125 % is 740 CSS px, 924 px is not.
    refused(
        &["snapshot", "--point", "1,1", "--layout-file", file, "--viewport", "924x600", "--zoom", "1.25"],
        &["does-not-fit", "739px width"],
    );
    // The 1400 px panel in the default 1280 px viewport.
    refused(
        &["verify", "--layout-file", "fixtures/layouts/too-wide.json"],
        &["does-not-fit", "tools 1400px = 1400px do not fit in the 1280px width of the 1280x720 CSS px viewport"],
    );
}

/// Compat does not apply a layout file's arrangement (its chrome is fixed), so the fit check is
/// managed's only: where managed refuses default.json (740 px of fixed panels in a 739 px viewport,
/// the boundary above) and the 1400 px panel, compat opens them, the CLI and the Host alike:
/// the CLI's checker finds nothing, the compat Host's own `check` (host.js) finds nothing at that
/// viewport and it mounts the pages, and `snapshot --layout compat` exits 0.
#[test]
fn a_layout_files_fixed_sizes_are_checked_against_the_viewport_only_in_managed_the_layout_that_applies_them() {
    let pages = repo("pages");
    let default = "pages/host/layouts/default.json";
    LayoutFile::load_fitting(&pages, &repo(default), None).expect("no fit check for compat");
    assert!(LayoutFile::load_fitting(&pages, &repo(default), Some((739, 600))).is_err());
    for (file, viewport) in [(default, "739x600"), ("fixtures/layouts/too-wide.json", "1280x720")] {
        let (out, _) = cli(&[
            "snapshot",
            "--layout",
            "compat",
            "--layout-file",
            file,
            "--viewport",
            viewport,
            "--point",
            "page-area",
        ]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let snap: Value = serde_json::from_slice(&out.stdout).expect("a snapshot");
        assert!(snap["candidates"].as_array().is_some_and(|c| !c.is_empty()), "{file}: {snap}");
        refused(
            &["snapshot", "--layout", "managed", "--layout-file", file, "--viewport", viewport, "--point", "1,1"],
            &["does-not-fit"],
        );
    }
    let text = std::fs::read_to_string(repo(default)).unwrap();
    let opts = HostOptions::new(Layout::Compat, Engine::Iframe).declaration_json(text.clone()).viewport(739, 600);
    run_host_opts(opts, async |host| {
        let problems = host.eval(&format!("window.__host.check({})", serde_json::to_string(&text)?)).await?;
        anyhow::ensure!(problems == serde_json::json!([]), "the compat Host's check says {problems}");
        let summary = host.eval("window.__host.ready.then(s => [s.ok, s.mounts.length])").await?;
        anyhow::ensure!(summary == serde_json::json!([true, 4]), "the compat Host mounted {summary}");
        Ok(())
    });
}

#[test]
fn the_layout_file_validator_is_the_hosts_own_and_agrees_with_the_host_on_its_shipped_files() {
    let pages = repo("pages");
    // The Host accepts its shipped default and stacked declarations and rejects invalid.json.
    for ok in ["pages/host/layouts/default.json", "pages/host/layouts/stacked.json", "fixtures/layouts/chat-below.json"]
    {
        LayoutFile::load(&pages, &repo(ok), (1280, 720)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    let err = LayoutFile::load(&pages, &repo("pages/host/layouts/invalid.json"), (1280, 720)).unwrap_err().to_string();
    assert!(err.contains("does not validate"), "{err}");
    // ... and the Host itself says the same of invalid.json in the browser.
    run_host_opts(
        HostOptions::new(Layout::Managed, Engine::Iframe).declaration(attention_harness::Declaration::Default),
        async |host| {
            let file = std::fs::read_to_string(repo("pages/host/layouts/invalid.json"))?;
            let text = serde_json::to_string(&file)?;
            let kinds = host.eval(&format!("window.__host.check({text}).map(e => [e.kind, e.line, e.column])")).await?;
            let Err(attention_harness::qa::DeclarationError::Rejected { problems, .. }) =
                LayoutFile::load(&repo("pages"), &repo("pages/host/layouts/invalid.json"), (1280, 720))
            else {
                anyhow::bail!("invalid.json was not rejected")
            };
            let ours: Vec<Value> = problems.iter().map(|p| serde_json::json!([p.kind, p.line, p.column])).collect();
            anyhow::ensure!(kinds == Value::Array(ours), "the Host says {kinds}, the CLI {problems:?}");
            Ok(())
        },
    );
}

#[test]
fn points_outside_the_zoomed_viewport_and_unknown_landmarks_are_refused_up_front() {
    refused(&["snapshot", "--layout", "managed", "--point", "5000,5000"], &["5000,5000", "outside the 1280x720"]);
    // At zoom 1.25 the page's viewport is 1024x576 CSS px.
    refused(&["snapshot", "--layout", "compat", "--zoom", "1.25", "--point", "1100,10"], &["outside the 1024x576"]);
    refused(&["snapshot", "--layout", "managed", "--point", "no-such-place"], &["no-such-place", "boundary"]);
    // panel-side is a landmark only of a layout file that declares it.
    refused(&["snapshot", "--layout", "managed", "--point", "panel-sidebar"], &["panel-sidebar"]);
    refused(&["snapshot", "--layout", "managed", "--point", "1,1", "--viewport", "50x50"], &["outside 100..=4096"]);
    refused(&["snapshot", "--layout", "managed", "--point", "1,1", "--dpr", "4"], &["--dpr"]);
    refused(&["snapshot", "--layout", "managed", "--point", "1,1", "--zoom", "6"], &["outside 0.25..=5"]);
}

#[test]
fn a_layout_file_with_zoom_and_dpr_is_what_the_page_is_built_from_and_sampled_at() {
    let file = std::fs::read_to_string(repo("fixtures/layouts/chat-below.json")).expect("the layout file");
    let options =
        HostOptions::new(Layout::Managed, Engine::Iframe).declaration_json(file).zoom(1.25).device_scale_factor(2.0);
    run_host_opts(options, async |host| {
        // Chromium's own answers: the page's viewport and DPR, and the panels where the file puts them.
        let view = host.eval("[innerWidth, innerHeight, devicePixelRatio]").await?;
        anyhow::ensure!(view == serde_json::json!([1024, 576, 2.5]), "viewport and DPR: {view}");
        let chat = host.landmark_rect("panel-chat").await?;
        let nav = host.landmark_rect("panel-nav").await?;
        anyhow::ensure!((nav.width - 160.0).abs() < 0.5, "nav is 160 px wide: {nav:?}");
        anyhow::ensure!((chat.height - 260.0).abs() < 0.5 && (chat.x - 160.0).abs() < 0.5, "chat below main: {chat:?}");
        // The shell follows the zoomed 1024x576 CSS px viewport (host.css): tools ends at its right edge,
        // chat ends at its bottom.
        let tools = host.landmark_rect("panel-tools").await?;
        anyhow::ensure!((tools.x - 724.0).abs() < 0.5 && (tools.width - 300.0).abs() < 0.5, "tools: {tools:?}");
        anyhow::ensure!((chat.y + chat.height - 576.0).abs() < 0.5, "chat ends at the viewport's bottom: {chat:?}");
        Ok(())
    });
    // The CLI opens the same page and samples the chat panel's visible centre.
    let (out, _) = cli(&[
        "snapshot",
        "--layout-file",
        "fixtures/layouts/chat-below.json",
        "--zoom",
        "1.25",
        "--dpr",
        "2",
        "--point",
        "panel-nav",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let snap: Value = serde_json::from_slice(&out.stdout).expect("a snapshot");
    let x = snap.pointer("/pointer/point/x").and_then(Value::as_f64).expect("the pointer's point");
    assert!((x - 80.0).abs() <= 1.0, "the pointer is at the nav panel's centre (x 80): {}", snap["pointer"]);
}

/// `inspect` opens the page its view options describe: the left leaf's geometry read through the CLI
/// at a layout file, zoom and DPR is Chromium's box model of the leaf in a Host opened with the same
/// file, zoom and DPR, and not where the default layout puts it.
#[test]
fn inspect_with_a_layout_file_zoom_and_dpr_reads_the_page_built_from_them() {
    let file = std::fs::read_to_string(repo("fixtures/layouts/chat-below.json")).expect("the layout file");
    let options =
        HostOptions::new(Layout::Managed, Engine::Iframe).declaration_json(file).zoom(1.25).device_scale_factor(2.0);
    let mut truth = None;
    run_host_opts(options, async |host| {
        truth = Some(host.landmark_rect("left-leaf").await?);
        Ok(())
    });
    let truth = truth.expect("the leaf's box");
    let mut default = None;
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe), async |host| {
        default = Some(host.landmark_rect("left-leaf").await?);
        Ok(())
    });
    let default = default.expect("the leaf's box in the default layout");
    let read = |extra: &[&str]| -> InspectionResult<GeometryData> {
        let mut args = vec!["inspect", "--json"];
        args.extend_from_slice(extra);
        args.extend(["--from-root", "geometry", "--role", "button", "--name", "Attention target left"]);
        let (out, _) = cli(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not a geometry result ({e}): {}", String::from_utf8_lossy(&out.stdout)))
    };
    let filed = read(&["--layout-file", "fixtures/layouts/chat-below.json", "--zoom", "1.25", "--dpr", "2"]);
    let rect = filed.data.geometry.as_ref().expect("a geometry").rect;
    let near = |a: f64, b: f64| (a - b).abs() <= 0.5;
    assert!(
        near(rect.x, truth.x)
            && near(rect.y, truth.y)
            && near(rect.width, truth.width)
            && near(rect.height, truth.height),
        "the CLI's leaf {rect:?} is not Chromium's {truth:?} at the file's layout"
    );
    assert!(
        !near(rect.x, default.x) || !near(rect.y, default.y),
        "the layout file moved nothing: the leaf is where the default layout puts it ({default:?})"
    );
    // Without view options, the CLI reads the default layout's leaf.
    let plain = read(&["--layout", "managed"]);
    let rect = plain.data.geometry.as_ref().expect("a geometry").rect;
    assert!(near(rect.x, default.x) && near(rect.y, default.y), "default layout: {rect:?} vs {default:?}");
}

/// A tree read's outline (the default) lists the nodes the runtime's JSON pages list, in their
/// order, each indented one level below the row its `parent` names; `--all` follows the
/// continuations to the last page (a page of 8 nodes makes the read span several).
#[test]
fn inspect_prints_the_tree_as_an_outline_indented_by_parent_and_all_follows_every_page() {
    let args = ["inspect", "--layout", "managed", "--from-root", "--all"];
    let tail = ["tree", "--depth", "4", "--limit", "8"];
    let (out, _) = cli(&[&args[..], &["--json"], &tail[..]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pages: Vec<Value> = serde_json::from_slice(&out.stdout).expect("--json --all prints a JSON array of pages");
    assert!(pages.len() > 1, "8 nodes a page made only {} page: the test proves nothing about --all", pages.len());
    for (i, p) in pages.iter().enumerate() {
        let last = i + 1 == pages.len();
        assert_eq!(p["continuation"].is_string(), !last, "page {i} of {}: {}", pages.len(), p["continuation"]);
    }
    // What the outline must show, from the JSON: each node's depth, role and name.
    let mut depth: std::collections::HashMap<String, usize> = Default::default();
    let mut want = Vec::new();
    for n in pages.iter().flat_map(|p| p["data"]["nodes"].as_array().unwrap()) {
        let d = n["parent"]["node_id"].as_str().and_then(|p| depth.get(p)).map_or(0, |d| d + 1);
        depth.insert(n["ref"]["node_id"].as_str().unwrap().to_string(), d);
        let role = n["summary"]["role"].as_str().unwrap_or("");
        let name = n["summary"]["name"].as_str().unwrap_or("");
        want.push((d, role.to_string(), name.to_string()));
    }
    assert!(want.iter().any(|w| w.0 > 0), "no node below another: the indentation is not tested");
    let (out, _) = cli(&[&args[..], &tail[..]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.trim_start().starts_with('{'), "the default is an outline, not JSON: {text:.200}");
    let lines: Vec<&str> = text.lines().collect();
    let (rows, summary) = lines.split_at(lines.len() - 1);
    assert_eq!(rows.len(), want.len(), "one line per node of every page:\n{text}");
    assert!(
        summary[0].contains(&format!("{} nodes", want.len())) && !summary[0].contains("more follows"),
        "{}",
        summary[0]
    );
    for (line, (d, role, name)) in rows.iter().zip(&want) {
        let indent = line.len() - line.trim_start().len();
        assert_eq!(indent, 2 * d, "{line:?} is not at depth {d}:\n{text}");
        if !role.is_empty() && role != "document" {
            assert!(line.trim_start().starts_with(role.as_str()), "{line:?} does not start with its role {role:?}");
        }
        if !name.is_empty() {
            assert!(line.contains(&format!("\u{201c}{name}\u{201d}")), "{line:?} does not quote its name {name:?}");
        }
    }
}

/// A node-level read names its node by what stays the same across runs: a landmark or a CSS
/// selector; both read Chromium's box of that element in a Host of its own. A landmark the calling
/// realm does not have is refused with what to do.
#[test]
fn inspect_finds_a_node_by_landmark_or_css_selector_in_any_run_at_chromiums_box() {
    let mut truth = Vec::new();
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe), async |host| {
        truth.push(host.landmark_rect("boundary").await?);
        truth.push(host.landmark_rect("right-leaf-artifact").await?);
        Ok(())
    });
    let geometry = |extra: &[&str]| -> attention_harness::attention::Rect {
        let (out, _) = cli(&[&["inspect", "--layout", "managed", "--json"][..], extra].concat());
        assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        let r: InspectionResult<GeometryData> = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not a geometry result ({e}): {}", String::from_utf8_lossy(&out.stdout)));
        r.data.geometry.expect("a geometry").rect
    };
    let near = |r: &attention_harness::attention::Rect, t: &attention_harness::oracle::BoxRect| {
        [(r.x - t.x), (r.y - t.y), (r.width - t.width), (r.height - t.height)].iter().all(|d| d.abs() <= 0.5)
    };
    let boundary = geometry(&["geometry", "--landmark", "boundary"]);
    assert!(near(&boundary, &truth[0]), "--landmark boundary read {boundary:?}, Chromium's box is {}", truth[0]);
    let artifact = geometry(&["geometry", "--css", "[data-landmark=\"right-leaf-artifact\"]"]);
    assert!(near(&artifact, &truth[1]), "--css read {artifact:?}, Chromium's box is {}", truth[1]);
    let (out, _) = cli(&["inspect", "--layout", "managed", "node", "--landmark", "left-leaf"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for want in ["data-landmark=\"left-leaf\"", "--frame-url"] {
        assert!(err.contains(want), "the refusal lacks {want:?}: {err}");
    }
}

#[test]
fn verify_with_a_layout_file_runs_its_rows_on_the_managed_layout_built_from_the_file() {
    let (out, _) = cli(&[
        "verify",
        "--layout-file",
        "fixtures/layouts/chat-below.json",
        "--engine",
        "iframe",
        "--check",
        "checklist-2",
        "--json",
    ]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!((r["layout"].as_str(), r["engine"].as_str()), (Some("managed"), Some("iframe")), "{r}");
        assert_eq!(r["status"], "pass", "{r}");
    }
}

/// Every `data-landmark` of the page, from Chromium's pierced documents of every frame session
/// (closed shadow roots and in-process frames included).
async fn live_landmarks(host: &attention_harness::Host) -> anyhow::Result<BTreeSet<String>> {
    fn walk(node: &Value, out: &mut BTreeSet<String>) {
        if let Some(attrs) = node["attributes"].as_array() {
            for pair in attrs.chunks(2) {
                if pair[0] == "data-landmark" {
                    if let Some(v) = pair.get(1).and_then(Value::as_str) {
                        out.insert(v.to_string());
                    }
                }
            }
        }
        for key in ["children", "shadowRoots"] {
            for c in node[key].as_array().into_iter().flatten() {
                walk(c, out);
            }
        }
        if node["contentDocument"].is_object() {
            walk(&node["contentDocument"], out);
        }
    }
    let mut out = BTreeSet::new();
    for s in host.frames().sessions() {
        walk(&s.pierced_document().await?, &mut out);
    }
    Ok(out)
}

#[test]
fn the_clis_landmark_list_is_every_landmark_of_the_default_host_and_no_other() {
    let seen = std::sync::Mutex::new(BTreeSet::new());
    for layout in Layout::ALL {
        for engine in Engine::ALL {
            run_host_opts(HostOptions::new(layout, engine), async |host| {
                let live = live_landmarks(host).await?;
                seen.lock().unwrap().extend(live);
                Ok(())
            });
        }
    }
    let seen = seen.into_inner().unwrap();
    let unknown: Vec<&String> = seen
        .iter()
        .filter(|l| !REFERENCE.contains(&l.as_str()) && !REFERENCE_PREFIXES.iter().any(|p| l.starts_with(p)))
        .collect();
    let missing: Vec<&&str> = REFERENCE.iter().filter(|l| !seen.contains(**l)).collect();
    assert!(
        unknown.is_empty() && missing.is_empty(),
        "the default Hosts have landmarks the CLI refuses: {unknown:?}; the CLI accepts landmarks no default Host has: {missing:?}"
    );
}

#[test]
fn audit_refuses_a_url_that_is_not_http_or_unreachable_and_a_grid_outside_its_range_up_front() {
    // A port that refuses connections, held for the test (refusing_port.rs).
    let closed_held = super::refusing_port::RefusingPort::new();
    let closed = closed_held.port;
    let unreachable = format!("http://127.0.0.1:{closed}/page.html");
    refused(&["audit", "--url", &unreachable], &["cannot reach", &unreachable, "nothing accepts connections"]);
    refused(&["audit", "--url", "http://no-such-host.invalid/"], &["cannot reach", "no-such-host.invalid"]);
    for url in ["file:///etc/hostname", "ftp://example.org/", "example.org", "about:blank"] {
        refused(&["audit", "--url", url], &["not an http(s) URL", url]);
    }
    refused(&["audit", "--url", "http://127.0.0.1:99999/"], &["port", "99999"]);
    // The grid at its boundaries: 1 and 4096 CSS px pass the check (the URL is what is refused),
    // 0 and 4097 do not.
    for ok in ["1", "4096"] {
        let err = refused(&["audit", "--url", &unreachable, "--grid", ok], &["cannot reach"]);
        assert!(!err.contains("--grid"), "--grid {ok} was refused: {err}");
    }
    for bad in ["0", "4097"] {
        refused(&["audit", "--url", &unreachable, "--grid", bad], &["--grid", bad]);
    }
}

/// A scratch folder under target/ with a copy of the worked example's `plan-picker.js`, an empty
/// folder `dir/`, the `extra` files, and a layout file (fixtures/apps/plan-picker.layout.json's)
/// whose `plans` panel is `{"kind": "component", ...panel}`; the layout file's path.
pub(crate) fn layout_with_component(name: &str, panel: Value, extra: &[(&str, &str)]) -> PathBuf {
    let dir = repo(&format!("target/component-tests/{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("dir")).unwrap();
    std::fs::copy(repo("fixtures/apps/signup/plan-picker.js"), dir.join("plan-picker.js")).unwrap();
    for (file, text) in extra {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let mut decl: Value =
        serde_json::from_str(&std::fs::read_to_string(repo("fixtures/apps/plan-picker.layout.json")).unwrap()).unwrap();
    let mut component = serde_json::json!({"kind": "component"});
    for (k, v) in panel.as_object().unwrap() {
        component[k] = v.clone();
    }
    decl["layout"]["panels"]["plans"] = component;
    let file = dir.join("layout.json");
    std::fs::write(&file, serde_json::to_string_pretty(&decl).unwrap()).unwrap();
    file
}

/// A component panel is checked before a browser starts, each rule at its boundary: the tag (a
/// valid custom element name), the attributes (strings, lowercase names), the module (a file inside
/// the layout file's folder, through `..` or a symbolic link, or a URL that answers) and unknown
/// keys; every refusal is exit 2 before a browser starts, `FILE:LINE:COL: kind: message`.
#[test]
fn a_component_panel_is_refused_up_front_at_each_rules_boundary() {
    let pages = repo("pages");
    let ok = |panel: Value| {
        let file = layout_with_component("component-ok", panel.clone(), &[]);
        LayoutFile::load(&pages, &file, (1280, 720)).unwrap_or_else(|e| panic!("{panel}: {e}"));
    };
    ok(serde_json::json!({"module": "plan-picker.js", "tag": "plan-picker"}));
    ok(serde_json::json!({"module": "./dir/../plan-picker.js", "tag": "plan-picker", "origin": "same",
        "attributes": {"label": "Choose a plan", "data-x": ""}}));
    LayoutFile::load(&pages, &repo("fixtures/apps/plan-picker.layout.json"), (1280, 720)).expect("the fixture");

    // The shipped refusal: its line and column are the tag's value.
    let fixture = "fixtures/apps/plan-picker-invalid-tag.layout.json";
    let (line, col) = position_of(fixture, "\"Plan-picker\"");
    let err = refused(
        &["snapshot", "--layout-file", fixture, "--point", "panel-plans"],
        &[&format!(
            "{fixture}:{line}:{col}: invalid-tag: panel `plans`: tag `Plan-picker` is not a valid custom element name: it must start with a lowercase ASCII letter"
        )],
    );
    assert_eq!(problem_lines(&err, fixture).len(), 1, "{err}");

    let refused_panel = |name: &str, panel: Value, names: &[&str]| {
        let file = layout_with_component(name, panel, &[]);
        let file = file.to_str().unwrap().to_string();
        let err = refused(&["snapshot", "--layout-file", &file, "--point", "panel-plans"], names);
        assert_eq!(problem_lines(&err, &file).len(), 1, "{err}");
    };
    let module = "plan-picker.js";
    for (tag, why) in [
        ("planpicker", "it must contain a hyphen"),
        ("plan-Picker", "it may not contain the uppercase letter `P`"),
        ("font-face", "it is reserved by SVG and MathML"),
        ("plan-a>b", "it may not contain U+003E"),
    ] {
        let says = format!("invalid-tag: panel `plans`: tag `{tag}` is not a valid custom element name: {why}");
        refused_panel("component-tag", serde_json::json!({"module": module, "tag": tag}), &[&says]);
    }
    let tag = "plan-picker";
    refused_panel(
        "component-key",
        serde_json::json!({"module": module, "tag": tag, "tags": "x"}),
        &["unknown-key: `layout.panels.plans.tags` is not a known key; nearest known: `tag`"],
    );
    refused_panel(
        "component-attr-name",
        serde_json::json!({"module": module, "tag": tag, "attributes": {"Label": "x"}}),
        &["invalid-attributes: panel `plans`: `Label` is not an attribute name a component may be given"],
    );
    refused_panel(
        "component-attr-value",
        serde_json::json!({"module": module, "tag": tag, "attributes": {"label": 7}}),
        &["invalid-attributes: panel `plans`: attribute `label` must be a string, not number"],
    );
    refused_panel(
        "component-dotdot",
        serde_json::json!({"module": "../plan-picker.js", "tag": tag}),
        &["src-outside: panel `plans`: module `../plan-picker.js` must be a file inside the layout file's folder"],
    );
    refused_panel(
        "component-missing",
        serde_json::json!({"module": "missing.js", "tag": tag}),
        &["missing-src: panel `plans`: module `missing.js` does not exist"],
    );
    refused_panel(
        "component-dir",
        serde_json::json!({"module": "dir", "tag": tag}),
        &["missing-src: panel `plans`: module `dir` is not a file"],
    );
    // A symbolic link inside the folder that leads outside it.
    let file = layout_with_component("component-symlink", serde_json::json!({"module": "escape.js", "tag": tag}), &[]);
    std::os::unix::fs::symlink(repo("fixtures/apps/signup/plan-picker.js"), file.parent().unwrap().join("escape.js"))
        .unwrap();
    refused(
        &["snapshot", "--layout-file", file.to_str().unwrap(), "--point", "panel-plans"],
        &["src-outside: panel `plans`: module `escape.js` leads to", "outside the layout file's folder"],
    );
    // A URL module nothing answers (a port that refuses connections, held for the test).
    let port_held = super::refusing_port::RefusingPort::new();
    let port = port_held.port;
    let url = format!("http://localhost:{port}/plan-picker.js");
    refused_panel(
        "component-url",
        serde_json::json!({"module": url, "tag": tag}),
        &["unreachable-url", &format!("url {url} does not answer (")],
    );
}

/// The proof every refusal above relies on can fail: a run that does start a browser (a valid
/// snapshot) starts the stand-in `$CHROME`, leaves its mark and does not succeed.
#[test]
fn a_run_that_starts_a_browser_leaves_the_launch_stand_ins_mark() {
    let (out, _, launched) =
        crate::cli_support::run_expecting_no_launch(&["snapshot", "--layout", "managed", "--point", "10,10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(launched, "the stand-in was not started: {err}");
    assert_ne!(out.status.code(), Some(0), "{err}");
}
