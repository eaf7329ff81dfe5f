//! Speak the user's language (issue 15, items 6 to 12): flags rather than API fields,
//! import errors that point at the entry and field, one rule in both modes, output
//! details, finding things by short id and nickname, answers checked as they are given,
//! and no account created unasked on someone else's database.

use crate::*;

// ----- 6. errors in the user's words ----------------------------------------------------

#[test]
fn profile_set_without_flags_names_the_flags() {
    let sb = Sandbox::new();
    let err = fail(sb.journal(&["profile", "set"]), USAGE);
    assert!(
        err.contains("--full-name") && err.contains("--picture"),
        "{err}"
    );
    assert!(!err.contains("fullName"), "no API field names: {err}");
}

#[test]
fn a_wrong_current_password_is_not_a_login_problem() {
    let s = Served::start();
    s.register(s.journal(&[]), "cur@example.com");
    let err = check_fail(
        with_stdin(
            s.journal(&["passwd", "--password-stdin"]),
            "not my password\nan even better passphrase\n",
        ),
        AUTH,
    );
    assert!(err.contains("current password is wrong"), "{err}");
    assert!(!err.contains("journal login"), "the login is fine: {err}");
    s.ok(&["profile"]);
}

#[test]
fn https_to_a_plain_http_server_suggests_http() {
    let s = Served::start();
    let https = s.server.base_url.replacen("http://", "https://", 1);
    let mut cmd = s.sb.bare(&["public"]);
    cmd.arg("--server").arg(&https);
    let err = fail(cmd, CONNECTION);
    assert!(
        err.contains(&format!(
            "the server does not speak TLS here; try {}",
            s.server.base_url
        )),
        "{err}"
    );
    assert!(!err.contains("InvalidContentType"), "{err}");
}

// ----- 7. import errors -----------------------------------------------------------------

