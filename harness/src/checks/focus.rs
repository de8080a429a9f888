//! Focus as a user really produces it (spec "What the Host observes", the focus object; schemas.md
//! §3 `focus`): trusted clicks and Tab / Shift+Tab through the Host, a srcdoc iframe, an
//! out-of-process iframe, a Web Fragment, open and closed shadow roots. After each step what the
//! runtime reports (`wippyAttention.focus()` and `snapshot.focus`) is compared with the element
//! Chromium says has focus (`focus_truth`), and with the spec's rules: the composer keeps the last
//! meaningful focus and its timestamp, a sensitive control clears it.

use anyhow::{bail, ensure, Context};
use serde_json::json;

use super::{box_of, candidates, require_valid_payload, wait_for, Poll, POINTER_TIMEOUT, RECT_TOLERANCE};
use crate::attention::{Focus, Reported, SegmentKind, Snapshot};
use crate::focus_truth::{FocusRule, Focused};
use crate::host::Host;
use crate::input::Key;
use crate::report::text;

/// The runtime's current focus (`wippyAttention.focus()`), `None` when none.
pub async fn runtime_focus(host: &Host) -> anyhow::Result<Option<Reported<Focus>>> {
    Ok(host.focus().await?)
}

fn describe_truth(t: &Option<Focused>) -> String {
    match t {
        None => "nothing".into(),
        Some(f) => format!("{} <{}> in {}", f.landmark.as_deref().unwrap_or("-"), f.tag, f.frame_url),
    }
}

/// Waits until Chromium says the element with `landmark` has focus.
pub async fn await_truth(host: &Host, landmark: &str) -> anyhow::Result<Focused> {
    let what = format!("Chromium reporting focus on {landmark}");
    wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let t = host.focused_truth().await?;
        Ok(match &t {
            Some(f) if f.landmark.as_deref() == Some(landmark) => Poll::Ready(f.clone()),
            _ => Poll::Pending(describe_truth(&t)),
        })
    })
    .await
}

/// Whether the runtime's reported focus (`focus()` and the snapshot's focus with its candidate)
/// names the element Chromium says is focused: the candidate's rect is the element's border box,
/// the path ends in an `element` segment with its tag name, `focus()` and `snapshot.focus` agree.
fn names(api: Option<&Focus>, snap: &Snapshot, truth: &Focused) -> Result<(), String> {
    let Some(sf) = &snap.focus else { return Err("snapshot has no focus".into()) };
    let Some(api) = api else {
        return Err("focus() is null".into());
    };
    if api.event_id != sf.event_id || api.path != sf.path {
        return Err(format!(
            "focus() names event {} at {}, snapshot.focus event {} at {}: they disagree",
            api.event_id,
            super::path_words(&api.path),
            sf.event_id,
            super::path_words(&sf.path)
        ));
    }
    let id = sf.candidate_id.as_deref().unwrap_or_default();
    let Some(c) = candidates(snap).iter().find(|c| c.target_id == id) else {
        return Err(format!("focus candidate {} is not among the candidates", text::quote(id)));
    };
    let r = box_of(&c.rect);
    if r.max_edge_delta(&truth.rect) > RECT_TOLERANCE {
        return Err(format!("focus candidate rect {r} is not Chromium's box {}", truth.rect));
    }
    let leaf = sf.path.last();
    if !leaf.is_some_and(|l| l.kind == SegmentKind::Element && l.tag_name.as_deref() == Some(truth.tag.as_str())) {
        return Err(format!(
            "focus path ends in {}, not <{}>",
            leaf.map_or_else(|| "nothing".into(), |l| super::path_words(std::slice::from_ref(l))),
            truth.tag
        ));
    }
    Ok(())
}

/// Waits until the runtime reports `truth` as the current focus; returns the snapshot.
pub async fn await_reported(host: &Host, truth: &Focused) -> anyhow::Result<Reported<Snapshot>> {
    let what = format!("the runtime reporting focus on {}", truth.landmark.as_deref().unwrap_or(&truth.tag));
    let snap = wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let api = runtime_focus(host).await?;
        let snap = host.snapshot().await?;
        Ok(match names(api.as_deref(), &snap, truth) {
            Ok(()) => Poll::Ready(snap),
            Err(why) => Poll::Pending(why),
        })
    })
    .await?;
    require_valid_payload(snap.json())?;
    Ok(snap)
}

