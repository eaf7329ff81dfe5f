//! Hostile zip archives at the import route: a member's name never becomes a path, a
//! member's size is the bytes it inflates to whatever its header says, a member the
//! document does not name costs nothing, an attachment id someone else has gives no
//! access to their file, a stored file's listed SHA-256 is its bytes', and a zip bomb
//! stops at its bound. Every refusal is a JSON error and changes nothing.

use std::path::{Path, PathBuf};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::archives::{entries, import, sha256, start, total, zip_of};
use crate::attachments::{png, walk};
use crate::support::{Api, User, assert_error, body, on_every_database};

on_every_database!(
    member_names_never_become_paths,
    a_member_is_as_large_as_it_inflates_whatever_its_header_says,
    fifty_thousand_members_no_one_names_cost_little,
    an_attachment_id_someone_else_has_gives_no_access_to_their_file,
    a_stored_files_listed_sha256_is_its_bytes_whatever_the_document_claims,
    a_zip_bomb_document_stops_at_its_bound,
);

/// Our export document of `entries`, its `format` first as the export writes it.
fn document(entries: &[Value]) -> Vec<u8> {
    format!(
        r#"{{"format":"journal-export","version":3,"exportedAt":"2024-05-01T00:00:00.000Z","entries":{}}}"#,
        Value::from(entries.to_vec())
    )
    .into_bytes()
}

/// An entry of our export, its `attachments` as given.
fn entry(title: &str, content: &str, attachments: Value) -> Value {
    json!({
        "title": title, "content": content, "isPublic": false, "tags": [], "starred": false,
        "createdAt": "2024-04-01T10:00:00.000Z", "attachments": attachments,
    })
}

/// An attachment as our export lists it.
fn listed(id: &str, name: &str, content_type: &str, bytes: &[u8]) -> Value {
    json!({
        "id": id, "name": name, "contentType": content_type, "size": bytes.len(),
        "sha256": sha256(bytes), "createdAt": "2024-04-01T10:00:00.000Z",
    })
}

/// A name no other test or run uses, for files that must not appear.
fn unique(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("journal-{what}-{}-{nanos}", std::process::id())
}

/// `X-Total-Count` of `GET /api/attachments`.
async fn files(api: &Api, who: &User) -> u64 {
    total(api, who, "/api/attachments").await
}

/// Checks a refusal: `status` as a JSON error, and `who` has the entries and files
/// they had before.
async fn refused(
    api: &Api,
    who: &User,
    response: reqwest::Response,
    status: u16,
    before: ((u64, u64), u64),
) -> String {
    let reason = StatusCode::from_u16(status)
        .unwrap()
        .canonical_reason()
        .unwrap();
    let message = assert_error(response, status, reason).await;
    assert_eq!(
        (entries(api, who).await, files(api, who).await),
        before,
        "a refusal changes nothing: {message}"
    );
    message
}

async fn counts(api: &Api, who: &User) -> ((u64, u64), u64) {
    (entries(api, who).await, files(api, who).await)
}

/// The SQLite database's folder, for a `sqlite:` URL.
fn database_dir(db: &str) -> Option<PathBuf> {
    let file = db.strip_prefix("sqlite:")?;
    Path::new(file).parent().map(Path::to_owned)
}

