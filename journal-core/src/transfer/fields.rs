//! The fields of a JSON entry, read with messages that name them.

use serde_json::{Map, Value};

use crate::domain::Timestamp;

/// A JSON value's kind, in words.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn text_field(map: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "field \"{name}\" must be text, found {}",
            kind(other)
        )),
    }
}

pub(crate) fn bool_field(map: &Map<String, Value>, name: &str) -> Result<Option<bool>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!(
            "field \"{name}\" must be true or false, found {}",
            kind(other)
        )),
    }
}

/// A list of texts (tags), or nothing.
pub(crate) fn text_list_field(
    map: &Map<String, Value>,
    name: &str,
) -> Result<Option<Vec<String>>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "field \"{name}\" must be a list of texts, found {} in it",
                    kind(other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "field \"{name}\" must be a list of texts, found {}",
            kind(other)
        )),
    }
}

/// An ISO 8601 date field, or nothing.
pub(crate) fn date_field(
    map: &Map<String, Value>,
    name: &str,
) -> Result<Option<Timestamp>, String> {
    text_field(map, name)?
        .map(|t| Timestamp::parse(&t).map_err(|e| format!("field \"{name}\": {}", e.message)))
        .transpose()
}
