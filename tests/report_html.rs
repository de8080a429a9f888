//! The offline HTML report (`replay --html DIR`, `verify --html DIR`, issue 22) read back in
//! Chromium: the CLI binary writes it, a fresh browser context opens it from file://, and the DOM
//! (Runtime.evaluate) must show a row per step / check with its status, every image decoded, no
//! network request, and a hostile string as text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::report_support::{assert_images_decoded, assert_offline, open_report};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

fn scratch(name: &str) -> PathBuf {
    let d = repo("target/report-html-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
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
    // 1.25 (a 1024 CSS px viewport, 1280 device px).
    assert!(rows.iter().all(|x| x["images"].as_array().unwrap().len() == 1), "{rows:?}");
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
        assert_eq!(x["images"].as_array().unwrap().len(), 1, "{}: a picture per check", x["name"]);
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
    // Only the three screenshots are images: the hostile string made no element.
    assert_eq!(r.dom["images"], json!(3), "{:?}", r.dom);
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
    use attention_harness::report::html::{write, Report, Row};
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
            pass: false,
            detail: format!("the candidate under the pointer is {hostile}"),
            picture: None,
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