/// A deflated zip member built from a head, `repeat` copies of `chunk` and a tail,
/// each copy's deflated bytes written once and sent `repeat` times: a member of
/// hundreds of MiB costs the test no time. Answers (deflated bytes, CRC-32, size).
fn deflated(head: &[u8], chunk: &[u8], repeat: usize, tail: &[u8]) -> (Vec<u8>, u32, u64) {
    use flate2::{Compress, Compression, FlushCompress};
    fn pass(c: &mut Compress, input: &[u8], flush: FlushCompress) -> Vec<u8> {
        let mut out = Vec::new();
        let mut taken = 0;
        loop {
            out.reserve(64 * 1024);
            let before = c.total_in();
            let status = c.compress_vec(&input[taken..], &mut out, flush).unwrap();
            taken += usize::try_from(c.total_in() - before).unwrap();
            let done = match flush {
                FlushCompress::Finish => status == flate2::Status::StreamEnd,
                _ => taken == input.len() && out.len() < out.capacity(),
            };
            if done {
                return out;
            }
        }
    }
    // A full flush forgets what came before, so the chunk deflates to the same bytes
    // wherever it stands.
    let mut c = Compress::new(Compression::best(), false);
    let mut stream = pass(&mut c, head, FlushCompress::Full);
    let copy = pass(&mut c, chunk, FlushCompress::Full);
    let again = pass(&mut c, chunk, FlushCompress::Full);
    assert_eq!(copy, again, "a chunk deflates alike after a full flush");
    for _ in 0..repeat {
        stream.extend_from_slice(&copy);
    }
    stream.extend_from_slice(&pass(&mut c, tail, FlushCompress::Finish));

    let mut crc = flate2::Crc::new();
    crc.update(head);
    let mut one = flate2::Crc::new();
    one.update(chunk);
    for _ in 0..repeat {
        crc.combine(&one);
    }
    let mut last = flate2::Crc::new();
    last.update(tail);
    crc.combine(&last);
    let size = (head.len() + chunk.len() * repeat + tail.len()) as u64;
    (stream, crc.sum(), size)
}

/// A zip archive written by hand: each member its name, deflated bytes, CRC-32 and the
/// size its headers claim, which need not be the size it inflates to.
fn raw_zip(members: &[(&str, &[u8], u32, u64)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, crc, claimed) in members {
        let offset = u32::try_from(out.len()).unwrap();
        let (compressed, claimed) = (
            u32::try_from(data.len()).unwrap(),
            u32::try_from(*claimed).unwrap(),
        );
        let name_len = u16::try_from(name.len()).unwrap();
        // Version 2.0, UTF-8 names, deflated, 1980-01-01.
        let common = |out: &mut Vec<u8>| {
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&0x0800u16.to_le_bytes());
            out.extend_from_slice(&8u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0x21u16.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&compressed.to_le_bytes());
            out.extend_from_slice(&claimed.to_le_bytes());
            out.extend_from_slice(&name_len.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes());
        common(&mut central);
        // No comment, disk 0, no internal or external attributes.
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = u32::try_from(out.len()).unwrap();
    let count = u16::try_from(members.len()).unwrap();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&u32::try_from(central.len()).unwrap().to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    // What the server will read: the members by name, each claiming its size.
    let mut read = zip::ZipArchive::new(std::io::Cursor::new(&out)).expect("a valid zip");
    for (name, _, _, claimed) in members {
        assert_eq!(read.by_name(name).expect(name).size(), *claimed);
    }
    out
}

/// A zip archive of `files`, stored as they are (quick to write, however many).
fn stored_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in files {
        zip.start_file(*name, options).unwrap();
        std::io::Write::write_all(&mut zip, bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A line of `/proc/PID/status` (`VmHWM`, `VmRSS`), in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// User and system CPU seconds the process has used.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let per_second = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(100);
    ticks as f64 / per_second as f64
}

async fn member_names_never_become_paths(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let name = unique("escape");
    let marker = format!("written by a hostile archive {name}").into_bytes();
    let hostile = [
        format!("../../{name}"),
        format!("/tmp/{name}"),
        format!("attachments/../../{name}"),
        format!("photos/../../{name}.png"),
    ];

    // Ours: members the document does not name are not read at all.
    let text_id = "01900000-0000-7000-8000-00000000000a";
    let notes = b"notes, named by the document".to_vec();
    let doc = document(&[entry(
        "Ours",
        &format!("[notes](attachment:{text_id})"),
        json!([listed(text_id, "../../notes.txt", "text/plain", &notes)]),
    )]);
    let member = format!("attachments/{text_id}");
    let mut members: Vec<(&str, &[u8])> = vec![("journal.json", &doc), (&member, &notes)];
    members.extend(hostile.iter().map(|h| (h.as_str(), marker.as_slice())));
    let response = import(&api, &ada, "application/zip", zip_of(&members)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    assert_eq!(answer["attachments"], 1, "{answer}");
    let stored = body(api.get("/api/attachments", Some(&ada.token)).await).await;
    assert_eq!(
        stored[0]["name"], "notes.txt",
        "only the last part of a name"
    );

    // An attachment id that is a path is no id: refused, nothing stored.
    let before = counts(&api, &ada).await;
    let doc = document(&[entry(
        "Path",
        "text",
        json!([listed(
            &format!("../../{name}"),
            "x.txt",
            "text/plain",
            &marker
        )]),
    )]);
    let member = format!("attachments/../../{name}");
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[("journal.json", &doc), (&member, &marker)]),
    )
    .await;
    let message = refused(&api, &ada, response, 400, before).await;
    assert!(message.contains("not an attachment id"), "{message}");

    // Day One's: a photo's md5 that climbs out of `photos/` still only names a member,
    // read into memory and stored as any upload.
    let photo = png(false);
    let journal = json!({ "entries": [{
        "creationDate": "2023-07-01T08:00:00Z",
        "text": "Climbing\n\n![](dayone-moment://AB12)",
        "photos": [{ "identifier": "AB12", "md5": format!("../../{name}"), "type": "png" }],
    }]});
    let journal = journal.to_string();
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[
            ("Journal.json", journal.as_bytes()),
            (hostile[3].as_str(), &photo),
            (hostile[0].as_str(), &marker),
            (hostile[1].as_str(), &marker),
        ]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    assert_eq!(answer["attachments"], 1, "{answer}");
    let all = body(api.get("/api/attachments", Some(&ada.token)).await).await;
    let climbed = all
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["contentType"] == "image/png")
        .unwrap_or_else(|| panic!("{all}"));
    assert_eq!(climbed["name"], format!("{name}.png"));

    // Nothing landed where a name points, from anywhere the server might start from.
    let mut bases = vec![
        dir.path().to_owned(),
        dir.path().join("attachments"),
        dir.path().join("photos"),
        std::env::current_dir().unwrap(),
    ];
    bases.extend(database_dir(db));
    for base in &bases {
        for h in &hostile {
            let path = base.join(h);
            assert!(!path.exists(), "{} exists", path.display());
        }
    }
    assert!(!Path::new(&format!("/tmp/{name}")).exists());
    // And no file the server keeps holds the hostile members' bytes.
    let mut kept = walk(dir.path());
    if let Some(d) = database_dir(db) {
        kept.extend(walk(&d));
    }
    for file in kept {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !bytes.windows(marker.len()).any(|w| w == marker),
            "{} holds a member no one named",
            file.display()
        );
    }
}

