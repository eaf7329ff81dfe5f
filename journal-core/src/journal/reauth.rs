//! Confirming that the person signed in is the account's owner, before the steps that
//! take an account: turning the second factor on, making an access token, changing the
//! password or the e-mail address, deleting the account. A stolen login token (read by a
//! script from a browser's storage, say) must not be enough for any of them.

use std::time::Duration;

use super::{Caller, Journal};
use crate::domain::Timestamp;
use crate::error::{Error, Result};
use crate::store::UserRecord;

/// How long a sign-in stands in for the password by default
/// ([`crate::JournalOptions::recent_login`]): for this many minutes after a login, its
/// token may take the steps above without the password.
pub const RECENT_LOGIN_MINUTES: u64 = 5;

impl Caller {
    /// True when the caller signed in with a password (and second factor) less than
    /// `window` ago, or is a trusted local caller (the CLI on its own database, where
    /// having the file is having the data). A personal access token never is: it was
    /// not made by a sign-in.
    pub fn signed_in_within(&self, window: Duration) -> bool {
        match (&self.token, &self.access_token) {
            (Some(token), _) => {
                // The sign-in, not the token: a token a web session renewed is new, but
                // its sign-in may be weeks old.
                let age = Timestamp::now().as_millis() - token.signed_in_at.as_millis();
                u128::try_from(age).is_ok_and(|age| age < window.as_millis())
            }
            (None, Some(_)) => false,
            (None, None) => true,
        }
    }
}

impl Journal {
    /// The caller's own record, once [`Journal::confirm_owner`] has confirmed them.
    pub(super) async fn confirm_caller(
        &self,
        caller: &Caller,
        password: Option<&str>,
        code: Option<&str>,
        step: &str,
    ) -> Result<UserRecord> {
        let user = self.caller_record(caller).await?;
        self.confirm_owner(caller, &user, password, code, step)
            .await?;
        Ok(user)
    }

    /// Confirms the caller is `user`'s owner before `step`: a given `password` is always
    /// checked ([`Error::WrongPassword`]); then a recent sign-in is enough, and otherwise
    /// the password is required ([`Error::RecentLoginRequired`]) with a second-factor
    /// `code` when the account has one.
    pub(super) async fn confirm_owner(
        &self,
        caller: &Caller,
        user: &UserRecord,
        password: Option<&str>,
        code: Option<&str>,
        step: &str,
    ) -> Result<()> {
        if let Some(password) = password
            && !self
                .inner
                .hasher
                .verify(Some(user.password_hash.clone()), password)
                .await?
        {
            return Err(Error::WrongPassword);
        }
        if caller.signed_in_within(self.inner.recent_login) {
            return Ok(());
        }
        if password.is_none() {
            let window = self.inner.recent_login.as_secs();
            let or_sign_in = match window {
                0 => String::new(),
                s if s % 60 == 0 => {
                    format!(", or sign in again and do it within {} minutes", s / 60)
                }
                s => format!(", or sign in again and do it within {s} seconds"),
            };
            return Err(Error::RecentLoginRequired(format!(
                "to {step}, confirm it is you: send your current password as \"password\" \
                 (and a second-factor code as \"totp\" if the account has one){or_sign_in}"
            )));
        }
        let Some(secret) = &user.totp.secret else {
            return Ok(());
        };
        if code.is_none_or(|c| c.trim().is_empty()) {
            // Not the login's 401: the token is good, and a client must not drop it.
            return Err(Error::RecentLoginRequired(format!(
                "to {step}, this account also needs its second factor: send a code from \
                 your authenticator app (or a recovery code) as \"totp\" with the password"
            )));
        }
        self.check_second_factor(&user.profile.id, secret, code)
            .await
            .map(|_| ())
    }
}
