//! Checks of the agent's Attention reads through the reference Session (issue 20), in the real
//! Host: the harness is the agent bound to the composer's socket, every read goes through the
//! Session's guard and broker to `pages/host/reads.js` and `window.wippyAttention.inspect`, and
//! what the agent gets (the stored model.v1 result) is compared with Chromium: the accessibility
//! tree for roles and names, the box model for rects and hit points. Guard refusals and staleness
//! come from real sequences and events (a trusted Enter for a user turn, a DOM change for the tree
//! revision, a highlight that completed); the 8 KiB boundary from a real tree.

use anyhow::{anyhow, ensure, Context};
use serde_json::json;

use super::actions::{agent_actions_enabled, await_overlay, overlay_point};
use super::inspection::LEAVES;
use super::session::{compose, composer_ready, enter_and_settle, session_id, session_of, set_automatic_context};
use super::{rect_of, wait_for, Poll, POINTER_TIMEOUT, RECT_TOLERANCE};
use crate::agent::{
    Agent, ArgError, FindSemantic, GuardReason, HitTestArgs, ModelRead, NodeRef, ReadResult, ReadTool, RejectReason,
    TreeArgs,
};
use crate::attention::inspect::Revisions;
use crate::contract::canonical::lua_json_len;
use crate::contract::model_read::MAX_MODEL_BYTES;
use crate::input::Key;
use crate::report::text;
use crate::Host;

/// The Host tree's revisions now, from the top realm's public API (`getTree` of depth 0).
pub(super) async fn revisions(host: &Host) -> anyhow::Result<Revisions> {
    let v = host.eval("window.wippyAttention.attention.getTree(null, { depth: 0 }).then((r) => r.revisions)").await?;
    serde_json::from_value(v.clone()).with_context(|| format!("getTree gave no revisions: {v}"))
}

/// The agent bound to the Host tab with automatic context off: one trusted message binds it.
pub async fn bound_reader(host: &Host) -> anyhow::Result<(Agent, String)> {
    let sid = session_id(&composer_ready(host).await?)?;
    set_automatic_context(host, &sid, false).await?;
    user_turn(host, "bind").await?;
    Ok((Agent::bind(session_of(host)?, &sid)?, sid))
}

/// A new user turn: a trusted Enter sends a message the Session receives.
pub async fn user_turn(host: &Host, text: &str) -> anyhow::Result<()> {
    compose(host, text).await?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "the turn's message was not received: {row}");
    Ok(())
}

fn inspected(r: &ReadResult) -> anyhow::Result<&ModelRead> {
    r.inspected().ok_or_else(|| anyhow!("{} {} was not inspected: {}", r.tool.name(), r.args, r.outcome))
}

/// Finds `leaf` by Chromium's role and name for it; the found node whose rect is the leaf's box.
async fn find_leaf(agent: &Agent, host: &Host, leaf: &str) -> anyhow::Result<(NodeRef, ReadResult)> {
    let ax = host.landmark_ax(leaf).await?;
    let truth = host.landmark_rect(leaf).await?;
    let q = FindSemantic { role: Some(ax.role.clone()), name: Some(ax.name.clone()), ..FindSemantic::default() };
    let r = agent.batch().find_semantic(&q).await;
    let m = inspected(&r)?;
    for n in m.node_views() {
        ensure!(
            n.summary["role"] == ax.role.as_str() && n.summary["name"] == ax.name.as_str(),
            "{leaf}: a found node is summarised {}, Chromium says {}",
            n.summary,
            text::role_name(Some(&ax.role), Some(&ax.name))
        );
    }
    let node = m
        .node_views()
        .into_iter()
        .find(|n| {
            n.layout
                .as_ref()
                .and_then(|l| rect_of(&l["rect"]))
                .is_some_and(|b| b.max_edge_delta(&truth) <= RECT_TOLERANCE)
        })
        .map(|n| n.node)
        .ok_or_else(|| anyhow!("{leaf}: no found node has the box model's rect {truth}: {m}"))?;
    Ok((node, r))
}

