//! Attachments through the real `journal` binary (issue 37): `attach`, `attachments`,
//! `get`, `detach`, `new --attach` and `admin gc`, on a local database and against a
//! real journal-server; refusals are one line and an exit code, never a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::*;

/// The local mode and the remote mode (a fresh server with one logged-in user), each
/// handed to `scenario` as the way to run `journal ARGS…` and its sandbox.
fn in_both_modes(scenario: impl Fn(&dyn Fn(&[&str]) -> Command, &Sandbox)) {
    let sb = Sandbox::new();
    scenario(&|args| sb.journal(args), &sb);
    let s = Served::start();
    s.register(s.journal(&[]), "files@example.com");
    scenario(&|args| s.journal(args), &s.sb);
}

fn ok(run: &dyn Fn(&[&str]) -> Command, args: &[&str]) -> String {
    succeed(run(args))
}

fn write(sb: &Sandbox, name: &str, bytes: &[u8]) -> PathBuf {
    let path = sb.path(name);
    std::fs::write(&path, bytes).expect("write a file to attach");
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// About 3 MiB of text: more than one chunk each way.
fn long_text() -> Vec<u8> {
    (0..60_000)
        .map(|i| format!("line {i:05} of the garden notes, the roses came back\n"))
        .collect::<String>()
        .into_bytes()
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

/// A 4×3 red PNG.
pub(crate) fn png() -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&4u32.to_be_bytes());
    header.extend_from_slice(&3u32.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &header);
    let raw: Vec<u8> = (0..3)
        .flat_map(|_| [0u8].into_iter().chain([255, 0, 0].repeat(4)))
        .collect();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut z, &raw).unwrap();
    png_chunk(&mut out, b"IDAT", &z.finish().unwrap());
    png_chunk(&mut out, b"IEND", &[]);
    out
}

/// The start of an ELF program: a type no journal accepts.
const ELF: &[u8] = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00";

fn new_entry_in(run: &dyn Fn(&[&str]) -> Command, title: &str) -> String {
    ok(run, &["new", title]).trim().to_owned()
}

/// The entry's attachments as `journal attachments --json` lists them.
fn listed(run: &dyn Fn(&[&str]) -> Command, entry: &str) -> Vec<serde_json::Value> {
    json(&ok(run, &["attachments", entry, "--json"]))
        .as_array()
        .expect("a list")
        .clone()
}

/// Every regular file under `dir`, however deep.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_file_is_attached_listed_read_back_whole_and_detached() {
    in_both_modes(|run, sb| {
        let entry = new_entry_in(run, "The garden");
        let notes = write(sb, "notes.txt", &long_text());
        let photo = write(sb, "red.png", &png());

        let printed = ok(
            run,
            &[
                "attach",
                &entry[entry.len() - 6..],
                arg(&notes),
                arg(&photo),
            ],
        );
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len(), 2, "one line per file: {printed}");
        assert!(lines[0].contains("  notes.txt  "), "{printed}");
        assert!(lines[0].contains("MiB"), "{printed}");
        assert!(lines[0].ends_with("text/plain; charset=utf-8"), "{printed}");
        assert!(lines[1].ends_with("image/png"), "{printed}");

        let list = listed(run, &entry);
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0]["name"], "notes.txt");
        assert_eq!(list[0]["size"], long_text().len());
        assert_eq!(list[0]["entryId"], entry.as_str());
        assert_eq!(list[1]["width"], 4);
        assert_eq!(list[1]["height"], 3);
        let table = ok(run, &["attachments", &entry]);
        assert!(table.starts_with("ID "), "{table}");
        assert!(table.contains("4×3"), "{table}");
        // `show` names them, and its JSON carries them as the server's entry does.
        let shown = json(&ok(run, &["show", &entry, "--json"]));
        assert_eq!(shown["title"], "The garden");
        assert_eq!(shown["attachments"][1]["name"], "red.png", "{shown}");
        let shown = ok(run, &["show", &entry]);
        assert!(shown.contains("attachments: notes.txt ("), "{shown}");

        let text_id = list[0]["id"].as_str().unwrap().to_owned();
        let out = sb.path("back.txt");
        ok(run, &["get", &text_id, "-o", arg(&out)]);
        assert!(
            std::fs::read(&out).unwrap() == long_text(),
            "the file comes back byte for byte"
        );
        // Not on a terminal, without -o: to standard output.
        let photo_id = list[1]["id"].as_str().unwrap();
        let piped = run(&["get", photo_id]).output().expect("journal runs");
        assert!(piped.status.success());
        assert_eq!(
            piped.stdout.len() as u64,
            list[1]["size"].as_u64().unwrap(),
            "the photo's stored bytes"
        );
        assert!(piped.stdout.starts_with(b"\x89PNG"));
        let dashed = run(&["get", &text_id, "-o", "-"])
            .output()
            .expect("journal runs");
        assert!(dashed.stdout == long_text());

        let detached = ok(run, &["detach", &text_id, "--yes"]);
        assert!(detached.contains(&text_id), "{detached}");
        let list = listed(run, &entry);
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0]["id"], photo_id);
    });
}

