//! The `attention-harness` command line: verify (the operational check), snapshot (reproduce a
//! layout bug at a point), serve (open the Host yourself), contract (judge a captured
//! `context_attachments` array as the Session would), inspect (one read of the inspection API),
//! replay / record (scenarios), audit (any page against Chromium). Goldens are recorded and accepted with
//! `cargo insta` only (README, "Golden snapshots"), not here.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{json, Value};

use attention_harness::checks::{self, snapshot_at};
use attention_harness::contract::cli::{run as run_contract, ContractCommand};
use attention_harness::qa::landmarks::{self, Target};
use attention_harness::qa::{View, ViewArgs};
use attention_harness::remote::Remote;
use attention_harness::report;
use attention_harness::server::session::SessionOptions;
use attention_harness::server::{default_pages_dir, Server};
use attention_harness::{outln, Engine, Harness, Host, HostOptions, Layout};

#[derive(Parser)]
#[command(
    name = "attention-harness",
    version,
    about = "Drives Chromium through the reference Host and checks the Attention runtime"
)]
struct Cli {
    /// The pages folder (reference Host, apps, runtime). Default: $ATTENTION_PAGES, else the repository's pages/.
    #[arg(long, global = true, value_name = "DIR", help_heading = "Server options")]
    pages: Option<PathBuf>,
    /// Drive a browser someone else runs, at its DevTools WebSocket URL (ws://HOST:PORT/devtools/browser/ID),
    /// instead of launching one; it is never ended. Default: $ATTENTION_CDP_URL.
    #[arg(long, global = true, value_name = "WS_URL", help_heading = "Server options")]
    cdp_url: Option<String>,
    /// The address both reference sites listen on (e.g. 0.0.0.0). Default: $ATTENTION_BIND, else 127.0.0.1.
    #[arg(long, global = true, value_name = "ADDR", help_heading = "Server options")]
    bind: Option<String>,
    /// The Host site's origin as the browser reaches it (http://HOST[:PORT]; the listener's port when none).
    /// Default: $ATTENTION_PUBLIC_ORIGIN, else http://127.0.0.1:<port>.
    #[arg(long, global = true, value_name = "URL", help_heading = "Server options")]
    public_origin: Option<String>,
    /// The child site's origin as the browser reaches it, on another host than --public-origin (two sites).
    /// Default: $ATTENTION_PUBLIC_CHILD_ORIGIN, else http://localhost:<port>.
    #[arg(long, global = true, value_name = "URL", help_heading = "Server options")]
    public_child_origin: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum LayoutArg {
    Managed,
    Compat,
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Iframe,
    Fragment,
    All,
}

#[derive(Subcommand)]
enum Command {
    /// Run the end-to-end checks against the embedded reference Host; exits 1 if any fails. A failed
    /// check leaves its screenshot, snapshot and console in $ATTENTION_ARTIFACTS/verify-<layout>-<engine>-<check>/
    /// (default: ./attention-artifacts), named in its failure line.
    Verify {
        /// The Host shells to run in. Default: all (managed only with --layout-file).
        #[arg(long, value_enum)]
        layout: Option<LayoutArg>,
        /// How the child apps are mounted: iframes, Web Fragments, or both.
        #[arg(long, value_enum, default_value = "all")]
        engine: EngineArg,
        /// Print a JSON array of {layout, engine, check, status, detail} instead of a table.
        #[arg(long)]
        json: bool,
        /// Run only the checks whose name starts with this (e.g. `checklist-6`; `--list` names them).
        #[arg(long, value_name = "PREFIX")]
        check: Option<String>,
        /// Print the checks' names (those --check selects, all without it) and exit; runs nothing.
        #[arg(long)]
        list: bool,
        /// Also write DIR/report.html: a row per check and cell with an annotated screenshot.
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
        #[command(flatten)]
        view: ViewArgs,
    },
    /// Open a layout, move the pointer to a point with trusted input, print the snapshot.
    Snapshot {
        /// The Host shell: required unless --layout-file is given (then managed; compat mounts the
        /// file's application panels in its page area).
        #[arg(long, value_enum, required_unless_present = "layout_file")]
        layout: Option<Layout>,
        /// How the child apps are mounted: iframes or Web Fragments.
        #[arg(long, value_enum, default_value = "iframe")]
        engine: Engine,
        /// `X,Y` in Host-viewport CSS px, or a landmark: boundary, left-leaf, right-leaf,
        /// oopif-leaf, closed-shadow-leaf, privacy-probes, host-privacy-probes, composer ...; or
        /// `css:SELECTOR` (first match, the Host then every realm) / `css:PANEL:SELECTOR` (one panel).
        #[arg(long, value_name = "X,Y|LANDMARK")]
        point: String,
        /// Print the `context_attachments` array (one envelope) instead of the snapshot.
        #[arg(long)]
        envelope: bool,
        /// The `wippy.attention` version of that envelope, 1 to 4 (default 4, the current one): the
        /// snapshot is budgeted for it, and the version the runtime wrote is printed on stderr.
        #[arg(long, value_name = "1-4", requires = "envelope", value_parser = clap::value_parser!(u64).range(1..=4))]
        envelope_version: Option<u64>,
        /// Also write a PNG of the viewport with the sample points and candidate rects drawn on it.
        #[arg(long, value_name = "FILE")]
        picture: Option<PathBuf>,
        #[command(flatten)]
        view: ViewArgs,
    },
    /// Replay a scenario file (fixtures/scenarios/) with trusted input in every engine it names;
    /// exits 1 at the first failed step, naming it and its artifacts folder under $ATTENTION_ARTIFACTS
    /// (default: ./attention-artifacts).
    Replay {
        /// The scenario (JSON; fixtures/scenarios/ has examples, docs/ describes the steps).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Also write DIR/report.html: a row per step with an annotated screenshot.
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
    },
    /// Record: `--scenario FILE` writes the scenario's named snapshots as goldens beside it.
    Record {
        /// The scenario whose named snapshots to record, as `<stem>.<name>.<engine>.golden.json` beside it.
        #[arg(long, value_name = "FILE")]
        scenario: PathBuf,
    },
    /// Serve the reference Host and its Session; print the URLs and the Session's bearer token.
    Serve {
        /// The Session's SQLite file (kept). Default: target/attention-session/serve.sqlite.
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
        /// Play a Session release without Attention: the capabilities endpoint answers 404.
        #[arg(long)]
        without_attention: bool,
        /// Refuse every upload (POST /api/v1/uploads answers 403 UPLOADS_DISABLED).
        #[arg(long)]
        refuse_uploads: bool,
    },
    /// The Session's attachment contract: validate, encode, expand, project.
    #[command(subcommand)]
    Contract(ContractCommand),
    /// Open a layout and print one read of the runtime's inspection API (find, css, tree, node, geometry, hit).
    Inspect(attention_harness::inspect_cli::InspectArgs),
    /// Audit any http(s) page: inject the runtime into every realm, compare its candidate, rect, role
    /// and name with Chromium's at a grid of points and every element centre; exits 1 if any disagrees.
    Audit {
        /// The page (http:// or https://), checked to be reachable before a browser starts.
        #[arg(long)]
        url: String,
        /// Grid step over the viewport, CSS px, 1 to 4096.
        #[arg(long, value_name = "PX", default_value_t = attention_harness::audit::DEFAULT_GRID,
              value_parser = clap::value_parser!(u32).range(1..=attention_harness::audit::MAX_GRID as i64))]
        grid: u32,
        /// The emulated window, CSS px (default 1280x720).
        #[arg(long, value_name = "WxH", value_parser = attention_harness::qa::view::parse_viewport)]
        viewport: Option<(u32, u32)>,
        /// Device pixels per CSS px: 1, 2 or 3.
        #[arg(long, value_name = "1|2|3", default_value_t = 1, value_parser = attention_harness::qa::view::parse_dpr)]
        dpr: u8,
        /// Print the typed JSON report instead of the rates and the list of disagreements.
        #[arg(long)]
        json: bool,
        /// Also write DIR/report.html: the rates, and each disagreement with a cropped picture.
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let code = run_command();
    // Output cut short by a write error (not a reader that stopped early) is no success.
    if attention_harness::stdout::failed() && code == ExitCode::SUCCESS {
        return ExitCode::from(1);
    }
    code
}

