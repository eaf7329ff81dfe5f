//! Short entry ids (issue 35): tables show the end of each id, the fewest characters
//! (6 or more) that tell the journal's entries apart, and every command that takes an
//! id takes them; the full id still works, and one that fits two entries lists both.

use crate::*;

/// The last `n` characters of `id`.
fn tail(id: &str, n: usize) -> &str {
    &id[id.len() - n..]
}

/// The shortest length (6 or more, up to the last group's 12) at which these ids'
/// ends all differ; 36 (whole ids) when even 12 do not.
fn expected_len(ids: &[String]) -> usize {
    (6..=12)
        .find(|&n| {
            let mut tails: Vec<&str> = ids.iter().map(|id| tail(id, n)).collect();
            tails.sort_unstable();
            tails.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(36)
}

/// Every id of the caller's journal, and the table's ID cells with their titles.
fn ids_and_table(
    run: &dyn Fn(&[&str]) -> std::process::Command,
) -> (Vec<String>, Vec<(String, String)>) {
    let all = json(&succeed(run(&["list", "--all", "--json"])));
    let ids: Vec<String> = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["_id"].as_str().unwrap().to_owned())
        .collect();
    let table = succeed(run(&["list", "--all"]));
    let rows = table
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.ends_with("entries") && !l.ends_with("entry"))
        .map(|l| {
            let cell = l.split_whitespace().next().unwrap().to_owned();
            (cell, l.to_owned())
        })
        .collect();
    (ids, rows)
}

/// The table's ids are the ends of the journal's ids, all of the shortest unique
/// length, and each names its entry in `show`.
fn check_table(run: &dyn Fn(&[&str]) -> std::process::Command) -> usize {
    let (ids, rows) = ids_and_table(run);
    assert_eq!(rows.len(), ids.len(), "{rows:?}");
    let len = expected_len(&ids);
    for ((cell, line), id) in rows.iter().zip(&ids) {
        assert_eq!(cell, tail(id, len), "{line}");
    }
    // Each short id names its entry (a few rows: each lookup reads the journal).
    for ((cell, _), id) in rows.iter().zip(&ids).step_by(7) {
        let shown = json(&succeed(run(&["show", cell, "--json"])));
        assert_eq!(shown["_id"], id.as_str());
    }
    len
}

#[test]
fn after_an_import_the_table_shows_short_ends_of_ids_that_commands_take() {
    let sb = Sandbox::new();
    // Written at once, by one import of entries that bring no ids: their ids are made
    // within a few milliseconds, so they share their time, the first 11 digits or more.
    let entries: Vec<serde_json::Value> = (0..25)
        .map(|i| serde_json::json!({ "title": format!("Entry {i}"), "content": "text" }))
        .collect();
    let export = sb.path("export.json");
    std::fs::write(
        &export,
        serde_json::json!({ "entries": entries }).to_string(),
    )
    .unwrap();
    sb.ok(&["import", export.to_str().unwrap()]);

    let run = |args: &[&str]| sb.journal(args);
    let len = check_table(&run);
    assert!((6..=12).contains(&len), "{len}");
    let (ids, rows) = ids_and_table(&run);
    // What a prefix would need: the first characters these ids share, and one more.
    let common = ids
        .windows(2)
        .map(|w| {
            w[0].chars()
                .zip(w[1].chars())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .max()
        .unwrap();
    assert!(
        common >= 11,
        "written together, they share their time: {ids:?}"
    );

    // Every command that takes an id takes the short one, and the full one.
    let (short, id) = (&rows[0].0, &ids[0]);
    sb.ok(&["star", short]);
    sb.ok(&["tag", short, "+shortid"]);
    sb.ok(&["edit", short, "--title", "Renamed by its short id"]);
    let entry = json(&sb.ok(&["show", id, "--json"]));
    assert_eq!(entry["title"], "Renamed by its short id");
    assert_eq!(entry["starred"], true);
    assert_eq!(entry["tags"], serde_json::json!(["shortid"]));
    // Upper case is the same id.
    let upper = json(&sb.ok(&["show", &short.to_uppercase(), "--json"]));
    assert_eq!(upper["_id"], id.as_str());
    // Fewer than 6 characters is no id.
    let err = fail(sb.journal(&["show", &short[..5]]), NOT_FOUND);
    assert!(err.contains("at least its last 6 characters"), "{err}");
    sb.ok(&["rm", short, "--yes"]);
    fail(sb.journal(&["show", id]), NOT_FOUND);
}

/// Adds to the sandbox's journal a copy of entry `of` under the id `new_id`, through
/// journal-core on the file (the CLI makes only ids of its own).
fn copy_with_id(sb: &Sandbox, of: &str, new_id: &str, title: &str) {
    let url = format!("sqlite:{}", sb.database.display());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = journal_core::store::open(&url).await.unwrap();
        let mut entry = store
            .entry(&of.parse().unwrap())
            .await
            .unwrap()
            .unwrap()
            .entry;
        entry.id = new_id.parse().unwrap();
        entry.title = title.to_owned();
        entry.revision_id = journal_core::RevisionId::generate();
        store
            .insert_entry(&entry, journal_core::EditedVia::Local)
            .await
            .unwrap();
    });
}

