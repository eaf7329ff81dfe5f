//! History, the trash, and edits that never overwrite each other (issue 36), through the
//! real `journal` binary: each scenario runs on a local database and against a real
//! journal-server.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::*;

/// The local mode and the remote mode (a fresh server with one logged-in user), each
/// handed to `scenario` as the way to run `journal ARGS…` and its sandbox.
fn in_both_modes(scenario: impl Fn(&dyn Fn(&[&str]) -> Command, &Sandbox)) {
    let sb = Sandbox::new();
    scenario(&|args| sb.journal(args), &sb);
    let s = Served::start();
    s.register(s.journal(&[]), "history@example.com");
    scenario(&|args| s.journal(args), &s.sb);
}

fn ok(run: &dyn Fn(&[&str]) -> Command, args: &[&str]) -> String {
    succeed(run(args))
}

/// An entry with three revisions: created, its text changed, then its title, tags and
/// visibility changed.
fn three_revisions(run: &dyn Fn(&[&str]) -> Command) -> String {
    let id = ok(run, &["new", "--title", "Walk", "the cat sat on the mat"])
        .trim()
        .to_owned();
    ok(
        run,
        &["edit", &id, "--content", "the dog sat on a mat today"],
    );
    ok(run, &["edit", &id, "--title", "Walk, later", "--public"]);
    ok(run, &["tag", &id, "+lake"]);
    id
}

