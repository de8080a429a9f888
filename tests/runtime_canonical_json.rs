//! The runtime's canonical JSON (pages/runtime) produces exactly the bytes the Session computes
//! (harness/src/json/canonical.rs): HTML escaping, U+2028/2029, non-BMP text, key order by
//! UTF-8 bytes, Go float formatting, dropped nulls, `{}` as `[]`. Also the codecs round-trip live
//! snapshots of every layout and engine byte for byte.

use attention_harness::contract::canonical::canonical_json;
use attention_harness::contract::codec;
use attention_harness::{run_shared_host, Engine, Layout};
use rstest::rstest;
use serde_json::{json, Value};

fn vectors() -> Vec<Value> {
    vec![
        json!("a<b>c&d"),
        json!("line\u{2028}para\u{2029}end"),
        json!("emoji \u{1F600} and \u{10FFFF} and é"),
        json!("controls \u{0} \u{1f} \n \r \t \u{8} \u{c} \" \\ /"),
        json!({"z": 1, "é": 2, "Z": 3, "a": {"b": null, "c": []}, "e": {}}),
        json!([0.1, 1.5, -0.0, 3.0, 1e21, 1e-7, 123456789.125, -2.5e-8, 9007199254740991i64, -9007199254740991i64]),
        json!({"nested": [{"<": ">"}, [[]], {"k": [1, "x", true, false]}]}),
    ]
}

/// One cell: the runtime's canonicalJson is the same code in every realm, layout and engine (a pure
/// function of its argument, evaluated in the Host document); it reads the page not at all, so it
/// runs on the shared Host.
#[test]
fn runtime_canonical_json_matches_the_session_byte_for_byte() {
    run_shared_host(Layout::Compat, Engine::Iframe, async |h| {
        for v in vectors() {
            let rust = canonical_json(&v).map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let js = h.eval(&format!("window.wippyAttention.canonicalJson({v})")).await?;
            anyhow::ensure!(js.as_str() == Some(rust.as_str()), "for {v}:\n runtime {js}\n session {rust:?}");
        }
        Ok(())
    });
}

#[rstest]
fn encode_then_expand_round_trips_live_snapshots_byte_for_byte(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    // Read-only (a boundary move and a snapshot): the shared Host of the cell.
    run_shared_host(layout, engine, async |h| {
        let (x, y, _, _) = attention_harness::checks::sampling::boundary_point(h).await?;
        let snap = attention_harness::checks::snapshot_at(h, x, y).await?;
        // The codecs see the runtime's own JSON, not a re-serialization of the model.
        let original = canonical_json(snap.json()).map_err(|e| anyhow::anyhow!("{e:?}"))?;
        for version in [2u64, 3, 4] {
            let compact =
                codec::encode(snap.json(), version).map_err(|e| anyhow::anyhow!("encode v{version}: {e:?}"))?;
            let (expanded, _) =
                codec::expand(version, &compact, None).map_err(|e| anyhow::anyhow!("expand v{version}: {e:?}"))?;
            let back = canonical_json(&expanded).map_err(|e| anyhow::anyhow!("{e:?}"))?;
            anyhow::ensure!(back == original, "v{version} round trip changed the snapshot");
        }
        Ok(())
    });
}
