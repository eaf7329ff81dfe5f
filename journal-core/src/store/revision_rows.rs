//! Revisions as stored, written once for both backends: what a change writes (the
//! decision in [`plan_update`]), how a revision's text is kept small, and how stored
//! rows become [`Revision`]s again ([`rebuild`]).
//!
//! A revision's text is kept whole (a snapshot) or as a delta against the revision
//! stored just before it: how many bytes the two share at the start and at the end,
//! and the text in between. One edit anywhere in a long entry costs the edit, not the
//! entry. Every [`SNAPSHOT_EVERY`]th revision is whole, so rebuilding any revision
//! applies fewer than that many deltas; pruning makes the first revision kept after a
//! gap whole again.

use serde::{Deserialize, Serialize};

use crate::domain::{EntryId, RevisionId, Timestamp, UserId};
use crate::input::EntryChanges;
use crate::model::{EditedVia, Entry, Revision};

/// Revisions 1, 1 + this, 1 + 2 × this, … keep their text whole.
pub const SNAPSHOT_EVERY: u32 = 100;

/// How a change to an entry is made: when, with which credential, and on which
/// condition. Given to [`Store::update_entry`](super::Store::update_entry) and
/// [`Store::delete_entry`](super::Store::delete_entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// When.
    pub at: Timestamp,
    /// By which kind of credential.
    pub via: EditedVia,
    /// Change only an entry of this author (`None`: anyone's, as an admin deletes). The
    /// store checks it in the write itself, so a write needs no read before it.
    pub author: Option<UserId>,
    /// Change only if this is still the entry's current revision (`If-Match`).
    pub if_match: Option<RevisionId>,
    /// The id the new revision gets, if the change makes one.
    pub revision_id: RevisionId,
}

/// What a conditional write did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryWrite<T> {
    /// Done; here is the result.
    Done(T),
    /// There is no such entry.
    Missing,
    /// The entry is not [`Edit::author`]'s: nothing changed.
    Foreign,
    /// The entry's current revision is not the one the caller named: nothing changed.
    Stale {
        /// The entry as it is now.
        current: Box<Entry>,
    },
}

/// One stored revision row, as both backends keep it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RevisionRow {
    pub id: RevisionId,
    pub entry_id: EntryId,
    pub author_id: UserId,
    pub parent_id: Option<RevisionId>,
    pub revision: u32,
    pub edited_at: Timestamp,
    pub via: EditedVia,
    /// [`RevisionState`] as JSON: everything but the text; empty in a delta whose
    /// state is its predecessor's (most edits change the text only).
    pub state: String,
    /// The whole text, or the middle of a delta.
    pub content: String,
    /// For a delta: bytes kept from the start and from the end of the text before.
    pub delta: Option<(u32, u32)>,
}

/// The columns of a revision row, in the order both backends write and read them.
pub(crate) const REVISION_COLUMNS: &str = "id, entry_id, author_id, parent_id, revision, \
     edited_at, via, state, content, keep_prefix, keep_suffix";

/// A revision's fields other than its text, as the migrations that made the first
/// revisions of existing entries wrote them too: tags as one space-separated text,
/// the date in milliseconds.
#[derive(Serialize, Deserialize)]
struct RevisionState {
    title: String,
    #[serde(rename = "isPublic")]
    is_public: bool,
    tags: String,
    starred: bool,
    date: i64,
}

impl RevisionRow {
    /// The row of an entry's revision as it is now, its text whole.
    pub fn snapshot(
        entry: &Entry,
        parent_id: Option<RevisionId>,
        at: Timestamp,
        via: EditedVia,
    ) -> RevisionRow {
        RevisionRow {
            id: entry.revision_id,
            entry_id: entry.id,
            author_id: entry.author_id,
            parent_id,
            revision: entry.revision,
            edited_at: at,
            via,
            state: state_of(entry),
            content: entry.content.clone(),
            delta: None,
        }
    }

