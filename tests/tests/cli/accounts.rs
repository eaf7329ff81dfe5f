//! Accounts on a public server through the CLI: personal access tokens and
//! `JOURNAL_TOKEN`, the second factor, registration policies with the first
//! administrator made in the database, and the administrators' user management.

use std::path::PathBuf;
use std::process::Command;

use crate::*;

pub(crate) const PASSWORD: &str = "correct horse battery";
pub(crate) const ADMIN: &str = "root@example.com";
pub(crate) const ADMIN_PASSWORD: &str = "the administrator's passphrase";

/// The server's SQLite file (see [`Served::start_with`]).
pub(crate) fn server_database(r: &Served) -> PathBuf {
    r.sb.path("srv.db")
}

/// `journal admin create-user` on the server's database file: the administrator, made
/// the way an operator makes the first one.
pub(crate) fn create_admin(r: &Served) -> String {
    let db = server_database(r);
    let out = with_stdin(
        r.sb.bare(&[
            "admin",
            "create-user",
            "--database",
            db.to_str().unwrap(),
            "--email",
            ADMIN,
            "--admin",
            "--password-stdin",
        ]),
        &format!("{ADMIN_PASSWORD}\n"),
    );
    check_ok(out).trim().to_owned()
}

/// A config file of its own for the administrator, logged in.
pub(crate) fn admin_login(r: &Served) -> PathBuf {
    let config = r.sb.path("admin.json");
    check_ok(with_stdin(
        r.as_user(&config, &["login", "--email", ADMIN, "--password-stdin"]),
        &format!("{ADMIN_PASSWORD}\n"),
    ));
    config
}

/// `cmd` with `JOURNAL_TOKEN` set.
fn with_token(mut cmd: Command, token: &str) -> Command {
    cmd.env("JOURNAL_TOKEN", token);
    cmd
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The code of `secret` at `offset` seconds from now.
fn code(secret: &str, offset: i64) -> String {
    let at = now().checked_add_signed(offset).unwrap();
    journal_core::totp::code_at(secret, at).expect("a base32 secret")
}

fn login(r: &Served, config: &std::path::Path, email: &str, extra: &[&str]) -> Output {
    let mut args = vec!["login", "--email", email, "--password-stdin"];
    args.extend_from_slice(extra);
    with_stdin(r.as_user(config, &args), &format!("{PASSWORD}\n"))
}

// ----- personal access tokens ----------------------------------------------------------

#[test]
fn an_access_token_works_from_journal_token_until_it_is_revoked() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    r.ok(&["new", "Written with the login"]);

    let out = run(r.journal(&["token", "create", "backup script", "--expires", "30"]));
    let stdout = check_ok(out.clone());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The secret alone on stdout, once; how to use it on stderr.
    let token = stdout.trim().to_owned();
    assert!(
        token.starts_with("jpat_") && stdout.lines().count() == 1,
        "{stdout}"
    );
    assert!(
        stderr.contains("JOURNAL_TOKEN=") && stderr.contains("not shown again"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(&token),
        "the secret is printed once: {stderr}"
    );
    assert!(
        !std::fs::read_to_string(&r.sb.config)
            .unwrap()
            .contains(&token),
        "never saved"
    );

    // Someone with no login at all: the token is enough.
    let script = r.sb.path("script.json");
    let list = json(&succeed(with_token(
        r.as_user(&script, &["list", "--json"]),
        &token,
    )));
    assert_eq!(list["total"], 1);
    succeed(with_token(
        r.as_user(&script, &["new", "Written by the script"]),
        &token,
    ));
    assert!(!script.exists(), "JOURNAL_TOKEN is not saved: {script:?}");
    assert_eq!(json(&r.ok(&["list", "--json"]))["total"], 2);

    // It takes precedence over the saved login (here another account's).
    r.register(r.journal(&[]), "bob@example.com");
    let profile = json(&succeed(with_token(
        r.journal(&["profile", "--json"]),
        &token,
    )));
    assert_eq!(profile["email"], "ada@example.com");
    // What an access token may not do says where the token came from.
    let err = fail(with_token(r.journal(&["token", "list"]), &token), NOT_FOUND);
    assert!(
        err.contains("JOURNAL_TOKEN") && !err.contains(&token),
        "{err}"
    );

    let ada = r.sb.path("ada.json");
    check_ok(login(&r, &ada, "ada@example.com", &[]));
    let tokens = json(&succeed(r.as_user(&ada, &["token", "list", "--json"])));
    let tokens = tokens.as_array().unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0]["name"], "backup script");
    assert!(tokens[0]["expiresAt"].is_string());
    assert!(tokens[0]["lastUsedAt"].is_string(), "used: {}", tokens[0]);
    assert!(tokens[0].get("token").is_none(), "no secret in the list");
    let table = succeed(r.as_user(&ada, &["token", "list"]));
    assert!(
        table.starts_with("ID") && table.contains("LAST USED") && table.contains("backup script"),
        "{table}"
    );
    assert!(!table.contains("jpat_"), "{table}");

    let id = tokens[0]["id"].as_str().unwrap();
    let revoked = succeed(r.as_user(&ada, &["token", "revoke", &id[..8]]));
    assert!(revoked.contains("backup script"), "{revoked}");
    let err = fail(with_token(r.as_user(&script, &["list"]), &token), AUTH);
    assert!(
        err.contains("JOURNAL_TOKEN") && !err.contains(&token),
        "{err}"
    );
    let left = json(&succeed(r.as_user(&ada, &["token", "list", "--json"])));
    assert_eq!(left, serde_json::json!([]));
}

