//! `inspect`'s answer for people: the runtime's inspection result as an outline, one node a line,
//! indented by its depth in the answer (a node whose `parent` row is listed sits one level below
//! it), reading `role “name” <tag> in REALM at x,y wxh  #node_id`; then the outcome, the omissions and
//! whether a continuation follows. Built only from what each row says (its `parent`, `path`,
//! `summary`, `layout`), so it follows the rows the runtime lists, whatever they pass through.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::attention::inspect::{GeometryData, HitData, InspectionResult, NodeKind, NodeRecord, NodesData};
use crate::attention::{Rect, SegmentKind};
use crate::report::text::{quote, role_name};

/// Which read the pages answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// find, css, tree, node: `data.nodes`.
    Nodes,
    Geometry,
    Hit,
}

fn rect(r: &Rect) -> String {
    let n = crate::report::text::num;
    format!("{},{} {}x{}", n(r.x), n(r.y), n(r.width), n(r.height))
}

/// The realm a row's path ends in: the innermost iframe or Web Fragment on it, else the Host.
fn realm(n: &NodeRecord) -> String {
    let inner = n.path.iter().rev().find(|s| matches!(s.kind, SegmentKind::Iframe | SegmentKind::WebFragment));
    match inner {
        None => "host".into(),
        Some(s) => {
            let what = if s.kind == SegmentKind::Iframe { "iframe" } else { "fragment" };
            let label = s.label.as_deref().or(s.frame_origin.as_deref()).unwrap_or(s.mount_id.as_str());
            format!("{what} {}", quote(label))
        }
    }
}

/// One row: `role “name” <tag> in REALM at x,y wxh  #node_id`.
pub fn row(n: &NodeRecord) -> String {
    let tag = n.path.last().and_then(|s| s.tag_name.as_deref());
    let role = n.summary.role.as_deref().filter(|r| !r.is_empty());
    let kind = match n.kind {
        Some(NodeKind::Document) => Some("document"),
        Some(NodeKind::ShadowRoot) => Some("shadow-root"),
        Some(NodeKind::Text) => Some("text"),
        _ => None,
    };
    let mut t = match (role, kind) {
        (None, Some(k)) => k.to_string(),
        _ => role_name(role, n.summary.name.as_deref().filter(|s| !s.is_empty())),
    };
    if let Some(tag) = tag {
        let _ = write!(t, " <{}>", tag.to_ascii_lowercase());
    }
    let _ = write!(t, " in {}", realm(n));
    if let Some(l) = &n.layout {
        let _ = write!(t, " at {}", rect(&l.rect));
        if !l.visible {
            t.push_str(" (not visible)");
        }
    }
    let _ = write!(t, "  #{}", n.node_ref.node_id);
    t
}

/// The nodes of every page, indented by depth: 0 for a node whose parent is not listed before it,
/// else its parent's depth + 1.
pub fn nodes(records: &[&NodeRecord]) -> String {
    let mut depth: HashMap<&str, usize> = HashMap::new();
    let mut t = String::new();
    for n in records {
        let d = n.parent.as_ref().and_then(|p| depth.get(p.node_id.as_str())).map_or(0, |d| d + 1);
        depth.insert(n.node_ref.node_id.as_str(), d);
        let _ = writeln!(t, "{}{}", "  ".repeat(d), row(n));
    }
    t
}

/// The closing lines of a page: its outcome, omissions and continuation.
fn tail<D>(r: &InspectionResult<D>, count: usize, last: bool, following: bool) -> String {
    let mut t =
        format!("{}: {}", r.outcome.as_str(), if count == 1 { "1 node".into() } else { format!("{count} nodes") });
    if !r.omissions.is_empty() {
        let o: Vec<String> = r
            .omissions
            .iter()
            .map(|o| match &o.detail {
                Some(d) => format!("{} ({d})", o.reason),
                None => o.reason.clone(),
            })
            .collect();
        let _ = write!(t, "; omissions: {}", o.join(", "));
    }
    if last && r.continuation.is_some() {
        t.push_str(if following {
            "; a continuation follows that was not read"
        } else {
            "; more follows: --all reads every page"
        });
    }
    t.push('\n');
    t
}

