//! The security log's part of the [`Store`](super::Store): kept apart as a supertrait
//! so that each backend implements it in a file of its own.

use async_trait::async_trait;

use crate::domain::{PageRequest, Timestamp, UserId};
use crate::error::StoreResult;
use crate::model::{Page, SecurityEvent};

/// A security event as stored: whose it is, and the event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecurityEventRecord {
    /// The account it is about.
    pub user_id: UserId,
    /// The event.
    pub event: SecurityEvent,
}

/// How [`SecurityEventStore::record_security_event`] keeps the log bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecurityLogBounds {
    /// Events older than this are deleted (those of the user written to at once, and a
    /// bounded batch of anyone's), and never listed.
    pub prune_before: Timestamp,
    /// Most events kept per user: past it, the user's oldest go.
    pub max_per_user: u32,
    /// When set, the event is added to the user's newest event of the same kind and
    /// detail whose `first_at` is at or after this time, if there is one (its `count`
    /// grows, its `at` and `address` become the new event's), instead of being a row of
    /// its own. A stranger repeating an event (throttled logins) makes one row per
    /// period, not one per attempt.
    pub coalesce_since: Option<Timestamp>,
}

/// Most old events of anyone's one write deletes: pruning on write stays bounded, and
/// a steady trickle of writes clears the backlog of accounts that no longer log in.
pub const PRUNE_BATCH: u32 = 100;

/// Persistence for the security log. Every [`Store`](super::Store) implements it.
#[async_trait]
pub trait SecurityEventStore: Send + Sync + 'static {
    /// Keeps an event within `bounds` (see [`SecurityLogBounds`]), in one transaction.
    async fn record_security_event(
        &self,
        record: &SecurityEventRecord,
        bounds: &SecurityLogBounds,
    ) -> StoreResult<()>;

    /// A user's events at or after `since`, newest `at` first (then the newest
    /// written); the total counts them all.
    async fn security_events(
        &self,
        user: &UserId,
        since: Timestamp,
        page: PageRequest,
    ) -> StoreResult<Page<SecurityEvent>>;
}
