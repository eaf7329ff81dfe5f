//! Attachments over HTTP: uploads decided by their bytes and bounded in size and
//! space; reads under the entry's visibility on every request (a link stops working
//! the moment its entry turns private or goes); photos served without their location;
//! uploads made before their entry attached when its text names them.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, FilesAt, User, assert_error, body, header, on_every_store};

on_every_store!(
    a_file_is_stored_listed_read_in_ranges_and_deleted,
    a_private_entrys_file_is_404_to_everyone_else_by_every_link,
    uploads_are_refused_by_type_size_and_space,
    an_upload_made_before_its_entry_joins_it_when_the_text_names_it,
    a_photo_is_served_without_its_location,
    an_image_too_large_for_a_thumbnail_is_served_as_it_is,
);

pub(crate) async fn upload(
    api: &Api,
    user: &User,
    path: &str,
    bytes: Vec<u8>,
) -> reqwest::Response {
    api.http
        .post(api.url(path))
        .bearer_auth(&user.token)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .expect("upload reaches the server")
}

pub(crate) async fn fetch(api: &Api, url: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = api.http.get(api.url(url));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("request reaches the server")
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

/// A 4×3 red PNG; with `xmp`, carrying an XMP packet with a location in an `iTXt`
/// chunk, as cameras and phones write it.
pub(crate) fn png(xmp: bool) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&4u32.to_be_bytes());
    header.extend_from_slice(&3u32.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &header);
    if xmp {
        let mut itxt = b"XML:com.adobe.xmp\0\0\0\0\0".to_vec();
        itxt.extend_from_slice(
            br#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description exif:GPSLatitude="48,51.5N" exif:GPSLongitude="2,17.4E"/></rdf:RDF></x:xmpmeta>"#,
        );
        png_chunk(&mut out, b"iTXt", &itxt);
    }
    let raw: Vec<u8> = (0..3)
        .flat_map(|_| [0u8].into_iter().chain([255, 0, 0].repeat(4)))
        .collect();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut z, &raw).unwrap();
    png_chunk(&mut out, b"IDAT", &z.finish().unwrap());
    png_chunk(&mut out, b"IEND", &[]);
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

