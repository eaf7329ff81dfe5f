//! Never lose what was typed (issue 15, items 1 to 5): editor text read like piped text
//! and kept in a file when the write fails, an empty pipe, a password change whose new
//! login fails, a logout that could not revoke, an import run twice.

use base64::Engine as _;

use crate::*;

/// The file named in "your text is saved in PATH (…": its path.
fn saved_path(stderr: &str) -> std::path::PathBuf {
    let rest = stderr
        .split("saved in ")
        .nth(1)
        .unwrap_or_else(|| panic!("no saved file named: {stderr}"));
    // `journal new`: "saved in PATH (journal new < PATH …"; `journal edit`: "saved in
    // PATH; fix it there, …".
    let path = rest.split([';', '(']).next().unwrap().trim();
    std::path::PathBuf::from(path)
}

// ----- 1. editor text -------------------------------------------------------------------

#[test]
fn editor_text_with_a_long_first_line_is_read_like_piped_text() {
    let sb = Sandbox::new();
    let long_line = "word ".repeat(50); // 250 characters
    let editor = sb.path("editor.sh");
    script(
        &editor,
        &format!("printf '%s\\n\\nthe body\\n' '{long_line}' > \"$1\""),
    );
    let mut cmd = sb.journal(&["new", "--edit", "--json"]);
    cmd.env("EDITOR", &editor);
    let entry = json(&succeed(cmd));
    let title = entry["title"].as_str().unwrap();
    assert!(
        title.chars().count() <= 200 && title.ends_with('…'),
        "{title}"
    );
    let content = entry["content"].as_str().unwrap();
    assert!(
        content.starts_with(long_line.trim()) && content.ends_with("the body"),
        "the whole text is the body: {content}"
    );
    // Piped, the same text gives the same entry.
    let piped = json(&check_ok(with_stdin(
        sb.journal(&["new", "--json"]),
        &format!("{long_line}\n\nthe body\n"),
    )));
    assert_eq!(piped["title"], entry["title"]);
    assert_eq!(piped["content"], entry["content"]);
}

#[test]
fn editor_text_is_kept_in_a_file_when_the_server_is_down() {
    let sb = Sandbox::new();
    let url = dead_server();
    // Logged in to a server that has since stopped.
    std::fs::create_dir_all(sb.config.parent().unwrap()).unwrap();
    std::fs::write(
        &sb.config,
        serde_json::json!({
            "session": { "server": url, "token": "a.b.c", "email": "ada@example.com" }
        })
        .to_string(),
    )
    .unwrap();
    let editor = sb.path("editor.sh");
    script(
        &editor,
        "printf 'Written offline\\n\\nevery word of it\\n' > \"$1\"",
    );
    let mut cmd = sb.bare(&["new", "--edit", "--server", &url]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, CONNECTION);
    let saved = saved_path(&err);
    let kept = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(kept, "Written offline\n\nevery word of it\n", "{err}");
    assert!(err.contains("journal new <"), "says how to retry: {err}");
}

#[test]
fn editor_text_is_kept_in_a_file_when_it_breaks_a_rule() {
    let sb = Sandbox::new();
    let editor = sb.path("editor.sh");
    // A body over the 100,000-character limit.
    script(
        &editor,
        "{ echo 'A long day'; echo; head -c 150000 /dev/zero | tr '\\0' x; echo; } > \"$1\"",
    );
    let mut cmd = sb.journal(&["new", "--edit"]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, USAGE);
    assert!(err.contains("content"), "{err}");
    let kept = std::fs::read_to_string(saved_path(&err)).unwrap();
    assert!(kept.starts_with("A long day\n\nxxx"), "{}", &kept[..20]);
    assert_eq!(kept.len(), "A long day\n\n".len() + 150_000 + 1);

    // Editing an entry keeps the text the same way.
    let id = new_entry(&sb, &["--title", "Short", "text"]);
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, USAGE);
    assert!(
        std::fs::read_to_string(saved_path(&err))
            .unwrap()
            .starts_with("A long day")
    );
}

// ----- 2. an empty pipe -----------------------------------------------------------------

#[test]
fn an_empty_pipe_is_refused_without_starting_an_editor() {
    let sb = Sandbox::new();
    let marker = sb.path("editor-ran");
    let editor = sb.path("editor.sh");
    script(
        &editor,
        &format!(
            "touch '{}'\nprintf 'From the editor\\n' > \"$1\"",
            marker.display()
        ),
    );
    let mut cmd = sb.journal(&["new"]);
    cmd.env("EDITOR", &editor);
    let err = check_fail(with_stdin(cmd, ""), USAGE);
    assert!(err.contains("standard input is empty"), "{err}");
    assert!(!marker.exists(), "the editor was started");
    assert_eq!(json(&sb.ok(&["list", "--json"]))["total"], 0);
}

