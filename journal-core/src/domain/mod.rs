//! Domain values that are valid by construction.
//!
//! Every value that reaches a store went through one of these constructors, so the
//! rules about what is acceptable live here and nowhere else. Each constructor
//! returns a [`ValidationError`](crate::error::ValidationError) that names the field
//! and says what to change.
//!
//! One file per kind of value: `ids` (users, entries, tokens), `account`, `entry`
//! (titles, content, tags), `paging`, `search`, `sync_cursor` and `time`; `text` holds the rules the
//! text values share. Everything is re-exported here, so a value is named
//! `domain::Title` wherever it lives.

mod account;
mod entry;
mod ids;
mod paging;
mod resolution;
mod search;
mod sync_cursor;
mod text;
mod time;

pub use account::{
    Email, FullName, NAME_MAX_CHARS, Nickname, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS,
    PROFILE_PIC_MAX_BYTES, Password, ProfilePic, Role,
};
pub use entry::{
    CONTENT_MAX_CHARS, Content, MAX_TAGS, TAG_MAX_CHARS, TITLE_MAX_CHARS, Tag, Tags, Title,
};
pub(crate) use entry::{EARLIEST_DATE_MS, check_entry_date, entry_date, latest_date};
pub use ids::{AccessTokenId, AttachmentId, EntryId, RevisionId, UnknownId, UserId};
pub use paging::{Cursor, LIMIT_DEFAULT, LIMIT_MAX, MAX_PAGE_DEPTH, PageRequest};
pub use resolution::Resolution;
pub use search::{
    Lookup, MAX_RUN_CHARS_INDEXED, RUN_CHARS, SearchQuery, index_words, is_run_char, run_class,
    search_words,
};
pub use sync_cursor::{SYNC_EPOCH_CHARS, SyncCursor};
pub(crate) use text::bounded_text;
pub use time::{MonthDay, Timestamp, Zone};
