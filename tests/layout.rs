//! tests/ is folded into a few binaries (Cargo.toml `autotests = false`), so a test file that no
//! binary includes would silently never run. This proves every `tests/*.rs` file is a registered
//! binary or a module of one. The layering of harness/src is held here too ([`layering`]), and that
//! no message of harness/src formats in Rust's Debug form ([`check_details`]).

#[path = "layering.rs"]
mod layering;

#[path = "check_details.rs"]
mod check_details;

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn every_test_file_is_compiled_into_a_test_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut included = BTreeSet::new();
    for line in manifest.lines() {
        if let Some(path) = line.trim().strip_prefix("path = \"tests/") {
            let file = path.trim_end_matches('"').to_string();
            let body = std::fs::read_to_string(root.join("tests").join(&file)).unwrap();
            for l in body.lines() {
                if let Some(rest) = l.trim().strip_prefix("#[path = \"") {
                    included.insert(rest.trim_end_matches("\"]").to_string());
                }
            }
            included.insert(file);
        }
    }
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") && !included.contains(&name) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "test files that no test binary includes (add them to tests/browser.rs, tests/contract.rs or a [[test]] in Cargo.toml): {missing:?}");
}
