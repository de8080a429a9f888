//! Agreement of the runtime's pointer candidate with Chromium at given points, shared by the
//! fidelity checks on our corpora (`fidelity.rs`) and `audit` on any page (`crate::audit`): at each
//! point the runtime's candidate (`snapshot({point, radius_css_px: 0})`, one sample at the point) is
//! compared with Chromium: its own hit test (`DOM.getNodeForLocation`, author shadow trees pierced,
//! in the frame that owns the point) with the promotion rule applied, its box model (rect within
//! 0.5 px) and its accessibility tree (role, name, ARIA state from the AX node's properties, and
//! text against the static text Chromium renders in the node's AX subtree, where the AX node is not
//! ignored). Where the runtime answers a point with an `unsupported-boundary` omission instead of a
//! candidate (a shadow root it cannot enter), Chromium must confirm it: the element the omission
//! names hosts a closed shadow root and Chromium's real leaf is in its flat subtree (or is the host).
//! Every disagreement is kept with its point and both answers ([`Disagreement`]).
//!
//! What the runtime withholds by design (spec "Privacy and security": password, hidden, file,
//! one-time-code, payment-card and credential-like controls, `data-wippy-attention="exclude"`
//! subtrees, the chat composer `[data-wippy-composer]`) is no disagreement when Chromium confirms it:
//! where the runtime answers a point with an `excluded` omission, the element Chromium's hit promotes
//! to, or one of its ancestors (through in-process frame owners), must be such an element by the
//! embedder's own rules on Chromium's DOM (`capture::privacy::classify`); the point is then counted
//! as [`Withheld`]. A withheld element the runtime gives a candidate for is a disagreement (aspect
//! `privacy`), and so is an `excluded` omission Chromium does not confirm. Text the runtime never
//! reads (inside such elements, `redact` subtrees and the labels of sensitive controls) is left out
//! of the text Chromium renders before the two are compared.
//!
//! The promotion rule (pages/runtime/README.md "Candidate promotion"): from the hit node, walk the
//! flat tree outward (a slotted node's parent is its assigned slot, a shadow root's is its host),
//! within the frame's document, elements only. The hit element is the first element that has a box
//! (a slot, display: contents, has none); the candidate is the first element with a box whose
//! Chromium AX role is an interactive widget role (INTERACTIVE_ROLES) and whose AX node is not
//! ignored, else the hit element. A candidate that is the document's `html` / `body` is no candidate.
//! `DOM.getNodeForLocation` reports a text hit as the text's DOM parent; when that is a shadow host
//! and one of its slotted text children has layout quads containing the point, the walk starts at
//! that text node (as the runtime's does).
//!
//! The points: a grid over an area ([`grid`]) and the centres of the elements in it
//! ([`element_centres`]), rounded as Chromium's hit test rounds and without duplicates ([`dedup`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::require_valid_payload;
use crate::attention::{Candidate, OmissionReason, Reported, Snapshot};
use crate::capture::privacy::{classify, Reason as PrivacyClass};
use crate::cdp::Session;
use crate::frames::FrameSessions;
use crate::host::Host;
use crate::oracle::{ax_facts, ax_rendered_text, border_box, AxFacts, BoxRect, DomIndex, FrameChain, FrameChains};
use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, GetContentQuadsParams};

/// Roles a user acts on: the candidate is promoted to the nearest ancestor with one of them.
pub const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "slider",
    "textbox",
    "searchbox",
    "spinbutton",
    "combobox",
    "treeitem",
    "gridcell",
    // Chromium's role for `<summary>`, which the runtime reports as `button`.
    "DisclosureTriangle",
];

/// Which part of the runtime's answer at a point differs from Chromium's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    /// Not the same element (or one side has none).
    Candidate,
    /// An `unsupported-boundary` omission Chromium does not confirm.
    Omission,
    /// The same element, its rect more than 0.5 px off.
    Rect,
    Role,
    Name,
    State,
    Text,
    /// Chromium's element is one the runtime must withhold (a sensitive control, excluded, the
    /// composer) and the runtime gave a candidate for it, or the runtime withheld an element that
    /// is none of these.
    Privacy,
}

impl Aspect {
    pub fn name(self) -> &'static str {
        match self {
            Aspect::Candidate => "candidate",
            Aspect::Omission => "omission",
            Aspect::Rect => "rect",
            Aspect::Role => "role",
            Aspect::Name => "name",
            Aspect::State => "state",
            Aspect::Text => "text",
            Aspect::Privacy => "privacy",
        }
    }
}

