//! Running a public server: who may register, invitations, and administrators'
//! management of accounts.

use crate::model::SecurityEventKind::SecondFactorDisabled;
use std::str::FromStr;

use tracing::instrument;

use super::attachments::{AttachmentOptions, AttachmentPlace};
use super::{Caller, Journal};
use crate::api::{AdminUpdateUserRequest, CreateInviteRequest, RegisterRequest};
use crate::domain::{PageRequest, Role, Timestamp, UserId};
use crate::error::{Error, Result, ValidationError};
use crate::model::{AdminUser, CacheCounts, Invite, InviteSummary, Page};
use crate::store::{CopyError, CopyReport, INVITE_ID_CHARS, InviteRecord, TotpChange};

/// Who may register on a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registration {
    /// Anyone.
    #[default]
    Open,
    /// Whoever has an invitation from an administrator (`POST /api/admin/invites`).
    Invite,
    /// Nobody: accounts are made by the operator (`journal admin create-user`).
    Closed,
}

impl FromStr for Registration {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Registration, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "open" => Ok(Registration::Open),
            "invite" => Ok(Registration::Invite),
            "closed" => Ok(Registration::Closed),
            other => Err(format!(
                "{other:?} is not a registration policy: use open, invite or closed"
            )),
        }
    }
}

/// Days an invitation works when the administrator does not say.
const DEFAULT_INVITE_DAYS: i64 = 7;
/// The longest an invitation may work: a code sent by e-mail or chat lies around, and
/// a newcomer who has not registered within a month can be sent a new one.
pub const MAX_INVITE_DAYS: i64 = 30;
/// At most this many invitations are listed: the cost of the list stays bounded
/// however many an administrator makes.
pub const MAX_INVITES_LISTED: u32 = 1000;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn admin_only(caller: &Caller) -> Result<()> {
    if caller.is_admin() {
        Ok(())
    } else {
        Err(Error::Forbidden("only an administrator may do this".into()))
    }
}

fn parse_user(id: &str) -> Result<UserId> {
    Ok(id.parse::<UserId>()?)
}

impl Journal {
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
    /// password hashes and roles, entries and the trash with their whole history,
    /// attachments, token revocations and the JWT secret; then every attachment's file,
    /// into the folder `files` names for the target (beside a SQLite file by default;
    /// a PostgreSQL target needs a folder). This journal is not changed.
    ///
    /// The outer error says that `target_url` could not be opened, or that the files
    /// have nowhere to go; the inner one how the copy went
    /// ([`CopyError::TargetNotEmpty`] when the target already holds a journal).
    #[instrument(level = "debug", skip_all)]
    pub async fn copy_into(
        &self,
        target_url: &str,
        files: AttachmentPlace,
    ) -> Result<std::result::Result<CopyReport, CopyError>> {
        let objects = self.store_ref().attachment_objects().await?;
        // Checked before anything is copied: a move that left the photos behind would
        // have to be undone by hand.
        let places = if objects.is_empty() {
            None
        } else {
            let from = self.attachment_files().cloned().ok_or_else(|| {
                Error::Config(format!(
                    "this journal has {} but its files are out of reach: open it with the \
                     folder or bucket its server uses (--from-attachments)",
                    crate::transfer::count(
                        objects.len() as u64,
                        "attachment file",
                        "attachment files"
                    )
                ))
            })?;
            let options = AttachmentOptions {
                place: files,
                ..AttachmentOptions::default()
            };
            let to = options.files_for(target_url)?.ok_or_else(|| {
                Error::Config(format!(
                    "this journal has {}: name the folder or bucket the new database's servers will \
                     keep them in (--attachments DIR|s3://BUCKET)",
                    crate::transfer::count(
                        objects.len() as u64,
                        "attachment file",
                        "attachment files"
                    )
                ))
            })?;
            Some((from, to))
        };
        let target = crate::store::open(target_url).await?;
        let mut report = match crate::store::copy_all(self.store_ref(), target.as_ref()).await {
            Ok(report) => report,
            Err(e) => return Ok(Err(e)),
        };
        if let Some((from, to)) = places {
            for object in &objects {
                let Some((author, sha256)) = object
                    .split_once('/')
                    .and_then(|(a, s)| Some((a.parse::<UserId>().ok()?, s)))
                else {
                    continue;
                };
                let copied = from
                    .copy_object(&to, &author, sha256)
                    .await
                    .map_err(super::attachments::files_error)?;
                if copied {
                    report.files += 1;
                } else {
                    report.missing_files += 1;
                }
            }
        }
        Ok(Ok(report))
    }

