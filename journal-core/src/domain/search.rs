//! Search: the words of a text, and a query reduced to them.

use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

use crate::error::ValidationError;

/// The words of a text as search sees them: lower-cased, accents removed (`Café` is
/// `cafe`), split into runs of letters and digits. Every other character (quotes, `*`,
/// `-`, `%`, emoji) only separates words.
///
/// Queries and the SQLite index both go through this one function, so a word in a query
/// matches the same word in an entry whatever its case, accents or Unicode form.
pub fn search_words(text: &str) -> Vec<String> {
    // ASCII has no accents, decomposes to itself, and its letters and digits are the
    // ASCII ones: the same words as below, without the Unicode tables. Every create
    // folds its whole title and body here, on the single writer thread.
    if text.is_ascii() {
        return text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
    }
    unicode_words(text)
}

/// [`search_words`] for any text.
fn unicode_words(text: &str) -> Vec<String> {
    // Lower-case first: lower-casing can itself make combining marks ("İ" becomes "i"
    // and a combining dot), which decomposition then removes with the other accents.
    let folded: String = text
        .to_lowercase()
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A search query, reduced to the words it contains (see [`search_words`]).
///
/// Each store turns the words into its own full-text syntax, so no user text ever
/// reaches a query parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    terms: Vec<String>,
}

impl SearchQuery {
    /// Most words a query keeps; the rest are ignored.
    pub const MAX_TERMS: usize = 16;
    /// Longest word kept, in characters; a longer word is searched by its prefix.
    pub const MAX_TERM_CHARS: usize = 64;

    /// Parses the `q` text. An empty or blank query is an error; a query without any
    /// letters or digits is valid and matches nothing.
    pub fn parse(value: &str) -> Result<SearchQuery, ValidationError> {
        if value.trim().is_empty() {
            return Err(ValidationError::new("q", "must not be empty"));
        }
        let mut terms: Vec<String> = Vec::new();
        for word in search_words(value) {
            let term: String = word.chars().take(Self::MAX_TERM_CHARS).collect();
            if !terms.contains(&term) {
                terms.push(term);
            }
            if terms.len() == Self::MAX_TERMS {
                break;
            }
        }
        Ok(SearchQuery { terms })
    }

    /// Shortest word searched as a prefix (`gar` finds `garden`); shorter words match
    /// whole words only. A one- or two-letter prefix would expand to most of a
    /// journal's vocabulary, and rank every entry, for one keystroke.
    pub const MIN_PREFIX_CHARS: usize = 3;

    /// The words, lower-cased and without accents, each made only of letters and digits.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether `term` (one of [`SearchQuery::terms`]) matches as a word prefix, or only
    /// as a whole word (see [`SearchQuery::MIN_PREFIX_CHARS`]).
    pub fn is_prefix(term: &str) -> bool {
        term.chars().count() >= Self::MIN_PREFIX_CHARS
    }

    /// True when the query has no words and so matches nothing.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The ASCII shortcut finds exactly the words the Unicode path finds.
        #[test]
        fn ascii_text_folds_as_any_text_does(text in "[ -~\t\n]{0,200}") {
            prop_assert_eq!(super::search_words(&text), super::unicode_words(&text));
        }
    }

    #[test]
    fn text_beyond_ascii_still_folds_accents_and_case() {
        assert_eq!(
            super::search_words("Café, İstanbul & H₂O"),
            ["cafe", "istanbul", "h₂o"]
        );
    }
}
