//! What a verify check or a scenario step says is text for people: a check's pass detail is printed
//! on every run (the table, `--json`, the HTML report), its failure message when it fails (and in
//! `cargo test`), a scenario's refusals and step failures on stderr and in the report, and the
//! errors of every other module reach the CLI the same way. So no Rust Debug form (`Some("..")`,
//! `["a", "b"]`, a variant name, `BoxRect { .. }`, a `Duration`'s `5s`). This holds the rule on the
//! source of all of `harness/src/` (checks and scenario first): no format string there (of
//! `format!`, `ensure!`, `bail!`, `anyhow!`, `#[error(..)]` and the rest of the std formatting
//! macros, wherever the result goes: `Ok(..)`, `.context(..)`, `.with_context(|| ..)`, a poll's
//! pending text) has a `{..:?}` placeholder, outside `#[cfg(test)]` items. It reads the source with
//! a small Rust lexer (comments, strings with their escapes, raw strings, char literals) and parses
//! each format string as `std::fmt` does, so `{{:?}}` and a `{:?}` in a comment are not counted.
//! The CLI's own texts are held at run time by tests/cli_messages.rs.

use std::path::Path;

/// The folders whose format strings the rule holds (subfolders included).
const HELD: [&str; 1] = ["harness/src"];

/// Formatting macros and the index of their first argument that may be the format string.
const MACROS: &[(&str, usize)] = &[
    ("format", 0),
    ("format_args", 0),
    ("print", 0),
    ("println", 0),
    ("eprint", 0),
    ("eprintln", 0),
    ("write", 1),
    ("writeln", 1),
    ("panic", 0),
    ("unreachable", 0),
    ("todo", 0),
    ("unimplemented", 0),
    ("assert", 1),
    ("debug_assert", 1),
    ("assert_eq", 2),
    ("assert_ne", 2),
    ("ensure", 1),
    ("bail", 0),
    ("anyhow", 0),
    ("error", 0),
    ("warn", 0),
    ("info", 0),
    ("debug", 0),
    ("trace", 0),
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// A string literal's value (escapes decoded, so `\u{201c}` is one char and not a `{`).
    Str(String),
    Punct(char),
    /// A char literal, a lifetime or a number: nothing the rule reads.
    Other,
}

/// The tokens of Rust `source` with their 1-based line, comments dropped.
fn lex(source: &str) -> Vec<(usize, Tok)> {
    let c: Vec<char> = source.chars().collect();
    let (mut i, mut line, mut out) = (0usize, 1usize, Vec::new());
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == '"' {
            let (value, end) = cooked(&c, i + 1, &mut line);
            out.push((start_line, Tok::Str(value)));
            i = end;
        } else if ch == '\'' {
            // A char literal ('a', '\'', '\u{7b}') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
            out.push((start_line, Tok::Other));
        } else if ch.is_alphabetic() || ch == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[s..i].iter().collect();
            let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                // A raw string: no escapes, ends at `"` and as many `#`.
                let body = i + hashes + 1;
                let mut j = body;
                while j < c.len()
                    && !(c[j] == '"' && c[j + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
                {
                    line += usize::from(c[j] == '\n');
                    j += 1;
                }
                out.push((start_line, Tok::Str(c[body..j.min(c.len())].iter().collect())));
                i = j + 1 + hashes;
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                let (value, end) = cooked(&c, i + 1, &mut line);
                out.push((start_line, Tok::Str(value)));
                i = end;
            } else if matches!(word.as_str(), "b") && at(i) == '\'' {
                // A byte literal b'x': lexed as a char literal on the next turn.
                out.push((start_line, Tok::Other));
            } else {
                out.push((start_line, Tok::Ident(word)));
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            out.push((start_line, Tok::Other));
        } else {
            out.push((start_line, Tok::Punct(ch)));
            i += 1;
        }
    }
    out
}

