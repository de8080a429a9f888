//! The commands a Markdown document shows, read as DOCS-CONVENTION says: every logical line of a
//! ```` ```sh ```` block (a trailing ` \` continues it), split into words like a shell (quotes, no
//! expansion), with its trailing marker comment: `# exit N` or `# covered by: PATH`.

/// One command shown in a document.
#[derive(Debug, Clone, PartialEq)]
pub struct DocCommand {
    /// The document as the failure message names it (repo-relative).
    pub doc: String,
    /// 1-based line of the command's first line in the document.
    pub line: usize,
    /// The command as written (continuations joined, without its comment).
    pub text: String,
    pub words: Vec<String>,
    pub marker: Marker,
}

/// What the test does with a command.
#[derive(Debug, Clone, PartialEq)]
pub enum Marker {
    /// Run it and expect this exit code (0 unless `# exit N`).
    Run { exit: i32 },
    /// Not run: `# covered by: PATH` names the repo file that runs it.
    CoveredBy(String),
}

impl DocCommand {
    /// `doc:line: command` as every failure message starts.
    pub fn at(&self) -> String {
        format!("{}:{}: `{}`", self.doc, self.line, self.text)
    }
}

/// A line the convention does not allow, or a block left open.
pub type Problem = String;

/// Every command of the ```` ```sh ```` blocks of `text`, and every problem found on the way.
pub fn extract(doc: &str, text: &str) -> (Vec<DocCommand>, Vec<Problem>) {
    let mut commands = Vec::new();
    let mut problems = Vec::new();
    let mut fence: Option<(String, bool, usize)> = None; // (fence marker, is sh, opening line)
    let mut pending: Option<(usize, String)> = None; // a command continued with ` \`
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = raw.trim_start();
        if let Some((marker, is_sh, _)) = &fence {
            if trimmed.starts_with(marker.as_str()) && trimmed.trim_end().chars().all(|c| c == '`' || c == '~') {
                if let Some((start, _)) = pending.take() {
                    problems.push(format!("{doc}:{start}: a command ends in ` \\` but its block closes"));
                }
                fence = None;
                continue;
            }
            if !*is_sh {
                continue;
            }
            let (start, mut joined) = pending.take().unwrap_or((n, String::new()));
            let line = raw.trim();
            if let Some(body) = line.strip_suffix('\\') {
                joined.push_str(body.trim_end());
                joined.push(' ');
                pending = Some((start, joined));
                continue;
            }
            joined.push_str(line);
            let joined = joined.trim().to_string();
            if joined.is_empty() || joined.starts_with('#') {
                continue;
            }
            match parse_command(&joined) {
                Ok((text, words, marker)) => {
                    commands.push(DocCommand { doc: doc.to_string(), line: start, text, words, marker })
                }
                Err(why) => problems.push(format!("{doc}:{start}: `{joined}`: {why}")),
            }
        } else if let Some(rest) = trimmed.strip_prefix("```").or_else(|| trimmed.strip_prefix("~~~")) {
            let marker: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
            let info = rest.trim_start_matches(['`', '~']).trim();
            let lang = info.split([' ', ',', '{']).next().unwrap_or("");
            fence = Some((marker, lang == "sh", n));
        }
    }
    if let Some((_, _, open)) = fence {
        problems.push(format!("{doc}:{open}: a code block that never closes"));
    }
    (commands, problems)
}

/// Split one logical line into its words and its marker comment.
pub fn parse_command(line: &str) -> Result<(String, Vec<String>, Marker), String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.char_indices().peekable();
    let mut comment = None;
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => word.push(ch),
                        None => return Err("a single quote that never closes".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, ch @ ('"' | '\\'))) => word.push(ch),
                            Some((_, ch)) => {
                                word.push('\\');
                                word.push(ch)
                            }
                            None => return Err("a double quote that never closes".into()),
                        },
                        Some((_, '$' | '`')) => return Err("an expansion (`$`, backquote) needs a shell".into()),
                        Some((_, ch)) => word.push(ch),
                        None => return Err("a double quote that never closes".into()),
                    }
                }
            }
            '#' if !in_word => {
                comment = Some((at, line[at + 1..].trim().to_string()));
                break;
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '|' | '>' | '<' | '&' | ';' | '$' | '`' | '*' | '(' | ')' => {
                return Err(format!("`{c}` needs a shell; the docs test runs commands without one"))
            }
            '\\' => match chars.next() {
                Some((_, ch)) => {
                    in_word = true;
                    word.push(ch)
                }
                None => return Err("a lone backslash".into()),
            },
            c => {
                in_word = true;
                word.push(c)
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("no command before the comment".into());
    }
    if words[0] == "$" || words[0] == "cd" || words[0].contains('=') {
        return Err(format!("`{}` at the start: write the command itself (no prompt, cd or VAR=)", words[0]));
    }
    let text = line[..comment.as_ref().map_or(line.len(), |(at, _)| *at)].trim().to_string();
    let marker = match comment.as_ref().map(|(_, c)| c.as_str()) {
        Some(c) if c.starts_with("exit") => {
            let code = c["exit".len()..].split_whitespace().next().and_then(|w| w.parse::<i32>().ok());
            match code {
                Some(exit) => Marker::Run { exit },
                None => return Err(format!("`# {c}`: write the expected exit code as `# exit N`")),
            }
        }
        Some(c) if c.starts_with("covered by") => {
            let path = c.strip_prefix("covered by:").and_then(|p| p.split_whitespace().next());
            match path {
                Some(p) => Marker::CoveredBy(p.to_string()),
                None => return Err(format!("`# {c}`: write `# covered by: PATH`")),
            }
        }
        _ => Marker::Run { exit: 0 },
    };
    Ok((text, words, marker))
}
