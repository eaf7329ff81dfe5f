//! Attachments over HTTP: uploading a file (streamed, with its own size and time
//! limits), listing an entry's, reading one back (ranges, thumbnails, links a browser's
//! `<img>` can use) and deleting one. Who may read what is decided in the core, on
//! every request.

use std::collections::HashMap;

use futures_util::TryStreamExt;
use journal_core::{
    Attachment, AttachmentId, Caller, Journal, Page, PageRequest, Reader, UploadRequest, UserId,
};
use serde::Serialize;
use warp::Filter;
use warp::http::header::{
    CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_SECURITY_POLICY,
    CONTENT_TYPE, ETAG, X_CONTENT_TYPE_OPTIONS,
};
use warp::http::{HeaderMap, HeaderValue, StatusCode};
use warp::reply::Response;

use super::entries::entry_id;
use super::pages::paged_items;
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::entry_attachments::url;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, paging, query_map, with_journal};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/attachments", "GET, POST", upload_route(state)),
        Served::new("/api/user/attachment-usage", "GET", usage_route(state)),
        Served::new(
            "/api/attachments/{id}",
            "GET, DELETE",
            attachment_route(state),
        ),
        Served::new(
            "/api/journal-entries/{id}/attachments",
            "GET, POST",
            entry_attachments_route(state),
        ),
    ]
}

/// An attachment as the API answers it: with the link its reader can use.
#[derive(Serialize)]
pub(crate) struct AttachmentJson<'a> {
    #[serde(flatten)]
    pub(crate) attachment: &'a Attachment,
    pub(crate) url: String,
}

/// Whether anyone may read `a` now; not when that cannot be told (a signed link works
/// either way).
async fn is_public(journal: &Journal, a: &Attachment) -> bool {
    journal.attachment_is_public(&a.id).await.unwrap_or(false)
}

/// The link `reader` can read `a` by: plain while anyone may read it (`public`: no
/// per-reader secret, so a page cached for everyone holds none), else signed for the
/// reader and minutes long.
fn with_url<'a>(
    journal: &Journal,
    reader: &UserId,
    a: &'a Attachment,
    public: bool,
) -> AttachmentJson<'a> {
    let plain = format!("/api/attachments/{}", a.id);
    let url = if public {
        plain
    } else {
        format!("{plain}?{}", journal.attachment_link(reader, &a.id))
    };
    AttachmentJson { attachment: a, url }
}

fn attachment_id(raw: &str) -> Result<AttachmentId, warp::Rejection> {
    raw.parse::<AttachmentId>()
        .map_err(|e| reject(journal_core::Error::from(e)))
}

fn upload_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "attachments");
    let post =
        path()
            .and(warp::post())
            .and(with_journal(state.journal.clone()))
            .and(authenticated(state.journal.clone()))
            .and(query_map())
            .and(warp::header::headers_cloned())
            .and(warp::body::stream())
            .and_then(
                |journal: Journal,
                 caller: Caller,
                 query: HashMap<String, String>,
                 headers,
                 body| async move {
                    let entry = query.get("entryId").map(|id| entry_id(id)).transpose()?;
                    upload(
                        journal,
                        caller,
                        entry,
                        query.get("name").cloned(),
                        headers,
                        body,
                    )
                    .await
                },
            );
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(paging())
        .and_then(my_attachments);
    let other = path().and(not_allowed("GET, POST"));
    get.or(post).unify().or(other).unify().boxed()
}

/// `GET /api/attachments`: the caller's attachments, newest first, each with the link
/// they can read it by, paged as the other lists (`X-Total-Count`, `Link`).
async fn my_attachments(journal: Journal, caller: Caller, page: PageRequest) -> Reply_ {
    // Numbered pages only: a cursor names an entry, not an attachment.
    let page = journal
        .my_attachments(&caller, page.continuing(None))
        .await
        .map_err(reject)?;
    let items = page
        .items
        .iter()
        .map(|stored| AttachmentJson {
            attachment: &stored.attachment,
            url: url(&journal, Some(caller.user_id()), stored)
                .unwrap_or_else(|| format!("/api/attachments/{}", stored.attachment.id)),
        })
        .collect();
    let answer = Page {
        items,
        total: page.total,
        total_is_lower_bound: page.total_is_lower_bound,
        page: page.page,
        limit: page.limit,
    };
    Ok(paged_items(&answer, "/api/attachments"))
}

fn usage_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / "attachment-usage");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(|journal: Journal, caller: Caller| async move {
            let usage = journal.attachment_usage(&caller).await.map_err(reject)?;
            Ok::<_, warp::Rejection>(json(StatusCode::OK, &usage))
        });
    let other = path().and(not_allowed("GET"));
    get.or(other).unify().boxed()
}

