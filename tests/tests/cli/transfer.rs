//! Export and import: our JSON round trip, Markdown, and jrnl's JSON export.

use crate::*;

#[test]
fn export_then_import_into_a_fresh_database_is_lossless() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "Public one", "--public", "shared text"]);
    let edited = new_entry(&sb, &["--title", "Private one", "line one\nline two"]);
    sb.ok(&["edit", &edited, "--content", "changed later"]);
    let export = sb.path("export.json");
    sb.ok(&["export", "--output", export.to_str().unwrap()]);

    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", export.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 2);

    let key = |v: &serde_json::Value| {
        let mut entries: Vec<_> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["title"].clone(),
                    e["content"].clone(),
                    e["isPublic"].clone(),
                    e["createdAt"].clone(),
                    e["updatedAt"].clone(),
                )
            })
            .collect();
        entries.sort_by_key(|e| e.0.to_string());
        entries
    };
    let original = json(&std::fs::read_to_string(&export).unwrap());
    let again = json(&fresh.ok(&["export"]));
    assert_eq!(key(&original), key(&again));
    assert_eq!(original["format"], "journal-export");
}

#[test]
fn export_markdown_to_stdout() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--title", "Heading", "the body"]);
    let md = sb.ok(&["export", "--format", "markdown"]);
    assert!(md.starts_with("---\n"), "{md}");
    assert!(md.contains("title: Heading"), "{md}");
    assert!(md.contains("the body"), "{md}");
}

#[test]
fn import_reads_a_jrnl_json_export_in_local_time() {
    let sb = Sandbox::new();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/jrnl-sample.json");
    let out = sb.ok(&["import", sample]);
    assert!(out.contains("imported 2 entries"), "{out}");
    let list = json(&sb.ok(&["list", "--json"]));
    let entries = list["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    // Newest first; TZ=UTC in the sandbox, so local time is UTC.
    assert_eq!(entries[0]["title"], "Rainy day.");
    assert_eq!(
        entries[0]["content"],
        "Stayed in and read.\n\nSecond paragraph."
    );
    assert_eq!(entries[0]["createdAt"], "2021-06-06T18:05:00.000Z");
    assert_eq!(entries[1]["title"], "Walked to the lake.");
    assert_eq!(entries[1]["createdAt"], "2021-06-05T09:30:00.000Z");
    assert_eq!(entries[1]["isPublic"], false);
}

#[test]
fn import_of_a_file_that_is_not_an_export_fails_cleanly() {
    let sb = Sandbox::new();
    let bad = sb.path("bad.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    fail(sb.journal(&["import", bad.to_str().unwrap()]), USAGE);
    let invalid = sb.path("invalid.json");
    std::fs::write(
        &invalid,
        r#"{"entries":[{"title":"","content":"x","createdAt":"2024-01-01T00:00:00Z"}]}"#,
    )
    .unwrap();
    let err = fail(sb.journal(&["import", invalid.to_str().unwrap()]), USAGE);
    assert!(err.contains("title"), "{err}");
    assert_eq!(
        json(&sb.ok(&["list", "--json"]))["total"],
        0,
        "all or nothing"
    );
    fail(sb.journal(&["import", "/nonexistent/file.json"]), 1);
}
