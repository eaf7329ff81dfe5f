//! Shared pieces of the benchmark harness: realistic entry text, and the description of
//! a seeded database that `seed` writes and `bench/run` reads.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// The word every bench search looks for. It is kept out of the ordinary vocabulary and
/// put into [`SEARCH_TERM_SHARE`] of the entries, so its hit count is known: about 5 for
/// the light user, about 2,500 for a heavy user with 50,000 entries.
pub const SEARCH_TERM: &str = "garden";
/// Share of entries that contain [`SEARCH_TERM`].
pub const SEARCH_TERM_SHARE: f64 = 0.05;
/// The password of every seeded user (not in the common-passwords list).
pub const PASSWORD: &str = "bench-password-correct-horse";

/// One seeded account the load scenarios log in as.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Account {
    /// Login e-mail.
    pub email: String,
    /// User id.
    pub id: String,
    /// How many entries the account owns.
    pub entries: u64,
    /// Up to 100 of its entry ids (for single-entry reads and updates).
    pub entry_ids: Vec<String>,
}

/// What `seed` made, written as JSON next to the database.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Seeded {
    /// The database URL (password redacted).
    pub database: String,
    /// Users created.
    pub users: u64,
    /// Entries created.
    pub entries: u64,
    /// Public entries of public profiles (the public feed's length).
    pub public_feed: u64,
    /// Users with a private profile.
    pub private_profiles: u64,
    /// The password of every account.
    pub password: String,
    /// The word searched for.
    pub search_term: String,
    /// Users with 50,000 entries or more.
    pub heavy: Vec<Account>,
    /// A user with about 100 entries.
    pub light: Account,
    /// A user with a few dozen entries, who creates entries in the write scenarios.
    pub writer: Account,
    /// Seconds the seeding took.
    pub seconds: f64,
}

/// Everyday words, most frequent first; drawn with a Zipf-like law so the text has a
/// realistic shape for the full-text index (a few very common words, a long tail).
const WORDS: &[&str] = &[
    "the",
    "and",
    "to",
    "a",
    "i",
    "of",
    "it",
    "in",
    "was",
    "that",
    "my",
    "we",
    "for",
    "with",
    "on",
    "but",
    "is",
    "so",
    "had",
    "at",
    "this",
    "be",
    "not",
    "day",
    "all",
    "went",
    "after",
    "some",
    "about",
    "time",
    "today",
    "back",
    "then",
    "out",
    "there",
    "morning",
    "just",
    "more",
    "what",
    "up",
    "from",
    "when",
    "me",
    "they",
    "like",
    "good",
    "very",
    "still",
    "into",
    "home",
    "work",
    "walk",
    "long",
    "again",
    "felt",
    "little",
    "night",
    "think",
    "coffee",
    "friends",
    "evening",
    "week",
    "before",
    "much",
    "rain",
    "city",
    "first",
    "new",
    "read",
    "book",
    "train",
    "dinner",
    "quiet",
    "tired",
    "happy",
    "afternoon",
    "kitchen",
    "window",
    "letter",
    "music",
    "river",
    "bread",
    "market",
    "children",
    "sister",
    "brother",
    "mother",
    "father",
    "office",
    "meeting",
    "project",
    "weekend",
    "holiday",
    "summer",
    "winter",
    "autumn",
    "spring",
    "snow",
    "sunlight",
    "clouds",
    "wind",
    "bicycle",
    "station",
    "bridge",
    "forest",
    "mountain",
    "lake",
    "beach",
    "ocean",
    "harbour",
    "village",
    "street",
    "corner",
    "library",
    "museum",
    "concert",
    "theatre",
    "painting",
    "drawing",
    "writing",
    "notes",
    "idea",
    "plan",
    "list",
    "dream",
    "memory",
    "conversation",
    "phone",
    "message",
    "email",
    "news",
    "doctor",
    "appointment",
    "exercise",
    "running",
    "swimming",
    "cooking",
    "recipe",
    "soup",
    "tea",
    "cake",
    "apples",
    "tomatoes",
    "flowers",
    "roses",
    "tulips",
    "birds",
    "cat",
    "dog",
    "neighbour",
    "stairs",
    "roof",
    "lamp",
    "candle",
    "blanket",
    "sweater",
    "shoes",
    "umbrella",
    "journey",
    "airport",
    "flight",
    "hotel",
    "map",
    "language",
    "lesson",
    "teacher",
    "student",
    "exam",
    "question",
    "answer",
    "problem",
    "solution",
    "budget",
    "rent",
    "groceries",
    "laundry",
    "repair",
    "garage",
    "tools",
    "paint",
    "wood",
    "stone",
    "glass",
    "paper",
    "pencil",
    "camera",
    "photograph",
    "film",
    "story",
    "chapter",
    "poem",
    "song",
    "guitar",
    "piano",
    "violin",
    "rehearsal",
    "festival",
    "birthday",
    "wedding",
    "anniversary",
    "celebration",
    "gift",
    "surprise",
    "patience",
    "gratitude",
    "worry",
    "calm",
    "anxious",
    "excited",
    "grateful",
    "curious",
    "restless",
    "hopeful",
    "stubborn",
    "gentle",
    "careful",
    "honest",
    "brave",
    "slowly",
    "quickly",
    "suddenly",
    "finally",
    "perhaps",
    "tomorrow",
    "yesterday",
    "tonight",
    "everything",
    "nothing",
    "somewhere",
    "together",
    "alone",
    "outside",
    "inside",
    "behind",
    "between",
    "across",
    "around",
    "through",
    "during",
    "without",
    "although",
    "because",
    "café",
    "naïve",
    "résumé",
    "Zürich",
    "São",
    "Kraków",
    "crème",
    "fiancée",
    "piñata",
];

