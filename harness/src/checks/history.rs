//! The observation history under trusted input (spec "What the Host observes": recent events,
//! their limits and move compaction; schemas.md §3 observed event): moves over one target compact
//! to the newest complete move; compaction stops at a target change, a focus change, a discrete
//! event, a change of buttons or pointer type, and never joins moves with no resolved target;
//! pending movement is recorded before the discrete event; pen and touch carry their
//! `pointer_type`, a drag its `buttons`; at most 32 events, discrete ones preferred, the newest
//! moves keeping the remaining slots. Targets are compared with Chromium's box model, what was
//! received with the leaves' own logs.

use anyhow::{anyhow, ensure, Context};

use super::{
    box_of, candidates, leaf_log, require_valid_payload, wait_for, Leaf, Poll, POINTER_TIMEOUT, RECT_TOLERANCE,
};
use crate::attention::{EventType as T, ObservedEvent, PointerType, Reported, SegmentKind, Snapshot};
use crate::host::Host;
use crate::input::Key;
use crate::oracle::BoxRect;
use crate::report::text;
use chromiumoxide::cdp::browser_protocol::{fetch, network};

fn events(snap: &Snapshot) -> &[ObservedEvent] {
    &snap.recent_events
}

fn point(e: &ObservedEvent) -> (f64, f64) {
    (e.point.x, e.point.y)
}

fn at(e: &ObservedEvent, p: (f64, f64)) -> bool {
    let q = point(e);
    (q.0 - p.0).abs() <= 0.5 && (q.1 - p.1).abs() <= 0.5
}

/// Whether `e` is of type `t`.
fn is(e: &ObservedEvent, t: T) -> bool {
    e.event_type == t
}

/// The rect of an event's first target, if it has one.
fn target_rect(snap: &Snapshot, e: &ObservedEvent) -> Option<BoxRect> {
    let id = e.candidate_ids.first()?;
    candidates(snap).iter().find(|c| &c.target_id == id).map(|c| box_of(&c.rect))
}

fn over(snap: &Snapshot, e: &ObservedEvent, truth: &BoxRect) -> bool {
    target_rect(snap, e).is_some_and(|r| r.max_edge_delta(truth) <= RECT_TOLERANCE)
}

/// One event as a message shows it: `pointermove@120,40[mouse b0 n2]` (type at x,y, pointer
/// type, buttons, how many candidates it names).
pub(crate) fn event_brief(e: &ObservedEvent) -> String {
    let (x, y) = point(e);
    format!(
        "{}@{x:.0},{y:.0}[{} b{} n{}]",
        e.event_type.as_str(),
        e.pointer_type.map_or("-", PointerType::as_str),
        e.buttons.map_or_else(|| "null".to_string(), |b| b.to_string()),
        e.candidate_ids.len()
    )
}

fn brief(snap: &Snapshot) -> String {
    events(snap).iter().map(event_brief).collect::<Vec<_>>().join(" ")
}

/// Points as a message lists them: `(10, 20), (11, 20)`.
fn points(ps: &[(f64, f64)]) -> String {
    text::list_of(ps.iter().map(|(x, y)| text::point(*x, *y)))
}

/// Waits until the history holds an event satisfying `want` (child realms report asynchronously).
async fn history_with(
    host: &Host,
    what: &str,
    want: impl Fn(&ObservedEvent) -> bool,
) -> anyhow::Result<Reported<Snapshot>> {
    history_where(host, what, |evs| evs.iter().any(&want)).await
}

/// Waits until the recent events as a whole satisfy `done`.
async fn history_where(
    host: &Host,
    what: &str,
    done: impl Fn(&[ObservedEvent]) -> bool,
) -> anyhow::Result<Reported<Snapshot>> {
    let done = &done;
    let found = wait_for(host, what, POINTER_TIMEOUT, || async move {
        let snap = host.snapshot().await?;
        Ok(if done(events(&snap)) { Poll::Ready(snap) } else { Poll::Pending(brief(&snap)) })
    })
    .await;
    match found {
        Ok(snap) => Ok(snap),
        Err(e) => Err(anyhow!("{e:#}; {}", merge_state(host).await)),
    }
}

/// Where the children's moves were when a wait for them ended (the Host's debug hook: each child
/// realm's window announced and not pulled, a pull's answer still due, or idle; observations the
/// Host dropped), so a move that never reached the history says where it stopped.
async fn merge_state(host: &Host) -> String {
    const EXPR: &str = "(() => { const d = window.__wippyAttentionRuntime.debug(); \
        return 'Host dropped ' + d.dropped + ' observations; child windows: ' + d.children.map((c) => \
        c.mount_id + ' ' + c.state + ' ' + c.window + ' (' + c.pending + ' queries in flight)').join(', '); })()";
    match host.eval(EXPR).await {
        Ok(v) => format!("merge state: {}", v.as_str().unwrap_or("?")),
        Err(e) => format!("merge state unreadable: {e}"),
    }
}

fn ordered(snap: &Snapshot) -> anyhow::Result<()> {
    let evs = events(snap);
    for w in evs.windows(2) {
        let (a, b) = (w[0].sequence, w[1].sequence);
        ensure!(a < b, "recent_events are not in strictly increasing sequence: {a} then {b}: {}", brief(snap));
    }
    Ok(())
}

