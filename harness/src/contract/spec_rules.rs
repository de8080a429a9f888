//! Rules the prose contract states for durable v1 payloads that the Session's validator does not
//! enforce. [`crate::contract::validate`] stays byte-exact with the Session (it predicts what the
//! Session admits); where the spec's text is stricter, the spec wins and the harness reports the
//! difference here, as findings a test can assert on, instead of silently accepting it.
//!
//! - Omission `detail` for transport failures uses only the grammar
//!   `transport:<code>:stage:<query-call|query-await|project-result>` (spec "Partial results and
//!   errors"). The relay's allowlisted code strings are not public, so `<code>` is checked for
//!   shape only (lowercase words joined by hyphens). Durable context must not contain URLs or
//!   stack traces: any detail holding `://` or a line break is reported.
//! - `frame_origin` is `about:srcdoc` or a *canonical* bare HTTP(S) origin; the spec rejects
//!   `null`, `*`, paths, queries, fragments and credentials. The Session's pattern
//!   `^https?://[^/?#@]+$` also lets through `*`, whitespace, upper case and default ports.
//! - Collected text is whitespace-normalized and at most 160 Unicode scalar values (spec "What
//!   the Host observes"); the Session allows 1024 bytes of any text in `summary.text`.
//! - The event window is 60 seconds: a recent event observed more than 60 s before the
//!   snapshot's `created_at` is reported.

use super::lua::*;
use serde_json::Value;

/// One place where a payload the Session admits breaks the spec's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecFinding {
    /// JSON pointer into the payload.
    pub pointer: String,
    /// Short rule name: `omission-detail`, `frame-origin`, `summary-text`, `event-window`.
    pub rule: &'static str,
    pub message: String,
}

const STAGES: [&str; 3] = ["query-call", "query-await", "project-result"];

/// `transport:<code>:stage:<stage>` with a kebab-case code.
pub fn is_transport_detail(detail: &str) -> bool {
    let Some(rest) = detail.strip_prefix("transport:") else { return false };
    let Some((code, stage)) = rest.split_once(":stage:") else { return false };
    let b = code.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && !code.ends_with('-')
        && !code.contains("--")
        && STAGES.contains(&stage)
}

/// A canonical bare origin: lowercase scheme and host, no credentials, path, query, fragment,
/// wildcard or whitespace, and no default port.
pub fn is_canonical_origin(origin: &str) -> bool {
    if origin == "about:srcdoc" {
        return true;
    }
    let (scheme, authority) = match origin.split_once("://") {
        Some(("http", a)) => ("http", a),
        Some(("https", a)) => ("https", a),
        _ => return false,
    };
    if authority.is_empty()
        || authority.bytes().any(|b| {
            matches!(b, b'/' | b'?' | b'#' | b'@' | b'*' | b'\\') || b.is_ascii_whitespace() || b.is_ascii_uppercase()
        })
    {
        return false;
    }
    let default_port = if scheme == "http" { ":80" } else { ":443" };
    !authority.ends_with(default_port) && !authority.ends_with(':')
}

fn whitespace_normalized(s: &str) -> bool {
    s.trim() == s && !s.contains("  ") && !s.chars().any(|c| c.is_whitespace() && c != ' ')
}

