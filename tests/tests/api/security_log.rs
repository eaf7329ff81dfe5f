//! The security log (`GET /api/user/security-events`): each kind of event is recorded
//! after the real action over HTTP, with the client's address and never a secret, and
//! attempts refused by the failed-login throttle are recorded for the account, counted.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, header, on_every_database};

on_every_database!(
    each_account_change_is_in_the_owners_log_with_its_address_and_no_secret,
    throttled_logins_are_one_counted_event_in_the_accounts_log,
    the_log_is_paged_like_the_other_lists,
    an_administrators_reset_of_the_second_factor_is_in_the_owners_log,
);

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

async fn events(api: &Api, token: &str, query: &str) -> (Vec<Value>, String) {
    let response = api
        .get(&format!("/api/user/security-events{query}"), Some(token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "cache-control"), "no-store");
    let total = header(&response, "x-total-count");
    let list = body(response).await;
    (list.as_array().expect("an array").clone(), total)
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

async fn login(api: &Api, email: &str, password: &str, totp: Option<&str>) -> reqwest::Response {
    let mut request = json!({ "email": email, "password": password });
    if let Some(code) = totp {
        request["totp"] = json!(code);
    }
    api.post("/api/user/login", None, request).await
}

async fn token_of(response: reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await["token"].as_str().unwrap().to_owned()
}

async fn each_account_change_is_in_the_owners_log_with_its_address_and_no_secret(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let mut secrets = vec![ada.password.clone(), ada.token.clone()];

    // An access token, made and revoked.
    let made = api
        .post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": "backup script" }),
        )
        .await;
    assert_eq!(made.status(), StatusCode::CREATED);
    let made = body(made).await;
    secrets.push(made["token"].as_str().unwrap().to_owned());
    let revoked = api
        .delete(
            &format!("/api/user/tokens/{}", made["id"].as_str().unwrap()),
            Some(&ada.token),
        )
        .await;
    assert_eq!(revoked.status(), StatusCode::OK);

    // The second factor: on, a login with a code, one with a recovery code, off.
    let setup = body(
        api.post("/api/user/2fa/setup", Some(&ada.token), json!({}))
            .await,
    )
    .await;
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let code = journal_core::totp::code_at(&secret, now_seconds()).unwrap();
    let enabled = api
        .post(
            "/api/user/2fa/enable",
            Some(&ada.token),
            json!({ "code": code }),
        )
        .await;
    assert_eq!(enabled.status(), StatusCode::OK);
    let codes: Vec<String> = body(enabled).await["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let next = journal_core::totp::code_at(&secret, now_seconds() + 30).unwrap();
    secrets.extend([secret.clone(), code, next.clone()]);
    secrets.extend(codes.iter().cloned());
    let with_code = token_of(login(&api, &ada.email, &ada.password, Some(&next)).await).await;
    secrets.push(with_code.clone());
    token_of(login(&api, &ada.email, &ada.password, Some(&codes[0])).await).await;
    let disabled = api
        .post(
            "/api/user/2fa/disable",
            Some(&ada.token),
            json!({ "password": ada.password, "code": codes[1] }),
        )
        .await;
    assert_eq!(disabled.status(), StatusCode::OK);

    // The e-mail address, then the password.
    let new_email = format!("new.{}", ada.email);
    let changed = api
        .put(
            "/api/user/profile",
            Some(&ada.token),
            json!({ "email": new_email }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let new_password = "a brand new long passphrase";
    secrets.push(new_password.to_owned());
    let changed = api
        .put(
            "/api/user/profile/password",
            Some(&ada.token),
            json!({ "password": ada.password, "newPassword": new_password }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let token = token_of(login(&api, &new_email, new_password, None).await).await;
    secrets.push(token.clone());

    let response = api.get("/api/user/security-events", Some(&token)).await;
    let text = response.text().await.unwrap();
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()), "{secret:?} is in {text}");
    }
    let (log, total) = events(&api, &token, "?limit=100").await;
    assert_eq!(
        kinds(&log),
        [
            "login",
            "password_changed",
            "email_changed",
            "second_factor_disabled",
            "login",
            "login",
            "second_factor_enabled",
            "access_token_revoked",
            "access_token_created",
            "login",
        ]
    );
    assert_eq!(total, "10");
    for event in &log {
        assert_eq!(event["address"], "127.0.0.1", "{event}");
        assert_eq!(event["count"], 1, "{event}");
        assert_eq!(event["at"], event["firstAt"], "{event}");
        let mut keys: Vec<_> = event.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "address",
                "at",
                "count",
                "detail",
                "firstAt",
                "kind",
                "secondFactor"
            ]
        );
    }
    assert_eq!(log[4]["secondFactor"], "recovery_code");
    assert_eq!(log[5]["secondFactor"], "totp");
    assert_eq!(log[9]["secondFactor"], Value::Null);
    assert_eq!(
        log[2]["detail"],
        format!("{} → {new_email}", ada.email).as_str()
    );
    assert_eq!(log[7]["detail"], "backup script");
    assert_eq!(log[8]["detail"], "backup script");
}

