//! Validated inputs of the core's operations, built from the wire requests.

use crate::api::{CreateEntryRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest};
use crate::domain::{
    Content, EARLIEST_DATE_MS, Email, EntryId, FullName, Nickname, Password, ProfilePic, Tags,
    Timestamp, Title, UserId, latest_date,
};
use crate::error::ValidationError;
use crate::model::Entry;

/// An entry's `date`: ISO 8601, from 1900 to a day from now.
pub(crate) fn entry_date(field: &'static str, value: &str) -> Result<Timestamp, ValidationError> {
    let date = Timestamp::parse(value).map_err(|e| ValidationError::new(field, e.message))?;
    check_entry_date(field, date)
}

/// Refuses a date before 1900 or more than a day from now.
pub(crate) fn check_entry_date(
    field: &'static str,
    date: Timestamp,
) -> Result<Timestamp, ValidationError> {
    let (earliest, latest) = (Timestamp::from_millis(EARLIEST_DATE_MS), latest_date());
    if date < earliest || date > latest {
        return Err(ValidationError::new(
            field,
            format!("must be from {earliest} to one day from now"),
        ));
    }
    Ok(date)
}

fn tags(value: &Option<Vec<String>>) -> Result<Option<Tags>, ValidationError> {
    value.as_deref().map(Tags::parse).transpose()
}

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
    /// Tags (possibly none).
    pub tags: Tags,
    /// Starred or not.
    pub starred: bool,
    /// When the entry is about; its creation time when `None`.
    pub date: Option<Timestamp>,
}

impl TryFrom<&CreateEntryRequest> for NewEntry {
    type Error = ValidationError;
    fn try_from(r: &CreateEntryRequest) -> Result<NewEntry, ValidationError> {
        Ok(NewEntry {
            title: Title::parse(required("title", &r.title)?)?,
            content: Content::parse(r.content.as_deref().unwrap_or(""))?,
            is_public: r.is_public.unwrap_or(false),
            tags: tags(&r.tags)?.unwrap_or_default(),
            starred: r.starred.unwrap_or(false),
            date: r
                .date
                .as_deref()
                .map(|d| entry_date("date", d))
                .transpose()?,
        })
    }
}

impl NewEntry {
    /// The entry to store, with a new id: by `author_id`, named `author_name`, made at
    /// `created_at` and last changed at `updated_at`, and dated `created_at` unless the
    /// author gave a date. The one place an [`Entry`] is made from what its author sent,
    /// for new entries and imported ones alike.
    pub(crate) fn into_entry(
        self,
        author_id: UserId,
        author_name: String,
        created_at: Timestamp,
        updated_at: Timestamp,
    ) -> Entry {
        Entry {
            id: EntryId::generate(),
            title: self.title.into_inner(),
            content: self.content.into_inner(),
            is_public: self.is_public,
            tags: self.tags.into_inner(),
            starred: self.starred,
            date: self.date.unwrap_or(created_at),
            author_id,
            author_name,
            created_at,
            updated_at,
        }
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
    /// New tags, replacing the old ones.
    pub tags: Option<Tags>,
    /// Starred or not.
    pub starred: Option<bool>,
    /// New date.
    pub date: Option<Timestamp>,
}

impl TryFrom<&UpdateEntryRequest> for EntryChanges {
    type Error = ValidationError;
    fn try_from(r: &UpdateEntryRequest) -> Result<EntryChanges, ValidationError> {
        let changes = EntryChanges {
            title: r.title.as_deref().map(Title::parse).transpose()?,
            content: r.content.as_deref().map(Content::parse).transpose()?,
            is_public: r.is_public,
            tags: tags(&r.tags)?,
            starred: r.starred,
            date: r
                .date
                .as_deref()
                .map(|d| entry_date("date", d))
                .transpose()?,
        };
        if changes.is_empty() {
            return Err(ValidationError::new(
                "body",
                "nothing to update; send at least one of title, content, isPublic, tags, \
                 starred, date",
            ));
        }
        Ok(changes)
    }
}

impl EntryChanges {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.content.is_none()
            && self.is_public.is_none()
            && self.tags.is_none()
            && self.starred.is_none()
            && self.date.is_none()
    }
}
