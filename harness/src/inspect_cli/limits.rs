//! The runtime's inspection limits as the CLI's help states them, read from the one place they are
//! defined: the `INSPECT` table of `pages/runtime/src/core/constants.js`, compiled into the binary,
//! so `inspect --help` says the runtime's own numbers and cannot drift from them.

use std::sync::LazyLock;

/// The runtime's constants module, as built into this binary.
const CONSTANTS_JS: &str = include_str!("../../../pages/runtime/src/core/constants.js");

/// The numbers of the runtime's `INSPECT` table the CLI's options are bounded by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InspectLimits {
    /// Matches per find page (the default and the largest `--limit` of find and css).
    pub find_max: u64,
    /// Nodes per getTree page (the default and the largest `--limit` of tree).
    pub tree_max: u64,
    /// Levels below the root a tree read reaches without `--depth`.
    pub depth_default: u64,
    pub depth_max: u64,
    /// The largest `--radius` and `--step` of a hit test, CSS px.
    pub radius_max: u64,
    pub step_max: u64,
}

/// `key: <integer>` inside `export const INSPECT = Object.freeze({ ... })`.
fn value(body: &str, key: &str) -> Option<u64> {
    body.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        rest.trim().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    })
}

/// Reads the table from `source` (the constants module's text).
pub fn parse(source: &str) -> Option<InspectLimits> {
    let start = source.find("export const INSPECT = Object.freeze({")?;
    let body = &source[start..];
    let body = &body[..body.find("});")?];
    Some(InspectLimits {
        find_max: value(body, "findMax")?,
        tree_max: value(body, "treeMax")?,
        depth_default: value(body, "depthDefault")?,
        depth_max: value(body, "depthMax")?,
        radius_max: value(body, "radiusMax")?,
        step_max: value(body, "stepMax")?,
    })
}

/// The limits of the runtime this binary was built with.
pub fn limits() -> InspectLimits {
    static LIMITS: LazyLock<InspectLimits> = LazyLock::new(|| {
        parse(CONSTANTS_JS).expect("pages/runtime/src/core/constants.js has its INSPECT table (checked by a unit test)")
    });
    *LIMITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtimes_inspect_table_is_read_from_its_constants_module() {
        let l = parse(CONSTANTS_JS).expect("the INSPECT table");
        // The numbers the spec's reads are built on (schemas.md §8): a find page of 8, a tree page of
        // 32, depth 2 by default and at most 32, radius and step at most 100 CSS px.
        assert_eq!(
            l,
            InspectLimits {
                find_max: 8,
                tree_max: 32,
                depth_default: 2,
                depth_max: 32,
                radius_max: 100,
                step_max: 100
            }
        );
        assert_eq!(
            parse("export const INSPECT = Object.freeze({\n  findMax: 8,\n});"),
            None,
            "a missing key is no table"
        );
    }
}
