//! Removing location and identifying metadata from photos before they are stored.
//!
//! What is kept is a list, not what is dropped: a phone or an editor can invent a new
//! place to write the owner's name, and a list of known metadata would let it through.
//! So a JPEG keeps only its codec segments, the JFIF header (without its thumbnail), the
//! ICC colour profile (dropping it changes colours, and it names no one) and Adobe's
//! colour-transform marker; a PNG keeps its critical chunks and the ancillary chunks
//! that change how pixels look or move (transparency, colour, gamma, density, APNG
//! frames); a WebP keeps its image, alpha, animation and ICC chunks. Everything else
//! goes: EXIF (GPS, camera serials, dates, the EXIF thumbnail, which can show the photo
//! before it was cropped), XMP, IPTC, comments, text chunks, MPF side images, maker
//! notes and whatever was appended after the image's end (motion-photo videos).
//!
//! The orientation survives as a new EXIF block holding only the Orientation tag, so a
//! photo taken sideways still shows upright and its pixels are never re-encoded.
//!
//! GIF is stored as it is: it has no EXIF, so no location or camera; its comment and
//! application blocks (XMP among them) can hold text an editor put there, which is left
//! for a later change, as HEIC is left to the caller (see
//! [`FileKind::has_unstrippable_metadata`]).
//!
//! The containers are parsed by `img-parts` (maintained, small, no unsafe code, and it
//! edits JPEG segments, PNG chunks and RIFF chunks without touching the pixel data).
//! The one part written here is the walk over a JPEG's scans, which `img-parts` keeps as
//! one opaque tail: metadata segments may sit between progressive scans, and data after
//! the end-of-image marker must not be carried along.

use img_parts::{
    Bytes, ImageEXIF,
    jpeg::{Jpeg, JpegSegment, markers},
    png::Png,
    riff::RiffContent,
    webp::{
        CHUNK_ALPH, CHUNK_ANIM, CHUNK_ANMF, CHUNK_EXIF, CHUNK_ICCP, CHUNK_VP8, CHUNK_VP8L,
        CHUNK_VP8X, WebP,
    },
};

use super::FileKind;
use super::orientation::{minimal_exif, orientation};
use image::metadata::Orientation;

/// Why a file's metadata could not be removed: its container is damaged (or it is not
/// the kind it was sniffed as). The upload is refused rather than stored with metadata.
#[derive(Debug, thiserror::Error)]
#[error("the file is not a well-formed {}: {reason}", .kind.mime())]
pub struct MetadataError {
    kind: FileKind,
    reason: String,
}

impl MetadataError {
    fn new(kind: FileKind, reason: impl ToString) -> MetadataError {
        MetadataError {
            kind,
            reason: reason.to_string(),
        }
    }

    /// The kind of file that was damaged.
    pub fn kind(&self) -> FileKind {
        self.kind
    }
}

/// The file without its identifying metadata, for the kinds where
/// [`FileKind::strips_metadata`] is true; other kinds come back unchanged (the caller
/// decides what to do with HEIC, see [`FileKind::has_unstrippable_metadata`]).
pub fn strip_metadata(kind: &FileKind, bytes: &[u8]) -> Result<Vec<u8>, MetadataError> {
    let stripped = match kind {
        FileKind::Jpeg => strip_jpeg(bytes),
        FileKind::Png => strip_png(bytes),
        FileKind::WebP => strip_webp(bytes),
        _ => return Ok(bytes.to_vec()),
    };
    stripped.map_err(|reason| MetadataError::new(*kind, reason))
}

/// The orientation to keep, when it is not the default (which needs no EXIF at all).
fn kept_orientation(kind: &FileKind, bytes: &[u8]) -> Option<Bytes> {
    let orientation = orientation(kind, bytes);
    (orientation != Orientation::NoTransforms).then(|| minimal_exif(orientation))
}

