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

/// Failed password and second-factor checks per account. An account is known by its
/// e-mail address in the one form the core stores and compares
/// ([`journal_core::domain::Email::normalize`]), so every spelling of an address
/// (upper case, full-width or mathematical letters, composed accents) counts as one
/// account; logins by the address as typed, whether or not such an account exists, and
/// the checks of a signed-in user (password change, turning the second factor off,
/// confirming a sensitive step) by the user's address, so a stolen token guesses from the
/// same count as a stranger at the login form.
///
/// Passwords: after `limit` attempts that did not succeed within `window`, the account
/// is throttled until the window has passed: a further attempt gets 429, unless it comes
/// from an address that has not failed for this account in the window. So the owner
/// logs in from their own address while someone else guesses, and guessing is bounded
/// all the same: `limit` attempts, plus [`MAX_EXTRA_TRIES`] from addresses that had not
/// failed, per account and window. Past those the throttle holds for everyone until the
/// window ends. A success clears the account's count; there is no permanent lockout.
///
/// Second-factor codes (and recovery codes) have a count of their own per account, with
/// no allowance for fresh addresses: whoever sends a code already holds the password, so
/// the owner's own address earns no exception, and at most `limit` codes are checked per
/// account and window however many addresses send them.
///
/// An attempt is counted when it starts (before anything is checked), so a burst of
/// concurrent guesses cannot all slip in under the limit; it is refunded when it fails
/// for another reason (a missing field, the database down), and its code is refunded when
/// the password was wrong, since the code was then never checked.
#[derive(Debug)]
pub struct LoginThrottle {
    limit: u32,
    window: Duration,
    /// Keyed SipHash of accounts and addresses: fixed-size keys, and nobody can choose
    /// values that collide.
    keys: RandomState,
    accounts: Mutex<Accounts>,
}

/// Tries from addresses that had not failed, allowed per account and window while it
/// is throttled.
pub const MAX_EXTRA_TRIES: u32 = 32;

/// Failing addresses remembered per account and window (more count as failing too).
const MAX_FAILING_ADDRESSES: usize = 64;

#[derive(Debug)]
struct Accounts {
    windows: HashMap<u64, AccountWindow>,
    /// Expired windows are dropped when the map reaches this size; then it doubles, so
    /// pruning costs O(1) per attempt on average.
    prune_at: usize,
}

#[derive(Debug, Clone)]
struct AccountWindow {
    start: Instant,
    count: u32,
    /// Tries allowed past the limit, from addresses that had not failed.
    extra: u32,
    /// Hashes of the addresses whose attempts failed in this window.
    failing: Vec<u64>,
}

/// Most accounts tracked at once. When full of live windows, new accounts are not
/// throttled (the per-address limit still applies) rather than locking out real owners.
const MAX_TRACKED_ACCOUNTS: usize = 256 * 1024;

/// Which account an attempt is for.
#[derive(Debug, Clone, Copy)]
pub struct Account<'a> {
    /// The account's e-mail address, in any spelling.
    pub email: &'a str,
    /// Whether the attempt carries a second-factor or recovery code to be checked.
    pub with_code: bool,
}

impl<'a> Account<'a> {
    /// An attempt for the account with this address.
    pub fn new(email: &'a str, with_code: bool) -> Account<'a> {
        Account { email, with_code }
    }
}

/// An attempt counted by [`LoginThrottle::begin`]; report its outcome with
/// [`LoginThrottle::succeeded`], [`LoginThrottle::failed`],
/// [`LoginThrottle::failed_code`] or [`LoginThrottle::refund`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginAttempt(Option<Counted>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    account: u64,
    client: Option<u64>,
    /// The account's second-factor count, when the attempt carries a code.
    code: Option<u64>,
}

impl LoginThrottle {
    /// `limit` failed attempts per account per `window`; `limit` must be at least 1.
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

    /// Counts an attempt for `account` from `client`. `Err(seconds)` when the account is
    /// throttled for this client: the whole seconds until it may try again (at least 1).
    pub fn begin(&self, account: Account<'_>, client: Option<IpAddr>) -> Result<LoginAttempt, u64> {
        self.begin_at(account, client, Instant::now())
    }

