//! The read tools' argument rules (schemas.md §8 `M.normalize`): a tool's arguments, as the model
//! wrote them, become the broker's inspect `query {operation, scope:{fromRoot:true, node?}, args}`
//! or one validation reason. NodeRefs are accepted only complete and strict, never rebuilt from
//! fields; a NodeRef of another Host instance is refused (`invalid-scope` for `scope` / `root`,
//! `node-reference-required` for `node`), so nothing of another Host reaches this one.
//!
//! Tool arguments (the spec names the tools, §8 the rules; the member names are ours where §8
//! gives none):
//! - `attention_get_cursor`, `attention_get_focus`, `attention_get_selection`: `{}`.
//! - `attention_find_semantic`: `{role?, name?, text?, resource_id?, scope?: NodeRef, limit?, continuation?}`.
//! - `attention_find_css`: `{selector, root: NodeRef, limit?, continuation?}`.
//! - `attention_get_node`: `{node: NodeRef}` (an object without `node_id` -> `node-id-required`).
//! - `attention_get_tree`: `{root?: NodeRef, depth?, limit?, continuation?}`.
//! - `attention_get_geometry`: `{node: NodeRef}`.
//! - `attention_hit_test`: `{x, y, coordinate_space?, radius_css_px?, step_css_px?}`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::contract::lua::{get, is_integer, is_string, num};
use crate::contract::model_read::is_node_ref;

pub const FIND_LIMIT: (u64, u64) = (1, 8);
pub const TREE_LIMIT: (u64, u64) = (1, 32);
pub const DEPTH: (u64, u64) = (0, 32);
pub const DEFAULT_DEPTH: u64 = 2;
pub const MAX_CONTINUATION: usize = 256;
pub const MAX_FILTER: usize = 256;
pub const MAX_SELECTOR: usize = 512;
pub const MAX_RADIUS: f64 = 100.0;
pub const MAX_STEP: f64 = 100.0;

/// The nine read tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadTool {
    #[serde(rename = "attention_get_cursor")]
    GetCursor,
    #[serde(rename = "attention_get_focus")]
    GetFocus,
    #[serde(rename = "attention_get_selection")]
    GetSelection,
    #[serde(rename = "attention_find_semantic")]
    FindSemantic,
    #[serde(rename = "attention_find_css")]
    FindCss,
    #[serde(rename = "attention_get_node")]
    GetNode,
    #[serde(rename = "attention_get_tree")]
    GetTree,
    #[serde(rename = "attention_get_geometry")]
    GetGeometry,
    #[serde(rename = "attention_hit_test")]
    HitTest,
}

pub const ALL_TOOLS: [ReadTool; 9] = [
    ReadTool::GetCursor,
    ReadTool::GetFocus,
    ReadTool::GetSelection,
    ReadTool::FindSemantic,
    ReadTool::FindCss,
    ReadTool::GetNode,
    ReadTool::GetTree,
    ReadTool::GetGeometry,
    ReadTool::HitTest,
];

/// What makes a read go stale besides expiry, turns, actions and replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staleness {
    /// Tree content: a later read reporting another tree revision.
    Tree,
    /// Geometry: another geometry revision.
    Geometry,
    /// Point reads: either.
    Both,
    /// Cursor, focus, selection: only query replacement.
    Replacement,
}