/// Parses the command line and runs the command; what `main` returns unless stdout failed.
fn run_command() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let pages = cli.pages.unwrap_or_else(default_pages_dir);
    match Remote::parse(
        cli.cdp_url.as_deref(),
        cli.bind.as_deref(),
        cli.public_origin.as_deref(),
        cli.public_child_origin.as_deref(),
    ) {
        Ok(r) => REMOTE.get_or_init(|| r),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Contract(cmd) => ExitCode::from(run_contract(&cmd).clamp(0, 255) as u8),
        Command::Serve { db, without_attention, refuse_uploads } => {
            let db = db.unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/attention-session/serve.sqlite")
            });
            let options = SessionOptions {
                db: Some(db),
                capabilities_endpoint: !without_attention,
                uploads_enabled: !refuse_uploads,
                ..SessionOptions::default()
            };
            serve(pages, options)
        }
        command @ (Command::Replay { .. } | Command::Record { .. }) => {
            let (file, record, html) = match command {
                Command::Record { scenario } => (scenario, true, None),
                Command::Replay { file, html } => (file, false, html),
                _ => unreachable!("matched above"),
            };
            // The whole file is checked before a browser starts.
            let loaded = match attention_harness::scenario::load(&pages, &file) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            with_harness(pages, |h| {
                let options = attention_harness::scenario::run::ReplayOptions {
                    pictures: html.is_some(),
                    compare_goldens: !record,
                };
                let mut runs = cli::replay::run_all(h, &loaded, options);
                let code = if record {
                    cli::replay::record_cmd(&loaded, &runs)
                } else {
                    cli::replay::replay_cmd(&loaded, &runs)
                };
                if let Some(dir) = &html {
                    cli::replay::write_html(dir, &loaded, &mut runs)?;
                }
                Ok(code)
            })
        }
        Command::Verify { list: true, check, .. } => {
            let names: Vec<&str> = checks::all()
                .iter()
                .map(|c| c.name)
                .filter(|n| check.as_deref().is_none_or(|p| n.starts_with(p)))
                .collect();
            if names.is_empty() {
                eprintln!("error: no check's name starts with {}", check.unwrap_or_default());
                return ExitCode::from(2);
            }
            for n in names {
                outln!("{n}");
            }
            ExitCode::SUCCESS
        }
        Command::Verify { layout, engine, json, check, html, view, list: false } => {
            // A prefix that names no check is a usage error, found before a browser starts.
            if let Some(p) = check.as_deref().filter(|p| !checks::all().iter().any(|c| c.name.starts_with(p))) {
                eprintln!("error: no check's name starts with “{p}” (verify --list prints the checks)");
                return ExitCode::from(2);
            }
            if let Err(e) = view.check_engines(&engines(engine)) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let (view, layouts) = match checked_view(&view, &pages, layout.map(layouts).as_deref()) {
                Ok(v) => v,
                Err(code) => return code,
            };
            with_harness(pages, |h| verify(h, &view, layouts, engines(engine), json, check.as_deref(), html.as_deref()))
        }
        Command::Audit { url, grid, viewport, dpr, json, html } => {
            // The URL is checked (form, then reachability from here) before a browser starts.
            let remote = REMOTE.get().is_some_and(|r| r.cdp_url.is_some());
            let checked = attention_harness::audit::PageUrl::parse(&url).and_then(|u| {
                // A browser on another machine may reach what this one cannot: it is asked instead.
                if !remote {
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| attention_harness::audit::UrlError::Unreachable {
                            url: url.clone(),
                            reason: e.to_string(),
                        })?
                        .block_on(u.check_reachable())?;
                }
                Ok(u)
            });
            let page = match checked {
                Ok(u) => u,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let (width, height) = viewport.unwrap_or(attention_harness::host::VIEWPORT);
            let view = attention_harness::audit::PageView { width, height, dpr: f64::from(dpr) };
            let req = attention_harness::audit::AuditRequest { url: page, grid, view };
            with_harness(pages, |h| cli::audit::run(h, &req, json, html.as_deref()))
        }
        Command::Inspect(args) => {
            if let Err(e) = args.validate() {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            if let Err(e) = args.view.check_engines(&[args.engine]) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let (view, layouts) = match checked_view(&args.view, &pages, args.layout.map(|l| vec![l]).as_deref()) {
                Ok(v) => v,
                Err(code) => return code,
            };
            with_harness(pages, |h| attention_harness::inspect_cli::run(h, &args, &view, layouts[0]))
        }
        Command::Snapshot { layout, engine, point, envelope, envelope_version, picture, view } => {
            let envelope = envelope.then_some(envelope_version.unwrap_or(4));
            if let Err(e) = view.check_engines(&[engine]) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let (view, layouts) = match checked_view(&view, &pages, layout.map(|l| vec![l]).as_deref()) {
                Ok(v) => v,
                Err(code) => return code,
            };
            // Where to sample is checked before a browser starts, too.
            let target = match landmarks::target(&point, view.css_viewport(), view.layout_file.as_ref(), layouts[0]) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            with_harness(pages, |h| snapshot(h, &view, layouts[0], engine, &target, envelope, picture))
        }
    }
}

