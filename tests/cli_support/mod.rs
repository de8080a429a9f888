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

/// A run of the CLI that must be refused before any browser starts: `$CHROME` names a stand-in
/// that only records that it was started (and fails), and `ATTENTION_CDP_URL` is removed, so a
/// refusal that came after a launch leaves its mark however fast or slow the machine is. Returns
/// the output, how long the run took (printed by the callers, never asserted: a loaded machine may
/// take longer) and whether the stand-in was started.
pub fn run_expecting_no_launch(args: &[&str]) -> (Output, std::time::Duration, bool) {
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = repo("target").join("cli-launch-sentinel").join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).expect("sentinel folder");
    let stand_in = dir.join("chromium");
    if !stand_in.exists() {
        let tmp = dir.join(format!(".chromium.{}", SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        std::fs::write(&tmp, "#!/bin/sh\n: > \"$ATTENTION_TEST_LAUNCH_MARK\"\nexit 1\n").expect("write the stand-in");
        std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
        std::fs::rename(&tmp, &stand_in).expect("place the stand-in");
    }
    let mark = dir.join(format!("launched-{}", SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let t0 = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_attention-harness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CHROME", &stand_in)
        .env("ATTENTION_TEST_LAUNCH_MARK", &mark)
        .env_remove("ATTENTION_CDP_URL")
        .output()
        .expect("run attention-harness");
    let took = t0.elapsed();
    let launched = mark.exists();
    let _ = std::fs::remove_file(&mark);
    (out, took, launched)
}
