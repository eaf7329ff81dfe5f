//! Accounts: register, login, profile, password, logout, account deletion.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, assert_error, body, keys, on_every_database, unique_email};

on_every_database!(
    registering_returns_201_with_only_the_new_user_id,
    registering_without_a_required_field_or_with_a_bad_email_is_400,
    registering_an_email_again_in_another_case_is_409,
    logging_in_returns_a_token,
    logging_in_without_a_password_is_400,
    a_wrong_password_and_an_unknown_email_get_byte_for_byte_the_same_401,
    the_profile_has_exactly_the_seven_public_keys_with_or_without_trailing_slash,
    the_profile_needs_a_bearer_token_and_says_what_is_wrong,
    updating_the_profile_changes_the_known_fields_and_never_the_role,
    updating_the_profile_with_only_unknown_fields_or_a_wrong_type_is_400,
    updating_the_profile_to_a_taken_email_is_409,
    updating_the_profile_without_a_token_is_401,
    changing_the_password_revokes_older_tokens_and_the_new_password_logs_in,
    changing_the_password_with_a_wrong_current_password_is_401,
    changing_the_password_to_a_too_short_one_is_400,
    logging_out_revokes_that_token_and_no_other,
    logging_out_without_a_token_is_401,
    deleting_the_account_removes_its_entries_and_stops_its_tokens,
    deleting_the_account_without_a_token_is_401,
);

async fn registering_returns_201_with_only_the_new_user_id(db: &str) {
    let api = Api::start(db);
    let response = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Ada Lovelace", "nickname": "ada",
                    "email": unique_email("ada"), "password": "analytical engine" }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body = body(response).await;
    assert_eq!(keys(&body), ["userId"]);
    assert_eq!(body["userId"].as_str().map(str::len), Some(36));
}

async fn registering_without_a_required_field_or_with_a_bad_email_is_400(db: &str) {
    let api = Api::start(db);
    let missing = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Ada", "nickname": "ada", "email": unique_email("ada") }),
        )
        .await;
    let message = assert_error(missing, 400, "Bad Request").await;
    assert!(message.contains("password"), "{message}");

    let bad_email = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Ada", "nickname": "ada", "email": "not-an-address",
                    "password": "analytical engine" }),
        )
        .await;
    let message = assert_error(bad_email, 400, "Bad Request").await;
    assert!(message.contains("email"), "{message}");
}

async fn registering_an_email_again_in_another_case_is_409(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let again = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "Ada Again", "nickname": "ada2",
                    "email": ada.email.to_uppercase(), "password": "another passphrase" }),
        )
        .await;
    assert_error(again, 409, "Conflict").await;
}

async fn logging_in_returns_a_token(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": ada.email, "password": ada.password }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = body(response).await;
    assert_eq!(keys(&body), ["token"]);
    assert_eq!(
        body["token"].as_str().map(|t| t.split('.').count()),
        Some(3)
    );
}

async fn logging_in_without_a_password_is_400(db: &str) {
    let api = Api::start(db);
    let response = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": unique_email("nobody") }),
        )
        .await;
    assert_error(response, 400, "Bad Request").await;
}

async fn a_wrong_password_and_an_unknown_email_get_byte_for_byte_the_same_401(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let wrong_password = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": ada.email, "password": "not the passphrase" }),
        )
        .await;
    let unknown_email = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": unique_email("nobody"), "password": "not the passphrase" }),
        )
        .await;
    assert_eq!(wrong_password.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unknown_email.status(), StatusCode::UNAUTHORIZED);
    let expected = r#"{"statusCode":401,"error":"Unauthorized","message":"Invalid credentials."}"#;
    assert_eq!(wrong_password.text().await.unwrap(), expected);
    assert_eq!(unknown_email.text().await.unwrap(), expected);
}

