//! The approved target in Chromium's own geometry (spec "Optional visual capture": "The fresh
//! snapshot and the final frame must still match the originally approved target rectangle.
//! Movement between approval and snapshot, or while a frame is pending, returns stale-target").
//!
//! The provider does not take the runtime's word for where the target is: a runtime that reports a
//! rect from an earlier event, or misses a transform on an ancestor, must not approve a moved crop.
//! Chromium's hit test at the approved rect's centre (`DOM.getNodeForLocation`, followed into
//! out-of-process frames: `FrameSessions::hit_at`) gives a node; that node or one of its flat-tree ancestors,
//! up through in-process and out-of-process frame owners, must have the approved rect as its border
//! box (`DOM.getBoxModel`, composed into Host-viewport CSS px through every frame: oracle.rs), to
//! within [`MOVE_TOLERANCE`](super::provider::MOVE_TOLERANCE). The local names of the elements that
//! match are returned, so the provider can check that the runtime's target is one of them.

use super::limits::CssRect;
use crate::cdp::CdpError;
use crate::frames::{FrameSessions, HostError};
use crate::oracle::{border_box, BoxRect, DomIndex};

/// How many ancestors (all frames together) the walk visits at most.
const MAX_STEPS: usize = 1024;

/// What Chromium has at the approved rect.
#[derive(Debug, Clone, PartialEq)]
pub enum AtApproved {
    /// The local names of the elements (innermost first) whose border box is the approved rect.
    Found(Vec<String>),
    /// No element on the way up from Chromium's hit has the approved rect; `nearest` is the
    /// innermost element hit, with its border box (what moved, for the reason).
    Missing { nearest: Option<(String, BoxRect)> },
}

/// Walks up from Chromium's hit at the approved rect's centre; see the module comment.
pub async fn elements_at(host: &FrameSessions, approved: &CssRect, tolerance: f64) -> Result<AtApproved, HostError> {
    let want = BoxRect { x: approved.x, y: approved.y, width: approved.width, height: approved.height };
    let (cx, cy) = want.center();
    let Some(hit) = host.hit_at(cx, cy).await? else { return Ok(AtApproved::Missing { nearest: None }) };
    let (mut session, mut node) = (hit.session, hit.backend_node_id);
    let mut found: Vec<String> = Vec::new();
    let mut nearest = None;
    let mut steps = 0;
    loop {
        let ix = DomIndex::from_tree(&session.pierced_document().await?);
        let chain = host.session_chain(&session.id).await?;
        let mut at = Some(node);
        while let Some(n) = at {
            steps += 1;
            if steps > MAX_STEPS {
                return Ok(done(found, nearest));
            }
            // An element without a box (display: contents) has no geometry of its own.
            let r = if ix.is_element(n) { border_box(&session, n, &chain.to_host).await } else { None };
            if let Some(r) = r {
                if r.max_edge_delta(&want) <= tolerance {
                    found.push(ix.local_name(n));
                } else if !found.is_empty() {
                    // Past the innermost run of matching boxes: an outer box cannot be the target.
                    return Ok(done(found, nearest));
                }
                nearest.get_or_insert((ix.local_name(n), r));
            }
            // A frame's document continues at its in-process `<iframe>` owner.
            at = ix.flat_parent(n).or_else(|| ix.frame_owner(n));
        }
        // The root of an out-of-process frame: continue at its owner in the parent frame.
        let Some(child) = host.child_targets().into_iter().find(|c| c.session_id == session.id) else { break };
        let parent = host.session(&child.parent_session_id);
        let owner_id = match parent.frame_owner(&child.target_id).await {
            Ok(id) => id,
            // A reply without an owner: the walk ends here.
            Err(CdpError::Decode { .. }) => break,
            Err(e) => return Err(e.into()),
        };
        (session, node) = (parent, owner_id);
    }
    Ok(done(found, nearest))
}

fn done(found: Vec<String>, nearest: Option<(String, BoxRect)>) -> AtApproved {
    if found.is_empty() {
        AtApproved::Missing { nearest }
    } else {
        AtApproved::Found(found)
    }
}