    /// The row of `next`, a change of `previous` (the revision stored just before),
    /// its text as a delta unless a snapshot is due or the delta would not be smaller.
    pub(crate) fn after(previous: &Entry, next: &Entry, edit: &Edit) -> RevisionRow {
        let mut row = RevisionRow::snapshot(next, Some(previous.revision_id), edit.at, edit.via);
        if next.revision % SNAPSHOT_EVERY != 1 {
            let (prefix, suffix) = shared_ends(&previous.content, &next.content);
            let middle = &next.content[prefix..next.content.len() - suffix];
            if middle.len() + 16 < next.content.len() {
                row.content = middle.to_owned();
                row.delta = Some((prefix as u32, suffix as u32));
                if state_of(previous) == row.state {
                    row.state.clear();
                }
            }
        }
        row
    }
}

/// The first revision of a new entry: the entry exactly as created.
pub(crate) fn first_revision(entry: &Entry, via: EditedVia) -> RevisionRow {
    RevisionRow::snapshot(entry, None, entry.updated_at, via)
}

fn state_of(e: &Entry) -> String {
    state_json(&e.title, e.is_public, &e.tags, e.starred, e.date)
}

fn state_of_revision(r: &Revision) -> String {
    state_json(&r.title, r.is_public, &r.tags, r.starred, r.date)
}

fn state_json(
    title: &str,
    is_public: bool,
    tags: &[String],
    starred: bool,
    date: Timestamp,
) -> String {
    serde_json::to_string(&RevisionState {
        title: title.to_owned(),
        is_public,
        tags: tags.join(" "),
        starred,
        date: date.as_millis(),
    })
    .expect("a revision's state serialises")
}

