//! `journal sync` end to end: the real binary on local journals, against a real
//! server on SQLite and on PostgreSQL. Write offline on the laptop, sync, edit "on the
//! web" (the CLI with --server, over the same HTTP the web app uses), sync back; two
//! laptops; edits on both sides merged or kept side by side; an edit outliving a
//! delete; the guard before mass deletions; and syncs killed midway.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::*;

const PASSWORD: &str = "correct horse battery\n";

/// A server, its account "on the web" (a config file logged in to it), and laptops
/// (local journal files) that sync with it.
struct World {
    sb: Sandbox,
    server: journal_tests::TestServer,
}

impl World {
    fn on(database_url: &str) -> World {
        World::with(database_url, &[])
    }

    /// [`World::on`] with these server options.
    fn with(database_url: &str, server_args: &[&str]) -> World {
        let sb = Sandbox::new();
        let server = journal_tests::TestServer::start(database_url, server_args);
        let world = World { sb, server };
        let mut register = world.web(&[]);
        register.args([
            "register",
            "--full-name",
            "Ada Lovelace",
            "--email",
            "ada@example.com",
            "--password-stdin",
        ]);
        check_ok(with_stdin(register, PASSWORD));
        world
    }

    /// `journal --server URL ARGS…`, as the account on the web.
    fn web(&self, args: &[&str]) -> Command {
        let mut cmd = self.sb.bare(args);
        cmd.arg("--server").arg(&self.server.base_url);
        cmd
    }

    fn web_ok(&self, args: &[&str]) -> String {
        succeed(self.web(args))
    }

    fn laptop(&self, name: &str) -> PathBuf {
        self.sb.path(&format!("{name}.db"))
    }

    /// `journal --database LAPTOP ARGS…`
    fn on_laptop(&self, laptop: &PathBuf, args: &[&str]) -> Command {
        let mut cmd = self
            .sb
            .bare_with(&self.sb.path(&format!("{}.json", laptop.display())), args);
        cmd.arg("--database").arg(laptop);
        cmd
    }

    fn laptop_ok(&self, laptop: &PathBuf, args: &[&str]) -> String {
        succeed(self.on_laptop(laptop, args))
    }

    /// Links `laptop` with the password, and syncs: what it printed.
    fn link(&self, laptop: &PathBuf) -> String {
        let cmd = self.on_laptop(
            laptop,
            &[
                "sync",
                "--remote",
                &self.server.base_url,
                "--email",
                "ada@example.com",
                "--password-stdin",
            ],
        );
        check_ok(with_stdin(cmd, PASSWORD))
    }