    /// Checks the server's registration policy; returns the invitation code when one
    /// is needed.
    pub(super) fn registration_allowed<'r>(
        &self,
        request: &'r RegisterRequest,
    ) -> Result<Option<&'r str>> {
        match self.inner.registration {
            Registration::Open => Ok(None),
            Registration::Closed => Err(Error::Forbidden(
                "registration is closed on this server; ask its administrator for an account"
                    .into(),
            )),
            Registration::Invite => match request.invite_code.as_deref() {
                Some(code) if !code.trim().is_empty() => Ok(Some(code)),
                _ => Err(Error::Forbidden(
                    "registration on this server needs an invitation: send \"inviteCode\"".into(),
                )),
            },
        }
    }

    /// Makes an invitation that works once, for `expiresInDays` days (7 by default, 30
    /// at most), while its maker stays an administrator. Administrators only.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn create_invite(
        &self,
        caller: &Caller,
        request: &CreateInviteRequest,
    ) -> Result<Invite> {
        admin_only(caller)?;
        let days = request.expires_in_days.unwrap_or(DEFAULT_INVITE_DAYS);
        if !(1..=MAX_INVITE_DAYS).contains(&days) {
            return Err(ValidationError::new(
                "expiresInDays",
                format!("must be a whole number of days from 1 to {MAX_INVITE_DAYS}"),
            )
            .into());
        }
        let code = crate::secrets::new_invite_code();
        let hash = crate::secrets::hash(&code);
        let now = Timestamp::now();
        let expires_at = Timestamp::from_millis(now.as_millis() + days * DAY_MS);
        self.store_ref()
            .insert_invite(&InviteRecord {
                hash: hash.clone(),
                created_by: caller.user_id,
                created_at: now,
                expires_at,
            })
            .await?;
        let id = hash[..INVITE_ID_CHARS].to_owned();
        tracing::info!(admin = %caller.user_id, invite = %id, "invitation made");
        Ok(Invite {
            id,
            code,
            expires_at,
        })
    }

    /// The invitations that still work, oldest first, with who made them.
    /// Administrators only.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_invites(&self, caller: &Caller) -> Result<Vec<InviteSummary>> {
        admin_only(caller)?;
        self.outstanding_invites().await
    }

    /// Revokes an unused invitation, named by its id or by its code. Administrators
    /// only.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_revoke_invite(&self, caller: &Caller, id_or_code: &str) -> Result<()> {
        admin_only(caller)?;
        self.revoke_invite(id_or_code).await?;
        tracing::info!(admin = %caller.user_id, "invitation revoked");
        Ok(())
    }

    /// The invitations that still work, on the database itself: for the CLI's
    /// `journal admin invites --database`, never reachable over HTTP.
    pub async fn outstanding_invites(&self) -> Result<Vec<InviteSummary>> {
        Ok(self
            .store_ref()
            .invites(Timestamp::now(), MAX_INVITES_LISTED)
            .await?)
    }

    /// Revokes an unused invitation by id or code, on the database itself (the CLI's
    /// `journal admin revoke-invite --database`); not found when there is none.
    pub async fn revoke_invite(&self, id_or_code: &str) -> Result<()> {
        let given = id_or_code.trim();
        let is_id = given.len() == INVITE_ID_CHARS
            && given
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let key = if is_id {
            given.to_owned()
        } else {
            crate::secrets::hash(&crate::secrets::normalize_code(given))
        };
        if self.store_ref().delete_invite(&key).await? {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "invitation" })
        }
    }

    /// Disables or re-enables the account with this e-mail, on the database itself:
    /// for the CLI's `journal admin disable|enable --database`, so an operator can
    /// recover when no administrator can log in. Never reachable over HTTP.
    pub async fn set_disabled(&self, email: &str, disabled: bool) -> Result<UserId> {
        let email = crate::domain::Email::parse(email)?;
        let Some(user) = self.store_ref().user_by_email(email.as_ref()).await? else {
            return Err(Error::NotFound { kind: "user" });
        };
        let id = user.profile.id;
        if !self.store_ref().set_disabled(&id, disabled).await? {
            return Err(Error::NotFound { kind: "user" });
        }
        tracing::info!(user = %id, disabled, "account state changed on the database");
        Ok(id)
    }

    /// Every account, oldest first, with its state and entry count. Administrators
    /// only.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_users(&self, caller: &Caller, page: PageRequest) -> Result<Page<AdminUser>> {
        admin_only(caller)?;
        page.check_depth()?;
        Ok(self.store_ref().users_page(page).await?)
    }

    /// How often each of the store's caches answered from memory since the process
    /// started, by name. Administrators only.
    pub fn cache_counts(&self, caller: &Caller) -> Result<Vec<(&'static str, CacheCounts)>> {
        admin_only(caller)?;
        Ok(self.store_ref().cache_counts())
    }

    /// Sets the metrics read from the store when they are scraped: its pools' state and
    /// its caches' counts (see [`crate::metrics`]). No caller: the metrics are served
    /// to operators apart from the API.
    pub fn report_metrics(&self) {
        let store = self.store_ref();
        crate::metrics::report_pools(&store.pools());
        crate::metrics::report_caches(&store.cache_counts());
    }

    /// Disables or re-enables an account. A disabled account's tokens stop working at
    /// once, it cannot log in, and its entries leave everyone else's view; enabling it
    /// again restores all of that. Administrators only, and not on themselves.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_update_user(
        &self,
        caller: &Caller,
        id: &str,
        request: &AdminUpdateUserRequest,
    ) -> Result<bool> {
        admin_only(caller)?;
        let id = parse_user(id)?;
        let disabled = request.disabled.ok_or_else(|| {
            ValidationError::new("disabled", "is required: true to disable, false to enable")
        })?;
        if id == caller.user_id {
            return Err(Error::Forbidden(
                "an administrator cannot disable their own account".into(),
            ));
        }
        if !self.store_ref().set_disabled(&id, disabled).await? {
            return Err(Error::NotFound { kind: "user" });
        }
        tracing::info!(admin = %caller.user_id, user = %id, disabled, "account state changed");
        Ok(disabled)
    }

    /// Deletes an account and its entries. Administrators only, and not their own
    /// (that is `DELETE /api/user/profile`).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_delete_user(&self, caller: &Caller, id: &str) -> Result<()> {
        admin_only(caller)?;
        let id = parse_user(id)?;
        if id == caller.user_id {
            return Err(Error::Forbidden(
                "delete your own account with DELETE /api/user/profile".into(),
            ));
        }
        if !self.store_ref().delete_user(&id).await? {
            return Err(Error::NotFound { kind: "user" });
        }
        tracing::info!(admin = %caller.user_id, user = %id, "account deleted by an administrator");
        Ok(())
    }

    /// Turns off the second factor of an account whose owner lost it (or never set it:
    /// one a stolen login turned on), and signs the owner out everywhere. The password
    /// and access tokens are left as they are. Administrators only, and not on
    /// themselves (they turn theirs off with their password and a code).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn admin_reset_totp(&self, caller: &Caller, id: &str) -> Result<()> {
        admin_only(caller)?;
        let id = parse_user(id)?;
        if id == caller.user_id {
            return Err(Error::Forbidden(
                "turn your own second factor off with POST /api/user/2fa/disable".into(),
            ));
        }
        self.reset_totp_of(&id).await?;
        tracing::info!(admin = %caller.user_id, user = %id, "second factor reset by an administrator");
        let detail = Some("by an administrator".to_owned());
        self.record_event(&id, &caller.client, SecondFactorDisabled, detail)
            .await;
        Ok(())
    }

    /// [`Journal::admin_reset_totp`] for trusted local use, by e-mail address: the
    /// operator on the database, for when no administrator can log in. Never reachable
    /// over HTTP.
    #[instrument(level = "debug", skip_all)]
    pub async fn reset_totp(&self, email: &str) -> Result<()> {
        let email = crate::domain::Email::parse(email)?;
        let user = self
            .store_ref()
            .user_by_email(email.as_ref())
            .await?
            .ok_or(Error::NotFound { kind: "user" })?;
        self.reset_totp_of(&user.profile.id).await?;
        tracing::info!(user = %user.profile.id, "second factor reset on the database");
        let detail = Some("on the database".to_owned());
        let local = super::ClientInfo::local();
        self.record_event(&user.profile.id, &local, SecondFactorDisabled, detail)
            .await;
        Ok(())
    }

    async fn reset_totp_of(&self, user: &UserId) -> Result<()> {
        let change = TotpChange::Reset {
            signed_out_at: Timestamp::now(),
        };
        if !self.store_ref().set_totp(user, &change).await? {
            return Err(Error::NotFound { kind: "user" });
        }
        Ok(())
    }

    /// Makes an account directly, bypassing the registration policy: how the operator
    /// sets up the first administrator of a closed or invite-only server.
    #[instrument(level = "debug", skip_all)]
    pub async fn create_account(&self, request: &RegisterRequest, role: Role) -> Result<UserId> {
        let new = crate::input::NewUser::try_from(request)?;
        self.create_user(new, role, None).await
    }
}