/// An upload's bytes as the core reads them.
pub(crate) type UploadStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send>>;

/// An upload's body as the core streams it, and the size its `Content-Length` says
/// (checked against the limits before the bytes come).
pub(crate) fn upload_body<S, B>(headers: &HeaderMap, body: S) -> (Option<u64>, UploadStream)
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: warp::Buf + Send,
{
    let declared_size = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let body = Box::pin(
        body.map_ok(|mut chunk| chunk.copy_to_bytes(chunk.remaining()))
            .map_err(std::io::Error::other),
    );
    (declared_size, body)
}

/// `POST /api/attachments` and `POST /api/journal-entries/:id/attachments`: the raw
/// file as the body.
async fn upload<S, B>(
    journal: Journal,
    caller: Caller,
    entry: Option<journal_core::EntryId>,
    name: Option<String>,
    headers: HeaderMap,
    body: S,
) -> Reply_
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: warp::Buf + Send,
{
    let (declared_size, body) = upload_body(&headers, body);
    let request = UploadRequest {
        name,
        entry_id: entry,
        declared_size,
    };
    let attachment = journal
        .upload_attachment(&caller, &request, body)
        .await
        .map_err(reject)?;
    let public = is_public(&journal, &attachment).await;
    let answer = with_url(&journal, caller.user_id(), &attachment, public);
    Ok(json(StatusCode::CREATED, &answer))
}

fn entry_attachments_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String / "attachments");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            let entry = entry_id(&id)?;
            let list = journal
                .entry_attachments(&caller, &entry)
                .await
                .map_err(reject)?;
            // One entry's files are as public as the entry: asked once, not per file.
            let public = match list.first() {
                Some(a) => is_public(&journal, a).await,
                None => false,
            };
            let answer: Vec<_> = list
                .iter()
                .map(|a| with_url(&journal, caller.user_id(), a, public))
                .collect();
            Ok::<_, warp::Rejection>(json(StatusCode::OK, &answer))
        });
    let post = path()
        .and(warp::post())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(query_map())
        .and(warp::header::headers_cloned())
        .and(warp::body::stream())
        .and_then(
            |id: String,
             journal: Journal,
             caller: Caller,
             query: HashMap<String, String>,
             headers,
             body| async move {
                let entry = entry_id(&id)?;
                upload(
                    journal,
                    caller,
                    Some(entry),
                    query.get("name").cloned(),
                    headers,
                    body,
                )
                .await
            },
        );
    let other = path()
        .and(not_allowed("GET, POST"))
        .map(|_: String, reply: Response| reply);
    get.or(post).unify().or(other).unify().boxed()
}

fn attachment_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "attachments" / String);
    let journal = state.journal.clone();
    let get = path()
        .and(warp::get().or(warp::head()).unify())
        .and(with_journal(state.journal.clone()))
        .and(warp::header::headers_cloned())
        .and(query_map())
        .and_then(
            move |id: String,
                  journal: Journal,
                  headers: HeaderMap,
                  query: HashMap<String, String>| async move {
                read(id, journal, headers, query).await
            },
        );
    let delete = path()
        .and(warp::delete())
        .and(with_journal(journal.clone()))
        .and(authenticated(journal))
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            let id = attachment_id(&id)?;
            journal
                .delete_attachment(&caller, &id)
                .await
                .map_err(reject)?;
            Ok::<_, warp::Rejection>(message("Attachment deleted."))
        });
    let other = path()
        .and(not_allowed("GET, DELETE"))
        .map(|_: String, reply: Response| reply);
    get.or(delete).unify().or(other).unify().boxed()
}

/// Who reads: the bearer of a token, the reader a link names, or nobody in particular.
async fn reader(
    journal: &Journal,
    id: &AttachmentId,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
) -> Result<Reader, warp::Rejection> {
    // A link's parts are checked whoever reads: a malformed link is 400 for everyone.
    let expires = query
        .get("expires")
        .map(|e| {
            e.parse::<i64>().map_err(|_| {
                reject(ApiError::bad_request(
                    "expires must be a whole number of seconds, as the link gave it",
                ))
            })
        })
        .transpose()?;
    if headers.contains_key(warp::http::header::AUTHORIZATION) {
        let token = crate::filters::bearer_token(headers).map_err(reject)?;
        let caller = journal.authenticate(token).await.map_err(reject)?;
        return Ok(Reader::Token(*caller.user_id()));
    }
    match (query.get("reader"), expires, query.get("sig")) {
        (Some(reader), Some(expires), Some(sig)) => {
            // A link that no longer holds reads as nobody's: an expired link to a
            // private file is a 404, exactly as an unknown id.
            Ok(journal
                .link_reader(id, reader, expires, sig)
                .map_or(Reader::Anonymous, Reader::Link))
        }
        _ => Ok(Reader::Anonymous),
    }
}

