//! `replay FILE` and `record --scenario FILE`: replay a scenario in every engine it names with
//! trusted input, a line per step on stderr, exit 1 at the first failed step (named). Named
//! snapshots are compared with the goldens beside the scenario (`<stem>.<name>.<engine>.golden.json`,
//! the golden form of `scenario::golden`); `record` writes them and shows what changed as a diff.

use std::path::Path;
use std::process::ExitCode;

use attention_harness::scenario::golden::{diff, golden_file, golden_text};
use attention_harness::scenario::run::{replay, EngineRun, StepOutcome};
use attention_harness::scenario::Loaded;
use attention_harness::Harness;

/// Runs every engine; returns the runs (each stops at its first failed step).
pub fn run_all(h: &Harness, loaded: &Loaded, pictures: bool) -> Vec<EngineRun> {
    let progress = |o: &StepOutcome| {
        let first = o.detail.lines().next().unwrap_or("");
        eprintln!("{} steps[{}] {} {first}", if o.pass { "pass" } else { "FAIL" }, o.index, o.step);
    };
    loaded
        .scenario
        .engines
        .iter()
        .map(|&engine| {
            eprintln!("replay {} in {engine}", loaded.path.display());
            h.block_on(replay(h, loaded, engine, pictures, &progress))
        })
        .collect()
}

/// `replay`: exit 0 when every step passed and every named snapshot matches its golden (where one
/// exists), 1 naming the first failure.
pub fn replay_cmd(h: &Harness, loaded: &Loaded, runs: &[EngineRun]) -> ExitCode {
    let mut failed = false;
    for run in runs {
        if let Some(f) = run.failure() {
            println!("FAIL {} in {}: {f}", loaded.path.display(), run.engine);
            failed = true;
            continue;
        }
        let mut differs = false;
        for n in &run.named {
            let file = golden_file(&loaded.path, &n.name, run.engine);
            if let Ok(old) = std::fs::read_to_string(&file) {
                let new = golden_text(&n.snapshot);
                if old != new {
                    differs = true;
                    println!(
                        "FAIL {} in {}: steps[{}] (snapshot {:?}) differs from its golden {}:\n{}",
                        loaded.path.display(),
                        run.engine,
                        n.index,
                        n.name,
                        file.display(),
                        diff(&old, &new, &file)
                    );
                }
            }
        }
        failed |= differs;
        if !differs {
            println!("pass {} in {}: {} steps", loaded.path.display(), run.engine, run.steps.len());
        }
    }
    let _ = h;
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `record --scenario`: writes each named snapshot as a golden beside the scenario, printing the
/// diff of every golden that changed; exit 1 if the replay itself failed (nothing is written then).
pub fn record_cmd(loaded: &Loaded, runs: &[EngineRun]) -> ExitCode {
    if let Some((run, f)) = runs.iter().find_map(|r| r.failure().map(|f| (r, f))) {
        println!("FAIL {} in {}: {f}; no golden written", loaded.path.display(), run.engine);
        return ExitCode::from(1);
    }
    for run in runs {
        for n in &run.named {
            let file = golden_file(&loaded.path, &n.name, run.engine);
            let new = golden_text(&n.snapshot);
            match std::fs::read_to_string(&file) {
                Ok(old) if old == new => println!("unchanged {}", file.display()),
                Ok(old) => println!("changed {}:\n{}", file.display(), diff(&old, &new, &file)),
                Err(_) => println!("new {}", file.display()),
            }
            if let Err(e) = std::fs::write(&file, &new) {
                eprintln!("error: cannot write {}: {e}", file.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// `replay --html DIR`: DIR/report.html with a row per step run in each engine (its annotated
/// screenshot and the snapshot it drew).
pub fn write_html(dir: &Path, loaded: &Loaded, runs: &[EngineRun]) -> Result<(), String> {
    use attention_harness::report::html::{write, Report, Row};
    let rows = runs
        .iter()
        .flat_map(|run| {
            run.steps.iter().map(move |o| Row {
                name: format!("{} steps[{}] {}", run.engine, o.index, o.step),
                pass: o.pass,
                detail: o.detail.clone(),
                picture: o.picture.clone(),
                snapshot: o.snapshot.clone(),
            })
        })
        .collect();
    let description = loaded.scenario.description.clone();
    let report =
        Report { title: format!("replay {}", loaded.path.display()), subtitle: description, legend: None, rows };
    let path = write(dir, &report).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
    eprintln!("report: {}", path.display());
    Ok(())
}
