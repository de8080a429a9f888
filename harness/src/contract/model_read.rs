//! `wippy.attention.model.v1` (schemas.md §8): the compact read result the Session persists in its
//! private function history instead of the Host's whole inspection, and the refusal receipt of a
//! read that never reached the Host. Pure functions, no I/O.
//!
//! [`project`] turns an accepted `inspection` (relay.md Part 2) and its `targets` into the model
//! form: `columns`, node rows `[ref, parent|false, kind|false, state|false, summary|{}, path
//! indices, resource|false, layout|false]`, refs `[node_id, mount_index]` with a **1-based**
//! `mount_index` into `mounts = [[host_instance_id, mount_id, generation], ...]`, a 1-based
//! deduplicated `paths` dictionary whose segments drop `rect`, `clip`, `clip_rect`,
//! `local_to_parent` and `geometry`, the per-operation extras (`geometry`, `selection` + `anchor` /
//! `focus`, `focus`, `event`, `point`) and `target_ref` only when exactly one node came back (joined
//! by `target_id == node_id`, the same host and the leaf path segment's `mount_id` / `generation`,
//! or the ref's when the node has no path). Over [`MAX_MODEL_BYTES`] (`json.encode`, as the
//! Framework measures) the whole result is replaced by the explicit `byte-limit` partial, which
//! keeps no continuation.
//!
//! Rows removed: a node record whose `ref` is not a complete NodeRef of the result's host cannot
//! be projected; it is dropped with a `projection-row-removed` omission and the continuation is
//! suppressed, so a later page cannot skip what this page lost (spec "If rows are removed,
//! continuation is suppressed"). The reason name is ours; §8 names no omission for it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::canonical::lua_json_len;
use super::lua::{get, is_integer, is_string, only_keys, MAX_SAFE_INTEGER};

pub const SCHEMA: &str = "wippy.attention.model.v1";
/// The ceiling of one successful compact result, bytes of `json.encode`.
pub const MAX_MODEL_BYTES: usize = 8192;
pub const COLUMNS: [&str; 8] = ["ref", "parent", "kind", "state", "summary", "path", "resource", "layout"];
pub const REF_COLUMNS: [&str; 2] = ["node_id", "mount_index"];
pub const MOUNT_COLUMNS: [&str; 3] = ["host_instance_id", "mount_id", "generation"];
/// Geometry members a path segment loses in the model form.
pub const SEGMENT_GEOMETRY: [&str; 5] = ["rect", "clip", "clip_rect", "local_to_parent", "geometry"];
pub const BYTE_LIMIT_REASON: &str =
    "Required result exceeds 8 KiB; request a smaller scoped page or an exact node. No continuation retained.";
/// Our omission for a node record the projection could not keep (see the module comment).
pub const ROW_REMOVED: &str = "projection-row-removed";
/// The inspection outcomes relay.md allows.
pub const OUTCOMES: [&str; 8] = ["ok", "empty", "cleared", "unknown", "partial", "unavailable", "stale", "cancelled"];

/// `{host_instance_id 1..160, node_id 1..256, mount_id 1..256, generation int 1..2^53-1}`, strict.
pub fn is_node_ref(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Object(m)) if m.len() == 4)
        && only_keys(v, &["host_instance_id", "node_id", "mount_id", "generation"])
        && is_string(get(v, "host_instance_id"), 160, false)
        && is_string(get(v, "node_id"), 256, false)
        && is_string(get(v, "mount_id"), 256, false)
        && is_integer(get(v, "generation"), 1.0, MAX_SAFE_INTEGER)
}

pub use crate::attention::inspect::{NodeRef, Revisions};

/// The byte-limit partial, or a successful projection.
#[derive(Debug, Clone, PartialEq)]
pub struct Projected {
    /// The model.v1 object as persisted.
    pub value: Value,
    /// `json.encode` bytes of the full projection before any byte-limit replacement.
    pub full_bytes: usize,
    pub byte_limited: bool,
}

/// Builds the mount dictionary while refs are written.
#[derive(Default)]
struct Dict {
    mounts: Vec<Value>,
    mount_index: HashMap<(String, String, u64), usize>,
    paths: Vec<Value>,
    path_index: HashMap<String, usize>,
}