    fn titles(&self, list: &str) -> Vec<String> {
        let mut titles: Vec<String> = json(list)["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["title"].as_str().unwrap().to_owned())
            .collect();
        titles.sort();
        titles
    }

    fn laptop_titles(&self, laptop: &PathBuf) -> Vec<String> {
        self.titles(&self.laptop_ok(laptop, &["list", "--all", "--json"]))
    }

    fn web_titles(&self) -> Vec<String> {
        self.titles(&self.web_ok(&["list", "--all", "--json"]))
    }
}

fn sqlite_url(sb_dir: &std::path::Path) -> String {
    format!("sqlite:{}", sb_dir.join("server.db").display())
}

#[test]
fn write_offline_sync_edit_on_the_web_and_sync_back_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    walk_through(&sqlite_url(dir.path()));
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
fn write_offline_sync_edit_on_the_web_and_sync_back_on_postgres() {
    walk_through(&journal_tests::postgres_url());
}

fn walk_through(database_url: &str) {
    let w = World::on(database_url);
    let laptop = w.laptop("laptop");
    // Written offline, before any link.
    let id = w
        .laptop_ok(
            &laptop,
            &[
                "new",
                "--title",
                "On the train",
                "line one\nline two\nline three",
            ],
        )
        .trim()
        .to_owned();
    let said = w.link(&laptop);
    assert!(
        said.contains("1 sent, 0 received, 0 merged, 0 conflicts"),
        "{said}"
    );
    // The credential: an access token made for this machine, in a file only its owner
    // reads.
    let token_file = PathBuf::from(format!("{}.sync-token", laptop.display()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let tokens = w.web_ok(&["token", "list"]);
    assert!(tokens.contains("journal sync on"), "{tokens}");
    let on_web = json(&w.web_ok(&["show", &id, "--json"]));
    assert_eq!(on_web["title"], "On the train", "same id everywhere");

    // Edited on the web; synced back.
    w.web_ok(&[
        "edit",
        &id,
        "--content",
        "line one\nline two, from the web\nline three",
    ]);
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("0 sent, 1 received"), "{said}");
    let here = json(&w.laptop_ok(&laptop, &["show", &id, "--json"]));
    assert_eq!(
        here["content"],
        "line one\nline two, from the web\nline three"
    );

    // Both sides edit, different lines: merged, and alike after one sync.
    w.web_ok(&[
        "edit",
        &id,
        "--content",
        "line one, web\nline two, from the web\nline three",
    ]);
    w.laptop_ok(
        &laptop,
        &[
            "edit",
            &id,
            "--content",
            "line one\nline two, from the web\nline three, laptop",
        ],
    );
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("1 merged"), "{said}");
    let merged = "line one, web\nline two, from the web\nline three, laptop";
    assert_eq!(json(&w.web_ok(&["show", &id, "--json"]))["content"], merged);
    assert_eq!(
        json(&w.laptop_ok(&laptop, &["show", &id, "--json"]))["content"],
        merged
    );
    let status = w.laptop_ok(&laptop, &["sync", "--status"]);
    assert!(status.contains("0 local changes waiting"), "{status}");
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(
        said.contains("0 sent, 0 received, 0 merged, 0 conflicts"),
        "{said}"
    );

    // The same line on both sides: the server's text stays, the laptop's is in the
    // history, and the sync says so.
    w.web_ok(&["edit", &id, "--content", "line one, the web's"]);
    w.laptop_ok(
        &laptop,
        &["edit", &id, "--content", "line one, the laptop's"],
    );
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(
        said.contains("1 conflicts") && said.contains(&format!("conflict {id}")),
        "{said}"
    );
    assert_eq!(
        json(&w.web_ok(&["show", &id, "--json"]))["content"],
        "line one, the web's"
    );
    let history = w.web_ok(&["history", &id, "--json"]);
    assert!(
        history.contains("line one, the laptop's"),
        "kept in the history: {history}"
    );
    assert_eq!(
        json(&w.laptop_ok(&laptop, &["show", &id, "--json"]))["content"],
        "line one, the web's",
        "both sides alike"
    );

    // The conflict is listed on the laptop (held by the server) and on the web; taking
    // the laptop's text settles it there, and the next sync brings it back.
    let listed = json(&w.laptop_ok(&laptop, &["conflicts", "--json"]));
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["conflicts"][0]["entryId"], id.as_str());
    assert_eq!(listed["conflicts"][0]["held"], "server");
    let on_web = json(&w.web_ok(&["conflicts", "--json"]));
    assert_eq!(on_web["conflicts"][0]["held"], "here", "{on_web}");
    let refused = w.on_laptop(&laptop, &["resolve", &id, "--keep", "mine"]);
    assert!(fail(refused, 2).contains("--keep takes current, other"));
    let said = w.laptop_ok(&laptop, &["resolve", &id, "--keep", "other"]);
    assert!(said.contains("on the server"), "{said}");
    w.laptop_ok(&laptop, &["sync"]);
    assert_eq!(
        json(&w.laptop_ok(&laptop, &["show", &id, "--json"]))["content"],
        "line one, the laptop's"
    );
    assert_eq!(
        json(&w.laptop_ok(&laptop, &["conflicts", "--json"]))["total"],
        0
    );
    let again = w.on_laptop(&laptop, &["resolve", &id, "--keep", "current"]);
    assert!(fail(again, 3).contains("has no conflict"));

