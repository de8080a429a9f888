//! Scenario files end to end (issue 22): the shipped ones (four, one of them on QA's own application) replay with trusted input and pass
//! in every engine they name, their snapshots matching the goldens shipped beside them; bad files
//! are refused up front naming the step; a failed expectation exits 1 naming the step;
//! `record --scenario` writes goldens and a changed golden fails replay with a diff naming the
//! step; an agent `read` step's result is checked by a later `expect`, and a `wait-for` selector
//! waits for an element a step makes appear (or names the selector when it never does).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn cli(args: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness");
    (out, t0.elapsed())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// A scratch folder of this test under target/.
fn scratch(name: &str) -> PathBuf {
    let d = repo("target/scenario-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn write(dir: &Path, name: &str, json: Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    p.to_string_lossy().to_string()
}

#[test]
fn every_shipped_scenario_replays_and_passes_in_the_engines_it_names() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("fixtures/scenarios"))
        .expect("fixtures/scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.to_string_lossy().ends_with(".golden.json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "four shipped scenarios: {files:?}");
    for f in &files {
        let rel = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().to_string_lossy().to_string();
        let sc: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let (out, _) = cli(&["replay", &rel]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{rel}: {stdout}\n{}", text(&out.stderr));
        for engine in sc["engines"].as_array().expect("engines named") {
            let line = format!("pass {rel} in {}", engine.as_str().unwrap());
            assert!(stdout.contains(&line), "{rel}: no {line:?} in {stdout}");
            // Every named snapshot has its golden, so the pass above compared it.
            for step in sc["steps"].as_array().unwrap() {
                if let Some(name) = step["name"].as_str() {
                    let stem = f.file_stem().unwrap().to_string_lossy();
                    let golden = f.with_file_name(format!("{stem}.{name}.{}.golden.json", engine.as_str().unwrap()));
                    assert!(golden.exists(), "{rel}: no golden {}", golden.display());
                }
            }
        }
    }
}

/// Copies a shipped scenario and its goldens into `dir`; returns the copy's path.
fn copy_shipped(stem: &str, dir: &Path) -> PathBuf {
    for e in std::fs::read_dir(repo("fixtures/scenarios")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name == format!("{stem}.json") || name.starts_with(&format!("{stem}.")) && name.ends_with(".golden.json") {
            std::fs::copy(e.path(), dir.join(&name)).unwrap();
        }
    }
    dir.join(format!("{stem}.json"))
}