impl Dict {
    /// `[node_id, mount_index]` of a complete NodeRef.
    fn node_ref(&mut self, r: &Value) -> Value {
        let key = (
            r["host_instance_id"].as_str().unwrap_or_default().to_string(),
            r["mount_id"].as_str().unwrap_or_default().to_string(),
            r["generation"].as_u64().unwrap_or_default(),
        );
        let next = self.mounts.len() + 1;
        let idx = *self.mount_index.entry(key.clone()).or_insert_with(|| next);
        if idx == next {
            self.mounts.push(json!([key.0, key.1, key.2]));
        }
        json!([r["node_id"], idx])
    }
    /// A ref column: a complete NodeRef becomes a ref, anything else `false`.
    fn opt_ref(&mut self, r: Option<&Value>) -> Value {
        if is_node_ref(r) {
            self.node_ref(r.unwrap_or(&Value::Null))
        } else {
            Value::Bool(false)
        }
    }
    /// 1-based indices of the segments of `path`, each segment without its geometry.
    fn path(&mut self, path: Option<&Value>) -> Value {
        let segs = path.and_then(Value::as_array).cloned().unwrap_or_default();
        Value::Array(
            segs.iter()
                .map(|s| {
                    let seg = strip_geometry(s);
                    let key = seg.to_string();
                    let next = self.paths.len() + 1;
                    let idx = *self.path_index.entry(key).or_insert(next);
                    if idx == next {
                        self.paths.push(seg);
                    }
                    json!(idx)
                })
                .collect(),
        )
    }
}

