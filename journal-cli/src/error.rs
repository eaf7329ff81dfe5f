//! The CLI's one error type, mapped once to exit codes and one line on stderr.

use std::fmt;

/// Exit codes of `journal`.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// Anything not covered below (conflicts, aborted edits, I/O, server errors).
    pub const OTHER: i32 = 1;
    /// Bad command line or invalid input.
    pub const USAGE: i32 = 2;
    /// The entry or user does not exist, or is not yours to change.
    pub const NOT_FOUND: i32 = 3;
    /// Not logged in, a refused token, a wrong password.
    pub const AUTH: i32 = 4;
    /// The server cannot be reached.
    pub const CONNECTION: i32 = 5;
}

/// Everything a `journal` command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad arguments, or a command that does not fit the mode.
    #[error("{0}")]
    Usage(String),
    /// Input the journal refuses (a field that breaks a rule).
    #[error("{0}")]
    Invalid(String),
    /// Does not exist (or is not visible to the caller).
    #[error("{0}")]
    NotFound(String),
    /// Visible but not the caller's to change.
    #[error("{0}")]
    Forbidden(String),
    /// Not logged in, a refused token, or a wrong password.
    #[error("{0}")]
    Auth(String),
    /// The server cannot be reached.
    #[error("cannot reach {url}: {reason}")]
    Connection {
        /// The server's base URL.
        url: String,
        /// What failed and what to try, in a few words.
        reason: String,
    },
    /// A uniqueness rule (an e-mail address that is taken).
    #[error("{0}")]
    Conflict(String),
    /// The user stopped the command (empty editor buffer, declined confirmation).
    #[error("{0}")]
    Aborted(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// Result of a CLI operation.
pub type Result<T> = std::result::Result<T, CliError>;

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Invalid(_) => exit::USAGE,
            CliError::NotFound(_) | CliError::Forbidden(_) => exit::NOT_FOUND,
            CliError::Auth(_) => exit::AUTH,
            CliError::Connection { .. } => exit::CONNECTION,
            CliError::Conflict(_) | CliError::Aborted(_) | CliError::Other(_) => exit::OTHER,
        }
    }

    /// An error from any displayable cause, with context.
    pub fn other(context: impl fmt::Display, cause: impl fmt::Display) -> CliError {
        CliError::Other(format!("{context}: {cause}"))
    }

    /// The same error with `note` added to its message (kind and exit code unchanged).
    pub fn with_note(self, note: impl fmt::Display) -> CliError {
        match self {
            CliError::Usage(m) => CliError::Usage(format!("{m}; {note}")),
            CliError::Invalid(m) => CliError::Invalid(format!("{m}; {note}")),
            CliError::NotFound(m) => CliError::NotFound(format!("{m}; {note}")),
            CliError::Forbidden(m) => CliError::Forbidden(format!("{m}; {note}")),
            CliError::Auth(m) => CliError::Auth(format!("{m}; {note}")),
            CliError::Connection { url, reason } => CliError::Connection {
                url,
                reason: format!("{reason}; {note}"),
            },
            CliError::Conflict(m) => CliError::Conflict(format!("{m}; {note}")),
            CliError::Aborted(m) => CliError::Aborted(format!("{m}; {note}")),
            CliError::Other(m) => CliError::Other(format!("{m}; {note}")),
        }
    }

    /// Names the entry in a not-found or forbidden error about it.
    pub fn about_entry(self, id: &str) -> CliError {
        match self {
            CliError::NotFound(_) => CliError::NotFound(format!("entry {id} not found")),
            CliError::Forbidden(msg) => CliError::Forbidden(format!("entry {id}: {msg}")),
            other => other,
        }
    }

    /// Names the user in a not-found error about them.
    pub fn about_user(self, who: &str) -> CliError {
        match self {
            CliError::NotFound(_) => CliError::NotFound(format!("user {who} not found")),
            other => other,
        }
    }
}

/// The whole cause chain of an error on one line.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text.replace('\n', " ")
}

impl From<journal_core::Error> for CliError {
    fn from(e: journal_core::Error) -> CliError {
        use journal_core::Error as E;
        match e {
            E::Validation(v) => CliError::Invalid(v.to_string()),
            E::InvalidCredentials => {
                CliError::Auth("wrong e-mail or password; check them and try again".into())
            }
            E::WrongPassword => CliError::Auth("the current password is wrong".into()),
            E::SecondFactorRequired => {
                CliError::Auth("this account needs a two-factor code; pass --totp CODE with a code from your authenticator app (or a recovery code)".into())
            }
            E::InvalidSecondFactor => {
                CliError::Auth("the two-factor code is wrong or already used".into())
            }
            E::Unauthenticated(r) => CliError::Auth(format!("{r}; run journal login")),
            E::Forbidden(m) | E::RecentLoginRequired(m) => CliError::Forbidden(m),
            E::NotFound { kind } => CliError::NotFound(format!("{kind} not found")),
            E::Conflict(m) => CliError::Conflict(m),
            stale @ E::Stale { .. } => CliError::Conflict(stale.to_string()),
            E::Unavailable(cause) => CliError::Other(format!(
                "the database is unavailable ({}); try again later",
                chain(&cause)
            )),
            E::FilesUnavailable(cause) => CliError::Other(format!(
                "the store of attachment files is unavailable ({}); try again later",
                chain(&*cause)
            )),
            E::Internal(cause) => CliError::Other(format!("internal error: {}", chain(&*cause))),
            E::Config(why) => CliError::Usage(format!("--database: {why}")),
            E::TooLarge(m) | E::UnsupportedType(m) => CliError::Invalid(m),
            E::OverQuota(m) => CliError::Other(m),
            off @ E::AttachmentsOff => CliError::Other(off.to_string()),
        }
    }
}

impl From<journal_core::sync_book::SyncBookError> for CliError {
    fn from(e: journal_core::sync_book::SyncBookError) -> CliError {
        CliError::Other(e.to_string())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError::Other(e.to_string())
    }
}