    // Deleted on the web, edited on the laptop: the edit wins, the entry comes back.
    w.web_ok(&["rm", "--yes", &id]);
    w.laptop_ok(&laptop, &["edit", &id, "--title", "Kept"]);
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains(&format!("kept {id}")), "{said}");
    assert_eq!(json(&w.web_ok(&["show", &id, "--json"]))["title"], "Kept");
}

#[test]
fn two_laptops_stay_alike_and_deletions_travel() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::on(&sqlite_url(dir.path()));
    let first = w.laptop("first");
    let second = w.laptop("second");
    w.laptop_ok(&first, &["new", "--title", "From the first", "one"]);
    w.link(&first);
    // The second links with an access token from the environment.
    let token = std::fs::read_to_string(format!("{}.sync-token", first.display())).unwrap();
    w.laptop_ok(&second, &["new", "--title", "From the second", "two"]);
    let mut cmd = w.on_laptop(&second, &["sync", "--remote", &w.server.base_url]);
    cmd.env("JOURNAL_TOKEN", token.trim());
    let said = succeed(cmd);
    assert!(said.contains("1 sent, 1 received"), "{said}");
    w.laptop_ok(&first, &["sync"]);
    let all = vec!["From the first".to_owned(), "From the second".to_owned()];
    assert_eq!(w.laptop_titles(&first), all);
    assert_eq!(w.laptop_titles(&second), all);
    assert_eq!(w.web_titles(), all);

    // Deleted on the second: in the trash on the server and on the first.
    let gone = json(&w.laptop_ok(&second, &["list", "--all", "--json"]))["entries"][0]["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    w.laptop_ok(&second, &["rm", "--yes", &gone]);
    w.laptop_ok(&second, &["sync"]);
    w.laptop_ok(&first, &["sync"]);
    assert_eq!(w.laptop_titles(&first).len(), 1);
    assert_eq!(w.web_titles().len(), 1);
    let trash = w.laptop_ok(&first, &["trash"]);
    assert!(trash.contains(&gone[gone.len() - 6..]), "{trash}");

    // A journal linked to one account never syncs into another.
    let bob = w.sb.path("bob.json");
    let mut register = w.sb.bare_with(&bob, &[]);
    register.arg("--server").arg(&w.server.base_url).args([
        "register",
        "--full-name",
        "Bob",
        "--email",
        "bob@example.com",
        "--password-stdin",
    ]);
    check_ok(with_stdin(register, PASSWORD));
    let cmd = w.on_laptop(
        &first,
        &["sync", "--email", "bob@example.com", "--password-stdin"],
    );
    let refused = check_fail(with_stdin(cmd, PASSWORD), NOT_FOUND);
    assert!(refused.contains("another account"), "{refused}");
    // The link's own credential still works.
    w.laptop_ok(&first, &["sync"]);

    // --unlink forgets the link and its credential; the entries stay.
    let said = w.laptop_ok(&first, &["sync", "--unlink"]);
    assert!(said.contains("unlinked"), "{said}");
    assert!(!PathBuf::from(format!("{}.sync-token", first.display())).exists());
    assert_eq!(w.laptop_titles(&first).len(), 1);
    let status = w.laptop_ok(&first, &["sync", "--status"]);
    assert!(status.contains("not linked"), "{status}");
}

