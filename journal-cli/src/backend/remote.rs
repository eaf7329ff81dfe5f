//! The remote mode: a journal-server over HTTP, with the same wire types it uses. Its
//! refusals become the same errors the local mode gives, naming the token to fix.

use std::path::Path;

use async_trait::async_trait;
use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, DeleteAccountRequest, ErrorBody,
    ImportEntriesRequest, ImportEntriesResponse, ImportEntryRequest, LoginRequest, LoginResponse,
    MessageResponse, ProfileResponse, RegisterRequest, RegisterResponse, UpdateEntryRequest,
    UpdateProfileRequest,
};
use journal_core::transfer::json::ExportDocument;
use journal_core::{
    Entry, FilterParams, ImportReport, ImportedEntry, Page, PageRequest, Profile, SecurityEvent,
    TagCount, TokenRejection, UserId,
};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Mode, entry_id, not_logged_in, user_id};
use crate::config::normalise_server;
use crate::error::{CliError, Result, chain};

/// What the server answered a login.
pub(super) enum LoginAnswer {
    Token(String),
    NeedsSecondFactor,
}

impl LoginAnswer {
    /// The token, for a login that cannot ask for a code.
    pub(super) fn token(self) -> Result<String> {
        match self {
            LoginAnswer::Token(token) => Ok(token),
            LoginAnswer::NeedsSecondFactor => Err(journal_core::Error::SecondFactorRequired.into()),
        }
    }
}

/// A list's filter as query string pairs.
fn filter_query(filter: &FilterParams) -> Vec<(&'static str, String)> {
    filter
        .query_pairs()
        .into_iter()
        .map(|(name, value)| (name, value.to_owned()))
        .collect()
}

/// A journal-server over HTTP, with the same wire types it uses.
pub(super) struct Remote {
    client: reqwest::Client,
    /// For attachments' bytes: no overall time limit (a large file takes as long as the
    /// line needs), only one between reads, so a stalled transfer still ends.
    transfers: reqwest::Client,
    base: String,
    token: Option<Bearer>,
}

/// The token a request is sent with, and where it came from: a refusal says which one
/// to fix.
#[derive(Clone)]
pub(super) enum Bearer {
    /// The login saved in the config file.
    Saved(String),
    /// `JOURNAL_TOKEN`: an access token or a login token, never saved.
    Env(String),
}

impl Bearer {
    fn secret(&self) -> &str {
        match self {
            Bearer::Saved(token) | Bearer::Env(token) => token,
        }
    }
}

/// A refusal as the server sent it: its status and the error body's message.
pub(super) struct Refused {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

impl Refused {
    /// True when the message is exactly the one the core gives for `error`.
    pub(super) fn is(&self, error: journal_core::Error) -> bool {
        self.message == error.to_string()
    }
}

/// Why a request could not reach the server, in a few words.
fn connection_reason(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timed out".into();
    }
    let mut source: Option<&dyn std::error::Error> = Some(e);
    let mut last = None;
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                std::io::ErrorKind::TimedOut => return "timed out".into(),
                _ => {}
            }
        }
        last = Some(s.to_string());
        source = s.source();
    }
    last.unwrap_or_else(|| e.to_string())
}

impl Remote {
    /// A client for the server at `base`, with the token if there is one.
    pub(super) fn new(base: &str, token: Option<Bearer>) -> Result<Remote> {
        let base = normalise_server(base);
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(CliError::Usage(format!(
                "the server address {base:?} must start with http:// or https://"
            )));
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("journal-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .map_err(|e| CliError::other("cannot set up the HTTP client", e))?;
        let transfers = reqwest::Client::builder()
            .user_agent(concat!("journal-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .read_timeout(std::time::Duration::from_secs(60))
            .build()
            .map_err(|e| CliError::other("cannot set up the HTTP client", e))?;
        Ok(Remote {
            client,
            transfers,
            base,
            token,
        })
    }

    /// Sends a request and decodes the JSON answer; with `auth`, sends the token.
    pub(super) async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        auth: bool,
    ) -> Result<(T, reqwest::header::HeaderMap)> {
        self.send(method, path, query, body, auth)
            .await?
            .map_err(|refused| self.refusal(refused, auth))
    }

    /// [`Remote::call`], with the server's refusal handed back as it came, for the
    /// callers that tell its kinds apart (a 401 at login is not a refused token).
    pub(super) async fn send<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        auth: bool,
    ) -> Result<std::result::Result<(T, reqwest::header::HeaderMap), Refused>> {
        self.send_request(method, path, query, body, auth, &[])
            .await
    }

    /// [`Remote::send`] with the token and extra headers (a precondition, say).
    pub(super) async fn send_with<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        headers: &[(&str, String)],
    ) -> Result<std::result::Result<(T, reqwest::header::HeaderMap), Refused>> {
        self.send_request(method, path, query, body, true, headers)
            .await
    }

