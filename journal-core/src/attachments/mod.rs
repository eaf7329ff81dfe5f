//! The bytes of attachments: what a file is, removing identifying metadata from photos,
//! image sizes and thumbnails. Pure, synchronous functions over bytes in memory, meant
//! for a blocking pool; storing and serving the files is elsewhere.

mod image_size;
mod kind;
mod metadata;
mod orientation;
mod thumbnail;

pub use image_size::dimensions;
pub use kind::{FileKind, SNIFF_LEN};
pub use metadata::{MetadataError, strip_metadata};
pub use thumbnail::{MAX_PIXELS, THUMBNAIL_MAX_SIDE, Thumbnail, ThumbnailError, thumbnail};
