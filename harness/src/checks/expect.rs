//! What the reference Host's markup says the runtime must report (pages/README.md "Expected path
//! kinds"), and where each leaf's ground-truth log lives.

use crate::host::{Engine, Frame, Layout};

/// The leaves of the reference Host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// Left child of the boundary pair: a cross-origin iframe (or a fragment), no shadow root.
    Left,
    /// Right child of the boundary pair.
    Right,
    /// cross-origin iframe (or fragment) -> web component (open shadow root) -> nested artifact.
    Oopif,
    /// same-origin srcdoc iframe -> web component (closed shadow root).
    ClosedShadow,
}

impl Leaf {
    pub const ALL: [Leaf; 4] = [Leaf::Left, Leaf::Right, Leaf::Oopif, Leaf::ClosedShadow];

    pub fn landmark(self) -> &'static str {
        match self {
            Leaf::Left => "left-leaf",
            Leaf::Right => "right-leaf",
            Leaf::Oopif => "oopif-leaf",
            Leaf::ClosedShadow => "closed-shadow-leaf",
        }
    }

    pub fn named(name: &str) -> Option<Leaf> {
        Leaf::ALL.into_iter().find(|l| l.landmark() == name)
    }

    /// Whether the leaf sits behind the mounted app frame (iframe or web-fragment by engine),
    /// rather than the srcdoc iframe that stays an iframe in both engines.
    pub fn in_app_frame(self) -> bool {
        !matches!(self, Leaf::ClosedShadow)
    }
}

/// The ordered segment kinds from host to `leaf`.
pub fn expected_kinds(layout: Layout, engine: Engine, leaf: Leaf) -> Vec<&'static str> {
    let frame = match (leaf, engine) {
        (Leaf::ClosedShadow, _) | (_, Engine::Iframe) => "iframe",
        (_, Engine::Fragment) => "web-fragment",
    };
    let mut kinds = vec!["host", "panel"];
    if layout == Layout::Managed {
        kinds.push("page");
    }
    kinds.push("artifact");
    kinds.push(frame);
    match leaf {
        Leaf::Left | Leaf::Right => {}
        Leaf::Oopif => kinds.extend(["web-component", "shadow-root", "artifact"]),
        Leaf::ClosedShadow => kinds.extend(["web-component", "shadow-root"]),
    }
    kinds.push("element");
    kinds
}

/// Where `leaf`'s realm records its own events.
pub fn leaf_frame(engine: Engine, leaf: Leaf) -> Frame {
    match (engine, leaf) {
        (_, Leaf::ClosedShadow) => Frame::UrlContains("about:srcdoc".into()),
        (Engine::Iframe, Leaf::Left) => Frame::UrlContains("leaf.html?side=left".into()),
        (Engine::Iframe, Leaf::Right) => Frame::UrlContains("leaf.html?side=right".into()),
        (Engine::Iframe, Leaf::Oopif) => Frame::UrlContains("bridge.html".into()),
        (Engine::Fragment, Leaf::Left) => Frame::Name("wf:leaf-left".into()),
        (Engine::Fragment, Leaf::Right) => Frame::Name("wf:leaf-right".into()),
        (Engine::Fragment, Leaf::Oopif) => Frame::Name("wf:bridge".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managed_oopif_path_is_the_spec_chain_with_a_page() {
        assert_eq!(
            expected_kinds(Layout::Managed, Engine::Iframe, Leaf::Oopif),
            ["host", "panel", "page", "artifact", "iframe", "web-component", "shadow-root", "artifact", "element"]
        );
        assert_eq!(
            expected_kinds(Layout::Compat, Engine::Fragment, Leaf::ClosedShadow),
            ["host", "panel", "artifact", "iframe", "web-component", "shadow-root", "element"]
        );
    }
}
