//! Search: the words of a text, and a query reduced to them.
//!
//! This is the one rule for how text is split for search; both stores use it. SQLite
//! indexes what [`index_words`] gives; PostgreSQL's index functions (its migration 12)
//! apply the same rule in SQL, with the character table [`RUN_CHARS`] spelled out as
//! [`run_class`] writes it (a test compares them).

use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

use crate::error::ValidationError;

/// Characters of scripts written without spaces between words (Chinese, Japanese kana
/// and kanji, Thai, Lao, Khmer, Myanmar) and Hangul, as inclusive ranges. A run of them
/// has no word boundaries to index by, so it is indexed as overlapping pairs of
/// characters (see [`index_words`]). Punctuation inside these blocks (`・`, `๏`, `〇`,
/// which unaccent turns into `0`) is left out, so it separates runs as it does words.
/// Hangul is written with spaces, but particles attach to words (`서울에서`), so
/// pairs find a word inside them too.
pub const RUN_CHARS: &[(char, char)] = &[
    ('\u{0E01}', '\u{0E3A}'),   // Thai letters, vowels and marks
    ('\u{0E40}', '\u{0E4E}'),   // Thai vowels, repetition and tone marks
    ('\u{0E50}', '\u{0E59}'),   // Thai digits
    ('\u{0E81}', '\u{0ECE}'),   // Lao
    ('\u{0ED0}', '\u{0ED9}'),   // Lao digits
    ('\u{0EDC}', '\u{0EDF}'),   // Lao
    ('\u{1000}', '\u{1049}'),   // Myanmar letters, marks, digits
    ('\u{1050}', '\u{109F}'),   // Myanmar
    ('\u{1780}', '\u{17D3}'),   // Khmer letters and marks
    ('\u{17DC}', '\u{17DD}'),   // Khmer
    ('\u{17E0}', '\u{17E9}'),   // Khmer digits
    ('\u{3005}', '\u{3006}'),   // 々 〆
    ('\u{3041}', '\u{3096}'),   // Hiragana
    ('\u{3099}', '\u{309F}'),   // kana voicing marks, ゝ ゞ ゟ
    ('\u{30A1}', '\u{30FA}'),   // Katakana
    ('\u{30FC}', '\u{30FF}'),   // ー ヽ ヾ ヿ
    ('\u{31F0}', '\u{31FF}'),   // Katakana for Ainu
    ('\u{3400}', '\u{4DBF}'),   // CJK ideographs, extension A
    ('\u{4E00}', '\u{9FFF}'),   // CJK ideographs
    ('\u{AC00}', '\u{D7A3}'),   // Hangul syllables
    ('\u{F900}', '\u{FAFF}'),   // CJK compatibility ideographs
    ('\u{FF66}', '\u{FF9F}'),   // half-width Katakana
    ('\u{20000}', '\u{3FFFD}'), // CJK ideographs, extensions B onwards
];

/// Whether `c` is one of [`RUN_CHARS`].
pub fn is_run_char(c: char) -> bool {
    // The ranges are sorted: a binary search finds the last one starting at or before c.
    let at = RUN_CHARS.partition_point(|&(start, _)| start <= c);
    at > 0 && c <= RUN_CHARS[at - 1].1
}

/// [`RUN_CHARS`] as a bracket expression for PostgreSQL's regular expressions, with
/// each character written as `\uXXXX` or `\UXXXXXXXX`. PostgreSQL's migration 12 holds
/// this text; a test checks it does.
pub fn run_class() -> String {
    let esc = |c: char| {
        if (c as u32) <= 0xFFFF {
            format!("\\u{:04X}", c as u32)
        } else {
            format!("\\U{:08X}", c as u32)
        }
    };
    let ranges: String = RUN_CHARS
        .iter()
        .map(|&(a, b)| format!("{}-{}", esc(a), esc(b)))
        .collect();
    format!("[{ranges}]")
}