impl ReadTool {
    pub fn name(self) -> &'static str {
        match self {
            ReadTool::GetCursor => "attention_get_cursor",
            ReadTool::GetFocus => "attention_get_focus",
            ReadTool::GetSelection => "attention_get_selection",
            ReadTool::FindSemantic => "attention_find_semantic",
            ReadTool::FindCss => "attention_find_css",
            ReadTool::GetNode => "attention_get_node",
            ReadTool::GetTree => "attention_get_tree",
            ReadTool::GetGeometry => "attention_get_geometry",
            ReadTool::HitTest => "attention_hit_test",
        }
    }
    pub fn from_name(name: &str) -> Option<ReadTool> {
        ALL_TOOLS.into_iter().find(|t| t.name() == name)
    }
    /// The inspection operation it asks the Host for.
    pub fn operation(self) -> &'static str {
        match self {
            ReadTool::GetCursor => "cursor",
            ReadTool::GetFocus => "focus",
            ReadTool::GetSelection => "selection",
            ReadTool::FindSemantic | ReadTool::FindCss | ReadTool::GetNode => "find",
            ReadTool::GetTree => "tree",
            ReadTool::GetGeometry => "geometry",
            ReadTool::HitTest => "point",
        }
    }
    /// The spec's duplicate rule applies to these four.
    pub fn duplicate_guarded(self) -> bool {
        matches!(self, ReadTool::FindSemantic | ReadTool::FindCss | ReadTool::GetNode | ReadTool::GetTree)
    }
    pub fn staleness(self) -> Staleness {
        match self {
            ReadTool::FindSemantic | ReadTool::FindCss | ReadTool::GetNode | ReadTool::GetTree => Staleness::Tree,
            ReadTool::GetGeometry => Staleness::Geometry,
            ReadTool::HitTest => Staleness::Both,
            ReadTool::GetCursor | ReadTool::GetFocus | ReadTool::GetSelection => Staleness::Replacement,
        }
    }
}

/// §8's validation reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum ArgError {
    #[error("invalid-request")]
    InvalidRequest,
    #[error("semantic-filter-required")]
    SemanticFilterRequired,
    #[error("css-root-required")]
    CssRootRequired,
    #[error("node-id-required")]
    NodeIdRequired,
    #[error("node-reference-required")]
    NodeReferenceRequired,
    #[error("point-required")]
    PointRequired,
    #[error("invalid-coordinate-space")]
    InvalidCoordinateSpace,
    #[error("invalid-point-budget")]
    InvalidPointBudget,
    #[error("invalid-page-limit")]
    InvalidPageLimit,
    #[error("invalid-continuation")]
    InvalidContinuation,
    #[error("invalid-depth")]
    InvalidDepth,
    #[error("unexpected-field")]
    UnexpectedField,
    #[error("invalid-scope")]
    InvalidScope,
}

impl ArgError {
    pub fn as_str(self) -> &'static str {
        match self {
            ArgError::InvalidRequest => "invalid-request",
            ArgError::SemanticFilterRequired => "semantic-filter-required",
            ArgError::CssRootRequired => "css-root-required",
            ArgError::NodeIdRequired => "node-id-required",
            ArgError::NodeReferenceRequired => "node-reference-required",
            ArgError::PointRequired => "point-required",
            ArgError::InvalidCoordinateSpace => "invalid-coordinate-space",
            ArgError::InvalidPointBudget => "invalid-point-budget",
            ArgError::InvalidPageLimit => "invalid-page-limit",
            ArgError::InvalidContinuation => "invalid-continuation",
            ArgError::InvalidDepth => "invalid-depth",
            ArgError::UnexpectedField => "unexpected-field",
            ArgError::InvalidScope => "invalid-scope",
        }
    }
}

/// A normalized read: the broker's inspect query, and the key of "the same query" (tool and the
/// normalized arguments without `continuation`) for duplicates, replacement and continuations.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    pub tool: ReadTool,
    /// `{operation, scope:{fromRoot:true, node?}, args}`.
    pub query: Value,
    pub query_key: String,
    pub continuation: Option<String>,
}

/// The arguments `tool` takes (any other is `unexpected-field`).
pub fn allowed(tool: ReadTool) -> &'static [&'static str] {
    match tool {
        ReadTool::GetCursor | ReadTool::GetFocus | ReadTool::GetSelection => &[],
        ReadTool::FindSemantic => &["role", "name", "text", "resource_id", "scope", "limit", "continuation"],
        ReadTool::FindCss => &["selector", "root", "limit", "continuation"],
        ReadTool::GetNode | ReadTool::GetGeometry => &["node"],
        ReadTool::GetTree => &["root", "depth", "limit", "continuation"],
        ReadTool::HitTest => &["x", "y", "coordinate_space", "radius_css_px", "step_css_px"],
    }
}

