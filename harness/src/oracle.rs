//! Chromium's own truth, beside the runtime: where an element really is, what the accessibility
//! tree calls it, what the browser's own hit test finds at a point. Tests compare the runtime with
//! these, never with itself (DESIGN.md "Ground truth beside the runtime").
//!
//! Geometry is composed through every frame level: a node's quads come from `DOM.getBoxModel` in
//! the session of the frame tree that holds it (Chromium already composes in-process frames into
//! their local root); each out-of-process local root is then mapped into its parent by the frame
//! owner's content quad (border and padding excluded, transforms, zoom, scroll and device scale
//! included) against the child's own viewport size, and so on up to the Host viewport. Nothing is
//! assumed to be the identity, so a mistake in any factor shows up as a difference.

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::accessibility::{GetPartialAxTreeParams, QueryAxTreeParams};
use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, GetNodeForLocationParams};
use serde_json::Value;

use crate::cdp::{quad_points, Session};
use crate::frames::{FrameSessions, HostError};

/// A rectangle in Host-viewport CSS pixels. It prints as people read a rect, `x,y wxh` (at most
/// one decimal), in Debug form too: check details that show a rect show it so.
#[derive(Clone, Copy, PartialEq, serde::Serialize)]
pub struct BoxRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl std::fmt::Display for BoxRect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = |v: f64| {
            let s = format!("{v:.1}");
            s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
        };
        write!(f, "{},{} {}x{}", n(self.x), n(self.y), n(self.width), n(self.height))
    }
}

impl std::fmt::Debug for BoxRect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl BoxRect {
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
    pub fn right(&self) -> f64 {
        self.x + self.width
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }
    /// The largest distance between corresponding edges of two rectangles.
    pub fn max_edge_delta(&self, other: &BoxRect) -> f64 {
        [
            (self.x - other.x).abs(),
            (self.y - other.y).abs(),
            (self.right() - other.right()).abs(),
            (self.bottom() - other.bottom()).abs(),
        ]
        .into_iter()
        .fold(0.0, f64::max)
    }
    /// Whether (x, y) lies inside (edges included).
    pub fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x && x <= self.right() && y >= self.y && y <= self.bottom()
    }
    /// The overlap of two rectangles (empty, at the nearer corner, when they do not meet).
    pub fn intersect(&self, o: &BoxRect) -> BoxRect {
        let (x0, y0) = (self.x.max(o.x), self.y.max(o.y));
        let (x1, y1) = (self.right().min(o.right()), self.bottom().min(o.bottom()));
        BoxRect { x: x0, y: y0, width: (x1 - x0).max(0.0), height: (y1 - y0).max(0.0) }
    }
    /// The bounding box of a quad `[x0,y0, x1,y1, x2,y2, x3,y3]`.
    pub fn from_quad(q: &[f64]) -> BoxRect {
        let xs = [q[0], q[2], q[4], q[6]];
        let ys = [q[1], q[3], q[5], q[7]];
        let (x0, x1) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
        let (y0, y1) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
        BoxRect { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
    }
    /// The rectangle's corners as a quad (clockwise from top left).
    pub fn quad(&self) -> [f64; 8] {
        [self.x, self.y, self.right(), self.y, self.right(), self.bottom(), self.x, self.bottom()]
    }
}

/// A 2D affine map in DOMMatrix terms: `x' = a x + c y + e`, `y' = b x + d y + f`. It prints as
/// CSS does: `matrix(1, 0, 0, 1, 10, 20)`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Affine {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub e: f64,
    pub f: f64,
}

impl std::fmt::Display for Affine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = |v: f64| format!("{}", (v * 1000.0).round() / 1000.0);
        write!(f, "matrix({}, {}, {}, {}, {}, {})", n(self.a), n(self.b), n(self.c), n(self.d), n(self.e), n(self.f))
    }
}

impl Affine {
    pub const IDENTITY: Affine = Affine { a: 1.0, b: 0.0, c: 0.0, d: 1.0, e: 0.0, f: 0.0 };