fn strip_jpeg(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let exif = kept_orientation(&FileKind::Jpeg, bytes);
    let mut jpeg = Jpeg::from_bytes(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;

    let mut kept = Vec::with_capacity(jpeg.segments().len());
    for segment in jpeg.segments() {
        let marker = segment.marker();
        if marker == markers::SOS {
            // `img-parts` hands the scan data out only inside the encoded segment.
            let encoded = segment.clone().encoder().bytes();
            let scans = clean_scans(&encoded[segment.len()..])?;
            kept.push(JpegSegment::new_with_entropy(
                marker,
                segment.contents().clone(),
                scans,
            ));
        } else if is_app_or_comment(marker) {
            kept.extend(kept_app_segment(segment));
        } else {
            kept.push(segment.clone());
        }
    }
    *jpeg.segments_mut() = kept;
    if exif.is_some() {
        jpeg.set_exif(exif);
    }
    Ok(jpeg.encoder().bytes().to_vec())
}

fn is_app_or_comment(marker: u8) -> bool {
    matches!(marker, markers::APP0..=markers::APP15 | markers::COM)
}

/// The application segments worth keeping, as they are kept.
fn kept_app_segment(segment: &JpegSegment) -> Option<JpegSegment> {
    let contents = segment.contents();
    match segment.marker() {
        // JFIF: version, density units and density (12 bytes after "JFIF\0"'s start),
        // then a thumbnail's size set to 0×0, since the thumbnail may predate a crop.
        markers::APP0 if contents.starts_with(b"JFIF\0") && contents.len() >= 12 => {
            let mut jfif = contents[..12].to_vec();
            jfif.extend_from_slice(&[0, 0]);
            Some(JpegSegment::new_with_contents(
                markers::APP0,
                Bytes::from(jfif),
            ))
        }
        markers::APP2 if contents.starts_with(b"ICC_PROFILE\0") => Some(segment.clone()),
        // Adobe's transform flag says whether 3 or 4 components are RGB/CMYK or YCbCr.
        markers::APP14 if contents.starts_with(b"Adobe") => Some(segment.clone()),
        _ => None,
    }
}

/// A JPEG's data from its first scan on, without application segments or comments
/// between the scans and without anything after the end-of-image marker (which is
/// added when the file lacks it). Each step moves forward, so this ends, and it copies
/// at most its input.
fn clean_scans(data: &[u8]) -> Result<Bytes, String> {
    let mut out = Vec::with_capacity(data.len());
    // `copied`: how much of `data` is in `out` or deliberately left out; `at`: where
    // the search for the next marker goes on.
    let mut copied = 0;
    let mut at = 0;
    while let Some(ff) = data[at..].iter().position(|&b| b == 0xFF).map(|i| at + i) {
        let Some(&marker) = data.get(ff + 1) else {
            break;
        };
        match marker {
            markers::EOI => {
                out.extend_from_slice(&data[copied..ff + 2]);
                return Ok(Bytes::from(out));
            }
            // A new image starting inside this one: this one ended without its marker.
            markers::SOI => {
                out.extend_from_slice(&data[copied..ff]);
                copied = data.len();
                break;
            }
            m if has_length(m) => {
                let length = data
                    .get(ff + 2..ff + 4)
                    .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
                    .ok_or("a segment between scans is cut off")?;
                let end = ff + 2 + length;
                if length < 2 || end > data.len() {
                    return Err("a segment between scans is cut off".into());
                }
                if is_app_or_comment(m) {
                    out.extend_from_slice(&data[copied..ff]);
                    copied = end;
                }
                at = end;
            }
            // Byte stuffing (FF 00), restart markers, fill bytes and stray bytes: scan data.
            _ => at = ff + 1,
        }
    }
    out.extend_from_slice(&data[copied..]);
    out.extend_from_slice(&[0xFF, markers::EOI]);
    Ok(Bytes::from(out))
}

/// JPEG markers followed by a length (the same set `img-parts` reads with a length).
fn has_length(marker: u8) -> bool {
    matches!(marker, 0xC0..=0xCF | 0xDA..=0xDF | 0xE0..=0xEF | 0xF0..=0xFD | 0xFE)
}

/// PNG's ancillary chunks that change how the pixels look or move; every critical chunk
/// is kept too, since a decoder must refuse a file whose critical chunk it lacks.
const PNG_KEPT: [&[u8; 4]; 14] = [
    b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"bKGD", b"pHYs", b"cICP", b"mDCV",
    b"cLLI", b"acTL", b"fcTL", b"fdAT",
];

fn strip_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let exif = kept_orientation(&FileKind::Png, bytes);
    let mut png = Png::from_bytes(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
    png.chunks_mut().retain(|chunk| {
        let kind = chunk.kind();
        let critical = kind[0].is_ascii_uppercase();
        critical || PNG_KEPT.contains(&&kind)
    });
    if exif.is_some() {
        png.set_exif(exif);
    }
    Ok(png.encoder().bytes().to_vec())
}

/// VP8X's flag for an EXIF chunk and for an XMP chunk.
const VP8X_EXIF: u8 = 0b0000_1000;
const VP8X_XMP: u8 = 0b0000_0100;

fn strip_webp(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let exif = kept_orientation(&FileKind::WebP, bytes);
    let mut webp = WebP::from_bytes(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
    let kept = [
        CHUNK_VP8X, CHUNK_VP8, CHUNK_VP8L, CHUNK_ALPH, CHUNK_ANIM, CHUNK_ANMF, CHUNK_ICCP,
    ];
    webp.chunks_mut().retain(|chunk| kept.contains(&chunk.id()));
    // Only an extended (VP8X) file can hold EXIF, and one that had EXIF is one.
    if exif.is_some() && webp.has_chunk(CHUNK_VP8X) {
        webp.set_exif(exif);
    }
    // The header's flags must match the chunks left, or readers look for missing ones.
    let has_exif = webp.has_chunk(CHUNK_EXIF);
    if let Some(vp8x) = webp
        .chunks_mut()
        .iter_mut()
        .find(|chunk| chunk.id() == CHUNK_VP8X)
        && let RiffContent::Data(data) = vp8x.content_mut()
        && let Some(&flags) = data.first()
    {
        let mut header = data.to_vec();
        header[0] = (flags & !(VP8X_XMP | VP8X_EXIF)) | if has_exif { VP8X_EXIF } else { 0 };
        *data = Bytes::from(header);
    }
    Ok(webp.encoder().bytes().to_vec())
}
