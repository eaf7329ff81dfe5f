//! What an uploaded file is, decided by its first bytes and never by the name or the
//! `Content-Type` the client claims: a type we serve is a promise to the browser, and a
//! claimed type is whatever the uploader wants it to be.

/// How many leading bytes [`FileKind::sniff`] looks at; a caller streaming an upload
/// buffers this much (or the whole file, when shorter) before deciding.
pub const SNIFF_LEN: usize = 8 * 1024;

/// One of the kinds of file an attachment may be. Everything else is refused, markup
/// (HTML, SVG, XML) above all, since a browser would run its scripts on our origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// JPEG photo.
    Jpeg,
    /// PNG image, animated (APNG) or not.
    Png,
    /// WebP image.
    WebP,
    /// GIF image, animated or not.
    Gif,
    /// HEIC/HEIF photo (HEVC in an ISO media file), as iPhones take them.
    Heic,
    /// MP3 audio.
    Mp3,
    /// AAC audio in an MP4 container (`.m4a`, voice memos).
    M4a,
    /// Raw AAC audio (ADTS).
    Aac,
    /// Ogg audio (Vorbis).
    Ogg,
    /// Opus audio in an Ogg container.
    Opus,
    /// WAV audio.
    Wav,
    /// FLAC audio.
    Flac,
    /// PDF document.
    Pdf,
    /// UTF-8 text without NUL bytes that does not start like markup.
    Text,
}

impl FileKind {
    /// The kind of a file from its first bytes (up to [`SNIFF_LEN`] are looked at, so the
    /// head may end in the middle of a character), or `None` when it is not allowed.
    pub fn sniff(head: &[u8]) -> Option<FileKind> {
        let head = &head[..head.len().min(SNIFF_LEN)];
        match infer::get(head) {
            Some(found) => Self::from_mime(found.mime_type()),
            None if is_plain_text(head) => Some(FileKind::Text),
            None => None,
        }
    }

    fn from_mime(mime: &str) -> Option<FileKind> {
        Some(match mime {
            "image/jpeg" => FileKind::Jpeg,
            "image/png" => FileKind::Png,
            "image/webp" => FileKind::WebP,
            "image/gif" => FileKind::Gif,
            "image/heif" => FileKind::Heic,
            "audio/mpeg" => FileKind::Mp3,
            "audio/m4a" => FileKind::M4a,
            "audio/aac" => FileKind::Aac,
            "audio/ogg" => FileKind::Ogg,
            "audio/opus" => FileKind::Opus,
            "audio/x-wav" => FileKind::Wav,
            "audio/x-flac" => FileKind::Flac,
            "application/pdf" => FileKind::Pdf,
            // infer's text matchers (HTML, XML, shell scripts) and every other type.
            _ => return None,
        })
    }

    /// The `Content-Type` the file is served with.
    pub fn mime(&self) -> &'static str {
        match self {
            FileKind::Jpeg => "image/jpeg",
            FileKind::Png => "image/png",
            FileKind::WebP => "image/webp",
            FileKind::Gif => "image/gif",
            FileKind::Heic => "image/heic",
            FileKind::Mp3 => "audio/mpeg",
            FileKind::M4a => "audio/mp4",
            FileKind::Aac => "audio/aac",
            FileKind::Ogg | FileKind::Opus => "audio/ogg",
            FileKind::Wav => "audio/wav",
            FileKind::Flac => "audio/flac",
            FileKind::Pdf => "application/pdf",
            FileKind::Text => "text/plain; charset=utf-8",
        }
    }

    /// The usual file extension, without the dot, for downloads and exports.
    pub fn extension(&self) -> &'static str {
        match self {
            FileKind::Jpeg => "jpg",
            FileKind::Png => "png",
            FileKind::WebP => "webp",
            FileKind::Gif => "gif",
            FileKind::Heic => "heic",
            FileKind::Mp3 => "mp3",
            FileKind::M4a => "m4a",
            FileKind::Aac => "aac",
            FileKind::Ogg => "ogg",
            FileKind::Opus => "opus",
            FileKind::Wav => "wav",
            FileKind::Flac => "flac",
            FileKind::Pdf => "pdf",
            FileKind::Text => "txt",
        }
    }

    /// Whether this is a photo or picture.
    pub fn is_image(&self) -> bool {
        matches!(
            self,
            FileKind::Jpeg | FileKind::Png | FileKind::WebP | FileKind::Gif | FileKind::Heic
        )
    }

    /// Whether it is served `Content-Disposition: inline`. Only images: a PDF viewer or a
    /// text page opened inline runs in our origin's tab, a download does not.
    pub fn inline(&self) -> bool {
        self.is_image()
    }

    /// Whether [`strip_metadata`](super::strip_metadata) removes its identifying
    /// metadata (location, camera serials, names).
    pub fn strips_metadata(&self) -> bool {
        matches!(self, FileKind::Jpeg | FileKind::Png | FileKind::WebP)
    }

    /// Whether this kind carries location and identifying metadata that we cannot
    /// remove: HEIC, for which no well-kept Rust library rewrites the metadata. It is
    /// refused unless the server keeps photo metadata on purpose.
    pub fn has_unstrippable_metadata(&self) -> bool {
        matches!(self, FileKind::Heic)
    }

    /// Whether [`thumbnail`](super::thumbnail) makes a thumbnail of it.
    pub fn has_thumbnail(&self) -> bool {
        matches!(
            self,
            FileKind::Jpeg | FileKind::Png | FileKind::WebP | FileKind::Gif
        )
    }

    /// The `image` crate's name for the formats it decodes.
    pub(crate) fn image_format(&self) -> Option<image::ImageFormat> {
        match self {
            FileKind::Jpeg => Some(image::ImageFormat::Jpeg),
            FileKind::Png => Some(image::ImageFormat::Png),
            FileKind::WebP => Some(image::ImageFormat::WebP),
            FileKind::Gif => Some(image::ImageFormat::Gif),
            _ => None,
        }
    }
}

/// Valid UTF-8 without NUL bytes, allowing for a character cut by the end of the head,
/// and not starting like markup: HTML or SVG served as text is harmless with `nosniff`,
/// but they are refused outright so that no later change of serving can make them live.
fn is_plain_text(head: &[u8]) -> bool {
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // A sequence cut by the end of the head (at most 3 bytes of a 4-byte character).
        Err(cut) if cut.error_len().is_none() && head.len() - cut.valid_up_to() < 4 => {
            match std::str::from_utf8(&head[..cut.valid_up_to()]) {
                Ok(text) => text,
                Err(_) => return false,
            }
        }
        Err(_) => return false,
    };
    !starts_like_markup(text)
}

/// `<` followed by a letter, `!` or `?` (`<svg`, `<!DOCTYPE`, `<?xml`) once a byte order
/// mark and white space are skipped; "<3" is still text.
fn starts_like_markup(text: &str) -> bool {
    let mut chars = text.trim_start_matches('\u{feff}').trim_start().chars();
    chars.next() == Some('<')
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '!' || c == '?')
}
