//! Tags and the filters of the entry lists: validated once here, so every store reads
//! the same meaning out of `from`, `to`, `tag`, `starred`, `day` and `tz`.
//!
//! Dates are read in a time zone (`tz`, UTC by default) and turned into UTC instants
//! here; a store only ever compares an entry's `date` against instants. "On this day"
//! (`day=MM-DD`) becomes one half-open range per year, so a store finds it through its
//! date index instead of computing every entry's local day.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike as _, FixedOffset, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization as _;

use crate::domain::Timestamp;
use crate::error::ValidationError;

/// Most characters in a tag.
pub const TAG_MAX_CHARS: usize = 50;
/// Most tags on one entry.
pub const MAX_TAGS: usize = 20;
/// Most `tag` parameters in one filter.
pub const MAX_FILTER_TAGS: usize = 20;

/// Midnight UTC on 1900-01-01: the earliest date an entry can have.
pub(crate) const EARLIEST_DATE_MS: i64 = -2_208_988_800_000;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The latest date an entry can have: a day from now (clocks differ a little).
pub(crate) fn latest_date() -> Timestamp {
    Timestamp::from_millis(Timestamp::now().as_millis() + DAY_MS)
}

/// One tag: lower-cased, in Unicode NFC, 1 to 50 letters, digits, `-` or `_`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Tag(String);

impl Tag {
    /// Normalises and checks a tag (`Work` → `work`); `field` names it in the error.
    pub fn parse_field(field: &'static str, value: &str) -> Result<Tag, ValidationError> {
        let tag: String = value.to_lowercase().nfc().collect();
        let chars = tag.chars().count();
        if chars == 0 || chars > TAG_MAX_CHARS {
            return Err(ValidationError::new(
                field,
                format!("{value:?} is not a tag: a tag has 1 to {TAG_MAX_CHARS} characters"),
            ));
        }
        if let Some(bad) = tag
            .chars()
            .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(ValidationError::new(
                field,
                format!(
                    "{value:?} is not a tag: {bad:?} is not allowed; use letters, digits, - and _"
                ),
            ));
        }
        Ok(Tag(tag))
    }

    /// Normalises and checks a tag of an entry.
    pub fn parse(value: &str) -> Result<Tag, ValidationError> {
        Tag::parse_field("tags", value)
    }

    /// The tag's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An entry's tags: each valid, none twice, sorted, at most [`MAX_TAGS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags(Vec<String>);

impl Tags {
    /// Validates a list of tags as a client sent it; duplicates (after lower-casing)
    /// count once.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Tags, ValidationError> {
        let mut tags = values
            .iter()
            .map(|v| Tag::parse(v.as_ref()).map(|t| t.0))
            .collect::<Result<Vec<_>, _>>()?;
        tags.sort();
        tags.dedup();
        if tags.len() > MAX_TAGS {
            return Err(ValidationError::new(
                "tags",
                format!(
                    "an entry has at most {MAX_TAGS} tags; this one has {}",
                    tags.len()
                ),
            ));
        }
        Ok(Tags(tags))
    }

    /// The tags, sorted.
    pub fn into_inner(self) -> Vec<String> {
        self.0
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

/// The filter parameters of a list as they come in a query string, before validation.
/// [`FilterParams::query_pairs`] writes them back, for the `Link` URLs of the next
/// pages and for the CLI's requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterParams {
    /// `from`: a day `YYYY-MM-DD` or an instant; inclusive.
    pub from: Option<String>,
    /// `to`: a day `YYYY-MM-DD` or an instant; inclusive.
    pub to: Option<String>,
    /// `tag`, repeated: an entry must have every one.
    pub tags: Vec<String>,
    /// `starred`: `true` or `false`.
    pub starred: Option<String>,
    /// `day`: `MM-DD`, any year.
    pub day: Option<String>,
    /// `tz`: the zone `from`, `to` and `day` are read in.
    pub tz: Option<String>,
}