    pub fn apply(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f)
    }

    /// First `self`, then `outer` (`outer ∘ self`): maps a child space through its parent's map.
    pub fn then(&self, outer: &Affine) -> Affine {
        let o = outer;
        Affine {
            a: o.a * self.a + o.c * self.b,
            b: o.b * self.a + o.d * self.b,
            c: o.a * self.c + o.c * self.d,
            d: o.b * self.c + o.d * self.d,
            e: o.a * self.e + o.c * self.f + o.e,
            f: o.b * self.e + o.d * self.f + o.f,
        }
    }

    /// The inverse map, if the map is not degenerate.
    pub fn inverse(&self) -> Option<Affine> {
        let det = self.a * self.d - self.b * self.c;
        if det.abs() < 1e-12 || !det.is_finite() {
            return None;
        }
        let (a, b, c, d) = (self.d / det, -self.b / det, -self.c / det, self.a / det);
        Some(Affine { a, b, c, d, e: -(a * self.e + c * self.f), f: -(b * self.e + d * self.f) })
    }

    /// The map that lays a `w` x `h` viewport onto a frame owner's content quad: its origin goes to
    /// the quad's first corner, (w, 0) to the second, (0, h) to the fourth. Scale, rotation, skew
    /// and translation all come from the quad; nothing is assumed.
    pub fn viewport_to_quad(w: f64, h: f64, q: &[f64]) -> Affine {
        Affine {
            a: (q[2] - q[0]) / w,
            b: (q[3] - q[1]) / w,
            c: (q[6] - q[0]) / h,
            d: (q[7] - q[1]) / h,
            e: q[0],
            f: q[1],
        }
    }

    /// A segment's `local_to_parent.matrix` (DOMMatrix, column-major 4x4), as a 2D map.
    pub fn from_column_major(m: &[f64]) -> Option<Affine> {
        (m.len() == 16).then(|| Affine { a: m[0], b: m[1], c: m[4], d: m[5], e: m[12], f: m[13] })
    }

    pub fn map_quad(&self, q: &[f64]) -> [f64; 8] {
        let mut out = [0.0; 8];
        for i in 0..4 {
            let (x, y) = self.apply((q[2 * i], q[2 * i + 1]));
            out[2 * i] = x;
            out[2 * i + 1] = y;
        }
        out
    }

    /// The bounding box of a rectangle after the map.
    pub fn map_rect(&self, r: &BoxRect) -> BoxRect {
        BoxRect::from_quad(&self.map_quad(&r.quad()))
    }

    /// Only scale and translation (no rotation, no skew).
    pub fn is_axis_aligned(&self) -> bool {
        self.b.abs() < 1e-6 && self.c.abs() < 1e-6
    }

    /// The largest distance between where two maps send the corners of a `w` x `h` viewport.
    pub fn max_corner_delta(&self, other: &Affine, w: f64, h: f64) -> f64 {
        [(0.0, 0.0), (w, 0.0), (0.0, h), (w, h)]
            .into_iter()
            .map(|p| {
                let (a, b) = (self.apply(p), other.apply(p));
                (a.0 - b.0).abs().max((a.1 - b.1).abs())
            })
            .fold(0.0, f64::max)
    }
}

/// How a frame's viewport lies in the Host viewport.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameChain {
    /// Maps the frame's viewport coordinates (CSS px of that frame) to the Host viewport.
    pub to_host: Affine,
    /// The frame's viewport size in its own CSS px.
    pub viewport: (f64, f64),
    /// The viewports of this frame and every ancestor frame, in Host-viewport px (what clips).
    pub clips: Vec<BoxRect>,
}

impl FrameChain {
    /// The visible part of `r` (Host px) through every viewport of the chain.
    pub fn clip(&self, r: &BoxRect) -> BoxRect {
        self.clips.iter().fold(*r, |acc, c| acc.intersect(c))
    }
}

/// Where an element lives, as CDP addresses it.
#[derive(Debug, Clone)]
pub struct Located {
    pub session: Session,
    pub backend_node_id: i64,
    /// The in-process `<iframe>` elements (same session) between the session's root and the node,
    /// outermost first: Chromium composes their geometry itself, but their viewports still clip.
    pub inner_frames: Vec<i64>,
}

/// What Chromium's accessibility tree says about a node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AxFacts {
    pub role: String,
    pub name: String,
    /// Chromium leaves the node out of the accessibility tree (role and name then say little).
    pub ignored: bool,
    /// The AX node id (for walking its subtree with `Accessibility.getChildAXNodes`).
    pub node_id: String,
    /// The frame whose document holds the node (AX node ids are per frame document).
    pub frame_id: Option<String>,
    /// ARIA states in the runtime's vocabulary (`checked`, `pressed`: "true" / "false" / "mixed";
    /// `expanded`, `selected`, `disabled`, `required`, `invalid`: "true" / "false"), as Chromium
    /// exposes them in the node's AX properties; absent where Chromium exposes none.
    pub states: std::collections::BTreeMap<String, String>,
}

/// The AX properties that carry the states a summary reports, normalized to strings.
pub fn ax_states(properties: &Value) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for p in properties.as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default();
        if !matches!(name, "checked" | "pressed" | "expanded" | "selected" | "disabled" | "required" | "invalid") {
            continue;
        }
        let v = &p["value"]["value"];
        let text = match v {
            Value::Bool(b) => b.to_string(),
            Value::String(s) if name == "invalid" => (s != "false").to_string(),
            Value::String(s) => s.clone(),
            _ => continue,
        };
        out.insert(name.to_string(), text);
    }
    out
}

/// The text Chromium renders in an element's AX subtree: the names of its non-ignored `StaticText`
/// nodes (`Accessibility.queryAXTree`, tree order), joined by spaces. The accessibility tree follows
/// the flat tree (slotted content where its slot is, shadow content as rendered, hidden content left
/// out). `skip(text node)` leaves out text a summary never reads (the value and placeholder of form
/// controls: the caller decides from the DOM).
pub async fn ax_rendered_text(
    session: &Session,
    backend_node_id: i64,
    skip: impl Fn(i64) -> bool,
) -> Result<String, HostError> {
    let query = QueryAxTreeParams {
        backend_node_id: Some(BackendNodeId::new(backend_node_id)),
        role: Some("StaticText".into()),
        ..Default::default()
    };
    // AX nodes as JSON: the generated AXNode's enums would have to know every property and value
    // type Chromium 156 sends.
    let r = session.send(&query).await?;
    let mut out = Vec::new();
    for n in r["nodes"].as_array().into_iter().flatten() {
        if n["ignored"].as_bool().unwrap_or(false) {
            continue;
        }
        if n["backendDOMNodeId"].as_i64().is_some_and(&skip) {
            continue;
        }
        out.push(n.pointer("/name/value").and_then(Value::as_str).unwrap_or_default().to_string());
    }
    Ok(out.join(" "))
}