#[test]
fn bad_token_commands_are_one_line_and_change_nothing() {
    let r = Served::start();
    r.register(r.journal(&[]), "cy@example.com");
    let err = fail(r.journal(&["token", "revoke", "abc"]), NOT_FOUND);
    assert!(err.contains("first 8 characters"), "{err}");
    fail(
        r.journal(&["token", "revoke", "01234567-89ab-7def-8123-456789abcdef"]),
        NOT_FOUND,
    );
    let err = fail(r.journal(&["token", "create", " "]), USAGE);
    assert!(err.contains("name"), "{err}");
    let out = run(r.journal(&["token", "create", "x", "--expires", "0"]));
    assert_eq!(out.status.code(), Some(USAGE));
    assert_eq!(
        json(&r.ok(&["token", "list", "--json"])),
        serde_json::json!([])
    );
    // The local database has no tokens.
    let sb = Sandbox::new();
    let err = fail(sb.journal(&["token", "list"]), USAGE);
    assert!(err.contains("--server"), "{err}");
    // A token nobody made.
    let err = fail(
        with_token(r.journal(&["list"]), "jpat_not_a_real_one"),
        AUTH,
    );
    assert!(err.contains("JOURNAL_TOKEN"), "{err}");
}

// ----- the second factor ---------------------------------------------------------------

/// `journal 2fa enable --json`: the secret set up, not yet on.
fn set_up_second_factor(r: &Served) -> String {
    let setup = json(&r.ok(&["2fa", "enable", "--json"]));
    assert_eq!(setup["enabled"], false);
    let secret = setup["secret"].as_str().unwrap().to_owned();
    assert!(
        setup["otpauthUrl"]
            .as_str()
            .unwrap()
            .contains(&format!("secret={secret}")),
        "{setup}"
    );
    secret
}