/// Checklist item 1, "authorized fresh reads still work": automatic context off, agent actions
/// off, and the agent's reads of each leaf (Host tree to OOPIF, fragment, closed shadow root)
/// agree with Chromium: find by the AX role and name returns the leaf at its box-model rect,
/// getGeometry is within 0.5 px of it, and hitTest at its centre answers that point and the leaf.
pub async fn authorized_fresh_reads(host: &Host) -> anyhow::Result<String> {
    ensure!(!agent_actions_enabled(host).await?, "this check wants agent actions off");
    let (agent, sid) = bound_reader(host).await?;
    let mut worst: f64 = 0.0;
    for leaf in LEAVES {
        user_turn(host, leaf).await?;
        let truth = host.landmark_rect(leaf).await?;
        let (node, _) = find_leaf(&agent, host, leaf).await?;
        let g = agent.batch().get_geometry(&node).await;
        let geo = inspected(&g)?.geometry.clone().with_context(|| format!("{leaf}: no geometry"))?;
        let rect = rect_of(&geo["rect"]).with_context(|| format!("{leaf}: geometry rect {geo}"))?;
        let d = rect.max_edge_delta(&truth);
        worst = worst.max(d);
        ensure!(
            d <= RECT_TOLERANCE,
            "{leaf}: geometry {rect} vs the box model {truth} (at most {RECT_TOLERANCE} px apart)"
        );
        let (cx, cy) = truth.center();
        let h = agent.batch().hit_test(&HitTestArgs { x: cx, y: cy, ..HitTestArgs::default() }).await;
        let hm = inspected(&h)?;
        ensure!(
            hm.node_views().iter().any(|n| n.node == node),
            "{leaf}: hitTest at its centre misses its {node}: {hm}"
        );
        let p = hm.point.clone().context("hitTest without point")?;
        let dp = (p["x"].as_f64().unwrap_or(f64::NAN) - cx).abs().max((p["y"].as_f64().unwrap_or(f64::NAN) - cy).abs());
        ensure!(dp <= RECT_TOLERANCE, "{leaf}: hitTest point {p} vs ({cx}, {cy})");
    }
    let session = session_of(host)?;
    let attached: usize = session.messages(&sid)?.iter().map(|m| m.attachments.len()).sum();
    ensure!(attached == 0, "automatic context is off, yet {attached} attachments were stored");
    ensure!(!agent.route().agent_actions_authorized, "the tab reported agent actions on");
    Ok(format!("{} leaves read fresh with attachments and actions off, within {worst:.3} px of Chromium", LEAVES.len()))
}

/// A `target_ref` from a fresh read, copied verbatim into `ui_action_highlight`, opens the Host's
/// overlay outline centred on the element's box (Chromium's), with no message attachment ever
/// stored; Escape ends it `cancelled`.
pub async fn read_target_can_be_highlighted(host: &Host) -> anyhow::Result<String> {
    ensure!(agent_actions_enabled(host).await?, "this check needs a Host opened with actions=on");
    let (agent, sid) = bound_reader(host).await?;
    let mut done = 0;
    for leaf in ["left-leaf", "closed-shadow-leaf"] {
        user_turn(host, leaf).await?;
        let (node, _) = find_leaf(&agent, host, leaf).await?;
        let r = agent.batch().get_node(&node).await;
        let target =
            inspected(&r)?.target_ref.clone().with_context(|| format!("{leaf}: get_node gave no target_ref"))?;
        let pending = agent.highlight(std::slice::from_ref(&target), &Default::default())?;
        await_overlay(host, true).await?;
        let truth = host.landmark_rect(leaf).await?;
        let sel = format!("[data-wippy-attention-target={}]", json!(target["target_id"].as_str().unwrap_or_default()));
        let (x, y) = overlay_point(host, &sel).await?;
        let (cx, cy) = truth.center();
        ensure!(
            (x - cx).abs() <= RECT_TOLERANCE && (y - cy).abs() <= RECT_TOLERANCE,
            "{leaf}: outline at ({x}, {y}), box centre ({cx}, {cy})"
        );
        host.press_key(Key::ESCAPE).await?;
        let res = pending.result(std::time::Duration::from_secs(15)).await?;
        ensure!(
            res.status == crate::agent::Status::Cancelled,
            "{leaf}: {} ({}), expected cancelled",
            res.status,
            res.reason.as_deref().unwrap_or("no reason")
        );
        await_overlay(host, false).await?;
        done += 1;
    }
    let attached: usize = session_of(host)?.messages(&sid)?.iter().map(|m| m.attachments.len()).sum();
    ensure!(attached == 0, "{attached} attachments were stored: the target came from the read alone");
    Ok(format!("{done} read targets highlighted at Chromium's box centre without any attachment"))
}

/// The inspect requests the broker sent for `sid`.
fn inspect_requests(host: &Host, sid: &str) -> anyhow::Result<usize> {
    let sent = session_of(host)?.broker().sent();
    Ok(sent.iter().filter(|f| f["session_id"] == sid && f["data"]["mode"] == "inspect").count())
}

fn refused(r: &ReadResult, want: RejectReason) -> anyhow::Result<()> {
    ensure!(r.rejected() == Some(want), "{} {}: expected rejected: {want}, got {}", r.tool.name(), r.args, r.outcome);
    Ok(())
}