/// A NodeRef argument: complete, strict and on the bound Host, else `bad`.
fn node_ref(v: Option<&Value>, host: &str, bad: ArgError) -> Result<Value, ArgError> {
    let v = v.ok_or(bad)?;
    if !is_node_ref(Some(v)) || v["host_instance_id"] != host {
        return Err(bad);
    }
    Ok(v.clone())
}

/// An optional integer in `lo..=hi` (absent: `default`).
fn int_in(v: Option<&Value>, (lo, hi): (u64, u64), default: u64, bad: ArgError) -> Result<u64, ArgError> {
    match v {
        None => Ok(default),
        Some(x) if is_integer(Some(x), lo as f64, hi as f64) => Ok(x.as_f64().unwrap_or_default() as u64),
        Some(_) => Err(bad),
    }
}

fn continuation(a: &Map<String, Value>) -> Result<Option<String>, ArgError> {
    match a.get("continuation") {
        None => Ok(None),
        Some(c) if is_string(Some(c), MAX_CONTINUATION, false) => Ok(c.as_str().map(str::to_string)),
        Some(_) => Err(ArgError::InvalidContinuation),
    }
}

/// `M.normalize` for one tool call on the Host `host` (the turn's bound `host_instance_id`).
pub fn normalize(tool: ReadTool, args: &Value, host: &str) -> Result<Normalized, ArgError> {
    let empty = Map::new();
    let a = match args {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => return Err(ArgError::InvalidRequest),
    };
    // `null` members count as absent, as in every Lua table.
    let a: Map<String, Value> = a.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
    if a.keys().any(|k| !allowed(tool).contains(&k.as_str())) {
        return Err(ArgError::UnexpectedField);
    }
    let av = Value::Object(a.clone());
    let g = |k: &str| get(Some(&av), k);
    let mut scope = json!({"fromRoot": true});
    let mut q = Map::new();
    let mut cont = None;
    match tool {
        ReadTool::GetCursor | ReadTool::GetFocus | ReadTool::GetSelection => {}
        ReadTool::FindSemantic => {
            let mut filter = Map::new();
            for k in ["role", "name", "text", "resource_id"] {
                if let Some(v) = g(k) {
                    if !is_string(Some(v), MAX_FILTER, false) {
                        return Err(ArgError::InvalidRequest);
                    }
                    filter.insert(k.into(), v.clone());
                }
            }
            if filter.is_empty() {
                return Err(ArgError::SemanticFilterRequired);
            }
            if g("scope").is_some() {
                scope["node"] = node_ref(g("scope"), host, ArgError::InvalidScope)?;
            }
            q.insert("query".into(), Value::Object(filter));
            q.insert("limit".into(), json!(int_in(g("limit"), FIND_LIMIT, FIND_LIMIT.1, ArgError::InvalidPageLimit)?));
            cont = continuation(&a)?;
        }
        ReadTool::FindCss => {
            let root = match g("root") {
                None => return Err(ArgError::CssRootRequired),
                r => node_ref(r, host, ArgError::InvalidScope)?,
            };
            if !is_string(g("selector"), MAX_SELECTOR, false) {
                return Err(ArgError::InvalidRequest);
            }
            q.insert("query".into(), json!({"css": g("selector"), "scope": root}));
            q.insert("limit".into(), json!(int_in(g("limit"), FIND_LIMIT, FIND_LIMIT.1, ArgError::InvalidPageLimit)?));
            cont = continuation(&a)?;
        }
        ReadTool::GetNode | ReadTool::GetGeometry => {
            let n = g("node");
            if let Some(Value::Object(m)) = n {
                if !is_string(m.get("node_id"), 256, false) {
                    return Err(ArgError::NodeIdRequired);
                }
            }
            let n = node_ref(n, host, ArgError::NodeReferenceRequired)?;
            if tool == ReadTool::GetNode {
                // The exact-id find of the inspection API, scoped to the node's own identity.
                q.insert("query".into(), json!({"node_id": n["node_id"]}));
                scope["node"] = n;
            } else {
                q.insert("node".into(), n);
            }
        }
        ReadTool::GetTree => {
            if g("root").is_some() {
                scope["node"] = node_ref(g("root"), host, ArgError::InvalidScope)?;
            }
            q.insert("depth".into(), json!(int_in(g("depth"), DEPTH, DEFAULT_DEPTH, ArgError::InvalidDepth)?));
            q.insert("limit".into(), json!(int_in(g("limit"), TREE_LIMIT, TREE_LIMIT.1, ArgError::InvalidPageLimit)?));
            cont = continuation(&a)?;
        }
        ReadTool::HitTest => {
            let (Some(x), Some(y)) = (num(g("x")), num(g("y"))) else { return Err(ArgError::PointRequired) };
            q.insert("x".into(), json!(x));
            q.insert("y".into(), json!(y));
            let space = match g("coordinate_space") {
                None => json!("host-viewport"),
                Some(Value::String(s)) if s == "host-viewport" => json!(s),
                Some(r @ Value::Object(_)) => node_ref(Some(r), host, ArgError::InvalidCoordinateSpace)?,
                Some(_) => return Err(ArgError::InvalidCoordinateSpace),
            };
            q.insert("coordinate_space".into(), space);
            if let Some(r) = g("radius_css_px") {
                match num(Some(r)) {
                    Some(v) if (0.0..=MAX_RADIUS).contains(&v) => q.insert("radius_css_px".into(), json!(v)),
                    _ => return Err(ArgError::InvalidPointBudget),
                };
            }
            if let Some(s) = g("step_css_px") {
                match num(Some(s)) {
                    Some(v) if v > 0.0 && v <= MAX_STEP => q.insert("step_css_px".into(), json!(v)),
                    _ => return Err(ArgError::InvalidPointBudget),
                };
            }
        }
    }
    let key_body = json!({"tool": tool.name(), "scope": scope, "args": q});
    let query_key = crate::contract::canonical::canonical_json(&key_body).unwrap_or_else(|_| key_body.to_string());
    if let Some(c) = &cont {
        q.insert("continuation".into(), json!(c));
    }
    Ok(Normalized {
        tool,
        query: json!({"operation": tool.operation(), "scope": scope, "args": Value::Object(q)}),
        query_key,
        continuation: cont,
    })
}

