//! "A picture of what was sampled": the viewport screenshot with the sample points, the pointer
//! and every candidate's rect drawn on it, for QA reproducing a layout bug; and, for `audit`, the
//! part of a screenshot around one disagreement with both answers' rects drawn on it.

use image::{ImageFormat, Rgba, RgbaImage};
use serde_json::Value;

/// The outline colour of candidate `i` (the HTML report's legend uses the same).
pub fn candidate_colour(i: usize) -> [u8; 3] {
    PALETTE[i % PALETTE.len()]
}

const PALETTE: [[u8; 3]; 6] =
    [[230, 25, 75], [60, 180, 75], [0, 130, 200], [245, 130, 48], [145, 30, 180], [70, 240, 240]];

#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("the screenshot is not a PNG: {0}")]
    Decode(image::ImageError),
    #[error("cannot encode the picture: {0}")]
    Encode(image::ImageError),
}

/// Draws `snapshot` (Host-viewport CSS px) over `png`, a screenshot of `scale` device px per CSS px
/// (the Host's DPR times its zoom, `HostOptions::scale_factor`), and returns the new PNG.
pub fn annotate(png: &[u8], snapshot: &Value, scale: f64) -> Result<Vec<u8>, PictureError> {
    let mut img = image::load_from_memory_with_format(png, ImageFormat::Png).map_err(PictureError::Decode)?.to_rgba8();
    let s = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    // Lines and marks keep their CSS size at any DPR.
    let line = (2.0 * s).round().max(1.0) as i64;
    for (i, c) in snapshot["candidates"].as_array().into_iter().flatten().enumerate() {
        let [r, g, b] = PALETTE[i % PALETTE.len()];
        let rect = &c["rect"];
        if let (Some(x), Some(y), Some(w), Some(h)) =
            (rect["x"].as_f64(), rect["y"].as_f64(), rect["width"].as_f64(), rect["height"].as_f64())
        {
            outline(&mut img, x * s, y * s, w * s, h * s, line, Rgba([r, g, b, 255]));
        }
    }
    for p in snapshot["capture"]["points"].as_array().into_iter().flatten() {
        if let (Some(x), Some(y)) = (p["x"].as_f64(), p["y"].as_f64()) {
            dot(&mut img, x * s, y * s, line / 2, Rgba([255, 0, 255, 255]));
        }
    }
    if let (Some(x), Some(y)) = (
        snapshot.pointer("/pointer/point/x").and_then(Value::as_f64),
        snapshot.pointer("/pointer/point/y").and_then(Value::as_f64),
    ) {
        let (x, y, arm) = ((x * s) as i64, (y * s) as i64, (6.0 * s).round() as i64);
        for d in -arm..=arm {
            for t in 0..line.max(1) / 2 + 1 {
                put(&mut img, x + d, y + t, Rgba([0, 0, 0, 255]));
                put(&mut img, x + t, y + d, Rgba([0, 0, 0, 255]));
            }
        }
    }
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).map_err(PictureError::Encode)?;
    Ok(out.into_inner())
}

/// The colours of a disagreement picture: the runtime's rect, then Chromium's (the palette's first
/// two, so the report's legend can name them).
pub const RUNTIME_COLOUR: [u8; 3] = PALETTE[0];
pub const CHROMIUM_COLOUR: [u8; 3] = PALETTE[1];
/// CSS px of screenshot kept around a disagreement's point and rects.
pub const CROP_MARGIN: f64 = 24.0;
/// The largest side of a disagreement picture, CSS px (a huge rect is cut around the point).
pub const CROP_MAX: f64 = 480.0;

/// A rectangle in the screenshot's CSS px: `[x, y, width, height]`.
pub type CssRect = [f64; 4];

