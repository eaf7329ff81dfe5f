//! A JSON file to import, read one entry at a time: each entry of its `entries` (or of
//! a bare list) and of its `trash` is parsed, handed over, and let go before the next,
//! and every other field is skipped without being built. Parsed JSON costs far more
//! than its text (an empty object is two bytes of text and hundreds in memory), so a
//! document parsed whole let a few hundred KB of zipped `{},{},…` take gigabytes; read
//! this way, memory holds the text, what was read of the entries before, and one entry,
//! which may hold at most [`MAX_ENTRY_VALUES`] values.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The most entries (with the trash's) one file may hold: what one import takes.
pub const MAX_FILE_ENTRIES: usize = 100_000;

/// The most JSON values (objects, lists, texts, numbers, each key too) one entry may
/// hold, its revisions and attachments included: an entry edited a thousand times holds
/// about 15,000.
pub const MAX_ENTRY_VALUES: usize = 200_000;

/// Which list of the document an entry is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// `entries`, or the document itself when it is a list.
    Entries,
    /// Our export's `trash`.
    Trash,
}

impl List {
    fn field(self) -> &'static str {
        match self {
            List::Entries => "entries",
            List::Trash => "trash",
        }
    }
}

/// Why a document could not be read: its JSON (with where), or what the reader of an
/// entry said of it.
#[derive(Debug)]
pub enum StreamError<E> {
    /// Not JSON, or past a bound: serde_json's error, which says where.
    Json(serde_json::Error),
    /// The document's shape is not one of entries (`{"entries": 3}`, `"text"`).
    Shape(String),
    /// It holds more than a file may: entries, or values in one entry.
    Bound(String),
    /// The reader of one entry refused it.
    Entry(E),
}

/// What the document said besides its entries.
#[derive(Debug, Default)]
pub struct Header {
    /// Its `format` field, when that is text.
    pub format: Option<String>,
    /// How many entries it held, the trash's included.
    pub entries: usize,
}

/// Reads `text`, calling `each` with every entry in the order of the file (its list,
/// its position in the whole document counting from 0, and the entry parsed). Stops at
/// the first error, of the JSON or of `each`.
pub fn read_entries<E>(
    text: &str,
    each: impl FnMut(List, usize, Value) -> Result<(), E>,
) -> Result<Header, StreamError<E>> {
    let mut reader = Reader {
        each,
        header: Header::default(),
        failure: None,
    };
    let mut json = serde_json::Deserializer::from_str(text);
    let outcome = Document(&mut reader)
        .deserialize(&mut json)
        .and_then(|()| json.end());
    match (outcome, reader.failure) {
        (_, Some(failure)) => Err(failure),
        (Err(e), None) => Err(StreamError::Json(e)),
        (Ok(()), None) => Ok(reader.header),
    }
}

