//! Time: instants, the zones local dates are read in, and days of the year.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ValidationError;

/// Milliseconds in a day.
pub(crate) const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A point in time with millisecond precision, shown as ISO 8601 UTC
/// (`2024-08-27T11:42:28.185Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The current time, truncated to milliseconds.
    pub fn now() -> Timestamp {
        Timestamp(Utc::now().timestamp_millis())
    }

    /// From milliseconds since the Unix epoch.
    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub fn as_millis(&self) -> i64 {
        self.0
    }

    /// Parses an RFC 3339 / ISO 8601 date-time with an offset.
    pub fn parse(value: &str) -> Result<Timestamp, ValidationError> {
        DateTime::parse_from_rfc3339(value.trim())
            .map(|t| Timestamp(t.timestamp_millis()))
            .map_err(|_| {
                ValidationError::new(
                    "date",
                    format!("{value:?} is not an ISO 8601 date-time like 2024-08-27T11:42:28.185Z"),
                )
            })
    }

    /// The time as a chrono value.
    pub fn to_datetime(&self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    }
}

impl Timestamp {
    /// Writes `2024-08-27T11:42:28.185Z` into `buf` without allocating, for the years
    /// 0 to 9999; `None` for the others, which chrono writes with a sign. Every list
    /// response writes two per entry, and chrono's `to_rfc3339_opts` allocates a
    /// `String` for each (measured in docs/PERFORMANCE.md).
    fn write_iso<'b>(&self, buf: &'b mut [u8; 24]) -> Option<&'b str> {
        use chrono::{Datelike as _, Timelike as _};
        let t = self.to_datetime();
        let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
        let mut put = |at: usize, value: u32, digits: usize| {
            let mut v = value;
            for i in (at..at + digits).rev() {
                buf[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, year, 4);
        put(5, t.month(), 2);
        put(8, t.day(), 2);
        put(11, t.hour(), 2);
        put(14, t.minute(), 2);
        put(17, t.second(), 2);
        put(20, t.nanosecond() / 1_000_000 % 1000, 3);
        for (at, sep) in [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ] {
            buf[at] = sep;
        }
        std::str::from_utf8(buf).ok()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.write_iso(&mut [0; 24]) {
            Some(text) => f.write_str(text),
            None => f.write_str(
                &self
                    .to_datetime()
                    .to_rfc3339_opts(SecondsFormat::Millis, true),
            ),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.write_iso(&mut [0; 24]) {
            Some(text) => s.serialize_str(text),
            None => s.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The time zone dates are read in: an IANA zone (`Europe/Paris`) or a fixed offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// An IANA zone, with its daylight-saving rules.
    Named(chrono_tz::Tz),
    /// A fixed offset from UTC (`+05:30`); UTC itself is `+00:00`.
    Fixed(FixedOffset),
}

impl Default for Zone {
    fn default() -> Self {
        Zone::Fixed(FixedOffset::east_opt(0).expect("zero is a valid offset"))
    }
}

impl FromStr for Zone {
    type Err = ValidationError;

    /// `Europe/Paris`, `UTC`, `Z`, or an offset `+05:30` / `-08:00` up to ±14:00.
    fn from_str(value: &str) -> Result<Zone, ValidationError> {
        let value = value.trim();
        if value == "Z" {
            return Ok(Zone::default());
        }
        if let Some(sign) = value.chars().next().filter(|c| *c == '+' || *c == '-') {
            let offset = value[1..]
                .split_once(':')
                .filter(|(h, m)| h.len() == 2 && m.len() == 2)
                .and_then(|(h, m)| Some((h.parse::<i32>().ok()?, m.parse::<i32>().ok()?)))
                .filter(|(h, m)| *m < 60 && h * 60 + m <= 14 * 60)
                .and_then(|(h, m)| {
                    let seconds = (h * 60 + m) * 60;
                    FixedOffset::east_opt(if sign == '-' { -seconds } else { seconds })
                });
            return offset.map(Zone::Fixed).ok_or_else(|| {
                ValidationError::new(
                    "tz",
                    format!("{value:?} is not an offset: write ±HH:MM, from -14:00 to +14:00"),
                )
            });
        }
        value
            .parse::<chrono_tz::Tz>()
            .map(Zone::Named)
            .map_err(|_| {
                ValidationError::new(
                    "tz",
                    format!(
                        "{value:?} is not a time zone: use an IANA name like Europe/Paris, \
                         or an offset like +02:00"
                    ),
                )
            })
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Zone::Named(tz) => f.write_str(tz.name()),
            Zone::Fixed(offset) => write!(f, "{offset}"),
        }
    }
}

impl Zone {
    /// The instant a local date-time names in this zone. In a daylight-saving gap
    /// (a local time that does not exist), the first instant after it.
    pub fn instant(&self, local: NaiveDateTime) -> Timestamp {
        fn first<T: chrono::TimeZone>(tz: &T, local: NaiveDateTime) -> i64 {
            // Gaps last at most a few hours; step forward a quarter-hour at a time.
            (0..=24 * 4)
                .find_map(|quarter| {
                    tz.from_local_datetime(&(local + chrono::Duration::minutes(15 * quarter)))
                        .earliest()
                })
                .map_or_else(
                    || local.and_utc().timestamp_millis(),
                    |t| t.timestamp_millis(),
                )
        }
        Timestamp::from_millis(match self {
            Zone::Named(tz) => first(tz, local),
            Zone::Fixed(offset) => first(offset, local),
        })
    }

    /// When the local day `date` begins in this zone.
    pub fn start_of_day(&self, date: NaiveDate) -> Timestamp {
        self.instant(date.and_hms_opt(0, 0, 0).expect("midnight exists"))
    }

    /// The local calendar date of an instant in this zone.
    pub fn date_of(&self, at: Timestamp) -> NaiveDate {
        let utc = at.to_datetime();
        match self {
            Zone::Named(tz) => utc.with_timezone(tz).date_naive(),
            Zone::Fixed(offset) => utc.with_timezone(offset).date_naive(),
        }
    }
}

/// A month and day (`MM-DD`), for "on this day" in any year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MonthDay {
    month: u32,
    day: u32,
}

impl MonthDay {
    /// A month (1–12) and a day that month can have (29 February included).
    pub fn new(month: u32, day: u32) -> Option<MonthDay> {
        NaiveDate::from_ymd_opt(2000, month, day).map(|_| MonthDay { month, day })
    }

    /// The month, 1 to 12.
    pub fn month(&self) -> u32 {
        self.month
    }

    /// The day of the month.
    pub fn day(&self) -> u32 {
        self.day
    }
}

impl FromStr for MonthDay {
    type Err = ValidationError;

    fn from_str(value: &str) -> Result<MonthDay, ValidationError> {
        value
            .trim()
            .split_once('-')
            .filter(|(m, d)| m.len() == 2 && d.len() == 2)
            .and_then(|(m, d)| MonthDay::new(m.parse().ok()?, d.parse().ok()?))
            .ok_or_else(|| {
                ValidationError::new(
                    "day",
                    format!("{value:?} is not a day of the year: write MM-DD, like 03-14"),
                )
            })
    }
}

impl fmt::Display for MonthDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}-{:02}", self.month, self.day)
    }
}
