//! The filters of the entry lists: validated once here, so every store reads
//! the same meaning out of `from`, `to`, `tag`, `starred`, `day` and `tz`.
//!
//! Dates are read in a time zone (`tz`, UTC by default) and turned into UTC instants
//! here; a store only ever compares an entry's `date` against instants. "On this day"
//! (`day=MM-DD`) becomes one half-open range per year, so a store finds it through its
//! date index instead of computing every entry's local day.

use chrono::{DateTime, Datelike as _, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::{EARLIEST_DATE_MS, Timestamp, latest_date};
use crate::error::ValidationError;

// Tags, zones and days of the year are domain values; they were first defined here, and
// are still named from here.
pub use crate::domain::{MAX_TAGS, MonthDay, TAG_MAX_CHARS, Tag, Tags, Zone};

/// Most `tag` parameters in one filter.
pub const MAX_FILTER_TAGS: usize = 20;

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
        if let Err(at) = self.tags.binary_search_by(|t| t.as_str().cmp(tag.as_str())) {
            self.tags.insert(at, tag.into_inner());
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
        // Entries are dated from the earliest date to about a day from now, in UTC; a
        // local year reaches past the UTC one at either end (west of UTC, the local
        // 31 December 1899 is the first hours of the earliest date), so the years run
        // one further each way and the ranges are clipped to the earliest date.
        let lower = self
            .from
            .unwrap_or(Timestamp::from_millis(i64::MIN))
            .max(Timestamp::from_millis(EARLIEST_DATE_MS));
        let upper = self.until.unwrap_or(Timestamp::from_millis(i64::MAX));
        let first = lower.to_datetime().year() - 1;
        let last = upper.min(latest_date()).to_datetime().year() + 1;
        Some(
            (first..=last)
                .filter_map(|year| NaiveDate::from_ymd_opt(year, day.month(), day.day()))
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
                local.month() == day.month() && local.day() == day.day()
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

    const DAY_MS: i64 = 24 * 60 * 60 * 1000;

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
}
