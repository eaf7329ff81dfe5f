//! The bytes of attachments, through `journal_core::attachments`: sniffing, metadata
//! stripping, sizes and thumbnails, on real images encoded here with real metadata
//! inserted the way cameras and editors write it.

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader, Rgb, RgbImage, Rgba, RgbaImage};
use img_parts::jpeg::{Jpeg, JpegSegment, markers};
use img_parts::png::{Png, PngChunk};
use img_parts::riff::{RiffChunk, RiffContent};
use img_parts::webp::{CHUNK_VP8X, CHUNK_XMP, WebP};
use img_parts::{Bytes, ImageEXIF, ImageICC};
use journal_core::attachments::{
    FileKind, SNIFF_LEN, THUMBNAIL_MAX_SIDE, ThumbnailError, dimensions, strip_metadata, thumbnail,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

/// The author's name, written in EXIF, XMP, IPTC and text chunks.
const NAME: &[u8] = b"Ada Lovelace";

/// 51°30'26.46" N, 0°7'39.93" W as EXIF rationals; no stripped file may hold these bytes.
const LATITUDE: [(u32, u32); 3] = [(51, 1), (30, 1), (2646, 100)];
const LONGITUDE: [(u32, u32); 3] = [(0, 1), (7, 1), (3993, 100)];

fn rationals(values: [(u32, u32); 3]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|(n, d)| [n.to_be_bytes(), d.to_be_bytes()].concat())
        .collect()
}

/// One IFD entry: tag, type, count and a 4-byte value or offset (big-endian).
fn entry(tag: u16, kind: u16, count: u32, value: [u8; 4]) -> Vec<u8> {
    [
        &tag.to_be_bytes()[..],
        &kind.to_be_bytes(),
        &count.to_be_bytes(),
        &value,
    ]
    .concat()
}

/// A camera-like EXIF block (big-endian TIFF, no `Exif\0\0` prefix):
/// IFD0 = Orientation, Artist, a pointer to the GPS IFD; GPS IFD = version, latitude and
/// longitude with their references. Laid out as header, IFD0, GPS IFD, then the values
/// too large for an entry.
fn camera_exif(orientation: u16) -> Vec<u8> {
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    const ASCII: u16 = 2;
    const BYTE: u16 = 1;
    const RATIONAL: u16 = 5;
    let ifd0_at = 8u32;
    let ifd0_len = 2 + 3 * 12 + 4;
    let gps_at = ifd0_at + ifd0_len;
    let gps_len = 2 + 5 * 12 + 4;
    let latitude_at = gps_at + gps_len;
    let longitude_at = latitude_at + 24;
    let artist_at = longitude_at + 24;
    let mut artist = NAME.to_vec();
    artist.push(0);

    let mut tiff = b"MM\0\x2a".to_vec();
    tiff.extend(ifd0_at.to_be_bytes());
    tiff.extend(3u16.to_be_bytes());
    let mut orientation_value = [0; 4];
    orientation_value[..2].copy_from_slice(&orientation.to_be_bytes());
    tiff.extend(entry(0x0112, SHORT, 1, orientation_value));
    tiff.extend(entry(
        0x013B,
        ASCII,
        artist.len() as u32,
        artist_at.to_be_bytes(),
    ));
    tiff.extend(entry(0x8825, LONG, 1, gps_at.to_be_bytes()));
    tiff.extend(0u32.to_be_bytes());
    tiff.extend(5u16.to_be_bytes());
    tiff.extend(entry(0x0000, BYTE, 4, [2, 3, 0, 0]));
    tiff.extend(entry(0x0001, ASCII, 2, *b"N\0\0\0"));
    tiff.extend(entry(0x0002, RATIONAL, 3, latitude_at.to_be_bytes()));
    tiff.extend(entry(0x0003, ASCII, 2, *b"W\0\0\0"));
    tiff.extend(entry(0x0004, RATIONAL, 3, longitude_at.to_be_bytes()));
    tiff.extend(0u32.to_be_bytes());
    tiff.extend(rationals(LATITUDE));
    tiff.extend(rationals(LONGITUDE));
    tiff.extend(artist);
    assert_eq!(
        Orientation::from_exif_chunk(&tiff).map(|o| o.to_exif()),
        Some(orientation as u8)
    );
    tiff
}

