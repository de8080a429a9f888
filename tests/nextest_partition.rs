//! Sharding with cargo-nextest (README "Past one machine"): `--partition hash:1/2` and `hash:2/2`
//! are disjoint and together are the whole suite, as `cargo nextest list` sees it with this
//! repository's .config/nextest.toml (which nextest reads, so a broken config fails here too).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde::Deserialize;

/// `cargo nextest list --message-format json`, the part this test reads.
#[derive(Deserialize)]
struct TestList {
    #[serde(rename = "rust-suites")]
    rust_suites: BTreeMap<String, Suite>,
}

#[derive(Deserialize)]
struct Suite {
    testcases: BTreeMap<String, TestCase>,
}

#[derive(Deserialize)]
struct TestCase {
    #[serde(rename = "filter-match")]
    filter_match: FilterMatch,
}

#[derive(Deserialize)]
struct FilterMatch {
    status: String,
}

fn nextest_installed() -> bool {
    Command::new("cargo").args(["nextest", "--version"]).output().map(|o| o.status.success()).unwrap_or(false)
}

/// The tests `cargo nextest list` selects (status "matches"), as `binary test` names.
fn listed(partition: Option<&str>) -> BTreeSet<String> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args(["nextest", "list", "--message-format", "json"]);
    if let Some(p) = partition {
        cmd.args(["--partition", p]);
    }
    let out = cmd.output().expect("run cargo nextest list");
    assert!(out.status.success(), "cargo nextest list {partition:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let list: TestList = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("cargo nextest list printed no test list ({e}):\n{}", String::from_utf8_lossy(&out.stdout))
    });
    list.rust_suites
        .into_iter()
        .flat_map(|(suite, s)| {
            s.testcases
                .into_iter()
                .filter(|(_, c)| c.filter_match.status == "matches")
                .map(move |(t, _)| format!("{suite} {t}"))
        })
        .collect()
}

#[test]
fn two_hash_partitions_are_disjoint_and_together_the_whole_suite() {
    if !nextest_installed() {
        println!(
            "skipped: cargo-nextest is not installed (ci/setup installs it: cargo install --locked cargo-nextest)"
        );
        return;
    }
    let whole = listed(None);
    let one = listed(Some("hash:1/2"));
    let two = listed(Some("hash:2/2"));
    assert!(whole.len() > 100, "the whole suite has {} tests; expected the repository's suite", whole.len());
    assert!(!one.is_empty() && !two.is_empty(), "a shard is empty: {} and {}", one.len(), two.len());
    let both: Vec<_> = one.intersection(&two).collect();
    assert!(both.is_empty(), "tests in both shards: {both:?}");
    let union: BTreeSet<String> = one.union(&two).cloned().collect();
    let missing: Vec<_> = whole.difference(&union).collect();
    let extra: Vec<_> = union.difference(&whole).collect();
    assert!(missing.is_empty() && extra.is_empty(), "shards miss {missing:?}, add {extra:?}");
    // The test itself is one of them.
    assert!(whole.iter().any(|t| t.ends_with("two_hash_partitions_are_disjoint_and_together_the_whole_suite")));
}
