//! Invitations, administrators and the access-token cap on every backend (SQLite file,
//! SQLite in memory, PostgreSQL when configured): the rules of issue 33 that each store
//! keeps in its own transactions.

mod common;

use std::sync::Arc;

use common::{Backend, on_every_backend, register_request};
use journal_core::api::{CreateInviteRequest, LoginRequest, RegisterRequest};
use journal_core::store::{AccessTokenRecord, Store};
use journal_core::{
    AccessToken, AccessTokenId, Caller, Error, Journal, JournalOptions, Registration, Role,
    Timestamp, UserId,
};

async fn invitations_and_administrators_hold_on_every_backend(backend: Backend) {
    println!("on {}", backend.name);
    story(backend.store.clone()).await;
}
on_every_backend!(invitations_and_administrators_hold_on_every_backend);

async fn story(store: Arc<dyn Store>) {
    let options = JournalOptions {
        registration: Registration::Invite,
        ..Default::default()
    };
    let j = Journal::with_store(store.clone(), options).await.unwrap();
    let ada = account(&j, "ada@example.com", Role::Admin).await;
    let grace = account(&j, "grace@example.com", Role::Admin).await;
    let bob = account(&j, "bob@example.com", Role::User).await;
    let (ada_id, grace_id) = (*ada.user_id(), *grace.user_id());

    // Made, listed with their maker (never their code), revoked by id or by code.
    let invite = |by: Caller, days: Option<i64>| {
        let j = j.clone();
        async move {
            j.create_invite(
                &by,
                &CreateInviteRequest {
                    expires_in_days: days,
                },
            )
            .await
        }
    };
    let first = invite(ada.clone(), None).await.unwrap();
    let second = invite(grace.clone(), Some(30)).await.unwrap();
    assert!(matches!(
        invite(ada.clone(), Some(31)).await,
        Err(Error::Validation(_))
    ));
    assert!(matches!(
        invite(bob.clone(), None).await,
        Err(Error::Forbidden(_))
    ));
    let mut listed = j.admin_invites(&grace).await.unwrap();
    // Oldest first; two made in the same millisecond may come in either order.
    listed.sort_by_key(|i| i.id != first.id);
    assert_eq!(
        listed.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
        [first.id.as_str(), second.id.as_str()]
    );
    assert_eq!(listed[0].created_by, ada_id);
    assert_eq!(listed[0].created_by_email, "ada@example.com");
    assert_eq!(listed[0].expires_at, first.expires_at);
    let week = first.expires_at.as_millis() - listed[0].created_at.as_millis();
    assert_eq!(week, 7 * 24 * 3600 * 1000);
    assert!(matches!(
        j.admin_invites(&bob).await,
        Err(Error::Forbidden(_))
    ));
    j.admin_revoke_invite(&ada, &second.id).await.unwrap();
    assert!(matches!(
        j.admin_revoke_invite(&ada, &second.id).await,
        Err(Error::NotFound { .. })
    ));
    j.revoke_invite(&first.code.to_uppercase()).await.unwrap();
    assert!(j.outstanding_invites().await.unwrap().is_empty());

    // One answer for an invitation that does not work, whatever the e-mail.
    for code in [&first.code, &second.code, &"made-up".to_owned()] {
        for email in ["bob@example.com", "nobody@example.com"] {
            assert!(
                matches!(
                    j.register(&with_invite(email, code)).await,
                    Err(Error::Forbidden(_))
                ),
                "{code} {email}"
            );
        }
    }

    // An invitation dies with its maker's standing, for good.
    let of_grace = invite(grace.clone(), None).await.unwrap();
    let of_ada = invite(ada.clone(), None).await.unwrap();
    assert!(store.set_disabled(&grace_id, true).await.unwrap());
    assert!(store.set_disabled(&grace_id, false).await.unwrap());
    let refused = j
        .register(&with_invite("new1@example.com", &of_grace.code))
        .await;
    assert!(matches!(refused, Err(Error::Forbidden(_))), "{refused:?}");
    let of_grace = invite(grace.clone(), None).await.unwrap();
    assert!(
        store
            .set_role("grace@example.com", Role::User)
            .await
            .unwrap()
    );
    assert!(
        j.outstanding_invites()
            .await
            .unwrap()
            .iter()
            .all(|i| i.id != of_grace.id)
    );
    let refused = j
        .register(&with_invite("new2@example.com", &of_grace.code))
        .await;
    assert!(matches!(refused, Err(Error::Forbidden(_))), "{refused:?}");
    // A taken e-mail with a working invitation is a conflict and leaves it unused.
    assert!(matches!(
        j.register(&with_invite("bob@example.com", &of_ada.code))
            .await,
        Err(Error::Conflict(_))
    ));
    j.register(&with_invite("new3@example.com", &of_ada.code))
        .await
        .unwrap();

    // The last working administrator is neither disabled nor deleted; the operator may
    // still demote them on the database.
    assert!(
        store
            .set_role("grace@example.com", Role::Admin)
            .await
            .unwrap()
    );
    assert!(store.set_disabled(&grace_id, true).await.unwrap());
    assert!(matches!(
        j.admin_update_user(&grace, &ada_id.to_string(), &disable())
            .await,
        Err(Error::Unauthenticated(_)) | Err(Error::Conflict(_)) | Err(Error::Forbidden(_))
    ));
    for result in [
        store.set_disabled(&ada_id, true).await,
        store.delete_user(&ada_id).await,
    ] {
        assert!(
            matches!(Error::from(result.unwrap_err()), Error::Conflict(_)),
            "the last administrator stays"
        );
    }
    assert!(
        matches!(
            j.delete_account(
                &ada,
                &journal_core::api::DeleteAccountRequest {
                    password: Some("correct horse battery".into()),
                    totp: None,
                }
            )
            .await,
            Err(Error::Conflict(_))
        ),
        "nor deletes their own account"
    );
    assert!(store.delete_user(&grace_id).await.unwrap());
    assert!(store.set_disabled(bob.user_id(), true).await.unwrap());
    assert!(store.set_role("ada@example.com", Role::User).await.unwrap());
    assert!(store.delete_user(&ada_id).await.unwrap());

    // The access-token cap is the store's: the count and the insert are one.
    let carl = account(&j, "carl@example.com", Role::User).await;
    for n in 0..3 {
        let kept = store
            .insert_access_token(&token_of(*carl.user_id(), n), 2)
            .await
            .unwrap();
        assert_eq!(kept, n < 2, "token {n}");
    }
    assert_eq!(store.access_tokens(carl.user_id()).await.unwrap().len(), 2);
}

/// An account made by the operator (registration here is by invitation), logged in.
async fn account(j: &Journal, email: &str, role: Role) -> Caller {
    j.create_account(&register_request(email, "someone"), role)
        .await
        .unwrap();
    let token = j
        .login(&LoginRequest {
            email: Some(email.into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    j.authenticate(&token).await.unwrap()
}

fn with_invite(email: &str, code: &str) -> RegisterRequest {
    RegisterRequest {
        invite_code: Some(code.to_owned()),
        ..register_request(email, "newcomer")
    }
}

fn disable() -> journal_core::api::AdminUpdateUserRequest {
    journal_core::api::AdminUpdateUserRequest {
        disabled: Some(true),
    }
}

fn token_of(user: UserId, n: u8) -> AccessTokenRecord {
    AccessTokenRecord {
        token: AccessToken {
            id: AccessTokenId::generate(),
            name: format!("token {n}"),
            created_at: Timestamp::now(),
            expires_at: None,
            last_used_at: None,
        },
        user_id: user,
        hash: format!("{n:064}"),
    }
}