/// What Chromium's own hit test finds at a Host-viewport point, in the frame that owns it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub session: Session,
    pub backend_node_id: i64,
}

/// Chromium's truth on a Host page's frame sessions (see the module comment).
impl FrameSessions {
    /// Finds the element with `data-landmark=name` in any frame, through open and closed shadow
    /// roots (CDP's `pierce`), in-process iframes and out-of-process iframes.
    pub async fn locate_landmark(&self, name: &str) -> Result<Located, HostError> {
        self.locate_attr("data-landmark", name).await?.ok_or_else(|| HostError::NoLandmark(name.to_string()))
    }

    /// Finds the first element with `attr=value` in any frame (the page first, then every
    /// out-of-process frame in attach order).
    pub async fn locate_attr(&self, attr: &str, value: &str) -> Result<Option<Located>, HostError> {
        for session in self.sessions() {
            let root = session.pierced_document().await?;
            let mut frames = Vec::new();
            if let Some(id) = find_node(&root, attr, value, &mut frames) {
                return Ok(Some(Located { session, backend_node_id: id, inner_frames: frames }));
            }
        }
        Ok(None)
    }

    /// Every element whose `attr` starts with `prefix`, in every frame (one document read per
    /// session: the bulk form of [`FrameSessions::locate_attr`]), as `(attribute value, where)`.
    pub async fn locate_all(&self, attr: &str, prefix: &str) -> Result<Vec<(String, Located)>, HostError> {
        let mut out = Vec::new();
        for session in self.sessions() {
            let root = session.pierced_document().await?;
            let mut found = Vec::new();
            collect_nodes(&root, attr, prefix, &mut Vec::new(), &mut found);
            for (value, backend_node_id, inner_frames) in found {
                out.push((value, Located { session: session.clone(), backend_node_id, inner_frames }));
            }
        }
        Ok(out)
    }

    /// How the viewport of the frame tree behind `session` lies in the Host viewport, composed
    /// through every out-of-process frame owner up to the page.
    pub async fn session_chain(&self, session_id: &str) -> Result<FrameChain, HostError> {
        if session_id == self.page.id {
            let (w, h) = self.viewport_size(&self.page, None).await?;
            return Ok(FrameChain {
                to_host: Affine::IDENTITY,
                viewport: (w, h),
                clips: vec![BoxRect { x: 0.0, y: 0.0, width: w, height: h }],
            });
        }
        let child = self
            .child_targets()
            .into_iter()
            .find(|c| c.session_id == session_id)
            .ok_or_else(|| HostError::NoFrame(format!("no out-of-process frame with session {session_id}")))?;
        let parent = self.session(&child.parent_session_id);
        let owner_id = parent.frame_owner(&child.target_id).await?;
        let parent_chain = Box::pin(self.session_chain(&parent.id)).await?;
        let child_session = self.session(&child.session_id);
        self.compose_frame(&parent, owner_id, &parent_chain, &child_session, None).await
    }

    /// The chain of the frame whose owner `<iframe>` is `owner_id` in `parent` (whose own chain is
    /// `parent_chain`); the child document is read through `child` (and `context` when in process).
    async fn compose_frame(
        &self,
        parent: &Session,
        owner_id: i64,
        parent_chain: &FrameChain,
        child: &Session,
        context: Option<i64>,
    ) -> Result<FrameChain, HostError> {
        let model = parent.box_model(owner_id).await?;
        let content = parent_chain.to_host.map_quad(&quad_points(&model.content));
        let (w, h) = self.viewport_size(child, context).await?;
        let to_host = Affine::viewport_to_quad(w, h, &content);
        let mut clips = parent_chain.clips.clone();
        clips.push(BoxRect::from_quad(&content));
        Ok(FrameChain { to_host, viewport: (w, h), clips })
    }

    /// A document's viewport size in its own CSS px (`innerWidth` / `innerHeight`).
    async fn viewport_size(&self, session: &Session, context: Option<i64>) -> Result<(f64, f64), HostError> {
        let v = session
            .eval_in("[window.innerWidth, window.innerHeight]", context, crate::cdp::COMMAND_TIMEOUT)
            .await
            .map_err(|e| HostError::Eval { what: "the frame's viewport size".into(), source: e })?;
        match (v[0].as_f64(), v[1].as_f64()) {
            (Some(w), Some(h)) if w > 0.0 && h > 0.0 => Ok((w, h)),
            _ => Err(HostError::Unexpected { what: "viewport size".into(), detail: v.to_string() }),
        }
    }

    /// The chain of the frame a located node lives in (its session's chain; the clips of the
    /// in-process frames between are added).
    pub async fn chain_of(&self, at: &Located) -> Result<FrameChain, HostError> {
        let mut chain = self.session_chain(&at.session.id).await?;
        for owner in &at.inner_frames {
            // Chromium already maps in-process frames into their local root: only their viewport clips.
            let model = at.session.box_model(*owner).await?;
            let content = chain.to_host.map_quad(&quad_points(&model.content));
            chain.clips.push(BoxRect::from_quad(&content));
        }
        Ok(chain)
    }

