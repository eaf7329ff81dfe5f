//! What a login token alone can do to an account (an XSS that read it from the web
//! app's storage, say): it cannot turn on a second factor the owner does not have, mint
//! a lasting access token, change the e-mail, or delete the account without the
//! password; and a password change ends what it could have made.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, next_code, now_seconds, on_every_database};

on_every_database!(
    a_login_token_alone_cannot_take_the_account_over,
    a_fresh_login_stands_in_for_the_password,
    a_password_change_ends_every_session_and_access_token_unless_kept,
    an_administrator_resets_a_second_factor_and_signs_the_owner_out,
);

/// Asserts a 403 asking to confirm the owner.
async fn assert_needs_confirmation(response: reqwest::Response, what: &str) {
    let message = assert_error(response, 403, "Forbidden").await;
    assert!(message.contains("confirm it is you"), "{what}: {message}");
}

async fn tokens(api: &Api, user: &User) -> Value {
    body(api.get("/api/user/tokens", Some(&user.token)).await).await
}

async fn a_login_token_alone_cannot_take_the_account_over(db: &str) {
    // No grace after a login: every step needs the password.
    let api = Api::start_with(db, &["--recent-login", "0s"]);
    let ada = api.user("ada").await;
    let setup = body(
        api.post("/api/user/2fa/setup", Some(&ada.token), json!({}))
            .await,
    )
    .await;
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let code = journal_core::totp::code_at(&secret, now_seconds()).unwrap();

    // The token alone, and the token with a wrong password: refused, nothing changed.
    for password in [None, Some("not the password at all")] {
        let with = |mut request: Value| {
            if let Some(p) = password {
                request["password"] = json!(p);
            }
            request
        };
        let attempts = [
            (
                reqwest::Method::POST,
                "/api/user/tokens",
                with(json!({ "name": "mine now" })),
            ),
            (
                reqwest::Method::POST,
                "/api/user/2fa/enable",
                with(json!({ "code": code })),
            ),
            (
                reqwest::Method::DELETE,
                "/api/user/profile",
                with(json!({})),
            ),
            (
                reqwest::Method::PUT,
                "/api/user/profile",
                with(json!({ "email": "attacker@example.com" })),
            ),
        ];
        for (method, path, request) in attempts {
            let what = format!("{method} {path} with {password:?}");
            let response = api
                .send(method, path, Some(&ada.token), Some(request))
                .await;
            match password {
                None => assert_needs_confirmation(response, &what).await,
                Some(_) => {
                    let message = assert_error(response, 401, "Unauthorized").await;
                    assert!(message.contains("password is wrong"), "{what}: {message}");
                }
            }
        }
    }
    // A DELETE without any body is the same refusal.
    assert_needs_confirmation(
        api.delete("/api/user/profile", Some(&ada.token)).await,
        "DELETE without a body",
    )
    .await;
    assert_eq!(tokens(&api, &ada).await, json!([]));
    // No second factor: the password alone still logs in, at the same address.
    api.login(&ada.email, &ada.password).await;
    // The name and an unchanged e-mail (in another case) need no password.
    let same = api
        .put(
            "/api/user/profile",
            Some(&ada.token),
            json!({ "nickname": "ada2", "email": ada.email.to_uppercase() }),
        )
        .await;
    assert_eq!(same.status(), StatusCode::OK);

    // With the password, each step works.
    let enabled = api
        .post(
            "/api/user/2fa/enable",
            Some(&ada.token),
            json!({ "code": code, "password": ada.password }),
        )
        .await;
    assert_eq!(enabled.status(), StatusCode::OK);
    // Codes work once per step: the later confirmations use recovery codes.
    let recovery = body(enabled).await["recoveryCodes"].clone();
    // Now the second factor is on, the password alone is not enough.
    let without_code = api
        .post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": "backup", "password": ada.password }),
        )
        .await;
    let message = assert_error(without_code, 403, "Forbidden").await;
    assert!(message.contains("second factor"), "{message}");
    let made = api
        .post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": "backup", "password": ada.password, "totp": next_code(&secret) }),
        )
        .await;
    assert_eq!(made.status(), StatusCode::CREATED);
    assert_eq!(tokens(&api, &ada).await.as_array().unwrap().len(), 1);
    let new_email = crate::support::unique_email("ada-new");
    let moved = api
        .put(
            "/api/user/profile",
            Some(&ada.token),
            json!({ "email": new_email, "password": ada.password, "totp": recovery[0] }),
        )
        .await;
    assert_eq!(moved.status(), StatusCode::OK);
    let deleted = api
        .send(
            reqwest::Method::DELETE,
            "/api/user/profile",
            Some(&ada.token),
            Some(json!({ "password": ada.password, "totp": recovery[1] })),
        )
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_error(
        api.get("/api/user/profile", Some(&ada.token)).await,
        401,
        "Unauthorized",
    )
    .await;
}