/// Every compaction rule of the spec, one trusted gesture each, read back from one history.
pub async fn compaction_rules_under_trusted_input(host: &Host) -> anyhow::Result<String> {
    let left = host.landmark_rect("left-leaf").await?;
    let right = host.landmark_rect("right-leaf").await?;
    let composer = host.landmark_rect("composer-input").await?;
    let cy = left.y + left.height / 2.0;
    let l = |dx: f64| (left.x + dx, cy);
    let r = |dx: f64| (right.x + dx, right.y + right.height / 2.0);

    // a. moves within the left leaf: one entry, the newest (L4).
    host.move_to(l(10.0).0, cy).await?;
    host.move_to_in_steps(l(40.0).0, cy, 3) /* L20, L30, L40 */
        .await?;
    history_with(host, "the move at L4 reaching the history", |e| is(e, T::Pointermove) && at(e, l(40.0))).await?;
    // b. a focus change (Tab, no pointer) between moves over the same target.
    host.press_key(Key::TAB).await?;
    let truth = host.focused_truth().await?.context("Tab focused nothing in Chromium")?;
    super::focus::await_reported(host, &truth).await.context("the focus change between the moves")?;
    host.move_to_in_steps(l(60.0).0, cy, 2).await?;
    // c. a discrete event (click) right at the end of a movement, then moves again.
    host.press().await?;
    host.release().await?;
    host.move_to_in_steps(l(80.0).0, cy, 2).await?;
    // d. a target change.
    host.move_to(r(10.0).0, r(10.0).1).await?;
    // e. buttons change: a drag within the right leaf.
    host.move_to(r(20.0).0, r(20.0).1).await?;
    host.press().await?;
    host.drag_to(r(40.0).0, r(40.0).1, 2).await?;
    host.release().await?;
    // The click focused the right leaf; its child realm reports that focus asynchronously, possibly
    // after the pen moves below: compaction is decided by when the focus changed, not by when the
    // report arrived, so no wait here.
    // f. pointer type change: a pen over the same target.
    host.pen_move_to(r(50.0).0, r(50.0).1).await?;
    host.pen_move_to(r(60.0).0, r(60.0).1).await?;
    // g. moves with no resolved target (the composer is excluded): never compacted.
    let c1 = (composer.x + 20.0, composer.y + 20.0);
    let c2 = (composer.x + 40.0, composer.y + 20.0);
    host.move_to(c1.0, c1.1).await?;
    host.move_to(c2.0, c2.1).await?;
    // h. touch.
    host.tap(r(70.0).0, r(70.0).1).await?;
    let snap = history_with(host, "the touch tap reaching the history", |e| is(e, T::Touchend)).await?;
    require_valid_payload(snap.json())?;
    ordered(&snap)?;
    let evs = events(&snap);
    let b = brief(&snap);
    let idx = |f: &dyn Fn(&ObservedEvent) -> bool| evs.iter().position(f);
    let moves_over_left_before_down: Vec<&ObservedEvent> = evs
        .iter()
        .take_while(|e| !is(e, T::Pointerdown))
        .filter(|e| is(e, T::Pointermove) && over(&snap, e, &left))
        .collect();
    // The moves before the focus change compact to L40, the focus change stops that compaction, and
    // the two moves after it (L50, L60) compact to L60.
    ensure!(
        moves_over_left_before_down.len() == 2
            && moves_over_left_before_down.first().is_some_and(|e| at(e, l(40.0)))
            && moves_over_left_before_down.last().is_some_and(|e| at(e, l(60.0)))
            && !evs.iter().any(|e| [10.0, 20.0, 30.0, 50.0].iter().any(|dx| at(e, l(*dx)))),
        "moves over the left leaf must compact to the newest (L40), the focus change must start a new entry, and L50 -> L60 compact to L60: {b}"
    );
    let down = idx(&|e| is(e, T::Pointerdown) && over(&snap, e, &left))
        .with_context(|| format!("no pointerdown on the left leaf: {b}"))?;
    ensure!(
        down > 0 && is(&evs[down - 1], T::Pointermove) && at(&evs[down - 1], l(60.0)),
        "the pending move at L60 is not recorded right before the pointerdown: {b}"
    );
    ensure!(
        evs.iter().skip(down).any(|e| is(e, T::Pointermove) && at(e, l(80.0)) && over(&snap, e, &left)),
        "the move after the click (L80) must be its own entry, not compacted across the discrete event: {b}"
    );
    let r10 = idx(&|e| is(e, T::Pointermove) && at(e, r(10.0)) && over(&snap, e, &right));
    let r20 = idx(&|e| is(e, T::Pointermove) && at(e, r(20.0)) && over(&snap, e, &right));
    ensure!(r10.is_none() && r20.is_some(), "moves R10 -> R20 over the right leaf compact to R20 (target change from the left leaf starts a new entry): {b}");
    let dragged = idx(&|e| is(e, T::Pointermove) && at(e, r(40.0)) && e.buttons == Some(1))
        .with_context(|| format!("no drag move at R40 with buttons 1: {b}"))?;
    ensure!(
        !evs.iter().any(|e| is(e, T::Pointermove) && at(e, r(30.0))),
        "the drag's moves R30 -> R40 (same buttons) must compact: {b}"
    );
    ensure!(dragged > r20.unwrap_or(0), "the buttons change must start a new entry: {b}");
    let pen = idx(&|e| is(e, T::Pointermove) && at(e, r(60.0)) && e.pointer_type == Some(PointerType::Pen))
        .with_context(|| format!("no pen move at R60 with pointer_type pen: {b}"))?;
    ensure!(!evs.iter().any(|e| at(e, r(50.0))), "pen moves over one target compact to the newest: {b}");
    ensure!(pen > dragged, "the pen move is out of order: {b}");
    let unresolved: Vec<&ObservedEvent> =
        evs.iter().filter(|e| is(e, T::Pointermove) && (at(e, c1) || at(e, c2))).collect();
    ensure!(
        unresolved.len() == 2 && unresolved.iter().all(|e| e.candidate_ids.is_empty()),
        "moves with no resolved target (the excluded composer) never compact and have no targets: {b}"
    );
    ensure!(
        evs.iter()
            .any(|e| is(e, T::Pointerdown) && e.pointer_type == Some(PointerType::Touch) && over(&snap, e, &right))
            && evs.iter().any(|e| is(e, T::Touchstart) && over(&snap, e, &right)),
        "the tap must give a touchstart and a touch pointerdown on the right leaf: {b}"
    );
    // The right leaf really received the pen and the touch (its own log).
    let log = leaf_log(host, Leaf::Right).await?;
    for ty in ["pen", "touch"] {
        ensure!(
            log.iter().any(|e| e.pointer_type.as_deref() == Some(ty) && e.is_trusted),
            "the right leaf's own log has no trusted {ty} event"
        );
    }
    Ok(format!("{} events: {b}", evs.len()))
}

