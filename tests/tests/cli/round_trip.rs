//! Issue 35: every export imports back. For JSON, the Markdown file, the Markdown
//! folder and jrnl's text: export, import into an empty journal, export again; the two
//! exports are equal in every field the format carries (the export's own time and the
//! account's id aside). And the findings: the Markdown export imported as one entry
//! titled "all", jrnl's text was "not valid JSON", a Day One .zip was not UTF-8.

use std::io::Write;

use crate::*;

/// A journal with what formats get wrong: multi-line text, text that looks like front
/// matter or like a jrnl entry's separator, non-Latin text, tags, stars, public
/// entries, dates to the millisecond.
fn seeded() -> Sandbox {
    let sb = Sandbox::new();
    let seed = sb.path("seed.json");
    let entries = serde_json::json!({ "entries": [
        { "title": "Front matter inside", "content": "---\ntitle: not an entry\ntags: [x]\n---\nbody after\n---",
          "createdAt": "2024-03-04T05:06:07.089Z", "date": "2024-03-04T05:06:07.089Z",
          "tags": ["meta", "yaml"], "starred": true, "isPublic": true },
        { "title": "東京の朝", "content": "今日は静かな朝でした。\n\nΚαλημέρα, мир! 🌅",
          "createdAt": "2024-03-05T23:59:59.999Z", "tags": ["旅行"], "isPublic": false },
        { "title": "Lines", "content": "one\n\ntwo\n  indented three\n\\---\nfour",
          "createdAt": "2023-12-31T12:00:00.500Z", "tags": [], "starred": false, "isPublic": true },
        { "title": "Empty body", "content": "", "createdAt": "2022-01-01T00:00:00.001Z" }
    ]});
    std::fs::write(&seed, entries.to_string()).unwrap();
    sb.ok(&["import", seed.to_str().unwrap()]);
    sb
}

/// Exports `sb` in `format` into `name` (a file, or a folder for markdown-dir).
fn export(sb: &Sandbox, format: &str, name: &str) -> std::path::PathBuf {
    let out = sb.path(name);
    sb.ok(&[
        "export",
        "--format",
        format,
        "--output",
        out.to_str().unwrap(),
    ]);
    out
}

/// A file's text, or a folder's files and their texts: (name, text) each.
type Contents = Vec<(String, String)>;

/// A file's text, or a folder's files and their texts.
fn contents(path: &std::path::Path) -> Contents {
    if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    } else {
        vec![(String::new(), std::fs::read_to_string(path).unwrap())]
    }
}

fn round_trip(format: &str, name: &str) -> (Contents, Contents) {
    let sb = seeded();
    let first = export(&sb, format, name);
    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", first.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 4, "{format}: {out}");
    let second = export(&fresh, format, name);
    // Imported again into the journal it came from, nothing is added.
    let again = json(&sb.ok(&["import", first.to_str().unwrap(), "--json"]));
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (0.into(), 4.into()),
        "{format}"
    );
    (contents(&first), contents(&second))
}

#[test]
fn the_markdown_file_imports_back_whole() {
    let (first, second) = round_trip("markdown", "journal.md");
    assert_eq!(first, second);
    assert!(
        first[0].1.contains("\\---\ntitle: not an entry"),
        "{}",
        first[0].1
    );
}

#[test]
fn the_markdown_folder_imports_back_whole() {
    let (first, second) = round_trip("markdown-dir", "notes");
    assert_eq!(first.len(), 4);
    assert_eq!(first, second);
}

#[test]
fn jrnl_text_imports_back_with_what_it_keeps() {
    let (first, second) = round_trip("txt", "journal.txt");
    assert_eq!(first, second);
    assert!(
        first[0]
            .1
            .contains("[2024-03-04 05:06] Front matter inside *"),
        "{}",
        first[0].1
    );
}

#[test]
fn the_json_export_imports_back_with_ids_and_every_field() {
    let sb = seeded();
    let first = export(&sb, "json", "journal.json");
    let fresh = Sandbox::new();
    fresh.ok(&["import", first.to_str().unwrap()]);
    let second = export(&fresh, "json", "journal.json");
    let entries = |p: &std::path::Path| {
        let mut v = json(&std::fs::read_to_string(p).unwrap())["entries"].clone();
        for e in v.as_array_mut().unwrap() {
            // The account's id differs; everything else, ids included, is kept.
            e.as_object_mut().unwrap().remove("author_id");
        }
        v
    };
    assert_eq!(entries(&first), entries(&second));
    assert_eq!(entries(&first).as_array().unwrap().len(), 4);
}

