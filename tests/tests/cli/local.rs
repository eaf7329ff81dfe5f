//! Local mode: every command on a temp database, no account needed.

use crate::*;

#[test]
fn new_from_arguments_prints_the_id_and_show_displays_it() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["Walked to the lake"]);
    assert_eq!(id.len(), 36, "an id: {id}");
    let shown = sb.ok(&["show", &id]);
    assert!(shown.contains("Walked to the lake"), "{shown}");
    assert!(shown.contains("private"), "{shown}");
    let entry = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(entry["_id"], id.as_str());
    assert_eq!(entry["title"], "Walked to the lake");
    assert_eq!(entry["content"], "");
    assert_eq!(entry["isPublic"], false);
    assert!(entry["createdAt"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn first_use_creates_the_owner_account_and_remembers_it() {
    let sb = Sandbox::new();
    new_entry(&sb, &["one"]);
    let profile = json(&sb.ok(&["profile", "--json"]));
    assert_eq!(profile["email"], "tester@localhost");
    assert_eq!(profile["nickname"], "tester");
    assert_eq!(profile["role"], "user");
    let config = std::fs::read_to_string(&sb.config).unwrap();
    assert!(
        config.contains(profile["_id"].as_str().unwrap()),
        "{config}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&sb.config).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Same owner on the next run.
    let again = json(&sb.ok(&["profile", "--json"]));
    assert_eq!(again["_id"], profile["_id"]);
}

#[test]
fn new_with_title_and_public_flag() {
    let sb = Sandbox::new();
    let entry = json(&sb.ok(&[
        "new", "--title", "Monday", "--public", "Sunny", "and", "warm", "--json",
    ]));
    assert_eq!(entry["title"], "Monday");
    assert_eq!(entry["content"], "Sunny and warm");
    assert_eq!(entry["isPublic"], true);
}

#[test]
fn new_reads_piped_standard_input() {
    let sb = Sandbox::new();
    let out = check_ok(with_stdin(
        sb.journal(&["new", "--json"]),
        "From stdin\n\nFirst line of the body.\nSecond line.\n",
    ));
    let entry = json(&out);
    assert_eq!(entry["title"], "From stdin");
    assert_eq!(entry["content"], "First line of the body.\nSecond line.");
}

#[test]
fn new_opens_the_editor_when_there_is_no_text() {
    let sb = Sandbox::new();
    let editor = sb.path("editor.sh");
    script(
        &editor,
        "printf 'Edited title\\n\\nWritten in the editor.\\n' > \"$1\"",
    );
    // Standard input is not a terminal here, so --edit asks for the editor.
    let mut cmd = sb.journal(&["new", "--edit", "--json"]);
    cmd.env("EDITOR", &editor);
    let entry = json(&succeed(cmd));
    assert_eq!(entry["title"], "Edited title");
    assert_eq!(entry["content"], "Written in the editor.");
}

#[test]
fn an_empty_editor_buffer_creates_nothing() {
    let sb = Sandbox::new();
    let editor = sb.path("editor.sh");
    script(&editor, ": > \"$1\"");
    let mut cmd = sb.journal(&["new", "--edit"]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, 1);
    assert!(err.contains("empty"), "{err}");
    let list = json(&sb.ok(&["list", "--json"]));
    assert_eq!(list["total"], 0);
}

#[test]
fn edit_with_flags_and_with_the_editor() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--title", "Draft", "first text"]);
    sb.ok(&["edit", &id, "--title", "Final", "--public"]);
    let entry = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(entry["title"], "Final");
    assert_eq!(entry["isPublic"], true);
    assert_eq!(entry["content"], "first text");

    // The editor sees the current text and replaces the body.
    let editor = sb.path("editor.sh");
    script(
        &editor,
        "grep -q 'first text' \"$1\" || exit 1\nprintf 'Final\\n\\nrewritten body\\n' > \"$1\"",
    );
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    succeed(cmd);
    let entry = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(entry["title"], "Final");
    assert_eq!(entry["content"], "rewritten body");

    sb.ok(&["edit", &id, "--private"]);
    let entry = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(entry["isPublic"], false);
}

#[test]
fn list_shows_a_table_with_total_and_pages() {
    let sb = Sandbox::new();
    for i in 0..12 {
        new_entry(&sb, &["--title", &format!("Entry {i}"), "body"]);
    }
    let table = sb.ok(&["list"]);
    assert!(table.starts_with("ID"), "{table}");
    assert!(table.contains("Entry 11"), "newest first: {table}");
    assert!(table.contains("page 1 of 2, 12 entries"), "{table}");
    let page2 = json(&sb.ok(&["list", "--page", "2", "--json"]));
    assert_eq!(page2["entries"].as_array().unwrap().len(), 2);
    assert_eq!(page2["total"], 12);
    assert_eq!(page2["page"], 2);
    let all = json(&sb.ok(&["list", "--all", "--limit", "5", "--json"]));
    assert_eq!(all["entries"].as_array().unwrap().len(), 12);
}

#[test]
fn public_lists_only_public_entries() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--public", "Open letter"]);
    new_entry(&sb, &["Secret diary"]);
    let feed = sb.ok(&["public"]);
    assert!(feed.contains("Open letter"), "{feed}");
    assert!(!feed.contains("Secret diary"), "{feed}");
}

#[test]
fn search_finds_words_in_titles_and_content() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "Lake", "cold water"]);
    new_entry(&sb, &["--title", "Mountain", "thin air"]);
    let found = json(&sb.ok(&["search", "water", "--json"]));
    assert_eq!(found["total"], 1);
    assert_eq!(found["entries"][0]["title"], "Lake");
    let none = sb.ok(&["search", "desert"]);
    assert!(none.contains("no entries"), "{none}");
}