/// The focus of a snapshot [`await_reported`] returned (it has one).
fn reported_focus(snap: &Snapshot) -> anyhow::Result<Focus> {
    snap.focus.clone().context("the snapshot that reported the focus has none")
}

/// Waits until the runtime reports no current focus (neither `focus()` nor `snapshot.focus`).
pub async fn await_cleared(host: &Host, why: &str) -> anyhow::Result<()> {
    let what = format!("the runtime clearing its focus ({why})");
    wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let api = runtime_focus(host).await?;
        let snap = host.snapshot().await?;
        Ok(if api.is_none() && snap.focus.is_none() {
            Poll::Ready(())
        } else {
            Poll::Pending(format!(
                "focus() still names event {} ({}), snapshot.focus {}",
                text::opt(api.as_ref().map(|f| f.event_id.as_str())),
                api.as_ref().and_then(|f| f.summary.name.as_deref()).unwrap_or("-"),
                text::opt(snap.focus.as_ref().map(|f| &f.event_id))
            ))
        })
    })
    .await
}

/// After a relay round trip with every child realm (a snapshot sampling `at` queries the child
/// there, so anything it posted before answering has arrived), the runtime still reports the
/// focus `kept` (same event_id, focused_at, sequence).
pub async fn require_kept(host: &Host, kept: &Focus, at: (f64, f64)) -> anyhow::Result<Reported<Snapshot>> {
    let snap = host.snapshot_with(json!({"point": {"x": at.0, "y": at.1}})).await?;
    require_valid_payload(snap.json())?;
    let api = runtime_focus(host).await?;
    for (what, f) in [("focus()", api.as_deref()), ("snapshot.focus", snap.focus.as_ref())] {
        let Some(f) = f else {
            bail!(
                "{what} is empty: the transfer into the composer must keep the last meaningful focus, event {}",
                kept.event_id
            );
        };
        let changed = |field: &str, was: String, now: String| {
            anyhow::anyhow!("{what}.{field} changed on the transfer into the composer: {was} -> {now}")
        };
        ensure!(f.event_id == kept.event_id, changed("event_id", kept.event_id.clone(), f.event_id.clone()));
        ensure!(f.sequence == kept.sequence, changed("sequence", kept.sequence.to_string(), f.sequence.to_string()));
        ensure!(f.focused_at == kept.focused_at, changed("focused_at", kept.focused_at.clone(), f.focused_at.clone()));
        ensure!(
            f.realm_time_ms == kept.realm_time_ms,
            changed("realm_time_ms", kept.realm_time_ms.to_string(), f.realm_time_ms.to_string())
        );
        ensure!(f.path == kept.path, changed("path", super::path_words(&kept.path), super::path_words(&f.path)));
    }
    Ok(snap)
}

async fn click_landmark(host: &Host, landmark: &str) -> anyhow::Result<()> {
    let (x, y) = host.landmark_rect(landmark).await?.center();
    host.click_at(x, y).await?;
    Ok(())
}

