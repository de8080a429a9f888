//! Selection end to end (schemas.md §6 selection shape; spec "What the Host observes", "Privacy and
//! security"): a real mouse drag and Shift+arrow keys select text; what the runtime reports is
//! compared with what the page itself reports — `getSelection()` evaluated through CDP in the realm
//! that holds the text (its own session or context), the selected range's bounding client rect
//! composed to the Host viewport with Chromium's box model of the frame owners (oracle.rs).

use anyhow::{anyhow, bail, ensure, Context};
use serde_json::Value;

use super::{
    box_of, expected_kinds, path_kinds, rect_of, require_valid_payload, wait_for, Leaf, Poll, POINTER_TIMEOUT,
    RECT_TOLERANCE,
};
use crate::attention::{OmissionReason, Reported, Snapshot};
use crate::host::{Engine, Host};
use crate::input::{Key, SHIFT};
use crate::oracle::{BoxRect, Located};
use crate::report::text;
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams, RemoteObjectId};

/// What the realm holding `landmarks[0]` reports about its own selection.
#[derive(Debug, Clone)]
pub struct SelectionTruth {
    pub text: String,
    pub direction: String,
    /// The selected range's bounding client rect, in Host-viewport CSS px (one tree only).
    pub rect: Option<BoxRect>,
    /// Whether the selection touches a `data-wippy-attention="exclude"` element or a password input.
    pub touches_excluded: bool,
    /// Whether it touches a `data-wippy-attention="redact"` element.
    pub touches_redacted: bool,
}

/// The page's own view of the selection in the realm of `landmarks[0]`; the shadow roots around
/// every named landmark (of that realm) are passed to `getComposedRanges`. `None`: no selection or
/// a collapsed one.
/// As a message shows it: `“Hello” forward at 10,20 300x40 (touches redacted)`.
impl std::fmt::Display for SelectionTruth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} at {}", text::quote(&self.text), self.direction, text::opt(self.rect.as_ref()))?;
        match (self.touches_excluded, self.touches_redacted) {
            (true, true) => write!(f, " (touches excluded and redacted)"),
            (true, false) => write!(f, " (touches excluded)"),
            (false, true) => write!(f, " (touches redacted)"),
            (false, false) => Ok(()),
        }
    }
}

pub async fn selection_truth(host: &Host, landmarks: &[&str]) -> anyhow::Result<Option<SelectionTruth>> {
    let first = host.locate_landmark(landmarks[0]).await?;
    let mut args = Vec::new();
    for name in &landmarks[1..] {
        let at = host.locate_landmark(name).await?;
        if at.session.id == first.session.id {
            let object_id = Some(RemoteObjectId::new(object_of(&at).await?));
            args.push(CallArgument { object_id, value: None, unserializable_value: None });
        }
    }
    let object = object_of(&first).await?;
    let mut call = CallFunctionOnParams::new(
        "function (...others) {
                const roots = [];
                for (const start of [this, ...others]) for (let n = start; n; n = n.parentNode || n.host) if (n.nodeType === 11 && !roots.includes(n)) roots.push(n);
                const sel = window.getSelection();
                if (!sel || sel.rangeCount === 0) return null;
                const r = sel.getComposedRanges({ shadowRoots: roots })[0];
                if (!r || r.collapsed) return null;
                const top = (n) => { while (n.parentNode) n = n.parentNode; return n; };
                let rect = null;
                if (top(r.startContainer) === top(r.endContainer)) {
                    const x = document.createRange(); x.setStart(r.startContainer, r.startOffset); x.setEnd(r.endContainer, r.endOffset);
                    const b = x.getBoundingClientRect(); rect = { x: b.left, y: b.top, width: b.width, height: b.height };
                }
                const all = [document, ...roots];
                const touches = (q) => all.some((root) => [...root.querySelectorAll(q)].some((el) => sel.containsNode(el, true)));
                return { text: sel.toString(), direction: sel.direction, rect,
                         excluded: touches('[data-wippy-attention=exclude], input[type=password]'), redacted: touches('[data-wippy-attention=redact]') };
            }",
    );
    call.object_id = Some(RemoteObjectId::new(object));
    call.arguments = Some(args);
    call.return_by_value = Some(true);
    // The reply as JSON: its remote object's type and subtype may be newer than the generated enums.
    let reply = first.session.send(&call).await?;
    let v = reply.pointer("/result/value").cloned().unwrap_or(Value::Null);
    if v.is_null() {
        return Ok(None);
    }
    let rect = match rect_of(&v["rect"]) {
        Some(r) => Some(realm_to_host(host, &first, landmarks[0]).await?.map_rect(&r)),
        None => None,
    };
    Ok(Some(SelectionTruth {
        text: v["text"].as_str().unwrap_or_default().to_string(),
        direction: v["direction"].as_str().unwrap_or_default().to_string(),
        rect,
        touches_excluded: v["excluded"] == true,
        touches_redacted: v["redacted"] == true,
    }))
}

