//! `replay FILE` and `record --scenario FILE`: replay a scenario in every engine it names with
//! trusted input, a line per step on stderr, exit 1 at the first failed step (named). Named
//! snapshots are compared with the goldens beside the scenario (`<stem>.<name>.<engine>.golden.json`,
//! the golden normalizer's text); `record` writes them and shows what changed as a diff.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attention_harness::golden;
use attention_harness::scenario::run::{replay, EngineRun, StepOutcome};
use attention_harness::scenario::Loaded;
use attention_harness::{Engine, Harness};
use serde_json::Value;

/// The golden file of snapshot `name` of the scenario at `path` in `engine`.
pub fn golden_file(path: &Path, name: &str, engine: Engine) -> PathBuf {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    path.with_file_name(format!("{stem}.{name}.{engine}.golden.json"))
}

/// The golden text of a scenario snapshot: the golden normalizer's, with event `sequence` numbers
/// (the runtime's clock-derived counters, different every run) replaced by their rank, so the
/// order of events is kept and nothing else of them.
pub fn golden_text(snapshot: &Value) -> String {
    fn collect(v: &Value, out: &mut Vec<u64>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "sequence" {
                        out.extend(x.as_u64());
                    }
                    collect(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    fn rewrite(v: &mut Value, rank: &std::collections::BTreeMap<u64, usize>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "sequence" {
                        if let Some(r) = x.as_u64().and_then(|n| rank.get(&n)) {
                            *x = Value::from(*r as u64);
                        }
                    } else {
                        rewrite(x, rank);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, rank)),
            _ => {}
        }
    }
    let mut seqs = Vec::new();
    collect(snapshot, &mut seqs);
    seqs.sort_unstable();
    seqs.dedup();
    let rank = seqs.iter().enumerate().map(|(i, n)| (*n, i + 1)).collect();
    let mut v = snapshot.clone();
    rewrite(&mut v, &rank);
    golden::render(&v) + "\n"
}

fn diff(old: &str, new: &str, file: &Path) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{} (golden)", file.display()), "this run")
        .to_string()
}

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
        for (name, snap) in &run.named {
            let file = golden_file(&loaded.path, name, run.engine);
            if let Ok(old) = std::fs::read_to_string(&file) {
                let new = golden_text(snap);
                if old != new {
                    println!(
                        "FAIL {} in {}: snapshot {name:?} differs from its golden:\n{}",
                        loaded.path.display(),
                        run.engine,
                        diff(&old, &new, &file)
                    );
                    failed = true;
                }
            }
        }
        if !failed {
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
        for (name, snap) in &run.named {
            let file = golden_file(&loaded.path, name, run.engine);
            let new = golden_text(snap);
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
