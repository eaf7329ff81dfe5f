//! Tags, stars and dates through import and export: jrnl's JSON in, the Markdown
//! folder, jrnl and plain-text exports out and back, Day One's JSON and anyone's
//! Markdown folder in.

use std::path::Path;

use crate::*;

/// What must survive a round trip, per entry, sorted by title.
fn kept(entries: &serde_json::Value) -> Vec<(String, String, String, String, String, String)> {
    let mut out: Vec<_> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["title"].to_string(),
                e["content"].to_string(),
                e["tags"].to_string(),
                e["starred"].to_string(),
                e["isPublic"].to_string(),
                e["date"].to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn all(sb: &Sandbox) -> serde_json::Value {
    json(&sb.ok(&["list", "--all", "--json"]))["entries"].clone()
}

/// A journal with what a round trip can lose: tags, stars, public entries, backdated
/// entries, titles YAML would misread, content with front-matter lines and blank ends.
fn varied() -> Sandbox {
    let sb = Sandbox::new();
    new_entry(
        &sb,
        &[
            "--tag",
            "lake",
            "--tag",
            "walk",
            "--star",
            "--date",
            "2024-01-02 09:30",
            "Walked to the lake\n\nCold water.\n\nSecond paragraph.",
        ],
    );
    // Text that starts with `-` is no argument: it comes on standard input.
    check_ok(with_stdin(
        sb.journal(&[
            "new",
            "--public",
            "--title",
            "title: \"quoted\", #hash & [brackets]",
        ]),
        "---\nnot front matter\n---\n",
    ));
    new_entry(&sb, &["--date", "2023-06-01", "--title", "true", "12"]);
    new_entry(
        &sb,
        &["--title", "Walked to the lake", "Same title, another day"],
    );
    sb
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn markdown_dir_export_reimports_without_loss() {
    let sb = varied();
    let dir = sb.path("notes");
    sb.ok(&[
        "export",
        "--format",
        "markdown-dir",
        "--output",
        dir.to_str().unwrap(),
    ]);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(
        names.contains(&"2024-01-02-walked-to-the-lake.md".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"2023-06-01-true.md".to_owned()),
        "{names:?}"
    );
    let lake = std::fs::read_to_string(dir.join("2024-01-02-walked-to-the-lake.md")).unwrap();
    assert!(
        lake.starts_with("---\ntitle: Walked to the lake\n"),
        "{lake}"
    );
    assert!(
        lake.contains("starred: true") && lake.contains("  - lake"),
        "{lake}"
    );
    assert!(
        lake.ends_with("\n---\n\nCold water.\n\nSecond paragraph.\n"),
        "{lake}"
    );
    #[cfg(unix)]
    {
        assert_eq!(mode(&dir), 0o700);
        for name in &names {
            assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
        }
    }

    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 4);
    assert_eq!(kept(&all(&fresh)), kept(&all(&sb)));
    // Idempotent, into the fresh journal and into the original one.
    let again = json(&fresh.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (0.into(), 4.into())
    );
    let home = json(&sb.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(home["imported"], 0);

    // Exporting again replaces the files, private even where one was not.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join(&names[0]);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        sb.ok(&[
            "export",
            "--format",
            "markdown-dir",
            "--output",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 4);
    }
}

#[test]
fn markdown_dir_needs_a_folder() {
    let sb = varied();
    let err = fail(sb.journal(&["export", "--format", "markdown-dir"]), USAGE);
    assert!(err.contains("--output DIR"), "{err}");
    let file = sb.path("file.txt");
    std::fs::write(&file, "x").unwrap();
    fail(
        sb.journal(&[
            "export",
            "--format",
            "markdown-dir",
            "--output",
            file.to_str().unwrap(),
        ]),
        USAGE,
    );
}

#[test]
fn jrnl_export_is_jrnls_json_and_reimports() {
    let sb = varied();
    let path = sb.path("jrnl.json");
    sb.ok(&[
        "export",
        "--format",
        "jrnl",
        "--output",
        path.to_str().unwrap(),
    ]);
    let export = json(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(export["tags"]["@lake"], 1);
    let lake = export["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["date"] == "2024-01-02")
        .unwrap();
    assert_eq!(lake["time"], "09:30");
    assert_eq!(lake["title"], "Walked to the lake");
    assert_eq!(lake["body"], "Cold water.\n\nSecond paragraph.");
    assert_eq!(lake["tags"], serde_json::json!(["@lake", "@walk"]));
    assert_eq!(lake["starred"], true);
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);

    let fresh = Sandbox::new();
    assert_eq!(
        json(&fresh.ok(&["import", path.to_str().unwrap(), "--json"]))["imported"],
        4
    );
    let back = all(&fresh);
    let lake = back
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["date"] == "2024-01-02T09:30:00.000Z")
        .unwrap();
    assert_eq!(lake["tags"], serde_json::json!(["lake", "walk"]));
    assert_eq!(lake["starred"], true);
    assert_eq!(lake["content"], "Cold water.\n\nSecond paragraph.");
    // jrnl has no public entries: titles, texts, tags and stars come back, privately.
    let strip = |v: &serde_json::Value| {
        let mut k = kept(v);
        for e in &mut k {
            e.4 = String::new();
            e.5 = e.5[..17].to_owned(); // to the minute, as jrnl keeps it
        }
        k
    };
    assert_eq!(strip(&back), strip(&all(&sb)));
    // Imported into the journal it came from, it is all there already.
    assert_eq!(
        json(&sb.ok(&["import", path.to_str().unwrap(), "--json"]))["imported"],
        0
    );
}

