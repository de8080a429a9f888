//! The visual limits of `wippy.attention.visual` v1 (schemas.md §7, `media`): `pixel_width` and
//! `pixel_height` 1..2048 with width x height <= 4,194,304, `content_bytes` 1..1,048,576; and the
//! device-pixel geometry of an approved CSS-px rect (what a clip screenshot of it measures); and
//! the uniform down-scale that fits a larger approved area within the dimension limits.

use crate::contract::visual::{VISUAL_MAX_BYTES, VISUAL_MAX_DIMENSION, VISUAL_MAX_PIXELS};

pub const MAX_DIMENSION: u32 = VISUAL_MAX_DIMENSION as u32;
pub const MAX_PIXELS: u64 = VISUAL_MAX_PIXELS as u64;
pub const MAX_BYTES: usize = VISUAL_MAX_BYTES as usize;

/// A limit of §7 that an image breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("the image is {width} x {height} px; each side must be 1..{MAX_DIMENSION}")]
    Dimension { width: u32, height: u32 },
    #[error("the image has {pixels} px; at most {MAX_PIXELS} are allowed")]
    Pixels { pixels: u64 },
    #[error("the encoded image is {bytes} bytes; it must be 1..{MAX_BYTES}")]
    Bytes { bytes: usize },
}

/// Pixel dimensions within §7.
pub fn check_dimensions(width: u32, height: u32) -> Result<(), LimitError> {
    if !(1..=MAX_DIMENSION).contains(&width) || !(1..=MAX_DIMENSION).contains(&height) {
        return Err(LimitError::Dimension { width, height });
    }
    let pixels = width as u64 * height as u64;
    if pixels > MAX_PIXELS {
        return Err(LimitError::Pixels { pixels });
    }
    Ok(())
}

/// Encoded size within §7.
pub fn check_bytes(bytes: usize) -> Result<(), LimitError> {
    if (1..=MAX_BYTES).contains(&bytes) {
        Ok(())
    } else {
        Err(LimitError::Bytes { bytes })
    }
}

/// A rect in CSS px.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CssRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A rect of whole device pixels: `[x0, x1) x [y0, y1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PixelRect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

/// `x,y wxh` in CSS px, as [`crate::oracle::BoxRect`] reads.
impl std::fmt::Display for CssRect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::oracle::BoxRect { x: self.x, y: self.y, width: self.width, height: self.height }.fmt(f)
    }
}

/// `x,y wxh device px`.
impl std::fmt::Display for PixelRect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{} {}x{} device px", self.x0, self.y0, self.width(), self.height())
    }
}

impl PixelRect {
    pub fn width(&self) -> u32 {
        (self.x1 - self.x0).max(0) as u32
    }
    pub fn height(&self) -> u32 {
        (self.y1 - self.y0).max(0) as u32
    }
    pub fn intersect(&self, o: &PixelRect) -> PixelRect {
        PixelRect { x0: self.x0.max(o.x0), y0: self.y0.max(o.y0), x1: self.x1.min(o.x1), y1: self.y1.min(o.y1) }
    }
    pub fn is_empty(&self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }
}

/// The device pixels a CSS rect covers at `dpr` (every pixel it touches: floor of the start, ceil
/// of the end), so an image of it never cuts off part of the approved area. A tiny epsilon keeps
/// float noise (12.000000001) from adding a whole pixel.
pub fn covering_pixels(r: &CssRect, dpr: f64) -> PixelRect {
    const EPS: f64 = 1e-6;
    PixelRect {
        x0: (r.x * dpr + EPS).floor() as i64,
        y0: (r.y * dpr + EPS).floor() as i64,
        x1: ((r.x + r.width) * dpr - EPS).ceil() as i64,
        y1: ((r.y + r.height) * dpr - EPS).ceil() as i64,
    }
}

/// How an area of device pixels is captured within §7: the uniform `scale` (<= 1) given to
/// `Page.captureScreenshot`'s clip and the image size that produces.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Fit {
    pub scale: f64,
    pub width: u32,
    pub height: u32,
}

/// The largest uniform scale <= 1 at which a `width` x `height` device-px area fits §7 (each side
/// <= 2048, width x height <= 4,194,304). An area that fits is not scaled; a larger one is scaled
/// so its limiting side is exactly the limit. Sides are rounded to the nearest pixel (at least 1)
/// and never above the limit, so rounding never makes 2049.
pub fn fit_scale(width: u32, height: u32) -> Fit {
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    let max = MAX_DIMENSION as f64;
    let mut scale = 1f64.min(max / w).min(max / h).min((MAX_PIXELS as f64 / (w * h)).sqrt());
    loop {
        let side = |v: f64| ((v * scale).round() as u32).clamp(1, MAX_DIMENSION);
        let (sw, sh) = if scale >= 1.0 { (width.max(1), height.max(1)) } else { (side(w), side(h)) };
        if sw as u64 * sh as u64 <= MAX_PIXELS {
            return Fit { scale, width: sw, height: sh };
        }
        // Rounding up both sides can pass the product by a few pixels: shrink by one pixel's worth.
        scale *= 1.0 - 1.0 / w.max(h);
    }
}

