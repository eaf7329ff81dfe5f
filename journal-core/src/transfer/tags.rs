//! Tags found in text and in other apps' files: the one rule of inline `#tags` and
//! `@tags`, and other apps' tags made to fit the journal's.

use std::collections::BTreeSet;

use crate::domain::{MAX_TAGS, TAG_MAX_CHARS, Tag};

/// True for the characters a tag is made of (Unicode letters and digits: `東京`, `café`).
fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

/// Characters that, right before a `#` or `@`, make it part of a word rather than the
/// start of a tag (besides the tag characters themselves): `C#`, `me@example.com`,
/// `example.com/#top`, `&#39;`, `a=#fff`.
const NOT_BEFORE_A_TAG: &str = "#@/\\&=%+~";

/// True when a tag may start right after `prev`: at the start of a line, after white
/// space, or after any punctuation (CJK included: `。#東京`) but the few of
/// [`NOT_BEFORE_A_TAG`].
fn starts_word(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => c.is_whitespace() || !(is_tag_char(c) || NOT_BEFORE_A_TAG.contains(c)),
    }
}

/// Characters a URL is written with (RFC 3986).
fn is_url_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

/// True when `before` (a line up to a `#` or `@`) ends inside a URL (the run of URL
/// characters before it holds `://` or starts with `www.`) or a Markdown link's target
/// (`](#anchor)`).
fn in_link(before: &str) -> bool {
    if before.ends_with("](") {
        return true;
    }
    let start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_url_char(c))
        .last()
        .map_or(before.len(), |(at, _)| at);
    let run = &before[start..];
    run.contains("://") || run.to_ascii_lowercase().starts_with("www.")
}

/// The inline tags of a text: `@word` and `#word` at the start of a word, where a word
/// is letters, digits, `-` and `_`, lower-cased, each once, sorted.
///
/// This is the one rule of inline tags, written down in docs/CLI.md ("Inline tags")
/// and followed by the web editor too (journal-server/web/inline_tags.js) and the CLI; both are
/// tested on the cases of tests/fixtures/inline_tags.json. Change the three together.
///
/// A tag starts a word (see [`starts_word`]). Not tags: a `#` followed by a space (a
/// Markdown heading), anything in a code span or fenced code block, in a URL or a
/// Markdown link's target, a word of digits only (`#1`, an issue number, as Obsidian
/// also reads it), and a word longer than a tag may be.
pub fn inline(text: &str) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut prev = None;
        let mut in_code = false;
        let mut chars = line.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code
                && (c == '@' || c == '#')
                && starts_word(prev)
                && !in_link(&line[..at])
            {
                let rest = &line[at + c.len_utf8()..];
                let word: String = rest.chars().take_while(|&c| is_tag_char(c)).collect();
                let meaningful = word.chars().any(|c| !c.is_ascii_digit());
                if meaningful
                    && word.chars().count() <= TAG_MAX_CHARS
                    && let Ok(tag) = Tag::parse(&word)
                {
                    found.insert(tag.as_str().to_owned());
                }
                for _ in 0..word.chars().count() {
                    chars.next();
                }
                prev = word.chars().last().or(Some(c));
                continue;
            }
            prev = Some(c);
        }
    }
    found.into_iter().collect()
}

/// Tags from another app's file (jrnl, Day One, Markdown front matter), made to fit:
/// a leading `@` or `#` dropped, spaces turned into `-` (`Summer trip` →
/// `summer-trip`). Returns the tags kept, each once and sorted, at most [`MAX_TAGS`],
/// and the ones that could not be kept.
pub fn lenient<S: AsRef<str>>(values: &[S]) -> (Vec<String>, Vec<String>) {
    let mut kept = BTreeSet::new();
    let mut dropped = Vec::new();
    for value in values {
        let raw = value.as_ref().trim();
        let bare = raw.trim_start_matches(['@', '#']);
        let dashed = bare.split_whitespace().collect::<Vec<_>>().join("-");
        match Tag::parse(&dashed) {
            Ok(tag) => {
                kept.insert(tag.as_str().to_owned());
            }
            Err(_) if raw.is_empty() => {}
            Err(_) => dropped.push(raw.to_owned()),
        }
    }
    let mut kept: Vec<String> = kept.into_iter().collect();
    if kept.len() > MAX_TAGS {
        dropped.extend(kept.split_off(MAX_TAGS));
    }
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared cases of the rule, which the web app's browser tests run too.
    #[test]
    fn every_case_of_the_shared_table() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/inline_tags.json"))
                .expect("tests/fixtures/inline_tags.json is JSON");
        let cases = table["cases"].as_array().expect("a list of cases");
        assert!(cases.len() >= 20, "the table lost its cases");
        let mut wrong = Vec::new();
        for case in cases {
            let text = case["text"].as_str().expect("text");
            let expected: Vec<String> = case["tags"]
                .as_array()
                .expect("tags")
                .iter()
                .map(|t| t.as_str().expect("a tag").to_owned())
                .collect();
            let got = inline(text);
            if got != expected {
                wrong.push(format!(
                    "{text:?} ({}): expected {expected:?}, got {got:?}",
                    case["why"]
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn other_apps_tags_are_made_to_fit_and_the_rest_reported() {
        let (kept, dropped) = lenient(&["@Lake", "Summer trip", "c++", "", "#lake"]);
        assert_eq!(kept, vec!["lake", "summer-trip"]);
        assert_eq!(dropped, vec!["c++"]);
        let many: Vec<String> = (0..25).map(|i| format!("t{i:02}")).collect();
        let (kept, dropped) = lenient(&many);
        assert_eq!(kept.len(), MAX_TAGS);
        assert_eq!(dropped.len(), 5);
    }
}
