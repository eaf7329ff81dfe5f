//! The security log on PostgreSQL: one transaction per event (its insert or coalescing
//! and its pruning), one read per page.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio_postgres::Row;
use tracing::instrument;

use super::PostgresStore;
use super::errors::map_pg;
use super::rows::{from_ts, ts};
use crate::domain::{PageRequest, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Page, SecondFactor, SecurityEvent, SecurityEventKind};
use crate::store::{PRUNE_BATCH, SecurityEventRecord, SecurityEventStore, SecurityLogBounds};

/// The first key of the per-user advisory locks taken to coalesce events; the pair
/// form's key space is apart from the migrations' single key.
const COALESCE_LOCK: i32 = 0x7365_6c67; // "selg"

/// The second key: 32 random bits of the user's id (a collision only makes two
/// users' coalescing wait on each other).
fn lock_key(user: &UserId) -> i32 {
    let bytes = user.as_uuid().as_bytes();
    i32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]])
}

#[async_trait]
impl SecurityEventStore for PostgresStore {
    #[instrument(level = "debug", skip_all, fields(user = %record.user_id))]
    async fn record_security_event(
        &self,
        record: &SecurityEventRecord,
        bounds: &SecurityLogBounds,
    ) -> StoreResult<()> {
        let e = &record.event;
        let user = record.user_id.as_uuid();
        let count = i32::try_from(e.count).unwrap_or(i32::MAX);
        let mut client = self.db.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        let coalesced = match bounds.coalesce_since {
            None => false,
            Some(since) => {
                // Two servers recording the same stranger's attempts at once would
                // each find no row to add to and insert one: one at a time per user.
                tx.execute(
                    "SELECT pg_advisory_xact_lock($1, $2)",
                    &[&COALESCE_LOCK, &lock_key(&record.user_id)],
                )
                .await
                .map_err(map_pg)?;
                let stmt = tx
                    .prepare_cached(
                        "UPDATE security_events
                         SET at = greatest(at, $1), count = count + $2, address = $3
                         WHERE seq = (SELECT seq FROM security_events
                                      WHERE user_id = $4 AND kind = $5
                                        AND detail IS NOT DISTINCT FROM $6
                                        AND first_at >= $7
                                      ORDER BY first_at DESC, seq DESC LIMIT 1
                                      FOR UPDATE)",
                    )
                    .await
                    .map_err(map_pg)?;
                tx.execute(
                    &stmt,
                    &[
                        &ts(e.at),
                        &count,
                        &e.address,
                        user,
                        &e.kind.as_str(),
                        &e.detail,
                        &ts(since),
                    ],
                )
                .await
                .map_err(map_pg)?
                    == 1
            }
        };
        if !coalesced {
            let insert = tx
                .prepare_cached(
                    "INSERT INTO security_events
                         (user_id, kind, at, first_at, count, address, second_factor, detail)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .await
                .map_err(map_pg)?;
            tx.execute(
                &insert,
                &[
                    user,
                    &e.kind.as_str(),
                    &ts(e.at),
                    &ts(e.first_at),
                    &count,
                    &e.address,
                    &e.second_factor.map(SecondFactor::as_str),
                    &e.detail,
                ],
            )
            .await
            .map_err(map_pg)?;
            // The user's own overflow: the rows past the bound, found through the index.
            let overflow = tx
                .prepare_cached(
                    "DELETE FROM security_events WHERE seq IN (
                         SELECT seq FROM security_events WHERE user_id = $1
                         ORDER BY at DESC, seq DESC OFFSET $2)",
                )
                .await
                .map_err(map_pg)?;
            tx.execute(&overflow, &[user, &i64::from(bounds.max_per_user)])
                .await
                .map_err(map_pg)?;
        }
        let before = ts(bounds.prune_before);
        let own = tx
            .prepare_cached("DELETE FROM security_events WHERE user_id = $1 AND at < $2")
            .await
            .map_err(map_pg)?;
        tx.execute(&own, &[user, &before]).await.map_err(map_pg)?;
        // SKIP LOCKED: two servers pruning at once take different rows, never wait.
        let anyone = tx
            .prepare_cached(
                "DELETE FROM security_events WHERE seq IN (
                     SELECT seq FROM security_events WHERE at < $1 ORDER BY at LIMIT $2
                     FOR UPDATE SKIP LOCKED)",
            )
            .await
            .map_err(map_pg)?;
        tx.execute(&anyone, &[&before, &i64::from(PRUNE_BATCH)])
            .await
            .map_err(map_pg)?;
        tx.commit().await.map_err(map_pg)
    }

    #[instrument(level = "debug", skip_all, fields(user = %user, page = page.page()))]
    async fn security_events(
        &self,
        user: &UserId,
        since: Timestamp,
        page: PageRequest,
    ) -> StoreResult<Page<SecurityEvent>> {
        let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
        // The total rides on every row; a page past the end asks it alone.
        let rows = self
            .db
            .query(
                "SELECT kind, at, first_at, count, address, second_factor,
                        detail, count(*) OVER () AS total
                 FROM security_events WHERE user_id = $1 AND at >= $2
                 ORDER BY at DESC, seq DESC LIMIT $3 OFFSET $4",
                &[
                    user.as_uuid(),
                    &ts(since),
                    &i64::from(page.limit()),
                    &offset,
                ],
            )
            .await?;
        let total: i64 = match rows.first() {
            Some(r) => r.get("total"),
            None => self
                .db
                .query_opt(
                    "SELECT count(*) FROM security_events WHERE user_id = $1 AND at >= $2",
                    &[user.as_uuid(), &ts(since)],
                )
                .await?
                .map_or(0, |r| r.get(0)),
        };
        Ok(Page {
            items: rows
                .iter()
                .map(event_from_row)
                .collect::<StoreResult<_>>()?,
            total: total.try_into().unwrap_or(0),
            page: page.page(),
            limit: page.limit(),
        })
    }
}

fn event_from_row(r: &Row) -> StoreResult<SecurityEvent> {
    let kind: &str = r.get("kind");
    let kind = SecurityEventKind::from_name(kind)
        .ok_or_else(|| StoreError::internal(format!("unknown security event kind {kind:?}")))?;
    let second_factor = match r.get::<_, Option<&str>>("second_factor") {
        None => None,
        Some(name) => Some(SecondFactor::from_name(name).ok_or_else(|| {
            StoreError::internal(format!("unknown second factor {name:?} in security_events"))
        })?),
    };
    Ok(SecurityEvent {
        kind,
        at: from_ts(r.get::<_, DateTime<Utc>>("at")),
        first_at: from_ts(r.get::<_, DateTime<Utc>>("first_at")),
        count: u32::try_from(r.get::<_, i32>("count")).unwrap_or(0),
        address: r.get("address"),
        second_factor,
        detail: r.get("detail"),
    })
}
