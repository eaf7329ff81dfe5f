//! One login per server (issue 35): logging in to a second server keeps the first
//! one's, `--server URL` uses URL's, and logging out of one leaves the other.

use crate::*;

/// A second server whose commands use `first`'s config file: one person, two servers.
fn second_server() -> Served {
    Served::start()
}

fn email_on(cmd: std::process::Command) -> String {
    json(&succeed(cmd))["email"].as_str().unwrap().to_owned()
}

#[test]
fn logging_in_to_a_second_server_keeps_the_first_servers_login() {
    let one = Served::start();
    let two = second_server();
    let config = &one.sb.config;
    one.register(one.journal(&[]), "ada@one.example");
    two.register(two.as_user(config, &[]), "bea@two.example");

    // Both logins work, each on its own server, with the one config file.
    check_ok(run(one.journal(&["new", "written on one"])));
    check_ok(run(two.as_user(config, &["new", "written on two"])));
    assert_eq!(
        email_on(one.journal(&["profile", "--json"])),
        "ada@one.example"
    );
    assert_eq!(
        email_on(two.as_user(config, &["profile", "--json"])),
        "bea@two.example"
    );
    let titles = |cmd| {
        json(&succeed(cmd))["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["title"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles(one.journal(&["list", "--json"])), ["written on one"]);
    assert_eq!(
        titles(two.as_user(config, &["list", "--json"])),
        ["written on two"]
    );
    // The same server with a trailing slash is the same login.
    let mut slash = one.sb.bare(&["profile", "--json"]);
    slash
        .arg("--server")
        .arg(format!("{}/", one.server.base_url));
    assert_eq!(email_on(slash), "ada@one.example");

    // The config file: private, one login per server, tokens never shown.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(config).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let saved = config_json(&one.sb);
    let sessions = saved["sessions"].as_object().expect("sessions");
    assert_eq!(sessions.len(), 2, "{saved}");
    assert_eq!(
        sessions[&one.server.base_url]["email"], "ada@one.example",
        "{saved}"
    );
    assert_eq!(sessions[&two.server.base_url]["email"], "bea@two.example");
    let shown = one.sb.ok(&["config", "show"]);
    for s in sessions.values() {
        assert!(!shown.contains(s["token"].as_str().unwrap()), "{shown}");
    }
    assert!(shown.contains("ada@one.example on") && shown.contains("bea@two.example on"));

    // Logging out of one leaves the other.
    one.ok(&["logout"]);
    let err = fail(one.journal(&["list"]), AUTH);
    assert!(err.contains("journal login"), "{err}");
    assert_eq!(
        titles(two.as_user(config, &["list", "--json"])),
        ["written on two"]
    );
}

#[test]
fn the_single_login_of_an_older_config_is_kept_beside_a_new_one() {
    let one = Served::start();
    let two = second_server();
    let config = &one.sb.config;
    one.register(one.journal(&[]), "ada@one.example");
    // Written the way older versions did: one `session`, with its server.
    let saved = config_json(&one.sb);
    let login = &saved["sessions"][&one.server.base_url];
    std::fs::write(
        config,
        serde_json::json!({
            "session": { "server": one.server.base_url, "token": login["token"],
                         "email": login["email"] }
        })
        .to_string(),
    )
    .unwrap();
    two.register(two.as_user(config, &[]), "bea@two.example");
    assert_eq!(
        email_on(one.journal(&["profile", "--json"])),
        "ada@one.example"
    );
    assert_eq!(
        email_on(two.as_user(config, &["profile", "--json"])),
        "bea@two.example"
    );
    let saved = config_json(&one.sb);
    assert!(saved["session"].is_null(), "written the new way: {saved}");
    assert_eq!(saved["sessions"].as_object().unwrap().len(), 2, "{saved}");
}
