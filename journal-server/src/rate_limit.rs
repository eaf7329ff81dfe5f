//! Fixed-window limits on authentication: attempts per client address (login and
//! register), and failed logins per account (credential stuffing from many addresses).

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher as _;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Allows `limit` attempts per address per `window`.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window: Duration,
    windows: Mutex<HashMap<IpAddr, Window>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    start: Instant,
    count: u32,
}

/// Above this many tracked addresses, expired windows are dropped.
const PRUNE_ABOVE: usize = 1024;

impl RateLimiter {
    /// `limit` attempts per address per `window`; `limit` must be at least 1.
    pub fn new(limit: u32, window: Duration) -> RateLimiter {
        RateLimiter {
            limit: limit.max(1),
            window,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts an attempt from `ip`. `Err(seconds)` when over the limit: the whole
    /// seconds until the address may try again (at least 1).
    pub fn check(&self, ip: IpAddr) -> Result<(), u64> {
        self.check_at(ip, Instant::now())
    }

    fn check_at(&self, ip: IpAddr, now: Instant) -> Result<(), u64> {
        // A poisoned lock only means another request panicked mid-update; the counts
        // are still usable.
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if windows.len() > PRUNE_ABOVE {
            let window = self.window;
            windows.retain(|_, w| now.duration_since(w.start) < window);
        }
        let entry = windows.entry(ip).or_insert(Window {
            start: now,
            count: 0,
        });
        if now.duration_since(entry.start) >= self.window {
            *entry = Window {
                start: now,
                count: 0,
            };
        }
        if entry.count >= self.limit {
            let left = self.window.saturating_sub(now.duration_since(entry.start));
            let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            return Err(seconds.max(1));
        }
        entry.count += 1;
        Ok(())
    }
}

/// Failed logins per account, counted by the e-mail address as typed (trimmed and
/// lower-cased, as the core looks it up), whether or not such an account exists: after
/// `limit` attempts that did not succeed within `window`, further logins for that address
/// get 429 until the window has passed. A success clears the count, so the owner who
/// mistyped a few times is not held back; the owner locked out by someone else's
/// guessing waits at most one window: there is no permanent lockout.
///
/// An attempt is counted when it starts (before the password is checked), so a burst of
/// concurrent guesses cannot all slip in under the limit; it is refunded when the login
/// fails for another reason than the credentials (a missing field, the database down).
#[derive(Debug)]
pub struct LoginThrottle {
    limit: u32,
    window: Duration,
    /// Keyed SipHash of the address: fixed-size keys, and nobody can choose addresses
    /// that collide.
    keys: RandomState,
    accounts: Mutex<Accounts>,
}

#[derive(Debug)]
struct Accounts {
    windows: HashMap<u64, Window>,
    /// Expired windows are dropped when the map reaches this size; then it doubles, so
    /// pruning costs O(1) per attempt on average.
    prune_at: usize,
}

/// Most addresses tracked at once (about 10 MiB). When full of live windows, new
/// addresses are not throttled per account (the per-address limit still applies)
/// rather than locking out real owners.
const MAX_TRACKED_ACCOUNTS: usize = 256 * 1024;

/// An attempt counted by [`LoginThrottle::begin`]; report its outcome with
/// [`LoginThrottle::succeeded`] or [`LoginThrottle::refund`] (a failure needs nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginAttempt(Option<u64>);

impl LoginThrottle {
    /// `limit` failed logins per account per `window`; `limit` must be at least 1.
    pub fn new(limit: u32, window: Duration) -> LoginThrottle {
        LoginThrottle {
            limit: limit.max(1),
            window,
            keys: RandomState::new(),
            accounts: Mutex::new(Accounts {
                windows: HashMap::new(),
                prune_at: PRUNE_ABOVE,
            }),
        }
    }

    /// Counts a login attempt for `email`. `Err(seconds)` when the account is throttled:
    /// the whole seconds until it may try again (at least 1).
    pub fn begin(&self, email: &str) -> Result<LoginAttempt, u64> {
        self.begin_at(email, Instant::now())
    }

    fn key(&self, email: &str) -> u64 {
        self.keys.hash_one(email.trim().to_lowercase())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Accounts> {
        self.accounts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn begin_at(&self, email: &str, now: Instant) -> Result<LoginAttempt, u64> {
        let key = self.key(email);
        let window = self.window;
        let mut accounts = self.lock();
        if accounts.windows.len() >= accounts.prune_at {
            accounts
                .windows
                .retain(|_, w| now.duration_since(w.start) < window);
            accounts.prune_at = (accounts.windows.len() * 2).max(PRUNE_ABOVE);
        }
        if !accounts.windows.contains_key(&key) && accounts.windows.len() >= MAX_TRACKED_ACCOUNTS {
            tracing::warn!("login throttle full; not tracking more accounts this window");
            return Ok(LoginAttempt(None));
        }
        let entry = accounts.windows.entry(key).or_insert(Window {
            start: now,
            count: 0,
        });
        if now.duration_since(entry.start) >= window {
            *entry = Window {
                start: now,
                count: 0,
            };
        }
        if entry.count >= self.limit {
            let left = window.saturating_sub(now.duration_since(entry.start));
            let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            return Err(seconds.max(1));
        }
        entry.count += 1;
        Ok(LoginAttempt(Some(key)))
    }

    /// The attempt logged in: the account's count starts again.
    pub fn succeeded(&self, attempt: LoginAttempt) {
        if let LoginAttempt(Some(key)) = attempt {
            self.lock().windows.remove(&key);
        }
    }

    /// The attempt failed for another reason than the credentials: it does not count.
    pub fn refund(&self, attempt: LoginAttempt) {
        if let LoginAttempt(Some(key)) = attempt
            && let Some(window) = self.lock().windows.get_mut(&key)
        {
            window.count = window.count.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_is_throttled_after_the_limit_until_the_window_passes() {
        let throttle = LoginThrottle::new(2, Duration::from_secs(60));
        let t0 = Instant::now();
        assert!(throttle.begin_at("ada@example.com", t0).is_ok());
        assert!(throttle.begin_at(" ADA@example.com ", t0).is_ok());
        assert_eq!(
            throttle.begin_at("ada@example.com", t0 + Duration::from_millis(500)),
            Err(60)
        );
        assert!(throttle.begin_at("bob@example.com", t0).is_ok());
        assert!(
            throttle
                .begin_at("ada@example.com", t0 + Duration::from_secs(60))
                .is_ok()
        );
    }

    #[test]
    fn a_success_clears_the_count_and_a_refund_gives_one_back() {
        let throttle = LoginThrottle::new(2, Duration::from_secs(60));
        let t0 = Instant::now();
        let first = throttle.begin_at("ada@example.com", t0).unwrap();
        throttle.refund(first);
        throttle.begin_at("ada@example.com", t0).unwrap();
        let ok = throttle.begin_at("ada@example.com", t0).unwrap();
        throttle.succeeded(ok);
        throttle.begin_at("ada@example.com", t0).unwrap();
        throttle.begin_at("ada@example.com", t0).unwrap();
        assert!(throttle.begin_at("ada@example.com", t0).is_err());
    }

    #[test]
    fn expired_accounts_are_pruned() {
        let throttle = LoginThrottle::new(1, Duration::from_secs(1));
        let t0 = Instant::now();
        for i in 0..(PRUNE_ABOVE * 3) {
            let _ = throttle.begin_at(&format!("u{i}@example.com"), t0);
        }
        let later = t0 + Duration::from_secs(2);
        for i in 0..(PRUNE_ABOVE * 3) {
            let _ = throttle.begin_at(&format!("v{i}@example.com"), later);
        }
        assert!(throttle.lock().windows.len() <= PRUNE_ABOVE * 4);
    }

    #[test]
    fn the_limit_applies_per_address_and_resets_with_the_window() {
        let limiter = RateLimiter::new(2, Duration::from_secs(60));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        assert_eq!(limiter.check_at(a, t0), Ok(()));
        assert_eq!(limiter.check_at(a, t0), Ok(()));
        assert_eq!(
            limiter.check_at(a, t0 + Duration::from_millis(500)),
            Err(60)
        );
        assert_eq!(limiter.check_at(b, t0), Ok(()));
        assert_eq!(limiter.check_at(a, t0 + Duration::from_secs(60)), Ok(()));
    }
}
