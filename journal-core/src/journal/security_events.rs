//! The security log: what happened to an account (logins, throttled attempts, the
//! second factor, access tokens, password and e-mail changes), for its owner to read.
//!
//! Operations record their own events; the front end only says where a request came
//! from ([`ClientInfo`], on the [`Caller`] or given to [`Journal::login_from`]), and
//! reports the attempts its throttle refused ([`Journal::note_throttled_login`]). An
//! event never holds a secret. Recording is best-effort: the action has happened when
//! its event is written, so a failed write is logged, not returned.

use tracing::instrument;

use super::{Caller, ClientInfo, Journal};
use crate::domain::{PageRequest, Timestamp, UserId};
use crate::error::Result;
use crate::model::{Page, SecondFactor, SecurityEvent, SecurityEventKind};
use crate::store::{SecurityEventRecord, SecurityLogBounds};

/// How long events are kept: older ones are pruned and never listed.
pub const SECURITY_LOG_DAYS: i64 = 90;
/// Most events kept per account; past it, the oldest go.
pub const MAX_SECURITY_EVENTS: u32 = 1000;
/// Throttled attempts within this long of the first are one event with a count, so a
/// stranger adds at most one row a day to someone's log however hard they try.
const THROTTLED_COALESCE_MS: i64 = DAY_MS;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Which password check a throttle refused: it shows in the event's `detail`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThrottledCheck<'a> {
    /// A login, for the e-mail address as typed (it names an account or nobody).
    Login {
        /// The address as the client sent it.
        email: &'a str,
    },
    /// Another check of the password (changing it), by a signed-in user.
    Password {
        /// The user.
        user: &'a UserId,
    },
}

impl Journal {
    /// The caller's security log, newest first, over the last [`SECURITY_LOG_DAYS`]
    /// days. Needs a login: an access token kept by a script does not read where its
    /// owner logs in from.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn security_events(
        &self,
        caller: &Caller,
        page: PageRequest,
    ) -> Result<Page<SecurityEvent>> {
        caller.needs_login("read the security log")?;
        Ok(self
            .store_ref()
            .security_events(&caller.user_id, retention_start(Timestamp::now()), page)
            .await?)
    }

    /// Records attempts refused by a front end's failed-login throttle, for the account
    /// they were aimed at. An address that names no account records nothing: it costs a
    /// lookup where an account costs a lookup and a write, so a front end must not make
    /// its answer wait for this (the time would tell which). Attempts within a day of
    /// the first are one event with a count.
    #[instrument(level = "debug", skip_all)]
    pub async fn note_throttled_login(
        &self,
        check: ThrottledCheck<'_>,
        client: &ClientInfo,
    ) -> Result<()> {
        let (user, detail) = match check {
            ThrottledCheck::Password { user } => (*user, "password"),
            ThrottledCheck::Login { email } => {
                let mut found = None;
                for key in crate::domain::Email::lookup_keys(email) {
                    found = self.store_ref().user_by_email(&key).await?;
                    if found.is_some() {
                        break;
                    }
                }
                let Some(found) = found else { return Ok(()) };
                (found.profile.id, "login")
            }
        };
        let now = Timestamp::now();
        let record = record(
            &user,
            client,
            SecurityEventKind::Throttled,
            now,
            Some(detail.to_owned()),
        );
        let bounds = SecurityLogBounds {
            coalesce_since: Some(Timestamp::from_millis(
                now.as_millis() - THROTTLED_COALESCE_MS,
            )),
            ..bounds(now)
        };
        Ok(self
            .store_ref()
            .record_security_event(&record, &bounds)
            .await?)
    }

    /// Records an event of `user`'s; a failure is logged (the action it records is done).
    pub(super) async fn record_event(
        &self,
        user: &UserId,
        client: &ClientInfo,
        kind: SecurityEventKind,
        detail: Option<String>,
    ) {
        let now = Timestamp::now();
        let record = record(user, client, kind, now, detail);
        self.keep(record, now).await;
    }

    /// Records a login, with the second factor it passed.
    pub(super) async fn record_login(
        &self,
        user: &UserId,
        client: &ClientInfo,
        second_factor: Option<SecondFactor>,
    ) {
        let now = Timestamp::now();
        let mut record = record(user, client, SecurityEventKind::Login, now, None);
        record.event.second_factor = second_factor;
        self.keep(record, now).await;
    }

    async fn keep(&self, record: SecurityEventRecord, now: Timestamp) {
        if let Err(e) = self
            .store_ref()
            .record_security_event(&record, &bounds(now))
            .await
        {
            tracing::warn!(user = %record.user_id, kind = record.event.kind.as_str(), error = %e,
                "could not record a security event");
        }
    }

    /// The name of one of the caller's access tokens, for the event of its revocation.
    pub(super) async fn access_token_name(
        &self,
        caller: &Caller,
        id: &crate::domain::AccessTokenId,
    ) -> Result<Option<String>> {
        Ok(self
            .store_ref()
            .access_tokens(&caller.user_id)
            .await?
            .into_iter()
            .find(|t| t.id == *id)
            .map(|t| t.name))
    }

    /// The caller's e-mail address when `changes` would change it: what an
    /// `email_changed` event names as the old one.
    pub(super) async fn email_before(
        &self,
        caller: &Caller,
        changes: &crate::input::ProfileChanges,
    ) -> Result<Option<String>> {
        if changes.email.is_none() {
            return Ok(None);
        }
        Ok(self
            .store_ref()
            .user_by_id(&caller.user_id)
            .await?
            .map(|u| u.profile.email))
    }

    /// Records an `email_changed` event if the address differs from `before`.
    pub(super) async fn record_email_change(
        &self,
        caller: &Caller,
        before: Option<String>,
        after: &str,
    ) {
        if let Some(before) = before.filter(|b| b != after) {
            let detail = format!("{before} → {after}");
            self.record_event(
                &caller.user_id,
                &caller.client,
                SecurityEventKind::EmailChanged,
                Some(detail),
            )
            .await;
        }
    }
}

fn record(
    user: &UserId,
    client: &ClientInfo,
    kind: SecurityEventKind,
    now: Timestamp,
    detail: Option<String>,
) -> SecurityEventRecord {
    SecurityEventRecord {
        user_id: *user,
        event: SecurityEvent {
            kind,
            at: now,
            first_at: now,
            count: 1,
            address: client.address(),
            second_factor: None,
            detail,
        },
    }
}

/// The oldest time still kept at `now`.
pub(crate) fn retention_start(now: Timestamp) -> Timestamp {
    Timestamp::from_millis(now.as_millis() - SECURITY_LOG_DAYS * DAY_MS)
}

fn bounds(now: Timestamp) -> SecurityLogBounds {
    SecurityLogBounds {
        prune_before: retention_start(now),
        max_per_user: MAX_SECURITY_EVENTS,
        coalesce_since: None,
    }
}
