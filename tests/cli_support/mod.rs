//! Running the CLI binary from a test: the repository's paths, one run of `attention-harness` from
//! the repository's root, and a fresh scratch folder under `target/` for what a run writes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path of the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// One run of the CLI with `args`, from the repository's root.
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run attention-harness")
}

/// An empty folder `target/<area>/<name>` (what an earlier run left there is removed).
pub fn scratch(area: &str, name: &str) -> PathBuf {
    let d = repo("target").join(area).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}
