//! The SQLite store: the embedded default.
//!
//! One writer thread with group commit and four reader threads (`pool.rs`), so no
//! SQLite call runs on the async reactor; commits use `synchronous=FULL`, so an
//! acknowledged write survives a crash or power loss. Opening a file (WAL, a private
//! mode, read-only files, several processes at once) is in `open.rs`, the schema and
//! its migrations in `schema.rs`, rows ↔ model in `rows.rs`, paged lists in `lists.rs`, search in
//! `search.rs` with its ranking function in `rank.rs`, and the read cache in
//! `cache.rs`. This file is the `Store` implementation: one query per method.

mod accounts;
mod cache;
mod checkpoint;
mod errors;
#[allow(unsafe_code)] // rusqlite cannot sync the database file: see the module.
mod file_sync;
mod fts_batch;
mod fts_merge;
mod lists;
mod open;
mod other_writers;
mod pool;
#[allow(unsafe_code)] // FTS5's extension API has no safe binding: see the module.
mod rank;
mod rows;
mod schema;
mod search;
mod security_events;

#[doc(hidden)]
pub use self::schema::migrate_to;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine as _;
use rusqlite::{Connection, OptionalExtension, params};
use tracing::instrument;

use self::cache::{ReadCache, Touched};
use self::lists::{filtered_page, in_read_transaction};
use self::pool::Pool;
use self::rows::{
    ENTRY_COLUMN_COUNT, ENTRY_COLUMNS, ENTRY_COLUMNS_BARE, USER_COLUMNS, entry_from_row,
    insert_entry_row, insert_user_row, profile_from_row, role_col, tags_column, user_from_row,
};
use super::list_query::Scope;
use super::{AccessTokenAuth, AccessTokenRecord, InviteRecord, TotpChange};
use super::{AuthState, EMAIL_CONSTRAINT, Store, StoredEntry, UserRecord, Visibility};
use crate::domain::{AccessTokenId, EntryId, PageRequest, Role, SearchQuery, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::filter::{EntryFilter, TagCount};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{AccessToken, AdminUser, CacheCounts, Entry, InviteSummary, Page, Profile};

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

    /// A page of an author's list, read from the database.
    async fn read_author_page(
        &self,
        author: &UserId,
        public_only: bool,
        filter: EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let scope = Scope::Author {
            id: *author,
            public_only,
        };
        self.read(move |c| {
            let total = if public_only {
                "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = ?1), 0)"
            } else {
                "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = ?1), 0)"
            };
            filtered_page(c, &scope, &filter, page, Some(total))
        })
        .await
    }

    /// A page of the public feed, read from the database.
    async fn read_feed_page(
        &self,
        filter: EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        self.read(move |c| {
            let total = "SELECT n FROM feed_count WHERE id = 0";
            filtered_page(c, &Scope::Feed, &filter, page, Some(total))
        })
        .await
    }

    /// A token's user state, read from the database.
    async fn read_auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        let (id, jti) = (id.to_string(), token_id.to_owned());
        self.read(move |c| {
            c.prepare_cached(
                "SELECT role, password_changed_at,
                        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?2), disabled
                 FROM users WHERE id = ?1",
            )?
            .query_row([id, jti], |r| {
                Ok(AuthState {
                    role: role_col(r, 0)?,
                    password_changed_at: Timestamp::from_millis(r.get(1)?),
                    revoked: r.get(2)?,
                    disabled: r.get(3)?,
                })
            })
            .optional()
        })
        .await
    }
}

