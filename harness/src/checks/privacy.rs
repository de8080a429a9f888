//! Privacy probes: password, `exclude`, `redact` and the composer, in a child realm and in the Host
//! document. No canary text may reach a snapshot or its envelope, and the probes must really have
//! been sampled (Chromium's box model says where they are), so an absent canary means something.

use anyhow::{ensure, Context};

use super::{box_of, candidate_at, candidates, show_rect, snapshot_at};
use crate::attention::{OmissionReason, Reported, Snapshot};
use crate::host::Host;
use crate::oracle::BoxRect;
use crate::report::text;

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
            ensure!(sampled_inside(&snap, &truth), "no sample point fell on {probe} {truth}: the probe proves nothing");
            sampled += 1;
        }
        for probe in [g.password, g.exclude] {
            let truth = host.landmark_rect(probe).await?;
            ensure!(candidate_at(&snap, &truth).is_none(), "{probe} is excluded but appears as a candidate");
        }
        let redact = host.landmark_rect(g.redact).await?;
        let kept = candidate_at(&snap, &redact)
            .with_context(|| format!("{} keeps its geometry, but no candidate has its box {redact}", g.redact))?;
        for (field, v) in [("text", &kept.summary.text), ("name", &kept.summary.name), ("value", &kept.summary.value)] {
            let v = v.as_deref().unwrap_or("");
            ensure!(v.is_empty(), "{} is redacted but its summary has {field} {}", g.redact, text::quote(v));
        }
        let reasons: Vec<OmissionReason> = snap.omissions.iter().map(|o| o.reason).collect();
        ensure!(
            reasons.contains(&OmissionReason::Excluded),
            "{}: no `excluded` omission records the excluded probes (omissions: {})",
            g.centre,
            text::list_of(&reasons)
        );
    }

    let composer = host.landmark_rect("composer").await?;
    let input = host.landmark_rect("composer-input").await?.center();
    let snap = snapshot_at(host, input.0, input.1).await?;
    no_canary(host, &snap, "composer").await?;
    for c in candidates(&snap) {
        let r = box_of(&c.rect);
        let inside = r.x >= composer.x
            && r.right() <= composer.right()
            && r.y >= composer.y
            && r.y + r.height <= composer.y + composer.height;
        ensure!(!inside, "a candidate inside the composer: {}", show_rect(&c.rect));
    }
    Ok(format!("{sampled} probes sampled, composer excluded, no canary"))
}

pub(crate) fn sampled_inside(snap: &Snapshot, r: &BoxRect) -> bool {
    snap.capture.points.iter().any(|p| {
        let (x, y) = (p.x, p.y);
        x >= r.x && x < r.right() && y >= r.y && y < r.y + r.height
    })
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Scans the JSON the runtime returned (snapshot and envelope), not a re-serialization.
async fn no_canary(host: &Host, snap: &Reported<Snapshot>, at: &str) -> anyhow::Result<()> {
    let envelope = host.envelope(snap).await?;
    for (what, text) in [("snapshot", snap.json().to_string()), ("envelope", envelope.json().to_string())] {
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
        super::require_valid_payload(none.json())?;
        let shape = |s: &Snapshot| -> Vec<(String, String, String)> {
            let mut v: Vec<_> =
                candidates(s).iter().map(|c| (to_json(&c.rect), to_json(&c.path), to_json(&c.summary.role))).collect();
            v.sort();
            v
        };
        ensure!(
            shape(&safe) == shape(&none),
            "privacy.text none changed the candidates' geometry or structure at ({x}, {y})"
        );
        ensure!(
            candidates(&safe).iter().any(|c| c.summary.name.is_some()),
            "the safe snapshot at ({x}, {y}) has no name either: the comparison proves nothing"
        );
        // `None` is "left out": a snapshot with a `null` member does not parse (`Reported::parse`).
        let summaries = candidates(&none).iter().map(|c| &c.summary).chain(none.focus.as_ref().map(|f| &f.summary));
        for s in summaries {
            for (k, v) in [("name", &s.name), ("text", &s.text), ("value", &s.value)] {
                ensure!(
                    v.is_none(),
                    "privacy.text none still carries summary.{k} = {} at ({x}, {y})",
                    text::quote_opt(v.as_ref())
                );
            }
        }
        compared += candidates(&none).len();
    }
    Ok(format!("{compared} candidates kept with geometry and roles and without any text"))
}
