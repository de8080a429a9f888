//! The bundles built by esbuild (`node runtime/build.mjs`, run in `pages/`): the Attention runtime
//! `pages/runtime/dist/attention.js` from the ES modules under `pages/runtime/src/`, and the Material
//! Web corpus `pages/corpora/dist/material.js` from `pages/corpora/*.js` (Material Web imports lit by
//! bare name, so it cannot be served as it is installed).
//!
//! No stale bundle, ever: [`ensure_fresh`] compares the newest modification time of every input
//! (everything under `runtime/src/`, the corpus entries in `corpora/`, `runtime/build.mjs`,
//! `package-lock.json`) with the oldest output's and rebuilds when an output is missing or older.
//! The server calls it once at start (fail fast) and again, stat-only unless stale, on every request
//! of `/runtime/attention.js` or of a file under `/corpora/dist/`, so a long-running `serve` picks
//! up edits too. A process-wide mutex serializes builds in one process;
//! `build.mjs` writes a temporary file and renames it, so concurrent processes never read a partial
//! bundle.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::SystemTime;

/// Why the runtime bundle could not be made fresh.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error(
        "cannot build the Attention runtime: Node.js (`node`) is not installed or not on PATH (run `bash ci/setup`)"
    )]
    NodeMissing,
    #[error("cannot build the Attention runtime: esbuild is not installed under {0} (run `bash ci/setup`, which runs `npm ci` in pages/)")]
    EsbuildMissing(PathBuf),
    #[error("building the Attention runtime failed (`node runtime/build.mjs` in {dir}, {status}):\n{stderr}")]
    BuildFailed { dir: PathBuf, status: String, stderr: String },
    #[error("cannot read the runtime sources under {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("`node runtime/build.mjs` succeeded but {0} is missing or still older than its sources")]
    NotWritten(PathBuf),
}

/// Serializes freshness checks and builds within this process.
static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// The bundle the server serves at `/runtime/attention.js`.
pub fn bundle_path(pages: &Path) -> PathBuf {
    pages.join("runtime/dist/attention.js")
}

/// The Material Web corpus bundle, served at `/corpora/dist/material.js`.
pub fn corpus_bundle_path(pages: &Path) -> PathBuf {
    pages.join("corpora/dist/material.js")
}

/// Every file `build.mjs` writes.
pub fn outputs(pages: &Path) -> Vec<PathBuf> {
    vec![bundle_path(pages), corpus_bundle_path(pages)]
}

