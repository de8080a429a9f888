//! Find pages at the Session's 8 KiB ceiling, and the one thing that cannot be paged (issue 42):
//! through the reference Session, as the model receives it (the stored `wippy.attention.model.v1`
//! result, measured with `json.encode` as the Framework measures it). A find page of N rows that
//! projects to exactly 8,192 bytes is kept whole; one byte more and the Host ends it before its last
//! row, which the continuation brings. A single row that alone projects over 8,192 bytes reaches the
//! model as the explicit `byte-limit` partial, with no rows and no continuation. The tree's boundary
//! is `reads::model_page_boundary`.

use anyhow::{anyhow, ensure};
use serde_json::json;

use super::reads::{bound_reader, revisions, user_turn};
use super::{wait_for, Poll, POINTER_TIMEOUT};
use crate::agent::{FindSemantic, ModelRead, ReadResult};
use crate::contract::canonical::lua_json_len;
use crate::contract::model_read::{BYTE_LIMIT_REASON, MAX_MODEL_BYTES};
use crate::report::text;
use crate::Host;

/// The buttons a find page holds: the tool's largest find limit (schemas.md §8: 1..8).
const FIND_ROWS: usize = 8;
/// Characters a name grows by at most (the summary keeps 160 Unicode scalar values).
const NAME_ROOM: usize = 150;

fn inspected(r: &ReadResult) -> anyhow::Result<ModelRead> {
    r.inspected().cloned().ok_or_else(|| anyhow!("{} {} was not inspected: {}", r.tool.name(), r.args, r.outcome))
}

fn stored_bytes(m: &ModelRead) -> anyhow::Result<usize> {
    Ok(lua_json_len(&serde_json::to_value(m)?))
}

/// Runs `js` in the Host page and waits until the tree revision moved (a read after it is fresh).
async fn change(host: &Host, js: &str, what: &str) -> anyhow::Result<()> {
    let before = revisions(host).await?.tree;
    host.eval(js).await?;
    wait_for(host, what, POINTER_TIMEOUT, || async {
        let r = revisions(host).await?;
        Ok(if r.tree != before { Poll::Ready(()) } else { Poll::Pending(format!("revisions {r}")) })
    })
    .await
}

/// Eight buttons named `kf<i>...` whose content text is `&` (six bytes each in `json.encode`) and
/// whose names grow by `x` (one byte): `find_semantic {role: button, name: kf}` is grown to exactly
/// 8,192 stored bytes with its 8 rows (kept whole, no continuation); one byte more and the page holds
/// 7 rows and a continuation, read in the same user turn, that brings the 8th; the two pages hold
/// the 8 rows in order. No page is the `byte-limit` partial.
pub async fn find_page_boundary(host: &Host) -> anyhow::Result<String> {
    let (agent, _) = bound_reader(host).await?;
    let markup: String = (0..FIND_ROWS).map(|i| format!("<button aria-label=\"kf{i}\"></button>")).collect();
    change(
        host,
        &format!(
            "(() => {{ const d = document.createElement('div'); d.style.cssText = 'position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden'; d.innerHTML = {}; document.body.appendChild(d); window.__kf = d; return true; }})()",
            json!(markup)
        ),
        "the tree revision after adding the buttons",
    )
    .await?;
    let query = FindSemantic { role: Some("button".into()), name: Some("kf".into()), ..FindSemantic::default() };
    let mut turn = 0;
    let mut read = async |host: &Host, args: &FindSemantic| -> anyhow::Result<ModelRead> {
        if args.continuation.is_none() {
            turn += 1;
            user_turn(host, &format!("kf {turn}")).await?;
        }
        let m = inspected(&agent.batch().find_semantic(args).await)?;
        ensure!(
            m.reason.is_none() && !m.omissions.iter().any(|o| o["reason"] == "byte-limit"),
            "a find page reached the model as the byte-limit partial: {m}"
        );
        Ok(m)
    };
    let ids = |m: &ModelRead| m.node_views().into_iter().map(|n| n.node.node_id).collect::<Vec<_>>();
    let m = read(host, &query).await?;
    let start = stored_bytes(&m)?;
    ensure!(
        m.nodes.len() == FIND_ROWS && start < MAX_MODEL_BYTES,
        "the starting find: {} rows, {start} bytes",
        m.nodes.len()
    );
    // Coarse: `&` text, six bytes a character, leaving 100..=400 bytes for the names to fill.
    let amps = (MAX_MODEL_BYTES - start).saturating_sub(100 + 300) / 6;
    ensure!(amps <= FIND_ROWS * NAME_ROOM, "the find page is too small to grow to 8,192 bytes ({start} bytes)");
    let per: Vec<usize> = (0..FIND_ROWS).map(|i| amps / FIND_ROWS + usize::from(i < amps % FIND_ROWS)).collect();
    change(
        host,
        &format!(
            "(() => {{ const per = {}; [...window.__kf.children].forEach((b, i) => {{ b.textContent = '&'.repeat(per[i]); }}); return true; }})()",
            json!(per)
        ),
        "the tree revision after the buttons' text",
    )
    .await?;
    let mut names = [0usize; FIND_ROWS];
    let mut grow = async |host: &Host, by: usize| -> anyhow::Result<()> {
        let mut left = by;
        let mut js = String::new();
        for (i, g) in names.iter_mut().enumerate() {
            let add = left.min(NAME_ROOM - *g);
            if add > 0 {
                *g += add;
                left -= add;
                js.push_str(&format!("r.children[{i}].setAttribute('aria-label', 'kf{i}' + 'x'.repeat({}));", *g));
            }
        }
        ensure!(left == 0, "the names cannot grow {by} more bytes");
        change(
            host,
            &format!("(() => {{ const r = window.__kf; {js} return true; }})()"),
            "the tree revision after renaming",
        )
        .await
    };
    let mut whole = read(host, &query).await?;
    for _ in 0..4 {
        let s = stored_bytes(&whole)?;
        if s >= MAX_MODEL_BYTES || whole.nodes.len() != FIND_ROWS {
            break;
        }
        grow(host, MAX_MODEL_BYTES - s).await?;
        whole = read(host, &query).await?;
    }
    ensure!(
        stored_bytes(&whole)? == MAX_MODEL_BYTES
            && whole.nodes.len() == FIND_ROWS
            && whole.continuation.is_none()
            && whole.outcome == "ok",
        "8 find rows at 8,192 bytes: {} rows, {} bytes, {}, continuation {}; expected {FIND_ROWS} rows, {MAX_MODEL_BYTES} bytes, ok, no continuation",
        whole.nodes.len(),
        stored_bytes(&whole)?,
        whole.outcome,
        text::opt(whole.continuation.as_deref())
    );
    let all = ids(&whole);
    grow(host, 1).await?;
    let first = read(host, &query).await?;
    ensure!(
        first.nodes.len() == FIND_ROWS - 1
            && first.continuation.is_some()
            && first.outcome == "ok"
            && stored_bytes(&first)? <= MAX_MODEL_BYTES,
        "8,193 bytes for 8 find rows: the page has {} rows, {}, {} bytes, continuation {}; expected {} rows, ok, at most {MAX_MODEL_BYTES} bytes, a continuation",
        first.nodes.len(),
        first.outcome,
        stored_bytes(&first)?,
        text::opt(first.continuation.as_deref()),
        FIND_ROWS - 1
    );
    let second = read(host, &FindSemantic { continuation: first.continuation.clone(), ..query.clone() }).await?;
    ensure!(
        second.continuation.is_none() && second.outcome == "ok",
        "the second find page: {second}; expected ok without a continuation"
    );
    let both: Vec<String> = ids(&first).into_iter().chain(ids(&second)).collect();
    ensure!(both == all, "the two find pages hold {}, the whole page held {}", text::list(&both), text::list(&all));
    Ok(format!("find: 8 rows at 8,192 bytes kept whole; 8,193 paged {} + {}", first.nodes.len(), second.nodes.len()))
}