async fn object_of(at: &Located) -> anyhow::Result<String> {
    at.session.resolve_node(at.backend_node_id).await?.ok_or_else(|| anyhow!("could not resolve a landmark node"))
}

/// The map from the viewport of the realm holding `landmark` to the Host viewport.
async fn realm_to_host(host: &Host, at: &Located, landmark: &str) -> anyhow::Result<crate::oracle::Affine> {
    if landmark.starts_with("closed-shadow") {
        // The srcdoc frame is in process: compose its owner's content box.
        let owner = host.locate_landmark("closed-shadow-frame").await?;
        return Ok(host.frames().frame_behind(&owner).await?.to_host);
    }
    Ok(host.frames().chain_of(at).await?.to_host)
}

/// An omission reason's wire name (`selection-excluded`).
fn reason_name(r: OmissionReason) -> &'static str {
    r.as_str()
}

pub fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Waits for a snapshot whose selection text is `text` (or whose omissions name `reason`).
async fn snapshot_where(
    host: &Host,
    what: &str,
    want: impl Fn(&Snapshot) -> bool,
) -> anyhow::Result<Reported<Snapshot>> {
    let snap = wait_for(host, what, POINTER_TIMEOUT, || async {
        let snap = host.snapshot().await?;
        Ok(if want(&snap) {
            Poll::Ready(snap)
        } else {
            Poll::Pending(format!(
                "selection {}, omissions {}",
                text::quote_opt(snap.selection.as_ref().map(|s| &s.text)),
                super::omission_words(&snap.omissions)
            ))
        })
    })
    .await?;
    require_valid_payload(snap.json())?;
    Ok(snap)
}

fn omission_reasons(snap: &Snapshot) -> Vec<OmissionReason> {
    snap.omissions.iter().map(|o| o.reason).collect()
}

/// The selection's text, when the snapshot has a selection.
fn selection_text(snap: &Snapshot) -> Option<&str> {
    snap.selection.as_ref().map(|s| s.text.as_str())
}

/// Compares the reported selection with the page's own: text, direction, the range's rect, and
/// endpoint paths ending in a `span` element under `kinds_prefix`.
pub fn compare(
    snap: &Snapshot,
    truth: &SelectionTruth,
    anchor_kinds: &[&str],
    focus_kinds: &[&str],
) -> anyhow::Result<()> {
    let Some(s) = &snap.selection else {
        bail!("no selection in the snapshot; omissions {}", super::omission_words(&snap.omissions))
    };
    ensure!(
        s.kind == "text" && !s.collapsed,
        "selection kind {}, collapsed {}; expected text, not collapsed",
        s.kind,
        s.collapsed
    );
    ensure!(
        s.text == norm(&truth.text),
        "selection text {} but the page selected {}",
        text::quote(&s.text),
        text::quote(&truth.text)
    );
    ensure!(s.direction == truth.direction, "direction {} but the page says {}", s.direction, truth.direction);
    ensure!(
        path_kinds(&s.anchor_path) == anchor_kinds,
        "anchor path kinds {}, expected {}",
        path_kinds(&s.anchor_path).join(" > "),
        anchor_kinds.join(" > ")
    );
    ensure!(
        path_kinds(&s.focus_path) == focus_kinds,
        "focus path kinds {}, expected {}",
        path_kinds(&s.focus_path).join(" > "),
        focus_kinds.join(" > ")
    );
    for (p, path) in [("anchor_path", &s.anchor_path), ("focus_path", &s.focus_path)] {
        let leaf = path.last();
        ensure!(
            leaf.is_some_and(|l| l.tag_name.as_deref() == Some("span")),
            "{p} leaf is {}, not the selected span",
            leaf.map_or_else(|| "nothing".into(), |l| super::path_words(std::slice::from_ref(l)))
        );
    }
    let ranges = &s.ranges;
    ensure!((1..=4).contains(&ranges.len()), "{} ranges", ranges.len());
    if let Some(t) = &truth.rect {
        ensure!(ranges.len() == 1, "one DOM range in one tree, {} ranges reported", ranges.len());
        let r = box_of(&ranges[0].rect);
        ensure!(ranges[0].coordinate_space == "host-viewport", "coordinate space {}", ranges[0].coordinate_space);
        ensure!(r.max_edge_delta(t) <= RECT_TOLERANCE, "range rect {r} but the page's range is at {t}");
    }
    Ok(())
}

