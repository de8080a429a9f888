//! What `audit` reports: the typed JSON report (`--json`), the text on stdout (what was compared,
//! the agreement rates, every frame of the page with the points that fell in it, what the runtime
//! withheld by design, and the disagreements grouped by element: each difference once, with the
//! points that hit it), and the offline HTML report (`--html DIR`, `report::html`): a summary row
//! with the viewport screenshot and the disagreeing points marked on it, a row per withheld
//! element, then a row per disagreeing element with its cropped picture.

use std::fmt::Write as _;

use crate::checks::agreement::{Answer, Aspect, Disagreement, Figures, Withheld};
use crate::report::html::{Report, Row, Status};
use crate::report::picture::{self, CHROMIUM_COLOUR, RUNTIME_COLOUR};

use super::page::{DocumentResponse, PageView};

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

/// One frame of the page and the points whose Chromium hit is in it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameReport {
    /// The frame's document URL.
    pub url: String,
    /// The page's main frame.
    pub top: bool,
    /// An out-of-process frame (its own CDP session, the runtime injected through auto-attach);
    /// neither this nor `top`: a frame in its parent's process.
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

/// An element the runtime withheld by design (Chromium confirms it: see `checks::agreement`), with
/// the points that fell on it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WithheldElement {
    /// Chromium's element (tag, AX role and name, box).
    pub element: Answer,
    /// `sensitive`, `excluded` or `composer`.
    pub reason: &'static str,
    pub frame: String,
    pub points: Vec<[f64; 2]>,
}

/// One way an element's answers differ, and every point where they differ so.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Difference {
    pub aspect: Aspect,
    pub runtime: Answer,
    pub chromium: Answer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub points: Vec<[f64; 2]>,
}

/// The disagreements of one element (Chromium's, or the runtime's where Chromium hit nothing).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ElementDisagreements {
    /// The element as the side that names it answers (tag, role, name, rect).
    pub element: Answer,
    /// The URL of the frame it is in (`None`: Chromium hit nothing there).
    pub frame: Option<String>,
    pub differences: Vec<Difference>,
}

impl ElementDisagreements {
    pub fn points(&self) -> usize {
        self.differences.iter().map(|d| d.points.len()).sum()
    }
}

/// The disagreements grouped by element (first appearance order), each distinct difference once
/// with its points: the same element with the same two answers at many grid points is one line.
pub fn group_disagreements(all: &[AuditDisagreement]) -> Vec<ElementDisagreements> {
    let mut keys: Vec<(Option<String>, String)> = Vec::new();
    let mut out: Vec<ElementDisagreements> = Vec::new();
    for d in all {
        let at = &d.at;
        // Chromium's element where it hit one, else the runtime's candidate as it describes it.
        let (element, who) = match at.element {
            Some(id) => (Answer { text: None, state: None, withheld: None, ..at.chromium.clone() }, format!("#{id}")),
            None => {
                let e = Answer { text: None, state: None, withheld: None, ..at.runtime.clone() };
                let who = e.to_string();
                (e, who)
            }
        };
        let key = (at.session_id.as_ref().map(|s| format!("{s} {}", at.frame_id.as_deref().unwrap_or(""))), who);
        let i = match keys.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                keys.push(key);
                out.push(ElementDisagreements { element, frame: d.frame.clone(), differences: Vec::new() });
                out.len() - 1
            }
        };
        let group = &mut out[i];
        let same = group.differences.iter_mut().find(|x| {
            x.aspect == at.aspect && x.runtime == at.runtime && x.chromium == at.chromium && x.note == at.note
        });
        match same {
            Some(x) => x.points.push([at.x, at.y]),
            None => group.differences.push(Difference {
                aspect: at.aspect,
                runtime: at.runtime.clone(),
                chromium: at.chromium.clone(),
                note: at.note.clone(),
                points: vec![[at.x, at.y]],
            }),
        }
    }
    out
}

