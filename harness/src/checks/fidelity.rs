//! Fidelity on a third-party component corpus (issue 7): at every point of a 40 px grid over the
//! corpus and at every element centre, the runtime's pointer candidate (`snapshot({point,
//! radius_css_px: 0})`, one sample at the point) is compared with Chromium: its own hit test
//! (`DOM.getNodeForLocation`, author shadow trees pierced, in the frame that owns the point) with
//! the promotion rule applied, its box model (rect within 0.5 px) and its accessibility tree (role,
//! name, ARIA state from the AX node's properties, and text against the static text Chromium renders
//! in the node's AX subtree, where the AX node is not ignored). Where the runtime answers a point
//! with an `unsupported-boundary` omission instead of a candidate (a shadow root it cannot enter),
//! Chromium must confirm it: the element the omission names hosts a closed shadow root and
//! Chromium's real leaf is in its flat subtree (or is the host).
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

use std::collections::{BTreeMap, HashMap};

use anyhow::{ensure, Context};
use serde_json::{json, Value};

use super::{require_valid_payload, wait_for, Poll};
use crate::attention::{Candidate, OmissionReason};
use crate::cdp::Session;
use crate::host::Host;
use crate::oracle::{ax_facts, ax_rendered_text, border_box, AxFacts, BoxRect, DomIndex, FrameChains};
use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, GetContentQuadsParams};

/// Grid step over the corpus, CSS px (issue 7).
pub const GRID_STEP: f64 = 40.0;
/// Thresholds of issue 7, percent of comparable points.
pub const ELEMENT_MIN: f64 = 99.5;
pub const RECT_MIN: f64 = 100.0;
pub const ROLE_MIN: f64 = 99.0;
pub const NAME_MIN: f64 = 98.0;
/// Issue 7 states no threshold for ARIA state and text: every comparable point must agree.
pub const STATE_MIN: f64 = 100.0;
pub const TEXT_MIN: f64 = 100.0;

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
    /// A few disagreements, for the report.
    pub examples: Vec<String>,
}

/// `n` of `d` in percent; 100 when nothing was comparable.
pub(super) fn pct(n: usize, d: usize) -> f64 {
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
    fn note(&mut self, s: String) {
        if self.examples.len() < 12 {
            self.examples.push(s);
        }
    }
}

/// Chromium's answer at one point: the promoted element, its box and AX facts.
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
}

