//! Geometry under real transforms, over Layout x Engine: device scale factor 2, CSS zoom, scale and
//! translate, scrolled page and panel, iframe border and padding, grandchild realms (inside an
//! out-of-process iframe, inside a Web Fragment). Each case points with trusted input and compares the
//! candidate and every path segment, composed to the Host viewport, with Chromium's box model
//! (harness/src/oracle.rs) within 0.5 CSS px. Rotation / skew give `unsupported-transform`.

use attention_harness::checks::geometry::{leaf_geometry, unsupported_transform_keeps_siblings};
use attention_harness::{run_host_opts, Engine, Extra, Geometry, HostOptions, Layout};
use rstest::rstest;

async fn all_hold(h: &attention_harness::Host, landmarks: &[&str]) -> anyhow::Result<()> {
    for l in landmarks {
        let f = leaf_geometry(h, l).await?;
        eprintln!(
            "{} {}/{} {l}: max error {:.3} px, {} segments, {} frames",
            h.url, h.layout, h.engine, f.max_error, f.segments_compared, f.frames_compared
        );
    }
    Ok(())
}

/// The Host of a variant, by its label. The labels are the variants' old query parameters, kept
/// because rstest names each case after its value: the test names stay what they were.
fn variant(layout: Layout, engine: Engine, label: &str) -> HostOptions {
    let host = HostOptions::new(layout, engine);
    match label {
        "geometry=zoom-frame" => host.geometry(Geometry::ZoomFrame),
        "geometry=zoom-leaf" => host.geometry(Geometry::ZoomLeaf),
        "geometry=scale-frame" => host.geometry(Geometry::ScaleFrame),
        "geometry=scale-translate-frame" => host.geometry(Geometry::ScaleTranslateFrame),
        "geometry=scale-panel" => host.geometry(Geometry::ScalePanel),
        "geometry=scroll-page" => host.geometry(Geometry::ScrollPage),
        "geometry=scroll-panel" => host.geometry(Geometry::ScrollPanel),
        "geometry=border-frame" => host.geometry(Geometry::BorderFrame),
        "geometry=rotate-frame" => host.geometry(Geometry::RotateFrame),
        "geometry=skew-frame" => host.geometry(Geometry::SkewFrame),
        "extras=nest" => host.extra(Extra::Nest),
        other => panic!("no Host variant labelled {other}"),
    }
}

#[rstest]
fn device_scale_factor_2_keeps_every_rect_in_css_px(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host_opts(HostOptions::new(layout, engine).device_scale_factor(2.0), async |h| {
        all_hold(h, &["left-leaf", "oopif-leaf", "closed-shadow-leaf"]).await
    });
}

#[rstest]
fn geometry_holds_under_each_host_variant(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
    #[values(
        ("geometry=zoom-frame", &["left-leaf", "right-leaf"][..]),
        ("geometry=zoom-leaf", &["host-probe-redact"][..]),
        ("geometry=scale-frame", &["left-leaf"][..]),
        ("geometry=scale-translate-frame", &["left-leaf"][..]),
        ("geometry=scale-panel", &["left-leaf", "oopif-leaf"][..]),
        ("geometry=scroll-page", &["left-leaf", "closed-shadow-leaf"][..]),
        ("geometry=scroll-panel", &["left-leaf", "oopif-leaf"][..]),
        ("geometry=border-frame", &["left-leaf"][..]),
        ("extras=nest", &["plain-leaf"][..]),
    )]
    case: (&str, &[&str]),
) {
    let (label, landmarks) = case;
    run_host_opts(variant(layout, engine, label), async |h| all_hold(h, landmarks).await);
}

#[rstest]
fn rotated_or_skewed_iframe_is_an_unsupported_transform_omission_and_its_sibling_stays(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values("geometry=rotate-frame", "geometry=skew-frame")] query: &str,
) {
    // Only iframes are mapped point by point; fragment content is physical Host DOM.
    let options = variant(layout, Engine::Iframe, query);
    run_host_opts(options, async |h| unsupported_transform_keeps_siblings(h).await.map(drop));
}
