//! How long one request's database work may run, by who asks: a front end runs each
//! request inside [`scope`] with the limits of its classes, and the stores stop a
//! statement that runs past the limit of the current class (SQLite interrupts it,
//! PostgreSQL is sent a cancel), or whose request was dropped (past its deadline, or
//! its client gone), so no work outlives the answer it was for.
//!
//! A request starts anonymous; [`Journal::authenticate`](crate::Journal::authenticate)
//! raises it to signed in once a token checks out, so a made-up `Authorization` header
//! does not buy an anonymous request the longer limit. Outside any scope (the CLI on a
//! local database, background work) the stores keep their own limits.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The limits of one request's statements.
#[derive(Debug)]
pub struct QueryBudget {
    anonymous: Duration,
    signed_in: Duration,
    is_signed_in: AtomicBool,
}

impl QueryBudget {
    /// A request's budget, anonymous until the core signs a caller in within its scope.
    pub fn new(anonymous: Duration, signed_in: Duration) -> Arc<QueryBudget> {
        Arc::new(QueryBudget {
            anonymous,
            signed_in,
            is_signed_in: AtomicBool::new(false),
        })
    }

    fn limit(&self) -> Duration {
        if self.is_signed_in.load(Ordering::Relaxed) {
            self.signed_in
        } else {
            self.anonymous
        }
    }
}

tokio::task_local! {
    static BUDGET: Arc<QueryBudget>;
}

/// Runs `request` with `budget` for its statements.
pub fn scope<F: Future>(budget: Arc<QueryBudget>, request: F) -> impl Future<Output = F::Output> {
    BUDGET.scope(budget, request)
}

/// Marks the current request as signed in.
pub(crate) fn signed_in() {
    let _ = BUDGET.try_with(|b| b.is_signed_in.store(true, Ordering::Relaxed));
}

/// The longest a statement of the current request may run, if it runs in a scope.
pub(crate) fn limit() -> Option<Duration> {
    BUDGET.try_with(|b| b.limit()).ok()
}

/// The current request's limit, or `default` outside any request; never more than
/// `default`, which is the store's own ceiling.
pub(crate) fn limit_or(default: Duration) -> Duration {
    limit().map_or(default, |l| l.min(default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_anonymous_until_signed_in_and_outside_a_scope_has_no_limit() {
        assert_eq!(limit(), None);
        let budget = QueryBudget::new(Duration::from_millis(10), Duration::from_millis(30));
        scope(budget, async {
            assert_eq!(limit(), Some(Duration::from_millis(10)));
            signed_in();
            assert_eq!(limit(), Some(Duration::from_millis(30)));
            assert_eq!(
                limit_or(Duration::from_millis(20)),
                Duration::from_millis(20)
            );
        })
        .await;
    }
}
