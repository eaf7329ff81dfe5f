//! Accounts on a public server: personal access tokens, the second factor, and the
//! administrators' invitations and user management, all over HTTP; and making an
//! account directly in a database, for the first administrator.

use journal_core::api::{
    AdminUpdateUserRequest, CreateAccessTokenRequest, CreateInviteRequest, DisableTotpRequest,
    EnableTotpRequest, MessageResponse, RegisterRequest,
};
use journal_core::{
    AccessToken, AdminUser, Invite, InviteSummary, NewAccessToken, Page, PageRequest,
    RecoveryCodes, Role, TotpSetup, UserId,
};

use reqwest::{Method, StatusCode};

use super::local::open_any;
use super::remote::{Remote, total_count};
use super::{Backend, Place, needs_local_database, needs_server};
use crate::error::{CliError, Result};

/// An admin command run without a server.
fn needs_server_as_admin(command: &str) -> CliError {
    CliError::Usage(format!(
        "journal {command} needs --server URL and an administrator's login; on the server's database file, journal admin create-user --admin or journal admin promote EMAIL makes one"
    ))
}

impl Backend {
    /// The server's client, for a command only a server has; `missing` is the error
    /// in local mode (checked before anything is opened).
    async fn remote_only(&self, missing: CliError) -> Result<&Remote> {
        match &self.place {
            Place::Remote { server, client } => self.remote(server, client).await,
            Place::Local { .. } => Err(missing),
        }
    }

    /// The server's database, opened directly (SQLite or PostgreSQL), for a command
    /// that works on it rather than over HTTP.
    async fn server_database(&self, command: &str) -> Result<journal_core::Journal> {
        let Place::Local { path, .. } = &self.place else {
            return Err(needs_local_database(command));
        };
        open_any(&path.display().to_string()).await
    }

    // ----- personal access tokens ------------------------------------------------------

    /// Makes a personal access token; the answer holds its secret, shown this once.
    pub async fn create_access_token(
        &self,
        request: &CreateAccessTokenRequest,
    ) -> Result<NewAccessToken> {
        let remote = self.remote_only(needs_server("token create")).await?;
        Ok(remote
            .call(Method::POST, "/api/user/tokens", &[], Some(request), true)
            .await?
            .0)
    }

    /// The caller's personal access tokens, without their secrets.
    pub async fn access_tokens(&self, command: &str) -> Result<Vec<AccessToken>> {
        let remote = self.remote_only(needs_server(command)).await?;
        Ok(remote
            .call(Method::GET, "/api/user/tokens", &[], None::<&()>, true)
            .await?
            .0)
    }

