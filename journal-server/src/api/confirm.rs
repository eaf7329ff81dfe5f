//! Confirming the owner: a password or code checked under the per-account throttle,
//! at the login form and in the signed-in steps that ask for one again.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::{Caller, Journal};
use warp::Rejection;

use super::security_log::{Checked, note_if_throttled};
use crate::error::{ApiError, reject};
use crate::rate_limit::{Account, LoginThrottle};

/// Runs a password check (`check`) under the per-account throttle: 429 when the
/// account is throttled for this client; the outcome counted as the throttle needs: a
/// wrong password or code stays counted, a success clears the count, anything else is
/// refunded.
pub(crate) async fn throttled<T>(
    throttle: Option<Arc<LoginThrottle>>,
    account: Option<Account<'_>>,
    client: Option<SocketAddr>,
    check: impl std::future::Future<Output = journal_core::Result<T>>,
) -> Result<T, Rejection> {
    let attempt = match (&throttle, account) {
        (Some(throttle), Some(account)) => Some(
            throttle
                .begin(account, client.map(|a| a.ip()))
                .map_err(|seconds| reject(ApiError::account_throttled(seconds)))?,
        ),
        _ => None,
    };
    let result = check.await;
    if let (Some(throttle), Some(attempt)) = (&throttle, attempt) {
        match &result {
            Ok(_) => throttle.succeeded(attempt),
            Err(journal_core::Error::InvalidCredentials | journal_core::Error::WrongPassword) => {
                throttle.failed(attempt)
            }
            Err(journal_core::Error::InvalidSecondFactor) => throttle.failed_code(attempt),
            Err(_) => throttle.refund(attempt),
        }
    }
    result.map_err(reject)
}

/// Runs `step` of a signed-in caller that checks a password or code from the body
/// (`sent`: whether the body has a password, and a code) under the per-account
/// throttle, by the caller's own address: a stolen token guesses from the same count as
/// a stranger at the login form. A step sent neither checks nothing a guess could find,
/// and is not counted.
pub(crate) async fn confirmed<T>(
    journal: &Journal,
    throttle: Option<Arc<LoginThrottle>>,
    caller: &Caller,
    client: Option<SocketAddr>,
    (password, code): (bool, bool),
    step: impl std::future::Future<Output = journal_core::Result<T>>,
) -> Result<T, Rejection> {
    if throttle.is_none() || !(password || code) {
        return step.await.map_err(reject);
    }
    let email = journal.profile(caller).await.map_err(reject)?.email;
    throttled(throttle, Some(Account::new(&email, code)), client, step)
        .await
        .inspect_err(|r| {
            let checked = Checked::Password(*caller.user_id());
            note_if_throttled(journal, r, checked, client);
        })
}
