//! The offline HTML report of `verify --html DIR`, `replay --html DIR` and `audit --html DIR`: one
//! `report.html` that opens with a summary (the counts, then every failing row, linked), then a row
//! per check (per cell), per step or per disagreement: its status, duration and detail, and the
//! annotated screenshot of the row (drawn by `picture::annotate`) with a zoomed crop around the
//! pointer, inline as `data:` URIs beside a legend of its candidates and omissions. The counts are
//! computed from the rows' statuses, the same statuses the commands derive their exit codes from.
//! Nothing in it reaches the network: no scripts, inline CSS, images inline. Every string that
//! comes from a page (labels, names, details) is escaped, so a hostile label shows as text.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

use crate::attention::Snapshot;
use crate::host::Host;
use crate::report::picture::{annotate, candidate_colour};

/// What a row says about its check or step. Every status but [`Status::Pass`] and
/// [`Status::NotRun`] is a failure: the report counts it as failed and the command exits 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// A named snapshot with no golden beside its scenario: nothing was compared, so it is no pass.
    MissingGolden,
    /// A step after the failed one: the replay stopped before it.
    NotRun,
}

impl Status {
    /// The status as the report and the CLI print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::MissingGolden => "missing golden",
            Status::NotRun => "not run",
        }
    }

    /// The row's CSS class: `pass`, `fail` (every failure) or `not-run`.
    fn class(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail | Status::MissingGolden => "fail",
            Status::NotRun => "not-run",
        }
    }

    pub fn failed(self) -> bool {
        matches!(self, Status::Fail | Status::MissingGolden)
    }

    pub fn of(pass: bool) -> Status {
        if pass {
            Status::Pass
        } else {
            Status::Fail
        }
    }
}

/// One row of the report.
pub struct Row {
    /// What the row is, e.g. `managed/iframe checklist-1` or `iframe steps[2] move`.
    pub name: String,
    pub status: Status,
    pub detail: String,
    /// How long the check or step took (none for a row that did not run).
    pub duration: Option<std::time::Duration>,
    /// The annotated screenshot (PNG), if the row has one.
    pub picture: Option<Vec<u8>>,
    /// A zoomed crop of the picture around the pointer (PNG), if the row has one.
    pub crop: Option<Vec<u8>>,
    /// The snapshot drawn on the picture, for the legend.
    pub snapshot: Option<Value>,
}

/// A whole report: a title, a line saying what ran, the rows.
pub struct Report {
    pub title: String,
    pub subtitle: String,
    /// What the pictures' marks mean, as text; `None`: the annotated snapshot's (sample points,
    /// pointer, candidates' rects).
    pub legend: Option<String>,
    pub rows: Vec<Row>,
}

