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
//! its migrations in `schema.rs`, rows ↔ model in `rows.rs`, paged lists in
//! `lists.rs`, search in `search.rs`, the first pages kept in memory in `page_cache.rs`,
//! and the questions many requests share (token checks, snapshots) in `coalesce.rs`.
//! This file is the `Store` implementation: one query per method.

mod accounts;
mod coalesce;
mod errors;
mod feed_total;
mod link_pages;
mod lists;
mod page_cache;
mod pool;
mod rows;
mod schema;
mod search;
mod security_events;
mod tls;

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine as _;
use tracing::instrument;

pub use self::pool::DEFAULT_POOL_SIZE;
#[doc(hidden)]
pub use self::schema::migrate_to;

use self::coalesce::{Coalesced, slot};
use self::errors::map_pg;
use self::feed_total::{FEED_COUNT, Folder};
use self::link_pages::LinkPages;
use self::lists::{SNAPSHOT, filtered_page};
use self::page_cache::PageCache;
use self::pool::Db;
use self::rows::{
    ENTRY_COLUMN_COUNT, ENTRY_COLUMNS, ENTRY_COLUMNS_BARE, INSERT_ENTRY, INSERT_USER, USER_COLUMNS,
    auth_state_from_row, entry_from_row, entry_params, entry_times, from_ts, profile_from_row, ts,
    user_from_row, user_params,
};
use super::list_query::Scope;
use super::{
    AccessTokenAuth, AccessTokenRecord, AuthState, InviteRecord, Store, StoredEntry, TotpChange,
    UserRecord, Visibility,
};
use crate::domain::{AccessTokenId, EntryId, PageRequest, Role, SearchQuery, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::filter::{EntryFilter, TagCount};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{AccessToken, AdminUser, CacheCounts, Entry, InviteSummary, Page, Profile};

/// The state of one token checked alone (`$1` its user, `$2` its id), in
/// [`AUTH_STATES`]' columns.
const AUTH_STATE: &str = "SELECT 1::bigint, role, password_changed_at,
        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2), disabled
     FROM users WHERE id = $1";

/// The state of each token asked about (`$1` its users, `$2` its ids), numbered by its
/// place in the arrays; a user who no longer exists has no row. The lookup sits in a
/// `LIMIT 1` subquery so the plan stays one index probe per token, whatever the
/// arrays' length.
const AUTH_STATES: &str = "SELECT t.at, u.role, u.password_changed_at,
        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = t.jti), u.disabled
     FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS t(id, jti, at)
     CROSS JOIN LATERAL (SELECT role, password_changed_at, disabled FROM users
                         WHERE id = t.id LIMIT 1) u";

/// A journal stored in PostgreSQL.
#[derive(Clone)]
pub struct PostgresStore {
    db: Db,
    /// The feed's first pages, by page and limit.
    feed: Arc<PageCache<(u32, u32)>>,
    /// Authors' first pages, by author, public-only, page and limit.
    authors: Arc<PageCache<(UserId, bool, u32, u32)>>,
    /// Pages after a cursor, read together for the requests asking at once.
    links: Arc<LinkPages>,
    /// Searches of authors with few entries, read together.
    searches: Arc<search::LightSearches>,
    /// Token checks, by user and token id.
    auth: Arc<Coalesced<(UserId, String), Option<AuthState>>>,
    /// The database's current snapshot, for the page caches.
    snapshots: Arc<Coalesced<(), String>>,
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
            feed: Arc::default(),
            authors: Arc::default(),
            links: Arc::default(),
            searches: Arc::default(),
            auth: Arc::default(),
            snapshots: Arc::default(),
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

    /// Inserts entries in one transaction.
    async fn insert_entries_tx(&self, entries: &[Entry]) -> StoreResult<()> {
        let mut client = self.db.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        let stmt = tx.prepare_cached(INSERT_ENTRY).await.map_err(map_pg)?;
        // By author: each insert locks its author's counter row until the commit, so
        // two batches that took the rows in different orders could deadlock.
        let mut by_author: Vec<&Entry> = entries.iter().collect();
        by_author.sort_by_key(|e| *e.author_id.as_uuid());
        for e in by_author {
            let times = entry_times(e);
            tx.execute(&stmt, &entry_params(e, &times))
                .await
                .map_err(map_pg)?;
        }
        tx.commit().await.map_err(map_pg)
    }

    /// The database's current snapshot (see [`SNAPSHOT`]), read by a statement sent
    /// after this call, which may answer other callers too.
    async fn snapshot(&self) -> StoreResult<String> {
        self.snapshots
            .ask(
                (),
                |()| self.read_snapshot(),
                |askers| async move { Ok(vec![self.read_snapshot().await?; askers.len()]) },
            )
            .await
    }

