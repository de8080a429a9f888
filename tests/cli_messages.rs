//! Messages for people (issue 41): every refusal the CLI makes up front and every failure class of
//! a replay prints text without Rust's Debug form (`Some(..)`, `None`, `Name { .. }`,
//! `Variant("..")`, `["..", ".."]`), and option values out of range name their range.

use std::path::{Path, PathBuf};

use crate::cli_support::{self, cli};
use serde_json::json;

/// The Debug forms a message must not show.
fn debug_forms(text: &str) -> Vec<String> {
    let re = regex::Regex::new(
        r#"\bSome\(|\bNone\b|\b[A-Z][A-Za-z]+ \{ [a-z_]+:|\b[A-Z][A-Za-z]+\("|\["[^"]*", "|\bOk\(|\bErr\("#,
    )
    .unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

fn scratch(name: &str) -> PathBuf {
    cli_support::scratch("cli-messages-tests", name)
}

fn scenario(dir: &Path, name: &str, v: serde_json::Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p.to_string_lossy().to_string()
}

/// Runs `args`, expects `code`, and checks stdout and stderr for Debug forms and for `names`.
fn says(args: &[&str], code: i32, names: &[&str]) {
    let out = cli(args);
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "{args:?}: {all}");
    let found = debug_forms(&all);
    assert!(found.is_empty(), "{args:?} printed Debug form {found:?}:\n{all}");
    for n in names {
        assert!(all.contains(n), "{args:?} does not say {n:?}:\n{all}");
    }
}

#[test]
fn the_debug_form_detector_finds_what_the_issue_saw() {
    for seen in [
        r#"Some("button") Some("Attention target left")"#,
        "CandidateSpec { role: Some(\"x\") }",
        "BoxRect { x: 1.0, y: 2.0 }",
        r#"UrlContains("about:srcdoc")"#,
        r#"omissions are ["redacted", "excluded"]"#,
    ] {
        assert!(!debug_forms(seen).is_empty(), "{seen}");
    }
    assert!(debug_forms("button \u{201c}Send\u{201d} at 1,2 3x4; omissions: none").is_empty());
}

/// The CSS differential's rows (verify's detail for the css-agreement checks) say the selector
/// quoted and the runtime's answer in words: a read that ended partial, against a native qSA that
/// matched or threw.
#[test]
fn the_css_differential_rows_are_plain_text() {
    use attention_harness::checks::inspection::{css_disagreements, CssPair};
    let partial = || {
        attention_harness::attention::Reported::parse_inspection(json!({
            "outcome": "partial",
            "data": {"nodes": []},
            "omissions": [{"reason": "byte-limit"}, {"reason": "depth-limit"}],
            "revisions": {"tree": 1, "observation": 1, "geometry": 1},
        }))
        .unwrap()
    };
    let rows = css_disagreements(&[
        CssPair { selector: "div > p".into(), native: Ok(vec!["n1".into()]), pages: vec![partial()] },
        CssPair { selector: "p:bad(".into(), native: Err("SyntaxError".into()), pages: vec![partial()] },
    ]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        let found = debug_forms(row);
        assert!(found.is_empty(), "a CSS differential row shows Debug form {found:?}: {row}");
    }
    assert_eq!(rows[0], "\u{201c}div > p\u{201d}: outcome partial, omitted byte-limit, depth-limit");
    assert_eq!(rows[1], "\u{201c}p:bad(\u{201d}: native qSA throws SyntaxError, the runtime answered partial");
}