impl FilterParams {
    /// The names of the filter parameters in a query string.
    pub const NAMES: [&'static str; 6] = ["from", "to", "tag", "starred", "day", "tz"];

    /// Collects the filter parameters out of a query string's pairs; other names are
    /// left alone. A single-valued parameter given twice keeps its last value.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> FilterParams {
        let mut params = FilterParams::default();
        for (name, value) in pairs {
            let value = value.to_owned();
            match name {
                "from" => params.from = Some(value),
                "to" => params.to = Some(value),
                "tag" => params.tags.push(value),
                "starred" => params.starred = Some(value),
                "day" => params.day = Some(value),
                "tz" => params.tz = Some(value),
                _ => {}
            }
        }
        params
    }

    /// The parameters as query string pairs, in a fixed order.
    pub fn query_pairs(&self) -> Vec<(&'static str, &str)> {
        let mut pairs: Vec<(&'static str, &str)> = [
            ("from", &self.from),
            ("to", &self.to),
            ("starred", &self.starred),
            ("day", &self.day),
            ("tz", &self.tz),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value.as_deref()?)))
        .collect();
        pairs.extend(self.tags.iter().map(|t| ("tag", t.as_str())));
        pairs
    }
}

/// Which entries of a list to keep, validated: a date range, tags, starred or not, and
/// a day of the year. The default keeps every entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryFilter {
    from: Option<Timestamp>,
    until: Option<Timestamp>,
    tags: Vec<String>,
    starred: Option<bool>,
    day: Option<MonthDay>,
    zone: Zone,
}