/// The bytes `a` and `b` share at their start and at their end (not overlapping), on
/// character boundaries of both.
fn shared_ends(a: &str, b: &str) -> (usize, usize) {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut prefix = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    while !(a.is_char_boundary(prefix) && b.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let most = x.len().min(y.len()) - prefix;
    let mut suffix = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(most)
        .take_while(|(p, q)| p == q)
        .count();
    while !(a.is_char_boundary(a.len() - suffix) && b.is_char_boundary(b.len() - suffix)) {
        suffix -= 1;
    }
    (prefix, suffix)
}

/// What an update does to `current`.
pub(crate) enum UpdatePlan {
    /// The changes leave the entry as it is: write nothing, answer `current`.
    Unchanged,
    /// Write the changes (the entry becomes `next`) and this revision row.
    Write { next: Box<Entry>, row: RevisionRow },
}

/// Why `edit` may not change `current`, if it may not: another author's entry, or
/// `If-Match` naming another revision.
pub(crate) fn refusal<T>(current: &Entry, edit: &Edit) -> Option<EntryWrite<T>> {
    if edit.author.is_some_and(|a| a != current.author_id) {
        return Some(EntryWrite::Foreign);
    }
    if edit.if_match.is_some_and(|id| id != current.revision_id) {
        return Some(EntryWrite::Stale {
            current: Box::new(current.clone()),
        });
    }
    None
}

/// Decides what an update of `current` by `changes` writes, once [`refusal`] found
/// nothing against it.
pub(crate) fn plan_update(current: &Entry, changes: &EntryChanges, edit: &Edit) -> UpdatePlan {
    let mut next = current.clone();
    if let Some(t) = &changes.title {
        next.title = t.as_ref().to_owned();
    }
    if let Some(c) = &changes.content {
        next.content = c.as_ref().to_owned();
    }
    if let Some(p) = changes.is_public {
        next.is_public = p;
    }
    if let Some(t) = &changes.tags {
        next.tags = t.clone().into_inner();
    }
    if let Some(s) = changes.starred {
        next.starred = s;
    }
    if let Some(d) = changes.date {
        next.date = d;
    }
    if next == *current {
        return UpdatePlan::Unchanged;
    }
    next.revision = current.revision + 1;
    next.revision_id = edit.revision_id;
    next.updated_at = edit.at;
    let row = RevisionRow::after(current, &next, edit);
    UpdatePlan::Write {
        next: Box::new(next),
        row,
    }
}

/// Why stored rows could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("revision {revision} of entry {entry} is damaged: {why}")]
pub(crate) struct DamagedRevision {
    entry: EntryId,
    revision: u32,
    why: &'static str,
}

/// The revisions `rows` hold, in the rows' order (oldest first). The first row must be
/// a snapshot; each delta applies to the text of the row before it.
pub(crate) fn rebuild(rows: Vec<RevisionRow>) -> Result<Vec<Revision>, DamagedRevision> {
    let mut out: Vec<Revision> = Vec::with_capacity(rows.len());
    for row in rows {
        let damaged = |why| DamagedRevision {
            entry: row.entry_id,
            revision: row.revision,
            why,
        };
        let content = match row.delta {
            None => row.content,
            Some((prefix, suffix)) => {
                let before = &out
                    .last()
                    .ok_or_else(|| damaged("a delta with nothing before it"))?
                    .content;
                let (prefix, suffix) = (prefix as usize, suffix as usize);
                if prefix + suffix > before.len()
                    || !before.is_char_boundary(prefix)
                    || !before.is_char_boundary(before.len() - suffix)
                {
                    return Err(damaged("a delta that does not fit the text before it"));
                }
                let mut text = String::with_capacity(prefix + row.content.len() + suffix);
                text.push_str(&before[..prefix]);
                text.push_str(&row.content);
                text.push_str(&before[before.len() - suffix..]);
                text
            }
        };
        let revision = match (row.state.is_empty(), row.delta, out.last()) {
            (true, Some(_), Some(before)) => Revision {
                id: row.id,
                parent_id: row.parent_id,
                revision: row.revision,
                content,
                edited_at: row.edited_at,
                edited_via: row.via,
                ..before.clone()
            },
            _ => {
                let state: RevisionState = serde_json::from_str(&row.state)
                    .map_err(|_| damaged("its state is not JSON"))?;
                Revision {
                    id: row.id,
                    parent_id: row.parent_id,
                    entry_id: row.entry_id,
                    revision: row.revision,
                    title: state.title,
                    content,
                    is_public: state.is_public,
                    tags: state
                        .tags
                        .split(' ')
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    starred: state.starred,
                    date: Timestamp::from_millis(state.date),
                    edited_at: row.edited_at,
                    edited_via: row.via,
                }
            }
        };
        out.push(revision);
    }
    Ok(out)
}

/// How much history to keep (`--history-keep`, `--history-days`): by default all of
/// it. A revision goes when it is past either limit that is set; an entry's first and
/// current revisions always stay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryKeep {
    /// Keep this many latest revisions of each entry (at least 1: the current one).
    pub revisions: Option<u32>,
    /// Keep revisions made in this many last days.
    pub days: Option<u32>,
}

impl HistoryKeep {
    /// True when nothing is ever pruned.
    pub fn keeps_everything(&self) -> bool {
        self.revisions.is_none() && self.days.is_none()
    }

    /// Whether revision `r` of an entry whose current revision is `current` goes, at
    /// `now`.
    fn prunes(&self, r: &RevisionRow, current: u32, now: Timestamp) -> bool {
        if r.revision == 1 || r.revision >= current {
            return false;
        }
        let by_count = self
            .revisions
            .is_some_and(|keep| r.revision.saturating_add(keep.max(1)) <= current);
        let by_age = self.days.is_some_and(|days| {
            let limit = now.as_millis() - i64::from(days) * 24 * 3600 * 1000;
            r.edited_at.as_millis() < limit
        });
        by_count || by_age
    }

    /// `(revision count, cutoff time)` for the statement that finds entries with
    /// revisions to prune: a count past any entry's and 1970 (before any edit) when a
    /// limit is not set.
    pub(crate) fn bounds(&self, now: Timestamp) -> (u32, Timestamp) {
        let count = self.revisions.map_or(1 << 30, |k| k.clamp(1, 1 << 30));
        let before = self.days.map_or(Timestamp::from_millis(0), |d| {
            Timestamp::from_millis(now.as_millis() - i64::from(d) * 24 * 3600 * 1000)
        });
        (count, before)
    }
}

