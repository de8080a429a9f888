//! HTML rewriting done by the reference server: runtime injection as the first script, origin
//! placeholders, and the Web Fragments `html`/`head`/`body` -> `wf-*` rename.

/// The tag every served document gets first, playing the Host's proxy injection.
pub const RUNTIME_TAG: &str = "<script src=\"/runtime/attention.js\"></script>";

/// Whether a document gets the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inject {
    Runtime,
    No,
}

impl Inject {
    pub fn unless(opt_out: bool) -> Inject {
        if opt_out {
            Inject::No
        } else {
            Inject::Runtime
        }
    }
}

pub fn fill_origins(text: &str, host_origin: &str, child_origin: &str) -> String {
    text.replace("__HOST_ORIGIN__", host_origin).replace("__CHILD_ORIGIN__", child_origin)
}

/// Inserts [`RUNTIME_TAG`] right after `<head ...>` (or `<html ...>`, or the doctype), so it runs
/// before any page script. A document with `<meta name="wippy-attention" content="off">` opts out.
pub fn inject_runtime(text: &str, inject: Inject) -> String {
    if inject == Inject::No || text.contains("name=\"wippy-attention\" content=\"off\"") {
        return text.to_string();
    }
    let at = end_of_open_tag(text, "head")
        .or_else(|| end_of_open_tag(text, "html"))
        .or_else(|| end_of_open_tag(text, "!doctype"))
        .unwrap_or(0);
    let mut out = String::with_capacity(text.len() + RUNTIME_TAG.len());
    out.push_str(&text[..at]);
    out.push_str(RUNTIME_TAG);
    out.push_str(&text[at..]);
    out
}

/// Byte offset just past the `>` of the first `<name ...>` tag (ASCII case-insensitive).
fn end_of_open_tag(text: &str, name: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let needle = format!("<{name}");
    let mut from = 0;
    while let Some(pos) = lower[from..].find(&needle) {
        let start = from + pos;
        let after = start + needle.len();
        match lower.as_bytes().get(after) {
            Some(b'>') | Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') => {
                return lower[after..].find('>').map(|e| after + e + 1);
            }
            _ => from = after,
        }
    }
    None
}

/// What the gateway does to a fragment document: drop the doctype and rename `html`, `head` and
/// `body` tags to `wf-html`, `wf-head`, `wf-body` (web-fragments' `prefixHtmlHeadBody`).
pub fn prefix_html_head_body(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'<' {
            if lower[i..].starts_with("<!doctype") {
                if let Some(e) = lower[i..].find('>') {
                    i += e + 1;
                    continue;
                }
            }
            let (slash, name_at) = if lower[i..].starts_with("</") { ("/", i + 2) } else { ("", i + 1) };
            let renamed = ["html", "head", "body"].into_iter().find(|n| {
                lower[name_at..].starts_with(n)
                    && matches!(lower.as_bytes().get(name_at + n.len()), Some(b'>' | b' ' | b'\t' | b'\n' | b'\r'))
            });
            if let Some(n) = renamed {
                out.push('<');
                out.push_str(slash);
                out.push_str("wf-");
                out.push_str(n);
                i = name_at + n.len();
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(ch);
        i += ch.len_utf8().max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_goes_first_in_head() {
        let out =
            inject_runtime("<!doctype html><html lang=en><head><script>x()</script></head></html>", Inject::Runtime);
        assert_eq!(out, format!("<!doctype html><html lang=en><head>{RUNTIME_TAG}<script>x()</script></head></html>"));
    }

    #[test]
    fn runtime_goes_after_html_when_no_head() {
        let out = inject_runtime("<!DOCTYPE html><HTML><body><script>x()</script>", Inject::Runtime);
        assert_eq!(out, format!("<!DOCTYPE html><HTML>{RUNTIME_TAG}<body><script>x()</script>"));
    }

    #[test]
    fn opt_out_by_meta_or_query_keeps_document_unchanged() {
        let doc = "<html><head><meta name=\"wippy-attention\" content=\"off\"></head></html>";
        assert_eq!(inject_runtime(doc, Inject::Runtime), doc);
        assert_eq!(inject_runtime("<html><head></head></html>", Inject::No), "<html><head></head></html>");
    }

    #[test]
    fn header_is_not_mistaken_for_head() {
        let out = inject_runtime("<html><header></header><head></head>", Inject::Runtime);
        assert_eq!(out, format!("<html><header></header><head>{RUNTIME_TAG}</head>"));
    }

    #[test]
    fn fragment_rename_matches_web_fragments_gateway() {
        let out = prefix_html_head_body("<!doctype html>\n<html lang=en><head><title>t</title></head><body class=x><header>é</header></body></html>");
        assert_eq!(out, "\n<wf-html lang=en><wf-head><title>t</title></wf-head><wf-body class=x><header>é</header></wf-body></wf-html>");
    }
}