#[test]
fn a_changed_shipped_golden_fails_replay_naming_the_step_with_a_readable_diff() {
    let d = scratch("tampered");
    let file = copy_shipped("boundary-at-zoom-125", &d);
    let golden = d.join("boundary-at-zoom-125.right-of-boundary.fragment.golden.json");
    let recorded = std::fs::read_to_string(&golden).expect("the shipped golden");
    // Someone's layout bug: the button under the pointer moved by one pixel.
    let tampered = recorded.replacen("\"x\": 444,", "\"x\": 445,", 1);
    assert_ne!(tampered, recorded, "the golden has a rect at x 444");
    std::fs::write(&golden, &tampered).unwrap();
    let (out, _) = cli(&["replay", file.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", text(&out.stderr));
    // The untouched engine and goldens still pass; the changed one names its step and file.
    assert!(stdout.contains(&format!("pass {} in iframe", file.display())), "{stdout}");
    let head = format!(
        "FAIL {} in fragment: steps[6] (snapshot): \u{201c}right-of-boundary\u{201d} differs from its golden {}",
        file.display(),
        golden.display()
    );
    assert!(stdout.contains(&head), "no {head:?} in {stdout}");
    // A unified diff: the golden's line removed, this run's added, nothing else changed.
    let removed: Vec<&str> = stdout.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
    let added: Vec<&str> = stdout.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).collect();
    let squeeze = |l: &&str| format!("{}{}", &l[..1], l[1..].trim());
    assert_eq!(removed.iter().map(squeeze).collect::<Vec<_>>(), ["-\"x\": 445,"], "{stdout}");
    assert_eq!(added.iter().map(squeeze).collect::<Vec<_>>(), ["+\"x\": 444,"], "{stdout}");
    assert!(stdout.contains("(golden)") && stdout.contains("this run") && stdout.contains("@@"), "{stdout}");
}

#[test]
fn a_scenario_that_cannot_run_is_refused_up_front_naming_the_step() {
    let d = scratch("refused");
    let open = serde_json::json!({"do": "open"});
    let cases = [
        (
            serde_json::json!({"steps": [open, {"do": "move", "at": "left-leaf", "speed": 3}]}),
            vec!["steps[1]", "unknown field `speed`"],
        ),
        (serde_json::json!({"steps": [open, {"do": "fly"}]}), vec!["steps[1]", "unknown variant `fly`"]),
        (
            serde_json::json!({"steps": [open, {"do": "click", "at": [5000, 5000]}]}),
            vec!["steps[1] (click)", "outside the 1280x720"],
        ),
        (
            serde_json::json!({"steps": [open, {"do": "move", "at": "no-such-place"}]}),
            vec!["steps[1] (move)", "no-such-place"],
        ),
        (serde_json::json!({"steps": [open, {"do": "key", "key": "F13"}]}), vec!["steps[1] (key)", "F13"]),
        (
            serde_json::json!({"steps": [open, {"do": "move", "at": "css: "}]}),
            vec!["steps[1] (move)", "names no selector"],
        ),
        (
            serde_json::json!({"steps": [open, {"do": "click", "at": {"landmark": "css:sidebar:#x"}}]}),
            vec!["steps[1] (click)", "no panel \u{201c}sidebar\u{201d} (panels: chat, main, nav, tools)"],
        ),
        // An open step's own view: checked as the scenario's, and the points after it are in it.
        (
            serde_json::json!({"steps": [open, {"do": "open", "viewport": "800x600"}, {"do": "move", "at": [900, 10]}]}),
            vec!["steps[2] (move)", "outside the 800x600"],
        ),
        (
            serde_json::json!({"steps": [{"do": "open", "viewport": "99x600"}]}),
            vec!["steps[0] (open): viewport", "outside 100..=4096"],
        ),
        (
            serde_json::json!({"layout_file": "../../../fixtures/apps/signup.layout.json",
                               "steps": [{"do": "open", "viewport": "499x600"}]}),
            vec!["steps[0] (open): ", "does-not-fit", "499x600"],
        ),
        (serde_json::json!({"steps": [{"do": "move", "at": "left-leaf"}]}), vec!["steps[0]", "must be `open`"]),
        (
            serde_json::json!({"steps": [open, {"do": "expect", "omission": "no-such-reason"}]}),
            vec!["steps[1] (expect)", "no-such-reason"],
        ),
        (serde_json::json!({"zoom": 9, "steps": [open]}), vec!["zoom"]),
        (
            serde_json::json!({"steps": [open, {"do": "read", "tool": "attention_peek"}]}),
            vec!["steps[1] (read)", "attention_peek", "attention_find_semantic"],
        ),
        (
            serde_json::json!({"steps": [open, {"do": "expect", "read": {"node": {"name": "x"}, "colour": 1}}]}),
            vec!["steps[1]", "unknown field `colour`"],
        ),
        (
            serde_json::json!({"layout_file": "../../../fixtures/layouts/invalid-unknown-panel.json", "steps": [open]}),
            vec!["unknown-panel: layout.layouts.default.children[1]: panel `sidebar`"],
        ),
    ];
    for (i, (json, names)) in cases.into_iter().enumerate() {
        let file = write(&d, &format!("bad-{i}.json"), json);
        let (out, _, launched) = crate::cli_support::run_expecting_no_launch(&["replay", &file]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(!launched, "{file}: a browser was started before the refusal: {err}");
        for n in names {
            assert!(err.contains(n), "{file}: the error does not name {n:?}: {err}");
        }
    }
}

#[test]
fn a_failed_expectation_exits_1_naming_the_step_and_what_the_runtime_reported() {
    let d = scratch("failing");
    let file = write(
        &d,
        "failing.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "move", "at": "left-leaf"},
            {"do": "expect", "top": {"name": "No such button"}, "timeout_ms": 300},
            {"do": "snapshot"}
        ]}),
    );
    let (out, _) = cli(&["replay", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("steps[2] (expect)") && stdout.contains("Attention target left"), "{stdout}");
    assert!(!text(&out.stderr).contains("steps[3]"), "replay went on after the failed step");
}

