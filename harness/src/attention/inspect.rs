//! Typed model of what the runtime's inspection API answers (`$W.attention.find / getTree / getNode /
//! getGeometry / hitTest / getCursor / getFocus / getSelection`, the spec's "Canonical inspection
//! and agent tools", reference/relay.md): the result every method resolves to, `NodeRef`, node
//! records, and each operation's extras in `data`. Strict like the snapshot model: unknown members
//! fail (`deny_unknown_fields`), and members the contract writes as `X|null` must be present (null
//! allowed) while members it writes as optional (`x?`) may be left out but are never null.
//!
//! `data` differs per operation (selection's `focus` is a NodeRef, the focus read's `focus` a focus
//! object), so [`InspectionResult`] is generic over it: [`NodesData`] for find / tree / node,
//! [`GeometryData`], [`HitData`], [`CursorData`], [`FocusData`], [`SelectionData`].

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::{Rect, Segment, Summary, Xy};

/// Subscriptions one caller (a realm) may hold at once (the spec: "at most 16 per caller").
pub const SUBSCRIPTIONS_PER_CALLER: u32 = 16;
/// Subscriptions the whole Host may hold at once ("and 128 in all").
pub const SUBSCRIPTIONS_TOTAL: u32 = 128;

/// `outcome` of every inspection result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    Empty,
    Cleared,
    Unknown,
    Partial,
    Unavailable,
    Stale,
    Cancelled,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Empty => "empty",
            Outcome::Cleared => "cleared",
            Outcome::Unknown => "unknown",
            Outcome::Partial => "partial",
            Outcome::Unavailable => "unavailable",
            Outcome::Stale => "stale",
            Outcome::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Host tree's counters at the time of the read (top realm's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revisions {
    pub tree: u64,
    pub observation: u64,
    pub geometry: u64,
}

/// As a message shows them: `tree 3, observation 5, geometry 2`.
impl std::fmt::Display for Revisions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tree {}, observation {}, geometry {}", self.tree, self.observation, self.geometry)
    }
}

/// A node's identity: never rebuilt from fields, only copied from what the runtime returned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRef {
    pub host_instance_id: String,
    /// The element's candidate `target_id` (documents and shadow roots get ids too).
    pub node_id: String,
    pub mount_id: String,
    pub generation: u64,
}

/// As a message names it: `node t12 (mount m3, generation 1)`.
impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "node {} (mount {}, generation {})", self.node_id, self.mount_id, self.generation)
    }
}

/// An inspection omission: `reason` (1..64 chars, the snapshot omission reasons plus the
/// inspection ones: `invalid-request`, `unsupported-transform`, `revision-changed`,
/// `continuation-expired`, `continuation-used`, ...), the node it is about, a detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectOmission {
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// `{outcome, data, omissions, revisions, continuation?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectionResult<D> {
    pub outcome: Outcome,
    pub data: D,
    pub omissions: Vec<InspectOmission>,
    pub revisions: Revisions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

impl<D> InspectionResult<D> {
    /// Whether an omission with `reason` is reported.
    pub fn omits(&self, reason: &str) -> bool {
        self.omissions.iter().any(|o| o.reason == reason)
    }

    /// The `invalid-request` answer the contract gives bad input: unavailable, with that omission.
    pub fn is_invalid_request(&self) -> bool {
        self.outcome == Outcome::Unavailable && self.omits("invalid-request")
    }

    /// The omission reasons, for messages.
    pub fn reasons(&self) -> Vec<&str> {
        self.omissions.iter().map(|o| o.reason.as_str()).collect()
    }
}

/// What a node record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    Document,
    ShadowRoot,
    Element,
    Text,
}

/// A node's layout in Host-viewport CSS px, rects written `[x, y, width, height]` as the v3 / v4
/// dictionaries write them (issue 42: lean rows, nothing repeated or defaulted): `clip` is absent
/// when it equals `rect` ([`NodeLayout::clip_rect`] gives it either way), `visible` only written
/// when false, `offscreen` only when true.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeLayout {
    #[serde(with = "rect_tuple")]
    pub rect: Rect,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_rect_tuple")]
    pub clip: Option<Rect>,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub visible: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub offscreen: bool,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// A rect as a node layout writes it: `[x, y, width, height]`.