#[test]
fn history_lists_revisions_newest_first_with_what_each_changed() {
    in_both_modes(|run, _| {
        let id = three_revisions(run);
        let table = ok(run, &["history", &id[id.len() - 6..]]);
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert_eq!(rows.len(), 4, "{table}");
        let numbers: Vec<&str> = rows
            .iter()
            .map(|r| r.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(numbers, ["4", "3", "2", "1"], "{table}");
        assert!(rows[0].ends_with("tags +lake"), "{table}");
        assert!(rows[1].contains("title \"Walk, later\", public"), "{table}");
        assert!(rows[2].ends_with("+3 −2 words"), "{table}");
        assert!(rows[3].ends_with("created, 6 words"), "{table}");

        let listed = json(&ok(run, &["history", &id, "--json", "--limit", "2"]));
        assert_eq!(listed["total"], 4);
        assert_eq!(listed["pages"], 2);
        let page = listed["revisions"].as_array().unwrap();
        assert_eq!(page.len(), 2);
        assert_eq!(page[1]["revision"], 3);
        assert_eq!(page[1]["content"], "the dog sat on a mat today");
        // The last of a page is summed up against the first of the next one.
        let second = json(&ok(
            run,
            &["history", &id, "--json", "--limit", "2", "--page", "2"],
        ));
        assert_eq!(second["revisions"][0]["summary"], "+3 −2 words");
    });
}

#[test]
fn show_revision_prints_the_entry_as_it_was() {
    in_both_modes(|run, _| {
        let id = three_revisions(run);
        let first = ok(run, &["show", &id, "--revision", "1"]);
        assert!(first.starts_with("revision 1 of 4, edited "), "{first}");
        assert!(first.contains("\nWalk\n"), "{first}");
        assert!(first.contains("visible:  private"), "{first}");
        assert!(first.contains("the cat sat on the mat"), "{first}");
        let json_rev = json(&ok(run, &["show", &id, "-r", "2", "--json"]));
        assert_eq!(json_rev["revision"], 2);
        assert_eq!(json_rev["title"], "Walk");
        assert_eq!(json_rev["content"], "the dog sat on a mat today");
        // The entry itself is as it is now.
        let now = json(&ok(run, &["show", &id, "--json"]));
        assert_eq!(now["title"], "Walk, later");
        assert_eq!(now["revision"], 4);
        let err = fail(run(&["show", &id, "--revision", "9"]), NOT_FOUND);
        assert!(err.contains("has no revision 9"), "{err}");
    });
}

#[test]
fn diff_marks_removed_and_added_words_between_any_two_revisions() {
    in_both_modes(|run, _| {
        let id = three_revisions(run);
        // Revision 1 against the current one.
        let out = ok(run, &["diff", &id, "1"]);
        assert!(out.starts_with("revision 1 ("), "{out}");
        assert!(out.contains("→ revision 4 ("), "{out}");
        assert!(
            out.contains("the [-cat-]{+dog+} sat on [-the-]{+a+} mat{+ today+}"),
            "{out}"
        );
        assert!(out.contains("public\n"), "{out}");
        assert!(out.contains("tags +lake\n"), "{out}");
        // Two named revisions.
        let out = ok(run, &["diff", &id, "2", "3"]);
        assert!(out.contains("[-Walk-]{+Walk, later+}"), "{out}");
        assert!(!out.contains("[-cat-]"), "the text did not change: {out}");
        // No revision named: the last change only.
        let out = ok(run, &["diff", &id]);
        assert!(out.starts_with("revision 3 ("), "{out}");
        assert!(out.contains("tags +lake"), "{out}");
        assert!(!out.contains("{+"), "{out}");
        // The API's shape with --json.
        let d = json(&ok(run, &["diff", &id, "1", "2", "--json"]));
        assert_eq!((d["from"].as_u64(), d["to"].as_u64()), (Some(1), Some(2)));
        let removed: Vec<&str> = d["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["op"] == "removed")
            .map(|c| c["text"].as_str().unwrap())
            .collect();
        assert_eq!(removed, ["cat", "the"]);
        fail(run(&["diff", &id, "1", "7"]), NOT_FOUND);
    });
}

#[test]
fn diff_is_coloured_on_a_terminal_only() {
    let sb = Sandbox::new();
    let id = three_revisions(&|args| sb.journal(args));
    let piped = sb.ok(&["diff", &id, "1", "2"]);
    assert!(!piped.contains('\x1b'), "{piped:?}");
    let Some(out) = on_terminal(&sb.journal(&["diff", &id, "1", "2"]), "") else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\x1b[31mcat\x1b[0m"), "{text:?}");
    assert!(text.contains("\x1b[32mdog\x1b[0m"), "{text:?}");
    assert!(!text.contains("[-cat-]"), "{text:?}");
    let mut no_color = sb.journal(&["diff", &id, "1", "2"]);
    no_color.env("NO_COLOR", "1");
    let out = on_terminal(&no_color, "").unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[-cat-]{+dog+}"), "{text:?}");
}

#[test]
fn restore_brings_back_an_old_state_as_a_new_revision() {
    in_both_modes(|run, _| {
        let id = three_revisions(run);
        let out = ok(run, &["restore", &id[id.len() - 6..], "1"]);
        assert!(
            out.contains("is as it was at revision 1, now as revision 5"),
            "{out}"
        );
        let now = json(&ok(run, &["show", &id, "--json"]));
        assert_eq!(now["title"], "Walk");
        assert_eq!(now["content"], "the cat sat on the mat");
        assert_eq!(now["isPublic"], false);
        assert_eq!(now["tags"], serde_json::json!([]));
        assert_eq!(now["revision"], 5);
        // Nothing in between is lost.
        let history = json(&ok(run, &["history", &id, "--json"]));
        assert_eq!(history["total"], 5);
        assert_eq!(
            history["revisions"][1]["content"],
            "the dog sat on a mat today"
        );
        fail(run(&["restore", &id, "8"]), NOT_FOUND);
    });
}

#[test]
fn rm_moves_to_the_trash_and_undelete_brings_it_back_whole() {
    in_both_modes(|run, _| {
        let id = three_revisions(run);
        ok(run, &["star", &id]);
        let out = ok(run, &["rm", &id, "--yes"]);
        assert!(out.contains("to the trash"), "{out}");
        assert!(out.contains(&format!("journal undelete {id}")), "{out}");
        assert_eq!(json(&ok(run, &["list", "--json"]))["total"], 0);
        fail(run(&["show", &id]), NOT_FOUND);

        let table = ok(run, &["trash"]);
        let short = &id[id.len() - 6..];
        assert!(table.lines().nth(1).unwrap().starts_with(short), "{table}");
        assert!(table.contains("Walk, later"), "{table}");
        let listed = json(&ok(run, &["trash", "--json"]));
        assert_eq!(listed["total"], 1);
        assert_eq!(listed["entries"][0]["_id"], id.as_str());
        assert!(listed["entries"][0]["deletedAt"].is_string(), "{listed}");

        // By its short id, as the trash shows it.
        let out = ok(run, &["undelete", short]);
        assert!(out.contains("back from the trash"), "{out}");
        let back = json(&ok(run, &["show", &id, "--json"]));
        assert_eq!(back["title"], "Walk, later");
        assert_eq!(back["tags"], serde_json::json!(["lake"]));
        assert_eq!(back["starred"], true);
        assert_eq!(back["isPublic"], true);
        assert_eq!(json(&ok(run, &["history", &id, "--json"]))["total"], 5);
        assert_eq!(json(&ok(run, &["trash", "--json"]))["total"], 0);
        let err = fail(run(&["undelete", &id]), NOT_FOUND);
        assert!(err.contains("not in your trash"), "{err}");
    });
}

#[test]
fn purge_asks_first_then_removes_an_entry_of_the_trash_for_good() {
    in_both_modes(|run, _| {
        let id = ok(run, &["new", "doomed"]).trim().to_owned();
        // Only what is in the trash can be purged.
        let err = fail(run(&["purge", &id, "--yes"]), NOT_FOUND);
        assert!(err.contains("not in your trash"), "{err}");
        ok(run, &["rm", &id, "--yes"]);
        let err = fail(run(&["purge", &id]), USAGE);
        assert!(err.contains("--yes"), "{err}");
        assert_eq!(json(&ok(run, &["trash", "--json"]))["total"], 1);
        let out = ok(run, &["purge", &id[id.len() - 6..], "--yes"]);
        assert!(out.contains("purged"), "{out}");
        assert_eq!(json(&ok(run, &["trash", "--json"]))["total"], 0);
        fail(run(&["undelete", &id]), NOT_FOUND);
        fail(run(&["show", &id]), NOT_FOUND);
    });
}

#[test]
fn answering_no_to_purge_keeps_the_entry_in_the_trash() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["keep me a while"]);
    sb.ok(&["rm", &id, "--yes"]);
    let Some(out) = on_terminal(&sb.journal(&["purge", &id]), "n\n") else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("for good? This cannot be undone."), "{text}");
    assert!(text.contains("not purged"), "{text}");
    assert_eq!(json(&sb.ok(&["trash", "--json"]))["total"], 1);
}

#[test]
fn the_local_journal_purges_trash_older_than_30_days_when_opened() {
    let sb = Sandbox::new();
    let old = new_entry(&sb, &["deleted long ago"]);
    let recent = new_entry(&sb, &["deleted yesterday"]);
    sb.ok(&["rm", &old, "--yes"]);
    sb.ok(&["rm", &recent, "--yes"]);
    let day_ms: i64 = 24 * 60 * 60 * 1000;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Back-date the deletions in the file, as if the journal had not been opened since.
    let sql = format!(
        "UPDATE trashed_entries SET deleted_at = {} WHERE id = '{old}';\
         UPDATE trashed_entries SET deleted_at = {} WHERE id = '{recent}';",
        now_ms - 31 * day_ms,
        now_ms - day_ms
    );
    let Ok(out) = Command::new("sqlite3").arg(&sb.database).arg(&sql).output() else {
        eprintln!("skipped: the sqlite3 command is not installed");
        return;
    };
    assert!(out.status.success(), "{out:?}");
    let trash = json(&sb.ok(&["trash", "--json"]));
    let ids: Vec<&str> = trash["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [recent.as_str()], "{trash}");
    fail(sb.journal(&["undelete", &old]), NOT_FOUND);
}

// ----- edits that never overwrite each other ---------------------------------------

/// `cmd` as one line for `sh`, every word quoted.
fn shell_line(cmd: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    std::iter::once(quote(cmd.get_program()))
        .chain(cmd.get_args().map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An editor for `journal edit` that, the first time it opens, has someone else change
/// the entry (`other`, run while the editor is open), then writes `mine` over the text
/// it was given; any later time it keeps a copy of what it opened and writes `then`
/// (or leaves the text as it is when `None`). Returns the script and the folder of the
/// copies (`opened-1.txt`, `opened-2.txt`…).
fn racing_editor(
    sb: &Sandbox,
    other: &Command,
    mine: &str,
    then: Option<&str>,
) -> (PathBuf, PathBuf) {
    let dir = sb.path("editor");
    std::fs::create_dir_all(&dir).unwrap();
    let (mine_file, then_file) = (dir.join("mine.txt"), dir.join("then.txt"));
    std::fs::write(&mine_file, mine).unwrap();
    let second = match then {
        Some(text) => {
            std::fs::write(&then_file, text).unwrap();
            format!("cat '{}' > \"$1\"", then_file.display())
        }
        None => ":".into(),
    };
    let script_path = dir.join("editor.sh");
    script(
        &script_path,
        &format!(
            r#"d='{dir}'
n=$(cat "$d/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$d/count"
cp "$1" "$d/opened-$n.txt"
if [ $n = 1 ]; then
  {other} > "$d/other.out" 2>&1 || exit 1
  cat '{mine}' > "$1"
else
  {second}
fi"#,
            dir = dir.display(),
            other = shell_line(other),
            mine = mine_file.display(),
        ),
    );
    (script_path, dir)
}

/// The draft file `journal edit` named on stderr after a clash.
fn draft_named(stderr: &str) -> PathBuf {
    let path = stderr
        .split("saved in ")
        .nth(1)
        .and_then(|rest| rest.split(".)").next())
        .unwrap_or_else(|| panic!("no draft named: {stderr}"));
    PathBuf::from(path.trim())
}

const BASE: &str = "line one\nline two\nline three";

fn editor_text_with(date_line: &str, body: &str) -> String {
    format!("{date_line}tags: \n---\nDay\n\n{body}")
}

/// The date line of the text `journal edit` opened, to write a text like it.
fn header(opened: &Path) -> String {
    let text = std::fs::read_to_string(opened).unwrap();
    text.lines().take(2).map(|l| format!("{l}\n")).collect()
}

fn edits_that_touch_other_lines_merge_cleanly(run: &dyn Fn(&[&str]) -> Command, sb: &Sandbox) {
    let id = ok(run, &["new", "--title", "Day", BASE]).trim().to_owned();
    let opened = ok(run, &["show", &id, "--json"]);
    let date = json(&opened)["date"].as_str().unwrap().to_owned();
    let other = run(&[
        "edit",
        &id,
        "--content",
        "line one\nline two\nline three, theirs",
    ]);
    // The header as the editor shows it: the date in local time (UTC here), to the minute.
    let shown = format!("---\ndate: {} {}\n", &date[..10], &date[11..16]);
    let mine = editor_text_with(&shown, "line one, mine\nline two\nline three\n");
    let (editor, dir) = racing_editor(sb, &other, &mine, None);
    let mut cmd = run(&["edit", &id[id.len() - 6..]]);
    cmd.env("EDITOR", &editor);
    let out = crate::run(cmd);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the entry changed while you were editing it (it is now at revision 2)"),
        "{stderr}"
    );
    assert!(stderr.contains("touch different lines"), "{stderr}");
    assert_eq!(header(&dir.join("opened-2.txt")), shown);
    // Both changes, in the editor and in the entry.
    let reopened = std::fs::read_to_string(dir.join("opened-2.txt")).unwrap();
    assert!(
        reopened.ends_with("line one, mine\nline two\nline three, theirs\n"),
        "{reopened}"
    );
    let now = json(&ok(run, &["show", &id, "--json"]));
    assert_eq!(
        now["content"],
        "line one, mine\nline two\nline three, theirs"
    );
    assert_eq!(now["revision"], 3);
    // The text as typed is kept on disk too.
    let draft = std::fs::read_to_string(draft_named(&stderr)).unwrap();
    assert_eq!(draft, mine);
    // The other side's edit is revision 2, not overwritten but built on.
    let history = json(&ok(run, &["history", &id, "--json"]));
    assert_eq!(
        history["revisions"][1]["content"],
        "line one\nline two\nline three, theirs"
    );
}

#[test]
fn a_local_edit_racing_another_merges_when_the_lines_differ() {
    let sb = Sandbox::new();
    edits_that_touch_other_lines_merge_cleanly(&|args| sb.journal(args), &sb);
}

#[test]
fn a_remote_edit_racing_another_merges_when_the_lines_differ() {
    let s = Served::start();
    s.register(s.journal(&[]), "race@example.com");
    edits_that_touch_other_lines_merge_cleanly(&|args| s.journal(args), &s.sb);
}

/// Both sides change the same line: the editor opens again with both versions marked;
/// the person keeps parts of each and saves. Nothing either side wrote is lost.
fn edits_of_the_same_line_are_marked_and_nothing_is_lost(
    run: &dyn Fn(&[&str]) -> Command,
    sb: &Sandbox,
) {
    let id = ok(run, &["new", "--title", "Day", BASE]).trim().to_owned();
    let date = json(&ok(run, &["show", &id, "--json"]))["date"]
        .as_str()
        .unwrap()
        .to_owned();
    let shown = format!("---\ndate: {} {}\n", &date[..10], &date[11..16]);
    let other = run(&[
        "edit",
        &id,
        "--content",
        "line one\nline two, as they wrote it\nline three",
    ]);
    let mine = editor_text_with(&shown, "line one\nline two, as I typed it\nline three\n");
    let resolved = editor_text_with(
        &shown,
        "line one\nline two, as I typed it and as they wrote it\nline three\n",
    );
    let (editor, dir) = racing_editor(sb, &other, &mine, Some(&resolved));
    let mut cmd = run(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    let out = crate::run(cmd);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("both versions are there"), "{stderr}");
    let reopened = std::fs::read_to_string(dir.join("opened-2.txt")).unwrap();
    assert!(
        reopened.contains(
            "<<<<<<< yours\nline two, as I typed it\n=======\nline two, as they wrote it\n>>>>>>> current\n"
        ),
        "{reopened}"
    );
    assert!(
        reopened.starts_with(&shown),
        "the header is kept: {reopened}"
    );
    assert_eq!(std::fs::read_to_string(draft_named(&stderr)).unwrap(), mine);
    let now = json(&ok(run, &["show", &id, "--json"]));
    assert_eq!(
        now["content"],
        "line one\nline two, as I typed it and as they wrote it\nline three"
    );
    assert_eq!(now["revision"], 3);
}

#[test]
fn a_local_edit_of_a_line_changed_meanwhile_marks_both_texts() {
    let sb = Sandbox::new();
    edits_of_the_same_line_are_marked_and_nothing_is_lost(&|args| sb.journal(args), &sb);
}

#[test]
fn a_remote_edit_of_a_line_changed_meanwhile_marks_both_texts() {
    let s = Served::start();
    s.register(s.journal(&[]), "clash@example.com");
    edits_of_the_same_line_are_marked_and_nothing_is_lost(&|args| s.journal(args), &s.sb);
}

#[test]
fn saving_with_the_merge_markers_left_in_writes_nothing_and_keeps_the_text() {
    let sb = Sandbox::new();
    let run = |args: &[&str]| sb.journal(args);
    let id = new_entry(&sb, &["--title", "Day", BASE]);
    let other = run(&["edit", &id, "--content", "line one\nTHEIRS\nline three"]);
    let mine = "Day\n\nline one\nMINE\nline three\n";
    // The second time the editor saves the merged text as it is, markers and all.
    let (editor, _) = racing_editor(&sb, &other, mine, None);
    let mut cmd = run(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    let out = crate::run(cmd);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(USAGE), "{stderr}");
    let error = stderr.lines().last().unwrap();
    assert!(
        error.starts_with("error: the text still has merge markers"),
        "{stderr}"
    );
    // The entry is as the other side left it; both texts are on disk.
    let now = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(now["content"], "line one\nTHEIRS\nline three");
    let kept = error
        .split("your text is saved in ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("{error}"));
    let kept = std::fs::read_to_string(kept.trim()).unwrap();
    assert!(kept.contains("MINE") && kept.contains("THEIRS"), "{kept}");
    assert_eq!(std::fs::read_to_string(draft_named(&stderr)).unwrap(), mine);
}
