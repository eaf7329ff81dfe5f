//! The service: every account and entry rule, once, over any [`Store`].

use std::sync::Arc;
use std::time::Duration;

use tracing::instrument;

use crate::api::{
    ChangePasswordRequest, CreateEntryRequest, DeleteAccountRequest, ImportEntriesRequest,
    LoginRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use crate::auth::{JwtSecret, PasswordHasher, TokenClaims, TokenKeys};
use crate::domain::{
    AccessTokenId, EntryId, PageRequest, Password, Role, SearchQuery, Timestamp, UserId,
};
use crate::error::{Conflict, Error, Result, StoreError, TokenRejection, ValidationError};
use crate::filter::{EntryFilter, TagCount};
use crate::input::{EntryChanges, NewEntry, NewUser, ProfileChanges, check_entry_date};
use crate::model::{Entry, Page, Profile, SecurityEventKind};
use crate::store::{CopyError, CopyReport, Store, StoredEntry, UserRecord, Visibility};

mod admin;
mod credentials;
mod reauth;
mod security_events;

pub use admin::Registration;
pub use reauth::RECENT_LOGIN_MINUTES;
pub use security_events::{ClientInfo, MAX_SECURITY_EVENTS, SECURITY_LOG_DAYS, ThrottledCheck};

/// Most entries one [`Journal::import`] call takes.
pub const MAX_IMPORT_BATCH: usize = 1000;

/// Default token lifetime: 8 hours.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(8 * 60 * 60);

/// How a [`Journal`] is set up. `Default` works: a secret kept in the database, 8-hour
/// tokens, and at most half as many concurrent password hashes as there are CPUs.
#[derive(Clone, Debug)]
pub struct JournalOptions {
    /// The JWT signing secret. `None` uses the one stored in the database, creating it
    /// on first use, so tokens stay valid across restarts and across servers.
    pub jwt_secret: Option<JwtSecret>,
    /// How long a token is valid.
    pub token_ttl: Duration,
    /// How long after a login its token stands in for the password in the steps that
    /// could take an account over ([`RECENT_LOGIN_MINUTES`] by default).
    pub recent_login: Duration,
    /// How many argon2 hashes may run at once: the number of threads that hash.
    pub max_concurrent_hashes: usize,
    /// Connections in the PostgreSQL pool (`None`: the store's default).
    pub db_pool_size: Option<usize>,
    /// Who may register.
    pub registration: Registration,
}

impl Default for JournalOptions {
    fn default() -> Self {
        JournalOptions {
            jwt_secret: None,
            token_ttl: DEFAULT_TOKEN_TTL,
            recent_login: Duration::from_secs(RECENT_LOGIN_MINUTES * 60),
            // Half the cores: a storm of logins must leave the rest to everything else.
            max_concurrent_hashes: std::thread::available_parallelism()
                .map_or(1, |n| (n.get() / 2).max(1)),
            db_pool_size: None,
            registration: Registration::Open,
        }
    }
}

/// Who is asking: the authenticated user, with the token they presented (none for a
/// trusted local caller such as the CLI on its own database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    user_id: UserId,
    role: Role,
    token: Option<TokenClaims>,
    access_token: Option<AccessTokenId>,
    client: ClientInfo,
}

impl Caller {
    /// The caller's user id.
    pub fn user_id(&self) -> &UserId {
        &self.user_id
    }

    /// The caller's role.
    pub fn role(&self) -> Role {
        self.role
    }

    fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// The personal access token the caller authenticated with, if any.
    pub fn access_token(&self) -> Option<&AccessTokenId> {
        self.access_token.as_ref()
    }

    /// Refuses what a personal access token may not do (`what`): a token kept by a
    /// script must not be able to take the account over, so changing the password,
    /// deleting the account, and managing tokens and the second factor need a login.
    fn needs_login(&self, what: &str) -> Result<()> {
        match self.access_token {
            Some(_) => Err(Error::Forbidden(format!(
                "a personal access token cannot {what}; log in with your password to do it"
            ))),
            None => Ok(()),
        }
    }
}

