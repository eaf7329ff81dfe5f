//! Remote mode: the CLI against a real journal-server on a free port.

use crate::*;

#[test]
fn register_login_and_every_entry_command_over_http() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    let config = std::fs::read_to_string(&r.sb.config).unwrap();
    assert!(config.contains("token"), "token saved");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&r.sb.config)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let id = r
        .ok(&["new", "--title", "Over the wire", "--public", "hello"])
        .trim()
        .to_owned();
    let entry = json(&r.ok(&["show", &id, "--json"]));
    assert_eq!(entry["title"], "Over the wire");
    let piped = json(&check_ok(with_stdin(
        r.journal(&["new", "--json"]),
        "Piped\n\nbody\n",
    )));
    assert_eq!(piped["title"], "Piped");

    let list = json(&r.ok(&["list", "--json"]));
    assert_eq!(list["total"], 2);
    let table = r.ok(&["list"]);
    assert!(table.contains("page 1 of 1, 2 entries"), "{table}");
    let all = json(&r.ok(&["list", "--all", "--json"]));
    assert_eq!(all["entries"].as_array().unwrap().len(), 2);
    let feed = json(&r.ok(&["public", "--json"]));
    assert_eq!(feed["total"], 1);
    let found = json(&r.ok(&["search", "wire", "--json"]));
    assert_eq!(found["total"], 1);

    r.ok(&["edit", &id, "--content", "changed", "--private"]);
    let entry = json(&r.ok(&["show", &id, "--json"]));
    assert_eq!(entry["content"], "changed");
    assert_eq!(entry["isPublic"], false);

    r.ok(&["profile", "set", "--nickname", "ada"]);
    assert_eq!(json(&r.ok(&["profile", "--json"]))["nickname"], "ada");

    let export = r.sb.path("remote.json");
    r.ok(&["export", "--output", export.to_str().unwrap()]);
    let exported = json(&std::fs::read_to_string(&export).unwrap());
    assert_eq!(exported["entries"].as_array().unwrap().len(), 2);
    // Its own export, imported back: every entry is there already.
    let imported = json(&r.ok(&["import", export.to_str().unwrap(), "--json"]));
    assert_eq!(imported["imported"], 0);
    assert_eq!(imported["skipped"], 2);

    r.ok(&["rm", &id, "--yes"]);
    let err = fail(r.journal(&["show", &id]), NOT_FOUND);
    assert!(err.contains("not found"), "{err}");
}

#[test]
fn other_users_entries_cannot_be_changed() {
    let r = Served::start();
    r.register(r.journal(&[]), "owner@example.com");
    let public = r.ok(&["new", "--public", "Public words"]).trim().to_owned();
    let private = r.ok(&["new", "Private words"]).trim().to_owned();

    let other = r.sb.path("other.json");
    r.register(r.as_user(&other, &[]), "other@example.com");
    // Visible but not theirs: forbidden; private: not found. Both exit 3.
    let err = fail(
        r.as_user(&other, &["edit", &public, "--title", "mine now"]),
        NOT_FOUND,
    );
    assert!(err.contains("author"), "{err}");
    fail(r.as_user(&other, &["rm", &public, "--yes"]), NOT_FOUND);
    let err = fail(r.as_user(&other, &["show", &private]), NOT_FOUND);
    assert!(err.contains(&private), "{err}");
    // Their public entries are listable by user id.
    let owner_id = json(&r.ok(&["profile", "--json"]))["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let theirs = json(&succeed(
        r.as_user(&other, &["list", "--user", &owner_id, "--json"]),
    ));
    assert_eq!(theirs["total"], 1);
}

#[test]
fn login_logout_and_bad_tokens() {
    let r = Served::start();
    r.register(r.journal(&[]), "bea@example.com");
    r.ok(&["logout"]);
    let err = fail(r.journal(&["list"]), AUTH);
    assert!(err.contains("run journal login"), "{err}");

    let wrong = check_fail(
        with_stdin(
            r.journal(&["login", "--email", "bea@example.com", "--password-stdin"]),
            "not the password\n",
        ),
        AUTH,
    );
    assert!(!wrong.contains("not the password"));
    check_ok(with_stdin(
        r.journal(&["login", "--email", "bea@example.com", "--password-stdin"]),
        "correct horse battery\n",
    ));
    r.ok(&["list"]);

    // A token the server does not accept.
    let mut config = json(&std::fs::read_to_string(&r.sb.config).unwrap());
    config["sessions"][&r.server.base_url]["token"] = "garbage.token.here".into();
    std::fs::write(&r.sb.config, config.to_string()).unwrap();
    let err = fail(r.journal(&["list"]), AUTH);
    assert!(err.contains("run journal login"), "{err}");
    assert!(!err.contains("garbage"), "token not printed: {err}");
}

#[test]
fn passwd_changes_the_password_and_stays_logged_in() {
    let r = Served::start();
    r.register(r.journal(&[]), "cy@example.com");
    check_ok(with_stdin(
        r.journal(&["passwd", "--password-stdin"]),
        "correct horse battery\nan even better passphrase\n",
    ));
    r.ok(&["profile"]);
    r.ok(&["logout"]);
    check_ok(with_stdin(
        r.journal(&["login", "--email", "cy@example.com", "--password-stdin"]),
        "an even better passphrase\n",
    ));
}

