//! What a verify check says when it passes is printed on every run (the table, `--json`, the HTML
//! report), so it is text for people: no Rust Debug form (`Some("..")`, `["a", "b"]`, a variant
//! name). This holds the rule on the source: the `Ok(format!(..))` that ends each check in
//! `harness/src/checks/` formats nothing with `{:?}`. Failure messages are held at run time by the
//! CLI tests (tests/cli_messages.rs).

use std::path::Path;

/// Each `Ok(format!(` span of `source` (up to its closing parenthesis) that formats with `:?`,
/// as (line, span on one line).
fn debug_formatted_details(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(at) = source[from..].find("Ok(format!(") {
        let start = from + at;
        let mut depth = 0usize;
        let mut end = start;
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let span = &source[start..end.max(start)];
        if span.contains(":?") {
            let line = source[..start].matches('\n').count() + 1;
            found.push((line, span.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        from = end.max(start + 1);
    }
    found
}

#[test]
fn a_checks_pass_detail_formats_nothing_in_debug_form() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/src/checks");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            for (line, span) in debug_formatted_details(&source) {
                found.push(format!(
                    "{}:{line}: {span}",
                    path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display()
                ));
            }
        }
    }
    assert!(found.is_empty(), "pass details in Debug form (use report::text):\n{}", found.join("\n"));
}

#[test]
fn the_detail_scan_finds_debug_formatting_and_only_in_a_pass_detail() {
    let source = "fn a() -> R {\n    ensure!(x, \"{y:?}\");\n    Ok(format!(\"kept {:?} ({})\", id, f(g(1))))\n}\nfn b() -> R { Ok(format!(\"{} then {}\", a, b)) }\n";
    let found = debug_formatted_details(source);
    assert_eq!(found, vec![(3, "Ok(format!(\"kept {:?} ({})\", id, f(g(1))))".to_string())]);
}
