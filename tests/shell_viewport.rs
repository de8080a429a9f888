//! The reference Host's shells follow the browser's viewport (issue 40), as the real Host does: at a
//! narrow, a wide and a DPR 2 viewport every panel's rect, as Chromium's box model gives it, is where
//! the layout puts it in that viewport and lies inside it, and the runtime reports that same rect for
//! the panel a candidate under the pointer sits in. (At the default 1280x720 the goldens prove that
//! nothing moved.)

use attention_harness::checks::snapshot_at;
use attention_harness::{run_host_opts, Engine, HostOptions, Layout};

/// `(landmark, x, width)` of each column the shell lays out in a `w` px wide viewport, the full
/// height of it: managed's default.json (nav 180, main 1fr, tools 240, chat 320) and compat's fixed
/// chrome (nav 200, page area the rest, chat 360).
fn columns(layout: Layout, w: f64) -> Vec<(&'static str, f64, f64)> {
    match layout {
        Layout::Managed => vec![
            ("panel-nav", 0.0, 180.0),
            ("panel-main", 180.0, w - 740.0),
            ("panel-tools", w - 560.0, 240.0),
            ("panel-chat", w - 320.0, 320.0),
        ],
        Layout::Compat => vec![("page-area", 200.0, w - 560.0)],
    }
}

#[test]
fn every_panel_is_laid_out_to_the_viewport_and_agrees_with_chromium_at_three_viewports() {
    for (w, h, dpr) in [(800u32, 600u32, 1.0), (1920, 1080, 1.0), (1024, 768, 2.0)] {
        for layout in Layout::ALL {
            let options = HostOptions::new(layout, Engine::Iframe).viewport(w, h).device_scale_factor(dpr);
            run_host_opts(options, async |host| {
                let (vw, vh) = (f64::from(w), f64::from(h));
                for (landmark, x, width) in columns(layout, vw) {
                    let r = host.landmark_rect(landmark).await?;
                    let near = |a: f64, b: f64| (a - b).abs() <= 0.5;
                    anyhow::ensure!(
                        near(r.x, x) && near(r.width, width) && near(r.y, 0.0) && near(r.height, vh),
                        "{w}x{h}@{dpr} {layout}: {landmark} is {r:?} in Chromium's box model, not x {x} width {width} height {vh}"
                    );
                    anyhow::ensure!(
                        r.x >= 0.0 && r.y >= 0.0 && r.x + r.width <= vw + 0.5 && r.y + r.height <= vh + 0.5,
                        "{w}x{h}@{dpr} {layout}: {landmark} {r:?} is not inside the viewport"
                    );
                    // The runtime's panel segment for a candidate inside it is the same box.
                    let snap = snapshot_at(host, r.x + r.width / 2.0, r.y + 8.0).await?;
                    let id = landmark.strip_prefix("panel-").unwrap_or(landmark);
                    let seg = snap
                        .candidates
                        .iter()
                        .flat_map(|c| c.path.iter())
                        .find(|s| s.panel_id.as_deref() == Some(id))
                        .ok_or_else(|| anyhow::anyhow!("{landmark}: no candidate in panel {id}: {}", snap.json()))?;
                    let sr = seg.rect.as_ref().ok_or_else(|| anyhow::anyhow!("{landmark}: a panel without a rect"))?;
                    anyhow::ensure!(
                        near(sr.x, r.x) && near(sr.y, r.y) && near(sr.width, r.width) && near(sr.height, r.height),
                        "{w}x{h}@{dpr} {layout}: the runtime's {landmark} {sr:?} is not Chromium's {r:?}"
                    );
                }
                let chat = host.landmark_rect("composer").await?;
                anyhow::ensure!(
                    chat.x + chat.width <= f64::from(w) + 0.5 && chat.y + chat.height <= f64::from(h) + 0.5,
                    "{w}x{h}@{dpr} {layout}: the composer {chat:?} is cut off"
                );
                Ok(())
            });
        }
    }
}
