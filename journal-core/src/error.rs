//! Errors of the core, one enum per layer.

use std::fmt;

/// A value that does not meet its rule. `field` is the wire name (`email`, `title`, …)
/// and `message` says what to change.
///
/// Shown as `field: message`, except for a file to import (`file`), whose messages
/// start with the file's name already ("the file: journal.json: entry 3: …").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The field, by its wire name.
    pub field: &'static str,
    /// What is wrong and what to do, in words a person can act on.
    pub message: String,
}

impl std::error::Error for ValidationError {}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field == ValidationError::FILE {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl ValidationError {
    /// The field of a file to import that cannot be read.
    pub const FILE: &'static str = "file";

    /// A validation error on `field`.
    pub fn new(field: &'static str, message: impl Into<String>) -> ValidationError {
        ValidationError {
            field,
            message: message.into(),
        }
    }
}

/// Why a token was refused. The message tells the client what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRejection {
    /// No token was presented.
    Missing,
    /// Not a well-formed JWT, signed with another key or algorithm, or without the
    /// claims we issue.
    Invalid,
    /// Past its `exp`.
    Expired,
    /// Issued in the future (or `nbf` not reached).
    NotYetValid,
    /// Revoked by logout.
    Revoked,
    /// Issued before the account's password was last changed (or before its owner signed
    /// out everywhere).
    Superseded,
    /// The account no longer exists.
    UnknownUser,
    /// An administrator disabled the account.
    Disabled,
    /// A personal access token past its expiry.
    AccessTokenExpired,
    /// A web session's refresh token that ends nothing more: unknown, ended (signed
    /// out, a password change, its time limit), or used a second time.
    SessionEnded,
}

impl fmt::Display for TokenRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TokenRejection::Missing => {
                "missing token; send Authorization: Bearer <token> from login"
            }
            TokenRejection::Invalid => "invalid token; log in again to get a new one",
            TokenRejection::Expired => "the token has expired; log in again",
            TokenRejection::NotYetValid => {
                "the token is not valid yet; check the clocks and log in again"
            }
            TokenRejection::Revoked => "the token was revoked by logout; log in again",
            TokenRejection::Superseded => {
                "the password was changed, or the account signed out everywhere, after this token \
                 was issued; log in again"
            }
            TokenRejection::UnknownUser => "the account of this token no longer exists",
            TokenRejection::Disabled => "this account is disabled; ask the server's administrator",
            TokenRejection::AccessTokenExpired => {
                "this access token has expired; make a new one (POST /api/user/tokens)"
            }
            TokenRejection::SessionEnded => "this session has ended; sign in again",
        })
    }
}

/// A failure of a storage backend.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The write would break a rule the database keeps; which one says what conflicted.
    /// Backends map their constraints' names to it (see their `errors.rs`).
    #[error("conflict: {0}")]
    Conflict(Conflict),
    /// The database cannot be reached or is not writable right now (full disk, read-only
    /// file, connection refused). Retrying later may succeed.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Anything else: a bug, a corrupt file, an unexpected answer.
    #[error("database error: {0}")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The database setting cannot work as given (an unknown URL scheme, a file in a
    /// folder that does not exist): retrying will not help; the operator must change it.
    #[error("{0}")]
    Config(String),
}

impl StoreError {
    /// A configuration error from any message or error.
    pub fn config(e: impl fmt::Display) -> StoreError {
        StoreError::Config(e.to_string())
    }

    /// An internal error from any error value.
    pub fn internal(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
        StoreError::Internal(e.into())
    }

    /// An unavailability error from any error value.
    pub fn unavailable(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
        StoreError::Unavailable(e.into())
    }
}

/// What a refused write conflicted with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    /// Another account has the e-mail address.
    #[error("the e-mail address is taken")]
    EmailTaken,
    /// The entry's author no longer exists (deleted between the caller's check and the
    /// write).
    #[error("the entry's author is gone")]
    AuthorGone,
    /// The change would leave no administrator whose account works. Not a constraint
    /// of the schema: every backend checks it in the same transaction as the change,
    /// so two administrators disabling each other at once cannot both succeed.
    #[error("it would leave no working administrator")]
    LastAdmin,
}

