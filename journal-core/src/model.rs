//! What the core hands back: profiles, entries and pages of them.
//!
//! These serialise to exactly the wire shape of the HTTP API, so the server and the
//! CLI's HTTP client share them.

use serde::{Deserialize, Serialize};

use crate::domain::{AttachmentId, EntryId, RevisionId, Role, Timestamp, UserId};

/// A user's profile as its owner sees it. It has no password or hash field, so none
/// can leak.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// The user's id.
    #[serde(rename = "_id")]
    pub id: UserId,
    /// Full name.
    #[serde(rename = "fullName")]
    pub full_name: String,
    /// Display name, copied into new entries' `author_name`.
    pub nickname: String,
    /// Lower-cased e-mail address.
    pub email: String,
    /// Empty, or an image data URI.
    #[serde(rename = "profilePic")]
    pub profile_pic: String,
    /// `user` or `admin`.
    pub role: Role,
    /// When true, the user's entries are hidden from everyone else.
    #[serde(rename = "isPrivate")]
    pub is_private: bool,
}

/// What anyone may read of an author whose profile is public: no e-mail, role or
/// privacy flag. The answer of `GET /api/public/users/{id}`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicProfile {
    /// The user's id.
    #[serde(rename = "_id")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: UserId,
    /// Display name.
    pub nickname: String,
    /// Full name.
    #[serde(rename = "fullName")]
    pub full_name: String,
    /// Empty, or an image data URI.
    #[serde(rename = "profilePic")]
    pub profile_pic: String,
}

impl From<&Profile> for PublicProfile {
    fn from(profile: &Profile) -> PublicProfile {
        PublicProfile {
            id: profile.id,
            nickname: profile.nickname.clone(),
            full_name: profile.full_name.clone(),
            profile_pic: profile.profile_pic.clone(),
        }
    }
}

/// A journal entry.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's id.
    #[serde(rename = "_id")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: EntryId,
    /// Title, trimmed.
    pub title: String,
    /// Body text, as written.
    pub content: String,
    /// Listed publicly when true (and the author's profile is not private).
    #[serde(rename = "isPublic")]
    pub is_public: bool,
    /// Tags: lower-case, unique, sorted (see [`crate::domain::Tag`]).
    pub tags: Vec<String>,
    /// Starred by its author.
    pub starred: bool,
    /// When the entry is about: `createdAt` unless the author set it. Lists are in
    /// this order, newest first.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub date: Timestamp,
    /// The author's user id.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub author_id: UserId,
    /// The author's nickname when the entry was created.
    pub author_name: String,
    /// Creation time.
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// Last change (equal to `createdAt` until the entry is updated).
    #[serde(rename = "updatedAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
    /// How many revisions the entry has had: 1 when created, then one more per change.
    /// Shown to people; [`Entry::revision_id`] is what names the state.
    #[serde(default = "first_revision")]
    pub revision: u32,
    /// The current revision's id, which is also the entry's `ETag`: an update or delete
    /// sent with `If-Match` of another id changes nothing.
    #[serde(rename = "revisionId", default)]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub revision_id: RevisionId,
}

fn first_revision() -> u32 {
    1
}

/// One revision of an entry: the full state a change produced, who made it how, and
/// when. Revisions are numbered from 1 (the entry as created); each names the one it
/// was made from.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revision {
    /// Unique across replicas; the entry's `ETag` while this is its current state.
    #[serde(rename = "revisionId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: RevisionId,
    /// The revision this one was made from; `null` for the first.
    #[serde(rename = "parentId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = Uuid, required = true))]
    pub parent_id: Option<RevisionId>,
    /// The entry's id.
    #[serde(rename = "entryId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub entry_id: EntryId,
    /// Its number: 1 for the entry as created, then one more per change.
    pub revision: u32,
    /// Title in this state.
    pub title: String,
    /// Body text in this state.
    pub content: String,
    /// Visibility in this state.
    #[serde(rename = "isPublic")]
    pub is_public: bool,
    /// Tags in this state.
    pub tags: Vec<String>,
    /// Starred in this state.
    pub starred: bool,
    /// The entry's date in this state.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub date: Timestamp,
    /// When the change was made.
    #[serde(rename = "editedAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub edited_at: Timestamp,
    /// By which kind of credential.
    #[serde(rename = "editedVia")]
    pub edited_via: EditedVia,
}

/// The kind of credential a change was made with, kept with its revision.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditedVia {
    /// A login session (password, perhaps with a second factor).
    Login,
    /// A personal access token.
    Token,
    /// An import of a file.
    Import,
    /// The CLI or a program on its own database, with no credential.
    Local,
    /// A merge of two replicas' edits, made by `journal sync`.
    Sync,
}

