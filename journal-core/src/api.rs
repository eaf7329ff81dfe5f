//! Wire types of the HTTP API, shared by the server and the CLI's HTTP client.
//!
//! Request fields are optional so that a missing field is reported by the core's
//! validation ("title: is required") rather than as a JSON parse error. Unknown fields
//! (`role`, `_id`, `password` in a profile update, …) are ignored: they can never change
//! anything, because the domain types have no place for them.

use serde::{Deserialize, Serialize};

use crate::domain::UserId;
use crate::model::Profile;

mod entries;
#[cfg(feature = "utoipa")]
pub mod schema;

pub use entries::{
    CreateEntryRequest, EntryChanges, ImportEntriesRequest, ImportEntriesResponse,
    ImportEntryRequest, ImportRevisionRequest, MAX_IMPORT_BATCH, MissingFilesRequest, NewEntry,
    PushAttachmentRequest, PushChangeRequest, PushChangesRequest, UpdateEntryRequest,
};

/// Body of `POST /api/user/register`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RegisterRequest {
    /// Full name.
    #[serde(rename = "fullName", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::name, required = true))]
    pub full_name: Option<String>,
    /// Display name.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::name, required = true))]
    pub nickname: Option<String>,
    /// E-mail address, used to log in.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::email, required = true))]
    pub email: Option<String>,
    /// Password, 8 to 1024 characters.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::new_password, required = true))]
    pub password: Option<String>,
    /// The invitation, on a server where registration is by invitation.
    #[serde(
        rename = "inviteCode",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::invite_code))]
    pub invite_code: Option<String>,
}

/// Body of `POST /api/user/login`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct LoginRequest {
    /// E-mail address.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::plain_string, required = true))]
    pub email: Option<String>,
    /// Password.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::secret, required = true))]
    pub password: Option<String>,
    /// A second-factor code (or a recovery code), for accounts that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::login_totp))]
    pub totp: Option<String>,
}

impl std::fmt::Debug for LoginRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginRequest")
            .field("email", &self.email)
            .field("password", &"<redacted>")
            .field("totp", &self.totp.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Body of `POST /api/user/tokens`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct CreateAccessTokenRequest {
    /// What the token is for, 1 to 100 characters.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::token_name, required = true))]
    pub name: Option<String>,
    /// Days until it stops working, 1 to 3650; never when missing.
    #[serde(
        rename = "expiresInDays",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "whole_number"
    )]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::token_days))]
    pub expires_in_days: Option<i64>,
    /// The current password: needed unless the caller signed in within the last
    /// [`crate::RECENT_LOGIN_MINUTES`] minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::recent_password))]
    pub password: Option<String>,
    /// A second-factor or recovery code, with `password`, when the second factor is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::totp_with_password))]
    pub totp: Option<String>,
}

impl std::fmt::Debug for CreateAccessTokenRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreateAccessTokenRequest")
            .field("name", &self.name)
            .field("expires_in_days", &self.expires_in_days)
            .finish_non_exhaustive()
    }
}

/// Body of `POST /api/user/2fa/enable`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct EnableTotpRequest {
    /// A current code from the authenticator app.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::secret, required = true))]
    pub code: Option<String>,
    /// The current password: needed unless the caller signed in within the last
    /// [`crate::RECENT_LOGIN_MINUTES`] minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::recent_password))]
    pub password: Option<String>,
}

/// Body of `DELETE /api/user/profile/`, optional: the current password (and a
/// second-factor code when it is on), needed unless the caller signed in within the last
/// [`crate::RECENT_LOGIN_MINUTES`] minutes.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "utoipa",
    schema(
        description = "Optional: the current password (and a second-factor code when it is on), needed unless the login is recent (--recent-login)."
    )
)]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct DeleteAccountRequest {
    /// The current password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::recent_password))]
    pub password: Option<String>,
    /// A second-factor or recovery code, when the second factor is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::totp_with_password))]
    pub totp: Option<String>,
}

impl std::fmt::Debug for DeleteAccountRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeleteAccountRequest { <redacted> }")
    }
}

/// Body of `POST /api/user/2fa/disable`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct DisableTotpRequest {
    /// The account's password.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::secret, required = true))]
    pub password: Option<String>,
    /// A current code, or a recovery code.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::secret, required = true))]
    pub code: Option<String>,
}

/// Body of `POST /api/user/2fa/recovery-codes`: a current second-factor or recovery
/// code, always, and the current password unless the caller signed in within the last
/// [`crate::RECENT_LOGIN_MINUTES`] minutes.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct RenewRecoveryCodesRequest {
    /// The current password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::recent_password))]
    pub password: Option<String>,
    /// A current second-factor code, or a recovery code.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::secret, required = true))]
    pub totp: Option<String>,
}

impl std::fmt::Debug for RenewRecoveryCodesRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RenewRecoveryCodesRequest { <redacted> }")
    }
}

impl std::fmt::Debug for EnableTotpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnableTotpRequest { <redacted> }")
    }
}

impl std::fmt::Debug for DisableTotpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DisableTotpRequest { <redacted> }")
    }
}

