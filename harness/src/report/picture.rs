//! "A picture of what was sampled": the viewport screenshot with the sample points, the pointer
//! and every candidate's rect drawn on it, for QA reproducing a layout bug.

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