struct Oracle<'a> {
    host: &'a Host,
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
        // nor text in the tree of a closed root the runtime declared it cannot enter.
        let t = ax_rendered_text(s, backend_node_id, |text| {
            let mut n = ix.flat_parent(text);
            while let Some(id) = n {
                if matches!(ix.local_name(id).as_str(), "input" | "textarea" | "select") {
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
        let Some(hit) = self.host.frames().hit_at_with(x, y, &mut self.chains).await? else { return Ok(None) };
        let s = hit.session.clone();
        let chain_to_host = self.chains.chain(self.host.frames(), &s.id).await?;
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
        Ok(Some(Truth { tag, rect, ax, session: s, backend_node_id: chosen, closed_hosts }))
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
fn comparable_states(m: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    m.iter()
        .filter(|(k, v)| {
            !(matches!(k.as_str(), "selected" | "disabled" | "required" | "invalid") && v.as_str() == "false")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A summary's `state` object in the same vocabulary (`current` has no CDP AX property: left out).
fn runtime_states(state: &Option<BTreeMap<String, Value>>) -> BTreeMap<String, String> {
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

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Walks the corpus mounted by the Host (`?corpus=...`) and measures agreement with Chromium.
pub async fn measure(host: &Host) -> anyhow::Result<Figures> {
    // The corpus announces itself once its components are defined, rendered and their icons drawn.
    wait_for(host, "the corpus app reporting data-app-ready", std::time::Duration::from_secs(20), || async {
        Ok(match host.frames().locate_attr("data-app-ready", "true").await? {
            Some(_) => Poll::Ready(()),
            None => Poll::Pending("no data-app-ready yet".into()),
        })
    })
    .await?;
    let app = host.locate_landmark("corpus-app").await.context("the Host has no corpus mounted (?corpus=...)")?;
    let app_chain = host.frames().chain_of(&app).await?;
    let area = app_chain.clip(&host.frames().node_rect(&app).await?);
    ensure!(area.width > 100.0 && area.height > 100.0, "the corpus area {area:?} is not visible");

    // Grid points, then every element centre (the corpus document, shadow trees included).
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut y = area.y + GRID_STEP / 2.0;
    while y < area.bottom() {
        let mut x = area.x + GRID_STEP / 2.0;
        while x < area.right() {
            points.push((x, y));
            x += GRID_STEP;
        }
        y += GRID_STEP;
    }
    let root = app.session.pierced_document().await?;
    let mut ids = Vec::new();
    collect_elements_under(&root, &mut ids, false, app.backend_node_id);
    for id in ids {
        let Some(r) = border_box(&app.session, id, &app_chain.to_host).await else { continue };
        let c = r.center();
        if r.width >= 1.0
            && r.height >= 1.0
            && c.0 > area.x
            && c.0 < area.right()
            && c.1 > area.y
            && c.1 < area.bottom()
        {
            // Rounded as Chromium's hit test rounds, so both look at the same pixel.
            points.push((c.0.round(), c.1.round()));
        }
    }
    for p in points.iter_mut() {
        *p = (p.0.round(), p.1.round());
    }
    let mut seen = BTreeMap::new();
    points.retain(|p| seen.insert((p.0 as i64, p.1 as i64), ()).is_none());

    let mut oracle = Oracle {
        host,
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
    let mut texts: Vec<(f64, f64, String, String, Session, i64)> = Vec::new();
    let mut unenterable: std::collections::HashSet<(String, i64)> = Default::default();
    for (x, y) in points {
        let snap = host.snapshot_with(json!({"point": {"x": x, "y": y}, "radius_css_px": 0})).await?;
        require_valid_payload(snap.json())?;
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
        match (cand, truth) {
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
                    f.note(format!("({x},{y}): unsupported-boundary omission for {named:?}, but Chromium's hit reaches {} {:?} through no closed root of that element", t.tag, t.ax.role));
                }
            }
            (None, None) => f.element_agree += 1,
            (Some(c), None) => f.note(format!("({x},{y}): runtime {} but Chromium has no candidate", brief(&c))),
            (None, Some(t)) => {
                f.note(format!("({x},{y}): no runtime candidate; Chromium {} {:?} {:?}", t.tag, t.ax.role, t.ax.name))
            }
            (Some(c), Some(t)) => {
                let tag = c.path.last().and_then(|s| s.tag_name.as_deref()).unwrap_or_default().to_string();
                let r = super::box_of(&c.rect);
                let same = tag == t.tag && t.rect.contains(r.center()) && r.contains(t.rect.center());
                if !same {
                    f.note(format!(
                        "({x},{y}): runtime {}; Chromium {} {:?} {:?} {:?}",
                        brief(&c),
                        t.tag,
                        t.ax.role,
                        t.ax.name,
                        t.rect
                    ));
                    continue;
                }
                f.element_agree += 1;
                f.rect_comparable += 1;
                let d = r.max_edge_delta(&t.rect);
                f.max_rect_error = f.max_rect_error.max(d);
                if d <= super::RECT_TOLERANCE {
                    f.rect_agree += 1;
                } else {
                    f.note(format!("({x},{y}): {tag} rect {r:?} is {d:.3} px from Chromium's {:?}", t.rect));
                }
                if !t.ax.ignored {
                    f.ax_comparable += 1;
                    let (role, name) =
                        (c.summary.role.as_deref().unwrap_or(""), c.summary.name.as_deref().unwrap_or(""));
                    if role == aria_role(&t.ax.role) {
                        f.role_agree += 1;
                    } else {
                        f.note(format!("({x},{y}): {tag} role {role:?}, Chromium {:?}", t.ax.role));
                    }
                    if norm(name) == norm(&t.ax.name) {
                        f.name_agree += 1;
                    } else {
                        f.note(format!("({x},{y}): {tag} name {name:?}, Chromium {:?}", t.ax.name));
                    }
                    let (mine, theirs) = (runtime_states(&c.summary.state), comparable_states(&t.ax.states));
                    if !mine.is_empty() || !theirs.is_empty() {
                        f.state_nonempty += 1;
                    }
                    if mine == theirs {
                        f.state_agree += 1;
                    } else {
                        f.note(format!("({x},{y}): {tag} state {mine:?}, Chromium {theirs:?}"));
                    }
                    if !matches!(tag.as_str(), "input" | "textarea" | "select") {
                        let text = c.summary.text.as_deref().unwrap_or("").to_string();
                        texts.push((x, y, tag.clone(), text, t.session.clone(), t.backend_node_id));
                    }
                }
            }
        }
    }
    for (x, y, tag, text, session, id) in texts {
        let rendered = oracle.text(&session, id, &unenterable).await?;
        f.text_comparable += 1;
        if text_agrees(&text, &rendered) {
            f.text_agree += 1;
        } else {
            f.note(format!("({x},{y}): {tag} text {text:?}, Chromium renders {rendered:?}"));
        }
    }
    Ok(f)
}

fn brief(c: &Candidate) -> String {
    let tag = c.path.last().and_then(|s| s.tag_name.as_deref()).unwrap_or("?");
    format!(
        "{tag} {:?} {:?} rect {}",
        c.summary.role.as_deref().unwrap_or(""),
        c.summary.name.as_deref().unwrap_or(""),
        super::show_rect(&c.rect)
    )
}

/// Element nodes below `root_id` in a pierced tree (shadow trees and in-process frame documents
/// are walked to find it; only elements below it count).
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

/// The check: measures, prints the figures, and holds them to issue 7's thresholds.
pub async fn corpus_agrees_with_chromium(host: &Host) -> anyhow::Result<String> {
    let f = measure(host).await?;
    let line = f.line();
    eprintln!("fidelity {} (DPR {}): {line}", host.url, host.options().scale_factor());
    for e in &f.examples {
        eprintln!("  {e}");
    }
    ensure!(f.points > 0, "no points were compared");
    ensure!(
        f.element_pct() >= ELEMENT_MIN
            && f.rect_pct() >= RECT_MIN
            && f.role_pct() >= ROLE_MIN
            && f.name_pct() >= NAME_MIN
            && f.state_pct() >= STATE_MIN
            && f.text_pct() >= TEXT_MIN,
        "below issue 7's thresholds (element >= {ELEMENT_MIN} %, rect {RECT_MIN} %, role >= {ROLE_MIN} %, name >= {NAME_MIN} %, state {STATE_MIN} %, text {TEXT_MIN} %): {line}; e.g. {:?}",
        f.examples
    );
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::aria_role;

    #[test]
    fn chromium_internal_roles_without_an_aria_role_compare_as_generic_and_a_disclosure_triangle_as_button() {
        assert_eq!(aria_role("LabelText"), "generic");
        assert_eq!(aria_role("DisclosureTriangle"), "button", "a <summary> is the button it acts as");
        assert_eq!(aria_role("button"), "button");
        assert_eq!(aria_role("generic"), "generic");
        assert_eq!(aria_role("tab"), "tab");
    }
}
