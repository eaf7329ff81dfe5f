//! The bytes of attachments: where they are kept ([`Files`]: an object store, a folder
//! or a [`Bucket`]), moving them between stores ([`move_files`]), what a file is,
//! removing identifying metadata from photos, image sizes and thumbnails. The functions
//! over bytes are pure and synchronous, meant for a blocking pool.

mod bucket;
mod files;
mod image_size;
mod kind;
mod metadata;
mod moving;
mod orientation;
mod thumbnail;

pub use bucket::{Addressing, Bucket};
pub(crate) use files::is_journal_object;
pub use files::{Files, FilesError};
pub use image_size::dimensions;
pub use kind::{FileKind, SNIFF_LEN};
pub use metadata::{MetadataError, strip_metadata};
pub use moving::{MOVE_JOBS, MoveReport, Moved, move_files};
pub use thumbnail::{MAX_PIXELS, THUMBNAIL_MAX_SIDE, Thumbnail, ThumbnailError, thumbnail};
