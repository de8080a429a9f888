//! The Host's typed calls into the runtime's inspection API (/work/INSPECTION_API.md): one method
//! per read (`find_semantic`, `find_node_id`, `find_css`, `tree`, `node`, `geometry`, `hit_test`,
//! `cursor`, `focus_read`, `selection_read`), each made from a [`Realm`]: the top realm, or inside a
//! named child realm (its own `$W.attention` is what is called, through that frame's main world), and
//! read as the strict model (`crate::attention::inspect`). Subscriptions are a page-side helper for
//! tests: [`Host::subscribe`] keeps the handle and every notice in the realm's window, and
//! [`Host::notices`] / [`Host::dispose`] read and end it.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::{parse_reported_with, Host, HostError};
use crate::attention::inspect::{
    CursorData, FocusData, GeometryData, HitData, InspectionResult, NodeRef, NodesData, SelectionData,
};
use crate::attention::Reported;
use crate::frames::{short, Frame};

/// Where an inspection call is made.
#[derive(Debug, Clone)]
pub enum Realm {
    /// The Host document (`window.$W.attention`, also `wippyAttention.attention`).
    Top,
    /// A child realm's main world: an iframe's document, or a Web Fragment's realm (`wf:<name>`).
    Frame(Frame),
}

impl std::fmt::Display for Realm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Realm::Top => f.write_str("the Host document"),
            Realm::Frame(frame) => write!(f, "{frame}"),
        }
    }
}

impl Realm {
    fn frame(&self) -> Frame {
        match self {
            Realm::Top => Frame::Top,
            Realm::Frame(f) => f.clone(),
        }
    }
}

/// `options` of every read: `{fromRoot?, limit?, depth?, continuation?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InspectOptions {
    #[serde(rename = "fromRoot", skip_serializing_if = "Option::is_none")]
    pub from_root: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

impl InspectOptions {
    /// The whole Host tree (`fromRoot: true`).
    pub fn from_root() -> InspectOptions {
        InspectOptions { from_root: Some(true), ..InspectOptions::default() }
    }

    pub fn depth(mut self, depth: u32) -> InspectOptions {
        self.depth = Some(depth);
        self
    }

    pub fn limit(mut self, limit: u32) -> InspectOptions {
        self.limit = Some(limit);
        self
    }

    pub fn continuation(mut self, token: impl Into<String>) -> InspectOptions {
        self.continuation = Some(token.into());
        self
    }
}

/// A semantic query `{role?, name?, text?, resource_id?}` (at least one).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SemanticQuery {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_id: Option<String>,
}

/// As a message names it: `role “button” name “Send”` (the fields set, in that order).
impl std::fmt::Display for SemanticQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fields =
            [("role", &self.role), ("name", &self.name), ("text", &self.text), ("resource_id", &self.resource_id)];
        let set: Vec<String> =
            fields.iter().filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} \u{201c}{v}\u{201d}"))).collect();
        f.write_str(&if set.is_empty() { "no field".to_string() } else { set.join(" ") })
    }
}

impl SemanticQuery {
    pub fn role_name(role: &str, name: &str) -> SemanticQuery {
        SemanticQuery { role: Some(role.into()), name: Some(name.into()), ..SemanticQuery::default() }
    }
}

/// hitTest's point: `{x, y, coordinate_space?, radius_css_px?, step_css_px?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HitQuery {
    pub x: f64,
    pub y: f64,
    /// A NodeRef for node-relative coordinates; Host viewport when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coordinate_space: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius_css_px: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_css_px: Option<f64>,
}

impl HitQuery {
    pub fn at(x: f64, y: f64) -> HitQuery {
        HitQuery { x, y, coordinate_space: None, radius_css_px: None, step_css_px: None }
    }

    /// `(x, y)` in `node`'s own coordinates.
    pub fn relative_to(x: f64, y: f64, node: &NodeRef) -> HitQuery {
        HitQuery { coordinate_space: Some(json!(node)), ..HitQuery::at(x, y) }
    }
}

/// The result of a read, strict, with the runtime's JSON beside it.
pub type Inspected<D> = Reported<InspectionResult<D>>;

/// A subscription a test made in a realm: the realm, and its index in that realm's
/// `window.__inspectSubs`.
#[derive(Debug, Clone)]
pub struct Subscription {
    pub realm: Realm,
    pub index: u64,
    /// What `subscribe` returned besides `dispose` (`{error: {...}}` over the limit), as JSON.
    pub returned: Value,
}