#[test]
fn record_writes_goldens_beside_the_scenario_and_a_changed_golden_shows_a_readable_diff() {
    let d = scratch("record");
    let file = write(
        &d,
        "rec.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "move", "at": "left-leaf"},
            {"do": "snapshot", "name": "at-left"}
        ]}),
    );
    let (out, _) = cli(&["record", "--scenario", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let golden = d.join("rec.at-left.iframe.golden.json");
    let recorded = std::fs::read_to_string(&golden).expect("the golden beside the scenario");
    assert!(recorded.contains("\"Attention target left\""), "{recorded}");
    // The golden is stable: a replay matches it.
    let (out, _) = cli(&["replay", &file]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    // Someone's golden says another name: replay fails with a diff naming both.
    std::fs::write(&golden, recorded.replace("\"Attention target left\"", "\"Attention target elsewhere\"")).unwrap();
    let (out, _) = cli(&["replay", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("steps[2] (snapshot): \u{201c}at-left\u{201d} differs from its golden"), "{stdout}");
    assert!(
        stdout.contains("-      \"name\": \"Attention target elsewhere\"")
            || stdout.contains("-") && stdout.contains("elsewhere"),
        "{stdout}"
    );
    assert!(stdout.contains("+") && stdout.contains("Attention target left"), "{stdout}");
    // record shows the change and writes the new golden.
    let (out, _) = cli(&["record", "--scenario", &file]);
    let stdout = text(&out.stdout);
    assert!(out.status.success() && stdout.contains("changed") && stdout.contains("elsewhere"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&golden).unwrap(), recorded);
}

#[test]
fn a_read_steps_result_is_checked_by_a_later_expect_and_its_target_can_be_acted_on() {
    let d = scratch("read");
    let find = serde_json::json!({"do": "read", "tool": "attention_find_semantic",
                                  "args": {"role": "button", "name": "Attention target left"}});
    let file = write(
        &d,
        "read.json",
        serde_json::json!({"engines": ["iframe", "fragment"], "steps": [
            {"do": "open", "actions": true},
            find,
            {"do": "expect", "read": {"status": "inspected", "outcome": "ok",
                                      "node": {"role": "button", "name": "Attention target left"}}},
            {"do": "action", "mode": "highlight", "from_read": true},
            {"do": "key", "key": "Escape"},
            {"do": "expect", "status": "cancelled", "timeout_ms": 15000}
        ]}),
    );
    let (out, _) = cli(&["replay", &file]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for engine in ["iframe", "fragment"] {
        assert!(stdout.contains(&format!("pass {file} in {engine}: 6 steps")), "{stdout}");
    }
    assert!(
        stderr.contains(
            "attention_find_semantic ended inspected, outcome ok: 1 node: button \u{201c}Attention target left\u{201d}"
        ),
        "{stderr}"
    );
    // The same read, expected to find another node: exit 1 naming the expect step and what it found.
    let file = write(
        &d,
        "read-wrong.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            find,
            {"do": "expect", "read": {"node": {"name": "Attention target right"}}},
            {"do": "snapshot"}
        ]}),
    );
    let (out, _) = cli(&["replay", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "steps[2] (expect): the read expectation did not hold: expected a node any role named \u{201c}Attention target right\u{201d}, found:"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Attention target left"), "the message lists what the read found: {stdout}");
    assert!(!text(&out.stderr).contains("steps[3]"), "replay went on after the failed step");
}

#[test]
fn wait_for_a_selector_waits_for_an_element_a_step_makes_appear_and_names_it_when_it_never_does() {
    let d = scratch("wait-for");
    // The chat log holds one line until a message is sent; the sent message is its second.
    let second = ".chat-log > li:nth-child(2)";
    let file = write(
        &d,
        "appears.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "send", "text": "hello"},
            {"do": "wait-for", "selector": second, "timeout_ms": 5000},
            {"do": "wait-for", "selector": ".chat-log > li:nth-child(1)"}
        ]}),
    );
    let (out, _) = cli(&["replay", &file]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains(&format!("pass steps[2] wait-for 1 nodes match \u{201c}{second}\u{201d}")), "{stderr}");
    // Before anything is sent it never appears: the step times out naming the selector.
    let file = write(
        &d,
        "never.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "wait-for", "selector": second, "timeout_ms": 800},
            {"do": "snapshot"}
        ]}),
    );
    let (out, took) = cli(&["replay", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("steps[1] (wait-for)"), "{stdout}");
    assert!(
        stdout.contains(&format!("the selector \u{201c}{second}\u{201d}"))
            && stdout.contains("did not happen within 800 ms"),
        "{stdout}"
    );
    assert!(!text(&out.stderr).contains("steps[2]"), "replay went on after the failed step");
    assert!(took < Duration::from_secs(60), "{took:?}");
    // A selector the inspection API refuses is an error at once, not a wait.
    let file = write(
        &d,
        "refused.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "wait-for", "selector": "li:hover", "timeout_ms": 30000}
        ]}),
    );
    let t0 = Instant::now();
    let (out, _) = cli(&["replay", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("steps[1] (wait-for): the inspection API refused the selector \u{201c}li:hover\u{201d}"),
        "{stdout}"
    );
    assert!(t0.elapsed() < Duration::from_secs(30), "it waited out the timeout: {:?}", t0.elapsed());
}

