//! Which way up a photo is meant to be shown, from its EXIF Orientation tag. Stripping,
//! sizes and thumbnails all read it here, from the same EXIF block, so that they agree.

use image::metadata::Orientation;
use img_parts::{Bytes, ImageEXIF, jpeg::Jpeg, png::Png, webp::WebP};

use super::FileKind;

/// The orientation the EXIF block of `bytes` asks for; `NoTransforms` when there is
/// none, it is invalid, or the file cannot be parsed (the decoder says so later).
pub(super) fn orientation(kind: &FileKind, bytes: &[u8]) -> Orientation {
    exif(kind, bytes)
        .and_then(|exif| Orientation::from_exif_chunk(&exif))
        .unwrap_or(Orientation::NoTransforms)
}

/// Whether showing the image turns it a quarter, so that its width and height swap.
pub(super) fn swaps_sides(orientation: Orientation) -> bool {
    matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// The TIFF data of the file's EXIF block (without JPEG's `Exif\0\0` prefix).
fn exif(kind: &FileKind, bytes: &[u8]) -> Option<Bytes> {
    let bytes = Bytes::copy_from_slice(bytes);
    match kind {
        FileKind::Jpeg => Jpeg::from_bytes(bytes).ok()?.exif(),
        FileKind::Png => Png::from_bytes(bytes).ok()?.exif(),
        FileKind::WebP => WebP::from_bytes(bytes).ok()?.exif(),
        _ => None,
    }
}

/// The smallest EXIF block that still says `orientation`: a big-endian TIFF header and
/// one IFD with one entry, the Orientation tag (0x0112, one SHORT), and nothing else.
pub(super) fn minimal_exif(orientation: Orientation) -> Bytes {
    let mut tiff = Vec::with_capacity(26);
    tiff.extend_from_slice(b"MM\0\x2a"); // big-endian TIFF
    tiff.extend_from_slice(&8u32.to_be_bytes()); // IFD0 right after the header
    tiff.extend_from_slice(&1u16.to_be_bytes()); // one entry
    tiff.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
    tiff.extend_from_slice(&3u16.to_be_bytes()); // SHORT
    tiff.extend_from_slice(&1u32.to_be_bytes()); // one value
    tiff.extend_from_slice(&u16::from(orientation.to_exif()).to_be_bytes());
    tiff.extend_from_slice(&[0, 0]); // the value field's unused half
    tiff.extend_from_slice(&0u32.to_be_bytes()); // no next IFD (and so no EXIF thumbnail)
    Bytes::from(tiff)
}