/// The store's answer to a write that found the e-mail address taken.
fn email_taken() -> StoreError {
    StoreError::Conflict {
        constraint: EMAIL_CONSTRAINT,
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
        let kept: Option<String> = self
            .read(|c| {
                c.query_row(
                    "SELECT value FROM settings WHERE key = 'jwt_secret'",
                    [],
                    |r| r.get(0),
                )
                .optional()
            })
            .await?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(candidate);
        let stored: String = match kept {
            Some(kept) => kept,
            None => {
                self.write(move |c| {
                    c.execute(
                        "INSERT OR IGNORE INTO settings (key, value) VALUES ('jwt_secret', ?1)",
                        [&encoded],
                    )?;
                    c.query_row(
                        "SELECT value FROM settings WHERE key = 'jwt_secret'",
                        [],
                        |r| r.get(0),
                    )
                })
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
        match self.write(move |c| insert_user_row(c, &u)).await? {
            true => Ok(()),
            false => Err(email_taken()),
        }
    }

    #[instrument(level = "debug", skip_all)]
    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        let email = email.to_owned();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM users WHERE email = ?1"
            ))?
            .query_row([email], user_from_row)
            .optional()
        })
        .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        let key = id.to_string();
        let query = self.read(move |c| {
            c.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"))?
                .query_row([key], user_from_row)
                .optional()
        });
        self.inner.cache.user(id, query).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        let query = self.read_auth_state(id, token_id);
        self.inner.cache.auth_state(id, token_id, query).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        let id = id.to_string();
        let full_name = changes.full_name.as_ref().map(|v| v.as_ref().to_owned());
        let nickname = changes.nickname.as_ref().map(|v| v.as_ref().to_owned());
        let email = changes.email.as_ref().map(|v| v.as_ref().to_owned());
        let pic = changes.profile_pic.as_ref().map(|v| v.as_ref().to_owned());
        let private = changes.is_private;
        self.write(move |c| {
            // The check and the update run in one write transaction, so nobody can take
            // the address in between.
            if let Some(email) = &email {
                let taken: bool = c
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM users WHERE email = ?1 AND id <> ?2)",
                    )?
                    .query_row(params![email, id], |r| r.get(0))?;
                if taken {
                    return Ok(Err(email_taken()));
                }
            }
            c.prepare_cached(&format!(
                "UPDATE users SET
                    full_name   = COALESCE(?1, full_name),
                    nickname    = COALESCE(?2, nickname),
                    email       = COALESCE(?3, email),
                    profile_pic = COALESCE(?4, profile_pic),
                    is_private  = COALESCE(?5, is_private),
                    updated_at  = ?6
                 WHERE id = ?7
                 RETURNING {USER_COLUMNS}"
            ))?
            .query_row(
                params![
                    full_name,
                    nickname,
                    email,
                    pic,
                    private,
                    now.as_millis(),
                    id
                ],
                profile_from_row,
            )
            .optional()
            .map(Ok)
        })
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
        self.write(move |c| {
            let changed = c.execute(
                "UPDATE users SET password_hash = ?1,
                    password_changed_at = max(?2, last_token_at + 1), updated_at = ?2
                 WHERE id = ?3",
                params![hash, changed_at.as_millis(), id],
            )? == 1;
            if changed && revoke_access_tokens {
                c.execute("DELETE FROM access_tokens WHERE user_id = ?1", params![id])?;
            }
            Ok(changed)
        })
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
        let id = id.to_string();
        // On the writer: ordered with every password change. Touches the user's
        // account only, not their entries or the feed.
        self.write_touching(move |c| {
            let recorded = c
                .prepare_cached(
                    "UPDATE users SET last_token_at = max(last_token_at, ?1)
                     WHERE id = ?2 AND password_changed_at = ?3",
                )?
                .execute(params![
                    issued_at.as_millis(),
                    id,
                    password_changed_at.as_millis()
                ])?;
            Ok((recorded == 1, Touched::account_of(user)))
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        let email = email.to_owned();
        self.write(move |c| accounts::set_role(c, &email, role))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| accounts::delete_user(c, &id))
            .await?
            .into()
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        let jti = token_id.to_owned();
        let now = Timestamp::now().as_millis();
        self.write(move |c| {
            c.execute("DELETE FROM revoked_tokens WHERE expires_at < ?1", [now])?;
            c.execute(
                "INSERT OR IGNORE INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2)",
                params![jti, expires_at.as_millis()],
            )?;
            Ok(())
        })
        .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %entry.id))]
    async fn insert_entry(&self, entry: &Entry) -> StoreResult<()> {
        let e = entry.clone();
        // A private entry leaves the feed as it was; the author's cached first pages
        // take the entry in.
        let touched = Touched::created(entry.clone());
        self.write_touching(move |c| Ok((insert_entry_row(c, &e)?, touched)))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(count = entries.len()))]
    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        let entries = entries.to_vec();
        self.write_touching(move |c| {
            let mut touched = Touched::nothing();
            for e in &entries {
                insert_entry_row(c, e)?;
                touched.add(Touched::entries_of(e.author_id, e.is_public));
            }
            Ok(((), touched))
        })
        .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        let id = id.to_string();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS}, u.is_private OR u.disabled
                 FROM entries e JOIN users u ON u.id = e.author_id
                 WHERE e.id = ?1"
            ))?
            .query_row([id], |r| {
                Ok(StoredEntry {
                    entry: entry_from_row(r)?,
                    author_private: r.get(ENTRY_COLUMN_COUNT)?,
                })
            })
            .optional()
        })
        .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Entry>> {
        let id = id.to_string();
        let title = changes.title.as_ref().map(|v| v.as_ref().to_owned());
        let content = changes.content.as_ref().map(|v| v.as_ref().to_owned());
        let public = changes.is_public;
        let tags = changes
            .tags
            .as_ref()
            .map(|t| tags_column(&t.clone().into_inner()));
        let starred = changes.starred;
        let date = changes.date.map(|d| d.as_millis());
        self.write_touching(move |c| {
            c.prepare_cached(&format!(
                "UPDATE entries SET
                    title      = COALESCE(?1, title),
                    content    = COALESCE(?2, content),
                    is_public  = COALESCE(?3, is_public),
                    tags       = COALESCE(?4, tags),
                    starred    = COALESCE(?5, starred),
                    date       = COALESCE(?6, date),
                    updated_at = ?7
                 WHERE id = ?8
                 RETURNING {ENTRY_COLUMNS_BARE}"
            ))?
            .query_row(
                params![
                    title,
                    content,
                    public,
                    tags,
                    starred,
                    date,
                    now.as_millis(),
                    id
                ],
                entry_from_row,
            )
            .optional()
            .map(|updated| {
                // The entry may have left or joined the feed, or changed in it.
                let touched = updated
                    .as_ref()
                    .map_or_else(Touched::nothing, |e| Touched::entries_of(e.author_id, true));
                (updated, touched)
            })
        })
        .await
    }

    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    async fn delete_entry(&self, id: &EntryId) -> StoreResult<bool> {
        let id = id.to_string();
        self.write_touching(move |c| {
            let author: Option<String> = c
                .prepare_cached("DELETE FROM entries WHERE id = ?1 RETURNING author_id")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            let touched = match author.as_deref().map(str::parse::<UserId>) {
                Some(Ok(author)) => Touched::entries_of(author, true),
                Some(Err(_)) => Touched::everything(),
                None => Touched::nothing(),
            };
            Ok((author.is_some(), touched))
        })
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
        let query = self.read_author_page(author, public_only, filter.clone(), page);
        // The cache keeps unfiltered pages only: a filtered one is read afresh.
        if !filter.is_empty() {
            return query.await;
        }
        self.inner
            .cache
            .author_page(author, public_only, page, query)
            .await
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn public_entries(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let query = self.read_feed_page(filter.clone(), page);
        if !filter.is_empty() {
            return query.await;
        }
        self.inner.cache.feed_page(page, query).await
    }

    #[instrument(level = "debug", skip_all, fields(author = %author))]
    async fn tags(&self, author: &UserId) -> StoreResult<Vec<TagCount>> {
        let author = author.to_string();
        self.read(move |c| {
            c.prepare_cached(
                "SELECT tag, count(*) AS n FROM entry_tags WHERE author_id = ?1
                 GROUP BY tag ORDER BY n DESC, tag",
            )?
            .query_map([author], |r| {
                Ok(TagCount {
                    tag: r.get(0)?,
                    count: r.get::<_, i64>(1)?.try_into().unwrap_or(0),
                })
            })?
            .collect()
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    fn cache_counts(&self) -> Vec<(&'static str, CacheCounts)> {
        self.inner.cache.counts()
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        let after = after.map(|id| id.to_string()).unwrap_or_default();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM users WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?
            .query_map(params![after, limit], user_from_row)?
            .collect()
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn entries_after(&self, after: Option<&EntryId>, limit: u32) -> StoreResult<Vec<Entry>> {
        let after = after.map(|id| id.to_string()).unwrap_or_default();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id > ?1 ORDER BY e.id LIMIT ?2"
            ))?
            .query_map(params![after, limit], entry_from_row)?
            .collect()
        })
        .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        let now = Timestamp::now().as_millis();
        self.read(move |c| {
            c.prepare_cached("SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= ?1")?
                .query_map([now], |r| {
                    Ok((r.get(0)?, Timestamp::from_millis(r.get(1)?)))
                })?
                .collect()
        })
        .await
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
        let filter = filter.clone();
        let author = *author;
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
            .write(move |c| accounts::insert_user_with_invite(c, &u, &hash, now))
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
        self.write(move |c| accounts::insert_invite(c, &invite))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn invites(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InviteSummary>> {
        self.read(move |c| accounts::invites(c, now, limit)).await
    }

    #[instrument(level = "debug", skip_all)]
    async fn delete_invite(&self, id_or_hash: &str) -> StoreResult<bool> {
        let key = id_or_hash.to_owned();
        self.write(move |c| accounts::delete_invite(c, &key)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_disabled(&self, id: &UserId, disabled: bool) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| accounts::set_disabled(c, &id, disabled))
            .await?
            .into()
    }

    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    async fn users_page(&self, page: PageRequest) -> StoreResult<Page<AdminUser>> {
        self.read(move |c| in_read_transaction(c, |c| accounts::users_page(c, page)))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %token.user_id))]
    async fn insert_access_token(
        &self,
        token: &AccessTokenRecord,
        max: usize,
    ) -> StoreResult<bool> {
        let token = token.clone();
        self.write(move |c| accounts::insert_access_token(c, &token, max))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn access_tokens(&self, user: &UserId) -> StoreResult<Vec<AccessToken>> {
        let user = user.to_string();
        self.read(move |c| accounts::access_tokens(c, &user)).await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user))]
    async fn delete_access_token(&self, user: &UserId, id: &AccessTokenId) -> StoreResult<bool> {
        let (user, id) = (user.to_string(), id.to_string());
        self.write(move |c| accounts::delete_access_token(c, &user, &id))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn access_token_auth(&self, hash: &str) -> StoreResult<Option<AccessTokenAuth>> {
        let hash = hash.to_owned();
        self.read(move |c| accounts::access_token_auth(c, &hash))
            .await
    }

    #[instrument(level = "debug", skip_all)]
    async fn touch_access_token(&self, id: &AccessTokenId, at: Timestamp) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c| accounts::touch_access_token(c, &id, at))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn set_totp(&self, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
        let (id, change) = (id.to_string(), change.clone());
        self.write(move |c| accounts::set_totp(c, &id, &change))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %id))]
    async fn claim_totp_step(&self, id: &UserId, step: i64) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| accounts::claim_totp_step(c, &id, step))
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
        self.write(move |c| accounts::claim_recovery_code(c, &id, &hash, at))
            .await
    }
}
