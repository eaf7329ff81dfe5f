//! Where a replica is in its account's change feed (`journal sync`).

use std::fmt;
use std::str::FromStr;

use crate::error::ValidationError;

/// Where a replica is in an account's change feed, as the server gave it: opaque to
/// the replica, which keeps it and sends it back.
///
/// - `epoch` names the database the numbers count in: a cursor of another database
///   (a copy, or one restored from a backup) is refused, and the replica starts over.
/// - `position` is the last change number the replica has applied.
/// - `start` is where the replica's current sync began. Revisions are sent from it, not
///   from `position`: an entry written again while a replica reads page after page
///   moves past the page it was on, and its earlier revisions must still reach the
///   replica with its later state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncCursor {
    epoch: String,
    start: u64,
    position: u64,
}

/// How many characters a sync epoch has: 128 random bits in hexadecimal.
pub const SYNC_EPOCH_CHARS: usize = 32;

impl SyncCursor {
    /// A cursor at `position` of a sync that began at `start`, in the database of
    /// `epoch`.
    pub fn new(epoch: &str, start: u64, position: u64) -> SyncCursor {
        SyncCursor {
            epoch: epoch.to_owned(),
            start: start.min(position),
            position,
        }
    }

    /// The database the numbers count in.
    pub fn epoch(&self) -> &str {
        &self.epoch
    }

    /// Where the replica's current sync began.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The last change number the replica has applied.
    pub fn position(&self) -> u64 {
        self.position
    }
}

impl fmt::Display for SyncCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.epoch, self.start, self.position)
    }
}

impl FromStr for SyncCursor {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<SyncCursor, ValidationError> {
        let bad = || {
            ValidationError::new(
                "since",
                "is not a cursor this server gave: send back the `cursor` of the last \
                 answer as it was, or leave `since` out to start from the beginning",
            )
        };
        let mut parts = text.split('.');
        let (Some(epoch), Some(start), Some(position), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let number = |t: &str| {
            t.parse::<u64>()
                .ok()
                .filter(|n| *n <= i64::MAX as u64 && t.len() <= 19 && !t.starts_with('+'))
        };
        let hex = epoch.len() == SYNC_EPOCH_CHARS
            && epoch
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        match (hex, number(start), number(position)) {
            // A sync never begins after where it is; such a cursor begins there.
            (true, Some(start), Some(position)) => Ok(SyncCursor::new(epoch, start, position)),
            _ => Err(bad()),
        }
    }
}