/// The withheld points grouped by element, in first appearance order.
pub fn group_withheld(all: &[Withheld], frame_of: impl Fn(&Withheld) -> String) -> Vec<WithheldElement> {
    let mut keys: Vec<(String, Option<String>, i64)> = Vec::new();
    let mut out: Vec<WithheldElement> = Vec::new();
    for w in all {
        let key = (w.session_id.clone(), w.frame_id.clone(), w.backend_node_id);
        match keys.iter().position(|k| *k == key) {
            Some(i) => out[i].points.push([w.x, w.y]),
            None => {
                keys.push(key);
                out.push(WithheldElement {
                    element: w.element.clone(),
                    reason: w.reason,
                    frame: frame_of(w),
                    points: vec![[w.x, w.y]],
                });
            }
        }
    }
    out
}

/// Points as `(x,y) (x,y) ...`, at most `max` of them and how many more.
fn points_line(points: &[[f64; 2]], max: usize) -> String {
    let mut t = points.iter().take(max).map(|p| format!("({},{})", p[0], p[1])).collect::<Vec<_>>().join(" ");
    if points.len() > max {
        let _ = write!(t, " and {} more", points.len() - max);
    }
    t
}

/// "1 point" / "3 points".
fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// How many points a line names before "and N more".
const POINTS_SHOWN: usize = 8;

