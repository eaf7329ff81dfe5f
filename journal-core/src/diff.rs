//! Differences between two texts, for people: which words one revision added and
//! removed ([`words`]), and a three-way merge of an edit made from an old revision
//! with the text as it is now ([`merge`]). Both are bounded: a diff gives up looking for
//! the smallest difference after [`DIFF_DEADLINE`] and answers a larger, still correct
//! one, and a merge of texts past [`MERGE_MAX_LINES`] marks them whole, so no texts can
//! hold a thread for long.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// Longest a diff searches for the smallest difference.
pub const DIFF_DEADLINE: Duration = Duration::from_millis(50);

/// One run of a difference: text both sides have, or that only one has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// `same`, `added` (only in the newer text) or `removed` (only in the older).
    pub op: ChangeOp,
    /// The text.
    pub text: String,
}

/// What a [`Change`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeOp {
    /// In both texts.
    Same,
    /// Only in the newer text.
    Added,
    /// Only in the older text.
    Removed,
}

/// The difference from `old` to `new` word by word (spaces kept with the words), runs
/// of one kind joined. Concatenating the `same` and `removed` texts gives `old`; the
/// `same` and `added` texts give `new`.
pub fn words(old: &str, new: &str) -> Vec<Change> {
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_words(old, new);
    let mut out: Vec<Change> = Vec::new();
    for change in diff.iter_all_changes() {
        let op = match change.tag() {
            ChangeTag::Equal => ChangeOp::Same,
            ChangeTag::Insert => ChangeOp::Added,
            ChangeTag::Delete => ChangeOp::Removed,
        };
        match out.last_mut() {
            Some(last) if last.op == op => last.text.push_str(change.value()),
            _ => out.push(Change {
                op,
                text: change.value().to_owned(),
            }),
        }
    }
    out
}

/// A one-line summary of what changed from `old` to `new`: `+12 −3 words`.
pub fn summary(old: &str, new: &str) -> String {
    let (mut added, mut removed) = (0, 0);
    for change in words(old, new) {
        let n = change.text.split_whitespace().count();
        match change.op {
            ChangeOp::Added => added += n,
            ChangeOp::Removed => removed += n,
            ChangeOp::Same => {}
        }
    }
    format!("+{added} −{removed} words")
}

/// A three-way merge: `base` is the text an edit started from, `mine` the edit, and
/// `theirs` the text as it is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// The merged text; where both sides changed the same lines, both versions, between
    /// `<<<<<<< yours`, `=======` and `>>>>>>> current` lines.
    pub text: String,
    /// True when some lines changed on both sides and are marked.
    pub conflicts: bool,
}

/// Most lines a text may have for [`merge`] to look for the changes line by line; the
/// diff under it has no deadline, and its cost grows with lines times changes.
pub const MERGE_MAX_LINES: usize = 5_000;

/// Most lines either side may have added or removed (an edited line is one of each:
/// 100 edited lines) for [`merge`] to merge them line by line: the diff under it costs
/// lines times changes, and 5,000 lines changed on both sides took seconds of CPU a
/// merge. An edit past it is rarely one to merge line by line anyway.
pub const MERGE_MAX_CHANGES: usize = 200;

/// Merges `mine` and `theirs`, both made from `base`, line by line: changes that do
/// not overlap are both kept; overlapping ones are marked. Past [`MERGE_MAX_LINES`]
/// in any of the three, or past [`MERGE_MAX_CHANGES`] changed lines on either side,
/// both whole texts are marked as one clash (nothing is lost, the person picks).
pub fn merge(base: &str, mine: &str, theirs: &str) -> Merged {
    let too_long = [base, mine, theirs]
        .iter()
        .any(|t| t.lines().count() > MERGE_MAX_LINES);
    if too_long
        || !changes_within(base, mine, MERGE_MAX_CHANGES)
        || !changes_within(base, theirs, MERGE_MAX_CHANGES)
    {
        if mine == theirs || theirs == base {
            return Merged {
                text: mine.to_owned(),
                conflicts: false,
            };
        }
        if mine == base {
            return Merged {
                text: theirs.to_owned(),
                conflicts: false,
            };
        }
        let end = |t: &str| if t.ends_with('\n') { "" } else { "\n" };
        return Merged {
            text: format!(
                "<<<<<<< yours\n{mine}{}=======\n{theirs}{}>>>>>>> current\n",
                end(mine),
                end(theirs)
            ),
            conflicts: true,
        };
    }
    let mut options = diffy::MergeOptions::new();
    options.set_conflict_style(diffy::ConflictStyle::Merge);
    match options.merge(base, mine, theirs) {
        Ok(text) => Merged {
            text,
            conflicts: false,
        },
        Err(text) => Merged {
            text: text
                .replace("<<<<<<< ours", "<<<<<<< yours")
                .replace(">>>>>>> theirs", ">>>>>>> current"),
            conflicts: true,
        },
    }
}