#[test]
fn txt_export_is_jrnls_plain_text() {
    let sb = varied();
    let text = sb.ok(&["export", "--format", "txt"]);
    assert!(
        text.contains("[2024-01-02 09:30] Walked to the lake *\nCold water.\n\nSecond paragraph.\n@lake @walk\n"),
        "{text}"
    );
    assert!(
        text.starts_with("[2023-06-01 00:00] true\n12\n"),
        "oldest first: {text}"
    );
    let path = sb.path("journal.txt");
    sb.ok(&[
        "export",
        "--format",
        "txt",
        "--output",
        path.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().trim_end(),
        text.trim_end()
    );
}

#[test]
fn jrnl_import_keeps_tags_stars_and_dates() {
    let sb = Sandbox::new();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/jrnl-sample.json");
    sb.ok(&["import", sample]);
    let entries = all(&sb);
    let lake = &entries[1];
    assert_eq!(lake["title"], "Walked to the lake.");
    assert_eq!(lake["tags"], serde_json::json!(["lake"]));
    assert_eq!(lake["starred"], true);
    assert_eq!(lake["date"], "2021-06-05T09:30:00.000Z");
    assert_eq!(lake["date"], lake["createdAt"]);
    assert_eq!(entries[0]["tags"], serde_json::json!([]));
    assert_eq!(entries[0]["starred"], false);
    assert_eq!(json(&sb.ok(&["tags", "--json"]))[0]["tag"], "lake");

    // Tags jrnl allows and Journal does not are left out, and said so.
    let odd = sb.path("odd.json");
    std::fs::write(
        &odd,
        r#"{"entries":[{"title":"C","body":"x","date":"2021-01-01","time":"10:00","tags":["@c++","@Dev Ops"],"starred":false}]}"#,
    )
    .unwrap();
    let out = run(sb.journal(&["import", odd.to_str().unwrap()]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("\"@c++\""), "{stderr}");
    let c = all(&sb)
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "C")
        .cloned()
        .unwrap();
    assert_eq!(c["tags"], serde_json::json!(["dev-ops"]));
}

const DAY_ONE: &str = r##"{
  "metadata": {"version": "1.0"},
  "entries": [
    {
      "uuid": "6A1B",
      "creationDate": "2023-07-01T08:00:00Z",
      "modifiedDate": "2023-07-02T08:00:00Z",
      "timeZone": "Europe/Paris",
      "text": "# Beach day\n\n![](dayone-moment://AB12)\n\nWe swam\\. The water was cold\\!\n\n![](dayone-moment://CD34)",
      "tags": ["Summer trip", "beach"],
      "starred": true,
      "photos": [{"identifier": "AB12", "type": "jpeg"}, {"identifier": "CD34", "type": "jpeg"}],
      "location": {"placeName": "Somewhere"}
    },
    {
      "uuid": "7C2D",
      "creationDate": "2023-07-03T20:15:00Z",
      "text": "Quiet evening.",
      "audios": [{"identifier": "EF56"}]
    }
  ]
}"##;