/// More than 32 events: clicks on the left leaf (discrete), then moves alternating between the
/// leaves (not compactable). The history keeps exactly 32: every discrete event (they fit) and
/// the newest moves in the remaining slots; the discrete ones are the leaf's own last ones.
pub async fn limits_prefer_discrete_and_newest_moves(host: &Host) -> anyhow::Result<String> {
    let left = host.landmark_rect("left-leaf").await?;
    let right = host.landmark_rect("right-leaf").await?;
    const CLICKS: usize = 10; // 30 discrete events
    for i in 0..CLICKS {
        host.click_at(left.x + 10.0 + i as f64, left.y + 16.0).await?;
    }
    let mut sent = Vec::new();
    for i in 0..12 {
        let p = if i % 2 == 0 {
            (right.x + 10.0 + i as f64, right.y + 10.0)
        } else {
            (left.x + 10.0 + i as f64, left.y + 10.0)
        };
        host.move_to(p.0, p.1).await?;
        sent.push(p);
    }
    let last = *sent.last().expect("moves were sent");
    let snap =
        history_with(host, "the last move reaching the history", |e| is(e, T::Pointermove) && at(e, last)).await?;
    require_valid_payload(snap.json())?;
    ordered(&snap)?;
    let evs = events(&snap);
    let b = brief(&snap);
    ensure!(evs.len() == 32, "the history must hold exactly 32 events when more happened, it holds {}: {b}", evs.len());
    let discrete: Vec<&ObservedEvent> = evs.iter().filter(|e| !is(e, T::Pointermove)).collect();
    ensure!(
        discrete.len() == 3 * CLICKS,
        "all {} discrete events must be kept in a full history, {} are: {b}",
        3 * CLICKS,
        discrete.len()
    );
    let truth: Vec<String> = leaf_log(host, Leaf::Left)
        .await?
        .into_iter()
        .filter(|e| e.is_trusted && matches!(e.event_type.as_str(), "pointerdown" | "pointerup" | "click"))
        .map(|e| e.event_type.clone())
        .collect();
    let reported: Vec<String> = discrete.iter().map(|e| e.event_type.as_str().to_string()).collect();
    ensure!(
        truth.len() >= reported.len() && truth[truth.len() - reported.len()..] == reported[..],
        "discrete events {} are not the leaf's own last ones {}",
        text::list(&reported),
        text::list(&truth)
    );
    let moves: Vec<&ObservedEvent> = evs.iter().filter(|e| is(e, T::Pointermove)).collect();
    let newest = &sent[sent.len() - moves.len()..];
    ensure!(
        moves.iter().zip(newest).all(|(e, p)| at(e, *p)),
        "the remaining {} slots must hold the newest moves {}: {b}",
        moves.len(),
        points(newest)
    );
    Ok(format!("32 kept of {} discrete + {} moves: {b}", 3 * CLICKS, sent.len()))
}

/// Advances the Host realm's observation clock through the runtime's internal test hook
/// (`__wippyAttentionRuntime.advanceClock`, never part of the public API or a snapshot).
async fn advance_clock(host: &Host, ms: u64) -> anyhow::Result<()> {
    let v = host.eval(&format!("window.__wippyAttentionRuntime.advanceClock({ms})")).await?;
    ensure!(v.as_f64().is_some(), "advanceClock({ms}) was refused: {v}");
    Ok(())
}

