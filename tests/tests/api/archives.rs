//! The zip archive over HTTP (issue 37): `GET /api/user/export?format=zip` and
//! `POST /api/journal-entries/import` with `application/zip` carry a journal with its
//! files from one account to another, byte for byte, and importing twice adds nothing;
//! Day One's `.zip` brings its photos where the text showed them.

use std::collections::BTreeMap;
use std::io::Write;

use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::attachments::png;
use crate::support::{Api, User, body, header, on_every_database};

on_every_database!(
    a_zip_export_imports_into_another_account_and_exports_the_same_files,
    a_day_one_zip_imports_with_its_photo_where_the_text_showed_it,
);

/// A server keeping files in a folder of its own (PostgreSQL needs one).
pub(crate) fn start(db: &str, dir: &tempfile::TempDir, more: &[&str]) -> Api {
    let mut args = vec!["--attachments-dir", dir.path().to_str().expect("path")];
    args.extend_from_slice(more);
    Api::start_with(db, &args)
}

pub(crate) fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// `POST /api/journal-entries/import` of `bytes` as `content_type`.
pub(crate) async fn import(
    api: &Api,
    who: &User,
    content_type: &str,
    bytes: Vec<u8>,
) -> reqwest::Response {
    api.http
        .post(api.url("/api/journal-entries/import"))
        .bearer_auth(&who.token)
        .header("content-type", content_type)
        .body(bytes)
        .send()
        .await
        .expect("the import reaches the server")
}

/// The zip export of `who`'s journal.
pub(crate) async fn export_zip(api: &Api, who: &User) -> Vec<u8> {
    let response = api
        .get("/api/user/export?format=zip", Some(&who.token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "content-type"), "application/zip");
    assert!(
        header(&response, "content-disposition").ends_with(".zip\""),
        "{}",
        header(&response, "content-disposition")
    );
    response.bytes().await.expect("the archive").to_vec()
}

/// Every member of a zip archive by name.
pub(crate) fn unzip(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip archive");
    let mut files = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).unwrap();
        files.insert(file.name().unwrap().into_owned(), bytes);
    }
    files
}

