//! Accounts: registering, signing in and out, the profile, the password, and deleting
//! the account.

use tracing::instrument;

use super::{Caller, ClientInfo, Journal};
use crate::api::{
    ChangePasswordRequest, DeleteAccountRequest, LoginRequest, RegisterRequest,
    UpdateProfileRequest,
};
use crate::domain::{Password, Role, Timestamp, UserId};
use crate::error::{Conflict, Error, Result, StoreError, TokenRejection, ValidationError};
use crate::input::{NewUser, ProfileChanges};
use crate::model::{Profile, SecurityEventKind};
use crate::store::UserRecord;

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
    /// Registers a new account with role `user`.
    #[instrument(level = "debug", skip_all)]
    pub async fn register(&self, request: &RegisterRequest) -> Result<UserId> {
        let invite = self.registration_allowed(request)?;
        let new = NewUser::try_from(request)?;
        self.create_user(new, Role::User, invite).await
    }

    pub(super) async fn create_user(
        &self,
        new: NewUser,
        role: Role,
        invite: Option<&str>,
    ) -> Result<UserId> {
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
    /// factor, unless the caller signed in within the last [`RECENT_LOGIN_MINUTES`](super::RECENT_LOGIN_MINUTES)).
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
}
