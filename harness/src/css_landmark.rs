//! `css:` landmarks: a place to sample named by a CSS selector instead of a `data-landmark`, for
//! QA's own applications, which carry no landmarks. `css:<selector>` is the first match in document
//! order across the Host and every realm, the Host first; `css:<panel-id>:<selector>` the first
//! match within one panel (the panel element's descendants, then the realms mounted inside it).
//!
//! Matching is Chromium's own `querySelector`, realm by realm, never piercing a component's shadow
//! root (as the realm's own scripts see it): the Host document, then each realm in the document
//! order of its owner, each realm's own document before the realms nested in it. A realm is an
//! iframe's document (in process, or an out-of-process frame's session) or a Web Fragment, whose
//! document is queried through its own realm (`document.querySelector` there, which web-fragments
//! redirects to `<wf-document>`, with `html`/`head`/`body` rewritten as its scripts see them).
//! The result is a [`Located`] node, so its rect, AX facts and hit test come from the oracle, as
//! for every landmark.

use serde_json::{json, Value};

use crate::cdp::Session;
use crate::frames::{CssProblem, FrameSessions, HostError};
use crate::oracle::Located;

/// What every `css:` landmark starts with.
pub const PREFIX: &str = "css:";

/// The text after `css:`, when `name` is a `css:` landmark.
pub fn selector_text(name: &str) -> Option<&str> {
    name.strip_prefix(PREFIX)
}

/// `(panel id, selector)` when `rest` (the text after `css:`) starts with `<panel-id>:`: an
/// identifier of ASCII letters, digits, `-` and `_`, then a non-empty selector. Whether it is a panel
/// is decided by the panels the Host has; otherwise the whole `rest` is the selector (`a:hover`).
pub fn panel_prefix(rest: &str) -> Option<(&str, &str)> {
    let (panel, selector) = rest.split_once(':')?;
    let ident = !panel.is_empty() && panel.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    (ident && !selector.trim().is_empty()).then_some((panel, selector))
}

/// The check made before a browser starts, with the panels the Host will have (`panels`, ids
/// without `panel-`): a selector is given, and a `<panel-id>:` prefix that cannot be read as part
/// of a selector (what follows it cannot begin a pseudo-class: `.x`, `#x`, `[x]`, `*`, `>` ...)
/// names a known panel. Whether the selector is valid is Chromium's to say, when the Host is open.
pub fn check(rest: &str, panels: &[&str]) -> Result<(), String> {
    if rest.trim().is_empty() {
        return Err(format!("{PREFIX} names no selector (css:<selector> or css:<panel-id>:<selector>)"));
    }
    if let Some((panel, selector)) = panel_prefix(rest) {
        let pseudo_start = selector.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '-' | ':' | '\\'));
        if !panels.contains(&panel) && !pseudo_start {
            return Err(format!(
                "landmark \u{201c}{PREFIX}{rest}\u{201d}: no panel \u{201c}{panel}\u{201d} (panels: {})",
                panels.join(", ")
            ));
        }
    }
    Ok(())
}

/// A realm below a scope, in its owner's document order.
enum Realm<'t> {
    /// An in-process frame's document, with the in-process `<iframe>` owners down to it.
    Document { root: &'t Value, owners: Vec<i64> },
    /// A Web Fragment's `<wf-document>` (its id the `fragment-id` of the host around it).
    Fragment { document: &'t Value, fragment_id: String, owners: Vec<i64> },
    /// An out-of-process frame (its target id is the frame id).
    Remote { frame_id: String },
}

fn attr<'t>(node: &'t Value, name: &str) -> Option<&'t str> {
    node["attributes"].as_array()?.chunks(2).find(|p| p.len() == 2 && p[0] == name).and_then(|p| p[1].as_str())
}

