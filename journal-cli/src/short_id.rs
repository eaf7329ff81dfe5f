//! Short entry ids: the end of the id, as few hexadecimal digits as tell the journal's
//! entries apart, and at least [`MIN_LEN`].
//!
//! Why the end: an entry id is a UUIDv7, `tttttttt-tttt-7rrr-vrrr-rrrrrrrrrrrr`. Its
//! first 48 bits (12 digits) are the millisecond it was made, so entries written
//! together (an import, a script) share their first 12 digits or more, and a prefix
//! that tells them apart is long (28 characters after an import). Its last group is
//! random bits (the last 32 at least, with uuid's counter before them, which starts
//! at a random value each millisecond), so a few digits from the end already differ:
//! 6 digits are 24 bits, and a journal of a thousand entries needs a seventh digit
//! only about once in thirty. Imported ids of other versions (a v4 UUID) end in
//! random bits too.

/// The fewest digits a short id has.
pub const MIN_LEN: usize = 6;

/// The most digits a short id takes from the end: the last group, with no `-` in it.
/// Ids that even these do not tell apart (an import's made-up ids, say) are shown
/// whole.
pub const MAX_LEN: usize = 12;

/// The length of an id written out whole.
pub const FULL_LEN: usize = 36;

/// The last `len` characters of `id` (all of it when shorter).
pub fn tail(id: &str, len: usize) -> &str {
    &id[id.len().saturating_sub(len)..]
}

/// How many characters from the end tell these ids apart: [`MIN_LEN`] or more, up to
/// [`MAX_LEN`]; [`FULL_LEN`] when the last group is not enough. The same id given
/// twice counts once.
pub fn len_for(ids: &[String]) -> usize {
    let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    (MIN_LEN..=MAX_LEN)
        .find(|&n| {
            let mut tails: Vec<&str> = ids.iter().map(|id| tail(id, n)).collect();
            tails.sort_unstable();
            tails.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(FULL_LEN)
}

/// The fewest characters at which `n` random ends are unlikely to share one: the
/// chance that any two of them do (about n²/2 ÷ 16^len) at most one in a thousand.
/// For a journal too large to read whole before each table: 8 for 1,001 entries, 9 for
/// 10,000, up to [`MAX_LEN`].
pub fn len_for_count(n: u64) -> usize {
    let pairs = (n as f64) * (n.saturating_sub(1) as f64) / 2.0;
    (MIN_LEN..=MAX_LEN)
        .find(|&len| pairs * 1000.0 <= 16f64.powi(len as i32))
        .unwrap_or(MAX_LEN)
}

/// How a typed id is matched against the entries' ids.
#[derive(Debug, PartialEq, Eq)]
pub enum Given {
    /// A short id (6 to 12 hexadecimal digits, no `-`): the end of an id. From 8 digits
    /// on it may also be the start of one, as ids were shortened before.
    Short(String),
    /// The start of an id with its `-`s, 8 characters or more: the old short form.
    Prefix(String),
}

impl Given {
    /// Reads what was typed (any case); `None` when it can be neither.
    pub fn parse(text: &str) -> Option<Given> {
        let text = text.trim().to_lowercase();
        let n = text.chars().count();
        if (MIN_LEN..=MAX_LEN).contains(&n) && text.chars().all(|c| c.is_ascii_hexdigit()) {
            return Some(Given::Short(text));
        }
        if n >= 8 && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return Some(Given::Prefix(text));
        }
        None
    }

    /// True when `id` (a full id, lower case) is one this names.
    pub fn fits(&self, id: &str) -> bool {
        match self {
            Given::Short(s) => id.ends_with(s.as_str()) || (s.len() >= 8 && id.starts_with(s)),
            Given::Prefix(p) => id.starts_with(p.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_length_grows_only_as_far_as_two_ends_agree() {
        let a = "0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a69";
        let b = "0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a70";
        let c = "0190c3e2-5b7a-7d42-8000-aaaaab4b5a69";
        assert_eq!(len_for(&ids(&[a])), MIN_LEN);
        assert_eq!(len_for(&ids(&[a, b])), MIN_LEN);
        // `c` ends in the same 6 digits as `a`, not the same 7.
        assert_eq!(len_for(&ids(&[a, c])), 7);
        // The same entry listed twice (own list and shown rows) is no clash.
        assert_eq!(len_for(&ids(&[a, a, b])), MIN_LEN);
        assert_eq!(len_for(&[]), MIN_LEN);
    }

    #[test]
    fn a_journal_too_large_to_read_gets_ends_long_enough_for_its_size() {
        assert_eq!(len_for_count(0), MIN_LEN);
        assert_eq!(len_for_count(100), MIN_LEN);
        assert_eq!(len_for_count(1_001), 8);
        assert_eq!(len_for_count(10_000), 9);
        assert_eq!(len_for_count(u64::MAX), MAX_LEN);
    }

    #[test]
    fn ids_alike_in_their_whole_last_group_are_shown_whole() {
        let a = "00000000-0000-7000-8000-000000000001";
        let b = "11111111-0000-7000-8000-000000000001";
        assert_eq!(len_for(&ids(&[a, b])), FULL_LEN);
        assert_eq!(tail(a, FULL_LEN), a);
    }

    #[test]
    fn a_short_id_is_the_end_and_from_eight_digits_the_start_too() {
        let id = "0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a69";
        assert_eq!(tail(id, 6), "4b5a69");
        let short = Given::parse(" 4B5A69 ").unwrap();
        assert!(short.fits(id));
        assert!(
            !Given::parse("0190c3").unwrap().fits(id),
            "6 digits: the end only"
        );
        assert!(
            Given::parse("0190c3e2").unwrap().fits(id),
            "8: the start as before"
        );
        assert!(Given::parse("0190c3e2-5b7a").unwrap().fits(id));
        for bad in ["4b5a6", "4b5a6z", "", "zzzzzzzz", "4b5a69 x"] {
            assert_eq!(Given::parse(bad), None, "{bad:?}");
        }
    }
}