/// Most characters of such runs indexed in one text (a title, a body, the tags): the
/// rest of a longer text is still indexed by its other words, not by its pairs.
/// PostgreSQL keeps word positions up to 16,383, and a phrase of pairs needs them, so
/// the pairs of the title (200 characters), the tags (1,000) and the body must fit
/// below that; it also bounds the index's
/// size per entry (a body of 100,000 CJK characters would be 100,000 terms).
pub const MAX_RUN_CHARS_INDEXED: usize = 15_000;

/// The words of a text as search sees them: lower-cased, accents removed (`Café` is
/// `cafe`), split into runs of letters and digits. Every other character (quotes, `*`,
/// `-`, `%`, emoji) only separates words. A run of [`RUN_CHARS`] is a word of its own
/// (`東京abc` is `東京` and `abc`), kept as written: the marks that are part of those
/// scripts (`が`'s voicing, Thai vowels) are not accents.
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
    let lower = text.to_lowercase();
    let mut folded = String::with_capacity(lower.len());
    let mut rest = lower.as_str();
    // Spans of run characters are kept as they are; the spans between them are folded.
    while !rest.is_empty() {
        let run = rest.find(|c: char| !is_run_char(c)).unwrap_or(rest.len());
        folded.push_str(&rest[..run]);
        rest = &rest[run..];
        let other = rest.find(is_run_char).unwrap_or(rest.len());
        let before = folded.len();
        folded.extend(rest[..other].nfd().filter(|&c| !is_combining_mark(c)));
        if other > 0 && folded.len() == before {
            // Only marks between two runs (`東\u{301}京`): they still part them, as
            // they do in PostgreSQL's index, which sees them as they are.
            folded.push(' ');
        }
        rest = &rest[other..];
    }
    let mut words = Vec::new();
    for word in folded
        .split(|c: char| !c.is_alphanumeric() && !is_run_char(c))
        .filter(|w| !w.is_empty())
    {
        // A word mixing a run with other letters (`東京2024年`) is split between them.
        let mut rest = word;
        while let Some(first) = rest.chars().next() {
            let run = is_run_char(first);
            let end = rest
                .find(|c: char| is_run_char(c) != run)
                .unwrap_or(rest.len());
            words.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    words
}

/// Whether `word` (one of [`search_words`]) is a run of [`RUN_CHARS`].
pub fn is_run(word: &str) -> bool {
    word.chars().next().is_some_and(is_run_char)
}

/// The terms the search index holds for a text: its words ([`search_words`]), each run
/// of [`RUN_CHARS`] as the pairs of characters that overlap in it, one for each of its
/// characters: each character with the one after it, and the last alone (`東京の朝` is
/// `東京 京の の朝 朝`). Any two or more characters of a run are then a phrase of pairs
/// (`京の朝` is `京の の朝`), and one character the beginning of a term (`朝` finds
/// `の朝`'s `朝`, and `朝ご` too). Only the first [`MAX_RUN_CHARS_INDEXED`] run
/// characters of the text are indexed.
pub fn index_words(text: &str) -> Vec<String> {
    let words = search_words(text);
    if !words.iter().any(|w| is_run(w)) {
        return words;
    }
    let mut out = Vec::with_capacity(words.len());
    let mut budget = MAX_RUN_CHARS_INDEXED;
    for word in words {
        if !is_run(&word) {
            out.push(word);
            continue;
        }
        let chars: Vec<char> = word.chars().take(budget).collect();
        budget -= chars.len();
        out.extend(pairs(&chars));
        out.extend(chars.last().map(|c| c.to_string()));
    }
    out
}

/// The overlapping pairs of `chars`: one fewer than its characters.
fn pairs(chars: &[char]) -> impl Iterator<Item = String> + '_ {
    chars.windows(2).map(|w| w.iter().collect())
}

