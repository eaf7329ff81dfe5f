//! Storage: one trait, one implementation per backend.
//!
//! A store only keeps and finds data; it knows no rules. Ownership, visibility and
//! validation live in [`crate::Journal`], so every backend gets them the same way.
//! Every backend must pass the storage story in `tests/store_story.rs`.

use std::sync::Arc;

use async_trait::async_trait;

use crate::domain::PageRequest;
use crate::domain::{AttachmentId, EntryId, RevisionId, Role, SearchQuery, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::filter::{EntryFilter, TagCount};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{
    Attachment, CacheCounts, Conflict, EditedVia, Entry, EntryChange, Page, Profile, Revision,
    TrashedEntry,
};

mod copy;
mod database_url;
pub(crate) mod entry_columns;
mod import_batch;
mod kept_pages;
mod list_query;
pub(crate) mod revision_rows;
mod security_events;
pub(crate) mod sync_write;
pub(crate) use copy::all_revisions;
pub use copy::{CopyError, CopyReport, copy_all};
pub use database_url::{DatabaseUrl, DatabaseUrlError};
pub use import_batch::{ImportOutcome, ImportRow, TRIMMED};
pub use kept_pages::{KEPT_PAGES, KeptPage, kept_page};
pub use revision_rows::{Edit, EntryWrite, HistoryKeep, SNAPSHOT_EVERY};
pub use security_events::{
    PRUNE_BATCH, SecurityEventRecord, SecurityEventStore, SecurityLogBounds,
};
pub use sync_write::{Place, SyncWrite, SyncWritten};
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod sqlite;

/// The name of the unique constraint on users' e-mail addresses. Backends report a
/// violation of it as `StoreError::Conflict(Conflict::EmailTaken)`.
pub const EMAIL_CONSTRAINT: &str = "users_email_key";

/// The name of the foreign key from an entry to its author. Backends report a write
/// whose author is gone (an account deleted meanwhile) as
/// `StoreError::Conflict(Conflict::AuthorGone)`.
pub const AUTHOR_CONSTRAINT: &str = "entries_author_id_fkey";

/// How many hexadecimal characters of an invitation's hash are its id, by which it is
/// listed and revoked (the code itself is never stored). 64 bits: ids of the
/// invitations of one server do not collide.
pub const INVITE_ID_CHARS: usize = 16;

/// A user as stored, with the password hash. Never leaves the core.
#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    /// The public part.
    pub profile: Profile,
    /// argon2id PHC string.
    pub password_hash: String,
    /// When the password was last set; tokens issued before are void.
    pub password_changed_at: Timestamp,
    /// Registration time.
    pub created_at: Timestamp,
    /// True when an administrator disabled the account.
    pub disabled: bool,
    /// The second factor.
    pub totp: TotpState,
}

impl std::fmt::Debug for UserRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserRecord")
            .field("profile", &self.profile)
            .field("password_hash", &"<redacted>")
            .field("password_changed_at", &self.password_changed_at)
            .field("disabled", &self.disabled)
            .field("totp", &self.totp.secret.is_some())
            .finish()
    }
}

/// A user's second factor as stored: the secret once enabled, a secret being set up,
/// and the last 30-second step whose code was accepted.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TotpState {
    /// The enabled secret (base32); `None` when the second factor is off.
    pub secret: Option<String>,
    /// A secret set up but not yet confirmed by a code.
    pub pending: Option<String>,
    /// The last step accepted; codes of it and before are refused.
    pub last_step: i64,
}

/// A change to a user's second factor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TotpChange {
    /// Keep this secret as being set up (replacing one being set up before).
    Pending(String),
    /// Make the secret being set up the enabled one, with these recovery codes'
    /// hashes (replacing any before).
    Enable {
        /// SHA-256 hashes of the recovery codes.
        recovery_hashes: Vec<String>,
        /// The step of the code that confirmed it, so that code is not used again.
        step: i64,
    },
    /// Replace the recovery codes of an enabled second factor with these hashes'
    /// (nothing changes when it is off).
    NewRecoveryCodes {
        /// SHA-256 hashes of the new recovery codes.
        recovery_hashes: Vec<String>,
    },
    /// Turn the second factor off: forget the secrets and recovery codes.
    Disable,
    /// Turn it off for an owner who cannot (an administrator's reset), and end every
    /// login session: tokens issued before `signed_out_at`, or before any token recorded
    /// by [`Store::record_token`], stop working, as after a password change.
    Reset {
        /// When the sessions end.
        signed_out_at: Timestamp,
    },
}