    /// The border box of a located node in Host-viewport CSS px.
    pub async fn node_rect(&self, at: &Located) -> Result<BoxRect, HostError> {
        let chain = self.session_chain(&at.session.id).await?;
        self.node_rect_in(&at.session, at.backend_node_id, &chain).await
    }

    async fn node_rect_in(
        &self,
        session: &Session,
        backend_node_id: i64,
        chain: &FrameChain,
    ) -> Result<BoxRect, HostError> {
        let model = session.box_model(backend_node_id).await?;
        Ok(BoxRect::from_quad(&chain.to_host.map_quad(&quad_points(&model.border))))
    }

    /// The frame chain of the document inside the `<iframe>` at `at` (in process or not).
    pub async fn frame_behind(&self, at: &Located) -> Result<FrameChain, HostError> {
        let desc = at.session.describe_node(at.backend_node_id).await?;
        let frame_id = desc["frameId"].as_str().unwrap_or_default().to_string();
        if let Some(child) = self.child_targets().into_iter().find(|c| c.target_id == frame_id) {
            return self.session_chain(&child.session_id).await;
        }
        let parent_chain = self.chain_of(at).await?;
        let ctx = self.tracked.lock().ok().and_then(|t| t.frame_contexts.get(&frame_id).cloned());
        let Some((sid, ctx)) = ctx else {
            return Err(HostError::NoFrame(format!("frame {frame_id} has no main-world context")));
        };
        // An in-process frame: its nodes' quads are already in the local root, so its chain is the
        // parent's map with this frame's own viewport size and clip (for local_to_parent checks the
        // caller composes the owner's content quad, as for out-of-process frames).
        self.compose_frame(&at.session, at.backend_node_id, &parent_chain, &self.session(&sid), Some(ctx)).await
    }

    /// The border box of a landmark element in Host-viewport CSS pixels, from Chromium's box model.
    pub async fn landmark_rect(&self, name: &str) -> Result<BoxRect, HostError> {
        let at = self.locate_landmark(name).await?;
        self.node_rect(&at).await
    }

    /// Role and accessible name of a landmark element from Chromium's accessibility tree.
    pub async fn landmark_ax(&self, name: &str) -> Result<AxFacts, HostError> {
        let at = self.locate_landmark(name).await?;
        ax_facts(&at.session, at.backend_node_id).await
    }

    /// Chromium's own hit test at a Host-viewport point (`DOM.getNodeForLocation`, author shadow
    /// trees pierced, user-agent shadow trees not, `pointer-events: none` skipped), followed into
    /// the out-of-process frame that owns the point. `None` where nothing is hit.
    /// (`ignorePointerEventsNone: true` would *hit-test* `pointer-events: none` elements, such as a
    /// ripple or an outline painted over a control, which input passes through.)
    pub async fn hit_at(&self, x: f64, y: f64) -> Result<Option<Hit>, HostError> {
        self.hit_at_with(x, y, &mut FrameChains::default()).await
    }

    /// [`FrameSessions::hit_at`] reading the frame chains through `chains`: a caller that asks about many
    /// points of a page whose frames do not move (the fidelity corpora) composes each chain once.
    pub async fn hit_at_with(&self, x: f64, y: f64, chains: &mut FrameChains) -> Result<Option<Hit>, HostError> {
        let mut session = self.page.clone();
        let (mut lx, mut ly) = (x, y);
        for _ in 0..8 {
            let mut at = GetNodeForLocationParams::new(lx.round() as i64, ly.round() as i64);
            (at.include_user_agent_shadow_dom, at.ignore_pointer_events_none) = (Some(false), Some(false));
            let Ok(r) = session.execute(&at).await else { return Ok(None) };
            let id = *r.backend_node_id.inner();
            let (name, frame) = chains.described(&session, id).await?;
            let oop =
                (name == "IFRAME").then(|| self.child_targets().into_iter().find(|c| c.target_id == frame)).flatten();
            match oop {
                Some(child) => {
                    let chain = chains.chain(self, &child.session_id).await?;
                    let Some(inv) = chain.to_host.inverse() else { return Ok(None) };
                    let (cx, cy) = inv.apply((x, y));
                    if cx < 0.0 || cy < 0.0 || cx >= chain.viewport.0 || cy >= chain.viewport.1 {
                        // On the owner's border or padding: the owner itself is hit.
                        return Ok(Some(Hit { session, backend_node_id: id }));
                    }
                    session = self.session(&child.session_id);
                    (lx, ly) = (cx, cy);
                }
                None => return Ok(Some(Hit { session, backend_node_id: id })),
            }
        }
        Ok(None)
    }
}