/// Checks the view options (the layout file with the Host's rules) before anything opens; a
/// problem is printed as the CLI's error, exit 2.
fn checked_view(
    args: &ViewArgs,
    pages: &std::path::Path,
    asked: Option<&[Layout]>,
) -> Result<(View, Vec<Layout>), ExitCode> {
    let layouts = args.layouts(asked);
    let checked = args.check(pages, &layouts).and_then(|v| {
        v.check_default_layout(pages, &layouts)?;
        Ok((v, layouts))
    });
    checked.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn layouts(a: LayoutArg) -> Vec<Layout> {
    match a {
        LayoutArg::Managed => vec![Layout::Managed],
        LayoutArg::Compat => vec![Layout::Compat],
        LayoutArg::All => Layout::ALL.to_vec(),
    }
}

fn engines(a: EngineArg) -> Vec<Engine> {
    match a {
        EngineArg::Iframe => vec![Engine::Iframe],
        EngineArg::Fragment => vec![Engine::Fragment],
        EngineArg::All => Engine::ALL.to_vec(),
    }
}

/// Starts the harness, runs `f`, and always ends the browser it launched.
/// The checked `--cdp-url` / `--bind` / `--public-origin` values (or their environment variables).
static REMOTE: std::sync::OnceLock<Remote> = std::sync::OnceLock::new();

fn with_harness(pages: PathBuf, f: impl FnOnce(&Harness) -> Result<ExitCode, String>) -> ExitCode {
    let harness = match Harness::start_remote(pages, REMOTE.get().cloned().unwrap_or_default()) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let code = f(&harness).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    });
    harness.shutdown();
    code
}