/// The 60 s window with the injectable clock: a click stays while it is younger than 60 s (58 s on
/// the clock), leaves the history and is never the pointer once older (61 s), while a move made
/// after the first advance stays; 61 s more and neither the history nor the pointer holds anything.
/// What the runtime dropped is what the leaves received (their own logs).
pub async fn window_drops_events_older_than_60_s(host: &Host) -> anyhow::Result<String> {
    let left = host.landmark_rect("left-leaf").await?;
    let right = host.landmark_rect("right-leaf").await?;
    let click = (left.x + 12.0, left.y + 12.0);
    let mv = (right.x + 14.0, right.y + 14.0);
    ensure!(
        host.eval("typeof window.wippyAttention.advanceClock").await? == "undefined",
        "the clock hook must not be part of the public API"
    );
    host.click_at(click.0, click.1).await?;
    history_with(host, "the click on the left leaf reaching the history", |e| is(e, T::Click) && at(e, click)).await?;
    advance_clock(host, 58_000).await?;
    let snap = host.snapshot().await?;
    require_valid_payload(snap.json())?;
    ensure!(
        events(&snap).iter().any(|e| is(e, T::Click) && at(e, click)),
        "a click 58 s old must stay in the 60 s window: {}",
        brief(&snap)
    );
    host.move_to(mv.0, mv.1).await?;
    history_with(host, "the move over the right leaf reaching the history", |e| is(e, T::Pointermove) && at(e, mv))
        .await?;
    advance_clock(host, 3_000).await?;
    let snap = host.snapshot().await?;
    require_valid_payload(snap.json())?;
    let b = brief(&snap);
    ensure!(!snap.json().to_string().contains("advanceClock"), "the clock hook leaked into a snapshot");
    ensure!(
        !events(&snap).iter().any(|e| at(e, click)),
        "events older than 60 s (the click, 61 s) must leave the history: {b}"
    );
    ensure!(events(&snap).iter().any(|e| is(e, T::Pointermove) && at(e, mv)), "the move 3 s old must stay: {b}");
    ensure!(
        snap.pointer.as_ref().is_some_and(|p| (p.point.x - mv.0).abs() <= 0.5),
        "the pointer must be the 3 s old move at x {}: {}",
        text::num(mv.0),
        text::opt(snap.pointer.as_ref().map(event_brief))
    );
    advance_clock(host, 61_000).await?;
    let snap = host.snapshot().await?;
    require_valid_payload(snap.json())?;
    ensure!(
        events(&snap).is_empty() && snap.pointer.is_none(),
        "after 61 s more neither recent events nor a pointer remain: events {}, pointer {}",
        brief(&snap),
        text::opt(snap.pointer.as_ref().map(event_brief))
    );
    // The leaves really received what the runtime aged out.
    let l = leaf_log(host, Leaf::Left).await?;
    ensure!(l.iter().any(|e| e.is("click") && e.is_trusted), "the left leaf's own log has no trusted click");
    let r = leaf_log(host, Leaf::Right).await?;
    ensure!(
        r.iter().any(|e| e.is("pointermove") && e.is_trusted),
        "the right leaf's own log has no trusted pointermove"
    );
    Ok("click kept at 58 s, dropped at 61 s; move kept at 3 s; nothing at 64 s".into())
}

/// Pointer capture is part of the compaction identity: the right leaf (page code installed in its
/// own realm, as an app would) captures the pointer on pointerdown and releases it after the second
/// move of the drag. The drag's four moves over the same target with the same buttons give two
/// entries, the newest captured one and the newest uncaptured one, and `pointer_capture` of each is
/// what the leaf itself read with `hasPointerCapture` at that move.
pub async fn pointer_capture_change_stops_compaction(host: &Host) -> anyhow::Result<String> {
    let right = host.landmark_rect("right-leaf").await?;
    let frame = super::expect::leaf_frame(host.engine, Leaf::Right);
    let installed = host
        .eval_in_frame(
            &frame,
            r#"(function () {
                var b = document.querySelector('[data-landmark="right-leaf"]');
                if (!b) return false;
                window.__captureLog = [];
                var moves = 0;
                b.addEventListener('pointerdown', function (e) { b.setPointerCapture(e.pointerId); moves = 0; });
                b.addEventListener('pointermove', function (e) {
                    if (!e.buttons) return;
                    window.__captureLog.push({ x: e.clientX, captured: b.hasPointerCapture(e.pointerId) });
                    if (++moves === 2) b.releasePointerCapture(e.pointerId);
                });
                return true;
            })()"#,
        )
        .await?;
    ensure!(installed == true, "the right leaf button was not found in its realm");
    let r = |dx: f64| (right.x + dx, right.y + right.height / 2.0);
    host.move_to(r(20.0).0, r(20.0).1).await?;
    host.press().await?;
    host.drag_to(r(60.0).0, r(60.0).1, 4).await?; // R30 R40 (captured), R50 R60 (released)
    host.release().await?;
    // The release is pushed at once, the drag's moves come with the next merge of the leaf's window
    // (issue 23), so the history is complete once both the release and the last move are in it.
    let last = r(60.0);
    let snap = history_where(host, "the drag's last move and its release reaching the history", |evs| {
        evs.iter().any(|e| is(e, T::Pointerup) && at(e, last))
            && evs.iter().any(|e| is(e, T::Pointermove) && e.buttons == Some(1) && at(e, last))
    })
    .await?;
    require_valid_payload(snap.json())?;
    ordered(&snap)?;
    let b = brief(&snap);
    let truth = host.eval_in_frame(&frame, "JSON.parse(JSON.stringify(window.__captureLog))").await?;
    let truth = truth.as_array().cloned().unwrap_or_default();
    let captured: Vec<bool> = truth.iter().map(|e| e["captured"] == true).collect();
    ensure!(
        captured == [true, true, false, false],
        "the leaf itself must see the capture on the first two drag moves only (captured true, true, false, false): {}",
        text::json(&truth)
    );
    let evs = events(&snap);
    let drag: Vec<&ObservedEvent> = evs.iter().filter(|e| is(e, T::Pointermove) && e.buttons == Some(1)).collect();
    ensure!(
        drag.len() == 2
            && at(drag[0], r(40.0))
            && drag[0].pointer_capture == Some(true)
            && at(drag[1], r(60.0))
            && drag[1].pointer_capture == Some(false),
        "the drag must keep R40 (captured) and R60 (released), R30 and R50 compacted into them: {b}"
    );
    ensure!(
        drag.iter().all(|e| over(&snap, e, &right)),
        "both drag entries must target the right leaf (Chromium's box): {b}"
    );
    Ok(b)
}

/// Compaction stops when a target's mount generation changes (spec "What the Host observes"), even
/// when the target itself does not: a button in an artifact boundary (generation 1) receives trusted
/// moves, then its page remounts the boundary (a new element with the same mount id, generation 2,
/// and the *same* button moved into it; Chromium's backend node ids confirm the button is the same
/// node and the boundary is not), then more trusted moves. Moves on each side compact to their
/// newest, but never across the remount: the history keeps two entries over one target_id, whose
/// path now carries generation 2. Done in the Host document and in the left leaf's realm (out of
/// process in engine iframe, where the child's observations are merged by the Host; fragment
/// content in engine fragment).
pub async fn mount_generation_change_stops_compaction(host: &Host) -> anyhow::Result<String> {
    let in_host = generation_probe(host, None, "host").await?;
    let in_leaf = generation_probe(host, Some(super::expect::leaf_frame(host.engine, Leaf::Left)), "leaf").await?;
    Ok(format!("Host: {in_host}; left leaf: {in_leaf}"))
}

