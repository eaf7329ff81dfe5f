//! What an id, a short id, an id prefix or a nickname names: entries and users.

use journal_core::{Entry, EntryId};

use super::QUIET;
use super::pages::{NO_FILTER, Order, all_pages, walk};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::{output, short_id};

/// The shortest id prefix accepted (users, tokens: their ids are shown as prefixes).
pub(super) const MIN_PREFIX: usize = 8;

pub(super) fn looks_like_prefix(text: &str) -> bool {
    text.chars().count() >= MIN_PREFIX && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The caller's entries, or none when there is no caller (the public feed without a
/// login): what a short id is looked up among first.
async fn own_entries(b: &Backend) -> Result<Vec<Entry>> {
    match all_pages(&QUIET, "", Order::Newest, |page| {
        b.user_entries(None, &NO_FILTER, page)
    })
    .await
    {
        Err(CliError::Auth(_)) => Ok(Vec::new()),
        other => other,
    }
}

/// The entry an id names: the full id, its short id (the end, 6 or more hexadecimal
/// digits, as tables show it), or its start of 8 or more characters (the older short
/// form). Looked up among the caller's entries first, then the public feed. One that
/// fits several entries lists them.
pub(super) async fn resolve_entry(b: &Backend, given: &str) -> Result<String> {
    let id = given.trim();
    if id.parse::<EntryId>().is_ok() {
        return Ok(id.to_owned());
    }
    let Some(wanted) = short_id::Given::parse(id) else {
        return Err(CliError::NotFound(format!(
            "entry {id} not found (give its id, or its short id: at least its last {} characters, as journal list shows them)",
            short_id::MIN_LEN
        )));
    };
    let matching = |entries: Vec<Entry>| -> Vec<Entry> {
        entries
            .into_iter()
            .filter(|e| wanted.fits(&e.id.to_string()))
            .collect()
    };
    let mut found = matching(own_entries(b).await?);
    if found.is_empty() {
        found = matching(
            all_pages(&QUIET, "", Order::Newest, |page| {
                b.public_entries(&NO_FILTER, page)
            })
            .await?,
        );
    }
    match found.as_slice() {
        [] => Err(CliError::NotFound(format!("no entry has the id {id}"))),
        [one] => Ok(one.id.to_string()),
        many => Err(CliError::Usage(format!(
            "{id} fits {} entries: {}; give more characters of the one you mean, or its whole id",
            many.len(),
            many.iter()
                .take(10)
                .map(|e| format!("{} ({})", e.id, output::clip(&e.title, 30)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The most of the caller's entries a table reads to size its short ids (ten pages):
/// beyond it, a list would cost a read of the whole journal each time.
const READ_AT_MOST: usize = 1_000;

/// How many characters from the end of an id tables show for `shown`: the fewest (6 or
/// more) that tell apart the shown entries and all of the caller's, so that each short
/// id names its entry for `resolve_entry`. Reads the caller's list unless `shown` is
/// already all of it; of a journal over [`READ_AT_MOST`] entries, reads that many and
/// takes at least the length at which its size makes a shared end unlikely (see
/// `short_id::len_for_count`); a clash left is refused with the candidates.
pub(super) async fn short_id_len(b: &Backend, shown: &[Entry], all_mine: bool) -> Result<usize> {
    let mut ids: Vec<String> = shown.iter().map(|e| e.id.to_string()).collect();
    if all_mine {
        return Ok(short_id::len_for(&ids));
    }
    let read = walk(&QUIET, "", Order::Newest, Some(READ_AT_MOST), |page| {
        b.user_entries(None, &NO_FILTER, page)
    })
    .await;
    let read = match read {
        // No caller (the public feed without a login): the shown rows alone.
        Err(CliError::Auth(_)) => return Ok(short_id::len_for(&ids)),
        other => other?,
    };
    ids.extend(read.entries.iter().map(|e| e.id.to_string()));
    let exact = short_id::len_for(&ids);
    let whole = !read.at_least && read.entries.len() as u64 >= read.total;
    Ok(if whole {
        exact
    } else {
        exact.max(short_id::len_for_count(read.total))
    })
}

/// The user a `--user` value names: an id, an id prefix (8 characters or more), or a
/// nickname, found among the caller and the authors of the public feed. An ambiguous
/// one lists the candidates.
pub(super) async fn resolve_user(b: &Backend, given: &str) -> Result<String> {
    let who = given.trim();
    if who.parse::<journal_core::UserId>().is_ok() {
        return Ok(who.to_owned());
    }
    let lower = who.to_lowercase();
    let is_prefix = looks_like_prefix(who);
    let fits = |id: &str, name: &str| {
        name.to_lowercase() == lower || (is_prefix && id.starts_with(&lower))
    };
    // (id, nickname) of every candidate, once each.
    let mut found: Vec<(String, String)> = Vec::new();
    let me = b.profile().await?;
    if fits(&me.id.to_string(), &me.nickname) {
        found.push((me.id.to_string(), me.nickname.clone()));
    }
    for e in all_pages(&QUIET, "", Order::Newest, |page| {
        b.public_entries(&NO_FILTER, page)
    })
    .await?
    {
        let id = e.author_id.to_string();
        if fits(&id, &e.author_name) && !found.iter().any(|(known, _)| *known == id) {
            found.push((id, e.author_name));
        }
    }
    match found.as_slice() {
        [] => Err(CliError::NotFound(format!(
            "user {who} not found (give a user id, its first {MIN_PREFIX} characters, or the nickname of an author of public entries)"
        ))),
        [(id, _)] => Ok(id.clone()),
        many => Err(CliError::Usage(format!(
            "{who} names {} users: {}; give a user id instead",
            many.len(),
            many.iter()
                .map(|(id, name)| format!("{id} ({name})"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
