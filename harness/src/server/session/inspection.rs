//! The broker's rules for a private inspection request (`ui_actions::Mode::Inspect`; relay.md
//! Part 2 "UI action protocol"): the query's shape and size, the read capacity, the scope's Host,
//! the expiry, and what an `inspected` result must be to be accepted ([`accept_inspection`]). The
//! broker applies them; the Session's read tools (`reads`) send through the broker and rely on them.

use serde::Serialize;
use serde_json::Value;

use crate::contract::attention_v1::is_action_ref;
use crate::contract::canonical::canonical_json;
use crate::contract::lua::{get, is_integer, is_string, MAX_SAFE_INTEGER};
use crate::contract::model_read::{is_node_ref, OUTCOMES};

/// relay.md: `expires_at = now + 2 s` for inspect.
pub const INSPECT_EXPIRY_MS: i64 = 2000;
pub const MAX_PENDING_PER_SESSION: usize = 16;
pub const MAX_PENDING_OVERALL: usize = 128;
/// The inspect query: at most 16,384 canonical bytes and 2,048 nodes (JSON values).
pub const MAX_QUERY_BYTES: usize = 16_384;
pub const MAX_QUERY_NODES: usize = 2048;
pub const MAX_INSPECTION_BYTES: usize = 98_304;
pub const MAX_TARGETS: usize = 32;
pub const MAX_OMISSIONS: usize = 256;
pub const REASON_CAPACITY: &str = "read capacity reached";
pub const REASON_SCOPE_HOST: &str = "inspection scope is on another Host";
pub const OPERATIONS: [&str; 7] = ["cursor", "focus", "selection", "point", "tree", "find", "geometry"];
pub const QUERY_ARG_KEYS: [&str; 10] =
    ["x", "y", "coordinate_space", "radius_css_px", "step_css_px", "query", "limit", "depth", "continuation", "node"];

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count_nodes).sum(),
        Value::Object(m) => m.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// The broker's check of an inspect query (relay.md "Inspect arguments"); `Err` is the reason of
/// the `unavailable` result.
pub fn validate_query(q: &Value) -> Result<(), &'static str> {
    let v = Some(q);
    let op = get(v, "operation").and_then(Value::as_str);
    let scope = get(v, "scope");
    let shape = matches!(q, Value::Object(m) if m.keys().all(|k| ["operation", "scope", "args"].contains(&k.as_str())))
        && op.is_some_and(|o| OPERATIONS.contains(&o))
        && matches!(scope, Some(Value::Object(m)) if m.keys().all(|k| k == "fromRoot" || k == "node"))
        && get(scope, "fromRoot") == Some(&Value::Bool(true))
        && (get(scope, "node").is_none() || is_node_ref(get(scope, "node")))
        && matches!(get(v, "args"), Some(Value::Object(a)) if a.keys().all(|k| QUERY_ARG_KEYS.contains(&k.as_str())));
    if !shape {
        return Err("inspection query is invalid");
    }
    let bytes = canonical_json(q).map(|s| s.len()).unwrap_or(usize::MAX);
    if bytes > MAX_QUERY_BYTES || count_nodes(q) > MAX_QUERY_NODES {
        return Err("inspection query is too large");
    }
    Ok(())
}

/// The read concurrency limits, given the pending reads of this session and of all.
pub fn capacity_refusal(session_pending: usize, all_pending: usize) -> Option<&'static str> {
    (session_pending >= MAX_PENDING_PER_SESSION || all_pending >= MAX_PENDING_OVERALL).then_some(REASON_CAPACITY)
}

/// relay.md: `scope.node` is a NodeRef **on the bound host**.
pub fn scope_host_refusal(q: &Value, host: &str) -> Option<&'static str> {
    match q["scope"].get("node") {
        Some(n) if n["host_instance_id"] != host => Some(REASON_SCOPE_HOST),
        _ => None,
    }
}