async fn the_profile_has_exactly_the_seven_public_keys_with_or_without_trailing_slash(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for path in ["/api/user/profile/", "/api/user/profile"] {
        let response = api.get(path, Some(&ada.token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let body = body(response).await;
        assert_eq!(keys(&body), ["user"]);
        let user = &body["user"];
        assert_eq!(
            keys(user),
            [
                "_id",
                "email",
                "fullName",
                "isPrivate",
                "nickname",
                "profilePic",
                "role"
            ]
        );
        assert_eq!(user["_id"], ada.id.as_str());
        assert_eq!(user["email"], ada.email.as_str());
        assert_eq!(user["nickname"], "ada");
        assert_eq!(user["role"], "user");
        assert_eq!(user["isPrivate"], false);
        assert_eq!(user["profilePic"], "");
    }
}

async fn the_profile_needs_a_bearer_token_and_says_what_is_wrong(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;

    let missing = api.get("/api/user/profile/", None).await;
    let message = assert_error(missing, 401, "Unauthorized").await;
    assert!(message.contains("missing"), "{message}");

    let basic = api
        .http
        .get(api.url("/api/user/profile/"))
        .header("authorization", format!("Basic {}", ada.token))
        .send()
        .await
        .unwrap();
    let message = assert_error(basic, 401, "Unauthorized").await;
    assert!(message.contains("Bearer"), "{message}");

    let garbage = api.get("/api/user/profile/", Some("not.a.token")).await;
    let message = assert_error(garbage, 401, "Unauthorized").await;
    assert!(message.contains("invalid"), "{message}");
}

async fn updating_the_profile_changes_the_known_fields_and_never_the_role(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .put(
            "/api/user/profile/",
            Some(&ada.token),
            json!({ "fullName": "Augusta Ada King", "isPrivate": true, "role": "admin",
                    "_id": "00000000-0000-0000-0000-000000000000", "password": "ignored here" }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply = body(response).await;
    assert_eq!(keys(&reply), ["message"]);

    let profile = body(api.get("/api/user/profile", Some(&ada.token)).await).await;
    assert_eq!(profile["user"]["fullName"], "Augusta Ada King");
    assert_eq!(profile["user"]["isPrivate"], true);
    assert_eq!(profile["user"]["role"], "user");
    assert_eq!(profile["user"]["_id"], ada.id.as_str());
    assert_eq!(profile["user"]["nickname"], "ada");
    // The password did not change either.
    api.login(&ada.email, &ada.password).await;
}

async fn updating_the_profile_with_only_unknown_fields_or_a_wrong_type_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let unknown = api
        .put(
            "/api/user/profile/",
            Some(&ada.token),
            json!({ "role": "admin" }),
        )
        .await;
    assert_error(unknown, 400, "Bad Request").await;
    let wrong_type = api
        .put(
            "/api/user/profile/",
            Some(&ada.token),
            json!({ "isPrivate": "yes" }),
        )
        .await;
    assert_error(wrong_type, 400, "Bad Request").await;
    let bad_picture = api
        .put(
            "/api/user/profile/",
            Some(&ada.token),
            json!({ "profilePic": "http://example.com/me.png" }),
        )
        .await;
    assert_error(bad_picture, 400, "Bad Request").await;
}

async fn updating_the_profile_to_a_taken_email_is_409(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let response = api
        .put(
            "/api/user/profile/",
            Some(&bob.token),
            json!({ "email": ada.email.to_uppercase() }),
        )
        .await;
    assert_error(response, 409, "Conflict").await;
}

async fn updating_the_profile_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let response = api
        .put("/api/user/profile/", None, json!({ "fullName": "X" }))
        .await;
    assert_error(response, 401, "Unauthorized").await;
}

async fn changing_the_password_revokes_older_tokens_and_the_new_password_logs_in(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let other_session = api.login(&ada.email, &ada.password).await;

    let response = api
        .put(
            "/api/user/profile/password",
            Some(&ada.token),
            json!({ "password": ada.password, "newPassword": "a brand new passphrase" }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(keys(&body(response).await), ["message"]);

    for token in [&ada.token, &other_session] {
        let response = api.get("/api/user/profile/", Some(token)).await;
        assert_error(response, 401, "Unauthorized").await;
    }
    let old = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": ada.email, "password": ada.password }),
        )
        .await;
    assert_error(old, 401, "Unauthorized").await;
    let token = api.login(&ada.email, "a brand new passphrase").await;
    let response = api.get("/api/user/profile/", Some(&token)).await;
    assert_eq!(response.status(), StatusCode::OK);
}

async fn changing_the_password_with_a_wrong_current_password_is_401(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .put(
            "/api/user/profile/password",
            Some(&ada.token),
            json!({ "password": "not the passphrase", "newPassword": "a brand new passphrase" }),
        )
        .await;
    assert_error(response, 401, "Unauthorized").await;
    // Nothing changed.
    api.login(&ada.email, &ada.password).await;
}

async fn changing_the_password_to_a_too_short_one_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .put(
            "/api/user/profile/password",
            Some(&ada.token),
            json!({ "password": ada.password, "newPassword": "short" }),
        )
        .await;
    let message = assert_error(response, 400, "Bad Request").await;
    assert!(message.contains("newPassword"), "{message}");
    let missing = api
        .put(
            "/api/user/profile/password",
            Some(&ada.token),
            json!({ "newPassword": "a brand new passphrase" }),
        )
        .await;
    assert_error(missing, 400, "Bad Request").await;
}

async fn logging_out_revokes_that_token_and_no_other(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let other_session = api.login(&ada.email, &ada.password).await;

    let response = api
        .send(
            reqwest::Method::POST,
            "/api/user/logout",
            Some(&ada.token),
            None,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(keys(&body(response).await), ["message"]);

    let revoked = api.get("/api/user/profile/", Some(&ada.token)).await;
    let message = assert_error(revoked, 401, "Unauthorized").await;
    assert!(message.contains("revoked"), "{message}");
    let still_fine = api.get("/api/user/profile/", Some(&other_session)).await;
    assert_eq!(still_fine.status(), StatusCode::OK);
}

async fn logging_out_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let response = api
        .send(reqwest::Method::POST, "/api/user/logout", None, None)
        .await;
    assert_error(response, 401, "Unauthorized").await;
}

async fn deleting_the_account_removes_its_entries_and_stops_its_tokens(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "soon gone", true).await;
    let entry_path = format!("/api/journal-entries/{}", entry["_id"].as_str().unwrap());
    assert_eq!(
        api.get(&entry_path, Some(&bob.token)).await.status(),
        StatusCode::OK
    );

    let response = api.delete("/api/user/profile/", Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(keys(&body(response).await), ["message"]);

    assert_error(
        api.get("/api/user/profile/", Some(&ada.token)).await,
        401,
        "Unauthorized",
    )
    .await;
    assert_error(
        api.get(&entry_path, Some(&bob.token)).await,
        404,
        "Not Found",
    )
    .await;
    let list = api
        .get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&bob.token),
        )
        .await;
    assert_error(list, 404, "Not Found").await;
    let login = api
        .post(
            "/api/user/login",
            None,
            json!({ "email": ada.email, "password": ada.password }),
        )
        .await;
    assert_error(login, 401, "Unauthorized").await;
}

async fn deleting_the_account_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let response = api.delete("/api/user/profile/", None).await;
    assert_error(response, 401, "Unauthorized").await;
}
