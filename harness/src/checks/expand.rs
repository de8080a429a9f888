//! Reading an envelope the runtime sent or the Session stored, as the Session reads it: content
//! verified (size, hash, canonical form), versions 2-4 expanded by the project's own codec
//! (`contract::codec`), the result parsed as the strict snapshot model. Shared by the checks that
//! compare what was sent or stored with what the runtime produced (`envelope_v4`, `session`,
//! `capture`).

use anyhow::{anyhow, ensure, Context};
use serde_json::{json, Value};

use crate::attention::{Envelope, Reported, Snapshot};
use crate::contract::codec;

/// The v1 payload (with a v4 reconstruction's `selection`) an envelope carries: its content
/// verified (size, hash, canonical form), versions 2-4 expanded by `contract::codec`.
pub fn expand_envelope(env: &Envelope) -> anyhow::Result<Value> {
    let payload = env.verify().map_err(|e| anyhow!("the envelope does not verify: {e} ({})", e.code()))?;
    match env.version {
        1 => Ok(payload),
        2..=4 => {
            let schema = format!("wippy.attention.v{}", env.version);
            ensure!(
                payload["schema"] == json!(schema),
                "a version {} envelope holds {}",
                env.version,
                payload["schema"]
            );
            codec::expand(env.version, &payload, None)
                .map(|(v, _)| v)
                .map_err(|e| anyhow!("contract::codec cannot expand the runtime's v{}: {e}", env.version))
        }
        v => Err(anyhow!("version {v} is not a wippy.attention version")),
    }
}

/// A stored or sent envelope (JSON) read strictly and expanded to a strict snapshot.
pub fn expanded_snapshot(envelope: &Value) -> anyhow::Result<(Reported<Envelope>, Reported<Snapshot>)> {
    let env: Reported<Envelope> = Reported::parse(envelope.clone()).context("not a strict envelope")?;
    let expanded = expand_envelope(&env)?;
    let snap = Reported::parse(expanded).context("the expanded content is not a strict snapshot")?;
    Ok((env, snap))
}
