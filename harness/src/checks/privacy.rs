//! Privacy probes: password, `exclude`, `redact` and the composer, in a child realm and in the Host
//! document. No canary text may reach a snapshot or its envelope, and the probes must really have
//! been sampled (Chromium's box model says where they are), so an absent canary means something.

use anyhow::{ensure, Context};
use serde_json::Value;

use super::{candidate_at, candidates, rect_of, snapshot_at};
use crate::host::Host;
use crate::oracle::BoxRect;

/// Every canary of the reference Host starts with this.
pub const CANARY: &str = "CANARY-";

struct ProbeGroup {
    centre: &'static str,
    password: &'static str,
    exclude: &'static str,
    redact: &'static str,
}

const GROUPS: [ProbeGroup; 2] = [
    ProbeGroup {
        centre: "privacy-probes",
        password: "probe-password",
        exclude: "probe-exclude",
        redact: "probe-redact",
    },
    ProbeGroup {
        centre: "host-privacy-probes",
        password: "host-probe-password",
        exclude: "host-probe-exclude",
        redact: "host-probe-redact",
    },
];

pub async fn canaries_absent(host: &Host) -> anyhow::Result<String> {
    let mut sampled = 0;
    for g in &GROUPS {
        let centre = host.landmark_rect(g.centre).await?.center();
        let snap = snapshot_at(host, centre.0, centre.1).await?;
        no_canary(host, &snap, g.centre).await?;
        for probe in [g.password, g.exclude, g.redact] {
            let truth = host.landmark_rect(probe).await?;
            ensure!(
                sampled_inside(&snap, &truth),
                "no sample point fell on {probe} {truth:?}: the probe proves nothing"
            );
            sampled += 1;
        }
        for probe in [g.password, g.exclude] {
            let truth = host.landmark_rect(probe).await?;
            ensure!(candidate_at(&snap, &truth).is_none(), "{probe} is excluded but appears as a candidate");
        }
        let redact = host.landmark_rect(g.redact).await?;
        let kept = candidate_at(&snap, &redact)
            .with_context(|| format!("{} keeps its geometry, but no candidate has its box {redact:?}", g.redact))?;
        for field in ["text", "name", "value"] {
            let v = kept["summary"][field].as_str().unwrap_or("");
            ensure!(v.is_empty(), "{} is redacted but its summary has {field} {v:?}", g.redact);
        }
        let reasons: Vec<&str> =
            snap["omissions"].as_array().into_iter().flatten().filter_map(|o| o["reason"].as_str()).collect();
        ensure!(
            reasons.contains(&"excluded"),
            "{}: no `excluded` omission records the excluded probes (omissions: {reasons:?})",
            g.centre
        );
    }

    let composer = host.landmark_rect("composer").await?;
    let input = host.landmark_rect("composer-input").await?.center();
    let snap = snapshot_at(host, input.0, input.1).await?;
    no_canary(host, &snap, "composer").await?;
    for c in candidates(&snap) {
        if let Some(r) = rect_of(&c["rect"]) {
            let inside = r.x >= composer.x
                && r.right() <= composer.right()
                && r.y >= composer.y
                && r.y + r.height <= composer.y + composer.height;
            ensure!(!inside, "a candidate inside the composer: {}", c["rect"]);
        }
    }
    Ok(format!("{sampled} probes sampled, composer excluded, no canary"))
}

pub(crate) fn sampled_inside(snap: &Value, r: &BoxRect) -> bool {
    snap["capture"]["points"].as_array().into_iter().flatten().any(|p| {
        let (x, y) = (p["x"].as_f64().unwrap_or(f64::NAN), p["y"].as_f64().unwrap_or(f64::NAN));
        x >= r.x && x < r.right() && y >= r.y && y < r.y + r.height
    })
}

async fn no_canary(host: &Host, snap: &Value, at: &str) -> anyhow::Result<()> {
    let envelope = host.envelope(snap).await?;
    for (what, text) in [("snapshot", snap.to_string()), ("envelope", envelope.to_string())] {
        if let Some(i) = text.find(CANARY) {
            let end = (i + 40).min(text.len());
            anyhow::bail!("canary in the {what} near {at}: ...{}...", &text[i..end]);
        }
    }
    Ok(())
}

/// `privacy.text: "none"` keeps geometry and structure and drops every collected text: at the
/// boundary and at the Host's probes, after a trusted click on the left leaf (so there is a
/// focus too), the same snapshot point taken with and without the option has the same candidates
/// with the same rects, paths and roles, while no summary (candidates, focus) has a name, text or
/// value — and the safe snapshot did have names there, so the check can fail.
pub async fn text_none_keeps_geometry_without_text(host: &Host) -> anyhow::Result<String> {
    let (bx, by, left, _) = super::sampling::boundary_point(host).await?;
    host.click_at(left.center().0, left.center().1).await?;
    let mut compared = 0;
    for (x, y) in [(bx, by), host.landmark_rect("host-privacy-probes").await?.center()] {
        snapshot_at(host, x, y).await?; // the latest pointer is there for both snapshots
        let point = serde_json::json!({"point": {"x": x, "y": y}});
        let safe = host.snapshot_with(point.clone()).await?;
        let mut none_opts = point;
        none_opts["privacy"] = serde_json::json!({"text": "none"});
        let none = host.snapshot_with(none_opts).await?;
        super::require_valid_payload(&none)?;
        let shape = |s: &Value| -> Vec<(String, String, String)> {
            let mut v: Vec<_> = candidates(s)
                .iter()
                .map(|c| (c["rect"].to_string(), c["path"].to_string(), c["summary"]["role"].to_string()))
                .collect();
            v.sort();
            v
        };
        ensure!(
            shape(&safe) == shape(&none),
            "privacy.text none changed the candidates' geometry or structure at ({x}, {y})"
        );
        ensure!(
            candidates(&safe).iter().any(|c| c["summary"].get("name").is_some()),
            "the safe snapshot at ({x}, {y}) has no name either: the comparison proves nothing"
        );
        let summaries = candidates(&none).iter().map(|c| &c["summary"]).chain(none.get("focus").map(|f| &f["summary"]));
        for s in summaries {
            for k in ["name", "text", "value"] {
                ensure!(s.get(k).is_none(), "privacy.text none still carries summary.{k} = {} at ({x}, {y})", s[k]);
            }
        }
        compared += candidates(&none).len();
    }
    Ok(format!("{compared} candidates kept with geometry and roles and without any text"))
}
