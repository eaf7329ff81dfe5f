//! What the stores keep in memory (first pages, token checks, the account a create
//! reads): each write shows at once, and what it did not touch stays kept.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::{page, titles};
use journal_core::api::{
    ChangePasswordRequest, LoginRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{Error, TokenRejection};

/// Every list a reader can see right after each kind of write: the writer's own list,
/// another user's view of it, the feed. With caches, one author's write must show at
/// once in what depends on it, and (SQLite) leave others' cached pages in memory.
async fn cached_pages_follow_each_write_and_keep_what_it_did_not_touch(backend: Backend) {
    println!("caches on {}", backend.name);
    let store = backend.store.clone();
    let j = journal(store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (ben, _) = user(&j, "ben@example.com", "ben").await;
    j.create_entry(&ann, &entry("ann 1", "text", true))
        .await
        .unwrap();
    let seen = |step: &'static str| {
        let (j, ann, ben) = (&j, &ann, &ben);
        async move {
            let own = j.user_entries(ben, ben.user_id(), page(1, 10)).await;
            let others = j.user_entries(ann, ben.user_id(), page(1, 10)).await;
            let feed = j.public_entries(page(1, 10)).await;
            let (own, others, feed) = (own.unwrap(), others.unwrap(), feed.unwrap());
            assert_eq!(own.total, own.items.len() as u64, "{step}");
            assert_eq!(others.total, others.items.len() as u64, "{step}");
            assert_eq!(feed.total, feed.items.len() as u64, "{step}");
            (
                titles(&own.items).join(","),
                titles(&others.items).join(","),
                titles(&feed.items).join(","),
            )
        }
    };
    // Ann's own first page: read once to keep it; each later read of it should be
    // served from memory on SQLite, whatever Ben writes.
    let ann_page = || j.user_entries(&ann, ann.user_id(), page(1, 10));
    // PostgreSQL's page caches are exact across servers by the database's snapshot,
    // which any write changes: only SQLite's keep what a write did not touch.
    let scoped = backend.name.starts_with("sqlite");
    let hits = || {
        scoped.then_some(())?;
        store
            .cache_counts()
            .into_iter()
            .find(|(name, _)| *name == "authorPages")
            .map(|(_, c)| c.hits)
    };
    assert_eq!(ann_page().await.unwrap().items.len(), 1);
    assert_eq!(
        seen("start").await,
        (String::new(), String::new(), "ann 1".into())
    );

    let public = j
        .create_entry(&ben, &entry("ben public", "text", true))
        .await
        .unwrap();
    assert_eq!(
        seen("a public entry").await,
        (
            "ben public".into(),
            "ben public".into(),
            "ben public,ann 1".into()
        )
    );
    let before = hits();
    let private = j
        .create_entry(&ben, &entry("ben private", "text", false))
        .await
        .unwrap();
    if let Some(before) = before {
        ann_page().await.unwrap();
        assert_eq!(hits(), Some(before + 1), "Ben's write kept Ann's page");
    }
    assert_eq!(
        seen("a private entry").await,
        (
            "ben private,ben public".into(),
            "ben public".into(),
            "ben public,ann 1".into()
        )
    );
    let hide = UpdateEntryRequest {
        is_public: Some(false),
        ..Default::default()
    };
    j.update_entry(&ben, &public.id, &hide).await.unwrap();
    assert_eq!(
        seen("made private").await,
        (
            "ben private,ben public".into(),
            String::new(),
            "ann 1".into()
        )
    );
    let show = UpdateEntryRequest {
        is_public: Some(true),
        title: Some("ben shown".into()),
        ..Default::default()
    };
    j.update_entry(&ben, &private.id, &show).await.unwrap();
    assert_eq!(
        seen("made public").await,
        (
            "ben shown,ben public".into(),
            "ben shown".into(),
            "ben shown,ann 1".into()
        )
    );
    j.delete_entry(&ben, &private.id).await.unwrap();
    assert_eq!(
        seen("deleted").await,
        ("ben public".into(), String::new(), "ann 1".into())
    );
    // A login writes only Ben's account: Ann's page stays in memory.
    let before = hits();
    j.login(&journal_core::api::LoginRequest {
        email: Some("ben@example.com".into()),
        password: Some("correct horse battery".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    if let Some(before) = before {
        ann_page().await.unwrap();
        assert_eq!(hits(), Some(before + 1), "Ben's login kept Ann's page");
    }
    // Ben's profile made private: his entries leave the feed at once.
    j.update_entry(&ben, &public.id, &show).await.unwrap();
    assert_eq!(seen("shown again").await.2, "ben shown,ann 1");
    let private_profile = UpdateProfileRequest {
        is_private: Some(true),
        ..Default::default()
    };
    j.update_profile(&ben, &private_profile).await.unwrap();
    let feed = j.public_entries(page(1, 10)).await.unwrap();
    assert_eq!(titles(&feed.items), ["ann 1"]);
    assert_eq!(feed.total, 1);
}
on_every_backend!(cached_pages_follow_each_write_and_keep_what_it_did_not_touch);

/// A token is checked against its account on every request; SQLite keeps that check
/// in memory between writes. The account's own entries do not change it, so a user
/// who writes keeps their token checked from memory, while a logout or a new password
/// shows at once.
async fn tokens_stay_checked_from_memory_through_their_users_entries_and_not_past_their_account(
    backend: Backend,
) {
    println!("token checks on {}", backend.name);
    let store = backend.store.clone();
    let j = journal(store.clone()).await;
    let (ann, token) = user(&j, "ann@example.com", "ann").await;
    let scoped = backend.name.starts_with("sqlite");
    let hits = || {
        store
            .cache_counts()
            .into_iter()
            .find(|(name, _)| *name == "authStates")
            .map(|(_, c)| c.hits)
    };
    j.authenticate(&token).await.unwrap();
    for n in 0..3 {
        let before = hits();
        j.create_entry(&ann, &entry(&format!("entry {n}"), "text", n % 2 == 0))
            .await
            .unwrap();
        let again = j.authenticate(&token).await.unwrap();
        assert_eq!(again.user_id(), ann.user_id());
        if scoped {
            assert_eq!(
                hits(),
                before.map(|h| h + 1),
                "Ann's own entry kept her token's check in memory"
            );
        }
    }
    let page = j
        .user_entries(&ann, ann.user_id(), page(1, 10))
        .await
        .unwrap();
    assert_eq!(page.total, 3, "her entries show at once all the same");

    // A second token, then a new password: both tokens stop at once.
    let login = |password: &'static str| {
        let j = &j;
        async move {
            j.login(&LoginRequest {
                email: Some("ann@example.com".into()),
                password: Some(password.into()),
                ..Default::default()
            })
            .await
        }
    };
    let second = login("correct horse battery").await.unwrap();
    j.authenticate(&second).await.unwrap();
    j.change_password(
        &ann,
        &ChangePasswordRequest {
            password: Some("correct horse battery".into()),
            new_password: Some("a brand new passphrase".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    for stale in [&token, &second] {
        assert!(
            matches!(
                j.authenticate(stale).await,
                Err(Error::Unauthenticated(TokenRejection::Superseded))
            ),
            "a token from before the new password is refused at once"
        );
    }
    let token = login("a brand new passphrase").await.unwrap();
    let ann = j.authenticate(&token).await.unwrap();
    j.logout(&ann).await.unwrap();
    assert!(
        matches!(
            j.authenticate(&token).await,
            Err(Error::Unauthenticated(TokenRejection::Revoked))
        ),
        "a logout holds at once"
    );
}
on_every_backend!(
    tokens_stay_checked_from_memory_through_their_users_entries_and_not_past_their_account
);

/// A create names its author by their nickname at that moment, and SQLite keeps the
/// account it reads for that in memory between writes to the account: a writer's
/// creates read it once, and a new nickname or password shows at once.
async fn creates_name_their_author_as_the_account_is_now_read_from_memory_between_its_changes(
    backend: Backend,
) {
    println!("account reads on {}", backend.name);
    let store = backend.store.clone();
    let j = journal(store.clone()).await;
    let (ann, _token) = user(&j, "ann@example.com", "ann").await;
    let scoped = backend.name.starts_with("sqlite");
    let hits = || {
        store
            .cache_counts()
            .into_iter()
            .find(|(name, _)| *name == "users")
            .map_or(0, |(_, c)| c.hits)
    };
    let first = j
        .create_entry(&ann, &entry("first", "text", true))
        .await
        .unwrap();
    assert_eq!(first.author_name, "ann");
    let before = hits();
    let second = j
        .create_entry(&ann, &entry("second", "text", false))
        .await
        .unwrap();
    assert_eq!(second.author_name, "ann");
    if scoped {
        assert_eq!(
            hits(),
            before + 1,
            "her own entry left her account in memory"
        );
    }

    j.update_profile(
        &ann,
        &UpdateProfileRequest {
            nickname: Some("annie".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(j.profile(&ann).await.unwrap().nickname, "annie");
    let third = j
        .create_entry(&ann, &entry("third", "text", true))
        .await
        .unwrap();
    assert_eq!(third.author_name, "annie", "the new nickname at once");
    let stored = j.entry(&ann, &third.id).await.unwrap();
    assert_eq!(stored.author_name, "annie");

    // The password check reads the account too: the new password counts at once,
    // the old one no more.
    let change = |old: &str, new: &str| ChangePasswordRequest {
        password: Some(old.into()),
        new_password: Some(new.into()),
        ..Default::default()
    };
    j.change_password(
        &ann,
        &change("correct horse battery", "a brand new passphrase"),
    )
    .await
    .unwrap();
    assert!(
        j.change_password(
            &ann,
            &change("correct horse battery", "yet another passphrase")
        )
        .await
        .is_err(),
        "the old password no longer counts"
    );
    j.change_password(
        &ann,
        &change("a brand new passphrase", "yet another passphrase"),
    )
    .await
    .unwrap();
}
on_every_backend!(
    creates_name_their_author_as_the_account_is_now_read_from_memory_between_its_changes
);
