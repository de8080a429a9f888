//! `attention-harness audit --url URL` (issue 22): audit any http(s) page against Chromium. The page
//! is opened with the Attention runtime injected into every realm through CDP (`page.rs`); at a grid
//! of points over the viewport plus the centre of every element in every frame, the runtime's
//! candidate, rect, role and name are compared with Chromium's hit test, box model and AX tree
//! exactly as the fidelity checks compare them for our corpora (`checks::agreement`); the result is
//! the typed report of `report.rs`. The URL is checked before a browser starts (`url.rs`); a page
//! that did not load (an HTTP error, no document) is refused before anything is compared
//! ([`OpenError`]). Every frame of the page is listed (`Page.getFrameTree` of every frame session:
//! in-process frames too), with the points whose Chromium hit fell in it.

pub mod page;
pub mod report;
pub mod url;

pub use page::{AuditPage, DocumentResponse, OpenError, PageView};
pub use report::{
    AuditDisagreement, AuditReport, Difference, ElementDisagreements, FrameReport, Rates, WithheldElement,
};
pub use url::{PageUrl, UrlError};

use crate::checks::agreement::{compare, dedup, element_centres, grid};
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
    #[error("cannot audit {url}: {source}")]
    Open { url: String, source: OpenError },
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
    let listed = list_frames(page).await?;
    let url_of =
        |sid: &str, frame: Option<&str>| -> String {
            let id = frame
                .map(str::to_string)
                .or_else(|| listed.iter().find(|l| l.session_id == sid && l.session_top).map(|l| l.id.clone()));
            listed.iter().find(|l| Some(&l.id) == id.as_ref()).map(|l| l.url.clone()).unwrap_or_else(|| {
                children.iter().find(|c| c.session_id == sid).map(|c| c.url.clone()).unwrap_or_default()
            })
        };
    let frame_reports = listed
        .iter()
        .map(|l| {
            let key = (l.session_id.clone(), if l.session_top { None } else { Some(l.id.clone()) });
            let fp = f.by_frame.get(&key).copied().unwrap_or_default();
            FrameReport {
                url: l.url.clone(),
                top: l.session_top && l.session_id == frames.page().id,
                out_of_process: l.session_top && l.session_id != frames.page().id,
                points: fp.points,
                candidates_agree: fp.both_candidate_agree,
            }
        })
        .collect();
    let disagreements: Vec<AuditDisagreement> = f
        .disagreements
        .iter()
        .map(|d| AuditDisagreement {
            at: d.clone(),
            frame: d.session_id.as_deref().map(|s| url_of(s, d.frame_id.as_deref())),
        })
        .collect();
    let elements = report::group_disagreements(&disagreements);
    let withheld = report::group_withheld(&f.withheld_points, |w| url_of(&w.session_id, w.frame_id.as_deref()));
    let report = AuditReport {
        url: page.url.clone(),
        response: page.response.clone(),
        view: req.view,
        grid_css_px: req.grid,
        settled: page.settled,
        points: f.points,
        rates: AuditReport::rates_of(&f),
        counts: f,
        frames: frame_reports,
        withheld,
        elements,
        disagreements,
    };
    Ok(Audit { report, screenshot: shot })
}

/// One frame of the audited page, as its session's `Page.getFrameTree` lists it.
struct ListedFrame {
    id: String,
    url: String,
    session_id: String,
    /// The session's own top frame (the page's main frame, or an out-of-process frame).
    session_top: bool,
}

/// Every frame of the page: the page session's frame tree (its in-process frames), then each
/// out-of-process frame's, each frame once (by id), in tree order.
async fn list_frames(page: &AuditPage) -> anyhow::Result<Vec<ListedFrame>> {
    use chromiumoxide::cdp::browser_protocol::page::GetFrameTreeParams;
    fn walk(tree: &serde_json::Value, session_id: &str, top: bool, out: &mut Vec<ListedFrame>) {
        let frame = &tree["frame"];
        let id = frame["id"].as_str().unwrap_or_default().to_string();
        if !id.is_empty() && !out.iter().any(|l| l.id == id) {
            let url = frame["url"].as_str().unwrap_or_default();
            let url = format!("{url}{}", frame["urlFragment"].as_str().unwrap_or_default());
            out.push(ListedFrame { id, url, session_id: session_id.to_string(), session_top: top });
        }
        for c in tree["childFrames"].as_array().into_iter().flatten() {
            walk(c, session_id, false, out);
        }
    }
    let mut out: Vec<ListedFrame> = Vec::new();
    for s in page.frames().sessions() {
        // A frame gone between the list and the read has nothing to list.
        let Ok(tree) = s.send(&GetFrameTreeParams::default()).await else { continue };
        // An out-of-process frame appears in its parent's tree too: its own session is its truth.
        let root = tree["frameTree"]["frame"]["id"].as_str().unwrap_or_default().to_string();
        out.retain(|l| l.id != root);
        walk(&tree["frameTree"], &s.id, true, &mut out);
    }
    Ok(out)
}