/// The outline of a read's pages (one page without `--all`), as [`Shape`] says to read them.
pub fn outline(shape: Shape, pages: &[Value], following: bool) -> Result<String, String> {
    let bad = |e: serde_json::Error| format!("the runtime's answer is not an inspection result: {e}");
    let mut t = String::new();
    match shape {
        Shape::Nodes => {
            let parsed: Vec<InspectionResult<NodesData>> =
                pages.iter().map(|p| serde_json::from_value(p.clone())).collect::<Result<_, _>>().map_err(bad)?;
            let all: Vec<&NodeRecord> = parsed.iter().flat_map(|p| &p.data.nodes).collect();
            t.push_str(&nodes(&all));
            if let Some(last) = parsed.last() {
                let pages = if parsed.len() > 1 { format!("{} pages, ", parsed.len()) } else { String::new() };
                t.push_str(&pages);
                t.push_str(&tail(last, all.len(), true, following));
            }
        }
        Shape::Geometry => {
            for p in pages {
                let r: InspectionResult<GeometryData> = serde_json::from_value(p.clone()).map_err(bad)?;
                let all: Vec<&NodeRecord> = r.data.nodes.iter().collect();
                t.push_str(&nodes(&all));
                match &r.data.geometry {
                    Some(g) => {
                        let _ = writeln!(
                            t,
                            "geometry: {} ({}), {}{}{}",
                            rect(&g.rect),
                            g.quality,
                            if g.visible { "visible" } else { "not visible" },
                            g.clip
                                .as_ref()
                                .filter(|c| **c != g.rect)
                                .map(|c| format!(", clipped to {}", rect(c)))
                                .unwrap_or_default(),
                            if g.offscreen { ", offscreen" } else { "" }
                        );
                    }
                    None => t.push_str("geometry: none\n"),
                }
                t.push_str(&tail(&r, all.len(), true, following));
            }
        }
        Shape::Hit => {
            for p in pages {
                let r: InspectionResult<HitData> = serde_json::from_value(p.clone()).map_err(bad)?;
                if let Some(pt) = &r.data.point {
                    let _ = writeln!(t, "at {},{}:", crate::report::text::num(pt.x), crate::report::text::num(pt.y));
                }
                let all: Vec<&NodeRecord> = r.data.nodes.iter().collect();
                t.push_str(&nodes(&all));
                t.push_str(&tail(&r, all.len(), true, following));
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(id: &str, parent: Option<&str>, role: &str, name: &str, tag: &str) -> Value {
        let r = |id: &str| json!({"host_instance_id": "h", "node_id": id, "mount_id": "m", "generation": 1});
        json!({
            "ref": r(id), "parent": parent.map(r), "kind": "element", "state": null,
            "summary": {"role": role, "name": name}, "resource": null, "layout": null,
            "path": [{"kind": "host", "mount_id": "m", "generation": 1},
                     {"kind": "element", "mount_id": "m", "generation": 1, "tag_name": tag}],
        })
    }

    #[test]
    fn rows_are_indented_under_their_listed_parent_and_read_as_words() {
        let page = json!({
            "outcome": "ok", "omissions": [], "revisions": {"tree": 1, "observation": 1, "geometry": 1},
            "continuation": "c1",
            "data": {"nodes": [
                rec("a", None, "main", "Work", "MAIN"),
                rec("b", Some("a"), "button", "Send", "button"),
                rec("c", Some("zz"), "link", "", "a"),
            ]},
        });
        let t = outline(Shape::Nodes, &[page], false).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "main \u{201c}Work\u{201d} <main> in host  #a");
        assert_eq!(lines[1], "  button \u{201c}Send\u{201d} <button> in host  #b");
        assert_eq!(lines[2], "link (no name) <a> in host  #c", "a parent not listed: the row starts a level 0");
        assert_eq!(lines[3], "ok: 3 nodes; more follows: --all reads every page");
    }
}