/// What pruning one entry's history writes: the rows to delete, and the rows kept
/// after a deleted one that must hold their text and state whole now (their delta was
/// against a row that goes): `(revision, state, text)`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PrunePlan {
    pub delete: Vec<u32>,
    pub make_whole: Vec<(u32, String, String)>,
}

/// Plans pruning an entry's stored rows (all of them, oldest first) under `keep`.
pub(crate) fn plan_prune(
    rows: Vec<RevisionRow>,
    keep: &HistoryKeep,
    now: Timestamp,
    held: &[RevisionId],
) -> Result<PrunePlan, DamagedRevision> {
    let Some(current) = rows.last().map(|r| r.revision) else {
        return Ok(PrunePlan::default());
    };
    // A revision holding a text a sync set aside stays until its conflict is settled.
    let goes: Vec<bool> = rows
        .iter()
        .map(|r| keep.prunes(r, current, now) && !held.contains(&r.id))
        .collect();
    let deltas: Vec<bool> = rows.iter().map(|r| r.delta.is_some()).collect();
    let revisions = rebuild(rows)?;
    let mut plan = PrunePlan::default();
    for (i, revision) in revisions.into_iter().enumerate() {
        if goes[i] {
            plan.delete.push(revision.revision);
        } else if deltas[i] && i > 0 && goes[i - 1] {
            let state = state_of_revision(&revision);
            plan.make_whole
                .push((revision.revision, state, revision.content));
        }
    }
    Ok(plan)
}

/// Entries with revisions past `keep`'s limits (a revision a sync conflict holds is not
/// one), at most `p(3)` of them: parameters
/// `p(1)` the count (`revision <= current - count`), `p(2)` the cutoff time.
pub(crate) fn prune_candidates_sql(p: impl Fn(usize) -> String) -> String {
    format!(
        "SELECT DISTINCT r.entry_id FROM entry_revisions r JOIN entries e ON e.id = r.entry_id
         WHERE r.revision > 1 AND r.revision < e.revision
           AND (r.revision + {count} <= e.revision OR r.edited_at < {before})
           AND NOT EXISTS (SELECT 1 FROM entry_conflicts c WHERE c.revision_id = r.id)
         LIMIT {limit}",
        count = p(1),
        before = p(2),
        limit = p(3),
    )
}

/// `SELECT` of the rows needed to rebuild the revisions numbered `low ..= high` of one
/// entry: from the last snapshot at or before `low`. `p(n)` is the backend's n-th
/// placeholder; the parameters are the entry's id, `low` and `high`.
pub(crate) fn rows_for_range_sql(p: impl Fn(usize) -> String) -> String {
    format!(
        "SELECT {REVISION_COLUMNS} FROM entry_revisions
         WHERE entry_id = {id} AND revision <= {high} AND revision >= COALESCE(
             (SELECT max(revision) FROM entry_revisions
              WHERE entry_id = {id} AND revision <= {low} AND keep_prefix IS NULL), 0)
         ORDER BY revision",
        id = p(1),
        low = p(2),
        high = p(3),
    )
}

/// The revision numbers on one page of an entry's history, newest first: the entry's
/// id, the page size and the offset as parameters.
pub(crate) fn page_numbers_sql(p: impl Fn(usize) -> String) -> String {
    format!(
        "SELECT revision FROM entry_revisions WHERE entry_id = {} ORDER BY revision DESC
         LIMIT {} OFFSET {}",
        p(1),
        p(2),
        p(3)
    )
}

/// `INSERT` of a revision row; the parameters in the order of [`REVISION_COLUMNS`].
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) fn insert_revision_sql(p: impl Fn(usize) -> String) -> String {
    let values: Vec<String> = (1..=11).map(p).collect();
    format!(
        "INSERT INTO entry_revisions ({REVISION_COLUMNS}) VALUES ({})",
        values.join(", ")
    )
}