/// `GET /api/attachments/:id[?size=thumb]`: the bytes, with `Range` support.
async fn read(
    id: String,
    journal: Journal,
    headers: HeaderMap,
    query: HashMap<String, String>,
) -> Reply_ {
    let id = attachment_id(&id)?;
    let thumb = match query.get("size").map(String::as_str) {
        None | Some("full") => false,
        Some("thumb") => true,
        Some(other) => {
            return Err(reject(ApiError::bad_request(format!(
                "size must be thumb or full, not {:?}",
                other.chars().take(20).collect::<String>()
            ))));
        }
    };
    let reader = reader(&journal, &id, &headers, &query).await?;
    let attachment = journal.attachment(reader, &id).await.map_err(reject)?;
    let etag = format!(
        "\"{}{}\"",
        attachment.sha256,
        if thumb { "-thumb" } else { "" }
    );
    if headers
        .get(warp::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        let mut response = Response::default();
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        set(&mut response, ETAG, &etag);
        return Ok(response);
    }
    let range = if thumb {
        None
    } else {
        match headers
            .get(warp::http::header::RANGE)
            .and_then(|v| v.to_str().ok())
        {
            Some(raw) => match byte_range(raw, attachment.size) {
                Some(range) => Some(range),
                None => {
                    let mut response = ApiError::new(
                        StatusCode::RANGE_NOT_SATISFIABLE,
                        format!(
                            "the range {raw:?} is outside the file's {} bytes",
                            attachment.size
                        ),
                    )
                    .into_response();
                    set(
                        &mut response,
                        CONTENT_RANGE,
                        &format!("bytes */{}", attachment.size),
                    );
                    return Ok(response);
                }
            },
            None => None,
        }
    };
    let body = journal
        .attachment_body(reader, &id, thumb, range.clone())
        .await
        .map_err(reject)?;
    let length = range.as_ref().map_or(body.total, |r| r.end - r.start);
    let mut response = crate::streamed_body::response(body.bytes);
    if let Some(r) = &range {
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        set(
            &mut response,
            CONTENT_RANGE,
            &format!("bytes {}-{}/{}", r.start, r.end - 1, body.total),
        );
    }
    set(&mut response, CONTENT_TYPE, &body.content_type);
    set(&mut response, CONTENT_LENGTH, &length.to_string());
    set(&mut response, ETAG, &etag);
    set(&mut response, X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(&mut response, "accept-ranges", "bytes");
    // Who may read changes with the entry: every read asks the server again.
    set(&mut response, CACHE_CONTROL, "private, no-cache");
    // A file is never a page: nothing in it runs, even opened on its own.
    set(
        &mut response,
        CONTENT_SECURITY_POLICY,
        "default-src 'none'; sandbox",
    );
    let inline = body.content_type.starts_with("image/");
    set(
        &mut response,
        CONTENT_DISPOSITION,
        &disposition(inline, &body.attachment.name),
    );
    Ok(response)
}

fn set(response: &mut Response, name: impl warp::http::header::IntoHeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

/// `inline` or `attachment`, with the file's name as RFC 6266 writes any name.
fn disposition(inline: bool, name: &str) -> String {
    let kind = if inline { "inline" } else { "attachment" };
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_ ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b".-_".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("{kind}; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// One range of `Range: bytes=…` within `size` bytes, as `start..end`; `None` when it
/// cannot be satisfied. Several ranges are answered as the first.
fn byte_range(raw: &str, size: u64) -> Option<std::ops::Range<u64>> {
    let spec = raw.trim().strip_prefix("bytes=")?.split(',').next()?.trim();
    let (start, end) = spec.split_once('-')?;
    let (start, end) = match (start.trim(), end.trim()) {
        ("", suffix) => {
            let n: u64 = suffix.parse().ok()?;
            (size.saturating_sub(n), size)
        }
        (start, "") => (start.parse().ok()?, size),
        (start, end) => (
            start.parse().ok()?,
            end.parse::<u64>().ok()?.saturating_add(1).min(size),
        ),
    };
    (start < end && start < size).then_some(start..end)
}

/// `attachments` in the `Entry` schema, once the trash's and the export's copies of it
/// (which carry none) are made. The import's answer lists the new entries without
/// them too (an import brings no files): its entries are `ImportedEntry`, `Entry` as
/// it was.
pub(crate) fn add_entry_attachments(doc: &mut serde_json::Value) {
    let imported = doc["components"]["schemas"]["Entry"].clone();
    doc["components"]["schemas"]["ImportEntriesResponse"]["properties"]["entries"]["items"] =
        crate::openapi::schema("ImportedEntry");
    crate::openapi::add_schemas(doc, serde_json::json!({ "ImportedEntry": imported }));
    let entry = &mut doc["components"]["schemas"]["Entry"];
    entry["properties"]["attachments"] = serde_json::json!({
        "type": "array", "items": crate::openapi::schema("EntryAttachment"),
        "description": "Its attachments, oldest first; [] when none."
    });
    if let Some(required) = entry["required"].as_array_mut() {
        required.push("attachments".into());
    }
    crate::openapi::add_schemas(
        doc,
        serde_json::json!({
            "EntryAttachment": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "name", "contentType", "size", "url"],
                "properties": {
                    "id": { "type": "string", "format": "uuid" },
                    "name": { "type": "string" },
                    "contentType": { "type": "string" },
                    "size": { "type": "integer", "minimum": 0 },
                    "url": { "type": "string", "description": "A link the caller can read it by: plain for a public entry's, signed and minutes long otherwise (the same link all minute); add `size=thumb` for an image's thumbnail" }
                }
            }
        }),
    );
}

/// This module's operations in the OpenAPI document.
pub(crate) fn document(doc: &mut serde_json::Value) {
    use crate::openapi::{add_paths, add_schemas, error, error_when, ok, schema};
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let entry_id = serde_json::json!({
        "name": "id", "in": "path", "required": true,
        "description": "The entry's _id.", "schema": { "type": "string", "format": "uuid" }
    });
    let attachment_id = serde_json::json!({
        "name": "id", "in": "path", "required": true,
        "description": "The attachment's id.", "schema": { "type": "string", "format": "uuid" }
    });
    let name = serde_json::json!({
        "name": "name", "in": "query", "required": false,
        "description": "The file's name, kept for downloads (its last path part, at most 255 characters).",
        "schema": { "type": "string" }
    });
    let file = serde_json::json!({
        "required": true,
        "description": "The file itself, as raw bytes. Its type is decided by its bytes, not by Content-Type.",
        "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } }
    });
    let refusals = |mut responses: serde_json::Value| {
        responses["201"] = ok("Stored", schema("Attachment"));
        responses["400"] = error_when("An empty file");
        responses["401"] = error("Unauthorized");
        responses["413"] =
            error_when("Larger than the server's --max-attachment (or a photo past 64 MiB)");
        responses["415"] = error_when(
            "A type not accepted (as its bytes say), or a HEIC photo whose location cannot be removed",
        );
        responses["507"] = error_when("Past the account's --attachment-quota");
        responses
    };
    add_paths(
        doc,
        serde_json::json!({
            "/api/attachments": {
                "get": {
                    "operationId": "myAttachments", "tags": ["attachments"], "security": bearer,
                    "summary": "The caller's attachments, newest first, attached or not, each with a link the caller can read it by",
                    "description": "Paged as the other lists (`page`, `limit` up to 100), with X-Total-Count and Link headers. The space they take is at `GET /api/user/attachment-usage`.",
                    "parameters": [
                        { "$ref": "#/components/parameters/page" },
                        { "$ref": "#/components/parameters/limit" }
                    ],
                    "responses": {
                        "200": ok("The attachments", serde_json::json!({ "type": "array", "items": schema("Attachment") })),
                        "400": error_when("A bad page or limit"), "401": error("Unauthorized")
                    }
                },
                "post": {
                    "operationId": "uploadAttachment", "tags": ["attachments"], "security": bearer,
                    "summary": "Upload a file for an entry, or for one not yet saved",
                    "description": "Streamed to storage. Attached to `entryId` when given; else attached when an entry's content names `attachment:ID`, or collected after a day. Photos lose their location and other metadata unless the server keeps them.",
                    "parameters": [name, { "name": "entryId", "in": "query", "required": false,
                        "description": "The caller's entry to attach it to.", "schema": { "type": "string", "format": "uuid" } }],
                    "requestBody": file,
                    "responses": refusals(serde_json::json!({ "403": error("Forbidden"), "404": error_when("No such entry of the caller's") }))
                }
            },
            "/api/user/attachment-usage": {
                "get": {
                    "operationId": "attachmentUsage", "tags": ["attachments"], "security": bearer,
                    "summary": "The space the caller's attachments take, and the most they may take",
                    "responses": {
                        "200": ok("The space", schema("AttachmentUsage")),
                        "401": error("Unauthorized")
                    }
                }
            },
            "/api/journal-entries/{id}/attachments": {
                "parameters": [entry_id],
                "get": {
                    "operationId": "entryAttachments", "tags": ["attachments"], "security": bearer,
                    "summary": "An entry's attachments, oldest first, each with a link the caller can read it by",
                    "responses": {
                        "200": ok("The attachments", serde_json::json!({ "type": "array", "items": schema("Attachment") })),
                        "401": error("Unauthorized"), "404": error("NotFound")
                    }
                },
                "post": {
                    "operationId": "uploadEntryAttachment", "tags": ["attachments"], "security": bearer,
                    "summary": "Upload a file for the caller's entry",
                    "parameters": [name],
                    "requestBody": file,
                    "responses": refusals(serde_json::json!({ "403": error("Forbidden"), "404": error("NotFound") }))
                }
            },
            "/api/attachments/{id}": {
                "parameters": [attachment_id],
                "get": {
                    "operationId": "getAttachment", "tags": ["attachments"],
                    "security": [{}, { "bearer": [] }],
                    "summary": "An attachment's bytes",
                    "description": "Readable by its author always, and by anyone while its entry is public and its author's profile too; 404 otherwise, as for an unknown id. A private entry's attachment is also read by the short-lived link (`reader`, `expires`, `sig`) its author's answers give. Supports Range and If-None-Match.",
                    "parameters": [
                        { "name": "size", "in": "query", "required": false,
                          "description": "`thumb`: an image at most 480 px on its longer side (JPEG).",
                          "schema": { "type": "string", "enum": ["thumb", "full"] } },
                        { "name": "reader", "in": "query", "required": false, "schema": { "type": "string" } },
                        { "name": "expires", "in": "query", "required": false,
                          "description": "Seconds since 1970, as the signed link gives it.",
                          "schema": { "type": "integer", "minimum": i64::MIN, "maximum": i64::MAX } },
                        { "name": "sig", "in": "query", "required": false, "schema": { "type": "string" } }
                    ],
                    "responses": {
                        "200": { "description": "The bytes, with Content-Type (the file's type), Content-Length, ETag, Content-Disposition (inline for images) and X-Content-Type-Options: nosniff",
                                 "content": { "*/*": { "schema": { "type": "string", "format": "binary" } } } },
                        "206": { "description": "The range asked for",
                                 "content": { "*/*": { "schema": { "type": "string", "format": "binary" } } } },
                        "304": { "description": "Not changed since the ETag given" },
                        "400": error_when("A bad size or expires"), "401": error("Unauthorized"),
                        "404": error("NotFound"),
                        "416": error_when("A range outside the file")
                    }
                },
                "delete": {
                    "operationId": "deleteAttachment", "tags": ["attachments"], "security": bearer,
                    "summary": "Delete the caller's attachment",
                    "description": "It leaves its entry at once; its file goes at the next collection once no kept revision of the entry can name it.",
                    "responses": {
                        "200": ok("Done", schema("Message")),
                        "401": error("Unauthorized"), "403": error("Forbidden"), "404": error("NotFound")
                    }
                }
            }
        }),
    );
    add_schemas(
        doc,
        serde_json::json!({
            "AttachmentUsage": {
                "type": "object", "additionalProperties": false,
                "required": ["used", "quota"],
                "properties": {
                    "used": { "type": "integer", "minimum": 0, "description": "Bytes used, each stored file counted once" },
                    "quota": { "type": ["integer", "null"], "minimum": 0, "description": "The most the account may use, in bytes; null: no limit" }
                }
            },
            "Attachment": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "entryId", "name", "contentType", "size", "width", "height", "sha256", "createdAt", "url"],
                "properties": {
                    "id": { "type": "string", "format": "uuid" },
                    "entryId": { "type": ["string", "null"], "format": "uuid" },
                    "name": { "type": "string" },
                    "contentType": { "type": "string" },
                    "size": { "type": "integer", "minimum": 0 },
                    "width": { "type": ["integer", "null"], "minimum": 0 },
                    "height": { "type": ["integer", "null"], "minimum": 0 },
                    "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$" },
                    "createdAt": { "type": "string", "format": "date-time" },
                    "url": { "type": "string", "description": "A link the caller can read it by: plain for a public entry's, signed and minutes long otherwise" }
                }
            }
        }),
    );
}