/// A personal access token as stored: the token, its owner and its secret's hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessTokenRecord {
    /// The token, as its owner sees it.
    pub token: crate::model::AccessToken,
    /// Its owner.
    pub user_id: UserId,
    /// SHA-256 of the secret, hex.
    pub hash: String,
}

/// A web session's refresh token as stored (see `Journal::start_session`): only its
/// hash, the session it belongs to, and the login token it issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionToken {
    /// SHA-256 of the secret, hex.
    pub hash: String,
    /// The session: the same for every token a session rotates through.
    pub session_id: uuid::Uuid,
    /// Whose session.
    pub user_id: UserId,
    /// When the session began (a sign-in).
    pub started_at: Timestamp,
    /// When the session ends whatever happens: `started_at` and the operator's limit.
    pub expires_at: Timestamp,
    /// The id of the login token issued with this refresh token.
    pub access_token_id: String,
    /// When that login token expires.
    pub access_expires_at: Timestamp,
}

/// What became of a refresh token [`Store::rotate_session_token`] was asked to rotate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// Marked used, and the next one added.
    Rotated,
    /// It was used already: a second holder.
    Used,
    /// It is gone: its session ended meanwhile.
    Gone,
}

/// How many used refresh tokens a session keeps, to know them again if they come back.
pub const USED_SESSION_TOKENS_KEPT: usize = 20;

/// How many web sessions one account keeps; starting another ends the oldest.
pub const SESSIONS_PER_USER: usize = 50;

/// Which web sessions to end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionsToEnd {
    /// One session (a sign-out, or the reuse of a rotated token).
    One(uuid::Uuid),
    /// Every session of the user, and every login token issued before `at`, dated as
    /// a password change is (after every token recorded so far).
    Everywhere {
        /// Whose.
        user: UserId,
        /// When.
        at: Timestamp,
    },
}

/// What authenticating a personal access token needs, read in one query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessTokenAuth {
    /// The token.
    pub token: AccessTokenRecord,
    /// Its owner's role now.
    pub role: Role,
    /// True when its owner's account is disabled.
    pub disabled: bool,
}

/// An invitation as stored: its code's hash, who made it and until when it works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InviteRecord {
    /// SHA-256 of the code, hex.
    pub hash: String,
    /// The administrator who made it.
    pub created_by: UserId,
    /// When.
    pub created_at: Timestamp,
    /// When it stops working.
    pub expires_at: Timestamp,
}

/// What authenticating a token needs to know about its user, read in one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthState {
    /// The user's role now.
    pub role: Role,
    /// When the password was last set.
    pub password_changed_at: Timestamp,
    /// True when the token id was revoked by logout.
    pub revoked: bool,
    /// True when an administrator disabled the account.
    pub disabled: bool,
}

/// An entry together with its author's privacy flag, which decides who may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEntry {
    /// The entry.
    pub entry: Entry,
    /// True when the author's profile is private.
    pub author_private: bool,
}

/// An attachment with what decides who may read it (see `Journal::attachment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAttachment {
    /// The attachment.
    pub attachment: Attachment,
    /// Its author deleted it; kept while a revision may name it, for them only.
    pub deleted: bool,
    /// Where its entry is: `None` while unattached or once the entry is purged.
    pub entry: Option<AttachedTo>,
    /// True when the author's profile is private (or the account disabled).
    pub author_private: bool,
}

impl StoredAttachment {
    /// Whether anyone may read it by its plain link: not deleted, its entry live and
    /// public, its author's profile public.
    pub fn readable_by_anyone(&self) -> bool {
        !self.deleted
            && !self.author_private
            && self.entry == Some(AttachedTo::Live { public: true })
    }
}

/// The entry an attachment belongs to, as far as reading it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachedTo {
    /// A live entry, public or not.
    Live {
        /// The entry is public.
        public: bool,
    },
    /// An entry in its author's trash.
    Trashed,
}

/// Most revisions of one entry a page of the change feed carries: the newest, as a
/// pruned history keeps them (the server keeps every one). Each may hold a whole text,
/// and an entry may have been edited thousands of times since a replica last synced.
pub const FEED_REVISIONS_PER_CHANGE: u32 = 100;

