//! Dates as people type them (`--date`, `--from`, `--to`, `--on`): absolute
//! (`2024-01-02 09:30`, `2024-01-02`) or natural (`yesterday`, `last monday 9am`,
//! `3 days ago`, `monday`), always read in the local time zone; and that zone's name,
//! for the server to read the days the CLI sends in it.
//!
//! The English is parsed by `interim` (a maintained fork of chrono-english); this module
//! only adds what a journal means by a few phrases that a calendar reads otherwise.

use chrono::{DateTime, Duration, Local, NaiveDate, NaiveDateTime, Offset as _, TimeZone as _};
use journal_core::{Timestamp, Zone};

use crate::error::{CliError, Result};

/// What to show after a date that could not be read.
const EXAMPLES: &str =
    "write e.g. 2024-01-02 09:30, 2024-01-02, yesterday, last monday 9am or 3 days ago";

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// True when `word` names a day of the week (`mon`, `Monday`, `thurs`…).
fn is_weekday(word: &str) -> bool {
    word.len() >= 3 && WEEKDAYS.iter().any(|d| d.starts_with(word))
}

/// Reads `text` as a local date and time, relative to `now`. `flag` names the option in
/// the error.
///
/// A journal is about the past, so a bare weekday (`monday`, `friday 8pm`) is the most
/// recent one, today included, where a calendar would take the coming one.
pub fn parse_at(flag: &str, text: &str, now: DateTime<Local>) -> Result<DateTime<Local>> {
    if let Some(exact) = iso(text.trim()) {
        return Ok(exact);
    }
    let lower = text.trim().to_lowercase();
    // "last monday at 9am", "a week ago": common phrasings interim does not take.
    let mut words: Vec<&str> = lower.split_whitespace().filter(|w| *w != "at").collect();
    if let Some(first) = words.first_mut()
        && matches!(*first, "a" | "an")
    {
        *first = "1";
    }
    let cleaned = words.join(" ");
    let invalid = || CliError::Usage(format!("{flag} {text:?} is not a date; {EXAMPLES}"));
    if cleaned.is_empty() {
        return Err(invalid());
    }
    let parsed =
        interim::parse_date_string(&cleaned, now, interim::Dialect::Uk).map_err(|_| invalid())?;
    if words.first().is_some_and(|w| is_weekday(w)) {
        // interim's "monday" is the next Monday after today: a week later than meant.
        return Ok(parsed - Duration::days(7));
    }
    Ok(parsed)
}

/// ISO 8601 as machines write it: with an offset (`2024-01-02T09:30:00Z`) or without one
/// (`2024-01-02T09:30`, local).
fn iso(text: &str) -> Option<DateTime<Local>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Local));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
        .and_then(local_instant)
        .map(|t| t.to_datetime().with_timezone(&Local))
}

/// The instant a local date-time names here. A time skipped by a DST change takes the
/// next valid instant; an ambiguous one the earlier.
pub fn local_instant(local: NaiveDateTime) -> Option<Timestamp> {
    Local
        .from_local_datetime(&local)
        .earliest()
        .or_else(|| {
            Local
                .from_local_datetime(&(local + chrono::Duration::hours(1)))
                .earliest()
        })
        .map(|t| Timestamp::from_millis(t.timestamp_millis()))
}

/// Reads `text` as a local date and time, relative to now.
pub fn parse(flag: &str, text: &str) -> Result<DateTime<Local>> {
    parse_at(flag, text, Local::now())
}

/// `text` as an instant, for an entry's `date`.
pub fn instant(flag: &str, text: &str) -> Result<Timestamp> {
    Ok(Timestamp::from_millis(
        parse(flag, text)?.timestamp_millis(),
    ))
}

/// `text` as a local calendar day, for the list filters.
pub fn day(flag: &str, text: &str) -> Result<NaiveDate> {
    Ok(parse(flag, text)?.date_naive())
}

/// The local time zone as the server can read it: the IANA name from `TZ` or the
/// `/etc/localtime` link when there is one it knows, else the current offset (right
/// for every day with the same offset as today, which a name would be for all).
pub fn local_zone() -> String {
    zone_name(
        std::env::var("TZ").ok().as_deref(),
        std::fs::read_link("/etc/localtime")
            .ok()
            .map(|p| p.display().to_string())
            .as_deref(),
    )
    .unwrap_or_else(|| {
        Local::now()
            .offset()
            .fix()
            .to_string()
            .chars()
            .take(6)
            .collect()
    })
}

