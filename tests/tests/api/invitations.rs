//! Invitations and administrators, the second round (issue 33): an invitation that does
//! not work answers alike whatever the e-mail; it dies with its maker's standing;
//! administrators list and revoke invitations; no change leaves the server without a
//! working administrator, even two at once; the access-token cap holds under
//! concurrent creations. On SQLite and PostgreSQL, against the real server binary.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, on_every_database, unique_email};

on_every_database!(
    an_invitation_that_does_not_work_answers_alike_whatever_the_email,
    an_invitation_dies_for_good_when_its_maker_is_demoted_disabled_or_deleted,
    administrators_list_and_revoke_invitations,
    invitations_work_seven_days_by_default_and_thirty_at_most,
    two_administrators_disabling_each_other_at_once_leave_one_working,
    two_administrators_deleting_each_other_at_once_leave_one_working,
    the_last_administrator_cannot_delete_their_own_account,
    concurrent_token_creations_stop_at_the_cap,
);

async fn store(db: &str) -> std::sync::Arc<dyn journal_core::store::Store> {
    journal_core::store::open(db)
        .await
        .expect("open the database")
}

/// Sets `user`'s role the way the operator does: in the database.
async fn set_role(db: &str, user: &User, role: journal_core::Role) {
    assert!(store(db).await.set_role(&user.email, role).await.unwrap());
}

/// An invite-only server with `n` administrators and one ordinary user, last.
async fn invite_only(db: &str, n: usize) -> (Api, Vec<User>) {
    let open = Api::start(db);
    let mut users = Vec::new();
    for i in 0..n {
        let admin = open.user(&format!("admin{i}")).await;
        set_role(db, &admin, journal_core::Role::Admin).await;
        users.push(admin);
    }
    users.push(open.user("bob").await);
    drop(open);
    let api = Api::start_with(db, &["--registration", "invite"]);
    // Tokens outlive the server that issued them: the secret is in the database.
    (api, users)
}

async fn make_invite(api: &Api, admin: &User, request: Value) -> Value {
    let made = api
        .post("/api/admin/invites", Some(&admin.token), request)
        .await;
    assert_eq!(made.status(), StatusCode::CREATED);
    body(made).await
}

/// Registers a newcomer with `code` and `email`: status and body, as text.
async fn register(api: &Api, code: &str, email: &str) -> (u16, String) {
    let response = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Newcomer", "nickname": "new", "email": email,
                    "password": "a long passphrase", "inviteCode": code }),
        )
        .await;
    (
        response.status().as_u16(),
        response.text().await.expect("a body"),
    )
}

async fn an_invitation_that_does_not_work_answers_alike_whatever_the_email(db: &str) {
    let (api, users) = invite_only(db, 1).await;
    let (admin, bob) = (&users[0], &users[1]);
    let used = make_invite(&api, admin, json!({})).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(register(&api, &used, &unique_email("first")).await.0, 201);
    let revoked = make_invite(&api, admin, json!({})).await;
    let revoked_path = format!("/api/admin/invites/{}", revoked["id"].as_str().unwrap());
    assert_eq!(
        api.delete(&revoked_path, Some(&admin.token)).await.status(),
        StatusCode::OK
    );
    let revoked = revoked["code"].as_str().unwrap();
    for code in [
        "made-up-code",
        "aaaa-bbbb-cccc-dddd-eeee-ffff",
        &used,
        revoked,
    ] {
        let taken = register(&api, code, &bob.email).await;
        let unknown = register(&api, code, &unique_email("nobody")).await;
        assert_eq!(taken.0, 403, "{code}: {}", taken.1);
        assert_eq!(
            taken, unknown,
            "{code}: the answer tells nothing of the e-mail"
        );
    }
    // A working invitation may say the e-mail is taken (its holder was invited), and
    // stays unused.
    let good = make_invite(&api, admin, json!({})).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(register(&api, &good, &bob.email).await.0, 409);
    assert_eq!(register(&api, &good, &unique_email("second")).await.0, 201);
}

async fn an_invitation_dies_for_good_when_its_maker_is_demoted_disabled_or_deleted(db: &str) {
    let (api, users) = invite_only(db, 4).await;
    let code = |made: Value| made["code"].as_str().unwrap().to_owned();
    let demoted = code(make_invite(&api, &users[1], json!({})).await);
    let disabled = code(make_invite(&api, &users[2], json!({})).await);
    let deleted = code(make_invite(&api, &users[3], json!({})).await);
    let kept = code(make_invite(&api, &users[0], json!({})).await);

    set_role(db, &users[1], journal_core::Role::User).await;
    let off = api
        .put(
            &format!("/api/admin/users/{}", users[2].id),
            Some(&users[0].token),
            json!({ "disabled": true }),
        )
        .await;
    assert_eq!(off.status(), StatusCode::OK);
    let gone = api
        .delete(
            &format!("/api/admin/users/{}", users[3].id),
            Some(&users[0].token),
        )
        .await;
    assert_eq!(gone.status(), StatusCode::OK);
    for code in [&demoted, &disabled, &deleted] {
        let (status, text) = register(&api, code, &unique_email("late")).await;
        assert_eq!(status, 403, "{text}");
    }

    // For good: the maker's standing back does not bring the invitations back.
    set_role(db, &users[1], journal_core::Role::Admin).await;
    let on = api
        .put(
            &format!("/api/admin/users/{}", users[2].id),
            Some(&users[0].token),
            json!({ "disabled": false }),
        )
        .await;
    assert_eq!(on.status(), StatusCode::OK);
    for code in [&demoted, &disabled] {
        assert_eq!(register(&api, code, &unique_email("later")).await.0, 403);
    }
    assert_eq!(register(&api, &kept, &unique_email("kept")).await.0, 201);
}