fn strip_geometry(seg: &Value) -> Value {
    match seg {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !SEGMENT_GEOMETRY.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn or_false(v: Option<&Value>) -> Value {
    v.filter(|x| !x.is_null()).cloned().unwrap_or(Value::Bool(false))
}

/// The model.v1 projection of an accepted `inspection` with its `targets` (relay.md: at most 32
/// target refs on the same host). `status` is `inspected`.
pub fn project(inspection: &Value, targets: &[Value]) -> Projected {
    let host = inspection["host_instance_id"].as_str().unwrap_or_default().to_string();
    let data = inspection.get("data").cloned().unwrap_or_else(|| json!({}));
    let mut dict = Dict::default();
    let mut omissions: Vec<Value> = inspection["omissions"].as_array().cloned().unwrap_or_default();
    let mut nodes = Vec::new();
    let mut kept: Vec<&Value> = Vec::new();
    let mut removed = 0usize;
    let records = data["nodes"].as_array().map(Vec::as_slice).unwrap_or_default();
    for n in records {
        let r = n.get("ref");
        if !is_node_ref(r) || r.and_then(|r| r["host_instance_id"].as_str()) != Some(host.as_str()) {
            removed += 1;
            continue;
        }
        kept.push(n);
        let summary = match n.get("summary") {
            Some(Value::Object(m)) => Value::Object(m.clone()),
            _ => json!({}),
        };
        nodes.push(json!([
            dict.node_ref(r.unwrap_or(&Value::Null)),
            dict.opt_ref(n.get("parent")),
            or_false(n.get("kind")),
            or_false(n.get("state")),
            summary,
            dict.path(n.get("path")),
            or_false(n.get("resource")),
            or_false(n.get("layout")),
        ]));
    }
    if removed > 0 {
        omissions.push(json!({"reason": ROW_REMOVED, "detail": format!("{removed} node record(s) without a complete NodeRef of this host")}));
    }
    // Omissions name nodes by ref too (the dictionary, not repeated NodeRefs).
    for o in omissions.iter_mut() {
        if let Some(Value::Object(m)) = Some(o) {
            if let Some(node) = m.get("node").cloned() {
                m.insert("node".into(), dict.opt_ref(Some(&node)));
            }
        }
    }
    let invalid = omissions.iter().any(|o| o["reason"] == "invalid-request");
    let mut out = Map::new();
    out.insert("schema".into(), json!(SCHEMA));
    out.insert("status".into(), json!("inspected"));
    out.insert("outcome".into(), inspection["outcome"].clone());
    out.insert("revisions".into(), inspection["revisions"].clone());
    out.insert("measured_at".into(), inspection["measured_at"].clone());
    out.insert("host".into(), json!(host));
    if let Some(c) = inspection.get("continuation").filter(|c| c.is_string()) {
        if removed == 0 {
            out.insert("continuation".into(), c.clone());
        }
    }
    if invalid {
        out.insert("invalid".into(), json!(true));
    }
    out.insert("columns".into(), json!(COLUMNS));
    out.insert("ref_columns".into(), json!(REF_COLUMNS));
    out.insert("mount_columns".into(), json!(MOUNT_COLUMNS));
    out.insert("nodes".into(), Value::Array(nodes));
    if let Some(root) = data.get("root").filter(|r| is_node_ref(Some(r))) {
        out.insert("root".into(), dict.node_ref(root));
    }
    if let Some(g) = data.get("geometry").filter(|g| g.is_object()) {
        let mut g = g.clone();
        if let Some(node) = g.get("node").cloned() {
            g["node"] = dict.opt_ref(Some(&node));
        }
        out.insert("geometry".into(), g);
    }
    if let Some(sel) = data.get("selection") {
        out.insert("selection".into(), sel.clone());
        for k in ["anchor", "focus"] {
            if let Some(r) = data.get(k).filter(|r| is_node_ref(Some(r))) {
                out.insert(k.into(), dict.node_ref(r));
            }
        }
    }
    if let Some(f) = data.get("focus").filter(|f| !is_node_ref(Some(f))) {
        if !out.contains_key("selection") {
            out.insert("focus".into(), f.clone());
        }
    }
    if let Some(e) = data.get("event") {
        out.insert("event".into(), e.clone());
    }
    if let Some(p) = data.get("point") {
        out.insert("point".into(), p.clone());
    }
    if kept.len() == 1 {
        if let Some(t) = join_target(kept[0], &host, targets) {
            out.insert("target_ref".into(), t.clone());
        }
    }
    out.insert("omissions".into(), Value::Array(omissions));
    out.insert("mounts".into(), Value::Array(dict.mounts));
    out.insert("paths".into(), Value::Array(dict.paths));
    let full = Value::Object(out);
    let full_bytes = lua_json_len(&full);
    if full_bytes <= MAX_MODEL_BYTES {
        return Projected { value: full, full_bytes, byte_limited: false };
    }
    let partial = json!({
        "schema": SCHEMA, "status": "inspected", "outcome": "partial",
        "revisions": inspection["revisions"], "measured_at": inspection["measured_at"],
        "omissions": [{"reason": "byte-limit"}], "reason": BYTE_LIMIT_REASON,
    });
    Projected { value: partial, full_bytes, byte_limited: true }
}

/// relay.md "In model.v1 reads, the target_ref is joined to the unique node by target_id ==
/// node_id, the same host, and the terminal path segment's mount_id and generation" (the ref's
/// own when the node has no path).
fn join_target<'a>(node: &Value, host: &str, targets: &'a [Value]) -> Option<&'a Value> {
    let r = &node["ref"];
    let leaf = node["path"].as_array().and_then(|p| p.last());
    let (mount, generation) = match leaf {
        Some(seg) => (seg["mount_id"].clone(), seg["generation"].clone()),
        None => (r["mount_id"].clone(), r["generation"].clone()),
    };
    targets.iter().find(|t| {
        t["target_id"] == r["node_id"]
            && t["host_instance_id"] == host
            && t["mount_id"] == mount
            && t["generation"].as_f64() == generation.as_f64()
    })
}

/// The refusal receipt of a read that never reached the Host: `{schema, status:"rejected",
/// reason, original_registry_id, instruction, invalid?}` (`invalid` for validation reasons).
pub fn refusal_receipt(reason: &str, tool: &str, invalid: bool) -> Value {
    let mut r = json!({
        "schema": SCHEMA, "status": "rejected", "reason": reason,
        "original_registry_id": format!("wippy.agent.tools:{tool}"),
        "instruction": instruction(reason),
    });
    if invalid {
        r["invalid"] = json!(true);
    }
    r
}

/// What the model is told to do after a refusal (ours: §8 names the field, not its text).
fn instruction(reason: &str) -> &'static str {
    match reason {
        "one-read-per-batch" => "Only one Attention read runs per batch; call it again alone.",
        "read-budget-exhausted" => "This user turn used its four Attention reads; answer with what you have.",
        "repair-budget-exhausted" => "Two invalid Attention reads ended repair for this turn; stop reading.",
        "duplicate-read" => "The same read already answered and the tree has not changed; reuse that result.",
        "history-unavailable" => "The Session could not read this turn's history; no read was made.",
        _ => "Fix the arguments: copy complete NodeRefs verbatim from a returned result.",
    }
}