#[test]
fn a_sync_that_would_delete_many_entries_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::on(&sqlite_url(dir.path()));
    let laptop = w.laptop("laptop");
    let mut ids = Vec::new();
    for n in 0..10 {
        ids.push(
            w.laptop_ok(&laptop, &["new", "--title", &format!("Entry {n}"), "text"])
                .trim()
                .to_owned(),
        );
    }
    w.link(&laptop);
    for id in &ids[..6] {
        w.web_ok(&["rm", "--yes", id]);
    }
    let refused = fail(w.on_laptop(&laptop, &["sync"]), 1);
    assert!(
        refused.contains("stopped before deleting 6 entries"),
        "{refused}"
    );
    assert_eq!(w.laptop_titles(&laptop).len(), 10, "nothing deleted");
    // Asked again next time, until told to go on.
    fail(w.on_laptop(&laptop, &["sync"]), 1);
    let said = w.laptop_ok(&laptop, &["sync", "--yes"]);
    assert!(said.contains("6 received"), "{said}");
    assert_eq!(w.laptop_titles(&laptop).len(), 4);

    // The other way: six of ten deleted on the laptop ask before they reach the server.
    let mut more = Vec::new();
    for n in 10..16 {
        more.push(
            w.laptop_ok(&laptop, &["new", "--title", &format!("Entry {n}"), "text"])
                .trim()
                .to_owned(),
        );
    }
    w.laptop_ok(&laptop, &["sync"]);
    assert_eq!(w.web_titles().len(), 10);
    for id in &more {
        w.laptop_ok(&laptop, &["rm", "--yes", id]);
    }
    let refused = fail(w.on_laptop(&laptop, &["sync"]), 1);
    assert!(
        refused.contains("stopped before deleting 6 entries on"),
        "{refused}"
    );
    assert_eq!(w.web_titles().len(), 10, "nothing deleted on the server");
    let said = w.laptop_ok(&laptop, &["sync", "--yes"]);
    assert!(said.contains("6 sent"), "{said}");
    assert_eq!(w.web_titles().len(), 4);
}

#[test]
fn a_sync_killed_at_any_point_is_finished_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::on(&sqlite_url(dir.path()));
    let laptop = w.laptop("laptop");
    w.laptop_ok(&laptop, &["new", "--title", "First", "before the link"]);
    w.link(&laptop);
    // Enough entries for several pushes, each a page of the local feed.
    let file = w.sb.path("many.json");
    let entries: Vec<serde_json::Value> = (0..450)
        .map(|n| serde_json::json!({ "title": format!("Imported {n}"), "content": "x".repeat(2_000), "createdAt": "2026-01-01T00:00:00Z" }))
        .collect();
    std::fs::write(&file, serde_json::json!({ "entries": entries }).to_string()).unwrap();
    w.laptop_ok(&laptop, &["import", file.to_str().unwrap()]);
    // Killed (SIGKILL) at growing delays, then left to finish.
    for delay in [20, 60, 150, 300, 600] {
        let mut child = w.on_laptop(&laptop, &["sync"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
    }
    w.laptop_ok(&laptop, &["sync"]);
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("0 sent, 0 received"), "{said}");
    let on_web = w.web_titles();
    assert_eq!(on_web.len(), 451, "every entry once");
    assert_eq!(on_web, w.laptop_titles(&laptop));

    // The server down: the sync fails and says so; what waits to be sent still waits.
    w.laptop_ok(
        &laptop,
        &["new", "--title", "While the server was down", "..."],
    );
    let World { sb, server } = w;
    drop(server);
    let config = sb.path(&format!("{}.json", laptop.display()));
    let mut cmd = sb.bare_with(&config, &["sync"]);
    cmd.arg("--database").arg(&laptop);
    fail(cmd, CONNECTION);
    let mut status = sb.bare_with(&config, &["sync", "--status"]);
    status.arg("--database").arg(&laptop);
    let status = succeed(status);
    assert!(status.contains("1 local change waiting"), "{status}");
}

