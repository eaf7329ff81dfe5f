//! Password policy under attack: every common password is refused where a password is
//! set, and a megabyte-long password is refused before any hashing.

use serde_json::json;

use crate::hostile::{assert_refused, can_log_in};
use crate::support::{Api, assert_error, on_every_database, unique_email};

on_every_database!(
    every_common_password_is_refused_at_registration,
    every_common_password_is_refused_at_password_change,
    a_megabyte_password_is_400_at_registration_and_password_change,
    a_megabyte_password_is_401_at_login,
);

/// The list the core ships, one password per line.
const COMMON: &str = include_str!("../../../journal-core/data/common-passwords.txt");

fn common_passwords() -> impl Iterator<Item = &'static str> {
    COMMON.lines().map(str::trim).filter(|l| !l.is_empty())
}

async fn every_common_password_is_refused_at_registration(db: &str) {
    let api = Api::start(db);
    let email = unique_email("common");
    let mut count = 0;
    for password in common_passwords() {
        // As listed, and in the disguises the check must see through.
        for variant in [
            password.to_owned(),
            password.to_uppercase(),
            format!("  {password} "),
        ] {
            let response = api
                .post(
                    "/api/user/register",
                    None,
                    json!({ "fullName": "Common", "nickname": "common",
                            "email": email, "password": variant }),
                )
                .await;
            let (status, message) = assert_refused(response, password).await;
            assert_eq!(status, 400, "{password:?}: {message}");
            assert!(message.starts_with("password"), "{password:?}: {message}");
        }
        count += 1;
    }
    assert_eq!(count, 10_000);
    // Nothing was registered: the address is still free.
    let response = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Common", "nickname": "common", "email": email,
                    "password": "not a common passphrase at all" }),
        )
        .await;
    assert_eq!(response.status().as_u16(), 201);
}

async fn every_common_password_is_refused_at_password_change(db: &str) {
    let api = Api::start(db);
    let user = api.user("changer").await;
    for password in common_passwords() {
        let response = api
            .put(
                "/api/user/profile/password",
                Some(&user.token),
                json!({ "password": user.password, "newPassword": password }),
            )
            .await;
        let (status, message) = assert_refused(response, password).await;
        assert_eq!(status, 400, "{password:?}: {message}");
        assert!(
            message.starts_with("newPassword"),
            "{password:?}: {message}"
        );
    }
    // The password never changed and the token was never revoked.
    assert!(can_log_in(&api, &user.email, &user.password).await);
    let profile = api.get("/api/user/profile", Some(&user.token)).await;
    assert_eq!(profile.status().as_u16(), 200);
}

/// Just under the default 1 MiB body limit once wrapped in JSON.
fn megabyte() -> String {
    "p".repeat(1_000_000)
}

async fn a_megabyte_password_is_400_at_registration_and_password_change(db: &str) {
    let api = Api::start(db);
    let email = unique_email("huge");
    let response = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Huge", "nickname": "huge", "email": email,
                    "password": megabyte() }),
        )
        .await;
    let message = assert_error(response, 400, "Bad Request").await;
    assert!(message.contains("at most 1024"), "{message}");
    assert!(!can_log_in(&api, &email, &megabyte()).await);

    let user = api.user("huge").await;
    let response = api
        .put(
            "/api/user/profile/password",
            Some(&user.token),
            json!({ "password": user.password, "newPassword": megabyte() }),
        )
        .await;
    let message = assert_error(response, 400, "Bad Request").await;
    assert!(message.contains("at most 1024"), "{message}");
    // A megabyte as the *current* password is simply wrong: 401, not a slow hash.
    let response = api
        .put(
            "/api/user/profile/password",
            Some(&user.token),
            json!({ "password": megabyte(), "newPassword": "a fine new passphrase" }),
        )
        .await;
    assert_error(response, 401, "Unauthorized").await;
    assert!(can_log_in(&api, &user.email, &user.password).await);
}

async fn a_megabyte_password_is_401_at_login(db: &str) {
    let api = Api::start(db);
    let user = api.user("victim").await;
    for email in [user.email.as_str(), "nobody@example.com"] {
        let response = api
            .post(
                "/api/user/login",
                None,
                json!({ "email": email, "password": megabyte() }),
            )
            .await;
        let message = assert_error(response, 401, "Unauthorized").await;
        assert_eq!(message, "Invalid credentials.");
    }
}