#[test]
fn every_up_front_refusal_is_plain_text_and_names_the_allowed_range() {
    let d = scratch("refusals");
    says(&["snapshot", "--layout", "managed", "--point", "1,1", "--dpr", "1.5"], 2, &["1, 2 or 3", "--zoom 1.5"]);
    says(&["snapshot", "--layout", "managed", "--point", "1,1", "--zoom", "big"], 2, &["0.25 to 5"]);
    says(&["snapshot", "--layout", "managed", "--point", "1,1", "--viewport", "12"], 2, &["WxH"]);
    says(&["snapshot", "--layout", "managed", "--point", "nowhere"], 2, &["nowhere", "landmarks:"]);
    says(&["snapshot", "--layout", "managed", "--point", "99999,1"], 2, &["outside"]);
    says(&["verify", "--check", "no-such-check"], 2, &["no-such-check"]);
    says(&["replay", "no/such/file.json"], 2, &["no/such/file.json"]);
    says(&["record", "--scenario", "no/such/file.json"], 2, &["no/such/file.json"]);
    says(&["audit", "--url", "ftp://example.org/"], 2, &["not an http(s) URL"]);
    says(&["audit", "--url", "http://127.0.0.1:1/", "--grid", "0"], 2, &["--grid"]);
    let open = json!({"do": "open"});
    for (name, step, want) in [
        ("unknown-step", json!({"do": "hover", "at": "left-leaf"}), "hover"),
        ("unknown-field", json!({"do": "move", "at": "left-leaf", "speed": 3}), "speed"),
        ("no-landmark", json!({"do": "move", "at": "nowhere"}), "nowhere"),
        ("no-tool", json!({"do": "read", "tool": "attention_peek"}), "attention_peek"),
        ("typo-arg", json!({"do": "read", "tool": "attention_get_tree", "args": {"depht": 3}}), "depht"),
        ("no-status", json!({"do": "expect", "status": "finished"}), "finished"),
        ("no-reason", json!({"do": "expect", "omission": "hidden"}), "hidden"),
    ] {
        let f = scenario(&d, &format!("{name}.json"), json!({"engines": ["iframe"], "steps": [open, step]}));
        says(&["replay", &f], 2, &[want]);
    }
}

/// `verify` (and every command with a view) at a window the managed Host's default layout does not
/// fit is refused before a browser starts, with the Host's own problem, as a layout file is; the
/// boundary is the layout's fixed widths: 740 CSS px fit, 739 do not; compat is not checked so.
#[test]
fn a_view_the_default_managed_layout_does_not_fit_is_refused_before_a_browser_starts() {
    use attention_harness::host::Layout;
    use attention_harness::qa::View;
    says(
        &["verify", "--viewport", "320x240"],
        2,
        &["default layout does not fit", "does-not-fit", "= 740px do not fit in the 320px width"],
    );
    let (_, _, launched) = crate::cli_support::run_expecting_no_launch(&["verify", "--viewport", "320x240"]);
    assert!(!launched, "verify started a browser before refusing a view the layout does not fit");
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("pages");
    let at = |w: u32| View { window: Some((w, 720)), ..View::default() };
    assert!(at(740).check_default_layout(&pages, &[Layout::Managed]).is_ok(), "740 CSS px should fit");
    let e = at(739).check_default_layout(&pages, &[Layout::Managed]).unwrap_err().to_string();
    assert!(e.contains("739px width"), "{e}");
    assert!(at(320).check_default_layout(&pages, &[Layout::Compat]).is_ok());
}

#[test]
fn every_replay_failure_class_is_plain_text_with_expected_beside_found() {
    let d = scratch("failures");
    let run = |name: &str, steps: serde_json::Value, names: &[&str]| {
        let f = scenario(&d, &format!("{name}.json"), json!({"engines": ["iframe"], "steps": steps}));
        says(&["replay", &f], 1, names);
    };
    let open = json!({"do": "open"});
    let moved = json!({"do": "move", "at": "left-leaf"});
    run(
        "top",
        json!([open, moved, {"do": "expect", "top": {"role": "button", "name": "Nope"}, "timeout_ms": 200}]),
        &["expected the candidate under the pointer to be button \u{201c}Nope\u{201d}, found button \u{201c}Attention target left\u{201d}"],
    );
    run(
        "candidate",
        json!([open, moved, {"do": "expect", "candidate": {"name": "Nope"}, "timeout_ms": 200}]),
        &["expected a candidate any role named \u{201c}Nope\u{201d}, found"],
    );
    run(
        "path",
        json!([open, moved, {"do": "expect", "path": ["host", "panel"], "timeout_ms": 200}]),
        &["expected the path under the pointer host > panel, found host > "],
    );
    run(
        "omission",
        json!([open, moved, {"do": "expect", "omission": "navigation", "timeout_ms": 200}]),
        &["expected an omission navigation, found omissions: "],
    );
    run(
        "selection",
        json!([open, moved, {"do": "expect", "selection": "some text", "timeout_ms": 200}]),
        &["expected the selection \u{201c}some text\u{201d}, found no selection"],
    );
    run("step-error", json!([open, {"do": "action", "mode": "highlight"}]), &["needs a snapshot first"]);
    run(
        "read",
        json!([open, {"do": "read", "tool": "attention_find_semantic", "args": {}}]),
        &["ended rejected, reason semantic-filter-required"],
    );
    run(
        "golden",
        json!([open, moved, {"do": "snapshot", "name": "at-left"}]),
        &["has no golden", "attention-harness record --scenario"],
    );
}
