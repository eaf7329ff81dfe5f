//! Scale-out: two `journal-server` processes on one PostgreSQL database behave as one
//! service. Ignored (and `cargo test` says so) when `JOURNAL_TEST_POSTGRES_URL` is not set.

use std::collections::HashSet;

use journal_tests::TestServer;
use serde_json::{Value, json};

async fn json_of(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn two_servers_on_one_postgres_database_act_as_one_service() {
    let url = journal_tests::postgres_url();
    // Start both at once: migrations and the generated JWT secret must not race.
    let (a, b) = {
        let (u1, u2) = (url.clone(), url.clone());
        let a = std::thread::spawn(move || TestServer::start(&u1, &[]));
        let b = std::thread::spawn(move || TestServer::start(&u2, &[]));
        (a.join().expect("server A"), b.join().expect("server B"))
    };
    let http = reqwest::Client::new();

    // Register on A, log in on B.
    let (status, _) = json_of(
        http.post(a.url("/api/user/register"))
            .json(&json!({"fullName": "Ada L", "nickname": "ada", "email": "ada@example.com", "password": "analytical engine"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201);
    let (status, body) = json_of(
        http.post(b.url("/api/user/login"))
            .json(&json!({"email": "ada@example.com", "password": "analytical engine"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let token = body["token"].as_str().unwrap().to_owned();

    // A token issued by B works on A; an entry created on A is read on B.
    let (status, created) = json_of(
        http.post(a.url("/api/journal-entries"))
            .bearer_auth(&token)
            .json(&json!({"title": "Made on A", "content": "read on B"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["_id"].as_str().unwrap();
    let (status, read) = json_of(
        http.get(b.url(&format!("/api/journal-entries/{id}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(read, created);

    // Concurrent writes through both servers lose nothing.
    let mut writers = Vec::new();
    for w in 0..8 {
        let (http, token) = (http.clone(), token.clone());
        let base = if w % 2 == 0 {
            a.base_url.clone()
        } else {
            b.base_url.clone()
        };
        writers.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in 0..10 {
                let r = http
                    .post(format!("{base}/api/journal-entries"))
                    .bearer_auth(&token)
                    .json(&json!({"title": format!("w{w} e{i}"), "content": "x"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status().as_u16(), 201);
                let v: Value = r.json().await.unwrap();
                ids.push(v["_id"].as_str().unwrap().to_owned());
            }
            ids
        }));
    }
    let mut written = HashSet::new();
    for w in writers {
        written.extend(w.await.unwrap());
    }
    assert_eq!(written.len(), 80);
    let profile: Value = http
        .get(a.url("/api/user/profile"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let me = profile["user"]["_id"].as_str().unwrap().to_owned();
    for server in [&a, &b] {
        let r = http
            .get(server.url(&format!("/api/user/{me}/journal-entries?limit=1")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.headers()["x-total-count"],
            "81",
            "both servers see every write"
        );
    }

    // Concurrent updates of one entry through both never lose it or mix its fields.
    let mut updaters = Vec::new();
    for u in 0..10 {
        let (http, token) = (http.clone(), token.clone());
        let base = if u % 2 == 0 {
            a.base_url.clone()
        } else {
            b.base_url.clone()
        };
        let id = id.to_owned();
        updaters.push(tokio::spawn(async move {
            let r = http
                .put(format!("{base}/api/journal-entries/{id}"))
                .bearer_auth(&token)
                .json(&json!({"title": format!("version {u}"), "content": format!("body of version {u}")}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
        }));
    }
    for u in updaters {
        u.await.unwrap();
    }
    let (status, last) = json_of(
        http.get(a.url(&format!("/api/journal-entries/{id}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let title = last["title"].as_str().unwrap();
    let version = title
        .strip_prefix("version ")
        .expect("one of the updates won");
    assert_eq!(
        last["content"],
        format!("body of version {version}"),
        "fields from one update"
    );

    // Concurrent registration of one email on both servers: exactly one account.
    let mut racers = Vec::new();
    for r in 0..6 {
        let http = http.clone();
        let base = if r % 2 == 0 {
            a.base_url.clone()
        } else {
            b.base_url.clone()
        };
        racers.push(tokio::spawn(async move {
            http.post(format!("{base}/api/user/register"))
                .json(&json!({"fullName": "Racer", "nickname": format!("r{r}"), "email": "race@example.com", "password": "racing along now"}))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }));
    }
    let mut codes = Vec::new();
    for r in racers {
        codes.push(r.await.unwrap());
    }
    codes.sort();
    assert_eq!(codes, [201, 409, 409, 409, 409, 409]);

    // B keeps the public feed's first page in memory; a write on A shows on B at once.
    let feed_on_b = || async {
        let r = http
            .get(b.url("/api/public/journal-entries"))
            .send()
            .await
            .unwrap();
        let total: u64 = r.headers()["x-total-count"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body: Value = r.json().await.unwrap();
        let titles: Vec<String> = body
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["title"].as_str().unwrap().to_owned())
            .collect();
        (total, titles)
    };
    let (before, _) = feed_on_b().await;
    assert_eq!(feed_on_b().await.0, before, "a quiet feed is stable");
    let (status, shared) = json_of(
        http.post(a.url("/api/journal-entries"))
            .bearer_auth(&token)
            .json(&json!({"title": "Shared on A", "content": "x", "isPublic": true}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{shared}");
    let (total, titles) = feed_on_b().await;
    assert_eq!(total, before + 1);
    assert_eq!(titles.first().map(String::as_str), Some("Shared on A"));
    let r = http
        .put(a.url("/api/user/profile"))
        .bearer_auth(&token)
        .json(&json!({"isPrivate": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (total, titles) = feed_on_b().await;
    assert!(total < before + 1, "a private profile leaves the feed on B");
    assert!(!titles.contains(&"Shared on A".to_owned()));

    // B keeps the author's first page in memory too; writes on A show on B at once.
    let own_on_b = || async {
        let r = http
            .get(b.url(&format!("/api/user/{me}/journal-entries?limit=5")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let total: u64 = r.headers()["x-total-count"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body: Value = r.json().await.unwrap();
        let first = body[0]["title"].as_str().unwrap_or_default().to_owned();
        (total, first)
    };
    let (before, _) = own_on_b().await;
    assert_eq!(own_on_b().await.0, before, "a quiet list is stable");
    let (status, written) = json_of(
        http.post(a.url("/api/journal-entries"))
            .bearer_auth(&token)
            .json(&json!({"title": "Newest, on A", "content": "x"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{written}");
    assert_eq!(own_on_b().await, (before + 1, "Newest, on A".to_owned()));
    let newest = written["_id"].as_str().unwrap();
    let r = http
        .put(a.url(&format!("/api/journal-entries/{newest}")))
        .bearer_auth(&token)
        .json(&json!({"title": "Renamed on A", "content": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(own_on_b().await, (before + 1, "Renamed on A".to_owned()));
    let r = http
        .delete(a.url(&format!("/api/journal-entries/{newest}")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let (total, first) = own_on_b().await;
    assert_eq!(total, before);
    assert_ne!(first, "Renamed on A");

    // B serves the page after page 1's `Link` next from memory too, and a write on A
    // shows in it at once.
    for k in 0..4 {
        let r = http
            .post(a.url("/api/journal-entries"))
            .bearer_auth(&token)
            .json(&json!({"title": format!("Paged {k}"), "content": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201);
    }
    let r = http
        .get(b.url(&format!("/api/user/{me}/journal-entries?limit=2")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let link = r.headers()["link"].to_str().unwrap().to_owned();
    let next = link
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .and_then(|l| l.strip_prefix('<')?.split_once('>'))
        .map(|(target, _)| target.to_owned())
        .expect("a next link");
    assert!(next.contains("after="), "{next}");
    let second_on_b = || async {
        let r = http
            .get(b.url(&next))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let body: Value = r.json().await.unwrap();
        body.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["_id"].as_str().unwrap().to_owned(),
                    e["title"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    let second = second_on_b().await;
    assert_eq!(
        second.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>(),
        ["Paged 1", "Paged 0"]
    );
    assert_eq!(second_on_b().await, second, "a quiet page is stable");
    let r = http
        .delete(a.url(&format!("/api/journal-entries/{}", second[0].0)))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let after_delete = second_on_b().await;
    assert_eq!(after_delete.first(), Some(&second[1]), "{after_delete:?}");

    // Logout on B is honoured at once on A.
    let r = http
        .post(b.url("/api/user/logout"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = http
        .get(a.url("/api/user/profile"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
}