/// The reported bug (issue 11): a focus kept across the transfer into the composer must still be
/// invalidated by a later focus on a sensitive control, in the leaf's realm or in the Host.
/// Steps, each confirmed by Chromium's own focus: click the left leaf's button (the runtime names
/// it), click the composer (kept, same event_id and timestamp), click a password field (cleared).
pub async fn sensitive_focus_clears_a_kept_focus(host: &Host) -> anyhow::Result<String> {
    let mut done = Vec::new();
    for password in ["probe-password", "host-probe-password"] {
        click_landmark(host, "left-leaf").await?;
        let truth = await_truth(host, "left-leaf").await?;
        ensure!(
            truth.expectation() == FocusRule::Reports,
            "the left leaf button should be a meaningful focus: {truth}"
        );
        let snap = await_reported(host, &truth).await?;
        let kept = reported_focus(&snap)?;
        let want = super::expected_kinds(host.layout, host.engine, super::Leaf::Left);
        let got = super::path_kinds(&kept.path);
        ensure!(got == want, "focus path kinds {}, expected {}", got.join(" > "), want.join(" > "));
        let ax = host.landmark_ax("left-leaf").await?;
        ensure!(
            kept.summary.name.as_deref() == Some(ax.name.as_str()),
            "focus summary name {} is not Chromium's accessible name {}",
            text::quote_opt(kept.summary.name.as_deref()),
            text::quote(&ax.name)
        );

        click_landmark(host, "composer-input").await?;
        let composer = await_truth(host, "composer-input").await?;
        ensure!(
            composer.expectation() == FocusRule::Keeps,
            "the composer input should be a conversation control: {composer}"
        );
        let leaf_centre = host.landmark_rect("left-leaf").await?.center();
        require_kept(host, &kept, leaf_centre).await?;

        click_landmark(host, password).await?;
        let sensitive = await_truth(host, password).await?;
        ensure!(sensitive.expectation() == FocusRule::Clears, "{password} should be a sensitive control: {sensitive}");
        await_cleared(
            host,
            &format!(
                "focus moved from the composer onto the sensitive {password}, after event {} was kept",
                kept.event_id
            ),
        )
        .await?;
        done.push(password);
    }
    Ok(format!("kept across the composer, then cleared by {}", done.join(" and ")))
}

/// The transfer rule keeps focus only for the excluded *conversation* controls: a focus kept across
/// the composer is cleared by a later focus on a `data-wippy-attention="exclude"` element that is
/// not part of them, in the leaf's realm and in the Host. The probes are made focusable
/// (`tabindex`) by the test; the focus itself comes from a trusted click, confirmed by Chromium.
pub async fn excluded_focus_clears_a_kept_focus(host: &Host) -> anyhow::Result<String> {
    let mut done = Vec::new();
    for (probe, leaf_realm) in [("probe-exclude", true), ("host-probe-exclude", false)] {
        let focusable = format!("(document.querySelector('[data-landmark=\"{probe}\"]').tabIndex = 0, true)");
        if leaf_realm {
            host.eval_in_frame(&super::leaf_frame(host.engine, super::Leaf::Left), &focusable).await?;
        } else {
            host.eval(&focusable).await?;
        }
        click_landmark(host, "left-leaf").await?;
        let truth = await_truth(host, "left-leaf").await?;
        let snap = await_reported(host, &truth).await?;
        let kept = reported_focus(&snap)?;
        click_landmark(host, "composer-input").await?;
        ensure!(
            await_truth(host, "composer-input").await?.expectation() == FocusRule::Keeps,
            "the composer input should keep the focus"
        );
        require_kept(host, &kept, host.landmark_rect("left-leaf").await?.center()).await?;
        click_landmark(host, probe).await?;
        let excluded = await_truth(host, probe).await?;
        ensure!(
            excluded.in_excluded && !excluded.in_composer && excluded.expectation() == FocusRule::Clears,
            "{probe} should be an excluded element outside the conversation controls: {excluded}"
        );
        await_cleared(
            host,
            &format!("focus moved from the composer onto the excluded {probe}, after event {} was kept", kept.event_id),
        )
        .await?;
        done.push(probe);
    }
    Ok(format!("kept across the composer, then cleared by {}", done.join(" and ")))
}

/// Presses Tab (or Shift+Tab) and returns where Chromium says focus landed, once it moved off
/// `from` (the element that had it).
async fn tab(host: &Host, back: bool, from: &Option<Focused>) -> anyhow::Result<Option<Focused>> {
    if back {
        host.press_key_with(Key::TAB, crate::input::SHIFT).await?;
    } else {
        host.press_key(Key::TAB).await?;
    }
    let what = format!("focus leaving {} on {}", describe_truth(from), if back { "Shift+Tab" } else { "Tab" });
    wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let t = host.focused_truth().await?;
        Ok(if &t != from { Poll::Ready(t) } else { Poll::Pending(describe_truth(&t)) })
    })
    .await
}

/// Landmarks a Tab walk through the reference Host must reach: each kind of boundary.
const MUST_VISIT: [&str; 4] = ["left-leaf", "oopif-leaf", "closed-shadow-leaf", "composer-input"];

