//! A failed `journal edit` keeps the text as a draft and prints the command that
//! applies it to the same entry (issue 35, point 5): that command, run as printed once
//! the draft is fixed, updates the entry and makes no new one.

use std::process::Command;

use crate::*;

/// Runs a command line as printed by `journal`, through `sh`, with `journal` on the
/// PATH and the sandbox's environment.
fn run_printed(sb: &Sandbox, line: &str) -> std::process::Output {
    let bin = sb.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("journal");
    if !link.exists() {
        std::os::unix::fs::symlink(journal_tests::cargo_bin("journal"), &link).unwrap();
    }
    let template = sb.bare(&[]);
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(line);
    for (key, value) in template.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let path = std::env::var("PATH").unwrap_or_default();
    cmd.env("PATH", format!("{}:{path}", bin.display()));
    cmd.output().expect("sh runs")
}

/// The draft file and the command named in the error of a failed edit.
fn draft_and_command(stderr: &str) -> (std::path::PathBuf, String) {
    let path = stderr
        .split("saved in ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("no draft named: {stderr}"));
    let command = stderr
        .split("apply it to this entry with: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no command given: {stderr}"))
        .trim_end()
        .to_owned();
    (std::path::PathBuf::from(path.trim()), command)
}

/// The editor writes a header with a date no one can read.
const BAD_EDIT: &str =
    "---\ndate: someday\ntags: walk, lake\n---\nMorning, edited\n\nA new body.\n";

fn bad_header_then_apply_the_fixed_draft(run: impl Fn(&[&str]) -> Command, sb: &Sandbox) {
    let id = succeed(run(&["new", "--title", "Morning", "the first text"]))
        .trim()
        .to_owned();
    let editor = sb.path("editor.sh");
    let written = sb.path("written.txt");
    std::fs::write(&written, BAD_EDIT).unwrap();
    script(&editor, &format!("cat '{}' > \"$1\"", written.display()));
    // Named by its short id; the command to apply the draft names it whole.
    let mut cmd = run(&["edit", &id[id.len() - 6..]]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, USAGE);
    assert!(err.contains("date:"), "names the bad line: {err}");
    assert!(!err.contains("journal new"), "the old, wrong advice: {err}");
    let (draft, command) = draft_and_command(&err);
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), BAD_EDIT);
    assert!(
        command.starts_with("journal ")
            && command.contains(&format!(" edit {id} "))
            && command.ends_with(&format!("--file {}", draft.display())),
        "{command}"
    );
    // Nothing changed yet.
    let entry = json(&succeed(run(&["show", &id, "--json"])));
    assert_eq!(entry["title"], "Morning");

    // Fix the date in the draft and run the command as printed.
    std::fs::write(&draft, BAD_EDIT.replace("someday", "2024-01-02 09:30")).unwrap();
    let out = run_printed(sb, &command);
    let stdout = check_ok(out);
    assert!(stdout.contains(&format!("updated entry {id}")), "{stdout}");
    let entry = json(&succeed(run(&["show", &id, "--json"])));
    assert_eq!(entry["title"], "Morning, edited");
    assert_eq!(entry["content"], "A new body.");
    assert_eq!(entry["tags"], serde_json::json!(["lake", "walk"]));
    assert_eq!(entry["date"], "2024-01-02T09:30:00.000Z");
    let list = json(&succeed(run(&["list", "--json"])));
    assert_eq!(list["total"], 1, "no new entry: {list}");
}

#[test]
fn a_failed_local_edit_prints_a_command_that_applies_the_draft_to_the_entry() {
    let sb = Sandbox::new();
    bad_header_then_apply_the_fixed_draft(|args| sb.journal(args), &sb);
}

#[test]
fn a_failed_remote_edit_prints_a_command_that_applies_the_draft_to_the_entry() {
    let s = Served::start();
    s.register(s.journal(&[]), "edit@example.com");
    bad_header_then_apply_the_fixed_draft(|args| s.journal(args), &s.sb);
}

#[test]
fn edit_file_that_still_breaks_a_rule_changes_nothing_and_keeps_the_file() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--title", "Kept", "text"]);
    let draft = sb.path("draft.txt");
    std::fs::write(&draft, BAD_EDIT).unwrap();
    let err = fail(
        sb.journal(&["edit", &id, "--file", draft.to_str().unwrap()]),
        USAGE,
    );
    assert!(
        err.contains(&format!("{} is unchanged", draft.display())),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), BAD_EDIT);
    let entry = json(&sb.ok(&["show", &id, "--json"]));
    assert_eq!(entry["title"], "Kept");
    // It takes no other change beside it.
    let out = run(sb.journal(&["edit", &id, "--file", "x", "--title", "T"]));
    assert_eq!(out.status.code(), Some(USAGE));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be used with"),
        "{out:?}"
    );
    // Standard input, with `-`.
    let out = with_stdin(
        sb.journal(&["edit", &id, "--file", "-", "--json"]),
        "Kept, from a pipe\n\nbody\n",
    );
    let entry = json(&check_ok(out));
    assert_eq!(entry["title"], "Kept, from a pipe");
}