impl Subscription {
    /// The refusal the runtime returned instead of a live subscription (`error.reason`).
    pub fn refused(&self) -> Option<&str> {
        self.returned.pointer("/error/reason").and_then(Value::as_str)
    }
}

impl Host {
    /// Calls `$W.attention[method](...args)` in `realm` and reads the answer as `InspectionResult<D>`.
    /// `args` are sent as JSON verbatim, so bad input can be sent on purpose.
    pub async fn inspect_raw<D: DeserializeOwned>(
        &self,
        realm: &Realm,
        method: &str,
        args: &[Value],
    ) -> Result<Inspected<D>, HostError> {
        let args = Value::Array(args.to_vec());
        let expr = format!(
            "(async () => {{
                const a = window.$W && window.$W.attention;
                if (!a || typeof a[{m}] !== 'function') throw new Error('no $W.attention.' + {m} + ' in this realm');
                return await a[{m}](...{args});
            }})()",
            m = json!(method),
        );
        let got = self.eval_in_frame(&realm.frame(), &expr).await?;
        if !got.is_object() {
            return Err(HostError::Unexpected { what: format!("attention.{method}"), detail: short(&got.to_string()) });
        }
        parse_reported_with(&format!("attention.{method}"), "InspectionResult", got, Reported::parse_inspection)
    }

    /// `find({role?, name?, text?, resource_id?}, options)`.
    pub async fn find_semantic(
        &self,
        realm: &Realm,
        query: &SemanticQuery,
        options: &InspectOptions,
    ) -> Result<Inspected<NodesData>, HostError> {
        self.inspect_raw(realm, "find", &[json!(query), json!(options)]).await
    }

    /// `find({node_id}, options)`: the exact node.
    pub async fn find_node_id(
        &self,
        realm: &Realm,
        node_id: &str,
        options: &InspectOptions,
    ) -> Result<Inspected<NodesData>, HostError> {
        self.inspect_raw(realm, "find", &[json!({"node_id": node_id}), json!(options)]).await
    }

    /// `find({css, scope}, options)`: CSS over the inert, privacy-filtered copy of `scope` (a
    /// returned Document or ShadowRoot).
    pub async fn find_css(
        &self,
        realm: &Realm,
        css: &str,
        scope: &NodeRef,
        options: &InspectOptions,
    ) -> Result<Inspected<NodesData>, HostError> {
        self.inspect_raw(realm, "find", &[json!({"css": css, "scope": scope}), json!(options)]).await
    }

    /// `getTree(root?, options)`.
    pub async fn tree(
        &self,
        realm: &Realm,
        root: Option<&NodeRef>,
        options: &InspectOptions,
    ) -> Result<Inspected<NodesData>, HostError> {
        let root = root.map_or(Value::Null, |r| json!(r));
        self.inspect_raw(realm, "getTree", &[root, json!(options)]).await
    }

    /// `getNode(ref)`.
    pub async fn node(&self, realm: &Realm, node: &NodeRef) -> Result<Inspected<NodesData>, HostError> {
        self.inspect_raw(realm, "getNode", &[json!(node)]).await
    }

    /// `getGeometry(ref)`.
    pub async fn geometry(&self, realm: &Realm, node: &NodeRef) -> Result<Inspected<GeometryData>, HostError> {
        self.inspect_raw(realm, "getGeometry", &[json!(node)]).await
    }

    /// `hitTest({x, y, ...}, options)`.
    pub async fn hit_test(
        &self,
        realm: &Realm,
        query: &HitQuery,
        options: &InspectOptions,
    ) -> Result<Inspected<HitData>, HostError> {
        self.inspect_raw(realm, "hitTest", &[json!(query), json!(options)]).await
    }

    /// `getCursor(options)`.
    pub async fn cursor(&self, realm: &Realm, options: &InspectOptions) -> Result<Inspected<CursorData>, HostError> {
        self.inspect_raw(realm, "getCursor", &[json!(options)]).await
    }

    /// `getFocus(options)`.
    pub async fn focus_read(&self, realm: &Realm, options: &InspectOptions) -> Result<Inspected<FocusData>, HostError> {
        self.inspect_raw(realm, "getFocus", &[json!(options)]).await
    }

    /// `getSelection(options)`.
    pub async fn selection_read(
        &self,
        realm: &Realm,
        options: &InspectOptions,
    ) -> Result<Inspected<SelectionData>, HostError> {
        self.inspect_raw(realm, "getSelection", &[json!(options)]).await
    }

    /// `subscribe({events, fromRoot}, callback)` in `realm`; the callback appends each notice, with
    /// the page's `performance.now()` as `at_ms`, to `window.__inspectNotices[index]`. Returns once
    /// the subscription is settled: a child realm's waits for the top to grant or refuse its slot.
    pub async fn subscribe(&self, realm: &Realm, events: &[&str], from_root: bool) -> Result<Subscription, HostError> {
        let mut subs = self.subscribe_many(realm, events, from_root, 1).await?;
        subs.pop().ok_or_else(|| HostError::Unexpected { what: "attention.subscribe".into(), detail: "none".into() })
    }

    /// `n` subscriptions made one after another in one turn of `realm`'s event loop (as a package
    /// subscribing to several things at once does), each as [`Host::subscribe`], all settled.
    pub async fn subscribe_many(
        &self,
        realm: &Realm,
        events: &[&str],
        from_root: bool,
        n: u32,
    ) -> Result<Vec<Subscription>, HostError> {
        let expr = format!(
            "(async () => {{
                const a = window.$W && window.$W.attention;
                if (!a) throw new Error('no $W.attention in this realm');
                const subs = (window.__inspectSubs = window.__inspectSubs || []);
                const notices = (window.__inspectNotices = window.__inspectNotices || []);
                const made = [];
                for (let i = 0; i < {n}; i++) {{
                    const index = subs.length;
                    notices.push([]);
                    const handle = a.subscribe({{ events: {events}, fromRoot: {from_root} }}, (x) => {{
                        notices[index].push({{ at_ms: performance.now(), notice: JSON.parse(JSON.stringify(x)) }});
                    }});
                    subs.push(handle);
                    made.push([index, handle]);
                }}
                // A child realm's subscriptions are pending until the top grants their slots.
                await Promise.all(made.map(([, h]) => (h && h.settled) || null));
                return {{ made: made.map(([index, handle]) => {{
                    const returned = {{}};
                    for (const k of Object.keys(handle || {{}})) if (k !== 'dispose' && k !== 'settled') returned[k] = handle[k];
                    return {{ index, returned: JSON.parse(JSON.stringify(returned)), dispose: typeof (handle && handle.dispose) }};
                }}) }};
            }})()",
            events = json!(events),
        );
        let got = self.eval_in_frame(&realm.frame(), &expr).await?;
        let bad = |what: &str| HostError::Unexpected { what: what.into(), detail: short(&got.to_string()) };
        let mut subs = Vec::new();
        for m in got["made"].as_array().ok_or_else(|| bad("attention.subscribe"))? {
            if m["dispose"] != "function" {
                return Err(bad("attention.subscribe"));
            }
            let index = m["index"].as_u64().ok_or_else(|| bad("subscribe index"))?;
            subs.push(Subscription { realm: realm.clone(), index, returned: m["returned"].clone() });
        }
        Ok(subs)
    }

    /// Every notice `sub`'s callback received so far: `(page time ms, notice JSON)`.
    pub async fn notices(&self, sub: &Subscription) -> Result<Vec<(f64, Value)>, HostError> {
        let expr = format!("JSON.parse(JSON.stringify((window.__inspectNotices || [])[{}] || []))", sub.index);
        let got = self.eval_in_frame(&sub.realm.frame(), &expr).await?;
        let list = got.as_array().cloned().unwrap_or_default();
        Ok(list.into_iter().map(|n| (n["at_ms"].as_f64().unwrap_or(0.0), n["notice"].clone())).collect())
    }

    /// The Host-wide subscription total as `realm`'s runtime knows it
    /// (`debug().inspection.host_total`: exact in the top realm, in a child the top's last total
    /// plus its own change since; pages/runtime/README.md Inspection API notes).
    pub async fn subscription_total(&self, realm: &Realm) -> Result<u64, HostError> {
        let expr = "(() => { const R = window.__wippyAttentionRuntime; \
                    return R ? R.debug().inspection.host_total : null; })()";
        let got = self.eval_in_frame(&realm.frame(), expr).await?;
        got.as_u64().ok_or_else(|| HostError::Unexpected {
            what: "debug().inspection.host_total".into(),
            detail: short(&got.to_string()),
        })
    }

    /// Calls `dispose()` on `sub`.
    pub async fn dispose(&self, sub: &Subscription) -> Result<(), HostError> {
        let expr = format!("(window.__inspectSubs[{}].dispose(), true)", sub.index);
        self.eval_in_frame(&sub.realm.frame(), &expr).await.map(drop)
    }
}
