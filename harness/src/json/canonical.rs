//! Canonical JSON exactly as the Session computes it (`canonical_json` in the Session's
//! `context_attachments.lua`, copied verbatim by the Framework codec), plus the SHA-256 helpers
//! and `path_digest` built on it. These bytes are what `content`, `content_hash`,
//! `content_bytes`, the v2-v4 envelope limit and `action_ref.path_digest` are computed over, so
//! one wrong byte here makes every hash in the harness disagree with the Session.
//!
//! Rules, each with the reason it exists (reference: `schemas.md` section 2):
//! - **Keys sorted by their UTF-8 bytes.** The Session sorts Lua strings with `table.sort`, a
//!   bytewise comparison; Rust `str` ordering is bytewise too. We sort explicitly so the result
//!   does not depend on serde_json's `preserve_order` feature.
//! - **No whitespace; `,` and `:` separators; array order kept.** The Session joins parts with
//!   `table.concat(parts, ",")` and `key .. ":" .. value`.
//! - **Integers stay integers.** The runtime decodes integer literals as int64 (`LInteger`) and
//!   re-encodes them in decimal. A literal beyond the int64 range cannot be an `LInteger` and is
//!   treated as a float (below).
//! - **Floats use Go's `encoding/json` formatter** (ES6-like): shortest round-trip digits, plain
//!   decimal for 1e-6 <= |x| < 1e21, otherwise exponent form `1e+21` / `1.5e-7` (Go prints at
//!   least two exponent digits, then strips the leading zero of a negative exponent). So `3.0`
//!   becomes `3` and `1e2` becomes `100`; content holding `3.0` is therefore non-canonical.
//! - **`-0` becomes `0`.** The integer literal `-0` is int64 zero; we also print a float negative
//!   zero as `0` (the reference documents `-0 -> 0` and no stored test distinguishes `-0.0`).
//! - **Strings use Go `json.Marshal` escaping with HTML escaping on**: `"` and `\` escaped,
//!   `\n \r \t \b \f` as short escapes, every other byte below 0x20 as `\u00xx` (lowercase hex),
//!   `<` `>` `&` as `\u003c` `\u003e` `\u0026`, U+2028 / U+2029 as `\u2028` / `\u2029`. DEL and
//!   all other non-ASCII characters are written raw as UTF-8. (Invalid UTF-8 becomes U+FFFD in Go;
//!   a Rust `str` cannot hold invalid UTF-8, so that rule has no input here.)
//! - **`null` object members disappear.** The Lua runtime decodes JSON `null` to `nil`, and a
//!   table member set to `nil` does not exist. A `null` root is written `null`. A `null` array
//!   element is also written `null`: in Lua it would leave a hole in the table whose encoding
//!   depends on the runtime's border rule, which no stored source pins down.
//! - **An empty object and an empty array both encode as `[]`.** Both are the same empty Lua
//!   table and `json.encode` of an empty table starts with `[`. An object whose members are all
//!   `null` is empty after the rule above, so it also becomes `[]`.
//! - **Depth at most 32 (root = 0).** `validate_json_depth` fails when any value, scalar or
//!   container, sits deeper than 32 levels; the validator reports that as `invalid-json`.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Deepest nesting level (root = 0) the Session's `canonical_json` accepts.
pub const MAX_JSON_DEPTH: usize = 32;

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// A value sits deeper than [`MAX_JSON_DEPTH`] levels (root = 0).
    #[error("Context attachment JSON exceeds the maximum depth of 32")]
    TooDeep,
    /// A number that is not finite (cannot come from parsed JSON, only from built values).
    #[error("JSON number is not finite")]
    NonFinite,
}

/// Canonical JSON of `v`, as the Session's `canonical_json` writes it.
pub fn canonical_json(v: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    write_value(v, 0, Some(MAX_JSON_DEPTH), &mut out)?;
    Ok(out)
}

/// The same encoding without the depth limit: what the runtime's `json.encode` produces for a
/// Lua table (Go marshals maps with sorted keys, HTML escaping on). Used for the array and
/// attachment byte limits, which the Session measures with `json.encode`, not `canonical_json`.
pub fn lua_json_encode(v: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    write_value(v, 0, None, &mut out)?;
    Ok(out)
}

/// Byte length of [`lua_json_encode`]; `usize::MAX` when the value cannot be encoded.
pub fn lua_json_len(v: &Value) -> usize {
    lua_json_encode(v).map(|s| s.len()).unwrap_or(usize::MAX)
}

