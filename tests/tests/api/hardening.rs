//! Hardening (issue 14): races between writes and account changes, the second
//! Authorization header, caching of private answers, one form of id, deep pages, and
//! throttled password changes.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, assert_error, body, header, on_every_database};

on_every_database!(
    creating_entries_while_the_account_is_deleted_never_answers_500,
    a_login_racing_a_password_change_gets_no_token_that_outlives_the_change,
    two_authorization_headers_are_400,
    answers_with_a_users_data_or_a_token_are_not_stored_by_caches,
    an_upper_case_id_is_not_the_entry,
    pages_deeper_than_two_thousand_entries_by_number_are_400_and_point_to_the_cursor,
    look_alike_email_addresses_are_one_account_or_refused,
    one_and_two_letter_search_words_match_whole_words_only,
);

async fn creating_entries_while_the_account_is_deleted_never_answers_500(db: &str) {
    let api = Api::start(db);
    for _ in 0..5 {
        let ada = api.user("ada").await;
        let creates = (0..16).map(|i| {
            api.post(
                "/api/journal-entries",
                Some(&ada.token),
                json!({ "title": format!("racing {i}"), "content": "", "isPublic": true }),
            )
        });
        let delete = api.delete("/api/user/profile/", Some(&ada.token));
        let (created, deleted) = tokio::join!(futures_util::future::join_all(creates), delete);
        assert_eq!(deleted.status(), StatusCode::OK);
        for response in created {
            let status = response.status().as_u16();
            assert!(
                [201, 401, 404].contains(&status),
                "create beside a deletion answered {status}: {}",
                response.text().await.unwrap_or_default()
            );
        }
    }
}

async fn a_login_racing_a_password_change_gets_no_token_that_outlives_the_change(db: &str) {
    // Forty logins queue for the password hashing threads: on a loaded machine the
    // change behind them can take longer than the default request deadline, which is
    // not what this test is about.
    let api = Api::start_with(db, &["--request-timeout", "60s"]);
    let mut outlived = 0;
    for _ in 0..5 {
        let ada = api.user("ada").await;
        let login = || {
            api.post(
                "/api/user/login",
                None,
                json!({ "email": ada.email, "password": ada.password }),
            )
        };
        // Logins with the old password start every few milliseconds before, during and
        // after the change, so some read the old hash while the change is being hashed
        // and check it after the change has committed.
        let logins = futures_util::future::join_all((0..40u64).map(|i| async move {
            tokio::time::sleep(std::time::Duration::from_millis(4 * i)).await;
            login().await
        }));
        let change = async {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            api.put(
                "/api/user/profile/password",
                Some(&ada.token),
                json!({ "password": ada.password, "newPassword": "a brand new passphrase" }),
            )
            .await
        };
        let (logins, changed) = tokio::join!(logins, change);
        assert_eq!(changed.status(), StatusCode::OK);
        assert_eq!(login().await.status(), StatusCode::UNAUTHORIZED);
        for response in logins {
            if response.status() != StatusCode::OK {
                continue;
            }
            let token = body(response).await["token"].as_str().unwrap().to_owned();
            let profile = api.get("/api/user/profile/", Some(&token)).await;
            if profile.status().is_success() {
                outlived += 1;
            }
        }
    }
    assert_eq!(
        outlived, 0,
        "tokens got with the old password work after the change answered"
    );
}

async fn two_authorization_headers_are_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let response = api
        .http
        .get(api.url("/api/user/profile/"))
        .header("authorization", format!("Bearer {}", ada.token))
        .header("authorization", format!("Bearer {}", bob.token))
        .send()
        .await
        .unwrap();
    let message = assert_error(response, 400, "Bad Request").await;
    assert!(message.contains("Authorization"), "{message}");
}

async fn answers_with_a_users_data_or_a_token_are_not_stored_by_caches(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "cached?", true).await;
    let id = entry["_id"].as_str().unwrap();
    for response in [
        api.get("/api/user/profile/", Some(&ada.token)).await,
        api.get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await,
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
        api.get("/api/search/journal-entries?q=cached", Some(&ada.token))
            .await,
        api.post(
            "/api/user/login",
            None,
            json!({ "email": ada.email, "password": ada.password }),
        )
        .await,
        api.get("/api/user/profile/", Some("not-a-token")).await,
    ] {
        assert_eq!(
            header(&response, "cache-control"),
            "no-store",
            "{}",
            response.url()
        );
    }
}