/// The `format` field of a JSON document read from `bytes` (buffered here), every
/// other value skipped unbuilt: whether a file is our export, wherever in it the field
/// is. `Err` when the bytes are not one JSON document.
pub fn format_of(bytes: impl std::io::Read) -> Result<Option<String>, serde_json::Error> {
    struct Top;
    impl<'de> Visitor<'de> for Top {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON document")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
            let mut format = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "format" {
                    format = map.next_value::<Text>()?.0;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(format)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    // serde_json reads a reader a byte at a time.
    let mut json = serde_json::Deserializer::from_reader(std::io::BufReader::new(bytes));
    let format = json.deserialize_any(Top)?;
    json.end()?;
    Ok(format)
}

struct Reader<F, E> {
    each: F,
    header: Header,
    /// Set when reading stopped for a reason of ours, not the JSON's.
    failure: Option<StreamError<E>>,
}

impl<F, E> Reader<F, E> {
    /// Stops the parse for `failure`.
    fn fail<Err: de::Error>(&mut self, failure: StreamError<E>) -> Err {
        self.failure = Some(failure);
        Err::custom("stopped")
    }
}

/// The whole document: a list of entries, or an object with `entries`.
struct Document<'r, F, E>(&'r mut Reader<F, E>);

impl<'de, F, E> DeserializeSeed<'de> for Document<'_, F, E>
where
    F: FnMut(List, usize, Value) -> Result<(), E>,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, F, E> Visitor<'de> for Document<'_, F, E>
where
    F: FnMut(List, usize, Value) -> Result<(), E>,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of entries, or an object with \"entries\"")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Entries(self.0, List::Entries).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut has_entries = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "entries" if has_entries => {
                    return Err(self.0.fail(StreamError::Shape(
                        "it gives field \"entries\" twice".into(),
                    )));
                }
                "entries" => {
                    has_entries = true;
                    map.next_value_seed(Entries(self.0, List::Entries))?;
                }
                "trash" => map.next_value_seed(Entries(self.0, List::Trash))?,
                "format" => self.0.header.format = map.next_value::<Text>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !has_entries {
            return Err(self
                .0
                .fail(StreamError::Shape("it has no field \"entries\"".into())));
        }
        Ok(())
    }
    fn visit_bool<Err: de::Error>(self, _: bool) -> Result<(), Err> {
        Err(self.0.fail(StreamError::Shape(
            "it holds true or false, not entries".into(),
        )))
    }
    fn visit_i64<Err: de::Error>(self, _: i64) -> Result<(), Err> {
        Err(self
            .0
            .fail(StreamError::Shape("it holds a number, not entries".into())))
    }
    fn visit_u64<Err: de::Error>(self, _: u64) -> Result<(), Err> {
        Err(self
            .0
            .fail(StreamError::Shape("it holds a number, not entries".into())))
    }
    fn visit_f64<Err: de::Error>(self, _: f64) -> Result<(), Err> {
        Err(self
            .0
            .fail(StreamError::Shape("it holds a number, not entries".into())))
    }
    fn visit_str<Err: de::Error>(self, _: &str) -> Result<(), Err> {
        Err(self
            .0
            .fail(StreamError::Shape("it holds text, not entries".into())))
    }
    fn visit_unit<Err: de::Error>(self) -> Result<(), Err> {
        Err(self
            .0
            .fail(StreamError::Shape("it holds null, not entries".into())))
    }
}

/// A list of entries (`entries` or `trash`); `null` for the trash is no trash.
struct Entries<'r, F, E>(&'r mut Reader<F, E>, List);

impl<'de, F, E> DeserializeSeed<'de> for Entries<'_, F, E>
where
    F: FnMut(List, usize, Value) -> Result<(), E>,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<F, E> Entries<'_, F, E> {
    fn not_a_list<Err: de::Error>(self, found: &str) -> Result<(), Err> {
        let field = self.1.field();
        Err(self.0.fail(StreamError::Shape(format!(
            "field \"{field}\" must be a list, found {found}"
        ))))
    }
}