#[test]
fn delete_account_over_http() {
    let r = Served::start();
    r.register(r.journal(&[]), "dee@example.com");
    r.ok(&["delete-account", "--confirm", "dee@example.com"]);
    fail(r.journal(&["profile"]), AUTH);
    let wrong = check_fail(
        with_stdin(
            r.journal(&["login", "--email", "dee@example.com", "--password-stdin"]),
            "correct horse battery\n",
        ),
        AUTH,
    );
    assert!(wrong.contains("password"), "{wrong}");
}

#[test]
fn admin_works_only_on_a_database_file() {
    let r = Served::start();
    let err = fail(r.journal(&["admin", "promote", "x@example.com"]), USAGE);
    assert!(err.contains("--database"), "{err}");
}

#[test]
fn a_server_that_is_down_is_a_connection_error() {
    let sb = Sandbox::new();
    // Bind and drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let mut cmd = sb.bare(&["public"]);
    cmd.arg("--server").arg(&url);
    let err = fail(cmd, CONNECTION);
    assert_eq!(
        err.trim(),
        format!("error: cannot reach {url}: connection refused (is journal-server running?)")
    );
    // The configured server is used without --server.
    sb.ok(&["config", "set", "server", &url]);
    fail(sb.bare(&["public"]), CONNECTION);
    // --local overrides it.
    succeed(sb.bare(&["public", "--local"]));
}

#[test]
fn a_local_export_imported_over_http_keeps_its_dates() {
    // Written locally (yesterday's entries, say), moved to a server: nothing is lost.
    let local = Sandbox::new();
    new_entry(
        &local,
        &["--title", "Public one", "--public", "shared text"],
    );
    let edited = new_entry(&local, &["--title", "Private one", "line one\nline two"]);
    local.ok(&["edit", &edited, "--content", "changed later"]);
    let export = local.path("local.json");
    local.ok(&["export", "--output", export.to_str().unwrap()]);

    let r = Served::start();
    r.register(r.journal(&[]), "importer@example.com");
    let imported = json(&r.ok(&["import", export.to_str().unwrap(), "--json"]));
    assert_eq!(imported["imported"], 2);

    let key = |v: &serde_json::Value| {
        let mut entries: Vec<String> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                format!(
                    "{} {} {} {} {}",
                    e["title"], e["content"], e["isPublic"], e["createdAt"], e["updatedAt"]
                )
            })
            .collect();
        entries.sort();
        entries
    };
    let original = json(&std::fs::read_to_string(&export).unwrap());
    let served = json(&r.ok(&["export"]));
    assert_eq!(key(&original), key(&served));
}

#[test]
fn a_filtered_list_the_server_counted_only_so_far_says_at_least() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    let entries: Vec<serde_json::Value> = (0..2_100)
        .map(|i| {
            serde_json::json!({
                "title": format!("entry {i}"),
                "content": "",
                "tags": ["many"],
                "createdAt": "2024-01-01T00:00:00Z",
                "date": format!("2024-{:02}-{:02}T{:02}:00:00Z", 1 + i % 12, 1 + i % 28, i % 24),
            })
        })
        .collect();
    let file = r.sb.path("many.json");
    let export = serde_json::json!({ "format": "journal-export", "entries": entries });
    std::fs::write(&file, export.to_string()).unwrap();
    r.ok(&["import", file.to_str().unwrap()]);

    let table = r.ok(&["list", "--tag", "many", "--limit", "20", "--page", "3"]);
    assert!(
        table.contains("page 3 of 100+, at least 2000 entries"),
        "{table}"
    );
    let newest = r.ok(&["list", "--tag", "many", "-n", "3"]);
    assert!(
        newest.contains("the newest 3 of at least 2000 entries"),
        "{newest}"
    );
    let listed = json(&r.ok(&["list", "--tag", "many", "--json"]));
    assert_eq!(listed["total"], 2000);
    assert_eq!(listed["totalExact"], false);
    // Unfiltered, the total is exact.
    let all = json(&r.ok(&["list", "--json"]));
    assert_eq!(all["total"], 2100);
    assert_eq!(all["totalExact"], true);
}

#[test]
fn a_local_export_with_history_moves_to_a_server_and_back_as_it_was() {
    use crate::round_trip::{document, with_history};
    let local = with_history();
    let export = local.path("local.json");
    local.ok(&["export", "--output", export.to_str().unwrap()]);

    // Sent in batches of the API's JSON, revisions and trash included…
    let r = Served::start();
    r.register(r.journal(&[]), "mover@example.com");
    let imported = json(&r.ok(&["import", export.to_str().unwrap(), "--json"]));
    assert_eq!(
        (imported["imported"].clone(), imported["trashed"].clone()),
        (2.into(), 1.into()),
        "{imported}"
    );
    // …and read back whole from GET /api/user/export.
    let served = r.sb.path("served.json");
    r.ok(&["export", "--output", served.to_str().unwrap()]);
    // The API's import names the caller as author (docs/API.md); all else is kept.
    let without_author_name = |mut doc: serde_json::Value| {
        for list in ["entries", "trash"] {
            for e in doc[list].as_array_mut().unwrap() {
                e.as_object_mut().unwrap().remove("author_name");
            }
        }
        doc
    };
    assert_eq!(
        without_author_name(document(&export)),
        without_author_name(document(&served))
    );
    let plain = json(&r.ok(&["export", "--no-history"]));
    assert!(plain.get("trash").is_none(), "{plain}");
}
