//! The offline HTML report of `verify --html DIR`, `replay --html DIR` and `audit --html DIR`: one
//! `report.html` with a row per check (per cell), per step or per disagreement, its status and detail, and the annotated screenshot of the
//! row (drawn by `picture::annotate`) inline as a `data:` URI beside a legend of its candidates and
//! omissions. Nothing in it reaches the network: no scripts, inline CSS, images inline. Every string
//! that comes from a page (labels, names, details) is escaped, so a hostile label shows as text.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

use crate::attention::Snapshot;
use crate::host::Host;
use crate::report::picture::{annotate, candidate_colour};

/// One row of the report.
pub struct Row {
    /// What the row is, e.g. `managed/iframe checklist-1` or `iframe steps[2] move`.
    pub name: String,
    pub pass: bool,
    pub detail: String,
    /// The annotated screenshot (PNG), if the row has one.
    pub picture: Option<Vec<u8>>,
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
pre{white-space:pre-wrap;margin:0;max-width:40em}img{max-width:640px;border:1px solid #999}\
.swatch{display:inline-block;width:1em;height:1em;vertical-align:middle;margin-right:.3em}\
.legend{margin:.3em 0;padding-left:1.2em}";

/// The report as one HTML document.
pub fn render(report: &Report) -> String {
    let passed = report.rows.iter().filter(|r| r.pass).count();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n<p>{}</p>\n\
         <p id=\"totals\">{passed} passed, {} failed</p>\n",
        escape(&report.title),
        escape(&report.title),
        escape(&report.subtitle),
        report.rows.len() - passed
    );
    match &report.legend {
        Some(text) => {
            let _ = writeln!(h, "<p id=\"legend\">Picture legend: {}</p>", escape(text));
        }
        None => h.push_str(
            "<p id=\"legend\">Picture legend: <span class=\"swatch\" style=\"background:#ff00ff\"></span>sample points, \
             <b>black cross</b> the pointer, coloured outlines the candidates' rects (colour as listed per row).</p>\n",
        ),
    }
    h.push_str("<table id=\"rows\"><thead><tr><th>#</th><th>row</th><th>status</th><th>detail</th><th>picture</th></tr></thead><tbody>\n");
    for (i, r) in report.rows.iter().enumerate() {
        let status = if r.pass { "pass" } else { "fail" };
        let _ = write!(
            h,
            "<tr class=\"{status}\" data-status=\"{status}\"><td>{}</td><td class=\"name\">{}</td><td class=\"status\">{status}</td>\
             <td class=\"detail\"><pre>{}</pre></td><td class=\"picture\">",
            i + 1,
            escape(&r.name),
            escape(&r.detail)
        );
        if let Some(png) = &r.picture {
            let b64 = base64::engine::general_purpose::STANDARD.encode(png);
            let _ = write!(h, "<img alt=\"{}\" src=\"data:image/png;base64,{b64}\">", escape(&r.name));
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

/// The Host's viewport now with its last snapshot drawn on it, and that snapshot (a row's picture).
/// A Host that cannot take a screenshot gives no picture; the row still has its status.
pub async fn picture_of(host: &Host) -> (Option<Vec<u8>>, Option<Value>) {
    let snapshot = host.last_snapshot();
    let empty = Value::Object(Default::default());
    let shot = tokio::time::timeout(std::time::Duration::from_secs(10), host.screenshot_png()).await;
    let picture = match shot {
        Ok(Ok(png)) => annotate(&png, snapshot.as_ref().unwrap_or(&empty), host.options().scale_factor()).ok(),
        _ => None,
    };
    (picture, snapshot)
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
            rows: vec![Row { name: bad.into(), pass: false, detail: bad.into(), picture: None, snapshot: None }],
        });
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"), "{html}");
        assert!(!html.contains("<script"), "no scripts in a report");
    }
}
