//! A failed import into a journal it had to create leaves nothing behind (issue 35):
//! no empty database file, no owner account line in the config.

use crate::*;

/// The files in `dir` and below, sorted, as paths relative to it.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// An export of one entry whose title is over the limit: read fine, refused on import.
fn export_with_an_invalid_entry(sb: &Sandbox) -> std::path::PathBuf {
    let source = Sandbox::new();
    new_entry(&source, &["--title", "Fine", "text"]);
    let mut export = json(&source.ok(&["export"]));
    export["entries"][0]["title"] = serde_json::Value::String("t".repeat(300));
    let path = sb.path("invalid.json");
    std::fs::write(&path, export.to_string()).unwrap();
    path
}

#[test]
fn a_failed_first_import_leaves_no_database_and_no_config() {
    let sb = Sandbox::new();
    let not_json = sb.path("notes.json");
    std::fs::write(&not_json, "this is not JSON").unwrap();
    let invalid = export_with_an_invalid_entry(&sb);
    let before = files_under(sb.dir.path());

    fail(sb.journal(&["import", not_json.to_str().unwrap()]), USAGE);
    assert_eq!(files_under(sb.dir.path()), before);
    assert!(!sb.database.exists());
    assert!(!sb.config.exists());

    let err = fail(sb.journal(&["import", invalid.to_str().unwrap()]), USAGE);
    assert!(err.contains("title"), "{err}");
    assert_eq!(files_under(sb.dir.path()), before);

    // A database in a folder that does not exist yet: the folder goes too.
    let nested = sb.path("new-folder/journal.db");
    let mut cmd = sb.bare(&["import", invalid.to_str().unwrap()]);
    cmd.arg("--database").arg(&nested);
    fail(cmd, USAGE);
    assert!(!sb.path("new-folder").exists());
    assert_eq!(files_under(sb.dir.path()), before);

    // Named by a `sqlite:` URL, as JOURNAL_DATABASE_URL may: the same.
    let mut cmd = sb.bare(&["import", invalid.to_str().unwrap()]);
    cmd.arg("--database")
        .arg(format!("sqlite:{}", sb.path("by-url.db").display()));
    fail(cmd, USAGE);
    assert_eq!(files_under(sb.dir.path()), before);
}

#[test]
fn a_failed_import_leaves_an_existing_config_byte_for_byte() {
    let sb = Sandbox::new();
    sb.ok(&["config", "set", "inline_tags", "false"]);
    let config = std::fs::read(&sb.config).unwrap();
    let invalid = export_with_an_invalid_entry(&sb);
    fail(sb.journal(&["import", invalid.to_str().unwrap()]), USAGE);
    assert!(!sb.database.exists());
    assert_eq!(std::fs::read(&sb.config).unwrap(), config);
}

#[test]
fn a_failed_import_into_an_existing_journal_keeps_it_and_its_owner() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "Already here", "text"]);
    let config = std::fs::read(&sb.config).unwrap();
    let invalid = export_with_an_invalid_entry(&sb);
    fail(sb.journal(&["import", invalid.to_str().unwrap()]), USAGE);
    assert_eq!(std::fs::read(&sb.config).unwrap(), config);
    let list = json(&sb.ok(&["list", "--json"]));
    assert_eq!(list["total"], 1);
    assert_eq!(list["entries"][0]["title"], "Already here");
}