#[test]
fn day_one_import_keeps_text_dates_tags_and_stars_and_counts_the_media() {
    let sb = Sandbox::new();
    let path = sb.path("Journal.json");
    std::fs::write(&path, DAY_ONE).unwrap();
    let out = run(sb.journal(&["import", path.to_str().unwrap()]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("imported 2 entries"), "{stdout}");
    assert!(stderr.contains("left out 3 media files"), "{stderr}");

    let entries = all(&sb);
    let beach = &entries[1];
    assert_eq!(beach["title"], "Beach day");
    assert_eq!(beach["content"], "We swam. The water was cold!");
    assert_eq!(beach["tags"], serde_json::json!(["beach", "summer-trip"]));
    assert_eq!(beach["starred"], true);
    assert_eq!(beach["date"], "2023-07-01T08:00:00.000Z");
    assert_eq!(beach["updatedAt"], "2023-07-02T08:00:00.000Z");
    assert_eq!(entries[0]["title"], "Quiet evening.");
    assert_eq!(entries[0]["starred"], false);

    let again = json(&sb.ok(&["import", path.to_str().unwrap(), "--json"]));
    assert_eq!(again["imported"], 0);
    assert_eq!(again["skipped"], 2);

    std::fs::write(
        &path,
        r#"{"entries":[{"creationDate":"yesterday","text":"x"}]}"#,
    )
    .unwrap();
    let err = fail(sb.journal(&["import", path.to_str().unwrap()]), USAGE);
    assert!(
        err.contains("entry 1 (Day One export)") && err.contains("creationDate"),
        "{err}"
    );
}

#[test]
fn a_folder_of_anyones_markdown_files_imports() {
    let sb = Sandbox::new();
    let dir = sb.path("vault");
    std::fs::create_dir_all(dir.join("daily")).unwrap();
    std::fs::create_dir_all(dir.join(".obsidian")).unwrap();
    std::fs::write(
        dir.join("garden.md"),
        "---\naliases: [plot]\ntags:\n  - Garden\n  - spring\ndate: 2024-03-10 08:15\nstarred: true\n---\n\nPlanted #beans today.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("daily/2024-03-11.md"),
        "# Rainy Monday\n\nStayed in with @book.\n",
    )
    .unwrap();
    std::fs::write(dir.join("daily/untitled thoughts.md"), "Just a line.\n").unwrap();
    std::fs::write(dir.join(".obsidian/workspace.md"), "# not a note\n").unwrap();
    std::fs::write(dir.join("picture.png"), "not markdown").unwrap();
    let mtime = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    for name in ["daily/2024-03-11.md", "daily/untitled thoughts.md"] {
        std::fs::File::options()
            .write(true)
            .open(dir.join(name))
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    let out = json(&sb.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 3);
    let entries = all(&sb);
    let by_title = |t: &str| {
        entries
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["title"] == t)
            .unwrap_or_else(|| panic!("no {t} in {entries}"))
            .clone()
    };
    let garden = by_title("garden");
    assert_eq!(garden["content"], "Planted #beans today.");
    // Listed tags win over inline ones.
    assert_eq!(garden["tags"], serde_json::json!(["garden", "spring"]));
    assert_eq!(garden["starred"], true);
    assert_eq!(garden["date"], "2024-03-10T08:15:00.000Z");
    let rainy = by_title("Rainy Monday");
    assert_eq!(rainy["content"], "Stayed in with @book.");
    assert_eq!(rainy["tags"], serde_json::json!(["book"]));
    assert_eq!(
        rainy["date"], "2023-11-14T22:13:20.000Z",
        "the file's mtime"
    );
    let untitled = by_title("untitled thoughts");
    assert_eq!(untitled["content"], "Just a line.");
    assert_eq!(untitled["isPublic"], false);

    // One file can be imported alone; a bad one names itself and imports nothing.
    let single = sb.path("single.md");
    std::fs::write(&single, "---\ntitle: Alone\n---\nBody\n").unwrap();
    sb.ok(&["import", single.to_str().unwrap()]);
    assert_eq!(by_title_in(&all(&sb), "Alone")["content"], "Body");
    std::fs::write(dir.join("broken.md"), "---\ndate: someday\n---\nx\n").unwrap();
    let err = fail(sb.journal(&["import", dir.to_str().unwrap()]), USAGE);
    assert!(
        err.contains("broken.md") && err.contains("\"date\""),
        "{err}"
    );
    let empty = sb.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let err = fail(sb.journal(&["import", empty.to_str().unwrap()]), USAGE);
    assert!(err.contains("no Markdown files"), "{err}");
    assert_eq!(all(&sb).as_array().unwrap().len(), 4);
}

fn by_title_in(entries: &serde_json::Value, title: &str) -> serde_json::Value {
    entries
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == title)
        .cloned()
        .unwrap_or(serde_json::Value::Null)
}

#[test]
fn over_http_imports_keep_tags_stars_and_dates() {
    let sb = varied();
    let dir = sb.path("notes");
    sb.ok(&[
        "export",
        "--format",
        "markdown-dir",
        "--output",
        dir.to_str().unwrap(),
    ]);

    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    let out = json(&r.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(out["imported"], 4);
    let remote = json(&r.ok(&["list", "--all", "--json"]))["entries"].clone();
    assert_eq!(kept(&remote), kept(&all(&sb)));
    let again = json(&r.ok(&["import", dir.to_str().unwrap(), "--json"]));
    assert_eq!(again["imported"], 0);

    // And out again from the server, into files that read back the same.
    let back = r.sb.path("from-server");
    r.ok(&[
        "export",
        "--format",
        "markdown-dir",
        "--output",
        back.to_str().unwrap(),
    ]);
    let fresh = Sandbox::new();
    fresh.ok(&["import", back.to_str().unwrap()]);
    assert_eq!(kept(&all(&fresh)), kept(&all(&sb)));

    let day_one = r.sb.path("Journal.json");
    std::fs::write(&day_one, DAY_ONE).unwrap();
    r.ok(&["import", day_one.to_str().unwrap()]);
    let beach = json(&r.ok(&["list", "--json", "--tag", "summer-trip"]))["entries"][0].clone();
    assert_eq!(beach["title"], "Beach day");
    assert_eq!(beach["starred"], true);
    assert_eq!(beach["date"], "2023-07-01T08:00:00.000Z");
}