/// The guard in the real Host: two reads in one batch (one refused), an unchanged find refused as
/// a duplicate, two invalid attempts ending repair, four attempts per turn; no refusal reaches
/// the Host (the broker's sent requests do not grow) and each keeps its call's id, tool, args.
pub async fn reads_guard(host: &Host) -> anyhow::Result<String> {
    let (agent, sid) = bound_reader(host).await?;
    let ax = host.landmark_ax("left-leaf").await?;
    let q = FindSemantic { role: Some(ax.role.clone()), name: Some(ax.name.clone()), ..FindSemantic::default() };
    user_turn(host, "guard 1").await?;
    let b = agent.batch();
    let (one, two) = tokio::join!(b.find_semantic(&q), b.get_cursor());
    let (ok, no) = if one.inspected().is_some() { (one, two) } else { (two, one) };
    inspected(&ok)?;
    refused(&no, RejectReason::Guard(GuardReason::OneReadPerBatch))?;
    let sent = inspect_requests(host, &sid)?;
    let dup = agent.batch().find_semantic(&q).await;
    if ok.tool == ReadTool::FindSemantic {
        refused(&dup, RejectReason::Guard(GuardReason::DuplicateRead))?;
    }
    user_turn(host, "guard 2").await?;
    let sent2 = inspect_requests(host, &sid)?;
    let dup_sent = if ok.tool == ReadTool::FindSemantic { sent } else { sent + 1 };
    ensure!(sent2 == dup_sent, "refused reads reached the Host ({sent} -> {sent2})");
    refused(
        &agent.batch().read_raw(ReadTool::GetTree, json!({"depth": 33})).await,
        RejectReason::Invalid(ArgError::InvalidDepth),
    )?;
    refused(
        &agent.batch().read_raw(ReadTool::HitTest, json!({"x": 1})).await,
        RejectReason::Invalid(ArgError::PointRequired),
    )?;
    refused(&agent.batch().get_cursor().await, RejectReason::Guard(GuardReason::RepairBudgetExhausted))?;
    ensure!(inspect_requests(host, &sid)? == sent2, "refused reads reached the Host");
    user_turn(host, "guard 3").await?;
    inspected(&agent.batch().get_cursor().await)?;
    inspected(&agent.batch().get_selection().await)?;
    inspected(&agent.batch().get_focus().await)?;
    inspected(&agent.batch().hit_test(&HitTestArgs { x: 1.0, y: 1.0, ..HitTestArgs::default() }).await)?;
    let sent3 = inspect_requests(host, &sid)?;
    refused(&agent.batch().get_focus().await, RejectReason::Guard(GuardReason::ReadBudgetExhausted))?;
    ensure!(inspect_requests(host, &sid)? == sent3, "the fifth read reached the Host");
    let rows = session_of(host)?.read_history(&sid)?;
    let last = rows.last().context("no history")?;
    ensure!(
        last.status == "rejected"
            && last.tool == "attention_get_focus"
            && last.reason.as_deref() == Some("read-budget-exhausted"),
        "the last refusal's row is {} {} ({}), expected rejected attention_get_focus (read-budget-exhausted)",
        last.status,
        last.tool,
        last.reason.as_deref().unwrap_or("no reason")
    );
    Ok("one-read-per-batch, duplicate-read, repair- and read-budget-exhausted refused without the Host".into())
}

