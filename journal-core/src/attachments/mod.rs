//! The bytes of attachments: where they are kept ([`files`]: an object store), what a
//! file is, removing identifying metadata from photos, image sizes and thumbnails. The
//! functions over bytes are pure and synchronous, meant for a blocking pool.

mod files;
mod image_size;
mod kind;
mod metadata;
mod orientation;
mod thumbnail;

pub use files::{Files, FilesError};
pub use image_size::dimensions;
pub use kind::{FileKind, SNIFF_LEN};
pub use metadata::{MetadataError, strip_metadata};
pub use thumbnail::{MAX_PIXELS, THUMBNAIL_MAX_SIDE, Thumbnail, ThumbnailError, thumbnail};