#[test]
fn a_second_factor_is_asked_at_login_and_turned_off_with_a_recovery_code() {
    let r = Served::start();
    r.register(r.journal(&[]), "dee@example.com");
    let secret = set_up_second_factor(&r);
    // A wrong code leaves it off (and the secret set up).
    let err = fail(
        r.journal(&["2fa", "enable", "--code", &code(&secret, -300)]),
        USAGE,
    );
    assert!(err.contains("not on"), "{err}");
    let enabled = json(&r.ok(&["2fa", "enable", "--json", "--code", &code(&secret, 0)]));
    assert_eq!(enabled["enabled"], true);
    let recovery: Vec<String> = enabled["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(recovery.len(), 10);

    r.ok(&["logout"]);
    let err = check_fail(login(&r, &r.sb.config, "dee@example.com", &[]), AUTH);
    assert!(
        err.contains("two-factor code") && err.contains("--totp"),
        "{err}"
    );
    let err = check_fail(
        login(
            &r,
            &r.sb.config,
            "dee@example.com",
            &["--totp", &code(&secret, -300)],
        ),
        AUTH,
    );
    assert!(err.contains("wrong or already used"), "{err}");
    fail(r.journal(&["list"]), AUTH);
    // Enabling used this step's code, and a code works once: the next step's.
    check_ok(login(
        &r,
        &r.sb.config,
        "dee@example.com",
        &["--totp", &code(&secret, 30)],
    ));
    r.ok(&["list"]);

    // Off a terminal, disabling needs --code; then the password and a code.
    let err = check_fail(
        with_stdin(r.journal(&["2fa", "disable", "--password-stdin"]), "x\n"),
        USAGE,
    );
    assert!(err.contains("--code"), "{err}");
    let err = check_fail(
        with_stdin(
            r.journal(&["2fa", "disable", "--password-stdin", "--code", &recovery[0]]),
            "not the password\n",
        ),
        AUTH,
    );
    assert!(
        err.contains("password is wrong") && err.contains("still on"),
        "{err}"
    );
    check_ok(with_stdin(
        r.journal(&["2fa", "disable", "--password-stdin", "--code", &recovery[0]]),
        &format!("{PASSWORD}\n"),
    ));
    r.ok(&["logout"]);
    check_ok(login(&r, &r.sb.config, "dee@example.com", &[]));
}

#[test]
fn enabling_the_second_factor_shows_a_qr_code_and_ten_recovery_codes() {
    let r = Served::start();
    r.register(r.journal(&[]), "eve@example.com");
    let out = run(r.journal(&["2fa", "enable"]));
    let shown = check_ok(out.clone());
    // Half blocks: two rows of modules to a line.
    assert!(shown.contains('█'), "{shown}");
    assert!(shown.contains('▀') || shown.contains('▄'), "{shown}");
    let qr_lines = shown.lines().filter(|l| l.contains('█')).count();
    let qr_width = shown.lines().next().unwrap().chars().count();
    assert!(
        qr_lines * 2 <= qr_width + 2,
        "{qr_lines} lines of {qr_width}"
    );
    let url = shown
        .lines()
        .find_map(|l| l.strip_prefix("url:"))
        .unwrap()
        .trim();
    assert!(url.starts_with("otpauth://totp/Journal:"), "{url}");
    let secret = shown
        .lines()
        .find_map(|l| l.strip_prefix("secret:"))
        .unwrap()
        .trim()
        .to_owned();
    assert!(url.contains(&format!("secret={secret}")), "{url}");
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(note.contains("journal 2fa enable --code"), "{note}");

    let out = run(r.journal(&["2fa", "enable", "--code", &code(&secret, 0)]));
    let codes = check_ok(out.clone());
    let codes: Vec<&str> = codes.lines().collect();
    assert_eq!(codes.len(), 10, "{codes:?}");
    let distinct: std::collections::HashSet<&&str> = codes.iter().collect();
    assert_eq!(distinct.len(), 10);
    assert!(
        codes
            .iter()
            .all(|c| c.len() >= 10 && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-')),
        "{codes:?}"
    );
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(warning.contains("shown only now"), "{warning}");
    // Once on, it is not set up again.
    let err = fail(r.journal(&["2fa", "enable"]), 1);
    assert!(
        err.contains("already on") && err.contains("2fa disable"),
        "{err}"
    );
}

#[test]
fn login_asks_for_the_second_factor_on_a_terminal() {
    let r = Served::start();
    r.register(r.journal(&[]), "fay@example.com");
    let secret = set_up_second_factor(&r);
    r.ok(&["2fa", "enable", "--code", &code(&secret, 0)]);
    r.ok(&["logout"]);
    let typed = format!("{PASSWORD}\n{}\n", code(&secret, 30));
    let Some(out) = on_terminal(&r.journal(&["login", "--email", "fay@example.com"]), &typed)
    else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Two-factor code"), "{text}");
    r.ok(&["list"]);
}

// ----- registration policies and the first administrator -------------------------------

#[test]
fn a_closed_server_gets_its_first_administrator_from_create_user() {
    let r = Served::start_with(&["--registration", "closed"]);
    let out = with_stdin(
        r.journal(&[
            "register",
            "--full-name",
            "Gil",
            "--email",
            "gil@example.com",
            "--password-stdin",
        ]),
        &format!("{PASSWORD}\n"),
    );
    let err = check_fail(out, NOT_FOUND);
    assert!(err.contains("closed"), "{err}");

    let id = create_admin(&r);
    assert!(id.parse::<journal_core::UserId>().is_ok(), "{id}");
    let admin = admin_login(&r);
    let me = json(&succeed(r.as_user(&admin, &["profile", "--json"])));
    assert_eq!(me["role"], "admin");
    assert_eq!(me["_id"], id.as_str());
    // The defaults come from the e-mail.
    assert_eq!(me["nickname"], "root");
    assert_eq!(me["fullName"], "Root");
    // The same address twice is a conflict, with what to do instead.
    let err = check_fail(
        with_stdin(
            r.sb.bare(&[
                "admin",
                "create-user",
                "--database",
                server_database(&r).to_str().unwrap(),
                "--email",
                ADMIN,
                "--admin",
                "--password-stdin",
            ]),
            &format!("{PASSWORD}\n"),
        ),
        1,
    );
    assert!(err.contains("journal admin promote"), "{err}");
}

#[test]
fn an_invite_only_server_registers_with_an_invitation_from_the_administrator() {
    let r = Served::start_with(&["--registration", "invite"]);
    create_admin(&r);
    let admin = admin_login(&r);
    let code = succeed(r.as_user(&admin, &["admin", "invite", "--expires", "2"]))
        .trim()
        .to_owned();
    assert!(!code.is_empty() && !code.contains(' '), "{code}");
    let invite = json(&succeed(r.as_user(&admin, &["admin", "invite", "--json"])));
    assert!(invite["expiresAt"].is_string(), "{invite}");

    let register = |config: &std::path::Path, email: &str, invite: Option<&str>| {
        let mut args = vec![
            "register",
            "--full-name",
            "New Comer",
            "--email",
            email,
            "--password-stdin",
        ];
        if let Some(code) = invite {
            args.extend(["--invite", code]);
        }
        with_stdin(r.as_user(config, &args), &format!("{PASSWORD}\n"))
    };
    let hal = r.sb.path("hal.json");
    let err = check_fail(register(&hal, "hal@example.com", None), NOT_FOUND);
    assert!(err.contains("--invite"), "{err}");
    check_ok(register(&hal, "hal@example.com", Some(&code)));
    assert_eq!(
        json(&succeed(r.as_user(&hal, &["profile", "--json"])))["email"],
        "hal@example.com"
    );
    // Each invitation works once.
    let ivy = r.sb.path("ivy.json");
    let err = check_fail(register(&ivy, "ivy@example.com", Some(&code)), NOT_FOUND);
    assert!(err.contains("invitation"), "{err}");

    // On a terminal, the CLI asks for the code when the server wants one.
    let second = invite["code"].as_str().unwrap();
    let cmd = r.as_user(
        &ivy,
        &[
            "register",
            "--full-name",
            "Ivy",
            "--email",
            "ivy@example.com",
        ],
    );
    let typed = format!("{PASSWORD}\n{PASSWORD}\n{second}\n");
    if let Some(out) = on_terminal(&cmd, &typed) {
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("Invitation code"), "{text}");
        succeed(r.as_user(&ivy, &["list"]));
    }
}

#[test]
fn create_user_refuses_bad_input_before_touching_the_database() {
    let sb = Sandbox::new();
    let db = sb.path("server.db");
    let create = |args: &[&str], stdin: &str| {
        let mut all = vec!["admin", "create-user", "--database", db.to_str().unwrap()];
        all.extend_from_slice(args);
        with_stdin(sb.bare(&all), stdin)
    };
    let err = check_fail(
        create(&["--email", "not an address", "--password-stdin"], "x\n"),
        USAGE,
    );
    assert!(err.contains("--email"), "{err}");
    let err = check_fail(
        create(&["--email", "a@example.com", "--password-stdin"], "short\n"),
        USAGE,
    );
    assert!(err.contains("password"), "{err}");
    let err = check_fail(create(&["--email", "a@example.com"], ""), USAGE);
    assert!(err.contains("--password-stdin"), "{err}");
    assert!(!db.exists(), "nothing created");
    // The personal default database is not a server's: it must be named.
    let err = check_fail(
        with_stdin(
            sb.bare(&[
                "admin",
                "create-user",
                "--email",
                "a@example.com",
                "--password-stdin",
            ]),
            &format!("{PASSWORD}\n"),
        ),
        USAGE,
    );
    assert!(err.contains("--database"), "{err}");
    // Names from the address, unless given.
    check_ok(create(
        &["--email", "ada.lovelace@example.com", "--password-stdin"],
        &format!("{PASSWORD}\n"),
    ));
    check_ok(create(
        &[
            "--email",
            "b@example.com",
            "--name",
            "Bea Bee",
            "--nickname",
            "bee",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
    ));
    let profile = |email: &str| {
        let mut cmd = sb.bare(&["--as", email, "profile", "--json"]);
        cmd.arg("--database").arg(&db);
        json(&succeed(cmd))
    };
    let ada = profile("ada.lovelace@example.com");
    assert_eq!(ada["fullName"], "Ada Lovelace");
    assert_eq!(ada["nickname"], "ada.lovelace");
    assert_eq!(ada["role"], "user");
    let bea = profile("b@example.com");
    assert_eq!(
        (&bea["fullName"], &bea["nickname"]),
        (&"Bea Bee".into(), &"bee".into())
    );
}

// ----- administrators' user management -------------------------------------------------

#[test]
fn an_administrator_lists_disables_and_enables_accounts() {
    let r = Served::start();
    create_admin(&r);
    let admin = admin_login(&r);
    r.register(r.journal(&[]), "jo@example.com");
    r.ok(&["new", "--public", "Jo's public words"]);

    let users = json(&succeed(r.as_user(&admin, &["admin", "users", "--json"])));
    let users = users.as_array().unwrap();
    assert_eq!(users.len(), 2);
    let jo = users
        .iter()
        .find(|u| u["email"] == "jo@example.com")
        .unwrap();
    assert_eq!(
        (&jo["disabled"], &jo["entryCount"]),
        (&false.into(), &1.into())
    );
    assert!(jo.get("password").is_none() && jo.get("passwordHash").is_none());
    let table = succeed(r.as_user(&admin, &["admin", "users"]));
    for column in [
        "ID", "EMAIL", "NICKNAME", "ROLE", "DISABLED", "ENTRIES", "CREATED",
    ] {
        assert!(table.lines().next().unwrap().contains(column), "{table}");
    }
    assert!(
        table.contains("jo@example.com") && table.contains(ADMIN),
        "{table}"
    );

    // Not an administrator: refused, nothing changed.
    let err = fail(r.journal(&["admin", "disable", ADMIN]), NOT_FOUND);
    assert!(err.contains("administrator"), "{err}");
    fail(r.journal(&["admin", "users"]), NOT_FOUND);

    let said = succeed(r.as_user(&admin, &["admin", "disable", "JO@example.com"]));
    assert!(said.contains("disabled jo@example.com"), "{said}");
    let err = fail(r.journal(&["list"]), AUTH);
    assert!(err.contains("disabled"), "{err}");
    let err = check_fail(
        login(&r, &r.sb.path("jo2.json"), "jo@example.com", &[]),
        AUTH,
    );
    assert!(err.contains("disabled"), "{err}");
    assert_eq!(json(&r.ok(&["public", "--json"]))["total"], 0);
    let users = json(&succeed(r.as_user(&admin, &["admin", "users", "--json"])));
    assert!(
        users
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["email"] == "jo@example.com" && u["disabled"] == true)
    );

    succeed(r.as_user(&admin, &["admin", "enable", "jo@example.com"]));
    let list = json(&r.ok(&["list", "--json"]));
    assert_eq!(list["total"], 1, "the same login works again");
    assert_eq!(json(&r.ok(&["public", "--json"]))["total"], 1);

    let err = fail(
        r.as_user(&admin, &["admin", "disable", "nobody@example.com"]),
        NOT_FOUND,
    );
    assert!(err.contains("nobody@example.com"), "{err}");
    let err = fail(r.as_user(&admin, &["admin", "disable", ADMIN]), NOT_FOUND);
    assert!(err.contains("own account"), "{err}");
    // These need a server; the database's own admin commands stay where they were.
    let err = fail(r.sb.journal(&["admin", "users"]), USAGE);
    assert!(err.contains("--server"), "{err}");
    let db = server_database(&r);
    let mut promote = r.sb.bare(&["admin", "promote", "jo@example.com"]);
    promote.arg("--database").arg(&db);
    succeed(promote);
    // A new login: the promotion was written by another process, which the server's
    // cache of token states sees within a tenth of a second.
    check_ok(login(&r, &r.sb.config, "jo@example.com", &[]));
    succeed(r.journal(&["admin", "users"]));
}

// ----- confirming the owner, and recovering an account ---------------------------------

#[test]
fn steps_that_take_an_account_need_the_password_once_the_login_is_not_recent() {
    // No grace after a login: the server always wants the password.
    let r = Served::start_with(&["--recent-login", "0s"]);
    r.register(r.journal(&[]), "fay@example.com");
    // Off a terminal the CLI cannot ask: one line saying what to do, nothing made.
    for args in [
        &["token", "create", "backup"][..],
        &["delete-account", "--confirm", "fay@example.com"][..],
        &["profile", "set", "--email", "fay2@example.com"][..],
    ] {
        let err = fail(r.journal(args), NOT_FOUND);
        assert!(err.contains("journal login"), "{args:?}: {err}");
    }
    assert_eq!(
        json(&r.ok(&["token", "list", "--json"])),
        serde_json::json!([])
    );
    assert_eq!(
        json(&r.ok(&["profile", "--json"]))["email"],
        "fay@example.com"
    );
}

#[test]
fn an_operator_resets_a_second_factor_on_the_database_or_as_an_administrator() {
    let r = Served::start();
    r.register(r.journal(&[]), "gus@example.com");
    let secret = set_up_second_factor(&r);
    r.ok(&["2fa", "enable", "--code", &code(&secret, 0)]);
    r.ok(&["logout"]);
    check_fail(login(&r, &r.sb.config, "gus@example.com", &[]), AUTH);

    // On the database, for when no administrator can log in.
    let db = server_database(&r);
    let said = succeed(r.sb.bare(&[
        "admin",
        "reset-2fa",
        "--database",
        db.to_str().unwrap(),
        "GUS@example.com",
    ]));
    assert!(said.contains("signed them out"), "{said}");
    check_ok(login(&r, &r.sb.config, "gus@example.com", &[]));

    // As an administrator, with --server.
    let secret = set_up_second_factor(&r);
    r.ok(&["2fa", "enable", "--code", &code(&secret, 0)]);
    create_admin(&r);
    let admin = admin_login(&r);
    succeed(r.as_user(&admin, &["admin", "reset-2fa", "gus@example.com"]));
    // The owner's session ended with it.
    fail(r.journal(&["list"]), AUTH);
    check_ok(login(&r, &r.sb.config, "gus@example.com", &[]));
    // Without --server or --database it says which it needs.
    let err = fail(r.sb.bare(&["admin", "reset-2fa", "gus@example.com"]), USAGE);
    assert!(err.contains("--database"), "{err}");
}