/// The journaling service. Cheap to clone; clones share the store and keys.
///
/// Every operation that acts for someone takes a [`Caller`] from [`Journal::authenticate`]
/// (or [`Journal::local_caller`]), and applies the ownership and visibility rules:
///
/// - an entry is visible to others only when it is public **and** its author's profile is
///   not private; authors always see their own entries;
/// - only the author may update or delete an entry; an admin may also delete it;
/// - a caller who may see an entry but not change it gets [`Error::Forbidden`]; one who
///   may not see it gets [`Error::NotFound`], so existence is not leaked.
#[derive(Clone)]
pub struct Journal {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn Store>,
    tokens: TokenKeys,
    hasher: PasswordHasher,
    registration: Registration,
    recent_login: Duration,
}

fn email_taken() -> Error {
    Error::Conflict("an account with this email already exists".into())
}

fn map_email_conflict(e: StoreError) -> Error {
    match e {
        StoreError::Conflict(Conflict::EmailTaken) => email_taken(),
        other => other.into(),
    }
}

impl Journal {
    /// Opens the journal at a database URL: `sqlite:PATH`, `sqlite::memory:`, a bare
    /// path, or (with the `postgres` feature) `postgres://…`.
    pub async fn open(database_url: &str, options: JournalOptions) -> Result<Journal> {
        let store = crate::store::open_with(database_url, options.db_pool_size).await?;
        Journal::with_store(store, options).await
    }

    /// Builds a journal over a store that is already open.
    pub async fn with_store(store: Arc<dyn Store>, options: JournalOptions) -> Result<Journal> {
        let secret = match options.jwt_secret {
            Some(secret) => secret,
            None => {
                let stored = store.jwt_secret(JwtSecret::generate().bytes()).await?;
                JwtSecret::new(stored).map_err(|e| Error::internal(e.to_string()))?
            }
        };
        let hasher = PasswordHasher::new(options.max_concurrent_hashes)?;
        hasher.warm_up().await?;
        Ok(Journal {
            inner: Arc::new(Inner {
                store,
                tokens: TokenKeys::new(&secret, options.token_ttl),
                hasher,
                registration: options.registration,
                recent_login: options.recent_login,
            }),
        })
    }