/// The realms directly below `node` (not inside them), in document order: a shadow tree before the
/// light children of its host, as it renders.
fn realms_under<'t>(node: &'t Value, fragment: Option<&str>, owners: &[i64], out: &mut Vec<Realm<'t>>) {
    for key in ["shadowRoots", "children"] {
        for kid in node[key].as_array().into_iter().flatten() {
            let name = kid["localName"].as_str().unwrap_or_default();
            if name == "iframe" || name == "frame" {
                if attr(kid, "name").is_some_and(|n| n.starts_with("wf:")) {
                    // A fragment's hidden realm: its content is the <wf-document> in the Host.
                    continue;
                }
                if let Some(root) = kid.get("contentDocument") {
                    let mut owners = owners.to_vec();
                    owners.push(kid["backendNodeId"].as_i64().unwrap_or_default());
                    out.push(Realm::Document { root, owners });
                } else if let Some(frame_id) = kid["frameId"].as_str() {
                    out.push(Realm::Remote { frame_id: frame_id.to_string() });
                }
                continue;
            }
            if name == "wf-document" {
                if let Some(id) = fragment {
                    out.push(Realm::Fragment { document: kid, fragment_id: id.to_string(), owners: owners.to_vec() });
                }
                continue;
            }
            let inner = if name == "web-fragment-host" { attr(kid, "fragment-id") } else { fragment };
            realms_under(kid, inner, owners, out);
        }
    }
}

/// The first node under `node` (its own tree, not inside frames) with `name=value`.
fn find_attr<'t>(node: &'t Value, name: &str, value: &str) -> Option<&'t Value> {
    if attr(node, name) == Some(value) {
        return Some(node);
    }
    ["shadowRoots", "children"]
        .iter()
        .flat_map(|k| node[*k].as_array().into_iter().flatten())
        .find_map(|k| find_attr(k, name, value))
}

/// Every `data-landmark="panel-<id>"` of the Host document, as ids.
fn panels_in(node: &Value, out: &mut Vec<String>) {
    if let Some(id) = attr(node, "data-landmark").and_then(|l| l.strip_prefix("panel-")) {
        out.push(id.to_string());
    }
    for kid in ["shadowRoots", "children"].iter().flat_map(|k| node[*k].as_array().into_iter().flatten()) {
        panels_in(kid, out);
    }
}

/// How a scope's own matches are asked for.
enum Own<'t> {
    /// `DOM.querySelector` on this node (a document, or the panel element).
    Node(&'t Value),
    /// `document.querySelector` in the fragment realm named `wf:<id>`.
    FragmentRealm(&'t str),
}

struct Search<'a> {
    frames: &'a FrameSessions,
    selector: &'a str,
    realms: usize,
}

