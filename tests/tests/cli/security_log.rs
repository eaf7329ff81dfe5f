//! `journal security-log`, on the local database and against a server.

use crate::*;

#[test]
fn the_local_log_shows_a_password_set_on_this_computer() {
    let sb = Sandbox::new();
    assert!(sb.ok(&["security-log"]).contains("no events"));
    check_ok(with_stdin(
        sb.journal(&["passwd", "--password-stdin"]),
        "a long enough passphrase\n",
    ));
    let log = json(&sb.ok(&["security-log", "--json"]));
    assert_eq!(log.as_array().unwrap().len(), 1, "{log}");
    assert_eq!(log[0]["kind"], "password_changed");
    assert_eq!(log[0]["address"], serde_json::Value::Null);
    let table = sb.ok(&["security-log"]);
    assert!(
        table.contains("password changed") && table.contains("this computer"),
        "{table}"
    );
}

#[test]
fn the_remote_log_lists_logins_and_tokens_newest_first_and_pages() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    r.ok(&["token", "create", "backup script"]);
    let log = json(&r.ok(&["security-log", "--json"]));
    let kinds: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["access_token_created", "login"]);
    assert_eq!(log[0]["detail"], "backup script");
    let table = r.ok(&["security-log", "--limit", "1"]);
    assert!(table.contains("access token created"), "{table}");
    assert!(table.contains("127.0.0.1"), "{table}");
    assert!(!table.contains("login with the password"), "{table}");
    let second = r.ok(&["security-log", "--limit", "1", "--page", "2"]);
    assert!(second.contains("login with the password"), "{second}");
    let all = json(&r.ok(&["security-log", "--all", "--json"]));
    assert_eq!(all.as_array().unwrap().len(), 2);
}
