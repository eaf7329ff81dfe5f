//! Three-way merge of an entry's state for sync: what the replica made (`theirs`, its
//! last revision) and what the server has now (`ours`), both made from `base` (the
//! last revision both had). A field changed on one side takes that side's value; title
//! and text changed on both sides merge line by line (`diff::merge`) where the changes
//! do not overlap; tags merge as sets. Where texts overlap the entry keeps ours, and
//! theirs stays as a revision: nothing typed is lost.

use std::collections::BTreeSet;

use crate::diff;
use crate::domain::{CONTENT_MAX_CHARS, TITLE_MAX_CHARS};
use crate::model::{Entry, Revision};

/// A merged state (title, content, visibility, tags, star, date) as a revision's
/// fields over `theirs`, and whether some text could not be merged.
pub(super) fn merge(base: Option<&Revision>, ours: &Entry, theirs: &Revision) -> (Revision, bool) {
    let mut clash = false;
    let mut text = |b: Option<&str>, o: &str, t: &str, most: usize| -> String {
        let b = b.unwrap_or("");
        if t == b || o == t {
            return o.to_owned();
        }
        if o == b {
            return t.to_owned();
        }
        let merged = diff::merge(b, t, o);
        if merged.conflicts || merged.text.chars().count() > most {
            clash = true;
            o.to_owned()
        } else {
            merged.text
        }
    };
    let title = text(
        base.map(|b| b.title.as_str()),
        &ours.title,
        &theirs.title,
        TITLE_MAX_CHARS,
    );
    let content = text(
        base.map(|b| b.content.as_str()),
        &ours.content,
        &theirs.content,
        CONTENT_MAX_CHARS,
    );
    let merged = Revision {
        title,
        content,
        is_public: scalar(base.map(|b| b.is_public), ours.is_public, theirs.is_public),
        tags: tags(base.map(|b| b.tags.as_slice()), &ours.tags, &theirs.tags),
        starred: scalar(base.map(|b| b.starred), ours.starred, theirs.starred),
        date: scalar(base.map(|b| b.date), ours.date, theirs.date),
        ..theirs.clone()
    };
    (merged, clash)
}

/// A value changed on one side takes that side's; changed on both, ours.
fn scalar<T: PartialEq>(base: Option<T>, ours: T, theirs: T) -> T {
    match base {
        Some(b) if ours == b => theirs,
        _ => ours,
    }
}

/// Each tag as the side that changed it left it: added on either side, it is there;
/// removed on either side, it is gone.
fn tags(base: Option<&[String]>, ours: &[String], theirs: &[String]) -> Vec<String> {
    let base: BTreeSet<&String> = base.unwrap_or(&[]).iter().collect();
    let (o, t): (BTreeSet<&String>, BTreeSet<&String>) =
        (ours.iter().collect(), theirs.iter().collect());
    let every: BTreeSet<&String> = base.iter().chain(&o).chain(&t).copied().collect();
    every
        .into_iter()
        .filter(|tag| {
            let (b, o, t) = (base.contains(tag), o.contains(tag), t.contains(tag));
            // Alike, or ours changed it: ours; else theirs changed it: theirs.
            if o == t || o != b { o } else { t }
        })
        .cloned()
        .collect()
}

/// Whether `entry` holds exactly `state`'s title, text, visibility, tags, star and date.
pub(super) fn same_state(entry: &Entry, state: &Revision) -> bool {
    state.applied_to(entry) == *entry
}
