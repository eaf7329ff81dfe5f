//! The PostgreSQL store: many stateless servers on one shared database.
//!
//! Everything a server needs to answer is in the database (users, entries, revoked token
//! ids, password-change times, the JWT secret), so any instance can serve any request.
//!
//! The URL is a libpq-style URL (`postgres://user:password@host:port/db?sslmode=disable`)
//! with one addition: `schema=NAME` keeps the journal's tables in their own schema
//! (created if missing), which lets several journals, or test runs, share a database.
//!
//! The pool and our URL parameters are in `pool.rs`, TLS in `tls.rs`, the schema and
//! its migrations in `schema.rs`, rows ↔ model in `rows.rs`. The queries are by
//! resource, as functions on the pool: `users.rs`, `tokens.rs`, `second_factor.rs`,
//! `invites.rs`, `entries.rs`, `settings.rs`, paged lists in `lists.rs` behind their
//! layers in `pages.rs` (the first pages kept in memory in `page_cache.rs`, cursor pages
//! read together in `link_pages.rs`), search in `search.rs`, and the questions many
//! requests share (token checks, snapshots) in `coalesce.rs`. This file is the `Store`
//! implementation, a table of contents: each method is one call.

mod attachments;
mod changes;
mod coalesce;
mod conflicts;
mod entries;
mod errors;
mod feed_total;
mod history;
mod invites;
mod link_pages;
mod lists;
mod page_cache;
mod pages;
mod pool;
mod rows;
mod schema;
mod search;
mod second_factor;
mod security_events;
mod sessions;
mod settings;
mod sync_write;
mod tls;
mod tokens;
mod tombstones;
mod users;

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine as _;
use tracing::instrument;

pub use self::pool::DEFAULT_POOL_SIZE;
#[doc(hidden)]
pub use self::schema::migrate_to;

use self::errors::map_pg;
use self::feed_total::Folder;
use self::pages::ListPages;
use self::pool::Db;
use self::tokens::TokenChecks;
use super::{
    AccessTokenAuth, AccessTokenRecord, AuthState, Edit, EntryWrite, HistoryKeep, ImportOutcome,
    ImportRow, InviteRecord, Rotation, SessionToken, SessionsToEnd, Store, StoredAttachment,
    StoredChanges, StoredEntry, SyncWrite, SyncWritten, TotpChange, UserRecord, Visibility,
};
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

/// A journal stored in PostgreSQL.
#[derive(Clone)]
pub struct PostgresStore {
    db: Db,
    /// The layers in front of list pages (page caches, cursor pages, snapshots).
    pages: Arc<ListPages>,
    /// Searches of authors with few entries, read together.
    searches: Arc<search::LightSearches>,
    /// Token checks, by user and token id.
    auth: Arc<TokenChecks>,
    _folder: Arc<Folder>,
}

impl PostgresStore {
    /// Connects with the default pool size and applies migrations.
    pub async fn connect(url: &str) -> StoreResult<PostgresStore> {
        Self::connect_with(url, DEFAULT_POOL_SIZE).await
    }

    /// Connects with a pool of `pool_size` connections and applies migrations. A
    /// database that cannot be reached, or refuses the credentials, is an error here,
    /// not at the first request.
    pub async fn connect_with(url: &str, pool_size: usize) -> StoreResult<PostgresStore> {
        let (db, schema) = Db::new(url, pool_size)?;
        schema::migrate(db.pool(), schema.as_deref()).await?;
        Ok(PostgresStore {
            _folder: Arc::new(Folder::start(db.clone())),
            db,
            pages: Arc::default(),
            searches: Arc::default(),
            auth: Arc::default(),
        })
    }

    /// True when this store's connections to the server are encrypted.
    pub async fn tls_in_use(&self) -> StoreResult<bool> {
        let client = self.db.client().await?;
        let row = client
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await
            .map_err(map_pg)?;
        Ok(row.get(0))
    }
}

#[async_trait]
impl Store for PostgresStore {
    #[instrument(level = "debug", skip_all)]
    async fn ping(&self) -> StoreResult<()> {
        let client = self.db.client().await?;
        client.simple_query("SELECT 1").await.map_err(map_pg)?;
        Ok(())
    }