async fn an_upper_case_id_is_not_the_entry(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "one form", false).await;
    let id = entry["_id"].as_str().unwrap();
    let upper = id.to_uppercase();
    assert_ne!(upper, id);
    let shown = api
        .get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
        .await;
    assert_eq!(shown.status(), StatusCode::OK);
    let response = api
        .get(&format!("/api/journal-entries/{upper}"), Some(&ada.token))
        .await;
    assert_error(response, 404, "Not Found").await;
    let response = api
        .get(
            &format!("/api/user/{}/journal-entries", ada.id.to_uppercase()),
            Some(&ada.token),
        )
        .await;
    assert_error(response, 404, "Not Found").await;
}

async fn pages_deeper_than_two_thousand_entries_by_number_are_400_and_point_to_the_cursor(
    db: &str,
) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for path in [
        "/api/public/journal-entries?page=201&limit=10".to_owned(),
        "/api/public/journal-entries?page=21&limit=100".to_owned(),
        format!("/api/user/{}/journal-entries?page=2001&limit=1", ada.id),
        "/api/search/journal-entries?q=a&page=201".to_owned(),
    ] {
        let token = (!path.contains("public")).then_some(ada.token.as_str());
        let message = assert_error(api.get(&path, token).await, 400, "Bad Request").await;
        assert!(message.contains("Link"), "{path}: {message}");
    }
    // The last page by number still is served.
    let response = api
        .get("/api/public/journal-entries?page=200&limit=10", None)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
}

async fn look_alike_email_addresses_are_one_account_or_refused(db: &str) {
    let api = Api::start(db);
    let register = |email: String| {
        api.post(
            "/api/user/register",
            None,
            json!({ "fullName": "Zoë", "nickname": "zoe", "email": email,
                    "password": "a long enough passphrase" }),
        )
    };
    let tag = crate::support::unique_email("x").replace('@', "-");
    // Composed é (NFC) first.
    let email = format!("zo\u{e9}.{tag}@example.com");
    assert_eq!(register(email.clone()).await.status(), StatusCode::CREATED);
    for same in [
        // Decomposed é (NFD).
        format!("zoe\u{301}.{tag}@example.com"),
        // Full-width letters.
        format!("\u{ff5a}\u{ff4f}\u{e9}.{tag}@example.com"),
        // Upper case.
        format!("ZO\u{c9}.{tag}@EXAMPLE.COM"),
    ] {
        assert_error(register(same.clone()).await, 409, "Conflict").await;
        // And each form logs in to the one account.
        let login = api
            .post(
                "/api/user/login",
                None,
                json!({ "email": same, "password": "a long enough passphrase" }),
            )
            .await;
        assert_eq!(login.status(), StatusCode::OK, "{same}");
    }
    for refused in [
        // A zero-width space.
        format!("zo\u{e9}\u{200b}.{tag}@example.com"),
        // A Cyrillic о in the domain.
        format!("zo\u{e9}.{tag}@ex\u{43e}mple.com"),
        // A right-to-left override.
        format!("\u{202e}zo\u{e9}.{tag}@example.com"),
    ] {
        let message = assert_error(register(refused).await, 400, "Bad Request").await;
        assert!(message.contains("email"), "{message}");
    }
}

async fn one_and_two_letter_search_words_match_whole_words_only(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for title in ["an apple a day", "apricots", "go to the garden"] {
        api.entry(&ada, title, false).await;
    }
    let titles = |q: &'static str| {
        let api = &api;
        let token = ada.token.clone();
        async move {
            let found = body(
                api.get(&format!("/api/search/journal-entries?q={q}"), Some(&token))
                    .await,
            )
            .await;
            let mut titles: Vec<String> = found
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["title"].as_str().unwrap().to_owned())
                .collect();
            titles.sort();
            titles
        }
    };
    // One letter: the word "a" only, not every word that starts with it.
    assert_eq!(titles("a").await, ["an apple a day"]);
    // Two letters: whole words.
    assert_eq!(titles("go").await, ["go to the garden"]);
    assert!(titles("ap").await.is_empty());
    // Three letters and more: prefixes.
    assert_eq!(titles("apr").await, ["apricots"]);
    assert_eq!(titles("app").await, ["an apple a day"]);
}