async fn generation_probe(host: &Host, frame: Option<crate::host::Frame>, name: &str) -> anyhow::Result<String> {
    let eval = |js: String| {
        let frame = frame.clone();
        async move {
            match frame {
                None => host.eval(&js).await,
                Some(f) => host.eval_in_frame(&f, &js).await,
            }
        }
    };
    // Page setup (not user input). In the Host: fixed over free space at the bottom of the nav
    // area; in the leaf: absolute inside the leaf app, below its probes and left of its button.
    let (container, place) = match frame {
        None => ("document.body", "position: fixed; left: 8px; top: 640px; width: 160px; height: 48px;"),
        Some(_) => (
            "document.getElementById('leaf-app')",
            "position: absolute; left: 8px; top: 86px; width: 120px; height: 30px;",
        ),
    };
    let mount = format!("generation-probe-{name}");
    let made = eval(format!(
        r#"(() => {{
            const a = document.createElement('div');
            a.setAttribute('data-wippy-kind', 'artifact');
            a.setAttribute('data-wippy-mount-id', '{mount}');
            a.setAttribute('data-wippy-artifact-id', '{mount}');
            a.setAttribute('data-landmark', '{mount}');
            a.style.cssText = '{place} z-index: 10; background: #eef;';
            const b = document.createElement('button');
            b.textContent = 'Generation probe';
            b.setAttribute('data-landmark', '{mount}-button');
            b.style.cssText = 'position: absolute; left: 4px; top: 4px; right: 4px; bottom: 4px; font-size: 10px;';
            a.append(b);
            {container}.append(a);
            return true;
        }})()"#
    ))
    .await?;
    ensure!(made == true, "the generation probe was not built in the {name} realm");
    let button_mark = format!("{mount}-button");
    let button = host.landmark_rect(&button_mark).await?;
    let before = (
        host.locate_landmark(&mount).await?.backend_node_id,
        host.locate_landmark(&button_mark).await?.backend_node_id,
    );
    let y = button.y + button.height / 2.0;
    let b = |dx: f64| (button.x + dx, y);
    host.move_to(b(10.0).0, y).await?;
    host.move_to_in_steps(b(40.0).0, y, 3).await?; // b20, b30, b40
    history_with(host, "the move at b40 reaching the history", |e| is(e, T::Pointermove) && at(e, b(40.0))).await?;

    // A fragment realm's `document` is patched onto the fragment's tree: look up by id from the app.
    let scope = if frame.is_none() { "document" } else { container };
    eval(format!(
        r#"(() => {{
            const old = {scope}.querySelector('[data-wippy-mount-id="{mount}"]');
            const fresh = old.cloneNode(false);
            fresh.append(...old.childNodes);
            old.replaceWith(fresh);
            return true;
        }})()"#
    ))
    .await?;
    let after = (
        host.locate_landmark(&mount).await?.backend_node_id,
        host.locate_landmark(&button_mark).await?.backend_node_id,
    );
    ensure!(
        after.1 == before.1 && after.0 != before.0,
        "Chromium: the remount must keep the button node and replace the boundary (backend nodes boundary/button before {}/{}, after {}/{})",
        before.0,
        before.1,
        after.0,
        after.1
    );
    ensure!(
        host.landmark_rect(&button_mark).await?.max_edge_delta(&button) <= RECT_TOLERANCE,
        "the button moved in the remount"
    );

    host.move_to(b(60.0).0, y).await?;
    host.move_to_in_steps(b(90.0).0, y, 3).await?; // b70, b80, b90
    let snap =
        history_with(host, "the move at b90 reaching the history", |e| is(e, T::Pointermove) && at(e, b(90.0))).await?;
    require_valid_payload(snap.json())?;
    ordered(&snap)?;
    let brief = brief(&snap);
    let evs = events(&snap);
    let over_button: Vec<&ObservedEvent> =
        evs.iter().filter(|e| is(e, T::Pointermove) && over(&snap, e, &button)).collect();
    ensure!(
        over_button.len() == 2 && at(over_button[0], b(40.0)) && at(over_button[1], b(90.0)),
        "{name}: moves over the button compact to b40 before and b90 after the remount, and never across it: {brief}"
    );
    let ids: Vec<Option<&String>> = over_button.iter().map(|e| e.candidate_ids.first()).collect();
    ensure!(
        ids[0] == ids[1],
        "{name}: both entries must name the same target (the button was not replaced): {}",
        text::list_of(ids.iter().map(|i| text::opt(*i)))
    );
    let cand =
        candidates(&snap).iter().find(|c| Some(&c.target_id) == ids[0]).context("the button's candidate is missing")?;
    let seg = cand.path.iter().find(|s| s.mount_id == mount);
    ensure!(
        seg.is_some_and(|s| s.kind == SegmentKind::Artifact && s.generation == 2),
        "{name}: the button's path must carry the remounted boundary {mount} as an artifact at generation 2: {}",
        seg.map_or_else(
            || "it is not on the path".into(),
            |s| format!("{} generation {}", s.kind.as_str(), s.generation)
        )
    );
    Ok(format!(
        "b40 (generation 1) and b90 (generation 2) kept apart over target {}",
        ids[0].map(String::as_str).unwrap_or("(none)")
    ))
}