#[test]
fn new_attach_makes_the_entry_then_attaches_each_file() {
    in_both_modes(|run, sb| {
        let notes = write(sb, "notes.txt", b"Roses, tulips.\n");
        let photo = write(sb, "red.png", &png());
        let out = run(&[
            "new",
            "--attach",
            arg(&notes),
            "--attach",
            arg(&photo),
            "Planted today",
        ])
        .output()
        .expect("journal runs");
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        // Only the id on standard output, as scripts read it.
        let entry = stdout.trim();
        assert_eq!(entry.len(), 36, "{stdout}");
        let names: Vec<String> = listed(run, entry)
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["notes.txt", "red.png"]);

        let shown = json(&ok(
            run,
            &["new", "--json", "--attach", arg(&notes), "Again"],
        ));
        assert_eq!(shown["title"], "Again");
        assert_eq!(shown["attachments"][0]["name"], "notes.txt");
    });
}

#[test]
fn files_that_cannot_be_attached_are_refused_in_one_line() {
    in_both_modes(|run, sb| {
        let entry = new_entry_in(run, "Refusals");
        let notes = write(sb, "notes.txt", b"fine\n");
        let missing = sb.path("missing.jpg");

        let err = fail(
            run(&["attach", &entry, arg(&notes), arg(&missing)]),
            NOT_FOUND,
        );
        assert!(err.contains("missing.jpg: no such file"), "{err}");
        assert!(
            listed(run, &entry).is_empty(),
            "nothing is attached when one file is missing"
        );
        let before = json(&ok(run, &["list", "--json"]))["total"].clone();
        fail(
            run(&["new", "--attach", arg(&missing), "Never made"]),
            NOT_FOUND,
        );
        assert_eq!(
            json(&ok(run, &["list", "--json"]))["total"],
            before,
            "no entry is made without its file"
        );

        // A named pipe would hold `attach` forever, waiting for a writer.
        let pipe = sb.path("pipe.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        let err = fail(run(&["attach", &entry, arg(&pipe)]), USAGE);
        assert!(err.contains("pipe.txt is not a regular file"), "{err}");
        let err = fail(run(&["attach", &entry, "/dev/zero"]), USAGE);
        assert!(err.contains("not a regular file"), "{err}");

        let program = write(sb, "tool.png", ELF);
        let err = fail(run(&["attach", &entry, arg(&program)]), USAGE);
        assert!(err.contains("tool.png"), "{err}");
        assert!(err.contains("not accepted"), "{err}");

        let unknown = "01900000-0000-7000-8000-000000000000";
        let err = fail(run(&["attach", unknown, arg(&notes)]), NOT_FOUND);
        assert!(err.contains(&format!("entry {unknown} not found")), "{err}");
        let err = fail(run(&["get", "not-an-id"]), NOT_FOUND);
        assert!(err.contains("attachment not-an-id not found"), "{err}");
        fail(run(&["detach", unknown, "--yes"]), NOT_FOUND);
        assert!(listed(run, &entry).is_empty());
    });
}

#[test]
fn a_server_refuses_a_file_past_its_limit_or_its_space() {
    let s = Served::start_with(&["--max-attachment", "1KiB", "--attachment-quota", "2KiB"]);
    s.register(s.journal(&[]), "limits@example.com");
    let entry = s.ok(&["new", "Limits"]).trim().to_owned();
    let small = write(&s.sb, "small.txt", &b"a".repeat(900));
    let large = write(&s.sb, "large.txt", &b"b".repeat(4 * 1024));
    // Refused on its declared length, before its bytes are read.
    let huge = write(&s.sb, "huge.txt", &b"c".repeat(8 * 1024 * 1024));

    let err = fail(s.journal(&["attach", &entry, arg(&large)]), USAGE);
    assert!(err.contains("large.txt: a file may be at most"), "{err}");
    let err = fail(s.journal(&["attach", &entry, arg(&huge)]), USAGE);
    assert!(err.contains("huge.txt: a file may be at most"), "{err}");

    s.ok(&["attach", &entry, arg(&small)]);
    s.ok(&[
        "attach",
        &entry,
        arg(&write(&s.sb, "b.txt", &b"d".repeat(900))),
    ]);
    let third = write(&s.sb, "c.txt", &b"e".repeat(900));
    let err = fail(s.journal(&["attach", &entry, arg(&third)]), 1);
    assert!(err.contains("does not fit in your space"), "{err}");
    let list = json(&s.ok(&["attachments", &entry, "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 2);
}

#[test]
fn get_on_a_terminal_writes_the_attachments_own_name_and_never_over_a_file() {
    let sb = Sandbox::new();
    let entry = new_entry(&sb, &["Terminal"]);
    let notes = write(&sb, "notes.txt", b"written on a terminal\n");
    sb.ok(&["attach", &entry, arg(&notes)]);
    let id = json(&sb.ok(&["attachments", &entry, "--json"]))[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let folder = sb.path("downloads");
    std::fs::create_dir(&folder).unwrap();
    let mut cmd = sb.journal(&["get", &id]);
    cmd.current_dir(&folder);
    let Some(out) = on_terminal(&cmd, "") else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read(folder.join("notes.txt")).unwrap(),
        b"written on a terminal\n"
    );

    std::fs::write(folder.join("notes.txt"), b"mine").unwrap();
    let out = on_terminal(&cmd, "").expect("script is there");
    assert_eq!(out.status.code(), Some(USAGE), "{out:?}");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("notes.txt already exists"), "{shown}");
    assert_eq!(
        std::fs::read(folder.join("notes.txt")).unwrap(),
        b"mine",
        "an existing file is left alone"
    );
}

#[test]
fn admin_gc_after_a_purge_leaves_no_file_beside_the_journal() {
    let sb = Sandbox::new();
    let entry = new_entry(&sb, &["To be purged"]);
    let notes = write(&sb, "notes.txt", b"short-lived\n");
    let photo = write(&sb, "red.png", &png());
    sb.ok(&["attach", &entry, arg(&notes), arg(&photo)]);
    let folder = sb.path("journal-files");
    assert_eq!(
        files_under(&folder).len(),
        2,
        "files are kept beside the journal"
    );

    assert_eq!(sb.ok(&["admin", "gc"]).trim(), "removed 0 rows and 0 files");
    sb.ok(&["rm", &entry, "--yes"]);
    sb.ok(&["purge", &entry, "--yes"]);
    let report = sb.ok(&["admin", "gc"]);
    assert!(report.starts_with("removed "), "{report}");
    assert!(report.trim_end().ends_with(" and 2 files"), "{report}");
    assert_eq!(files_under(&folder), Vec::<PathBuf>::new());
    let again = json(&sb.ok(&["admin", "gc", "--json"]));
    assert_eq!(again["rows"], 0);
    assert_eq!(again["files"], 0);
}

#[test]
fn admin_gc_needs_the_database_not_a_server() {
    let sb = Sandbox::new();
    let err = fail(sb.bare(&["--server", &dead_server(), "admin", "gc"]), USAGE);
    assert!(err.contains("needs a local database"), "{err}");
}

/// The files of a zip archive by name, and its `journal.json`.
fn unzip(
    path: &Path,
) -> (
    std::collections::BTreeMap<String, Vec<u8>>,
    serde_json::Value,
) {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut files = std::collections::BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).unwrap();
        files.insert(file.name().unwrap().into_owned(), bytes);
    }
    let document = serde_json::from_slice(&files["journal.json"]).unwrap();
    (files, document)
}

/// What must come back from an archive: each entry's id, title, text and attachments.
fn kept(document: &serde_json::Value) -> Vec<serde_json::Value> {
    document["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            serde_json::json!({
                "id": e["_id"], "title": e["title"], "content": e["content"],
                "attachments": e["attachments"],
            })
        })
        .collect()
}

