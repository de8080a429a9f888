//! The DOM reads ground truth makes on a session, as typed commands: a session's whole document
//! with shadow roots and frames pierced, a node's box model, its description, its frame owner, a
//! JavaScript handle on it. Documents and descriptions are returned as JSON (the walks over them
//! index JSON, and chromiumoxide's generated `Node` would have to match every enum Chromium 156
//! sends); box models and owners are typed.

use chromiumoxide::cdp::browser_protocol::dom::{
    BackendNodeId, BoxModel, DescribeNodeParams, GetBoxModelParams, GetDocumentParams, GetFrameOwnerParams, Quad,
    ResolveNodeParams,
};
use chromiumoxide::cdp::browser_protocol::page::FrameId;
use chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId;
use serde_json::Value;

use super::{CdpError, Session};

impl Session {
    /// `DOM.getDocument` of this session's frame tree, every depth, shadow roots and in-process
    /// frames pierced: the reply's `root` node.
    pub async fn pierced_document(&self) -> Result<Value, CdpError> {
        let params = GetDocumentParams { depth: Some(-1), pierce: Some(true) };
        Ok(self.send(&params).await?["root"].take())
    }

    /// `DOM.getBoxModel` of a node by backend id.
    pub async fn box_model(&self, backend_node_id: i64) -> Result<BoxModel, CdpError> {
        let params =
            GetBoxModelParams { backend_node_id: Some(BackendNodeId::new(backend_node_id)), ..Default::default() };
        Ok(self.execute(&params).await?.model)
    }

    /// `DOM.getBoxModel` of the node a remote object is.
    pub async fn box_model_of_object(&self, object_id: &str) -> Result<BoxModel, CdpError> {
        let params = GetBoxModelParams { object_id: Some(RemoteObjectId::new(object_id)), ..Default::default() };
        Ok(self.execute(&params).await?.model)
    }

    /// `DOM.describeNode` of a node by backend id: the reply's `node`.
    pub async fn describe_node(&self, backend_node_id: i64) -> Result<Value, CdpError> {
        let params =
            DescribeNodeParams { backend_node_id: Some(BackendNodeId::new(backend_node_id)), ..Default::default() };
        Ok(self.send(&params).await?["node"].take())
    }

    /// The backend id of the `<iframe>` element that owns the frame `frame_id` (in this session).
    pub async fn frame_owner(&self, frame_id: &str) -> Result<i64, CdpError> {
        Ok(*self.execute(&GetFrameOwnerParams::new(FrameId::new(frame_id))).await?.backend_node_id.inner())
    }

    /// A remote object id for a node by backend id (`DOM.resolveNode`), if it resolves to one.
    pub async fn resolve_node(&self, backend_node_id: i64) -> Result<Option<String>, CdpError> {
        let params =
            ResolveNodeParams { backend_node_id: Some(BackendNodeId::new(backend_node_id)), ..Default::default() };
        // The remote object as JSON: its type and subtype may be newer than the generated enums.
        let reply = self.send(&params).await?;
        Ok(reply.pointer("/object/objectId").and_then(Value::as_str).map(str::to_string))
    }
}

/// A box-model quad's eight numbers, or zeros when Chromium sent something else.
pub fn quad_points(q: &Quad) -> Vec<f64> {
    let points = q.inner();
    if points.len() == 8 {
        points.clone()
    } else {
        vec![0.0; 8]
    }
}