/// Result of a store call.
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// Everything a core operation can fail with. Front ends map each variant once:
/// HTTP status codes in the server, exit codes in the CLI.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input (HTTP 400).
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// Login with an unknown e-mail or a wrong password (HTTP 401). The two cases are
    /// deliberately indistinguishable.
    #[error("Invalid credentials.")]
    InvalidCredentials,
    /// The current password given to a password change is wrong (HTTP 401).
    #[error("the current password is wrong")]
    WrongPassword,
    /// The password was right, and the account has a second factor: the login must
    /// also send a code (HTTP 401).
    #[error(
        "Two-factor code required: send \"totp\" with a code from your authenticator app, or a recovery code."
    )]
    SecondFactorRequired,
    /// The second-factor code was wrong, or already used (HTTP 401).
    #[error("Invalid two-factor code.")]
    InvalidSecondFactor,
    /// A step that could take the account over (turning the second factor on, making an
    /// access token, changing the password or e-mail, deleting the account) needs the
    /// current password, or a sign-in within the last few minutes (HTTP 403: the token
    /// itself is good, so the client must not forget it).
    #[error("{0}")]
    RecentLoginRequired(String),
    /// No usable token (HTTP 401).
    #[error("{0}")]
    Unauthenticated(TokenRejection),
    /// The caller may see the thing but not do this to it (HTTP 403).
    #[error("{0}")]
    Forbidden(String),
    /// Does not exist, or the caller may not know that it exists (HTTP 404).
    #[error("{kind} not found")]
    NotFound {
        /// `user` or `entry`.
        kind: &'static str,
    },
    /// Would break a uniqueness rule (HTTP 409).
    #[error("{0}")]
    Conflict(String),
    /// The entry changed since the revision the caller named (`If-Match`); nothing was
    /// changed (HTTP 412).
    #[error(
        "the entry changed since the revision you edited (it is at revision {revision}); \
         nothing was changed: merge your edit with the current text and send it again"
    )]
    Stale {
        /// The entry's current revision number.
        revision: u32,
        /// The entry's current revision id (its `ETag`), as text.
        revision_id: String,
    },
    /// An upload past the size allowed for one file (HTTP 413).
    #[error("{0}")]
    TooLarge(String),
    /// An upload past the space the account may use (HTTP 507).
    #[error("{0}")]
    OverQuota(String),
    /// An upload of a type not accepted, as its bytes say (HTTP 415).
    #[error("{0}")]
    UnsupportedType(String),
    /// This server keeps no attachments: its operator set no place for them (HTTP 503).
    #[error(
        "this server keeps no attachments: its operator has not given it a place for them \
         (--attachments)"
    )]
    AttachmentsOff,
    /// The database cannot serve the request now (HTTP 503).
    #[error("the database is unavailable; try again later")]
    Unavailable(#[source] StoreError),
    /// The store of attachment files (a folder, a bucket) cannot serve the request now
    /// (HTTP 503); entries without files keep working.
    #[error("the store of attachment files is unavailable; try again later")]
    FilesUnavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The database setting cannot work as given: a start-up error for the operator
    /// (exit code 2), never a client's.
    #[error("{0}")]
    Config(String),
    /// A bug or an unexpected failure (HTTP 500). The cause is for logs, not for clients.
    #[error("internal error")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl Error {
    pub(crate) fn internal(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error::Internal(e.into())
    }
}

/// The identifier of something that was not found because it does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} not found")]
pub struct UnknownId {
    /// `user` or `entry`.
    pub kind: &'static str,
}

impl From<UnknownId> for Error {
    fn from(e: UnknownId) -> Error {
        Error::NotFound { kind: e.kind }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        match e {
            StoreError::Unavailable(_) => Error::Unavailable(e),
            // The author was deleted between the caller's check and the write.
            StoreError::Conflict(Conflict::AuthorGone) => {
                Error::Unauthenticated(TokenRejection::UnknownUser)
            }
            StoreError::Conflict(Conflict::LastAdmin) => Error::Conflict(
                "that would leave the server without an administrator who can sign in; make another administrator first"
                    .into(),
            ),
            // A taken e-mail is answered by the operations that can meet one.
            StoreError::Conflict(conflict @ Conflict::EmailTaken) => {
                Error::Internal(format!("unexpected conflict: {conflict}").into())
            }
            StoreError::Internal(inner) => Error::Internal(inner),
            StoreError::Config(why) => Error::Config(why),
        }
    }
}

/// Result of a core operation.
pub type Result<T> = std::result::Result<T, Error>;
