//! What an agent sees of the reference Host through the Session's reads, as the model receives it
//! (the stored `wippy.attention.model.v1` results), measured against Chromium's accessibility tree
//! (issue 42): the non-sensitive interactive elements Chromium exposes in every frame, and how many
//! reads an agent needs to see them all, walking the tree from the root with the defaults and its
//! continuations, or finding them by role. Also what each read costs (bytes per node row, per page),
//! whether any page reached the model as the `byte-limit` partial, and that no page carries what is
//! sensitive, excluded or redacted (the Host's privacy probes carry `CANARY-` text).

use std::collections::BTreeSet;

use anyhow::{anyhow, ensure, Context};
use serde_json::{json, Value};

use super::reads::{bound_reader, user_turn};
use crate::agent::{Agent, FindSemantic, ModelRead, ReadResult, TreeArgs};
use crate::contract::canonical::lua_json_len;
use crate::Host;

/// The roles of interactive elements (WAI-ARIA widget roles as Chromium names them).
pub const INTERACTIVE_ROLES: [&str; 17] = [
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "treeitem",
];

/// Page script (`this` an element): whether it is sensitive, excluded or redacted by the spec's
/// markers, looked up its composed ancestry (a shadow root's host, a frame's owner is not crossed:
/// each frame's markers are its own, and an excluded frame's document is never inspected).
const PRIVATE_FN: &str = "function () {
    const sensitive = (e) => {
        const n = (e.localName || '').toLowerCase();
        const t = (e.getAttribute('type') || '').toLowerCase();
        const ac = (e.getAttribute('autocomplete') || '').toLowerCase();
        return (n === 'input' && t === 'password') || /cc-|password|one-time-code/.test(ac);
    };
    for (let x = this; x; x = x.parentNode || x.host) {
        if (x.nodeType !== 1) continue;
        if (x.hasAttribute('data-wippy-attention') || x.hasAttribute('data-wippy-composer') || sensitive(x)) return true;
    }
    let w = this.ownerDocument && this.ownerDocument.defaultView;
    try {
        for (; w && w.frameElement; w = w.parent) {
            const f = w.frameElement;
            if (f.closest('[data-wippy-attention],[data-wippy-composer]')) return true;
        }
    } catch (_) { /* a cross-origin owner: its markers are checked where it lives */ }
    return false;
}";

/// `(role, name)` of every unignored, named, interactive node of Chromium's accessibility tree in
/// every frame of the Host, without the sensitive, excluded and redacted ones.
pub async fn chromium_interactive(host: &Host) -> anyhow::Result<BTreeSet<(String, String)>> {
    use chromiumoxide::cdp::browser_protocol::page::GetFrameTreeParams;
    let mut out = BTreeSet::new();
    for session in host.frames().sessions() {
        let tree = session.send(&GetFrameTreeParams::default()).await?;
        let mut ids = Vec::new();
        super::inspection::collect_frame_ids(&tree["frameTree"], &mut ids);
        for id in ids {
            let Ok(ax) = session.call("Accessibility.getFullAXTree", json!({"frameId": id})).await else { continue };
            for x in ax["nodes"].as_array().into_iter().flatten() {
                let role = x.pointer("/role/value").and_then(Value::as_str).unwrap_or_default();
                let name = x.pointer("/name/value").and_then(Value::as_str).unwrap_or_default();
                if x["ignored"].as_bool().unwrap_or(false) || !INTERACTIVE_ROLES.contains(&role) || name.is_empty() {
                    continue;
                }
                let Some(backend) = x["backendDOMNodeId"].as_i64() else { continue };
                let Some(object) = session.resolve_node(backend).await? else { continue };
                let private = session.call_function_on(&object, PRIVATE_FN, true).await?;
                if private.pointer("/result/value").and_then(Value::as_bool) != Some(false) {
                    continue;
                }
                out.insert((role.to_string(), name.to_string()));
            }
        }
    }
    Ok(out)
}

/// One way of reading (a tree walk, finds by role): its pages as the model received them.
#[derive(Debug, Default, Clone)]
pub struct Reading {
    /// Reads made until every wanted element was seen (or the reads ran out).
    pub reads: usize,
    /// Every wanted element seen.
    pub complete: bool,
    /// `json.encode` bytes of each page (the stored result).
    pub page_bytes: Vec<usize>,
    /// `json.encode` bytes of each node row.
    pub row_bytes: Vec<usize>,
    /// Pages that reached the model as the `byte-limit` partial.
    pub byte_limited: usize,
    /// `(role, name)` seen in node rows.
    pub seen: BTreeSet<(String, String)>,
}

