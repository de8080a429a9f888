//! Fidelity on a third-party component corpus (issue 7): at every point of a 40 px grid over the
//! corpus mounted by the Host and at every element centre in it, the runtime's pointer candidate
//! is compared with Chromium's hit test, box model and accessibility tree (`agreement.rs` says how,
//! and `audit` compares the same on any page), and held to issue 7's thresholds.

use anyhow::{ensure, Context};

use super::agreement::{compare, dedup, element_centres, grid};
pub use super::agreement::{Figures, INTERACTIVE_ROLES};
use super::{wait_for, Poll};
use crate::host::Host;

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

/// Whether `f` meets issue 7's thresholds.
pub fn meets_thresholds(f: &Figures) -> bool {
    f.element_pct() >= ELEMENT_MIN
        && f.rect_pct() >= RECT_MIN
        && f.role_pct() >= ROLE_MIN
        && f.name_pct() >= NAME_MIN
        && f.state_pct() >= STATE_MIN
        && f.text_pct() >= TEXT_MIN
}

/// Waits until the corpus the Host mounts (`?corpus=...`) says it is rendered: the Host's readiness
/// does not wait for it (its components load their library asynchronously in their own realm).
pub async fn corpus_ready(host: &Host) -> anyhow::Result<()> {
    // The corpus announces itself once its components are defined, rendered and their icons drawn.
    wait_for(host, "the corpus app reporting data-app-ready", std::time::Duration::from_secs(20), || async {
        Ok(match host.frames().locate_attr("data-app-ready", "true").await? {
            Some(_) => Poll::Ready(()),
            None => Poll::Pending("no data-app-ready yet".into()),
        })
    })
    .await
}

/// Walks the corpus mounted by the Host (`?corpus=...`) and measures agreement with Chromium.
pub async fn measure(host: &Host) -> anyhow::Result<Figures> {
    corpus_ready(host).await?;
    let app = host.locate_landmark("corpus-app").await.context("the Host has no corpus mounted (?corpus=...)")?;
    let app_chain = host.frames().chain_of(&app).await?;
    let area = app_chain.clip(&host.frames().node_rect(&app).await?);
    ensure!(area.width > 100.0 && area.height > 100.0, "the corpus area {area} is not visible");
    // Grid points, then every element centre (the corpus document, shadow trees included).
    let mut points = grid(&area, GRID_STEP);
    points.extend(element_centres(&app.session, Some(app.backend_node_id), &app_chain, &area).await?);
    compare(host, &dedup(points), &|_, _| {}).await
}

/// The check: measures, prints the figures, and holds them to issue 7's thresholds.
pub async fn corpus_agrees_with_chromium(host: &Host) -> anyhow::Result<String> {
    let f = measure(host).await?;
    let line = f.line();
    eprintln!("fidelity {} (DPR {}): {line}", host.url, host.options().scale_factor());
    for e in f.examples(12) {
        eprintln!("  {e}");
    }
    ensure!(f.points > 0, "no points were compared");
    ensure!(
        meets_thresholds(&f),
        "below issue 7's thresholds (element >= {ELEMENT_MIN} %, rect {RECT_MIN} %, role >= {ROLE_MIN} %, name >= {NAME_MIN} %, state {STATE_MIN} %, text {TEXT_MIN} %): {line}; e.g. {}",
        f.examples(12).join("; ")
    );
    Ok(line)
}