async fn a_fresh_login_stands_in_for_the_password(db: &str) {
    // The default: a login counts for five minutes, and `api.user` has just logged in.
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let made = api
        .post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": "cli" }),
        )
        .await;
    assert_eq!(made.status(), StatusCode::CREATED);
    let deleted = api.delete("/api/user/profile", Some(&ada.token)).await;
    assert_eq!(deleted.status(), StatusCode::OK);
}

async fn a_password_change_ends_every_session_and_access_token_unless_kept(db: &str) {
    let api = Api::start(db);
    let mut ada = api.user("ada").await;
    let other_session = api.login(&ada.email, &ada.password).await;
    let make = |token: String| {
        let api = &api;
        async move {
            let made = api
                .post(
                    "/api/user/tokens",
                    Some(&token),
                    json!({ "name": "script" }),
                )
                .await;
            assert_eq!(made.status(), StatusCode::CREATED);
            body(made).await["token"].as_str().unwrap().to_owned()
        }
    };
    let pat = make(ada.token.clone()).await;
    let change = |token: String, old: String, new: &'static str, keep: Option<bool>| {
        let api = &api;
        async move {
            let mut request = json!({ "password": old, "newPassword": new });
            if let Some(keep) = keep {
                request["keepAccessTokens"] = json!(keep);
            }
            api.put("/api/user/profile/password", Some(&token), request)
                .await
        }
    };
    let changed = change(
        ada.token.clone(),
        ada.password.clone(),
        "a first new passphrase",
        None,
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    for (what, token) in [
        ("this session", &ada.token),
        ("another session", &other_session),
        ("the access token", &pat),
    ] {
        let response = api.get("/api/user/profile", Some(token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{what}");
    }

    // Kept on request: the sessions end, the access token works on.
    ada.password = "a first new passphrase".into();
    ada.token = api.login(&ada.email, &ada.password).await;
    let pat = make(ada.token.clone()).await;
    let changed = change(
        ada.token.clone(),
        ada.password.clone(),
        "a second new passphrase",
        Some(true),
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let session = api.get("/api/user/profile", Some(&ada.token)).await;
    assert_eq!(session.status(), StatusCode::UNAUTHORIZED);
    let script = api.get("/api/user/profile", Some(&pat)).await;
    assert_eq!(script.status(), StatusCode::OK);
}

async fn an_administrator_resets_a_second_factor_and_signs_the_owner_out(db: &str) {
    let api = Api::start(db);
    let owner = api.user("owner").await;
    let admin = api.user("admin").await;
    // What a stolen login could do: a second factor the owner does not have.
    let setup = body(
        api.post("/api/user/2fa/setup", Some(&owner.token), json!({}))
            .await,
    )
    .await;
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let code = journal_core::totp::code_at(&secret, now_seconds()).unwrap();
    let enabled = api
        .post(
            "/api/user/2fa/enable",
            Some(&owner.token),
            json!({ "code": code }),
        )
        .await;
    assert_eq!(enabled.status(), StatusCode::OK);
    let locked_out = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": owner.email, "password": owner.password }),
        )
        .await;
    assert_error(locked_out, 401, "Unauthorized").await;

    let reset = format!("/api/admin/users/{}/2fa", owner.id);
    // Not for anyone but an administrator, and not on oneself.
    assert_error(
        api.delete(&reset, Some(&owner.token)).await,
        403,
        "Forbidden",
    )
    .await;
    let store = journal_core::store::open(db).await.unwrap();
    assert!(
        store
            .set_role(&admin.email, journal_core::Role::Admin)
            .await
            .unwrap()
    );
    let own = format!("/api/admin/users/{}/2fa", admin.id);
    assert_error(api.delete(&own, Some(&admin.token)).await, 403, "Forbidden").await;

    let done = api.delete(&reset, Some(&admin.token)).await;
    assert_eq!(done.status(), StatusCode::OK);
    // Signed out everywhere (the attacker's session too), and the password alone logs
    // in again.
    assert_error(
        api.get("/api/user/profile", Some(&owner.token)).await,
        401,
        "Unauthorized",
    )
    .await;
    api.login(&owner.email, &owner.password).await;
    let unknown = format!("/api/admin/users/{}/2fa", uuid_like_nobody());
    assert_error(
        api.delete(&unknown, Some(&admin.token)).await,
        404,
        "Not Found",
    )
    .await;
}

fn uuid_like_nobody() -> String {
    "01890000-0000-7000-8000-000000000000".to_owned()
}
