//! Which elements a capture must never show (spec "Privacy and security"): password, hidden, file,
//! one-time-code, payment-card and credential-like controls, `data-wippy-attention="exclude"` and
//! `"redact"` subtrees, and the chat composer with its upload list (`[data-wippy-composer]`). The
//! same rules as the runtime's `privacy-rules.js`, applied by the embedder to Chromium's own DOM
//! (CDP `DOM.getDocument` with `pierce`: closed shadow roots and in-process frames included), so a
//! page cannot talk the provider out of a redaction.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static SENSITIVE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(pass(word|wd|code|phrase)?|pwd|one[-_ ]?time|otp|totp|mfa|2fa|card[-_ ]?(number|num|no)|cc[-_ ]?(num|number|csc|cvc|cvv|exp)|cvv|cvc|csc|security[-_ ]?code|secret|api[-_ ]?key|token|credential|ssn|(^|[^a-z])pin([^a-z]|$))")
        .expect("valid regex")
});
static SENSITIVE_AUTOCOMPLETE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(one-time-code|current-password|new-password|cc-[a-z-]+|webauthn)").expect("valid regex")
});

/// Why an element is covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    Sensitive,
    Excluded,
    Redacted,
    Composer,
}

fn attr<'a>(node: &'a Value, name: &str) -> Option<&'a str> {
    node["attributes"].as_array()?.chunks(2).find(|p| p.len() == 2 && p[0] == name).and_then(|p| p[1].as_str())
}

/// The privacy class of one CDP DOM node, if any.
pub fn classify(node: &Value) -> Option<Reason> {
    if node["nodeType"].as_i64() != Some(1) {
        return None;
    }
    if attr(node, "data-wippy-composer").is_some() {
        return Some(Reason::Composer);
    }
    match attr(node, "data-wippy-attention").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("exclude") => return Some(Reason::Excluded),
        Some("redact") => return Some(Reason::Redacted),
        _ => {}
    }
    let ln = node["localName"].as_str().unwrap_or_default();
    if !matches!(ln, "input" | "textarea" | "select") {
        return None;
    }
    let ty = attr(node, "type").unwrap_or_default().to_ascii_lowercase();
    if ln == "input" && matches!(ty.as_str(), "password" | "hidden" | "file") {
        return Some(Reason::Sensitive);
    }
    let ac = attr(node, "autocomplete").unwrap_or_default().to_ascii_lowercase();
    if SENSITIVE_AUTOCOMPLETE.is_match(&ac) {
        return Some(Reason::Sensitive);
    }
    let numeric_label =
        if attr(node, "inputmode") == Some("numeric") { attr(node, "aria-label").unwrap_or_default() } else { "" };
    let names =
        [attr(node, "name").unwrap_or_default(), attr(node, "id").unwrap_or_default(), &ac, numeric_label].join(" ");
    SENSITIVE_NAME.is_match(&names).then_some(Reason::Sensitive)
}

/// Every covered element under `node`: (reason, backend node id, in-process `<iframe>`s between).
/// The Host's own approval overlay (`[data-wippy-attention-overlay]`, hidden while the provider
/// captures) is skipped with its subtree: it is not page content.
pub fn collect(node: &Value, frames: &mut Vec<i64>, out: &mut Vec<(Reason, i64, Vec<i64>)>) {
    if attr(node, "data-wippy-attention-overlay").is_some() {
        return;
    }
    if let Some(reason) = classify(node) {
        out.push((reason, node["backendNodeId"].as_i64().unwrap_or_default(), frames.clone()));
    }
    for key in ["shadowRoots", "children"] {
        for k in node[key].as_array().into_iter().flatten() {
            collect(k, frames, out);
        }
    }
    if let Some(doc) = node.get("contentDocument") {
        frames.push(node["backendNodeId"].as_i64().unwrap_or_default());
        collect(doc, frames, out);
        frames.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn el(name: &str, attrs: &[(&str, &str)]) -> Value {
        let a: Vec<&str> = attrs.iter().flat_map(|(k, v)| [*k, *v]).collect();
        json!({"nodeType": 1, "localName": name, "attributes": a, "backendNodeId": 7})
    }

    #[test]
    fn sensitive_controls_are_classified_like_the_runtime_does() {
        assert_eq!(classify(&el("input", &[("type", "password")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("type", "file")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("autocomplete", "one-time-code")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("autocomplete", "cc-number")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("name", "api_key")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("name", "pin")])), Some(Reason::Sensitive));
        assert_eq!(classify(&el("input", &[("name", "spinner")])), None);
        assert_eq!(classify(&el("input", &[("type", "text"), ("name", "city")])), None);
        assert_eq!(classify(&el("div", &[("name", "password")])), None);
    }

    #[test]
    fn markers_and_the_composer_are_classified() {
        assert_eq!(classify(&el("div", &[("data-wippy-attention", " Exclude ")])), Some(Reason::Excluded));
        assert_eq!(classify(&el("span", &[("data-wippy-attention", "redact")])), Some(Reason::Redacted));
        assert_eq!(classify(&el("form", &[("data-wippy-composer", "")])), Some(Reason::Composer));
        assert_eq!(classify(&el("div", &[("data-wippy-attention", "other")])), None);
    }

    #[test]
    fn collect_walks_shadow_roots_and_frames_and_skips_the_overlay() {
        let tree = json!({"nodeType": 9, "children": [
            {"nodeType": 1, "localName": "div", "attributes": ["data-wippy-attention-overlay", "", "data-wippy-attention", "exclude"], "backendNodeId": 1},
            {"nodeType": 1, "localName": "x-el", "attributes": [], "backendNodeId": 2, "shadowRoots": [
                {"nodeType": 11, "children": [{"nodeType": 1, "localName": "input", "attributes": ["type", "password"], "backendNodeId": 3}]}]},
            {"nodeType": 1, "localName": "iframe", "attributes": [], "backendNodeId": 4, "contentDocument":
                {"nodeType": 9, "children": [{"nodeType": 1, "localName": "p", "attributes": ["data-wippy-attention", "redact"], "backendNodeId": 5}]}}
        ]});
        let mut out = Vec::new();
        collect(&tree, &mut Vec::new(), &mut out);
        assert_eq!(out, vec![(Reason::Sensitive, 3, vec![]), (Reason::Redacted, 5, vec![4])]);
    }
}