#[test]
fn binding_the_agent_for_a_read_leaves_pointer_focus_and_selection_where_the_scenario_left_them() {
    let d = scratch("bind-untouched");
    // Without the read: the pointer and the focus on the left button, recorded as the golden.
    let plain = write(
        &d,
        "plain.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "click", "at": "left-leaf"}, {"do": "snapshot", "name": "after"}
        ]}),
    );
    let (out, _) = cli(&["record", "--scenario", &plain]);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    // The same with a read in between (its first read binds the agent): the same golden holds.
    let with_read = write(
        &d,
        "with-read.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "click", "at": "left-leaf"},
            {"do": "read", "tool": "attention_get_focus"},
            {"do": "snapshot", "name": "after"}
        ]}),
    );
    std::fs::copy(d.join("plain.after.iframe.golden.json"), d.join("with-read.after.iframe.golden.json")).unwrap();
    let (out, _) = cli(&["replay", &with_read]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "the read moved something of the user's:\n{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("pass {with_read} in iframe: 4 steps")), "{stdout}");
    // The read itself saw the focus the click left, not the composer.
    assert!(stderr.contains("attention_get_focus ended inspected"), "{stderr}");
    let golden = std::fs::read_to_string(d.join("plain.after.iframe.golden.json")).unwrap();
    assert!(golden.contains("Attention target left"), "{golden}");
}

#[test]
fn a_read_that_ends_refused_fails_its_step_with_the_reason_unless_the_scenario_expects_it() {
    let d = scratch("read-refused");
    // A typo in the args is refused before a browser starts, naming it and the tool's arguments.
    let typo = write(
        &d,
        "typo.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "read", "tool": "attention_get_tree", "args": {"depht": 3}}
        ]}),
    );
    let (out, _) = cli(&["replay", &typo]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "steps[1] (read): attention_get_tree takes no argument \u{201c}depht\u{201d} (its arguments: root, depth, limit, continuation)"
        ),
        "{stderr}"
    );
    // A read the Session refuses (no filter) fails its own step, saying why and what the model keeps.
    let refused = write(
        &d,
        "refused.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"}, {"do": "read", "tool": "attention_find_semantic", "args": {}}, {"do": "snapshot"}
        ]}),
    );
    let (out, _) = cli(&["replay", &refused]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("steps[1] (read): attention_find_semantic ended rejected, reason semantic-filter-required"),
        "{stdout}"
    );
    assert!(stdout.contains("the model keeps: {"), "{stdout}");
    assert!(!stderr.contains("steps[2]"), "replay went on after the failed read: {stderr}");
    // Expected to end so (status and reason), the same read passes, and the typo too.
    let expected = write(
        &d,
        "expected.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "read", "tool": "attention_find_semantic", "args": {}},
            {"do": "expect", "read": {"status": "rejected", "reason": "semantic-filter-required"}},
            {"do": "read", "tool": "attention_get_tree", "args": {"depht": 3}},
            {"do": "expect", "read": {"status": "rejected", "reason": "unexpected-field"}}
        ]}),
    );
    let (out, _) = cli(&["replay", &expected]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("attention_get_tree ended rejected, reason unexpected-field"), "{stderr}");
    assert!(stderr.contains("    the model keeps: {"), "the kept result on stderr: {stderr}");
    // An expectation of another reason fails, saying what was expected and found.
    let wrong = write(
        &d,
        "wrong.json",
        serde_json::json!({"engines": ["iframe"], "steps": [
            {"do": "open"},
            {"do": "read", "tool": "attention_find_semantic", "args": {}},
            {"do": "expect", "read": {"status": "rejected", "reason": "unexpected-field"}}
        ]}),
    );
    let (out, _) = cli(&["replay", &wrong]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "expected the reason unexpected-field, found: attention_find_semantic ended rejected, reason semantic-filter-required"
        ),
        "{stdout}"
    );
}