/// The stale-result notice the model sees instead of a withdrawn read (spec: "the model receives a
/// stale-result notice instead of the old observation"; the layout is ours).
pub fn stale_notice(reason: &str) -> Value {
    json!({"schema": SCHEMA, "status": "stale", "reason": reason,
           "notice": "This Attention read is no longer current; read again if you still need it."})
}

/// The model.v1 result, typed (what tests assert on), with its dictionaries resolved by
/// [`ModelRead::node`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRead {
    pub schema: String,
    pub status: String,
    pub outcome: String,
    pub revisions: Revisions,
    pub measured_at: String,
    pub omissions: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_columns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_columns: Option<Vec<String>>,
    #[serde(default)]
    pub nodes: Vec<Value>,
    #[serde(default)]
    pub mounts: Vec<(String, String, u64)>,
    #[serde(default)]
    pub paths: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<(String, usize)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geometry: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<(String, usize)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ref: Option<Value>,
}

/// One node row with its ref, parent and path resolved through the dictionaries.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeView {
    pub node: NodeRef,
    pub parent: Option<NodeRef>,
    pub kind: Option<String>,
    pub summary: Value,
    pub path: Vec<Value>,
    pub resource: Option<String>,
    pub layout: Option<Value>,
}

/// A read as a failure message sums it up: `status inspected, outcome partial, 24 rows,
/// omitted byte-limit, continuation c1` (the row data is not repeated).
impl std::fmt::Display for ModelRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "status {}, outcome {}, {} rows", self.status, self.outcome, self.nodes.len())?;
        let omitted: Vec<String> =
            self.omissions.iter().map(|o| o["reason"].as_str().map_or_else(|| o.to_string(), str::to_string)).collect();
        if !omitted.is_empty() {
            write!(f, ", omitted {}", omitted.join(", "))?;
        }
        if let Some(r) = &self.reason {
            write!(f, ", reason {r}")?;
        }
        write!(f, ", continuation {}", self.continuation.as_deref().unwrap_or("none"))
    }
}