#[test]
fn import_errors_name_the_format_the_entry_and_the_field() {
    let sb = Sandbox::new();
    let import_err = |name: &str, text: &str| {
        let file = sb.path(name);
        std::fs::write(&file, text).unwrap();
        let err = fail(sb.journal(&["import", file.to_str().unwrap()]), USAGE);
        for internal in ["untagged", "ImportFile", "expected ident", "invalid type"] {
            assert!(!err.contains(internal), "parser internals in: {err}");
        }
        err
    };
    let err = import_err("broken.json", "{hello");
    assert!(
        err.contains("is not valid JSON (at line 1, column 2)") && err.contains("jrnl"),
        "{err}"
    );
    let err = import_err("other.json", r#"{"hello": 1}"#);
    assert!(
        err.contains("no field \"entries\"") && err.contains("journal export"),
        "{err}"
    );
    let err = import_err(
        "ours.json",
        r#"{"entries":[{"title":"fine","content":"x"},{"title":5,"content":"y"}]}"#,
    );
    assert!(
        err.contains("entry 2 (journal export): field \"title\" must be text, found a number"),
        "{err}"
    );
    let err = import_err(
        "jrnl.json",
        r#"{"entries":[{"title":"t","body":"b","date":"2021-13-01","time":"10:00"}]}"#,
    );
    assert!(
        err.contains("entry 1 (jrnl export): field \"date\""),
        "{err}"
    );
    assert_eq!(json(&sb.ok(&["list", "--json"]))["total"], 0);
}

// ----- 8. one rule in both modes --------------------------------------------------------

#[test]
fn a_two_megabyte_entry_gets_the_same_answer_in_both_modes() {
    let big = "x".repeat(2 * 1024 * 1024);
    let sb = Sandbox::new();
    let local = check_fail(
        with_stdin(sb.journal(&["new", "--title", "Big"]), &big),
        USAGE,
    );
    let s = Served::start();
    s.register(s.journal(&[]), "big@example.com");
    let remote = check_fail(
        with_stdin(s.journal(&["new", "--title", "Big"]), &big),
        USAGE,
    );
    assert_eq!(local, remote);
    // The length too (issue 35), so the writer knows how much to cut.
    assert!(
        local.contains("content: must be at most 100000 characters (this is 2097152)"),
        "{local}"
    );
    // Changing an entry beyond the limit, too (as an argument: under the kernel's
    // 128 KiB limit on one argument).
    let over = "x".repeat(120_000);
    let id = s.ok(&["new", "small"]).trim().to_owned();
    let err = fail(s.journal(&["edit", &id, "--content", &over]), USAGE);
    assert!(
        err.contains("content: must be at most 100000 characters (this is 120000)"),
        "{err}"
    );
}

// ----- 9. output details ----------------------------------------------------------------

#[test]
fn counts_have_the_right_plural() {
    let sb = Sandbox::new();
    let one = sb.path("one.json");
    std::fs::write(
        &one,
        r#"[{"title":"Only","content":"x","createdAt":"2024-01-01T00:00:00Z"}]"#,
    )
    .unwrap();
    let out = sb.ok(&["import", one.to_str().unwrap()]);
    assert!(out.contains("imported 1 entry from"), "{out}");
    let to = format!("sqlite:{}", sb.path("copy.db").display());
    let from = format!("sqlite:{}", sb.database.display());
    let out = sb.ok(&["admin", "migrate", "--from", &from, "--to", &to]);
    assert!(
        out.contains("copied 1 user, 1 entry with 1 revision and 0 token revocations"),
        "{out}"
    );
}

#[test]
fn quiet_list_has_no_footer() {
    let sb = Sandbox::new();
    for i in 0..3 {
        new_entry(&sb, &[&format!("Entry {i}")]);
    }
    let out = sb.ok(&["-q", "list", "--limit", "2"]);
    assert!(out.contains("Entry 2"), "{out}");
    assert!(!out.contains("page 1 of"), "{out}");
    assert!(
        sb.ok(&["list", "--limit", "2"])
            .contains("page 1 of 2, 3 entries")
    );
}

/// The keys of the first JSON object in `text` that has `_id`, in the order printed.
fn entry_keys(text: &str) -> Vec<String> {
    let start = text.find("\"_id\"").expect("an entry");
    let object = &text[start..text[start..].find('}').map(|i| start + i).unwrap()];
    object
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"'))
        .filter_map(|l| l.split_once("\":").map(|(k, _)| k.to_owned()))
        .collect()
}

#[test]
fn list_json_keeps_the_api_field_order() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--title", "Ordered", "text"]);
    let show = entry_keys(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(
        show,
        [
            "_id",
            "title",
            "content",
            "isPublic",
            "tags",
            "starred",
            "date",
            "author_id",
            "author_name",
            "createdAt",
            "updatedAt",
            "revision",
            "revisionId",
            "attachments"
        ]
    );
    // Lists leave the attachments to `show` and `journal attachments`.
    let listed = &show[..show.len() - 1];
    assert_eq!(entry_keys(&sb.ok(&["list", "--json"])), listed);
    assert_eq!(entry_keys(&sb.ok(&["list", "--all", "--json"])), listed);
}

#[test]
fn answering_no_to_rm_is_not_an_error() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["keep me"]);
    let Some(out) = on_terminal(&sb.journal(&["rm", &id]), "n\n") else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("not deleted"), "{text}");
    assert!(!text.contains("error"), "{text}");
    sb.ok(&["show", &id]);
}

#[test]
fn new_help_pipes_with_printf() {
    let sb = Sandbox::new();
    let help = succeed(sb.bare(&["new", "--help"]));
    assert!(
        help.contains("printf 'Title line\\n\\nbody\\n' | journal new"),
        "{help}"
    );
    assert!(!help.contains("echo \"Title line"), "{help}");
}

// ----- 10. finding things ---------------------------------------------------------------