/// About how many bytes of text (titles and contents, of entries and revisions) a page
/// of the change feed holds: past it the page ends early, with `more`. A page holds at
/// least one change.
pub const FEED_PAGE_BYTES: usize = 8 << 20;

/// The bytes of text a change carries, for [`FEED_PAGE_BYTES`].
pub(crate) fn change_bytes(change: &EntryChange) -> usize {
    let entry = match &change.state {
        crate::model::ChangeState::Live { entry }
        | crate::model::ChangeState::Trashed { entry, .. } => {
            entry.title.len() + entry.content.len()
        }
        crate::model::ChangeState::Purged { .. } => 0,
    };
    entry
        + change
            .revisions
            .iter()
            .map(|r| r.title.len() + r.content.len())
            .sum::<usize>()
}

/// One page of an author's change feed as stored (see [`Store::changes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChanges {
    /// The changes, in the order of their numbers, each with its number.
    pub changes: Vec<(u64, EntryChange)>,
    /// True when more changes come after these.
    pub more: bool,
    /// The author's change counter: no change of theirs has a higher number.
    pub counter: u64,
    /// The newest number of the author's tombstones dropped past the sync lease
    /// ([`Store::forget_tombstones`]): a replica whose cursor is older missed a purge.
    pub forgotten_through: u64,
    /// The database's sync epoch (see [`SyncCursor`](crate::domain::SyncCursor)).
    pub epoch: String,
}

/// Which of an author's entries to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Every entry (the author looking at their own).
    All,
    /// Only public entries.
    PublicOnly,
}