    /// The database's current snapshot, read now.
    async fn read_snapshot(&self) -> StoreResult<String> {
        Ok(self
            .db
            .query_opt(SNAPSHOT, &[])
            .await?
            .map(|row| row.get(0))
            .unwrap_or_default())
    }

    /// A page of the public feed, read from the database; with `name_snapshot`, also
    /// the snapshot it was read in.
    async fn read_feed_page(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
        name_snapshot: bool,
    ) -> StoreResult<(Page<Entry>, Option<String>)> {
        filtered_page(
            &self.db,
            &Scope::Feed,
            filter,
            page,
            FEED_COUNT,
            name_snapshot,
        )
        .await
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
        let client = self.db.client().await?;
        client
            .execute(
                "INSERT INTO settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING",
                &[&encoded],
            )
            .await
            .map_err(map_pg)?;
        let stored: String = client
            .query_one("SELECT value FROM settings WHERE key = 'jwt_secret'", &[])
            .await
            .map_err(map_pg)?
            .get(0);
        base64::engine::general_purpose::STANDARD
            .decode(stored)
            .map_err(StoreError::internal)
    }

    #[instrument(level = "debug", skip_all, fields(user = %u.profile.id))]
    async fn insert_user(&self, u: &UserRecord) -> StoreResult<()> {
        self.db
            .execute_one(
                INSERT_USER,
                &user_params(u, &[ts(u.password_changed_at), ts(u.created_at)]),
            )
            .await
            .map(|_| ())
    }

