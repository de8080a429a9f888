//! Trusted input: what each leaf's own event log says it received, and that script-dispatched
//! events never enter the runtime's observation history.

use anyhow::ensure;

use super::{leaf_frame, leaf_log, snapshot_at, wait_for, Leaf, LeafEvent, Poll, POINTER_TIMEOUT};
use crate::attention::{EventType, ObservedEvent, Snapshot};
use crate::host::Host;
use crate::input::Key;
use crate::report::text;

/// Waits until `leaf`'s log has grown past `from` with entries satisfying `want`, or fails naming
/// what arrived instead.
async fn await_log(
    host: &Host,
    leaf: Leaf,
    from: usize,
    want: &[(&str, Option<&str>)],
) -> anyhow::Result<Vec<LeafEvent>> {
    let what = format!("{} logging {}", leaf.landmark(), text::list_of(want.iter().map(|(t, _)| *t)));
    wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let fresh: Vec<LeafEvent> = leaf_log(host, leaf).await?.into_iter().skip(from).collect();
        let complete = want.iter().all(|(ty, code)| {
            fresh.iter().any(|e| {
                e.is(ty)
                    && e.target.as_deref() == Some(leaf.landmark())
                    && code.is_none_or(|c| e.code.as_deref() == Some(c))
            })
        });
        Ok(if complete { Poll::Ready(fresh) } else { Poll::Pending(format!("logged {}", text::list_of(&fresh))) })
    })
    .await
}

/// Moves the pointer onto `leaf` until the leaf's own log shows a trusted pointermove on it: a user
/// hovers before clicking, and Chromium routes input into an out-of-process frame only once that
/// frame is on screen (a move sent earlier lands on the frame's owner). Each look moves again, a
/// quarter pixel either side of the point, one animation frame apart.
async fn hover_until_seen(host: &Host, leaf: Leaf, x: f64, y: f64) -> anyhow::Result<()> {
    let from = leaf_log(host, leaf).await?.len();
    let mut side = 0.25;
    let what = format!("{} seeing the pointer hover it", leaf.landmark());
    wait_for(host, &what, POINTER_TIMEOUT, || {
        side = -side;
        let at = x + side;
        async move {
            host.move_to(at, y).await?;
            let seen = leaf_log(host, leaf)
                .await?
                .into_iter()
                .skip(from)
                .any(|e| e.is("pointermove") && e.target.as_deref() == Some(leaf.landmark()) && e.is_trusted);
            Ok(if seen { Poll::Ready(()) } else { Poll::Pending("no trusted pointermove on the leaf yet".into()) })
        }
    })
    .await
}

/// A trusted click, key press and touch tap on each leaf arrive there with `isTrusted === true`:
/// cross-origin OOPIF, OOPIF + open shadow root, same-origin srcdoc + closed shadow root.
pub async fn input_reaches_leaves(host: &Host) -> anyhow::Result<String> {
    let mut checked = Vec::new();
    for leaf in [Leaf::Left, Leaf::Oopif, Leaf::ClosedShadow] {
        let (x, y) = host.landmark_rect(leaf.landmark()).await?.center();
        hover_until_seen(host, leaf, x, y).await?;
        let from = leaf_log(host, leaf).await?.len();
        host.click_at(x, y).await?;
        host.press_key(Key::KEY_A).await?;
        let fresh =
            await_log(host, leaf, from, &[("pointerdown", None), ("click", None), ("keydown", Some("KeyA"))]).await?;
        let untrusted: Vec<&LeafEvent> = fresh.iter().filter(|e| !e.is_trusted).collect();
        ensure!(
            untrusted.is_empty(),
            "{} received untrusted events from CDP input: {}",
            leaf.landmark(),
            text::list_of(&untrusted)
        );
        let from = fresh.len() + from;
        host.tap(x, y).await?;
        let touched =
            await_log(host, leaf, from, &[("touchstart", None), ("touchend", None), ("pointerdown", None)]).await?;
        ensure!(
            touched.iter().any(|e| e.is("pointerdown") && e.pointer_type.as_deref() == Some("touch") && e.is_trusted),
            "{}: the tap produced no trusted touch pointerdown: it logged {}",
            leaf.landmark(),
            text::list_of(&touched)
        );
        checked.push(leaf.landmark());
    }
    Ok(format!("trusted pointer, key and touch events in {}", checked.join(", ")))
}

fn brief(events: &[ObservedEvent]) -> String {
    text::list_of(events.iter().map(super::history::event_brief))
}

fn discrete(snap: &Snapshot) -> Vec<ObservedEvent> {
    snap.recent_events.iter().filter(|e| e.event_type != EventType::Pointermove).cloned().collect()
}

/// Script-dispatched pointer events reach the leaf (its log says isTrusted=false) but never the
/// runtime's history; a trusted click afterwards does (so the check can fail).
pub async fn untrusted_ignored(host: &Host) -> anyhow::Result<String> {
    let leaf = Leaf::Left;
    let (x, y) = host.landmark_rect(leaf.landmark()).await?.center();
    let before = discrete(snapshot_at(host, x, y).await?.value());
    let from = leaf_log(host, leaf).await?.len();
    let forge = r#"(() => {
        const b = document.querySelector('[data-landmark="left-leaf"]');
        const r = b.getBoundingClientRect();
        const at = { bubbles: true, composed: true, clientX: r.x + 3.25, clientY: r.y + 3.25, pointerType: 'mouse', pointerId: 1 };
        for (const t of ['pointerdown', 'pointerup']) b.dispatchEvent(new PointerEvent(t, at));
        b.dispatchEvent(new MouseEvent('click', at));
        b.dispatchEvent(new TouchEvent('touchstart', { bubbles: true, composed: true }));
        return true;
    })()"#;
    host.eval_in_frame(&leaf_frame(host.engine, leaf), forge).await?;
    host.eval(r#"(() => { const a = document.querySelector('[data-landmark="nav"]') || document.body;
        a.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, composed: true, clientX: 9, clientY: 9 }));
        a.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, clientX: 9, clientY: 9 })); return true; })()"#)
        .await?;
    let forged = leaf_log(host, leaf).await?.into_iter().skip(from).filter(|e| !e.is_trusted).count();
    ensure!(forged >= 3, "the forged events did not reach the leaf (its log has {forged} untrusted entries)");
    let after = discrete(host.snapshot().await?.value());
    ensure!(
        after == before,
        "untrusted events entered the history: before {}, after {}",
        brief(&before),
        brief(&after)
    );

    host.click_at(x, y).await?;
    let after = &after;
    let recorded = wait_for(host, "a trusted click entering the history", POINTER_TIMEOUT, || async move {
        let now = discrete(host.snapshot().await?.value());
        Ok(if now.iter().any(|e| e.event_type == EventType::Pointerdown) && now.len() > after.len() {
            Poll::Ready(now.len() - after.len())
        } else {
            Poll::Pending(format!("recent discrete events {} (so this check would prove nothing)", brief(&now)))
        })
    })
    .await?;
    Ok(format!("{forged} forged events ignored; a trusted click recorded {recorded} discrete events"))
}