#[cfg(test)]
mod tests {
    use super::ArgError::*;
    use super::ReadTool::*;
    use super::*;

    const HOST: &str = "host-a";

    fn r() -> Value {
        json!({"host_instance_id": HOST, "node_id": "n1", "mount_id": "m1", "generation": 1})
    }
    fn err(tool: ReadTool, args: Value) -> ArgError {
        normalize(tool, &args, HOST).expect_err(&format!("{args} must fail"))
    }
    fn ok(tool: ReadTool, args: Value) -> Value {
        normalize(tool, &args, HOST).unwrap_or_else(|e| panic!("{args} must pass: {e}")).query
    }

    #[test]
    fn find_limit_is_1_to_8_and_tree_limit_1_to_32() {
        for (tool, base, hi) in [(FindSemantic, json!({"name": "a"}), 8u64), (GetTree, json!({}), 32)] {
            for (n, pass) in [(0u64, false), (1, true), (hi, true), (hi + 1, false)] {
                let mut a = base.clone();
                a["limit"] = json!(n);
                match normalize(tool, &a, HOST) {
                    Ok(q) => assert!(pass && q.query["args"]["limit"] == n, "{tool:?} {n}"),
                    Err(e) => assert!(!pass && e == InvalidPageLimit, "{tool:?} {n}: {e}"),
                }
            }
            let mut a = base.clone();
            a["limit"] = json!(1.5);
            assert_eq!(err(tool, a), InvalidPageLimit);
            assert_eq!(ok(tool, base)["args"]["limit"], hi, "the default is the maximum");
        }
        assert_eq!(ok(FindCss, json!({"selector": "b", "root": r(), "limit": 8}))["args"]["limit"], 8);
        assert_eq!(err(FindCss, json!({"selector": "b", "root": r(), "limit": 9})), InvalidPageLimit);
    }