/// "The garden" with `notes` and `photo` attached, the photo linked in its text: the
/// entry's id and the photo's.
fn garden_with(run: &dyn Fn(&[&str]) -> Command, notes: &Path, photo: &Path) -> (String, String) {
    let entry = new_entry_in(run, "The garden");
    ok(run, &["attach", &entry, arg(notes), arg(photo)]);
    let photo_id = listed(run, &entry)[1]["id"].as_str().unwrap().to_owned();
    let content = format!("Roses.\n\n![red](attachment:{photo_id})");
    ok(run, &["edit", &entry, "--content", &content]);
    (entry, photo_id)
}

#[test]
fn a_zip_export_imports_back_with_its_files_and_exports_the_same() {
    in_both_modes(|run, sb| {
        let notes = write(sb, "notes.txt", &long_text());
        let photo = write(sb, "red.png", &png());
        let (entry, _) = garden_with(run, &notes, &photo);
        let first = sb.path("first.zip");
        ok(run, &["export", "--format", "zip", "--output", arg(&first)]);
        let (first_files, first_doc) = unzip(&first);
        assert_eq!(first_files.len(), 3, "journal.json and two files");

        let elsewhere = Sandbox::new();
        let imported = elsewhere.ok(&["import", arg(&first)]);
        assert!(imported.contains("imported 1 entry"), "{imported}");
        let second = elsewhere.path("second.zip");
        elsewhere.ok(&["export", "--format", "zip", "--output", arg(&second)]);
        let (second_files, second_doc) = unzip(&second);
        assert_eq!(
            kept(&second_doc),
            kept(&first_doc),
            "entries and attachments kept"
        );
        for (name, bytes) in &first_files {
            if name != "journal.json" {
                assert_eq!(
                    second_files.get(name),
                    Some(bytes),
                    "{name} comes back the same"
                );
            }
        }
        let again = elsewhere.ok(&["import", arg(&first)]);
        assert!(again.contains("skipped 1 entry"), "{again}");
        let listed_again = json(&elsewhere.ok(&["attachments", &entry, "--json"]));
        assert_eq!(listed_again.as_array().unwrap().len(), 2, "no file twice");
    });
}

