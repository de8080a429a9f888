//! `audit --url URL [--grid PX] [--viewport WxH] [--dpr N] [--html DIR] [--json]`: audit any
//! http(s) page against Chromium (`attention_harness::audit`), progress on stderr, the rates and
//! every disagreement on stdout (or the typed JSON report), exit 0 when every point agrees, 1 when
//! one disagrees, 2 when the page cannot be opened or audited.

use std::path::Path;
use std::process::ExitCode;

use attention_harness::audit::{self, AuditRequest};
use attention_harness::Harness;
use attention_harness::{out, outln};

/// How many points between two progress lines on stderr.
const PROGRESS_EVERY: usize = 50;

pub fn run(h: &Harness, req: &AuditRequest, as_json: bool, html: Option<&Path>) -> Result<ExitCode, String> {
    let progress = |done: usize, total: usize| {
        if done == total || (done > 0 && done % PROGRESS_EVERY == 0) {
            eprintln!("audit: {done}/{total} points");
        }
    };
    let audited = h.block_on(audit::run(h, req, html.is_some(), &progress)).map_err(|e| e.to_string())?;
    let r = &audited.report;
    if let Some(dir) = html {
        let report = r.html(audited.screenshot.as_deref());
        let path = attention_harness::report::html::write(dir, &report)
            .map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
        eprintln!("report: {}", path.display());
    }
    if as_json {
        outln!("{}", serde_json::to_string_pretty(r).map_err(|e| e.to_string())?);
    } else {
        out!("{}", r.text());
    }
    Ok(if r.disagreements.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