impl Search<'_> {
    /// The first match in `scope` (its own tree, then its realms, each depth first), in `session`
    /// whose whole document is `tree`.
    async fn first_in(
        &mut self,
        session: &Session,
        tree: &Value,
        scope: &Value,
        own: Own<'_>,
        owners: Vec<i64>,
    ) -> Result<Option<Located>, HostError> {
        self.realms += 1;
        let found = match own {
            Own::Node(node) => self.query_node(session, node).await?,
            Own::FragmentRealm(id) => self.query_fragment(tree, id).await?,
        };
        if let Some(backend_node_id) = found {
            return Ok(Some(Located { session: session.clone(), backend_node_id, inner_frames: owners }));
        }
        let mut realms = Vec::new();
        realms_under(scope, None, &owners, &mut realms);
        for realm in realms {
            let hit = match realm {
                Realm::Document { root, owners } => {
                    Box::pin(self.first_in(session, tree, root, Own::Node(root), owners)).await?
                }
                Realm::Fragment { document, fragment_id, owners } => {
                    Box::pin(self.first_in(session, tree, document, Own::FragmentRealm(&fragment_id), owners)).await?
                }
                Realm::Remote { frame_id } => {
                    let Some(child) = self.frames.child_targets().into_iter().find(|c| c.target_id == frame_id) else {
                        continue; // not attached (yet): nothing of it can be sampled either
                    };
                    let child = self.frames.session(&child.session_id);
                    let root = child.pierced_document().await?;
                    Box::pin(self.first_in(&child, &root, &root, Own::Node(&root), Vec::new())).await?
                }
            };
            if hit.is_some() {
                return Ok(hit);
            }
        }
        Ok(None)
    }

    /// `DOM.querySelector` on `node`: the backend id of its first match.
    async fn query_node(&self, session: &Session, node: &Value) -> Result<Option<i64>, HostError> {
        let reply =
            session.call("DOM.querySelector", json!({"nodeId": node["nodeId"], "selector": self.selector})).await?;
        let node_id = reply["nodeId"].as_i64().unwrap_or_default();
        if node_id == 0 {
            return Ok(None);
        }
        let desc = session.call("DOM.describeNode", json!({"nodeId": node_id})).await?;
        Ok(desc.pointer("/node/backendNodeId").and_then(Value::as_i64))
    }

    /// `document.querySelector` in the fragment realm `wf:<id>` (its hidden iframe in `tree`).
    async fn query_fragment(&self, tree: &Value, id: &str) -> Result<Option<i64>, HostError> {
        let frame = find_iframe_named(tree, &format!("wf:{id}"))
            .and_then(|f| f["frameId"].as_str())
            .ok_or_else(|| HostError::NoFrame(format!("the realm of fragment \u{201c}{id}\u{201d}")))?;
        let (realm, context) = self.frames.frame_context(frame).ok_or_else(|| {
            HostError::NoFrame(format!("the realm of fragment \u{201c}{id}\u{201d} (no main-world context)"))
        })?;
        let realm = self.frames.session(&realm);
        let expr = format!("document.querySelector({})", Value::String(self.selector.to_string()));
        let reply = realm.evaluate_handle(&expr, Some(context)).await?;
        if let Some(e) = reply.get("exceptionDetails") {
            return Err(HostError::Unexpected { what: format!("{expr} in fragment {id}"), detail: e.to_string() });
        }
        let Some(object) = reply.pointer("/result/objectId").and_then(Value::as_str) else { return Ok(None) };
        let desc = realm.call("DOM.describeNode", json!({"objectId": object})).await?;
        // The node lives in the Host document, on the target of the realm that returned it.
        Ok(desc.pointer("/node/backendNodeId").and_then(Value::as_i64))
    }
}

/// The `<iframe name=name>` anywhere in `node`'s tree (shadow trees and frames included).
fn find_iframe_named<'t>(node: &'t Value, name: &str) -> Option<&'t Value> {
    if node["localName"] == "iframe" && attr(node, "name") == Some(name) {
        return Some(node);
    }
    ["shadowRoots", "children", "contentDocument"]
        .iter()
        .flat_map(|k| match &node[*k] {
            Value::Array(a) => a.iter().collect::<Vec<_>>(),
            v @ Value::Object(_) => vec![v],
            _ => Vec::new(),
        })
        .find_map(|k| find_iframe_named(k, name))
}