/// One side's answer at a point (what is known of it; `None` members were not part of the answer).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Answer {
    /// The element's local name; `None`: no candidate at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The runtime's role, or Chromium's AX role as CDP gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Host-viewport CSS px.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rect: Option<BoxRect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The mount id an `unsupported-boundary` omission names instead of a candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omission: Option<String>,
    /// Withheld by design: the runtime's `excluded` omission, or Chromium's privacy class of the
    /// element (`sensitive`, `excluded`, `composer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(m) = &self.omission {
            return write!(f, "unsupported-boundary omission for \u{201c}{m}\u{201d}");
        }
        if self.tag.is_none() {
            if let Some(w) = &self.withheld {
                return write!(f, "withheld ({w})");
            }
        }
        let Some(tag) = &self.tag else { return f.write_str("no candidate") };
        let role = self.role.as_deref().filter(|r| !r.is_empty());
        let name = self.name.as_deref().filter(|n| !n.is_empty());
        write!(f, "<{tag}> {}", crate::report::text::role_name(role, name))?;
        if let Some(r) = &self.rect {
            write!(f, " at {:.2},{:.2} {:.2}x{:.2}", r.x, r.y, r.width, r.height)?;
        }
        if let Some(s) = &self.state {
            let pairs: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
            write!(f, " state {}", crate::report::text::list(&pairs))?;
        }
        if let Some(t) = &self.text {
            write!(f, " text {}", crate::report::text::quote(&norm(t)))?;
        }
        if let Some(w) = &self.withheld {
            write!(f, " ({w})")?;
        }
        Ok(())
    }
}

/// A point where the runtime and Chromium disagree, with both answers.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Disagreement {
    pub x: f64,
    pub y: f64,
    pub aspect: Aspect,
    pub runtime: Answer,
    pub chromium: Answer,
    /// The CDP session of the frame Chromium's hit is in (the page's, or an out-of-process frame's);
    /// `None` where Chromium hit nothing.
    #[serde(skip)]
    pub session_id: Option<String>,
    /// The in-process frame of that session Chromium's hit is in (`None`: the session's top document).
    #[serde(skip)]
    pub frame_id: Option<String>,
    /// Chromium's element (its backend node id in that session), where Chromium hit one: the
    /// disagreements of one element are grouped by it.
    #[serde(skip)]
    pub element: Option<i64>,
    /// Why, where the answers alone do not say (the rect error, the confirmation that failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "({},{}) {}: runtime {}; Chromium {}",
            self.x,
            self.y,
            self.aspect.name(),
            self.runtime,
            self.chromium
        )?;
        if let Some(n) = &self.note {
            write!(f, " ({n})")?;
        }
        Ok(())
    }
}

/// A point the runtime withheld by design and Chromium confirms (see the module comment).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Withheld {
    pub x: f64,
    pub y: f64,
    /// Chromium's element at the point (tag, AX role and name, box).
    pub element: Answer,
    /// Why by design: `sensitive` (a password, hidden, file, one-time-code, payment-card or
    /// credential-like control), `excluded` (`data-wippy-attention="exclude"`) or `composer`.
    pub reason: &'static str,
    #[serde(skip)]
    pub session_id: String,
    /// The in-process frame of that session the element is in (`None`: the session's top document).
    #[serde(skip)]
    pub frame_id: Option<String>,
    /// Chromium's element, for grouping the points of one element.
    #[serde(skip)]
    pub backend_node_id: i64,
}

/// Points whose Chromium hit is in one frame, and how many of them agree on the element with a
/// candidate on both sides (the runtime of that frame answered there).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct FramePoints {
    pub points: usize,
    pub both_candidate_agree: usize,
}

/// The measured agreement.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Figures {
    pub points: usize,
    pub element_agree: usize,
    /// Points where both found an element (rects comparable).
    pub rect_comparable: usize,
    pub rect_agree: usize,
    pub max_rect_error: f64,
    /// Points with an element on both sides whose Chromium AX node is not ignored.
    pub ax_comparable: usize,
    pub role_agree: usize,
    pub name_agree: usize,
    /// ARIA state (checked, pressed, expanded, selected, disabled, required, invalid) against the
    /// AX node's properties, at the `ax_comparable` points.
    pub state_agree: usize,
    /// Of those, points where either side reports some state (the rest agree trivially).
    pub state_nonempty: usize,
    /// Points whose candidate has a text Chromium renders (not a form control), and how many agree
    /// with the AX subtree's static text.
    pub text_comparable: usize,
    pub text_agree: usize,
    /// Points the runtime answered with an `unsupported-boundary` omission (a shadow root it cannot
    /// enter) instead of a candidate, and how many of them Chromium confirms: the element the
    /// omission names hosts a closed shadow root and Chromium's real leaf (pierced hit test) is in
    /// its flat subtree or is the host itself. Confirmed ones count as element agreement.
    pub omitted: usize,
    pub omitted_agree: usize,
    /// Points the runtime withheld by design (an `excluded` omission) that Chromium confirms; they
    /// count as element agreement (listed in `withheld_points`).
    pub withheld: usize,
    #[serde(skip)]
    pub withheld_points: Vec<Withheld>,
    /// Points by the frame Chromium's hit is in: its CDP session, and the frame id of an in-process
    /// frame of that session (`None`: the session's own top document).
    #[serde(skip)]
    pub by_frame: BTreeMap<(String, Option<String>), FramePoints>,
    /// Every disagreement, in the order the points were compared (text ones last).
    #[serde(skip)]
    pub disagreements: Vec<Disagreement>,
}

