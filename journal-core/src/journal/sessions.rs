//! Web sessions that last: a sign-in's login token keeps its lifetime (the spec's
//! clients expect it), and a browser also holds a refresh token that gets the next one.
//!
//! - A session starts from a recent sign-in ([`Journal::start_session`]), and ends at
//!   the latest [`JournalOptions::session_max`](super::JournalOptions) after it.
//! - Each refresh ([`Journal::refresh_session`]) rotates the refresh token: the one used
//!   is marked used, and a used token presented again means a copy was taken, so the
//!   whole session ends (and its login tokens are revoked).
//! - A sign-out ends the session; a password change voids every session begun before
//!   it; [`Journal::sign_out_everywhere`] ends them all.
//!
//! Only SHA-256 hashes of refresh tokens are stored.

use std::time::Duration;

use tracing::instrument;

use super::{Caller, ClientInfo, Journal};
use crate::domain::Timestamp;
use crate::error::{Error, Result, TokenRejection};
use crate::model::SecurityEventKind;
use crate::secrets::{hash, new_session_secret};
use crate::store::{Rotation, SessionToken, SessionsToEnd};

/// How long a web session may last by default, from its sign-in: 30 days.
pub const DEFAULT_SESSION_MAX: Duration = Duration::from_secs(30 * 24 * 3600);

/// The refresh token that continues a web session: for an `HttpOnly` cookie, never for
/// scripts. Valid once, until `expires_at`.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionRefresh {
    /// The secret.
    pub refresh_token: String,
    /// When the session ends whatever happens.
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for SessionRefresh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRefresh")
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

fn ended() -> Error {
    Error::Unauthenticated(TokenRejection::SessionEnded)
}

impl Journal {
    /// Starts a web session for the caller's sign-in, which must be recent (a login, not
    /// a personal access token): its refresh token.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn start_session(&self, caller: &Caller) -> Result<SessionRefresh> {
        caller.needs_login("start a web session")?;
        let Some(token) = &caller.token else {
            return Err(Error::Forbidden(
                "a web session starts from a sign-in with a password".into(),
            ));
        };
        if !caller.signed_in_within(self.inner.recent_login) {
            return Err(Error::RecentLoginRequired(
                "a web session starts within minutes of signing in; sign in again".into(),
            ));
        }
        let max = i64::try_from(self.inner.session_max.as_millis()).unwrap_or(i64::MAX / 2);
        let expires_at = Timestamp::from_millis(token.signed_in_at.as_millis().saturating_add(max));
        let secret = new_session_secret();
        let row = SessionToken {
            hash: hash(&secret),
            session_id: uuid::Uuid::now_v7(),
            user_id: caller.user_id,
            started_at: token.signed_in_at,
            expires_at,
            access_token_id: token.token_id.clone(),
            access_expires_at: token.expires_at,
        };
        self.store_ref()
            .insert_session_token(&row, Timestamp::now())
            .await?;
        Ok(SessionRefresh {
            refresh_token: secret,
            expires_at,
        })
    }

    /// A new login token for the session of `refresh_token`, and the refresh token that
    /// replaces it. [`TokenRejection::SessionEnded`] for a token that is unknown, used
    /// already (which ends its session), past the session's limit, or of a session begun
    /// before the password's last change.
    #[instrument(level = "debug", skip_all)]
    pub async fn refresh_session(
        &self,
        refresh_token: &str,
        client: &ClientInfo,
    ) -> Result<(String, SessionRefresh)> {
        let store = self.store_ref();
        let Some((row, used)) = store.session_token(&hash(refresh_token)).await? else {
            return Err(ended());
        };
        let now = Timestamp::now();
        if used {
            self.end_reused(&row, client).await?;
            return Err(ended());
        }
        let user = store.user_by_id(&row.user_id).await?;
        let current = user.as_ref().filter(|u| {
            !u.disabled && row.expires_at > now && row.started_at >= u.password_changed_at
        });
        let Some(user) = current else {
            self.end_session_of(&row).await?;
            return Err(ended());
        };
        // Issued as a login's token is: recorded against the password it was checked
        // against, so a change committing meanwhile voids it.
        let issued_at = now.max(user.password_changed_at);
        if !store
            .record_token(&row.user_id, user.password_changed_at, issued_at)
            .await?
        {
            return Err(ended());
        }
        // Marked with the session's sign-in: it renews the session, and never counts as
        // a recent sign-in itself (which would let it confirm the owner, or start a
        // new session that outlives this one's limit).
        let (token, claims) =
            self.inner
                .tokens
                .issue_renewed(&row.user_id, issued_at, row.started_at)?;
        let secret = new_session_secret();
        let next = SessionToken {
            hash: hash(&secret),
            access_token_id: claims.token_id,
            access_expires_at: claims.expires_at,
            ..row.clone()
        };
        match store.rotate_session_token(&row.hash, &next, now).await? {
            Rotation::Rotated => {}
            // Another refresh with the same token got there first: two holders.
            Rotation::Used => {
                self.end_reused(&row, client).await?;
                return Err(ended());
            }
            // Signed out meanwhile: the token made for it is never handed out.
            Rotation::Gone => return Err(ended()),
        }
        Ok((
            token,
            SessionRefresh {
                refresh_token: secret,
                expires_at: row.expires_at,
            },
        ))
    }

    /// Ends the session of `refresh_token` (a sign-out) and revokes its login tokens.
    /// A token that names no session ends nothing, and is no error.
    #[instrument(level = "debug", skip_all)]
    pub async fn end_session(&self, refresh_token: &str) -> Result<()> {
        if let Some((row, _)) = self.store_ref().session_token(&hash(refresh_token)).await? {
            self.end_session_of(&row).await?;
        }
        Ok(())
    }

    /// Ends every sign-in of the caller's account: every web session, and every login
    /// token issued until now, this one included. Personal access tokens stay (they are
    /// revoked one by one).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn sign_out_everywhere(&self, caller: &Caller) -> Result<()> {
        caller.needs_login("sign out everywhere")?;
        let which = SessionsToEnd::Everywhere {
            user: caller.user_id,
            at: Timestamp::now(),
        };
        self.store_ref()
            .end_sessions(&which, Timestamp::now())
            .await?;
        self.record_event(
            &caller.user_id,
            &caller.client,
            SecurityEventKind::SignedOutEverywhere,
            None,
        )
        .await;
        Ok(())
    }

    async fn end_session_of(&self, row: &SessionToken) -> Result<()> {
        let which = SessionsToEnd::One(row.session_id);
        let issued = self
            .store_ref()
            .end_sessions(&which, Timestamp::now())
            .await?;
        for (token_id, expires_at) in issued {
            self.store_ref().revoke_token(&token_id, expires_at).await?;
        }
        Ok(())
    }

    async fn end_reused(&self, row: &SessionToken, client: &ClientInfo) -> Result<()> {
        self.end_session_of(row).await?;
        tracing::warn!(user = %row.user_id, "a used refresh token came back: session ended");
        self.record_event(&row.user_id, client, SecurityEventKind::SessionReused, None)
            .await;
        Ok(())
    }
}