impl Reading {
    fn take(&mut self, r: &ReadResult) -> anyhow::Result<ModelRead> {
        let m = r.inspected().ok_or_else(|| anyhow!("{} was not inspected: {}", r.tool.name(), r.outcome))?.clone();
        let stored = serde_json::to_value(&m)?;
        let text = stored.to_string();
        ensure!(!text.contains("CANARY"), "a read carried a privacy canary: {text}");
        self.reads += 1;
        self.page_bytes.push(lua_json_len(&stored));
        if m.omissions.iter().any(|o| o["reason"] == "byte-limit") {
            self.byte_limited += 1;
        }
        for row in &m.nodes {
            self.row_bytes.push(lua_json_len(row));
        }
        for n in m.node_views() {
            if let (Some(role), Some(name)) = (n.summary["role"].as_str(), n.summary["name"].as_str()) {
                self.seen.insert((role.to_string(), name.to_string()));
            }
        }
        Ok(m)
    }
    /// The median bytes of a node row (0 without rows).
    pub fn median_row_bytes(&self) -> usize {
        median(self.row_bytes.iter().copied())
    }
}

/// The median of `v` (the upper one of an even count; 0 when empty).
fn median(v: impl Iterator<Item = usize>) -> usize {
    let mut v: Vec<usize> = v.collect();
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

/// The guard's reads per user turn: a walk's continuations must come within one turn (the next
/// turn's message changes the tree revision, which ends every continuation).
pub const READS_PER_TURN: usize = 4;

/// The reads the issue allows an agent to see every wanted element from the root (issue 42).
pub const TARGET_TREE_READS: usize = 2;

/// The most `json.encode` bytes the median node row of the stored results may take (issue 42: the
/// leanest peer's 199 B per element).
pub const TARGET_MEDIAN_ROW_BYTES: usize = 200;

/// `attention_get_tree {}` from the root (the defaults: depth 2, limit 32), then its continuations,
/// in one user turn, until every element of `wanted` was seen or the turn's reads ran out. Every
/// row's `parent` must be a row listed before it in the walk (the nearest listed row), the first
/// row excepted.
pub async fn tree_walk(host: &Host, agent: &Agent, wanted: &BTreeSet<(String, String)>) -> anyhow::Result<Reading> {
    let mut reading = Reading::default();
    user_turn(host, "agent view: tree").await?;
    let mut args = TreeArgs::default();
    let mut listed: BTreeSet<String> = BTreeSet::new();
    while reading.reads < READS_PER_TURN {
        let m = reading.take(&agent.batch().get_tree(&args).await)?;
        for n in m.node_views() {
            if let Some(p) = n.parent.as_ref().filter(|_| !listed.is_empty()) {
                ensure!(
                    listed.contains(&p.node_id),
                    "row {} names the parent {}, which no earlier row of the walk listed",
                    n.node.node_id,
                    p.node_id
                );
            }
            listed.insert(n.node.node_id.clone());
        }
        if wanted.is_subset(&reading.seen) {
            reading.complete = true;
            break;
        }
        let Some(c) = m.continuation.clone() else { break };
        args = TreeArgs { continuation: Some(c), ..args };
    }
    Ok(reading)
}

/// `attention_find_semantic {role}` for each role of `wanted` (and its continuations), a user turn
/// before every fourth read.
pub async fn finds_by_role(host: &Host, agent: &Agent, wanted: &BTreeSet<(String, String)>) -> anyhow::Result<Reading> {
    let mut reading = Reading::default();
    let roles: BTreeSet<&str> = wanted.iter().map(|(r, _)| r.as_str()).collect();
    let mut in_turn = READS_PER_TURN;
    for role in roles {
        let mut args = FindSemantic { role: Some(role.to_string()), ..FindSemantic::default() };
        loop {
            if in_turn == READS_PER_TURN && args.continuation.is_none() {
                user_turn(host, "agent view: find").await?;
                in_turn = 0;
            }
            in_turn += 1;
            let m = reading.take(&agent.batch().find_semantic(&args).await)?;
            let Some(c) = m.continuation.clone().filter(|_| in_turn < READS_PER_TURN) else { break };
            args = FindSemantic { continuation: Some(c), ..args };
        }
    }
    reading.complete = wanted.is_subset(&reading.seen);
    Ok(reading)
}

/// The figures of one cell.
#[derive(Debug, Clone)]
pub struct AgentView {
    pub wanted: BTreeSet<(String, String)>,
    pub tree: Reading,
    pub finds: Reading,
    /// Canonical bytes of the pointing attachment (the v4 envelope of a snapshot at the boundary).
    pub pointing_bytes: usize,
}

impl AgentView {
    /// The median bytes of a node row over the tree walk's and the finds' pages.
    pub fn median_row_bytes(&self) -> usize {
        median(self.tree.row_bytes.iter().chain(&self.finds.row_bytes).copied())
    }
    /// Every page's bytes over every node row, the dictionaries and the result's own members
    /// included (0 without rows).
    pub fn page_bytes_per_row(&self) -> usize {
        let rows = self.tree.row_bytes.len() + self.finds.row_bytes.len();
        let pages: usize = self.tree.page_bytes.iter().chain(&self.finds.page_bytes).sum();
        pages / rows.max(1)
    }
}

/// Measures one opened Host (see the module comment).
pub async fn agent_view(host: &Host) -> anyhow::Result<AgentView> {
    let wanted = chromium_interactive(host).await?;
    ensure!(!wanted.is_empty(), "Chromium exposes no non-sensitive interactive element");
    let (agent, _) = bound_reader(host).await?;
    let tree = tree_walk(host, &agent, &wanted).await?;
    let finds = finds_by_role(host, &agent, &wanted).await?;
    let (x, y) = host.landmark_rect("left-leaf").await.context("the left leaf")?.center();
    host.move_to_in_steps(x, y, 4).await?;
    let snap = host.snapshot_with(json!({"attachment_version": 4})).await?;
    let env = host.envelope_version(snap.json(), 4).await?;
    let pointing_bytes = crate::contract::canonical_json(env.json())?.len();
    Ok(AgentView { wanted, tree, finds, pointing_bytes })
}

/// The target in one opened Host (verify row `reads-2-reads-from-the-root`): from the root
/// with the defaults, every wanted element within [`TARGET_TREE_READS`] reads of one user turn, each
/// row's parent listed before it; finds by role see them all; no page is `byte-limit`; no page
/// carries a privacy canary.
pub async fn seen_from_the_root(host: &Host) -> anyhow::Result<String> {
    let v = agent_view(host).await?;
    let missing = |seen: &BTreeSet<(String, String)>| v.wanted.difference(seen).cloned().collect::<Vec<_>>();
    let words = |pairs: Vec<(String, String)>| {
        crate::report::text::list_of(pairs.iter().map(|(r, n)| crate::report::text::role_name(Some(r), Some(n))))
    };
    ensure!(
        v.tree.complete,
        "the tree walk saw {} of {} in {} reads; missing {}",
        v.wanted.len() - missing(&v.tree.seen).len(),
        v.wanted.len(),
        v.tree.reads,
        words(missing(&v.tree.seen))
    );
    ensure!(
        v.tree.reads <= TARGET_TREE_READS,
        "the tree walk from attention_get_tree {{}} took {} reads (target {TARGET_TREE_READS})",
        v.tree.reads
    );
    ensure!(v.finds.complete, "finds by role missed {}", words(missing(&v.finds.seen)));
    ensure!(v.tree.byte_limited + v.finds.byte_limited == 0, "a page reached the model as byte-limit");
    ensure!(
        v.median_row_bytes() <= TARGET_MEDIAN_ROW_BYTES,
        "the median node row of the stored results takes {} B (target at most {TARGET_MEDIAN_ROW_BYTES} B)",
        v.median_row_bytes()
    );
    Ok(format!(
        "{} non-sensitive interactive elements in {} tree read(s) from the root, {} by role; median row {} B, {} B of stored page per row",
        v.wanted.len(),
        v.tree.reads,
        v.finds.reads,
        v.median_row_bytes(),
        v.page_bytes_per_row()
    ))
}

pub fn checks() -> Vec<super::Check> {
    vec![super::Check {
        host: super::default_host,
        name: "reads-2-reads-from-the-root",
        run: |h| Box::pin(seen_from_the_root(h)),
    }]
}