/// `n` of `d` in percent; 100 when nothing was comparable.
pub fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        100.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

impl Figures {
    pub fn element_pct(&self) -> f64 {
        pct(self.element_agree, self.points)
    }
    pub fn rect_pct(&self) -> f64 {
        pct(self.rect_agree, self.rect_comparable)
    }
    pub fn role_pct(&self) -> f64 {
        pct(self.role_agree, self.ax_comparable)
    }
    pub fn name_pct(&self) -> f64 {
        pct(self.name_agree, self.ax_comparable)
    }
    pub fn state_pct(&self) -> f64 {
        pct(self.state_agree, self.ax_comparable)
    }
    pub fn text_pct(&self) -> f64 {
        pct(self.text_agree, self.text_comparable)
    }
    pub fn line(&self) -> String {
        format!(
            "{} points: element {:.2} % ({} of them unsupported-boundary omissions, {} confirmed), rect {:.2} % of {} (max {:.3} px), role {:.2} % / name {:.2} % / state {:.2} % of {} ({} with a state), text {:.2} % of {}",
            self.points,
            self.element_pct(),
            self.omitted,
            self.omitted_agree,
            self.rect_pct(),
            self.rect_comparable,
            self.max_rect_error,
            self.role_pct(),
            self.name_pct(),
            self.state_pct(),
            self.ax_comparable,
            self.state_nonempty,
            self.text_pct(),
            self.text_comparable
        )
    }
    /// The first `n` disagreements as lines, for a failure message.
    pub fn examples(&self, n: usize) -> Vec<String> {
        self.disagreements.iter().take(n).map(ToString::to_string).collect()
    }
}

/// What answers the runtime's side: the page whose runtime is asked and whose frames Chromium is
/// asked about (an opened reference [`Host`], or an audited page).
pub trait PointRuntime: Sync {
    /// The page's frame sessions, for Chromium's answers.
    fn frames(&self) -> &FrameSessions;
    /// The top realm's `wippyAttention.snapshot(options)`, read as the strict model.
    fn snapshot<'a>(&'a self, options: Value) -> BoxFuture<'a, anyhow::Result<Reported<Snapshot>>>;
}

impl PointRuntime for Host {
    fn frames(&self) -> &FrameSessions {
        Host::frames(self)
    }
    fn snapshot<'a>(&'a self, options: Value) -> BoxFuture<'a, anyhow::Result<Reported<Snapshot>>> {
        Box::pin(async move { Ok(self.snapshot_with(options).await?) })
    }
}

struct Truth {
    tag: String,
    rect: BoxRect,
    ax: AxFacts,
    session: Session,
    backend_node_id: i64,
    /// Hosts of closed shadow roots on the flat-tree walk up from the hit (the hit itself
    /// included): the real leaf is in their flat subtree, which a runtime that cannot enter them
    /// does not see.
    closed_hosts: Vec<i64>,
    /// The privacy class of the element or its nearest classified ancestor (its own tree upward,
    /// through in-process frame owners): what the runtime must withhold there. `redact` is not
    /// withheld (it keeps geometry and a candidate).
    withheld: Option<PrivacyClass>,
    /// The `frameId` of the in-process frame whose document holds the element (`None`: the
    /// session's own top document).
    frame_id: Option<String>,
}

struct Oracle<'a> {
    frames: &'a FrameSessions,
    dom: HashMap<String, DomIndex>,
    ax: HashMap<(String, i64), AxFacts>,
    text: HashMap<(String, i64), String>,
    /// The corpus does not move while it is measured: each frame chain is composed once, each
    /// element's border box read once.
    chains: FrameChains,
    boxes: HashMap<(String, i64), Option<BoxRect>>,
}