mod rect_tuple {
    use super::Rect;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(r: &Rect, s: S) -> Result<S::Ok, S::Error> {
        [r.x, r.y, r.width, r.height].serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rect, D::Error> {
        let [x, y, width, height] = <[f64; 4]>::deserialize(d)?;
        Ok(Rect { x, y, width, height })
    }
}

/// An optional [`rect_tuple`] (`null` reads as absent).
mod opt_rect_tuple {
    use super::Rect;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(r: &Option<Rect>, s: S) -> Result<S::Ok, S::Error> {
        match r {
            Some(r) => super::rect_tuple::serialize(r, s),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Rect>, D::Error> {
        Ok(Option::<[f64; 4]>::deserialize(d)?.map(|[x, y, width, height]| Rect { x, y, width, height }))
    }
}

impl NodeLayout {
    /// The visible part of `rect`: `clip`, or `rect` itself when the Host left `clip` out.
    pub fn clip_rect(&self) -> &Rect {
        self.clip.as_ref().unwrap_or(&self.rect)
    }
}

/// One node of an inspection answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRecord {
    #[serde(rename = "ref")]
    pub node_ref: NodeRef,
    #[serde(deserialize_with = "present")]
    pub parent: Option<NodeRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<NodeKind>,
    #[serde(deserialize_with = "present")]
    pub state: Option<Map<String, Value>>,
    #[serde(deserialize_with = "super::lua_table")]
    pub summary: Summary,
    pub path: Vec<Segment>,
    /// `resource_id`, from the element's `data-wippy-resource-id`.
    #[serde(deserialize_with = "present")]
    pub resource: Option<String>,
    #[serde(deserialize_with = "present")]
    pub layout: Option<NodeLayout>,
    /// As a candidate's: a Web Fragment's nodes are physical Host DOM with fragment-realm provenance
    /// (not in INSPECTION_API.md's record; the runtime sends it, B asked A to write it down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<super::Provenance>,
    /// `true` on an owner-declared unmounted placeholder (never `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<bool>,
}

impl NodeRecord {
    pub fn node_id(&self) -> &str {
        &self.node_ref.node_id
    }
}

/// `data` of find, getTree and getNode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodesData {
    pub nodes: Vec<NodeRecord>,
    /// The scope's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<NodeRef>,
}

/// `data.geometry` of getGeometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryRead {
    pub rect: Rect,
    #[serde(deserialize_with = "present")]
    pub clip: Option<Rect>,
    pub visible: bool,
    pub offscreen: bool,
    /// `exact` or `approximate`.
    pub quality: String,
    /// `"host-viewport"` or the node-relative space; read as JSON (the contract does not fix it).
    pub coordinate_space: Value,
    pub node: NodeRef,
}

/// `data` of getGeometry (`geometry` null, or absent on invalid input, when there is none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryData {
    pub nodes: Vec<NodeRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geometry: Option<GeometryRead>,
}

/// `data` of hitTest: the Host-viewport point and what is under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitData {
    pub nodes: Vec<NodeRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Xy>,
}

/// A value the contract writes as `object|false`: `false` reads as `Absent`, `true` is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum OrFalse<T> {
    Absent,
    Present(T),
}

impl<T> OrFalse<T> {
    pub fn present(&self) -> Option<&T> {
        match self {
            OrFalse::Absent => None,
            OrFalse::Present(t) => Some(t),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OrFalse<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(false) => Ok(OrFalse::Absent),
            Value::Bool(true) => Err(serde::de::Error::custom("`true` where the contract allows an object or false")),
            other => T::deserialize(other).map(OrFalse::Present).map_err(serde::de::Error::custom),
        }
    }
}

impl<T: Serialize> Serialize for OrFalse<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OrFalse::Absent => s.serialize_bool(false),
            OrFalse::Present(t) => t.serialize(s),
        }
    }
}

