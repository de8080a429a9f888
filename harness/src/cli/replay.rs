//! `replay FILE` and `record --scenario FILE`: replay a scenario in every engine it names with
//! trusted input, a line per step on stderr, exit 1 when a step failed (the replay stops there) or a
//! named snapshot differs from its golden or has none. Named snapshots are compared with the goldens
//! beside the scenario (`<stem>.<name>.<engine>.golden.json`, the golden form of `scenario::golden`);
//! `record` writes them and shows what changed as a diff.
//!
//! The stdout lines, the exit code and the `--html` report all come from the same rows
//! ([`rows`]): a step's status is its outcome's, and a step the replay never reached is `not run`.

use std::path::Path;
use std::process::ExitCode;

use attention_harness::outln;
use attention_harness::report::html::{Row, Status};
use attention_harness::scenario::golden::{diff, golden_file, golden_text};
use attention_harness::scenario::run::{replay, EngineRun, ReplayOptions, StepOutcome};
use attention_harness::scenario::Loaded;
use attention_harness::Harness;

/// Runs every engine; returns the runs (each stops at its first failed step).
pub fn run_all(h: &Harness, loaded: &Loaded, options: ReplayOptions) -> Vec<EngineRun> {
    let progress = |o: &StepOutcome| {
        let detail = with_artifacts(&o.full_detail(&loaded.path), o);
        let first = detail.lines().next().unwrap_or("");
        let status = match o.status() {
            Status::Pass => "pass",
            _ => "FAIL",
        };
        eprintln!(
            "{status} steps[{}] {} {first} ({})",
            o.index,
            o.step,
            attention_harness::report::html::human_duration(o.duration)
        );
        // A read shows what the model keeps, and a failure its whole detail (a diff, a reason).
        if o.step == "read" || status != "pass" {
            for line in detail.lines().skip(1) {
                eprintln!("    {line}");
            }
        }
    };
    loaded
        .scenario
        .engines
        .iter()
        .map(|&engine| {
            eprintln!("replay {} in {engine}", loaded.path.display());
            h.block_on(replay(h, loaded, engine, options, &progress))
        })
        .collect()
}

/// A row per step of the scenario in each engine: the outcome of each step that ran (its status,
/// its detail with the golden's verdict, its duration and pictures), `not run` for the rest.
pub fn rows(loaded: &Loaded, runs: &mut [EngineRun]) -> Vec<Row> {
    let mut rows = Vec::new();
    for run in runs {
        for (index, step) in loaded.scenario.steps.iter().enumerate() {
            let name = format!("{} steps[{index}] {}", run.engine, step.name());
            rows.push(match run.steps.iter_mut().find(|o| o.index == index) {
                Some(o) => Row {
                    name,
                    status: o.status(),
                    detail: o.full_detail(&loaded.path),
                    duration: Some(o.duration),
                    picture: o.picture.take(),
                    crop: o.crop.take(),
                    snapshot: o.snapshot.take(),
                },
                None => Row {
                    name,
                    status: Status::NotRun,
                    detail: "not run: the replay stopped at the failed step before it".into(),
                    duration: None,
                    picture: None,
                    crop: None,
                    snapshot: None,
                },
            });
        }
    }
    rows
}

/// `replay`: a `FAIL` line per failed row (a failed step, a golden that differs with its diff, a
/// missing golden with the command that records it), `pass` per engine without one, then the
/// counts the report shows; exit 0 when nothing failed, 1 otherwise.
pub fn replay_cmd(loaded: &Loaded, runs: &[EngineRun]) -> ExitCode {
    let mut failed = 0;
    for run in runs {
        let mut engine_failed = false;
        for o in &run.steps {
            let status = o.status();
            if status.failed() {
                engine_failed = true;
                failed += 1;
                outln!(
                    "FAIL {} in {}: steps[{}] ({}): {}",
                    loaded.path.display(),
                    run.engine,
                    o.index,
                    o.step,
                    with_artifacts(&o.full_detail(&loaded.path), o)
                );
            }
        }
        if !engine_failed {
            outln!("pass {} in {}: {} steps", loaded.path.display(), run.engine, run.steps.len());
        }
    }
    let total: usize = runs.len() * loaded.scenario.steps.len();
    let ran: usize = runs.iter().map(|r| r.steps.len()).sum();
    let passed = ran - failed;
    outln!("{passed} passed, {failed} failed, {} not run", total - ran);
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `detail` with the step's artifacts folder, if any, at the end of its first line.
fn with_artifacts(detail: &str, o: &StepOutcome) -> String {
    match &o.artifacts {
        Some(dir) => super::name_artifacts(detail, dir),
        None => detail.to_string(),
    }
}

/// `record --scenario`: writes each named snapshot as a golden beside the scenario, printing the
/// diff of every golden that changed; exit 1 if the replay itself failed (nothing is written then).
pub fn record_cmd(loaded: &Loaded, runs: &[EngineRun]) -> ExitCode {
    if let Some((run, f)) = runs.iter().find_map(|r| r.failure().map(|f| (r, f))) {
        outln!("FAIL {} in {}: {f}; no golden written", loaded.path.display(), run.engine);
        return ExitCode::from(1);
    }
    for run in runs {
        for n in &run.named {
            let file = golden_file(&loaded.path, &n.name, run.engine);
            let new = golden_text(&n.snapshot);
            match std::fs::read_to_string(&file) {
                Ok(old) if old == new => outln!("unchanged {}", file.display()),
                Ok(old) => outln!("changed {}:\n{}", file.display(), diff(&old, &new, &file)),
                Err(_) => outln!("new {}", file.display()),
            }
            if let Err(e) = std::fs::write(&file, &new) {
                eprintln!("error: cannot write {}: {e}", file.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// `replay --html DIR`: DIR/report.html with a row per step of each engine ([`rows`]).
pub fn write_html(dir: &Path, loaded: &Loaded, runs: &mut [EngineRun]) -> Result<(), String> {
    use attention_harness::report::html::{write, Report};
    let rows = rows(loaded, runs);
    let description = loaded.scenario.description.clone();
    let report =
        Report { title: format!("replay {}", loaded.path.display()), subtitle: description, legend: None, rows };
    let path = write(dir, &report).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
    eprintln!("report: {}", path.display());
    Ok(())
}