pub fn leaf_kinds(host: &Host, leaf: Leaf) -> Vec<&'static str> {
    let mut k = expected_kinds(host.layout, host.engine, leaf);
    if leaf == Leaf::Oopif {
        // The safe text is a sibling of the nested leaf inside the nested artifact.
        k.truncate(k.len() - 1);
        k.push("element");
    }
    k
}

/// Drag across a safe text span, then Shift+ArrowLeft three times: each time the runtime reports
/// the page's own selection (text, direction, rect, endpoint paths).
pub async fn drag_and_shift_arrows_select_like_the_page(
    host: &Host,
    leaf: Leaf,
    landmark: &str,
) -> anyhow::Result<String> {
    let text_box = host.landmark_rect(landmark).await?;
    let (_, cy) = text_box.center();
    host.drag((text_box.x + 1.0, cy), (text_box.right() - 1.0, cy), 8).await?;
    let truth =
        selection_truth(host, &[landmark]).await?.ok_or_else(|| anyhow!("the drag selected nothing in the page"))?;
    ensure!(!truth.text.trim().is_empty(), "the page's selection is empty");
    let want = norm(&truth.text);
    let snap =
        snapshot_where(host, "the dragged selection in the snapshot", |s| selection_text(s) == Some(want.as_str()))
            .await?;
    let kinds = leaf_kinds(host, leaf);
    compare(&snap, &truth, &kinds, &kinds)?;
    ensure!(truth.direction == "forward", "a left-to-right drag is forward, the page says {}", truth.direction);

    for _ in 0..3 {
        host.press_key_with(Key::ARROW_LEFT, SHIFT).await?;
    }
    let shorter = selection_truth(host, &[landmark])
        .await?
        .ok_or_else(|| anyhow!("Shift+ArrowLeft cleared the page's selection"))?;
    ensure!(
        shorter.text.chars().count() + 3 == truth.text.chars().count(),
        "Shift+ArrowLeft x3: {} -> {}, expected 3 characters fewer",
        text::quote(&truth.text),
        text::quote(&shorter.text)
    );
    let want2 = norm(&shorter.text);
    let snap2 = snapshot_where(host, "the Shift+arrow selection in the snapshot", |s| {
        selection_text(s) == Some(want2.as_str())
    })
    .await?;
    compare(&snap2, &shorter, &kinds, &kinds)?;
    Ok(format!("{} then {}", crate::report::text::quote(&want), crate::report::text::quote(&want2)))
}

/// A drag from the left leaf's text into the right leaf's text. A browser selection belongs to one
/// document: with iframes it stays in the left realm (the right realm selects nothing) and the
/// runtime reports the left realm's selection; with Web Fragments both leaves are physical Host
/// DOM, so one selection spans both fragment mounts (anchor in the left, focus in the right). The
/// range also passes over the left leaf's privacy probes when the page says so, and then the
/// runtime must give no selection text at all, only `selection-excluded` (or `selection-redacted`).
pub async fn drag_across_two_realms(host: &Host) -> anyhow::Result<String> {
    let from = host.landmark_rect("left-leaf-text").await?;
    let to = host.landmark_rect("right-leaf-text").await?;
    host.drag((from.x + 1.0, from.center().1), (to.right() - 1.0, to.center().1), 12).await?;
    let truth = selection_truth(host, &["left-leaf-text", "right-leaf-text"])
        .await?
        .ok_or_else(|| anyhow!("the drag selected nothing"))?;
    if host.engine == Engine::Iframe {
        let right = selection_truth(host, &["right-leaf-text"]).await?;
        ensure!(right.is_none(), "the right realm holds a selection too: {}", text::opt(right.as_ref()));
    }
    let reason = if truth.touches_excluded {
        Some(OmissionReason::SelectionExcluded)
    } else if truth.touches_redacted {
        Some(OmissionReason::SelectionRedacted)
    } else {
        None
    };
    let snap = match reason {
        Some(r) => snapshot_where(host, reason_name(r), |s| omission_reasons(s).contains(&r)).await?,
        None => {
            let want = norm(&truth.text);
            snapshot_where(host, "the cross-realm selection", |s| selection_text(s) == Some(want.as_str())).await?
        }
    };
    let text = serde_json::to_string(snap.json())?;
    ensure!(!text.contains("CANARY"), "a canary reached the snapshot: {text}");
    match reason {
        Some(OmissionReason::SelectionExcluded) => {
            ensure!(snap.selection.is_none(), "an excluded selection must not be reported")
        }
        Some(_) => {
            ensure!(selection_text(&snap) == Some(""), "a redacted selection keeps no text");
        }
        None => {
            let left = leaf_kinds(host, Leaf::Left);
            let focus = if host.engine == Engine::Fragment { leaf_kinds(host, Leaf::Right) } else { left.clone() };
            compare(&snap, &truth, &left, &focus)?;
        }
    }
    Ok(format!("{}: {}", reason.map(reason_name).unwrap_or("reported"), crate::report::text::quote(&norm(&truth.text))))
}