/// A zip archive of `files`, as Day One writes its export.
fn zip_of(path: &Path, files: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut zip, bytes).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_day_one_zip_imports_with_its_photos_and_pdfs_where_the_text_showed_them() {
    let pdf = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".to_vec();
    let journal = serde_json::json!({
        "metadata": {"version": "1.0"},
        "entries": [{
            "uuid": "81F0F3CA693F484792F76359E9E2ACE8",
            "creationDate": "2023-07-01T08:00:00Z",
            "text": "![](dayone-moment://AD6F2A6EC10C41AEA35E94BAD169936D)\n\n# Beach day\n\nWe swam\\.\n\n![](dayone-moment:/pdfAttachment/77AA)\n\n![](dayone-moment:/video/99BB)",
            "photos": [
                {"identifier": "AD6F2A6EC10C41AEA35E94BAD169936D", "md5": "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "type": "png"},
                {"identifier": "CC00", "md5": "ffffffffffffffffffffffffffffffff", "type": "jpeg"}
            ],
            "pdfAttachments": [{"identifier": "77AA", "md5": "1234567890abcdef1234567890abcdef", "type": "pdf"}],
            "videos": [{"identifier": "99BB", "md5": "fedcba0987654321fedcba0987654321", "type": "mov"}]
        }]
    });
    in_both_modes(|run, sb| {
        let archive = sb.path("dayone.zip");
        zip_of(
            &archive,
            &[
                ("Journal.json", journal.to_string().as_bytes()),
                ("photos/0a1b2c3d4e5f60718293a4b5c6d7e8f9.png", &png()),
                ("pdfs/1234567890abcdef1234567890abcdef.pdf", &pdf),
                (
                    "videos/fedcba0987654321fedcba0987654321.mov",
                    b"\0\0\0\x14ftypqt  ",
                ),
            ],
        );
        let out = json(&ok(run, &["import", arg(&archive), "--json"]));
        assert_eq!(out["imported"], 1, "{out}");
        assert_eq!(out["attachments"], 2, "the photo and the PDF: {out}");
        let notes = out["notes"].to_string();
        assert!(
            notes.contains("left out 2 media files"),
            "the video and the missing photo: {notes}"
        );
        let entry = out["ids"][0].as_str().unwrap().to_owned();

        let shown = json(&ok(run, &["show", &entry, "--json"]));
        assert_eq!(shown["title"], "Beach day");
        let files = listed(run, &entry);
        assert_eq!(files.len(), 2, "{files:?}");
        let photo = files
            .iter()
            .find(|f| f["contentType"] == "image/png")
            .unwrap();
        let document = files
            .iter()
            .find(|f| f["contentType"] == "application/pdf")
            .unwrap();
        let (photo_id, pdf_id) = (
            photo["id"].as_str().unwrap(),
            document["id"].as_str().unwrap(),
        );
        assert_eq!(
            shown["content"].as_str().unwrap(),
            format!(
                "![](attachment:{photo_id})\n\nWe swam.\n\n[1234567890abcdef1234567890abcdef.pdf](attachment:{pdf_id})"
            ),
            "each file where the text showed it; the video's place taken out"
        );
        let got = sb.path("got.pdf");
        ok(run, &["get", pdf_id, "-o", arg(&got)]);
        assert_eq!(std::fs::read(&got).unwrap(), pdf, "the PDF's bytes");

        let again = json(&ok(run, &["import", arg(&archive), "--json"]));
        assert_eq!(again["imported"], 0, "{again}");
        assert_eq!(again["skipped"], 1, "{again}");
        assert_eq!(listed(run, &entry).len(), 2, "no file twice");
        let all = json(&ok(run, &["list", "--json"]));
        assert_eq!(all["total"], 1, "{all}");
    });
}

/// Every file under `dir` by its path relative to `dir`, with its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn a_markdown_folder_export_keeps_the_files_beside_the_entries_and_imports_back() {
    in_both_modes(|run, sb| {
        new_entry_in(run, "No files here");
        let notes = write(sb, "notes.md", b"# not an entry\n\njust a text file\n");
        let photo = write(sb, "red dot.png", &png());
        let (entry, photo_id) = garden_with(run, &notes, &photo);
        let first = sb.path("first");
        ok(
            run,
            &[
                "export",
                "--format",
                "markdown-dir",
                "--output",
                arg(&first),
            ],
        );
        let written = folder(&first);
        let photo_path = format!("attachments/{photo_id}-red-dot.png");
        let stored = sb.path("stored.png");
        ok(run, &["get", &photo_id, "-o", arg(&stored)]);
        assert_eq!(
            written.get(&photo_path),
            Some(&std::fs::read(&stored).unwrap()),
            "the photo beside the entries: {:?}",
            written.keys().collect::<Vec<_>>()
        );
        assert_eq!(
            written.len(),
            4,
            "two entries, two files: {:?}",
            written.keys()
        );
        let garden = written
            .iter()
            .find(|(name, _)| name.ends_with("the-garden.md"))
            .map(|(_, text)| String::from_utf8(text.clone()).unwrap())
            .expect("the garden's file");
        assert!(
            garden.contains(&format!("![red]({photo_path})")),
            "linked: {garden}"
        );
        assert!(garden.contains("attachments:"), "listed: {garden}");

        let elsewhere = Sandbox::new();
        let imported = elsewhere.ok(&["import", arg(&first)]);
        assert!(
            imported.contains("imported 2 entries and 2 attachments"),
            "{imported}"
        );
        let second = elsewhere.path("second");
        elsewhere.ok(&[
            "export",
            "--format",
            "markdown-dir",
            "--output",
            arg(&second),
        ]);
        assert_eq!(
            folder(&second),
            written,
            "out, in, out again: the same folder"
        );

        let again = elsewhere.ok(&["import", arg(&first)]);
        assert!(again.contains("skipped 2 entries"), "{again}");
        let listed_again = json(&elsewhere.ok(&["attachments", &entry, "--json"]));
        assert_eq!(listed_again.as_array().unwrap().len(), 2, "no file twice");
    });
}

