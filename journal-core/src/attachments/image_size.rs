//! An image's size as a person sees it: from the file's header, without decoding the
//! pixels, and with width and height swapped when the photo is shown turned a quarter.

use std::io::Cursor;

use image::{ImageDecoder, ImageReader};

use super::FileKind;
use super::orientation::{orientation, swaps_sides};

/// Width and height in pixels as displayed, or `None` for kinds without a size we read
/// (HEIC among them: no decoder here) and for headers that cannot be read.
pub fn dimensions(kind: &FileKind, bytes: &[u8]) -> Option<(u32, u32)> {
    let format = kind.image_format()?;
    let decoder = ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .ok()?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return None;
    }
    if swaps_sides(orientation(kind, bytes)) {
        Some((height, width))
    } else {
        Some((width, height))
    }
}
