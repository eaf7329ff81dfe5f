//! Small previews of images for lists and galleries.
//!
//! A thumbnail is a JPEG (quality 80) unless the image has pixels that are not fully
//! opaque: those become a PNG, since JPEG would paint a logo's transparent background
//! black. The EXIF orientation is applied to the pixels, so the thumbnail needs no
//! metadata and shows upright everywhere. Decoding is bounded before it starts: the
//! header's size is checked against [`MAX_PIXELS`] and the decoder gets a memory cap,
//! so a small file claiming a huge image (a decompression bomb) is an error, not an
//! abort.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{DynamicImage, ImageDecoder, ImageEncoder, ImageReader, Limits};

use super::FileKind;
use super::orientation::orientation;

/// The longest side of a thumbnail, in pixels; smaller images are not enlarged.
pub const THUMBNAIL_MAX_SIDE: u32 = 480;

/// The most pixels an image may have for a thumbnail to be made (a 100-megapixel photo
/// decodes to 400 MB of RGBA).
pub const MAX_PIXELS: u64 = 100_000_000;

/// The most memory the decoder may allocate for one image.
const MAX_DECODER_BYTES: u64 = 512 * 1024 * 1024;

const JPEG_QUALITY: u8 = 80;

/// A thumbnail and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thumbnail {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// [`FileKind::Jpeg`], or [`FileKind::Png`] for images with transparency.
    pub kind: FileKind,
    /// Its width in pixels, as displayed.
    pub width: u32,
    /// Its height in pixels, as displayed.
    pub height: u32,
}

/// Why no thumbnail could be made of an image.
#[derive(Debug, thiserror::Error)]
pub enum ThumbnailError {
    /// The header claims more pixels than [`MAX_PIXELS`].
    #[error(
        "the image is {width}×{height} pixels, more than the {MAX_PIXELS} a thumbnail is made of"
    )]
    TooLarge {
        /// Claimed width.
        width: u32,
        /// Claimed height.
        height: u32,
    },
    /// The image cannot be decoded: damaged, or past the decoder's memory cap.
    #[error("the image cannot be decoded")]
    Decode(#[source] image::ImageError),
    /// The thumbnail could not be encoded.
    #[error("the thumbnail cannot be encoded")]
    Encode(#[source] image::ImageError),
}

/// A thumbnail at most [`THUMBNAIL_MAX_SIDE`] pixels on its longer side (the first frame
/// of an animation), or `None` for kinds without thumbnails (see
/// [`FileKind::has_thumbnail`]).
pub fn thumbnail(kind: &FileKind, bytes: &[u8]) -> Result<Option<Thumbnail>, ThumbnailError> {
    let Some(format) = kind.image_format() else {
        return Ok(None);
    };
    let mut decoder = ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .map_err(ThumbnailError::Decode)?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ThumbnailError::TooLarge { width, height });
    }
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODER_BYTES);
    decoder.set_limits(limits).map_err(ThumbnailError::Decode)?;
    let image = DynamicImage::from_decoder(decoder).map_err(ThumbnailError::Decode)?;

    // Shrunk before it is turned: the box is square, so the order does not change the
    // size, and turning the small image is cheaper.
    let mut small = if image.width().max(image.height()) > THUMBNAIL_MAX_SIDE {
        image.thumbnail(THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE)
    } else {
        image
    };
    small.apply_orientation(orientation(kind, bytes));
    encode(small).map(Some)
}

fn encode(image: DynamicImage) -> Result<Thumbnail, ThumbnailError> {
    let (width, height) = (image.width(), image.height());
    let mut bytes = Vec::new();
    let kind = if has_transparency(&image) {
        let rgba = image.to_rgba8();
        PngEncoder::new(&mut bytes)
            .write_image(&rgba, width, height, image::ExtendedColorType::Rgba8)
            .map_err(ThumbnailError::Encode)?;
        FileKind::Png
    } else {
        let rgb = image.to_rgb8();
        JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
            .write_image(&rgb, width, height, image::ExtendedColorType::Rgb8)
            .map_err(ThumbnailError::Encode)?;
        FileKind::Jpeg
    };
    Ok(Thumbnail {
        bytes,
        kind,
        width,
        height,
    })
}

/// Whether any pixel is not fully opaque (many PNGs carry an alpha channel they do not use).
fn has_transparency(image: &DynamicImage) -> bool {
    image.color().has_alpha() && image.to_rgba8().pixels().any(|pixel| pixel[3] < u8::MAX)
}