async fn a_member_is_as_large_as_it_inflates_whatever_its_header_says(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &["--max-attachment", "64KiB"]);
    let ada = api.user("ada").await;
    let id = "01900000-0000-7000-8000-0000000000b1";
    // 10 MiB of zeros, and of text (a type the journal takes, so only the size can
    // keep it out), each claiming 1,000 bytes in both of the zip's headers; and the
    // text again claiming its true size.
    for (fill, content_type, claimed) in [
        (0u8, "application/octet-stream", 1000u64),
        (b'a', "text/plain", 1000),
        (b'a', "text/plain", 10 << 20),
    ] {
        let chunk = vec![fill; 1 << 20];
        let (data, crc, size) = deflated(&[], &chunk, 10, &[]);
        assert_eq!(size, 10 << 20);
        assert!(data.len() < 64 << 10, "{} bytes", data.len());
        let small = vec![fill; 1000];
        let doc = document(&[entry(
            &format!("Big {content_type} claiming {claimed}"),
            &format!("A big file:\n\n![big](attachment:{id})"),
            json!([listed(id, "big.bin", content_type, &small)]),
        )]);
        let (doc_data, doc_crc, doc_size) = deflated(&doc, &[], 0, &[]);
        let member = format!("attachments/{id}");
        let archive = raw_zip(&[
            ("journal.json", &doc_data, doc_crc, doc_size),
            (&member, &data, crc, claimed),
        ]);
        let before = counts(&api, &ada).await;
        let response = import(&api, &ada, "application/zip", archive).await;
        let status = response.status();
        assert!(
            status == StatusCode::CREATED || status.is_client_error(),
            "{status}"
        );
        if status == StatusCode::CREATED {
            let answer = body(response).await;
            println!(
                "{content_type}, 10 MiB claiming {claimed}: {}",
                answer["notes"]
            );
            assert_eq!(answer["attachments"], 0, "{answer}");
            assert!(
                answer["notes"].to_string().contains("left out"),
                "the file is left out, and said so: {answer}"
            );
            let text = answer["entries"][0]["content"].as_str().unwrap_or_default();
            assert!(!text.contains(id), "and its link with it: {text}");
        } else {
            let message = refused(&api, &ada, response, status.as_u16(), before).await;
            println!("{content_type}, 10 MiB claiming {claimed}: {status} {message}");
        }
        assert_eq!(files(&api, &ada).await, 0);
        for file in walk(dir.path()) {
            let size = std::fs::metadata(&file).unwrap().len();
            assert!(size <= 64 << 10, "{} holds {size} bytes", file.display());
        }
    }
}

