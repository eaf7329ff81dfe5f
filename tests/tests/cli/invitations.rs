//! Invitations and recovery through the CLI: `journal admin invites` and
//! `revoke-invite` over the server and directly on its database, and `admin enable` on
//! the database when no administrator can log in.

use crate::accounts::{ADMIN, PASSWORD, admin_login, create_admin, server_database};
use crate::*;

/// `journal admin ARGS --database <the server's file>`, without a server.
fn on_database(r: &Served, args: &[&str]) -> std::process::Command {
    let mut cmd = r.sb.bare(args);
    cmd.arg("--database").arg(server_database(r));
    cmd
}

fn register_with(r: &Served, email: &str, code: &str) -> std::process::Output {
    let config = r.sb.path(&format!("{email}.json"));
    with_stdin(
        r.as_user(
            &config,
            &[
                "register",
                "--full-name",
                "New Comer",
                "--email",
                email,
                "--password-stdin",
                "--invite",
                code,
            ],
        ),
        &format!("{PASSWORD}\n"),
    )
}

#[test]
fn an_administrator_lists_and_revokes_invitations_on_the_server_and_on_the_database() {
    let r = Served::start_with(&["--registration", "invite"]);
    create_admin(&r);
    let admin = admin_login(&r);
    let make = || json(&succeed(r.as_user(&admin, &["admin", "invite", "--json"])));
    let (first, second) = (make(), make());
    let id = |made: &serde_json::Value| made["id"].as_str().unwrap().to_owned();

    let listed = json(&succeed(r.as_user(&admin, &["admin", "invites", "--json"])));
    let ids: Vec<_> = listed.as_array().unwrap().iter().map(id).collect();
    assert_eq!(ids, [id(&first), id(&second)]);
    assert_eq!(listed[0]["createdByEmail"], ADMIN);
    assert!(!listed.to_string().contains(first["code"].as_str().unwrap()));
    let table = succeed(r.as_user(&admin, &["admin", "invites"]));
    for column in ["ID", "MADE BY", "MADE", "EXPIRES"] {
        assert!(table.lines().next().unwrap().contains(column), "{table}");
    }
    assert!(
        table.contains(&id(&first)) && table.contains(ADMIN),
        "{table}"
    );

    // Over the server, by id; an ordinary user may not.
    check_ok(with_stdin(
        on_database(
            &r,
            &[
                "admin",
                "create-user",
                "--email",
                "jo@example.com",
                "--password-stdin",
            ],
        ),
        &format!("{PASSWORD}\n"),
    ));
    check_ok(with_stdin(
        r.journal(&["login", "--email", "jo@example.com", "--password-stdin"]),
        &format!("{PASSWORD}\n"),
    ));
    let err = fail(
        r.journal(&["admin", "revoke-invite", &id(&first)]),
        NOT_FOUND,
    );
    assert!(err.contains("administrator"), "{err}");
    let said = succeed(r.as_user(&admin, &["admin", "revoke-invite", &id(&first)]));
    assert!(said.contains("revoked"), "{said}");
    let err = check_fail(
        register_with(&r, "hal@example.com", first["code"].as_str().unwrap()),
        NOT_FOUND,
    );
    assert!(err.contains("invitation"), "{err}");
    let err = fail(
        r.as_user(&admin, &["admin", "revoke-invite", &id(&first)]),
        NOT_FOUND,
    );
    assert!(err.contains("journal admin invites"), "{err}");
    fail(
        r.as_user(&admin, &["admin", "revoke-invite", "../users"]),
        NOT_FOUND,
    );

    // On the database, by code: the operator needs no login.
    let listed = json(&succeed(on_database(&r, &["admin", "invites", "--json"])));
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    succeed(on_database(
        &r,
        &["admin", "revoke-invite", second["code"].as_str().unwrap()],
    ));
    let listed = json(&succeed(on_database(&r, &["admin", "invites", "--json"])));
    assert_eq!(listed, serde_json::json!([]));
    check_fail(
        register_with(&r, "ivy@example.com", second["code"].as_str().unwrap()),
        NOT_FOUND,
    );

    // Neither a server nor a database: said so, nothing opened.
    let err = fail(r.sb.bare(&["admin", "invites"]), USAGE);
    assert!(
        err.contains("--server") && err.contains("--database"),
        "{err}"
    );
    // The lifetime's bounds, before asking the server.
    let out = run(r.as_user(&admin, &["admin", "invite", "--expires", "31"]));
    assert_eq!(out.status.code(), Some(USAGE));
}

#[test]
fn an_operator_enables_an_administrator_on_the_database_when_none_can_log_in() {
    let r = Served::start();
    create_admin(&r);
    let admin = admin_login(&r);
    r.register(r.journal(&[]), "jo@example.com");
    succeed(on_database(&r, &["admin", "promote", "jo@example.com"]));
    // Jo disables the first administrator over the server, then the operator disables
    // Jo on the database: refused, Jo is the last administrator who can log in.
    check_ok(with_stdin(
        r.journal(&["login", "--email", "jo@example.com", "--password-stdin"]),
        &format!("{PASSWORD}\n"),
    ));
    succeed(r.journal(&["admin", "disable", ADMIN]));
    fail(r.as_user(&admin, &["admin", "users"]), AUTH);
    let err = fail(on_database(&r, &["admin", "disable", "jo@example.com"]), 1);
    assert!(err.contains("administrator"), "{err}");
    succeed(r.journal(&["admin", "users"]));

    // The way back, without any login: enable on the database.
    let said = json(&succeed(on_database(
        &r,
        &["admin", "enable", "ROOT@example.com", "--json"],
    )));
    assert_eq!(said["disabled"], false);
    check_ok(with_stdin(
        r.as_user(&admin, &["login", "--email", ADMIN, "--password-stdin"]),
        &format!("{}\n", crate::accounts::ADMIN_PASSWORD),
    ));
    succeed(r.as_user(&admin, &["admin", "users"]));
    let err = fail(
        on_database(&r, &["admin", "enable", "nobody@example.com"]),
        NOT_FOUND,
    );
    assert!(err.contains("nobody@example.com"), "{err}");
}