/// Staleness by real events: a DOM change in the left leaf's realm bumps the tree revision, so
/// the tree read goes stale (`tree-revision`) once a later read reports it; a highlight that
/// completed withdraws the reads before it (`browser-action`); a trusted Enter (a new user turn)
/// withdraws the rest (`user-turn`); the model's view carries stale notices, not the results.
pub async fn reads_staleness(host: &Host) -> anyhow::Result<String> {
    ensure!(agent_actions_enabled(host).await?, "this check needs a Host opened with actions=on");
    let (agent, sid) = bound_reader(host).await?;
    let session = session_of(host)?.clone();
    user_turn(host, "stale 1").await?;
    let t0 = agent.batch().get_tree(&TreeArgs { depth: Some(1), ..TreeArgs::default() }).await;
    let tree0 = inspected(&t0)?.revisions.tree;
    let frame = super::leaf_frame(host.engine, super::Leaf::Left);
    host.eval_in_frame(
        &frame,
        "(document.body.appendChild(document.createElement('span')).textContent = 'changed', true)",
    )
    .await?;
    wait_for(host, "the tree revision to change after a DOM change", POINTER_TIMEOUT, || async {
        let r = revisions(host).await?;
        Ok(if r.tree != tree0 { Poll::Ready(()) } else { Poll::Pending(format!("revisions {r}")) })
    })
    .await?;
    inspected(&agent.batch().get_cursor().await)?;
    let reason = |call: &str| -> anyhow::Result<Option<String>> {
        let rows = session.read_history(&sid)?;
        Ok(rows.iter().find(|r| r.call_id == call).and_then(|r| r.stale_reason.clone()))
    };
    ensure!(
        reason(&t0.call_id)?.as_deref() == Some("tree-revision"),
        "tree read: stale {}, expected tree-revision",
        text::opt(reason(&t0.call_id)?)
    );
    let (node, f) = find_leaf(&agent, host, "left-leaf").await?;
    let target = {
        let r = agent.batch().get_node(&node).await;
        inspected(&r)?.target_ref.clone().context("no target_ref")?
    };
    ensure!(reason(&f.call_id)?.is_none(), "the find is usable before the action");
    let pending = agent.highlight(&[target], &Default::default())?;
    await_overlay(host, true).await?;
    host.press_key(Key::ESCAPE).await?;
    pending.result(std::time::Duration::from_secs(15)).await?;
    ensure!(
        reason(&f.call_id)?.as_deref() == Some("browser-action"),
        "find after a completed highlight: stale {}, expected browser-action",
        text::opt(reason(&f.call_id)?)
    );
    user_turn(host, "stale 2").await?;
    let c = agent.batch().get_cursor().await;
    inspected(&c)?;
    user_turn(host, "stale 3").await?;
    ensure!(
        reason(&c.call_id)?.as_deref() == Some("user-turn"),
        "cursor after a new turn: stale {}, expected user-turn",
        text::opt(reason(&c.call_id)?)
    );
    let view = session.model_view(&sid)?;
    ensure!(
        view.reads.iter().all(|r| r.stale && r.content["status"] == "stale" || r.content["status"] == "rejected"),
        "the model still sees withdrawn results"
    );
    Ok("tree-revision, browser-action and user-turn withdrawals by real events; the model sees notices".into())
}

