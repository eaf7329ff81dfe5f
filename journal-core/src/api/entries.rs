//! The entry requests of the HTTP API and their validated forms, side by side: a new
//! entry field is added here once for the wire and once for the rules.

use serde::{Deserialize, Serialize};

use super::required;
#[cfg(feature = "utoipa")]
use super::schema;
use crate::domain::{Content, EntryId, Tags, Timestamp, Title, UserId, entry_date};
use crate::error::ValidationError;
use crate::model::Entry;

/// Most entries one [`crate::Journal::import`] call takes.
pub const MAX_IMPORT_BATCH: usize = 1000;

/// Body of `POST /api/journal-entries`.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "utoipa",
    schema(description = "A null content or isPublic is the same as leaving it out.")
)]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CreateEntryRequest {
    /// Title, 1 to 200 characters.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::title, required = true))]
    pub title: Option<String>,
    /// Body text; empty when missing.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::content_or_null))]
    pub content: Option<String>,
    /// Public when true; private when missing.
    #[serde(rename = "isPublic", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub is_public: Option<bool>,
    /// Tags; none when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::tags_or_null))]
    pub tags: Option<Vec<String>>,
    /// Starred when true; not when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub starred: Option<bool>,
    /// When the entry is about, ISO 8601; now when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::entry_date_or_null))]
    pub date: Option<String>,
}

/// Body of `PUT /api/journal-entries/:id`: any of these fields.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "utoipa",
    schema(
        description = "At least one of the fields, not null; only these change. tags replaces the entry's tags."
    )
)]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct UpdateEntryRequest {
    /// New title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::title_or_null))]
    pub title: Option<String>,
    /// New content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::content_or_null))]
    pub content: Option<String>,
    /// New visibility.
    #[serde(rename = "isPublic", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::bool_or_null_schema))]
    pub is_public: Option<bool>,
    /// New tags, replacing the old ones (`[]` removes them all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::tags_or_null))]
    pub tags: Option<Vec<String>>,
    /// Star (true) or unstar (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::bool_or_null_schema))]
    pub starred: Option<bool>,
    /// New date, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::entry_date_or_null))]
    pub date: Option<String>,
}

/// Body of `POST /api/journal-entries/import`: entries with their original dates.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ImportEntriesRequest {
    /// At most [`crate::MAX_IMPORT_BATCH`] entries.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = import_entries_schema, required = true))]
    pub entries: Vec<ImportEntryRequest>,
}

/// One entry to import.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ImportEntryRequest {
    /// The entry's id in the journal it came from. Kept when it is a UUIDv7 in its
    /// canonical form that no other user's entry has; an entry of the caller's with
    /// this id means the entry is there already, and it is skipped.
    #[serde(
        rename = "_id",
        alias = "id",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<String>,
    /// Title, 1 to 200 characters.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::title, required = true))]
    pub title: Option<String>,
    /// Body text; empty when missing.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::content_or_null))]
    pub content: Option<String>,
    /// Public when true; private when missing.
    #[serde(rename = "isPublic", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub is_public: Option<bool>,
    /// Original creation time, ISO 8601 (required).
    #[serde(rename = "createdAt", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::date_time, required = true))]
    pub created_at: Option<String>,
    /// Original last change; `createdAt` when missing.
    #[serde(rename = "updatedAt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::date_time_or_null))]
    pub updated_at: Option<String>,
    /// Tags; none when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::tags_or_null))]
    pub tags: Option<Vec<String>>,
    /// Starred when true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub starred: Option<bool>,
    /// When the entry is about; `createdAt` when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::entry_date_or_null))]
    pub date: Option<String>,
    /// The entry's history as a journal export carries it, oldest first, the last
    /// revision the entry as sent: restored as it was (ids, parents, numbers, times),
    /// with no revision for the import. Missing: the import records one revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisions: Option<Vec<ImportRevisionRequest>>,
    /// For an entry of an export's trash: when it was deleted. It goes to the trash.
    #[serde(rename = "deletedAt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::date_time_or_null))]
    pub deleted_at: Option<String>,
}