/// Whether `b` differs from `a` by at most `most` lines added or removed: Myers'
/// greedy search over line hashes, given up past `most`, so it costs (lines) × `most`
/// whatever the texts. Only a guard: the merge itself is `diffy`'s.
fn changes_within(a: &str, b: &str, most: usize) -> bool {
    let hash = |text: &str| -> Vec<u64> {
        text.split_inclusive('\n')
            .map(|line| {
                let mut h = std::hash::DefaultHasher::new();
                std::hash::Hash::hash(line, &mut h);
                std::hash::Hasher::finish(&h)
            })
            .collect()
    };
    let (a, b) = (hash(a), hash(b));
    let (n, m) = (a.len() as isize, b.len() as isize);
    if (n - m).unsigned_abs() > most {
        return false;
    }
    let most = most as isize;
    // furthest[k + most + 1]: how far along `a` the path on diagonal k reaches.
    let mut furthest = vec![0isize; 2 * most as usize + 3];
    let at = |k: isize| (k + most + 1) as usize;
    for d in 0..=most {
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && furthest[at(k - 1)] < furthest[at(k + 1)]) {
                furthest[at(k + 1)]
            } else {
                furthest[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            furthest[at(k)] = x;
            if x >= n && y >= m {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(changes: &[Change], skip: ChangeOp) -> String {
        changes
            .iter()
            .filter(|c| c.op != skip)
            .map(|c| c.text.as_str())
            .collect()
    }

    #[test]
    fn a_diff_rebuilds_both_texts() {
        let (old, new) = ("the cat sat on the mat", "the dog sat on a mat today");
        let changes = words(old, new);
        assert_eq!(side(&changes, ChangeOp::Added), old);
        assert_eq!(side(&changes, ChangeOp::Removed), new);
        assert!(
            changes
                .iter()
                .any(|c| c.op == ChangeOp::Added && c.text.contains("dog"))
        );
        assert_eq!(summary(old, new), "+3 −2 words");
    }

    #[test]
    fn edits_on_different_lines_merge_cleanly_and_overlaps_are_marked() {
        let base = "one\ntwo\nthree\n";
        let clean = merge(base, "ONE\ntwo\nthree\n", "one\ntwo\nTHREE\n");
        assert_eq!(clean.text, "ONE\ntwo\nTHREE\n");
        assert!(!clean.conflicts);
        let marked = merge(base, "one\nmine\nthree\n", "one\ntheirs\nthree\n");
        assert!(marked.conflicts);
        assert!(
            marked
                .text
                .contains("<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> current")
        );
    }

    fn numbered(lines: usize, edited: impl Fn(usize) -> bool, side: &str) -> String {
        (0..lines)
            .map(|i| {
                if edited(i) {
                    format!("{side} {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect()
    }

    #[test]
    fn far_apart_edits_of_a_long_text_merge_and_too_many_are_one_clash() {
        let base = numbered(3_000, |_| false, "");
        let ends = numbered(3_000, |i| i == 0 || i == 2_999, "mine");
        let middle = numbered(3_000, |i| i == 2_501, "theirs");
        let clean = merge(&base, &ends, &middle);
        assert!(!clean.conflicts);
        assert!(clean.text.starts_with("mine 0\n") && clean.text.contains("theirs 2501\n"));

        // Within the bound on both sides: merged line by line.
        let most = MERGE_MAX_CHANGES / 2;
        let many = numbered(3_000, |i| i % 20 == 0 && i / 20 < most, "mine");
        assert!(!merge(&base, &many, &middle).conflicts);
        // One edited line more: both whole texts, marked as one clash.
        let more = numbered(3_000, |i| i % 20 == 0 && i / 20 <= most, "mine");
        let clash = merge(&base, &more, &middle);
        assert!(clash.conflicts);
        assert!(clash.text.contains(&more) && clash.text.contains(&middle));
    }
}
