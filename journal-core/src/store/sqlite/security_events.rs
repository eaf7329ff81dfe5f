//! The security log on SQLite: one write job per event (its insert or coalescing and
//! its pruning, atomic in the job's savepoint), one read per page.

use async_trait::async_trait;
use rusqlite::{Connection, params};
use tracing::instrument;

use super::SqliteStore;
use super::cache::Touched;
use super::lists::in_read_transaction;
use crate::domain::{PageRequest, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Page, SecondFactor, SecurityEvent, SecurityEventKind};
use crate::store::{PRUNE_BATCH, SecurityEventRecord, SecurityEventStore, SecurityLogBounds};

#[async_trait]
impl SecurityEventStore for SqliteStore {
    #[instrument(level = "debug", skip_all, fields(user = %record.user_id))]
    async fn record_security_event(
        &self,
        record: &SecurityEventRecord,
        bounds: &SecurityLogBounds,
    ) -> StoreResult<()> {
        let (record, bounds) = (record.clone(), *bounds);
        // No cache reads this table: the write leaves every cached page and token as is.
        self.write_touching(move |c| Ok((record_event(c, &record, &bounds)?, Touched::nothing())))
            .await
    }

    #[instrument(level = "debug", skip_all, fields(user = %user, page = page.page()))]
    async fn security_events(
        &self,
        user: &UserId,
        since: Timestamp,
        page: PageRequest,
    ) -> StoreResult<Page<SecurityEvent>> {
        let user = user.to_string();
        self.read(move |c| in_read_transaction(c, |c| events_page(c, &user, since, page)))
            .await?
    }
}

fn record_event(
    c: &Connection,
    record: &SecurityEventRecord,
    bounds: &SecurityLogBounds,
) -> rusqlite::Result<()> {
    let user = record.user_id.to_string();
    let e = &record.event;
    let address = e.address.map(|a| a.to_string());
    let coalesced = match bounds.coalesce_since {
        None => false,
        Some(since) => {
            c.prepare_cached(
                "UPDATE security_events
                 SET at = max(at, ?1), count = count + ?2, address = ?3
                 WHERE seq = (SELECT seq FROM security_events
                              WHERE user_id = ?4 AND kind = ?5 AND detail IS ?6
                                AND first_at >= ?7
                              ORDER BY first_at DESC, seq DESC LIMIT 1)",
            )?
            .execute(params![
                e.at.as_millis(),
                e.count,
                address,
                user,
                e.kind.as_str(),
                e.detail,
                since.as_millis()
            ])? == 1
        }
    };
    if !coalesced {
        c.prepare_cached(
            "INSERT INTO security_events
                 (user_id, kind, at, first_at, count, address, second_factor, detail)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?
        .execute(params![
            user,
            e.kind.as_str(),
            e.at.as_millis(),
            e.first_at.as_millis(),
            e.count,
            address,
            e.second_factor.map(SecondFactor::as_str),
            e.detail
        ])?;
        // The user's own overflow: the rows past the bound, found through the index.
        c.prepare_cached(
            "DELETE FROM security_events WHERE seq IN (
                 SELECT seq FROM security_events WHERE user_id = ?1
                 ORDER BY at DESC, seq DESC LIMIT -1 OFFSET ?2)",
        )?
        .execute(params![user, bounds.max_per_user])?;
    }
    let before = bounds.prune_before.as_millis();
    c.prepare_cached("DELETE FROM security_events WHERE user_id = ?1 AND at < ?2")?
        .execute(params![user, before])?;
    c.prepare_cached(
        "DELETE FROM security_events WHERE seq IN (
             SELECT seq FROM security_events WHERE at < ?1 ORDER BY at LIMIT ?2)",
    )?
    .execute(params![before, PRUNE_BATCH])?;
    Ok(())
}

fn events_page(
    c: &Connection,
    user: &str,
    since: Timestamp,
    page: PageRequest,
) -> rusqlite::Result<StoreResult<Page<SecurityEvent>>> {
    let since = since.as_millis();
    let total: i64 = c
        .prepare_cached("SELECT count(*) FROM security_events WHERE user_id = ?1 AND at >= ?2")?
        .query_row(params![user, since], |r| r.get(0))?;
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let mut stmt = c.prepare_cached(
        "SELECT kind, at, first_at, count, address, second_factor, detail
         FROM security_events WHERE user_id = ?1 AND at >= ?2
         ORDER BY at DESC, seq DESC LIMIT ?3 OFFSET ?4",
    )?;
    let mut rows = stmt.query(params![user, since, page.limit(), offset])?;
    let mut items = Vec::new();
    while let Some(r) = rows.next()? {
        match event_from_row(r)? {
            Ok(event) => items.push(event),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(Page {
        items,
        total: total.try_into().unwrap_or(0),
        page: page.page(),
        limit: page.limit(),
    }))
}

/// A row as an event; a kind, factor or address this build cannot read is an internal
/// error rather than an event shown wrong.
fn event_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoreResult<SecurityEvent>> {
    let kind: String = r.get("kind")?;
    let factor: Option<String> = r.get("second_factor")?;
    let address: Option<String> = r.get("address")?;
    let Some(kind) = SecurityEventKind::from_name(&kind) else {
        return Ok(Err(StoreError::internal(format!(
            "unknown security event kind {kind:?}"
        ))));
    };
    let second_factor = match factor.as_deref().map(SecondFactor::from_name) {
        None => None,
        Some(Some(f)) => Some(f),
        Some(None) => {
            return Ok(Err(StoreError::internal(format!(
                "unknown second factor {factor:?} in security_events"
            ))));
        }
    };
    let address = match address.map(|a| a.parse()) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => return Ok(Err(StoreError::internal(e))),
    };
    Ok(Ok(SecurityEvent {
        kind,
        at: Timestamp::from_millis(r.get("at")?),
        first_at: Timestamp::from_millis(r.get("first_at")?),
        count: r.get("count")?,
        address,
        second_factor,
        detail: r.get("detail")?,
    }))
}