/// Body of `POST /api/admin/invites`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CreateInviteRequest {
    /// Days until the invitation stops working, 1 to 30; 7 when missing.
    #[serde(
        rename = "expiresInDays",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "whole_number"
    )]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::invite_days))]
    pub expires_in_days: Option<i64>,
}

/// Body of `PUT /api/admin/users/{id}`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AdminUpdateUserRequest {
    /// Disable (true) or re-enable (false) the account.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::boolean, required = true))]
    pub disabled: Option<bool>,
}

/// Body of `PUT /api/user/profile/`: any of these fields.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "utoipa",
    schema(
        description = "At least one of the fields, not null. Other fields (role, _id) are ignored; password and totp confirm a changed email and change nothing themselves."
    )
)]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct UpdateProfileRequest {
    /// New full name.
    #[serde(rename = "fullName", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::name_or_null))]
    pub full_name: Option<String>,
    /// New nickname (applies to entries created from now on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::name_or_null))]
    pub nickname: Option<String>,
    /// New e-mail address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::email_or_null))]
    pub email: Option<String>,
    /// New picture: a data URI, or `""` to remove it.
    #[serde(
        rename = "profilePic",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::profile_pic_or_null))]
    pub profile_pic: Option<String>,
    /// Hide (true) or show (false) the user's entries to others.
    #[serde(rename = "isPrivate", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::bool_or_null_schema))]
    pub is_private: Option<bool>,
    /// The current password, read only when `email` changes the address: a changed
    /// address needs it unless the caller signed in within the last
    /// [`crate::RECENT_LOGIN_MINUTES`] minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::email_change_password))]
    pub password: Option<String>,
    /// A second-factor or recovery code, with `password`, when the second factor is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::totp_with_password))]
    pub totp: Option<String>,
}

impl std::fmt::Debug for UpdateProfileRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpdateProfileRequest")
            .field("full_name", &self.full_name)
            .field("nickname", &self.nickname)
            .field("email", &self.email)
            .field("profile_pic", &self.profile_pic.as_ref().map(String::len))
            .field("is_private", &self.is_private)
            .finish_non_exhaustive()
    }
}

/// Body of `POST /api/sync/conflicts/{id}/resolve`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ResolveConflictRequest {
    /// `current` to keep the entry as it is, or the revisionId of the text set aside
    /// to make it the entry's.
    #[serde(default)]
    pub keep: Option<String>,
}

impl ResolveConflictRequest {
    /// What the request keeps, checked.
    pub fn resolution(&self) -> Result<crate::domain::Resolution, crate::error::ValidationError> {
        required("keep", &self.keep)?.parse()
    }
}

/// Body of `PUT /api/user/profile/password`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct ChangePasswordRequest {
    /// The current password.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::current_password, required = true))]
    pub password: Option<String>,
    /// The new password.
    #[serde(rename = "newPassword", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::new_password, required = true))]
    pub new_password: Option<String>,
    /// A second-factor or recovery code, when the second factor is on and the caller
    /// did not sign in within the last [`crate::RECENT_LOGIN_MINUTES`] minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::password_change_totp))]
    pub totp: Option<String>,
    /// Keep the personal access tokens working (true); by default a password change
    /// revokes them with every login session.
    #[serde(
        rename = "keepAccessTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::keep_access_tokens))]
    pub keep_access_tokens: Option<bool>,
}

impl std::fmt::Debug for ChangePasswordRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChangePasswordRequest { <redacted> }")
    }
}

/// Reply to a registration.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegisterResponse {
    /// The new user's id.
    #[serde(rename = "userId")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = Uuid))]
    pub user_id: UserId,
}

/// Reply to a login.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Serialize, Deserialize)]
pub struct LoginResponse {
    /// A JWT for `Authorization: Bearer <token>`.
    pub token: String,
}

impl std::fmt::Debug for LoginResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LoginResponse { token: <redacted> }")
    }
}

/// Reply to `GET /api/user/profile/`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileResponse {
    /// The caller's profile.
    pub user: Profile,
}

/// A confirmation.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = Message))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MessageResponse {
    /// What happened.
    pub message: String,
}

/// The body of every error response.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = Error))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The HTTP status code.
    #[serde(rename = "statusCode")]
    pub status_code: u16,
    /// The status's reason phrase (`Not Found`).
    pub error: String,
    /// What went wrong and what to do.
    pub message: String,
}

/// Reply to `GET /api/status`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StatusResponse {
    /// `ok` when the service can answer.
    pub status: String,
    /// `ok`, or `unavailable` when the database does not answer.
    pub database: String,
    /// The server's version.
    pub version: String,
}

/// A whole number, also when written with a zero fraction (`7.0`): JSON does not tell
/// the two apart, and JSON Schema's `integer` accepts both.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(n) = number.as_i64() {
        return Ok(Some(n));
    }
    match number.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => Ok(Some(f as i64)),
        _ => Err(serde::de::Error::custom(format!(
            "expected a whole number, found {number}"
        ))),
    }
}

/// The value of a required field, or "is required" under its name.
pub(crate) fn required<'a>(
    field: &'static str,
    value: &'a Option<String>,
) -> Result<&'a str, crate::error::ValidationError> {
    value
        .as_deref()
        .ok_or_else(|| crate::error::ValidationError::new(field, "is required"))
}