    /// Revokes one of the caller's tokens by its full id.
    pub async fn revoke_access_token(&self, id: &str) -> Result<()> {
        let remote = self.remote_only(needs_server("token revoke")).await?;
        let _: (MessageResponse, _) = remote
            .call(
                Method::DELETE,
                &format!("/api/user/tokens/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await
            .map_err(|e| match e {
                CliError::NotFound(_) => CliError::NotFound(format!("token {id} not found")),
                other => other,
            })?;
        Ok(())
    }

    // ----- the second factor -----------------------------------------------------------

    /// Starts setting up the second factor: a new secret, not active until
    /// [`Backend::enable_totp`] confirms a code from it.
    pub async fn setup_totp(&self) -> Result<TotpSetup> {
        let remote = self.remote_only(needs_server("2fa enable")).await?;
        remote
            .call(Method::POST, "/api/user/2fa/setup", &[], None::<&()>, true)
            .await
            .map(|(setup, _)| setup)
            .map_err(|e| match e {
                CliError::Conflict(m) => {
                    CliError::Conflict(format!("{m} (journal 2fa disable turns it off)"))
                }
                other => other,
            })
    }

    /// Turns the second factor on with a code from the secret being set up; returns
    /// the recovery codes.
    pub async fn enable_totp(&self, code: &str, password: Option<String>) -> Result<RecoveryCodes> {
        let remote = self.remote_only(needs_server("2fa enable")).await?;
        let request = EnableTotpRequest {
            code: Some(code.to_owned()),
            password,
        };
        remote
            .call(
                Method::POST,
                "/api/user/2fa/enable",
                &[],
                Some(&request),
                true,
            )
            .await
            .map(|(codes, _)| codes)
            .map_err(|e| match e {
                CliError::Invalid(m) if m.contains("nothing to confirm") => CliError::Usage(
                    "nothing to confirm: run journal 2fa enable without --code first, to get the secret"
                        .into(),
                ),
                CliError::Invalid(m) => {
                    CliError::Invalid(format!("{m}; the second factor is not on yet"))
                }
                other => other,
            })
    }

    /// Turns the second factor off, with the password and a code (or a recovery code).
    pub async fn disable_totp(&self, password: &str, code: &str) -> Result<()> {
        use journal_core::Error as E;
        let remote = self.remote_only(needs_server("2fa disable")).await?;
        let request = DisableTotpRequest {
            password: Some(password.to_owned()),
            code: Some(code.to_owned()),
        };
        let answer = remote
            .send::<MessageResponse>(
                Method::POST,
                "/api/user/2fa/disable",
                &[],
                Some(&request),
                true,
            )
            .await?;
        match answer {
            Ok(_) => Ok(()),
            // A 401 here is the password or the code, not the token, when it says so.
            Err(r) if r.status == StatusCode::UNAUTHORIZED && r.is(E::WrongPassword) => Err(
                CliError::Auth("the password is wrong; the second factor is still on".into()),
            ),
            Err(r) if r.status == StatusCode::UNAUTHORIZED && r.is(E::InvalidSecondFactor) => {
                Err(CliError::Auth(
                    "the two-factor code is wrong or already used; the second factor is still on"
                        .into(),
                ))
            }
            Err(r) => Err(remote.refusal(r, true)),
        }
    }

    // ----- administrators, on a server -------------------------------------------------

    /// Makes an invitation to register (administrators only).
    pub async fn create_invite(&self, expires_in_days: Option<i64>) -> Result<Invite> {
        let remote = self
            .remote_only(needs_server_as_admin("admin invite"))
            .await?;
        let request = CreateInviteRequest { expires_in_days };
        Ok(remote
            .call(
                Method::POST,
                "/api/admin/invites",
                &[],
                Some(&request),
                true,
            )
            .await?
            .0)
    }

    /// One page of the server's accounts, oldest first (administrators only).
    pub async fn admin_users(&self, command: &str, page: PageRequest) -> Result<Page<AdminUser>> {
        let remote = self.remote_only(needs_server_as_admin(command)).await?;
        let query = [
            ("page", page.page().to_string()),
            ("limit", page.limit().to_string()),
        ];
        let (items, headers): (Vec<AdminUser>, _) = remote
            .call(Method::GET, "/api/admin/users", &query, None::<&()>, true)
            .await?;
        Ok(Page {
            total: total_count(&headers, items.len()),
            items,
            total_is_lower_bound: false,
            page: page.page(),
            limit: page.limit(),
        })
    }

    /// Disables or re-enables an account (administrators only).
    pub async fn admin_set_disabled(
        &self,
        command: &str,
        id: &UserId,
        disabled: bool,
    ) -> Result<()> {
        let remote = self.remote_only(needs_server_as_admin(command)).await?;
        let request = AdminUpdateUserRequest {
            disabled: Some(disabled),
        };
        let _: (MessageResponse, _) = remote
            .call(
                Method::PUT,
                &format!("/api/admin/users/{id}"),
                &[],
                Some(&request),
                true,
            )
            .await?;
        Ok(())
    }

    /// The invitations that still work (administrators only): on the server, or on
    /// its database with `--database`.
    pub async fn admin_invites(&self) -> Result<Vec<InviteSummary>> {
        if let Place::Local { path, .. } = &self.place {
            let journal = open_any(&path.display().to_string()).await?;
            return Ok(journal.outstanding_invites().await?);
        }
        let remote = self
            .remote_only(needs_server_as_admin("admin invites"))
            .await?;
        Ok(remote
            .call(Method::GET, "/api/admin/invites", &[], None::<&()>, true)
            .await?
            .0)
    }

    /// Revokes an unused invitation by id or code (administrators only): on the server,
    /// or on its database with `--database`.
    pub async fn admin_revoke_invite(&self, id_or_code: &str) -> Result<()> {
        let not_found = || {
            CliError::NotFound(format!(
                "no unused invitation {} (journal admin invites lists them)",
                id_or_code.trim()
            ))
        };
        if let Place::Local { path, .. } = &self.place {
            let journal = open_any(&path.display().to_string()).await?;
            return journal
                .revoke_invite(id_or_code)
                .await
                .map_err(|e| match e {
                    journal_core::Error::NotFound { .. } => not_found(),
                    other => other.into(),
                });
        }
        let remote = self
            .remote_only(needs_server_as_admin("admin revoke-invite"))
            .await?;
        // Ids are hexadecimal and codes letters, digits and dashes (spaces as typed do
        // not matter): anything else names no invitation, and is not put in a path.
        let given = id_or_code.trim();
        if !given
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ' ')
        {
            return Err(not_found());
        }
        let path = format!("/api/admin/invites/{}", given.replace(' ', ""));
        let _: (MessageResponse, _) = remote
            .call(Method::DELETE, &path, &[], None::<&()>, true)
            .await
            .map_err(|e| match e {
                CliError::NotFound(_) => not_found(),
                other => other,
            })?;
        Ok(())
    }

    /// Turns off a user's second factor and signs them out everywhere: on a server as
    /// an administrator (`id`), or directly in the database (`email`), for when no
    /// administrator can log in.
    pub async fn admin_reset_totp(&self, id: Option<&UserId>, email: &str) -> Result<()> {
        match (&self.place, id) {
            (Place::Local { path, .. }, _) => {
                let journal = open_any(&path.display().to_string()).await?;
                journal
                    .reset_totp(email)
                    .await
                    .map_err(|e| CliError::from(e).about_user(email))
            }
            (Place::Remote { .. }, None) => Err(needs_server_as_admin("admin reset-2fa")),
            (Place::Remote { .. }, Some(id)) => {
                let remote = self
                    .remote_only(needs_server_as_admin("admin reset-2fa"))
                    .await?;
                let _: (MessageResponse, _) = remote
                    .call(
                        Method::DELETE,
                        &format!("/api/admin/users/{id}/2fa"),
                        &[],
                        None::<&()>,
                        true,
                    )
                    .await
                    .map_err(|e| e.about_user(email))?;
                Ok(())
            }
        }
    }

    // ----- the database itself ---------------------------------------------------------

    /// Disables or re-enables an account by e-mail directly in the database: the way
    /// back when no administrator can log in.
    pub async fn set_disabled_on_database(&self, email: &str, disabled: bool) -> Result<UserId> {
        let journal = self.server_database("admin").await?;
        journal
            .set_disabled(email, disabled)
            .await
            .map_err(|e| CliError::from(e).about_user(email))
    }

    /// Grants or withdraws `admin` by e-mail, on the local database (SQLite or
    /// PostgreSQL): never over HTTP.
    pub async fn set_role(&self, email: &str, role: Role) -> Result<()> {
        let journal = self.server_database("admin").await?;
        journal
            .set_role(email, role)
            .await
            .map_err(|e| CliError::from(e).about_user(email))
    }

    /// Fails before any question when a command that works on a database file is run
    /// against a server.
    pub fn require_database(&self, command: &str) -> Result<()> {
        match self.place {
            Place::Local { .. } => Ok(()),
            Place::Remote { .. } => Err(needs_local_database(command)),
        }
    }

    /// Makes an account directly in the database (SQLite or PostgreSQL), whatever the
    /// server's registration policy: how a closed server gets its first administrator.
    pub async fn create_account(&self, request: &RegisterRequest, role: Role) -> Result<UserId> {
        let journal = self.server_database("admin create-user").await?;
        journal.create_account(request, role).await.map_err(|e| {
            let email = request.email.as_deref().unwrap_or_default().trim();
            match CliError::from(e) {
                CliError::Conflict(m) if role == Role::Admin => CliError::Conflict(format!(
                    "{m}; to make that account an administrator: journal admin promote {email}"
                )),
                other => other,
            }
        })
    }
}