/// `text` with `& < > " '` replaced by entities: safe as element text and as a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;width:100%}\
th,td{border:1px solid #ccc;padding:.4em;vertical-align:top;text-align:left}\
tr.pass td.status{color:#1a7f37;font-weight:bold}tr.fail td.status{color:#cf222e;font-weight:bold}\
tr.not-run td.status{color:#6e7781}tr.fail{background:#fff5f5}#summary{border:1px solid #ccc;padding:.2em 1em;margin-bottom:1em}\
#summary.fail{border-color:#cf222e;background:#fff5f5}#summary.pass{border-color:#1a7f37}\
pre{white-space:pre-wrap;margin:0}\
#rows tr{display:grid;grid-template-columns:3em minmax(8em,18em) 8em 5em 1fr}#rows td.picture{grid-column:1/-1}\
#rows td.picture:empty{display:none}img.shot{width:100%;max-width:1280px;border:1px solid #999}\
img.crop{width:320px;image-rendering:pixelated;border:1px solid #999;margin-top:.3em}\
.swatch{display:inline-block;width:1em;height:1em;vertical-align:middle;margin-right:.3em}\
.legend{margin:.3em 0;padding-left:1.2em}";

/// The counts a report's summary shows: (passed, failed, not run).
pub fn counts(rows: &[Row]) -> (usize, usize, usize) {
    let count = |f: fn(Status) -> bool| rows.iter().filter(|r| f(r.status)).count();
    (count(|s| s == Status::Pass), count(Status::failed), count(|s| s == Status::NotRun))
}

/// A duration as a person reads it: `850 ms`, `2.4 s`.
pub fn human_duration(d: std::time::Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// The report as one HTML document.
pub fn render(report: &Report) -> String {
    let (passed, failed, not_run) = counts(&report.rows);
    let missing = report.rows.iter().filter(|r| r.status == Status::MissingGolden).count();
    let mut totals = format!("{passed} passed, {failed} failed");
    if missing > 0 {
        let _ = write!(totals, " ({missing} missing golden)");
    }
    if not_run > 0 {
        let _ = write!(totals, ", {not_run} not run");
    }
    let verdict = if failed > 0 { "fail" } else { "pass" };
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n<p>{}</p>\n\
         <section id=\"summary\" class=\"{verdict}\" data-verdict=\"{verdict}\"><p id=\"totals\"><b>{}</b>: {totals}</p>\n",
        escape(&report.title),
        escape(&report.title),
        escape(&report.subtitle),
        if failed > 0 { "FAILED" } else { "PASSED" },
    );
    // Failures first: each failing row, linked, with the first line of its detail.
    if failed > 0 {
        h.push_str("<ol id=\"failures\">");
        for (i, r) in report.rows.iter().enumerate().filter(|(_, r)| r.status.failed()) {
            let _ = write!(
                h,
                "<li><a href=\"#row-{}\">{}</a> <b>{}</b>: {}</li>",
                i + 1,
                escape(&r.name),
                r.status.as_str(),
                escape(r.detail.lines().next().unwrap_or(""))
            );
        }
        h.push_str("</ol>\n");
    }
    h.push_str("</section>\n");
    match &report.legend {
        Some(text) => {
            let _ = writeln!(h, "<p id=\"legend\">Picture legend: {}</p>", escape(text));
        }
        None => h.push_str(
            "<p id=\"legend\">Picture legend: <span class=\"swatch\" style=\"background:#ff00ff\"></span>sample points, \
             <b>black cross</b> the pointer, coloured outlines the candidates' rects (colour as listed per row); \
             the small picture is the part around the pointer, zoomed.</p>\n",
        ),
    }
    h.push_str("<table id=\"rows\"><thead><tr><th>#</th><th>row</th><th>status</th><th>time</th><th>detail</th><th class=\"picture\">picture</th></tr></thead><tbody>\n");
    for (i, r) in report.rows.iter().enumerate() {
        let status = r.status.as_str();
        let _ = write!(
            h,
            "<tr id=\"row-{}\" class=\"{}\" data-status=\"{status}\"><td>{}</td><td class=\"name\">{}</td><td class=\"status\">{status}</td>\
             <td class=\"time\">{}</td><td class=\"detail\"><pre>{}</pre></td><td class=\"picture\">",
            i + 1,
            r.status.class(),
            i + 1,
            escape(&r.name),
            r.duration.map(human_duration).unwrap_or_default(),
            escape(&r.detail)
        );
        if let Some(png) = &r.picture {
            let b64 = base64::engine::general_purpose::STANDARD.encode(png);
            let _ = write!(h, "<img class=\"shot\" alt=\"{}\" src=\"data:image/png;base64,{b64}\">", escape(&r.name));
        }
        if let Some(png) = &r.crop {
            let b64 = base64::engine::general_purpose::STANDARD.encode(png);
            let _ = write!(
                h,
                "<br><img class=\"crop\" alt=\"{} around the pointer\" src=\"data:image/png;base64,{b64}\">",
                escape(&r.name)
            );
        }
        if let Some(snap) = &r.snapshot {
            h.push_str(&legend(snap));
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</tbody></table>\n</body></html>\n");
    h
}

/// The candidates (colour, role, name, label, rect) and omissions of a snapshot, as lists.
fn legend(snap: &Value) -> String {
    let typed: Snapshot = match serde_json::from_value(snap.clone()) {
        Ok(s) => s,
        Err(e) => return format!("<p class=\"legend-error\">no legend: {}</p>", escape(&e.to_string())),
    };
    let mut h = String::from("<ol class=\"legend candidates\">");
    for (i, c) in typed.candidates.iter().enumerate() {
        let [r, g, b] = candidate_colour(i);
        let label = c.path.iter().rev().find_map(|s| s.label.as_deref()).unwrap_or("");
        let _ = write!(
            h,
            "<li><span class=\"swatch\" style=\"background:rgb({r},{g},{b})\"></span>{} \u{201c}{}\u{201d} in <span class=\"label\">{}</span> \
             at {:.1},{:.1} {:.1}x{:.1}{}</li>",
            escape(c.summary.role.as_deref().unwrap_or("(no role)")),
            escape(c.summary.name.as_deref().unwrap_or("")),
            escape(label),
            c.rect.x,
            c.rect.y,
            c.rect.width,
            c.rect.height,
            if c.occluded { " (occluded)" } else { "" }
        );
    }
    h.push_str("</ol>");
    if typed.candidates.is_empty() {
        h.push_str("<p>no candidates</p>");
    }
    if !typed.omissions.is_empty() {
        h.push_str("<ul class=\"legend omissions\">");
        for o in &typed.omissions {
            let where_ = o.point_id.as_deref().or(o.mount_id.as_deref()).unwrap_or("");
            let _ = write!(
                h,
                "<li>omission {} {} {}</li>",
                escape(o.reason.as_str()),
                escape(where_),
                escape(o.detail.as_deref().unwrap_or(""))
            );
        }
        h.push_str("</ul>");
    }
    h
}

/// What a row shows of the Host: the annotated screenshot, the zoomed crop around the pointer, and
/// the snapshot drawn on them.
#[derive(Debug, Clone, Default)]
pub struct Pictures {
    pub picture: Option<Vec<u8>>,
    pub crop: Option<Vec<u8>>,
    pub snapshot: Option<Value>,
}

/// The Host's viewport now with `snapshot` (default: the Host's last snapshot) drawn on it, and the
/// crop around `at` (default: that snapshot's pointer). A Host that cannot take a screenshot within
/// 10 s gives no picture; the row still has its status.
pub async fn pictures_of(host: &Host, snapshot: Option<Value>, at: Option<(f64, f64)>) -> Pictures {
    let snapshot = snapshot.or_else(|| host.last_snapshot());
    let empty = Value::Object(Default::default());
    let drawn = snapshot.as_ref().unwrap_or(&empty);
    let scale = host.options().scale_factor();
    let shot = tokio::time::timeout(std::time::Duration::from_secs(10), host.screenshot_png()).await;
    let picture = match shot {
        Ok(Ok(png)) => annotate(&png, drawn, scale).ok(),
        _ => None,
    };
    let at = at
        .or_else(|| Some((drawn.pointer("/pointer/point/x")?.as_f64()?, drawn.pointer("/pointer/point/y")?.as_f64()?)));
    let crop = match (&picture, at) {
        (Some(png), Some(point)) => crate::report::picture::around(png, scale, point).ok(),
        _ => None,
    };
    Pictures { picture, crop, snapshot }
}

/// Writes `DIR/report.html` (creating DIR); returns its path.
pub fn write(dir: &Path, report: &Report) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("report.html");
    std::fs::write(&path, render(report))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_detail_and_name_are_escaped_as_text() {
        let bad = "<img src=x onerror=alert(1)>\"'&";
        let html = render(&Report {
            title: bad.into(),
            subtitle: bad.into(),
            legend: Some(bad.into()),
            rows: vec![Row {
                name: bad.into(),
                status: Status::Fail,
                detail: bad.into(),
                duration: None,
                picture: None,
                crop: None,
                snapshot: None,
            }],
        });
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"), "{html}");
        assert!(!html.contains("<script"), "no scripts in a report");
    }
}