#[test]
fn search_finds_a_run_of_japanese_and_tags() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "日記", "今日は静かな朝でした"]);
    new_entry(&sb, &["--title", "東京の朝", "river walk"]);
    new_entry(
        &sb,
        &["--title", "Saturday", "--tag", "hiking", "up at dawn"],
    );
    let found = json(&sb.ok(&["search", "静か", "--json"]));
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(found["entries"][0]["title"], "日記");
    let table = sb.ok(&["search", "東京"]);
    assert!(table.contains("東京の朝"), "{table}");
    let found = json(&sb.ok(&["search", "朝", "--json"]));
    assert_eq!(found["total"], 2, "{found}");
    let found = json(&sb.ok(&["search", "hiking", "--json"]));
    assert_eq!(found["entries"][0]["title"], "Saturday", "{found}");
    let none = sb.ok(&["search", "静朝"]);
    assert!(none.contains("no entries"), "{none}");
}

#[test]
fn rm_needs_yes_off_a_terminal_then_deletes() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["doomed"]);
    let err = fail(sb.journal(&["rm", &id]), USAGE);
    assert!(err.contains("--yes"), "{err}");
    sb.ok(&["rm", &id, "--yes"]);
    let err = fail(sb.journal(&["show", &id]), NOT_FOUND);
    assert_eq!(err.trim(), format!("error: entry {id} not found"));
}

#[test]
fn unknown_or_malformed_ids_are_not_found() {
    let sb = Sandbox::new();
    let missing = "01900000-0000-7000-8000-000000000000";
    for args in [
        vec!["show", missing],
        vec!["edit", missing, "--title", "x"],
        vec!["rm", missing, "--yes"],
        vec!["show", "not-an-id"],
    ] {
        let err = fail(sb.journal(&args), NOT_FOUND);
        assert!(err.contains("not found"), "{err}");
    }
}