    #[test]
    fn depth_is_0_to_32_default_2() {
        assert_eq!(ok(GetTree, json!({}))["args"]["depth"], 2);
        assert_eq!(ok(GetTree, json!({"depth": 0}))["args"]["depth"], 0);
        assert_eq!(ok(GetTree, json!({"depth": 32}))["args"]["depth"], 32);
        assert_eq!(err(GetTree, json!({"depth": 33})), InvalidDepth);
        assert_eq!(err(GetTree, json!({"depth": -1})), InvalidDepth);
        assert_eq!(err(GetTree, json!({"depth": "2"})), InvalidDepth);
    }

    #[test]
    fn continuation_is_1_to_256_bytes() {
        assert_eq!(ok(GetTree, json!({"continuation": "c".repeat(256)}))["args"]["continuation"], "c".repeat(256));
        assert_eq!(ok(GetTree, json!({"continuation": "c"}))["args"]["continuation"], "c");
        assert_eq!(err(GetTree, json!({"continuation": "c".repeat(257)})), InvalidContinuation);
        assert_eq!(err(GetTree, json!({"continuation": ""})), InvalidContinuation);
        assert_eq!(err(FindSemantic, json!({"name": "a", "continuation": 5})), InvalidContinuation);
        let a = normalize(GetTree, &json!({"continuation": "x"}), HOST).unwrap();
        let b = normalize(GetTree, &json!({}), HOST).unwrap();
        assert_eq!(a.query_key, b.query_key, "a continuation pages the same query");
    }

    #[test]
    fn find_semantic_needs_one_filter_of_1_to_256_bytes() {
        assert_eq!(err(FindSemantic, json!({})), SemanticFilterRequired);
        assert_eq!(err(FindSemantic, json!({"limit": 2})), SemanticFilterRequired);
        for k in ["role", "name", "text", "resource_id"] {
            assert_eq!(ok(FindSemantic, json!({k: "x".repeat(256)}))["args"]["query"][k], "x".repeat(256));
            assert_eq!(err(FindSemantic, json!({k: "x".repeat(257)})), InvalidRequest);
            assert_eq!(err(FindSemantic, json!({k: ""})), InvalidRequest);
        }
        let q = ok(FindSemantic, json!({"role": "button", "scope": r()}));
        assert_eq!(q["scope"], json!({"fromRoot": true, "node": r()}));
        assert_eq!(q["operation"], "find");
    }

    #[test]
    fn find_css_needs_a_root_and_a_selector_of_1_to_512_bytes() {
        assert_eq!(err(FindCss, json!({"selector": "b"})), CssRootRequired);
        assert_eq!(
            ok(FindCss, json!({"selector": "b".repeat(512), "root": r()}))["args"]["query"]["css"],
            "b".repeat(512)
        );
        assert_eq!(err(FindCss, json!({"selector": "b".repeat(513), "root": r()})), InvalidRequest);
        assert_eq!(err(FindCss, json!({"selector": "", "root": r()})), InvalidRequest);
        assert_eq!(err(FindCss, json!({"root": r()})), InvalidRequest);
        let q = ok(FindCss, json!({"selector": "b", "root": r()}));
        assert_eq!(q["args"]["query"], json!({"css": "b", "scope": r()}));
    }

    #[test]
    fn node_refs_are_complete_strict_and_of_the_bound_host() {
        assert_eq!(err(GetNode, json!({})), NodeReferenceRequired);
        assert_eq!(err(GetNode, json!({"node": "n1"})), NodeReferenceRequired);
        assert_eq!(
            err(GetNode, json!({"node": {"host_instance_id": HOST, "mount_id": "m1", "generation": 1}})),
            NodeIdRequired
        );
        let mut partial = r();
        partial.as_object_mut().unwrap().remove("generation");
        assert_eq!(err(GetGeometry, json!({"node": partial})), NodeReferenceRequired, "never rebuilt from fields");
        let mut extra = r();
        extra["rect"] = json!({});
        assert_eq!(err(GetNode, json!({"node": extra})), NodeReferenceRequired);
        let mut other = r();
        other["host_instance_id"] = json!("host-b");
        assert_eq!(err(GetNode, json!({"node": other.clone()})), NodeReferenceRequired);
        assert_eq!(err(GetTree, json!({"root": other.clone()})), InvalidScope);
        assert_eq!(err(FindSemantic, json!({"name": "a", "scope": other.clone()})), InvalidScope);
        assert_eq!(err(FindCss, json!({"selector": "a", "root": other.clone()})), InvalidScope);
        assert_eq!(err(GetTree, json!({"root": 5})), InvalidScope);
        assert_eq!(ok(GetGeometry, json!({"node": r()}))["args"]["node"], r());
        let q = ok(GetNode, json!({"node": r()}));
        assert_eq!((q["args"]["query"]["node_id"].as_str(), &q["scope"]["node"]), (Some("n1"), &r()));
    }

