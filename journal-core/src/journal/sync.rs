//! Sync between replicas of one journal (`journal sync`, docs/design/sync.md): the
//! account's change feed. Every replica reads the changes after its cursor, page by
//! page, and keeps the cursor with what it applied.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use tracing::instrument;

use super::import::checked_revision;
use super::sync_files::{SYNC_FILES_MAX, checked_files};
use super::sync_merge;
use super::{Caller, Journal};
use crate::api::PushChangesRequest;
use crate::domain::{EntryId, RevisionId, SyncCursor, Timestamp, check_entry_date};
use crate::error::{Error, Result, ValidationError};
use crate::model::{
    ChangePage, ChangeState, EditedVia, Entry, EntryChange, PushOutcome, PushReply, PushResult,
    Revision, SyncAttachment,
};
use crate::store::{EntryWrite, Place, SyncWrite};

/// Most changes one page of the feed holds (each may carry whole texts, as a list's
/// entries do).
pub const CHANGES_PAGE_MAX: u32 = 100;

/// Changes on a page when the replica does not say.
pub const CHANGES_PAGE_DEFAULT: u32 = 100;

/// Days a replica may go without syncing before the feed forgets the purges it missed
/// (the server's `--sync-lease`).
pub const SYNC_LEASE_DAYS: u32 = 90;

/// How many tombstones one statement drops.
const FORGET_BATCH: u32 = 1_000;

impl Journal {
    /// Forgets the purges of entries purged longer than `lease` ago (their tombstones in
    /// the feed), a batch per transaction; returns how many. A replica whose cursor is
    /// older than one forgotten starts over ([`Journal::changes`] answers a conflict).
    #[instrument(level = "debug", skip_all)]
    pub async fn forget_purges(&self, lease: Duration) -> Result<u64> {
        let ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        let before = Timestamp::from_millis(Timestamp::now().as_millis().saturating_sub(ms));
        let mut forgotten = 0;
        loop {
            let n = self
                .store_ref()
                .forget_tombstones(before, FORGET_BATCH)
                .await?;
            forgotten += n;
            if n < u64::from(FORGET_BATCH) {
                return Ok(forgotten);
            }
        }
    }

    /// The caller's changes after `since` (from the beginning when `None`), at most
    /// `limit`, in the order they were made. A cursor of another database, or ahead of
    /// this one (a database restored from an older backup), is a conflict: the
    /// replica starts over from the beginning, which loses nothing.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn changes(
        &self,
        caller: &Caller,
        since: Option<&SyncCursor>,
        limit: u32,
    ) -> Result<ChangePage> {
        if !(1..=CHANGES_PAGE_MAX).contains(&limit) {
            return Err(ValidationError::new(
                "limit",
                format!("must be a whole number from 1 to {CHANGES_PAGE_MAX}"),
            )
            .into());
        }
        let (start, after) = since.map_or((0, 0), |c| (c.start(), c.position()));
        let stored = self
            .store_ref()
            .changes(&caller.user_id, start, after, limit)
            .await?;
        if let Some(since) = since
            && (since.epoch() != stored.epoch || since.position() > stored.counter)
        {
            return Err(Error::Conflict(
                "this cursor is not from this server's journal as it is now (it was restored \
                 from a backup, or copied): sync again from the beginning, without `since`; \
                 nothing is lost"
                    .into(),
            ));
        }
        if let Some(since) = since
            && since.position() < stored.forgotten_through
        {
            return Err(Error::Conflict(
                "this replica last synced before the server's sync lease (--sync-lease): \
                 entries purged since are forgotten here; sync again from the beginning, \
                 without `since`; nothing is lost"
                    .into(),
            ));
        }
        let more = stored.more;
        let last = stored.changes.last().map_or(after, |(seq, _)| *seq);
        // Read to the end: every change up to the counter, read at the same moment, is
        // seen (on PostgreSQL a revision takes a number of its own, past its entry's).
        let position = if more { last } else { last.max(stored.counter) };
        // A sync that read everything ends: the next one begins where this one ended.
        let start = if more { start } else { position };
        let mut changes: Vec<EntryChange> = stored.changes.into_iter().map(|(_, c)| c).collect();
        self.add_change_attachments(&mut changes).await?;
        Ok(ChangePage {
            changes,
            cursor: SyncCursor::new(&stored.epoch, start, position),
            more,
        })
    }
}

