//! The bodies of the QA commands (issue 22), kept out of main.rs: `replay`,
//! `record --scenario` and `audit`; and how a failure line names its artifacts folder.

pub mod audit;
pub mod replay;

/// `detail` with the artifacts folder at the end of its first line (the failure line a table shows;
/// a diff may follow on the next lines).
pub fn name_artifacts(detail: &str, dir: &std::path::Path) -> String {
    let (first, rest) = detail.split_once('\n').map_or((detail, None), |(a, b)| (a, Some(b)));
    let mut s = match first.strip_suffix(':') {
        Some(head) => format!("{head} (artifacts: {}):", dir.display()),
        None => format!("{first} (artifacts: {})", dir.display()),
    };
    if let Some(rest) = rest {
        s = format!("{s}\n{rest}");
    }
    s
}
