//! Golden snapshots: normalize the volatile parts of a runtime snapshot (ids, timestamps,
//! durations, ports) to stable placeholders and compare the result with the insta snapshot
//! `fixtures/golden/<name>.snap`, with a readable diff.
//!
//! Ids are replaced by `id-N` in order of first appearance, one mapping per document, so every
//! reference between ids (a candidate id in an event, a sample id in a candidate) stays visible.
//! Every placeholder keeps the value's type and grammar (a valid timestamp, a number, a sha256
//! form), so a normalized snapshot is still a valid `wippy.attention.v1` payload: goldens can be
//! validated and run through the codecs like any snapshot (`tests/goldens.rs`).
//!
//! Why insta stores the goldens but this module normalizes them (issue 18): `verify` needs the
//! normalization without insta (insta applies redactions only inside its asserting macros, which
//! panic and write files), so [`normalize`] has to be library code, and it is the redaction. insta's
//! own redactions replace each selected value on its own (a fixed value, or a closure over one value
//! and its path). A fixed `[id]` happens to leave today's boundary goldens valid v1 payloads (the
//! schema bounds id strings by length only, and these goldens hold no pointer, events, focus or
//! action refs whose references it checks), but it merges the three candidates' distinct target ids
//! into one and misses the host path's `mount_id`, which holds the `host_instance_id` value under
//! another key. Keeping distinct ids distinct and references consistent would take a closure with
//! document-wide state, shared by every selector: a second copy of [`normalize`] that could drift
//! from the one `verify` runs. So [`render`] writes the normalized snapshot as pretty JSON, the
//! end-to-end test hands that text to `insta::assert_snapshot!`, whose `.snap` file is a short
//! header and this text verbatim, and insta gives the diff, the pending `.snap.new` file and the one
//! way to accept a change: `cargo insta test --test browser --review -- boundary_snapshot` (README,
//! "Golden snapshots"). `assert_json_snapshot!` is not used: insta would serialize the value with
//! its own JSON writer, and [`compare`] would have to mirror it.
//!
//! [`compare`] is the same comparison without insta, for the `verify` row: library code that
//! integrators run as an operational check must not write `.snap.new` files into the source tree,
//! read `INSTA_*` variables or panic; it returns a [`GoldenError`] with the diff instead. It matches
//! insta's rule for file snapshots (the body after the header, trailing whitespace trimmed, CRLF as
//! LF).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Keys whose string values are occurrence ids that change on every run.
const ID_KEYS: &[&str] =
    &["snapshot_id", "event_id", "target_id", "host_instance_id", "attachment_id", "selection_id", "capture_id"];
/// Keys whose values are measured times.
const DURATION_KEYS: &[&str] = &["duration_ms", "realm_time_ms"];
/// Keys derived from the content of an envelope (they change whenever an id does).
const DERIVED_KEYS: &[&str] = &["content_hash", "content_bytes", "path_digest"];
/// What a timestamp becomes.
pub const TIMESTAMP: &str = "2000-01-01T00:00:00.000Z";
/// What a digest becomes.
pub const DIGEST: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// How a changed golden is recorded and accepted: the one way (README, "Golden snapshots").
pub const ACCEPT: &str = "cargo insta test --test browser --review -- boundary_snapshot";

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("golden {path} differs from the snapshot (if the change is intended, accept it with `{ACCEPT}`):\n{diff}")]
    Mismatch { path: PathBuf, diff: String },
    #[error("golden {0} does not exist; record it with `{ACCEPT}`")]
    Missing(PathBuf),
    #[error("golden {0} is not an insta snapshot: no `---` header before the body")]
    NoHeader(PathBuf),
    #[error("golden {0}: the body is not JSON: {1}")]
    NotJson(PathBuf, serde_json::Error),
    #[error("cannot read golden {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// The folder of golden files: `fixtures/golden/`.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden")
}

/// The file of the golden `name`: `fixtures/golden/<name>.snap`.
pub fn golden_path(name: &str) -> PathBuf {
    golden_dir().join(format!("{name}.snap"))
}

/// The text a golden holds for `actual`: [`normalize`]d, pretty JSON, no trailing newline.
pub fn render(actual: &Value) -> String {
    serde_json::to_string_pretty(&normalize(actual)).unwrap_or_default()
}