    async fn send_request<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        auth: bool,
        headers: &[(&str, String)],
    ) -> Result<std::result::Result<(T, reqwest::header::HeaderMap), Refused>> {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .query(query);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        if auth {
            let token = self
                .token
                .as_ref()
                .ok_or_else(|| not_logged_in(&self.base))?;
            request = request.bearer_auth(token.secret());
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| self.transport(&e))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| self.transport(&e))?;
        if !status.is_success() {
            let message = serde_json::from_slice::<ErrorBody>(&bytes)
                .map(|b| b.message)
                .unwrap_or_else(|_| {
                    status
                        .canonical_reason()
                        .unwrap_or("unexpected status")
                        .to_owned()
                });
            return Ok(Err(Refused { status, message }));
        }
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            CliError::Other(format!(
                "unexpected answer from {} ({e}); is it a journal-server?",
                self.base
            ))
        })?;
        Ok(Ok((value, headers)))
    }

    /// A signed-in request whose body or answer is bytes rather than JSON (attachments),
    /// on the client without an overall time limit.
    pub(super) fn transfer(&self, method: Method, path: &str) -> Result<reqwest::RequestBuilder> {
        let token = self
            .token
            .as_ref()
            .ok_or_else(|| not_logged_in(&self.base))?;
        Ok(self
            .transfers
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token.secret()))
    }

    /// Sends a [`Remote::transfer`] request: the response when it succeeded, its
    /// body still to read; else the refusal, as every other call words it.
    pub(super) async fn send_transfer(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response> {
        let response = request.send().await.map_err(|e| self.transport(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let bytes = response.bytes().await.map_err(|e| self.transport(&e))?;
        let message = serde_json::from_slice::<ErrorBody>(&bytes)
            .map(|b| b.message)
            .unwrap_or_else(|_| {
                status
                    .canonical_reason()
                    .unwrap_or("unexpected status")
                    .to_owned()
            });
        Err(self.refusal(Refused { status, message }, true))
    }

    /// The server's base URL, for messages.
    pub(super) fn base(&self) -> &str {
        &self.base
    }

    pub(super) fn transport(&self, e: &reqwest::Error) -> CliError {
        let text = chain(e);
        if self.base.starts_with("https://")
            && (text.contains("InvalidContentType") || text.contains("corrupt message"))
        {
            return CliError::Connection {
                url: self.base.clone(),
                reason: format!(
                    "the server does not speak TLS here; try {}",
                    self.base.replacen("https://", "http://", 1)
                ),
            };
        }
        if e.is_connect() || e.is_timeout() || e.is_request() {
            CliError::Connection {
                url: self.base.clone(),
                reason: format!("{} (is journal-server running?)", connection_reason(e)),
            }
        } else {
            CliError::other(format_args!("talking to {}", self.base), chain(e))
        }
    }

    pub(super) fn refusal(&self, refused: Refused, sent_token: bool) -> CliError {
        let Refused { status, message } = refused;
        let from_env = matches!(self.token, Some(Bearer::Env(_)));
        let disabled = journal_core::Error::Unauthenticated(TokenRejection::Disabled).to_string();
        match status.as_u16() {
            400 | 413 | 415 | 422 => CliError::Invalid(message),
            // Logging in again would not help.
            401 if message == disabled => CliError::Auth(message),
            401 if sent_token && from_env => CliError::Auth(format!(
                "the server refused the token in JOURNAL_TOKEN ({message}); make a new one, or unset JOURNAL_TOKEN to use the saved login"
            )),
            401 if sent_token => CliError::Auth(format!(
                "the server refused the saved login ({message}); run journal login"
            )),
            401 => CliError::Auth(message),
            // What an access token may not do: say where it came from.
            403 if sent_token && from_env && message.contains("personal access token") => {
                CliError::Forbidden(format!(
                    "{message} (the token is from JOURNAL_TOKEN: unset it to use the saved login)"
                ))
            }
            403 => CliError::Forbidden(message),
            404 => CliError::NotFound(message),
            409 => CliError::Conflict(message),
            429 => CliError::Other(format!("too many attempts: {message}")),
            // Over the account's space: the server's words say what to do.
            507 => CliError::Other(message),
            _ => CliError::Other(format!(
                "the server answered {status}: {message}",
                status = status.as_u16()
            )),
        }
    }

    async fn page(
        &self,
        path: &str,
        mut query: Vec<(&str, String)>,
        page: PageRequest,
        auth: bool,
    ) -> Result<Page<Entry>> {
        query.push(("page", page.page().to_string()));
        query.push(("limit", page.limit().to_string()));
        if let Some(cursor) = page.after() {
            query.push(("after", cursor.to_string()));
        }
        let (items, headers): (Vec<Entry>, _) = self
            .call(Method::GET, path, &query, None::<&()>, auth)
            .await?;
        let total = total_count(&headers, items.len());
        let total_is_lower_bound = headers
            .get("x-total-count-exact")
            .is_some_and(|v| v.as_bytes() == b"false");
        Ok(Page {
            items,
            total,
            total_is_lower_bound,
            page: page.page(),
            limit: page.limit(),
        })
    }

    /// Registers an account; `None` when the server needs an invitation and none was
    /// sent.
    pub(super) async fn register(&self, r: &RegisterRequest) -> Result<Option<UserId>> {
        let answer = self
            .send::<RegisterResponse>(Method::POST, "/api/user/register", &[], Some(r), false)
            .await?;
        match answer {
            Ok((reply, _)) => Ok(Some(reply.user_id)),
            // The error body has no code of its own: the core's words are the signal.
            Err(refused)
                if refused.status == StatusCode::FORBIDDEN
                    && refused.message.contains("needs an invitation")
                    && r.invite_code.is_none() =>
            {
                Ok(None)
            }
            Err(refused) => Err(self.refusal(refused, false)),
        }
    }

    /// Logs in: the token, or word that the account's second factor is needed.
    pub(super) async fn login(&self, r: &LoginRequest) -> Result<LoginAnswer> {
        use journal_core::Error as E;
        let answer = self
            .send::<LoginResponse>(Method::POST, "/api/user/login", &[], Some(r), false)
            .await?;
        let refused = match answer {
            Ok((reply, _)) => return Ok(LoginAnswer::Token(reply.token)),
            Err(refused) => refused,
        };
        Err(match refused.status.as_u16() {
            401 if refused.message.starts_with("Two-factor code required") => {
                return Ok(LoginAnswer::NeedsSecondFactor);
            }
            401 if refused.is(E::InvalidSecondFactor) => E::InvalidSecondFactor.into(),
            401 => E::InvalidCredentials.into(),
            // A disabled account, told only once the password is right.
            403 => CliError::Auth(refused.message),
            _ => self.refusal(refused, false),
        })
    }

    /// Revokes the token on the server.
    pub(super) async fn logout(&self) -> Result<()> {
        let _: (MessageResponse, _) = self
            .call(Method::POST, "/api/user/logout", &[], None::<&()>, true)
            .await?;
        Ok(())
    }

    /// Changes the password (checking the current one).
    pub(super) async fn change_password(&self, r: &ChangePasswordRequest) -> Result<()> {
        let _: (MessageResponse, _) = self
            .call(
                Method::PUT,
                "/api/user/profile/password",
                &[],
                Some(r),
                true,
            )
            .await?;
        Ok(())
    }
}

#[async_trait(?Send)]
impl Mode for Remote {
    async fn profile(&self) -> Result<Profile> {
        let (reply, _): (ProfileResponse, _) = self
            .call(Method::GET, "/api/user/profile/", &[], None::<&()>, true)
            .await?;
        Ok(reply.user)
    }
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        let _: (serde_json::Value, _) = self
            .call(Method::PUT, "/api/user/profile/", &[], Some(r), true)
            .await?;
        self.profile().await
    }
    async fn delete_account(&self, proof: &DeleteAccountRequest) -> Result<()> {
        let _: (serde_json::Value, _) = self
            .call(Method::DELETE, "/api/user/profile/", &[], Some(proof), true)
            .await?;
        Ok(())
    }
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        Ok(self
            .call(Method::POST, "/api/journal-entries", &[], Some(r), true)
            .await?
            .0)
    }
    async fn import_entries(
        &self,
        entries: Vec<ImportedEntry>,
        progress: &dyn Fn(u64),
    ) -> Result<ImportReport> {
        // The server's body limit is 1 MiB by default. Each batch is one transaction;
        // after a failure, running the import again skips what the batches before it
        // wrote (by id) and completes it.
        let mut report = ImportReport::default();
        for batch in import_batches(&entries, 256 * 1024) {
            let response = self.import_batch(batch).await?;
            report.created.extend(response.entries);
            report.trashed += response.trashed;
            report.skipped += response.skipped;
            progress(batch.len() as u64);
        }
        Ok(report)
    }
    async fn entry(&self, id: &str) -> Result<Entry> {
        let id = entry_id(id)?;
        Ok(self
            .call(
                Method::GET,
                &format!("/api/journal-entries/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await?
            .0)
    }
    async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry> {
        let id = entry_id(id)?;
        Ok(self
            .call(
                Method::PUT,
                &format!("/api/journal-entries/{id}"),
                &[],
                Some(r),
                true,
            )
            .await?
            .0)
    }
    async fn delete_entry(&self, id: &str) -> Result<()> {
        let id = entry_id(id)?;
        let _: (serde_json::Value, _) = self
            .call(
                Method::DELETE,
                &format!("/api/journal-entries/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await?;
        Ok(())
    }
    async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let user = match user {
            Some(id) => user_id(id)?,
            None => self.profile().await?.id,
        };
        self.page(
            &format!("/api/user/{user}/journal-entries"),
            filter_query(filter),
            page,
            true,
        )
        .await
    }
    async fn public_entries(
        &self,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.page(
            "/api/public/journal-entries",
            filter_query(filter),
            page,
            false,
        )
        .await
    }
    async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let mut query = filter_query(filter);
        query.push(("q", q.to_owned()));
        self.page("/api/search/journal-entries", query, page, true)
            .await
    }
    async fn tags(&self) -> Result<Vec<TagCount>> {
        Ok(self
            .call(Method::GET, "/api/user/tags", &[], None::<&()>, true)
            .await?
            .0)
    }
    async fn security_events(&self, page: PageRequest) -> Result<Page<SecurityEvent>> {
        let query = [
            ("page", page.page().to_string()),
            ("limit", page.limit().to_string()),
        ];
        let (items, headers): (Vec<SecurityEvent>, _) = self
            .call(
                Method::GET,
                "/api/user/security-events",
                &query,
                None::<&()>,
                true,
            )
            .await?;
        Ok(Page {
            total: total_count(&headers, items.len()),
            items,
            page: page.page(),
            limit: page.limit(),
            total_is_lower_bound: false,
        })
    }
    async fn export(&self, with_history: bool) -> Result<ExportDocument> {
        let query = [("history", with_history.to_string())];
        Ok(self
            .call(Method::GET, "/api/user/export", &query, None::<&()>, true)
            .await?
            .0)
    }
    async fn export_archive(&self, with_history: bool, out: std::fs::File) -> Result<usize> {
        use std::io::Write;
        let request = self.transfer(Method::GET, "/api/user/export")?.query(&[
            ("history", with_history.to_string()),
            ("format", "zip".into()),
        ]);
        let mut response = self.send_transfer(request).await?;
        let mut out = std::io::BufWriter::new(out);
        let failed = |e: std::io::Error| CliError::other("cannot write the archive", e);
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport(&e))? {
            out.write_all(&chunk).map_err(failed)?;
        }
        let file = out.into_inner().map_err(|e| failed(e.into_error()))?;
        file.sync_all().map_err(failed)?;
        // The count is the archive's: read back from what was written.
        let mut file = file;
        std::io::Seek::rewind(&mut file).map_err(failed)?;
        let archive =
            journal_core::transfer::journal_zip::read_archive_file(file, "the server's archive")
                .map_err(|e| CliError::Invalid(e.message))?;
        Ok(archive
            .imported
            .items
            .iter()
            .filter(|e| e.deleted_at.is_none())
            .count())
    }
    async fn import_archive(&self, path: &Path) -> Result<journal_core::ArchiveReport> {
        // The server reads the body whole (up to its --import-max-body).
        let bytes = std::fs::read(path)
            .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
        let request = self
            .transfer(Method::POST, "/api/journal-entries/import")?
            .header(reqwest::header::CONTENT_TYPE, "application/zip")
            .body(bytes);
        let response = self.send_transfer(request).await?;
        let answer: ImportEntriesResponse =
            response.json().await.map_err(|e| self.transport(&e))?;
        Ok(journal_core::ArchiveReport {
            report: ImportReport {
                created: answer.entries,
                trashed: answer.trashed,
                skipped: answer.skipped,
                stored: Vec::new(),
            },
            notes: answer.notes,
            attachments: answer.attachments.unwrap_or_default(),
            ..journal_core::ArchiveReport::default()
        })
    }
}

impl Remote {
    /// Imports one batch keeping its dates (`POST /api/journal-entries/import`); the
    /// server takes it all or nothing.
    async fn import_batch(&self, entries: &[ImportedEntry]) -> Result<ImportEntriesResponse> {
        let request = ImportEntriesRequest {
            entries: entries
                .iter()
                .map(|e| ImportEntryRequest {
                    id: e.id.clone(),
                    revisions: (!e.revisions.is_empty()).then(|| e.revisions.clone()),
                    deleted_at: e.deleted_at.map(|t| t.to_string()),
                    ..ImportEntryRequest::with_times(
                        e.request.clone(),
                        Some(e.created_at.to_string()),
                        e.updated_at.map(|t| t.to_string()),
                    )
                })
                .collect(),
        };
        let (response, _): (ImportEntriesResponse, _) = self
            .call(
                Method::POST,
                "/api/journal-entries/import",
                &[],
                Some(&request),
                true,
            )
            .await?;
        Ok(response)
    }
}

/// The list's total from the `X-Total-Count` header, else the items on this page.
pub(super) fn total_count(headers: &HeaderMap, items: usize) -> u64 {
    headers
        .get("x-total-count")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(items as u64)
}

/// Splits entries into runs of at most `MAX_IMPORT_BATCH` entries and about `bytes` of
/// text each (a single larger entry goes alone).
fn import_batches(entries: &[ImportedEntry], bytes: usize) -> Vec<&[ImportedEntry]> {
    let mut batches = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, e) in entries.iter().enumerate() {
        let text = |title: &Option<String>, content: &Option<String>| {
            title.as_deref().map_or(0, str::len) + content.as_deref().map_or(0, str::len) + 128
        };
        let len = text(&e.request.title, &e.request.content)
            + e.revisions
                .iter()
                .map(|r| text(&r.title, &r.content) + 128)
                .sum::<usize>();
        if i > start && (size + len > bytes || i - start == journal_core::MAX_IMPORT_BATCH) {
            batches.push(&entries[start..i]);
            (start, size) = (i, 0);
        }
        size += len;
    }
    if start < entries.len() {
        batches.push(&entries[start..]);
    }
    batches
}
