//! The docs cannot drift from the tool: every command shown in README.md and docs/*.md (the
//! ```` ```sh ```` blocks, written as DOCS-CONVENTION says) runs with the built binary and ends with the
//! exit code its doc states, without Rust's Debug form in its output; a command that is not run names
//! the file that runs it (`# covered by:`); every file, test, bench and link a doc names exists; and
//! every dependency of Cargo.toml and package.json has its line saying why.

#[path = "docs_support/check.rs"]
mod check;
#[path = "docs_support/extract.rs"]
mod extract;

use extract::{extract, parse_command, DocCommand, Marker};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_attention-harness"))
}

/// README.md and every docs/*.md, repo-relative, in a stable order.
fn docs() -> Vec<String> {
    let mut docs = vec!["README.md".to_string()];
    let mut more: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// A scratch folder per command, under target/ (what an earlier run left there is removed).
fn scratch_for(cmd: &DocCommand) -> PathBuf {
    let name = format!("{}-{}", cmd.doc.replace(['/', '.'], "_"), cmd.line);
    root().join("target/docs-commands").join(name)
}

/// Everything wrong with the commands of one document: extraction, what they name, and (when
/// `run`) the runs themselves. The returned count is how many commands were run.
fn check_doc(doc: &str, text: &str, run: bool) -> (Vec<String>, usize) {
    let (commands, mut problems) = extract(doc, text);
    let mut ran = 0;
    for cmd in &commands {
        let found = check::check_static(root(), cmd);
        let named_ok = found.is_empty();
        problems.extend(found);
        if run && named_ok && cmd.words[0] == check::BINARY && matches!(cmd.marker, Marker::Run { .. }) {
            eprintln!("docs: {}", cmd.at());
            problems.extend(check::run(binary(), root(), &scratch_for(cmd), cmd));
            ran += 1;
        }
    }
    (problems, ran)
}

#[test]
fn every_command_shown_in_the_readme_and_docs_runs_as_the_doc_says() {
    let mut problems = Vec::new();
    let mut ran = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(root().join(&doc)).unwrap();
        let (p, n) = check_doc(&doc, &text, true);
        problems.extend(p);
        ran += n;
    }
    assert!(ran >= 5, "only {ran} documented commands ran: the extractor no longer finds the docs' sh blocks");
    assert!(
        problems.is_empty(),
        "{} documented command(s) do not do what their doc says:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_readme_shows_the_two_commands_and_ci_runs_them() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (commands, _) = extract("README.md", &text);
    for script in ["ci/verify", "ci/test"] {
        let cmd = commands.iter().find(|c| c.words == ["bash", script]);
        let cmd = cmd.unwrap_or_else(|| panic!("README.md shows no `bash {script}`"));
        assert_eq!(cmd.marker, Marker::CoveredBy(".ci/run".into()), "{}: CI (.ci/run) runs it", cmd.at());
    }
    assert!(text.lines().count() <= 200, "README.md is {} lines; the front page is at most 200", text.lines().count());
}

#[test]
fn a_wrong_command_in_a_doc_is_reported_with_its_doc_line_and_command() {
    let doc = "target/docs-commands/wrong.md";
    let text = "# Wrong\n\n```sh\n\
        attention-harness snapshot --layout-file fixtures/layouts/no-such.json --point boundary\n\
        attention-harness --no-such-option\n\
        attention-harness verify --list  # exit 1\n\
        bash ci/verify  # covered by: ci/no-such-script\n\
        bash ci/verify  # covered by: rustfmt.toml\n\
        cargo test --test browser no_test_is_named_like_this\n\
        cargo test --test no-such-binary\n\
        cargo run --release --example bench -- no-such-bench\n\
        curl https://example.org/\n\
        attention-harness inspect --layout managed find --role button | head\n\
        ```\n\n```text\nattention-harness --this-block-is-not-run\n```\n";
    std::fs::create_dir_all(root().join("target/docs-commands")).unwrap();
    std::fs::write(root().join(doc), text).unwrap();
    let (problems, ran) = check_doc(doc, &std::fs::read_to_string(root().join(doc)).unwrap(), true);
    let expect = [
        "wrong.md:4: `attention-harness snapshot --layout-file fixtures/layouts/no-such.json --point boundary`: names fixtures/layouts/no-such.json, which does not exist",
        "wrong.md:5: `attention-harness --no-such-option`: exit 2, the doc says 0",
        "wrong.md:6: `attention-harness verify --list`: exit 0, the doc says 1",
        "wrong.md:7: `bash ci/verify`: `# covered by: ci/no-such-script`, which does not exist",
        "wrong.md:8: `bash ci/verify`: `# covered by: rustfmt.toml`, which never mentions `ci/verify`",
        "wrong.md:9: `cargo test --test browser no_test_is_named_like_this`: no test fn or file",
        "wrong.md:10: `cargo test --test no-such-binary`: no `[[test]]` named no-such-binary",
        "wrong.md:11: `cargo run --release --example bench -- no-such-bench`: examples/bench.rs has no subcommand \"no-such-bench\"",
        "wrong.md:12: `curl https://example.org/`: only `attention-harness ...`",
        "wrong.md:13: `attention-harness inspect --layout managed find --role button | head`: `|` needs a shell",
    ];
    for e in expect {
        assert!(
            problems.iter().any(|p| p.contains(e)),
            "expected a problem containing\n  {e}\ngot:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expect.len(), "one problem per wrong line:\n{}", problems.join("\n"));
    assert_eq!(ran, 2, "the two runnable lines ran (no browser: a usage error and --list)");
}

#[test]
fn every_link_in_the_readme_and_docs_names_a_file() {
    let mut problems = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(root().join(&doc)).unwrap();
        problems.extend(check::broken_links(root(), &doc, &text));
    }
    let bad = check::broken_links(root(), "docs/x.md", "[ok](../README.md) [no](../no-such.md#a) [web](https://x.org)");
    assert_eq!(bad, ["docs/x.md:1: the link `../no-such.md#a` names no file"], "the link check itself");
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

/// The dependency names of a table's first column (`| serde, serde_json |`, `| eslint 10.15.0 (dev) |`)
/// with the version written beside a name, if any.
fn named_in_tables(text: &str) -> Vec<(String, Option<String>)> {
    let mut names = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('|') && !l.starts_with("|--") && !l.starts_with("|-")) {
        let first = line.split('|').nth(1).unwrap_or("").trim();
        if first == "crate" || first == "npm package" {
            continue;
        }
        // Features and notes in parentheses are not names: `axum (http1, tokio, query, ws)`.
        let mut bare = String::new();
        let mut depth = 0;
        for c in first.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                c if depth == 0 => bare.push(c),
                _ => {}
            }
        }
        for item in bare.split(',') {
            let mut words = item.split_whitespace();
            if let Some(name) = words.next() {
                let version = words.next().filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit()));
                names.push((name.to_string(), version.map(str::to_string)));
            }
        }
    }
    names
}

