//! The crate's layering, held the way pages/runtime/test/layers.test.js holds the runtime's: every
//! top-level module of harness/src (a file or a folder) says once, in [`LAYERS`], which modules it
//! may import; the table is written lowest first and names only modules above it, so the rule
//! itself has no circle. The test reads every file of harness/src, parses its `crate::`,
//! `super::` and `self::` paths (in `use` trees and in expressions, test modules included) and
//! fails, naming the file and line, on an import the table does not allow, and on any circle of
//! files, even inside one folder.
//!
//! What counts as an import: a path that resolves to another file of the library. A folder's
//! `mod.rs` reaching into its own children (`mod child;`, `child::X`) is containment, not an
//! import; a child naming its parent's items (`super::X`) is an import. `crate::X` for an item
//! the crate root re-exports (`pub use host::Host` in lib.rs) is an import of the module it comes
//! from. The binary (main.rs and the modules it declares) stands above the library and may use
//! all of it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rule, written once: each top-level module of the library, lowest first, with the modules it
/// may import (only modules listed above it).
const LAYERS: &[(&str, &[&str])] = &[
    // Leaves: JSON as the Session sees it, the CDP transport, finding and launching Chromium, the
    // remote-browser address rules, the CLI's stdout writer.
    ("json", &[]),
    ("cdp", &[]),
    ("browser", &[]),
    ("remote", &[]),
    ("stdout", &[]),
    // What the runtime reports, typed; then the Session's contract over it.
    ("attention", &["json"]),
    ("contract", &["json", "attention", "stdout"]),
    // Chromium's truth through frames, below everything that opens a Host.
    ("frames", &["attention", "cdp"]),
    ("oracle", &["cdp", "frames"]),
    ("css_landmark", &["cdp", "frames", "oracle"]),
    ("focus_truth", &["cdp", "frames", "oracle"]),
    ("capture", &["cdp", "contract", "frames", "oracle"]),
    // The server (reference Host pages, runtime injection, the reference Session).
    ("server", &["json", "attention", "contract", "remote"]),
    ("trace", &["cdp", "server"]),
    ("golden", &["contract"]),
    // One opened Host, and what drives or reads it.
    ("host", &["attention", "capture", "cdp", "css_landmark", "focus_truth", "frames", "oracle", "server"]),
    ("input", &["host"]),
    ("report", &["attention", "oracle", "host"]),
    ("harness", &["browser", "cdp", "host", "remote", "report", "server"]),
    ("agent", &["contract", "server"]),
    ("qa", &["css_landmark", "host"]),
    // The checks and the tools built on them.
    (
        "checks",
        &[
            "json",
            "attention",
            "contract",
            "cdp",
            "frames",
            "oracle",
            "focus_truth",
            "capture",
            "server",
            "golden",
            "host",
            "input",
            "report",
            "harness",
            "agent",
        ],
    ),
    ("inspect_cli", &["attention", "host", "harness", "qa", "report", "stdout"]),
    ("audit", &["attention", "cdp", "checks", "frames", "harness", "host", "oracle", "report"]),
    ("scenario", &["agent", "attention", "checks", "golden", "harness", "host", "input", "qa", "report", "server"]),
];

/// One import: `file` (relative to harness/src) names `to` (a file) at `line`, as `text`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub file: String,
    pub line: usize,
    pub to: String,
    pub text: String,
}

// ---------------------------------------------------------------------------------------------
// Reading Rust source: comments, strings and character literals blanked (newlines kept, so line
// numbers stay), then tokens.