#[test]
fn sync_auto_sends_each_change_and_a_server_gone_only_delays_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::on(&sqlite_url(dir.path()));
    let laptop = w.laptop("laptop");
    w.link(&laptop);
    // Off by default: a change waits for journal sync.
    let out = run(w.on_laptop(&laptop, &["new", "--title", "Waits", "text"]));
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    assert!(w.web_titles().is_empty());

    w.laptop_ok(&laptop, &["config", "set", "sync.auto", "true"]);
    let config = json(&w.laptop_ok(&laptop, &["config", "show", "--json"]));
    assert_eq!(config["sync.auto"], true);
    let out = run(w.on_laptop(&laptop, &["new", "--title", "Sent at once", "text"]));
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let id = check_ok(out);
    assert!(
        said.contains("synced with") && said.contains("2 sent"),
        "{said}"
    );
    assert_eq!(w.web_titles(), vec!["Sent at once", "Waits"]);

    // A change on the web arrives with the next change here.
    w.web_ok(&["new", "--title", "From the web", "text"]);
    w.laptop_ok(&laptop, &["star", id.trim()]);
    assert_eq!(
        w.laptop_titles(&laptop),
        vec!["From the web", "Sent at once", "Waits"]
    );
    assert_eq!(
        json(&w.web_ok(&["show", id.trim(), "--json"]))["starred"],
        true
    );

    // The server gone: the change is made here, the command succeeds and says the
    // sync waits; the journal counts it as waiting.
    let killed = Command::new("kill")
        .args(["-9", &w.server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = run(w.on_laptop(&laptop, &["new", "--title", "Offline", "text"]));
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("journal sync sends it later"), "{said}");
    assert_eq!(said.trim_end().lines().count(), 1, "{said}");
    let status = w.laptop_ok(&laptop, &["sync", "--status"]);
    assert!(status.contains("1 local change waiting"), "{status}");
    let refused = fail(
        w.on_laptop(&laptop, &["config", "set", "sync.auto", "maybe"]),
        2,
    );
    assert!(refused.contains("sync.auto is true or false"), "{refused}");
}

#[test]
fn a_laptop_past_the_sync_lease_starts_over_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::with(
        &sqlite_url(dir.path()),
        &["--sync-lease", "0", "--housekeeping-every", "200ms"],
    );
    let laptop = w.laptop("laptop");
    w.laptop_ok(&laptop, &["new", "--title", "Kept", "text"]);
    let gone = w
        .laptop_ok(&laptop, &["new", "--title", "Purged on the web", "text"])
        .trim()
        .to_owned();
    w.link(&laptop);
    // Purged on the web, and the purge forgotten at once (a lease of 0 days): the
    // laptop's cursor is older than what the server remembers.
    w.web_ok(&["rm", "--yes", &gone]);
    w.web_ok(&["purge", "--yes", &gone]);
    w.laptop_ok(&laptop, &["new", "--title", "Written meanwhile", "text"]);
    std::thread::sleep(Duration::from_millis(1_000));
    // The laptop starts over as a first sync: what it holds goes back, nothing is lost.
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("sent"), "{said}");
    assert_eq!(
        w.web_titles(),
        vec!["Kept", "Purged on the web", "Written meanwhile"]
    );
    assert_eq!(w.laptop_titles(&laptop), w.web_titles());
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("0 sent, 0 received"), "{said}");
}

#[test]
fn photos_travel_by_sync_each_file_once_and_deletions_follow_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    files_travel(&sqlite_url(dir.path()), &[]);
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
fn photos_travel_by_sync_each_file_once_and_deletions_follow_on_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    files_travel(
        &journal_tests::postgres_url(),
        &["--attachments-dir", files.to_str().unwrap()],
    );
}