/// An XMP packet with the location and the author, as photo editors write it.
fn xmp_packet() -> Vec<u8> {
    br#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" exif:GPSLatitude="51,30.441N" exif:GPSLongitude="0,7.6655W"><dc:creator>Ada Lovelace</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>"#.to_vec()
}

/// Photoshop's APP13: an 8BIM resource 0x0404 holding IPTC's By-line (2:80).
fn iptc_segment() -> Vec<u8> {
    let mut iptc = vec![0x1C, 0x02, 0x50];
    iptc.extend((NAME.len() as u16).to_be_bytes());
    iptc.extend(NAME);
    let mut contents = b"Photoshop 3.0\0".to_vec();
    contents.extend(b"8BIM");
    contents.extend(0x0404u16.to_be_bytes());
    contents.extend([0, 0]); // empty Pascal name, padded
    contents.extend((iptc.len() as u32).to_be_bytes());
    contents.extend(&iptc);
    if iptc.len() % 2 == 1 {
        contents.push(0);
    }
    contents
}

/// A fake but well-formed-enough ICC profile: only its bytes must survive.
fn icc_profile() -> Vec<u8> {
    let mut icc = vec![0u8; 128];
    icc[36..40].copy_from_slice(b"acsp");
    icc.extend(b"colour profile bytes");
    icc
}

/// A picture with some structure, so that pixel comparisons mean something.
fn picture(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        Rgb([
            (x * 7 % 256) as u8,
            (y * 13 % 256) as u8,
            ((x + y) % 256) as u8,
        ])
    })
}

fn encode(image: &DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), format)
        .expect("encode fixture");
    bytes
}

/// A JPEG with a camera EXIF (GPS, artist, the given orientation), an XMP packet with
/// GPS, IPTC, a comment and an ICC profile.
fn camera_jpeg(width: u32, height: u32, orientation: u16) -> Vec<u8> {
    let plain = encode(
        &DynamicImage::ImageRgb8(picture(width, height)),
        image::ImageFormat::Jpeg,
    );
    let mut jpeg = Jpeg::from_bytes(plain.into()).unwrap();
    jpeg.set_icc_profile(Some(icc_profile().into()));
    jpeg.set_exif(Some(camera_exif(orientation).into()));
    let mut xmp = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
    xmp.extend(xmp_packet());
    let segments = jpeg.segments_mut();
    segments.insert(1, JpegSegment::new_with_contents(markers::APP1, xmp.into()));
    segments.insert(
        1,
        JpegSegment::new_with_contents(markers::APP13, iptc_segment().into()),
    );
    segments.insert(
        1,
        JpegSegment::new_with_contents(markers::COM, Bytes::from_static(b"at Ada Lovelace's")),
    );
    jpeg.encoder().bytes().to_vec()
}

/// A PNG with `eXIf` (GPS), an `iTXt` XMP packet and a `tEXt` author.
fn camera_png(orientation: u16, transparent: bool) -> Vec<u8> {
    let image = if transparent {
        DynamicImage::ImageRgba8(RgbaImage::from_fn(40, 20, |x, _| {
            Rgba([200, 10, 10, if x < 20 { 0 } else { 255 }])
        }))
    } else {
        DynamicImage::ImageRgb8(picture(40, 20))
    };
    let plain = encode(&image, image::ImageFormat::Png);
    let mut png = Png::from_bytes(plain.into()).unwrap();
    png.set_exif(Some(camera_exif(orientation).into()));
    let mut itxt = b"XML:com.adobe.xmp\0\0\0\0\0".to_vec();
    itxt.extend(xmp_packet());
    let mut text = b"Author\0".to_vec();
    text.extend(NAME);
    let chunks = png.chunks_mut();
    let at = chunks.len() - 1; // before IEND
    chunks.insert(at, PngChunk::new(*b"iTXt", itxt.into()));
    chunks.insert(1, PngChunk::new(*b"tEXt", text.into()));
    png.encoder().bytes().to_vec()
}

