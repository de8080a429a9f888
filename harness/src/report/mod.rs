//! Failure artifacts: what a failed end-to-end test leaves behind, beside its name, so the failure
//! can be understood without re-running it (a screenshot, the last snapshot, the console log).

pub mod html;
pub mod picture;
pub mod text;

use std::any::Any;
use std::path::PathBuf;

use crate::host::Host;

/// The folder artifacts go to when `$ATTENTION_ARTIFACTS` is not set, in the current directory (as
/// Playwright writes `test-results/` where it runs). Cargo's own runs (`cargo test`, `cargo run`)
/// set the variable to the repository's `target/attention-artifacts` (.cargo/config.toml).
pub const ARTIFACTS_DEFAULT: &str = "attention-artifacts";

/// Where artifacts go: `$ATTENTION_ARTIFACTS`, else [`ARTIFACTS_DEFAULT`] in the current directory.
pub fn artifacts_root() -> PathBuf {
    std::env::var_os("ATTENTION_ARTIFACTS").filter(|v| !v.is_empty()).map_or_else(
        || std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")).join(ARTIFACTS_DEFAULT),
        PathBuf::from,
    )
}

/// The running test's name (libtest names each test thread after it), as a folder name.
pub fn current_test_name() -> String {
    let name = std::thread::current().name().unwrap_or("unnamed").to_string();
    sanitize(&name)
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' }).collect()
}

/// The message of a caught panic.
pub fn panic_text(panic: &Box<dyn Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else {
        "panic with a non-text payload".to_string()
    }
}

/// Writes `screenshot.png`, `snapshot.json`, `console.log` and `host.txt` for `test`; returns the
/// folder. Each piece is best effort: a dead browser still leaves the console log.
pub async fn write_artifacts(test: &str, host: &Host) -> PathBuf {
    let dir = artifacts_root().join(sanitize(test));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    let shot = tokio::time::timeout(std::time::Duration::from_secs(10), host.screenshot_png()).await;
    match shot {
        Ok(Ok(png)) => {
            let _ = std::fs::write(dir.join("screenshot.png"), png);
        }
        Ok(Err(e)) => {
            let _ = std::fs::write(dir.join("screenshot.error.txt"), e.to_string());
        }
        Err(_) => {
            let _ = std::fs::write(dir.join("screenshot.error.txt"), "no screenshot within 10 s");
        }
    }
    let snapshot = host.last_snapshot().map(|s| serde_json::to_string_pretty(&s).unwrap_or_default());
    let _ = std::fs::write(dir.join("snapshot.json"), snapshot.unwrap_or_else(|| "null\n".into()));
    let _ = std::fs::write(dir.join("console.log"), host.console().join("\n") + "\n");
    let _ = std::fs::write(
        dir.join("host.txt"),
        format!("url: {}\nlayout: {}\nengine: {}\n", host.url, host.layout, host.engine),
    );
    dir
}

/// Writes the failure message beside the artifacts of [`write_artifacts`] as `failure.txt`: a CI
/// run that keeps the folder but not the test's output still says what failed.
pub fn write_failure(folder: &std::path::Path, message: &str) {
    let _ = std::fs::write(folder.join("failure.txt"), format!("{message}\n"));
}