/// Waits for the throttled attempts the server records after answering.
async fn log_until(api: &Api, user: &User, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..50 {
        let (log, _) = events(api, &user.token, "").await;
        if done(&log) {
            return log;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "the log never got there: {:?}",
        events(api, &user.token, "").await.0
    );
}

async fn throttled_logins_are_one_counted_event_in_the_accounts_log(db: &str) {
    let api = Api::start_with(db, &["--login-failure-limit", "2"]);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    for _ in 0..2 {
        let wrong = login(&api, &ada.email, "not the password at all", None).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    }
    // Wrong passwords alone are not in the log: only what the throttle refused.
    let (log, _) = events(&api, &ada.token, "").await;
    assert_eq!(kinds(&log), ["login"]);
    for password in ["guess one", "guess two", "guess three", &ada.password] {
        assert_error(
            login(&api, &ada.email.to_uppercase(), password, None).await,
            429,
            "Too Many Requests",
        )
        .await;
    }
    // An address with no account is throttled alike, and recorded nowhere.
    for _ in 0..3 {
        login(&api, "nobody@example.com", "a guess", None).await;
    }
    let log = log_until(&api, &ada, |log| log[0]["count"] == 4).await;
    assert_eq!(kinds(&log), ["throttled", "login"]);
    assert_eq!(log[0]["detail"], "login");
    assert_eq!(log[0]["address"], "127.0.0.1");
    assert!(log[0]["firstAt"].as_str() <= log[0]["at"].as_str());
    let (theirs, _) = events(&api, &bob.token, "").await;
    assert_eq!(kinds(&theirs), ["login"]);
}

async fn the_log_is_paged_like_the_other_lists(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for _ in 0..4 {
        token_of(login(&api, &ada.email, &ada.password, None).await).await;
    }
    let (first, total) = events(&api, &ada.token, "?page=1&limit=2").await;
    assert_eq!((first.len(), total.as_str()), (2, "5"));
    let response = api
        .get("/api/user/security-events?page=2&limit=2", Some(&ada.token))
        .await;
    let link = header(&response, "link");
    assert!(
        link.contains("</api/user/security-events?page=1&limit=2>; rel=\"prev\"")
            && link.contains("</api/user/security-events?page=3&limit=2>; rel=\"next\""),
        "{link}"
    );
    let (last, _) = events(&api, &ada.token, "?page=3&limit=2").await;
    assert_eq!(last.len(), 1);
    let message = assert_error(
        api.get("/api/user/security-events?limit=101", Some(&ada.token))
            .await,
        400,
        "Bad Request",
    )
    .await;
    assert!(message.contains("limit"), "{message}");
    assert_error(
        api.post("/api/user/security-events", Some(&ada.token), json!({}))
            .await,
        405,
        "Method Not Allowed",
    )
    .await;
}

async fn an_administrators_reset_of_the_second_factor_is_in_the_owners_log(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let admin = api.user("admin").await;
    let store = journal_core::store::open(db).await.unwrap();
    assert!(
        store
            .set_role(&admin.email, journal_core::Role::Admin)
            .await
            .unwrap()
    );
    let reset = api
        .delete(
            &format!("/api/admin/users/{}/2fa", ada.id),
            Some(&admin.token),
        )
        .await;
    assert_eq!(reset.status(), StatusCode::OK);
    // The reset signed Ada out: she reads her log from a new login.
    let token = token_of(login(&api, &ada.email, &ada.password, None).await).await;
    let (log, _) = events(&api, &token, "").await;
    assert_eq!(kinds(&log), ["login", "second_factor_disabled", "login"]);
    assert_eq!(log[1]["detail"], "by an administrator");
    let (theirs, _) = events(&api, &admin.token, "").await;
    assert_eq!(
        kinds(&theirs),
        ["login"],
        "the administrator's own log is theirs"
    );
}