// ----- 3. passwd whose new login fails --------------------------------------------------

#[test]
fn passwd_reports_the_change_when_logging_in_again_is_refused() {
    // Two login or register attempts per address: register and its login use them up,
    // so the login after the change is refused with 429.
    let s = Served::start_with(&["--auth-rate-limit", "2", "--auth-rate-window", "10m"]);
    s.register(s.journal(&[]), "pat@example.com");
    let out = check_ok(with_stdin(
        s.journal(&["passwd", "--password-stdin"]),
        "correct horse battery\nan even better passphrase\n",
    ));
    assert!(out.contains("password changed"), "{out}");
    assert!(out.contains("journal login"), "says to log in again: {out}");
    // The voided login is forgotten, so the next command says to log in.
    let config = config_json(&s.sb);
    assert!(config["session"].is_null(), "{config}");
    assert!(config["sessions"].is_null(), "{config}");
    let err = fail(s.journal(&["list"]), AUTH);
    assert!(err.contains("journal login"), "{err}");
}

// ----- 4. logout with the server down ---------------------------------------------------

#[test]
fn logout_with_the_server_down_says_the_token_was_not_revoked() {
    let sb = Sandbox::new();
    let url = dead_server();
    let part = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    // A token that expires on 2100-01-01 at midnight UTC (the sandbox's time zone).
    let token = format!(
        "{}.{}.c2ln",
        part(serde_json::json!({ "alg": "HS256", "typ": "JWT" })),
        part(serde_json::json!({ "sub": "x", "exp": 4_102_444_800_i64 }))
    );
    std::fs::create_dir_all(sb.config.parent().unwrap()).unwrap();
    std::fs::write(
        &sb.config,
        serde_json::json!({
            "session": { "server": url, "token": token, "email": "ada@example.com" }
        })
        .to_string(),
    )
    .unwrap();
    let err = fail(sb.bare(&["logout", "--server", &url]), CONNECTION);
    assert!(err.contains(&format!("cannot reach {url}")), "{err}");
    assert!(err.contains("NOT revoked"), "{err}");
    assert!(err.contains("valid until 2100-01-01 00:00"), "{err}");
    assert!(!err.contains(&token), "token not printed: {err}");
    let config = config_json(&sb);
    assert!(config["session"].is_null(), "forgotten here: {config}");
    assert!(config["sessions"].is_null(), "forgotten here: {config}");
}

// ----- 5. import twice ------------------------------------------------------------------

#[test]
fn importing_the_same_file_twice_skips_what_is_already_there() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "One", "first"]);
    new_entry(&sb, &["--title", "Two", "--public", "second"]);
    let export = sb.path("export.json");
    sb.ok(&["export", "--output", export.to_str().unwrap()]);
    let file = export.to_str().unwrap();

    // Into the same journal: the same ids are there already.
    let out = json(&sb.ok(&["import", file, "--json"]));
    assert_eq!(
        (out["imported"].as_u64(), out["skipped"].as_u64()),
        (Some(0), Some(2))
    );

    // Into another: once imported, then skipped by title, content and date (the ids
    // are new).
    let other = Sandbox::new();
    let first = json(&other.ok(&["import", file, "--json"]));
    assert_eq!(first["imported"], 2);
    let again = other.ok(&["import", file]);
    assert!(
        again.contains("imported 0 entries") && again.contains("skipped 2 entries already present"),
        "{again}"
    );
    assert_eq!(json(&other.ok(&["list", "--json"]))["total"], 2);

    // jrnl's export has no ids: its entries are matched by text and date.
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/jrnl-sample.json");
    other.ok(&["import", sample]);
    let out = json(&other.ok(&["import", sample, "--json"]));
    assert_eq!(
        (out["imported"].as_u64(), out["skipped"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(json(&other.ok(&["list", "--json"]))["total"], 4);
}

#[test]
fn importing_twice_over_http_skips_what_is_already_there() {
    let s = Served::start();
    s.register(s.journal(&[]), "imp@example.com");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/jrnl-sample.json");
    assert_eq!(json(&s.ok(&["import", sample, "--json"]))["imported"], 2);
    let out = json(&s.ok(&["import", sample, "--json"]));
    assert_eq!(
        (out["imported"].as_u64(), out["skipped"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(json(&s.ok(&["list", "--json"]))["total"], 2);
}