/// A child realm that answers a merge late loses none of its moves to the next snapshot (issue 23:
/// the Host pulls the children's windows when it needs them, and a child empties its window into
/// the answer it gives). A trusted move lands in the right leaf, an out-of-process iframe; once the
/// leaf's own log has it and the Host realm holds its announcement, the leaf's main thread is held
/// in a synchronous request that CDP `Fetch` keeps paused, so the first snapshot's pull stays
/// unanswered past that snapshot's merge deadline (the Host still has it in flight). A second
/// snapshot is then started and the request released: that snapshot must wait for the answer still
/// due and report the move as its pointer, over the leaf's button in Chromium's box model.
pub async fn late_window_answer_reaches_the_next_snapshot(host: &Host) -> anyhow::Result<String> {
    ensure!(host.engine == crate::Engine::Iframe, "needs the right leaf as an out-of-process iframe (engine iframe)");
    let right = host.landmark_rect("right-leaf").await?;
    let a = (right.x + 20.0, right.y + right.height / 2.0);
    host.move_to(a.0, a.1).await?;
    wait_for(host, "the right leaf's own log holding the trusted move", POINTER_TIMEOUT, || async move {
        let log = leaf_log(host, Leaf::Right).await?;
        let got = log.iter().any(|e| e.is("pointermove") && e.is_trusted);
        Ok(if got { Poll::Ready(()) } else { Poll::Pending(format!("{} events", log.len())) })
    })
    .await?;
    const WINDOWS: &str = "JSON.stringify(window.__wippyAttentionRuntime.debug().children.map((c) => c.window))";
    wait_for(host, "the Host realm holding a child's window announcement", POINTER_TIMEOUT, || async move {
        let w = host.eval(WINDOWS).await?;
        let w = w.as_str().unwrap_or_default().to_string();
        Ok(if w.contains("\"announced\"") { Poll::Ready(()) } else { Poll::Pending(w) })
    })
    .await?;

    // The leaf's renderer is held in a synchronous request the test answers when it chooses (CDP
    // `Fetch`): its main thread runs nothing until then, the Host's pull included.
    let frame = super::expect::leaf_frame(host.engine, Leaf::Right);
    let (leaf, _) = host.frames().resolve_frame(&frame).await?;
    let mut cdp_events = host.frames().cdp().events();
    let pattern = fetch::RequestPattern { url_pattern: Some("*__attention_hold*".into()), ..Default::default() };
    let hold = fetch::EnableParams { patterns: Some(vec![pattern]), ..Default::default() };
    leaf.send(&hold).await?;
    host.eval_in_frame(
        &frame,
        "setTimeout(() => { const x = new XMLHttpRequest(); x.open('GET', '/__attention_hold', false); \
         try { x.send(); } catch (_) {} }, 0), true",
    )
    .await?;
    let held = async {
        while let Ok(ev) = cdp_events.recv().await {
            if ev.method == "Fetch.requestPaused" && ev.session_id.as_deref() == Some(leaf.id.as_str()) {
                return ev.params["requestId"].as_str().map(str::to_string);
            }
        }
        None
    };
    let Some(request_id) = tokio::time::timeout(POINTER_TIMEOUT, held).await.ok().flatten() else {
        anyhow::bail!(
            "the right leaf's held request did not reach the network within {}",
            text::duration(POINTER_TIMEOUT)
        )
    };
    let first = host.snapshot().await?;
    ensure!(
        first.pointer.as_ref().is_none_or(|p| !at(p, a)),
        "with the leaf held before it answered, the first snapshot cannot hold its move: {}",
        brief(&first)
    );
    let windows = host.eval(WINDOWS).await?;
    ensure!(
        windows.as_str().is_some_and(|w| w.contains("\"pulling\"")),
        "after the first snapshot the Host must still wait for the held leaf's answer: windows {windows}"
    );
    host.eval("(window.__lateSnapshot = window.wippyAttention.snapshot({}), true)").await?;
    leaf.send(&fetch::FailRequestParams::new(request_id, network::ErrorReason::Aborted)).await?;
    let second = crate::host::parse_snapshot(host.eval("window.__lateSnapshot").await?)?;
    leaf.send(&fetch::DisableParams::default()).await?;
    require_valid_payload(second.json())?;
    let pointer = second.pointer.as_ref();
    ensure!(
        pointer.is_some_and(|p| at(p, a) && is(p, T::Pointermove) && over(&second, p, &right)),
        "the snapshot started before the leaf answered must wait for that answer: pointer {}, events {} \
         (the Host's child windows now {})",
        text::opt(pointer.map(event_brief)),
        brief(&second),
        host.eval(WINDOWS).await.unwrap_or_default()
    );
    ensure!(
        events(&second).iter().any(|e| is(e, T::Pointermove) && at(e, a)),
        "the move must be in the recent events too: {}",
        brief(&second)
    );
    Ok(format!("first: {}; second: {}", brief(&first), brief(&second)))
}