#[test]
fn profile_set_changes_fields_and_reads_a_picture() {
    let sb = Sandbox::new();
    // A 1x1 PNG.
    let png: &[u8] = &[
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
        0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00,
        0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ];
    // Named .jpg on purpose: the type comes from the content.
    let pic = sb.path("me.jpg");
    std::fs::write(&pic, png).unwrap();
    sb.ok(&[
        "profile",
        "set",
        "--full-name",
        "Ada Lovelace",
        "--nickname",
        "ada",
        "--private",
        "--picture",
        pic.to_str().unwrap(),
    ]);
    let p = json(&sb.ok(&["profile", "--json"]));
    assert_eq!(p["fullName"], "Ada Lovelace");
    assert_eq!(p["nickname"], "ada");
    assert_eq!(p["isPrivate"], true);
    assert!(
        p["profilePic"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
    let shown = sb.ok(&["profile"]);
    assert!(shown.contains("image/png"), "{shown}");
    assert!(
        !shown.contains("base64"),
        "no picture data on screen: {shown}"
    );

    let text = sb.path("notes.txt");
    std::fs::write(&text, "not a picture").unwrap();
    fail(
        sb.journal(&["profile", "set", "--picture", text.to_str().unwrap()]),
        USAGE,
    );
    sb.ok(&["profile", "set", "--not-private", "--remove-picture"]);
    let p = json(&sb.ok(&["profile", "--json"]));
    assert_eq!(p["isPrivate"], false);
    assert_eq!(p["profilePic"], "");
}

#[test]
fn invalid_input_is_a_usage_error() {
    let sb = Sandbox::new();
    let err = fail(sb.journal(&["profile", "set", "--email", "nope"]), USAGE);
    assert!(err.contains("email"), "{err}");
    fail(sb.journal(&["list", "--limit", "1000"]), USAGE);
}

#[test]
fn passwd_sets_the_owner_password_from_stdin() {
    let sb = Sandbox::new();
    let out = check_ok(with_stdin(
        sb.journal(&["passwd", "--password-stdin"]),
        "a long enough passphrase\n",
    ));
    assert!(out.contains("tester@localhost"), "{out}");
    assert!(!out.contains("passphrase"), "no secret printed: {out}");
    let err = check_fail(
        with_stdin(sb.journal(&["passwd", "--password-stdin"]), "short\n"),
        USAGE,
    );
    assert!(err.contains("password"), "{err}");
}

#[test]
fn account_commands_need_a_server_in_local_mode() {
    let sb = Sandbox::new();
    for args in [
        vec!["login", "--email", "a@example.com", "--password-stdin"],
        vec!["logout"],
        vec![
            "register",
            "--email",
            "a@example.com",
            "--full-name",
            "A",
            "--password-stdin",
        ],
    ] {
        let err = fail(sb.journal(&args), USAGE);
        assert!(err.contains("--server"), "{err}");
    }
}

#[test]
fn delete_account_asks_for_the_email_and_removes_everything() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["mine"]);
    let before = json(&sb.ok(&["profile", "--json"]));
    fail(sb.journal(&["delete-account"]), USAGE);
    fail(
        sb.journal(&["delete-account", "--confirm", "wrong@localhost"]),
        1,
    );
    sb.ok(&["delete-account", "--confirm", "tester@localhost"]);
    // A fresh owner on the next use; the old entry is gone.
    let after = json(&sb.ok(&["profile", "--json"]));
    assert_ne!(after["_id"], before["_id"]);
    fail(sb.journal(&["show", &id]), NOT_FOUND);
}

#[test]
fn admin_promote_and_demote_by_email() {
    let sb = Sandbox::new();
    sb.ok(&["profile"]);
    sb.ok(&["admin", "promote", "tester@localhost"]);
    assert_eq!(json(&sb.ok(&["profile", "--json"]))["role"], "admin");
    sb.ok(&["admin", "demote", "tester@localhost"]);
    assert_eq!(json(&sb.ok(&["profile", "--json"]))["role"], "user");
    let err = fail(
        sb.journal(&["admin", "promote", "nobody@example.com"]),
        NOT_FOUND,
    );
    assert!(err.contains("nobody@example.com"), "{err}");
}

#[test]
fn config_set_server_and_unset() {
    let sb = Sandbox::new();
    sb.ok(&["config", "set", "server", "http://127.0.0.1:9/"]);
    let shown = json(&succeed(sb.bare(&["config", "show", "--json"])));
    assert_eq!(shown["server"], "http://127.0.0.1:9");
    fail(sb.bare(&["config", "set", "colour", "blue"]), USAGE);
    sb.ok(&["config", "unset", "server"]);
    let shown = json(&succeed(sb.bare(&["config", "show", "--json"])));
    assert!(shown["server"].is_null());
}

#[test]
fn default_database_lives_in_the_data_directory() {
    let sb = Sandbox::new();
    succeed(sb.bare(&["new", "default place"]));
    let db = sb.dir.path().join("home/.local/share/journal/journal.db");
    assert!(db.exists(), "{} exists", db.display());
}

#[test]
fn completions_and_help() {
    let sb = Sandbox::new();
    let bash = succeed(sb.bare(&["completions", "bash"]));
    assert!(bash.contains("journal"), "{bash}");
    let help = succeed(sb.bare(&["new", "--help"]));
    assert!(help.contains("Example"), "{help}");
    let out = run(sb.bare(&["frobnicate"]));
    assert_eq!(out.status.code(), Some(USAGE));
}

#[test]
fn quiet_keeps_results_and_drops_messages() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["quiet one"]);
    let out = sb
        .journal(&["edit", &id, "--title", "renamed", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}
