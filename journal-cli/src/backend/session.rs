//! The login on a server: registering, logging in and out, and changing the password
//! (which, on a server, ends the login and starts a new one), kept in the config file.

use journal_core::UserId;
use journal_core::api::{ChangePasswordRequest, LoginRequest, RegisterRequest};

use super::remote::{Bearer, LoginAnswer, Remote};
use super::{Backend, Mode, Place, not_logged_in};
use crate::config::Session;
use crate::error::{CliError, Result};

/// What a login came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// Logged in; the token is saved.
    Done,
    /// The password is right and the account has a second factor: log in again with
    /// its code.
    NeedsSecondFactor,
}

/// What a registration came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// The account is made and logged in.
    Done(UserId),
    /// The server registers only with an invitation, and none was sent.
    NeedsInvite,
}

/// What [`Backend::change_password`] did.
pub struct PasswordChanged {
    /// The account's e-mail address (to log in with).
    pub email: String,
    /// One sentence for the user about what changed.
    pub note: String,
    /// False when the password changed on a server but logging in again with it failed
    /// (the saved login was then forgotten: the change voided it).
    pub logged_in: bool,
}

impl Backend {
    /// The token for requests to `server`: `JOURNAL_TOKEN`, else the saved login.
    pub(super) fn bearer(&self, server: &str) -> Option<Bearer> {
        match &self.env_token {
            Some(token) => Some(Bearer::Env(token.clone())),
            None => self
                .lock_config()
                .session_for(server)
                .map(|s| Bearer::Saved(s.token.clone())),
        }
    }

    fn remember_login(&self, server: &str, token: String, email: &str) -> Result<()> {
        self.change_config(|config| {
            config.set_session(
                server,
                Session {
                    token,
                    email: email.trim().to_lowercase(),
                },
            );
        })
    }

    /// Creates an account on the server and logs in to it, remembering the login.
    pub async fn register(&self, request: &RegisterRequest) -> Result<Registered> {
        let server = self.require_server("register")?;
        let remote = Remote::new(server, None)?;
        let Some(user_id) = remote.register(request).await? else {
            return Ok(Registered::NeedsInvite);
        };
        let email = request.email.clone().unwrap_or_default();
        let token = remote
            .login(&LoginRequest {
                email: Some(email.clone()),
                password: request.password.clone(),
                ..Default::default()
            })
            .await?
            .token()?;
        self.remember_login(server, token, &email)?;
        Ok(Registered::Done(user_id))
    }

    /// Logs in to the server with a password and, when the account has a second
    /// factor, its code; remembers the login.
    pub async fn login(&self, email: &str, password: &str, totp: Option<&str>) -> Result<Login> {
        let server = self.require_server("login")?;
        let answer = Remote::new(server, None)?
            .login(&LoginRequest {
                email: Some(email.to_owned()),
                password: Some(password.to_owned()),
                totp: totp.map(str::to_owned),
            })
            .await?;
        match answer {
            LoginAnswer::Token(token) => {
                self.remember_login(server, token, email)?;
                Ok(Login::Done)
            }
            LoginAnswer::NeedsSecondFactor => Ok(Login::NeedsSecondFactor),
        }
    }

    /// Revokes the saved token on the server and forgets it, even when the server
    /// already refuses it. Returns the server's URL.
    pub async fn logout(&self) -> Result<&str> {
        let server = self.require_server("logout")?;
        let session = self
            .lock_config()
            .session_for(server)
            .cloned()
            .ok_or_else(|| not_logged_in(server))?;
        let expiry = token_expiry(&session.token);
        let revoked = Remote::new(server, Some(Bearer::Saved(session.token)))?
            .logout()
            .await;
        self.change_config(|config| config.forget_session(server))?;
        match revoked {
            Ok(()) | Err(CliError::Auth(_)) => Ok(server),
            Err(e) => Err(e.with_note(format!(
                "the token was forgotten here but NOT revoked on the server: it stays valid until {}",
                expiry.map_or_else(
                    || "it expires".to_owned(),
                    |t| format!("{} (local time)", crate::output::local_time(&t))
                )
            ))),
        }
    }

    /// Fails before any question or editor when a command will need a login the
    /// config does not have (remote mode); locally there is nothing to check.
    pub fn require_login(&self) -> Result<()> {
        match &self.place {
            Place::Remote { server, .. } => self
                .bearer(server)
                .map(|_| ())
                .ok_or_else(|| not_logged_in(server)),
            Place::Local { .. } => Ok(()),
        }
    }

    /// True when [`Backend::change_password`] needs the current password: a server
    /// checks it; the local owner, who has the file, needs none.
    pub fn password_change_needs_current(&self) -> bool {
        matches!(self.place, Place::Remote { .. })
    }

    /// Changes the caller's password. On a server, `current` is checked, and the login
    /// is renewed with the new password (the old token stopped working). Locally the
    /// owner's password is set, so the owner can log in when the file is served.
    /// Every login session ends, and every access token unless `keep_access_tokens`;
    /// `totp` is the second factor's code, when the server asks for it.
    pub async fn change_password(
        &self,
        current: Option<&str>,
        new: &str,
        totp: Option<String>,
        keep_access_tokens: bool,
    ) -> Result<PasswordChanged> {
        match &self.place {
            Place::Local { path, opened } => {
                let local = self.local(path, opened).await?;
                local.set_password(new, keep_access_tokens).await?;
                let email = local.profile().await?.email;
                Ok(PasswordChanged {
                    note: format!("password set; when this database is served, log in as {email}"),
                    email,
                    logged_in: true,
                })
            }
            Place::Remote { server, .. } => {
                let session = self
                    .lock_config()
                    .session_for(server)
                    .cloned()
                    .ok_or_else(|| not_logged_in(server))?;
                let remote = Remote::new(server, Some(Bearer::Saved(session.token.clone())))?;
                let changed = remote
                    .change_password(&ChangePasswordRequest {
                        password: current.map(str::to_owned),
                        new_password: Some(new.to_owned()),
                        totp,
                        keep_access_tokens: Some(keep_access_tokens),
                    })
                    .await;
                if let Err(e) = changed {
                    // A 401 here is the current password, unless the login itself is
                    // gone: ask the server which.
                    return Err(match e {
                        CliError::Auth(_) if remote.profile().await.is_ok() => CliError::Auth(
                            "the current password is wrong; the password was not changed".into(),
                        ),
                        other => other,
                    });
                }
                // The change voided the saved token: log in again with the new password.
                // The change is done whatever happens to this login.
                let relogin = remote
                    .login(&LoginRequest {
                        email: Some(session.email.clone()),
                        password: Some(new.to_owned()),
                        ..Default::default()
                    })
                    .await
                    .and_then(LoginAnswer::token);
                match relogin {
                    Ok(token) => {
                        self.remember_login(server, token, &session.email)?;
                        Ok(PasswordChanged {
                            email: session.email,
                            logged_in: true,
                            note: "password changed; still logged in".into(),
                        })
                    }
                    Err(e) => {
                        self.change_config(|config| config.forget_session(server))?;
                        Ok(PasswordChanged {
                            note: format!(
                                "password changed; the automatic login with the new password failed ({e}), so log in again: journal login --email {}",
                                session.email
                            ),
                            email: session.email,
                            logged_in: false,
                        })
                    }
                }
            }
        }
    }
}

/// When a saved token expires, read from its `exp` claim (not verified: only to tell
/// the user).
fn token_expiry(token: &str) -> Option<journal_core::Timestamp> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let exp = claims.get("exp")?.as_i64()?;
    Some(journal_core::Timestamp::from_millis(exp.checked_mul(1000)?))
}