/// Replaces volatile values with placeholders; the result is stable across runs and machines.
pub fn normalize(value: &Value) -> Value {
    let mut ids = BTreeMap::new();
    collect_ids(value, &mut ids, &mut 0);
    rewrite(value, None, &ids)
}

fn collect_ids(v: &Value, ids: &mut BTreeMap<String, String>, next: &mut usize) {
    match v {
        Value::Object(m) => {
            // serde_json's default map is sorted, so the traversal order is deterministic.
            for (k, x) in m {
                if ID_KEYS.contains(&k.as_str()) || (k == "mount_id" && x.as_str().is_some_and(is_generated_mount_id)) {
                    if let Some(s) = x.as_str() {
                        if !ids.contains_key(s) {
                            *next += 1;
                            ids.insert(s.to_string(), format!("id-{next}"));
                        }
                    }
                }
                collect_ids(x, ids, next);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ids(x, ids, next)),
        _ => {}
    }
}

/// Mount ids the runtime generates for undeclared boundaries: `<realm id>-n<counter>`, where the
/// realm id is random per page load, and `<that>-sr` for the shadow root of an undeclared
/// component (an application's own custom element). Declared Host mount ids (`panel-main`,
/// `mount-bridge` ...) are stable and stay verbatim, so a golden still shows which boundary is which.
fn is_generated_mount_id(s: &str) -> bool {
    let s = s.strip_suffix("-sr").unwrap_or(s);
    let Some((realm, counter)) = s.rsplit_once("-n") else { return false };
    realm.len() >= 2
        && realm.starts_with('r')
        && realm.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && !counter.is_empty()
        && counter.bytes().all(|b| b.is_ascii_digit())
}

fn rewrite(v: &Value, key: Option<&str>, ids: &BTreeMap<String, String>) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                out.insert(k.clone(), rewrite(x, Some(k), ids));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| rewrite(x, key, ids)).collect()),
        Value::String(s) => {
            if let Some(k) = key {
                if k.ends_with("_at") {
                    return Value::String(TIMESTAMP.into());
                }
                if DERIVED_KEYS.contains(&k) {
                    return Value::String(DIGEST.into());
                }
                if k == "content" {
                    // An envelope's content is the canonical JSON of a snapshot: normalize inside.
                    if let Ok(inner) = serde_json::from_str::<Value>(s) {
                        return Value::String(normalize(&inner).to_string());
                    }
                }
            }
            if let Some(p) = ids.get(s) {
                return Value::String(p.clone());
            }
            Value::String(normalize_ports(s))
        }
        Value::Number(_) if key.is_some_and(|k| DURATION_KEYS.contains(&k) || DERIVED_KEYS.contains(&k)) => {
            Value::from(0)
        }
        other => other.clone(),
    }
}

/// `http://127.0.0.1:40123` -> `http://127.0.0.1:<port>`, likewise for `localhost`.
fn normalize_ports(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let host_end = tail.find([':', '/', '"']).unwrap_or(tail.len());
        let host = &tail[..host_end];
        out.push_str(host);
        let after = &tail[host_end..];
        if (host == "127.0.0.1" || host == "localhost") && after.starts_with(':') {
            let digits = after[1..].chars().take_while(char::is_ascii_digit).count();
            if digits > 0 {
                out.push_str(":<port>");
                rest = &after[1 + digits..];
                continue;
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The body of an insta `.snap` file: what follows its `---` header, as insta compares it.
pub fn snap_body(text: &str) -> Option<String> {
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == "---" {
            return Some(rest[offset..].trim_end().replace("\r\n", "\n"));
        }
    }
    None
}

/// The body of the golden file at `path`, as text.
fn read_body(path: &Path) -> Result<String, GoldenError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(GoldenError::Missing(path.into())),
        Err(e) => return Err(GoldenError::Io(path.into(), e)),
    };
    snap_body(&text).ok_or_else(|| GoldenError::NoHeader(path.into()))
}

/// The JSON document a golden file holds (for `tests/goldens.rs`).
pub fn read_golden(path: &Path) -> Result<Value, GoldenError> {
    serde_json::from_str(&read_body(path)?).map_err(|e| GoldenError::NotJson(path.into(), e))
}