/// Draws text for entries. Deterministic for a given seed.
pub struct TextGen {
    cumulative: Vec<f64>,
}

impl Default for TextGen {
    fn default() -> Self {
        Self::new()
    }
}

impl TextGen {
    /// A generator over the built-in vocabulary.
    pub fn new() -> TextGen {
        let mut total = 0.0;
        let cumulative = (0..WORDS.len())
            .map(|rank| {
                total += 1.0 / (rank as f64 + 2.0);
                total
            })
            .collect();
        TextGen { cumulative }
    }

    fn word(&self, rng: &mut impl Rng) -> &'static str {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let x = rng.random::<f64>() * total;
        let i = self.cumulative.partition_point(|c| *c < x);
        WORDS[i.min(WORDS.len() - 1)]
    }

    /// A title of 2 to 7 words, capitalised.
    pub fn title(&self, rng: &mut impl Rng) -> String {
        let n = rng.random_range(2..=7);
        let mut words: Vec<String> = (0..n).map(|_| self.word(rng).to_owned()).collect();
        if let Some(first) = words.first_mut() {
            let mut chars = first.chars();
            if let Some(c) = chars.next() {
                *first = c.to_uppercase().chain(chars).collect();
            }
        }
        words.join(" ")
    }

    /// Content of 20 to 120 words in sentences, containing [`SEARCH_TERM`] with
    /// probability [`SEARCH_TERM_SHARE`].
    pub fn content(&self, rng: &mut impl Rng) -> String {
        let n = rng.random_range(20..=120);
        let with_term = rng.random::<f64>() < SEARCH_TERM_SHARE;
        let term_at = rng.random_range(0..n);
        let mut out = String::with_capacity(n * 7);
        let mut sentence_start = true;
        for i in 0..n {
            let word = if with_term && i == term_at {
                SEARCH_TERM
            } else {
                self.word(rng)
            };
            if !out.is_empty() {
                out.push(' ');
            }
            if sentence_start {
                let mut chars = word.chars();
                if let Some(c) = chars.next() {
                    out.extend(c.to_uppercase());
                    out.push_str(chars.as_str());
                }
                sentence_start = false;
            } else {
                out.push_str(word);
            }
            if rng.random_range(0..12) == 0 || i + 1 == n {
                out.push('.');
                sentence_start = true;
            } else if rng.random_range(0..15) == 0 {
                out.push(',');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn text_has_the_search_term_in_about_its_share_of_entries() {
        let text = TextGen::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let hits = (0..10_000)
            .filter(|_| text.content(&mut rng).contains(SEARCH_TERM))
            .count();
        assert!((300..700).contains(&hits), "{hits}");
    }

    #[test]
    fn titles_are_valid_titles() {
        let text = TextGen::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for _ in 0..1000 {
            let t = text.title(&mut rng);
            assert!(journal_core::domain::Title::parse(&t).is_ok(), "{t}");
        }
    }
}