#[test]
fn a_short_id_two_entries_end_with_lists_both_and_the_table_grows_a_character() {
    let sb = Sandbox::new();
    let a = new_entry(&sb, &["--title", "First", "text"]);
    // Another id ending in the same 6 characters as `a`, not the same 7.
    let seventh = if &a[29..30] == "0" { "1" } else { "0" };
    let b = format!("0190c3e2-5b7a-7d41-9a1e-00000{seventh}{}", tail(&a, 6));
    copy_with_id(&sb, &a, &b, "Second");

    let run = |args: &[&str]| sb.journal(args);
    assert_eq!(check_table(&run), 7);
    let err = fail(sb.journal(&["show", tail(&a, 6)]), USAGE);
    assert!(err.contains(&a) && err.contains(&b), "candidates: {err}");
    assert!(err.contains("First") && err.contains("Second"), "{err}");
    let shown = json(&sb.ok(&["show", tail(&a, 7), "--json"]));
    assert_eq!(shown["_id"], a.as_str());
    let shown = json(&sb.ok(&["show", &b, "--json"]));
    assert_eq!(shown["title"], "Second");

    // One alike in its whole last group: the table shows whole ids.
    let c = format!("0190c3e2-5b7a-7d41-9a1e-{}", tail(&a, 12));
    copy_with_id(&sb, &a, &c, "Third");
    assert_eq!(check_table(&run), 36);
    let shown = json(&sb.ok(&["show", &c, "--json"]));
    assert_eq!(shown["title"], "Third");
}

#[test]
fn short_ids_work_against_a_server() {
    let s = Served::start();
    s.register(s.journal(&[]), "short@example.com");
    for i in 0..5 {
        s.ok(&["new", "--public", "--title", &format!("Remote {i}"), "text"]);
    }
    let run = |args: &[&str]| s.journal(args);
    assert_eq!(check_table(&run), expected_len(&ids_and_table(&run).0));
    let (ids, rows) = ids_and_table(&run);
    s.ok(&["edit", &rows[2].0, "--title", "Renamed remotely"]);
    let entry = json(&s.ok(&["show", &ids[2], "--json"]));
    assert_eq!(entry["title"], "Renamed remotely");

    // Another user finds a public entry by the short id the feed shows.
    let other = s.sb.path("other.json");
    s.register(s.as_user(&other, &[]), "other@example.com");
    let feed = succeed(s.as_user(&other, &["public"]));
    let row = feed
        .lines()
        .find(|l| l.contains("Renamed remotely"))
        .unwrap_or_else(|| panic!("{feed}"));
    let cell = row.split_whitespace().next().unwrap();
    assert!(ids[2].ends_with(cell) && cell.len() >= 6, "{row}");
    let shown = json(&succeed(s.as_user(&other, &["show", cell, "--json"])));
    assert_eq!(shown["_id"], ids[2].as_str());
}

#[test]
fn a_journal_too_large_to_read_for_each_table_gets_ends_long_enough_for_its_size() {
    let sb = Sandbox::new();
    let source = Sandbox::new();
    new_entry(&source, &["--title", "Template", "text"]);
    let mut export = json(&source.ok(&["export"]));
    let template = export["entries"][0].clone();
    let entries: Vec<serde_json::Value> = (0..1_001)
        .map(|i| {
            let mut e = template.clone();
            e.as_object_mut().unwrap().remove("_id");
            e["title"] = format!("Entry {i}").into();
            e
        })
        .collect();
    export["entries"] = entries.into();
    let file = sb.path("big.json");
    std::fs::write(&file, export.to_string()).unwrap();
    sb.ok(&["import", file.to_str().unwrap()]);

    // More than the thousand a table reads: the ends are long enough for 1,001 ids
    // (8 characters), and still name their entries.
    let all = json(&sb.ok(&["list", "--all", "--json"]));
    let ids: Vec<String> = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1_001);
    let table = sb.ok(&["list", "--limit", "3"]);
    let cells: Vec<&str> = table
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let len = expected_len(&ids).max(8);
    for (cell, id) in cells.iter().zip(&ids) {
        assert_eq!(*cell, tail(id, len), "{table}");
    }
    let shown = json(&sb.ok(&["show", cells[1], "--json"]));
    assert_eq!(shown["_id"], ids[1].as_str());
}
