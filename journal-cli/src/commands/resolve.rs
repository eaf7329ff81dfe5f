//! What an id, an id prefix or a nickname names: entries and users.

use journal_core::{Entry, EntryId};

use super::QUIET;
use super::pages::{NO_FILTER, Order, all_pages};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output;

/// The shortest id prefix accepted.
pub(super) const MIN_PREFIX: usize = 8;

pub(super) fn looks_like_prefix(text: &str) -> bool {
    text.chars().count() >= MIN_PREFIX && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The entry an id or id prefix (8 characters or more) names: among the caller's entries
/// first, then the public feed. An ambiguous prefix lists the candidates.
pub(super) async fn resolve_entry(b: &Backend, given: &str) -> Result<String> {
    let id = given.trim();
    if id.parse::<EntryId>().is_ok() {
        return Ok(id.to_owned());
    }
    if !looks_like_prefix(id) {
        return Err(CliError::NotFound(format!(
            "entry {id} not found (give its id, or at least its first {MIN_PREFIX} characters)"
        )));
    }
    let prefix = id.to_lowercase();
    let matching = |entries: Vec<Entry>| -> Vec<Entry> {
        entries
            .into_iter()
            .filter(|e| e.id.to_string().starts_with(&prefix))
            .collect()
    };
    let mut found = matching(
        all_pages(&QUIET, "", Order::Newest, |page| {
            b.user_entries(None, &NO_FILTER, page)
        })
        .await?,
    );
    if found.is_empty() {
        found = matching(
            all_pages(&QUIET, "", Order::Newest, |page| {
                b.public_entries(&NO_FILTER, page)
            })
            .await?,
        );
    }
    match found.as_slice() {
        [] => Err(CliError::NotFound(format!("no entry id starts with {id}"))),
        [one] => Ok(one.id.to_string()),
        many => Err(CliError::Usage(format!(
            "{id} is the start of {} entry ids: {}; give more characters",
            many.len(),
            many.iter()
                .take(10)
                .map(|e| format!("{} ({})", e.id, output::clip(&e.title, 30)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
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