/// A button under two panel boundaries whose labels and ids are `&` (six bytes each in
/// `json.encode`, the most each member keeps): its one row, with its complete ancestry, projects over 8,192 bytes, and
/// `find_semantic {resource_id}` reaches the model as the `byte-limit` partial: outcome `partial`,
/// the Session's reason, no rows, no continuation.
pub async fn single_row_over_the_ceiling(host: &Host) -> anyhow::Result<String> {
    let (agent, _) = bound_reader(host).await?;
    let amp = |n: usize| "&".repeat(n);
    let panel = |i: usize, inner: &str| {
        format!(
            "<div data-wippy-kind=\"panel\" data-wippy-mount-id=\"kib-big-{i}\" data-wippy-label=\"{a}\" data-wippy-package-id=\"{a}\" data-wippy-panel-id=\"{b}\" data-wippy-artifact-id=\"{b}\" data-wippy-page-id=\"{b}\">{inner}</div>",
            a = amp(256),
            b = amp(128)
        )
    };
    let markup = panel(0, &panel(1, "<button data-wippy-resource-id=\"kib-big\">big</button>"));
    change(
        host,
        &format!(
            "(() => {{ const d = document.createElement('div'); d.style.cssText = 'position:absolute;left:0;top:0;width:10px;height:10px;overflow:hidden'; d.innerHTML = {}; document.body.appendChild(d); return true; }})()",
            json!(markup)
        ),
        "the tree revision after adding the labelled panels",
    )
    .await?;
    user_turn(host, "kib big").await?;
    let r = agent
        .batch()
        .find_semantic(&FindSemantic { resource_id: Some("kib-big".into()), ..FindSemantic::default() })
        .await;
    let m = inspected(&r)?;
    ensure!(
        m.outcome == "partial"
            && m.reason.as_deref() == Some(BYTE_LIMIT_REASON)
            && m.omissions == vec![json!({"reason": "byte-limit"})]
            && m.nodes.is_empty()
            && m.continuation.is_none(),
        "one row over 8,192 bytes: the model got {m}; expected outcome partial, reason {BYTE_LIMIT_REASON}, omitted byte-limit, no rows, no continuation"
    );
    Ok("a single row over 8,192 bytes reaches the model as the byte-limit partial".into())
}

pub fn checks() -> Vec<super::Check> {
    use super::{default_host, Check};
    vec![
        Check { host: default_host, name: "reads-8-kib-find-pages", run: |h| Box::pin(find_page_boundary(h)) },
        Check {
            host: default_host,
            name: "reads-single-row-over-8-kib-is-byte-limit",
            run: |h| Box::pin(single_row_over_the_ceiling(h)),
        },
    ]
}