impl Journal {
    /// Each change's attachments, the deleted ones too: one read for the page.
    async fn add_change_attachments(&self, changes: &mut [EntryChange]) -> Result<()> {
        let ids: Vec<EntryId> = changes
            .iter()
            .filter(|c| !matches!(c.state, ChangeState::Purged { .. }))
            .map(|c| c.id)
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        let mut by_entry: HashMap<EntryId, Vec<SyncAttachment>> = HashMap::new();
        for (a, deleted_at) in self.store_ref().attachments_for_sync(&ids).await? {
            if let Some(entry) = a.entry_id {
                by_entry.entry(entry).or_default().push(SyncAttachment {
                    id: a.id,
                    name: a.name,
                    sha256: a.sha256,
                    size: a.size,
                    created_at: a.created_at,
                    deleted_at,
                });
            }
        }
        for change in changes {
            if let Some(files) = by_entry.remove(&change.id) {
                change.attachments = files;
            }
        }
        Ok(())
    }
}

/// Most changes one push holds.
pub const PUSH_CHANGES_MAX: usize = 1_000;

/// Most revisions one push holds, all its changes together.
pub const PUSH_REVISIONS_MAX: usize = 5_000;

/// One pushed change, checked.
#[derive(Clone, Debug)]
struct Pushed {
    id: EntryId,
    base: Option<RevisionId>,
    place: Place,
    created_at: Option<Timestamp>,
    revisions: Vec<Revision>,
    /// The entry's attachments as the replica lists them; `None`: not sent.
    files: Option<Vec<SyncAttachment>>,
}

/// The changes of a push, checked before any is applied: a bad one is `400` naming it,
/// and nothing is written.
fn checked(request: &PushChangesRequest) -> Result<Vec<Pushed>> {
    let changes = request.changes.as_deref().ok_or_else(|| {
        ValidationError::new("changes", "is required: a list of the replica's changes")
    })?;
    if changes.len() > PUSH_CHANGES_MAX {
        return Err(ValidationError::new(
            "changes",
            format!("a push holds at most {PUSH_CHANGES_MAX} changes; send the rest after"),
        )
        .into());
    }
    let total: usize = changes
        .iter()
        .map(|c| c.revisions.as_ref().map_or(0, Vec::len))
        .sum();
    let files: usize = changes
        .iter()
        .map(|c| c.attachments.as_ref().map_or(0, Vec::len))
        .sum();
    if files > SYNC_FILES_MAX {
        return Err(ValidationError::new(
            "changes",
            format!(
                "a push holds at most {SYNC_FILES_MAX} attachments, all its changes \
                 together; send the rest after"
            ),
        )
        .into());
    }
    if total > PUSH_REVISIONS_MAX {
        return Err(ValidationError::new(
            "changes",
            format!(
                "a push holds at most {PUSH_REVISIONS_MAX} revisions, all its changes \
                 together; send the rest after"
            ),
        )
        .into());
    }
    changes
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let fail = |field: &'static str, m: &str| {
                ValidationError::new(field, format!("change {}: {field}: {m}", k + 1))
            };
            let uuid = "must be a UUID in canonical form (lower-case, with hyphens)";
            let id: EntryId =
                c.id.as_deref()
                    .ok_or_else(|| fail("id", "is required"))?
                    .parse()
                    .map_err(|_| fail("id", uuid))?;
            let base = c
                .base
                .as_deref()
                .map(|b| b.parse::<RevisionId>().map_err(|_| fail("base", uuid)))
                .transpose()?;
            let time = |field: &'static str, value: Option<&str>| {
                value
                    .map(|v| {
                        let t = Timestamp::parse(v).map_err(|e| fail(field, &e.message))?;
                        check_entry_date(field, t).map_err(|e| fail(field, &e.message))?;
                        Ok::<_, ValidationError>(t)
                    })
                    .transpose()
            };
            let place = match c.state.as_deref() {
                Some("live") => Place::Live,
                Some("trashed") => Place::Trashed(
                    time("deletedAt", c.deleted_at.as_deref())?
                        .ok_or_else(|| fail("deletedAt", "is required for a trashed entry"))?,
                ),
                Some("purged") => Place::Purged,
                _ => return Err(fail("state", "must be live, trashed or purged").into()),
            };
            let created_at = time("createdAt", c.created_at.as_deref())?;
            let default_date = created_at.unwrap_or_else(Timestamp::now);
            let mut own = HashSet::new();
            let revisions = c
                .revisions
                .as_deref()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(n, r)| {
                    let revision = checked_revision(n, r, id, default_date)
                        .map_err(|e| fail(e.field, &e.message))?;
                    Ok(own.insert(revision.id).then_some(revision))
                })
                .filter_map(|r| r.transpose())
                .collect::<std::result::Result<Vec<_>, ValidationError>>()?;
            let files = c
                .attachments
                .as_deref()
                .map(|f| checked_files(k + 1, f))
                .transpose()?;
            Ok(Pushed {
                id,
                base,
                place,
                created_at,
                revisions,
                files,
            })
        })
        .collect()
}

