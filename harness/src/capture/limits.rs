//! The visual limits of `wippy.attention.visual` v1 (schemas.md §7, `media`): `pixel_width` and
//! `pixel_height` 1..2048 with width x height <= 4,194,304, `content_bytes` 1..1,048,576; and the
//! device-pixel geometry of an approved CSS-px rect (what a clip screenshot of it measures).

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
}