/// The IANA zone named by a `TZ` value (`Europe/Paris`, `:Europe/Paris`, a path into a
/// zoneinfo directory) or, when `TZ` is unset, by the target of `/etc/localtime`.
fn zone_name(tz: Option<&str>, localtime_link: Option<&str>) -> Option<String> {
    let known = |name: &str| name.parse::<Zone>().is_ok().then(|| name.to_owned());
    let from_path = |path: &str| {
        path.split_once("zoneinfo/")
            .and_then(|(_, name)| known(name.trim_start_matches("posix/")))
    };
    match tz.map(str::trim) {
        // An empty TZ means UTC to the C library.
        Some("") => Some("UTC".into()),
        Some(tz) => {
            let tz = tz.trim_start_matches(':');
            if tz.starts_with('/') {
                from_path(tz)
            } else if tz.starts_with(['+', '-']) {
                // POSIX reads "+05:30" with the opposite sign of ISO 8601: not a name.
                None
            } else {
                known(tz)
            }
        }
        None => localtime_link.and_then(from_path),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;

    /// Wednesday 15 May 2024, 14:20 local.
    fn now() -> DateTime<Local> {
        Local.with_ymd_and_hms(2024, 5, 15, 14, 20, 0).unwrap()
    }

    fn at(text: &str) -> String {
        parse_at("--date", text, now())
            .unwrap()
            .format("%Y-%m-%d %H:%M")
            .to_string()
    }

    #[test]
    fn absolute_dates_and_times() {
        assert_eq!(at("2024-01-02 09:30"), "2024-01-02 09:30");
        assert_eq!(at("2024-01-02"), "2024-01-02 00:00");
        assert_eq!(at("2024-01-02T09:30"), "2024-01-02 09:30");
        assert_eq!(
            parse_at("--date", "2024-01-02T09:30:00Z", now())
                .unwrap()
                .timestamp(),
            1_704_187_800
        );
    }

    #[test]
    fn natural_dates_are_relative_to_now() {
        assert_eq!(at("yesterday"), "2024-05-14 14:20");
        assert_eq!(at("today"), "2024-05-15 14:20");
        assert_eq!(at("3 days ago"), "2024-05-12 14:20");
        assert_eq!(at("a week ago"), "2024-05-08 14:20");
        assert_eq!(at("last monday 9am"), "2024-05-13 09:00");
        assert_eq!(at("last monday at 9am"), "2024-05-13 09:00");
        assert_eq!(at("Yesterday 18:00"), "2024-05-14 18:00");
    }

    #[test]
    fn a_bare_weekday_is_the_latest_one_today_included() {
        assert_eq!(at("monday"), "2024-05-13 00:00");
        assert_eq!(at("wednesday"), "2024-05-15 00:00");
        assert_eq!(at("thursday"), "2024-05-09 00:00");
        assert_eq!(at("fri 8pm"), "2024-05-10 20:00");
    }

    #[test]
    fn nonsense_is_a_usage_error_naming_the_flag() {
        for text in ["", "  ", "garbage", "2024-02-30", "13:99", "at"] {
            let err = parse_at("--date", text, now()).unwrap_err();
            assert!(matches!(err, CliError::Usage(_)), "{text:?}");
            assert!(err.to_string().starts_with("--date "), "{err}");
        }
    }

    #[test]
    fn the_zone_comes_from_tz_then_the_localtime_link() {
        assert_eq!(
            zone_name(Some("Europe/Paris"), None).as_deref(),
            Some("Europe/Paris")
        );
        assert_eq!(
            zone_name(Some(":America/New_York"), None).as_deref(),
            Some("America/New_York")
        );
        assert_eq!(
            zone_name(Some("/usr/share/zoneinfo/Asia/Tokyo"), None).as_deref(),
            Some("Asia/Tokyo")
        );
        assert_eq!(zone_name(Some(""), None).as_deref(), Some("UTC"));
        assert_eq!(zone_name(Some("Mars/Base"), None), None);
        assert_eq!(zone_name(Some("+05:30"), None), None);
        assert_eq!(
            zone_name(None, Some("/usr/share/zoneinfo/Europe/Berlin")).as_deref(),
            Some("Europe/Berlin")
        );
        assert_eq!(
            zone_name(None, Some("../usr/share/zoneinfo/posix/Europe/Rome")).as_deref(),
            Some("Europe/Rome")
        );
        assert_eq!(zone_name(None, None), None);
    }
}