async fn fifty_thousand_members_no_one_names_cost_little(db: &str) {
    let doc = document(&[entry("Crowded", "Only text.", json!([]))]);
    let names: Vec<String> = (0..50_000).map(|i| format!("junk/{i:05}")).collect();
    let mut members: Vec<(&str, &[u8])> = vec![("journal.json", &doc)];
    members.extend(names.iter().map(|n| (n.as_str(), b"x".as_slice())));
    let ours = stored_zip(&members);
    // Day One's, each member where a photo would be, none named by an entry.
    let journal =
        json!({ "entries": [{ "creationDate": "2023-07-01T08:00:00Z", "text": "Crowded" }] })
            .to_string();
    let photos: Vec<String> = (0..50_000)
        .map(|i| format!("photos/{i:032x}.jpeg"))
        .collect();
    let mut members: Vec<(&str, &[u8])> = vec![("Journal.json", journal.as_bytes())];
    members.extend(photos.iter().map(|n| (n.as_str(), b"x".as_slice())));
    let day_one = stored_zip(&members);

    // Started after the archives are made: a connection left idle that long is closed.
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let pid = api.server.pid();
    for (what, archive) in [("ours", ours), ("Day One's", day_one)] {
        let size = archive.len();
        let before = cpu_seconds(pid);
        let response = import(&api, &ada, "application/zip", archive).await;
        let spent = cpu_seconds(pid) - before;
        println!("50,000 members ({what}, {size} bytes): the server spent {spent:.2} s of CPU");
        let status = response.status();
        assert!(
            status == StatusCode::CREATED || status == StatusCode::BAD_REQUEST,
            "{what}: {status}"
        );
        let answer = body(response).await;
        if status == StatusCode::CREATED {
            assert_eq!(answer["imported"], 1, "{what}: {answer}");
            assert_eq!(answer["attachments"], 0, "{what}: {answer}");
        }
    }
    assert_eq!(files(&api, &ada).await, 0);
}