/// Entries as read for planning, by id, with when each was deleted (in the trash).
type Found = HashMap<EntryId, (Entry, Option<Timestamp>)>;

/// What planning one change came to.
enum Plan {
    /// Nothing to write: the answer.
    Answered(PushResult),
    /// A decision with a write to make.
    Write(Decision),
}

/// The answer to a change whose id (or a revision's) is another account's.
fn refused(id: EntryId) -> PushResult {
    PushResult {
        id,
        outcome: PushOutcome::Refused,
        revision_id: None,
        message: Some(TAKEN.into()),
    }
}

/// What one apply decided, before it is written.
struct Decision {
    write: Option<SyncWrite>,
    outcome: PushOutcome,
    message: Option<String>,
}

impl Journal {
    /// Applies changes a replica of the caller's journal made (`POST /api/sync/changes`),
    /// in order: see [`PushOutcome`] for what each can come to. Each is planned on its
    /// entry as read, and the plans are written in one transaction; a change whose
    /// entry changed meanwhile (another write, or an earlier change of the same push)
    /// is planned and written again on its own. Applying a push twice changes nothing
    /// the second time (revisions are known by their ids). A replica's purge puts the
    /// entry in the server's trash (its `--trash-days` purge it): a stolen token cannot
    /// destroy anything.
    ///
    /// With the replica's cursor (`since`), the reply carries the cursor past this
    /// push when nothing else changed the account since that cursor and every change
    /// was applied as sent: the replica need not read its own changes back.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn push_changes(
        &self,
        caller: &Caller,
        request: &PushChangesRequest,
    ) -> Result<PushReply> {
        let since = request
            .since
            .as_deref()
            .map(|c| {
                c.parse::<SyncCursor>()
                    .map_err(|e| ValidationError::new("since", e.to_string()))
            })
            .transpose()?;
        let mut changes = checked(request)?;
        for change in &mut changes {
            if change.place == Place::Purged {
                change.place = Place::Trashed(Timestamp::now());
            }
        }
        let nickname = self.profile(caller).await?.nickname;
        let (mut found, owners) = self.read_for_plans(&changes).await?;
        let mut results: Vec<Option<PushResult>> = Vec::with_capacity(changes.len());
        let mut planned: Vec<(usize, SyncWrite, Decision)> = Vec::new();
        // A change that names an entry, or a revision id, an earlier change of this push
        // names too is applied on its own after the others, in turn: planned on what
        // they wrote.
        let mut named: HashSet<EntryId> = HashSet::new();
        let mut claimed: HashSet<RevisionId> = HashSet::new();
        for (k, change) in changes.iter().enumerate() {
            let again = !named.insert(change.id);
            let shared = change.revisions.iter().any(|r| !claimed.insert(r.id));
            if again || shared {
                results.push(None);
                continue;
            }
            let entry = found.remove(&change.id);
            match self.plan(caller, &nickname, change, entry, &owners).await? {
                Plan::Answered(result) => results.push(Some(result)),
                Plan::Write(mut decision) => {
                    let write = decision.write.take().expect("a plan to write has a write");
                    planned.push((k, write, decision));
                    results.push(None);
                }
            }
        }
        let writes: Vec<SyncWrite> = planned.iter().map(|(_, w, _)| w.clone()).collect();
        let written = self
            .store_ref()
            .sync_writes(&caller.user_id, &writes)
            .await?;
        let (before, after) = written.counter;
        let mut cursor = since
            .filter(|c| c.epoch() == written.epoch && c.start() == c.position())
            .filter(|c| c.position() == before)
            .map(|_| SyncCursor::new(&written.epoch, after, after));
        for ((k, _, decision), written) in planned.into_iter().zip(written.results) {
            let id = changes[k].id;
            results[k] = match written {
                EntryWrite::Done(entry) => Some(PushResult {
                    id,
                    outcome: decision.outcome,
                    revision_id: entry.map(|e| e.revision_id),
                    message: decision.message,
                }),
                EntryWrite::Foreign => Some(refused(id)),
                // Written meanwhile: on its own, in turn.
                EntryWrite::Stale { .. } | EntryWrite::Missing => None,
            };
        }
        let mut pushed_files: Vec<Option<(EntryId, Vec<SyncAttachment>)>> = changes
            .iter_mut()
            .map(|c| {
                c.files
                    .take()
                    .filter(|f| !f.is_empty() && c.place != Place::Purged)
                    .map(|f| (c.id, f))
            })
            .collect();
        let mut answers = Vec::with_capacity(changes.len());
        for (result, change) in results.into_iter().zip(changes) {
            answers.push(match result {
                Some(result) => result,
                None => {
                    // Written on its own, after others may have written: the feed must
                    // be read.
                    cursor = None;
                    self.apply_pushed(caller, &nickname, change).await?
                }
            });
        }
        let with_files: Vec<usize> = (0..answers.len())
            .filter(|&k| {
                pushed_files[k].is_some()
                    && answers[k].outcome != PushOutcome::Refused
                    && answers[k].revision_id.is_some()
            })
            .collect();
        let lists: Vec<(EntryId, Vec<SyncAttachment>)> = with_files
            .iter()
            .filter_map(|&k| pushed_files[k].take())
            .collect();
        let applied = self.apply_files_of(caller, &lists).await?;
        for (k, applied) in with_files.into_iter().zip(applied) {
            let answer = &mut answers[k];
            if applied.changed {
                // The attachments took change numbers of their own.
                cursor = None;
            }
            if !applied.missing.is_empty() {
                let names: Vec<String> = applied.missing.iter().map(|f| f.id.to_string()).collect();
                answer.outcome = PushOutcome::Refused;
                answer.message = Some(format!(
                    "the files of attachments {} were not sent: send them \
                     (PUT /api/sync/files/{{id}}), then push this change again",
                    names.join(", ")
                ));
            } else if !applied.refused.is_empty() {
                let names: Vec<String> = applied.refused.iter().map(|id| id.to_string()).collect();
                answer.message = Some(format!(
                    "attachments {} were left out: another account has attachments with these ids",
                    names.join(", ")
                ));
            }
        }
        if answers.iter().any(|a| a.outcome != PushOutcome::Applied) {
            cursor = None;
        }
        Ok(PushReply {
            results: answers,
            cursor,
        })
    }

    /// Applies a change read from another replica's feed (a sync's pull) to this
    /// journal, as the caller's: made from `base`, the last revision both had (`None`
    /// for an entry never synced). The same rules as [`Journal::push_changes`], but a
    /// purge here is a purge.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %change.id))]
    pub async fn apply_pulled(
        &self,
        caller: &Caller,
        change: &EntryChange,
        base: Option<RevisionId>,
    ) -> Result<PushResult> {
        let nickname = self.profile(caller).await?.nickname;
        self.apply_pulled_as(caller, &nickname, change, base).await
    }

    /// [`Journal::apply_pulled`] with the caller's nickname (what a new entry's
    /// `author_name` is) given: a sync reads it once for all the changes it applies.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %change.id))]
    pub async fn apply_pulled_as(
        &self,
        caller: &Caller,
        nickname: &str,
        change: &EntryChange,
        base: Option<RevisionId>,
    ) -> Result<PushResult> {
        let (place, created_at) = match &change.state {
            ChangeState::Live { entry } => (Place::Live, Some(entry.created_at)),
            ChangeState::Trashed { entry, deleted_at } => {
                (Place::Trashed(*deleted_at), Some(entry.created_at))
            }
            ChangeState::Purged { .. } => (Place::Purged, None),
        };
        let revisions = change
            .revisions
            .iter()
            .map(|r| Revision {
                entry_id: change.id,
                ..r.clone()
            })
            .collect();
        let pushed = Pushed {
            id: change.id,
            base,
            place,
            created_at,
            revisions,
            files: None,
        };
        self.apply_pushed(caller, nickname, pushed).await
    }

    /// The entries the changes name, as they are, and which entry each of their
    /// revisions belongs to where it exists: one read each, whatever the number.
    async fn read_for_plans(
        &self,
        changes: &[Pushed],
    ) -> Result<(Found, HashMap<RevisionId, EntryId>)> {
        let ids: Vec<EntryId> = changes.iter().map(|c| c.id).collect();
        let revisions: Vec<RevisionId> = changes
            .iter()
            .flat_map(|c| c.revisions.iter().map(|r| r.id))
            .collect();
        let found = self
            .store_ref()
            .entries_anywhere(&ids)
            .await?
            .into_iter()
            .map(|(e, deleted)| (e.id, (e, deleted)))
            .collect();
        let owners = if revisions.is_empty() {
            HashMap::new()
        } else {
            self.store_ref()
                .revision_owners(&revisions)
                .await?
                .into_iter()
                .collect()
        };
        Ok((found, owners))
    }

    /// What one change comes to on its entry as read (`found`), given which entry each
    /// known revision id belongs to (`owners`): an answer with nothing to write, or a
    /// write to make.
    async fn plan(
        &self,
        caller: &Caller,
        nickname: &str,
        change: &Pushed,
        found: Option<(Entry, Option<Timestamp>)>,
        owners: &HashMap<RevisionId, EntryId>,
    ) -> Result<Plan> {
        if let Some((entry, _)) = &found
            && entry.author_id != caller.user_id
        {
            return Ok(Plan::Answered(refused(change.id)));
        }
        let mut fresh = Vec::with_capacity(change.revisions.len());
        for r in &change.revisions {
            match owners.get(&r.id) {
                Some(entry) if *entry == change.id => {}
                Some(_) => return Ok(Plan::Answered(refused(change.id))),
                None => fresh.push(r.clone()),
            }
        }
        let as_read = found.as_ref().map(|(e, _)| e.revision_id);
        let decision = self.decide(caller, nickname, change, found, fresh).await?;
        if decision.write.is_some() {
            return Ok(Plan::Write(decision));
        }
        Ok(Plan::Answered(PushResult {
            id: change.id,
            outcome: decision.outcome,
            revision_id: as_read,
            message: decision.message,
        }))
    }

    /// Applies one change, planning it again if the entry changed meanwhile.
    async fn apply_pushed(
        &self,
        caller: &Caller,
        nickname: &str,
        change: Pushed,
    ) -> Result<PushResult> {
        let one = std::slice::from_ref(&change);
        for _ in 0..5 {
            let (mut found, owners) = self.read_for_plans(one).await?;
            let entry = found.remove(&change.id);
            let mut decision = match self.plan(caller, nickname, &change, entry, &owners).await? {
                Plan::Answered(result) => return Ok(result),
                Plan::Write(decision) => decision,
            };
            let write = decision.write.take().expect("a plan to write has a write");
            let written = self
                .store_ref()
                .sync_writes(&caller.user_id, &[write])
                .await?
                .results
                .pop();
            match written {
                Some(EntryWrite::Done(entry)) => {
                    return Ok(PushResult {
                        id: change.id,
                        outcome: decision.outcome,
                        revision_id: entry.map(|e| e.revision_id),
                        message: decision.message,
                    });
                }
                Some(EntryWrite::Foreign) => return Ok(refused(change.id)),
                // Written meanwhile: read it again and decide again.
                _ => continue,
            }
        }
        Err(Error::Conflict(
            "the entry kept changing while this sync applied it; sync again".into(),
        ))
    }

    /// What to write for `change`, given the entry as the server has it (`found`) and
    /// the change's revisions the server lacks (`fresh`).
    async fn decide(
        &self,
        caller: &Caller,
        nickname: &str,
        change: &Pushed,
        found: Option<(Entry, Option<Timestamp>)>,
        fresh: Vec<Revision>,
    ) -> Result<Decision> {
        let write = |expect, revisions, place, conflict| SyncWrite {
            author: caller.user_id,
            id: change.id,
            expect,
            revisions,
            place,
            created: Some((
                change
                    .created_at
                    .or(change.revisions.first().map(|r| r.edited_at))
                    .unwrap_or_else(Timestamp::now),
                nickname.to_owned(),
            )),
            conflict,
        };
        let done = |outcome, message: Option<&str>| Decision {
            write: None,
            outcome,
            message: message.map(str::to_owned),
        };
        let Some((server, deleted_at)) = found else {
            // New here, or purged here: an entry with revisions the server lacks is
            // written (an edit outlives a delete); anything else has nothing to write.
            if fresh.is_empty() || change.place == Place::Purged {
                return Ok(done(PushOutcome::Applied, None));
            }
            let kept = change.base.is_some();
            return Ok(Decision {
                write: Some(write(None, fresh, change.place, None)),
                outcome: if kept {
                    PushOutcome::Kept
                } else {
                    PushOutcome::Applied
                },
                message: kept.then(|| KEPT_PURGED.to_owned()),
            });
        };
        let current = server.revision_id;
        let at_base =
            change.base == Some(current) || change.revisions.last().map(|r| r.id) == Some(current);
        let in_trash = deleted_at.is_some();
        // The sender's entry is at its last revision. When that is this side's current
        // one, the revisions this side lacks are older ones of another branch (kept on
        // the side that made them): only where the entry is can change.
        let target = change.revisions.last();
        if fresh.is_empty() || target.is_some_and(|t| t.id == current) {
            // Only where the entry is changes.
            return Ok(match change.place {
                Place::Live if in_trash => Decision {
                    write: Some(write(Some(current), Vec::new(), Place::Live, None)),
                    outcome: PushOutcome::Applied,
                    message: None,
                },
                Place::Live => done(PushOutcome::Applied, None),
                Place::Trashed(_) if in_trash => done(PushOutcome::Applied, None),
                _ if !at_base => done(PushOutcome::Kept, Some(KEPT_EDITED)),
                place => Decision {
                    write: Some(write(Some(current), Vec::new(), place, None)),
                    outcome: PushOutcome::Applied,
                    message: None,
                },
            });
        }
        let target = target.cloned().expect("fresh revisions are the change's");
        let ends_fresh = fresh.last().map(|r| r.id) == Some(target.id);
        if ends_fresh && (at_base || fresh[0].parent_id == Some(current)) {
            // Nothing happened here since the replica's base: its revisions follow on.
            let restored = in_trash && change.place == Place::Live;
            return Ok(Decision {
                write: Some(write(Some(current), fresh, change.place, None)),
                outcome: if restored {
                    PushOutcome::Kept
                } else {
                    PushOutcome::Applied
                },
                message: restored.then(|| KEPT_TRASHED.to_owned()),
            });
        }
        // Both sides changed it: merge, off the reactor (a merge is bounded, not free).
        let base = match change.base {
            Some(id) => self
                .store_ref()
                .revision_by_id(&id)
                .await?
                .filter(|r| r.entry_id == change.id),
            None => None,
        };
        let theirs = target.clone();
        let ours = server.clone();
        let (merged, clash) =
            tokio::task::spawn_blocking(move || sync_merge::merge(base.as_ref(), &ours, &theirs))
                .await
                .map_err(|e| Error::Internal(Box::new(e)))?;
        let last = target.id;
        let mut revisions = fresh;
        if !sync_merge::same_state(
            &merged.applied_to(&server),
            revisions.last().expect("fresh"),
        ) {
            revisions.push(Revision {
                id: RevisionId::generate(),
                parent_id: Some(current),
                edited_at: Timestamp::now(),
                edited_via: EditedVia::Sync,
                ..merged
            });
        }
        // Edited on both sides: it stays (or comes back), whatever either deleted.
        let (outcome, message) = if clash {
            (PushOutcome::Conflict, Some(CONFLICT))
        } else {
            (PushOutcome::Merged, None)
        };
        Ok(Decision {
            write: Some(write(
                Some(current),
                revisions,
                Place::Live,
                clash.then_some(last),
            )),
            outcome,
            message: message.map(str::to_owned),
        })
    }
}

const TAKEN: &str = "another account has an entry or revision with this id: nothing was written";
const KEPT_EDITED: &str =
    "deleted on this replica, but edited on the server since: the edited entry is kept";
const KEPT_TRASHED: &str =
    "deleted on the server, but edited on this replica since: the edited entry is back";
const KEPT_PURGED: &str =
    "purged on the server, but edited on this replica since: the edited entry is back";
const CONFLICT: &str = "both sides changed the same lines: the entry keeps the text of the \
     journal that met the clash, and the other is a revision in its history; `journal \
     conflicts` lists it, `journal resolve` settles it";