/// The rows of a history brought by an import (oldest first, numbers rising; the
/// entry its last state), kept small as the entry's own edits would have been: whole
/// at the first row, at every [`SNAPSHOT_EVERY`]th number and after at most that many
/// rows (numbers can skip, where the history was pruned), else a delta against the row
/// before when that is smaller.
pub(crate) fn history_rows(entry: &Entry, history: &[Revision]) -> Vec<RevisionRow> {
    let mut rows: Vec<RevisionRow> = Vec::with_capacity(history.len());
    let mut since_snapshot = 0;
    for (i, r) in history.iter().enumerate() {
        let mut state = r.applied_to(entry);
        state.revision = r.revision;
        state.revision_id = r.id;
        let mut row = RevisionRow::snapshot(&state, r.parent_id, r.edited_at, r.edited_via);
        let due = r.revision % SNAPSHOT_EVERY == 1 || since_snapshot + 1 >= SNAPSHOT_EVERY;
        if i > 0 && !due {
            let before = &history[i - 1].content;
            let (prefix, suffix) = shared_ends(before, &r.content);
            let middle = &r.content[prefix..r.content.len() - suffix];
            if middle.len() + 16 < r.content.len() {
                row.content = middle.to_owned();
                row.delta = Some((prefix as u32, suffix as u32));
                if state_of_revision(&history[i - 1]) == state_of_revision(r) {
                    row.state.clear();
                }
            }
        }
        since_snapshot = if row.delta.is_some() {
            since_snapshot + 1
        } else {
            0
        };
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_ends_stay_on_character_boundaries() {
        assert_eq!(shared_ends("abc", "abc"), (3, 0));
        assert_eq!(shared_ends("héllo", "hèllo"), (1, 3));
        assert_eq!(shared_ends("aXa", "aYa"), (1, 1));
        assert_eq!(shared_ends("", "x"), (0, 0));
        assert_eq!(shared_ends("aa", "aaa"), (2, 0));
    }

    #[test]
    fn an_imported_history_rebuilds_as_it_was_across_gaps_and_snapshots() {
        let entry = Entry {
            id: EntryId::generate(),
            title: "T".into(),
            content: String::new(),
            is_public: false,
            tags: vec!["a".into()],
            starred: false,
            date: Timestamp::from_millis(1_000),
            author_id: UserId::generate(),
            author_name: "ann".into(),
            created_at: Timestamp::from_millis(1_000),
            updated_at: Timestamp::from_millis(1_000),
            revision: 1,
            revision_id: RevisionId::generate(),
        };
        let long = "word ".repeat(200);
        // Numbers skip (a pruned history): 1, then 34, 66, 98, …, never ≡ 1 mod 32.
        let numbers: Vec<u32> = std::iter::once(1)
            .chain((1..80).map(|k| 2 + 32 * k))
            .collect();
        let mut parent = None;
        let history: Vec<Revision> = numbers
            .iter()
            .map(|&n| {
                let r = Revision {
                    id: RevisionId::generate(),
                    parent_id: parent,
                    entry_id: entry.id,
                    revision: n,
                    title: format!("T{n}"),
                    content: format!("{long}{n}{long}"),
                    is_public: n % 2 == 0,
                    tags: vec![format!("t{n}")],
                    starred: n % 3 == 0,
                    date: Timestamp::from_millis(i64::from(n) * 1000),
                    edited_at: Timestamp::from_millis(i64::from(n) * 2000),
                    edited_via: EditedVia::Token,
                };
                parent = Some(r.id);
                r
            })
            .collect();
        let rows = history_rows(&entry, &history);
        let mut run = 0;
        for row in &rows {
            run = if row.delta.is_some() { run + 1 } else { 0 };
            assert!(run < SNAPSHOT_EVERY, "a chain of {run} deltas");
        }
        assert!(rows.iter().filter(|r| r.delta.is_some()).count() > 70);
        assert_eq!(rebuild(rows).unwrap(), history);
    }
}
