//! `attention-harness contract …`: the contract tools from the command line, for QA and CI.
//!
//! - `validate FILE [--now RFC3339] [--session-id ID]`: one JSON line, `{"ok":true}` or
//!   `{"ok":false,"code":…,"path":…,"attachment_id":…}`; exit 0 accepted, 1 rejected.
//! - `encode --envelope-version 2|3|4 FILE`: a v1 payload or v1 envelope (or a one-element array of it)
//!   to the compact envelope (same shape as the input's envelope/array).
//! - `expand FILE`: a compact envelope or payload back to the v1 payload.
//! - `project FILE`: the model projection of an envelope (or a v1 payload).
//!
//! FILE may be `-` for stdin. Usage, I/O and unparseable input exit 2 with a message on stderr.

use super::canonical::canonical_json;
use super::lua::Timestamp;
use super::{codec, projection, validate};
use crate::attention::Envelope;
use crate::stdout;
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum ContractCommand {
    /// Validate a context_attachments array (or a session_message, or its `data`, holding one).
    Validate {
        /// JSON file, or `-` for stdin.
        file: PathBuf,
        /// Clock for expiry checks (RFC 3339); default: now.
        #[arg(long)]
        now: Option<String>,
        /// Session id visual attachments must be authorized for.
        #[arg(long = "session-id")]
        session_id: Option<String>,
    },
    /// Encode a v1 snapshot (payload or envelope) as a compact v2, v3 or v4 envelope.
    Encode {
        /// The compact version to write: 2, 3 or 4.
        #[arg(long = "envelope-version", value_name = "2-4", value_parser = clap::value_parser!(u64).range(2..=4))]
        version: u64,
        /// JSON file, or `-` for stdin.
        file: PathBuf,
    },
    /// Expand a compact envelope (or payload) back to the v1 payload.
    Expand {
        /// JSON file, or `-` for stdin.
        file: PathBuf,
    },
    /// Print the model projection of an envelope.
    Project {
        /// JSON file, or `-` for stdin.
        file: PathBuf,
    },
}

fn read_json(file: &PathBuf) -> Result<Value, String> {
    let mut text = String::new();
    if file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read stdin: {e}"))?;
    } else {
        text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    }
    super::json::parse(&text).map_err(|e| format!("{} is not JSON: {e}", file.display()))
}

fn usage(msg: impl std::fmt::Display) -> i32 {
    eprintln!("attention-harness contract: {msg}");
    2
}

fn print(v: &Value) {
    stdout::line(canonical_json(v).unwrap_or_else(|_| v.to_string()));
}

/// Unwrap `[envelope]` to the envelope; tells whether the input was an array.
fn single(v: Value) -> (Value, bool) {
    match v {
        Value::Array(mut a) if a.len() == 1 => (a.remove(0), true),
        other => (other, false),
    }
}

fn is_envelope(v: &Value) -> bool {
    v.get("content").is_some_and(Value::is_string) && v.get("kind").is_some()
}

/// Run one contract command; returns the process exit code.
pub fn run(cmd: &ContractCommand) -> i32 {
    match cmd {
        ContractCommand::Validate { file, now, session_id } => {
            let input = match read_json(file) {
                Ok(v) => v,
                Err(e) => return usage(e),
            };
            let now = match now.as_deref().map(|s| Timestamp::parse_rfc3339(s).ok_or(s)) {
                None => None,
                Some(Ok(t)) => Some(t),
                Some(Err(s)) => {
                    return usage(format!("--now “{s}” is not an RFC 3339 timestamp (e.g. 2026-01-31T12:00:00Z)"))
                }
            };
            // Accept the array itself, `data` of a session_message, or the whole message.
            let attachments = match (input.get("context_attachments"), input.pointer("/data/context_attachments")) {
                (Some(a), _) if input.is_object() => a.clone(),
                (None, Some(a)) => a.clone(),
                _ => input,
            };
            let opts = validate::ValidateOptions { now, session_id: session_id.clone(), ..Default::default() };
            match validate::validate(&attachments, &opts) {
                Ok(_) => {
                    stdout::line(json!({"ok": true}));
                    0
                }
                Err(e) => {
                    stdout::line(rejection_line(&e));
                    1
                }
            }
        }
        ContractCommand::Encode { version, file } => match read_json(file).and_then(|v| encode_input(v, *version)) {
            Ok(out) => {
                print(&out);
                0
            }
            Err(e) => usage(e),
        },
        ContractCommand::Expand { file } => match read_json(file).and_then(expand_input) {
            Ok(v1) => {
                print(&v1);
                0
            }
            Err(e) => usage(e),
        },
        ContractCommand::Project { file } => {
            let (input, _) = match read_json(file) {
                Ok(v) => single(v),
                Err(e) => return usage(e),
            };
            let result = if is_envelope(&input) {
                projection::project_envelope(&input, projection::DEFAULT_RENDER_BUDGET)
            } else {
                projection::project(&input, 1, projection::DEFAULT_RENDER_BUDGET)
            };
            match result {
                Ok(p) => {
                    print(&p);
                    0
                }
                Err(e) => usage(e),
            }
        }
    }
}

fn verified_payload(input: Value) -> Result<(Value, Option<Envelope>), String> {
    if !is_envelope(&input) {
        return Ok((input, None));
    }
    let env: Envelope = serde_json::from_value(input).map_err(|e| format!("not an envelope: {e}"))?;
    let payload = env.verify().map_err(|e| format!("envelope does not verify ({}): {e}", e.code()))?;
    Ok((payload, Some(env)))
}

/// `encode`: a v1 payload or envelope (or a one-element array of it) to the compact envelope,
/// keeping the input's attachment id, timestamps and array shape.
pub fn encode_input(input: Value, version: u64) -> Result<Value, String> {
    let (input, was_array) = single(input);
    let (payload, template) = verified_payload(input)?;
    let compact = codec::encode(&payload, version).map_err(|e| e.to_string())?;
    let id = template.as_ref().map_or("attachment-1".to_string(), |t| t.attachment_id.clone());
    let created = template
        .as_ref()
        .map(|t| t.created_at.clone())
        .or_else(|| payload.get("created_at").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default();
    let mut env =
        Envelope::seal(id, crate::attention::ATTENTION_KIND, version, created, &compact).map_err(|e| e.to_string())?;
    env.expires_at = template.and_then(|t| t.expires_at);
    let out = serde_json::to_value(&env).map_err(|e| e.to_string())?;
    Ok(if was_array { json!([out]) } else { out })
}

/// `expand`: a compact envelope or payload (or a one-element array) to the v1 payload.
pub fn expand_input(input: Value) -> Result<Value, String> {
    let (payload, _) = verified_payload(single(input).0)?;
    let payload = super::canonical::strip_null_members(&payload);
    let version = codec::schema_version(&payload).ok_or("payload has no wippy.attention.v<N> schema")?;
    codec::expand(version, &payload, None).map(|(v, _)| v).map_err(|e| format!("expansion failed: {e}"))
}

/// The one-line rejection report, members in the documented order
/// (`ok`, `code`, `path`, `attachment_id`; the id only when the Session reports one).
pub fn rejection_line(e: &validate::ValidationError) -> String {
    let q = |s: &str| serde_json::to_string(s).expect("string");
    let mut line = format!("{{\"ok\":false,\"code\":{},\"path\":{}", q(&e.code.as_str()), q(&e.path));
    if let Some(id) = &e.attachment_id {
        line.push_str(&format!(",\"attachment_id\":{}", q(id)));
    }
    line.push('}');
    line
}
