//! Golden snapshots: normalize the volatile parts of a runtime snapshot (ids, timestamps,
//! durations, ports) to stable placeholders, compare with `fixtures/golden/<name>.json` with a
//! readable diff, and re-record with `ATTENTION_GOLDEN=record` (see README).
//!
//! Ids are replaced by `id-N` in order of first appearance, one mapping per document, so every
//! reference between ids (a candidate id in an event, a sample id in a candidate) stays visible.
//! Every placeholder keeps the value's type and grammar (a valid timestamp, a number, a sha256
//! form), so a normalized snapshot is still a valid `wippy.attention.v1` payload: goldens can be
//! validated and run through the codecs like any snapshot.

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

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("golden {path} differs from the snapshot (re-record with ATTENTION_GOLDEN=record if the change is intended):\n{diff}")]
    Mismatch { path: PathBuf, diff: String },
    #[error("golden {0} does not exist; record it with ATTENTION_GOLDEN=record")]
    Missing(PathBuf),
    #[error("cannot read or write golden {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// The folder of golden files: `fixtures/golden/`.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden")
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
/// realm id is random per page load. Declared Host mount ids (`panel-main`, `mount-bridge` ...) are
/// stable and stay verbatim, so a golden still shows which boundary is which.
fn is_generated_mount_id(s: &str) -> bool {
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

/// Compares `actual` (normalized here) with the golden `name`; with `ATTENTION_GOLDEN=record`
/// writes it instead.
pub fn assert_golden(name: &str, actual: &Value) -> Result<(), GoldenError> {
    let path = golden_dir().join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&normalize(actual)).unwrap_or_default() + "\n";
    if std::env::var("ATTENTION_GOLDEN").as_deref() == Ok("record") {
        std::fs::create_dir_all(golden_dir()).map_err(|e| GoldenError::Io(path.clone(), e))?;
        return std::fs::write(&path, text).map_err(|e| GoldenError::Io(path, e));
    }
    let expected = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(GoldenError::Missing(path)),
        Err(e) => return Err(GoldenError::Io(path, e)),
    };
    if expected == text {
        return Ok(());
    }
    let diff = similar::TextDiff::from_lines(&expected, &text)
        .unified_diff()
        .context_radius(3)
        .header("golden", "actual")
        .to_string();
    Err(GoldenError::Mismatch { path, diff })
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
    }

    #[test]
    fn ports_only_for_loopback_hosts() {
        assert_eq!(
            normalize_ports("http://127.0.0.1:8080/x and http://example.com:81"),
            "http://127.0.0.1:<port>/x and http://example.com:81"
        );
    }
}