/// Persistence for users, entries and tokens. Implementations are cheap to clone and
/// safe to share; none of their methods block the async reactor. The security log's
/// methods are in [`SecurityEventStore`].
#[async_trait]
pub trait Store: SecurityEventStore + Send + Sync + 'static {
    /// Answers when the database is reachable.
    async fn ping(&self) -> StoreResult<()>;

    /// Returns the stored JWT secret, storing `candidate` first if there is none. Several
    /// processes calling this at once all get the same secret.
    async fn jwt_secret(&self, candidate: &[u8]) -> StoreResult<Vec<u8>>;

    /// Inserts a user. A taken e-mail is `Conflict(Conflict::EmailTaken)`.
    async fn insert_user(&self, user: &UserRecord) -> StoreResult<()>;

    /// Finds a user by (normalised) e-mail.
    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>>;

    /// Finds a user by id.
    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>>;

    /// The user's role and password time, and whether `token_id` is revoked; `None` when
    /// the user does not exist.
    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>>;

    /// Applies profile changes; returns the new profile, or `None` if the user is gone.
    /// A taken e-mail is `Conflict(Conflict::EmailTaken)`.
    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>>;

    /// Records that a token issued at `issued_at` was checked against the password set
    /// at `password_changed_at`: true when that is still the user's password (and the
    /// record is kept), false when it was changed since (issue no token then). A later
    /// [`Store::set_password`] dates the change after every recorded token.
    async fn record_token(
        &self,
        id: &UserId,
        password_changed_at: Timestamp,
        issued_at: Timestamp,
    ) -> StoreResult<bool>;

    /// Replaces the password hash and records when, voiding older tokens: at
    /// `changed_at`, or just after the newest token recorded by
    /// [`Store::record_token`] if that is later. The write is ordered with
    /// `record_token`'s, so no token checked against the old password is newer. With
    /// `revoke_access_tokens`, the user's personal access tokens are deleted in the same
    /// write.
    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
        revoke_access_tokens: bool,
    ) -> StoreResult<bool>;

    /// Sets the role of the user with this e-mail; false when there is none. Only the
    /// operator, on the database, demotes (never the API), and may demote the last
    /// administrator: they can promote again at any time. A demotion deletes the unused
    /// invitations the user made.
    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool>;

    /// Deletes a user, all their entries and their unused invitations; false when there
    /// was none. Deleting the last working administrator is `Conflict(Conflict::LastAdmin)`.
    async fn delete_user(&self, id: &UserId) -> StoreResult<bool>;

    /// Adds a web session's refresh token, forgetting the tokens of sessions that ended
    /// before `now`, and the user's oldest sessions past [`SESSIONS_PER_USER`].
    async fn insert_session_token(&self, token: &SessionToken, now: Timestamp) -> StoreResult<()>;

    /// The refresh token with this hash, and whether it was used (rotated) already.
    async fn session_token(&self, hash: &str) -> StoreResult<Option<(SessionToken, bool)>>;

    /// Marks the token `used_hash` used and adds `next` (of the same session) in one
    /// write, keeping the session's newest [`USED_SESSION_TOKENS_KEPT`] used tokens.
    /// Nothing is written when `used_hash` was used already or is gone, so two refreshes
    /// with one token never both succeed.
    async fn rotate_session_token(
        &self,
        used_hash: &str,
        next: &SessionToken,
        now: Timestamp,
    ) -> StoreResult<Rotation>;

    /// Ends sessions: deletes their tokens and returns the login tokens they issued
    /// that have not expired at `now`, for the caller to revoke. `Everywhere` also voids
    /// every login token of the user issued before its `at`; it is false-free: a user
    /// who is gone ends nothing.
    async fn end_sessions(
        &self,
        which: &SessionsToEnd,
        now: Timestamp,
    ) -> StoreResult<Vec<(String, Timestamp)>>;

    /// Revokes a token id until it expires (and forgets revocations already expired).
    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()>;

    /// Inserts one entry and its first revision (the entry as it is, made `via`).
    /// Once this returns, the entry survives a crash.
    async fn insert_entry(&self, entry: &Entry, via: EditedVia) -> StoreResult<()>;

    /// Inserts many entries, each with its first revision (made by an import), in as
    /// few transactions as the backend likes (seeding, copying a journal).
    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()>;

    /// Writes an import in one transaction, all or nothing: a row is skipped when its
    /// author has an entry with its id, or one with the same trimmed title and content
    /// dated in its window; a row whose id another author has is stored under its
    /// `fresh_id`. In the store because only a check in the writing transaction keeps
    /// two imports of one file at once from both writing it.
    async fn import_entries(&self, rows: &[ImportRow]) -> StoreResult<Vec<ImportOutcome>>;

    /// Finds an entry with its author's privacy flag.
    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>>;

    /// Applies the changes and records the revision they make, in one transaction:
    /// unless `edit.if_match` names another revision than the current one (`Stale`,
    /// nothing written). Changes that leave the entry as it is write nothing and
    /// answer it as it is.
    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        edit: &Edit,
    ) -> StoreResult<EntryWrite<Entry>>;

    /// Moves an entry to its author's trash at `edit.at`, with the same condition as
    /// [`Store::update_entry`]: from then on no list, search or look-up finds it.
    async fn delete_entry(&self, id: &EntryId, edit: &Edit) -> StoreResult<EntryWrite<Entry>>;

    /// One page of an entry's revisions (in the trash or not), newest first.
    async fn revisions(&self, id: &EntryId, page: PageRequest) -> StoreResult<Page<Revision>>;

    /// Revision `number` of an entry (in the trash or not).
    async fn revision(&self, id: &EntryId, number: u32) -> StoreResult<Option<Revision>>;

    /// One page of an author's trash, newest deletion first.
    async fn trash(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<TrashedEntry>>;

    /// Puts an entry of `author`'s trash back as it was; `None` when their trash has no
    /// such entry.
    async fn untrash(&self, author: &UserId, id: &EntryId) -> StoreResult<Option<Entry>>;

    /// Removes an entry of `author`'s trash and its revisions for good, leaving a
    /// tombstone in the change feed; false when their trash has no such entry.
    async fn purge(&self, author: &UserId, id: &EntryId) -> StoreResult<bool>;

    /// Up to `limit` of `author`'s entries whose last change is numbered after `after`,
    /// in the order of those numbers: each in its state now (live, in the trash, or
    /// purged), with its revisions numbered `start` or later (the newest
    /// [`FEED_REVISIONS_PER_CHANGE`]). Fewer when their text passes
    /// [`FEED_PAGE_BYTES`]. Read at one moment together with the author's change counter
    /// and the database's sync epoch.
    async fn changes(
        &self,
        author: &UserId,
        start: u64,
        after: u64,
        limit: u32,
    ) -> StoreResult<StoredChanges>;

    /// The entries with these ids live or in their authors' trash (with when each was
    /// deleted), whoever's: those found.
    async fn entries_anywhere(
        &self,
        ids: &[EntryId],
    ) -> StoreResult<Vec<(Entry, Option<Timestamp>)>>;

    /// Which entry each of these revision ids belongs to, for those that exist.
    async fn revision_owners(&self, ids: &[RevisionId]) -> StoreResult<Vec<(RevisionId, EntryId)>>;

    /// The revision with this id, of whichever entry (live or in the trash).
    async fn revision_by_id(&self, id: &RevisionId) -> StoreResult<Option<Revision>>;

    /// Writes what a sync decided for some entries, in order, in one transaction: each
    /// entry's revisions added, its state, where it ends, and a conflict if any. Each
    /// only while the entry's current revision is still its `expect` (and, present,
    /// the author's): otherwise that one is `Stale` (or `Missing`, `Foreign`) and
    /// nothing of it written. `Done` holds the entry as it ends (`None` when purged).
    /// All of `writes` are `author`'s; the answer says the author's change counter
    /// before and after, and the database's sync epoch.
    async fn sync_writes(&self, author: &UserId, writes: &[SyncWrite]) -> StoreResult<SyncWritten>;

    /// One page of `author`'s open sync conflicts (on live entries), newest first.
    async fn conflicts(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<Conflict>>;

    /// The revisions set aside by `author`'s open sync conflicts on entry `id`.
    async fn entry_conflicts(&self, author: &UserId, id: &EntryId) -> StoreResult<Vec<RevisionId>>;

    /// Settles `author`'s sync conflicts on entry `id` that set these revisions aside;
    /// returns how many there were.
    async fn settle_conflicts(
        &self,
        author: &UserId,
        id: &EntryId,
        revisions: &[RevisionId],
    ) -> StoreResult<u64>;

    /// Drops up to `limit` tombstones of entries purged before `before`, oldest first,
    /// moving each author's `forgotten_through` past them; returns how many went.
    async fn forget_tombstones(&self, before: Timestamp, limit: u32) -> StoreResult<u64>;

    /// Purges up to `limit` entries deleted before `before`, oldest first; returns how
    /// many.
    async fn purge_trash(&self, before: Timestamp, limit: u32) -> StoreResult<u64>;

    /// Removes the revisions past `keep`'s limits at `now` of up to `limit` entries,
    /// each entry in one transaction, keeping every other revision readable; returns
    /// how many revisions went (0 when none is left to prune).
    async fn prune_history(
        &self,
        keep: &HistoryKeep,
        now: Timestamp,
        limit: u32,
    ) -> StoreResult<u64>;

    /// Records an uploaded file, its bytes already stored. One attached to an entry
    /// takes its author's next change number for the entry, as attaching and deleting
    /// do: a replica's next sync reads the entry again.
    async fn insert_attachment(&self, attachment: &Attachment) -> StoreResult<()>;

    /// An attachment with what decides who may read it.
    async fn attachment(&self, id: &AttachmentId) -> StoreResult<Option<StoredAttachment>>;

    /// An entry's attachments (not the ones its author deleted), oldest first.
    async fn entry_attachments(&self, entry: &EntryId) -> StoreResult<Vec<Attachment>>;

    /// The attachments (not the deleted ones) of all of `entries` at once, each entry's
    /// oldest first, with what decides who may read them: a list page's in one query.
    async fn attachments_of_entries(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<StoredAttachment>>;

    /// Every attachment of `entries`, the deleted ones too with when, each entry's
    /// oldest first: what a sync tells a replica of them.
    async fn attachments_for_sync(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>>;

    /// Gives `entry` its author's next change number, with nothing else changed: a
    /// replica's sync reads it again (one the other side refused, to be sent again).
    async fn mark_changed(&self, entry: &EntryId) -> StoreResult<()>;

    /// `author`'s attachments of the files `sha256s` (live ones first), for those files
    /// they have: a replica's copy of one need not travel again. One read.
    async fn author_files(
        &self,
        author: &UserId,
        sha256s: &[String],
    ) -> StoreResult<Vec<Attachment>>;

    /// The attachments of `ids` that exist, with what decides who may read them. One
    /// read.
    async fn attachments_by_ids(&self, ids: &[AttachmentId]) -> StoreResult<Vec<StoredAttachment>>;

    /// `author`'s attachments (not the deleted ones; attached or not), newest first.
    async fn author_attachments(
        &self,
        author: &UserId,
        page: PageRequest,
    ) -> StoreResult<Page<StoredAttachment>>;

    /// Attaches to `entry` those of `ids` that are `author`'s and not yet attached;
    /// returns how many.
    async fn attach(
        &self,
        author: &UserId,
        entry: &EntryId,
        ids: &[AttachmentId],
    ) -> StoreResult<u64>;

    /// Deletes an attachment as its author does, at `at`: it leaves every list at once,
    /// and its row goes at the collection once no kept revision of its entry can name
    /// it. False when there is no such attachment, or it was deleted already.
    async fn delete_attachment(&self, id: &AttachmentId, at: Timestamp) -> StoreResult<bool>;

    /// Removes an upload that was never attached, at once: an import that stored its
    /// files and then had its entries refused takes them back (the collection would,
    /// a day later, and they would count against their author's space until then).
    /// False when there is no such upload, or it is attached.
    async fn discard_upload(&self, id: &AttachmentId) -> StoreResult<bool>;

    /// The bytes `author`'s attachments take, each stored file counted once.
    async fn attachment_bytes(&self, author: &UserId) -> StoreResult<u64>;

    /// Removes the rows nothing needs any more: uploads never attached and made before
    /// `unattached_before`, attachments of purged entries, and deleted ones no kept
    /// revision can name. Returns how many went.
    async fn collect_attachments(&self, unattached_before: Timestamp) -> StoreResult<u64>;

    /// The objects the rows name, as `author/sha256`.
    async fn attachment_objects(&self) -> StoreResult<Vec<String>>;

    /// Every author's attachments in id order, after `after`, at most `limit`, each
    /// with when its author deleted it (for copying a whole journal).
    async fn attachments_after(
        &self,
        after: Option<&AttachmentId>,
        limit: u32,
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>>;

    /// Stores an attachment its author had deleted at `deleted_at` (copying a whole
    /// journal keeps it while a revision may name it), or a live one.
    async fn copy_attachment(
        &self,
        attachment: &Attachment,
        deleted_at: Option<Timestamp>,
    ) -> StoreResult<()>;

    /// An author's entries that pass `filter`, newest `date` first (then highest id).
    /// The total counts the filtered list.
    async fn entries_by_author(
        &self,
        author: &UserId,
        visibility: Visibility,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>>;

    /// Public entries of authors whose profile is not private that pass `filter`,
    /// newest `date` first (then highest id).
    async fn public_entries(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>>;

    /// An author's tags with how many of their entries have each, most used first, then
    /// by name.
    async fn tags(&self, author: &UserId) -> StoreResult<Vec<TagCount>>;

    /// Inserts a user and uses up the invitation whose code hashes to `invite_hash`, in
    /// one transaction: false (and nothing written) when the invitation is unknown,
    /// used or expired at `now`, or its maker is no longer an administrator whose
    /// account works (checked in the same transaction). The e-mail is checked only once
    /// the invitation works, so an invitation that does not work answers the same
    /// whatever the e-mail: then a taken e-mail is `Conflict(Conflict::EmailTaken)`.
    async fn insert_user_with_invite(
        &self,
        user: &UserRecord,
        invite_hash: &str,
        now: Timestamp,
    ) -> StoreResult<bool>;

    /// Keeps an invitation.
    async fn insert_invite(&self, invite: &InviteRecord) -> StoreResult<()>;

    /// Invitations that still work at `now` (unused, unexpired, their maker still an
    /// administrator whose account works), oldest first, at most `limit`.
    async fn invites(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> StoreResult<Vec<crate::model::InviteSummary>>;

    /// Deletes the unused invitation whose hash is `id_or_hash` or starts with it as its
    /// id ([`INVITE_ID_CHARS`] characters); false when there is none.
    async fn delete_invite(&self, id_or_hash: &str) -> StoreResult<bool>;

    /// Disables or re-enables an account; false when there is no such user. Disabling
    /// the last working administrator is `Conflict(Conflict::LastAdmin)`; disabling deletes
    /// the unused invitations the user made.
    async fn set_disabled(&self, id: &UserId, disabled: bool) -> StoreResult<bool>;

    /// Users by registration time (then id), with their entry counts, for
    /// administrators.
    async fn users_page(&self, page: PageRequest) -> StoreResult<Page<crate::model::AdminUser>>;

    /// Keeps a personal access token unless its owner already has `max`: false then,
    /// and nothing written. The count and the insert are one transaction, so
    /// concurrent creations cannot pass the cap together.
    async fn insert_access_token(&self, token: &AccessTokenRecord, max: usize)
    -> StoreResult<bool>;

    /// A user's personal access tokens, oldest first.
    async fn access_tokens(&self, user: &UserId) -> StoreResult<Vec<crate::model::AccessToken>>;

    /// Deletes one of `user`'s tokens; false when `user` has no such token.
    async fn delete_access_token(
        &self,
        user: &UserId,
        id: &crate::domain::AccessTokenId,
    ) -> StoreResult<bool>;

    /// The token whose secret hashes to `hash`, with its owner's role and state.
    async fn access_token_auth(&self, hash: &str) -> StoreResult<Option<AccessTokenAuth>>;

    /// Records that a token was used at `at`.
    async fn touch_access_token(
        &self,
        id: &crate::domain::AccessTokenId,
        at: Timestamp,
    ) -> StoreResult<()>;

    /// Changes a user's second factor; false when there is no such user (or, for
    /// `Enable`, no secret being set up).
    async fn set_totp(&self, id: &UserId, change: &TotpChange) -> StoreResult<bool>;

    /// Records `step` as the last accepted step if it is after the recorded one: true
    /// when it was (the code may be accepted), false when it was not (a replay).
    async fn claim_totp_step(&self, id: &UserId, step: i64) -> StoreResult<bool>;

    /// How many of the user's recovery codes are still unused.
    async fn recovery_codes_left(&self, id: &UserId) -> StoreResult<u32>;

    /// Uses up one of the user's recovery codes: true when it was there and unused.
    async fn claim_recovery_code(
        &self,
        id: &UserId,
        hash: &str,
        at: Timestamp,
    ) -> StoreResult<bool>;

    /// Each of the store's caches by name, with how often it answered from memory. A
    /// store without caches has none.
    fn cache_counts(&self) -> Vec<(&'static str, CacheCounts)> {
        Vec::new()
    }

    /// Each of the store's pools of connections as it is now (for the metrics).
    fn pools(&self) -> Vec<crate::metrics::PoolState> {
        Vec::new()
    }

    /// Users in id order, after `after`, at most `limit` (for copying a whole journal).
    async fn users_after(&self, after: Option<&UserId>, limit: u32)
    -> StoreResult<Vec<UserRecord>>;

    /// Token ids revoked and not yet expired, with their expiry.
    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>>;

    /// An author's entries matching every word of the query as a word or word prefix in
    /// title or content, without regard to case or accents; best match first, then
    /// latest `date`. Must use a full-text index, never a scan. The query has at least
    /// one word ([`Journal::search`](crate::Journal::search) answers an empty one
    /// itself). Only entries that pass `filter` count.
    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>>;
}

/// Opens the store a database URL names:
///
/// - `sqlite:PATH`, `sqlite://PATH` or a bare path: a SQLite file (created if missing);
/// - `sqlite::memory:` or `:memory:`: an in-memory SQLite database;
/// - `postgres://…` or `postgresql://…` (with the `postgres` feature): PostgreSQL.
pub async fn open(url: &str) -> StoreResult<Arc<dyn Store>> {
    open_with(url, None).await
}

/// Like [`open`], with the size of the connection pool for PostgreSQL (SQLite keeps one
/// writer and a few readers whatever the size).
pub async fn open_with(url: &str, pool_size: Option<usize>) -> StoreResult<Arc<dyn Store>> {
    let url = DatabaseUrl::parse(url).map_err(StoreError::config)?;
    match url {
        DatabaseUrl::Postgres(url) => {
            #[cfg(feature = "postgres")]
            {
                let size = pool_size.unwrap_or(postgres::DEFAULT_POOL_SIZE);
                Ok(Arc::new(
                    postgres::PostgresStore::connect_with(&url, size).await?,
                ))
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = (url, pool_size);
                Err(StoreError::config(
                    "this build has no PostgreSQL support (enable the `postgres` feature)",
                ))
            }
        }
        DatabaseUrl::SqliteMemory => Ok(Arc::new(sqlite::SqliteStore::open(":memory:").await?)),
        DatabaseUrl::SqliteFile(path) => Ok(Arc::new(sqlite::SqliteStore::open(path).await?)),
    }
}

/// The database URL with any password replaced by `***`, for logs and messages.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let redacted = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                user.to_owned()
            };
            format!("{scheme}://{redacted}{}", &rest[at..])
        }
        None => url.to_owned(),
    }
}