impl EditedVia {
    /// The name stored and shown: `login`, `token`, `import`, `local` or `sync`.
    pub fn as_str(self) -> &'static str {
        match self {
            EditedVia::Login => "login",
            EditedVia::Token => "token",
            EditedVia::Import => "import",
            EditedVia::Local => "local",
            EditedVia::Sync => "sync",
        }
    }

    /// The kind stored under `name`; an unknown name (a newer replica's) reads as
    /// `Local`.
    pub fn from_name(name: &str) -> EditedVia {
        match name {
            "login" => EditedVia::Login,
            "token" => EditedVia::Token,
            "import" => EditedVia::Import,
            "sync" => EditedVia::Sync,
            _ => EditedVia::Local,
        }
    }
}

impl Revision {
    /// The state this revision holds, as an entry's fields over `entry`'s others.
    pub fn applied_to(&self, entry: &Entry) -> Entry {
        Entry {
            title: self.title.clone(),
            content: self.content.clone(),
            is_public: self.is_public,
            tags: self.tags.clone(),
            starred: self.starred,
            date: self.date,
            ..entry.clone()
        }
    }
}

/// An entry in its author's trash: out of every list, search and URL until restored,
/// purged some days after `deletedAt`. (Its OpenAPI schema is `Entry`'s with
/// `deletedAt`, written by the server.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrashedEntry {
    /// The entry as it was when deleted.
    #[serde(flatten)]
    pub entry: Entry,
    /// When it was deleted.
    #[serde(rename = "deletedAt")]
    pub deleted_at: Timestamp,
}

/// An entry whose text a sync could not merge (both sides changed the same lines):
/// the entry kept one side's text, and the other side's is revision `revision` of its
/// history, listed here until its author settles it
/// ([`Journal::resolve_conflict`](crate::Journal::resolve_conflict)).
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// The entry's id.
    #[serde(rename = "entryId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub entry_id: EntryId,
    /// The entry's title now.
    pub title: String,
    /// The revision holding the text set aside.
    #[serde(rename = "revisionId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub revision_id: RevisionId,
    /// That revision's number in the entry's history.
    pub revision: u32,
    /// When the sync met it.
    #[serde(rename = "detectedAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub detected_at: Timestamp,
}

/// One entry's change in an account's change feed (`GET /api/sync/changes`): the
/// entry's state now, and its revisions made since the replica's sync began. Several
/// writes to one entry between two syncs are one change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryChange {
    /// The entry's id.
    pub id: EntryId,
    /// Live, in the trash, or purged, with what that state holds.
    #[serde(flatten)]
    pub state: ChangeState,
    /// The entry's revisions made since the sync began, oldest first; none for a
    /// purged entry.
    #[serde(default)]
    pub revisions: Vec<Revision>,
    /// The entry's attachments, the deleted ones too (while their rows are kept);
    /// left out when it has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<SyncAttachment>,
}

/// An attachment as a sync carries it: enough for the other side to find the file
/// (by SHA-256, so each file travels once) and keep the attachment's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncAttachment {
    /// Its id, the same on every replica.
    pub id: AttachmentId,
    /// The file's name as uploaded.
    pub name: String,
    /// SHA-256 of the stored bytes, in lower-case hex.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was uploaded.
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
    /// When its author deleted it; absent while it is attached.
    #[serde(rename = "deletedAt", default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<Timestamp>,
}

/// Where a changed entry is now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum ChangeState {
    /// In its author's lists.
    Live {
        /// The entry as it is.
        entry: Entry,
    },
    /// In its author's trash.
    Trashed {
        /// The entry as it was when deleted.
        entry: Entry,
        /// When it was deleted.
        #[serde(rename = "deletedAt")]
        deleted_at: Timestamp,
    },
    /// Gone for good, with its history.
    Purged {
        /// When it was purged.
        #[serde(rename = "purgedAt")]
        purged_at: Timestamp,
    },
}

/// One page of an account's change feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangePage {
    /// The changes after the cursor the replica sent, in the order they were made.
    pub changes: Vec<EntryChange>,
    /// Where the replica is once it has applied them: send it as `since` next time.
    #[serde(with = "cursor_text")]
    pub cursor: crate::domain::SyncCursor,
    /// True when there are more changes: ask again at once with the new cursor.
    pub more: bool,
}