impl EntryFilter {
    /// Validates the parameters of a list; the error names the parameter at fault.
    pub fn parse(params: &FilterParams) -> Result<EntryFilter, ValidationError> {
        let zone = match &params.tz {
            Some(tz) => tz.parse()?,
            None => Zone::default(),
        };
        let from = params
            .from
            .as_deref()
            .map(|v| DateBound::parse("from", v, zone))
            .transpose()?;
        let to = params
            .to
            .as_deref()
            .map(|v| DateBound::parse("to", v, zone))
            .transpose()?;
        let mut filter = EntryFilter {
            from: from.map(|b| b.start),
            until: to.map(|b| b.end),
            zone,
            ..EntryFilter::default()
        };
        if let (Some(from), Some(until)) = (filter.from, filter.until)
            && from >= until
        {
            return Err(ValidationError::new(
                "from",
                "is after to; swap them, or leave one out",
            ));
        }
        if params.tags.len() > MAX_FILTER_TAGS {
            return Err(ValidationError::new(
                "tag",
                format!("give at most {MAX_FILTER_TAGS} tags"),
            ));
        }
        for tag in &params.tags {
            filter = filter.with_tag(Tag::parse_field("tag", tag)?);
        }
        filter.starred = match params.starred.as_deref().map(str::trim) {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                return Err(ValidationError::new(
                    "starred",
                    format!("{other:?} is not true or false"),
                ));
            }
        };
        filter.day = params.day.as_deref().map(str::parse).transpose()?;
        Ok(filter)
    }

    /// Keeps entries that have `tag` too.
    pub fn with_tag(mut self, tag: Tag) -> EntryFilter {
        if let Err(at) = self.tags.binary_search(&tag.0) {
            self.tags.insert(at, tag.0);
        }
        self
    }

    /// Keeps only starred (`true`) or only unstarred (`false`) entries.
    pub fn with_starred(mut self, starred: bool) -> EntryFilter {
        self.starred = Some(starred);
        self
    }

    /// Keeps entries dated at or after `from`.
    pub fn with_from(mut self, from: Timestamp) -> EntryFilter {
        self.from = Some(from);
        self
    }

    /// Keeps entries dated before `until` (exclusive).
    pub fn with_until(mut self, until: Timestamp) -> EntryFilter {
        self.until = Some(until);
        self
    }

    /// Keeps entries dated on this month and day, in any year, read in the zone.
    pub fn with_day(mut self, day: MonthDay) -> EntryFilter {
        self.day = Some(day);
        self
    }

    /// Reads the day of [`EntryFilter::with_day`] in `zone` (UTC by default).
    pub fn in_zone(mut self, zone: Zone) -> EntryFilter {
        self.zone = zone;
        self
    }

    /// True when the filter keeps every entry.
    pub fn is_empty(&self) -> bool {
        self.from.is_none()
            && self.until.is_none()
            && self.tags.is_empty()
            && self.starred.is_none()
            && self.day.is_none()
    }

    /// Entries dated at or after this instant, if bounded.
    pub fn from(&self) -> Option<Timestamp> {
        self.from
    }

    /// Entries dated strictly before this instant, if bounded.
    pub fn until(&self) -> Option<Timestamp> {
        self.until
    }

    /// Tags every kept entry has, sorted.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Only starred or only unstarred entries, if set.
    pub fn starred(&self) -> Option<bool> {
        self.starred
    }

    /// The day of the year, if set.
    pub fn day(&self) -> Option<MonthDay> {
        self.day
    }

    /// For a day-of-the-year filter: the half-open ranges `[start, end)` of that local
    /// day in every year an entry can be dated, within `from`/`until`, oldest first.
    /// `None` when the filter has no day.
    pub fn day_ranges(&self) -> Option<Vec<(Timestamp, Timestamp)>> {
        let day = self.day?;
        let first = Timestamp::from_millis(EARLIEST_DATE_MS)
            .to_datetime()
            .year();
        let last = latest_date().to_datetime().year();
        let lower = self.from.unwrap_or(Timestamp::from_millis(i64::MIN));
        let upper = self.until.unwrap_or(Timestamp::from_millis(i64::MAX));
        Some(
            (first..=last)
                .filter_map(|year| NaiveDate::from_ymd_opt(year, day.month, day.day))
                .map(|date| {
                    let next = date.succ_opt().expect("years end before 9999");
                    (self.zone.start_of_day(date), self.zone.start_of_day(next))
                })
                .filter(|(start, end)| *end > lower && *start < upper)
                .map(|(start, end)| (start.max(lower), end.min(upper)))
                .collect(),
        )
    }

    /// True when `entry` passes the filter: the same rule the stores apply in SQL, for
    /// tests and for callers holding entries in memory.
    pub fn matches(&self, entry: &crate::model::Entry) -> bool {
        let date = entry.date;
        self.from.is_none_or(|from| date >= from)
            && self.until.is_none_or(|until| date < until)
            && self.starred.is_none_or(|s| entry.starred == s)
            && self.tags.iter().all(|t| entry.tags.contains(t))
            && self.day.is_none_or(|day| {
                let local = self.zone.date_of(date);
                local.month() == day.month && local.day() == day.day
            })
    }
}

/// A `from` or `to` value as the range of instants it names: a whole local day for
/// `YYYY-MM-DD`, one millisecond for an instant.
struct DateBound {
    start: Timestamp,
    end: Timestamp,
}

impl DateBound {
    fn parse(field: &'static str, value: &str, zone: Zone) -> Result<DateBound, ValidationError> {
        let text = value.trim();
        let invalid = || {
            ValidationError::new(
                field,
                format!(
                    "{value:?} is not a date: write YYYY-MM-DD, or an instant like \
                     2024-01-02T09:30:00Z"
                ),
            )
        };
        // The year is checked as written, before the zone moves it: 1900-01-01 in
        // Tokyo starts in 1899 in UTC, and the OpenAPI document's pattern, which cannot
        // see `tz`, must describe exactly what is accepted.
        let (bound, year) = if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            let next = date.succ_opt().ok_or_else(invalid)?;
            let bound = DateBound {
                start: zone.start_of_day(date),
                end: zone.start_of_day(next),
            };
            (bound, date.year())
        } else {
            let (at, year) = DateTime::parse_from_rfc3339(text)
                .map(|t| (t.with_timezone(&Utc), t.year()))
                .or_else(|_| {
                    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
                        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
                        .map(|local| (zone.instant(local).to_datetime(), local.year()))
                })
                .map_err(|_| invalid())?;
            let start = Timestamp::from_millis(at.timestamp_millis());
            let bound = DateBound {
                start,
                end: Timestamp::from_millis(start.as_millis() + 1),
            };
            (bound, year)
        };
        if !(1900..=9999).contains(&year) {
            return Err(ValidationError::new(
                field,
                format!("{value:?} is out of range: dates run from 1900 to 9999"),
            ));
        }
        Ok(bound)
    }
}