/// A zip archive of `files`, deflated.
pub(crate) fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// `X-Total-Count` of a list.
pub(crate) async fn total(api: &Api, who: &User, path: &str) -> u64 {
    let response = api.get(path, Some(&who.token)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    header(&response, "x-total-count")
        .parse()
        .expect("X-Total-Count is a number")
}

/// How many entries `who` has, live and in the trash.
pub(crate) async fn entries(api: &Api, who: &User) -> (u64, u64) {
    (
        total(api, who, &format!("/api/user/{}/journal-entries", who.id)).await,
        total(api, who, "/api/user/trash").await,
    )
}

/// The SHA-256 of each file under `attachments/`, sorted: what must come back.
fn file_hashes(files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut hashes: Vec<String> = files
        .iter()
        .filter(|(name, _)| name.starts_with("attachments/"))
        .map(|(_, bytes)| sha256(bytes))
        .collect();
    hashes.sort();
    hashes
}

/// Each entry of an export document (live, then the trash) as it must come back: its
/// title, its text with every attachment's id replaced by its position in the entry's
/// list (the ids are new in another account), and its attachments without their ids.
fn kept(document: &Value) -> Vec<Value> {
    let all = document["entries"]
        .as_array()
        .unwrap()
        .iter()
        .chain(document["trash"].as_array().unwrap());
    all.map(|e| {
        let mut content = e["content"].as_str().unwrap().to_owned();
        let attachments = e["attachments"].as_array().cloned().unwrap_or_default();
        let mut listed = Vec::new();
        for (i, a) in attachments.iter().enumerate() {
            content = content.replace(a["id"].as_str().unwrap(), &format!("#{i}"));
            let mut a = a.clone();
            a.as_object_mut().unwrap().remove("id");
            listed.push(a);
        }
        json!({
            "title": e["title"], "content": content, "attachments": listed,
            "deleted": e.get("deletedAt").is_some(),
        })
    })
    .collect()
}

async fn upload(api: &Api, who: &User, path: &str, bytes: Vec<u8>) -> Value {
    let response = api
        .http
        .post(api.url(path))
        .bearer_auth(&who.token)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .expect("upload reaches the server");
    assert_eq!(response.status(), StatusCode::CREATED, "upload {path}");
    body(response).await
}

/// The bytes a link reads, by `token` or by the link alone.
async fn read(api: &Api, url: &str, token: Option<&str>) -> Vec<u8> {
    let mut request = api.http.get(api.url(url));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request reaches the server");
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.bytes().await.unwrap().to_vec()
}

async fn a_zip_export_imports_into_another_account_and_exports_the_same_files(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let photo = png(false);
    let notes = "Notes from the garden.\nThe roses came back.\n"
        .repeat(200)
        .into_bytes();
    let pdf = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".to_vec();
    let trashed_text = b"kept with its entry in the trash".to_vec();

    // The garden: a photo shown in its text and a text file beside it.
    let garden = api.entry(&ada, "The garden", false).await;
    let garden_id = garden["_id"].as_str().unwrap();
    let on_garden = format!("/api/journal-entries/{garden_id}/attachments");
    let red = upload(
        &api,
        &ada,
        &format!("{on_garden}?name=red.png"),
        photo.clone(),
    )
    .await;
    upload(
        &api,
        &ada,
        &format!("{on_garden}?name=notes.txt"),
        notes.clone(),
    )
    .await;
    let edited = api
        .put(
            &format!("/api/journal-entries/{garden_id}"),
            Some(&ada.token),
            json!({ "content": format!("Roses.\n\n![x](attachment:{})\n", red["id"].as_str().unwrap()) }),
        )
        .await;
    assert_eq!(edited.status(), StatusCode::OK);
    // The plan: a file uploaded first, joined by the link its text was written with.
    let plan = upload(&api, &ada, "/api/attachments?name=plan.pdf", pdf.clone()).await;
    let created = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "The plan", "content": format!("See [the plan](attachment:{}).", plan["id"].as_str().unwrap()) }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    // An entry in the trash with its file.
    let gone = api.entry(&ada, "Gone", false).await;
    let gone_id = gone["_id"].as_str().unwrap();
    upload(
        &api,
        &ada,
        &format!("/api/journal-entries/{gone_id}/attachments?name=gone.txt"),
        trashed_text.clone(),
    )
    .await;
    let deleted = api
        .delete(&format!("/api/journal-entries/{gone_id}"), Some(&ada.token))
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);

    let first = export_zip(&api, &ada).await;
    let first_files = unzip(&first);
    let first_doc: Value = serde_json::from_slice(&first_files["journal.json"]).unwrap();
    let originals: BTreeMap<String, Vec<u8>> = [&photo, &notes, &pdf, &trashed_text]
        .into_iter()
        .map(|b| (sha256(b), b.clone()))
        .collect();
    assert_eq!(
        file_hashes(&first_files),
        originals.keys().cloned().collect::<Vec<_>>(),
        "the archive holds each file as uploaded: {:?}",
        first_files.keys().collect::<Vec<_>>()
    );
    assert_eq!(first_files.len(), 5, "journal.json and four files");
    for entry in kept(&first_doc) {
        for a in entry["attachments"].as_array().unwrap() {
            assert!(originals.contains_key(a["sha256"].as_str().unwrap()), "{a}");
        }
    }

    // Bob, on the same server: every id is Ada's, so his are new, and the links follow.
    let bob = api.user("bob").await;
    let response = import(&api, &bob, "application/zip", first.clone()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    assert_eq!(answer["imported"], 2, "{answer}");
    assert_eq!(answer["trashed"], 1, "{answer}");
    assert_eq!(answer["attachments"], 4, "{answer}");
    assert_eq!(entries(&api, &bob).await, (2, 1));
    assert_eq!(total(&api, &bob, "/api/attachments").await, 4);

    let second = export_zip(&api, &bob).await;
    let second_files = unzip(&second);
    let second_doc: Value = serde_json::from_slice(&second_files["journal.json"]).unwrap();
    assert_eq!(
        file_hashes(&second_files),
        file_hashes(&first_files),
        "the same files, byte for byte"
    );
    assert_eq!(kept(&second_doc), kept(&first_doc));
    for name in second_files.keys() {
        assert!(
            name == "journal.json"
                || (name.starts_with("attachments/") && !first_files.contains_key(name)),
            "{name}: every id in the first archive is Ada's, so Bob's copies have their own"
        );
    }

    // Read back through the links the entries' answers give: the original bytes.
    let links = regex::Regex::new(r"attachment:([0-9a-f-]{36})").unwrap();
    for entry in second_doc["entries"].as_array().unwrap() {
        let id = entry["_id"].as_str().unwrap();
        let answer = body(
            api.get(&format!("/api/journal-entries/{id}"), Some(&bob.token))
                .await,
        )
        .await;
        let listed = answer["attachments"].as_array().unwrap();
        assert_eq!(listed.len(), entry["attachments"].as_array().unwrap().len());
        for a in listed {
            let url = a["url"].as_str().unwrap();
            assert!(url.contains("sig="), "a private entry's link is signed");
            let bytes = read(&api, url, None).await;
            assert!(
                originals.contains_key(&sha256(&bytes)),
                "{} comes back as uploaded",
                a["name"]
            );
        }
        // Every link of the text names one of the entry's own files.
        let text = answer["content"].as_str().unwrap();
        assert!(links.is_match(text), "{text}");
        for link in links.captures_iter(text) {
            assert!(
                listed.iter().any(|a| a["id"] == link[1]),
                "the text links Bob's copy: {text}"
            );
        }
    }
    // The trash's file too, by its author.
    let all = body(
        api.get("/api/attachments?limit=100", Some(&bob.token))
            .await,
    )
    .await;
    let mut read_back = Vec::new();
    for a in all.as_array().unwrap() {
        let bytes = read(&api, a["url"].as_str().unwrap(), Some(&bob.token)).await;
        assert_eq!(sha256(&bytes), a["sha256"].as_str().unwrap());
        read_back.push(sha256(&bytes));
    }
    read_back.sort();
    assert_eq!(read_back, originals.keys().cloned().collect::<Vec<_>>());

    // Ada's archive into Ada's journal: every entry and file is there already, under
    // the same ids, and nothing is added.
    let (ada_entries, ada_files) = (
        entries(&api, &ada).await,
        total(&api, &ada, "/api/attachments").await,
    );
    let again = import(&api, &ada, "application/zip", first).await;
    assert_eq!(again.status(), StatusCode::CREATED);
    let again = body(again).await;
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["attachments"], 0, "{again}");
    assert_eq!(entries(&api, &ada).await, ada_entries, "{again}");
    assert_eq!(
        total(&api, &ada, "/api/attachments").await,
        ada_files,
        "{again}"
    );
}