/// A laptop's photo reaches the server and the other laptop under its id, bytes
/// intact; a file attached on the web comes down; a detach travels; and the same
/// bytes attached again are not sent again.
fn files_travel(database_url: &str, server_args: &[&str]) {
    let w = World::with(database_url, server_args);
    let laptop = w.laptop("laptop");
    let photo = w.sb.path("harbour.png");
    std::fs::write(&photo, crate::attachments::png()).unwrap();
    let entry = w
        .laptop_ok(&laptop, &["new", "--title", "Harbour", "Boats at dawn."])
        .trim()
        .to_owned();
    w.laptop_ok(&laptop, &["attach", &entry, photo.to_str().unwrap()]);
    let here = listed_files(&w.laptop_ok(&laptop, &["attachments", &entry, "--json"]));
    assert_eq!(here.len(), 1);
    w.link(&laptop);
    let there = listed_files(&w.web_ok(&["attachments", &entry, "--json"]));
    assert_eq!(
        there, here,
        "the server has the photo under the laptop's id"
    );
    let fetched = w.sb.path("fetched.png");
    w.web_ok(&["get", &there[0].0, "-o", fetched.to_str().unwrap()]);
    assert_eq!(std::fs::read(&fetched).unwrap(), crate::attachments::png());

    // A note attached on the web comes down with the next sync.
    let note = w.sb.path("note.txt");
    std::fs::write(&note, "the tide tables for Thursday\n").unwrap();
    w.web_ok(&["attach", &entry, note.to_str().unwrap()]);
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("1 received"), "{said}");
    let here = listed_files(&w.laptop_ok(&laptop, &["attachments", &entry, "--json"]));
    let there = listed_files(&w.web_ok(&["attachments", &entry, "--json"]));
    assert_eq!(here.len(), 2);
    assert_eq!(here, there);
    let note_id = &here.iter().find(|(_, name)| name == "note.txt").unwrap().0;
    let fetched = w.sb.path("fetched.txt");
    w.laptop_ok(&laptop, &["get", note_id, "-o", fetched.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(&fetched).unwrap(),
        "the tide tables for Thursday\n"
    );

    // A second laptop gets both; detaching the photo there reaches the others.
    let token = std::fs::read_to_string(format!("{}.sync-token", laptop.display())).unwrap();
    let second = w.laptop("second");
    let mut cmd = w.on_laptop(&second, &["sync", "--remote", &w.server.base_url]);
    cmd.env("JOURNAL_TOKEN", token.trim());
    succeed(cmd);
    assert_eq!(
        listed_files(&w.laptop_ok(&second, &["attachments", &entry, "--json"])),
        here
    );
    let photo_id = &here
        .iter()
        .find(|(_, name)| name == "harbour.png")
        .unwrap()
        .0;
    w.laptop_ok(&second, &["detach", photo_id, "--yes"]);
    w.laptop_ok(&second, &["sync"]);
    w.laptop_ok(&laptop, &["sync"]);
    for files in [
        w.web_ok(&["attachments", &entry, "--json"]),
        w.laptop_ok(&laptop, &["attachments", &entry, "--json"]),
    ] {
        let names: Vec<String> = listed_files(&files).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["note.txt"], "the detach travelled");
    }
    // Nothing left to exchange.
    let said = w.laptop_ok(&laptop, &["sync"]);
    assert!(said.contains("0 sent, 0 received"), "{said}");
}

/// `(id, name)` of each attachment `journal attachments --json` listed, by id.
fn listed_files(listed: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = json(listed)
        .as_array()
        .expect("a list")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_owned(),
                a["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Sync is a path the journal takes in and out: a journal with history and a trash,
/// synced to an empty account and down to a second laptop, exports as it was, on the
/// laptop, on the server and on the second laptop.
#[test]
fn a_journal_synced_through_the_server_exports_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::on(&sqlite_url(dir.path()));
    let source = crate::round_trip::with_history();
    let first = source.path("journal.json");
    source.ok(&[
        "export",
        "--format",
        "json",
        "--output",
        first.to_str().unwrap(),
    ]);
    let laptop = w.laptop("laptop");
    w.laptop_ok(&laptop, &["import", first.to_str().unwrap()]);
    w.link(&laptop);
    let token = std::fs::read_to_string(format!("{}.sync-token", laptop.display())).unwrap();
    let second = w.laptop("second");
    let mut cmd = w.on_laptop(&second, &["sync", "--remote", &w.server.base_url]);
    cmd.env("JOURNAL_TOKEN", token.trim());
    succeed(cmd);
    let expected = nameless(crate::round_trip::document(&first));
    for (place, export) in [
        ("the laptop", w.on_laptop(&laptop, &[])),
        ("the server", w.web(&[])),
        ("the second laptop", w.on_laptop(&second, &[])),
    ] {
        let out = w.sb.path(&format!("{}.json", place.replace(' ', "-")));
        let mut export = export;
        export.args([
            "export",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
        ]);
        succeed(export);
        assert_eq!(
            nameless(crate::round_trip::document(&out)),
            expected,
            "{place} exports what was synced"
        );
    }
}

/// An export's document without its author's name: each journal's owner has their own.
fn nameless(mut doc: serde_json::Value) -> serde_json::Value {
    for list in ["entries", "trash"] {
        for e in doc[list].as_array_mut().into_iter().flatten() {
            e.as_object_mut().unwrap().remove("author_name");
        }
    }
    doc
}