impl Oracle<'_> {
    async fn text(
        &mut self,
        s: &Session,
        backend_node_id: i64,
        unenterable: &std::collections::HashSet<(String, i64)>,
    ) -> anyhow::Result<String> {
        let key = (s.id.clone(), backend_node_id);
        if let Some(t) = self.text.get(&key) {
            return Ok(t.clone());
        }
        self.index(s).await?;
        let ix = &self.dom[&s.id];
        // Text inside a form control (its value, placeholder, a select's options) is never read,
        // nor text the runtime withholds by design (inside a sensitive control, an excluded or
        // redacted subtree, the composer, the label of a sensitive control), nor text in the tree
        // of a closed root the runtime declared it cannot enter.
        let t = ax_rendered_text(s, backend_node_id, |text| {
            let mut n = ix.flat_parent(text);
            // The labels of sensitive controls inside the candidate are skipped (its own text, when
            // it is such a label, is read as any element's).
            let mut inside = true;
            while let Some(id) = n {
                if matches!(ix.local_name(id).as_str(), "input" | "textarea" | "select") {
                    return true;
                }
                if id == backend_node_id {
                    inside = false;
                }
                if ix.node(id).is_some_and(|v| classify(v).is_some()) || (inside && labels_sensitive(ix, id)) {
                    return true;
                }
                n = ix.flat_parent(id);
            }
            let mut n = ix.tree_parent(text);
            while let Some(id) = n {
                if ix.node(id).is_some_and(|v| v["nodeType"] == 11) {
                    if let Some(host) = ix.tree_parent(id) {
                        if unenterable.contains(&(s.id.clone(), host)) {
                            return true;
                        }
                    }
                }
                n = ix.tree_parent(id);
            }
            false
        })
        .await?;
        self.text.insert(key, t.clone());
        Ok(t)
    }

    async fn index(&mut self, s: &Session) -> anyhow::Result<&DomIndex> {
        if !self.dom.contains_key(&s.id) {
            let ix = DomIndex::load(s).await?;
            self.dom.insert(s.id.clone(), ix);
        }
        Ok(&self.dom[&s.id])
    }

    async fn ax(&mut self, s: &Session, id: i64) -> anyhow::Result<AxFacts> {
        if let Some(f) = self.ax.get(&(s.id.clone(), id)) {
            return Ok(f.clone());
        }
        let f = ax_facts(s, id).await?;
        self.ax.insert((s.id.clone(), id), f.clone());
        Ok(f)
    }

    async fn truth_at(&mut self, x: f64, y: f64) -> anyhow::Result<Option<Truth>> {
        let Some(hit) = self.frames.hit_at_with(x, y, &mut self.chains).await? else { return Ok(None) };
        let s = hit.session.clone();
        let chain_to_host = self.chains.chain(self.frames, &s.id).await?;
        // DOM.getNodeForLocation answers a text hit with the text's DOM parent; for a shadow host
        // whose own slotted text is under the point, start from that text node (its layout quads
        // contain the point), whose flat-tree parent is its slot.
        let mut start = hit.backend_node_id;
        let texts = self.index(&s).await?.slotted_text_children(start);
        for t in texts {
            let quads = GetContentQuadsParams { backend_node_id: Some(BackendNodeId::new(t)), ..Default::default() };
            let Ok(q) = s.execute(&quads).await else { continue };
            let hit_text = q.quads.iter().any(|quad| {
                let q = quad.inner();
                q.len() == 8 && {
                    let r = BoxRect::from_quad(&chain_to_host.to_host.map_quad(q));
                    x >= r.x && x < r.right() && y >= r.y && y < r.bottom()
                }
            });
            if hit_text {
                start = t;
                break;
            }
        }
        // Walk the flat tree from there.
        let chain: Vec<i64> = {
            let ix = self.index(&s).await?;
            let mut v = Vec::new();
            let mut n = Some(start);
            while let Some(id) = n {
                if ix.node(id).is_none() || v.len() > 256 {
                    break;
                }
                if ix.is_element(id) {
                    v.push(id);
                }
                n = ix.flat_parent(id);
            }
            v
        };
        // The hit element is the first element with a box (a slot, display: contents, has none);
        // the candidate the first element with a box whose AX role is interactive and not ignored.
        let mut raw: Option<(i64, BoxRect)> = None;
        let mut chosen: Option<(i64, BoxRect)> = None;
        for &id in &chain {
            let key = (s.id.clone(), id);
            let rect = match self.boxes.get(&key) {
                Some(r) => *r,
                None => {
                    let r = border_box(&s, id, &chain_to_host.to_host).await;
                    self.boxes.insert(key, r);
                    r
                }
            };
            let Some(rect) = rect else { continue };
            if raw.is_none() {
                raw = Some((id, rect));
            }
            let f = self.ax(&s, id).await?;
            if !f.ignored && INTERACTIVE_ROLES.contains(&f.role.as_str()) {
                chosen = Some((id, rect));
                break;
            }
        }
        let Some((chosen, rect)) = chosen.or(raw) else { return Ok(None) };
        let tag = self.dom[&s.id].local_name(chosen);
        if matches!(tag.as_str(), "html" | "body" | "wf-html" | "wf-body" | "wf-document") {
            return Ok(None);
        }
        let ax = self.ax(&s, chosen).await?;
        let ix = &self.dom[&s.id];
        let closed_hosts = chain.iter().copied().filter(|&id| ix.hosts_closed_root(id)).collect();
        let withheld = withheld_class(ix, chosen);
        let frame_id = in_process_frame(ix, chosen);
        Ok(Some(Truth { tag, rect, ax, session: s, backend_node_id: chosen, closed_hosts, withheld, frame_id }))
    }
}