/// The v4 goldens, `fixtures/golden/v4/<name>.snap`: the runtime's version 4 content of the same
/// boundary snapshot, normalized with the id mapping of its expansion, so that expanding a v4
/// golden with `contract::codec` gives exactly its v1 golden (issue 21).
pub fn v4_golden_path(name: &str) -> PathBuf {
    golden_dir().join("v4").join(format!("{name}.snap"))
}

/// Normalizes a compact (v2-v4) payload: ids are numbered as [`normalize`] numbers them in the
/// payload's expansion and replaced by value (mount ids inside packed dictionary tuples have no
/// key); times, durations, digests and ports as for v1. Fails when the normalized payload does not
/// expand to the normalized expansion (two dictionary entries made equal, say).
pub fn normalize_compact(payload: &Value) -> Result<Value, String> {
    use crate::contract::{canonical::canonical_json, codec};
    let version = codec::schema_version(payload).ok_or("no wippy.attention.v<N> schema")?;
    let (expanded, _) = codec::expand(version, payload, None).map_err(|e| format!("does not expand: {e}"))?;
    let mut ids = BTreeMap::new();
    collect_ids(&expanded, &mut ids, &mut 0);
    let normalized = rewrite(payload, None, &ids);
    let (back, _) =
        codec::expand(version, &normalized, None).map_err(|e| format!("normalized, does not expand: {e}"))?;
    let c = |v: &Value| canonical_json(v).map_err(|e| e.to_string());
    if c(&back)? != c(&normalize(&expanded))? {
        return Err("the normalized compact payload does not expand to the normalized snapshot".into());
    }
    Ok(normalized)
}

/// The v4 golden `name`, expanded by `contract::codec`, equals the v1 golden `name`.
pub fn v4_expands_to_v1_golden(name: &str) -> Result<(), String> {
    use crate::contract::{canonical::canonical_json, codec};
    let v4 = read_golden(&v4_golden_path(name)).map_err(|e| e.to_string())?;
    let v1 = read_golden(&golden_path(name)).map_err(|e| e.to_string())?;
    let (expanded, _) = codec::expand(4, &v4, None).map_err(|e| format!("v4 golden {name} does not expand: {e}"))?;
    let c = |v: &Value| canonical_json(v).map_err(|e| e.to_string());
    if c(&expanded)? != c(&v1)? {
        let diff = similar::TextDiff::from_lines(
            &serde_json::to_string_pretty(&v1).unwrap_or_default(),
            &serde_json::to_string_pretty(&expanded).unwrap_or_default(),
        )
        .unified_diff()
        .header("v1 golden", "v4 golden expanded")
        .to_string();
        return Err(format!("the v4 golden {name} does not expand to its v1 golden:\n{diff}"));
    }
    Ok(())
}

/// Compares `actual` (normalized here) with the golden `name`. Reads only: a mismatch or a missing
/// golden is an error carrying what to show, nothing is written and nothing panics.
pub fn compare(name: &str, actual: &Value) -> Result<(), GoldenError> {
    compare_file(&golden_path(name), actual)
}