/// A child realm's move carries its candidate as it was at the move (spec: "the candidate IDs
/// resolved at that time"), although the realm keeps what it read for the next moves
/// (realm/resolve-cache.js): the summary is read again when the pointer moves onto another node
/// (another :hover chain, so other computed styles) and after any change of the DOM, in the light
/// tree and in a declarative open shadow root (one no attachShadow call made) inside the
/// candidate. A button in the left leaf (an out-of-process iframe) shows a part of its name only
/// while one of its spans is hovered; each phase moves twice in a row over the button, the second
/// move right after the change it proves, then away to the composer, so the newest event over the
/// button carries what the second move resolved. Its name must be Chromium's accessible name of
/// the button read while the pointer was there.
pub async fn move_candidate_follows_hover_and_dom_changes(host: &Host) -> anyhow::Result<String> {
    let frame = super::expect::leaf_frame(host.engine, Leaf::Left);
    // Page setup (not user input): absolute inside the leaf app, below its probes and left of its
    // button. Its parts are flex items, set apart as blocks in both name computations and laid out
    // from the left, so the spans stay where they are when the tip shows after the second one.
    let made = host
        .eval_in_frame(
            &frame,
            r#"(() => {
                const style = document.createElement('style');
                style.textContent = '.hp-tip { display: none } .hp-b:hover + .hp-tip { display: block }';
                document.head.append(style);
                const b = document.createElement('button');
                b.setAttribute('data-landmark', 'hover-probe');
                b.style.cssText = 'position: absolute; left: 8px; top: 86px; width: 190px; height: 30px; font-size: 12px; display: flex; gap: 4px; align-items: center; z-index: 10;';
                b.setHTMLUnsafe('<span class="hp-a" data-landmark="hover-probe-a">Alpha</span>'
                    + '<span class="hp-b" data-landmark="hover-probe-b">Beta</span><span class="hp-tip">tip</span>'
                    + '<hp-label><template shadowrootmode="open"><span>Delta</span></template></hp-label>');
                document.getElementById('leaf-app').append(b);
                return !!b.querySelector('hp-label').shadowRoot;
            })()"#,
        )
        .await?;
    ensure!(made == true, "the hover probe (with a declarative open shadow root) was not built in the left leaf");
    let a = host.landmark_rect("hover-probe-a").await?.center();
    let b = host.landmark_rect("hover-probe-b").await?.center();
    let button = host.landmark_rect("hover-probe").await?;
    let away = host.landmark_rect("composer-input").await?.center();
    let name = async || anyhow::Ok(host.landmark_ax("hover-probe").await?.name);

    host.move_to(a.0, a.1).await?;
    let plain = name().await?;
    host.move_to(b.0, b.1).await?;
    let hovered = name().await?;
    ensure!(
        plain != hovered && hovered.contains("tip"),
        "Chromium: hovering the second span must add its tip to the button's name (over the first: {}, over the second: {})",
        text::quote(&plain),
        text::quote(&hovered)
    );
    let mut phases = Vec::new();
    // Each phase: the move to `first` fills what the realm keeps, `change` runs, the second move
    // (at `b` + `dx`) must read the button again; `truth` is Chromium's name after it.
    let mut phase = async |what: &str, first: (f64, f64), change: Option<&str>, dx: f64| -> anyhow::Result<()> {
        host.move_to(first.0, first.1).await?;
        if let Some(js) = change {
            ensure!(host.eval_in_frame(&frame, js).await? == true, "{what}: the change did not apply");
        }
        let second = (b.0 + dx, b.1);
        host.move_to(second.0, second.1).await?;
        let truth = name().await?;
        host.move_to(away.0 + dx, away.1).await?;
        let snap = history_with(host, &format!("{what}: the move onto the second span and the move away"), |e| {
            is(e, T::Pointermove) && at(e, (away.0 + dx, away.1))
        })
        .await?;
        let brief = brief(&snap);
        let last = events(&snap)
            .iter()
            .rev()
            .find(|e| is(e, T::Pointermove) && over(&snap, e, &button))
            .with_context(|| format!("{what}: no move over the button in the history: {brief}"))?;
        ensure!(at(last, second), "{what}: the newest move over the button must be the second move: {brief}");
        let id = last.candidate_ids.first().context("the move over the button has no candidate")?;
        let cand =
            candidates(&snap).iter().find(|c| &c.target_id == id).context("the button's candidate is missing")?;
        let got = cand.summary.name.clone().unwrap_or_default();
        ensure!(
            got == truth,
            "{what}: the move's candidate is named {}, Chromium named the button {}",
            text::quote(&got),
            text::quote(&truth)
        );
        phases.push(format!("{what}: {}", text::quote(&got)));
        Ok(())
    };
    // From the first span onto the second: another node hit, the tip shows.
    phase("hover", a, None, 1.0).await?;
    // The light tree changes between two moves over the same node.
    phase(
        "light DOM",
        (b.0 + 2.0, b.1),
        Some("(() => { document.querySelector('.hp-a').textContent = 'Gamma'; return true; })()"),
        3.0,
    )
    .await?;
    // The declarative shadow root changes between two moves over the same node.
    phase(
        "shadow root",
        (b.0 + 4.0, b.1),
        Some("(() => { document.querySelector('hp-label').shadowRoot.querySelector('span').textContent = 'Epsilon'; return true; })()"),
        5.0,
    )
    .await?;
    Ok(phases.join("; "))
}

/// Page script of the Host document: the iframe of the right leaf (an out-of-process iframe in
/// engine iframe), searched through open shadow roots.
const RIGHT_LEAF_IFRAME: &str = "(() => {
    const find = (root) => {
        for (const el of root.querySelectorAll('*')) {
            if (el.localName === 'iframe' && (el.getAttribute('src') || '').includes('leaf.html?side=right')) return el;
            if (el.shadowRoot) { const f = find(el.shadowRoot); if (f) return f; }
        }
        return null;
    };
    const f = find(document);
    if (!f) throw new Error('no iframe of leaf.html?side=right in the Host document');
    return f;
})()";