/// The dependencies of Cargo.toml and of the package.json files, with npm's exact pins.
fn declared_dependencies() -> Vec<(String, Option<String>)> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]" || line == "[dev-dependencies]";
        } else if in_deps {
            if let Some((name, _)) = line.split_once('=').filter(|_| !line.trim_start().starts_with('#')) {
                deps.push((name.trim().to_string(), None));
            }
        }
    }
    for file in ["pages/package.json", "bench/playwright/package.json"] {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap();
        for section in ["dependencies", "devDependencies"] {
            for (name, version) in json[section].as_object().into_iter().flatten() {
                deps.push((name.clone(), version.as_str().map(str::to_string)));
            }
        }
    }
    deps
}

/// What is wrong between a dependencies doc and the declared dependencies.
fn dependency_problems(doc: &str, text: &str, declared: &[(String, Option<String>)]) -> Vec<String> {
    let named = named_in_tables(text);
    let mut problems = Vec::new();
    for (name, version) in declared {
        match named.iter().find(|(n, _)| n == name) {
            None => problems.push(format!("{doc}: no line says why `{name}` is a dependency")),
            Some((_, Some(v))) if Some(v) != version.as_ref() => problems.push(format!(
                "{doc}: `{name}` is written as {v}, the manifest pins {}",
                version.as_deref().unwrap_or("?")
            )),
            Some(_) => {}
        }
    }
    for (name, _) in &named {
        if !declared.iter().any(|(d, _)| d == name) {
            problems.push(format!("{doc}: `{name}` has a line but is no dependency of Cargo.toml or a package.json"));
        }
    }
    problems
}

