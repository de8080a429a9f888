//! What the docs test does with a command (DOCS-CONVENTION): checks what it names against the
//! repository (files, `# covered by:` files, cargo test targets and filters, bench subcommands), and
//! runs an `attention-harness` command with the built binary, holding it to its exit code and to
//! output without Rust's Debug form. Every failure starts with `doc:line: `command``.

use super::extract::{DocCommand, Marker};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The program name a doc uses for the release binary.
pub const BINARY: &str = "attention-harness";
/// How long one documented command may run.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Outputs are written under `out/`; the test maps that prefix to a scratch folder.
fn output_path(arg: &str) -> bool {
    arg.starts_with("out/")
}

/// The path a word names, if it names one: contains `/`, is no URL; `--opt=VALUE` gives VALUE.
fn path_of(word: &str) -> Option<&str> {
    let value = if word.starts_with('-') { word.split_once('=')?.1 } else { word };
    (value.contains('/') && !value.contains("://") && !output_path(value)).then_some(value)
}

/// Problems of what a command names, found without running it.
pub fn check_static(root: &Path, cmd: &DocCommand) -> Vec<String> {
    let mut problems = Vec::new();
    let at = cmd.at();
    let words = &cmd.words;
    if words[0] == BINARY || words[0] == "bash" {
        for w in &words[1..] {
            if let Some(p) = path_of(w) {
                if !root.join(p).exists() {
                    problems.push(format!("{at}: names {p}, which does not exist in the repository"));
                }
            }
        }
    }
    match &cmd.marker {
        Marker::CoveredBy(path) => {
            let key = words[1..].iter().find(|w| !w.starts_with('-'));
            match std::fs::read_to_string(root.join(path)) {
                Err(_) => problems.push(format!("{at}: `# covered by: {path}`, which does not exist")),
                Ok(body) => {
                    if let Some(key) = key {
                        if !body.contains(key.as_str()) {
                            problems.push(format!("{at}: `# covered by: {path}`, which never mentions `{key}`"));
                        }
                    }
                }
            }
        }
        Marker::Run { .. } if words[0] == BINARY => {}
        Marker::Run { .. } if words[0] == "cargo" => problems.extend(check_cargo(root, cmd)),
        Marker::Run { .. } => problems.push(format!(
            "{at}: only `{BINARY} ...` and `cargo test`/`cargo run --example` lines are checked; \
             end this one with `# covered by: PATH` (the file that runs it)"
        )),
    }
    problems
}

/// `cargo test --test T [FILTER]`, `cargo insta test ...` and `cargo run --example E -- SUB`.
fn check_cargo(root: &Path, cmd: &DocCommand) -> Vec<String> {
    let at = cmd.at();
    let w: Vec<&str> = cmd.words.iter().map(String::as_str).collect();
    let sub = if w.get(1) == Some(&"insta") { w.get(2) } else { w.get(1) };
    match sub {
        Some(&"test") => {
            let Some(i) = w.iter().position(|x| *x == "--test") else {
                return vec![format!("{at}: name the test binary with `--test T`")];
            };
            let Some(target) = w.get(i + 1) else { return vec![format!("{at}: `--test` without a name")] };
            let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
            if !manifest.contains(&format!("[[test]]\nname = \"{target}\"")) {
                return vec![format!("{at}: no `[[test]]` named {target} in Cargo.toml")];
            }
            let Some(filter) = w[i + 2..].iter().find(|x| !x.starts_with('-')) else { return vec![] };
            let names = test_names(root);
            let missing: Vec<&str> =
                filter.split("::").filter(|s| !s.is_empty() && !names.iter().any(|n| n.contains(s))).collect();
            if missing.is_empty() {
                vec![]
            } else {
                vec![format!("{at}: no test fn or file under tests/ matches `{}`", missing.join("::"))]
            }
        }
        Some(&"run") => {
            let Some(i) = w.iter().position(|x| *x == "--example") else {
                return vec![format!("{at}: only `cargo run --example E -- SUB` is checked; use `{BINARY}`")];
            };
            let Some(example) = w.get(i + 1) else { return vec![format!("{at}: `--example` without a name")] };
            let Ok(body) = std::fs::read_to_string(root.join("examples").join(format!("{example}.rs"))) else {
                return vec![format!("{at}: examples/{example}.rs does not exist")];
            };
            match w.iter().position(|x| *x == "--").and_then(|d| w.get(d + 1)) {
                Some(sub) if !body.contains(&format!("\"{sub}\"")) => {
                    vec![format!("{at}: examples/{example}.rs has no subcommand \"{sub}\"")]
                }
                _ => vec![],
            }
        }
        _ => vec![format!("{at}: a cargo command other than test or run --example needs `# covered by: PATH`")],
    }
}