/// The whole audit, as `--json` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AuditReport {
    pub url: String,
    /// The top document's HTTP response (a page that did not load is never audited).
    pub response: Option<DocumentResponse>,
    pub view: PageView,
    pub grid_css_px: u32,
    /// Whether the layout settled before the audit (false: it kept changing, an animation).
    pub settled: bool,
    pub points: usize,
    pub rates: Rates,
    /// The counts behind the rates (`disagreements` aside).
    pub counts: Figures,
    /// Every frame of the page (in-process ones too), with the points that fell in it.
    pub frames: Vec<FrameReport>,
    /// What the runtime withheld by design, by element: no disagreement.
    pub withheld: Vec<WithheldElement>,
    /// The disagreements grouped by element.
    pub elements: Vec<ElementDisagreements>,
    /// Every disagreement, one per point and aspect, in the order compared.
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
        let mut t = self.summary();
        let _ = writeln!(t, "{}", self.verdict());
        for e in &self.elements {
            t.push_str(&element_text(e));
        }
        t
    }

    /// The last line's verdict: how many disagreements, at how many points, on how many elements.
    pub fn verdict(&self) -> String {
        if self.disagreements.is_empty() {
            return "no disagreements".to_string();
        }
        let points: std::collections::BTreeSet<(i64, i64)> =
            self.disagreements.iter().map(|d| (d.at.x as i64, d.at.y as i64)).collect();
        format!(
            "{} at {} on {}",
            count(self.disagreements.len(), "disagreement"),
            count(points.len(), "point"),
            count(self.elements.len(), "element")
        )
    }

    /// What was compared, the rates, the frames and what was withheld (the text before the
    /// disagreements).
    pub fn summary(&self) -> String {
        let c = &self.counts;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "audit {}{} ({}x{} CSS px at DPR {}, grid {} px{}): {} points",
            self.url,
            self.response.as_ref().map(|r| format!(" ({r})")).unwrap_or_default(),
            self.view.width,
            self.view.height,
            self.view.dpr,
            self.grid_css_px,
            if self.settled { "" } else { ", layout still changing" },
            self.points
        );
        let _ = writeln!(
            t,
            "  compared at each point: the runtime's candidate (one sample at the point) with Chromium's hit test, \
             box model and accessibility tree"
        );
        let r = &self.rates;
        let _ = writeln!(t, "  candidate {:>6.2} % of {}", r.candidate, c.points);
        let _ = writeln!(t, "  rect      {:>6.2} % of {} (max {:.3} px)", r.rect, c.rect_comparable, c.max_rect_error);
        let _ = writeln!(t, "  role      {:>6.2} % of {}", r.role, c.ax_comparable);
        let _ = writeln!(t, "  name      {:>6.2} % of {}", r.name, c.ax_comparable);
        let _ = writeln!(t, "  state     {:>6.2} % of {}", r.state, c.ax_comparable);
        let _ = writeln!(t, "  text      {:>6.2} % of {}", r.text, c.text_comparable);
        let _ = writeln!(t, "{}", count(self.frames.len(), "frame"));
        for f in &self.frames {
            let _ = writeln!(
                t,
                "  {} {}: {}, {} with the same candidate",
                if f.top {
                    "top"
                } else if f.out_of_process {
                    "out-of-process"
                } else {
                    "in-process"
                },
                f.url,
                count(f.points, "point"),
                f.candidates_agree
            );
        }
        if !self.withheld.is_empty() {
            let points: usize = self.withheld.iter().map(|w| w.points.len()).sum();
            let _ = writeln!(
                t,
                "withheld by design (not compared, no disagreement): {} on {}",
                count(points, "point"),
                count(self.withheld.len(), "element")
            );
            for w in &self.withheld {
                let _ = writeln!(
                    t,
                    "  {} ({}) in {}: {} {}",
                    w.element,
                    withheld_reason(w.reason),
                    w.frame,
                    count(w.points.len(), "point"),
                    points_line(&w.points, POINTS_SHOWN)
                );
            }
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
        let mut rows = vec![Row {
            name: "agreement".into(),
            status: Status::of(self.disagreements.is_empty()),
            detail: format!("{}{}", self.summary(), self.verdict()),
            duration: None,
            picture: marked,
            crop: None,
            snapshot: None,
        }];
        let rect = |r: &Option<crate::oracle::BoxRect>| r.map(|r| [r.x, r.y, r.width, r.height]);
        for w in &self.withheld {
            let first = w.points[0];
            let crop = screenshot.and_then(|png| {
                picture::disagreement(png, scale, (first[0], first[1]), None, rect(&w.element.rect)).ok()
            });
            rows.push(Row {
                name: format!("withheld: {}", w.element),
                status: Status::Pass,
                detail: format!(
                    "{} in {}\n{}: {}",
                    withheld_reason(w.reason),
                    w.frame,
                    count(w.points.len(), "point"),
                    points_line(&w.points, usize::MAX)
                ),
                duration: None,
                picture: crop,
                crop: None,
                snapshot: None,
            });
        }
        for e in &self.elements {
            let first = &e.differences[0];
            let at = first.points[0];
            let crop = screenshot.and_then(|png| {
                picture::disagreement(png, scale, (at[0], at[1]), rect(&first.runtime.rect), rect(&first.chromium.rect))
                    .ok()
            });
            rows.push(Row {
                name: format!("{} ({})", e.element, count(e.points(), "point")),
                status: Status::Fail,
                detail: element_text(e),
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
                "{} ({} px grid and element centres): {}",
                count(self.points, "point"),
                self.grid_css_px,
                self.verdict()
            ),
            legend: Some(format!(
                "the first row's magenta dots are the disagreeing points; in each element's picture the \
                 outline rgb({r},{g},{b}) is the runtime's rect, rgb({cr},{cg},{cb}) Chromium's, the black cross \
                 its first point"
            )),
            rows,
        }
    }
}

/// A withheld element's reason in words.
fn withheld_reason(reason: &str) -> &'static str {
    match reason {
        "sensitive" => "a sensitive control: password, hidden, file, one-time code, payment card or credential",
        "excluded" => "inside data-wippy-attention=\"exclude\"",
        "composer" => "the chat composer (data-wippy-composer)",
        _ => "withheld",
    }
}

/// One element's disagreements as text: the element, then each difference with its points and
/// both answers.
fn element_text(e: &ElementDisagreements) -> String {
    let mut t = String::new();
    let frame = e.frame.as_deref().map(|f| format!(" in {f}")).unwrap_or_default();
    let _ = writeln!(t, "  {}{frame}", e.element);
    for d in &e.differences {
        let _ = writeln!(
            t,
            "    {} at {}: {}",
            d.aspect.name(),
            count(d.points.len(), "point"),
            points_line(&d.points, POINTS_SHOWN)
        );
        let _ = writeln!(t, "      runtime:  {}", d.runtime);
        let _ = writeln!(t, "      Chromium: {}", d.chromium);
        if let Some(n) = &d.note {
            let _ = writeln!(t, "      ({n})");
        }
    }
    t
}
