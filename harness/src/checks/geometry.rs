//! Geometry against Chromium's box model under real transforms (spec: candidate `rect` /
//! `clip_rect` in Host-viewport CSS px; a segment's `rect` / `clip_rect` in its realm's viewport and
//! the `iframe` segment's `local_to_parent` mapping the child viewport into its parent). Every
//! figure the runtime reports is composed to the Host viewport and compared with the oracle's own
//! composition (harness/src/oracle.rs) within [`RECT_TOLERANCE`].

use anyhow::{anyhow, ensure};

use super::{box_of, require_candidate, snapshot_at, RECT_TOLERANCE};
use crate::attention::{OmissionReason, Segment, SegmentKind};
use crate::host::Host;
use crate::oracle::{Affine, BoxRect};

/// What one geometry case measured.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct GeometryFigures {
    /// The largest difference of any compared figure from Chromium's, CSS px.
    pub max_error: f64,
    /// Segments with a rect compared with Chromium's box of the element that carries their mount id.
    pub segments_compared: usize,
    /// `iframe` segments whose `local_to_parent` was compared with the oracle's frame map.
    pub frames_compared: usize,
}

/// Points (trusted input) at the visible centre of `landmark` and checks the candidate there and
/// every path segment above it against Chromium.
pub async fn leaf_geometry(host: &Host, landmark: &str) -> anyhow::Result<GeometryFigures> {
    let at = host.locate_landmark(landmark).await?;
    let truth = host.frames().node_rect(&at).await?;
    let chain = host.frames().chain_of(&at).await?;
    let visible = chain.clip(&truth);
    ensure!(
        visible.width > 2.0 && visible.height > 2.0,
        "{landmark} is not visible in this variant: {truth} clipped to {visible}"
    );
    let (x, y) = visible.center();
    let snap = snapshot_at(host, x, y).await?;
    let cand = require_candidate(&snap, &truth, landmark)?;
    let mut figures = GeometryFigures::default();
    let rect = box_of(&cand.rect);
    figures.max_error = rect.max_edge_delta(&truth);

    // The candidate's clip_rect: its box through every viewport above it (absent = not clipped).
    let clip = cand.clip_rect.as_ref().map(box_of).unwrap_or(rect);
    let d = clip.max_edge_delta(&visible);
    ensure!(d <= RECT_TOLERANCE, "{landmark}: clip_rect {clip} is {d:.3} px from Chromium's visible box {visible}");
    figures.max_error = figures.max_error.max(d);

    check_path(host, landmark, &cand.path, &mut figures).await?;
    Ok(figures)
}