/// Real Tab presses from the Host's first link through every realm to the composer, then
/// Shift+Tab back: at every stop the runtime's focus is Chromium's focused element (or kept /
/// cleared as the spec's rules say for the composer and sensitive controls).
pub async fn tab_traversal_matches_chromium(host: &Host) -> anyhow::Result<String> {
    click_landmark(host, "nav-home").await?;
    let mut at = Some(await_truth(host, "nav-home").await?);
    let mut last_reported: Option<Focus> = None;
    let mut visited: Vec<String> = Vec::new();
    let mut stops = 0;
    for back in [false, true] {
        let mut steps = 0;
        loop {
            let truth = tab(host, back, &at).await?;
            stops += 1;
            steps += 1;
            let Some(f) = truth.clone() else {
                bail!("Tab moved focus out of the page after {}", visited.join(" -> "))
            };
            let label = f.landmark.clone().unwrap_or_else(|| format!("<{}>", f.tag));
            visited.push(format!("{}{label}", if back { "^" } else { "" }));
            match f.expectation() {
                FocusRule::Reports => {
                    let snap = await_reported(host, &f)
                        .await
                        .with_context(|| format!("Tab stop {stops} ({label}); path so far {}", visited.join(" -> ")))?;
                    last_reported = Some(reported_focus(&snap)?);
                }
                FocusRule::Keeps => {
                    if let Some(kept) = &last_reported {
                        require_kept(host, kept, f.rect.center())
                            .await
                            .with_context(|| format!("Tab stop {stops} ({label})"))?;
                    }
                }
                FocusRule::Clears => {
                    await_cleared(host, &format!("Tab onto the sensitive or excluded {label}")).await?;
                    last_reported = None;
                }
            }
            at = truth;
            let end = if back { "nav-home" } else { "composer-input" };
            if f.landmark.as_deref() == Some(end) {
                break;
            }
            ensure!(steps < 40, "Tab never reached {end}: {}", visited.join(" -> "));
        }
    }
    for must in MUST_VISIT {
        ensure!(
            visited.iter().any(|v| v.trim_start_matches('^') == must),
            "the Tab walk never reached {must}: {}",
            visited.join(" -> ")
        );
    }
    Ok(format!("{stops} Tab / Shift+Tab stops agree with Chromium: {}", visited.join(" -> ")))
}

/// Clicks `landmark` and waits until Chromium and then the runtime report focus on it; returns the
/// runtime's focus object.
pub async fn focus_by_click(host: &Host, landmark: &str) -> anyhow::Result<Focus> {
    click_landmark(host, landmark).await?;
    let truth = await_truth(host, landmark).await?;
    ensure!(truth.expectation() == FocusRule::Reports, "{landmark} should be a meaningful focus: {truth}");
    let snap = await_reported(host, &truth).await?;
    reported_focus(&snap)
}

/// Focus moving into the composer keeps the last meaningful focus and its timestamp, also while
/// Send disables the composer during a turn (the Host's own control, `__host.blockingTurns`) and
/// after the turn ends and the composer takes focus again.
pub async fn composer_transfer_keeps_focus_while_send_disables_it(host: &Host) -> anyhow::Result<String> {
    let kept = focus_by_click(host, "oopif-leaf").await?;
    let at = host.landmark_rect("oopif-leaf").await?.center();
    click_landmark(host, "composer-input").await?;
    await_truth(host, "composer-input").await?;
    require_kept(host, &kept, at).await?;

    host.eval("window.__host.blockingTurns = true").await?;
    // The message the user sends is "hi", not the Host's canary draft with " hi" appended: a sent
    // canary would sit in the Session's database, which verify shares between checks, and the
    // sensitive-controls check rightly reports any canary it finds there.
    host.eval("(() => { document.querySelector('[data-landmark=composer-input]').value = ''; return true; })()")
        .await?;
    host.type_text("hi").await?;
    host.press_key(Key::ENTER).await?;
    wait_for(host, "Send disabling the composer", POINTER_TIMEOUT, || async move {
        let v = host
            .eval("[window.__host.turnRunning, document.querySelector('[data-landmark=composer-input]').disabled]")
            .await?;
        Ok(if v == json!([true, true]) { Poll::Ready(()) } else { Poll::Pending(v.to_string()) })
    })
    .await?;
    // Chromium moves focus off a disabled element at its next focus fix-up, not synchronously.
    wait_for(host, "Chromium moving focus off the disabled composer", POINTER_TIMEOUT, || async move {
        let t = host.focused_truth().await?;
        Ok(if t.as_ref().is_none_or(|f| f.landmark.as_deref() != Some("composer-input")) {
            Poll::Ready(())
        } else {
            Poll::Pending(describe_truth(&t))
        })
    })
    .await?;
    require_kept(host, &kept, at).await.context("while Send disables the composer")?;

    host.eval("window.__host.finishTurn()").await?;
    await_truth(host, "composer-input").await?;
    require_kept(host, &kept, at).await.context("after the turn, the composer focused again")?;
    Ok(format!("focus event {} kept through composer focus, Send disabling it, and its re-focus", kept.event_id))
}