#[test]
fn the_txt_and_jrnl_exports_say_what_they_leave_out() {
    let sb = seeded();
    for format in ["txt", "jrnl"] {
        let out = sb.path(format);
        let output = sb
            .journal(&[
                "export",
                "--format",
                format,
                "--output",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("not the public flag"), "{format}: {stderr}");
    }
}

/// A Day One export as Day One writes it: Journal.json at the top, photos beside it.
fn day_one_zip(path: &std::path::Path) {
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("Journal.json", options).unwrap();
    zip.write_all(
        serde_json::json!({ "metadata": { "version": "1.0" }, "entries": [
            { "uuid": "A1", "creationDate": "2023-07-01T08:00:00Z", "text": "# Beach day\n\nSun and 海.",
              "tags": ["Summer trip"], "starred": true, "photos": [{ "md5": "x" }] },
            { "uuid": "B2", "creationDate": "2023-07-02T09:30:00Z", "text": "Quiet day." }
        ]})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    zip.start_file("photos/x.jpeg", options).unwrap();
    zip.write_all(&[0xff, 0xd8, 0xff, 0x00, 0x80]).unwrap();
    zip.finish().unwrap();
}

#[test]
fn a_day_one_zip_is_imported_and_again_skipped() {
    let sb = Sandbox::new();
    let archive = sb.path("Day One export.zip");
    day_one_zip(&archive);
    let out = json(&sb.ok(&["import", archive.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 2, "{out}");
    // Its one photo is not a photo: left out, and said so.
    assert!(
        out["notes"].to_string().contains("left out \\\"x.jpeg\\\""),
        "{out}"
    );
    assert_eq!(out["attachments"], 0, "{out}");
    let list = json(&sb.ok(&["list", "--json"]));
    let titles: Vec<_> = list["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].clone())
        .collect();
    assert_eq!(titles, ["Quiet day.", "Beach day"]);
    assert_eq!(
        list["entries"][1]["tags"],
        serde_json::json!(["summer-trip"])
    );
    let again = json(&sb.ok(&["import", archive.to_str().unwrap(), "--json"]));
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (0.into(), 2.into())
    );
}

/// A journal with history: an entry edited past the first snapshot of its history
/// (32 revisions), one made once, and one edited then deleted (in the trash).
pub fn with_history() -> Sandbox {
    let sb = Sandbox::new();
    let long = new_entry(&sb, &["--title", "Long", "words one"]);
    for n in 2..=35 {
        let text = format!("{} edit {n}", "many words here ".repeat(30));
        sb.ok(&["edit", &long, "--content", &text]);
    }
    sb.ok(&["edit", &long, "--title", "Long, renamed", "--public"]);
    new_entry(&sb, &["--title", "Once", "only once"]);
    let gone = new_entry(&sb, &["--title", "Gone", "first"]);
    sb.ok(&["edit", &gone, "--content", "second"]);
    sb.ok(&["rm", &gone, "--yes"]);
    sb
}

/// An export's document, its own time and the account's id aside.
pub fn document(path: &std::path::Path) -> serde_json::Value {
    let mut doc = json(&std::fs::read_to_string(path).unwrap());
    doc.as_object_mut().unwrap().remove("exportedAt");
    for list in ["entries", "trash"] {
        let entries = doc.get_mut(list).and_then(|l| l.as_array_mut());
        for e in entries.into_iter().flatten() {
            e.as_object_mut().unwrap().remove("author_id");
        }
    }
    doc
}

#[test]
fn the_json_export_carries_history_and_the_trash_and_imports_back_as_it_was() {
    let sb = with_history();
    let first = export(&sb, "json", "journal.json");
    let doc = document(&first);
    assert_eq!(doc["version"], 3);
    let long = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Long, renamed")
        .unwrap();
    let revisions = long["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 36);
    assert_eq!(revisions[0]["content"], "words one");
    assert_eq!(revisions[35]["revisionId"], long["revisionId"]);
    assert_eq!(revisions[35]["parentId"], revisions[34]["revisionId"]);
    assert_eq!(doc["trash"][0]["title"], "Gone");
    assert_eq!(doc["trash"][0]["revisions"].as_array().unwrap().len(), 2);

    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", first.to_str().unwrap(), "--json"]));
    assert_eq!(
        (out["imported"].clone(), out["trashed"].clone()),
        (2.into(), 1.into()),
        "{out}"
    );
    let second = export(&fresh, "json", "journal.json");
    assert_eq!(document(&first), document(&second));
    // Nothing was added for the import: every revision is one written here.
    assert!(!document(&second).to_string().contains("\"import\""));
}

#[test]
fn an_export_without_history_has_neither_revisions_nor_trash_and_imports_one_revision_each() {
    let sb = with_history();
    let plain = sb.path("plain.json");
    sb.ok(&[
        "export",
        "--no-history",
        "--output",
        plain.to_str().unwrap(),
    ]);
    let doc = document(&plain);
    assert!(doc.get("trash").is_none(), "{doc}");
    assert!(
        doc["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e.get("revisions").is_none())
    );

    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", plain.to_str().unwrap(), "--json"]));
    assert_eq!(
        (out["imported"].clone(), out["trashed"].clone()),
        (2.into(), 0.into())
    );
    let again = document(&export(&fresh, "json", "journal.json"));
    for e in again["entries"].as_array().unwrap() {
        assert_eq!(e["revision"], 1, "{e}");
        assert_eq!(e["revisions"][0]["editedVia"], "import", "{e}");
    }
}
