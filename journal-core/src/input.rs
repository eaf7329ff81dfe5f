//! Validated inputs of the core's operations, built from the wire requests.

use crate::api::{CreateEntryRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest};
use crate::domain::{Content, Email, FullName, Nickname, Password, ProfilePic, Title};
use crate::error::ValidationError;

fn required<'a>(
    field: &'static str,
    value: &'a Option<String>,
) -> Result<&'a str, ValidationError> {
    value
        .as_deref()
        .ok_or_else(|| ValidationError::new(field, "is required"))
}

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

/// A new entry that passed validation.
#[derive(Clone, Debug)]
pub struct NewEntry {
    /// Title.
    pub title: Title,
    /// Content (may be empty).
    pub content: Content,
    /// Public or not.
    pub is_public: bool,
}

impl TryFrom<&CreateEntryRequest> for NewEntry {
    type Error = ValidationError;
    fn try_from(r: &CreateEntryRequest) -> Result<NewEntry, ValidationError> {
        Ok(NewEntry {
            title: Title::parse(required("title", &r.title)?)?,
            content: Content::parse(r.content.as_deref().unwrap_or(""))?,
            is_public: r.is_public.unwrap_or(false),
        })
    }
}

/// Changes to an entry; at least one field is set.
#[derive(Clone, Debug, Default)]
pub struct EntryChanges {
    /// New title.
    pub title: Option<Title>,
    /// New content.
    pub content: Option<Content>,
    /// New visibility.
    pub is_public: Option<bool>,
}

impl TryFrom<&UpdateEntryRequest> for EntryChanges {
    type Error = ValidationError;
    fn try_from(r: &UpdateEntryRequest) -> Result<EntryChanges, ValidationError> {
        let changes = EntryChanges {
            title: r.title.as_deref().map(Title::parse).transpose()?,
            content: r.content.as_deref().map(Content::parse).transpose()?,
            is_public: r.is_public,
        };
        if changes.title.is_none() && changes.content.is_none() && changes.is_public.is_none() {
            return Err(ValidationError::new(
                "body",
                "nothing to update; send at least one of title, content, isPublic",
            ));
        }
        Ok(changes)
    }
}