/// What the server did with one change a replica pushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PushOutcome {
    /// Written as the replica made it (or there was nothing to write: sent before).
    Applied,
    /// Both sides changed the entry, in different places: merged into a new revision.
    Merged,
    /// Both sides changed the same lines: the entry keeps the server's text, the
    /// replica's is a revision in its history, listed as a conflict to settle.
    Conflict,
    /// Edited on one side and deleted on the other: the edited entry is kept, back
    /// from the trash if it was there.
    Kept,
    /// Not written: the id is another account's.
    Refused,
}

/// One change's outcome, in the order sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushResult {
    /// The entry's id.
    pub id: EntryId,
    /// What was done.
    pub outcome: PushOutcome,
    /// The entry's current revision now; `null` when the server has no such entry.
    #[serde(rename = "revisionId")]
    pub revision_id: Option<RevisionId>,
    /// What the person should know, for `kept`, `conflict` and `refused`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
}

/// What `POST /api/sync/changes` answers: each change's outcome and, when the push
/// was all the account's changes since the replica's `since`, the feed's cursor past
/// them (the replica need not read its own changes back).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushReply {
    /// One per change, in the order sent.
    pub results: Vec<PushResult>,
    /// Where the replica is in the feed now, when nothing but this push changed the
    /// account since `since` and every change was applied as sent; absent otherwise.
    #[serde(
        with = "optional_cursor_text",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub cursor: Option<crate::domain::SyncCursor>,
}

mod cursor_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::domain::SyncCursor;

    pub fn serialize<S: Serializer>(c: &SyncCursor, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(c)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SyncCursor, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

mod optional_cursor_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::domain::SyncCursor;

    pub fn serialize<S: Serializer>(c: &Option<SyncCursor>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.collect_str(c),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SyncCursor>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| t.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

impl Entry {
    /// About how many bytes the entry holds, for caches that bound their memory.
    pub(crate) fn approx_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.title.len()
            + self.content.len()
            + self.author_name.len()
            + self.tags.iter().map(|t| t.len() + 24).sum::<usize>()
    }
}

/// Most items a filtered list counts: past it, its total says "at least this many".
/// The same as [`crate::domain::MAX_PAGE_DEPTH`], so a lower-bound total still names
/// every page that can be asked for by number.
pub const COUNT_CAP: u64 = crate::domain::MAX_PAGE_DEPTH;

/// One page of a list, with the total across all pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The items on this page, in list order.
    pub items: Vec<T>,
    /// How many items the whole list has; with `total_is_lower_bound`, at least how
    /// many.
    pub total: u64,
    /// True when counting stopped at `total` (a filtered list counts up to
    /// [`COUNT_CAP`]): the list has that many items or more.
    pub total_is_lower_bound: bool,
    /// This page's number, from 1.
    pub page: u32,
    /// The page size asked for.
    pub limit: u32,
}

impl<T> Page<T> {
    /// Page `request` of a list of exactly `total` items.
    pub fn exact(items: Vec<T>, total: i64, request: crate::domain::PageRequest) -> Page<T> {
        Page {
            items,
            total: total.try_into().unwrap_or(0),
            total_is_lower_bound: false,
            page: request.page(),
            limit: request.limit(),
        }
    }

    /// Number of pages the list has (at least 1, so an empty list has one empty page).
    pub fn page_count(&self) -> u64 {
        self.total.div_ceil(u64::from(self.limit)).max(1)
    }

    /// True when a page follows this one (past a lower-bound total, when this one is
    /// full).
    pub fn has_next(&self) -> bool {
        u64::from(self.page) < self.page_count()
            || (self.total_is_lower_bound && self.items.len() >= self.limit as usize)
    }

    /// True when a page precedes this one.
    pub fn has_prev(&self) -> bool {
        self.page > 1
    }
}

/// A personal access token as its owner sees it: never the secret, which is shown once
/// when the token is made ([`NewAccessToken`]).
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessToken {
    /// The token's id, for revoking it.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: crate::domain::AccessTokenId,
    /// What its owner called it (`backup script`).
    pub name: String,
    /// When it was made.
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When it stops working; `null` for never.
    #[serde(rename = "expiresAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub expires_at: Option<Timestamp>,
    /// When it was last used (to the minute); `null` for never.
    #[serde(rename = "lastUsedAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub last_used_at: Option<Timestamp>,
}

/// A personal access token just made, with its secret: the only time it is shown.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Serialize, Deserialize)]
pub struct NewAccessToken {
    /// The token's id.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: crate::domain::AccessTokenId,
    /// Its name.
    pub name: String,
    /// The secret, sent as `Authorization: Bearer <token>`.
    pub token: String,
    /// When it was made.
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When it stops working; `null` for never.
    #[serde(rename = "expiresAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub expires_at: Option<Timestamp>,
}