    /// The keys of an account's password and second-factor counts.
    fn keys(&self, email: &str) -> (u64, u64) {
        let canonical = journal_core::domain::Email::normalize(email);
        (
            self.keys.hash_one(("password", &canonical)),
            self.keys.hash_one(("code", &canonical)),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Accounts> {
        self.accounts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn begin_at(
        &self,
        account: Account<'_>,
        client: Option<IpAddr>,
        now: Instant,
    ) -> Result<LoginAttempt, u64> {
        let (key, code_key) = self.keys(account.email);
        let client = client.map(|ip| self.keys.hash_one(ip));
        let window = self.window;
        let retry_after = |start: Instant| {
            let left = window.saturating_sub(now.duration_since(start));
            let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            seconds.max(1)
        };
        let mut accounts = self.lock();
        if accounts.windows.len() >= accounts.prune_at {
            accounts
                .windows
                .retain(|_, w| now.duration_since(w.start) < window);
            accounts.prune_at = (accounts.windows.len() * 2).max(PRUNE_ABOVE);
        }
        let wanted = 1 + usize::from(account.with_code);
        let missing = [key, code_key][..wanted]
            .iter()
            .filter(|k| !accounts.windows.contains_key(k))
            .count();
        if missing > 0 && accounts.windows.len() + missing > MAX_TRACKED_ACCOUNTS {
            tracing::warn!("login throttle full; not tracking more accounts this window");
            return Ok(LoginAttempt(None));
        }
        let fresh = || AccountWindow {
            start: now,
            count: 0,
            extra: 0,
            failing: Vec::new(),
        };
        // The code's count first, and only looked at: nothing is counted unless both
        // counts let the attempt through.
        if account.with_code {
            let codes = accounts.windows.entry(code_key).or_insert_with(fresh);
            if now.duration_since(codes.start) >= window {
                *codes = fresh();
            }
            if codes.count >= self.limit {
                return Err(retry_after(codes.start));
            }
        }
        let entry = accounts.windows.entry(key).or_insert_with(fresh);
        if now.duration_since(entry.start) >= window {
            *entry = fresh();
        }
        if entry.count >= self.limit {
            let clean = client.is_some_and(|c| !entry.failing.contains(&c))
                && entry.failing.len() < MAX_FAILING_ADDRESSES
                && entry.extra < MAX_EXTRA_TRIES;
            if !clean {
                return Err(retry_after(entry.start));
            }
            entry.extra += 1;
        }
        entry.count += 1;
        if account.with_code
            && let Some(codes) = accounts.windows.get_mut(&code_key)
        {
            codes.count += 1;
        }
        Ok(LoginAttempt(Some(Counted {
            account: key,
            client,
            code: account.with_code.then_some(code_key),
        })))
    }

    /// The attempt succeeded: the account's counts start again.
    pub fn succeeded(&self, attempt: LoginAttempt) {
        if let LoginAttempt(Some(counted)) = attempt {
            let mut accounts = self.lock();
            accounts.windows.remove(&counted.account);
            if let Some(code) = counted.code {
                accounts.windows.remove(&code);
            }
        }
    }

    /// The password was wrong: the attempt stays counted, and its address is failing.
    /// Its code, never checked, is given back.
    pub fn failed(&self, attempt: LoginAttempt) {
        self.mark_failing(attempt);
        if let LoginAttempt(Some(Counted {
            code: Some(code), ..
        })) = attempt
        {
            self.give_back(code);
        }
    }

    /// The password was right and the second-factor code wrong: both stay counted.
    pub fn failed_code(&self, attempt: LoginAttempt) {
        self.mark_failing(attempt);
    }

    /// The attempt failed for another reason than a wrong password or code: it does
    /// not count.
    pub fn refund(&self, attempt: LoginAttempt) {
        if let LoginAttempt(Some(counted)) = attempt {
            self.give_back(counted.account);
            if let Some(code) = counted.code {
                self.give_back(code);
            }
        }
    }

    fn mark_failing(&self, attempt: LoginAttempt) {
        if let LoginAttempt(Some(Counted {
            account,
            client: Some(client),
            ..
        })) = attempt
            && let Some(window) = self.lock().windows.get_mut(&account)
            && !window.failing.contains(&client)
            && window.failing.len() < MAX_FAILING_ADDRESSES
        {
            window.failing.push(client);
        }
    }

    fn give_back(&self, key: u64) {
        if let Some(window) = self.lock().windows.get_mut(&key) {
            window.count = window.count.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> Account<'static> {
        Account::new("ada@example.com", false)
    }

    const ATTACKER: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 6, 6, 6)));
    const OWNER: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1)));

    /// An attempt from `client` that fails on the password.
    fn guess(throttle: &LoginThrottle, client: Option<IpAddr>, at: Instant) -> Result<(), u64> {
        throttle
            .begin_at(ada(), client, at)
            .map(|a| throttle.failed(a))
    }

    #[test]
    fn an_account_is_throttled_after_the_limit_until_the_window_passes() {
        let throttle = LoginThrottle::new(2, Duration::from_secs(60));
        let t0 = Instant::now();
        assert!(guess(&throttle, ATTACKER, t0).is_ok());
        let shouting = Account::new(" ADA@example.com ", false);
        assert!(throttle.begin_at(shouting, ATTACKER, t0).is_ok());
        assert_eq!(
            guess(&throttle, ATTACKER, t0 + Duration::from_millis(500)),
            Err(60)
        );
        assert!(
            throttle
                .begin_at(Account::new("bob@example.com", false), ATTACKER, t0)
                .is_ok()
        );
        assert!(guess(&throttle, ATTACKER, t0 + Duration::from_secs(60)).is_ok());
    }

    #[test]
    fn the_owner_from_an_address_that_is_not_failing_still_gets_a_try() {
        let throttle = LoginThrottle::new(3, Duration::from_secs(60));
        let t0 = Instant::now();
        while guess(&throttle, ATTACKER, t0).is_ok() {}
        let owner = throttle
            .begin_at(ada(), OWNER, t0)
            .expect("the owner may try");
        throttle.succeeded(owner);
        assert!(
            guess(&throttle, ATTACKER, t0).is_ok(),
            "a success clears the count"
        );
    }

    #[test]
    fn guessing_from_many_addresses_is_bounded_per_window() {
        let throttle = LoginThrottle::new(10, Duration::from_secs(60));
        let t0 = Instant::now();
        let allowed = (0..1000u32)
            .filter(|i| {
                let ip = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
                guess(&throttle, Some(ip), t0).is_ok()
            })
            .count();
        assert_eq!(allowed, 10 + MAX_EXTRA_TRIES as usize);
        assert!(
            throttle.begin_at(ada(), OWNER, t0).is_err(),
            "then it holds for all"
        );
    }

    #[test]
    fn a_success_clears_the_count_and_a_refund_gives_one_back() {
        let throttle = LoginThrottle::new(2, Duration::from_secs(60));
        let t0 = Instant::now();
        let first = throttle.begin_at(ada(), None, t0).unwrap();
        throttle.refund(first);
        throttle.begin_at(ada(), None, t0).unwrap();
        let ok = throttle.begin_at(ada(), None, t0).unwrap();
        throttle.succeeded(ok);
        throttle.begin_at(ada(), None, t0).unwrap();
        throttle.begin_at(ada(), None, t0).unwrap();
        assert!(throttle.begin_at(ada(), None, t0).is_err());
    }

    #[test]
    fn every_spelling_of_an_address_is_one_account() {
        let throttle = LoginThrottle::new(3, Duration::from_secs(60));
        let t0 = Instant::now();
        // Full-width, mathematical bold and upper-case letters: one address to the core.
        for spelling in ["ａda@example.com", "𝐚da@example.com", "ADA@EXAMPLE.COM"] {
            let attempt = throttle
                .begin_at(Account::new(spelling, false), ATTACKER, t0)
                .unwrap();
            throttle.failed(attempt);
        }
        assert!(guess(&throttle, ATTACKER, t0).is_err());
    }

    #[test]
    fn codes_are_bounded_per_account_from_any_number_of_addresses() {
        let throttle = LoginThrottle::new(5, Duration::from_secs(60));
        let t0 = Instant::now();
        let checked = (0..100u32)
            .filter(|i| {
                let ip = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
                let with_code = Account::new("ada@example.com", true);
                throttle
                    .begin_at(with_code, Some(ip), t0)
                    .map(|a| throttle.failed_code(a))
                    .is_ok()
            })
            .count();
        assert_eq!(checked, 5);
        // A wrong password gives its code back: the code was never checked.
        let throttle = LoginThrottle::new(2, Duration::from_secs(60));
        for _ in 0..2 {
            let attempt = throttle
                .begin_at(Account::new("ada@example.com", true), OWNER, t0)
                .unwrap();
            throttle.failed(attempt);
        }
        let codes = throttle.keys("ada@example.com").1;
        assert_eq!(throttle.lock().windows[&codes].count, 0);
    }

    #[test]
    fn expired_accounts_are_pruned() {
        let throttle = LoginThrottle::new(1, Duration::from_secs(1));
        let t0 = Instant::now();
        for i in 0..(PRUNE_ABOVE * 3) {
            let _ = throttle.begin_at(Account::new(&format!("u{i}@example.com"), false), None, t0);
        }
        let later = t0 + Duration::from_secs(2);
        for i in 0..(PRUNE_ABOVE * 3) {
            let _ = throttle.begin_at(
                Account::new(&format!("v{i}@example.com"), false),
                None,
                later,
            );
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