/// The crop of `png` (a screenshot at `scale` device px per CSS px) around a disagreement at
/// `point`: the runtime's rect outlined in [`RUNTIME_COLOUR`], Chromium's in [`CHROMIUM_COLOUR`],
/// the point as a black cross. The crop holds the point, both rects and [`CROP_MARGIN`] around them,
/// at most [`CROP_MAX`] a side (centred on the point then), within the screenshot.
pub fn disagreement(
    png: &[u8],
    scale: f64,
    point: (f64, f64),
    runtime: Option<CssRect>,
    chromium: Option<CssRect>,
) -> Result<Vec<u8>, PictureError> {
    let mut img = image::load_from_memory_with_format(png, ImageFormat::Png).map_err(PictureError::Decode)?.to_rgba8();
    let s = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    let line = (2.0 * s).round().max(1.0) as i64;
    for (r, c) in [(runtime, RUNTIME_COLOUR), (chromium, CHROMIUM_COLOUR)] {
        if let Some([x, y, w, h]) = r {
            outline(&mut img, x * s, y * s, w * s, h * s, line, Rgba([c[0], c[1], c[2], 255]));
        }
    }
    let (px, py, arm) = ((point.0 * s) as i64, (point.1 * s) as i64, (6.0 * s).round() as i64);
    for d in -arm..=arm {
        for t in 0..line.max(1) / 2 + 1 {
            put(&mut img, px + d, py + t, Rgba([0, 0, 0, 255]));
            put(&mut img, px + t, py + d, Rgba([0, 0, 0, 255]));
        }
    }
    // The region in CSS px: the point and both rects, with the margin, capped around the point.
    let (mut x0, mut y0, mut x1, mut y1) = (point.0, point.1, point.0, point.1);
    for [x, y, w, h] in [runtime, chromium].into_iter().flatten() {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + w), y1.max(y + h));
    }
    let (x0, y0, x1, y1) = (
        (x0 - CROP_MARGIN).max(point.0 - CROP_MAX / 2.0),
        (y0 - CROP_MARGIN).max(point.1 - CROP_MAX / 2.0),
        (x1 + CROP_MARGIN).min(point.0 + CROP_MAX / 2.0),
        (y1 + CROP_MARGIN).min(point.1 + CROP_MAX / 2.0),
    );
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let (dx0, dy0) = ((x0 * s).floor().clamp(0.0, w - 1.0), (y0 * s).floor().clamp(0.0, h - 1.0));
    let (dx1, dy1) = ((x1 * s).ceil().clamp(dx0 + 1.0, w), (y1 * s).ceil().clamp(dy0 + 1.0, h));
    let cropped =
        image::imageops::crop_imm(&img, dx0 as u32, dy0 as u32, (dx1 - dx0) as u32, (dy1 - dy0) as u32).to_image();
    let mut out = std::io::Cursor::new(Vec::new());
    cropped.write_to(&mut out, ImageFormat::Png).map_err(PictureError::Encode)?;
    Ok(out.into_inner())
}

/// CSS px kept on each side of the pointer in a row's zoomed crop.
pub const POINTER_CROP_HALF: f64 = 80.0;

/// The part of `png` (a picture at `scale` device px per CSS px) within [`POINTER_CROP_HALF`] CSS px
/// of `point`, with the point marked by a black cross (the pointer's cross is drawn again, so a
/// point with no snapshot pointer is marked too), cut at the picture's edges.
pub fn around(png: &[u8], scale: f64, point: (f64, f64)) -> Result<Vec<u8>, PictureError> {
    let mut img = image::load_from_memory_with_format(png, ImageFormat::Png).map_err(PictureError::Decode)?.to_rgba8();
    let s = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    let line = (2.0 * s).round().max(1.0) as i64;
    let (px, py, arm) = ((point.0 * s) as i64, (point.1 * s) as i64, (6.0 * s).round() as i64);
    for d in -arm..=arm {
        for t in 0..line.max(1) / 2 + 1 {
            put(&mut img, px + d, py + t, Rgba([0, 0, 0, 255]));
            put(&mut img, px + t, py + d, Rgba([0, 0, 0, 255]));
        }
    }
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let half = POINTER_CROP_HALF * s;
    let (x0, y0) = ((point.0 * s - half).floor().clamp(0.0, w - 1.0), (point.1 * s - half).floor().clamp(0.0, h - 1.0));
    let (x1, y1) = ((point.0 * s + half).ceil().clamp(x0 + 1.0, w), (point.1 * s + half).ceil().clamp(y0 + 1.0, h));
    let cropped = image::imageops::crop_imm(&img, x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32).to_image();
    let mut out = std::io::Cursor::new(Vec::new());
    cropped.write_to(&mut out, ImageFormat::Png).map_err(PictureError::Encode)?;
    Ok(out.into_inner())
}

fn put(img: &mut RgbaImage, x: i64, y: i64, c: Rgba<u8>) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, c);
    }
}

fn dot(img: &mut RgbaImage, x: f64, y: f64, r: i64, c: Rgba<u8>) {
    for dx in -r..=r {
        for dy in -r..=r {
            put(img, x.round() as i64 + dx, y.round() as i64 + dy, c);
        }
    }
}