async fn administrators_list_and_revoke_invitations(db: &str) {
    let (api, users) = invite_only(db, 2).await;
    let (ada, grace, bob) = (&users[0], &users[1], &users[2]);
    let first = make_invite(&api, ada, json!({ "expiresInDays": 3 })).await;
    let second = make_invite(&api, grace, json!({})).await;
    let used = make_invite(&api, ada, json!({})).await;
    assert_eq!(
        register(&api, used["code"].as_str().unwrap(), &unique_email("n"))
            .await
            .0,
        201
    );

    // Only administrators.
    assert_error(
        api.get("/api/admin/invites", Some(&bob.token)).await,
        403,
        "Forbidden",
    )
    .await;
    assert_error(
        api.get("/api/admin/invites", None).await,
        401,
        "Unauthorized",
    )
    .await;
    let path = |id: &Value| format!("/api/admin/invites/{}", id.as_str().unwrap());
    assert_error(
        api.delete(&path(&first["id"]), Some(&bob.token)).await,
        403,
        "Forbidden",
    )
    .await;

    // Outstanding ones, oldest first, with maker and expiry, never the code.
    let listed = api.get("/api/admin/invites", Some(&grace.token)).await;
    assert_eq!(listed.status(), StatusCode::OK);
    let listed = body(listed).await;
    let text = listed.to_string();
    for made in [&first, &second, &used] {
        assert!(!text.contains(made["code"].as_str().unwrap()), "{text}");
    }
    let mut listed = listed.as_array().unwrap().clone();
    assert_eq!(listed.len(), 2, "the used one is not outstanding: {text}");
    // Oldest first; two made in the same millisecond may come in either order.
    listed.sort_by_key(|i| i["id"] != first["id"]);
    assert_eq!(listed[0]["id"], first["id"]);
    assert_eq!(listed[0]["createdBy"], ada.id.as_str());
    assert_eq!(listed[0]["createdByEmail"], ada.email.as_str());
    assert_eq!(listed[0]["expiresAt"], first["expiresAt"]);
    assert!(listed[0]["createdAt"].is_string());
    assert_eq!(listed[1]["id"], second["id"]);
    assert_eq!(listed[1]["createdBy"], grace.id.as_str());

    // Revoked by id (by any administrator), then by code; each only once.
    let by_id = api.delete(&path(&first["id"]), Some(&grace.token)).await;
    assert_eq!(by_id.status(), StatusCode::OK);
    assert_error(
        api.delete(&path(&first["id"]), Some(&grace.token)).await,
        404,
        "Not Found",
    )
    .await;
    let by_code = api.delete(&path(&second["code"]), Some(&ada.token)).await;
    assert_eq!(by_code.status(), StatusCode::OK);
    for made in [&first, &second] {
        let code = made["code"].as_str().unwrap();
        assert_eq!(register(&api, code, &unique_email("r")).await.0, 403);
    }
    // A used one, an unknown id, and junk are not found.
    for id in [
        used["id"].as_str().unwrap(),
        "0123456789abcdef",
        "x",
        "%27%20OR%201%3D1",
    ] {
        assert_error(
            api.delete(&format!("/api/admin/invites/{id}"), Some(&ada.token))
                .await,
            404,
            "Not Found",
        )
        .await;
    }
    let after = body(api.get("/api/admin/invites", Some(&ada.token)).await).await;
    assert_eq!(after, json!([]));
    assert_error(
        api.put("/api/admin/invites", Some(&ada.token), json!({}))
            .await,
        405,
        "Method Not Allowed",
    )
    .await;
}

async fn invitations_work_seven_days_by_default_and_thirty_at_most(db: &str) {
    let (api, users) = invite_only(db, 1).await;
    let admin = &users[0];
    let days_from_now = |made: &Value| {
        let at: journal_core::Timestamp =
            serde_json::from_value(made["expiresAt"].clone()).unwrap();
        let ms = at.as_millis() - journal_core::Timestamp::now().as_millis();
        ms as f64 / (24.0 * 60.0 * 60.0 * 1000.0)
    };
    let default = make_invite(&api, admin, json!({})).await;
    assert!((days_from_now(&default) - 7.0).abs() < 0.01);
    let longest = make_invite(&api, admin, json!({ "expiresInDays": 30 })).await;
    assert!((days_from_now(&longest) - 30.0).abs() < 0.01);
    for days in [0, 31, 365] {
        let refused = api
            .post(
                "/api/admin/invites",
                Some(&admin.token),
                json!({ "expiresInDays": days }),
            )
            .await;
        let message = assert_error(refused, 400, "Bad Request").await;
        assert!(message.contains("30"), "{message}");
    }
}