impl<'de, F, E> Visitor<'de> for Entries<'_, F, E>
where
    F: FnMut(List, usize, Value) -> Result<(), E>,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of entries")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (reader, list) = (self.0, self.1);
        loop {
            if reader.header.entries == MAX_FILE_ENTRIES {
                // One more is past the bound; the end of the list is not.
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    return Ok(());
                }
                return Err(reader.fail(StreamError::Bound(format!(
                    "it holds more than {MAX_FILE_ENTRIES} entries; at most that many are imported at once"
                ))));
            }
            let at = reader.header.entries;
            let mut budget = Budget {
                left: MAX_ENTRY_VALUES,
                exceeded: false,
            };
            let entry = match seq.next_element_seed(Bounded(&mut budget)) {
                Ok(Some(entry)) => entry,
                Ok(None) => return Ok(()),
                Err(_) if budget.exceeded => {
                    return Err(reader.fail(StreamError::Bound(format!(
                        "its entry {} holds more than {MAX_ENTRY_VALUES} values",
                        at + 1
                    ))));
                }
                Err(e) => return Err(e),
            };
            reader.header.entries += 1;
            if let Err(e) = (reader.each)(list, at, entry) {
                return Err(reader.fail(StreamError::Entry(e)));
            }
        }
    }
    fn visit_unit<Err: de::Error>(self) -> Result<(), Err> {
        match self.1 {
            List::Trash => Ok(()),
            List::Entries => self.not_a_list("null"),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.not_a_list("an object")
    }
    fn visit_bool<Err: de::Error>(self, _: bool) -> Result<(), Err> {
        self.not_a_list("true or false")
    }
    fn visit_i64<Err: de::Error>(self, _: i64) -> Result<(), Err> {
        self.not_a_list("a number")
    }
    fn visit_u64<Err: de::Error>(self, _: u64) -> Result<(), Err> {
        self.not_a_list("a number")
    }
    fn visit_f64<Err: de::Error>(self, _: f64) -> Result<(), Err> {
        self.not_a_list("a number")
    }
    fn visit_str<Err: de::Error>(self, _: &str) -> Result<(), Err> {
        self.not_a_list("text")
    }
}

/// A text value, or `None` for anything else (skipped unbuilt).
struct Text(Option<String>);

impl<'de> de::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<Err: de::Error>(self, s: &str) -> Result<Text, Err> {
                Ok(Text(Some(s.to_owned())))
            }
            fn visit_bool<Err: de::Error>(self, _: bool) -> Result<Text, Err> {
                Ok(Text(None))
            }
            fn visit_i64<Err: de::Error>(self, _: i64) -> Result<Text, Err> {
                Ok(Text(None))
            }
            fn visit_u64<Err: de::Error>(self, _: u64) -> Result<Text, Err> {
                Ok(Text(None))
            }
            fn visit_f64<Err: de::Error>(self, _: f64) -> Result<Text, Err> {
                Ok(Text(None))
            }
            fn visit_unit<Err: de::Error>(self) -> Result<Text, Err> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Text, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Text, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// How many more values one entry may hold, and whether it went past them.
struct Budget {
    left: usize,
    exceeded: bool,
}

/// A JSON value built while the budget lasts: one entry.
struct Bounded<'b>(&'b mut Budget);