/// Pages that reach the model, at the 8 KiB ceiling with a real tree: a root of 24 buttons whose
/// accessible names are grown until the agent's get_tree (root and its 24 buttons, 25 rows)
/// projects to exactly 8,192 bytes of the Session's stored model result: kept whole, without a
/// continuation. One character more and the Host ends the page before the last row: 24 rows with a
/// continuation, which brings the 25th; the two pages hold the 25 rows in order. Then the 24-row
/// page is grown to exactly 8,192 bytes (still 24 rows) and one character more ends it at 23 rows.
/// No page is ever the `byte-limit` partial. The Host measures what the Session keeps exactly as
/// the Session does, or one of these boundaries moves.
pub async fn model_page_boundary(host: &Host) -> anyhow::Result<String> {
    let (agent, _) = bound_reader(host).await?;
    let markup: String = (0..24).map(|i| format!("<button aria-label=\"b{i}\"></button>")).collect();
    let js = format!(
        "(() => {{ const d = document.createElement('div'); d.setAttribute('data-wippy-resource-id', 'kib-root'); d.style.cssText = 'position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden'; d.innerHTML = {}; document.body.appendChild(d); window.__kib = d; return true; }})()",
        json!(markup)
    );
    host.eval(&js).await?;
    user_turn(host, "kib root").await?;
    let found = agent
        .batch()
        .find_semantic(&FindSemantic { resource_id: Some("kib-root".into()), ..FindSemantic::default() })
        .await;
    let root = inspected(&found)?.node(0).context("no node with resource kib-root")?.node;
    let tree = TreeArgs { root: Some(root), depth: Some(1), ..TreeArgs::default() };
    let mut grown = [0usize; 24];
    let mut turn = 0;
    // A first page in a user turn of its own (the guard's four reads per turn never refuse one); a
    // continuation in the same turn, as an agent reads on (a new turn's message changes the tree).
    let mut read = async |host: &Host, args: &TreeArgs| -> anyhow::Result<ModelRead> {
        if args.continuation.is_none() {
            turn += 1;
            user_turn(host, &format!("kib {turn}")).await?;
        }
        let m = inspected(&agent.batch().get_tree(args).await)?.clone();
        ensure!(
            m.reason.is_none() && !m.omissions.iter().any(|o| o["reason"] == "byte-limit"),
            "a page reached the model as the byte-limit partial: {m}"
        );
        Ok(m)
    };
    // Grows the names of the first buttons (each by at most 150 bytes) by `by` bytes in all.
    let mut grow = async |host: &Host, by: usize| -> anyhow::Result<()> {
        let before = revisions(host).await?.tree;
        let mut left = by;
        let mut js = String::new();
        for (i, g) in grown.iter_mut().enumerate() {
            let add = left.min(150 - *g);
            if add > 0 {
                *g += add;
                left -= add;
                js.push_str(&format!("r.children[{i}].setAttribute('aria-label', 'b{i}' + 'x'.repeat({}));", *g));
            }
        }
        ensure!(left == 0, "the names cannot grow {by} more bytes");
        host.eval(&format!("(() => {{ const r = window.__kib; {js} return true; }})()")).await?;
        wait_for(host, "the tree revision after renaming", POINTER_TIMEOUT, || async {
            let r = revisions(host).await?;
            Ok(if r.tree != before { Poll::Ready(()) } else { Poll::Pending(format!("revisions {r}")) })
        })
        .await
    };
    let size = |m: &ModelRead| -> anyhow::Result<usize> { Ok(lua_json_len(&serde_json::to_value(m)?)) };
    let ids = |m: &ModelRead| m.node_views().into_iter().map(|n| n.node.node_id).collect::<Vec<_>>();
    // Grows until the first page of `rows` rows projects to exactly 8,192 bytes.
    let mut m0 = read(host, &tree).await?;
    ensure!(
        m0.nodes.len() == 25 && size(&m0)? < MAX_MODEL_BYTES,
        "the starting tree: {} rows, {} bytes",
        m0.nodes.len(),
        size(&m0)?
    );
    for _ in 0..4 {
        let s = size(&m0)?;
        if s == MAX_MODEL_BYTES {
            break;
        }
        grow(host, MAX_MODEL_BYTES - s).await?;
        m0 = read(host, &tree).await?;
    }
    ensure!(size(&m0)? == MAX_MODEL_BYTES, "could not reach 8,192 bytes with 25 rows (at {})", size(&m0)?);
    ensure!(
        m0.nodes.len() == 25 && m0.continuation.is_none() && m0.outcome == "ok",
        "8,192 bytes: {} rows, {}, continuation {}; expected 25 rows, ok, no continuation",
        m0.nodes.len(),
        m0.outcome,
        text::opt(m0.continuation.as_deref())
    );
    let all = ids(&m0);
    grow(host, 1).await?;
    let m1 = read(host, &tree).await?;
    ensure!(
        m1.nodes.len() == 24 && m1.continuation.is_some() && m1.outcome == "ok" && size(&m1)? <= MAX_MODEL_BYTES,
        "8,193 bytes for 25 rows: the page has {} rows, {}, {} bytes, continuation {}; expected 24 rows, ok, at most {MAX_MODEL_BYTES} bytes, a continuation",
        m1.nodes.len(),
        m1.outcome,
        size(&m1)?,
        text::opt(m1.continuation.as_deref())
    );
    let rest = TreeArgs { continuation: m1.continuation.clone(), ..tree.clone() };
    let m2 = read(host, &rest).await?;
    ensure!(
        m2.continuation.is_none() && m2.outcome == "ok",
        "the second page: {m2}; expected ok without a continuation"
    );
    let both: Vec<String> = ids(&m1).into_iter().chain(ids(&m2)).collect();
    ensure!(both == all, "the two pages hold {}, the whole page held {}", text::list(&both), text::list(&all));
    // The 24-row page (with its continuation) to exactly 8,192 bytes, then one byte more.
    let mut p = m1;
    for _ in 0..4 {
        let s = size(&p)?;
        if s == MAX_MODEL_BYTES || p.nodes.len() != 24 {
            break;
        }
        grow(host, MAX_MODEL_BYTES - s).await?;
        p = read(host, &tree).await?;
    }
    ensure!(
        size(&p)? == MAX_MODEL_BYTES && p.nodes.len() == 24 && p.continuation.is_some(),
        "the 24-row page: {} rows, {} bytes",
        p.nodes.len(),
        size(&p)?
    );
    grow(host, 1).await?;
    let q = read(host, &tree).await?;
    ensure!(
        q.nodes.len() == 23 && q.continuation.is_some() && size(&q)? <= MAX_MODEL_BYTES,
        "one byte over the 24-row page: {} rows, {} bytes",
        q.nodes.len(),
        size(&q)?
    );
    ensure!(
        q.revisions.tree.to_string().len() == p.revisions.tree.to_string().len()
            && m0.revisions.geometry.to_string().len() == q.revisions.geometry.to_string().len(),
        "the revisions changed length: {} -> {}",
        p.revisions,
        q.revisions
    );
    Ok("a real tree: 25 rows at 8,192 bytes kept whole; 8,193 paged 24 + 1; a 24-row page at 8,192, 23 rows one byte over".into())
}