/// A folder of notes written by hand, listing their pictures by path, imports once:
/// the second import skips the note and stores no file twice. (Each import gave the
/// picture a new id, so the note's text, `attachment:ID`, differed, and it came in
/// again.)
#[test]
fn a_hand_written_folder_imports_once_however_often_it_is_imported() {
    let sb = Sandbox::new();
    let notes = sb.path("notes");
    std::fs::create_dir_all(notes.join("pictures")).unwrap();
    std::fs::write(notes.join("pictures").join("red.png"), png()).unwrap();
    std::fs::write(
        notes.join("walk.md"),
        "---\ntitle: A walk\ndate: 2024-05-01T09:00:00Z\nattachments:\n  - pictures/red.png\n---\nThe red one: ![red](pictures/red.png)\n",
    )
    .unwrap();
    let first = sb.ok(&["import", arg(&notes)]);
    assert!(first.contains("imported 1 entry"), "{first}");
    let again = sb.ok(&["import", arg(&notes)]);
    assert!(again.contains("skipped 1 entry"), "{again}");
    let all = json(&sb.ok(&["list", "--json"]));
    assert_eq!(all["total"], 1, "{all}");
    let id = all["entries"][0]["_id"].as_str().unwrap().to_owned();
    let files = json(&sb.ok(&["attachments", &id, "--json"]));
    assert_eq!(files.as_array().unwrap().len(), 1, "{files}");
}