#[test]
fn every_dependency_has_a_line_saying_why_and_every_line_a_dependency() {
    let doc = "docs/dependencies.md";
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let declared = declared_dependencies();
    assert!(declared.len() >= 20, "the manifests were not read: {declared:?}");
    let problems = dependency_problems(doc, &text, &declared);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("## Why each dependency is here") && readme.contains("(docs/dependencies.md)"),
        "README.md keeps a 'Why each dependency is here' section linking {doc}"
    );
    // The check itself: a dependency without a line, a line without a dependency, a stale pin.
    let declared = [("tokio".to_string(), None), ("esbuild".to_string(), Some("0.28.2".to_string()))];
    let table = "| crate | why |\n|---|---|\n| axum (http1, ws) | x |\n| esbuild 0.27.0 (dev) | y |\n";
    assert_eq!(
        dependency_problems("d.md", table, &declared),
        [
            "d.md: no line says why `tokio` is a dependency",
            "d.md: `esbuild` is written as 0.27.0, the manifest pins 0.28.2",
            "d.md: `axum` has a line but is no dependency of Cargo.toml or a package.json",
        ]
    );
}

#[test]
fn the_extractor_reads_only_sh_blocks_joins_continuations_and_reads_markers() {
    let text = "intro `attention-harness x`\n\n```sh\n# a comment\n\nattention-harness snapshot --layout managed \\\n    --point boundary   # the boundary\nattention-harness inspect --layout managed css 'button:not([disabled])'\nattention-harness verify --check x  # exit 2\nbash ci/test  # covered by: .ci/run\n```\n\n```text\nattention-harness not-run\n```\n```\nattention-harness not-run-either\n```\n";
    let (commands, problems) = extract("d.md", text);
    assert!(problems.is_empty(), "{problems:?}");
    let seen: Vec<(usize, &str, &Marker)> = commands.iter().map(|c| (c.line, c.text.as_str(), &c.marker)).collect();
    assert_eq!(
        seen,
        [
            (6, "attention-harness snapshot --layout managed --point boundary", &Marker::Run { exit: 0 }),
            (8, "attention-harness inspect --layout managed css 'button:not([disabled])'", &Marker::Run { exit: 0 }),
            (9, "attention-harness verify --check x", &Marker::Run { exit: 2 }),
            (10, "bash ci/test", &Marker::CoveredBy(".ci/run".into())),
        ]
    );
    assert_eq!(
        commands[1].words,
        ["attention-harness", "inspect", "--layout", "managed", "css", "button:not([disabled])"]
    );
}

#[test]
fn the_extractor_refuses_what_needs_a_shell_and_bad_markers() {
    for (line, why) in [
        ("attention-harness verify --json > out.json", "`>` needs a shell"),
        ("attention-harness verify && echo ok", "`&` needs a shell"),
        ("$ attention-harness verify", "`$` needs a shell"),
        ("cd pages", "`cd` at the start"),
        ("CHROME=/usr/bin/chromium attention-harness verify", "at the start"),
        ("attention-harness replay \"$FILE\"", "an expansion"),
        ("attention-harness verify 'open", "never closes"),
        ("attention-harness verify  # exit two", "`# exit N`"),
        ("attention-harness verify  # covered by .ci/run", "`# covered by: PATH`"),
    ] {
        let err = parse_command(line).expect_err(line);
        assert!(err.contains(why), "{line}: {err}");
    }
    let (_, problems) = extract("d.md", "```sh\nattention-harness verify \\\n```\n\n```sh\nx\n");
    assert_eq!(
        problems,
        ["d.md:2: a command ends in ` \\` but its block closes", "d.md:5: a code block that never closes"]
    );
}

#[test]
fn the_debug_form_is_found_and_json_or_prose_is_not() {
    for debug in [
        "Some(\"button\") Some(\"Attention target left\")",
        "CandidateSpec { role: Some(\"x\") }",
        "got BoxRect { x: 1.0, y: 2.0 }",
        "UrlContains(\"leaf\")",
        "error: Err(Timeout)",
    ] {
        assert!(check::debug_form(debug).is_some(), "not found in: {debug}");
    }
    for fine in [
        "{\"role\": \"button\", \"name\": \"Send\"}",
        "Some of the checks failed; None of them ran",
        "the rect 10,20 300x40 (x,y wxh)",
        "Usage: attention-harness [OPTIONS] <COMMAND>",
    ] {
        assert_eq!(check::debug_form(fine), None, "{fine}");
    }
}
