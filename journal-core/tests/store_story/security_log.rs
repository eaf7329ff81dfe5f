//! The security log's part of the storage story: what each account operation records,
//! who reads it, and how the store keeps it bounded (90 days, a count per user, one
//! row a day for a stranger's throttled attempts), on every backend.

use std::net::IpAddr;
use std::sync::Arc;

use journal_core::api::{
    ChangePasswordRequest, CreateAccessTokenRequest, LoginRequest, UpdateProfileRequest,
};
use journal_core::store::{SecurityEventRecord, SecurityLogBounds, Store};
use journal_core::{
    ClientInfo, Error, PageRequest, SecurityEvent, SecurityEventKind, ThrottledCheck, Timestamp,
    UserId,
};

use crate::common::{journal, user};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn all() -> PageRequest {
    PageRequest::new(Some(1), Some(100)).expect("valid page")
}

fn kinds(events: &[SecurityEvent]) -> Vec<SecurityEventKind> {
    events.iter().map(|e| e.kind).collect()
}

fn event(user: &UserId, kind: SecurityEventKind, at: Timestamp) -> SecurityEventRecord {
    SecurityEventRecord {
        user_id: *user,
        event: SecurityEvent {
            kind,
            at,
            first_at: at,
            count: 1,
            address: Some("192.0.2.7".parse().unwrap()),
            second_factor: None,
            detail: Some("probe".into()),
        },
    }
}

/// Every event the store keeps for `user`, however old.
async fn stored(store: &dyn Store, user: &UserId) -> Vec<SecurityEvent> {
    store
        .security_events(user, Timestamp::from_millis(0), all())
        .await
        .expect("events")
        .items
}

