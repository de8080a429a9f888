//! Chromium's own truth, beside the runtime: where an element really is (`DOM.getBoxModel`,
//! composed through out-of-process iframe owners), what the accessibility tree calls it
//! (`Accessibility.getPartialAXTree`). Tests compare the runtime with these, never with itself.

use serde_json::{json, Value};

use crate::cdp::Session;
use crate::host::{Host, HostError};

/// A rectangle in Host-viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BoxRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl BoxRect {
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
    pub fn right(&self) -> f64 {
        self.x + self.width
    }
    /// The largest distance between corresponding edges of two rectangles.
    pub fn max_edge_delta(&self, other: &BoxRect) -> f64 {
        [
            (self.x - other.x).abs(),
            (self.y - other.y).abs(),
            (self.right() - other.right()).abs(),
            (self.y + self.height - other.y - other.height).abs(),
        ]
        .into_iter()
        .fold(0.0, f64::max)
    }
    fn from_quad(q: &[f64]) -> BoxRect {
        let xs = [q[0], q[2], q[4], q[6]];
        let ys = [q[1], q[3], q[5], q[7]];
        let (x0, x1) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
        let (y0, y1) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
        BoxRect { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
    }
}

/// Where a landmark element lives, as CDP addresses it.
#[derive(Debug, Clone)]
pub struct Located {
    pub session: Session,
    pub backend_node_id: i64,
    /// The offset of the frame's viewport in the Host viewport (0,0 for in-process frames).
    pub offset: (f64, f64),
}

/// What Chromium's accessibility tree says about a node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AxFacts {
    pub role: String,
    pub name: String,
}

impl Host {
    /// Finds the element with `data-landmark=name` in any frame, through open and closed shadow
    /// roots (CDP's `pierce`), in-process iframes and out-of-process iframes.
    pub async fn locate_landmark(&self, name: &str) -> Result<Located, HostError> {
        if let Some(id) = find_in_session(&self.page, name).await? {
            return Ok(Located { session: self.page.clone(), backend_node_id: id, offset: (0.0, 0.0) });
        }
        for child in self.child_targets() {
            let session = Session { cdp: self.cdp.clone(), id: child.session_id.clone() };
            if let Some(id) = find_in_session(&session, name).await? {
                let owner = self.page.call("DOM.getFrameOwner", json!({"frameId": child.target_id})).await?;
                let owner_id = owner["backendNodeId"].as_i64().unwrap_or_default();
                let model = self.page.call("DOM.getBoxModel", json!({"backendNodeId": owner_id})).await?;
                let content = quad(&model["model"]["content"]);
                let r = BoxRect::from_quad(&content);
                return Ok(Located { session, backend_node_id: id, offset: (r.x, r.y) });
            }
        }
        Err(HostError::NoLandmark(name.to_string()))
    }

    /// The border box of a landmark element in Host-viewport CSS pixels, from Chromium's box model.
    pub async fn landmark_rect(&self, name: &str) -> Result<BoxRect, HostError> {
        let at = self.locate_landmark(name).await?;
        let model = at.session.call("DOM.getBoxModel", json!({"backendNodeId": at.backend_node_id})).await?;
        let mut r = BoxRect::from_quad(&quad(&model["model"]["border"]));
        r.x += at.offset.0;
        r.y += at.offset.1;
        Ok(r)
    }

    /// Role and accessible name of a landmark element from Chromium's accessibility tree.
    pub async fn landmark_ax(&self, name: &str) -> Result<AxFacts, HostError> {
        let at = self.locate_landmark(name).await?;
        let tree = at
            .session
            .call("Accessibility.getPartialAXTree", json!({"backendNodeId": at.backend_node_id, "fetchRelatives": false}))
            .await?;
        let node = tree["nodes"]
            .as_array()
            .and_then(|n| n.iter().find(|n| n["backendDOMNodeId"].as_i64() == Some(at.backend_node_id)).or(n.first()))
            .cloned()
            .unwrap_or(Value::Null);
        Ok(AxFacts {
            role: node.pointer("/role/value").and_then(Value::as_str).unwrap_or_default().to_string(),
            name: node.pointer("/name/value").and_then(Value::as_str).unwrap_or_default().to_string(),
        })
    }
}

/// The bounding rectangle of a CDP box-model quad (`DOM.getBoxModel` `border`, `content` ...).
pub(crate) fn rect_of_quad(v: &Value) -> BoxRect {
    BoxRect::from_quad(&quad(v))
}

fn quad(v: &Value) -> Vec<f64> {
    let q: Vec<f64> = v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
    if q.len() == 8 {
        q
    } else {
        vec![0.0; 8]
    }
}

async fn find_in_session(session: &Session, name: &str) -> Result<Option<i64>, HostError> {
    let doc = session.call("DOM.getDocument", json!({"depth": -1, "pierce": true})).await?;
    Ok(find_node(&doc["root"], name))
}

/// Depth-first search of a pierced DOM tree for `data-landmark=name`.
fn find_node(node: &Value, name: &str) -> Option<i64> {
    if let Some(attrs) = node["attributes"].as_array() {
        for pair in attrs.chunks(2) {
            if pair.len() == 2 && pair[0] == "data-landmark" && pair[1] == name {
                return node["backendNodeId"].as_i64();
            }
        }
    }
    for key in ["shadowRoots", "children"] {
        if let Some(kids) = node[key].as_array() {
            for k in kids {
                if let Some(id) = find_node(k, name) {
                    return Some(id);
                }
            }
        }
    }
    node.get("contentDocument").and_then(|d| find_node(d, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_landmark_inside_closed_shadow_root_of_pierced_tree() {
        let tree = json!({"backendNodeId": 1, "children": [
            {"backendNodeId": 2, "attributes": ["id", "x"], "shadowRoots": [
                {"backendNodeId": 3, "shadowRootType": "closed", "children": [
                    {"backendNodeId": 4, "attributes": ["class", "b", "data-landmark", "closed-shadow-leaf"]}]}]}]});
        assert_eq!(find_node(&tree, "closed-shadow-leaf"), Some(4));
        assert_eq!(find_node(&tree, "missing"), None);
    }

    #[test]
    fn rect_from_quad_and_edge_delta() {
        let r = BoxRect::from_quad(&[10.0, 20.0, 110.0, 20.0, 110.0, 44.0, 10.0, 44.0]);
        assert_eq!(r, BoxRect { x: 10.0, y: 20.0, width: 100.0, height: 24.0 });
        let s = BoxRect { x: 10.25, ..r };
        assert_eq!(r.max_edge_delta(&s), 0.25);
    }
}
