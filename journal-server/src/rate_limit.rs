//! A fixed-window limit on attempts per client address (login and register).

use std::collections::HashMap;
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

#[cfg(test)]
mod tests {
    use super::*;

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
