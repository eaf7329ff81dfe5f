//! Database URLs: which store a URL names, parsed once for every front end.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The database a URL (or a bare path) names.
///
/// Accepted forms:
///
/// - `sqlite:PATH`, `sqlite://PATH` or a bare `PATH`: a SQLite file;
/// - `sqlite::memory:` or `:memory:`: an in-memory SQLite database;
/// - `postgres://…` or `postgresql://…`: a PostgreSQL database (opening one needs the
///   `postgres` feature; parsing does not).
///
/// Surrounding whitespace is ignored. [`Display`](fmt::Display) shows the URL with any
/// password replaced by `***`, so a `DatabaseUrl` is safe to put in messages and logs;
/// [`DatabaseUrl::url`] gives the complete URL to open.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite database file (created when opened if missing).
    SqliteFile(PathBuf),
    /// An in-memory SQLite database, gone when closed.
    SqliteMemory,
    /// A PostgreSQL connection URL, as given.
    Postgres(String),
}

/// Why a database URL was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DatabaseUrlError {
    /// The URL is empty, or `sqlite:` with no path after it.
    #[error("the database URL names no file; use sqlite:PATH or sqlite::memory:")]
    NoFile,
    /// A URL scheme no store speaks (`mysql://…`).
    #[error(
        "{scheme}:// is not a database this journal can use; use sqlite:PATH, sqlite::memory: or postgres://…"
    )]
    UnsupportedScheme {
        /// The scheme given.
        scheme: String,
    },
}

impl DatabaseUrl {
    /// Parses a database URL or bare path (see the accepted forms on [`DatabaseUrl`]).
    pub fn parse(s: &str) -> Result<DatabaseUrl, DatabaseUrlError> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(DatabaseUrl::Postgres(s.to_owned()));
        }
        let path = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
            .unwrap_or(s);
        // `name://` is a URL, not a file name, unless it is one of ours.
        if let Some((scheme, _)) = s.split_once("://") {
            let is_scheme = !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            if is_scheme && scheme != "sqlite" {
                return Err(DatabaseUrlError::UnsupportedScheme {
                    scheme: scheme.to_owned(),
                });
            }
        }
        match path {
            "" => Err(DatabaseUrlError::NoFile),
            ":memory:" => Ok(DatabaseUrl::SqliteMemory),
            file => Ok(DatabaseUrl::SqliteFile(PathBuf::from(file))),
        }
    }

    /// The complete URL, password included: `sqlite:PATH`, `sqlite::memory:`, or the
    /// PostgreSQL URL as given. For opening only; show [`DatabaseUrl::redacted`].
    pub fn url(&self) -> String {
        match self {
            DatabaseUrl::SqliteFile(path) => format!("sqlite:{}", path.display()),
            DatabaseUrl::SqliteMemory => "sqlite::memory:".to_owned(),
            DatabaseUrl::Postgres(url) => url.clone(),
        }
    }

    /// The URL with any password replaced by `***`, for messages and logs.
    pub fn redacted(&self) -> String {
        match self {
            DatabaseUrl::Postgres(url) => super::redact_url(url),
            other => other.url(),
        }
    }

    /// True for a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self, DatabaseUrl::Postgres(_))
    }

    /// The file of a SQLite file database; `None` for memory and PostgreSQL.
    pub fn sqlite_path(&self) -> Option<&Path> {
        match self {
            DatabaseUrl::SqliteFile(path) => Some(path),
            _ => None,
        }
    }
}

impl FromStr for DatabaseUrl {
    type Err = DatabaseUrlError;

    fn from_str(s: &str) -> Result<DatabaseUrl, DatabaseUrlError> {
        DatabaseUrl::parse(s)
    }
}

/// Shows the redacted URL: never a password.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

/// Like `Display`: never a password.
impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({})", self.redacted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> DatabaseUrl {
        DatabaseUrl::SqliteFile(PathBuf::from(path))
    }

    #[test]
    fn sqlite_files_in_every_form() {
        assert_eq!(
            DatabaseUrl::parse("sqlite:journal.db"),
            Ok(file("journal.db"))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:/srv/journal.db"),
            Ok(file("/srv/journal.db"))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///srv/journal.db"),
            Ok(file("/srv/journal.db"))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite://journal.db"),
            Ok(file("journal.db"))
        );
        assert_eq!(
            DatabaseUrl::parse("/srv/journal.db"),
            Ok(file("/srv/journal.db"))
        );
        assert_eq!(DatabaseUrl::parse("journal.db"), Ok(file("journal.db")));
        assert_eq!(
            DatabaseUrl::parse("  sqlite:journal.db\n"),
            Ok(file("journal.db"))
        );
        let url = DatabaseUrl::parse("/srv/journal.db").unwrap();
        assert_eq!(url.url(), "sqlite:/srv/journal.db");
        assert_eq!(url.sqlite_path(), Some(Path::new("/srv/journal.db")));
        assert!(!url.is_postgres());
    }

    #[test]
    fn memory_in_both_forms() {
        assert_eq!(
            DatabaseUrl::parse("sqlite::memory:"),
            Ok(DatabaseUrl::SqliteMemory)
        );
        assert_eq!(
            DatabaseUrl::parse(":memory:"),
            Ok(DatabaseUrl::SqliteMemory)
        );
        assert_eq!(DatabaseUrl::SqliteMemory.url(), "sqlite::memory:");
        assert_eq!(DatabaseUrl::SqliteMemory.sqlite_path(), None);
    }

    #[test]
    fn postgres_in_both_schemes_kept_as_given() {
        for given in [
            "postgres://journal@db/journal",
            "postgresql://journal:secret@db:5432/journal?sslmode=require",
        ] {
            let url = DatabaseUrl::parse(given).unwrap();
            assert_eq!(url, DatabaseUrl::Postgres(given.to_owned()));
            assert!(url.is_postgres());
            assert_eq!(url.url(), given);
            assert_eq!(url.sqlite_path(), None);
        }
    }

    #[test]
    fn the_password_is_never_shown() {
        let url: DatabaseUrl = "postgres://me:hunter22@db:5432/journal".parse().unwrap();
        assert_eq!(url.redacted(), "postgres://me:***@db:5432/journal");
        assert_eq!(url.to_string(), "postgres://me:***@db:5432/journal");
        assert!(!format!("{url:?}").contains("hunter22"));
        assert_eq!(url.url(), "postgres://me:hunter22@db:5432/journal");
        assert_eq!(file("journal.db").to_string(), "sqlite:journal.db");
    }

    #[test]
    fn an_empty_url_names_nothing() {
        for empty in ["", "   ", "sqlite:", "sqlite://"] {
            assert_eq!(
                DatabaseUrl::parse(empty),
                Err(DatabaseUrlError::NoFile),
                "{empty:?}"
            );
        }
    }
}
