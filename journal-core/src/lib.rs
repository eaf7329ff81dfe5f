//! # journal-core
//!
//! The journaling service as a library: accounts, journal entries, and every rule about
//! them (validation, ownership, visibility, password hashing with argon2id, HS256 tokens),
//! over a storage trait with a SQLite store built in and a PostgreSQL store behind the
//! `postgres` feature. `journal-server` and the `journal` CLI are thin front ends over it.
//!
//! ```no_run
//! use journal_core::api::{CreateEntryRequest, LoginRequest, RegisterRequest};
//! use journal_core::{Journal, JournalOptions, PageRequest};
//!
//! # async fn demo() -> journal_core::Result<()> {
//! let journal = Journal::open("sqlite:journal.db", JournalOptions::default()).await?;
//!
//! journal
//!     .register(&RegisterRequest {
//!         full_name: Some("Ada Lovelace".into()),
//!         nickname: Some("ada".into()),
//!         email: Some("ada@example.com".into()),
//!         password: Some("analytical engine".into()),
//!         ..Default::default()
//!     })
//!     .await?;
//! let token = journal
//!     .login(&LoginRequest {
//!         email: Some("ada@example.com".into()),
//!         password: Some("analytical engine".into()),
//!         ..Default::default()
//!     })
//!     .await?;
//!
//! let ada = journal.authenticate(&token).await?;
//! journal
//!     .create_entry(
//!         &ada,
//!         &CreateEntryRequest {
//!             title: Some("Notes on the engine".into()),
//!             content: Some("It weaves algebraic patterns.".into()),
//!             is_public: Some(true),
//!             tags: Some(vec!["math".into()]),
//!             ..Default::default()
//!         },
//!     )
//!     .await?;
//!
//! let found = journal.search(&ada, "algebra", PageRequest::default()).await?;
//! assert_eq!(found.total, 1);
//! # Ok(())
//! # }
//! ```
//!
//! Errors come as one enum, [`Error`]; front ends map each variant once (the server to
//! HTTP status codes, the CLI to exit codes).

#![warn(missing_docs)]

pub mod api;
pub mod attachments;
mod auth;
pub mod budget;
pub mod cache;
mod common_passwords;
pub mod diff;
pub mod domain;
pub mod error;
pub mod filter;
pub mod input;
mod journal;
pub mod metrics;
pub mod model;
mod secrets;
pub mod store;
pub mod sync_book;
pub mod sync_client;
pub mod totp;
pub mod transfer;

pub use auth::{JwtSecret, MIN_SECRET_BYTES, TokenClaims};
pub use domain::{
    AccessTokenId, AttachmentId, Cursor, EntryId, PageRequest, Resolution, RevisionId, Role, Tag,
    Timestamp, UserId, Zone,
};
pub use error::{Error, Result, StoreError, TokenRejection, ValidationError};
pub use filter::{EntryFilter, FilterParams, TagCount};
pub use journal::{
    ArchiveReport, AttachmentBody, AttachmentOptions, AttachmentPlace, AttachmentUsage,
    CHANGES_PAGE_DEFAULT, CHANGES_PAGE_MAX, COLLECT_SPARES, Caller, ClientInfo, Collected,
    DEFAULT_MAX_ATTACHMENT, DEFAULT_SESSION_MAX, DEFAULT_TOKEN_TTL, FilesApplied, ImportReport,
    ImportedEntry, Journal, JournalOptions, LINK_MINUTES, MAX_IMPORT_BATCH, MAX_PHOTO_BYTES,
    MAX_SECURITY_EVENTS, PUSH_CHANGES_MAX, PUSH_REVISIONS_MAX, RECENT_LOGIN_MINUTES, Reader,
    Registration, SECURITY_LOG_DAYS, SYNC_FILES_MAX, SYNC_LEASE_DAYS, SessionRefresh, TRASH_DAYS,
    ThrottledCheck, UNATTACHED_FOR, UploadRequest,
};
pub use model::{
    AccessToken, AdminUser, Attachment, COUNT_CAP, CacheCounts, ChangePage, ChangeState, Conflict,
    EditedVia, Entry, EntryChange, Invite, InviteSummary, NewAccessToken, Page, Profile,
    PublicProfile, PushOutcome, PushReply, PushResult, RecoveryCodes, Revision, SecondFactor,
    SecondFactorState, SecurityEvent, SecurityEventKind, SyncAttachment, TotpSetup, TrashedEntry,
};
