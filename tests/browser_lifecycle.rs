//! The browser's life: found or clearly missing, relaunched after a crash, and never left running
//! after the test process exits (checked from outside, by pid and profile).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use attention_harness::browser::{find_chromium_in, BrowserError};
use attention_harness::{Engine, Harness, Layout};

#[test]
fn missing_chromium_names_the_install_command() {
    let err = find_chromium_in(None, &[Path::new("/nonexistent/chromium")], std::ffi::OsStr::new("/nonexistent"))
        .unwrap_err();
    assert!(matches!(err, BrowserError::NotFound));
    assert!(err.to_string().contains("apt-get install -y chromium chromium-headless-shell"), "{err}");
}

#[test]
fn the_headless_shell_is_preferred_to_the_desktop_build_and_chrome_env_to_both() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("find-chromium");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = |name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    let (shell, desktop, env) = (exe("chromium-headless-shell"), exe("chromium"), exe("my-chrome"));
    let none = std::ffi::OsStr::new("");
    assert_eq!(find_chromium_in(None, &[&shell, &desktop], none).unwrap(), shell);
    assert_eq!(find_chromium_in(None, &[Path::new("/nonexistent/shell"), &desktop], none).unwrap(), desktop);
    assert_eq!(find_chromium_in(Some(env.clone().into()), &[&shell, &desktop], none).unwrap(), env);
    // On PATH the shell comes first too.
    assert_eq!(find_chromium_in(None, &[], dir.as_os_str()).unwrap(), shell);
}

#[test]
fn chrome_env_pointing_nowhere_is_an_error_not_a_fallback() {
    let err = find_chromium_in(
        Some("/nonexistent/chrome".into()),
        &[Path::new("/usr/bin/chromium")],
        std::ffi::OsStr::new(""),
    )
    .unwrap_err();
    assert!(matches!(err, BrowserError::BadChromeEnv(_)), "{err}");
}

/// Runs alone in a child process (see below): launches the shared browser, writes its pid and
/// profile, then ends the process normally or by panicking.
#[test]
#[ignore = "helper: run by no_chromium_survives_the_test_process in a child process"]
fn helper_launch_and_exit() {
    let out = std::env::var("ATTENTION_LIFECYCLE_OUT").expect("ATTENTION_LIFECYCLE_OUT");
    let h = Harness::global();
    h.block_on(async {
        let host = h.open(Layout::Compat, Engine::Iframe).await.unwrap();
        let pid = h.browser_pid().await.unwrap();
        std::fs::write(&out, pid.to_string()).unwrap();
        if std::env::var("ATTENTION_LIFECYCLE_PANIC").is_ok() {
            panic!("deliberate failure with the browser still open");
        }
        host.close().await;
    });
}

fn chromium_processes_of(profile_marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains("chrom") && cmd.contains(profile_marker) {
                found.push(cmd);
            }
        }
    }
    found
}

#[test]
fn no_chromium_survives_the_test_process_whether_it_passes_or_panics() {
    for panic in [false, true] {
        let out = std::env::temp_dir().join(format!("attention-lifecycle-{}-{panic}", std::process::id()));
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "helper_launch_and_exit", "--ignored", "--nocapture"])
            .env("ATTENTION_LIFECYCLE_OUT", &out);
        if panic {
            cmd.env("ATTENTION_LIFECYCLE_PANIC", "1");
        }
        let child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let child_pid = child.id();
        let status = child.wait_with_output().unwrap().status;
        assert_eq!(
            status.success(),
            !panic,
            "the helper process should {} (status {status})",
            if panic { "fail" } else { "pass" }
        );
        let pid: u32 = std::fs::read_to_string(&out).unwrap().trim().parse().unwrap();
        let _ = std::fs::remove_file(&out);
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists() || !is_chromium(pid),
            "browser pid {pid} still exists after its test process exited"
        );
        // The helper's profiles are named after its pid: target/attention-profiles/<pid>-<n>.
        let profile = attention_harness::browser::profile_root().join(format!("{child_pid}-"));
        let leftovers = chromium_processes_of(&format!("--user-data-dir={}", profile.display()));
        assert!(leftovers.is_empty(), "Chromium processes of the exited helper remain: {leftovers:?}");
    }
}

fn is_chromium(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| c.contains("chrom")).unwrap_or(false)
}

#[test]
fn a_crash_fails_the_running_test_clearly_and_the_next_test_gets_a_relaunched_browser() {
    let h = Harness::global();
    h.block_on(async {
        let host = h.open(Layout::Managed, Engine::Iframe).await.unwrap();
        let before = h.browser_pid().await.unwrap();
        h.crash_browser_for_test().await;
        let err = tokio::time::timeout(Duration::from_secs(20), host.snapshot())
            .await
            .expect("a call into a dead browser must fail, not hang")
            .expect_err("a snapshot from a dead browser cannot succeed");
        let msg = err.to_string();
        assert!(msg.contains("closed") || msg.contains("crashed"), "unclear error after a crash: {msg}");
        host.close().await;

        let again = h.open(Layout::Managed, Engine::Iframe).await.expect("the next test gets a relaunched browser");
        let after = h.browser_pid().await.unwrap();
        assert_ne!(before, after, "the browser was not relaunched");
        again.snapshot().await.expect("the relaunched browser works");
        again.close().await;
    });
}
