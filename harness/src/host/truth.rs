//! The ground-truth reads a test makes most, as Host methods: where a landmark really is, what
//! Chromium's accessibility tree calls it, what has focus, what a frame's own document says. Each
//! asks the page's [`FrameSessions`](crate::frames::FrameSessions) (`oracle.rs`, `focus_truth.rs`, `frames.rs`), where the rest of
//! the ground truth is.

use serde_json::Value;

use super::{Host, HostError};
use crate::css_landmark;
use crate::focus_truth::Focused;
use crate::frames::Frame;
use crate::oracle::{AxFacts, BoxRect, Located};

impl Host {
    /// Finds the element with `data-landmark=name` in any frame, through open and closed shadow
    /// roots, in-process and out-of-process iframes ([`crate::frames::FrameSessions::locate_landmark`]).
    /// A `css:` landmark is the element its selector names ([`crate::css_landmark`]).
    pub async fn locate_landmark(&self, name: &str) -> Result<Located, HostError> {
        if name.starts_with(css_landmark::PREFIX) {
            return css_landmark::locate(self.frames(), name).await;
        }
        self.frames().locate_landmark(name).await
    }

    /// The border box of a landmark element in Host-viewport CSS pixels, from Chromium's box model.
    pub async fn landmark_rect(&self, name: &str) -> Result<BoxRect, HostError> {
        let at = self.locate_landmark(name).await?;
        self.frames().node_rect(&at).await
    }

    /// Role and accessible name of a landmark element from Chromium's accessibility tree.
    pub async fn landmark_ax(&self, name: &str) -> Result<AxFacts, HostError> {
        let at = self.locate_landmark(name).await?;
        crate::oracle::ax_facts(&at.session, at.backend_node_id).await
    }

    /// The element that has keyboard focus, or `None` when no frame of this page has focus
    /// ([`crate::frames::FrameSessions::focused_truth`]).
    pub async fn focused_truth(&self) -> Result<Option<Focused>, HostError> {
        self.frames().focused_truth().await
    }

    /// Evaluates `expr` in a given frame's main world: ground truth the runtime does not supply
    /// (a leaf's own event log, for example).
    pub async fn eval_in_frame(&self, frame: &Frame, expr: &str) -> Result<Value, HostError> {
        self.frames().eval_in_frame(frame, expr).await
    }
}