/// Selectors for `find_css_matches_native_qsa`: a tag, a class, an attribute, `:has`, `:nth-child`
/// and `:not` (each matches something in at least one of the scopes).
pub const CSS_SELECTORS: [&str; 6] =
    ["button", ".leaf", "[data-landmark]", "div:has(> button)", "span:nth-child(2)", "button:not(.safe)"];

/// Page script (`this` a node): the runtime's node id of each element native `querySelectorAll`
/// matches on the node's scope (`'document'`: its ownerDocument, `'root'`: its root node), in
/// document order, per selector of `sels`: on a copy of that scope with the spec's privacy rules
/// applied by the inspection check's own copy (excluded, composer and sensitive subtrees removed,
/// redacted nodes without attributes or text, editable values gone; [`super::inspection`]), so the
/// Host document's privacy probes and composer count as the rules say. A fragment realm's ids are
/// the main realm's.
fn native_ids_function(scope: &str, sels: &[&str]) -> String {
    format!(
        "function () {{
            const R = window.__wippyAttentionRuntime;
            const M = R && R.role === 'fragment-realm' ? window.parent.__wippyAttentionRuntime : R;
            const scope = {scope} === 'document' ? (this.ownerDocument || this) : this.getRootNode();
            const root = scope.nodeType === 9 ? {{ childNodes: [scope.documentElement] }} : scope;
            const rules = {{ exclude: true, redact: true, editable: true, safeValue: true, live: true }};
            const match = {copy}(root, rules, (n) => M.nodeIdOf(n));
            return {sels}.map(match);
        }}",
        scope = json!(scope),
        sels = json!(sels),
        copy = super::inspection::PRIVACY_COPY,
    )
}

/// Native qSA ids of each of `sels` on the scope (`document` or `root`) of landmark `leaf`, from its
/// own frame.
async fn native_ids_at(host: &Host, leaf: &str, scope: &str, sels: &[&str]) -> anyhow::Result<Vec<Vec<String>>> {
    let at = host.locate_landmark(leaf).await?;
    let object =
        at.session.resolve_node(at.backend_node_id).await?.with_context(|| format!("{leaf} cannot be resolved"))?;
    let r = at.session.call_function_on(&object, &native_ids_function(scope, sels), true).await?;
    let v = r.pointer("/result/value").cloned().unwrap_or(serde_json::Value::Null);
    serde_json::from_value(v.clone()).with_context(|| format!("{leaf}: native qSA ids {r}"))
}

/// Reads that keep under the guard's four attempted reads per user turn: a new trusted user turn
/// before every third read.
struct Turns<'a> {
    host: &'a Host,
    reads: usize,
}
impl Turns<'_> {
    async fn next(&mut self) -> anyhow::Result<()> {
        if self.reads % 3 == 0 {
            user_turn(self.host, &format!("css {}", self.reads)).await?;
        }
        self.reads += 1;
        Ok(())
    }
}

/// The first composed ancestor of `node` of `kind`, from `parent` (the node's parent as its read
/// gave it) up, one `get_node` read per ancestor (the refs come from the reads, never built).
async fn ancestor_of_kind(
    agent: &Agent,
    turns: &mut Turns<'_>,
    node: &NodeRef,
    parent: Option<NodeRef>,
    kind: &str,
) -> anyhow::Result<NodeRef> {
    let mut next = parent;
    for _ in 0..32 {
        let at = next.with_context(|| format!("no {kind} above {node}"))?;
        turns.next().await?;
        let r = agent.batch().get_node(&at).await;
        let m = inspected(&r)?;
        let v =
            m.node_views().into_iter().find(|n| n.node == at).with_context(|| format!("get_node lost {at}: {m}"))?;
        if v.kind.as_deref() == Some(kind) {
            return Ok(at);
        }
        next = v.parent;
    }
    Err(anyhow!("no {kind} within 32 ancestors of {node}"))
}

