//! Tags from another app's file, made to fit the journal's.

use std::collections::BTreeSet;

use crate::domain::{MAX_TAGS, Tag};

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