    /// The store underneath, for operations outside the rules (backups, migration).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    fn store_ref(&self) -> &dyn Store {
        self.inner.store.as_ref()
    }

    // ----- accounts -------------------------------------------------------------------

    /// Registers a new account with role `user`.
    #[instrument(level = "debug", skip_all)]
    pub async fn register(&self, request: &RegisterRequest) -> Result<UserId> {
        let invite = self.registration_allowed(request)?;
        let new = NewUser::try_from(request)?;
        self.create_user(new, Role::User, invite).await
    }

    async fn create_user(&self, new: NewUser, role: Role, invite: Option<&str>) -> Result<UserId> {
        let hash = self.inner.hasher.hash(&new.password).await?;
        let now = Timestamp::now();
        let record = UserRecord {
            profile: Profile {
                id: UserId::generate(),
                full_name: new.full_name.into_inner(),
                nickname: new.nickname.into_inner(),
                email: new.email.into_inner(),
                profile_pic: String::new(),
                role,
                is_private: false,
            },
            password_hash: hash,
            password_changed_at: now,
            created_at: now,
            disabled: false,
            totp: Default::default(),
        };
        match invite {
            None => self
                .store_ref()
                .insert_user(&record)
                .await
                .map_err(map_email_conflict)?,
            Some(code) => {
                let hash = crate::secrets::hash(&crate::secrets::normalize_code(code));
                if !self
                    .store_ref()
                    .insert_user_with_invite(&record, &hash, now)
                    .await
                    .map_err(map_email_conflict)?
                {
                    return Err(Error::Forbidden(
                        "this invitation is unknown, used, expired or withdrawn; ask for a new one"
                            .into(),
                    ));
                }
            }
        }
        tracing::info!(user = %record.profile.id, "registered");
        Ok(record.profile.id)
    }

    /// [`Journal::login_from`] a client whose address is not known.
    pub async fn login(&self, request: &LoginRequest) -> Result<String> {
        self.login_from(request, &ClientInfo::local()).await
    }

    /// Checks an e-mail and password and issues a token. An unknown e-mail and a wrong
    /// password fail alike, with [`Error::InvalidCredentials`], after the same work. A
    /// login is recorded in the account's security log with `client`'s address.
    #[instrument(level = "debug", skip_all)]
    pub async fn login_from(&self, request: &LoginRequest, client: &ClientInfo) -> Result<String> {
        let email = request
            .email
            .as_deref()
            .ok_or_else(|| ValidationError::new("email", "is required"))?;
        let password = request
            .password
            .as_deref()
            .ok_or_else(|| ValidationError::new("password", "is required"))?;
        // Normalise as registration does; text no address can be matches nobody, and
        // still costs a hash. It is not looked up: PostgreSQL refuses text with NUL in
        // it (a 500), and a megabyte of "address" is not worth a query.
        let mut user = None;
        for key in crate::domain::Email::lookup_keys(email) {
            user = self.store_ref().user_by_email(&key).await?;
            if user.is_some() {
                break;
            }
        }
        let hash = user.as_ref().map(|u| u.password_hash.clone());
        if !self.inner.hasher.verify(hash, password).await? {
            return Err(Error::InvalidCredentials);
        }
        let user = user.ok_or(Error::InvalidCredentials)?;
        // Only past the password: a guesser learns nothing from these answers.
        if user.disabled {
            return Err(Error::Forbidden(
                "this account is disabled; ask the server's administrator".into(),
            ));
        }
        let mut second_factor = None;
        if let Some(secret) = &user.totp.secret {
            second_factor = Some(
                self.check_second_factor(&user.profile.id, secret, request.totp.as_deref())
                    .await?,
            );
        }
        // Dated no earlier than the password it was checked against, and recorded
        // against that password: a change that commits later is dated after this token
        // (so it voids it), and one that committed meanwhile fails the record.
        let issued_at = Timestamp::now().max(user.password_changed_at);
        let current = self
            .store_ref()
            .record_token(&user.profile.id, user.password_changed_at, issued_at)
            .await?;
        if !current {
            return Err(Error::InvalidCredentials);
        }
        let (token, _) = self.inner.tokens.issue_at(&user.profile.id, issued_at)?;
        self.record_login(&user.profile.id, client, second_factor)
            .await;
        Ok(token)
    }

    /// Verifies a token and returns the caller it stands for. Refuses tokens that are
    /// malformed, signed with another key or algorithm, expired, revoked by logout,
    /// issued before the last password change, or whose user is gone.
    #[instrument(level = "debug", skip_all)]
    pub async fn authenticate(&self, token: &str) -> Result<Caller> {
        if token.starts_with(crate::secrets::ACCESS_TOKEN_PREFIX) {
            return self.authenticate_access_token(token).await;
        }
        let claims = self
            .inner
            .tokens
            .verify(token)
            .map_err(Error::Unauthenticated)?;
        let state = self
            .store_ref()
            .auth_state(&claims.user_id, &claims.token_id)
            .await?
            .ok_or(Error::Unauthenticated(TokenRejection::UnknownUser))?;
        if state.revoked {
            return Err(Error::Unauthenticated(TokenRejection::Revoked));
        }
        if claims.issued_at < state.password_changed_at {
            return Err(Error::Unauthenticated(TokenRejection::Superseded));
        }
        if state.disabled {
            return Err(Error::Unauthenticated(TokenRejection::Disabled));
        }
        crate::budget::signed_in();
        Ok(Caller {
            user_id: claims.user_id,
            role: state.role,
            token: Some(claims),
            access_token: None,
            client: ClientInfo::local(),
        })
    }

    /// A caller for a user without a token. Only for front ends that already hold the
    /// database itself (the CLI on its own file): having the file is having the data.
    #[instrument(level = "debug", skip_all)]
    pub async fn local_caller(&self, user: &UserId) -> Result<Caller> {
        let record = self
            .store_ref()
            .user_by_id(user)
            .await?
            .ok_or(Error::NotFound { kind: "user" })?;
        Ok(Caller {
            user_id: record.profile.id,
            role: record.profile.role,
            token: None,
            access_token: None,
            client: ClientInfo::local(),
        })
    }

    /// Registers an account for trusted local use (the CLI's owner account). Its password
    /// is random and never shown; the owner acts through [`Journal::local_caller`] and can
    /// set a password with [`Journal::reset_password`] to log in over HTTP later.
    #[instrument(level = "debug", skip_all)]
    pub async fn register_local_owner(
        &self,
        full_name: &str,
        nickname: &str,
        email: &str,
    ) -> Result<UserId> {
        let random = crate::auth::random_hex(32);
        let new = NewUser {
            full_name: crate::domain::FullName::parse(full_name)?,
            nickname: crate::domain::Nickname::parse(nickname)?,
            email: crate::domain::Email::parse(email)?,
            password: Password::parse(&random)?,
        };
        self.create_user(new, Role::User, None).await
    }

    /// The account with this e-mail address, registered with
    /// [`Journal::register_local_owner`] when there is none: the CLI's owner account on
    /// its own database, found again by its address when the CLI does not remember it.
    #[instrument(level = "debug", skip_all)]
    pub async fn find_or_register_local_owner(
        &self,
        full_name: &str,
        nickname: &str,
        email: &str,
    ) -> Result<UserId> {
        // An address that cannot be valid matches nobody; registering then says why.
        let existing = match crate::domain::Email::parse(email) {
            Ok(parsed) => self.store_ref().user_by_email(parsed.as_ref()).await?,
            Err(_) => None,
        };
        if let Some(user) = existing {
            return Ok(user.profile.id);
        }
        match self.register_local_owner(full_name, nickname, email).await {
            // Another process on the same file registered it first: that is the one.
            Err(Error::Conflict(why)) => match self
                .store_ref()
                .user_by_email(crate::domain::Email::parse(email)?.as_ref())
                .await?
            {
                Some(user) => Ok(user.profile.id),
                None => Err(Error::Conflict(why)),
            },
            other => other,
        }
    }

    /// The caller's own profile.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn profile(&self, caller: &Caller) -> Result<Profile> {
        self.store_ref()
            .user_by_id(&caller.user_id)
            .await?
            .map(|u| u.profile)
            .ok_or(Error::Unauthenticated(TokenRejection::UnknownUser))
    }

    /// Updates any of fullName, nickname, email, profilePic, isPrivate of the caller's
    /// own profile. A taken e-mail is [`Error::Conflict`]. A changed e-mail address (the
    /// login) needs the owner confirmed as for a password change: `password` (and
    /// `totp`) in the request, or a recent sign-in; an unchanged one is not a change.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn update_profile(
        &self,
        caller: &Caller,
        request: &UpdateProfileRequest,
    ) -> Result<Profile> {
        let changes = ProfileChanges::try_from(request)?;
        let email_before = self.email_before(caller, &changes).await?;
        if let Some(email) = &changes.email {
            let user = self.caller_record(caller).await?;
            if crate::domain::Email::normalize(&user.profile.email) != email.as_ref() {
                self.confirm_owner(
                    caller,
                    &user,
                    request.password.as_deref(),
                    request.totp.as_deref(),
                    "change the e-mail address",
                )
                .await?;
            }
        }
        let profile = self
            .store_ref()
            .update_user(&caller.user_id, &changes, Timestamp::now())
            .await
            .map_err(map_email_conflict)?
            .ok_or(Error::Unauthenticated(TokenRejection::UnknownUser))?;
        self.record_email_change(caller, email_before, &profile.email)
            .await;
        Ok(profile)
    }

    /// Changes the caller's password after checking the current one (and the second
    /// factor, unless the caller signed in within the last [`RECENT_LOGIN_MINUTES`]).
    /// Every login session ends, the caller's own included, and so does every personal
    /// access token unless `keepAccessTokens` is true.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn change_password(
        &self,
        caller: &Caller,
        request: &ChangePasswordRequest,
    ) -> Result<()> {
        caller.needs_login("change the password")?;
        let current = request.password.as_deref().ok_or_else(|| {
            ValidationError::new("password", "is required (the current password)")
        })?;
        let new = Password::parse_field(
            "newPassword",
            request
                .new_password
                .as_deref()
                .ok_or_else(|| ValidationError::new("newPassword", "is required"))?,
        )?;
        self.confirm_caller(
            caller,
            Some(current),
            request.totp.as_deref(),
            "change the password",
        )
        .await?;
        let keep_access_tokens = request.keep_access_tokens.unwrap_or(false);
        self.set_password(&caller.user_id, &new, keep_access_tokens)
            .await?;
        self.record_event(
            &caller.user_id,
            &caller.client,
            SecurityEventKind::PasswordChanged,
            None,
        )
        .await;
        Ok(())
    }

    /// Sets a user's password without the current one: for trusted local use (the CLI's
    /// owner, an administrator on the database). As with a change, every login session
    /// ends, and every personal access token unless `keep_access_tokens`.
    #[instrument(level = "debug", skip_all)]
    pub async fn reset_password(
        &self,
        user: &UserId,
        new_password: &str,
        keep_access_tokens: bool,
    ) -> Result<()> {
        let new = Password::parse(new_password)?;
        self.set_password(user, &new, keep_access_tokens).await?;
        self.record_event(
            user,
            &ClientInfo::local(),
            SecurityEventKind::PasswordChanged,
            None,
        )
        .await;
        Ok(())
    }

    async fn set_password(
        &self,
        user: &UserId,
        new: &Password,
        keep_access_tokens: bool,
    ) -> Result<()> {
        let hash = self.inner.hasher.hash(new).await?;
        if !self
            .store_ref()
            .set_password(user, &hash, Timestamp::now(), !keep_access_tokens)
            .await?
        {
            return Err(Error::NotFound { kind: "user" });
        }
        tracing::info!(user = %user, "password changed");
        Ok(())
    }

    /// Deletes the caller's account and all of its entries; its tokens stop working.
    /// Needs the password (and second factor) in `request`, or a recent sign-in.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn delete_account(
        &self,
        caller: &Caller,
        request: &DeleteAccountRequest,
    ) -> Result<()> {
        caller.needs_login("delete the account")?;
        self.confirm_caller(
            caller,
            request.password.as_deref(),
            request.totp.as_deref(),
            "delete the account",
        )
        .await?;
        if !self.store_ref().delete_user(&caller.user_id).await? {
            return Err(Error::Unauthenticated(TokenRejection::UnknownUser));
        }
        tracing::info!(user = %caller.user_id, "account deleted");
        Ok(())
    }

    /// Revokes the token the caller presented. Other tokens of the same user keep working.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn logout(&self, caller: &Caller) -> Result<()> {
        caller.needs_login("log out (revoke it with DELETE /api/user/tokens/{id})")?;
        let Some(token) = &caller.token else {
            return Ok(());
        };
        self.store_ref()
            .revoke_token(&token.token_id, token.expires_at)
            .await?;
        Ok(())
    }

    /// Grants or withdraws `admin`. Never reachable over HTTP: only front ends that hold
    /// the database (the CLI's `journal admin`) call it.
    #[instrument(level = "debug", skip_all)]
    pub async fn set_role(&self, email: &str, role: Role) -> Result<()> {
        let email = crate::domain::Email::parse(email)?;
        if self.store_ref().set_role(email.as_ref(), role).await? {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "user" })
        }
    }

    /// Copies this whole journal into the empty database at `target_url` (the CLI's
    /// `journal admin migrate`), with [`crate::store::copy_all`]: users with their
    /// password hashes and roles, entries with their ids and dates, token revocations and
    /// the JWT secret. This journal is not changed.
    ///
    /// The outer error says that `target_url` could not be opened; the inner one how the
    /// copy went ([`CopyError::TargetNotEmpty`] when the target already holds a journal).
    #[instrument(level = "debug", skip_all)]
    pub async fn copy_into(
        &self,
        target_url: &str,
    ) -> Result<std::result::Result<CopyReport, CopyError>> {
        let target = crate::store::open(target_url).await?;
        Ok(crate::store::copy_all(self.store_ref(), target.as_ref()).await)
    }

    // ----- entries --------------------------------------------------------------------

    /// Creates an entry by the caller; `author_name` is the caller's nickname now.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn create_entry(
        &self,
        caller: &Caller,
        request: &CreateEntryRequest,
    ) -> Result<Entry> {
        let new = NewEntry::try_from(request)?;
        let author = self.profile(caller).await?;
        let now = Timestamp::now();
        let entry = Entry {
            id: EntryId::generate(),
            title: new.title.into_inner(),
            content: new.content.into_inner(),
            is_public: new.is_public,
            tags: new.tags.into_inner(),
            starred: new.starred,
            date: new.date.unwrap_or(now),
            author_id: caller.user_id,
            author_name: author.nickname,
            created_at: now,
            updated_at: now,
        };
        self.store_ref().insert_entry(&entry).await?;
        Ok(entry)
    }

    /// Imports entries by the caller keeping their dates (the CLI's `journal import`).
    /// Every entry is validated first; nothing is stored unless all are valid.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import_entries(
        &self,
        caller: &Caller,
        entries: Vec<ImportedEntry>,
    ) -> Result<Vec<Entry>> {
        let author = self.profile(caller).await?;
        let mut built = Vec::with_capacity(entries.len());
        for (i, e) in entries.into_iter().enumerate() {
            let in_entry = |err: ValidationError| {
                ValidationError::new(err.field, format!("entry {}: {}", i + 1, err.message))
            };
            let new = NewEntry::try_from(&e.request).map_err(in_entry)?;
            for (field, date) in [
                ("createdAt", Some(e.created_at)),
                ("updatedAt", e.updated_at),
            ] {
                if let Some(date) = date {
                    check_entry_date(field, date).map_err(|err| {
                        ValidationError::new(
                            field,
                            format!("entry {}: {field}: {}", i + 1, err.message),
                        )
                    })?;
                }
            }
            built.push(Entry {
                id: EntryId::generate(),
                title: new.title.into_inner(),
                content: new.content.into_inner(),
                is_public: new.is_public,
                tags: new.tags.into_inner(),
                starred: new.starred,
                date: new.date.unwrap_or(e.created_at),
                author_id: caller.user_id,
                author_name: e
                    .author_name
                    .clone()
                    .unwrap_or_else(|| author.nickname.clone()),
                created_at: e.created_at,
                updated_at: e.updated_at.unwrap_or(e.created_at),
            });
        }
        for chunk in built.chunks(1000) {
            self.store_ref().insert_entries(chunk).await?;
        }
        Ok(built)
    }

    /// Imports entries by the caller with their original dates, as sent over the API
    /// (`POST /api/journal-entries/import`). All or nothing: one invalid entry refuses
    /// the whole batch. The author name is always the caller's nickname.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import(
        &self,
        caller: &Caller,
        request: &ImportEntriesRequest,
    ) -> Result<Vec<Entry>> {
        if request.entries.is_empty() || request.entries.len() > MAX_IMPORT_BATCH {
            return Err(ValidationError::new(
                "entries",
                format!("send 1 to {MAX_IMPORT_BATCH} entries per request"),
            )
            .into());
        }
        let mut imported = Vec::with_capacity(request.entries.len());
        for (i, e) in request.entries.iter().enumerate() {
            let date = |field: &str, value: Option<&str>| -> Result<Option<Timestamp>> {
                value
                    .map(|v| {
                        Timestamp::parse(v).map_err(|err| {
                            Error::from(ValidationError::new(
                                "entries",
                                format!("entry {}: {field}: {}", i + 1, err.message),
                            ))
                        })
                    })
                    .transpose()
            };
            let created_at = date("createdAt", e.created_at.as_deref())?.ok_or_else(|| {
                ValidationError::new(
                    "entries",
                    format!("entry {}: createdAt: is required", i + 1),
                )
            })?;
            imported.push(ImportedEntry {
                request: CreateEntryRequest {
                    title: e.title.clone(),
                    content: e.content.clone(),
                    is_public: e.is_public,
                    tags: e.tags.clone(),
                    starred: e.starred,
                    date: e.date.clone(),
                },
                created_at,
                updated_at: date("updatedAt", e.updated_at.as_deref())?,
                author_name: None,
            });
        }
        self.import_entries(caller, imported).await
    }

    async fn visible_entry(&self, caller: &Caller, id: &EntryId) -> Result<StoredEntry> {
        let stored = self
            .store_ref()
            .entry(id)
            .await?
            .ok_or(Error::NotFound { kind: "entry" })?;
        if can_see(caller, &stored) {
            Ok(stored)
        } else {
            Err(Error::NotFound { kind: "entry" })
        }
    }

    /// One entry, when the caller may see it.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn entry(&self, caller: &Caller, id: &EntryId) -> Result<Entry> {
        Ok(self.visible_entry(caller, id).await?.entry)
    }

    /// Changes any of title, content, isPublic of the caller's own entry.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn update_entry(
        &self,
        caller: &Caller,
        id: &EntryId,
        request: &UpdateEntryRequest,
    ) -> Result<Entry> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), false)?;
        let changes = EntryChanges::try_from(request)?;
        self.store_ref()
            .update_entry(id, &changes, Timestamp::now())
            .await?
            .ok_or(Error::NotFound { kind: "entry" })
    }

    /// Deletes the caller's own entry, or any entry when the caller is an admin.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn delete_entry(&self, caller: &Caller, id: &EntryId) -> Result<()> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), true)?;
        if self.store_ref().delete_entry(id).await? {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "entry" })
        }
    }

    /// Lists a user's entries, newest `date` first: all of them for their author,
    /// public ones for anyone else; a private profile's list is forbidden to others.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn user_entries(
        &self,
        caller: &Caller,
        user: &UserId,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.user_entries_matching(caller, user, &EntryFilter::default(), page)
            .await
    }

    /// [`Journal::user_entries`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn user_entries_matching(
        &self,
        caller: &Caller,
        user: &UserId,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        page.check_depth()?;
        let visibility = if *user == caller.user_id {
            Visibility::All
        } else {
            let owner = self
                .store_ref()
                .user_by_id(user)
                .await?
                .ok_or(Error::NotFound { kind: "user" })?;
            if owner.profile.is_private || owner.disabled {
                return Err(Error::Forbidden("this user's profile is private".into()));
            }
            Visibility::PublicOnly
        };
        Ok(self
            .store_ref()
            .entries_by_author(user, visibility, filter, page)
            .await?)
    }

    /// The public feed: public entries of authors whose profile is not private, newest
    /// `date` first. Needs no caller.
    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    pub async fn public_entries(&self, page: PageRequest) -> Result<Page<Entry>> {
        self.public_entries_matching(&EntryFilter::default(), page)
            .await
    }

    /// [`Journal::public_entries`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    pub async fn public_entries_matching(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        page.check_depth()?;
        Ok(self.store_ref().public_entries(filter, page).await?)
    }

    /// Searches the caller's own entries: every word of `q` must appear (as a word or
    /// the start of one) in the title or content; best match first, then newest.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn search(&self, caller: &Caller, q: &str, page: PageRequest) -> Result<Page<Entry>> {
        self.search_matching(caller, q, &EntryFilter::default(), page)
            .await
    }

    /// [`Journal::search`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn search_matching(
        &self,
        caller: &Caller,
        q: &str,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        if page.after().is_some() {
            return Err(ValidationError::new(
                "after",
                "search results are ranked, not newest first; page through them with page",
            )
            .into());
        }
        page.check_depth()?;
        let query = SearchQuery::parse(q)?;
        if query.is_empty() {
            // Only separators: no word to look for, so nothing matches.
            return Ok(Page {
                items: Vec::new(),
                total: 0,
                total_is_lower_bound: false,
                page: page.page(),
                limit: page.limit(),
            });
        }
        Ok(self
            .store_ref()
            .search(&caller.user_id, &query, filter, page)
            .await?)
    }

    /// The caller's tags with how many of their entries have each, most used first
    /// (then by name).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn tags(&self, caller: &Caller) -> Result<Vec<TagCount>> {
        Ok(self.store_ref().tags(&caller.user_id).await?)
    }

    /// Answers when the database does.
    #[instrument(level = "debug", skip_all)]
    pub async fn ping(&self) -> Result<()> {
        Ok(self.store_ref().ping().await?)
    }
}

/// An entry to import with its original dates.
#[derive(Clone, Debug)]
pub struct ImportedEntry {
    /// Title, content and visibility, validated like a new entry.
    pub request: CreateEntryRequest,
    /// Original creation time.
    pub created_at: Timestamp,
    /// Original last change; `created_at` when unknown.
    pub updated_at: Option<Timestamp>,
    /// Original author name; the caller's nickname when unknown.
    pub author_name: Option<String>,
}

fn can_see(caller: &Caller, stored: &StoredEntry) -> bool {
    stored.entry.author_id == caller.user_id || (stored.entry.is_public && !stored.author_private)
}

/// May the caller change (or, with `delete`, remove) this entry?
fn check_author(caller: &Caller, stored: Option<&StoredEntry>, delete: bool) -> Result<()> {
    let Some(stored) = stored else {
        return Err(Error::NotFound { kind: "entry" });
    };
    if stored.entry.author_id == caller.user_id || (delete && caller.is_admin()) {
        return Ok(());
    }
    if can_see(caller, stored) {
        Err(Error::Forbidden(
            "only the author may change this entry".into(),
        ))
    } else {
        Err(Error::NotFound { kind: "entry" })
    }
}