impl ModelRead {
    /// A `[node_id, mount_index]` ref as a NodeRef (`None` for a bad index: they are 1-based).
    pub fn resolve(&self, r: &(String, usize)) -> Option<NodeRef> {
        let (host, mount, generation) = self.mounts.get(r.1.checked_sub(1)?)?;
        Some(NodeRef {
            host_instance_id: host.clone(),
            node_id: r.0.clone(),
            mount_id: mount.clone(),
            generation: *generation,
        })
    }
    fn resolve_value(&self, v: &Value) -> Option<NodeRef> {
        let r: (String, usize) = serde_json::from_value(v.clone()).ok()?;
        self.resolve(&r)
    }
    /// Row `i`, resolved.
    pub fn node(&self, i: usize) -> Option<NodeView> {
        let row = self.nodes.get(i)?.as_array()?;
        let text = |v: &Value| v.as_str().map(str::to_string);
        Some(NodeView {
            node: self.resolve_value(&row[0])?,
            parent: self.resolve_value(&row[1]),
            kind: text(&row[2]),
            summary: row[4].clone(),
            path: row[5]
                .as_array()?
                .iter()
                .filter_map(|i| self.paths.get(i.as_u64()?.checked_sub(1)? as usize).cloned())
                .collect(),
            resource: text(&row[6]),
            layout: row[7].as_object().map(|m| Value::Object(m.clone())),
        })
    }
    /// Every row, resolved.
    pub fn node_views(&self) -> Vec<NodeView> {
        (0..self.nodes.len()).filter_map(|i| self.node(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "host-a";

    fn r(node: &str, mount: &str, generation: u64) -> Value {
        json!({"host_instance_id": HOST, "node_id": node, "mount_id": mount, "generation": generation})
    }
    fn seg(kind: &str, mount: &str) -> Value {
        json!({"kind": kind, "mount_id": mount, "generation": 1, "rect": {"x": 0, "y": 0, "width": 1, "height": 1},
               "clip": {"x": 0, "y": 0, "width": 1, "height": 1}, "local_to_parent": [1, 0, 0, 1, 0, 0]})
    }
    fn node(id: &str, mount: &str, text: &str) -> Value {
        json!({"ref": r(id, mount, 1), "parent": r("doc", "host-1", 1), "kind": "element", "state": null,
               "summary": {"role": "button", "name": text}, "path": [seg("host", "host-1"), seg("element", mount)],
               "resource": null, "layout": {"rect": {"x": 1, "y": 2, "width": 3, "height": 4}, "visible": true}})
    }
    fn inspection(nodes: Vec<Value>, extra: Value) -> Value {
        let mut data = json!({"nodes": nodes});
        if let Value::Object(m) = extra {
            for (k, v) in m {
                data[k] = v;
            }
        }
        json!({"request_id": "call-1", "host_instance_id": HOST, "measured_at": "2026-01-01T00:00:00.000Z",
               "revisions": {"tree": 3, "observation": 1, "geometry": 2}, "outcome": "ok", "data": data,
               "omissions": [], "continuation": "cont-1"})
    }
    fn target(id: &str, mount: &str) -> Value {
        json!({"snapshot_id": "inspect-1", "target_id": id, "host_instance_id": HOST, "mount_id": mount, "generation": 1,
               "path_digest": format!("sha256:{}", "b".repeat(64)), "rect": {"x": 1, "y": 2, "width": 3, "height": 4}})
    }

    #[test]
    fn refs_use_one_based_mount_indices_and_paths_are_deduplicated_without_geometry() {
        let p = project(&inspection(vec![node("n1", "leaf-1", "A"), node("n2", "leaf-2", "B")], json!({})), &[]);
        let m: ModelRead = serde_json::from_value(p.value.clone()).unwrap();
        assert_eq!(m.columns.as_deref().unwrap(), COLUMNS);
        assert_eq!(m.nodes[0][0], json!(["n1", 1]), "the first mount is index 1");
        assert_eq!(m.mounts[0], (HOST.to_string(), "leaf-1".to_string(), 1));
        assert_eq!(m.mounts[1].1, "host-1", "the parent's mount is the second");
        assert_eq!(m.paths.len(), 3, "host (shared by both rows), two leaf elements: {:?}", m.paths);
        assert_eq!(m.nodes[0][5][0], m.nodes[1][5][0], "the shared host segment reuses its index");
        assert_eq!(m.nodes[1][0], json!(["n2", 3]), "a third mount");
        for s in &m.paths {
            for k in SEGMENT_GEOMETRY {
                assert!(s.get(k).is_none(), "segment kept {k}: {s}");
            }
        }
        let v = m.node(1).unwrap();
        assert_eq!(v.node.node_id, "n2");
        assert_eq!(v.parent.unwrap().node_id, "doc");
        assert_eq!(v.path.len(), 2);
        assert_eq!(m.continuation.as_deref(), Some("cont-1"));
        assert!(m.target_ref.is_none(), "two nodes: no target_ref");
    }

    #[test]
    fn a_unique_node_gets_the_target_joined_by_id_host_and_leaf_mount() {
        let targets = vec![target("n1", "other"), target("n1", "leaf-1"), target("n2", "leaf-1")];
        let p = project(&inspection(vec![node("n1", "leaf-1", "A")], json!({})), &targets);
        assert_eq!(p.value["target_ref"], targets[1]);
        let mut elsewhere = targets[1].clone();
        elsewhere["host_instance_id"] = json!("host-b");
        let p = project(&inspection(vec![node("n1", "leaf-1", "A")], json!({})), &[elsewhere]);
        assert!(p.value.get("target_ref").is_none(), "another host never joins");
    }

    #[test]
    fn per_operation_extras_are_kept_with_their_node_refs_compacted() {
        let g = json!({"geometry": {"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "clip": null, "visible": true,
                       "offscreen": false, "quality": "exact", "coordinate_space": "host-viewport", "node": r("n1", "leaf-1", 1)}});
        let p = project(&inspection(vec![node("n1", "leaf-1", "A")], g), &[]);
        assert_eq!(p.value["geometry"]["node"], json!(["n1", 1]));
        let sel =
            json!({"selection": {"selection_id": "s"}, "anchor": r("n1", "leaf-1", 1), "focus": r("n1", "leaf-1", 1)});
        let p = project(&inspection(vec![], sel), &[]);
        assert_eq!(p.value["anchor"], json!(["n1", 1]));
        assert_eq!(p.value["focus"], json!(["n1", 1]));
        let p = project(&inspection(vec![], json!({"focus": false, "event": false, "point": {"x": 1, "y": 2}})), &[]);
        assert_eq!((p.value["focus"].clone(), p.value["event"].clone()), (json!(false), json!(false)));
        assert_eq!(p.value["point"], json!({"x": 1, "y": 2}));
    }

    #[test]
    fn a_removed_row_suppresses_the_continuation() {
        let mut bad = node("n2", "leaf-1", "B");
        bad["ref"]["generation"] = json!(0);
        let p = project(&inspection(vec![node("n1", "leaf-1", "A"), bad], json!({})), &[target("n1", "leaf-1")]);
        assert!(p.value.get("continuation").is_none(), "{}", p.value);
        assert_eq!(p.value["nodes"].as_array().unwrap().len(), 1);
        assert!(p.value["omissions"].as_array().unwrap().iter().any(|o| o["reason"] == ROW_REMOVED));
        assert!(p.value.get("target_ref").is_some(), "one node remained");
    }

    /// A result whose full projection is exactly `n` bytes: one node whose name is padded.
    fn sized(n: usize) -> Projected {
        let base = project(&inspection(vec![node("n1", "leaf-1", "")], json!({})), &[]).full_bytes;
        project(&inspection(vec![node("n1", "leaf-1", &"x".repeat(n - base))], json!({})), &[])
    }

    #[test]
    fn exactly_8192_bytes_is_kept_and_8193_becomes_the_byte_limit_partial_without_continuation() {
        let keep = sized(MAX_MODEL_BYTES);
        assert_eq!((keep.full_bytes, keep.byte_limited), (8192, false));
        assert_eq!(lua_json_len(&keep.value), 8192);
        let cut = sized(MAX_MODEL_BYTES + 1);
        assert_eq!((cut.full_bytes, cut.byte_limited), (8193, true));
        assert_eq!(cut.value["outcome"], "partial");
        assert_eq!(cut.value["omissions"], json!([{"reason": "byte-limit"}]));
        assert_eq!(cut.value["reason"], BYTE_LIMIT_REASON);
        assert!(cut.value.get("continuation").is_none() && cut.value.get("nodes").is_none());
        let typed: ModelRead = serde_json::from_value(cut.value).unwrap();
        assert_eq!(typed.revisions.tree, 3);
    }

    #[test]
    fn invalid_request_omissions_mark_the_result_invalid_and_receipts_carry_their_reason() {
        let mut i = inspection(vec![], json!({}));
        i["omissions"] = json!([{"reason": "invalid-request"}]);
        i["outcome"] = json!("unavailable");
        assert_eq!(project(&i, &[]).value["invalid"], true);
        let rec = refusal_receipt("invalid-depth", "attention_get_tree", true);
        assert_eq!(rec["original_registry_id"], "wippy.agent.tools:attention_get_tree");
        assert_eq!((rec["status"].as_str(), rec["invalid"].as_bool()), (Some("rejected"), Some(true)));
        assert!(refusal_receipt("duplicate-read", "attention_get_tree", false).get("invalid").is_none());
    }

    #[test]
    fn node_refs_are_strict_and_bounded() {
        assert!(is_node_ref(Some(&r("n", "m", 1))));
        assert!(is_node_ref(Some(&r(&"n".repeat(256), &"m".repeat(256), 9_007_199_254_740_991))));
        assert!(!is_node_ref(Some(&r(&"n".repeat(257), "m", 1))));
        assert!(!is_node_ref(Some(&r("n", &"m".repeat(257), 1))));
        assert!(!is_node_ref(Some(&r("n", "m", 0))));
        assert!(!is_node_ref(Some(
            &json!({"host_instance_id": HOST, "node_id": "n", "mount_id": "m", "generation": 9_007_199_254_740_992.0})
        )));
        let mut h = r("n", "m", 1);
        h["host_instance_id"] = json!("h".repeat(161));
        assert!(!is_node_ref(Some(&h)));
        h["host_instance_id"] = json!("h".repeat(160));
        assert!(is_node_ref(Some(&h)));
        let mut extra = r("n", "m", 1);
        extra["label"] = json!("x");
        assert!(!is_node_ref(Some(&extra)));
        assert!(!is_node_ref(Some(&json!({"host_instance_id": HOST, "node_id": "n", "mount_id": "m"}))));
    }
}