/// `attention_find_css` through the Session (limit 8) with a root NodeRef of the Host Document
/// (the root of a `get_tree` read), the OOPIF leaf's Document and the closed shadow leaf's
/// ShadowRoot (both walked up by `get_node` reads from the leaf found by its AX role and name):
/// for every selector of [`CSS_SELECTORS`] the returned node ids are exactly the first eight of
/// native `querySelectorAll` on that scope in that frame (ids by the runtime's `nodeIdOf` test
/// hook), in document order, with a continuation exactly when native qSA matched more than eight.
pub async fn find_css_matches_native_qsa(host: &Host) -> anyhow::Result<String> {
    let (agent, _sid) = bound_reader(host).await?;
    let mut turns = Turns { host, reads: 0 };
    turns.next().await?;
    let t = agent.batch().get_tree(&TreeArgs { depth: Some(0), ..TreeArgs::default() }).await;
    let tm = inspected(&t)?;
    let host_doc = tm
        .node_views()
        .into_iter()
        .find(|n| n.kind.as_deref() == Some("document") && n.parent.is_none())
        .map(|n| n.node)
        .with_context(|| format!("get_tree of the Host has no document root: {tm}"))?;
    let host_native: Vec<Vec<String>> = {
        let f = native_ids_function("document", &CSS_SELECTORS);
        let v = host.eval(&format!("({f}).call(document)")).await?;
        serde_json::from_value(v.clone()).with_context(|| format!("Host native qSA ids {v}"))?
    };
    let mut scopes = vec![("Host document", host_doc, host_native)];
    for (leaf, kind, scope) in [("oopif-leaf", "document", "document"), ("closed-shadow-leaf", "shadow-root", "root")] {
        turns.next().await?;
        let (node, found) = find_leaf(&agent, host, leaf).await?;
        let parent = inspected(&found)?.node_views().into_iter().find(|n| n.node == node).and_then(|n| n.parent);
        let root = ancestor_of_kind(&agent, &mut turns, &node, parent, kind).await?;
        scopes.push((leaf, root, native_ids_at(host, leaf, scope, &CSS_SELECTORS).await?));
    }
    let mut compared = 0;
    for (name, root, native) in &scopes {
        for (sel, want) in CSS_SELECTORS.iter().zip(native) {
            turns.next().await?;
            let r = agent.batch().find_css(sel, root, Some(8)).await;
            let m = inspected(&r)?;
            let got: Vec<String> = m.node_views().into_iter().map(|n| n.node.node_id).collect();
            let first: Vec<String> = want.iter().take(8).cloned().collect();
            ensure!(got == first, "{name}: find_css({sel}) gave {}, native qSA {}", text::list(&got), text::list(want));
            ensure!(
                m.continuation.is_some() == (want.len() > 8),
                "{name}: find_css({sel}) continuation {} with {} native matches (a continuation only past 8)",
                text::opt(m.continuation.as_deref()),
                want.len()
            );
            compared += want.len().min(8);
        }
    }
    ensure!(compared > 0, "no selector matched anything in any scope");
    Ok(format!("{} scopes x {} selectors: {compared} elements equal native qSA", scopes.len(), CSS_SELECTORS.len()))
}

/// Chromium's answer to "what is inside the scope of landmark `leaf`": the nearest node of type
/// `node_type` (9 a Document, 11 a ShadowRoot) on the leaf's ancestry in `DOM.getDocument` (every
/// depth, shadow roots and in-process frames pierced, closed roots included), and the runtime's
/// node id of every element native `querySelectorAll('*')` lists in it and in each shadow root and
/// in-process frame document below it (on the privacy copy). An out-of-process frame below it is an
/// error: this side could not list it.
async fn native_deep_ids(
    host: &Host,
    leaf: &str,
    node_type: u64,
) -> anyhow::Result<std::collections::BTreeSet<String>> {
    use serde_json::Value;
    fn path_to<'a>(n: &'a Value, backend: i64, path: &mut Vec<&'a Value>) -> bool {
        path.push(n);
        if n["backendNodeId"].as_i64() == Some(backend) {
            return true;
        }
        let kids = ["children", "shadowRoots"].iter().flat_map(|k| n[*k].as_array().into_iter().flatten());
        for c in kids.chain(n.get("contentDocument")) {
            if path_to(c, backend, path) {
                return true;
            }
        }
        path.pop();
        false
    }
    fn roots<'a>(n: &'a Value, out: &mut Vec<&'a Value>) -> anyhow::Result<()> {
        if matches!(n["nodeType"].as_u64(), Some(9 | 11)) {
            out.push(n);
        }
        ensure!(
            !(n["localName"] == "iframe" && n.get("contentDocument").is_none()),
            "an out-of-process frame inside the scope: its elements cannot be listed here"
        );
        let kids = ["children", "shadowRoots"].iter().flat_map(|k| n[*k].as_array().into_iter().flatten());
        for c in kids.chain(n.get("contentDocument")) {
            roots(c, out)?;
        }
        Ok(())
    }
    let at = host.locate_landmark(leaf).await?;
    let doc = at.session.pierced_document().await?;
    let mut path = Vec::new();
    ensure!(path_to(&doc, at.backend_node_id, &mut path), "{leaf} is not in its frame's pierced document");
    let scope = path
        .iter()
        .rev()
        .find(|n| n["nodeType"].as_u64() == Some(node_type))
        .with_context(|| format!("no node of type {node_type} above {leaf}"))?;
    let mut scopes = Vec::new();
    roots(scope, &mut scopes)?;
    let mut ids = std::collections::BTreeSet::new();
    for r in scopes {
        let backend = r["backendNodeId"].as_i64().context("a pierced node without a backendNodeId")?;
        let object = at.session.resolve_node(backend).await?.context("a scope node cannot be resolved")?;
        let v = at.session.call_function_on(&object, &native_ids_function("root", &["*"]), true).await?;
        let lists: Vec<Vec<String>> = serde_json::from_value(v.pointer("/result/value").cloned().unwrap_or_default())
            .with_context(|| format!("{leaf}: native ids {v}"))?;
        ids.extend(lists.into_iter().flatten());
    }
    Ok(ids)
}