/// Chromium's AX role in the ARIA vocabulary the runtime reports: CDP gives ARIA roles in lower
/// case and Chromium's internal roles that have no ARIA counterpart in CamelCase (`LabelText` for a
/// `<label>` ...); an element without an ARIA role is `generic` in the runtime's summary
/// (pages/runtime/README.md "Snapshot decisions"), except a `<summary>`, which the runtime reports
/// as the `button` it acts as (Chromium's `DisclosureTriangle`).
pub fn aria_role(chromium: &str) -> &str {
    if chromium == "DisclosureTriangle" {
        "button"
    } else if chromium.starts_with(|c: char| c.is_ascii_uppercase()) {
        "generic"
    } else {
        chromium
    }
}

/// States where absent means false (`selected`, `disabled`, `required`, `invalid`) keep only their
/// true values; `checked`, `pressed` and `expanded` keep false too (an unchecked checkbox says so).
pub fn comparable_states(m: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    m.iter()
        .filter(|(k, v)| {
            !(matches!(k.as_str(), "selected" | "disabled" | "required" | "invalid") && v.as_str() == "false")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A summary's `state` object in the same vocabulary (`current` has no CDP AX property: left out).
pub fn runtime_states(state: &Option<BTreeMap<String, Value>>) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (k, v) in state.iter().flatten() {
        if !matches!(k.as_str(), "checked" | "pressed" | "expanded" | "selected" | "disabled" | "required" | "invalid")
        {
            continue;
        }
        let text = match v {
            Value::Bool(b) => b.to_string(),
            Value::String(s) => s.clone(),
            _ => continue,
        };
        m.insert(k.clone(), text);
    }
    comparable_states(&m)
}

/// The runtime's text against the text Chromium renders: the same characters in the same order
/// (white space aside: the AX tree splits text into one node per text run), the runtime's cut at
/// 160 scalar values allowed.
fn text_agrees(text: &str, rendered: &str) -> bool {
    let a: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let b: String = rendered.chars().filter(|c| !c.is_whitespace()).collect();
    a == b || (text.chars().count() >= 160 && b.starts_with(&a))
}

/// The mount id the runtime of the node's realm gives an element (its internal test hook), to
/// match an omission's `mount_id` with the element Chromium names.
async fn runtime_mount_id(s: &Session, backend_node_id: i64) -> anyhow::Result<Option<String>> {
    let Some(object_id) = s.resolve_node(backend_node_id).await? else { return Ok(None) };
    let r = s
        .call_function_on(
            &object_id,
            "function () { const r = window.__wippyAttentionRuntime; return r && r.mountIdOf ? r.mountIdOf(this) : null; }",
            true,
        )
        .await?;
    Ok(r["result"]["value"].as_str().map(str::to_string))
}

/// The privacy class that makes the runtime withhold `id`: its own or its nearest classified
/// ancestor's (its tree upward: a shadow root's parent is its host, a frame document's its
/// in-process `<iframe>`), as the runtime's `privacyOf` walks the composed ancestry. `redact` keeps
/// a candidate: none.
fn withheld_class(ix: &DomIndex, id: i64) -> Option<PrivacyClass> {
    let mut n = Some(id);
    let mut steps = 0;
    while let Some(at) = n {
        steps += 1;
        if steps > 4096 {
            return None;
        }
        match ix.node(at).and_then(classify) {
            Some(PrivacyClass::Redacted) | None => {}
            Some(c) => return Some(c),
        }
        n = ix.tree_parent(at).or_else(|| ix.frame_owner(at));
    }
    None
}

/// The `frameId` of the in-process frame whose document holds `id` (the owner `<iframe>`'s), `None`
/// for the session's own top document.
fn in_process_frame(ix: &DomIndex, id: i64) -> Option<String> {
    let mut n = id;
    let mut steps = 0;
    while let Some(p) = ix.tree_parent(n) {
        steps += 1;
        if steps > 4096 {
            return None;
        }
        n = p;
    }
    let owner = ix.frame_owner(n)?;
    ix.node(owner)?["frameId"].as_str().map(str::to_string)
}

/// The wire word for a withheld element's class.
fn withheld_word(c: PrivacyClass) -> &'static str {
    match c {
        PrivacyClass::Sensitive => "sensitive",
        PrivacyClass::Excluded => "excluded",
        PrivacyClass::Composer => "composer",
        PrivacyClass::Redacted => "redacted",
    }
}

/// Whether `id` is a `<label>` of a sensitive control (its `for` names one in the same tree, or it
/// contains one): the runtime reads no text of it (spec: such a label is part of the control).
fn labels_sensitive(ix: &DomIndex, id: i64) -> bool {
    if ix.local_name(id) != "label" {
        return false;
    }
    let sensitive = |n: i64| ix.node(n).and_then(classify) == Some(PrivacyClass::Sensitive);
    let attr = |n: i64, name: &str| -> Option<String> {
        let a = ix.node(n)?["attributes"].as_array()?;
        a.chunks(2).find(|p| p.len() == 2 && p[0] == name).and_then(|p| p[1].as_str()).map(str::to_string)
    };
    if let Some(target) = attr(id, "for").filter(|f| !f.is_empty()) {
        let root = ix.tree_root(id);
        if ix.elements_with_id(&target).into_iter().any(|n| ix.tree_root(n) == root && sensitive(n)) {
            return true;
        }
    }
    ix.descendants(id).into_iter().any(sensitive)
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The points of a `step` CSS px grid over `area`, each cell's centre.
pub fn grid(area: &BoxRect, step: f64) -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    let mut y = area.y + step / 2.0;
    while y < area.bottom() {
        let mut x = area.x + step / 2.0;
        while x < area.right() {
            points.push((x, y));
            x += step;
        }
        y += step;
    }
    points
}

/// The centres of the elements of `session`'s document (shadow trees and in-process frame
/// documents included; below the node `root` only, when given) whose border box, mapped to the
/// Host viewport by `chain`, is at least 1 x 1 px and whose centre lies strictly inside `area`.
pub async fn element_centres(
    session: &Session,
    root: Option<i64>,
    chain: &FrameChain,
    area: &BoxRect,
) -> anyhow::Result<Vec<(f64, f64)>> {
    let tree = session.pierced_document().await?;
    let mut ids = Vec::new();
    collect_elements_under(&tree, &mut ids, root.is_none(), root.unwrap_or(-1));
    let mut out = Vec::new();
    for id in ids {
        let Some(r) = border_box(session, id, &chain.to_host).await else { continue };
        let c = r.center();
        if r.width >= 1.0
            && r.height >= 1.0
            && c.0 > area.x
            && c.0 < area.right()
            && c.1 > area.y
            && c.1 < area.bottom()
        {
            out.push(c);
        }
    }
    Ok(out)
}

/// Points rounded as Chromium's hit test rounds (so both sides look at the same pixel), each
/// pixel once, in their first order.
pub fn dedup(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut seen = HashSet::new();
    points.into_iter().map(|p| (p.0.round(), p.1.round())).filter(|p| seen.insert((p.0 as i64, p.1 as i64))).collect()
}

/// Element nodes below `root_id` in a pierced tree (shadow trees and in-process frame documents
/// are walked to find it; only elements below it count; every element when `inside` from the start).
fn collect_elements_under(node: &Value, out: &mut Vec<i64>, inside: bool, root_id: i64) {
    let id = node["backendNodeId"].as_i64().unwrap_or_default();
    let inside = inside || id == root_id;
    if inside
        && node["nodeType"] == 1
        && !matches!(node["localName"].as_str(), Some("style" | "script" | "template" | "slot"))
    {
        out.push(id);
    }
    for key in ["shadowRoots", "children"] {
        for k in node[key].as_array().into_iter().flatten() {
            collect_elements_under(k, out, inside, root_id);
        }
    }
    if let Some(d) = node.get("contentDocument") {
        collect_elements_under(d, out, inside, root_id);
    }
}

fn runtime_answer(c: &Candidate) -> Answer {
    Answer {
        tag: Some(c.path.last().and_then(|s| s.tag_name.as_deref()).unwrap_or("?").to_string()),
        role: Some(c.summary.role.clone().unwrap_or_default()),
        name: Some(c.summary.name.clone().unwrap_or_default()),
        rect: Some(super::box_of(&c.rect)),
        ..Answer::default()
    }
}

fn chromium_answer(t: &Truth) -> Answer {
    Answer {
        tag: Some(t.tag.clone()),
        role: Some(t.ax.role.clone()),
        name: Some(t.ax.name.clone()),
        rect: Some(t.rect),
        ..Answer::default()
    }
}

/// A text comparison left for after every point was seen: the point, both answers, Chromium's
/// element (its session, backend node id and in-process frame).
type PendingText = (f64, f64, Answer, Answer, Session, i64, Option<String>);

/// Compares the runtime's candidate with Chromium's at every point (see the module comment);
/// `progress(done, total)` is called after each point.
pub async fn compare(
    rt: &dyn PointRuntime,
    points: &[(f64, f64)],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<Figures> {
    let mut oracle = Oracle {
        frames: rt.frames(),
        dom: HashMap::new(),
        ax: HashMap::new(),
        text: HashMap::new(),
        chains: FrameChains::default(),
        boxes: HashMap::new(),
    };
    let mut f = Figures::default();
    // Text comparisons wait until every point was seen: text inside a closed root the runtime
    // declared it cannot enter (a confirmed unsupported-boundary omission) is not expected in a
    // summary's text, so those roots must be known first.
    let mut texts: Vec<PendingText> = Vec::new();
    let mut unenterable: HashSet<(String, i64)> = Default::default();
    for (done, &(x, y)) in points.iter().enumerate() {
        progress(done, points.len());
        let snap = rt.snapshot(json!({"point": {"x": x, "y": y}, "radius_css_px": 0})).await?;
        require_valid_payload(snap.json()).map_err(|e| e.context(format!("the runtime's snapshot at ({x},{y})")))?;
        let pid = snap.capture.points.first().map(|p| p.point_id.as_str());
        let cand = super::candidates(&snap)
            .iter()
            .find(|c| pid.is_some_and(|pid| c.sample_point_ids.iter().any(|i| i == pid)))
            .cloned();
        let truth = oracle.truth_at(x, y).await?;
        let omission = snap
            .omissions
            .iter()
            .find(|o| o.reason == OmissionReason::UnsupportedBoundary && o.point_id.as_deref() == pid)
            .cloned();
        f.points += 1;
        let session_id = truth.as_ref().map(|t| t.session.id.clone());
        let frame_key = truth.as_ref().map(|t| (t.session.id.clone(), t.frame_id.clone()));
        let frame_id = truth.as_ref().and_then(|t| t.frame_id.clone());
        let frame = frame_key.as_ref().map(|k| f.by_frame.entry(k.clone()).or_default());
        if let Some(fp) = frame {
            fp.points += 1;
            if cand.is_some() {
                fp.both_candidate_agree += 1; // taken back below where the element differs
            }
        }
        let untake = |f: &mut Figures, _: &Option<String>| {
            if let Some(fp) = frame_key.as_ref().and_then(|k| f.by_frame.get_mut(k)) {
                fp.both_candidate_agree -= 1;
            }
        };
        let excluded = snap
            .omissions
            .iter()
            .any(|o| o.reason == OmissionReason::Excluded && o.point_id.as_deref() == pid && pid.is_some());
        let element = truth.as_ref().map(|t| t.backend_node_id);
        let differ = |aspect: Aspect, runtime: Answer, chromium: Answer, note: Option<String>, f: &mut Figures| {
            f.disagreements.push(Disagreement {
                x,
                y,
                aspect,
                runtime,
                chromium,
                session_id: session_id.clone(),
                frame_id: frame_id.clone(),
                element,
                note,
            });
        };
        match (cand, truth) {
            (None, Some(t)) if excluded => match t.withheld {
                Some(class) => {
                    f.withheld += 1;
                    f.element_agree += 1;
                    f.withheld_points.push(Withheld {
                        x,
                        y,
                        element: chromium_answer(&t),
                        reason: withheld_word(class),
                        session_id: t.session.id.clone(),
                        frame_id: t.frame_id.clone(),
                        backend_node_id: t.backend_node_id,
                    });
                }
                None => {
                    let runtime = Answer { withheld: Some("excluded".into()), ..Answer::default() };
                    let note = "the runtime withheld the point, but neither Chromium's element nor an ancestor is a \
                                sensitive control, excluded or the composer"
                        .to_string();
                    differ(Aspect::Privacy, runtime, chromium_answer(&t), Some(note), &mut f);
                }
            },
            (Some(c), Some(t)) if t.withheld.is_some() => {
                untake(&mut f, &session_id);
                let class = t.withheld.map(withheld_word).unwrap_or_default();
                let chromium = Answer { withheld: Some(class.to_string()), ..chromium_answer(&t) };
                let note = format!("Chromium's element is {class}: the runtime must withhold it");
                differ(Aspect::Privacy, runtime_answer(&c), chromium, Some(note), &mut f);
            }
            (None, Some(t)) if omission.is_some() => {
                f.omitted += 1;
                let named = omission.as_ref().and_then(|o| o.mount_id.as_deref()).unwrap_or_default().to_string();
                let mut confirmed = false;
                let mut confirmed_host = 0;
                for &h in &t.closed_hosts {
                    if runtime_mount_id(&t.session, h).await?.as_deref() == Some(named.as_str()) {
                        confirmed = true;
                        confirmed_host = h;
                        break;
                    }
                }
                if confirmed {
                    unenterable.insert((t.session.id.clone(), confirmed_host));
                    f.omitted_agree += 1;
                    f.element_agree += 1;
                } else {
                    let runtime = Answer { omission: Some(named.clone()), ..Answer::default() };
                    let note = format!(
                        "Chromium's hit reaches it through no closed root of the element mount {} names",
                        crate::report::text::quote(&named)
                    );
                    differ(Aspect::Omission, runtime, chromium_answer(&t), Some(note), &mut f);
                }
            }
            (None, None) => f.element_agree += 1,
            (Some(c), None) => {
                untake(&mut f, &session_id);
                differ(Aspect::Candidate, runtime_answer(&c), Answer::default(), None, &mut f)
            }
            (None, Some(t)) => differ(Aspect::Candidate, Answer::default(), chromium_answer(&t), None, &mut f),
            (Some(c), Some(t)) => {
                let tag = c.path.last().and_then(|s| s.tag_name.as_deref()).unwrap_or_default().to_string();
                let r = super::box_of(&c.rect);
                let same = tag == t.tag && t.rect.contains(r.center()) && r.contains(t.rect.center());
                if !same {
                    untake(&mut f, &session_id);
                    differ(Aspect::Candidate, runtime_answer(&c), chromium_answer(&t), None, &mut f);
                    continue;
                }
                f.element_agree += 1;
                f.rect_comparable += 1;
                let d = r.max_edge_delta(&t.rect);
                f.max_rect_error = f.max_rect_error.max(d);
                if d <= super::RECT_TOLERANCE {
                    f.rect_agree += 1;
                } else {
                    let note = format!("{d:.3} px apart");
                    differ(Aspect::Rect, runtime_answer(&c), chromium_answer(&t), Some(note), &mut f);
                }
                if !t.ax.ignored {
                    f.ax_comparable += 1;
                    let (role, name) =
                        (c.summary.role.as_deref().unwrap_or(""), c.summary.name.as_deref().unwrap_or(""));
                    if role == aria_role(&t.ax.role) {
                        f.role_agree += 1;
                    } else {
                        differ(Aspect::Role, runtime_answer(&c), chromium_answer(&t), None, &mut f);
                    }
                    if norm(name) == norm(&t.ax.name) {
                        f.name_agree += 1;
                    } else {
                        differ(Aspect::Name, runtime_answer(&c), chromium_answer(&t), None, &mut f);
                    }
                    let (mine, theirs) = (runtime_states(&c.summary.state), comparable_states(&t.ax.states));
                    if !mine.is_empty() || !theirs.is_empty() {
                        f.state_nonempty += 1;
                    }
                    if mine == theirs {
                        f.state_agree += 1;
                    } else {
                        let runtime = Answer { state: Some(mine), ..runtime_answer(&c) };
                        let chromium = Answer { state: Some(theirs), ..chromium_answer(&t) };
                        differ(Aspect::State, runtime, chromium, None, &mut f);
                    }
                    if !matches!(tag.as_str(), "input" | "textarea" | "select") {
                        let text = c.summary.text.as_deref().unwrap_or("").to_string();
                        let runtime = Answer { text: Some(text), ..runtime_answer(&c) };
                        texts.push((
                            x,
                            y,
                            runtime,
                            chromium_answer(&t),
                            t.session.clone(),
                            t.backend_node_id,
                            t.frame_id.clone(),
                        ));
                    }
                }
            }
        }
    }
    progress(points.len(), points.len());
    for (x, y, runtime, chromium, session, id, frame_id) in texts {
        let rendered = oracle.text(&session, id, &unenterable).await?;
        f.text_comparable += 1;
        if text_agrees(runtime.text.as_deref().unwrap_or(""), &rendered) {
            f.text_agree += 1;
        } else {
            let chromium = Answer { text: Some(rendered), ..chromium };
            let session_id = Some(session.id.clone());
            f.disagreements.push(Disagreement {
                x,
                y,
                aspect: Aspect::Text,
                runtime,
                chromium,
                session_id,
                frame_id,
                element: Some(id),
                note: None,
            });
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_internal_roles_without_an_aria_role_compare_as_generic_and_a_disclosure_triangle_as_button() {
        assert_eq!(aria_role("LabelText"), "generic");
        assert_eq!(aria_role("DisclosureTriangle"), "button", "a <summary> is the button it acts as");
        assert_eq!(aria_role("button"), "button");
        assert_eq!(aria_role("generic"), "generic");
        assert_eq!(aria_role("tab"), "tab");
    }

    #[test]
    fn a_grid_puts_a_point_at_each_cells_centre_inside_the_area() {
        let g = grid(&BoxRect { x: 10.0, y: 0.0, width: 100.0, height: 40.0 }, 40.0);
        assert_eq!(g, vec![(30.0, 20.0), (70.0, 20.0)]);
        assert_eq!(grid(&BoxRect { x: 0.0, y: 0.0, width: 39.0, height: 39.0 }, 40.0), vec![(20.0, 20.0)]);
    }

    #[test]
    fn points_are_rounded_and_each_pixel_is_compared_once() {
        assert_eq!(dedup(vec![(1.4, 2.6), (1.0, 3.0), (5.5, 0.2)]), vec![(1.0, 3.0), (6.0, 0.0)]);
    }

    #[test]
    fn a_disagreement_reads_as_its_point_aspect_and_both_answers() {
        let d = Disagreement {
            x: 20.0,
            y: 40.0,
            aspect: Aspect::Name,
            runtime: Answer {
                tag: Some("button".into()),
                role: Some("button".into()),
                name: Some("Save".into()),
                ..Answer::default()
            },
            chromium: Answer::default(),
            session_id: None,
            frame_id: None,
            element: None,
            note: None,
        };
        assert_eq!(d.to_string(), "(20,40) name: runtime <button> button \u{201c}Save\u{201d}; Chromium no candidate");
    }
}
