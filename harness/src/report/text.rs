//! Text for people: how a message names a role, a name, a rect or a list, so that no user-facing
//! line shows Rust's Debug form (`Some(..)`, `BoxRect { .. }`). Names are quoted with typographic
//! quotes, a missing one says so in words, rects read `x,y wxh` in CSS px.

use crate::attention::inspect::InspectionResult;
use crate::oracle::BoxRect;

/// `“text”`.
pub fn quote(text: &str) -> String {
    format!("\u{201c}{text}\u{201d}")
}

/// A role and an accessible name as a message shows them: `button “Send”`, `(no role) “Send”`,
/// `button (no name)`.
pub fn role_name(role: Option<&str>, name: Option<&str>) -> String {
    let role = role.unwrap_or("(no role)");
    match name {
        Some(n) => format!("{role} {}", quote(n)),
        None => format!("{role} (no name)"),
    }
}

/// What an expectation asks for: `button “Send”`, `any role named “Send”`, `button with any name`.
pub fn wanted(role: Option<&str>, name: Option<&str>) -> String {
    match (role, name) {
        (Some(r), Some(n)) => format!("{r} {}", quote(n)),
        (None, Some(n)) => format!("any role named {}", quote(n)),
        (Some(r), None) => format!("{r} with any name"),
        (None, None) => "anything".into(),
    }
}

/// A rect as `x,y wxh` (CSS px, one decimal at most).
pub fn rect(r: &BoxRect) -> String {
    r.to_string()
}

/// A number with at most one decimal and no trailing `.0`.
pub fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A point in CSS px: `(10, 20.5)`.
pub fn point(x: f64, y: f64) -> String {
    format!("({}, {})", num(x), num(y))
}

/// Items joined with `, `, or `none`.
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
    }
}

/// Items shown by their `Display` and joined with `, `, or `none`.
pub fn list_of<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    list(&items.into_iter().map(|i| i.to_string()).collect::<Vec<_>>())
}

/// Items each quoted and joined with `, `, or `none`: `“a”, “b”`.
pub fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    list(&items.iter().map(|s| quote(s.as_ref())).collect::<Vec<_>>())
}

/// An optional value as the value itself, or `none`.
pub fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".into(), |v| v.to_string())
}

/// An optional text quoted, or `none`.
pub fn quote_opt<S: AsRef<str>>(text: Option<S>) -> String {
    text.map_or_else(|| "none".into(), |t| quote(t.as_ref()))
}

/// A value as compact JSON (for a record a message shows whole, such as an event or a row).
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("(not JSON: {e})"))
}

/// A duration in words: `250 ms`, `5 s`, `1.5 s`.
pub fn duration(d: std::time::Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{} ms", num(ms))
    } else {
        format!("{} s", num(ms / 1000.0))
    }
}

/// How an inspection read ended, as a message says it: `ok`, `partial, omitted byte-limit`,
/// `unavailable, omitted invalid-request, depth-limit`.
pub fn answer<D>(r: &InspectionResult<D>) -> String {
    let reasons = r.reasons();
    if reasons.is_empty() {
        r.outcome.to_string()
    } else {
        format!("{}, omitted {}", r.outcome, list(&reasons))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_names_and_rects_read_as_words_not_debug_form() {
        assert_eq!(role_name(Some("button"), Some("Send")), "button \u{201c}Send\u{201d}");
        assert_eq!(role_name(None, None), "(no role) (no name)");
        assert_eq!(wanted(None, Some("Send")), "any role named \u{201c}Send\u{201d}");
        assert_eq!(rect(&BoxRect { x: 10.0, y: 20.25, width: 300.0, height: 40.5 }), "10,20.2 300x40.5");
        assert_eq!(list::<&str>(&[]), "none");
        assert_eq!(list(&["a", "b"]), "a, b");
        assert_eq!(quoted_list(&["a", "b"]), "\u{201c}a\u{201d}, \u{201c}b\u{201d}");
        assert_eq!(opt(None::<u32>), "none");
        assert_eq!(opt(Some(3)), "3");
        assert_eq!(quote_opt(Some("x")), "\u{201c}x\u{201d}");
        assert_eq!(quote_opt(None::<&str>), "none");
        assert_eq!(json(&serde_json::json!({"a": [1, "b"]})), r#"{"a":[1,"b"]}"#);
        assert_eq!(duration(std::time::Duration::from_millis(250)), "250 ms");
        assert_eq!(duration(std::time::Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn a_read_says_its_outcome_and_omissions_in_words() {
        use crate::attention::inspect::{InspectOmission, Outcome, Revisions};
        let omission = |reason: &str| InspectOmission { reason: reason.into(), node: None, detail: None };
        let mut r = InspectionResult {
            outcome: Outcome::Ok,
            data: (),
            omissions: vec![],
            revisions: Revisions { tree: 1, observation: 1, geometry: 1 },
            continuation: None,
        };
        assert_eq!(answer(&r), "ok");
        r.outcome = Outcome::Unavailable;
        r.omissions = vec![omission("invalid-request"), omission("depth-limit")];
        assert_eq!(answer(&r), "unavailable, omitted invalid-request, depth-limit");
    }
}