pub(super) async fn story(store: Arc<dyn Store>) {
    let j = journal(store.clone()).await;
    let here: IpAddr = "203.0.113.9".parse().unwrap();
    let from_here = ClientInfo::from_address(here);
    let (carol, _) = user(&j, "carol@example.com", "carol").await;
    let (dave, _) = user(&j, "dave@example.com", "dave").await;
    let (carol_id, dave_id) = (*carol.user_id(), *dave.user_id());

    // Each operation records its event, with the caller's address.
    let password = "correct horse battery";
    j.login_from(
        &LoginRequest {
            email: Some("CAROL@example.com".into()),
            password: Some(password.into()),
            ..Default::default()
        },
        &from_here,
    )
    .await
    .unwrap();
    let carol = carol.with_client(from_here);
    let token = j
        .create_access_token(
            &carol,
            &CreateAccessTokenRequest {
                name: Some("backup script".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let by_token = j.authenticate(&token.token).await.unwrap();
    assert!(
        matches!(
            j.security_events(&by_token, all()).await,
            Err(Error::Forbidden(_))
        ),
        "an access token does not read the log"
    );
    j.revoke_access_token(&carol, &token.id.to_string())
        .await
        .unwrap();
    j.update_profile(
        &carol,
        &UpdateProfileRequest {
            email: Some("carol.new@example.com".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    // The same address again is no change.
    j.update_profile(
        &carol,
        &UpdateProfileRequest {
            email: Some("carol.new@example.com".into()),
            full_name: Some("Carol".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    // Room for the fields re-authentication may add to the request.
    #[allow(clippy::needless_update)]
    j.change_password(
        &carol,
        &ChangePasswordRequest {
            password: Some(password.into()),
            new_password: Some("a brand new passphrase".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let log = j.security_events(&carol, all()).await.unwrap();
    assert_eq!(
        kinds(&log.items),
        [
            SecurityEventKind::PasswordChanged,
            SecurityEventKind::EmailChanged,
            SecurityEventKind::AccessTokenRevoked,
            SecurityEventKind::AccessTokenCreated,
            SecurityEventKind::Login,
            SecurityEventKind::Login,
        ]
    );
    assert_eq!(log.total, 6);
    assert!(log.items[..5].iter().all(|e| e.address == Some(here)));
    assert_eq!(
        log.items[5].address, None,
        "the first login gave no address"
    );
    assert_eq!(
        log.items[1].detail.as_deref(),
        Some("carol@example.com → carol.new@example.com")
    );
    assert_eq!(log.items[2].detail.as_deref(), Some("backup script"));
    assert_eq!(log.items[3].detail.as_deref(), Some("backup script"));
    assert!(
        log.items
            .iter()
            .all(|e| e.second_factor.is_none() && e.count == 1)
    );
    let text = serde_json::to_string(&log.items).unwrap();
    for secret in [
        password,
        "a brand new passphrase",
        token.token.as_str(),
        "$argon2",
    ] {
        assert!(!text.contains(secret), "the log holds a secret: {text}");
    }
    // Paged like the other lists.
    let second = j
        .security_events(&carol, PageRequest::new(Some(2), Some(4)).unwrap())
        .await
        .unwrap();
    assert_eq!((second.items.len(), second.total), (2, 6));
    assert_eq!(second.items, log.items[4..]);

    // Another user sees only their own.
    let theirs = j.security_events(&dave, all()).await.unwrap();
    assert_eq!(kinds(&theirs.items), [SecurityEventKind::Login]);

    // Throttled attempts: an account's are one row a day with a count; an address
    // naming nobody records nothing.
    for _ in 0..3 {
        j.note_throttled_login(
            ThrottledCheck::Login {
                email: "carol.new@example.com",
            },
            &from_here,
        )
        .await
        .unwrap();
    }
    j.note_throttled_login(
        ThrottledCheck::Login {
            email: "nobody@example.com",
        },
        &from_here,
    )
    .await
    .unwrap();
    let log = j.security_events(&carol, all()).await.unwrap();
    assert_eq!(log.items[0].kind, SecurityEventKind::Throttled);
    assert_eq!(log.items[0].count, 3);
    assert_eq!(log.items[0].detail.as_deref(), Some("login"));
    assert_eq!(log.total, 7);
    j.note_throttled_login(ThrottledCheck::Password { user: &carol_id }, &from_here)
        .await
        .unwrap();
    assert_eq!(j.security_events(&carol, all()).await.unwrap().total, 8);

    // 90 days: an older event is never listed, and the next write for its user prunes it.
    let now = Timestamp::now();
    let old = Timestamp::from_millis(now.as_millis() - 91 * DAY_MS);
    let keep_all = SecurityLogBounds {
        prune_before: Timestamp::from_millis(0),
        max_per_user: 1000,
        coalesce_since: None,
    };
    store
        .record_security_event(&event(&carol_id, SecurityEventKind::Login, old), &keep_all)
        .await
        .unwrap();
    assert_eq!(stored(store.as_ref(), &carol_id).await.len(), 9);
    assert_eq!(j.security_events(&carol, all()).await.unwrap().total, 8);
    j.login_from(
        &LoginRequest {
            email: Some("carol.new@example.com".into()),
            password: Some("a brand new passphrase".into()),
            ..Default::default()
        },
        &from_here,
    )
    .await
    .unwrap();
    let kept = stored(store.as_ref(), &carol_id).await;
    assert_eq!(kept.len(), 9, "the old one went, the login came");
    assert!(kept.iter().all(|e| e.at > old));

    // Anyone's old events go too, a bounded batch per write.
    store
        .record_security_event(&event(&dave_id, SecurityEventKind::Login, old), &keep_all)
        .await
        .unwrap();
    assert_eq!(stored(store.as_ref(), &dave_id).await.len(), 2);
    j.note_throttled_login(ThrottledCheck::Password { user: &carol_id }, &from_here)
        .await
        .unwrap();
    assert_eq!(stored(store.as_ref(), &dave_id).await.len(), 1);

    // The per-user bound keeps the newest.
    let bounded = SecurityLogBounds {
        prune_before: Timestamp::from_millis(0),
        max_per_user: 3,
        coalesce_since: None,
    };
    for i in 1..=5 {
        let at = Timestamp::from_millis(now.as_millis() + i);
        store
            .record_security_event(
                &event(&dave_id, SecurityEventKind::PasswordChanged, at),
                &bounded,
            )
            .await
            .unwrap();
    }
    let kept = stored(store.as_ref(), &dave_id).await;
    assert_eq!(kept.len(), 3);
    assert_eq!(kept[2].at.as_millis(), now.as_millis() + 3);

    // An operator's reset of the second factor says who did it.
    j.reset_totp("carol.new@example.com").await.unwrap();
    let newest = j.security_events(&carol, all()).await.unwrap().items[0].clone();
    assert_eq!(newest.kind, SecurityEventKind::SecondFactorDisabled);
    assert_eq!(newest.detail.as_deref(), Some("on the database"));
    assert_eq!(newest.address, None);

    // Events go with the account.
    assert!(store.delete_user(&dave_id).await.unwrap());
    assert!(stored(store.as_ref(), &dave_id).await.is_empty());
    assert_eq!(stored(store.as_ref(), &carol_id).await.len(), 10);
}