/// Every `fn` name and file stem under tests/ (what a cargo test filter can match).
fn test_names(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut dirs = vec![root.join("tests")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_some_and(|e| e == "rs") {
                names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
                for line in std::fs::read_to_string(&path).unwrap_or_default().lines() {
                    if let Some(rest) = line.trim_start().split("fn ").nth(1) {
                        names.push(rest.split(['(', '<']).next().unwrap_or("").to_string());
                    }
                }
            }
        }
    }
    names
}

/// Text in Rust's Debug form that user-facing output must never show.
pub fn debug_form(output: &str) -> Option<String> {
    let re = regex::Regex::new(
        r#"\b(Some|Ok|Err)\(|\b[A-Z][A-Za-z0-9]+ \{ [a-z_][a-z0-9_]*: |\b[A-Z][a-z]+[A-Z][A-Za-z]*\("|\bNone\b[,)]"#,
    )
    .unwrap();
    re.find(output).map(|m| {
        let start = output[..m.start()].char_indices().rev().nth(40).map_or(0, |(i, _)| i);
        let end = output[m.end()..].char_indices().nth(40).map_or(output.len(), |(i, _)| m.end() + i);
        output[start..end].replace('\n', " ")
    })
}

/// Run an `attention-harness` command: from `root`, with `out/` mapped to `scratch` and failure
/// artifacts under it; checks the exit code and the output. `binary` is the built binary.
pub fn run(binary: &Path, root: &Path, scratch: &Path, cmd: &DocCommand) -> Vec<String> {
    let Marker::Run { exit } = cmd.marker else { return vec![] };
    let at = cmd.at();
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch.join("out")).expect("scratch folder");
    let args: Vec<PathBuf> = cmd.words[1..]
        .iter()
        .map(|w| match w.strip_prefix("out/") {
            Some(rest) => scratch.join("out").join(rest),
            None => PathBuf::from(w),
        })
        .collect();
    let mut child = match Command::new(binary)
        .args(&args)
        .current_dir(root)
        .env("ATTENTION_ARTIFACTS", scratch.join("artifacts"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return vec![format!("{at}: cannot start {}: {e}", binary.display())],
    };
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > TIMEOUT => {
                // Our own child, ended by its pid; its Chromium dies with it (parent-death signal).
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return vec![format!("{at}: waiting for it failed: {e}")],
        }
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    let tail = |s: &str| s.lines().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    let mut problems = Vec::new();
    match status.and_then(|s| s.code()) {
        None if status.is_none() => problems.push(format!("{at}: still running after {}s", TIMEOUT.as_secs())),
        None => problems.push(format!("{at}: ended by a signal")),
        Some(code) if code != exit => problems.push(format!(
            "{at}: exit {code}, the doc says {exit}{}\n  stderr: {}",
            if exit == 0 { " (no `# exit N`)" } else { "" },
            tail(&stderr)
        )),
        Some(_) => {}
    }
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        if let Some(found) = debug_form(text) {
            problems.push(format!("{at}: {name} shows Rust's Debug form: ...{found}..."));
        }
    }
    problems
}

/// Every relative link `[text](target)` of a document that names no file of the repository.
pub fn broken_links(root: &Path, doc: &str, text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let dir = root.join(doc).parent().map(Path::to_path_buf).unwrap_or_else(|| root.to_path_buf());
    let mut problems = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        for m in re.captures_iter(line) {
            let target = &m[1];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let file = target.split('#').next().unwrap_or(target);
            if !dir.join(file).exists() {
                problems.push(format!("{doc}:{}: the link `{target}` names no file", i + 1));
            }
        }
    }
    problems
}