async fn a_file_is_stored_listed_read_in_ranges_and_deleted(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "With a file", false).await;
    let id = entry["_id"].as_str().unwrap();
    let text = "Notes from the garden.\nThe roses came back.\n".repeat(300);
    let created = upload(
        &api,
        &ada,
        &format!("/api/journal-entries/{id}/attachments?name=../../notes.txt"),
        text.clone().into_bytes(),
    )
    .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created = body(created).await;
    assert_eq!(
        created["name"], "notes.txt",
        "only the last part of a path is kept"
    );
    // A mark that turns the text around would show "gpj.exe" as "exe.jpg".
    let turned = upload(
        &api,
        &ada,
        "/api/attachments?name=%E2%80%AEgpj.exe%E2%81%A6.txt",
        b"plain".to_vec(),
    )
    .await;
    assert_eq!(body(turned).await["name"], "gpj.exe.txt");
    assert_eq!(created["contentType"], "text/plain; charset=utf-8");
    assert_eq!(created["entryId"], id);
    assert_eq!(created["size"], text.len());
    assert_eq!(created["sha256"].as_str().unwrap().len(), 64);
    let url = created["url"].as_str().unwrap();
    assert!(
        url.contains("sig="),
        "a private entry's file has a signed link: {url}"
    );

    // The signed link works without a token, as an <img> or a download would use it.
    let read = fetch(&api, url, None).await;
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(header(&read, "x-content-type-options"), "nosniff");
    assert!(header(&read, "content-disposition").starts_with("attachment;"));
    assert_eq!(
        header(&read, "etag"),
        format!("\"{}\"", created["sha256"].as_str().unwrap())
    );
    assert_eq!(read.text().await.unwrap(), text);

    // A range.
    let plain = format!("/api/attachments/{}", created["id"].as_str().unwrap());
    let part = api
        .http
        .get(api.url(&plain))
        .bearer_auth(&ada.token)
        .header("range", "bytes=6-11")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        header(&part, "content-range"),
        format!("bytes 6-11/{}", text.len())
    );
    assert_eq!(part.text().await.unwrap(), "from t");
    let outside = api
        .http
        .get(api.url(&plain))
        .bearer_auth(&ada.token)
        .header("range", format!("bytes={}-", text.len() + 10))
        .send()
        .await
        .unwrap();
    assert_eq!(outside.status(), StatusCode::RANGE_NOT_SATISFIABLE);

    // Listed with its entry.
    let listed = body(
        fetch(
            &api,
            &format!("/api/journal-entries/{id}/attachments"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], created["id"]);

    // Deleted by its author only.
    let bob = api.user("bob").await;
    let refused = api.delete(&plain, Some(&bob.token)).await;
    assert_error(refused, 404, "Not Found").await;
    let deleted = api.delete(&plain, Some(&ada.token)).await;
    assert_eq!(deleted.status(), StatusCode::OK);
    let listed = body(
        fetch(
            &api,
            &format!("/api/journal-entries/{id}/attachments"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(listed, json!([]));
    let again = api.delete(&plain, Some(&ada.token)).await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
}

async fn a_private_entrys_file_is_404_to_everyone_else_by_every_link(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "Public, then not", true).await;
    let id = entry["_id"].as_str().unwrap();
    let created = body(
        upload(
            &api,
            &ada,
            &format!("/api/journal-entries/{id}/attachments?name=red.png"),
            png(false),
        )
        .await,
    )
    .await;
    let plain = format!("/api/attachments/{}", created["id"].as_str().unwrap());
    assert_eq!(
        created["url"], plain,
        "a public entry's file has a plain link"
    );
    assert_eq!(created["width"], 4);
    assert_eq!(created["height"], 3);

    let anonymous = fetch(&api, &plain, None).await;
    assert_eq!(anonymous.status(), StatusCode::OK);
    assert!(header(&anonymous, "content-disposition").starts_with("inline;"));
    assert_eq!(header(&anonymous, "content-type"), "image/png");
    assert_eq!(
        fetch(&api, &plain, Some(&bob.token)).await.status(),
        StatusCode::OK
    );

    // Made private: the plain link stops at once, for everyone but its author.
    let made_private = api
        .put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "isPublic": false }),
        )
        .await;
    assert_eq!(made_private.status(), StatusCode::OK);
    assert_error(fetch(&api, &plain, None).await, 404, "Not Found").await;
    assert_error(
        fetch(&api, &plain, Some(&bob.token)).await,
        404,
        "Not Found",
    )
    .await;
    assert_eq!(
        fetch(&api, &plain, Some(&ada.token)).await.status(),
        StatusCode::OK
    );
    let listed = body(
        fetch(
            &api,
            &format!("/api/journal-entries/{id}/attachments"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    let signed = listed[0]["url"].as_str().unwrap().to_owned();
    assert!(signed.contains("sig="));
    assert_eq!(fetch(&api, &signed, None).await.status(), StatusCode::OK);
    // Bob cannot list it, nor use Ada's link as his, nor forge one.
    assert_error(
        fetch(
            &api,
            &format!("/api/journal-entries/{id}/attachments"),
            Some(&bob.token),
        )
        .await,
        404,
        "Not Found",
    )
    .await;
    let forged = signed.replace(&ada.id, &bob.id);
    assert_error(fetch(&api, &forged, None).await, 404, "Not Found").await;
    let last = if signed.ends_with('a') { 'b' } else { 'a' };
    let tampered = format!("{}{last}", &signed[..signed.len() - 1]);
    assert_error(fetch(&api, &tampered, None).await, 404, "Not Found").await;

    // Deleted: even the author's link stops; the author's token still reads it from
    // the trash.
    assert_eq!(
        api.delete(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await
            .status(),
        StatusCode::OK
    );
    assert_error(fetch(&api, &signed, None).await, 404, "Not Found").await;
    assert_error(fetch(&api, &plain, None).await, 404, "Not Found").await;
    assert_eq!(
        fetch(&api, &plain, Some(&ada.token)).await.status(),
        StatusCode::OK
    );
}

async fn uploads_are_refused_by_type_size_and_space(db: &str, files: &FilesAt) {
    let api = files.start(
        db,
        &["--max-attachment", "4KiB", "--attachment-quota", "10KiB"],
    );
    let ada = api.user("ada").await;
    let svg =
        br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.to_vec();
    // SVG is text to a sniffer: it is refused by name of what it is, never served.
    let refused = upload(&api, &ada, "/api/attachments?name=x.svg", svg).await;
    let status = refused.status();
    assert!(status == StatusCode::UNSUPPORTED_MEDIA_TYPE, "{status}");
    let elf = [b"\x7fELF\x02\x01\x01".as_slice(), &[0u8; 64]].concat();
    let message = assert_error(
        upload(&api, &ada, "/api/attachments", elf).await,
        415,
        "Unsupported Media Type",
    )
    .await;
    assert!(
        message.contains("JPEG, PNG, WebP, GIF") && !message.contains("HEIC"),
        "HEIC is refused unless the operator keeps photos' metadata: {message}"
    );
    // A photo's signature and nothing after it: no size to show it at.
    for head in [&b"GIF89a"[..], b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0"] {
        let message = assert_error(
            upload(&api, &ada, "/api/attachments", head.to_vec()).await,
            415,
            "Unsupported Media Type",
        )
        .await;
        assert!(
            message.contains("width and height") || message.contains("cannot be read"),
            "{message}"
        );
    }
    assert_error(
        upload(&api, &ada, "/api/attachments", Vec::new()).await,
        400,
        "Bad Request",
    )
    .await;
    let big = "a".repeat(5000).into_bytes();
    assert_error(
        upload(&api, &ada, "/api/attachments", big).await,
        413,
        "Payload Too Large",
    )
    .await;
    // The same bytes twice take their space once: 0, 0, 1, 2 fill 9,000 of 10,240.
    for i in [0, 0, 1, 2] {
        let file = format!("{i}").repeat(3000).into_bytes();
        let stored = upload(&api, &ada, "/api/attachments", file).await;
        assert_eq!(stored.status(), StatusCode::CREATED, "file {i}");
    }
    let over = upload(
        &api,
        &ada,
        "/api/attachments",
        "x".repeat(3000).into_bytes(),
    )
    .await;
    let message = assert_error(over, 507, "Insufficient Storage").await;
    assert!(message.contains("space"), "{message}");
    let small = upload(
        &api,
        &ada,
        "/api/attachments",
        "y".repeat(1000).into_bytes(),
    )
    .await;
    assert_eq!(
        small.status(),
        StatusCode::CREATED,
        "what still fits is taken"
    );
    // No token: 401; another's entry: 404 when private.
    let anonymous = api
        .http
        .post(api.url("/api/attachments"))
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let bob = api.user("bob").await;
    let bobs = api.entry(&bob, "Bob's", false).await;
    let into_bobs = upload(
        &api,
        &ada,
        &format!(
            "/api/journal-entries/{}/attachments",
            bobs["_id"].as_str().unwrap()
        ),
        b"hello".to_vec(),
    )
    .await;
    assert_error(into_bobs, 404, "Not Found").await;
}

async fn an_upload_made_before_its_entry_joins_it_when_the_text_names_it(
    db: &str,
    files: &FilesAt,
) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let pasted = body(upload(&api, &ada, "/api/attachments?name=red.png", png(false)).await).await;
    assert_eq!(pasted["entryId"], Value::Null);
    let id = pasted["id"].as_str().unwrap();
    // Bob naming Ada's upload in his entry does not take it.
    let bobs = body(
        api.post(
            "/api/journal-entries",
            Some(&bob.token),
            json!({ "title": "Bob's", "content": format!("![x](attachment:{id})") }),
        )
        .await,
    )
    .await;
    let bob_list = body(
        fetch(
            &api,
            &format!(
                "/api/journal-entries/{}/attachments",
                bobs["_id"].as_str().unwrap()
            ),
            Some(&bob.token),
        )
        .await,
    )
    .await;
    assert_eq!(bob_list, json!([]));
    let entry = body(
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Roses", "content": format!("Look:\n\n![red](attachment:{id})\n") }),
        )
        .await,
    )
    .await;
    let listed = body(
        fetch(
            &api,
            &format!(
                "/api/journal-entries/{}/attachments",
                entry["_id"].as_str().unwrap()
            ),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["id"], id);
    assert_eq!(listed[0]["entryId"], entry["_id"]);
}

async fn a_photo_is_served_without_its_location(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let photo = png(true);
    assert!(contains(&photo, b"GPSLatitude"));
    let created =
        body(upload(&api, &ada, "/api/attachments?name=red.png", photo.clone()).await).await;
    let served = fetch(&api, created["url"].as_str().unwrap(), None).await;
    assert_eq!(served.status(), StatusCode::OK);
    let served = served.bytes().await.unwrap();
    assert!(!contains(&served, b"GPSLatitude"), "the location is gone");
    assert!(!contains(&served, b"xmpmeta"), "so is the XMP packet");
    assert!(served.starts_with(b"\x89PNG"), "still a PNG");
    assert!(served.len() < photo.len());
    // Nor is it kept at rest.
    let stored = walk(&files.stored_dir());
    assert!(!stored.is_empty());
    for file in &stored {
        let bytes = std::fs::read(file).unwrap();
        assert!(!contains(&bytes, b"GPSLatitude"), "{}", file.display());
    }
    // A folder's files are readable by the server only (a bucket is its server's).
    #[cfg(unix)]
    if let FilesAt::Folder(dir) = files {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        for file in stored {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", file.display());
            // The author's folder too (the object store made it 0755).
            let folder = file.parent().unwrap();
            let mode = std::fs::metadata(folder).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
        }
    }
}

pub(crate) fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A PNG that says it is 30000×30000 (900 million pixels): more than a thumbnail is
/// made of. Its `?size=thumb` is the file itself, never a 500 (it was one).
async fn an_image_too_large_for_a_thumbnail_is_served_as_it_is(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let mut huge = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&30_000u32.to_be_bytes());
    ihdr.extend_from_slice(&30_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut huge, b"IHDR", &ihdr);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut z, &vec![0u8; 1 << 20]).unwrap();
    png_chunk(&mut huge, b"IDAT", &z.finish().unwrap());
    png_chunk(&mut huge, b"IEND", &[]);
    let response = upload(&api, &ada, "/api/attachments?name=huge.png", huge).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let stored = body(response).await;
    assert_eq!(stored["width"], 30_000);
    let url = stored["url"].as_str().unwrap();
    let whole = fetch(&api, url, Some(&ada.token))
        .await
        .bytes()
        .await
        .unwrap();
    let separator = if url.contains('?') { '&' } else { '?' };
    let thumb = fetch(
        &api,
        &format!("{url}{separator}size=thumb"),
        Some(&ada.token),
    )
    .await;
    assert_eq!(thumb.status(), StatusCode::OK);
    assert_eq!(header(&thumb, "content-type"), "image/png");
    assert_eq!(thumb.bytes().await.unwrap(), whole, "the file as it is");
}
