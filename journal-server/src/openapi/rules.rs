//! Schemas for values whose rule is more than a type and a length: the dates of the
//! `from` and `to` filters and a tag. Each states the server's rule exactly, so that a
//! value the document calls valid is one the server takes (schemathesis holds the
//! server to that).

use journal_core::api::schema::WHITESPACE;
use serde_json::{Value, json};

/// A calendar day from 1900-01-01 to 9999-12-31: months of their length, 29 February
/// in leap years only (every fourth year, but of the centuries only those divisible by
/// 400).
const DAY: &str = concat!(
    "(?:(?:19[0-9]{2}|[2-9][0-9]{3})-",
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)",
    "|(?:19|[2-9][0-9])(?:0[48]|[2468][048]|[13579][26])-02-29",
    "|(?:[2468][048]|[3579][26])00-02-29)"
);

/// What may follow the day: a local time to the minute or second (read in `tz`), or
/// an RFC 3339 instant with seconds and an offset.
const TIME: &str = concat!(
    "(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9]",
    "(?::[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?)?)?"
);

/// `from` or `to`: a day, or an instant, whose year as written is 1900 to 9999.
pub(super) fn date_bound(description: &str) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^[{WHITESPACE}]*{DAY}{TIME}[{WHITESPACE}]*$"),
        "description": description
    })
}

/// One tag, as the core states it (with the request bodies' tags).
pub(super) fn tag() -> Value {
    serde_json::to_value(journal_core::api::schema::tag()).unwrap_or_default()
}