/// The value of a non-raw string literal whose body starts at `i`, and the index after its `"`.
fn cooked(c: &[char], mut i: usize, line: &mut usize) -> (String, usize) {
    let mut value = String::new();
    while i < c.len() && c[i] != '"' {
        if c[i] == '\\' {
            match c.get(i + 1) {
                Some('\n') => {
                    // A line continuation: the newline and the next line's indent are dropped.
                    *line += 1;
                    i += 2;
                    while i < c.len() && c[i].is_whitespace() {
                        *line += usize::from(c[i] == '\n');
                        i += 1;
                    }
                }
                Some('u') => {
                    let close = c[i..].iter().position(|&x| x == '}').map_or(c.len(), |p| i + p);
                    let hex: String = c[i + 3..close].iter().collect();
                    value.push(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}'));
                    i = close + 1;
                }
                Some('x') => {
                    let hex: String = c[i + 2..(i + 4).min(c.len())].iter().collect();
                    value.push(u8::from_str_radix(&hex, 16).map_or('\u{fffd}', char::from));
                    i += 4;
                }
                Some(e) => {
                    value.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        other => *other,
                    });
                    i += 2;
                }
                None => i += 1,
            }
        } else {
            *line += usize::from(c[i] == '\n');
            value.push(c[i]);
            i += 1;
        }
    }
    (value, i + 1)
}