/// A child realm's notice that its window holds moves (`window-pending`), dropped by the Host, is
/// said again at the child's next grant, so none of its moves is left unpulled (issue 44: the drag
/// whose last move never reached the history although the leaf saw it). The gap is forced, in the
/// right leaf (an out-of-process iframe): the Host document posts the leaf a copy of the Host's own
/// latest capability request under a request id the Host never sent, as a late grant of a
/// discovery round the Host already ended would arrive; the leaf grants a token the Host refuses
/// and makes it current. A trusted move in the leaf is then announced with that token, and the Host
/// drops it (its dropped count says so). The Host's next discovery round (its handler of the
/// iframe's load event, called as the browser would after a load) grants a token both know, and a
/// second trusted move follows. The Host's history must then hold the second move, over the leaf's
/// button in Chromium's box model, as every trusted move of a child must reach it.
pub async fn dropped_window_notice_is_said_again_at_the_next_grant(host: &Host) -> anyhow::Result<String> {
    ensure!(host.engine == crate::Engine::Iframe, "needs the right leaf as an out-of-process iframe (engine iframe)");
    let frame = super::expect::leaf_frame(host.engine, Leaf::Right);
    let right = host.landmark_rect("right-leaf").await?;
    let installed = host
        .eval_in_frame(
            &frame,
            "(() => { window.__capRequests = []; addEventListener('message', (e) => { const d = e.data; \
             if (d && d.type === 'capability-request') window.__capRequests.push(JSON.parse(JSON.stringify(d))); }); \
             return window.__wippyAttentionRuntime.debug().realm_id; })()",
        )
        .await?;
    let realm = installed.as_str().context("the right leaf's runtime has no realm id")?.to_string();
    // The Host's binding of the leaf: its grants, refused messages and the Host's dropped count.
    let binding = format!(
        "(() => {{ const d = window.__wippyAttentionRuntime.debug(); \
         const c = d.children.find((c) => c.realm_id === {realm}); \
         return c ? {{ state: c.state, grants: c.grants, rejected: c.rejected, window: c.window, dropped: d.dropped }} : null; }})()",
        realm = serde_json::json!(realm)
    );
    let read = || async {
        let v = host.eval(&binding).await?;
        ensure!(!v.is_null(), "the Host realm has no binding of the right leaf's realm {realm}: {v}");
        anyhow::Ok(v)
    };
    let reload = format!("({RIGHT_LEAF_IFRAME}).dispatchEvent(new Event('load')), true");
    let regrant = |after: u64, what: &'static str| {
        let read = &read;
        async move {
            wait_for(host, what, POINTER_TIMEOUT, || async move {
                let v = read().await?;
                let done = v["state"] == "granted" && v["grants"].as_u64().unwrap_or(0) > after;
                Ok(if done { Poll::Ready(()) } else { Poll::Pending(v.to_string()) })
            })
            .await
        }
    };

    // 1. A new discovery round, so the leaf holds a request of the Host's to copy.
    let before = read().await?;
    host.eval(&reload).await?;
    regrant(before["grants"].as_u64().unwrap_or(0), "the Host's new discovery round granted by the leaf").await?;
    // 2. The late grant: the Host's request under an id the Host never sent.
    let req = host.eval_in_frame(&frame, "window.__capRequests[window.__capRequests.length - 1] || null").await?;
    ensure!(req.is_object(), "the leaf received no capability request of the Host: {req}");
    let mut late = req.clone();
    late["request_id"] = serde_json::json!("cr-never-sent-by-the-host");
    let granted = read().await?;
    host.eval(&format!(
        "(() => {{ const f = {RIGHT_LEAF_IFRAME}; f.contentWindow.postMessage({late}, new URL(f.src, location.href).origin); return true; }})()"
    ))
    .await?;
    wait_for(host, "the Host refusing the leaf's grant of a request it never sent", POINTER_TIMEOUT, || async {
        let v = read().await?;
        let refused = v["rejected"].as_u64() > granted["rejected"].as_u64() && v["grants"] == granted["grants"];
        Ok(if refused { Poll::Ready(()) } else { Poll::Pending(v.to_string()) })
    })
    .await?;
    // 3. A trusted move the leaf announces with the token the Host refused: dropped.
    let a = (right.x + 20.0, right.y + right.height / 2.0);
    host.move_to(a.0, a.1).await?;
    wait_for(host, "the Host dropping the leaf's notice sent with the refused token", POINTER_TIMEOUT, || async {
        let v = read().await?;
        let dropped = v["dropped"].as_u64() > granted["dropped"].as_u64();
        Ok(if dropped { Poll::Ready(()) } else { Poll::Pending(v.to_string()) })
    })
    .await?;
    // 4. The Host's next round: a token both know. Then a second trusted move.
    let dropped = read().await?;
    host.eval(&reload).await?;
    regrant(dropped["grants"].as_u64().unwrap_or(0), "the Host's next discovery round granted by the leaf").await?;
    let b = (right.x + 60.0, right.y + right.height / 2.0);
    host.move_to(b.0, b.1).await?;
    wait_for(host, "the right leaf's own log holding both trusted moves", POINTER_TIMEOUT, || async move {
        let log = leaf_log(host, Leaf::Right).await?;
        let moves = log.iter().filter(|e| e.is("pointermove") && e.is_trusted).count();
        Ok(if moves >= 2 { Poll::Ready(()) } else { Poll::Pending(format!("{moves} trusted moves")) })
    })
    .await?;
    let snap = history_where(host, "the leaf's second move reaching the Host's history", |evs| {
        evs.iter().any(|e| is(e, T::Pointermove) && at(e, b))
    })
    .await?;
    require_valid_payload(snap.json())?;
    let last = events(&snap).iter().find(|e| is(e, T::Pointermove) && at(e, b)).expect("found above");
    ensure!(over(&snap, last, &right), "the leaf's move must target its button (Chromium's box): {}", brief(&snap));
    Ok(format!("dropped notices {}; history: {}", dropped["dropped"], brief(&snap)))
}