impl Bounded<'_> {
    fn take<Err: de::Error>(&mut self) -> Result<(), Err> {
        if self.0.left == 0 {
            self.0.exceeded = true;
            return Err(Err::custom(format_args!(
                "an entry holds more than {MAX_ENTRY_VALUES} values"
            )));
        }
        self.0.left -= 1;
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<Err: de::Error>(mut self, b: bool) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::Bool(b))
    }
    fn visit_i64<Err: de::Error>(mut self, n: i64) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<Err: de::Error>(mut self, n: u64) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<Err: de::Error>(mut self, n: f64) -> Result<Value, Err> {
        self.take()?;
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<Err: de::Error>(mut self, s: &str) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<Err: de::Error>(mut self, s: String) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::String(s))
    }
    fn visit_unit<Err: de::Error>(mut self) -> Result<Value, Err> {
        self.take()?;
        Ok(Value::Null)
    }
    fn visit_none<Err: de::Error>(self) -> Result<Value, Err> {
        self.visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.take()?;
        let mut list = Vec::new();
        while let Some(v) = seq.next_element_seed(Bounded(&mut *self.0))? {
            list.push(v);
        }
        Ok(Value::Array(list))
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.take()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.take()?;
            let value = map.next_value_seed(Bounded(&mut *self.0))?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Seen = Vec<(List, usize, Value)>;

    fn read(text: &str) -> Result<(Header, Seen), String> {
        let mut seen = Vec::new();
        let header = read_entries(text, |list, at, v| {
            seen.push((list, at, v));
            Ok::<(), String>(())
        })
        .map_err(|e| match e {
            StreamError::Json(e) => format!("json: {e}"),
            StreamError::Shape(m) => format!("shape: {m}"),
            StreamError::Bound(m) => format!("bound: {m}"),
            StreamError::Entry(m) => format!("entry: {m}"),
        })?;
        Ok((header, seen))
    }

    #[test]
    fn entries_and_trash_come_in_order_wherever_the_fields_are() {
        let (header, seen) = read(
            r#"{"trash":[{"t":1}],"junk":{"x":[1,2,{"y":null}]},"entries":[{"a":1},{"b":2}],"format":"journal-export"}"#,
        )
        .unwrap();
        assert_eq!(header.format.as_deref(), Some("journal-export"));
        assert_eq!(header.entries, 3);
        let lists: Vec<_> = seen.iter().map(|(l, at, _)| (*l, *at)).collect();
        assert_eq!(
            lists,
            [(List::Trash, 0), (List::Entries, 1), (List::Entries, 2)]
        );
        assert_eq!(seen[1].2, serde_json::json!({"a": 1}));
        let (_, bare) = read(r#"[{"a":1}]"#).unwrap();
        assert_eq!(bare.len(), 1);
    }

    #[test]
    fn shapes_that_are_not_entries_say_what_they_hold() {
        assert_eq!(
            read("3").unwrap_err(),
            "shape: it holds a number, not entries"
        );
        assert_eq!(
            read(r#"{"a":1}"#).unwrap_err(),
            "shape: it has no field \"entries\""
        );
        assert_eq!(
            read(r#"{"entries":{}}"#).unwrap_err(),
            "shape: field \"entries\" must be a list, found an object"
        );
        assert!(read(r#"{"entries":[],"trash":null}"#).is_ok());
        assert!(read(r#"{"entries":[{}"#).unwrap_err().starts_with("json: "));
        assert!(
            read(r#"{"entries":[]} x"#)
                .unwrap_err()
                .starts_with("json: ")
        );
        assert_eq!(
            read(r#"{"entries":[{"a":1}],"entries":[{"b":2}]}"#).unwrap_err(),
            "shape: it gives field \"entries\" twice"
        );
    }

    #[test]
    fn an_entry_past_its_values_and_a_file_past_its_entries_are_refused() {
        let many = format!(r#"[{{"junk":[{}0]}}]"#, "0,".repeat(MAX_ENTRY_VALUES));
        let err = read(&many).unwrap_err();
        assert_eq!(err, "bound: its entry 1 holds more than 200000 values");
        // A JSON error right at the bound is the JSON's, with where.
        let at_bound = format!(r#"[{{"junk":[{}0 x]}}]"#, "0,".repeat(MAX_ENTRY_VALUES - 4));
        assert!(read(&at_bound).unwrap_err().starts_with("json: "));
        let just = format!("[{}{{}}]", "{},".repeat(MAX_FILE_ENTRIES - 1));
        assert_eq!(read(&just).unwrap().0.entries, MAX_FILE_ENTRIES);
        let over = format!("[{}{{}}]", "{},".repeat(MAX_FILE_ENTRIES));
        let err = read(&over).unwrap_err();
        assert!(err.contains("more than 100000 entries"), "{err}");
    }

    #[test]
    fn the_format_is_found_anywhere_in_the_document() {
        let late = r#"{"entries":[{"format":"no"}],"format":"journal-export"}"#;
        let format = |b: &[u8]| format_of(b).map_err(|_| ());
        assert_eq!(format(late.as_bytes()), Ok(Some("journal-export".into())));
        assert_eq!(format(b"[1,2]"), Ok(None));
        assert_eq!(format(b"{\"format\":3}"), Ok(None));
        assert_eq!(format(b"not json"), Err(()));
        assert_eq!(format(b"{\"format\":\"journal-export\""), Err(()));
    }
}
