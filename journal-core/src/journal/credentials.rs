//! Credentials besides the password: personal access tokens and the second factor.

use tracing::instrument;

use super::{Caller, Journal};
use crate::api::{
    CreateAccessTokenRequest, DisableTotpRequest, EnableTotpRequest, RenewRecoveryCodesRequest,
};
use crate::domain::{AccessTokenId, Timestamp, UserId};
use crate::error::{Error, Result, TokenRejection, ValidationError};
use crate::model::SecurityEventKind as Kind;
use crate::model::{
    AccessToken, NewAccessToken, RecoveryCodes, SecondFactor, SecondFactorState, TotpSetup,
};
use crate::secrets;
use crate::store::{AccessTokenRecord, TotpChange};
use crate::totp;

/// Most personal access tokens one user may hold.
pub const MAX_ACCESS_TOKENS: usize = 100;
/// How many recovery codes enabling the second factor gives.
const RECOVERY_CODES: usize = 10;
/// A token's last use is written at most this often: a script's every request must
/// not be a write.
const LAST_USED_PRECISION_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn now_seconds() -> u64 {
    u64::try_from(Timestamp::now().as_millis() / 1000).unwrap_or(0)
}

impl Journal {
    /// A caller from a personal access token: its hash found, not expired, its owner
    /// not disabled. Deleting the token ends it at once, on every server sharing the
    /// database: nothing about it is cached.
    pub(super) async fn authenticate_access_token(&self, token: &str) -> Result<Caller> {
        let found = self
            .store_ref()
            .access_token_auth(&secrets::hash(token))
            .await?
            .ok_or(Error::Unauthenticated(TokenRejection::Invalid))?;
        let now = Timestamp::now();
        if found.token.token.expires_at.is_some_and(|at| at <= now) {
            return Err(Error::Unauthenticated(TokenRejection::AccessTokenExpired));
        }
        if found.disabled {
            return Err(Error::Unauthenticated(TokenRejection::Disabled));
        }
        let stale = found
            .token
            .token
            .last_used_at
            .is_none_or(|at| now.as_millis() - at.as_millis() >= LAST_USED_PRECISION_MS);
        if stale {
            self.store_ref()
                .touch_access_token(&found.token.token.id, now)
                .await?;
        }
        crate::budget::signed_in();
        Ok(Caller {
            user_id: found.token.user_id,
            role: found.role,
            token: None,
            access_token: Some(found.token.token.id),
            client: super::ClientInfo::local(),
        })
    }