    #[instrument(level = "debug", skip_all)]
    async fn jwt_secret(&self, candidate: &[u8]) -> StoreResult<Vec<u8>> {
        let encoded = base64::engine::general_purpose::STANDARD.encode(candidate);
        let stored = settings::jwt_secret(&self.db, &encoded).await?;
        base64::engine::general_purpose::STANDARD
            .decode(stored)
            .map_err(StoreError::internal)
    }

    #[instrument(level = "debug", skip_all, fields(user = %u.profile.id))]
    async fn insert_user(&self, u: &UserRecord) -> StoreResult<()> {
        users::insert(&self.db, u).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        users::by_email(&self.db, email).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        users::by_id(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        tokens::auth_state(&self.db, &self.auth, id, token_id).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        users::update(&self.db, id, changes, now).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
        revoke_access_tokens: bool,
    ) -> StoreResult<bool> {
        users::set_password(&self.db, id, hash, changed_at, revoke_access_tokens).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn record_token(
        &self,
        id: &UserId,
        password_changed_at: Timestamp,
        issued_at: Timestamp,
    ) -> StoreResult<bool> {
        users::record_token(&self.db, id, password_changed_at, issued_at).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        users::set_role(&self.db, email, role.as_str()).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        users::delete(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        tokens::revoke(&self.db, token_id, expires_at).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_session_token(&self, token: &SessionToken, now: Timestamp) -> StoreResult<()> {
        sessions::insert(&self.db, token, now).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn session_token(&self, hash: &str) -> StoreResult<Option<(SessionToken, bool)>> {
        sessions::by_hash(&self.db, hash).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %next.user_id))]
    async fn rotate_session_token(
        &self,
        used_hash: &str,
        next: &SessionToken,
        now: Timestamp,
    ) -> StoreResult<Rotation> {
        sessions::rotate(&self.db, used_hash, next, now).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn end_sessions(
        &self,
        which: &SessionsToEnd,
        now: Timestamp,
    ) -> StoreResult<Vec<(String, Timestamp)>> {
        sessions::end(&self.db, which, now).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry.id))]
    async fn insert_entry(&self, entry: &Entry, via: EditedVia) -> StoreResult<()> {
        entries::insert(&self.db, std::slice::from_ref(entry), via).await
    }

    #[instrument(level = "debug", skip_all, fields(count = entries.len()))]
    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        entries::insert(&self.db, entries, EditedVia::Import).await
    }

    #[instrument(level = "debug", skip_all, fields(count = rows.len()))]
    async fn import_entries(&self, rows: &[ImportRow]) -> StoreResult<Vec<ImportOutcome>> {
        entries::import(&self.db, rows).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        entries::by_id(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        edit: &Edit,
    ) -> StoreResult<EntryWrite<Entry>> {
        history::update(&self.db, id, changes, edit).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn delete_entry(&self, id: &EntryId, edit: &Edit) -> StoreResult<EntryWrite<Entry>> {
        history::trash_entry(&self.db, id, edit).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn revisions(&self, id: &EntryId, page: PageRequest) -> StoreResult<Page<Revision>> {
        history::page(&self.db, id, page).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn revision(&self, id: &EntryId, number: u32) -> StoreResult<Option<Revision>> {
        history::one(&self.db, id, number).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn trash(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<TrashedEntry>> {
        history::trash_page(&self.db, author, page).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn untrash(&self, author: &UserId, id: &EntryId) -> StoreResult<Option<Entry>> {
        history::untrash(&self.db, author, id).await
    }

    #[instrument(level = "debug", skip_all, fields(entries = ids.len()))]
    async fn entries_anywhere(
        &self,
        ids: &[EntryId],
    ) -> StoreResult<Vec<(Entry, Option<Timestamp>)>> {
        sync_write::entries_anywhere(&self.db, ids).await
    }

    #[instrument(level = "debug", skip_all, fields(revisions = ids.len()))]
    async fn revision_owners(&self, ids: &[RevisionId]) -> StoreResult<Vec<(RevisionId, EntryId)>> {
        sync_write::revision_owners(&self.db, ids).await
    }

    #[instrument(level = "debug", skip_all, fields(revision = %id))]
    async fn revision_by_id(&self, id: &RevisionId) -> StoreResult<Option<Revision>> {
        sync_write::revision_by_id(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(writes = writes.len()))]
    async fn sync_writes(&self, author: &UserId, writes: &[SyncWrite]) -> StoreResult<SyncWritten> {
        sync_write::write_all(&self.db, author, writes).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn changes(
        &self,
        author: &UserId,
        start: u64,
        after: u64,
        limit: u32,
    ) -> StoreResult<StoredChanges> {
        changes::feed(&self.db, author, start, after, limit).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn purge(&self, author: &UserId, id: &EntryId) -> StoreResult<bool> {
        history::purge(&self.db, author, id).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author))]
    async fn conflicts(&self, author: &UserId, page: PageRequest) -> StoreResult<Page<Conflict>> {
        conflicts::page(&self.db, author, page).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author, entry = %id))]
    async fn entry_conflicts(&self, author: &UserId, id: &EntryId) -> StoreResult<Vec<RevisionId>> {
        conflicts::of_entry(&self.db, author, id).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %author, entry = %id))]
    async fn settle_conflicts(
        &self,
        author: &UserId,
        id: &EntryId,
        revisions: &[RevisionId],
    ) -> StoreResult<u64> {
        conflicts::settle(&self.db, author, id, revisions).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn forget_tombstones(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        changes::forget_before(&self.db, before, limit).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn purge_trash(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        history::purge_before(&self.db, before, limit).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn prune_history(
        &self,
        keep: &HistoryKeep,
        now: Timestamp,
        limit: u32,
    ) -> StoreResult<u64> {
        history::prune(&self.db, keep, now, limit).await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %a.id))]
    async fn insert_attachment(&self, a: &Attachment) -> StoreResult<()> {
        attachments::insert(&self.db, a).await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %id))]
    async fn attachment(&self, id: &AttachmentId) -> StoreResult<Option<StoredAttachment>> {
        attachments::by_id(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn entry_attachments(&self, entry: &EntryId) -> StoreResult<Vec<Attachment>> {
        attachments::of_entry(&self.db, entry).await
    }

    #[instrument(level = "debug", skip_all, fields(entries = entries.len()))]
    async fn attachments_of_entries(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<StoredAttachment>> {
        attachments::of_entries(&self.db, entries).await
    }

    #[instrument(level = "debug", skip_all, fields(entries = entries.len()))]
    async fn attachments_for_sync(
        &self,
        entries: &[EntryId],
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
        attachments::of_entries_for_sync(&self.db, entries).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn mark_changed(&self, entry: &EntryId) -> StoreResult<()> {
        attachments::mark_changed(&self.db, entry).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, files = sha256s.len()))]
    async fn author_files(
        &self,
        author: &UserId,
        sha256s: &[String],
    ) -> StoreResult<Vec<Attachment>> {
        attachments::of_author_by_sha(&self.db, author, sha256s).await
    }

    #[instrument(level = "debug", skip_all, fields(attachments = ids.len()))]
    async fn attachments_by_ids(&self, ids: &[AttachmentId]) -> StoreResult<Vec<StoredAttachment>> {
        attachments::by_ids(&self.db, ids).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn author_attachments(
        &self,
        author: &UserId,
        page: PageRequest,
    ) -> StoreResult<Page<StoredAttachment>> {
        attachments::of_author(&self.db, author, page).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry))]
    async fn attach(
        &self,
        author: &UserId,
        entry: &EntryId,
        ids: &[AttachmentId],
    ) -> StoreResult<u64> {
        attachments::attach(&self.db, author, entry, ids).await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %id))]
    async fn delete_attachment(&self, id: &AttachmentId, at: Timestamp) -> StoreResult<bool> {
        attachments::delete(&self.db, id, at).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn discard_upload(&self, id: &AttachmentId) -> StoreResult<bool> {
        attachments::discard(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn attachment_bytes(&self, author: &UserId) -> StoreResult<u64> {
        attachments::bytes_of(&self.db, author).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn collect_attachments(&self, unattached_before: Timestamp) -> StoreResult<u64> {
        attachments::collect(&self.db, unattached_before).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn attachment_objects(&self) -> StoreResult<Vec<String>> {
        attachments::objects(&self.db).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn attachments_after(
        &self,
        after: Option<&AttachmentId>,
        limit: u32,
    ) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
        attachments::after(&self.db, after, limit).await
    }

    #[instrument(level = "debug", skip_all, fields(attachment = %a.id))]
    async fn copy_attachment(
        &self,
        a: &Attachment,
        deleted_at: Option<Timestamp>,
    ) -> StoreResult<()> {
        attachments::insert_copy(&self.db, a, deleted_at).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, page = page.page()))]
    async fn entries_by_author(
        &self,
        author: &UserId,
        visibility: Visibility,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        self.pages
            .author_page(&self.db, author, visibility, filter, page)
            .await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn public_entries(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        self.pages.feed_page(&self.db, filter, page).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn tags(&self, author: &UserId) -> StoreResult<Vec<TagCount>> {
        entries::tags(&self.db, author).await
    }

    #[instrument(level = "debug", skip_all)]
    fn cache_counts(&self) -> Vec<(&'static str, CacheCounts)> {
        let [feed, authors, links, snapshots] = self.pages.counts();
        vec![
            ("feedPages", feed),
            ("authorPages", authors),
            ("sharedLinkPages", links),
            ("sharedSearches", self.searches.counts()),
            ("sharedTokenChecks", self.auth.counts()),
            ("sharedSnapshots", snapshots),
        ]
    }

    fn pools(&self) -> Vec<crate::metrics::PoolState> {
        vec![self.db.state()]
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        users::after(&self.db, after, limit).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        tokens::revoked(&self.db).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, page = page.page()))]
    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        search::page(&self.db, &self.searches, author, query, filter, page).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user.profile.id))]
    async fn insert_user_with_invite(
        &self,
        user: &UserRecord,
        invite_hash: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        invites::insert_user_with_invite(&self.db, user, invite_hash, now).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn insert_invite(&self, invite: &InviteRecord) -> StoreResult<()> {
        invites::insert(&self.db, invite).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn invites(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InviteSummary>> {
        invites::working(&self.db, now, limit).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn delete_invite(&self, id_or_hash: &str) -> StoreResult<bool> {
        invites::delete(&self.db, id_or_hash).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_disabled(&self, id: &UserId, disabled: bool) -> StoreResult<bool> {
        users::set_disabled(&self.db, id, disabled).await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn users_page(&self, page: PageRequest) -> StoreResult<Page<AdminUser>> {
        users::page(&self.db, page).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_access_token(
        &self,
        token: &AccessTokenRecord,
        max: usize,
    ) -> StoreResult<bool> {
        tokens::insert_access_token(&self.db, token, max).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn access_tokens(&self, user: &UserId) -> StoreResult<Vec<AccessToken>> {
        tokens::access_tokens(&self.db, user).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn delete_access_token(&self, user: &UserId, id: &AccessTokenId) -> StoreResult<bool> {
        tokens::delete_access_token(&self.db, user, id).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn access_token_auth(&self, hash: &str) -> StoreResult<Option<AccessTokenAuth>> {
        tokens::access_token_auth(&self.db, hash).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn touch_access_token(&self, id: &AccessTokenId, at: Timestamp) -> StoreResult<()> {
        tokens::touch_access_token(&self.db, id, at).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_totp(&self, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
        second_factor::set(&self.db, id, change).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_totp_step(&self, id: &UserId, step: i64) -> StoreResult<bool> {
        second_factor::claim_step(&self.db, id, step).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn recovery_codes_left(&self, id: &UserId) -> StoreResult<u32> {
        second_factor::recovery_codes_left(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_recovery_code(
        &self,
        id: &UserId,
        hash: &str,
        at: Timestamp,
    ) -> StoreResult<bool> {
        second_factor::claim_recovery_code(&self.db, id, hash, at).await
    }
}
