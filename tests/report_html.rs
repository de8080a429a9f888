//! The offline HTML report (`replay --html DIR`, `verify --html DIR`, issue 22) read back in
//! Chromium: the CLI binary writes it, a fresh browser context opens it from file://, and the DOM
//! (Runtime.evaluate) must show a row per step / check with its status, every image decoded, no
//! network request, and a hostile string as text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::cli_support::{self, cli, repo};
use serde_json::{json, Value};

use crate::report_support::{assert_images_decoded, assert_offline, open_report};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

fn scratch(name: &str) -> PathBuf {
    cli_support::scratch("report-html-tests", name)
}

#[test]
fn replay_html_report_has_a_row_per_step_with_decoded_pictures_and_no_network() {
    let rel = "fixtures/scenarios/boundary-at-zoom-125.json";
    let dir = scratch("replay");
    let out = cli(&["replay", rel, "--html", dir.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{}\n{stderr}", text(&out.stdout));
    let sc: Value = serde_json::from_str(&std::fs::read_to_string(repo(rel)).unwrap()).unwrap();
    let steps = sc["steps"].as_array().unwrap();
    let engines: Vec<&str> = sc["engines"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    let mut want = Vec::new();
    for e in &engines {
        for (i, s) in steps.iter().enumerate() {
            want.push((format!("{e} steps[{i}] {}", s["do"].as_str().unwrap()), "pass".to_string()));
        }
    }
    // Progress: a line per step on stderr.
    assert_eq!(stderr.lines().filter(|l| l.starts_with("pass steps[")).count(), want.len(), "{stderr}");

    let r = open_report(&dir.join("report.html"));
    let rows = r.dom["rows"].as_array().unwrap();
    let got: Vec<(String, String)> = rows
        .iter()
        .map(|x| (x["name"].as_str().unwrap().to_string(), x["status"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(got, want, "the report's rows are the steps with their statuses");
    // Every step runs on an open Host, so every row has its picture: the 1280 px window at zoom
    // 1.25 (a 1024 CSS px viewport, 1280 device px); every row after the first pointer input also
    // has the zoomed crop around it.
    for x in rows {
        let kinds: Vec<&str> = x["images"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
        let pointed = !x["name"].as_str().unwrap().ends_with("steps[0] open");
        assert_eq!(kinds, if pointed { vec!["shot", "crop"] } else { vec!["shot"] }, "{x}");
        assert!(x["time"].as_str().unwrap().ends_with(" ms") || x["time"].as_str().unwrap().ends_with(" s"), "{x}");
    }
    assert_images_decoded(rows, 1280);
    // The legend of each move lists the candidate the expectation after it proved is on top.
    for (i, x) in rows.iter().enumerate() {
        if x["name"].as_str().unwrap().ends_with("steps[1] move") {
            assert!(
                x["legend"].as_str().unwrap().contains("button \u{201c}Attention target left\u{201d}"),
                "row {i}: {x}"
            );
        }
        if x["name"].as_str().unwrap().ends_with("steps[4] move") {
            assert!(
                x["legend"].as_str().unwrap().contains("button \u{201c}Attention target right\u{201d}"),
                "row {i}: {x}"
            );
        }
    }
    assert_offline(&r);
}

#[test]
fn verify_html_report_has_a_row_per_check_and_cell_matching_the_json() {
    let dir = scratch("verify");
    let out = cli(&[
        "verify",
        "--check",
        "checklist-2-pointer-path",
        "--layout",
        "managed",
        "--engine",
        "iframe",
        "--json",
        "--html",
        dir.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let json: Vec<Value> = serde_json::from_str(&stdout).expect("verify --json");
    assert_eq!(json.len(), 4, "four checklist-2 rows in one cell: {stdout}");
    let want: Vec<(String, String)> = json
        .iter()
        .map(|x| {
            (format!("managed/iframe {}", x["check"].as_str().unwrap()), x["status"].as_str().unwrap().to_string())
        })
        .collect();

    let r = open_report(&dir.join("report.html"));
    let rows = r.dom["rows"].as_array().unwrap();
    let got: Vec<(String, String)> = rows
        .iter()
        .map(|x| (x["name"].as_str().unwrap().to_string(), x["status"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(got, want, "the report's rows are verify's rows");
    for (x, j) in rows.iter().zip(&json) {
        assert_eq!(x["detail"], j["detail"], "detail of {}", x["name"]);
        let shots = x["images"].as_array().unwrap().iter().filter(|i| i["kind"] == "shot").count();
        assert_eq!(shots, 1, "{}: a picture per check", x["name"]);
    }
    assert_images_decoded(rows, 1280);
    assert_offline(&r);
}

#[test]
fn a_hostile_string_in_a_report_is_shown_as_text() {
    let hostile = "<img src=x onerror=document.title='owned'>";
    let dir = scratch("hostile");
    let file = dir.join("hostile.json");
    let sc = json!({
        "description": hostile,
        "layout": "managed",
        "engines": ["iframe"],
        "steps": [
            {"do": "open"},
            {"do": "move", "at": "left-leaf"},
            {"do": "expect", "top": {"role": "button", "name": hostile}}
        ]
    });
    std::fs::write(&file, serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    let out = cli(&["replay", file.to_str().unwrap(), "--html", dir.join("out").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "the hostile expectation fails: {}", text(&out.stdout));
    let r = open_report(&dir.join("out/report.html"));
    let rows = r.dom["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[2]["status"], json!("fail"));
    // The scenario's description is the report's subtitle: shown as the very text, not parsed.
    assert_eq!(r.dom["subtitle"], json!(hostile), "{:?}", r.dom);
    // Only the three screenshots and the two crops around the pointer (after the move) are images:
    // the hostile string made no element.
    assert_eq!(r.dom["images"], json!(5), "{:?}", r.dom);
    assert_offline(&r);
}

/// A snapshot whose page-supplied strings (a path label, a role, a name, an omission's detail) are
/// all `hostile`, shaped as the runtime reports one (the legend reads it as a typed snapshot).
fn hostile_snapshot(hostile: &str) -> Value {
    json!({
        "schema": "wippy.attention.v1", "snapshot_id": "snap-1", "host_instance_id": "host-1",
        "mount_generation": 1, "created_at": "2026-12-02T03:00:00.000Z",
        "coordinate_space": {"kind": "host-viewport", "width": 1280, "height": 720, "device_pixel_ratio": 1},
        "capture": {"radius_css_px": 20, "grid_step_css_px": 5, "sampled_points": 1,
                    "points": [{"point_id": "p0", "x": 10, "y": 10}], "duration_ms": 1, "complete": false},
        "recent_events": [],
        "candidates": [{
            "target_id": "t-1", "sample_point_ids": ["p0"], "occluded": false,
            "path": [{"kind": "host", "mount_id": "host-1", "generation": 1},
                     {"kind": "artifact", "mount_id": "artifact-x", "generation": 1, "label": hostile},
                     {"kind": "element", "mount_id": "el-1", "generation": 1, "tag_name": "button"}],
            "rect": {"x": 0, "y": 0, "width": 20, "height": 20},
            "summary": {"role": hostile, "name": hostile}
        }],
        "omissions": [{"reason": "redacted", "point_id": "p0", "detail": hostile}]
    })
}

#[test]
fn a_hostile_page_label_name_and_detail_in_a_report_row_are_shown_as_text_and_no_script_runs() {
    use attention_harness::report::html::{write, Report, Row, Status};
    // What a hostile page could put into its labels and names, and so into a row's detail.
    let hostile = "<script>window.__owned = 1; document.title = 'owned'</script>\
                   <img src=x onerror=\"window.__owned = 2\"><b>bold</b>&amp;";
    let dir = scratch("hostile-label");
    let report = Report {
        title: hostile.into(),
        subtitle: hostile.into(),
        legend: None,
        rows: vec![Row {
            name: hostile.into(),
            status: Status::Fail,
            detail: format!("the candidate under the pointer is {hostile}"),
            duration: None,
            picture: None,
            crop: None,
            snapshot: Some(hostile_snapshot(hostile)),
        }],
    };
    let file = write(&dir, &report).expect("write the report");
    let r = open_report(&file);
    let d = &r.dom;
    // No script ran: neither the inline script nor the image's error handler set the marker, and the
    // report made no element of the markup (no script, no image, nothing active).
    assert_eq!(d["owned"], Value::Null, "a script in the report ran: {d}");
    assert_eq!(d["scripts"], json!(0), "{d}");
    assert_eq!(d["images"], json!(0), "the hostile <img> became an element: {d}");
    assert_eq!(d["active"], json!(0), "{d}");
    // Each string is shown as the very text the page gave.
    assert_eq!(d["title"], json!(hostile), "{d}");
    assert_eq!(d["heading"], json!(hostile), "{d}");
    assert_eq!(d["subtitle"], json!(hostile), "{d}");
    let rows = d["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{d}");
    let row = &rows[0];
    assert_eq!(row["name"], json!(hostile));
    assert_eq!(row["status"], json!("fail"));
    assert_eq!(row["detail"], json!(format!("the candidate under the pointer is {hostile}")));
    assert_eq!(row["labels"], json!([hostile]), "the candidate's path label: {row}");
    let legend = row["legend"].as_str().unwrap();
    assert!(
        legend.starts_with(&format!("{hostile} \u{201c}{hostile}\u{201d} in {hostile}")),
        "role, name, label: {legend}"
    );
    assert_eq!(row["omissions"], json!([format!("omission redacted p0 {hostile}")]), "{row}");
    assert_offline(&r);
}

/// Replays `sc` (written as `NAME.json` in a scratch folder, goldens from `goldens` beside it) with
/// `--html`, and reads the report back in Chromium.
fn replay_with_report(name: &str, sc: Value, prepare: impl FnOnce(&Path)) -> (Output, crate::report_support::Read) {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    prepare(&file);
    let out = cli(&["replay", file.to_str().unwrap(), "--html", dir.join("out").to_str().unwrap()]);
    let r = open_report(&dir.join("out/report.html"));
    (out, r)
}

/// The report agrees with the exit code: its verdict, its counts (computed here from the rows it
/// shows), its failure list (every failing row, linked, and only those) and the stdout's count line.
fn assert_report_agrees(out: &Output, r: &crate::report_support::Read) -> Vec<Value> {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let rows = r.dom["rows"].as_array().unwrap().clone();
    let status = |s: &str| rows.iter().filter(|x| x["status"] == s).count();
    let (passed, failed, missing, not_run) =
        (status("pass"), status("fail") + status("missing golden"), status("missing golden"), status("not run"));
    assert_eq!(passed + failed + not_run, rows.len(), "a row with an unknown status: {rows:?}");
    let exit = out.status.code();
    assert_eq!(exit, Some(if failed > 0 { 1 } else { 0 }), "exit code vs the report's rows\n{stdout}\n{stderr}");
    assert_eq!(r.dom["verdict"], json!(if failed > 0 { "fail" } else { "pass" }), "{}", r.dom["totals"]);
    let mut totals = format!("{passed} passed, {failed} failed");
    if missing > 0 {
        totals += &format!(" ({missing} missing golden)");
    }
    if not_run > 0 {
        totals += &format!(", {not_run} not run");
    }
    let head = if failed > 0 { "FAILED" } else { "PASSED" };
    assert_eq!(r.dom["totals"], json!(format!("{head}: {totals}")));
    assert!(stdout.contains(&format!("{passed} passed, {failed} failed, {not_run} not run")), "{stdout}");
    // The failure list names exactly the failing rows, each linked to its row.
    let failing: Vec<(String, String)> = rows
        .iter()
        .enumerate()
        .filter(|(_, x)| x["status"] == "fail" || x["status"] == "missing golden")
        .map(|(i, x)| (format!("#row-{}", i + 1), x["name"].as_str().unwrap().to_string()))
        .collect();
    let listed: Vec<(String, String)> = r.dom["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["target"].as_str().unwrap().to_string(), f["text"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(listed.len(), failing.len(), "{listed:?} vs {failing:?}");
    for ((t, text), (want_t, name)) in listed.iter().zip(&failing) {
        assert_eq!(t, want_t);
        assert!(text.starts_with(name.as_str()), "{text} names {name}");
    }
    // Every row that ran has its duration; a row that did not run has none.
    for x in &rows {
        let time = x["time"].as_str().unwrap();
        assert_eq!(time.is_empty(), x["status"] == "not run", "{x}");
    }
    // Each failing line of stdout is a failing row of the report.
    assert_eq!(stdout.lines().filter(|l| l.starts_with("FAIL ")).count(), failed, "{stdout}");
    assert_offline(r);
    rows
}

fn statuses(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|x| x["status"].as_str().unwrap()).collect()
}

#[test]
fn the_replay_report_agrees_with_the_exit_code_in_every_failure_class() {
    let left = "Attention target left";
    // A failed expect: the row says what was expected beside what was found; the rest is not run.
    let (out, r) = replay_with_report(
        "class-expect",
        json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "move", "at": "left-leaf"},
            {"do": "expect", "top": {"role": "button", "name": "Attention target right"}, "timeout_ms": 300},
            {"do": "snapshot"}
        ]}),
        |_| {},
    );
    let rows = assert_report_agrees(&out, &r);
    assert_eq!(statuses(&rows), ["pass", "pass", "fail", "not run"]);
    let d = rows[2]["detail"].as_str().unwrap();
    assert!(d.contains("Attention target right") && d.contains(left), "expected and found: {d}");
    let kinds: Vec<&str> = rows[2]["images"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["shot", "crop"], "a failing row shows the screenshot and the crop around the pointer");
    assert_images_decoded(&rows, 1280);
    let shot = &rows[2]["images"][0];
    assert!(shot["shown_width"].as_f64().unwrap() >= 600.0, "the screenshot is shown large enough: {shot}");

    // A golden that differs (its diff in the row) and a golden that is missing (the command that
    // records it): both fail, and the replay goes on past them.
    let sc = json!({"engines": ["iframe"], "steps": [
        {"do": "open"}, {"do": "move", "at": "left-leaf"},
        {"do": "snapshot", "name": "differs"}, {"do": "snapshot", "name": "missing"}, {"do": "snapshot"}
    ]});
    let (out, r) = replay_with_report("class-golden", sc, |file| {
        let rec = cli(&["record", "--scenario", file.to_str().unwrap()]);
        assert!(rec.status.success(), "{}", text(&rec.stdout));
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let g = file.with_file_name(format!("{stem}.differs.iframe.golden.json"));
        let old = std::fs::read_to_string(&g).unwrap();
        assert!(old.contains(left), "{old}");
        std::fs::write(&g, old.replace(left, "Attention target elsewhere")).unwrap();
        std::fs::remove_file(file.with_file_name(format!("{stem}.missing.iframe.golden.json"))).unwrap();
    });
    let rows = assert_report_agrees(&out, &r);
    assert_eq!(statuses(&rows), ["pass", "pass", "fail", "missing golden", "pass"]);
    let d = rows[2]["detail"].as_str().unwrap();
    assert!(d.contains("differs from its golden") && d.contains("-") && d.contains("elsewhere"), "{d}");
    let d = rows[3]["detail"].as_str().unwrap();
    assert!(d.contains("has no golden") && d.contains("attention-harness record --scenario"), "{d}");
    assert!(r.dom["totals"].as_str().unwrap().contains("(1 missing golden)"), "{}", r.dom["totals"]);

    // A step error (an action with no snapshot to act on) and a timeout (a selector that never
    // appears): each fails its step, the rest is not run.
    let (out, r) = replay_with_report(
        "class-step-error",
        json!({"engines": ["iframe"], "steps": [{"do": "open"}, {"do": "action", "mode": "highlight"}, {"do": "snapshot"}]}),
        |_| {},
    );
    let rows = assert_report_agrees(&out, &r);
    assert_eq!(statuses(&rows), ["pass", "fail", "not run"]);
    assert!(rows[1]["detail"].as_str().unwrap().contains("needs a snapshot first"), "{}", rows[1]);
    let (out, r) = replay_with_report(
        "class-timeout",
        json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "wait-for", "selector": ".never-there", "timeout_ms": 500}, {"do": "snapshot"}
        ]}),
        |_| {},
    );
    let rows = assert_report_agrees(&out, &r);
    assert_eq!(statuses(&rows), ["pass", "fail", "not run"]);
    assert!(rows[1]["detail"].as_str().unwrap().contains("did not happen within 500 ms"), "{}", rows[1]);
}

#[test]
fn a_browser_that_crashes_mid_replay_fails_its_step_in_the_report_and_the_exit_code() {
    use std::io::BufRead;
    let dir = scratch("class-crash");
    let file = dir.join("crash.json");
    let sc = json!({"engines": ["iframe"], "steps": [
        {"do": "open"}, {"do": "move", "at": "left-leaf"},
        {"do": "wait-for", "selector": ".never-there", "timeout_ms": 60000}, {"do": "snapshot"}
    ]});
    std::fs::write(&file, serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["replay", file.to_str().unwrap(), "--html", dir.join("out").to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run attention-harness");
    let cli_pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
            .unwrap_or_else(|_| panic!("the replay never passed steps[1] within 120 s: {seen:?}"));
        let moved = line.starts_with("pass steps[1] move");
        seen.push(line);
        if moved {
            break;
        }
    }
    // The browser this CLI launched (its child whose name says so), killed by its pid.
    let browser = attention_harness::harness::cpu::tree_pids(cli_pid)
        .into_iter()
        .filter(|&p| p != cli_pid)
        .find(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            let ppid = stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().nth(1)?.parse::<u32>().ok());
            let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
            ppid == Some(cli_pid) && comm.to_lowercase().contains("chrom")
        })
        .unwrap_or_else(|| panic!("no browser child of the CLI (pid {cli_pid})"));
    assert_eq!(unsafe { libc::kill(browser as i32, libc::SIGKILL) }, 0, "kill the browser {browser}");
    let out = child.wait_with_output().expect("the replay ends");
    let out = Output { stderr: seen.join("\n").into_bytes(), ..out };
    let r = open_report(&dir.join("out/report.html"));
    let rows = assert_report_agrees(&out, &r);
    assert_eq!(statuses(&rows), ["pass", "pass", "fail", "not run"]);
    let d = rows[2]["detail"].as_str().unwrap();
    assert!(d.contains("Chromium exited or crashed"), "{d}");
}

/// Without `$ATTENTION_ARTIFACTS`, a failed replay leaves its artifacts in `./attention-artifacts`
/// of the directory it runs in (as Playwright leaves `test-results/`), not in the build's target/;
/// the failure line names that folder, and it holds the screenshot, snapshot and console.
#[test]
fn a_failed_replay_run_elsewhere_leaves_its_artifacts_in_attention_artifacts_of_its_directory() {
    let dir = scratch("artifacts-default");
    let file = dir.join("fails.json");
    let sc = json!({"engines": ["iframe"], "steps": [
        {"do": "open"}, {"do": "move", "at": "left-leaf"},
        {"do": "expect", "top": {"role": "button", "name": "Attention target right"}, "timeout_ms": 300}
    ]});
    std::fs::write(&file, serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["replay", file.to_str().unwrap()])
        .env_remove("ATTENTION_ARTIFACTS")
        .env("ATTENTION_PAGES", repo("pages"))
        .current_dir(&dir)
        .output()
        .expect("run attention-harness");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let root = dir.join("attention-artifacts");
    let named = stderr
        .split("(artifacts: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("the failure line names no artifacts folder: {stderr}"));
    let folder = Path::new(named);
    assert!(folder.starts_with(&root), "artifacts in {named}, not in {}: {stderr}", root.display());
    let files: Vec<String> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{named}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    for want in ["screenshot.png", "snapshot.json", "console.log"] {
        assert!(files.iter().any(|f| f == want), "{named} lacks {want}: {files:?}");
    }
}

/// A failed verify check names its artifacts folder on its failure line (the table's), and the
/// folder holds the screenshot, snapshot and console: the boundary golden, compared in a wider
/// window than it was recorded in, differs.
#[test]
fn a_failed_verify_check_names_its_artifacts_folder_on_its_failure_line() {
    let dir = scratch("verify-artifacts");
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(["verify", "--layout", "managed", "--engine", "iframe", "--check", "boundary-snapshot"])
        .args(["--viewport", "1400x800"])
        .env("ATTENTION_ARTIFACTS", &dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", text(&out.stderr));
    let folder = dir.join("verify-managed-iframe-boundary-snapshot-matches-golden");
    let line = stdout.lines().find(|l| l.contains("FAIL")).unwrap_or_else(|| panic!("no failure line: {stdout}"));
    assert!(
        line.contains(&format!("(artifacts: {})", folder.display())),
        "the failure line does not name {}: {line}",
        folder.display()
    );
    for want in ["screenshot.png", "snapshot.json", "console.log"] {
        assert!(folder.join(want).is_file(), "{} lacks {want}", folder.display());
    }
}
