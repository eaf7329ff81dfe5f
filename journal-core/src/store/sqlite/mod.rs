//! The SQLite store: the embedded default.
//!
//! One writer thread with group commit and four reader threads (`pool.rs`), so no
//! SQLite call runs on the async reactor; commits use `synchronous=FULL`, so an
//! acknowledged write survives a crash or power loss. Opening a file (WAL, a private
//! mode, read-only files, several processes at once) is in `open.rs`, the schema and
//! its migrations in `schema.rs`, rows ↔ model in `rows.rs`, and the read cache in
//! `cache.rs`. The queries are by resource, as functions on a connection: `users.rs`,
//! `tokens.rs`, `second_factor.rs`, `invites.rs`, `entries.rs`, paged lists in
//! `lists.rs`, search in `search.rs` (its ranking function in `rank.rs`), `settings.rs`.
//! This file is the `Store` implementation, a table of contents: each method runs one
//! of them on a reader or the writer.

mod attachments;
mod cache;
mod caller;
mod change_numbers;
mod changes;
mod checkpoint;
mod conflicts;
mod entries;
mod errors;
#[allow(unsafe_code)] // rusqlite cannot sync the database file: see the module.
mod file_sync;
mod fts_batch;
mod fts_merge;
mod history;
mod invites;
mod lists;
mod lock;
mod open;
mod other_writers;
mod pool;
#[allow(unsafe_code)] // FTS5's extension API has no safe binding: see the module.
mod rank;
mod rows;
mod schema;
mod search;
mod second_factor;
mod security_events;
mod sessions;
mod settings;
mod sync_write;
mod tokens;
mod users;

#[doc(hidden)]
pub use self::schema::migrate_to;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine as _;
use rusqlite::Connection;
use tracing::instrument;

use self::cache::{ReadCache, Touched};
use self::lists::in_read_transaction;
use self::pool::Pool;
use self::users::email_taken;
use super::{AccessTokenAuth, AccessTokenRecord, InviteRecord, TotpChange};
use super::{AuthState, Store, StoredAttachment, StoredEntry, UserRecord, Visibility, kept_page};
use super::{Edit, EntryWrite, HistoryKeep, ImportOutcome, ImportRow, StoredChanges, SyncWrite};
use super::{Rotation, SessionToken, SessionsToEnd, SyncWritten};
use crate::domain::{
    AccessTokenId, AttachmentId, EntryId, PageRequest, RevisionId, Role, SearchQuery, Timestamp,
    UserId,
};
use crate::error::{StoreError, StoreResult};
use crate::filter::{EntryFilter, TagCount};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{
    AccessToken, AdminUser, Attachment, CacheCounts, Conflict, EditedVia, Entry, InviteSummary,
    Page, Profile, Revision, TrashedEntry,
};

/// A journal stored in one SQLite file (or in memory).
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    // Dropped first: the cache holds no connection, the pool joins its threads.
    cache: Arc<ReadCache>,
    pool: Pool,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, or an in-memory database for
    /// `:memory:`, and applies migrations.
    pub async fn open(path: impl AsRef<Path>) -> StoreResult<SqliteStore> {
        let path = path.as_ref().to_owned();
        let pool = tokio::task::spawn_blocking(move || open::pool(&path))
            .await
            .map_err(StoreError::internal)??;
        Self::start(pool)
    }

    fn start(pool: Pool) -> StoreResult<SqliteStore> {
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                cache: pool.cache().clone(),
                pool,
            }),
        })
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        self.inner.pool.read(f).await
    }

    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        self.inner.pool.write(f).await
    }

    /// [`SqliteStore::write`] for a job that says what it touched (see the cache).
    async fn write_touching<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<(T, Touched)> + Send + 'static,
    ) -> StoreResult<T> {
        self.inner.pool.write_touching(f).await
    }

    /// Runs `PRAGMA integrity_check` and returns its verdict (`ok` when healthy).
    pub async fn integrity_check(&self) -> StoreResult<String> {
        self.write(|c| c.query_row("PRAGMA integrity_check", [], |r| r.get(0)))
            .await
    }
}

