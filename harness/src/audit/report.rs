//! What `audit` reports: the typed JSON report (`--json`), the text on stdout (the agreement rates,
//! the frames the points fell in, each disagreement with its point and both answers), and the
//! offline HTML report (`--html DIR`, `report::html`): a summary row with the viewport screenshot
//! and the disagreeing points marked on it, then a row per disagreement with its cropped picture.

use std::fmt::Write as _;

use crate::checks::agreement::{Disagreement, Figures};
use crate::report::html::{Report, Row, Status};
use crate::report::picture::{self, CHROMIUM_COLOUR, RUNTIME_COLOUR};

use super::page::PageView;

/// Agreement in percent of the comparable points (100 where nothing was comparable).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rates {
    /// The same element (or none on both sides, or a confirmed `unsupported-boundary` omission), of
    /// every point.
    pub candidate: f64,
    /// The rect within 0.5 px, of the points where both sides have the same element.
    pub rect: f64,
    /// Role, name and ARIA state, of the points with the same element whose AX node is not ignored.
    pub role: f64,
    pub name: f64,
    pub state: f64,
    /// The candidate's text against the text Chromium renders, where the candidate is no form control.
    pub text: f64,
}

/// The points whose Chromium hit is in one frame session.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameReport {
    /// The frame session's document URL (an out-of-process frame's target URL).
    pub url: String,
    /// An out-of-process frame (its own CDP session, the runtime injected through auto-attach).
    pub out_of_process: bool,
    pub points: usize,
    /// Of those, points where the runtime had a candidate and it is Chromium's element.
    pub candidates_agree: usize,
}

/// One disagreement and the frame its Chromium hit is in.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AuditDisagreement {
    #[serde(flatten)]
    pub at: Disagreement,
    /// The URL of the frame session Chromium's hit is in; `None` where Chromium hit nothing.
    pub frame: Option<String>,
}

/// The whole audit, as `--json` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AuditReport {
    pub url: String,
    pub view: PageView,
    pub grid_css_px: u32,
    /// Whether the layout settled before the audit (false: it kept changing, an animation).
    pub settled: bool,
    pub points: usize,
    pub rates: Rates,
    /// The counts behind the rates (`disagreements` aside).
    pub counts: Figures,
    pub frames: Vec<FrameReport>,
    pub disagreements: Vec<AuditDisagreement>,
}

impl AuditReport {
    pub fn rates_of(f: &Figures) -> Rates {
        Rates {
            candidate: f.element_pct(),
            rect: f.rect_pct(),
            role: f.role_pct(),
            name: f.name_pct(),
            state: f.state_pct(),
            text: f.text_pct(),
        }
    }

    /// The text `audit` prints without `--json`.
    pub fn text(&self) -> String {
        let c = &self.counts;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "audit {} ({}x{} CSS px at DPR {}, grid {} px{}): {} points",
            self.url,
            self.view.width,
            self.view.height,
            self.view.dpr,
            self.grid_css_px,
            if self.settled { "" } else { ", layout still changing" },
            self.points
        );
        let r = &self.rates;
        let _ = writeln!(t, "  candidate {:>6.2} % of {}", r.candidate, c.points);
        let _ = writeln!(t, "  rect      {:>6.2} % of {} (max {:.3} px)", r.rect, c.rect_comparable, c.max_rect_error);
        let _ = writeln!(t, "  role      {:>6.2} % of {}", r.role, c.ax_comparable);
        let _ = writeln!(t, "  name      {:>6.2} % of {}", r.name, c.ax_comparable);
        let _ = writeln!(t, "  state     {:>6.2} % of {}", r.state, c.ax_comparable);
        let _ = writeln!(t, "  text      {:>6.2} % of {}", r.text, c.text_comparable);
        for f in &self.frames {
            let _ = writeln!(
                t,
                "  frame {} {}: {} points, {} with the same candidate",
                if f.out_of_process { "out-of-process" } else { "top" },
                f.url,
                f.points,
                f.candidates_agree
            );
        }
        let _ = writeln!(t, "{} disagreements", self.disagreements.len());
        for d in &self.disagreements {
            let _ = writeln!(t, "  {}", d.at);
        }
        t
    }

    /// The HTML report: a summary row (the screenshot with every disagreeing point marked), then a
    /// row per disagreement with its crop of `screenshot` (none when there is no screenshot).
    pub fn html(&self, screenshot: Option<&[u8]>) -> Report {
        let scale = self.view.dpr;
        let marked = screenshot.and_then(|png| {
            let points: Vec<_> =
                self.disagreements.iter().map(|d| serde_json::json!({"x": d.at.x, "y": d.at.y})).collect();
            picture::annotate(png, &serde_json::json!({"capture": {"points": points}}), scale).ok()
        });
        let mut summary = String::new();
        let lines = self.text();
        for l in lines.lines().take_while(|l| !l.ends_with(" disagreements")) {
            let _ = writeln!(summary, "{l}");
        }
        let mut rows = vec![Row {
            name: "agreement".into(),
            status: Status::of(self.disagreements.is_empty()),
            detail: summary,
            duration: None,
            picture: marked,
            crop: None,
            snapshot: None,
        }];
        for d in &self.disagreements {
            let rect = |r: &Option<crate::oracle::BoxRect>| r.map(|r| [r.x, r.y, r.width, r.height]);
            let crop = screenshot.and_then(|png| {
                picture::disagreement(png, scale, (d.at.x, d.at.y), rect(&d.at.runtime.rect), rect(&d.at.chromium.rect))
                    .ok()
            });
            let mut detail = format!("runtime: {}\nChromium: {}", d.at.runtime, d.at.chromium);
            if let Some(n) = &d.at.note {
                let _ = write!(detail, "\n{n}");
            }
            if let Some(f) = &d.frame {
                let _ = write!(detail, "\nframe: {f}");
            }
            rows.push(Row {
                name: format!("({},{}) {}", d.at.x, d.at.y, d.at.aspect.name()),
                status: Status::Fail,
                detail,
                duration: None,
                picture: crop,
                crop: None,
                snapshot: None,
            });
        }
        let [r, g, b] = RUNTIME_COLOUR;
        let [cr, cg, cb] = CHROMIUM_COLOUR;
        Report {
            title: format!("attention-harness audit {}", self.url),
            subtitle: format!(
                "{} points ({} px grid and element centres), {} disagreements",
                self.points,
                self.grid_css_px,
                self.disagreements.len()
            ),
            legend: Some(format!(
                "the first row's magenta dots are the disagreeing points; in each disagreement's picture the \
                 outline rgb({r},{g},{b}) is the runtime's rect, rgb({cr},{cg},{cb}) Chromium's, the black cross the point"
            )),
            rows,
        }
    }
}
