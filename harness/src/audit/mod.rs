//! `attention-harness audit --url URL` (issue 22): audit any http(s) page against Chromium. The page
//! is opened with the Attention runtime injected into every realm through CDP (`page.rs`); at a grid
//! of points over the viewport plus the centre of every element in every frame, the runtime's
//! candidate, rect, role and name are compared with Chromium's hit test, box model and AX tree
//! exactly as the fidelity checks compare them for our corpora (`checks::agreement`); the result is
//! the typed report of `report.rs`. The URL is checked before a browser starts (`url.rs`).

pub mod page;
pub mod report;
pub mod url;

pub use page::{AuditPage, PageView};
pub use report::{AuditDisagreement, AuditReport, FrameReport, Rates};
pub use url::{PageUrl, UrlError};

use crate::checks::agreement::{compare, dedup, element_centres, grid};
use crate::frames::HostError;
use crate::harness::{Harness, HarnessError};
use crate::oracle::BoxRect;

/// The default grid step, CSS px (the fidelity checks' [`crate::checks::fidelity::GRID_STEP`]).
pub const DEFAULT_GRID: u32 = 40;
/// The largest grid step accepted (a step beyond any window side would sample nothing).
pub const MAX_GRID: u32 = 4096;

/// What to audit.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRequest {
    pub url: PageUrl,
    /// Grid step, CSS px (at least 1).
    pub grid: u32,
    pub view: PageView,
}

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Harness(#[from] HarnessError),
    #[error("cannot open {url}: {source}")]
    Open { url: String, source: HostError },
    #[error("auditing {url}: {source:#}")]
    Measure { url: String, source: anyhow::Error },
}

/// An audit's report and the viewport screenshot its pictures are cut from (when asked for).
pub struct Audit {
    pub report: AuditReport,
    pub screenshot: Option<Vec<u8>>,
}

/// Opens the page in a fresh context on `h`'s browser, with the runtime `h`'s server builds, audits
/// it (`progress(done, total)` after each point) and closes it.
pub async fn run(
    h: &Harness,
    req: &AuditRequest,
    screenshot: bool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Audit, AuditError> {
    let cdp = h.cdp().await?;
    let runtime = h.server().runtime_source().await.map_err(HarnessError::Server)?;
    let url = req.url.url.clone();
    let page = AuditPage::open(&cdp, &url, req.view, &runtime)
        .await
        .map_err(|source| AuditError::Open { url: url.clone(), source })?;
    let result = audit_open(&page, req, screenshot, progress).await;
    page.close().await;
    result.map_err(|source| AuditError::Measure { url, source })
}

/// Audits an opened page (see the module comment).
pub async fn audit_open(
    page: &AuditPage,
    req: &AuditRequest,
    screenshot: bool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<Audit> {
    let frames = page.frames();
    let viewport = BoxRect { x: 0.0, y: 0.0, width: f64::from(req.view.width), height: f64::from(req.view.height) };
    let mut points = grid(&viewport, f64::from(req.grid));
    for s in frames.sessions() {
        let chain = frames.session_chain(&s.id).await?;
        let visible = chain.clips.iter().fold(viewport, |acc, c| acc.intersect(c));
        if visible.width > 0.0 && visible.height > 0.0 {
            points.extend(element_centres(&s, None, &chain, &visible).await?);
        }
    }
    let points = dedup(points);
    let f = compare(page, &points, progress).await?;
    let shot = if screenshot { Some(page.screenshot_png().await?) } else { None };
    let children = frames.child_targets();
    let url_of = |sid: &str| -> (String, bool) {
        if sid == frames.page().id {
            (page.url.clone(), false)
        } else {
            (children.iter().find(|c| c.session_id == sid).map(|c| c.url.clone()).unwrap_or_default(), true)
        }
    };
    let frame_reports = f
        .by_session
        .iter()
        .map(|(sid, fp)| {
            let (url, out_of_process) = url_of(sid);
            FrameReport { url, out_of_process, points: fp.points, candidates_agree: fp.both_candidate_agree }
        })
        .collect();
    let disagreements = f
        .disagreements
        .iter()
        .map(|d| AuditDisagreement { at: d.clone(), frame: d.session_id.as_deref().map(|s| url_of(s).0) })
        .collect();
    let report = AuditReport {
        url: page.url.clone(),
        view: req.view,
        grid_css_px: req.grid,
        settled: page.settled,
        points: f.points,
        rates: AuditReport::rates_of(&f),
        counts: f,
        frames: frame_reports,
        disagreements,
    };
    Ok(Audit { report, screenshot: shot })
}
