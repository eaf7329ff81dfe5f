//! `POST /api/journal-entries/import`: entries with their dates, as a batch of the
//! API's JSON (what the CLI sends) or as a whole export file in any format the core
//! reads (what the web app sends), told by `Content-Type` or the `format` parameter.
//! The route has its own body and time limits (`--import-max-body`,
//! `--import-timeout`): an export is larger than any other request.

use std::collections::HashMap;

use journal_core::api::{ImportEntriesRequest, ImportEntriesResponse};
use journal_core::transfer::{self, Format, ReadOptions};
use journal_core::{Caller, ImportReport, Journal, Zone};
use warp::Filter;
use warp::http::{HeaderMap, Method, StatusCode};

use super::entries::only_method;
use super::{Reply_, Route, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::media_type;
use crate::filters::{authenticated, query_map, raw_body, with_journal};

/// The most entries one file may hold: a journal written daily for 270 years.
pub const MAX_FILE_ENTRIES: usize = 100_000;

/// `POST /api/journal-entries/import`: before `/:id`, which would take `import` for an id.
pub(super) fn route(state: &AppState) -> Route {
    warp::path!("api" / "journal-entries" / "import")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(query_map())
                .and(raw_body(state.import_body.clone()))
                .and_then(import_entries)
                .or(only_method(Method::POST, "POST"))
                .unify(),
        )
        .boxed()
}

/// How the body is to be read: the API's batch (`application/json` and no `format`),
/// or a file in a format.
enum Body {
    Batch,
    File(Format),
    /// `application/octet-stream`, or no type: the format is told by the first bytes.
    Guess,
}

fn body_kind(headers: &HeaderMap, query: &HashMap<String, String>) -> Result<Body, ApiError> {
    if let Some(name) = query.get("format") {
        let named = name.trim().to_ascii_lowercase();
        if named == "batch" {
            return Ok(Body::Batch);
        }
        let format = Format::named(&named).ok_or_else(|| {
            ApiError::bad_request(format!(
                "format {name:?} is not one the import reads: json, markdown, jrnl, dayone (or batch)"
            ))
        })?;
        // A body that says it is JSON is read as JSON: the document promises as much,
        // and a JSON body read as a note would import whatever it holds as text.
        if media_type(headers).as_deref() == Some("application/json") && format != Format::Json {
            return Err(ApiError::bad_request(format!(
                "format {named} is not JSON: send the file with its own Content-Type \
                 (text/markdown, text/plain, application/zip) or application/octet-stream"
            )));
        }
        return Ok(Body::File(format));
    }
    match media_type(headers).as_deref() {
        Some("application/json") => Ok(Body::Batch),
        Some("application/octet-stream") | None => Ok(Body::Guess),
        Some(other) => Format::named(other).map(Body::File).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Type {other} is not one the import reads: application/json, \
                     text/markdown, text/plain (jrnl), application/zip (Day One); or name \
                     the format with ?format="
                ),
            )
        }),
    }
}

/// The zone of dates a file writes without one (jrnl's): `tz` when given, else UTC.
fn zone(query: &HashMap<String, String>) -> Result<Zone, ApiError> {
    query
        .get("tz")
        .map(|tz| {
            tz.parse::<Zone>()
                .map_err(|e| ApiError::bad_request(e.message))
        })
        .transpose()
        .map(Option::unwrap_or_default)
}

/// A zip archive, our export or Day One's: its entries, and its files as attachments.
async fn import_archive(journal: Journal, caller: Caller, bytes: Vec<u8>) -> Reply_ {
    let done = journal
        .import_archive(&caller, std::io::Cursor::new(bytes), "the file".into())
        .await
        .map_err(reject)?;
    let mut notes = done.notes;
    notes.extend(archive_note(done.attachments, done.attachments_present));
    let report = done.report;
    if report.created.is_empty() && report.skipped == 0 && report.trashed == 0 {
        return Err(reject(ApiError::bad_request("the file holds no entries")));
    }
    Ok(imported(report, notes, Some(done.attachments)))
}

/// `201` and what an import did.
fn imported(
    report: ImportReport,
    notes: Vec<String>,
    attachments: Option<usize>,
) -> warp::reply::Response {
    json(
        StatusCode::CREATED,
        &ImportEntriesResponse {
            imported: report.created.len(),
            trashed: report.trashed,
            skipped: report.skipped,
            entries: report.created,
            notes,
            attachments,
        },
    )
}

/// What an archive's import did with its attachments, when it had any.
fn archive_note(stored: usize, present: usize) -> Option<String> {
    let files = |n: usize| {
        if n == 1 {
            "1 attachment".to_owned()
        } else {
            format!("{n} attachments")
        }
    };
    (stored + present > 0).then(|| {
        format!(
            "stored {} ({} here already)",
            files(stored),
            if present == 1 {
                "1 was".to_owned()
            } else {
                format!("{present} were")
            }
        )
    })
}

async fn import_entries(
    journal: Journal,
    caller: Caller,
    query: HashMap<String, String>,
    headers: HeaderMap,
    bytes: Vec<u8>,
) -> Reply_ {
    let kind = body_kind(&headers, &query).map_err(reject)?;
    let (report, notes): (ImportReport, Vec<String>) = match kind {
        Body::Batch => {
            if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
                return Err(reject(ApiError::bad_request(
                    "the body must be a JSON object ({\"entries\": [...]}); to send an export \
                     file as it is, add ?format=json",
                )));
            }
            let request: ImportEntriesRequest = serde_json::from_slice(&bytes).map_err(|e| {
                reject(ApiError::bad_request(format!(
                    "the body is not an import batch ({{\"entries\": [...]}}): {e}; to send an \
                     export file as it is, add ?format=json"
                )))
            })?;
            let report = journal.import(&caller, &request).await.map_err(reject)?;
            (report, Vec::new())
        }
        Body::File(_) | Body::Guess => {
            let format = match kind {
                Body::File(format) => format,
                _ => Format::guess(&bytes),
            };
            if format == Format::DayOneZip {
                // Ours or Day One's: entries with their files.
                return import_archive(journal, caller, bytes).await;
            }
            let zone = zone(&query).map_err(reject)?;
            // Parsing a large export (unzipping, YAML) is work for the blocking pool.
            let read = tokio::task::spawn_blocking(move || {
                transfer::read(
                    format,
                    &bytes,
                    &ReadOptions {
                        zone,
                        // The one rule of inline tags, as the CLI and the web editor read them.
                        inline_tags: Some(&journal_core::transfer::tags::inline),
                        source: "the file",
                    },
                )
            })
            .await
            .map_err(|_| {
                reject(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the file could not be read; nothing was imported",
                ))
            })?
            .map_err(|e| reject(journal_core::Error::from(e)))?;
            if read.items.len() > MAX_FILE_ENTRIES {
                return Err(reject(ApiError::bad_request(format!(
                    "the file holds {} entries; at most {MAX_FILE_ENTRIES} are imported at once",
                    read.items.len()
                ))));
            }
            if read.items.is_empty() {
                return Err(reject(ApiError::bad_request("the file holds no entries")));
            }
            let report = journal
                .import_entries(&caller, read.items)
                .await
                .map_err(reject)?;
            (report, read.notes)
        }
    };
    Ok(imported(report, notes, None))
}
