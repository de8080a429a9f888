//! getCursor after trusted moves inside a child realm, over Layout x Engine. Since the observer
//! change (issue 23) a child realm keeps its pointermoves in its own window and sends the Host
//! nothing per move; a cursor read from the top realm must merge those windows first, as a snapshot
//! does. Ground truth: the point the CDP input was sent to, and the leaf's own event log (the move
//! really reached that realm, not the Host's).

use attention_harness::attention::inspect::OrFalse;
use attention_harness::attention::EventType;
use attention_harness::checks::{leaf_log, Leaf};
use attention_harness::host::{InspectOptions, Realm};
use attention_harness::{run_host, Engine, Layout};
use rstest::rstest;

#[rstest]
fn cursor_read_after_moves_in_a_child_realm_reports_the_last_move_the_leaf_received(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        let (x, y) = h.landmark_rect("oopif-leaf").await?.center();
        h.move_to_in_steps(x - 6.0, y, 4).await?;
        let (lx, ly) = (x + 3.0, y + 2.0);
        h.move_to(lx, ly).await?;
        let received = leaf_log(h, Leaf::Oopif).await?;
        anyhow::ensure!(
            received.iter().any(|e| e.is("pointermove") && e.is_trusted),
            "the OOPIF leaf received no trusted pointermove: {received:?}"
        );
        let cursor = h.cursor(&Realm::Top, &InspectOptions::default()).await?;
        let Some(event) = cursor.data.event.as_ref().and_then(OrFalse::present) else {
            anyhow::bail!("getCursor has no event after moves in the OOPIF leaf: {}", cursor.json());
        };
        anyhow::ensure!(event.event_type == EventType::Pointermove, "getCursor's event: {}", cursor.json());
        anyhow::ensure!(
            (event.point.x - lx).abs() <= 0.5 && (event.point.y - ly).abs() <= 0.5,
            "getCursor's point {:?} is not the last move sent ({lx}, {ly}): {}",
            event.point,
            cursor.json()
        );
        anyhow::ensure!(!event.candidate_ids.is_empty(), "the last move resolved no candidate: {}", cursor.json());
        Ok(())
    });
}