/// `"sha256:"` followed by the lowercase hex SHA-256 of `bytes`.
pub fn sha256_prefixed(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in digest.iter() {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Segment members that describe geometry rather than identity; the "semantic" path digest
/// leaves them out.
pub const PATH_GEOMETRY_KEYS: [&str; 4] = ["rect", "clip_rect", "local_to_parent", "coordinate_quality"];

/// The semantic path: each segment object without its geometry members.
pub fn semantic_path(path: &Value) -> Value {
    match path {
        Value::Array(segments) => Value::Array(
            segments
                .iter()
                .map(|segment| match segment {
                    Value::Object(m) => Value::Object(
                        m.iter()
                            .filter(|(k, _)| !PATH_GEOMETRY_KEYS.contains(&k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The `path_digest` a producer writes into an `action_ref`: the digest of the canonical
/// **semantic** path (the form both matchers try first).
pub fn path_digest(path: &Value) -> Result<String, CanonicalError> {
    Ok(sha256_prefixed(canonical_json(&semantic_path(path))?.as_bytes()))
}

/// The legacy digest: canonical JSON of the full path including geometry.
pub fn legacy_path_digest(path: &Value) -> Result<String, CanonicalError> {
    Ok(sha256_prefixed(canonical_json(path)?.as_bytes()))
}

/// `attention_path_digest_matches`: the semantic digest is tried first, then the legacy one;
/// either match is accepted.
pub fn path_digest_matches(path: &Value, digest: &str) -> bool {
    if let Ok(d) = path_digest(path) {
        if d == digest {
            return true;
        }
    }
    matches!(legacy_path_digest(path), Ok(d) if d == digest)
}

fn write_value(v: &Value, depth: usize, max: Option<usize>, out: &mut String) -> Result<(), CanonicalError> {
    if let Some(max) = max {
        if depth > max {
            return Err(CanonicalError::TooDeep);
        }
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out)?,
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, depth + 1, max, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.iter().filter(|(_, v)| !v.is_null()).map(|(k, _)| k).collect();
            if keys.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_value(&map[k.as_str()], depth + 1, max, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// A JSON number as the Lua runtime sees it: an int64 `LInteger` or a float64 `LNumber`.
pub(crate) fn lua_number(n: &serde_json::Number) -> LuaNumber {
    if let Some(i) = n.as_i64() {
        LuaNumber::Int(i)
    } else {
        LuaNumber::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum LuaNumber {
    Int(i64),
    Float(f64),
}

fn write_number(n: &serde_json::Number, out: &mut String) -> Result<(), CanonicalError> {
    match lua_number(n) {
        LuaNumber::Int(i) => {
            let _ = write!(out, "{i}");
        }
        LuaNumber::Float(f) => out.push_str(&format_go_float(f)?),
    }
    Ok(())
}

/// Go `encoding/json` float64 formatting (`floatEncoder.encode`, 64-bit): `'f'` with shortest
/// digits unless `|f| < 1e-6 || |f| >= 1e21`, then `'e'` with `e-07` shortened to `e-7`.
pub fn format_go_float(f: f64) -> Result<String, CanonicalError> {
    if !f.is_finite() {
        return Err(CanonicalError::NonFinite);
    }
    if f == 0.0 {
        return Ok("0".to_string());
    }
    let abs = f.abs();
    if (1e-6..1e21).contains(&abs) {
        // Rust's Display for f64 is the shortest round-trip representation without exponent.
        return Ok(format!("{f}"));
    }
    // Rust `{:e}` is shortest round-trip too: "1e21", "1.5e-7". Go writes "1e+21", "1.5e-7".
    let s = format!("{f:e}");
    let (mantissa, exp) = s.split_once('e').expect("exponent form");
    if exp.starts_with('-') {
        Ok(format!("{mantissa}e{exp}"))
    } else {
        Ok(format!("{mantissa}e+{exp}"))
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Remove `null` object members at every depth: what the Lua runtime's decoder does, since a
/// member holding `nil` does not exist. The validator works on this normalized form.
pub fn strip_null_members(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), strip_null_members(v))).collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_null_members).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(s: &str) -> String {
        canonical_json(&super::super::strict::parse(s).unwrap()).unwrap()
    }

    #[test]
    fn numbers_follow_go() {
        assert_eq!(c("3.0"), "3");
        assert_eq!(c("1e2"), "100");
        assert_eq!(c("1e21"), "1e+21");
        assert_eq!(c("1e20"), "100000000000000000000");
        assert_eq!(c("1e-7"), "1e-7");
        assert_eq!(c("1.5e-7"), "1.5e-7");
        assert_eq!(c("1e-10"), "1e-10");
        assert_eq!(c("0.000001"), "0.000001");
        assert_eq!(c("-0"), "0");
        assert_eq!(c("-0.0"), "0");
        assert_eq!(c("0.1"), "0.1");
        assert_eq!(c("-2.5"), "-2.5");
        assert_eq!(c("123456789012"), "123456789012");
        assert_eq!(c("1.7976931348623157e308"), "1.7976931348623157e+308");
        assert_eq!(c("5e-324"), "5e-324");
    }

    #[test]
    fn strings_escape_like_go_with_html() {
        assert_eq!(c(r#""<a & b>""#), r#""\u003ca \u0026 b\u003e""#);
        assert_eq!(c("\"\\u2028\\u2029\""), r#""\u2028\u2029""#);
        assert_eq!(c(r#""\n\r\t\b\f\u0001\u001f\u007f""#), "\"\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f}\"");
        assert_eq!(c(r#""q\"b\\""#), r#""q\"b\\""#);
        assert_eq!(c(r#""é✓""#), "\"é✓\"");
    }

    #[test]
    fn objects_sort_drop_nulls_and_empty_is_array() {
        assert_eq!(c(r#"{"b":1,"a":[],"A":{}}"#), r#"{"A":[],"a":[],"b":1}"#);
        assert_eq!(c(r#"{"a":null}"#), "[]");
        assert_eq!(c("{}"), "[]");
        assert_eq!(c("[null,1]"), "[null,1]");
        // bytewise: "Z" (0x5a) < "_" (0x5f) < "a" (0x61) < "é" (0xc3 ...)
        assert_eq!(c(r#"{"é":1,"a":2,"_":3,"Z":4}"#), r#"{"Z":4,"_":3,"a":2,"é":1}"#);
    }

    #[test]
    fn depth_limit_is_32_with_root_zero() {
        let mut v = json!(1);
        for _ in 0..32 {
            v = json!([v]);
        }
        assert!(canonical_json(&v).is_ok(), "scalar at depth 32 is accepted");
        let v = json!([v]);
        assert_eq!(canonical_json(&v), Err(CanonicalError::TooDeep));
        assert!(lua_json_encode(&v).is_ok());
    }

    #[test]
    fn sha_prefix() {
        assert_eq!(sha256_prefixed(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