/// The placeholders of a `std::fmt` format string that format in Debug form (`{:?}`, `{x:?}`,
/// `{:#?}`, `{0:>8?}`, `{:x?}`): those whose spec ends with `?`. `{{` and `}}` are literal braces.
fn debug_placeholders(format: &str) -> Vec<String> {
    let c: Vec<char> = format.chars().collect();
    let (mut i, mut found) = (0, Vec::new());
    while i < c.len() {
        match (c[i], c.get(i + 1)) {
            ('{', Some('{')) | ('}', Some('}')) => i += 2,
            ('{', _) => {
                let close = c[i..].iter().position(|&x| x == '}').map_or(c.len(), |p| i + p);
                let inner: String = c[i + 1..close].iter().collect();
                if inner.split_once(':').is_some_and(|(_, spec)| spec.ends_with('?')) {
                    found.push(format!("{{{inner}}}"));
                }
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    found
}

/// Where the tokens from `i` hold a bracketed group, the index after its matching close.
fn group_end(toks: &[(usize, Tok)], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, (_, t)) in toks.iter().enumerate().skip(i) {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// The format string of a macro call whose arguments are `args` (inside the brackets): the first
/// top-level argument from `min` on that is a lone string literal, with its line.
fn format_string(args: &[(usize, Tok)], min: usize) -> Option<(usize, String)> {
    let mut parts: Vec<Vec<&(usize, Tok)>> = vec![vec![]];
    let mut depth = 0usize;
    for t in args {
        match t.1 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
            Tok::Punct(',') if depth == 0 => {
                parts.push(vec![]);
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(t);
    }
    parts.iter().skip(min).find_map(|p| match p.as_slice() {
        [(line, Tok::Str(s))] => Some((*line, s.clone())),
        _ => None,
    })
}

/// Every Debug placeholder in a format string of `source` outside `#[cfg(test)]` items, as
/// (line, `macro!("format string")`, placeholders).
fn debug_formatted_messages(source: &str) -> Vec<(usize, String, Vec<String>)> {
    let toks = lex(source);
    let ident = |i: usize, w: &str| matches!(toks.get(i), Some((_, Tok::Ident(x))) if x == w);
    let punct = |i: usize, p: char| matches!(toks.get(i), Some((_, Tok::Punct(x))) if *x == p);
    let mut found = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // `#[cfg(test)]` and the item it guards (up to its `;` or its braced body) are skipped.
        if punct(i, '#')
            && punct(i + 1, '[')
            && ident(i + 2, "cfg")
            && punct(i + 3, '(')
            && ident(i + 4, "test")
            && punct(i + 5, ')')
            && punct(i + 6, ']')
        {
            let mut j = i + 7;
            while j < toks.len() && !punct(j, '{') && !punct(j, ';') {
                j += 1;
            }
            i = if punct(j, '{') { group_end(&toks, j) } else { j + 1 };
            continue;
        }
        // thiserror's `#[error("..")]`.
        let call = if punct(i, '#') && punct(i + 1, '[') && ident(i + 2, "error") && punct(i + 3, '(') {
            Some(("#[error]".to_string(), i + 3, 0))
        } else if let (Some((_, Tok::Ident(name))), true) = (toks.get(i), punct(i + 1, '!')) {
            MACROS
                .iter()
                .find(|(m, _)| m == name)
                .filter(|_| matches!(toks.get(i + 2), Some((_, Tok::Punct('(' | '[' | '{')))))
                .map(|(m, min)| (format!("{m}!"), i + 2, *min))
        } else {
            None
        };
        if let Some((name, open, min)) = call {
            let end = group_end(&toks, open);
            if let Some((line, format)) = format_string(&toks[open + 1..end.saturating_sub(1)], min) {
                let debug = debug_placeholders(&format);
                if !debug.is_empty() {
                    let shown: String = format.split_whitespace().collect::<Vec<_>>().join(" ");
                    found.push((line, format!("{name}({shown:?})"), debug));
                }
            }
            // Nested calls (a `format!` inside an `ensure!`) are read on the following turns.
            i = open + 1;
            continue;
        }
        i += 1;
    }
    found
}

/// The `.rs` files under `dir`, sorted, subfolders included.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

#[test]
fn no_message_of_the_harness_formats_in_debug_form() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in HELD {
        for path in rust_files(&root.join(dir)) {
            let source = std::fs::read_to_string(&path).unwrap();
            for (line, call, debug) in debug_formatted_messages(&source) {
                let file = path.strip_prefix(root).unwrap().display();
                found.push(format!("{file}:{line}: {} in {call}", debug.join(" ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} messages in Rust's Debug form (say it in words with report::text):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_debug_placeholders_in_every_message_macro_and_nothing_else() {
    let source = r####"
fn a() -> R {
    // ensure!(x, "{y:?}") in a comment
    /* bail!("{:?}") in a /* nested */ block comment */
    let s = "{x:?} is no format string";
    let q = '"';
    let l: &'static str = "x";
    ensure!(x == "a", "{{literal}} {{:?}} \u{201c}{y}\u{201d} {z:?}");
    Ok(format!("kept {:?} ({})", id, f(g(")"))))
}
fn b() -> R {
    let v = x.with_context(|| format!(r#"raw {a:#?} "quoted""#))?;
    bail!("line \
           continued {0:>8?}");
    anyhow!(e)
}
#[error("no such {name:?}")]
struct E;
#[cfg(test)]
mod tests {
    fn t() { assert!(x, "{y:?}"); }
}
fn c() { assert_eq!(a, "{b:?}", "{c:?}"); }
"####;
    let found = debug_formatted_messages(source);
    let got: Vec<(usize, Vec<String>)> = found.iter().map(|(l, _, d)| (*l, d.clone())).collect();
    assert_eq!(
        got,
        vec![
            (8, vec!["{z:?}".to_string()]),
            (9, vec!["{:?}".to_string()]),
            (12, vec!["{a:#?}".to_string()]),
            (13, vec!["{0:>8?}".to_string()]),
            (17, vec!["{name:?}".to_string()]),
            (23, vec!["{c:?}".to_string()]),
        ]
    );
    assert!(found[1].1.starts_with("format!(\"kept {:?} ({})\")"), "{}", found[1].1);
}

#[test]
fn a_format_string_is_parsed_as_std_fmt_parses_it() {
    assert_eq!(debug_placeholders("{{:?}} {{{x:?}}} {:?}{y}"), vec!["{x:?}", "{:?}"]);
    assert_eq!(debug_placeholders("{:?<5} {:>5} {v:x?} {:#?}"), vec!["{v:x?}", "{:#?}"]);
    assert!(debug_placeholders("{a} {b:.1} {c:>8} what? {d}?").is_empty());
}