#[test]
fn an_id_prefix_of_eight_characters_or_more_names_an_entry() {
    let sb = Sandbox::new();
    let a = new_entry(&sb, &["--title", "First", "one"]);
    let b = new_entry(&sb, &["--title", "Second", "two"]);
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    // Entries written a moment apart share the start of their ids (time-ordered).
    if common >= 8 {
        let err = fail(sb.journal(&["show", &a[..common]]), USAGE);
        assert!(err.contains(&a) && err.contains(&b), "candidates: {err}");
    }
    let unique = &a[..(common + 1).max(8)];
    let shown = json(&sb.ok(&["show", unique, "--json"]));
    assert_eq!(shown["_id"], a.as_str());
    sb.ok(&["edit", unique, "--title", "First, renamed"]);
    assert_eq!(
        json(&sb.ok(&["show", &a, "--json"]))["title"],
        "First, renamed"
    );
    // Too short to be a prefix.
    fail(sb.journal(&["show", &a[..7]]), NOT_FOUND);
    // Tables show short ids: the end of the id (see short_ids.rs).
    let table = sb.ok(&["list"]);
    assert!(
        !table.contains(&a) && table.contains(&a[a.len() - 6..]),
        "{table}"
    );
    sb.ok(&["rm", unique, "--yes"]);
    fail(sb.journal(&["show", &a]), NOT_FOUND);
}

#[test]
fn public_shows_the_author_and_list_user_takes_a_nickname() {
    let s = Served::start();
    s.register(s.journal(&[]), "ada@example.com");
    s.ok(&["new", "--public", "--title", "Hello from Ada", "text"]);
    let feed = s.ok(&["public"]);
    let header = feed.lines().next().unwrap();
    assert!(header.contains("AUTHOR"), "{feed}");
    assert!(feed.contains("ada"), "{feed}");

    let other = s.sb.path("bea.json");
    s.register(s.as_user(&other, &[]), "bea@example.com");
    let listed = json(&succeed(
        s.as_user(&other, &["list", "--user", "ada", "--json"]),
    ));
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["entries"][0]["title"], "Hello from Ada");
    let ada_id = json(&s.ok(&["profile", "--json"]))["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_prefix = json(&succeed(
        s.as_user(&other, &["list", "--user", &ada_id[..13], "--json"]),
    ));
    assert_eq!(by_prefix["total"], 1);
    fail(s.as_user(&other, &["list", "--user", "nobody"]), NOT_FOUND);
}

// ----- 11. register checks each answer --------------------------------------------------

#[test]
fn register_refuses_a_bad_password_as_soon_as_it_is_typed() {
    let s = Served::start();
    let typed =
        "ada@example.com\nAda Lovelace\nshort\ncorrect horse battery\ncorrect horse battery\n";
    let Some(out) = on_terminal(&s.journal(&["register"]), typed) else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("must be at least 8 characters; try again"),
        "{text}"
    );
    assert_eq!(
        json(&s.ok(&["profile", "--json"]))["email"],
        "ada@example.com"
    );
    // A flag is checked before anything is asked.
    let err = fail(
        s.journal(&["register", "--email", "not an address", "--password-stdin"]),
        USAGE,
    );
    assert!(err.contains("--email"), "{err}");
}

// ----- 12. no account created unasked ---------------------------------------------------

#[test]
fn a_database_with_accounts_gets_no_new_owner_unasked() {
    let sb = Sandbox::new();
    // Someone's journal (here a local one, owner tester@localhost).
    let theirs = new_entry(&sb, &["--public", "Their words"]);
    // Another user points the CLI at it.
    let ada_config = sb.path("ada.json");
    let as_ada = |args: &[&str]| {
        let mut cmd = sb.bare_with(&ada_config, args);
        cmd.arg("--database").arg(&sb.database).env("USER", "ada");
        cmd
    };
    let err = fail(as_ada(&["new", "--public", "Mine"]), USAGE);
    assert!(
        err.contains("already has accounts") && err.contains("--as EMAIL"),
        "{err}"
    );
    let feed = json(&sb.ok(&["public", "--json"]));
    assert_eq!(feed["total"], 1, "nothing written: {feed}");
    // Acting as an account is explicit.
    let shown = json(&succeed(as_ada(&[
        "--as",
        "tester@localhost",
        "show",
        &theirs,
        "--json",
    ])));
    assert_eq!(shown["title"], "Their words");
    // And so is creating a new one.
    succeed(as_ada(&["--as", "ada@localhost", "new", "Mine"]));
    let profile = json(&succeed(as_ada(&["profile", "--json"])));
    assert_eq!(profile["email"], "ada@localhost", "remembered");
    // --as makes no sense on a server.
    let mut cmd = sb.bare(&["--as", "x@example.com", "list"]);
    cmd.arg("--server").arg(dead_server());
    fail(cmd, USAGE);
}