/// Resolves a `css:` landmark (`name` with its prefix) to the element it names on the open page.
pub async fn locate(frames: &FrameSessions, name: &str) -> Result<Located, HostError> {
    let rest = selector_text(name).unwrap_or(name);
    let problem = |problem| HostError::CssLandmark { landmark: name.to_string(), problem };
    let page = frames.page().clone();
    let tree = page.pierced_document().await?;
    let mut panels = Vec::new();
    panels_in(&tree, &mut panels);
    let (panel, selector) = match panel_prefix(rest) {
        Some((p, s)) if panels.iter().any(|k| k == p) => (Some(p), s),
        _ => (None, rest),
    };
    // Chromium's parser decides what a selector is: an empty fragment's querySelector throws.
    let probe = format!(
        "(s => {{ try {{ document.createDocumentFragment().querySelector(s); return null; }} \
           catch (e) {{ return String(e.message); }} }})({})",
        Value::String(selector.to_string())
    );
    let thrown =
        page.eval(&probe).await.map_err(|e| HostError::Eval { what: "the selector check".into(), source: e })?;
    if let Some(message) = thrown.as_str() {
        let message = message.to_string();
        return Err(problem(match panel_prefix(rest) {
            Some((p, _)) if panel.is_none() => {
                CssProblem::NoPanel { panel: p.to_string(), panels, selector: selector.to_string(), message }
            }
            _ => CssProblem::InvalidSelector { selector: selector.to_string(), message },
        }));
    }
    let scope_node = match panel {
        Some(p) => find_attr(&tree, "data-landmark", &format!("panel-{p}"))
            .ok_or_else(|| HostError::NoLandmark(format!("panel-{p}")))?,
        None => &tree,
    };
    let mut search = Search { frames, selector, realms: 0 };
    match search.first_in(&page, &tree, scope_node, Own::Node(scope_node), Vec::new()).await? {
        Some(at) => Ok(at),
        None => Err(problem(CssProblem::NoMatch {
            selector: selector.to_string(),
            scope: match panel {
                Some(p) => format!("in panel \u{201c}{p}\u{201d} or the realms mounted in it"),
                None => "in the Host or any realm".into(),
            },
            realms: search.realms,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_prefix_is_an_identifier_then_a_selector() {
        assert_eq!(panel_prefix("signup:#create"), Some(("signup", "#create")));
        assert_eq!(panel_prefix("a:hover"), Some(("a", "hover")));
        assert_eq!(panel_prefix("#create"), None);
        assert_eq!(panel_prefix("main:"), None);
        assert_eq!(panel_prefix("[x=a:b]"), None);
    }

    #[test]
    fn up_front_a_selector_is_given_and_an_unreadable_panel_prefix_names_a_known_panel() {
        let panels = ["main", "signup"];
        assert!(check("", &panels).unwrap_err().contains("names no selector"));
        assert!(check("  ", &panels).is_err());
        assert_eq!(check("#create", &panels), Ok(()));
        assert_eq!(check("signup:#create", &panels), Ok(()));
        // Readable as a selector (`a:hover`): Chromium decides when the Host is open.
        assert_eq!(check("a:hover", &panels), Ok(()));
        let e = check("sidebar:.x", &panels).unwrap_err();
        assert!(e.contains("no panel \u{201c}sidebar\u{201d}") && e.contains("main, signup"), "{e}");
        assert!(check("sidebar:#x", &panels).is_err());
        assert!(check("sidebar:[x]", &panels).is_err());
    }

    #[test]
    fn realms_are_listed_in_document_order_without_entering_them() {
        let tree = json!({"nodeId": 1, "backendNodeId": 1, "children": [
            {"backendNodeId": 2, "localName": "div", "shadowRoots": [{"backendNodeId": 3, "children": [
                {"backendNodeId": 4, "localName": "iframe", "frameId": "OOP"}]}],
             "children": [{"backendNodeId": 5, "localName": "iframe", "contentDocument": {"backendNodeId": 6, "children": [
                {"backendNodeId": 7, "localName": "iframe", "frameId": "deeper"}]}}]},
            {"backendNodeId": 8, "localName": "web-fragment-host", "attributes": ["fragment-id", "app"], "shadowRoots": [
                {"backendNodeId": 9, "children": [{"backendNodeId": 10, "localName": "wf-document"}]}]},
            {"backendNodeId": 11, "localName": "iframe", "attributes": ["name", "wf:app"], "contentDocument": {}}]});
        let mut out = Vec::new();
        realms_under(&tree, None, &[], &mut out);
        let shown: Vec<String> = out
            .iter()
            .map(|r| match r {
                Realm::Remote { frame_id } => format!("remote {frame_id}"),
                Realm::Document { owners, .. } => format!("document {owners:?}"),
                Realm::Fragment { fragment_id, .. } => format!("fragment {fragment_id}"),
            })
            .collect();
        assert_eq!(shown, ["remote OOP", "document [5]", "fragment app"]);
        assert_eq!(find_iframe_named(&tree, "wf:app").and_then(|f| f["backendNodeId"].as_i64()), Some(11));
    }
}
