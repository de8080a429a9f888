//! What a scenario's `read` step did, for people and for a later `expect {read}`: the read's
//! status (`inspected`, `rejected`, or the terminal status it failed with), its outcome, its
//! refusal reason or omissions, the nodes it returned, and the compact result the model keeps
//! (the stored model.v1 result, or the refusal receipt). A read that ends other than `inspected`,
//! or `inspected` but invalid, fails its step unless a later `expect {read}` of the same read names
//! the status or reason it should end with.

use serde_json::Value;

use super::{ReadSpec, Step};
use crate::agent::{NodeView, ReadOutcome, ReadResult};
use crate::report::text;

/// The read's status as an `expect {read: {status}}` names it.
pub fn status(r: &ReadResult) -> String {
    match &r.outcome {
        ReadOutcome::Inspected(_) => "inspected".into(),
        ReadOutcome::Rejected { .. } => "rejected".into(),
        ReadOutcome::Failed { status, .. } => status.clone(),
    }
}

/// Why the read ended as it did, when it says: the refusal reason, the failure's reason, or the
/// result's own `reason`.
pub fn reason(r: &ReadResult) -> Option<String> {
    match &r.outcome {
        ReadOutcome::Inspected(m) => m.reason.clone(),
        ReadOutcome::Rejected { reason, .. } => Some(reason.as_str().to_string()),
        ReadOutcome::Failed { reason, .. } => reason.clone(),
    }
}

fn node_text(n: &NodeView) -> String {
    text::role_name(n.summary["role"].as_str(), n.summary["name"].as_str())
}

/// The nodes of the read as `role “name”`.
pub fn nodes(r: &ReadResult) -> Vec<String> {
    r.inspected().map(|m| m.node_views().iter().map(node_text).collect()).unwrap_or_default()
}

/// One line: `attention_find_semantic ended inspected, outcome ok: 1 node: button “Send”`, with the
/// reason and omissions when there are some.
pub fn summary(r: &ReadResult) -> String {
    let mut s = format!("{} ended {}", r.tool.name(), status(r));
    if let Some(m) = r.inspected() {
        s += &format!(", outcome {}", m.outcome);
        if m.invalid == Some(true) {
            s += " (invalid)";
        }
    }
    if let Some(why) = reason(r) {
        s += &format!(", reason {why}");
    }
    if let Some(m) = r.inspected() {
        let n = nodes(r);
        s += &format!(": {} node{}", n.len(), if n.len() == 1 { "" } else { "s" });
        if !n.is_empty() {
            s += &format!(": {}", n.join(", "));
        }
        if !m.omissions.is_empty() {
            let o: Vec<String> = m
                .omissions
                .iter()
                .map(|o| {
                    let reason = o["reason"].as_str().unwrap_or("unknown");
                    match o["detail"].as_str() {
                        Some(d) => format!("{reason} ({d})"),
                        None => reason.to_string(),
                    }
                })
                .collect();
            s += &format!("; omissions: {}", o.join(", "));
        }
        if m.continuation.is_some() {
            s += "; more with its continuation";
        }
    }
    s
}

/// The compact result the model keeps, as JSON on one line.
pub fn kept(r: &ReadResult) -> String {
    let v = match &r.outcome {
        ReadOutcome::Inspected(m) => serde_json::to_value(m).unwrap_or(Value::Null),
        ReadOutcome::Rejected { receipt, .. } => receipt.clone(),
        ReadOutcome::Failed { status, reason } => serde_json::json!({"status": status, "reason": reason}),
    };
    v.to_string()
}

/// The step's detail: the summary, then the kept result on a line of its own.
pub fn detail(r: &ReadResult) -> String {
    format!("{}\nthe model keeps: {}", summary(r), kept(r))
}

/// Whether the read ended as a read should: `inspected` and not invalid. `Err` says how it ended.
pub fn ended_well(r: &ReadResult) -> Result<(), String> {
    match r.inspected() {
        Some(m) if m.invalid != Some(true) && m.outcome != "invalid" => Ok(()),
        _ => Err(summary(r)),
    }
}

/// Whether a later `expect {read}` (before the next `read`) names how the read at `index` should
/// end (its status or reason): then that expectation judges it, and the read step does not fail.
pub fn end_expected(steps: &[Step], index: usize) -> bool {
    steps
        .iter()
        .skip(index + 1)
        .take_while(|s| !matches!(s, Step::Read { .. }))
        .any(|s| matches!(s, Step::Expect { read: Some(spec), .. } if spec.status.is_some() || spec.reason.is_some()))
}

/// Checks an `expect {read}` against the last read: `Ok(what held)` or what was expected and found.
pub fn holds(spec: &ReadSpec, r: &ReadResult) -> Result<String, String> {
    let found = summary(r);
    if let Some(want) = &spec.status {
        if want != &status(r) {
            return Err(format!("expected the read to end {want}, found: {found}"));
        }
    }
    if let Some(want) = &spec.reason {
        if reason(r).as_deref() != Some(want.as_str()) {
            return Err(format!("expected the reason {want}, found: {found}"));
        }
    }
    if let Some(want) = &spec.outcome {
        if r.inspected().map(|m| m.outcome.as_str()) != Some(want.as_str()) {
            return Err(format!("expected the outcome {want}, found: {found}"));
        }
    }
    if let Some(node) = &spec.node {
        let like = |n: &NodeView| {
            node.role.as_ref().is_none_or(|x| n.summary["role"].as_str() == Some(x))
                && node.name.as_ref().is_none_or(|x| n.summary["name"].as_str() == Some(x))
        };
        if !r.inspected().is_some_and(|m| m.node_views().iter().any(like)) {
            let want = text::wanted(node.role.as_deref(), node.name.as_deref());
            return Err(format!("expected a node {want}, found: {found}"));
        }
    }
    Ok(found)
}