/// Why the broker refused an `inspected` result (the reason of the `error` it becomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum InspectionRefusal {
    #[error("inspection-invalid")]
    Invalid,
    #[error("inspection-too-large")]
    TooLarge,
    #[error("inspection-outcome-unknown")]
    OutcomeUnknown,
    #[error("inspection-revisions-invalid")]
    RevisionsInvalid,
    #[error("inspection-host-mismatch")]
    HostMismatch,
    #[error("inspection-request-mismatch")]
    RequestMismatch,
    #[error("inspection-omissions-invalid")]
    OmissionsInvalid,
    #[error("inspection-targets-invalid")]
    TargetsInvalid,
    #[error("inspection-target-other-host")]
    TargetOtherHost,
}

impl InspectionRefusal {
    pub fn as_str(self) -> &'static str {
        match self {
            InspectionRefusal::Invalid => "inspection-invalid",
            InspectionRefusal::TooLarge => "inspection-too-large",
            InspectionRefusal::OutcomeUnknown => "inspection-outcome-unknown",
            InspectionRefusal::RevisionsInvalid => "inspection-revisions-invalid",
            InspectionRefusal::HostMismatch => "inspection-host-mismatch",
            InspectionRefusal::RequestMismatch => "inspection-request-mismatch",
            InspectionRefusal::OmissionsInvalid => "inspection-omissions-invalid",
            InspectionRefusal::TargetsInvalid => "inspection-targets-invalid",
            InspectionRefusal::TargetOtherHost => "inspection-target-other-host",
        }
    }
}

/// relay.md "`inspected` requires `inspection` and `targets`": `inspection = {request_id 1..256,
/// host_instance_id (= the result's host), measured_at, revisions {tree, observation, geometry}
/// (ints >= 0), outcome, data, omissions (<= 256 of {reason 1..64, node?}), continuation?
/// 1..160}` of at most 98,304 canonical bytes; `targets` at most 32 target refs on the same host.
pub fn accept_inspection(result: &Value, host: &str) -> Result<(), InspectionRefusal> {
    use InspectionRefusal::*;
    let i = &result["inspection"];
    let v = Some(i);
    let keys =
        ["request_id", "host_instance_id", "measured_at", "revisions", "outcome", "data", "omissions", "continuation"];
    if !matches!(i, Value::Object(m) if m.keys().all(|k| keys.contains(&k.as_str())))
        || !matches!(get(v, "data"), Some(Value::Object(_)))
        || !crate::contract::lua::is_timestamp(get(v, "measured_at"))
        || !(get(v, "continuation").is_none() || is_string(get(v, "continuation"), 160, false))
    {
        return Err(Invalid);
    }
    if canonical_json(i).map(|s| s.len()).unwrap_or(usize::MAX) > MAX_INSPECTION_BYTES {
        return Err(TooLarge);
    }
    if !get(v, "outcome").and_then(Value::as_str).is_some_and(|o| OUTCOMES.contains(&o)) {
        return Err(OutcomeUnknown);
    }
    let revs = get(v, "revisions");
    let rev_ok = matches!(revs, Some(Value::Object(m)) if m.len() == 3)
        && ["tree", "observation", "geometry"].iter().all(|k| is_integer(get(revs, k), 0.0, MAX_SAFE_INTEGER));
    if !rev_ok {
        return Err(RevisionsInvalid);
    }
    if i["host_instance_id"] != host || result["host_instance_id"] != host {
        return Err(HostMismatch);
    }
    if !is_string(get(v, "request_id"), 256, false) || i["request_id"] != result["request_id"] {
        return Err(RequestMismatch);
    }
    let omissions = get(v, "omissions").and_then(Value::as_array);
    let omissions_ok = omissions.is_some_and(|o| {
        o.len() <= MAX_OMISSIONS
            && o.iter().all(|x| {
                is_string(get(Some(x), "reason"), 64, false)
                    && (get(Some(x), "node").is_none() || is_node_ref(get(Some(x), "node")))
            })
    });
    if !omissions_ok {
        return Err(OmissionsInvalid);
    }
    let targets = result["targets"].as_array().ok_or(TargetsInvalid)?;
    if targets.len() > MAX_TARGETS || !targets.iter().all(|t| is_action_ref(Some(t))) {
        return Err(TargetsInvalid);
    }
    if targets.iter().any(|t| t["host_instance_id"] != host) {
        return Err(TargetOtherHost);
    }
    Ok(())
}