/// `attention_find_semantic` with a `scope` (the OOPIF leaf's Document, or its fragment's ShadowRoot,
/// and the closed shadow leaf's ShadowRoot, each walked up by `get_node` reads) answers from inside
/// that scope only: every node found by the leaf's Chromium AX role is one Chromium lists inside the
/// same scope ([`native_deep_ids`]), the leaf is among them, and the same role without a scope finds
/// a node outside it (so the scope decided something).
pub async fn find_semantic_keeps_to_its_scope(host: &Host) -> anyhow::Result<String> {
    let (agent, _sid) = bound_reader(host).await?;
    let mut turns = Turns { host, reads: 0 };
    let mut found = 0;
    // A Web Fragment's nodes are physical Host DOM below the fragment's shadow root (its realm's
    // document is not theirs), so there the right leaf's scope is that shadow root.
    let right = match host.engine {
        crate::Engine::Iframe => ("document", 9),
        crate::Engine::Fragment => ("shadow-root", 11),
    };
    for (leaf, (kind, node_type)) in [("oopif-leaf", right), ("closed-shadow-leaf", ("shadow-root", 11))] {
        turns.next().await?;
        let (node, first) = find_leaf(&agent, host, leaf).await?;
        let parent = inspected(&first)?.node_views().into_iter().find(|n| n.node == node).and_then(|n| n.parent);
        let root = ancestor_of_kind(&agent, &mut turns, &node, parent, kind).await?;
        let inside = native_deep_ids(host, leaf, node_type).await?;
        let role = host.landmark_ax(leaf).await?.role;
        turns.next().await?;
        let q = FindSemantic { role: Some(role.clone()), scope: Some(root.clone()), ..FindSemantic::default() };
        let scoped = agent.batch().find_semantic(&q).await;
        let ids: Vec<String> = inspected(&scoped)?.node_views().into_iter().map(|n| n.node.node_id).collect();
        ensure!(
            ids.contains(&node.node_id),
            "{leaf}: find_semantic(role {role}) in its {kind} lost the leaf {}: found {}",
            node.node_id,
            text::list(&ids)
        );
        let strays: Vec<&String> = ids.iter().filter(|i| !inside.contains(*i)).collect();
        ensure!(
            strays.is_empty(),
            "{leaf}: find_semantic(role {role}) in its {kind} returned {} from outside it",
            text::list_of(&strays)
        );
        turns.next().await?;
        let q = FindSemantic { role: Some(role.clone()), ..FindSemantic::default() };
        let all = agent.batch().find_semantic(&q).await;
        let outside = inspected(&all)?.node_views().into_iter().filter(|n| !inside.contains(&n.node.node_id)).count();
        ensure!(outside > 0, "{leaf}: no node of role {role} outside its {kind}: the scope decides nothing here");
        found += ids.len();
    }
    Ok(format!("{found} nodes found within a Document and a ShadowRoot scope, none outside"))
}

pub fn checks() -> Vec<super::Check> {
    use super::actions::actions_host;
    use super::{default_host, Check};
    vec![
        Check {
            host: default_host,
            name: "checklist-1-authorized-fresh-reads-work",
            run: |h| Box::pin(authorized_fresh_reads(h)),
        },
        Check { host: default_host, name: "reads-guard-refuses-without-the-host", run: |h| Box::pin(reads_guard(h)) },
        Check { host: actions_host, name: "reads-staleness-by-real-events", run: |h| Box::pin(reads_staleness(h)) },
        Check { host: default_host, name: "reads-8-kib-pages", run: |h| Box::pin(model_page_boundary(h)) },
        Check {
            host: default_host,
            name: "reads-find-css-matches-native-query-selector-all",
            run: |h| Box::pin(find_css_matches_native_qsa(h)),
        },
        Check {
            host: default_host,
            name: "reads-find-semantic-keeps-to-its-scope",
            run: |h| Box::pin(find_semantic_keeps_to_its_scope(h)),
        },
        Check {
            host: actions_host,
            name: "read-target-can-be-highlighted",
            run: |h| Box::pin(read_target_can_be_highlighted(h)),
        },
    ]
}