/// Composes each segment's rect / clip_rect with the `local_to_parent` maps above it and compares
/// it with Chromium's box of the element carrying that `data-wippy-mount-id`; each iframe's
/// composed map with the oracle's map of that frame.
pub async fn check_path(
    host: &Host,
    what: &str,
    path: &[Segment],
    figures: &mut GeometryFigures,
) -> anyhow::Result<()> {
    let mut to_host = Affine::IDENTITY;
    for seg in path {
        let kind = seg.kind.as_str();
        let mount = seg.mount_id.as_str();
        let Some(seg_rect) = seg.rect.as_ref().map(box_of) else { continue };
        let Some(el) = host.frames().locate_attr("data-wippy-mount-id", mount).await? else {
            // A generated mount id names no attribute: nothing to compare it with.
            continue;
        };
        let truth = host.frames().node_rect(&el).await?;
        let composed = to_host.map_rect(&seg_rect);
        let d = composed.max_edge_delta(&truth);
        ensure!(
            d <= RECT_TOLERANCE,
            "{what}: the {kind} segment {mount} rect composes to {composed}, {d:.3} px from Chromium's {truth}"
        );
        figures.max_error = figures.max_error.max(d);
        // clip_rect: the element's box within the viewport of the realm that holds it. The runtime
        // documents it for `iframe` segments (absent = not clipped); a boundary segment may carry it.
        let realm = host.frames().chain_of(&el).await?;
        let viewport = realm.clips.last().copied().unwrap_or(truth);
        let want = truth.intersect(&viewport);
        let got = match seg.clip_rect.as_ref().map(box_of) {
            Some(c) => Some(to_host.map_rect(&c)),
            None if kind == "iframe" => Some(composed),
            None => None,
        };
        if let Some(got) = got {
            let d = got.max_edge_delta(&want);
            ensure!(
                d <= RECT_TOLERANCE,
                "{what}: the {kind} segment {mount} clip_rect composes to {got}, {d:.3} px from Chromium's {want}"
            );
            figures.max_error = figures.max_error.max(d);
        }
        figures.segments_compared += 1;
        if kind == "iframe" {
            let m = seg
                .local_to_parent
                .as_ref()
                .map(|t| &t.matrix)
                .ok_or_else(|| anyhow!("{what}: iframe segment {mount} without local_to_parent"))?;
            let local = Affine::from_column_major(m)
                .ok_or_else(|| anyhow!("{what}: local_to_parent of {mount} is not a 4x4 matrix"))?;
            let child = local.then(&to_host);
            let truth_frame = host.frames().frame_behind(&el).await?;
            let (w, h) = truth_frame.viewport;
            let d = child.max_corner_delta(&truth_frame.to_host, w, h);
            ensure!(
                d <= RECT_TOLERANCE,
                "{what}: iframe {mount}'s local_to_parent composes to {child}, its viewport corners {d:.3} px from Chromium's {}",
                truth_frame.to_host
            );
            figures.max_error = figures.max_error.max(d);
            figures.frames_compared += 1;
            to_host = child;
        }
    }
    Ok(())
}

/// A rotated or skewed child cannot be mapped: sampling across it gives an `unsupported-transform`
/// omission naming its mount, while its sibling is still resolved in the same snapshot.
pub async fn unsupported_transform_keeps_siblings(host: &Host) -> anyhow::Result<String> {
    let right = host.landmark_rect("right-leaf").await?;
    let frame = host.landmark_rect("leaf-left-frame").await?;
    // A point on the rotated frame's side near the shared edge, and the sibling inside the lattice.
    let (x, y) = (right.x - 4.0, right.center().1);
    ensure!(frame.contains((x, y)), "the sample point ({x}, {y}) is not over the transformed frame {frame}");
    host.move_to(x, y).await?;
    let snap = host.snapshot_with(serde_json::json!({"point": {"x": x, "y": y}})).await?;
    super::require_valid_payload(snap.json())?;
    let omissions = &snap.omissions;
    ensure!(
        omissions
            .iter()
            .any(|o| o.reason == OmissionReason::UnsupportedTransform
                && o.mount_id.as_deref() == Some("mount-leaf-left")),
        "no unsupported-transform omission for mount-leaf-left: omissions {}",
        crate::report::text::list_of(omissions.iter().map(|o| format!(
            "{} {}",
            o.reason,
            o.mount_id.as_deref().unwrap_or("(no mount)")
        )))
    );
    ensure!(!snap.capture.complete, "a snapshot with an omitted child must not claim to be complete");
    require_candidate(&snap, &right, "right-leaf (the sibling)")?;
    // Sampled candidates only: the pointer event the leaf realm itself reported keeps its own
    // (documented, approximate) mapping; sampling must not map through the transform.
    let points: Vec<&str> = snap.capture.points.iter().map(|p| p.point_id.as_str()).collect();
    let left_rect: Option<BoxRect> = super::candidates(&snap)
        .iter()
        .filter(|c| c.sample_point_ids.iter().any(|i| points.contains(&i.as_str())))
        .filter(|c| c.path.iter().any(|s| s.mount_id == "mount-leaf-left" && s.kind == SegmentKind::Iframe))
        .map(|c| box_of(&c.rect))
        .next();
    ensure!(
        left_rect.is_none(),
        "the runtime invented a candidate {} inside a frame it cannot map",
        crate::report::text::opt(left_rect)
    );
    Ok(format!("{} omissions, sibling kept", omissions.len()))
}