/// One tag and how many of the caller's entries have it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagCount {
    /// The tag.
    pub tag: String,
    /// How many entries have it.
    pub count: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> FilterParams {
        FilterParams::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn a_day_in_a_zone_is_that_zones_midnight_to_midnight() {
        let f = EntryFilter::parse(&params(&[
            ("from", "2024-03-10"),
            ("to", "2024-03-10"),
            ("tz", "America/New_York"),
        ]))
        .unwrap();
        // The day DST began there: 23 hours long.
        assert_eq!(f.from().unwrap().to_string(), "2024-03-10T05:00:00.000Z");
        assert_eq!(f.until().unwrap().to_string(), "2024-03-11T04:00:00.000Z");
    }

    #[test]
    fn on_this_day_is_one_range_per_year_and_the_29th_of_february_only_in_leap_years() {
        let f = EntryFilter::parse(&params(&[("day", "02-29"), ("tz", "+02:00")])).unwrap();
        let ranges = f.day_ranges().unwrap();
        assert!(
            ranges
                .iter()
                .all(|(s, e)| e.as_millis() - s.as_millis() == DAY_MS)
        );
        assert_eq!(ranges[0].0.to_string(), "1904-02-28T22:00:00.000Z");
        assert_eq!(ranges[1].0.to_string(), "1908-02-28T22:00:00.000Z");
    }

    #[test]
    fn bad_values_name_their_parameter() {
        for (pairs, field) in [
            (vec![("from", "yesterday")], "from"),
            (vec![("to", "2024-13-01")], "to"),
            (vec![("tag", "two words")], "tag"),
            (vec![("starred", "yes")], "starred"),
            (vec![("day", "02-30")], "day"),
            (vec![("tz", "Mars/Olympus")], "tz"),
            (vec![("tz", "+25:00")], "tz"),
            (vec![("from", "2024-02-02"), ("to", "2024-02-01")], "from"),
        ] {
            let err = EntryFilter::parse(&params(&pairs)).unwrap_err();
            assert_eq!(err.field, field, "{pairs:?}: {}", err.message);
        }
    }

    #[test]
    fn the_years_of_from_and_to_are_checked_as_written_whatever_the_zone() {
        for (value, tz) in [
            ("1900-01-01", "+14:00"),
            ("1900-01-01T00:30", "Asia/Tokyo"),
            ("1900-01-01T00:30:00+01:00", "UTC"),
            ("9999-12-31", "-14:00"),
            ("9999-12-31T23:59:59-12:00", "UTC"),
        ] {
            let parsed = EntryFilter::parse(&params(&[("from", value), ("tz", tz)]));
            assert!(parsed.is_ok(), "{value} in {tz}: {parsed:?}");
        }
        for value in [
            "1899-12-31",
            "0000-01-01",
            "1899-12-31T23:30:00-01:00",
            "+10000-01-01",
        ] {
            let err = EntryFilter::parse(&params(&[("to", value)])).unwrap_err();
            assert_eq!(err.field, "to", "{value}");
        }
    }

    #[test]
    fn tags_are_lower_case_nfc_unique_and_sorted() {
        let tags = Tags::parse(&["Work", "cafe\u{301}", "work", "b-2_x"]).unwrap();
        assert_eq!(tags.into_inner(), vec!["b-2_x", "café", "work"]);
        assert!(Tags::parse(&["no#hash"]).is_err());
        assert!(Tags::parse(&[""]).is_err());
        assert!(Tags::parse(&["x".repeat(51)]).is_err());
        let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        assert!(Tags::parse(&many).is_err());
    }
}