/// A rect of an unscaled image scaled by `scale` into an image of `width` x `height`, rounded
/// outward (floor of the start, ceil of the end). When scaled down it also grows by one pixel on
/// each side: the resampling filter blends each source pixel into its neighbouring image pixels,
/// and a redaction must cover every pixel a sensitive one reaches.
pub fn scale_outward(r: &PixelRect, scale: f64, width: u32, height: u32) -> PixelRect {
    if scale >= 1.0 {
        return r.intersect(&PixelRect { x0: 0, y0: 0, x1: width as i64, y1: height as i64 });
    }
    let grown = PixelRect {
        x0: (r.x0 as f64 * scale).floor() as i64 - 1,
        y0: (r.y0 as f64 * scale).floor() as i64 - 1,
        x1: (r.x1 as f64 * scale).ceil() as i64 + 1,
        y1: (r.y1 as f64 * scale).ceil() as i64 + 1,
    };
    grown.intersect(&PixelRect { x0: 0, y0: 0, x1: width as i64, y1: height as i64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_of_2048_passes_and_2049_fails() {
        assert_eq!(check_dimensions(2048, 1), Ok(()));
        assert_eq!(check_dimensions(1, 2048), Ok(()));
        assert_eq!(check_dimensions(2049, 1), Err(LimitError::Dimension { width: 2049, height: 1 }));
        assert_eq!(check_dimensions(1, 2049), Err(LimitError::Dimension { width: 1, height: 2049 }));
    }

    #[test]
    fn a_zero_side_fails() {
        assert!(check_dimensions(0, 10).is_err());
        assert!(check_dimensions(10, 0).is_err());
        assert_eq!(check_dimensions(1, 1), Ok(()));
    }

    #[test]
    fn the_pixel_limit_is_exact() {
        // 2048 x 2048 = 4,194,304 is exactly the limit: it passes.
        assert_eq!(check_dimensions(2048, 2048), Ok(()));
        // 2048 x 2048 is also the largest image the side limit admits, so the product cap is
        // reached exactly at the boundary and never passed.
        assert_eq!(MAX_PIXELS, 2048 * 2048);
    }

    #[test]
    fn the_byte_limit_is_exact() {
        assert_eq!(check_bytes(1_048_576), Ok(()));
        assert_eq!(check_bytes(1_048_577), Err(LimitError::Bytes { bytes: 1_048_577 }));
        assert_eq!(check_bytes(1), Ok(()));
        assert_eq!(check_bytes(0), Err(LimitError::Bytes { bytes: 0 }));
    }

    #[test]
    fn covering_pixels_scale_with_the_device_scale_factor() {
        let r = CssRect { x: 10.0, y: 20.0, width: 30.0, height: 40.0 };
        assert_eq!(covering_pixels(&r, 1.0), PixelRect { x0: 10, y0: 20, x1: 40, y1: 60 });
        assert_eq!(covering_pixels(&r, 2.0), PixelRect { x0: 20, y0: 40, x1: 80, y1: 120 });
        let f = CssRect { x: 10.25, y: 20.5, width: 30.5, height: 0.25 };
        assert_eq!(covering_pixels(&f, 1.0), PixelRect { x0: 10, y0: 20, x1: 41, y1: 21 });
        assert_eq!(covering_pixels(&f, 2.0), PixelRect { x0: 20, y0: 41, x1: 82, y1: 42 });
    }

    #[test]
    fn an_area_that_fits_exactly_is_not_scaled() {
        assert_eq!(fit_scale(2048, 2048), Fit { scale: 1.0, width: 2048, height: 2048 });
        assert_eq!(fit_scale(2048, 1), Fit { scale: 1.0, width: 2048, height: 1 });
        assert_eq!(fit_scale(1280, 720), Fit { scale: 1.0, width: 1280, height: 720 });
    }

    #[test]
    fn one_device_pixel_more_is_scaled_to_fit_exactly() {
        let f = fit_scale(2049, 2048);
        assert!(f.scale < 1.0);
        assert_eq!((f.width, f.height), (2048, 2047));
        let f = fit_scale(2048, 2049);
        assert_eq!((f.width, f.height), (2047, 2048));
        let f = fit_scale(2049, 1);
        assert_eq!((f.width, f.height), (2048, 1));
        let f = fit_scale(2049, 2049);
        assert_eq!((f.width, f.height), (2048, 2048));
        assert_eq!(check_dimensions(f.width, f.height), Ok(()));
    }

    #[test]
    fn a_dpr_2_viewport_is_scaled_to_2048_by_1152() {
        assert_eq!(fit_scale(2560, 1440), Fit { scale: 0.8, width: 2048, height: 1152 });
    }

    #[test]
    fn rounding_never_produces_2049() {
        for w in (2049..6000).step_by(7) {
            for h in [1, 2, 3, 719, 1440, 2047, 2048, 2049, 3001, w - 1, w, w + 1] {
                let f = fit_scale(w, h);
                assert_eq!(check_dimensions(f.width, f.height), Ok(()), "{w}x{h} -> {f:?}");
                assert!(
                    f.width == MAX_DIMENSION || f.height == MAX_DIMENSION,
                    "{w}x{h} -> {f:?} does not reach the limit"
                );
                assert!(f.scale < 1.0);
            }
        }
    }

    #[test]
    fn scaled_redactions_round_outward_and_grow_by_a_pixel() {
        let r = PixelRect { x0: 10, y0: 11, x1: 21, y1: 30 };
        assert_eq!(scale_outward(&r, 1.0, 100, 100), r);
        // 10*0.8 = 8, 11*0.8 = 8.8, 21*0.8 = 16.8, 30*0.8 = 24: floor / ceil, then one more pixel.
        assert_eq!(scale_outward(&r, 0.8, 100, 100), PixelRect { x0: 7, y0: 7, x1: 18, y1: 25 });
        // Clamped to the image.
        assert_eq!(
            scale_outward(&PixelRect { x0: 0, y0: 0, x1: 125, y1: 5 }, 0.8, 100, 100),
            PixelRect { x0: 0, y0: 0, x1: 100, y1: 5 }
        );
    }
}