/// Two administrators, `a` and `b`, each disable the other at the same moment, `rounds`
/// times; the database puts both back in between. One may win, never both.
async fn two_administrators_disabling_each_other_at_once_leave_one_working(db: &str) {
    let (api, users) = invite_only(db, 2).await;
    let (a, b) = (&users[0], &users[1]);
    let store = store(db).await;
    let disable = |by: String, who: String| {
        let api = &api;
        async move {
            api.put(
                &format!("/api/admin/users/{who}"),
                Some(&by),
                json!({ "disabled": true }),
            )
            .await
        }
    };

    for round in 0..10 {
        let (ab, ba) = tokio::join!(
            disable(a.token.clone(), b.id.clone()),
            disable(b.token.clone(), a.id.clone())
        );
        let statuses = [ab.status().as_u16(), ba.status().as_u16()];
        let won = statuses.iter().filter(|s| **s == 200).count();
        assert!(won <= 1, "round {round}: both won {statuses:?}");
        // The loser was refused as the last administrator (409), or its token had
        // already stopped (401).
        for s in statuses {
            assert!(matches!(s, 200 | 401 | 409), "round {round}: {statuses:?}");
        }
        let working = working_admins(&api, [a, b]).await;
        assert_eq!(working, 1, "round {round}: {statuses:?}");
        for who in [a, b] {
            let id: journal_core::UserId = who.id.parse().unwrap();
            store.set_disabled(&id, false).await.unwrap();
        }
    }
}

/// How many of `admins` can still use the admin routes.
async fn working_admins<'a>(api: &Api, admins: impl IntoIterator<Item = &'a User>) -> usize {
    let mut n = 0;
    for admin in admins {
        if api
            .get("/api/admin/invites", Some(&admin.token))
            .await
            .status()
            == StatusCode::OK
        {
            n += 1;
        }
    }
    n
}

async fn two_administrators_deleting_each_other_at_once_leave_one_working(db: &str) {
    let api = Api::start(db);
    let mut survivor: Option<User> = None;
    for round in 0..5 {
        let (a, b) = (api.user("a").await, api.user("b").await);
        set_role(db, &a, journal_core::Role::Admin).await;
        set_role(db, &b, journal_core::Role::Admin).await;
        // The last round's survivor steps down (on the database), so these two are the
        // only administrators.
        if let Some(old) = survivor.take() {
            set_role(db, &old, journal_core::Role::User).await;
        }
        let delete = |by: String, who: String| {
            let api = &api;
            async move {
                api.delete(&format!("/api/admin/users/{who}"), Some(&by))
                    .await
            }
        };
        let (ab, ba) = tokio::join!(
            delete(a.token.clone(), b.id.clone()),
            delete(b.token.clone(), a.id.clone())
        );
        let statuses = [ab.status().as_u16(), ba.status().as_u16()];
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "round {round}: {statuses:?}"
        );
        assert_eq!(working_admins(&api, [&a, &b]).await, 1, "round {round}");
        survivor = Some(if statuses[0] == 200 { a } else { b });
    }
}

async fn the_last_administrator_cannot_delete_their_own_account(db: &str) {
    let (api, users) = invite_only(db, 2).await;
    let (ada, grace) = (&users[0], &users[1]);
    let gone = api
        .delete(&format!("/api/admin/users/{}", grace.id), Some(&ada.token))
        .await;
    assert_eq!(gone.status(), StatusCode::OK);
    let message = assert_error(
        api.delete("/api/user/profile", Some(&ada.token)).await,
        409,
        "Conflict",
    )
    .await;
    assert!(message.contains("administrator"), "{message}");
    assert_eq!(working_admins(&api, [ada]).await, 1);
}

async fn concurrent_token_creations_stop_at_the_cap(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let make = |name: String| {
        api.post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": name }),
        )
    };
    for i in 0..95 {
        assert_eq!(
            make(format!("token {i}")).await.status(),
            StatusCode::CREATED
        );
    }
    let burst = futures_util::future::join_all((0..30).map(|i| make(format!("burst {i}")))).await;
    let made = burst
        .iter()
        .filter(|r| r.status() == StatusCode::CREATED)
        .count();
    assert!(
        burst
            .iter()
            .all(|r| matches!(r.status().as_u16(), 201 | 400)),
        "{:?}",
        burst.iter().map(|r| r.status()).collect::<Vec<_>>()
    );
    assert_eq!(made, 5);
    let listed = body(api.get("/api/user/tokens", Some(&ada.token)).await).await;
    assert_eq!(listed.as_array().unwrap().len(), 100);
    let refused = assert_error(make("one more".into()).await, 400, "Bad Request").await;
    assert!(refused.contains("100"), "{refused}");
}