fn compare_file(path: &Path, actual: &Value) -> Result<(), GoldenError> {
    let expected = read_body(path)?;
    let text = render(actual);
    if expected == text {
        return Ok(());
    }
    let diff = similar::TextDiff::from_lines(&(expected + "\n"), &(text + "\n"))
        .unified_diff()
        .context_radius(3)
        .header("golden", "actual")
        .to_string();
    Err(GoldenError::Mismatch { path: path.into(), diff })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_keep_their_references_and_times_ports_become_placeholders() {
        let snap = json!({
            "snapshot_id": "snap-8f2", "created_at": "2026-11-30T01:02:03.456Z",
            "candidates": [{"target_id": "t-91", "path": [{"frame_origin": "http://localhost:41234", "kind": "iframe"}]}],
            "pointer": {"event_id": "e-7", "candidate_ids": ["t-91"], "realm_time_ms": 123.4},
            "capture": {"duration_ms": 7}
        });
        let n = normalize(&snap);
        assert_eq!(n["pointer"]["candidate_ids"][0], n["candidates"][0]["target_id"]);
        assert_ne!(n["pointer"]["event_id"], n["candidates"][0]["target_id"]);
        assert_eq!(n["created_at"], TIMESTAMP);
        assert_eq!(n["capture"]["duration_ms"], 0);
        assert_eq!(n["candidates"][0]["path"][0]["frame_origin"], "http://localhost:<port>");
        assert_eq!(normalize(&n), normalize(&snap), "normalizing is stable");
    }

    #[test]
    fn generated_mount_ids_are_normalized_declared_ones_kept() {
        let snap = json!({"candidates": [{"path": [{"mount_id": "panel-main"}, {"mount_id": "r1sq0xr-n2"}], "target_id": "t"}]});
        let n = normalize(&snap);
        assert_eq!(n["candidates"][0]["path"][0]["mount_id"], "panel-main");
        assert!(n["candidates"][0]["path"][1]["mount_id"].as_str().unwrap().starts_with("id-"));
        assert!(!is_generated_mount_id("mount-leaf-left") && !is_generated_mount_id("run-now"));
        assert!(is_generated_mount_id("r16r14o-n5-sr") && !is_generated_mount_id("r16r14o-n5-sx"));
    }

    #[test]
    fn ports_only_for_loopback_hosts() {
        assert_eq!(
            normalize_ports("http://127.0.0.1:8080/x and http://example.com:81"),
            "http://127.0.0.1:<port>/x and http://example.com:81"
        );
    }

    /// A fresh folder under the system's temp dir, removed by the caller.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("attention-golden-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn snap_file(body: &str) -> String {
        format!("---\nsource: tests/end_to_end.rs\n---\n{body}\n")
    }

    #[test]
    fn a_changed_snapshot_is_a_mismatch_with_a_diff_and_writes_nothing() {
        let dir = scratch("mismatch");
        let path = dir.join("cell.snap");
        let recorded =
            json!({"candidates": [{"target_id": "t-1", "kind": "leaf"}], "created_at": "2026-01-01T00:00:00.000Z"});
        std::fs::write(&path, snap_file(&render(&recorded))).unwrap();
        // Other ids and times: normalized away, the same golden.
        let rerun =
            json!({"candidates": [{"target_id": "t-77", "kind": "leaf"}], "created_at": "2026-05-05T05:05:05.000Z"});
        compare_file(&path, &rerun).expect("only volatile values changed");
        let changed =
            json!({"candidates": [{"target_id": "t-1", "kind": "panel"}], "created_at": "2026-01-01T00:00:00.000Z"});
        let err = compare_file(&path, &changed).expect_err("a changed kind must fail");
        let GoldenError::Mismatch { diff, .. } = &err else { panic!("expected a mismatch, got {err}") };
        assert!(diff.contains("-      \"kind\": \"leaf\"") && diff.contains("+      \"kind\": \"panel\""), "{diff}");
        assert!(err.to_string().contains(ACCEPT), "{err}");
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files, ["cell.snap"], "compare writes no pending file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_golden_is_a_clear_error() {
        let dir = scratch("missing");
        let path = dir.join("boundary-nowhere-iframe.snap");
        let err = compare_file(&path, &json!({"candidates": []})).expect_err("no golden");
        assert!(matches!(err, GoldenError::Missing(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()) && message.contains(ACCEPT), "{message}");
        assert!(!path.exists(), "compare does not record");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_without_the_insta_header_is_refused() {
        let dir = scratch("header");
        let path = dir.join("plain.snap");
        std::fs::write(&path, "{}\n").unwrap();
        assert!(matches!(compare_file(&path, &json!({})), Err(GoldenError::NoHeader(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_body_is_read_as_insta_compares_it() {
        assert_eq!(snap_body("---\nsource: a.rs\n---\n{\r\n  \"a\": 1\r\n}\n\n").as_deref(), Some("{\n  \"a\": 1\n}"));
        assert_eq!(snap_body("---\nsource: a.rs\n"), None);
        assert_eq!(snap_body("{}"), None);
    }

    /// What insta stores is what `compare` renders with: each committed golden's body is exactly
    /// serde_json's pretty form of itself, so `verify` and the insta assertion compare the same text.
    #[test]
    fn every_committed_golden_body_is_pretty_json_as_render_writes_it() {
        let mut seen = 0;
        for entry in std::fs::read_dir(golden_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "snap") {
                let body = read_body(&path).unwrap();
                let value = read_golden(&path).unwrap();
                assert_eq!(serde_json::to_string_pretty(&value).unwrap(), body, "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen >= 4, "expected a golden per layout x engine, found {seen}");
    }
}