    #[instrument(level = "debug", skip_all)]
    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        let row = self
            .db
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE email = $1"),
                &[&email],
            )
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        let row = self
            .db
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1"),
                &[id.as_uuid()],
            )
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        // Checked together with the other tokens being checked at the moment (one
        // statement, sent after this call: a revocation committed before it is seen).
        self.auth
            .ask(
                (*id, token_id.to_owned()),
                |(id, jti)| async move {
                    let row = self.db.query_opt(AUTH_STATE, &[id.as_uuid(), &jti]).await?;
                    row.as_ref().map(auth_state_from_row).transpose()
                },
                |tokens| async move {
                    let (ids, jtis): (Vec<uuid::Uuid>, Vec<String>) = tokens
                        .into_iter()
                        .map(|(id, jti)| (*id.as_uuid(), jti))
                        .unzip();
                    let mut states: Vec<Option<AuthState>> = vec![None; ids.len()];
                    for row in self.db.query(AUTH_STATES, &[&ids, &jtis]).await? {
                        if let Some(state) = slot(&mut states, row.get(0)) {
                            *state = Some(auth_state_from_row(&row)?);
                        }
                    }
                    Ok(states)
                },
            )
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        let row = self
            .db
            .query_opt(
                &format!(
                    "UPDATE users SET
                    full_name   = COALESCE($1, full_name),
                    nickname    = COALESCE($2, nickname),
                    email       = COALESCE($3, email),
                    profile_pic = COALESCE($4, profile_pic),
                    is_private  = COALESCE($5, is_private),
                    updated_at  = $6
                 WHERE id = $7
                 RETURNING {USER_COLUMNS}"
                ),
                &[
                    &changes.full_name.as_ref().map(|v| v.as_ref()),
                    &changes.nickname.as_ref().map(|v| v.as_ref()),
                    &changes.email.as_ref().map(|v| v.as_ref()),
                    &changes.profile_pic.as_ref().map(|v| v.as_ref()),
                    &changes.is_private,
                    &ts(now),
                    id.as_uuid(),
                ],
            )
            .await?;
        row.as_ref().map(profile_from_row).transpose()
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
        revoke_access_tokens: bool,
    ) -> StoreResult<bool> {
        // The row lock orders this with `record_token`; the new time is computed from
        // the row as it is once the lock is held. The tokens go in the same statement,
        // so a password change never commits without them.
        self.db
            .execute_one(
                "WITH changed AS (
                    UPDATE users SET password_hash = $1,
                        password_changed_at = GREATEST($2, last_token_at + interval '1 millisecond'),
                        updated_at = $2
                     WHERE id = $3
                     RETURNING id
                 ), revoked AS (
                    DELETE FROM access_tokens
                     WHERE $4 AND user_id IN (SELECT id FROM changed)
                 )
                 SELECT 1 FROM changed",
                &[&hash, &ts(changed_at), id.as_uuid(), &revoke_access_tokens],
            )
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn record_token(
        &self,
        id: &UserId,
        password_changed_at: Timestamp,
        issued_at: Timestamp,
    ) -> StoreResult<bool> {
        self.db
            .execute_one(
                "UPDATE users SET last_token_at = GREATEST(last_token_at, $1)
                 WHERE id = $2 AND password_changed_at = $3",
                &[&ts(issued_at), id.as_uuid(), &ts(password_changed_at)],
            )
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        accounts::set_role(&self.db, email, role.as_str()).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        accounts::delete_user(&self.db, id).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        let mut client = self.db.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        tx.execute("DELETE FROM revoked_tokens WHERE expires_at < now()", &[])
            .await
            .map_err(map_pg)?;
        tx.execute(
            "INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
            &[&token_id, &ts(expires_at)],
        )
        .await
        .map_err(map_pg)?;
        tx.commit().await.map_err(map_pg)
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry.id))]
    async fn insert_entry(&self, entry: &Entry) -> StoreResult<()> {
        self.insert_entries_tx(std::slice::from_ref(entry)).await
    }

    #[instrument(level = "debug", skip_all, fields(count = entries.len()))]
    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        self.insert_entries_tx(entries).await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        let row = self
            .db
            .query_opt(
                &format!(
                    "SELECT {ENTRY_COLUMNS}, u.is_private OR u.disabled
                     FROM entries e JOIN users u ON u.id = e.author_id
                     WHERE e.id = $1"
                ),
                &[id.as_uuid()],
            )
            .await?;
        Ok(row.map(|r| StoredEntry {
            entry: entry_from_row(&r),
            author_private: r.get(ENTRY_COLUMN_COUNT),
        }))
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Entry>> {
        let row = self
            .db
            .query_opt(
                &format!(
                    "UPDATE entries SET
                    title      = COALESCE($1, title),
                    content    = COALESCE($2, content),
                    is_public  = COALESCE($3, is_public),
                    tags       = COALESCE($4, tags),
                    starred    = COALESCE($5, starred),
                    date       = COALESCE($6, date),
                    updated_at = $7
                 WHERE id = $8
                 RETURNING {ENTRY_COLUMNS_BARE}"
                ),
                &[
                    &changes.title.as_ref().map(|v| v.as_ref()),
                    &changes.content.as_ref().map(|v| v.as_ref()),
                    &changes.is_public,
                    &changes.tags.clone().map(|t| t.into_inner()),
                    &changes.starred,
                    &changes.date.map(ts),
                    &ts(now),
                    id.as_uuid(),
                ],
            )
            .await?;
        Ok(row.as_ref().map(entry_from_row))
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn delete_entry(&self, id: &EntryId) -> StoreResult<bool> {
        self.db
            .execute_one("DELETE FROM entries WHERE id = $1", &[id.as_uuid()])
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
        let (public_only, count) = match visibility {
            Visibility::All => (
                false,
                "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = $1), 0)",
            ),
            Visibility::PublicOnly => (
                true,
                "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = $1), 0)",
            ),
        };
        let scope = Scope::Author {
            id: *author,
            public_only,
        };
        // The cache keeps unfiltered pages only: a filtered one is read afresh.
        if !filter.is_empty() {
            return Ok(filtered_page(&self.db, &scope, filter, page, count, false)
                .await?
                .0);
        }
        let list = |n, limit| (*author, public_only, n, limit);
        let read = |page, name_snapshot| {
            filtered_page(&self.db, &scope, filter, page, count, name_snapshot)
        };
        let next = self
            .authors
            .continuation(list, page, self.snapshot(), |by_number| {
                read(by_number, true)
            })
            .await?;
        if let Some(next) = next {
            return Ok(next);
        }
        if let Some(next) = self.links.page(&self.db, &scope, page).await? {
            return Ok(next);
        }
        self.authors
            .page(list, page, self.snapshot(), |name_snapshot| {
                read(page, name_snapshot)
            })
            .await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn public_entries(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        // The cache keeps unfiltered pages only: a filtered one is read afresh.
        if !filter.is_empty() {
            return Ok(self.read_feed_page(filter, page, false).await?.0);
        }
        let list = |n, limit| (n, limit);
        let next = self
            .feed
            .continuation(list, page, self.snapshot(), |by_number| {
                self.read_feed_page(filter, by_number, true)
            })
            .await?;
        if let Some(next) = next {
            return Ok(next);
        }
        if let Some(next) = self.links.page(&self.db, &Scope::Feed, page).await? {
            return Ok(next);
        }
        self.feed
            .page(list, page, self.snapshot(), |name_snapshot| {
                self.read_feed_page(filter, page, name_snapshot)
            })
            .await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn tags(&self, author: &UserId) -> StoreResult<Vec<TagCount>> {
        let client = self.db.client().await?;
        let stmt = client
            .prepare_cached(
                "SELECT tag, count(*) AS n FROM entry_tags WHERE author_id = $1
                 GROUP BY tag ORDER BY n DESC, tag",
            )
            .await
            .map_err(map_pg)?;
        let rows = client
            .query(&stmt, &[author.as_uuid()])
            .await
            .map_err(map_pg)?;
        Ok(rows
            .iter()
            .map(|r| TagCount {
                tag: r.get(0),
                count: r.get::<_, i64>(1).try_into().unwrap_or(0),
            })
            .collect())
    }

    #[instrument(level = "debug", skip_all)]
    fn cache_counts(&self) -> Vec<(&'static str, CacheCounts)> {
        vec![
            ("feedPages", self.feed.counts()),
            ("authorPages", self.authors.counts()),
            ("sharedLinkPages", self.links.counts()),
            ("sharedSearches", self.searches.counts()),
            ("sharedTokenChecks", self.auth.counts()),
            ("sharedSnapshots", self.snapshots.counts()),
        ]
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        let client = self.db.client().await?;
        let after = after
            .map(|id| *id.as_uuid())
            .unwrap_or_else(uuid::Uuid::nil);
        let rows = client
            .query(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after, &i64::from(limit)],
            )
            .await
            .map_err(map_pg)?;
        rows.iter().map(user_from_row).collect()
    }

    #[instrument(level = "debug", skip_all)]
    async fn entries_after(&self, after: Option<&EntryId>, limit: u32) -> StoreResult<Vec<Entry>> {
        let client = self.db.client().await?;
        let after = after
            .map(|id| *id.as_uuid())
            .unwrap_or_else(uuid::Uuid::nil);
        let rows = client
            .query(
                &format!(
                    "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id > $1 ORDER BY e.id LIMIT $2"
                ),
                &[&after, &i64::from(limit)],
            )
            .await
            .map_err(map_pg)?;
        Ok(rows.iter().map(entry_from_row).collect())
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        let client = self.db.client().await?;
        let rows = client
            .query(
                "SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= now()",
                &[],
            )
            .await
            .map_err(map_pg)?;
        Ok(rows.iter().map(|r| (r.get(0), from_ts(r.get(1)))).collect())
    }

    #[instrument(level = "debug", skip_all, fields(author = %author, page = page.page()))]
    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let expression = search::tsquery_expression(query);
        if filter.is_empty()
            && let Some(found) = self
                .searches
                .page(&self.db, author, &expression, page)
                .await?
        {
            return Ok(found);
        }
        search::alone(&self.db, author, &expression, filter, page).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user.profile.id))]
    async fn insert_user_with_invite(
        &self,
        user: &UserRecord,
        invite_hash: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        accounts::insert_user_with_invite(&self.db, user, invite_hash, now).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn insert_invite(&self, invite: &InviteRecord) -> StoreResult<()> {
        accounts::insert_invite(&self.db, invite).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn invites(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InviteSummary>> {
        accounts::invites(&self.db, now, limit).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn delete_invite(&self, id_or_hash: &str) -> StoreResult<bool> {
        accounts::delete_invite(&self.db, id_or_hash).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_disabled(&self, id: &UserId, disabled: bool) -> StoreResult<bool> {
        accounts::set_disabled(&self.db, id, disabled).await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn users_page(&self, page: PageRequest) -> StoreResult<Page<AdminUser>> {
        accounts::users_page(&self.db, page).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_access_token(
        &self,
        token: &AccessTokenRecord,
        max: usize,
    ) -> StoreResult<bool> {
        accounts::insert_access_token(&self.db, token, max).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn access_tokens(&self, user: &UserId) -> StoreResult<Vec<AccessToken>> {
        accounts::access_tokens(&self.db, user).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn delete_access_token(&self, user: &UserId, id: &AccessTokenId) -> StoreResult<bool> {
        self.db
            .execute_one(
                "DELETE FROM access_tokens WHERE id = $1 AND user_id = $2",
                &[id.as_uuid(), user.as_uuid()],
            )
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn access_token_auth(&self, hash: &str) -> StoreResult<Option<AccessTokenAuth>> {
        accounts::access_token_auth(&self.db, hash).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn touch_access_token(&self, id: &AccessTokenId, at: Timestamp) -> StoreResult<()> {
        self.db
            .execute_one(
                "UPDATE access_tokens SET last_used_at = $1 WHERE id = $2",
                &[&ts(at), id.as_uuid()],
            )
            .await
            .map(|_| ())
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_totp(&self, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
        accounts::set_totp(&self.db, id, change).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_totp_step(&self, id: &UserId, step: i64) -> StoreResult<bool> {
        self.db
            .execute_one(
                "UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_last_step < $1",
                &[&step, id.as_uuid()],
            )
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_recovery_code(
        &self,
        id: &UserId,
        hash: &str,
        at: Timestamp,
    ) -> StoreResult<bool> {
        self.db
            .execute_one(
                "UPDATE recovery_codes SET used_at = $1
                 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL",
                &[&ts(at), id.as_uuid(), &hash],
            )
            .await
    }
}