/// Every file the bundles are built from: the sources under `runtime/src/` (recursively), the
/// corpus entries directly in `corpora/` (not its `dist/`), the build script, and the lock file that
/// pins esbuild and the component library.
pub fn inputs(pages: &Path) -> Result<Vec<PathBuf>, BundleError> {
    let mut files = vec![pages.join("runtime/build.mjs"), pages.join("package-lock.json")];
    let corpora = pages.join("corpora");
    let entries = std::fs::read_dir(&corpora).map_err(|source| BundleError::Io { path: corpora.clone(), source })?;
    for entry in entries {
        let entry = entry.map_err(|source| BundleError::Io { path: corpora.clone(), source })?;
        if entry.path().is_file() {
            files.push(entry.path());
        }
    }
    let mut dirs = vec![pages.join("runtime/src")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| BundleError::Io { path: dir.clone(), source })?;
        for entry in entries {
            let entry = entry.map_err(|source| BundleError::Io { path: dir.clone(), source })?;
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    Ok(files)
}

/// The newest modification time among `files` (a missing file is an error: every input must exist).
pub fn newest_mtime(files: &[PathBuf]) -> Result<SystemTime, BundleError> {
    let mut newest = SystemTime::UNIX_EPOCH;
    for f in files {
        let m = std::fs::metadata(f)
            .and_then(|m| m.modified())
            .map_err(|source| BundleError::Io { path: f.clone(), source })?;
        newest = newest.max(m);
    }
    Ok(newest)
}

/// A bundle is stale when it does not exist or is older than its newest input.
pub fn is_stale(newest_input: SystemTime, bundle: Option<SystemTime>) -> bool {
    match bundle {
        None => true,
        Some(b) => b < newest_input,
    }
}

/// The oldest output's modification time, None when any output is missing.
fn bundle_mtime(pages: &Path) -> Option<SystemTime> {
    outputs(pages)
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .try_fold(None, |oldest: Option<SystemTime>, m| m.map(|m| Some(oldest.map_or(m, |o| o.min(m)))))
        .flatten()
}

/// Whether the bundles under `pages` must be rebuilt (stat only).
pub fn needs_build(pages: &Path) -> Result<bool, BundleError> {
    let newest = newest_mtime(&inputs(pages)?)?;
    Ok(is_stale(newest, bundle_mtime(pages)))
}

/// Makes every bundle fresh (`pages/runtime/dist/attention.js`, `pages/corpora/dist/material.js`):
/// builds them when one is missing or older than an input.
/// Returns the bundle's path. Blocking (stats files, may run Node): call it off the async reactor.
pub fn ensure_fresh(pages: &Path) -> Result<PathBuf, BundleError> {
    let _guard = BUILD_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !needs_build(pages)? {
        return Ok(bundle_path(pages));
    }
    build(pages, OsStr::new("node"))?;
    if needs_build(pages)? {
        return Err(BundleError::NotWritten(bundle_path(pages)));
    }
    Ok(bundle_path(pages))
}

/// Runs `<node> runtime/build.mjs` in `pages`.
fn build(pages: &Path, node: &OsStr) -> Result<(), BundleError> {
    let esbuild = pages.join("node_modules/esbuild/package.json");
    if !esbuild.is_file() {
        return Err(BundleError::EsbuildMissing(pages.join("node_modules/esbuild")));
    }
    tracing::info!("building the Attention runtime bundle in {}", pages.display());
    let output =
        Command::new(node).arg("runtime/build.mjs").current_dir(pages).output().map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => BundleError::NodeMissing,
            _ => BundleError::Io { path: PathBuf::from("node"), source: e },
        })?;
    if !output.status.success() {
        return Err(BundleError::BuildFailed {
            dir: pages.to_path_buf(),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim_end().to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, File};
    use std::time::Duration;

    /// A scratch pages folder under target/ with the bundle's inputs and (optionally) a bundle.
    fn scratch(name: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/runtime-bundle-tests").join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("runtime/src/relay")).unwrap();
        fs::create_dir_all(dir.join("runtime/dist")).unwrap();
        fs::create_dir_all(dir.join("corpora/dist")).unwrap();
        for f in [
            "runtime/build.mjs",
            "package-lock.json",
            "runtime/src/main.js",
            "runtime/src/relay/child.js",
            "corpora/material.js",
        ] {
            fs::write(dir.join(f), "x").unwrap();
        }
        dir
    }

    fn set_mtime(path: &Path, t: SystemTime) {
        File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
    }

    /// Writes every output `build.mjs` makes, dated `t`.
    fn write_outputs(pages: &Path, t: SystemTime) {
        for f in outputs(pages) {
            fs::write(&f, "bundle").unwrap();
            set_mtime(&f, t);
        }
    }

    fn age_all(pages: &Path, t: SystemTime) {
        for f in inputs(pages).unwrap() {
            set_mtime(&f, t);
        }
    }

    #[test]
    fn a_missing_bundle_is_stale() {
        let pages = scratch("missing");
        assert!(needs_build(&pages).unwrap());
    }

    #[test]
    fn a_bundle_newer_than_every_input_is_fresh() {
        let pages = scratch("fresh");
        age_all(&pages, at(0));
        write_outputs(&pages, at(10));
        assert!(!needs_build(&pages).unwrap());
    }

    #[test]
    fn a_bundle_as_old_as_its_newest_input_is_fresh() {
        let pages = scratch("same-time");
        age_all(&pages, at(5));
        write_outputs(&pages, at(5));
        assert!(!needs_build(&pages).unwrap());
    }

    #[test]
    fn an_edit_to_any_input_makes_the_bundle_stale() {
        for (i, edited) in [
            "runtime/src/main.js",
            "runtime/src/relay/child.js",
            "runtime/build.mjs",
            "package-lock.json",
            "corpora/material.js",
        ]
        .into_iter()
        .enumerate()
        {
            let pages = scratch(&format!("edited-{i}"));
            age_all(&pages, at(0));
            write_outputs(&pages, at(10));
            set_mtime(&pages.join(edited), at(11));
            assert!(needs_build(&pages).unwrap(), "editing {edited} must make the bundle stale");
        }
    }

    #[test]
    fn a_new_source_file_newer_than_the_bundle_makes_it_stale() {
        let pages = scratch("new-file");
        age_all(&pages, at(0));
        write_outputs(&pages, at(10));
        let added = pages.join("runtime/src/added.js");
        fs::write(&added, "y").unwrap();
        set_mtime(&added, at(20));
        assert!(needs_build(&pages).unwrap());
    }

    #[test]
    fn a_missing_or_older_corpus_bundle_makes_the_bundles_stale() {
        let pages = scratch("corpus-bundle");
        age_all(&pages, at(0));
        write_outputs(&pages, at(10));
        assert!(!needs_build(&pages).unwrap());
        set_mtime(&corpus_bundle_path(&pages), at(0));
        set_mtime(&pages.join("corpora/material.js"), at(5));
        assert!(needs_build(&pages).unwrap(), "a corpus bundle older than its entry is stale");
        fs::remove_file(corpus_bundle_path(&pages)).unwrap();
        assert!(needs_build(&pages).unwrap(), "a missing corpus bundle is stale");
    }

    #[test]
    fn staleness_compares_against_the_newest_input() {
        assert!(is_stale(at(10), None));
        assert!(is_stale(at(10), Some(at(9))));
        assert!(!is_stale(at(10), Some(at(10))));
        assert!(!is_stale(at(10), Some(at(11))));
        let pages = scratch("newest");
        age_all(&pages, at(0));
        set_mtime(&pages.join("runtime/src/relay/child.js"), at(7));
        assert_eq!(newest_mtime(&inputs(&pages).unwrap()).unwrap(), at(7));
    }

    #[test]
    fn a_missing_build_script_is_an_error_naming_it() {
        let pages = scratch("no-build-script");
        fs::remove_file(pages.join("runtime/build.mjs")).unwrap();
        let err = needs_build(&pages).unwrap_err();
        assert!(err.to_string().contains("build.mjs"), "{err}");
    }

    #[test]
    fn a_stale_bundle_without_esbuild_names_the_setup_command() {
        let pages = scratch("no-esbuild");
        let err = ensure_fresh(&pages).unwrap_err();
        assert!(matches!(err, BundleError::EsbuildMissing(_)), "{err:?}");
        assert!(err.to_string().contains("bash ci/setup"), "{err}");
    }

    fn with_fake_esbuild(pages: &Path) {
        fs::create_dir_all(pages.join("node_modules/esbuild")).unwrap();
        fs::write(pages.join("node_modules/esbuild/package.json"), "{}").unwrap();
    }

    #[test]
    fn a_missing_node_is_a_typed_error_naming_the_setup_command() {
        let pages = scratch("no-node");
        with_fake_esbuild(&pages);
        let err = build(&pages, OsStr::new("/nonexistent/bin/node")).unwrap_err();
        assert!(matches!(err, BundleError::NodeMissing), "{err:?}");
        assert!(err.to_string().contains("bash ci/setup"), "{err}");
    }

    #[test]
    fn a_failing_build_reports_the_build_scripts_stderr() {
        let pages = scratch("build-fails");
        with_fake_esbuild(&pages);
        fs::write(
            pages.join("runtime/build.mjs"),
            "console.error('src/x.js:1:7: Could not resolve');\nprocess.exit(1);\n",
        )
        .unwrap();
        let err = build(&pages, OsStr::new("node")).unwrap_err();
        assert!(matches!(err, BundleError::BuildFailed { .. }), "{err:?}");
        assert!(err.to_string().contains("src/x.js:1:7: Could not resolve"), "{err}");
    }

    #[test]
    fn a_build_that_writes_no_bundle_is_reported() {
        let pages = scratch("writes-nothing");
        with_fake_esbuild(&pages);
        fs::write(pages.join("runtime/build.mjs"), "// builds nothing\n").unwrap();
        let err = ensure_fresh(&pages).unwrap_err();
        assert!(matches!(err, BundleError::NotWritten(_)), "{err:?}");
    }
}