/// `source` with comments, string literals (also raw and byte strings) and character literals
/// replaced by spaces, newlines kept. Lifetimes stay.
pub fn blank(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let put = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    put(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r')))
            && !prev_ident
            && raw_string_hashes(&c, i + if c[i] == 'b' { 2 } else { 1 }).is_some()
        {
            let start = i + if c[i] == 'b' { 2 } else { 1 };
            let hashes = raw_string_hashes(&c, start).unwrap_or(0);
            let mut j = start + hashes + 1;
            while j < c.len() && !(c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#'))) {
                j += 1;
            }
            let end = (j + 1 + hashes).min(c.len());
            for &ch in &c[i..end] {
                put(&mut out, ch);
            }
            i = end;
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    put(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    put(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '\'' && (c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\u{1F600}', '\''); a lifetime ('a) has no closing quote.
            out.push(' ');
            i += 1;
            if c.get(i) == Some(&'\\') {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '\'' {
                put(&mut out, c[i]);
                i += 1;
            }
            if i < c.len() {
                out.push(' ');
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// At `at`: `#`* then `"` (the opening of a raw string after its `r`) -> how many `#`.
fn raw_string_hashes(c: &[char], at: usize) -> Option<usize> {
    let mut n = 0;
    while c.get(at + n) == Some(&'#') {
        n += 1;
    }
    (c.get(at + n) == Some(&'"')).then_some(n)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

fn tokens(code: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::PathSep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// Every path that starts with `crate`, `super` or `self` (or `root_alias`, the library's name in
/// the binary) in `source`, each as (line, where it starts, its segments with the start expanded:
/// `crate` -> [], `super` -> the enclosing module's parent ...), given the file's module path.
/// `use` trees are expanded (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`); `self` inside a
/// group is the group's own path. Inline modules (`mod tests { .. }`) move `self` and `super`.
pub fn paths(source: &str, module: &[String], root_alias: Option<&str>) -> Vec<(usize, Vec<String>)> {
    let toks = tokens(&blank(source));
    let mut out = Vec::new();
    let mut scope: Vec<(String, usize)> = Vec::new(); // inline modules: (name, brace depth inside)
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if scope.last().is_some_and(|(_, d)| *d == depth) {
                    scope.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(k) if k == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) = (toks.get(i + 1), toks.get(i + 2)) {
                    depth += 1;
                    scope.push((name.clone(), depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(head)
                if matches!(toks.get(i + 1), Some((Tok::PathSep, _)))
                    && !matches!(i.checked_sub(1).and_then(|p| toks.get(p)), Some((Tok::PathSep, _))) =>
            {
                let here: Vec<String> = module.iter().cloned().chain(scope.iter().map(|(n, _)| n.clone())).collect();
                let base = match head.as_str() {
                    "crate" => Some(Vec::new()),
                    "self" => Some(here.clone()),
                    "super" => Some(here[..here.len().saturating_sub(1)].to_vec()),
                    h if Some(h) == root_alias => Some(Vec::new()),
                    _ => None,
                };
                if let Some(mut base) = base {
                    let line = toks[i].1;
                    i += 2;
                    // More `super`s: each goes one module up.
                    while matches!(&toks.get(i), Some((Tok::Ident(s), _)) if s == "super")
                        && matches!(toks.get(i + 1), Some((Tok::PathSep, _)))
                    {
                        base.pop();
                        i += 2;
                    }
                    let mut found = Vec::new();
                    i = use_tree(&toks, i, base, &mut found);
                    out.extend(found.into_iter().map(|p| (line, p)));
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Reads a path (or use tree) at `i` below `prefix`; pushes each full path; returns the index after it.
fn use_tree(toks: &[(Tok, usize)], mut i: usize, mut prefix: Vec<String>, found: &mut Vec<Vec<String>>) -> usize {
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "self" => {
                i += 1;
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        None => return i,
                        _ => {
                            let before = i;
                            i = use_tree(toks, i, prefix.clone(), found);
                            // Skip what a tree may end with (`as name`) up to the next `,` or `}`.
                            while !matches!(toks.get(i).map(|t| &t.0), Some(Tok::Punct(',' | '}')) | None) {
                                i += 1;
                            }
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                found.push(prefix);
                return i;
            }
        }
        if matches!(toks.get(i), Some((Tok::PathSep, _))) {
            i += 1;
        } else {
            found.push(prefix);
            return i;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The library's files and the edges between them.

/// A file's module path: `a/b.rs` -> [a, b], `a/mod.rs` -> [a], `lib.rs` -> [].
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The crate root's re-exports (`pub use host::{Host, Layout}` in lib.rs): item name -> module path.
fn root_reexports(lib_rs: &str) -> BTreeMap<String, Vec<String>> {
    let toks = tokens(&blank(lib_rs));
    let mut out = BTreeMap::new();
    for i in 0..toks.len() {
        let is_pub_use = matches!(&toks[i].0, Tok::Ident(p) if p == "pub")
            && matches!(toks.get(i + 1).map(|t| &t.0), Some(Tok::Ident(u)) if u == "use");
        if !is_pub_use {
            continue;
        }
        let mut found = Vec::new();
        use_tree(&toks, i + 2, Vec::new(), &mut found);
        for path in found {
            if let Some((name, module)) = path.split_last() {
                out.insert(name.clone(), module.to_vec());
            }
        }
    }
    out
}

/// The library's files (relative to `src`), and every edge between two of them.
pub fn library_edges(src: &Path) -> (Vec<String>, Vec<Edge>) {
    let mut all = Vec::new();
    rust_files(src, src, &mut all);
    // The binary: main.rs and the modules it declares.
    let main = std::fs::read_to_string(src.join("main.rs")).unwrap_or_default();
    let bin_mods: Vec<String> = tokens(&blank(&main))
        .windows(3)
        .filter_map(|w| match (&w[0].0, &w[1].0, &w[2].0) {
            (Tok::Ident(m), Tok::Ident(name), Tok::Punct(';')) if m == "mod" => Some(name.clone()),
            _ => None,
        })
        .collect();
    let in_bin =
        |f: &str| f == "main.rs" || bin_mods.iter().any(|m| f == format!("{m}.rs") || f.starts_with(&format!("{m}/")));
    let files: Vec<String> = all.into_iter().filter(|f| !in_bin(f)).collect();
    let by_module: BTreeMap<Vec<String>, String> = files.iter().map(|f| (module_of(f), f.clone())).collect();
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default());
    let mut edges = Vec::new();
    for file in &files {
        let me = module_of(file);
        let source = std::fs::read_to_string(src.join(file)).unwrap();
        for (line, path) in paths(&source, &me, None) {
            let mut path = path;
            if let Some(module) = path.first().and_then(|n| reexports.get(n)) {
                let mut full = module.clone();
                full.append(&mut path);
                path = full;
            }
            let to = (0..=path.len()).rev().find_map(|n| by_module.get(&path[..n]).map(|f| (n, f.clone())));
            let Some((n, to)) = to else { continue };
            let target = module_of(&to);
            // Itself, or a module reaching into its own children: containment, not an import.
            if to == *file || (target.len() > me.len() && target.starts_with(&me)) {
                continue;
            }
            let text =
                if n == 0 { format!("crate::{}", path.join("::")) } else { format!("crate::{}", path[..n].join("::")) };
            edges.push(Edge { file: file.clone(), line, to, text });
        }
    }
    edges.sort();
    edges.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.to == b.to);
    (files, edges)
}

// ---------------------------------------------------------------------------------------------
// The rule.

fn top(file: &str) -> String {
    module_of(file).first().cloned().unwrap_or_else(|| "(crate root)".into())
}

/// Every edge the table does not allow, as `file:line: text`, with what the module may import.
/// `files` must each belong to a module of the table (or be the crate root).
pub fn violations(table: &[(&str, &[&str])], files: &[String], edges: &[Edge]) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = table.iter().copied().collect();
    let mut out = Vec::new();
    for f in files {
        let t = top(f);
        if f != "lib.rs" && !allowed.contains_key(t.as_str()) {
            out.push(format!("{f}: module `{t}` is not in the layering table (tests/layering.rs LAYERS)"));
        }
    }
    for e in edges {
        let (from, to) = (top(&e.file), top(&e.to));
        if from == to {
            continue;
        }
        if e.to == "lib.rs" {
            out.push(format!("{}:{}: {} names the crate root, not a module", e.file, e.line, e.text));
            continue;
        }
        let ok = allowed.get(from.as_str()).is_some_and(|a| a.contains(&to.as_str()));
        if !ok {
            let may = allowed.get(from.as_str()).map(|a| a.join(", ")).unwrap_or_default();
            out.push(format!(
                "{}:{}: `{from}` imports `{to}` ({}), which the table does not allow (`{from}` may import: {})",
                e.file,
                e.line,
                e.text,
                if may.is_empty() { "nothing" } else { &may }
            ));
        }
    }
    out
}

/// Whether the table is a layering: every module named once, each allowing only modules listed above it.
pub fn table_errors(table: &[(&str, &[&str])]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (m, allowed) in table {
        for a in *allowed {
            if !seen.contains(a) {
                out.push(format!("`{m}` may import `{a}`, which is not listed above it"));
            }
        }
        if !seen.insert(*m) {
            out.push(format!("`{m}` is listed twice"));
        }
    }
    out
}

/// Every circle of files, each as its edges (file:line -> file), found by depth-first search.
pub fn circles(edges: &[Edge]) -> Vec<Vec<Edge>> {
    let mut graph: BTreeMap<&str, Vec<&Edge>> = BTreeMap::new();
    for e in edges {
        graph.entry(e.file.as_str()).or_default().push(e);
    }
    let mut state: BTreeMap<&str, u8> = BTreeMap::new(); // 1 on the stack, 2 done
    let mut stack: Vec<&Edge> = Vec::new();
    let mut found = Vec::new();
    fn visit<'a>(
        m: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a Edge>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a Edge>,
        found: &mut Vec<Vec<Edge>>,
    ) {
        state.insert(m, 1);
        let mut targets_seen = BTreeSet::new();
        for e in graph.get(m).map(Vec::as_slice).unwrap_or(&[]) {
            if !targets_seen.insert(e.to.as_str()) {
                continue;
            }
            match state.get(e.to.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|s| s.file == e.to).unwrap_or(stack.len());
                    let mut c: Vec<Edge> = stack[start..].iter().map(|s| (*s).clone()).collect();
                    c.push((*e).clone());
                    found.push(c);
                }
                None => {
                    stack.push(e);
                    visit(e.to.as_str(), graph, state, stack, found);
                    stack.pop();
                }
                _ => {}
            }
        }
        state.insert(m, 2);
    }
    let nodes: Vec<&str> = graph.keys().copied().collect();
    for m in nodes {
        if !state.contains_key(m) {
            visit(m, &graph, &mut state, &mut stack, &mut found);
        }
    }
    found
}

fn describe(circle: &[Edge]) -> String {
    circle.iter().map(|e| format!("{}:{} -> {}", e.file, e.line, e.to)).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------------
// The tests: the rule on the real tree, and the checker failing on synthetic input.

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/src")
}

#[test]
fn the_layering_table_names_each_module_once_and_only_modules_below_it() {
    assert_eq!(table_errors(LAYERS), Vec::<String>::new());
}

#[test]
fn every_import_in_harness_src_is_one_the_layering_table_allows() {
    let (files, edges) = library_edges(&src());
    assert!(
        files.len() > 50 && edges.len() > 200,
        "read {} files, {} edges: the walk is broken",
        files.len(),
        edges.len()
    );
    let bad = violations(LAYERS, &files, &edges);
    assert!(bad.is_empty(), "imports against the layering (tests/layering.rs LAYERS):\n{}", bad.join("\n"));
    for (m, _) in LAYERS {
        assert!(files.iter().any(|f| top(f) == *m), "the table names `{m}`, which harness/src does not have");
    }
}

#[test]
fn no_file_of_harness_src_is_in_an_import_circle() {
    let (_, edges) = library_edges(&src());
    let found = circles(&edges);
    assert!(
        found.is_empty(),
        "import circles in harness/src (move the shared piece below both):\n{}",
        found.iter().map(|c| describe(c)).collect::<Vec<_>>().join("\n")
    );
}

fn m(path: &str) -> Vec<String> {
    path.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect()
}

#[test]
fn the_path_parser_expands_use_trees_and_follows_super_self_and_inline_modules() {
    let source = [
        "use crate::a::{b, c::{d, self as e}, f::*};",
        "use super::{g};",
        "use super::super::i::J;",
        "fn x() { crate::k::l(); let s = \"crate::no::way\"; }",
        "// crate::comment::no",
        "/* crate::block::no */ let c = '\\''; let r = r#\"crate::raw\"#;",
        "fn y<'a>(v: &'a str) -> self::m::N<'a> { todo!() }",
        "#[cfg(test)]",
        "mod tests {",
        "    use super::*;",
        "    use super::super::o;",
        "}",
        "use self::p::Q;",
    ]
    .join("\n");
    let got = paths(&source, &m("x::y"), None);
    let want: Vec<(usize, Vec<String>)> = vec![
        (1, m("a::b")),
        (1, m("a::c::d")),
        (1, m("a::c")),
        (1, m("a::f")),
        (2, m("x::g")),
        (3, m("i::J")),
        (4, m("k::l")),
        (7, m("x::y::m::N")),
        // Inside `mod tests` of x::y, `super` is x::y itself and `super::super` is x.
        (10, m("x::y")),
        (11, m("x::o")),
        (13, m("x::y::p::Q")),
    ];
    assert_eq!(got, want);
}

fn edge(file: &str, line: usize, to: &str) -> Edge {
    Edge { file: file.into(), line, to: to.into(), text: format!("crate::{}", to.trim_end_matches(".rs")) }
}

#[test]
fn the_checker_names_an_upward_import_and_an_unlisted_module_with_file_and_line() {
    const TABLE: &[(&str, &[&str])] = &[("low", &[]), ("mid", &["low"]), ("high", &["low", "mid"])];
    let files: Vec<String> =
        ["low/mod.rs", "low/a.rs", "mid.rs", "high.rs", "stray.rs", "lib.rs"].map(String::from).to_vec();
    let clean = [edge("mid.rs", 3, "low/a.rs"), edge("high.rs", 4, "mid.rs"), edge("low/a.rs", 9, "low/mod.rs")];
    assert_eq!(violations(TABLE, &files[..4], &clean), Vec::<String>::new());
    let bad = [edge("low/a.rs", 12, "mid.rs"), edge("mid.rs", 7, "high.rs"), edge("high.rs", 2, "lib.rs")];
    let found = violations(TABLE, &files, &bad);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].starts_with("stray.rs: module `stray` is not in the layering table"), "{found:#?}");
    assert!(
        found[1].starts_with("low/a.rs:12: `low` imports `mid`") && found[1].contains("may import: nothing"),
        "{found:#?}"
    );
    assert!(
        found[2].starts_with("mid.rs:7: `mid` imports `high`") && found[2].contains("may import: low"),
        "{found:#?}"
    );
    assert!(found[3].starts_with("high.rs:2: crate::lib names the crate root"), "{found:#?}");
    // A table that lets a lower module import a higher one is refused.
    const CIRCULAR: &[(&str, &[&str])] = &[("low", &["mid"]), ("mid", &["low"])];
    assert_eq!(table_errors(CIRCULAR), vec!["`low` may import `mid`, which is not listed above it".to_string()]);
}

#[test]
fn the_checker_finds_a_circle_of_files_and_names_each_edge() {
    let edges = [
        edge("s/reads/history.rs", 19, "s/store.rs"),
        edge("s/store.rs", 192, "s/reads/history.rs"),
        edge("s/store.rs", 200, "s/reads/history.rs"),
        edge("a.rs", 1, "b.rs"),
        edge("b.rs", 1, "c.rs"),
    ];
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(describe(&found[0]), "s/reads/history.rs:19 -> s/store.rs, s/store.rs:192 -> s/reads/history.rs");
    let three = [edge("a.rs", 1, "b.rs"), edge("b.rs", 2, "c.rs"), edge("c.rs", 3, "a.rs")];
    assert_eq!(describe(&circles(&three)[0]), "a.rs:1 -> b.rs, b.rs:2 -> c.rs, c.rs:3 -> a.rs");
    assert!(circles(&edges[3..]).is_empty());
}