/// Selections over the redact probe keep geometry without text (`selection-redacted`); over the
/// exclude probe they are not reported at all (`selection-excluded`).
pub async fn privacy_probes_selection(host: &Host) -> anyhow::Result<String> {
    let redact = host.landmark_rect("probe-redact").await?;
    host.drag((redact.x + 2.0, redact.center().1), (redact.right() - 20.0, redact.center().1), 6).await?;
    let truth = selection_truth(host, &["probe-redact"])
        .await?
        .ok_or_else(|| anyhow!("nothing selected in the redact probe"))?;
    ensure!(
        truth.touches_redacted && !truth.touches_excluded,
        "the page's selection is not only in the redact probe: {truth}"
    );
    let snap = snapshot_where(host, "selection-redacted", |s| {
        omission_reasons(s).contains(&OmissionReason::SelectionRedacted)
    })
    .await?;
    let s = snap.selection.as_ref();
    ensure!(
        s.is_some_and(|s| s.text.is_empty()),
        "redacted selection text: {}, expected empty",
        text::quote_opt(s.map(|s| &s.text))
    );
    let r = s
        .and_then(|s| s.ranges.first())
        .map(|r| box_of(&r.rect))
        .context("a redacted selection keeps its range geometry")?;
    let t = truth.rect.context("page rect")?;
    ensure!(r.max_edge_delta(&t) <= RECT_TOLERANCE, "redacted range {r} vs page {t}");

    let exclude = host.landmark_rect("probe-exclude").await?;
    host.drag((exclude.x + 2.0, exclude.center().1), (exclude.right() - 20.0, exclude.center().1), 6).await?;
    let truth = selection_truth(host, &["probe-exclude"])
        .await?
        .ok_or_else(|| anyhow!("nothing selected in the exclude probe"))?;
    ensure!(truth.touches_excluded, "the page's selection is not in the exclude probe: {truth}");
    let snap = snapshot_where(host, "selection-excluded", |s| {
        omission_reasons(s).contains(&OmissionReason::SelectionExcluded)
    })
    .await?;
    ensure!(
        snap.selection.is_none(),
        "an excluded selection was reported: {}",
        text::quote_opt(snap.selection.as_ref().map(|s| &s.text))
    );
    let all = serde_json::to_string(snap.json())?;
    ensure!(!all.contains("CANARY"), "a canary reached the snapshot");
    Ok("redacted keeps geometry, excluded gives only the omission".into())
}

/// A selection whose realm is replaced (remount) is reported as `selection-detached`.
pub async fn remounted_selection_is_detached(host: &Host) -> anyhow::Result<String> {
    let b = host.landmark_rect("left-leaf-text").await?;
    host.drag((b.x + 1.0, b.center().1), (b.right() - 1.0, b.center().1), 6).await?;
    snapshot_where(host, "the selection before the remount", |s| selection_text(s).is_some_and(|t| !t.is_empty()))
        .await?;
    host.eval("window.__host.remount('leaf-left').then(() => true)").await?;
    let snap = snapshot_where(host, "selection-detached", |s| {
        omission_reasons(s).contains(&OmissionReason::SelectionDetached)
    })
    .await?;
    ensure!(snap.selection.is_none(), "a detached selection is still reported");
    Ok("detached".into())
}
