//! Validated inputs of the core's account operations, built from the wire requests
//! (the entries' are in `api/entries.rs`, beside their requests).

use crate::api::{RegisterRequest, UpdateProfileRequest, required};
use crate::domain::{Email, FullName, Nickname, Password, ProfilePic};
use crate::error::ValidationError;

/// The validated forms of the entry requests live beside the requests, so that a new
/// entry field is one place for both.
pub use crate::api::{EntryChanges, NewEntry};

/// A registration that passed validation.
#[derive(Clone, Debug)]
pub struct NewUser {
    /// Full name.
    pub full_name: FullName,
    /// Nickname.
    pub nickname: Nickname,
    /// E-mail address.
    pub email: Email,
    /// Password to hash.
    pub password: Password,
}

impl TryFrom<&RegisterRequest> for NewUser {
    type Error = ValidationError;
    fn try_from(r: &RegisterRequest) -> Result<NewUser, ValidationError> {
        Ok(NewUser {
            full_name: FullName::parse(required("fullName", &r.full_name)?)?,
            nickname: Nickname::parse(required("nickname", &r.nickname)?)?,
            email: Email::parse(required("email", &r.email)?)?,
            password: Password::parse(required("password", &r.password)?)?,
        })
    }
}

/// Changes to a profile; at least one field is set.
#[derive(Clone, Debug, Default)]
pub struct ProfileChanges {
    /// New full name.
    pub full_name: Option<FullName>,
    /// New nickname.
    pub nickname: Option<Nickname>,
    /// New e-mail address.
    pub email: Option<Email>,
    /// New picture (possibly empty, to remove it).
    pub profile_pic: Option<ProfilePic>,
    /// New privacy flag.
    pub is_private: Option<bool>,
}

impl TryFrom<&UpdateProfileRequest> for ProfileChanges {
    type Error = ValidationError;
    fn try_from(r: &UpdateProfileRequest) -> Result<ProfileChanges, ValidationError> {
        let changes = ProfileChanges {
            full_name: r.full_name.as_deref().map(FullName::parse).transpose()?,
            nickname: r.nickname.as_deref().map(Nickname::parse).transpose()?,
            email: r.email.as_deref().map(Email::parse).transpose()?,
            profile_pic: r
                .profile_pic
                .as_deref()
                .map(ProfilePic::parse)
                .transpose()?,
            is_private: r.is_private,
        };
        if changes.is_empty() {
            return Err(ValidationError::new(
                "body",
                "nothing to update; send at least one of fullName, nickname, email, profilePic, isPrivate",
            ));
        }
        Ok(changes)
    }
}

impl ProfileChanges {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        self.full_name.is_none()
            && self.nickname.is_none()
            && self.email.is_none()
            && self.profile_pic.is_none()
            && self.is_private.is_none()
    }
}