fn outline(img: &mut RgbaImage, x: f64, y: f64, w: f64, h: f64, line: i64, c: Rgba<u8>) {
    let (x0, y0, x1, y1) = (x.round() as i64, y.round() as i64, (x + w).round() as i64 - 1, (y + h).round() as i64 - 1);
    for t in 0..line {
        for xx in x0..=x1 {
            put(img, xx, y0 + t, c);
            put(img, xx, y1 - t, c);
        }
        for yy in y0..=y1 {
            put(img, x0 + t, yy, c);
            put(img, x1 - t, yy, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn draws_candidate_outline_and_sample_points_where_the_snapshot_says() {
        let blank = RgbaImage::from_pixel(40, 30, Rgba([255, 255, 255, 255]));
        let mut png = std::io::Cursor::new(Vec::new());
        blank.write_to(&mut png, ImageFormat::Png).unwrap();
        let snap = json!({"candidates": [{"rect": {"x": 2, "y": 3, "width": 10, "height": 8}}],
                          "capture": {"points": [{"point_id": "p0", "x": 30, "y": 20}]}});
        let out = image::load_from_memory(&annotate(&png.into_inner(), &snap, 1.0).unwrap()).unwrap().to_rgba8();
        assert_eq!(out.get_pixel(2, 3).0[..3], PALETTE[0]);
        assert_eq!(out.get_pixel(30, 20).0, [255, 0, 255, 255]);
        assert_eq!(out.get_pixel(7, 7).0, [255, 255, 255, 255], "the inside stays untouched");
    }

    #[test]
    fn a_disagreement_picture_is_the_crop_around_its_point_and_both_rects() {
        let blank = RgbaImage::from_pixel(400, 300, Rgba([255, 255, 255, 255]));
        let mut png = std::io::Cursor::new(Vec::new());
        blank.write_to(&mut png, ImageFormat::Png).unwrap();
        let png = png.into_inner();
        let out =
            disagreement(&png, 1.0, (100.0, 100.0), Some([90.0, 90.0, 40.0, 20.0]), Some([80.0, 95.0, 10.0, 10.0]))
                .unwrap();
        let out = image::load_from_memory(&out).unwrap().to_rgba8();
        // x from 80 - 24 to 130 + 24, y from 90 - 24 to 110 + 24.
        assert_eq!((out.width(), out.height()), (98, 68));
        assert_eq!(out.get_pixel(90 - 56, 90 - 66).0[..3], RUNTIME_COLOUR, "the runtime's corner");
        assert_eq!(out.get_pixel(80 - 56, 95 - 66).0[..3], CHROMIUM_COLOUR, "Chromium's corner");
        assert_eq!(out.get_pixel(100 - 56 + 5, 100 - 66).0, [0, 0, 0, 255], "the point's cross");
        // At the screenshot's edge the crop stops there.
        let edge = image::load_from_memory(&disagreement(&png, 1.0, (2.0, 2.0), None, None).unwrap()).unwrap();
        assert_eq!((edge.width(), edge.height()), (26, 26));
    }

    #[test]
    fn the_crop_around_the_pointer_is_centred_on_it_and_marks_it() {
        let blank = RgbaImage::from_pixel(400, 300, Rgba([255, 255, 255, 255]));
        let mut png = std::io::Cursor::new(Vec::new());
        blank.write_to(&mut png, ImageFormat::Png).unwrap();
        let png = png.into_inner();
        let out = image::load_from_memory(&around(&png, 1.0, (200.0, 150.0)).unwrap()).unwrap().to_rgba8();
        assert_eq!((out.width(), out.height()), (160, 160));
        assert_eq!(out.get_pixel(80 + 4, 80).0, [0, 0, 0, 255], "the cross at the centre");
        // Near the edge the crop stops at the picture's edge; at DPR 2 it keeps its CSS size.
        let edge = image::load_from_memory(&around(&png, 1.0, (10.0, 10.0)).unwrap()).unwrap();
        assert_eq!((edge.width(), edge.height()), (90, 90));
        let big = RgbaImage::from_pixel(800, 600, Rgba([255, 255, 255, 255]));
        let mut png2 = std::io::Cursor::new(Vec::new());
        big.write_to(&mut png2, ImageFormat::Png).unwrap();
        let two = image::load_from_memory(&around(&png2.into_inner(), 2.0, (200.0, 150.0)).unwrap()).unwrap();
        assert_eq!((two.width(), two.height()), (320, 320));
    }

    #[test]
    fn a_screenshot_at_dpr_two_gets_its_marks_at_twice_the_css_coordinates() {
        let blank = RgbaImage::from_pixel(80, 60, Rgba([255, 255, 255, 255]));
        let mut png = std::io::Cursor::new(Vec::new());
        blank.write_to(&mut png, ImageFormat::Png).unwrap();
        let snap = json!({"candidates": [{"rect": {"x": 2, "y": 3, "width": 10, "height": 8}}]});
        let out = image::load_from_memory(&annotate(&png.into_inner(), &snap, 2.0).unwrap()).unwrap().to_rgba8();
        assert_eq!((out.width(), out.height()), (80, 60), "the picture keeps the screenshot's size");
        assert_eq!(out.get_pixel(4, 6).0[..3], PALETTE[0], "the rect's corner at 2x");
        assert_eq!(out.get_pixel(2, 3).0, [255, 255, 255, 255], "nothing at the unscaled corner");
    }
}