/// Script-dispatched focus events (`dispatchEvent`, untrusted) reach the elements (the leaf's own
/// log says so) but never change the runtime's focus; a trusted Tab afterwards does.
pub async fn script_dispatched_focus_is_ignored(host: &Host) -> anyhow::Result<String> {
    let kept = focus_by_click(host, "left-leaf").await?;
    let leaf = super::Leaf::Right;
    let from = super::leaf_log(host, leaf).await?.len();
    let forge = r#"(() => {
        const b = document.querySelector('[data-landmark="right-leaf"]');
        for (const t of ['focus', 'focusin']) b.dispatchEvent(new FocusEvent(t, { bubbles: t === 'focusin', composed: true }));
        return true;
    })()"#;
    host.eval_in_frame(&super::leaf_frame(host.engine, leaf), forge).await?;
    host.eval(r#"(() => { const a = document.querySelector('[data-landmark="nav-tools"]');
        for (const t of ['focusout', 'focus', 'focusin']) a.dispatchEvent(new FocusEvent(t, { bubbles: t !== 'focus', composed: true }));
        window.dispatchEvent(new FocusEvent('blur')); return true; })()"#)
        .await?;
    let forged =
        super::leaf_log(host, leaf).await?.into_iter().skip(from).filter(|e| e.is("focusin") && !e.is_trusted).count();
    ensure!(
        forged >= 1,
        "the forged focusin did not reach the right leaf (its log shows none), so this proves nothing"
    );
    let right = host.landmark_rect("right-leaf").await?.center();
    require_kept(host, &kept, right).await.context("after script-dispatched focus events")?;

    host.press_key(Key::TAB).await?;
    let truth = await_truth(host, "right-leaf").await?;
    let moved = await_reported(host, &truth).await?;
    let moved = reported_focus(&moved)?;
    ensure!(moved.event_id != kept.event_id, "a trusted Tab did not produce a new focus event");
    Ok(format!("{forged} forged focusin ignored; trusted Tab reported focus event {}", moved.event_id))
}

/// A focused element that is remounted (its realm replaced) or detached invalidates the focus.
pub async fn remounted_or_detached_focus_is_invalidated(host: &Host) -> anyhow::Result<String> {
    let kept = focus_by_click(host, "left-leaf").await?;
    host.eval("window.__host.remount('leaf-left').then(() => true)").await?;
    let truth = host.focused_truth().await?;
    ensure!(
        truth.as_ref().is_none_or(|f| f.landmark.as_deref() != Some("left-leaf")),
        "Chromium still has focus on the remounted leaf: {}",
        text::opt(truth.as_ref())
    );
    await_cleared(host, &format!("the focused left leaf (event {}) was remounted", kept.event_id)).await?;

    let kept = focus_by_click(host, "nav-tools").await?;
    host.eval("document.querySelector('[data-landmark=nav-tools]').remove(), true").await?;
    await_cleared(host, &format!("the focused nav link (event {}) was detached", kept.event_id)).await?;
    Ok("remounted leaf and detached link both cleared the focus".into())
}
