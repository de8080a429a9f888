//! Pixels to upload bytes (spec "Optional visual capture": "PNG is the default. A requested WebP
//! capture must produce actual WebP bytes with image/webp and a .webp file name"): redaction is
//! painted as an opaque fill, then the image is encoded as PNG or lossless WebP with the `image`
//! crate (its WebP encoder is `image-webp`). A format the provider was not configured to make is
//! refused, never renamed.

use image::{ImageEncoder, Rgba, RgbaImage};

use super::limits::{check_bytes, check_dimensions, LimitError, PixelRect};

/// The opaque fill painted over every redacted rect (a neutral grey: no canary colour is near it).
pub const REDACTION_FILL: Rgba<u8> = Rgba([96, 96, 96, 255]);

/// The formats of relay.md's `capture.format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Format {
    Png,
    WebP,
}

impl Format {
    pub fn parse(mime: &str) -> Option<Format> {
        match mime {
            "image/png" => Some(Format::Png),
            "image/webp" => Some(Format::WebP),
            _ => None,
        }
    }
    pub fn mime(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::WebP => "image/webp",
        }
    }
    /// The file name extension that goes with the bytes.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::WebP => "webp",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("encoding {} failed: {detail}", .format.mime())]
    Encoder { format: Format, detail: String },
}

/// Paints every rect (image pixel coordinates, clipped to the image) with [`REDACTION_FILL`];
/// returns how many rects touched the image.
pub fn paint_redactions(img: &mut RgbaImage, rects: &[PixelRect]) -> usize {
    let bounds = PixelRect { x0: 0, y0: 0, x1: img.width() as i64, y1: img.height() as i64 };
    let mut applied = 0;
    for r in rects {
        let r = r.intersect(&bounds);
        if r.is_empty() {
            continue;
        }
        applied += 1;
        for y in r.y0..r.y1 {
            for x in r.x0..r.x1 {
                img.put_pixel(x as u32, y as u32, REDACTION_FILL);
            }
        }
    }
    applied
}

/// Encodes `img` as `format`, within §7's dimension and byte limits.
pub fn encode(img: &RgbaImage, format: Format) -> Result<Vec<u8>, EncodeError> {
    check_dimensions(img.width(), img.height())?;
    let mut out = Vec::new();
    let err = |e: image::ImageError| EncodeError::Encoder { format, detail: e.to_string() };
    match format {
        Format::Png => image::codecs::png::PngEncoder::new(&mut out)
            .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgba8)
            .map_err(err)?,
        Format::WebP => image::codecs::webp::WebPEncoder::new_lossless(&mut out)
            .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgba8)
            .map_err(err)?,
    }
    check_bytes(out.len())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(w: u32, h: u32) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| Rgba([(x * 7) as u8, (y * 13) as u8, ((x + y) * 3) as u8, 255]))
    }

    #[test]
    fn png_bytes_decode_to_the_same_pixels() {
        let img = sample(37, 21);
        let bytes = encode(&img, Format::Png).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        let back = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png).unwrap().to_rgba8();
        assert_eq!(back, img);
    }

    #[test]
    fn webp_is_a_riff_webp_container_that_decodes_losslessly() {
        let img = sample(37, 21);
        let bytes = encode(&img, Format::WebP).unwrap();
        assert_eq!(&bytes[0..4], b"RIFF");
        assert_eq!(&bytes[8..12], b"WEBP");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize, bytes.len() - 8, "RIFF size field");
        assert_eq!(&bytes[12..16], b"VP8L", "lossless bitstream");
        let back = image::load_from_memory_with_format(&bytes, image::ImageFormat::WebP).unwrap().to_rgba8();
        assert_eq!(back, img);
    }

    #[test]
    fn redaction_paints_only_inside_the_rects_and_counts_those_that_touch() {
        let mut img = sample(20, 10);
        let before = img.clone();
        let n = paint_redactions(
            &mut img,
            &[
                PixelRect { x0: 2, y0: 1, x1: 5, y1: 4 },
                PixelRect { x0: 18, y0: 8, x1: 40, y1: 40 },
                PixelRect { x0: 30, y0: 0, x1: 40, y1: 5 },
            ],
        );
        assert_eq!(n, 2);
        for (x, y, p) in img.enumerate_pixels() {
            let inside = (2..5).contains(&x) && (1..4).contains(&y) || x >= 18 && y >= 8;
            assert_eq!(*p == REDACTION_FILL, inside || *before.get_pixel(x, y) == REDACTION_FILL, "pixel {x},{y}");
            if !inside {
                assert_eq!(p, before.get_pixel(x, y));
            }
        }
    }

    #[test]
    fn an_image_over_the_side_limit_is_not_encoded() {
        let img = RgbaImage::new(2049, 1);
        assert!(matches!(encode(&img, Format::Png), Err(EncodeError::Limit(LimitError::Dimension { .. }))));
        let ok = RgbaImage::new(2048, 1);
        assert!(encode(&ok, Format::Png).is_ok());
    }
}