/// Findings for a v1 payload (expected to have passed the Session's schema already).
pub fn spec_findings(payload: &Value) -> Vec<SpecFinding> {
    let mut out = Vec::new();
    let p = Some(payload);
    for (i, o) in items(get(p, "omissions")).iter().enumerate() {
        if let Some(d) = as_str(get(Some(o), "detail")) {
            let bad_transport = d.starts_with("transport") && !is_transport_detail(d);
            if bad_transport || d.contains("://") || d.contains('\n') || d.contains('\r') {
                out.push(SpecFinding {
                    pointer: format!("/omissions/{i}/detail"),
                    rule: "omission-detail",
                    message: format!(
                        "detail {} is not the safe transport grammar or holds a URL or stack",
                        Value::from(d)
                    ),
                });
            }
        }
    }
    let mut paths: Vec<(String, &Value)> = Vec::new();
    for (i, c) in items(get(p, "candidates")).iter().enumerate() {
        if let Some(path) = get(Some(c), "path") {
            paths.push((format!("/candidates/{i}/path"), path));
        }
        if let Some(t) = as_str(get(get(Some(c), "summary"), "text")) {
            if t.chars().count() > 160 || !whitespace_normalized(t) {
                out.push(SpecFinding {
                    pointer: format!("/candidates/{i}/summary/text"),
                    rule: "summary-text",
                    message: "collected text must be whitespace-normalized and at most 160 scalar values".into(),
                });
            }
        }
    }
    if let Some(path) = get(get(p, "focus"), "path") {
        paths.push(("/focus/path".into(), path));
    }
    for (base, path) in paths {
        for (j, s) in items(Some(path)).iter().enumerate() {
            if let Some(origin) = as_str(get(Some(s), "frame_origin")) {
                if !is_canonical_origin(origin) {
                    out.push(SpecFinding {
                        pointer: format!("{base}/{j}/frame_origin"),
                        rule: "frame-origin",
                        message: format!("{} is not about:srcdoc or a canonical bare origin", Value::from(origin)),
                    });
                }
            }
        }
    }
    if let Some(created) = as_str(get(p, "created_at")).and_then(Timestamp::parse_rfc3339) {
        for (i, e) in items(get(p, "recent_events")).iter().enumerate() {
            if let Some(t) = as_str(get(Some(e), "observed_at")).and_then(Timestamp::parse_rfc3339) {
                if t.secs < created.secs - 60 || (t.secs == created.secs - 60 && t.nanos < created.nanos) {
                    out.push(SpecFinding {
                        pointer: format!("/recent_events/{i}/observed_at"),
                        rule: "event-window",
                        message: "event is older than the 60-second window".into(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn transport_grammar() {
        assert!(is_transport_detail("transport:child-timeout:stage:query-await"));
        assert!(is_transport_detail("transport:internal-error:stage:project-result"));
        assert!(!is_transport_detail("transport:TypeError: x is undefined:stage:query-call"));
        assert!(!is_transport_detail("transport:timeout:stage:render"));
    }

    #[test]
    fn origins() {
        for ok in ["about:srcdoc", "http://127.0.0.1:8080", "https://a.example", "http://localhost:3000"] {
            assert!(is_canonical_origin(ok), "{ok}");
        }
        for bad in [
            "null",
            "*",
            "http://*",
            "https://A.example",
            "https://a.example:443",
            "http://a b",
            "http://u@a",
            "https://a/",
        ] {
            assert!(!is_canonical_origin(bad), "{bad}");
        }
    }

    #[test]
    fn findings_on_a_session_valid_payload() {
        let p = json!({
            "created_at": "2026-09-04T12:00:00Z",
            "omissions": [{"reason": "child-timeout", "detail": "Error: boom\n at x (http://a/b.js:1)"},
                          {"reason": "child-timeout", "detail": "transport:child-timeout:stage:query-await"}],
            "candidates": [{"path": [{"frame_origin": "http://*"}], "summary": {"text": "two  spaces"}}],
            "recent_events": [{"observed_at": "2026-09-04T11:58:59Z"}, {"observed_at": "2026-09-04T11:59:00Z"}]
        });
        let rules: Vec<(&str, String)> = spec_findings(&p).into_iter().map(|f| (f.rule, f.pointer)).collect();
        assert_eq!(
            rules,
            vec![
                ("omission-detail", "/omissions/0/detail".to_string()),
                ("summary-text", "/candidates/0/summary/text".to_string()),
                ("frame-origin", "/candidates/0/path/0/frame_origin".to_string()),
                ("event-window", "/recent_events/0/observed_at".to_string()),
            ]
        );
    }
}