/// A search query, reduced to the words it contains (see [`search_words`]).
///
/// Each store turns the words into its own full-text syntax, so no user text ever
/// reaches a query parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    terms: Vec<String>,
}

/// How a store looks up one word of a query: the index terms that must follow each
/// other (a phrase), and whether the last may be the beginning of a longer term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// The index terms, in order; one for a word of letters and digits.
    pub terms: Vec<String>,
    /// Whether the last term matches any index term it begins.
    pub prefix: bool,
}

impl SearchQuery {
    /// Most words a query keeps; the rest are ignored. A run of [`RUN_CHARS`] counts as
    /// many as it has pairs, a single such character as two (see
    /// [`SearchQuery::lookups`]), so no query costs more than this many words: a run
    /// longer than what is left is searched by its beginning.
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
        let mut left = Self::MAX_TERMS;
        for word in search_words(value) {
            // A run of n characters is n - 1 pairs: cut to what is left.
            let keep = if is_run(&word) {
                left + 1
            } else {
                Self::MAX_TERM_CHARS
            };
            let term: String = word.chars().take(keep).collect();
            if terms.contains(&term) {
                continue;
            }
            let cost = Self::cost(&term);
            if cost > left {
                break;
            }
            left -= cost;
            terms.push(term);
            if left == 0 {
                break;
            }
        }
        Ok(SearchQuery { terms })
    }

    /// What looking `term` up costs, in words: one for a word; for a run, one per pair;
    /// two for a single character of a run, which expands over every pair it begins
    /// (measured: sixteen such characters cost more than sixteen words that each match
    /// every entry, eight cost about half as much; tests/tests/security/cost.rs).
    fn cost(term: &str) -> usize {
        if !is_run(term) {
            return 1;
        }
        match term.chars().count() {
            1 => 2,
            n => n - 1,
        }
    }

    /// Shortest word searched as a prefix (`gar` finds `garden`); shorter words match
    /// whole words only. A one- or two-letter prefix would expand to most of a
    /// journal's vocabulary, and rank every entry, for one keystroke. (A single
    /// character of [`RUN_CHARS`] is the exception: see [`SearchQuery::lookups`].)
    pub const MIN_PREFIX_CHARS: usize = 3;

    /// The words, lower-cased and without accents, each made only of letters and digits,
    /// or only of [`RUN_CHARS`].
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The words as the index holds them ([`index_words`]): a word of letters and digits
    /// is one term, a prefix when it is long enough ([`SearchQuery::is_prefix`]); a run
    /// of two or more [`RUN_CHARS`] is the phrase of its pairs; a single such character
    /// is the beginning of a term, which finds it wherever it is (the pair it starts,
    /// or itself at the end of a run). It expands over the pairs that begin with it, as
    /// a three-letter prefix expands over the words that do.
    pub fn lookups(&self) -> impl Iterator<Item = Lookup> + '_ {
        self.terms.iter().map(|t| {
            if !is_run(t) {
                return Lookup {
                    terms: vec![t.clone()],
                    prefix: Self::is_prefix(t),
                };
            }
            let chars: Vec<char> = t.chars().collect();
            if chars.len() == 1 {
                return Lookup {
                    terms: vec![t.clone()],
                    prefix: true,
                };
            }
            Lookup {
                terms: pairs(&chars).collect(),
                prefix: false,
            }
        })
    }

    /// Whether `term` (one of [`SearchQuery::terms`], of letters and digits) matches as
    /// a word prefix, or only as a whole word (see [`SearchQuery::MIN_PREFIX_CHARS`]).
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

    use super::*;

    proptest! {
        /// The ASCII shortcut finds exactly the words the Unicode path finds.
        #[test]
        fn ascii_text_folds_as_any_text_does(text in "[ -~\t\n]{0,200}") {
            prop_assert_eq!(search_words(&text), unicode_words(&text));
        }

        /// No query looks up more than MAX_TERMS index terms, or more than half as many
        /// single characters, whatever it holds.
        #[test]
        fn a_query_looks_up_at_most_max_terms(text in "[a-z 静か東京の朝ไม่ดี、]{1,300}") {
            // Spaces and marks alone are no query (400 on the API), nothing to bound.
            let Ok(q) = SearchQuery::parse(&text) else {
                return Ok(());
            };
            let n: usize = q.lookups().map(|l| l.terms.len()).sum();
            prop_assert!(n <= SearchQuery::MAX_TERMS, "{n} terms for {text:?}");
            let singles = q.lookups().filter(|l| l.prefix && is_run(&l.terms[0])).count();
            prop_assert!(singles <= SearchQuery::MAX_TERMS / 2, "{singles} for {text:?}");
        }
    }

    #[test]
    fn text_beyond_ascii_still_folds_accents_and_case() {
        assert_eq!(
            search_words("Café, İstanbul & H₂O"),
            ["cafe", "istanbul", "h₂o"]
        );
    }

    #[test]
    fn runs_are_words_of_their_own_and_keep_their_marks() {
        assert_eq!(
            search_words("今日は静かな朝でした。東京2024年・ราคาไม่แพง Ｃafé"),
            [
                "今日は静かな朝でした",
                "東京",
                "2024",
                "年",
                "ราคาไม่แพง",
                "ｃafe"
            ]
        );
        // A decomposed が stays two characters, as PostgreSQL keeps it.
        assert_eq!(search_words("か\u{3099}"), ["か\u{3099}"]);
    }

    #[test]
    fn runs_are_indexed_as_overlapping_pairs_and_their_last_character() {
        assert_eq!(
            index_words("東京の朝, morning 静か"),
            ["東京", "京の", "の朝", "朝", "morning", "静か", "か"]
        );
        assert_eq!(index_words("Latin words only"), ["latin", "words", "only"]);
        let long: String = "字".repeat(MAX_RUN_CHARS_INDEXED + 10) + " end";
        let words = index_words(&long);
        assert_eq!(words.len(), MAX_RUN_CHARS_INDEXED + 1);
        assert_eq!(words.last().map(String::as_str), Some("end"));
    }

    #[test]
    fn a_query_run_is_the_phrase_of_its_pairs() {
        let q = SearchQuery::parse("東京の 朝 garden").unwrap();
        let lookups: Vec<Lookup> = q.lookups().collect();
        assert_eq!(lookups[0].terms, ["東京", "京の"]);
        assert!(!lookups[0].prefix);
        assert_eq!(lookups[1].terms, ["朝"]);
        assert!(lookups[1].prefix);
        assert_eq!(lookups[2].terms, ["garden"]);
    }

    #[test]
    fn a_long_run_is_searched_by_its_beginning() {
        let q = SearchQuery::parse(&"東京".repeat(500)).unwrap();
        assert_eq!(q.terms().len(), 1);
        assert_eq!(q.terms()[0].chars().count(), SearchQuery::MAX_TERMS + 1);
        let q = SearchQuery::parse("a b c d e f g h i j k l m n o 東京の朝").unwrap();
        assert_eq!(q.terms().last().map(String::as_str), Some("東京"));
        // A single character counts twice: the fifteenth word leaves no room for it.
        let q = SearchQuery::parse("a b c d e f g h i j k l m n o 朝").unwrap();
        assert_eq!(q.terms().len(), 15);
        let all: String = "今日は仕事の長い一日で川沿を歩て帰"
            .chars()
            .map(|c| format!("{c} "))
            .collect();
        assert_eq!(SearchQuery::parse(&all).unwrap().terms().len(), 8);
    }

    #[test]
    fn the_run_table_is_sorted_and_disjoint() {
        for pair in RUN_CHARS.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
        assert!(is_run_char('朝') && is_run_char('\u{20000}') && is_run_char('ไ'));
        assert!(!is_run_char('・') && !is_run_char('a') && !is_run_char('〇'));
    }
}