/// `POST /api/sync/changes`: changes a replica made since it last synced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushChangesRequest {
    /// The changes, each one entry's; at most 1,000, holding at most 5,000 revisions.
    #[serde(default)]
    pub changes: Option<Vec<PushChangeRequest>>,
    /// The replica's cursor in the feed, as last read: when nothing else changed the
    /// account since, the answer carries the cursor past this push's own changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

/// One entry's change a replica sends: the revisions it made since `base` (the last
/// revision it had from the server), and where the entry is now on the replica.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushChangeRequest {
    /// The entry's id, a UUID (a replica makes a UUIDv7 for a new entry).
    #[serde(default)]
    pub id: Option<String>,
    /// The revision the replica's changes were made from; `null` for an entry the
    /// server has never had.
    #[serde(default)]
    pub base: Option<String>,
    /// `live`, `trashed` or `purged`.
    #[serde(default)]
    pub state: Option<String>,
    /// When it was deleted, for `trashed`.
    #[serde(rename = "deletedAt", default)]
    pub deleted_at: Option<String>,
    /// When it was created, for an entry the server has never had (the first
    /// revision's time when left out).
    #[serde(rename = "createdAt", default)]
    pub created_at: Option<String>,
    /// The revisions made since `base`, oldest first, as the feed carries them.
    #[serde(default)]
    pub revisions: Option<Vec<ImportRevisionRequest>>,
    /// The entry's attachments on the replica, the deleted ones too, as the feed
    /// carries them; the files the server lacks are sent first
    /// (`PUT /api/sync/files/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<PushAttachmentRequest>>,
}

/// One attachment of a pushed change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAttachmentRequest {
    /// Its id, a UUID.
    #[serde(default)]
    pub id: Option<String>,
    /// SHA-256 of its file, 64 lower-case hex digits.
    #[serde(default)]
    pub sha256: Option<String>,
    /// The file's name.
    #[serde(default)]
    pub name: Option<String>,
    /// When it was uploaded.
    #[serde(rename = "createdAt", default)]
    pub created_at: Option<String>,
    /// When it was deleted; absent or `null` while it is attached.
    #[serde(rename = "deletedAt", default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<String>,
}

/// `POST /api/sync/files/missing`: a replica's attachments, to learn which files the
/// server lacks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingFilesRequest {
    /// Up to 1,000 attachments, each `{"id", "sha256"}`.
    #[serde(default)]
    pub attachments: Option<Vec<PushAttachmentRequest>>,
}

/// One revision of an entry to import, as a journal export writes it (a revision of
/// `GET /api/journal-entries/{id}/revisions`; `entryId` is not needed).
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportRevisionRequest {
    /// The revision's id, a UUID; a new one when the journal cannot keep it.
    #[serde(rename = "revisionId", default)]
    #[cfg_attr(feature = "utoipa", schema(required = true))]
    pub revision_id: Option<String>,
    /// The revision it was made from; `null` for the first.
    #[serde(rename = "parentId", default)]
    pub parent_id: Option<String>,
    /// Its number: rising through the history, from 1.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required = true))]
    pub revision: Option<i64>,
    /// Title in this state.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::title, required = true))]
    pub title: Option<String>,
    /// Body text in this state.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::content_or_null))]
    pub content: Option<String>,
    /// Visibility in this state.
    #[serde(rename = "isPublic", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub is_public: Option<bool>,
    /// Tags in this state.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::tags_or_null))]
    pub tags: Option<Vec<String>>,
    /// Starred in this state.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::false_by_default))]
    pub starred: Option<bool>,
    /// The entry's date in this state.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::entry_date_or_null))]
    pub date: Option<String>,
    /// When the change was made.
    #[serde(rename = "editedAt", default)]
    #[cfg_attr(feature = "utoipa", schema(schema_with = schema::date_time, required = true))]
    pub edited_at: Option<String>,
    /// `login`, `token`, `import` or `local`; another name reads as `local`.
    #[serde(rename = "editedVia", default)]
    pub edited_via: Option<String>,
}

