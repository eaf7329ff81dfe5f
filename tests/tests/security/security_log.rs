//! The security log against someone holding a token that is not the owner's password:
//! a stolen login token reads its own account's log and no other, an access token reads
//! none, and nothing a guesser typed (nor any other secret) is ever in it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, assert_error, body, on_every_database};

on_every_database!(
    a_stolen_token_reads_only_its_owners_log_and_an_access_token_none,
    what_a_guesser_types_is_never_in_the_log,
);

async fn a_stolen_token_reads_only_its_owners_log_and_an_access_token_none(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let made = api
        .post(
            "/api/user/tokens",
            Some(&bob.token),
            json!({ "name": "bob's script" }),
        )
        .await;
    assert_eq!(made.status(), StatusCode::CREATED);
    let pat = body(made).await["token"].as_str().unwrap().to_owned();

    // Bob's token: whatever names Ada in the request, the answer is Bob's log.
    for path in [
        "/api/user/security-events".to_owned(),
        format!("/api/user/security-events?user={}", ada.id),
        format!("/api/user/security-events?userId={}&_id={}", ada.id, ada.id),
        format!("/api/user/security-events?email={}", ada.email),
    ] {
        let response = api.get(&path, Some(&bob.token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let log = body(response).await;
        let kinds: Vec<&str> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["access_token_created", "login"], "{path}");
        assert!(!log.to_string().contains(&ada.email), "{path}: {log}");
    }
    assert_error(
        api.get(
            &format!("/api/user/{}/security-events", ada.id),
            Some(&bob.token),
        )
        .await,
        404,
        "Not Found",
    )
    .await;

    // An access token, kept by a script, does not read where its owner logs in from.
    let message = assert_error(
        api.get("/api/user/security-events", Some(&pat)).await,
        403,
        "Forbidden",
    )
    .await;
    assert!(message.contains("access token"), "{message}");
    for token in [
        None,
        Some("not-a-token"),
        Some("jpat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ] {
        assert_error(
            api.get("/api/user/security-events", token).await,
            401,
            "Unauthorized",
        )
        .await;
    }
}

async fn what_a_guesser_types_is_never_in_the_log(db: &str) {
    let api = Api::start_with(db, &["--login-failure-limit", "1"]);
    let ada = api.user("ada").await;
    let guesses = [
        "first guess at the password",
        "second guess at the password",
        "third guess at the password",
    ];
    for guess in guesses {
        for totp in [Value::Null, json!("123456")] {
            api.post(
                "/api/user/login",
                None,
                json!({ "email": ada.email, "password": guess, "totp": totp }),
            )
            .await;
        }
    }
    let mut text = String::new();
    for _ in 0..50 {
        let response = api.get("/api/user/security-events", Some(&ada.token)).await;
        text = response.text().await.unwrap();
        if text.contains("throttled") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(text.contains("\"throttled\""), "{text}");
    for secret in
        guesses
            .iter()
            .copied()
            .chain(["123456", ada.password.as_str(), ada.token.as_str()])
    {
        assert!(!text.contains(secret), "{secret:?} is in {text}");
    }
}