impl std::fmt::Debug for NewAccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewAccessToken")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// How often one of the caches answered from memory, since the process started. Read
/// by administrators (`GET /api/admin/stats`) and the benchmarks, to tell a load that a
/// cache flatters from one it does not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheCounts {
    /// Requests answered from the cache.
    pub hits: u64,
    /// Requests that went to the database (or renderer) instead.
    pub misses: u64,
}

/// A user as an administrator sees them: the profile, whether the account is disabled,
/// when it was made and how many entries it has. Never a password hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminUser {
    /// The profile.
    #[serde(flatten)]
    pub profile: Profile,
    /// True when the account may not log in and its entries are hidden.
    pub disabled: bool,
    /// Registration time.
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
    /// How many entries the user has.
    #[serde(rename = "entryCount")]
    pub entry_count: u64,
}

/// An invitation to register on an invite-only server, as made: the code is shown once.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Invite {
    /// Its id, by which it is listed and revoked (the code is not kept).
    #[cfg_attr(feature = "utoipa", schema(pattern = "^[0-9a-f]{16}$"))]
    pub id: String,
    /// The code to send as `inviteCode` when registering; it works once.
    pub code: String,
    /// When it stops working.
    #[serde(rename = "expiresAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

/// An invitation that still works, as administrators list it: its code is not kept,
/// only its hash, so it is named by an id.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteSummary {
    /// The first characters of its code's hash: `DELETE /api/admin/invites/{id}`.
    #[cfg_attr(feature = "utoipa", schema(pattern = "^[0-9a-f]{16}$"))]
    pub id: String,
    /// The administrator who made it.
    #[serde(rename = "createdBy")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub created_by: UserId,
    /// Their e-mail address.
    #[serde(rename = "createdByEmail")]
    pub created_by_email: String,
    /// When it was made.
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When it stops working.
    #[serde(rename = "expiresAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

/// A second factor being set up: the secret to put into an authenticator app.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Serialize, Deserialize)]
pub struct TotpSetup {
    /// The secret, base32.
    pub secret: String,
    /// The same as an `otpauth://totp/…` URL (for a QR code).
    #[serde(rename = "otpauthUrl")]
    pub otpauth_url: String,
    /// The same as a QR code: an SVG image (`<svg …>…</svg>`) to scan with an
    /// authenticator app.
    /// Empty from a server older than this field.
    #[serde(rename = "qrSvg", default)]
    pub qr_svg: String,
}

impl std::fmt::Debug for TotpSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpSetup { <redacted> }")
    }
}

/// Recovery codes, shown once when the second factor is enabled; each works once in
/// place of a code.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Serialize, Deserialize)]
pub struct RecoveryCodes {
    /// Ten codes.
    #[serde(rename = "recoveryCodes")]
    #[cfg_attr(feature = "utoipa", schema(min_items = 10, max_items = 10))]
    pub recovery_codes: Vec<String>,
}

/// What a [`SecurityEvent`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecurityEventKind {
    /// A login: a token was issued for the password (and the second factor, if on).
    Login,
    /// Attempts refused because the account's failed-login throttle was on; `count`
    /// says how many, coalesced over a day.
    Throttled,
    /// The second factor was turned on.
    SecondFactorEnabled,
    /// The second factor was turned off; `detail` says who when it was not the owner
    /// (`by an administrator`, `on the database`).
    SecondFactorDisabled,
    /// A personal access token was made; `detail` is its name.
    AccessTokenCreated,
    /// A personal access token was revoked; `detail` is its name.
    AccessTokenRevoked,
    /// The password was changed (or reset on the database).
    PasswordChanged,
    /// The e-mail address was changed; `detail` is `old → new`.
    EmailChanged,
    /// New recovery codes were made; the ones before stopped working.
    RecoveryCodesRenewed,
    /// The owner signed out everywhere: every sign-in and web session ended.
    SignedOutEverywhere,
    /// A web session's refresh token was used a second time (a copy of it was taken):
    /// the session was ended.
    SessionReused,
}

