//! The storage story: every operation and rule of the core, told once and run against
//! every backend (SQLite file, SQLite in memory, PostgreSQL when configured). A backend
//! is done when this passes on it.

#[path = "../common/mod.rs"]
mod common;

mod attachments;
mod caches;
mod copy;
mod cursors;
mod every_script;
mod export_round_trip;
mod filters;
mod history;
mod history_size;
mod imports;
mod search;
mod security_log;
mod sync_conflicts;
mod sync_feed;
mod sync_push;
mod totals;
mod upgrades;

use common::{Backend, entry, journal, on_every_backend, user};
use journal_core::api::{
    ChangePasswordRequest, LoginRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::store::{Store, Visibility};
use journal_core::{EntryFilter, EntryId, Error, PageRequest, Role, TokenRejection, UserId};

fn page(page: i64, limit: i64) -> PageRequest {
    PageRequest::new(Some(page), Some(limit)).expect("valid page")
}

fn titles(entries: &[journal_core::Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.title.as_str()).collect()
}

async fn the_storage_story_holds_on_every_backend(backend: Backend) {
    println!("story on {}", backend.name);
    story(backend.store.clone()).await;
}
on_every_backend!(the_storage_story_holds_on_every_backend);

async fn the_security_log_story_holds_on_every_backend(backend: Backend) {
    println!("security log story on {}", backend.name);
    security_log::story(backend.store.clone()).await;
}
on_every_backend!(the_security_log_story_holds_on_every_backend);

async fn story(store: std::sync::Arc<dyn Store>) {
    let j = journal(store.clone()).await;

    // Accounts: registration, case-insensitive uniqueness, login.
    let (alice, alice_token) = user(&j, "Alice@Example.com ", "alice").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;
    let dup = j
        .register(&common::register_request("ALICE@example.COM", "again"))
        .await;
    assert!(
        matches!(dup, Err(Error::Conflict(_))),
        "duplicate email: {dup:?}"
    );
    let profile = j.profile(&alice).await.unwrap();
    assert_eq!(profile.email, "alice@example.com");
    assert_eq!(profile.role, Role::User);
    assert!(!profile.is_private);
    assert_eq!(profile.profile_pic, "");

    let wrong = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("wrong password!".into()),
            ..Default::default()
        })
        .await;
    let unknown = j
        .login(&LoginRequest {
            email: Some("nobody@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await;
    assert!(matches!(wrong, Err(Error::InvalidCredentials)));
    assert!(matches!(unknown, Err(Error::InvalidCredentials)));
    assert_eq!(
        wrong.unwrap_err().to_string(),
        unknown.unwrap_err().to_string()
    );

    // Profile updates, and the e-mail conflict on update.
    let updated = j
        .update_profile(
            &alice,
            &UpdateProfileRequest {
                nickname: Some("  ally ".into()),
                profile_pic: Some("data:image/png;base64,iVBORw0KGgo=".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.nickname, "ally");
    assert_eq!(updated.full_name, "alice Example");
    let taken = j
        .update_profile(
            &bob,
            &UpdateProfileRequest {
                email: Some("ALICE@example.com".into()),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(taken, Err(Error::Conflict(_))), "{taken:?}");

    // Entries: create, read, visibility.
    let private = j
        .create_entry(&alice, &entry("Private thoughts", "only mine", false))
        .await
        .unwrap();
    let public = j
        .create_entry(&alice, &entry("Public walk", "to the lake", true))
        .await
        .unwrap();
    assert_eq!(public.author_name, "ally");
    assert_eq!(public.author_id, *alice.user_id());
    assert_eq!(public.created_at, public.updated_at);
    assert_eq!(j.entry(&alice, &private.id).await.unwrap(), private);
    assert_eq!(j.entry(&bob, &public.id).await.unwrap(), public);
    assert!(matches!(
        j.entry(&bob, &private.id).await,
        Err(Error::NotFound { kind: "entry" })
    ));
    assert!(matches!(
        j.entry(&bob, &EntryId::generate()).await,
        Err(Error::NotFound { .. })
    ));

    // Only the author changes an entry: visible → Forbidden, invisible → NotFound.
    let change = UpdateEntryRequest {
        title: Some("hijacked".into()),
        ..Default::default()
    };
    assert!(matches!(
        j.update_entry(&bob, &public.id, &change).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.update_entry(&bob, &private.id, &change).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.delete_entry(&bob, &public.id).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.delete_entry(&bob, &private.id).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        j.entry(&alice, &public.id).await.unwrap(),
        public,
        "unchanged after refusals"
    );

    // The author updates only the fields sent.
    let edited = j
        .update_entry(
            &alice,
            &public.id,
            &UpdateEntryRequest {
                content: Some("to the lake and back".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(edited.title, "Public walk");
    assert_eq!(edited.content, "to the lake and back");
    assert!(edited.is_public);
    assert!(edited.updated_at >= public.updated_at);
    assert_eq!(edited.created_at, public.created_at);

    // Lists: own sees all, others see public only, newest first.
    let own = j
        .user_entries(&alice, alice.user_id(), page(1, 10))
        .await
        .unwrap();
    assert_eq!(titles(&own.items), ["Public walk", "Private thoughts"]);
    assert_eq!(own.total, 2);
    let seen = j
        .user_entries(&bob, alice.user_id(), page(1, 10))
        .await
        .unwrap();
    assert_eq!(titles(&seen.items), ["Public walk"]);
    assert_eq!(seen.total, 1);
    assert!(matches!(
        j.user_entries(&bob, &UserId::generate(), page(1, 10)).await,
        Err(Error::NotFound { kind: "user" })
    ));
    let feed = j.public_entries(page(1, 10)).await.unwrap();
    assert_eq!(titles(&feed.items), ["Public walk"]);

    // A private profile hides everything from others, public entries included.
    j.update_profile(
        &alice,
        &UpdateProfileRequest {
            is_private: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        j.user_entries(&bob, alice.user_id(), page(1, 10)).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.entry(&bob, &public.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.update_entry(&bob, &public.id, &change).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(j.public_entries(page(1, 10)).await.unwrap().total, 0);
    assert_eq!(
        j.user_entries(&alice, alice.user_id(), page(1, 10))
            .await
            .unwrap()
            .total,
        2
    );
    j.update_profile(
        &alice,
        &UpdateProfileRequest {
            is_private: Some(false),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    // Search: own entries only, prefixes, case.
    j.create_entry(&bob, &entry("Lake notes", "bob was at the lake too", true))
        .await
        .unwrap();
    let found = j.search(&alice, "LAK", page(1, 10)).await.unwrap();
    assert_eq!(titles(&found.items), ["Public walk"]);
    assert_eq!(
        j.search(&bob, "private", page(1, 10)).await.unwrap().total,
        0
    );
    // The index follows edits and deletes: old words stop matching, new ones start.
    let lake = j
        .create_entry(&bob, &entry("Pond", "ducks on the pond", false))
        .await
        .unwrap();
    j.update_entry(
        &bob,
        &lake.id,
        &UpdateEntryRequest {
            content: Some("geese on the pond".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(j.search(&bob, "ducks", page(1, 10)).await.unwrap().total, 0);
    assert_eq!(j.search(&bob, "geese", page(1, 10)).await.unwrap().total, 1);
    j.delete_entry(&bob, &lake.id).await.unwrap();
    assert_eq!(j.search(&bob, "geese", page(1, 10)).await.unwrap().total, 0);
    assert_eq!(j.search(&bob, "pond", page(1, 10)).await.unwrap().total, 0);

    // An admin may delete anyone's entry; promotion only through set_role.
    j.set_role("BOB@example.com", Role::Admin).await.unwrap();
    let bob_admin = j.local_caller(bob.user_id()).await.unwrap();
    assert_eq!(bob_admin.role(), Role::Admin);
    assert!(matches!(
        j.update_entry(&bob_admin, &public.id, &change).await,
        Err(Error::Forbidden(_))
    ));
    j.delete_entry(&bob_admin, &private.id).await.unwrap();
    assert!(matches!(
        j.entry(&alice, &private.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.set_role("ghost@example.com", Role::Admin).await,
        Err(Error::NotFound { .. })
    ));

    // Tokens: logout revokes one token only.
    let second = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    j.logout(&alice).await.unwrap();
    assert!(matches!(
        j.authenticate(&alice_token).await,
        Err(Error::Unauthenticated(TokenRejection::Revoked))
    ));
    let alice2 = j.authenticate(&second).await.unwrap();

    // Password change voids every older token; the new password logs in.
    let wrong_current = j
        .change_password(
            &alice2,
            &ChangePasswordRequest {
                password: Some("not my password".into()),
                new_password: Some("a brand new secret".into()),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(wrong_current, Err(Error::WrongPassword)));
    j.change_password(
        &alice2,
        &ChangePasswordRequest {
            password: Some("correct horse battery".into()),
            new_password: Some("a brand new secret".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        j.authenticate(&second).await,
        Err(Error::Unauthenticated(TokenRejection::Superseded))
    ));
    let third = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("a brand new secret".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let alice3 = j.authenticate(&third).await.unwrap();

    // Deleting the account deletes its entries and voids its tokens.
    let alice_id = *alice3.user_id();
    j.delete_account(&alice3, &Default::default())
        .await
        .unwrap();
    assert!(matches!(
        j.authenticate(&third).await,
        Err(Error::Unauthenticated(TokenRejection::UnknownUser))
    ));
    assert!(matches!(
        j.entry(&bob, &public.id).await,
        Err(Error::NotFound { .. })
    ));
    let leftover = store
        .entries_by_author(
            &alice_id,
            Visibility::All,
            &EntryFilter::default(),
            page(1, 10),
        )
        .await
        .unwrap();
    assert_eq!(leftover.total, 0);
    assert!(store.user_by_id(&alice_id).await.unwrap().is_none());

    // The stored secret is stable: a second journal over the store accepts old tokens.
    let bob_token = j
        .login(&LoginRequest {
            email: Some("bob@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let again = journal(store.clone()).await;
    assert_eq!(
        again.authenticate(&bob_token).await.unwrap().user_id(),
        bob.user_id()
    );
    store.ping().await.unwrap();
}
