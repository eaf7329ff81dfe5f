//! Web sessions that last, over HTTP: the refresh token only ever in an `HttpOnly`,
//! `Secure`, `SameSite=Strict` cookie scoped to `/api/user/session`; each refresh
//! rotates it; a used one presented again ends the session; the cookie routes answer
//! only this server's own `Origin`; sign-out, a password change and "sign out
//! everywhere" end sessions.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, body, header, on_every_database};

on_every_database!(
    a_session_refreshes_with_its_cookie_and_a_reused_cookie_ends_it,
    the_cookie_routes_answer_only_this_servers_own_pages,
    sign_out_a_password_change_and_everywhere_end_sessions,
);

/// The cookie's value in a `Set-Cookie` header, checked for its attributes.
fn cookie_of(response: &reqwest::Response) -> String {
    let set = header(response, "set-cookie");
    for attribute in [
        "Path=/api/user/session",
        "HttpOnly",
        "Secure",
        "SameSite=Strict",
    ] {
        assert!(set.contains(attribute), "{attribute} missing: {set}");
    }
    set.split(';')
        .next()
        .and_then(|pair| pair.strip_prefix("journal_session="))
        .expect("the session cookie")
        .to_owned()
}

fn origin(api: &Api) -> String {
    api.url("").trim_end_matches('/').to_owned()
}

async fn cookie_post(
    api: &Api,
    path: &str,
    cookie: &str,
    origin: Option<&str>,
) -> reqwest::Response {
    let mut request = api
        .http
        .post(api.url(path))
        .header("cookie", format!("journal_session={cookie}"));
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.send().await.unwrap()
}

async fn start(api: &Api, token: &str) -> String {
    let started = api.post("/api/user/session", Some(token), json!({})).await;
    assert_eq!(started.status(), StatusCode::CREATED);
    let cookie = cookie_of(&started);
    let answer = body(started).await;
    assert!(answer["expiresAt"].is_string());
    assert!(
        !answer.to_string().contains(&cookie),
        "the secret is never in a body"
    );
    cookie
}

async fn a_session_refreshes_with_its_cookie_and_a_reused_cookie_ends_it(db: &str) {
    let api = Api::start(db);
    let ann = api.user("ann").await;
    let first = start(&api, &ann.token).await;
    let own = origin(&api);

    let refreshed = cookie_post(&api, "/api/user/session/refresh", &first, Some(&own)).await;
    assert_eq!(refreshed.status(), StatusCode::OK);
    assert_eq!(header(&refreshed, "cache-control"), "no-store");
    let second = cookie_of(&refreshed);
    assert_ne!(first, second);
    let token = body(refreshed).await["token"].as_str().unwrap().to_owned();
    assert_eq!(
        api.get("/api/user/profile", Some(&token)).await.status(),
        StatusCode::OK
    );

    // The first cookie again: a copy. 401, the cookie cleared, the session over: the
    // current cookie and the login token it brought no longer work.
    let reused = cookie_post(&api, "/api/user/session/refresh", &first, Some(&own)).await;
    assert_eq!(reused.status(), StatusCode::UNAUTHORIZED);
    assert!(header(&reused, "set-cookie").contains("Max-Age=0"));
    assert_eq!(
        body(reused).await["message"],
        "this session has ended; sign in again"
    );
    let after = cookie_post(&api, "/api/user/session/refresh", &second, Some(&own)).await;
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        api.get("/api/user/profile", Some(&token)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    // Every login token of the session is revoked, the sign-in it began from included.
    let start_token = api.get("/api/user/profile", Some(&ann.token)).await;
    assert_eq!(start_token.status(), StatusCode::UNAUTHORIZED);
    let again = api.login(&ann.email, &ann.password).await;
    let events = body(api.get("/api/user/security-events", Some(&again)).await).await;
    assert!(events.to_string().contains("session_reused"), "{events}");

    // No cookie, or a made-up one: 401, never a 500.
    let none = api
        .http
        .post(api.url("/api/user/session/refresh"))
        .header("origin", &own)
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    for made_up in ["x", &"a".repeat(4000), "%00;"] {
        let answer = cookie_post(&api, "/api/user/session/refresh", made_up, Some(&own)).await;
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{made_up:.20}");
    }
}

async fn the_cookie_routes_answer_only_this_servers_own_pages(db: &str) {
    let api = Api::start(db);
    let ann = api.user("ann").await;
    let cookie = start(&api, &ann.token).await;
    for bad in [None, Some("https://evil.example"), Some("null")] {
        for path in ["/api/user/session/refresh", "/api/user/session/end"] {
            let answer = cookie_post(&api, path, &cookie, bad).await;
            assert_eq!(
                answer.status(),
                StatusCode::FORBIDDEN,
                "{path} from {bad:?}"
            );
        }
    }
    // Refused requests changed nothing: the cookie still refreshes once.
    let own = origin(&api);
    let answer = cookie_post(&api, "/api/user/session/refresh", &cookie, Some(&own)).await;
    assert_eq!(answer.status(), StatusCode::OK);

    // A personal access token cannot start a session.
    let made = api
        .post(
            "/api/user/tokens",
            Some(&ann.token),
            json!({ "name": "script", "password": ann.password }),
        )
        .await;
    let access = body(made).await["token"].as_str().unwrap().to_owned();
    let refused = api
        .post("/api/user/session", Some(&access), json!({}))
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(refused.headers().get("set-cookie").is_none());
    let anonymous = api.post("/api/user/session", None, json!({})).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

async fn sign_out_a_password_change_and_everywhere_end_sessions(db: &str) {
    let api = Api::start(db);
    let ann = api.user("ann").await;
    let own = origin(&api);

    let cookie = start(&api, &ann.token).await;
    let ended = cookie_post(&api, "/api/user/session/end", &cookie, Some(&own)).await;
    assert_eq!(ended.status(), StatusCode::OK);
    assert!(header(&ended, "set-cookie").contains("Max-Age=0"));
    let after = cookie_post(&api, "/api/user/session/refresh", &cookie, Some(&own)).await;
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        api.get("/api/user/profile", Some(&ann.token))
            .await
            .status(),
        StatusCode::UNAUTHORIZED,
        "ending the session revokes its login token"
    );

    let token = api.login(&ann.email, &ann.password).await;
    let cookie = start(&api, &token).await;
    let changed = api
        .put(
            "/api/user/profile/password",
            Some(&token),
            json!({ "password": ann.password, "newPassword": "ann's second passphrase" }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let after = cookie_post(&api, "/api/user/session/refresh", &cookie, Some(&own)).await;
    assert_eq!(
        after.status(),
        StatusCode::UNAUTHORIZED,
        "a session from before the change"
    );

    let phone = api.login(&ann.email, "ann's second passphrase").await;
    let laptop = api.login(&ann.email, "ann's second passphrase").await;
    let cookie = start(&api, &laptop).await;
    let everywhere = api.delete("/api/user/sessions", Some(&phone)).await;
    assert_eq!(everywhere.status(), StatusCode::OK);
    for token in [&phone, &laptop] {
        assert_eq!(
            api.get("/api/user/profile", Some(token)).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let after = cookie_post(&api, "/api/user/session/refresh", &cookie, Some(&own)).await;
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
}