/// Role, name and whether Chromium ignores the node, from `Accessibility.getPartialAXTree`.
pub async fn ax_facts(session: &Session, backend_node_id: i64) -> Result<AxFacts, HostError> {
    let partial = GetPartialAxTreeParams {
        backend_node_id: Some(BackendNodeId::new(backend_node_id)),
        fetch_relatives: Some(false),
        ..Default::default()
    };
    // AX nodes as JSON: the generated AXNode's enums would have to know every property and value
    // type Chromium 156 sends.
    let tree = session.send(&partial).await?;
    let node = tree["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["backendDOMNodeId"].as_i64() == Some(backend_node_id)).or(n.first()))
        .cloned()
        .unwrap_or(Value::Null);
    Ok(AxFacts {
        role: node.pointer("/role/value").and_then(Value::as_str).unwrap_or_default().to_string(),
        name: node.pointer("/name/value").and_then(Value::as_str).unwrap_or_default().to_string(),
        ignored: node["ignored"].as_bool().unwrap_or(true),
        node_id: node["nodeId"].as_str().unwrap_or_default().to_string(),
        frame_id: node["frameId"].as_str().map(str::to_string),
        states: ax_states(&node["properties"]),
    })
}

/// A node's border quad from Chromium's box model (`DOM.getBoxModel`), in its frame's local root;
/// `None` when it has no box (display: none or contents, a hidden input, a node gone).
pub async fn border_quad(session: &Session, backend_node_id: i64) -> Option<Vec<f64>> {
    let model = session.box_model(backend_node_id).await.ok()?;
    let q = model.border.inner();
    (q.len() == 8).then(|| q.clone())
}

/// [`border_quad`] mapped into the Host viewport (CSS px) by `to_host`.
pub async fn border_box(session: &Session, backend_node_id: i64, to_host: &Affine) -> Option<BoxRect> {
    border_quad(session, backend_node_id).await.map(|q| BoxRect::from_quad(&to_host.map_quad(&q)))
}

/// Frame chains already composed, by CDP session id, and the node name and frame id of nodes
/// already described (see [`FrameSessions::hit_at_with`]). Only for a page whose frames keep their place
/// while it is used; a fresh one reads everything anew.
#[derive(Default)]
pub struct FrameChains {
    chains: HashMap<String, FrameChain>,
    nodes: HashMap<(String, i64), (String, String)>,
}

impl FrameChains {
    /// The chain of the frame tree behind `session_id`, composed on first use.
    pub async fn chain(&mut self, frames: &FrameSessions, session_id: &str) -> Result<FrameChain, HostError> {
        if let Some(c) = self.chains.get(session_id) {
            return Ok(c.clone());
        }
        let c = frames.session_chain(session_id).await?;
        self.chains.insert(session_id.to_string(), c.clone());
        Ok(c)
    }

    /// A node's name and (for a frame owner) frame id, described on first use: neither changes
    /// while the node lives.
    async fn described(&mut self, session: &Session, backend_node_id: i64) -> Result<(String, String), HostError> {
        let key = (session.id.clone(), backend_node_id);
        if let Some(d) = self.nodes.get(&key) {
            return Ok(d.clone());
        }
        let desc = session.describe_node(backend_node_id).await?;
        let node = &desc;
        let d = (
            node["nodeName"].as_str().unwrap_or_default().to_string(),
            node["frameId"].as_str().unwrap_or_default().to_string(),
        );
        self.nodes.insert(key, d.clone());
        Ok(d)
    }
}

/// The pierced DOM of one frame tree with parent links, to walk the composed (flat) tree.
pub struct DomIndex {
    nodes: HashMap<i64, Value>,
    /// backendNodeId -> flat-tree parent: the assigned slot for slotted nodes, the host for a
    /// shadow root, the parent otherwise.
    flat_parent: HashMap<i64, i64>,
    /// backendNodeId -> the slot it is assigned to, from each slot's `distributedNodes` (CDP gives
    /// `assignedSlot` to elements only; slotted text nodes are known from their slot).
    slot_of: HashMap<i64, i64>,
    /// backendNodeId -> its light-DOM children.
    children: HashMap<i64, Vec<i64>>,
    /// Hosts of closed shadow roots.
    closed_hosts: std::collections::HashSet<i64>,
    /// backendNodeId -> its parent in its own tree (a shadow root's is its host).
    tree_parent: HashMap<i64, i64>,
    /// An in-process frame's document backendNodeId -> its `<iframe>` owner (the flat walk stops
    /// at a frame's root; this is where a walk that crosses frames continues).
    frame_owner: HashMap<i64, i64>,
}

impl DomIndex {
    pub async fn load(session: &Session) -> Result<DomIndex, HostError> {
        Ok(DomIndex::from_tree(&session.pierced_document().await?))
    }

    pub fn from_tree(root: &Value) -> DomIndex {
        let mut ix = DomIndex {
            nodes: HashMap::new(),
            flat_parent: HashMap::new(),
            slot_of: HashMap::new(),
            children: HashMap::new(),
            closed_hosts: Default::default(),
            tree_parent: HashMap::new(),
            frame_owner: HashMap::new(),
        };
        ix.add(root, None);
        ix
    }

    fn add(&mut self, node: &Value, parent: Option<i64>) {
        let Some(id) = node["backendNodeId"].as_i64() else { return };
        let mut shallow = node.clone();
        if let Some(o) = shallow.as_object_mut() {
            for k in ["children", "shadowRoots", "contentDocument", "templateContent", "pseudoElements"] {
                o.remove(k);
            }
        }
        self.nodes.insert(id, shallow);
        if let Some(p) = parent {
            self.tree_parent.insert(id, p);
        }
        let slot = node.pointer("/assignedSlot/backendNodeId").and_then(Value::as_i64);
        if let Some(p) = slot.or(parent) {
            self.flat_parent.insert(id, p);
        }
        if node["shadowRoots"].as_array().into_iter().flatten().any(|r| r["shadowRootType"] == "closed") {
            self.closed_hosts.insert(id);
        }
        for d in node["distributedNodes"].as_array().into_iter().flatten() {
            if let Some(n) = d["backendNodeId"].as_i64() {
                self.slot_of.insert(n, id);
            }
        }
        // Chromium's hit test can answer with a pseudo-element (`::before` / `::after` painted over
        // its element): its flat-tree parent is its originating element, and it is no element of its
        // own (`is_element` is false), as page script's hit test answers the originating element.
        for key in ["pseudoElements", "shadowRoots", "children"] {
            for k in node[key].as_array().into_iter().flatten() {
                if key == "children" {
                    if let Some(c) = k["backendNodeId"].as_i64() {
                        self.children.entry(id).or_default().push(c);
                    }
                }
                self.add(k, Some(id));
            }
        }
        // Frames are separate documents: the walk stops at their root.
        if let Some(d) = node.get("contentDocument") {
            if let Some(doc) = d["backendNodeId"].as_i64() {
                self.frame_owner.insert(doc, id);
            }
            self.add(d, None);
        }
    }

    /// The in-process `<iframe>` that owns the frame document `doc`.
    pub fn frame_owner(&self, doc: i64) -> Option<i64> {
        self.frame_owner.get(&doc).copied()
    }

    pub fn node(&self, id: i64) -> Option<&Value> {
        self.nodes.get(&id)
    }

    pub fn flat_parent(&self, id: i64) -> Option<i64> {
        self.slot_of.get(&id).or_else(|| self.flat_parent.get(&id)).copied()
    }

    /// The slotted text children of `id` (text nodes some slot distributes).
    pub fn slotted_text_children(&self, id: i64) -> Vec<i64> {
        let kids = self.children.get(&id).map(Vec::as_slice).unwrap_or_default();
        kids.iter()
            .copied()
            .filter(|c| self.nodes.get(c).is_some_and(|n| n["nodeType"] == 3) && self.slot_of.contains_key(c))
            .collect()
    }

    pub fn local_name(&self, id: i64) -> String {
        self.nodes.get(&id).and_then(|n| n["localName"].as_str()).unwrap_or_default().to_string()
    }

    /// The node's parent in its own tree (a shadow root's is its host; a pseudo-element's its
    /// originating element).
    pub fn tree_parent(&self, id: i64) -> Option<i64> {
        self.tree_parent.get(&id).copied()
    }

    /// The root of `id`'s own tree (its document or shadow root; `id` itself when it has no parent).
    pub fn tree_root(&self, id: i64) -> i64 {
        let mut n = id;
        while let Some(p) = self.tree_parent.get(&n).filter(|_| self.nodes.get(&n).is_none_or(|v| v["nodeType"] != 11))
        {
            n = *p;
        }
        n
    }

    /// The elements whose `id` attribute is `value`, in any tree of the index.
    pub fn elements_with_id(&self, value: &str) -> Vec<i64> {
        self.nodes
            .iter()
            .filter(|(_, n)| {
                n["nodeType"] == 1
                    && n["attributes"]
                        .as_array()
                        .is_some_and(|a| a.chunks(2).any(|p| p.len() == 2 && p[0] == "id" && p[1] == value))
            })
            .map(|(id, _)| *id)
            .collect()
    }

    /// The light-tree descendants of `id` (children, their children ...; no shadow trees).
    pub fn descendants(&self, id: i64) -> Vec<i64> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            for &c in self.children.get(&n).map(Vec::as_slice).unwrap_or_default() {
                out.push(c);
                stack.push(c);
            }
        }
        out
    }

    /// Whether the element hosts a closed shadow root.
    pub fn hosts_closed_root(&self, id: i64) -> bool {
        self.closed_hosts.contains(&id)
    }

    /// An element node; a pseudo-element (`::before`, `::marker` ...) is not one.
    pub fn is_element(&self, id: i64) -> bool {
        self.nodes.get(&id).is_some_and(|n| n["nodeType"] == 1 && n.get("pseudoType").is_none())
    }
}