#[async_trait]
impl Store for SqliteStore {
    #[instrument(level = "debug", skip_all)]
    async fn ping(&self) -> StoreResult<()> {
        self.read(|c| c.query_row("SELECT 1", [], |_| Ok(()))).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn jwt_secret(&self, candidate: &[u8]) -> StoreResult<Vec<u8>> {
        // Read first: a file opened for reading only has its secret already.
        let stored = match self.read(settings::jwt_secret).await? {
            Some(kept) => kept,
            None => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(candidate);
                self.write(move |c| settings::keep_jwt_secret(c, &encoded))
                    .await?
            }
        };
        base64::engine::general_purpose::STANDARD
            .decode(stored)
            .map_err(StoreError::internal)
    }

    #[instrument(level = "debug", skip_all, fields(user = %user.profile.id))]
    async fn insert_user(&self, user: &UserRecord) -> StoreResult<()> {
        let u = user.clone();
        match self.write(move |c| users::insert(c, &u)).await? {
            true => Ok(()),
            false => Err(email_taken()),
        }
    }

    #[instrument(level = "debug", skip_all)]
    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        let email = email.to_owned();
        self.read(move |c| users::by_email(c, &email)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        let key = id.to_string();
        let query = self.read(move |c| users::by_id(c, &key));
        self.inner.cache.user(id, query).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        let (user, jti) = (id.to_string(), token_id.to_owned());
        let query = self.read(move |c| tokens::auth_state(c, &user, &jti));
        self.inner.cache.auth_state(id, token_id, query).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        let (id, changes) = (id.to_string(), changes.clone());
        self.write(move |c| users::update(c, &id, &changes, now))
            .await?
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
        revoke_access_tokens: bool,
    ) -> StoreResult<bool> {
        let (id, hash) = (id.to_string(), hash.to_owned());
        self.write(move |c| users::set_password(c, &id, &hash, changed_at, revoke_access_tokens))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn record_token(
        &self,
        id: &UserId,
        password_changed_at: Timestamp,
        issued_at: Timestamp,
    ) -> StoreResult<bool> {
        let user = *id;
        self.write_touching(move |c| users::record_token(c, user, password_changed_at, issued_at))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        let email = email.to_owned();
        self.write(move |c| users::set_role(c, &email, role)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| users::delete(c, &id)).await?.into()
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        let (jti, now) = (token_id.to_owned(), Timestamp::now());
        self.write(move |c| tokens::revoke(c, &jti, expires_at, now))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_session_token(&self, token: &SessionToken, now: Timestamp) -> StoreResult<()> {
        let token = token.clone();
        self.write_touching(move |c| sessions::insert(c, &token, now))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn session_token(&self, hash: &str) -> StoreResult<Option<(SessionToken, bool)>> {
        let hash = hash.to_owned();
        self.read(move |c| sessions::by_hash(c, &hash)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %next.user_id))]
    async fn rotate_session_token(
        &self,
        used_hash: &str,
        next: &SessionToken,
        now: Timestamp,
    ) -> StoreResult<Rotation> {
        let (used, next) = (used_hash.to_owned(), next.clone());
        self.write_touching(move |c| sessions::rotate(c, &used, &next, now))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn end_sessions(
        &self,
        which: &SessionsToEnd,
        now: Timestamp,
    ) -> StoreResult<Vec<(String, Timestamp)>> {
        let which = which.clone();
        self.write_touching(move |c| sessions::end(c, &which, now))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry.id))]
    async fn insert_entry(&self, entry: &Entry, via: EditedVia) -> StoreResult<()> {
        let e = entry.clone();
        self.write_touching(move |c| entries::insert(c, &e, via))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(count = entries.len()))]
    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        let batch = entries.to_vec();
        self.write_touching(move |c| entries::insert_many(c, &batch))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(count = rows.len()))]
    async fn import_entries(&self, rows: &[ImportRow]) -> StoreResult<Vec<ImportOutcome>> {
        let rows = rows.to_vec();
        self.write_touching(move |c| entries::import(c, &rows))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        let id = id.to_string();
        self.read(move |c| entries::by_id(c, &id)).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        edit: &Edit,
    ) -> StoreResult<EntryWrite<Entry>> {
        let (id, changes, edit) = (id.to_string(), changes.clone(), *edit);
        self.write_touching(move |c| entries::update(c, &id, &changes, &edit))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn delete_entry(&self, id: &EntryId, edit: &Edit) -> StoreResult<EntryWrite<Entry>> {
        let (id, edit) = (id.to_string(), *edit);
        self.write_touching(move |c| entries::trash(c, &id, &edit))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn revisions(&self, id: &EntryId, page: PageRequest) -> StoreResult<Page<Revision>> {
        let id = id.to_string();
        self.read(move |c| history::page(c, &id, page)).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn revision(&self, id: &EntryId, number: u32) -> StoreResult<Option<Revision>> {
        let id = id.to_string();
        self.read(move |c| history::one(c, &id, number)).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn trash(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<TrashedEntry>> {
        let author = author.to_string();
        self.read(move |c| history::trash_page(c, &author, page))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn untrash(&self, author: &UserId, id: &EntryId) -> StoreResult<Option<Entry>> {
        let (author, id) = (author.to_string(), id.to_string());
        self.write_touching(move |c| history::untrash(c, &author, &id))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn purge(&self, author: &UserId, id: &EntryId) -> StoreResult<bool> {
        let (author, id) = (author.to_string(), id.to_string());
        self.write_touching(move |c| history::purge(c, &author, &id))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn changes(
        &self,
        author: &UserId,
        start: u64,
        after: u64,
        limit: u32,
    ) -> StoreResult<StoredChanges> {
        let author = author.to_string();
        self.read(move |c| changes::feed(c, &author, start, after, limit))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entries = ids.len()))]
    async fn entries_anywhere(
        &self,
        ids: &[EntryId],
    ) -> StoreResult<Vec<(Entry, Option<Timestamp>)>> {
        let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
        self.read(move |c| sync_write::entries_anywhere(c, &ids))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(revisions = ids.len()))]
    async fn revision_owners(&self, ids: &[RevisionId]) -> StoreResult<Vec<(RevisionId, EntryId)>> {
        let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
        self.read(move |c| sync_write::revision_owners(c, &ids))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(revision = %id))]
    async fn revision_by_id(&self, id: &RevisionId) -> StoreResult<Option<Revision>> {
        let id = id.to_string();
        self.read(move |c| sync_write::revision_by_id(c, &id)).await
    }

    #[instrument(level = "debug", skip_all, fields(writes = writes.len()))]
    async fn sync_writes(&self, author: &UserId, writes: &[SyncWrite]) -> StoreResult<SyncWritten> {
        let (author, writes) = (author.to_string(), writes.to_vec());
        self.write_touching(move |c| sync_write::write_all(c, &author, &writes))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author))]
    async fn conflicts(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<Conflict>> {
        let author = author.to_string();
        self.read(move |c| conflicts::page(c, &author, page)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author, entry = %id))]
    async fn entry_conflicts(&self, author: &UserId, id: &EntryId) -> StoreResult<Vec<RevisionId>> {
        let (author, id) = (author.to_string(), id.to_string());
        self.read(move |c| conflicts::of_entry(c, &author, &id))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author, entry = %id))]
    async fn settle_conflicts(
        &self,
        author: &UserId,
        id: &EntryId,
        revisions: &[RevisionId],
    ) -> StoreResult<u64> {
        let (author, id) = (author.to_string(), id.to_string());
        let revisions: Vec<String> = revisions.iter().map(ToString::to_string).collect();
        // Conflicts are in no cache: the cache keeps what it holds.
        self.write_touching(move |c| {
            Ok((
                conflicts::settle(c, &author, &id, &revisions)?,
                Touched::nothing(),
            ))
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn forget_tombstones(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        // Tombstones are in no cache: the cache keeps what it holds.
        self.write_touching(move |c| {
            Ok((
                changes::forget_before(c, before, limit)?,
                Touched::nothing(),
            ))
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn purge_trash(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        self.write_touching(move |c| history::purge_before(c, before, limit))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn prune_history(
        &self,
        keep: &HistoryKeep,
        now: Timestamp,
        limit: u32,
    ) -> StoreResult<u64> {
        let keep = *keep;
        self.write_touching(move |c| history::prune(c, &keep, now, limit))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %a.id))]
    async fn insert_attachment(&self, a: &Attachment) -> StoreResult<()> {
        let a = a.clone();
        self.write(move |c| attachments::insert(c, &a)).await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %id))]
    async fn attachment(&self, id: &AttachmentId) -> StoreResult<Option<StoredAttachment>> {
        let id = *id;
        self.read(move |c| attachments::by_id(c, &id)).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn entry_attachments(&self, entry: &EntryId) -> StoreResult<Vec<Attachment>> {
        let entry = *entry;
        self.read(move |c| attachments::of_entry(c, &entry)).await
    }

    #[instrument(level = "debug", skip_all, fields(entries = entries.len()))]
    async fn attachments_of_entries(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<StoredAttachment>> {
        let entries = entries.to_vec();
        self.read(move |c| attachments::of_entries(c, &entries))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entries = entries.len()))]
    async fn attachments_for_sync(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
        let entries = entries.to_vec();
        self.read(move |c| attachments::of_entries_for_sync(c, &entries))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn mark_changed(&self, entry: &EntryId) -> StoreResult<()> {
        let entry = entry.to_string();
        self.write(move |c| attachments::touch_entry(c, &entry))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, files = sha256s.len()))]
    async fn author_files(
        &self,
        author: &UserId,
        sha256s: &[String],
    ) -> StoreResult<Vec<Attachment>> {
        let (author, sha256s) = (*author, sha256s.to_vec());
        self.read(move |c| attachments::of_author_by_sha(c, &author, &sha256s))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(attachments = ids.len()))]
    async fn attachments_by_ids(&self, ids: &[AttachmentId]) -> StoreResult<Vec<StoredAttachment>> {
        let ids = ids.to_vec();
        self.read(move |c| attachments::by_ids(c, &ids)).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn author_attachments(
        &self,
        author: &UserId,
        page: PageRequest,
    ) -> StoreResult<Page<StoredAttachment>> {
        let author = *author;
        self.read(move |c| attachments::of_author(c, &author, page))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn attach(
        &self,
        author: &UserId,
        entry: &EntryId,
        ids: &[AttachmentId],
    ) -> StoreResult<u64> {
        let (author, entry, ids) = (*author, *entry, ids.to_vec());
        self.write(move |c| attachments::attach(c, &author, &entry, &ids))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %id))]
    async fn delete_attachment(&self, id: &AttachmentId, at: Timestamp) -> StoreResult<bool> {
        let id = *id;
        self.write(move |c| attachments::delete(c, &id, at)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn discard_upload(&self, id: &AttachmentId) -> StoreResult<bool> {
        let id = *id;
        self.write(move |c| attachments::discard(c, &id)).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn attachment_bytes(&self, author: &UserId) -> StoreResult<u64> {
        let author = *author;
        self.read(move |c| attachments::bytes_of(c, &author)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn collect_attachments(&self, unattached_before: Timestamp) -> StoreResult<u64> {
        self.write(move |c| attachments::collect(c, unattached_before))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn attachment_objects(&self) -> StoreResult<Vec<String>> {
        self.read(attachments::objects).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn attachments_after(
        &self,
        after: Option<&AttachmentId>,
        limit: u32,
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
        let after = after.copied();
        self.read(move |c| attachments::after(c, after.as_ref(), limit))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %a.id))]
    async fn copy_attachment(
        &self,
        a: &Attachment,
        deleted_at: Option<Timestamp>,
    ) -> StoreResult<()> {
        let a = a.clone();
        self.write(move |c| attachments::insert_copy(c, &a, deleted_at))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, page = page.page()))]
    async fn entries_by_author(
        &self,
        author: &UserId,
        visibility: Visibility,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let public_only = visibility == Visibility::PublicOnly;
        let kept = kept_page(filter, page);
        let (id, filter) = (*author, filter.clone());
        let query = self.read(move |c| lists::author_page(c, id, public_only, &filter, page));
        self.inner
            .cache
            .author_page(author, public_only, kept, query)
            .await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn public_entries(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let kept = kept_page(filter, page);
        let filter = filter.clone();
        let query = self.read(move |c| lists::feed_page(c, &filter, page));
        self.inner.cache.feed_page(kept, query).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn tags(&self, author: &UserId) -> StoreResult<Vec<TagCount>> {
        let author = author.to_string();
        self.read(move |c| entries::tags(c, &author)).await
    }

    #[instrument(level = "debug", skip_all)]
    fn cache_counts(&self) -> Vec<(&'static str, CacheCounts)> {
        self.inner.cache.counts()
    }

    fn pools(&self) -> Vec<crate::metrics::PoolState> {
        self.inner.pool.states()
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        let after = after.map(|id| id.to_string()).unwrap_or_default();
        self.read(move |c| users::after(c, &after, limit)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        let now = Timestamp::now();
        self.read(move |c| tokens::revoked(c, now)).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, page = page.page()))]
    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let expression = search::fts_expression(author, query);
        let (author, filter) = (*author, filter.clone());
        // On the searchers' threads: however many searches queue, the other readers
        // stay free for lists, profiles and the feed.
        self.inner
            .pool
            .search(search::DEADLINE, move |c| {
                in_read_transaction(c, |c| {
                    search::ranked_page(c, &expression, &author, &filter, page)
                })
            })
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user.profile.id))]
    async fn insert_user_with_invite(
        &self,
        user: &UserRecord,
        invite_hash: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let (u, hash) = (user.clone(), invite_hash.to_owned());
        match self
            .write(move |c| invites::insert_user_with_invite(c, &u, &hash, now))
            .await?
        {
            None => Ok(false),
            Some(true) => Ok(true),
            Some(false) => Err(email_taken()),
        }
    }

    #[instrument(level = "debug", skip_all)]
    async fn insert_invite(&self, invite: &InviteRecord) -> StoreResult<()> {
        let invite = invite.clone();
        self.write(move |c| invites::insert(c, &invite)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn invites(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InviteSummary>> {
        self.read(move |c| invites::working(c, now, limit)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn delete_invite(&self, id_or_hash: &str) -> StoreResult<bool> {
        let key = id_or_hash.to_owned();
        self.write(move |c| invites::delete(c, &key)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_disabled(&self, id: &UserId, disabled: bool) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| users::set_disabled(c, &id, disabled))
            .await?
            .into()
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn users_page(&self, page: PageRequest) -> StoreResult<Page<AdminUser>> {
        self.read(move |c| in_read_transaction(c, |c| users::page(c, page)))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_access_token(
        &self,
        token: &AccessTokenRecord,
        max: usize,
    ) -> StoreResult<bool> {
        let token = token.clone();
        self.write(move |c| tokens::insert_access_token(c, &token, max))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn access_tokens(&self, user: &UserId) -> StoreResult<Vec<AccessToken>> {
        let user = user.to_string();
        self.read(move |c| tokens::access_tokens(c, &user)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn delete_access_token(&self, user: &UserId, id: &AccessTokenId) -> StoreResult<bool> {
        let (user, id) = (user.to_string(), id.to_string());
        self.write(move |c| tokens::delete_access_token(c, &user, &id))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn access_token_auth(&self, hash: &str) -> StoreResult<Option<AccessTokenAuth>> {
        let hash = hash.to_owned();
        self.read(move |c| tokens::access_token_auth(c, &hash))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn touch_access_token(&self, id: &AccessTokenId, at: Timestamp) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c| tokens::touch_access_token(c, &id, at))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_totp(&self, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
        let (id, change) = (id.to_string(), change.clone());
        self.write(move |c| second_factor::set(c, &id, &change))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_totp_step(&self, id: &UserId, step: i64) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| second_factor::claim_step(c, &id, step))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn recovery_codes_left(&self, id: &UserId) -> StoreResult<u32> {
        let id = id.to_string();
        self.read(move |c| second_factor::recovery_codes_left(c, &id))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_recovery_code(
        &self,
        id: &UserId,
        hash: &str,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let (id, hash) = (id.to_string(), hash.to_owned());
        self.write(move |c| second_factor::claim_recovery_code(c, &id, &hash, at))
            .await
    }
}