impl SecurityEventKind {
    /// Every kind, in the order of the list above.
    pub const ALL: [SecurityEventKind; 11] = [
        SecurityEventKind::Login,
        SecurityEventKind::Throttled,
        SecurityEventKind::SecondFactorEnabled,
        SecurityEventKind::SecondFactorDisabled,
        SecurityEventKind::AccessTokenCreated,
        SecurityEventKind::AccessTokenRevoked,
        SecurityEventKind::PasswordChanged,
        SecurityEventKind::EmailChanged,
        SecurityEventKind::RecoveryCodesRenewed,
        SecurityEventKind::SignedOutEverywhere,
        SecurityEventKind::SessionReused,
    ];

    /// The wire name (`login`, `access_token_created`, …), also the stored one.
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityEventKind::Login => "login",
            SecurityEventKind::Throttled => "throttled",
            SecurityEventKind::SecondFactorEnabled => "second_factor_enabled",
            SecurityEventKind::SecondFactorDisabled => "second_factor_disabled",
            SecurityEventKind::AccessTokenCreated => "access_token_created",
            SecurityEventKind::AccessTokenRevoked => "access_token_revoked",
            SecurityEventKind::PasswordChanged => "password_changed",
            SecurityEventKind::EmailChanged => "email_changed",
            SecurityEventKind::RecoveryCodesRenewed => "recovery_codes_renewed",
            SecurityEventKind::SignedOutEverywhere => "signed_out_everywhere",
            SecurityEventKind::SessionReused => "session_reused",
        }
    }

    /// The kind with this wire name.
    pub fn from_name(name: &str) -> Option<SecurityEventKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// Whether an account's second factor is on, and how many recovery codes are left
/// (`GET /api/user/2fa`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct SecondFactorState {
    /// On: logins need a code.
    pub enabled: bool,
    /// Recovery codes not yet used (0 when off).
    #[serde(rename = "recoveryCodesLeft")]
    pub recovery_codes_left: u32,
}

/// Which second factor a login passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecondFactor {
    /// A code from the authenticator app.
    Totp,
    /// One of the recovery codes (now used up).
    RecoveryCode,
}

impl SecondFactor {
    /// The wire name, also the stored one.
    pub fn as_str(self) -> &'static str {
        match self {
            SecondFactor::Totp => "totp",
            SecondFactor::RecoveryCode => "recovery_code",
        }
    }

    /// The second factor with this wire name.
    pub fn from_name(name: &str) -> Option<SecondFactor> {
        [SecondFactor::Totp, SecondFactor::RecoveryCode]
            .into_iter()
            .find(|f| f.as_str() == name)
    }
}

/// One entry of a user's security log, as its owner reads it. It never holds a secret:
/// no password, hash, token or code, only what happened, when and from where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityEvent {
    /// What happened.
    pub kind: SecurityEventKind,
    /// When (the latest time, for coalesced events).
    pub at: Timestamp,
    /// When it first happened; equal to `at` unless `count` is over 1.
    #[serde(rename = "firstAt")]
    pub first_at: Timestamp,
    /// How many times it happened between `firstAt` and `at` (1 but for `throttled`).
    pub count: u32,
    /// The client's address (the latest one, for coalesced events); `null` when the
    /// action did not come over the network (the CLI on its own database).
    pub address: Option<std::net::IpAddr>,
    /// For a login: the second factor it passed, `null` for a password alone.
    #[serde(rename = "secondFactor")]
    pub second_factor: Option<SecondFactor>,
    /// What the kind says it holds (a token's name, the e-mail change), else `null`.
    pub detail: Option<String>,
}

/// A file attached to an entry, or uploaded for one not yet saved: what the database
/// keeps of it. The bytes are in the journal's object store, named by `sha256` within
/// the author's space.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attachment {
    /// Its id.
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub id: AttachmentId,
    /// The entry it belongs to; `null` for an upload not yet attached (collected after
    /// a day).
    #[serde(rename = "entryId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = Uuid, required = true))]
    pub entry_id: Option<EntryId>,
    /// Who uploaded it: the entry's author.
    #[serde(skip)]
    pub author_id: UserId,
    /// The file's name as uploaded, for downloads.
    pub name: String,
    /// Its type, as its bytes say (never as the upload claimed).
    #[serde(rename = "contentType")]
    pub content_type: String,
    /// Bytes stored (after location and other metadata were removed from a photo).
    pub size: u64,
    /// An image's width as displayed, in pixels.
    #[cfg_attr(feature = "utoipa", schema(required = true))]
    pub width: Option<u32>,
    /// An image's height as displayed, in pixels.
    #[cfg_attr(feature = "utoipa", schema(required = true))]
    pub height: Option<u32>,
    /// SHA-256 of the stored bytes, in lower-case hex.
    pub sha256: String,
    /// When it was uploaded.
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
}