/// The bounding rectangle of a CDP box-model quad (`DOM.getBoxModel` `border`, `content` ...).
pub(crate) fn rect_of_quad(q: &chromiumoxide::cdp::browser_protocol::dom::Quad) -> BoxRect {
    BoxRect::from_quad(&quad_points(q))
}

/// Depth-first search of a pierced DOM tree for `attr=value`; `frames` collects the in-process
/// `<iframe>` owners passed on the way to the hit.
fn find_node(node: &Value, attr: &str, value: &str, frames: &mut Vec<i64>) -> Option<i64> {
    if let Some(attrs) = node["attributes"].as_array() {
        for pair in attrs.chunks(2) {
            if pair.len() == 2 && pair[0] == attr && pair[1] == value {
                return node["backendNodeId"].as_i64();
            }
        }
    }
    for key in ["shadowRoots", "children"] {
        if let Some(kids) = node[key].as_array() {
            for k in kids {
                if let Some(id) = find_node(k, attr, value, frames) {
                    return Some(id);
                }
            }
        }
    }
    let doc = node.get("contentDocument")?;
    frames.push(node["backendNodeId"].as_i64().unwrap_or_default());
    let found = find_node(doc, attr, value, frames);
    if found.is_none() {
        frames.pop();
    }
    found
}