/// `data.event` of getCursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CursorEvent {
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: super::EventType,
    pub sequence: u64,
    pub observed_at: String,
    pub point: Xy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_type: Option<super::PointerType>,
    pub candidate_ids: Vec<String>,
}

/// `data` of getCursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CursorData {
    pub nodes: Vec<NodeRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<OrFalse<CursorEvent>>,
}

/// `data.focus` of getFocus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FocusRead {
    pub focused_at: String,
    pub event_id: String,
    pub sequence: u64,
    #[serde(deserialize_with = "super::lua_table")]
    pub summary: Summary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_id: Option<String>,
    pub path: Vec<Segment>,
}

/// `data` of getFocus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FocusData {
    pub nodes: Vec<NodeRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<OrFalse<FocusRead>>,
}

/// `data` of getSelection (`selection` is the snapshot's v4 selection object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionData {
    pub nodes: Vec<NodeRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<OrFalse<super::Selection>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<NodeRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<NodeRef>,
}

/// A member the contract writes as `X|null`: it must be there; `null` reads as `None`.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v => T::deserialize(v).map(Some).map_err(serde::de::Error::custom),
    }
}

/// Where `null` may appear in an inspection answer: the members the contract writes as `X|null`.
/// (`geometry` is null when the node's transform is unsupported.)
pub(crate) const NULLABLE: [&str; 6] = ["parent", "state", "resource", "layout", "clip", "geometry"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::Reported;
    use serde_json::json;

    fn node(parent: Value) -> Value {
        json!({
            "ref": {"host_instance_id": "h", "node_id": "t-r-n1", "mount_id": "m", "generation": 1},
            "parent": parent, "kind": "element", "state": null, "summary": [], "path": [],
            "resource": null, "layout": {"rect": [0, 0, 1, 1], "clip": null,
            "visible": true, "offscreen": false}
        })
    }

    fn result(data: Value) -> Value {
        json!({"outcome": "ok", "data": data, "omissions": [], "revisions": {"tree": 1, "observation": 0, "geometry": 2}})
    }

    #[test]
    fn a_find_answer_with_the_contracts_nulls_reads_strictly() {
        let r: Reported<InspectionResult<NodesData>> =
            Reported::parse_inspection(result(json!({"nodes": [node(Value::Null)]}))).unwrap();
        assert_eq!(r.data.nodes[0].node_id(), "t-r-n1");
        assert_eq!(r.data.nodes[0].parent, None);
        assert_eq!(r.revisions.geometry, 2);
    }

    #[test]
    fn a_missing_nullable_member_or_an_invented_one_is_refused() {
        let mut n = node(Value::Null);
        n.as_object_mut().unwrap().remove("parent");
        assert!(Reported::<InspectionResult<NodesData>>::parse_inspection(result(json!({"nodes": [n]}))).is_err());
        let mut n = node(Value::Null);
        n["tag"] = json!("div");
        assert!(Reported::<InspectionResult<NodesData>>::parse_inspection(result(json!({"nodes": [n]}))).is_err());
    }

    #[test]
    fn null_outside_the_nullable_members_is_refused() {
        let r = result(json!({"nodes": [], "root": null}));
        assert!(Reported::<InspectionResult<NodesData>>::parse_inspection(r).is_err());
    }

    #[test]
    fn focus_false_reads_as_absent_and_true_is_refused() {
        let r: Reported<InspectionResult<FocusData>> =
            Reported::parse_inspection(result(json!({"nodes": [], "focus": false}))).unwrap();
        assert_eq!(r.data.focus, Some(OrFalse::Absent));
        assert!(Reported::<InspectionResult<FocusData>>::parse_inspection(result(json!({"nodes": [], "focus": true})))
            .is_err());
    }

    #[test]
    fn invalid_request_is_unavailable_with_that_omission() {
        let mut v = result(json!({"nodes": []}));
        v["outcome"] = json!("unavailable");
        v["omissions"] = json!([{"reason": "invalid-request", "detail": "unknown option `bogus`"}]);
        let r: Reported<InspectionResult<NodesData>> = Reported::parse_inspection(v).unwrap();
        assert!(r.is_invalid_request());
    }
}