    /// Makes a personal access token; its secret is in the answer and nowhere else.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn create_access_token(
        &self,
        caller: &Caller,
        request: &CreateAccessTokenRequest,
    ) -> Result<NewAccessToken> {
        caller.needs_login("make access tokens")?;
        self.confirm_caller(
            caller,
            request.password.as_deref(),
            request.totp.as_deref(),
            "make an access token",
        )
        .await?;
        let name = request.name.as_deref().ok_or_else(|| {
            ValidationError::new("name", "is required: say what the token is for")
        })?;
        let name = crate::domain::bounded_text("name", name, crate::domain::NAME_MAX_CHARS)?;
        let now = Timestamp::now();
        let expires_at = match request.expires_in_days {
            None => None,
            Some(days) if (1..=3650).contains(&days) => {
                Some(Timestamp::from_millis(now.as_millis() + days * DAY_MS))
            }
            Some(_) => {
                return Err(ValidationError::new(
                    "expiresInDays",
                    "must be a whole number of days from 1 to 3650, or left out for never",
                )
                .into());
            }
        };
        let secret = secrets::new_access_token();
        let token = AccessToken {
            id: AccessTokenId::generate(),
            name,
            created_at: now,
            expires_at,
            last_used_at: None,
        };
        let kept = self
            .store_ref()
            .insert_access_token(
                &AccessTokenRecord {
                    token: token.clone(),
                    user_id: caller.user_id,
                    hash: secrets::hash(&secret),
                },
                MAX_ACCESS_TOKENS,
            )
            .await?;
        if !kept {
            return Err(ValidationError::new(
                "name",
                format!("you already have {MAX_ACCESS_TOKENS} tokens; revoke one first"),
            )
            .into());
        }
        tracing::info!(user = %caller.user_id, token = %token.id, "access token made");
        self.record_event(
            &caller.user_id,
            &caller.client,
            Kind::AccessTokenCreated,
            Some(token.name.clone()),
        )
        .await;
        Ok(NewAccessToken {
            id: token.id,
            name: token.name,
            token: secret,
            created_at: token.created_at,
            expires_at: token.expires_at,
        })
    }

    /// The caller's personal access tokens, without their secrets.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn access_tokens(&self, caller: &Caller) -> Result<Vec<AccessToken>> {
        caller.needs_login("list access tokens")?;
        Ok(self.store_ref().access_tokens(&caller.user_id).await?)
    }

    /// Revokes one of the caller's tokens; another user's is not found.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn revoke_access_token(&self, caller: &Caller, id: &str) -> Result<()> {
        caller.needs_login("revoke access tokens")?;
        let id: AccessTokenId = id.parse()?;
        let name = self.access_token_name(caller, &id).await?;
        if !self
            .store_ref()
            .delete_access_token(&caller.user_id, &id)
            .await?
        {
            return Err(Error::NotFound { kind: "token" });
        }
        tracing::info!(user = %caller.user_id, token = %id, "access token revoked");
        self.record_event(
            &caller.user_id,
            &caller.client,
            Kind::AccessTokenRevoked,
            name,
        )
        .await;
        Ok(())
    }

    /// Whether the caller's second factor is on, and how many recovery codes are left.
    /// An access token may ask: the answer gives nothing away its owner would not.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn second_factor(&self, caller: &Caller) -> Result<SecondFactorState> {
        let user = self.caller_record(caller).await?;
        let enabled = user.totp.secret.is_some();
        let recovery_codes_left = if enabled {
            self.store_ref()
                .recovery_codes_left(&caller.user_id)
                .await?
        } else {
            0
        };
        Ok(SecondFactorState {
            enabled,
            recovery_codes_left,
        })
    }

    /// Starts setting up the second factor: a new secret, not active until
    /// [`Journal::enable_totp`] confirms a code from it.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn setup_totp(&self, caller: &Caller) -> Result<TotpSetup> {
        caller.needs_login("set up the second factor")?;
        let user = self.caller_record(caller).await?;
        if user.totp.secret.is_some() {
            return Err(Error::Conflict(
                "the second factor is already on; disable it first to set up a new one".into(),
            ));
        }
        let secret = totp::new_secret();
        self.store_ref()
            .set_totp(&caller.user_id, &TotpChange::Pending(secret.clone()))
            .await?;
        let otpauth_url = totp::otpauth_url(&secret, &user.profile.email);
        Ok(TotpSetup {
            qr_svg: totp::qr_svg(&otpauth_url),
            otpauth_url,
            secret,
        })
    }

    /// Turns the second factor on with a current code from the secret being set up;
    /// returns ten recovery codes, shown this once.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn enable_totp(
        &self,
        caller: &Caller,
        request: &EnableTotpRequest,
    ) -> Result<RecoveryCodes> {
        caller.needs_login("turn on the second factor")?;
        let code = request
            .code
            .as_deref()
            .ok_or_else(|| ValidationError::new("code", "is required"))?;
        let user = self.caller_record(caller).await?;
        if user.totp.secret.is_some() {
            return Err(Error::Conflict("the second factor is already on".into()));
        }
        self.confirm_owner(
            caller,
            &user,
            request.password.as_deref(),
            None,
            "turn on the second factor",
        )
        .await?;
        let pending = user.totp.pending.ok_or_else(|| {
            ValidationError::new("code", "nothing to confirm: POST /api/user/2fa/setup first")
        })?;
        let step = totp::matching_step(&pending, code, now_seconds()).ok_or_else(|| {
            ValidationError::new(
                "code",
                "does not match; check the authenticator app's clock and try the current code",
            )
        })?;
        let (codes, recovery_hashes) = new_recovery_codes();
        let change = TotpChange::Enable {
            recovery_hashes,
            step: i64::try_from(step).unwrap_or(i64::MAX),
        };
        if !self.store_ref().set_totp(&caller.user_id, &change).await? {
            return Err(Error::Conflict(
                "the setup changed meanwhile; start again with POST /api/user/2fa/setup".into(),
            ));
        }
        tracing::info!(user = %caller.user_id, "second factor enabled");
        self.record_event(
            &caller.user_id,
            &caller.client,
            Kind::SecondFactorEnabled,
            None,
        )
        .await;
        Ok(RecoveryCodes {
            recovery_codes: codes,
        })
    }

    /// Replaces the caller's recovery codes with ten new ones, shown this once; the old
    /// ones stop working. Ten lasting stand-ins for the second factor are handed out, so
    /// a code is always needed (a current one, or a recovery code), as for turning the
    /// factor off; and the password too unless the sign-in is recent.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn renew_recovery_codes(
        &self,
        caller: &Caller,
        request: &RenewRecoveryCodesRequest,
    ) -> Result<RecoveryCodes> {
        caller.needs_login("make new recovery codes")?;
        let user = self.caller_record(caller).await?;
        let Some(secret) = user.totp.secret.clone() else {
            return Err(Error::Conflict(
                "the second factor is off: turning it on makes recovery codes".into(),
            ));
        };
        // Past a recent sign-in, confirming the owner checks the code with the password;
        // within one, the code is checked here. (A sign-in that stops being recent in
        // between is asked for the password: it never skips the code.)
        let recent = caller.signed_in_within(self.inner.recent_login);
        let totp = request.totp.as_deref();
        self.confirm_owner(
            caller,
            &user,
            request.password.as_deref(),
            if recent { None } else { totp },
            "make new recovery codes",
        )
        .await?;
        if recent {
            if totp.is_none_or(|c| c.trim().is_empty()) {
                // Not the login's 401: the token is good, and a client must not drop it.
                return Err(Error::RecentLoginRequired(
                    "to make new recovery codes, send a code from your authenticator app \
                     (or a recovery code) as \"totp\""
                        .into(),
                ));
            }
            self.check_second_factor(&user.profile.id, &secret, totp)
                .await?;
        }
        let (codes, recovery_hashes) = new_recovery_codes();
        let change = TotpChange::NewRecoveryCodes { recovery_hashes };
        if !self.store_ref().set_totp(&caller.user_id, &change).await? {
            return Err(Error::Conflict(
                "the second factor was turned off meanwhile".into(),
            ));
        }
        tracing::info!(user = %caller.user_id, "recovery codes renewed");
        self.record_event(
            &caller.user_id,
            &caller.client,
            Kind::RecoveryCodesRenewed,
            None,
        )
        .await;
        Ok(RecoveryCodes {
            recovery_codes: codes,
        })
    }

    /// Turns the second factor off, with the password and a current (or recovery) code.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn disable_totp(&self, caller: &Caller, request: &DisableTotpRequest) -> Result<()> {
        caller.needs_login("turn off the second factor")?;
        let password = request
            .password
            .as_deref()
            .ok_or_else(|| ValidationError::new("password", "is required"))?;
        let user = self.caller_record(caller).await?;
        if !self
            .inner
            .hasher
            .verify(Some(user.password_hash.clone()), password)
            .await?
        {
            return Err(Error::WrongPassword);
        }
        let Some(secret) = &user.totp.secret else {
            return Err(Error::Conflict("the second factor is not on".into()));
        };
        self.check_second_factor(&user.profile.id, secret, request.code.as_deref())
            .await?;
        self.store_ref()
            .set_totp(&caller.user_id, &TotpChange::Disable)
            .await?;
        tracing::info!(user = %caller.user_id, "second factor disabled");
        self.record_event(
            &caller.user_id,
            &caller.client,
            Kind::SecondFactorDisabled,
            None,
        )
        .await;
        Ok(())
    }

    /// Accepts a current code not used before, or an unused recovery code; says which.
    pub(super) async fn check_second_factor(
        &self,
        user: &UserId,
        secret: &str,
        code: Option<&str>,
    ) -> Result<SecondFactor> {
        let code = code
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or(Error::SecondFactorRequired)?;
        if let Some(step) = totp::matching_step(secret, code, now_seconds()) {
            // Claimed atomically: the same code twice, even at once, passes once.
            let step = i64::try_from(step).unwrap_or(i64::MAX);
            if self.store_ref().claim_totp_step(user, step).await? {
                return Ok(SecondFactor::Totp);
            }
            return Err(Error::InvalidSecondFactor);
        }
        let hash = secrets::hash(&secrets::normalize_code(code));
        if self
            .store_ref()
            .claim_recovery_code(user, &hash, Timestamp::now())
            .await?
        {
            tracing::info!(user = %user, "recovery code used");
            return Ok(SecondFactor::RecoveryCode);
        }
        Err(Error::InvalidSecondFactor)
    }

    pub(super) async fn caller_record(&self, caller: &Caller) -> Result<crate::store::UserRecord> {
        self.store_ref()
            .user_by_id(&caller.user_id)
            .await?
            .ok_or(Error::Unauthenticated(TokenRejection::UnknownUser))
    }
}

/// Ten new recovery codes, and their hashes (what the store keeps).
fn new_recovery_codes() -> (Vec<String>, Vec<String>) {
    let codes: Vec<String> = (0..RECOVERY_CODES)
        .map(|_| secrets::new_recovery_code())
        .collect();
    let hashes = codes.iter().map(|c| secrets::hash(c)).collect();
    (codes, hashes)
}