/// An extended (VP8X) WebP with EXIF (GPS) and XMP chunks and their flags set.
fn camera_webp(orientation: u16) -> Vec<u8> {
    let plain = encode(
        &DynamicImage::ImageRgb8(picture(30, 20)),
        image::ImageFormat::WebP,
    );
    let mut webp = WebP::from_bytes(plain.into()).unwrap();
    webp.set_exif(Some(camera_exif(orientation).into()));
    webp.chunks_mut().push(RiffChunk::new(
        CHUNK_XMP,
        RiffContent::Data(xmp_packet().into()),
    ));
    let vp8x = webp
        .chunks_mut()
        .iter_mut()
        .find(|chunk| chunk.id() == CHUNK_VP8X)
        .expect("set_exif makes the file extended");
    if let RiffContent::Data(data) = vp8x.content_mut() {
        let mut header = data.to_vec();
        header[0] |= 0b0000_0100; // XMP
        *data = header.into();
    }
    webp.encoder().bytes().to_vec()
}

fn gif(width: u32, height: u32) -> Vec<u8> {
    encode(
        &DynamicImage::ImageRgba8(DynamicImage::ImageRgb8(picture(width, height)).to_rgba8()),
        image::ImageFormat::Gif,
    )
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Nothing identifying is left anywhere in the file's bytes.
fn assert_nothing_identifying(bytes: &[u8]) {
    for needle in [
        &rationals(LATITUDE)[..],
        &rationals(LONGITUDE)[..],
        b"GPSLatitude",
        b"GPSLongitude",
        b"x:xmpmeta",
        b"http://ns.adobe.com/xap/1.0/",
        b"Photoshop 3.0",
        b"8BIM",
        NAME,
    ] {
        assert!(
            !contains(bytes, needle),
            "{:?} is still in the file",
            String::from_utf8_lossy(needle)
        );
    }
}

fn decoded(bytes: &[u8], format: image::ImageFormat) -> RgbaImage {
    image::load_from_memory_with_format(bytes, format)
        .expect("a valid image")
        .to_rgba8()
}

/// The orientation a decoder of the `image` crate reads from the file.
fn decoder_orientation(bytes: &[u8], format: image::ImageFormat) -> Orientation {
    ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .unwrap()
        .orientation()
        .unwrap()
}

fn check_stripped(kind: FileKind, format: image::ImageFormat, original: &[u8]) -> Vec<u8> {
    let stripped = strip_metadata(&kind, original).expect("a well-formed file");
    assert_eq!(FileKind::sniff(&stripped), Some(kind));
    assert_nothing_identifying(&stripped);
    assert_eq!(decoded(&stripped, format), decoded(original, format));
    assert_eq!(
        decoder_orientation(&stripped, format),
        Orientation::Rotate90
    );
    stripped
}

// ---------------------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------------------

#[test]
fn fixtures_carry_the_metadata_the_tests_look_for() {
    for bytes in [camera_jpeg(64, 48, 6), camera_png(6, false), camera_webp(6)] {
        assert!(contains(&bytes, &rationals(LATITUDE)));
        assert!(contains(&bytes, b"GPSLatitude"));
        assert!(contains(&bytes, NAME));
    }
    assert!(contains(&camera_jpeg(64, 48, 6), b"Photoshop 3.0"));
}

#[test]
fn a_jpeg_loses_gps_xmp_iptc_and_comments_but_keeps_orientation_icc_and_pixels() {
    let original = camera_jpeg(64, 48, 6);

    let stripped = check_stripped(FileKind::Jpeg, image::ImageFormat::Jpeg, &original);

    let jpeg = Jpeg::from_bytes(stripped.into()).unwrap();
    assert_eq!(jpeg.icc_profile().as_deref(), Some(&icc_profile()[..]));
    let exif = jpeg.exif().expect("the orientation's EXIF block");
    assert_eq!(exif.len(), 26, "only the Orientation tag is left");
    assert_eq!(jpeg.segments_by_marker(markers::COM).count(), 0);
    assert_eq!(jpeg.segments_by_marker(markers::APP13).count(), 0);
}

#[test]
fn a_png_loses_exif_gps_xmp_and_text_but_keeps_orientation_and_pixels() {
    let original = camera_png(6, false);

    let stripped = check_stripped(FileKind::Png, image::ImageFormat::Png, &original);

    let png = Png::from_bytes(stripped.into()).unwrap();
    assert_eq!(png.exif().map(|exif| exif.len()), Some(26));
    for text in [*b"iTXt", *b"tEXt", *b"zTXt"] {
        assert!(png.chunk_by_type(text).is_none());
    }
}

#[test]
fn a_webp_loses_exif_gps_and_xmp_and_its_header_says_so() {
    let original = camera_webp(6);

    let stripped = check_stripped(FileKind::WebP, image::ImageFormat::WebP, &original);

    let webp = WebP::from_bytes(stripped.into()).unwrap();
    assert!(!webp.has_chunk(CHUNK_XMP));
    let flags = webp
        .chunk_by_id(CHUNK_VP8X)
        .unwrap()
        .content()
        .data()
        .unwrap()[0];
    assert_eq!(flags & 0b0000_0100, 0, "no XMP flag without an XMP chunk");
    assert_eq!(
        flags & 0b0000_1000,
        0b0000_1000,
        "the EXIF flag for the orientation"
    );
}

#[test]
fn an_upright_photo_keeps_no_exif_at_all() {
    let stripped = strip_metadata(&FileKind::Jpeg, &camera_jpeg(32, 32, 1)).unwrap();

    assert!(
        Jpeg::from_bytes(stripped.clone().into())
            .unwrap()
            .exif()
            .is_none()
    );
    assert_nothing_identifying(&stripped);
}

#[test]
fn a_jpeg_loses_what_follows_its_end_and_comments_between_scans() {
    let mut original = camera_jpeg(32, 32, 1);
    let end = original.len() - 2;
    assert_eq!(&original[end..], &[0xFF, 0xD9]);
    // A comment after the scan, before the end marker, and a "motion photo" trailer.
    let mut comment = vec![0xFF, 0xFE, 0, 2 + NAME.len() as u8];
    comment.extend(NAME);
    original.splice(end..end, comment);
    original.extend(b"ftypmp42 a video with Ada Lovelace in it");

    let stripped = strip_metadata(&FileKind::Jpeg, &original).unwrap();

    assert_nothing_identifying(&stripped);
    assert!(stripped.ends_with(&[0xFF, 0xD9]));
    assert_eq!(
        decoded(&stripped, image::ImageFormat::Jpeg),
        decoded(&camera_jpeg(32, 32, 1), image::ImageFormat::Jpeg)
    );
}

#[test]
fn kinds_without_stripping_come_back_unchanged() {
    let gif = gif(8, 8);
    assert_eq!(strip_metadata(&FileKind::Gif, &gif).unwrap(), gif);
    assert_eq!(
        strip_metadata(&FileKind::Text, b"dear diary").unwrap(),
        b"dear diary"
    );
}

#[test]
fn heic_is_the_kind_whose_metadata_cannot_be_stripped() {
    let kinds = [
        FileKind::Jpeg,
        FileKind::Png,
        FileKind::WebP,
        FileKind::Gif,
        FileKind::Heic,
    ];
    let unstrippable: Vec<_> = kinds
        .iter()
        .filter(|kind| kind.has_unstrippable_metadata())
        .collect();
    assert_eq!(unstrippable, [&FileKind::Heic]);
    assert!(!FileKind::Heic.strips_metadata());
}

#[test]
fn a_file_of_another_kind_is_an_error_not_a_panic() {
    let png = camera_png(1, false);
    let error = strip_metadata(&FileKind::Jpeg, &png).unwrap_err();
    assert_eq!(error.kind(), FileKind::Jpeg);
    assert!(strip_metadata(&FileKind::WebP, &png).is_err());
    assert!(strip_metadata(&FileKind::Png, b"").is_err());
}

/// Every cut of every fixture: an error or a file, never a panic or a hang.
#[test]
fn truncated_files_are_errors_or_files_never_panics() {
    let fixtures = [
        (FileKind::Jpeg, camera_jpeg(24, 16, 6)),
        (FileKind::Png, camera_png(6, true)),
        (FileKind::WebP, camera_webp(8)),
        (FileKind::Gif, gif(12, 8)),
    ];
    for (kind, bytes) in &fixtures {
        for cut in 0..bytes.len() {
            let head = &bytes[..cut];
            if let Ok(stripped) = strip_metadata(kind, head) {
                assert!(stripped.len() <= head.len() + 64, "bounded output");
            }
            let _ = dimensions(kind, head);
            if cut % 17 == 0 {
                let _ = thumbnail(kind, head);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Bytes changed anywhere in a real file: an error or a file, never a panic.
    #[test]
    fn damaged_files_never_panic(
        which in 0usize..3,
        changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let (kind, mut bytes) = match which {
            0 => (FileKind::Jpeg, camera_jpeg(16, 16, 3)),
            1 => (FileKind::Png, camera_png(3, false)),
            _ => (FileKind::WebP, camera_webp(3)),
        };
        for (at, value) in changes {
            let at = at.index(bytes.len());
            bytes[at] = value;
        }
        let _ = strip_metadata(&kind, &bytes);
        let _ = dimensions(&kind, &bytes);
        let _ = thumbnail(&kind, &bytes);
    }

    /// Junk after a real signature: never a panic.
    #[test]
    fn junk_after_a_signature_never_panics(
        which in 0usize..3,
        junk in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        let (kind, mut bytes) = match which {
            0 => (FileKind::Jpeg, vec![0xFF, 0xD8]),
            1 => (FileKind::Png, b"\x89PNG\r\n\x1a\n".to_vec()),
            _ => (FileKind::WebP, b"RIFF\xff\xff\x00\x00WEBP".to_vec()),
        };
        bytes.extend(junk);
        let _ = strip_metadata(&kind, &bytes);
        let _ = dimensions(&kind, &bytes);
        let _ = thumbnail(&kind, &bytes);
    }
}

// ---------------------------------------------------------------------------------------
// Sniffing
// ---------------------------------------------------------------------------------------

fn with_zeros(head: &[u8], len: usize) -> Vec<u8> {
    let mut bytes = head.to_vec();
    bytes.resize(len, 0);
    bytes
}

#[test]
fn each_allowed_kind_is_recognised_by_its_bytes() {
    let mut opus = with_zeros(b"OggS\0\x02", 28);
    opus.extend(b"OpusHead");
    opus.resize(64, 0);
    let samples: Vec<(Vec<u8>, FileKind, &str)> = vec![
        (camera_jpeg(8, 8, 1), FileKind::Jpeg, "image/jpeg"),
        (camera_png(1, false), FileKind::Png, "image/png"),
        (camera_webp(1), FileKind::WebP, "image/webp"),
        (gif(4, 4), FileKind::Gif, "image/gif"),
        (
            with_zeros(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", 64),
            FileKind::Heic,
            "image/heic",
        ),
        (
            with_zeros(b"ID3\x03\0\0\0\0\0\0", 64),
            FileKind::Mp3,
            "audio/mpeg",
        ),
        (
            with_zeros(b"\0\0\0\x20ftypM4A \0\0\0\0M4A mp42isom", 64),
            FileKind::M4a,
            "audio/mp4",
        ),
        (
            with_zeros(b"\xFF\xF1\x50\x80", 64),
            FileKind::Aac,
            "audio/aac",
        ),
        (with_zeros(b"OggS\0\x02", 64), FileKind::Ogg, "audio/ogg"),
        (opus, FileKind::Opus, "audio/ogg"),
        (
            with_zeros(b"RIFF\x24\0\0\0WAVEfmt ", 64),
            FileKind::Wav,
            "audio/wav",
        ),
        (
            with_zeros(b"fLaC\0\0\0\x22", 64),
            FileKind::Flac,
            "audio/flac",
        ),
        (
            b"%PDF-1.7\n1 0 obj\n<< >>\nendobj\n".to_vec(),
            FileKind::Pdf,
            "application/pdf",
        ),
        (
            "Dear diary, a coffee ☕ and <3".as_bytes().to_vec(),
            FileKind::Text,
            "text/plain; charset=utf-8",
        ),
    ];
    for (bytes, kind, mime) in samples {
        assert_eq!(FileKind::sniff(&bytes), Some(kind), "{mime}");
        assert_eq!(kind.mime(), mime);
        assert!(!kind.extension().is_empty());
    }
}

#[test]
fn markup_executables_archives_and_junk_are_refused() {
    let refused: [&[u8]; 11] = [
        b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>",
        b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        b"\xEF\xBB\xBF  <!DOCTYPE html><html><body>hi</body></html>",
        b"<html><script>alert(1)</script></html>",
        b"\n\n<p onclick=alert(1)>hi</p>",
        b"\x7FELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3E\0",
        b"PK\x03\x04\x14\0\0\0\x08\0",
        b"MZ\x90\0\x03\0\0\0",
        b"text with a \0 NUL byte",
        b"\xC3\x28 invalid UTF-8",
        b"",
    ];
    for bytes in refused {
        assert_eq!(
            FileKind::sniff(bytes),
            None,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn text_cut_in_the_middle_of_a_character_is_still_text() {
    let mut text = "a".repeat(SNIFF_LEN - 1).into_bytes();
    text.extend("é and more".as_bytes());

    assert_eq!(FileKind::sniff(&text), Some(FileKind::Text));
}

#[test]
fn binary_junk_is_refused() {
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();

    assert_eq!(FileKind::sniff(&junk), None);
}

#[test]
fn only_images_are_shown_inline() {
    assert!(FileKind::Jpeg.inline());
    assert!(FileKind::Gif.inline());
    for kind in [FileKind::Pdf, FileKind::Text, FileKind::Mp3] {
        assert!(!kind.inline(), "{kind:?}");
        assert!(!kind.is_image());
    }
}

// ---------------------------------------------------------------------------------------
// Dimensions and thumbnails
// ---------------------------------------------------------------------------------------

#[test]
fn dimensions_are_as_displayed() {
    assert_eq!(
        dimensions(&FileKind::Jpeg, &camera_jpeg(64, 48, 1)),
        Some((64, 48))
    );
    assert_eq!(
        dimensions(&FileKind::Jpeg, &camera_jpeg(64, 48, 6)),
        Some((48, 64))
    );
    assert_eq!(
        dimensions(&FileKind::Png, &camera_png(8, false)),
        Some((20, 40))
    );
    assert_eq!(dimensions(&FileKind::WebP, &camera_webp(3)), Some((30, 20)));
    assert_eq!(dimensions(&FileKind::Gif, &gif(12, 8)), Some((12, 8)));
    assert_eq!(dimensions(&FileKind::Pdf, b"%PDF-1.7"), None);
    assert_eq!(dimensions(&FileKind::Png, b"\x89PNG\r\n\x1a\n"), None);
}

#[test]
fn a_large_photo_gets_a_thumbnail_480_wide() {
    let jpeg = encode(
        &DynamicImage::ImageRgb8(picture(2000, 1000)),
        image::ImageFormat::Jpeg,
    );

    let thumb = thumbnail(&FileKind::Jpeg, &jpeg).unwrap().unwrap();

    assert_eq!((thumb.width, thumb.height), (THUMBNAIL_MAX_SIDE, 240));
    assert_eq!(thumb.kind, FileKind::Jpeg);
    let image =
        image::load_from_memory_with_format(&thumb.bytes, image::ImageFormat::Jpeg).unwrap();
    assert_eq!((image.width(), image.height()), (480, 240));
}

#[test]
fn a_small_image_is_not_enlarged() {
    let png = encode(
        &DynamicImage::ImageRgb8(picture(100, 50)),
        image::ImageFormat::Png,
    );

    let thumb = thumbnail(&FileKind::Png, &png).unwrap().unwrap();

    assert_eq!((thumb.width, thumb.height), (100, 50));
}

#[test]
fn a_thumbnail_is_turned_as_the_photo_says() {
    let jpeg = camera_jpeg(600, 300, 6);

    let thumb = thumbnail(&FileKind::Jpeg, &jpeg).unwrap().unwrap();

    assert_eq!((thumb.width, thumb.height), (240, 480));
    let image = image::load_from_memory(&thumb.bytes).unwrap();
    assert_eq!((image.width(), image.height()), (240, 480));
    assert!(
        !contains(&thumb.bytes, NAME),
        "thumbnails carry no metadata"
    );
}

#[test]
fn transparency_keeps_a_png_thumbnail_and_opaque_images_get_jpeg() {
    let transparent = thumbnail(&FileKind::Png, &camera_png(1, true))
        .unwrap()
        .unwrap();
    assert_eq!(transparent.kind, FileKind::Png);
    let pixels = decoded(&transparent.bytes, image::ImageFormat::Png);
    assert_eq!(pixels.get_pixel(0, 0)[3], 0);

    let opaque = RgbaImage::from_pixel(10, 10, Rgba([1, 2, 3, 255]));
    let png = encode(&DynamicImage::ImageRgba8(opaque), image::ImageFormat::Png);
    assert_eq!(
        thumbnail(&FileKind::Png, &png).unwrap().unwrap().kind,
        FileKind::Jpeg
    );
}

#[test]
fn gif_and_webp_get_thumbnails_other_kinds_none() {
    let thumb = thumbnail(&FileKind::Gif, &gif(12, 8)).unwrap().unwrap();
    assert_eq!((thumb.width, thumb.height), (12, 8));
    let thumb = thumbnail(&FileKind::WebP, &camera_webp(1))
        .unwrap()
        .unwrap();
    assert_eq!((thumb.width, thumb.height), (30, 20));

    assert!(thumbnail(&FileKind::Pdf, b"%PDF-1.7").unwrap().is_none());
    assert!(
        thumbnail(&FileKind::Heic, b"\0\0\0\x18ftypheic")
            .unwrap()
            .is_none()
    );
}

/// A PNG whose header claims 100000×100000 pixels, with one tiny compressed row.
fn png_bomb() -> Vec<u8> {
    let small = encode(
        &DynamicImage::ImageRgb8(picture(1, 1)),
        image::ImageFormat::Png,
    );
    let mut png = Png::from_bytes(small.into()).unwrap();
    let mut header = png.chunk_by_type(*b"IHDR").unwrap().contents().to_vec();
    header[0..4].copy_from_slice(&100_000u32.to_be_bytes());
    header[4..8].copy_from_slice(&100_000u32.to_be_bytes());
    png.chunks_mut()[0] = PngChunk::new(*b"IHDR", header.into());
    png.encoder().bytes().to_vec()
}

#[test]
fn a_decompression_bomb_is_an_error() {
    let bomb = png_bomb();

    let error = thumbnail(&FileKind::Png, &bomb).unwrap_err();

    assert!(
        matches!(
            error,
            ThumbnailError::TooLarge {
                width: 100_000,
                height: 100_000
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_bomb_within_the_pixel_cap_but_past_the_memory_cap_is_an_error() {
    // 10000×10000 16-bit RGBA: 100 megapixels, 800 MB decoded, more than the decoder may
    // allocate.
    let small = encode(
        &DynamicImage::ImageRgba16(image::ImageBuffer::from_pixel(1, 1, Rgba([1u16; 4]))),
        image::ImageFormat::Png,
    );
    let mut png = Png::from_bytes(small.into()).unwrap();
    let mut header = png.chunk_by_type(*b"IHDR").unwrap().contents().to_vec();
    header[0..4].copy_from_slice(&10_000u32.to_be_bytes());
    header[4..8].copy_from_slice(&10_000u32.to_be_bytes());
    png.chunks_mut()[0] = PngChunk::new(*b"IHDR", header.into());

    let error = thumbnail(&FileKind::Png, &png.encoder().bytes()).unwrap_err();

    assert!(matches!(error, ThumbnailError::Decode(_)), "{error:?}");
}