async fn an_attachment_id_someone_else_has_gives_no_access_to_their_file(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let secret = b"Ada's private notes".to_vec();
    let created = api
        .http
        .post(api.url("/api/attachments?name=secret.txt"))
        .bearer_auth(&ada.token)
        .header("content-type", "application/octet-stream")
        .body(secret.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let adas = body(created).await;
    let adas_id = adas["id"].as_str().unwrap();
    let adas_link = format!("/api/attachments/{adas_id}");

    let bob = api.user("bob").await;
    // Bob's archive names Ada's id: once with his own bytes, once with hers (the
    // document claims her SHA-256 and size).
    for (title, bytes) in [
        ("Other bytes", b"Bob's bytes".to_vec()),
        ("Her bytes", secret.clone()),
    ] {
        let doc = document(&[entry(
            title,
            &format!("[mine](attachment:{adas_id})"),
            json!([listed(adas_id, "secret.txt", "text/plain", &bytes)]),
        )]);
        let member = format!("attachments/{adas_id}");
        let response = import(
            &api,
            &bob,
            "application/zip",
            zip_of(&[("journal.json", &doc), (&member, &bytes)]),
        )
        .await;
        assert_eq!(response.status(), StatusCode::CREATED, "{title}");
        let answer = body(response).await;
        assert_eq!(answer["attachments"], 1, "{title}: {answer}");
        let entry = &answer["entries"][0];
        let listed = body(
            api.get(
                &format!(
                    "/api/journal-entries/{}/attachments",
                    entry["_id"].as_str().unwrap()
                ),
                Some(&bob.token),
            )
            .await,
        )
        .await;
        let bobs_id = listed[0]["id"].as_str().unwrap();
        assert_ne!(bobs_id, adas_id, "{title}: a new id");
        assert_eq!(
            entry["content"],
            format!("[mine](attachment:{bobs_id})"),
            "{title}: the link follows"
        );
        let read = api
            .get(listed[0]["url"].as_str().unwrap(), Some(&bob.token))
            .await;
        assert_eq!(read.bytes().await.unwrap().to_vec(), bytes, "{title}");
        // Ada's file: hers still, and still not Bob's to read or delete.
        assert_error(
            api.get(&adas_link, Some(&bob.token)).await,
            404,
            "Not Found",
        )
        .await;
        assert_error(
            api.delete(&adas_link, Some(&bob.token)).await,
            404,
            "Not Found",
        )
        .await;
        let hers = api.get(&adas_link, Some(&ada.token)).await;
        assert_eq!(hers.status(), StatusCode::OK);
        assert_eq!(hers.bytes().await.unwrap().to_vec(), secret, "{title}");
        let ada_list = body(api.get("/api/attachments", Some(&ada.token)).await).await;
        assert_eq!(ada_list.as_array().unwrap().len(), 1, "{ada_list}");
        assert_eq!(ada_list[0]["id"], adas_id);
        assert_eq!(
            ada_list[0]["entryId"],
            Value::Null,
            "not attached to Bob's entry"
        );
    }
    assert_eq!(files(&api, &bob).await, 2);
}

async fn a_stored_files_listed_sha256_is_its_bytes_whatever_the_document_claims(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let id = "01900000-0000-7000-8000-0000000000e1";
    let bytes = b"The bytes as they are, longer than claimed.".to_vec();
    let mut claims = listed(id, "claims.txt", "text/plain", b"short");
    claims["sha256"] = json!("0".repeat(64));
    let doc = document(&[entry(
        "Claims",
        &format!("[f](attachment:{id})"),
        json!([claims]),
    )]);
    let member = format!("attachments/{id}");
    let before = counts(&api, &ada).await;
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[("journal.json", &doc), (&member, &bytes)]),
    )
    .await;
    let status = response.status();
    if status != StatusCode::CREATED {
        assert!(status.is_client_error(), "{status}");
        refused(&api, &ada, response, status.as_u16(), before).await;
        return;
    }
    let all = body(api.get("/api/attachments", Some(&ada.token)).await).await;
    for a in all.as_array().unwrap() {
        let read = api
            .get(a["url"].as_str().unwrap(), Some(&ada.token))
            .await
            .bytes()
            .await
            .unwrap();
        assert_eq!(a["sha256"], sha256(&read), "{a}");
        assert_eq!(a["size"], read.len(), "{a}");
        assert_eq!(read.to_vec(), bytes);
    }
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    // The export says what is stored, not what the document claimed.
    let archive = crate::archives::export_zip(&api, &ada).await;
    let unpacked = crate::archives::unzip(&archive);
    let exported: Value = serde_json::from_slice(&unpacked["journal.json"]).unwrap();
    let listed = &exported["entries"][0]["attachments"][0];
    let file = &unpacked[&format!("attachments/{}", listed["id"].as_str().unwrap())];
    assert_eq!(listed["sha256"], sha256(file));
    assert_eq!(listed["size"], file.len());
}

