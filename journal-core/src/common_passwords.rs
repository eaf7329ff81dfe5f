//! The list of the most common passwords, refused at registration and password change.

use std::collections::HashSet;
use std::sync::OnceLock;

static LIST: &str = include_str!("../data/common-passwords.txt");

fn set() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        LIST.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect()
    })
}

/// True when `password`, lower-cased and trimmed, is one of the 10,000 most common.
pub fn is_common(password: &str) -> bool {
    set().contains(password.trim().to_lowercase().as_str())
}