/// Every node under `node` whose `attr` starts with `prefix`: (value, backend node id, in-process frames).
fn collect_nodes(
    node: &Value,
    attr: &str,
    prefix: &str,
    frames: &mut Vec<i64>,
    out: &mut Vec<(String, i64, Vec<i64>)>,
) {
    if let Some(attrs) = node["attributes"].as_array() {
        for pair in attrs.chunks(2) {
            if let (2, Some(v)) = (pair.len(), pair.get(1).and_then(Value::as_str)) {
                if pair[0] == attr && v.starts_with(prefix) {
                    out.push((v.to_string(), node["backendNodeId"].as_i64().unwrap_or_default(), frames.clone()));
                }
            }
        }
    }
    for key in ["shadowRoots", "children"] {
        for k in node[key].as_array().into_iter().flatten() {
            collect_nodes(k, attr, prefix, frames, out);
        }
    }
    if let Some(doc) = node.get("contentDocument") {
        frames.push(node["backendNodeId"].as_i64().unwrap_or_default());
        collect_nodes(doc, attr, prefix, frames, out);
        frames.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn in_process_frame_documents_map_to_their_owner() {
        let tree = json!({"backendNodeId": 1, "children": [
            {"backendNodeId": 2, "shadowRoots": [{"backendNodeId": 3, "children": [
                {"backendNodeId": 4, "nodeName": "IFRAME", "contentDocument": {"backendNodeId": 5, "children": [
                    {"backendNodeId": 6, "nodeName": "IFRAME", "contentDocument": {"backendNodeId": 7}}]}}]}]}]});
        let ix = DomIndex::from_tree(&tree);
        assert_eq!((ix.frame_owner(5), ix.frame_owner(7), ix.frame_owner(4)), (Some(4), Some(6), None));
        assert_eq!(ix.flat_parent(5), None, "the flat walk stops at a frame's root");
    }

    #[test]
    fn finds_landmark_inside_closed_shadow_root_of_pierced_tree() {
        let tree = json!({"backendNodeId": 1, "children": [
            {"backendNodeId": 2, "attributes": ["id", "x"], "shadowRoots": [
                {"backendNodeId": 3, "shadowRootType": "closed", "children": [
                    {"backendNodeId": 4, "attributes": ["class", "b", "data-landmark", "closed-shadow-leaf"]}]}]}]});
        let mut frames = Vec::new();
        assert_eq!(find_node(&tree, "data-landmark", "closed-shadow-leaf", &mut frames), Some(4));
        assert_eq!(find_node(&tree, "data-landmark", "missing", &mut frames), None);
        assert!(frames.is_empty());
    }

    #[test]
    fn search_records_the_in_process_frames_it_passes() {
        let tree = json!({"backendNodeId": 1, "children": [
            {"backendNodeId": 2, "nodeName": "IFRAME", "contentDocument": {"backendNodeId": 3, "children": [
                {"backendNodeId": 4, "attributes": ["data-landmark", "x"]}]}},
            {"backendNodeId": 5, "nodeName": "IFRAME", "contentDocument": {"backendNodeId": 6}}]});
        let mut frames = Vec::new();
        assert_eq!(find_node(&tree, "data-landmark", "x", &mut frames), Some(4));
        assert_eq!(frames, vec![2]);
    }

    #[test]
    fn flat_parent_of_slotted_text_is_its_slot_and_of_a_shadow_root_its_host() {
        // <x-b>(shadow: <button><slot/></button>)Save<span slot=s>x</span></x-b>
        let tree = json!({"backendNodeId": 1, "nodeType": 1, "shadowRoots": [
            {"backendNodeId": 2, "nodeType": 11, "children": [
                {"backendNodeId": 3, "nodeType": 1, "localName": "button", "children": [
                    {"backendNodeId": 4, "nodeType": 1, "localName": "slot", "distributedNodes": [{"backendNodeId": 5}, {"backendNodeId": 6}]}]}]}],
            "children": [{"backendNodeId": 5, "nodeType": 3}, {"backendNodeId": 6, "nodeType": 1, "assignedSlot": {"backendNodeId": 4}},
                         {"backendNodeId": 7, "nodeType": 3}]});
        let ix = DomIndex::from_tree(&tree);
        assert_eq!(ix.flat_parent(5), Some(4), "slotted text -> its slot");
        assert_eq!(ix.flat_parent(6), Some(4), "slotted element -> its slot");
        assert_eq!(ix.flat_parent(4), Some(3));
        assert_eq!(ix.flat_parent(2), Some(1), "shadow root -> host");
        assert_eq!(ix.flat_parent(7), Some(1), "unassigned text keeps its parent");
    }

    #[test]
    fn a_pseudo_element_is_no_element_and_its_flat_parent_is_its_originating_element() {
        let tree = json!({"backendNodeId": 1, "nodeType": 1, "localName": "div", "pseudoElements": [
            {"backendNodeId": 2, "nodeType": 1, "localName": "::before", "pseudoType": "before"}]});
        let ix = DomIndex::from_tree(&tree);
        assert!(ix.node(2).is_some(), "a pseudo-element hit is known to the index");
        assert!(!ix.is_element(2), "a pseudo-element is not an element of its own");
        assert!(ix.is_element(1));
        assert_eq!(ix.flat_parent(2), Some(1), "pseudo-element -> originating element");
    }

    #[test]
    fn rect_from_quad_and_edge_delta() {
        let r = BoxRect::from_quad(&[10.0, 20.0, 110.0, 20.0, 110.0, 44.0, 10.0, 44.0]);
        assert_eq!(r, BoxRect { x: 10.0, y: 20.0, width: 100.0, height: 24.0 });
        let s = BoxRect { x: 10.25, ..r };
        assert_eq!(r.max_edge_delta(&s), 0.25);
    }

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9
    }

    #[test]
    fn viewport_to_quad_takes_scale_and_offset_from_the_content_quad() {
        // A 240x120 child laid into a content quad at (300, 80) scaled by 1.25 (zoom or transform).
        let m = Affine::viewport_to_quad(240.0, 120.0, &[300.0, 80.0, 600.0, 80.0, 600.0, 230.0, 300.0, 230.0]);
        assert!(close(m.apply((0.0, 0.0)), (300.0, 80.0)));
        assert!(close(m.apply((240.0, 120.0)), (600.0, 230.0)));
        assert!(close(m.apply((96.0, 44.0)), (300.0 + 96.0 * 1.25, 80.0 + 44.0 * 1.25)));
        assert!(m.is_axis_aligned());
    }

    #[test]
    fn composition_applies_the_inner_frame_first_then_its_parent() {
        // Grandchild in child at (10, 20) scale 2; child in host at (100, 50) scale 0.5.
        let inner = Affine { a: 2.0, d: 2.0, e: 10.0, f: 20.0, ..Affine::IDENTITY };
        let outer = Affine { a: 0.5, d: 0.5, e: 100.0, f: 50.0, ..Affine::IDENTITY };
        let both = inner.then(&outer);
        assert!(close(both.apply((4.0, 6.0)), outer.apply(inner.apply((4.0, 6.0)))));
        assert!(close(both.apply((4.0, 6.0)), (100.0 + (10.0 + 8.0) * 0.5, 50.0 + (20.0 + 12.0) * 0.5)));
        // Order matters: the other way round is a different map.
        assert!(!close(outer.then(&inner).apply((4.0, 6.0)), both.apply((4.0, 6.0))));
    }

    #[test]
    fn a_rotated_owner_quad_gives_a_rotation_and_the_inverse_undoes_it() {
        // 100x50 viewport rotated 90 degrees clockwise about its origin placed at (200, 100).
        let m = Affine::viewport_to_quad(100.0, 50.0, &[200.0, 100.0, 200.0, 200.0, 150.0, 200.0, 150.0, 100.0]);
        assert!(!m.is_axis_aligned());
        assert!(close(m.apply((100.0, 0.0)), (200.0, 200.0)));
        let inv = m.inverse().unwrap();
        assert!(close(inv.apply(m.apply((37.0, 11.0))), (37.0, 11.0)));
        assert_eq!(
            m.map_rect(&BoxRect { x: 0.0, y: 0.0, width: 100.0, height: 50.0 }),
            BoxRect { x: 150.0, y: 100.0, width: 50.0, height: 100.0 }
        );
    }

    #[test]
    fn local_to_parent_column_major_reads_as_the_same_map() {
        let m = Affine::from_column_major(&[
            1.5, 0.0, 0.0, 0.0, 0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 12.0, 34.0, 0.0, 1.0,
        ])
        .unwrap();
        assert!(close(m.apply((2.0, 2.0)), (15.0, 37.0)));
        assert!(Affine::from_column_major(&[1.0; 6]).is_none());
        let off = Affine { e: 12.4, ..m };
        assert!((m.max_corner_delta(&off, 10.0, 10.0) - 0.4).abs() < 1e-9);
    }

    #[test]
    fn clip_is_the_overlap_with_every_viewport_of_the_chain() {
        let chain = FrameChain {
            to_host: Affine::IDENTITY,
            viewport: (100.0, 100.0),
            clips: vec![
                BoxRect { x: 0.0, y: 0.0, width: 1280.0, height: 720.0 },
                BoxRect { x: 50.0, y: 50.0, width: 100.0, height: 100.0 },
            ],
        };
        assert_eq!(
            chain.clip(&BoxRect { x: 40.0, y: 60.0, width: 30.0, height: 200.0 }),
            BoxRect { x: 50.0, y: 60.0, width: 20.0, height: 90.0 }
        );
    }

    #[test]
    fn flat_tree_parent_of_a_slotted_node_is_its_slot_and_of_a_shadow_root_its_host() {
        let tree = json!({"backendNodeId": 1, "nodeType": 9, "children": [
            {"backendNodeId": 2, "nodeType": 1, "localName": "x-button", "shadowRoots": [
                {"backendNodeId": 3, "nodeType": 11, "children": [
                    {"backendNodeId": 4, "nodeType": 1, "localName": "button", "children": [
                        {"backendNodeId": 5, "nodeType": 1, "localName": "slot"}]}]}],
             "children": [{"backendNodeId": 6, "nodeType": 1, "localName": "span", "assignedSlot": {"backendNodeId": 5}}]}]});
        let ix = DomIndex::from_tree(&tree);
        assert_eq!(ix.flat_parent(6), Some(5));
        assert_eq!(ix.flat_parent(5), Some(4));
        assert_eq!(ix.flat_parent(3), Some(2));
        assert_eq!(ix.local_name(4), "button");
    }
}
