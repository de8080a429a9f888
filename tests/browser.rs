//! Every end-to-end test that drives the reference Host in Chromium, as one test binary: one browser
//! per test process (Harness::global) and a fresh browser context per test (run_host), so the suite
//! pays for one Chromium launch and one link instead of one per file. Each file keeps one concern;
//! `cargo test --test browser omissions::` runs one of them. A new end-to-end file is registered here
//! (tests/layout.rs fails for a file under tests/ that no binary includes).
//! The command line's tests (cli.rs) start their own browser processes; they live here rather than
//! in the contract binary because cargo runs test binaries one after another: here their `verify`
//! and `snapshot` processes overlap the other browser tests instead of adding their own time.

#[path = "app_server.rs"]
mod app_server;
#[path = "budgets.rs"]
mod budgets;
#[path = "cli.rs"]
mod cli;
#[path = "cli_envelope_v4.rs"]
mod cli_envelope_v4;
#[path = "cli_messages.rs"]
mod cli_messages;
#[path = "cli_qa.rs"]
mod cli_qa;
mod cli_support;
#[path = "conformance.rs"]
mod conformance;
#[path = "end_to_end.rs"]
mod end_to_end;
#[path = "envelope_v4.rs"]
mod envelope_v4;
#[path = "failure_artifacts.rs"]
mod failure_artifacts;
#[path = "fidelity.rs"]
mod fidelity;
#[path = "focus.rs"]
mod focus;
#[path = "geometry.rs"]
mod geometry;
#[path = "history.rs"]
mod history;
#[path = "hostile.rs"]
mod hostile;
#[path = "input.rs"]
mod input;
#[path = "inspection_css.rs"]
mod inspection_css;
#[path = "inspection_cursor.rs"]
mod inspection_cursor;
#[path = "inspection_followups.rs"]
mod inspection_followups;
#[path = "inspection_reads.rs"]
mod inspection_reads;
#[path = "leases.rs"]
mod leases;
#[path = "omissions.rs"]
mod omissions;
#[path = "qa_apps.rs"]
mod qa_apps;
#[path = "realm_document.rs"]
mod realm_document;
#[path = "refusing_port.rs"]
mod refusing_port;
#[path = "remote_browser.rs"]
mod remote_browser;
#[path = "report_html.rs"]
mod report_html;
mod report_support;
#[path = "runtime_canonical_json.rs"]
mod runtime_canonical_json;
#[path = "scenarios.rs"]
mod scenarios;
#[path = "selection.rs"]
mod selection;
#[path = "session_e2e.rs"]
mod session_e2e;
#[path = "session_hostile_child.rs"]
mod session_hostile_child;
#[path = "session_reads_e2e.rs"]
mod session_reads_e2e;
#[path = "session_restart.rs"]
mod session_restart;
#[path = "shell_viewport.rs"]
mod shell_viewport;