async fn a_zip_bomb_document_stops_at_its_bound(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    api.entry(&ada, "Already here", false).await;
    // 1 GiB of spaces between the document's brackets (1 MiB sent): valid JSON, far
    // past the 256 MiB a document may unpack to.
    let head = br#"{"format":"journal-export","version":3,"exportedAt":"2024-05-01T00:00:00.000Z","entries":["#;
    let (data, crc, size) = deflated(head, &vec![b' '; 1 << 20], 1024, b"]}");
    let archive = raw_zip(&[("journal.json", &data, crc, size)]);
    assert!(archive.len() < 2 << 20, "{} bytes", archive.len());
    let pid = api.server.pid();
    let before = counts(&api, &ada).await;
    let mut peaks = vec![status_kib(pid, "VmHWM")];
    // Twice: the second finds the memory the first let go.
    for _ in 0..2 {
        let response = import(&api, &ada, "application/zip", archive.clone()).await;
        peaks.push(status_kib(pid, "VmHWM"));
        let message = refused(&api, &ada, response, 400, before).await;
        assert!(message.contains("once unpacked"), "{message}");
    }
    println!(
        "zip bomb ({size} bytes unpacked, {} sent): VmHWM {peaks:?} KiB (before, after one, after two); VmRSS now {} KiB",
        archive.len(),
        status_kib(pid, "VmRSS")
    );
    // Read up to the bound and no further: the document's 256 MiB, in a buffer that
    // grows by doubling and an allocator that keeps what it freed (about 650 MiB at
    // the peak, measured), never the gigabyte; and no more for the second bomb.
    for (i, peak) in peaks.iter().enumerate().skip(1) {
        let grown = peak.saturating_sub(peaks[0]);
        assert!(grown < 1 << 20, "after {i}: the peak grew by {grown} KiB");
    }
}

/// What the three tests below start from: a server on SQLite (the bugs are the core's,
/// the same on both databases) and a user with one entry.
async fn one_entry(
    db: &crate::support::SqliteDb,
    dir: &tempfile::TempDir,
    more: &[&str],
) -> (Api, User) {
    let api = start(&db.url, dir, more);
    let ada = api.user("ada").await;
    api.entry(&ada, "Already here", false).await;
    (api, ada)
}

/// Our archive is ours whatever the order of its document's fields: `jq -S`, or any
/// tool that sorts keys, writes `format` after `entries`.
/// (`is_ours` looked in the document's first 512 bytes only, and past them the archive
/// was read as Day One's, its attachments dropped without a note.)
#[tokio::test]
async fn our_archive_is_told_by_its_format_wherever_the_document_writes_it() {
    let db = crate::support::SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let (api, ada) = one_entry(&db, &dir, &[]).await;
    let id = "01900000-0000-7000-8000-0000000000f1";
    let notes = b"the notes".to_vec();
    let long = "A long first entry. ".repeat(40);
    // serde_json writes an object's keys sorted: "entries" before "format".
    let doc = json!({
        "format": "journal-export", "version": 3,
        "exportedAt": "2024-05-01T00:00:00.000Z",
        "entries": [entry("Sorted", &format!("{long}[notes](attachment:{id})"),
                          json!([listed(id, "notes.txt", "text/plain", &notes)]))],
    })
    .to_string();
    assert!(doc.find("\"format\"").unwrap() > 512);
    let member = format!("attachments/{id}");
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[("journal.json", doc.as_bytes()), (&member, &notes)]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    assert_eq!(answer["imported"], 1, "{answer}");
    assert_eq!(answer["attachments"], 1, "{answer}");
    assert_eq!(files(&api, &ada).await, 1);
}

/// An export file holds at most 100,000 entries (`MAX_FILE_ENTRIES`, docs/API.md); an
/// archive's document is one too.
#[tokio::test]
async fn an_archive_of_more_than_100_000_entries_is_refused_like_any_file() {
    let db = crate::support::SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let (api, ada) = one_entry(&db, &dir, &["--import-timeout", "10s"]).await;
    let entries: Vec<Value> = (0..100_001)
        .map(|i| {
            json!({ "title": format!("t{i}"), "content": "a",
                    "createdAt": format!("2020-01-01T00:00:{:02}.{:03}Z", i % 60, i % 1000) })
        })
        .collect();
    let doc = document(&entries);
    let before = counts(&api, &ada).await;
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[("journal.json", &doc)]),
    )
    .await;
    let message = refused(&api, &ada, response, 400, before).await;
    assert!(message.contains("100000"), "{message}");
}