    #[test]
    fn hit_test_needs_a_finite_point_a_known_space_and_bounded_budgets() {
        assert_eq!(err(HitTest, json!({"x": 1})), PointRequired);
        assert_eq!(err(HitTest, json!({"y": 1})), PointRequired);
        assert_eq!(err(HitTest, json!({"x": "1", "y": 1})), PointRequired);
        let q = ok(HitTest, json!({"x": 1.5, "y": -2}));
        assert_eq!((q["operation"].as_str(), &q["args"]["coordinate_space"]), (Some("point"), &json!("host-viewport")));
        assert_eq!(ok(HitTest, json!({"x": 1, "y": 2, "coordinate_space": r()}))["args"]["coordinate_space"], r());
        assert_eq!(err(HitTest, json!({"x": 1, "y": 2, "coordinate_space": "document"})), InvalidCoordinateSpace);
        assert_eq!(
            err(HitTest, json!({"x": 1, "y": 2, "coordinate_space": {"node_id": "n1"}})),
            InvalidCoordinateSpace
        );
        for (r_, pass) in [(-0.001, false), (0.0, true), (100.0, true), (100.001, false)] {
            let res = normalize(HitTest, &json!({"x": 1, "y": 2, "radius_css_px": r_}), HOST);
            assert_eq!(res.is_ok(), pass, "radius {r_}");
            if !pass {
                assert_eq!(res.unwrap_err(), InvalidPointBudget);
            }
        }
        for (s, pass) in [(0.0, false), (0.001, true), (100.0, true), (100.001, false)] {
            let res = normalize(HitTest, &json!({"x": 1, "y": 2, "step_css_px": s}), HOST);
            assert_eq!(res.is_ok(), pass, "step {s}");
            if !pass {
                assert_eq!(res.unwrap_err(), InvalidPointBudget);
            }
        }
    }

    #[test]
    fn unknown_members_and_non_objects_are_refused() {
        for tool in ALL_TOOLS {
            assert_eq!(err(tool, json!({"fromRoot": true})), UnexpectedField, "{tool:?}");
            assert_eq!(err(tool, json!([1])), InvalidRequest, "{tool:?}");
            assert_eq!(err(tool, json!("x")), InvalidRequest, "{tool:?}");
        }
        assert_eq!(ok(GetCursor, json!({}))["operation"], "cursor");
        assert_eq!(ok(GetFocus, Value::Null)["operation"], "focus");
        assert_eq!(ok(GetSelection, json!({"x": null}))["operation"], "selection", "null counts as absent");
        assert_eq!(err(GetCursor, json!({"limit": 1})), UnexpectedField);
        assert_eq!(err(HitTest, json!({"x": 1, "y": 1, "limit": 1})), UnexpectedField);
    }

    #[test]
    fn tool_names_round_trip_and_reasons_are_their_wire_names() {
        for t in ALL_TOOLS {
            assert_eq!(ReadTool::from_name(t.name()), Some(t));
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
        }
        for e in [
            InvalidRequest,
            SemanticFilterRequired,
            CssRootRequired,
            NodeIdRequired,
            NodeReferenceRequired,
            PointRequired,
            InvalidCoordinateSpace,
            InvalidPointBudget,
            InvalidPageLimit,
            InvalidContinuation,
            InvalidDepth,
            UnexpectedField,
            InvalidScope,
        ] {
            assert_eq!(serde_json::to_value(e).unwrap(), e.as_str());
            assert_eq!(e.to_string(), e.as_str());
        }
    }
}