async fn a_day_one_zip_imports_with_its_photo_where_the_text_showed_it(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = start(db, &dir, &[]);
    let ada = api.user("ada").await;
    let photo = png(false);
    let journal = json!({
        "metadata": { "version": "1.0" },
        "entries": [{
            "uuid": "81F0F3CA693F484792F76359E9E2ACE8",
            "creationDate": "2023-07-01T08:00:00Z",
            "text": "# Beach day\n\nThe sea:\n\n![](dayone-moment://AD6F2A6EC10C41AEA35E94BAD169936D)\n\nWe swam.",
            "photos": [{
                "identifier": "AD6F2A6EC10C41AEA35E94BAD169936D",
                "md5": "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
                "type": "png"
            }]
        }]
    });
    let archive = zip_of(&[
        ("Journal.json", journal.to_string().as_bytes()),
        ("photos/0a1b2c3d4e5f60718293a4b5c6d7e8f9.png", &photo),
    ]);
    let response = import(&api, &ada, "application/zip", archive.clone()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    assert_eq!(answer["imported"], 1, "{answer}");
    assert_eq!(answer["attachments"], 1, "{answer}");
    let id = answer["entries"][0]["_id"].as_str().unwrap();

    let entry = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(entry["title"], "Beach day");
    let listed = entry["attachments"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{entry}");
    assert_eq!(listed[0]["contentType"], "image/png");
    let photo_id = listed[0]["id"].as_str().unwrap();
    assert_eq!(
        entry["content"],
        format!("The sea:\n\n![](attachment:{photo_id})\n\nWe swam."),
        "the photo where the text showed it"
    );
    assert_eq!(
        read(&api, listed[0]["url"].as_str().unwrap(), None).await,
        photo
    );

    let again = body(import(&api, &ada, "application/zip", archive).await).await;
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["skipped"], 1, "{again}");
    assert_eq!(again["attachments"], 0, "{again}");
    assert_eq!(total(&api, &ada, "/api/attachments").await, 1);
}

/// Whoever imports an archive whose attachment ids are another account's (Ada's export
/// into Bob's journal, on the same server) gets new ids, and the entries' links with
/// them; importing the same archive again must find those and add nothing. The logic
/// is the core's, the same on both databases, so SQLite shows it.
#[tokio::test]
async fn an_archive_of_another_accounts_files_imported_twice_adds_nothing() {
    let db = crate::support::SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let api = start(&db.url, &dir, &[]);
    let ada = api.user("ada").await;
    let photo = upload(&api, &ada, "/api/attachments?name=red.png", png(false)).await;
    let created = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Roses", "content": format!("![x](attachment:{})", photo["id"].as_str().unwrap()) }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let archive = export_zip(&api, &ada).await;

    let bob = api.user("bob").await;
    let first = body(import(&api, &bob, "application/zip", archive.clone()).await).await;
    assert_eq!(
        (first["imported"].clone(), first["attachments"].clone()),
        (json!(1), json!(1)),
        "{first}"
    );
    let again = body(import(&api, &bob, "application/zip", archive).await).await;
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["attachments"], 0, "{again}");
    assert_eq!(entries(&api, &bob).await, (1, 0), "{again}");
    assert_eq!(total(&api, &bob, "/api/attachments").await, 1, "{again}");
}