impl From<&crate::model::Revision> for ImportRevisionRequest {
    /// A revision as an export writes it and an import reads it back.
    fn from(r: &crate::model::Revision) -> ImportRevisionRequest {
        ImportRevisionRequest {
            revision_id: Some(r.id.to_string()),
            parent_id: r.parent_id.map(|p| p.to_string()),
            revision: Some(r.revision.into()),
            title: Some(r.title.clone()),
            content: Some(r.content.clone()),
            is_public: Some(r.is_public),
            tags: Some(r.tags.clone()),
            starred: Some(r.starred),
            date: Some(r.date.to_string()),
            edited_at: Some(r.edited_at.to_string()),
            edited_via: Some(r.edited_via.as_str().to_owned()),
        }
    }
}

impl From<&ImportRevisionRequest> for CreateEntryRequest {
    /// The state a revision holds, validated as a new entry's.
    fn from(r: &ImportRevisionRequest) -> CreateEntryRequest {
        CreateEntryRequest {
            title: r.title.clone(),
            content: r.content.clone(),
            is_public: r.is_public,
            tags: r.tags.clone(),
            starred: r.starred,
            date: r.date.clone(),
        }
    }
}

impl ImportEntryRequest {
    /// The entry `request` describes, to import with its original creation (and last
    /// change) time: the inverse of `From<&ImportEntryRequest> for CreateEntryRequest`.
    pub fn with_times(
        request: CreateEntryRequest,
        created_at: Option<String>,
        updated_at: Option<String>,
    ) -> ImportEntryRequest {
        let CreateEntryRequest {
            title,
            content,
            is_public,
            tags,
            starred,
            date,
        } = request;
        ImportEntryRequest {
            id: None,
            title,
            content,
            is_public,
            created_at,
            updated_at,
            tags,
            starred,
            date,
            revisions: None,
            deleted_at: None,
        }
    }
}

impl From<&ImportEntryRequest> for CreateEntryRequest {
    /// The entry an import holds, without its original dates: validated as a new entry.
    fn from(e: &ImportEntryRequest) -> CreateEntryRequest {
        CreateEntryRequest {
            title: e.title.clone(),
            content: e.content.clone(),
            is_public: e.is_public,
            tags: e.tags.clone(),
            starred: e.starred,
            date: e.date.clone(),
        }
    }
}

/// The entries of an import, as an OpenAPI schema: the import's own rules (at least
/// one, at most [`MAX_IMPORT_BATCH`]) around each entry's.
#[cfg(feature = "utoipa")]
fn import_entries_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::PartialSchema as _;
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(ImportEntryRequest::schema())
        .min_items(Some(1))
        .max_items(Some(MAX_IMPORT_BATCH))
        .build()
        .into()
}

/// Reply to an import: the entries created, in the order sent, and how many were
/// skipped because the journal has them already.
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImportEntriesResponse {
    /// The new entries.
    pub entries: Vec<crate::model::Entry>,
    /// How many entries were created (the length of `entries`).
    #[serde(default)]
    pub imported: usize,
    /// How many entries of an export's trash went to the trash (they are not in
    /// `entries`).
    #[serde(default)]
    pub trashed: usize,
    /// How many were there already (the same id, or the same title, text and date to
    /// the minute) and were left as they were.
    #[serde(default)]
    pub skipped: usize,
    /// What the file held that was left out (media, tags that are no tags here), one
    /// sentence per kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How many files of a `.zip` archive were stored as attachments (archives only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<usize>,
}

fn tags(value: &Option<Vec<String>>) -> Result<Option<Tags>, ValidationError> {
    value.as_deref().map(Tags::parse).transpose()
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
            revision: 1,
            revision_id: crate::domain::RevisionId::generate(),
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