struct Row {
    layout: Layout,
    engine: Engine,
    check: String,
    pass: bool,
    detail: String,
    duration: std::time::Duration,
    shown: report::html::Pictures,
}

fn verify(
    h: &Harness,
    view: &View,
    layouts: Vec<Layout>,
    engines: Vec<Engine>,
    as_json: bool,
    only: Option<&str>,
    html: Option<&std::path::Path>,
) -> Result<ExitCode, String> {
    let selected: Vec<_> = checks::all().into_iter().filter(|c| only.is_none_or(|p| c.name.starts_with(p))).collect();
    let mut rows = Vec::new();
    for layout in layouts {
        for engine in &engines {
            let engine = *engine;
            h.block_on(async {
                for check in &selected {
                    // A fresh context per check, as in the test suite: no check sees another's input.
                    let mut shown = report::html::Pictures::default();
                    let started = std::time::Instant::now();
                    let outcome = match h.open_with(view.apply((check.host)(HostOptions::new(layout, engine)))).await {
                        Ok(host) => {
                            let mut r = (check.run)(&host).await;
                            if html.is_some() {
                                shown = report::html::pictures_of(&host, None, None).await;
                            }
                            // A failed check leaves its screenshot, snapshot and console, named.
                            if let Err(e) = r {
                                let name = format!("verify-{}-{}-{}", layout.name(), engine.name(), check.name);
                                let dir = report::write_artifacts(&name, &host).await;
                                report::write_failure(&dir, &format!("{e:#}"));
                                r = Err(anyhow::anyhow!("{}", cli::name_artifacts(&format!("{e:#}"), &dir)));
                            }
                            host.close().await;
                            r
                        }
                        Err(e) => Err(anyhow::anyhow!("cannot open the Host: {e}")),
                    };
                    let (pass, detail) = match outcome {
                        Ok(d) => (true, d),
                        Err(e) => (false, format!("{e:#}")),
                    };
                    if !as_json {
                        eprintln!("{} {layout}/{engine} {}", if pass { "pass" } else { "FAIL" }, check.name);
                    }
                    let duration = started.elapsed();
                    rows.push(Row { layout, engine, check: check.name.to_string(), pass, detail, duration, shown });
                }
            });
        }
    }
    let failed = rows.iter().filter(|r| !r.pass).count();
    if let Some(dir) = html {
        let report = report::html::Report {
            title: "attention-harness verify".into(),
            subtitle: format!("{} checks x cells", rows.len()),
            legend: None,
            rows: rows
                .iter_mut()
                .map(|r| report::html::Row {
                    name: format!("{}/{} {}", r.layout.name(), r.engine.name(), r.check),
                    status: report::html::Status::of(r.pass),
                    detail: r.detail.clone(),
                    duration: Some(r.duration),
                    picture: r.shown.picture.take(),
                    crop: r.shown.crop.take(),
                    snapshot: r.shown.snapshot.take(),
                })
                .collect(),
        };
        let path = report::html::write(dir, &report).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
        eprintln!("report: {}", path.display());
    }
    if as_json {
        let arr: Vec<Value> = rows
            .iter()
            .map(|r| json!({"layout": r.layout, "engine": r.engine, "check": r.check, "status": if r.pass {"pass"} else {"fail"}, "detail": r.detail}))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&arr).unwrap_or_default());
    } else {
        let w = rows.iter().map(|r| r.check.len()).max().unwrap_or(5);
        outln!("{:<8} {:<8} {:<w$} {:<6} detail", "layout", "engine", "check", "status");
        for r in &rows {
            let detail = r.detail.lines().next().unwrap_or("");
            outln!(
                "{:<8} {:<8} {:<w$} {:<6} {}",
                r.layout.name(),
                r.engine.name(),
                r.check,
                if r.pass { "pass" } else { "FAIL" },
                detail
            );
        }
        outln!("{} passed, {} failed", rows.len() - failed, failed);
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Resolves a checked target to a Host-viewport point from live geometry.
async fn resolve_point(host: &Host, target: &Target) -> Result<(f64, f64), String> {
    match target {
        Target::Point(x, y) => Ok((*x, *y)),
        Target::Boundary => {
            let (x, y, _, _) = checks::sampling::boundary_point(host).await.map_err(|e| format!("{e:#}"))?;
            Ok((x, y))
        }
        Target::Landmark(name) => {
            attention_harness::scenario::run::visible_centre(host, name).await.map_err(|e| format!("{e:#}"))
        }
    }
}

fn snapshot(
    h: &Harness,
    view: &View,
    layout: Layout,
    engine: Engine,
    target: &Target,
    envelope: Option<u64>,
    picture: Option<PathBuf>,
) -> Result<ExitCode, String> {
    h.block_on(async {
        let host = h.open_with(view.apply(HostOptions::new(layout, engine))).await.map_err(|e| e.to_string())?;
        let result = async {
            let (x, y) = resolve_point(&host, target).await?;
            let mut snap = snapshot_at(&host, x, y).await.map_err(|e| format!("{e:#}"))?;
            if let Some(v @ 2..=4) = envelope {
                // The same pointer, the snapshot budgeted for the compact version.
                let options = serde_json::json!({"attachment_version": v});
                snap = host.snapshot_with(options).await.map_err(|e| e.to_string())?;
            }
            if let Some(path) = picture {
                let png = host.screenshot_png().await.map_err(|e| e.to_string())?;
                let drawn =
                    attention_harness::report::picture::annotate(&png, snap.json(), host.options().scale_factor())
                        .map_err(|e| e.to_string())?;
                std::fs::write(&path, drawn).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                eprintln!("picture: {}", path.display());
            }
            let out = if let Some(version) = envelope {
                // What the runtime returned, as it returned it.
                let env = host.envelope_version(snap.json(), version).await.map_err(|e| e.to_string())?;
                eprintln!("wippy.attention version {} (asked for {version})", env.version);
                Value::Array(vec![env.json().clone()])
            } else {
                snap.json().clone()
            };
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            Ok(ExitCode::SUCCESS)
        }
        .await;
        host.close().await;
        result
    })
}

fn serve(pages: PathBuf, options: SessionOptions) -> ExitCode {
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(async {
        let net = REMOTE.get().map(|r| r.net.clone()).unwrap_or_default();
        let server = match Server::start_net(pages, options, &net).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        // The SIGINT handler is in place before "Press Ctrl-C" is printed: a Ctrl-C (or a test's
        // SIGINT) sent right after that line must stop the server cleanly, not kill it.
        let mut interrupt = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: cannot listen for Ctrl-C: {e}");
                return ExitCode::from(2);
            }
        };
        outln!("Host site:  {}", server.host_origin());
        outln!("Child site: {}", server.child_origin());
        outln!("Session database: {}", server.session().db_path().display());
        outln!("Session token: {}", server.session().token());
        for layout in Layout::ALL {
            for engine in Engine::ALL {
                outln!(
                    "  {:8} {:9} {}",
                    layout.name(),
                    engine.name(),
                    HostOptions::new(layout, engine).url(server.host_origin())
                );
            }
        }
        outln!("Press Ctrl-C to stop.");
        attention_harness::stdout::flush();
        interrupt.recv().await;
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every option and argument of every command, with the command path that has it.
    fn all_args(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Arg)>) {
        for a in cmd.get_arguments() {
            out.push((path.to_string(), a.clone()));
        }
        for sub in cmd.get_subcommands() {
            all_args(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_option_of_every_command_has_a_description_and_server_options_have_their_heading() {
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        let mut args = Vec::new();
        all_args(&cmd, "attention-harness", &mut args);
        let undescribed: Vec<String> = args
            .iter()
            .filter(|(_, a)| !["help", "version"].contains(&a.get_id().as_str()))
            .filter(|(_, a)| a.get_help().is_none_or(|h| h.to_string().trim().is_empty()))
            .map(|(p, a)| format!("{p} {}", a.get_id()))
            .collect();
        assert!(undescribed.is_empty(), "options without a description: {undescribed:?}");
        for id in ["pages", "cdp_url", "bind", "public_origin", "public_child_origin"] {
            let a = cmd.get_arguments().find(|a| a.get_id() == id).expect(id);
            assert_eq!(a.get_help_heading(), Some("Server options"), "{id}");
        }
        // The tool's --version is the tool's: no command borrows it for something else.
        let borrowed: Vec<String> = args
            .iter()
            .filter(|(_, a)| a.get_long() == Some("version") && a.get_id() != "version")
            .map(|(p, a)| format!("{p} {}", a.get_id()))
            .collect();
        assert!(borrowed.is_empty(), "--version borrowed by {borrowed:?}");
    }
}