/// A document's entries cost memory in proportion to its bytes. A few hundred KB of
/// zip unpack to 16 MiB of tiny objects (1/16 of what the archive's bound lets
/// through): parsed whole, `{"a":1}` two million times took the server's peak up by
/// about 1.4 GiB (the bound would have allowed some 23 GiB). The document is read one
/// entry at a time now (`transfer/json_stream.rs`), each entry within 200,000 values
/// and the file within 100,000 entries, so each of these is refused within bounds:
/// tiny objects that are no entry (the first is refused), tiny entries that are valid
/// (refused past the 100,000th), one entry of tiny objects (refused at its values'
/// bound) and revisions that are empty objects (refused at the first, as the file is
/// read).
#[tokio::test]
async fn a_document_of_many_tiny_objects_costs_memory_in_proportion() {
    let db = crate::support::SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let (api, ada) = one_entry(&db, &dir, &[]).await;
    let head = r#"{"format":"journal-export","version":3,"exportedAt":"2024-05-01T00:00:00.000Z","entries":["#;
    let shapes: [(&str, &str, &str, &str); 4] = [
        // Entries of empty revisions, each `{}` a revision of 200 bytes held until
        // the import refused it: refused at the first, as the file is read.
        (
            "empty revisions",
            r#"{"title":"a","revisions":[{},{}]}"#,
            r#",{"title":"a","revisions":[{},{}]}"#,
            "]}",
        ),
        ("no entries", r#"{"a":1}"#, r#",{"a":1}"#, "]}"),
        (
            "valid entries",
            r#"{"title":"a"}"#,
            r#",{"title":"a"}"#,
            "]}",
        ),
        (
            "one entry",
            r#"{"title":"a","junk":[{"a":1}"#,
            r#",{"a":1}"#,
            "]}]}",
        ),
    ];
    let pid = api.server.pid();
    for (shape, first, more, tail) in shapes {
        let (data, crc, size) = deflated(
            format!("{head}{first}").as_bytes(),
            &[more.as_bytes(); 1 << 14].concat(),
            1024 / more.len(),
            tail.as_bytes(),
        );
        let archive = raw_zip(&[("journal.json", &data, crc, size)]);
        let peak = status_kib(pid, "VmHWM");
        let before = counts(&api, &ada).await;
        let response = import(&api, &ada, "application/zip", archive).await;
        // The kernel folds the current RSS into VmHWM only now and then, so a later
        // reading may be lower than an earlier one: that is no growth.
        let grown = status_kib(pid, "VmHWM").saturating_sub(peak);
        println!("{size} bytes of {shape}: the peak grew by {grown} KiB");
        let message = refused(&api, &ada, response, 400, before).await;
        assert!(grown < 256 * 1024, "{shape}: the peak grew by {grown} KiB");
        println!("{shape}: {message}");
    }
}

/// An archive refused for an entry the journal cannot take (a date before 1900, which
/// only the import checks) leaves nothing behind: not its entries, not its files.
/// (The files are stored before the entries are checked; they stayed as the caller's
/// unattached uploads, listed and counted against their space, until the collection a
/// day later.)
#[tokio::test]
async fn a_refused_archive_leaves_no_file_behind() {
    let db = crate::support::SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let (api, ada) = one_entry(&db, &dir, &[]).await;
    let id = "01900000-0000-7000-8000-0000000000c1";
    let notes = b"notes of an entry too old to import".to_vec();
    let mut old = entry(
        "Too old",
        &format!("[notes](attachment:{id})"),
        json!([listed(id, "notes.txt", "text/plain", &notes)]),
    );
    old["createdAt"] = json!("1850-01-01T00:00:00.000Z");
    let doc = document(&[old]);
    let member = format!("attachments/{id}");
    let before = counts(&api, &ada).await;
    let usage = body(
        api.get("/api/user/attachment-usage", Some(&ada.token))
            .await,
    )
    .await;
    let response = import(
        &api,
        &ada,
        "application/zip",
        zip_of(&[("journal.json", &doc), (&member, &notes)]),
    )
    .await;
    let message = refused(&api, &ada, response, 400, before).await;
    assert!(message.contains("1900"), "{message}");
    assert_eq!(
        body(
            api.get("/api/user/attachment-usage", Some(&ada.token))
                .await
        )
        .await,
        usage
    );
}
