//! Small reusable filters: state, the caller, JSON bodies, paging, the auth rate limit,
//! and the 405 fallback of a path.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt as _};
use journal_core::{
    Caller, Cursor, EntryFilter, Error, FilterParams, Journal, PageRequest, TokenRejection,
    ValidationError,
};
use serde::de::DeserializeOwned;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use warp::http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE};
use warp::http::{HeaderMap, StatusCode};
use warp::reply::Response;
use warp::{Buf, Filter, Rejection};

use crate::error::{ApiError, NotAllowed, reject, unsupported_media_type};
use crate::rate_limit::{LoginThrottle, RateLimiter};

/// Hands the journal to a handler.
pub fn with_journal(
    journal: Journal,
) -> impl Filter<Extract = (Journal,), Error = Infallible> + Clone {
    warp::any().map(move || journal.clone())
}

/// The rendered first pages of the lists, for the handlers.
pub fn with_rendered(
    rendered: std::sync::Arc<crate::render_cache::RenderedPages>,
) -> impl Filter<Extract = (std::sync::Arc<crate::render_cache::RenderedPages>,), Error = Infallible>
+ Clone {
    warp::any().map(move || rendered.clone())
}

/// The request's `If-None-Match`, when it has one; a value that is not text is kept
/// and simply matches nothing, rather than failing the request.
pub fn if_none_match()
-> impl Filter<Extract = (Option<warp::http::HeaderValue>,), Error = Infallible> + Clone {
    warp::header::value("if-none-match")
        .map(Some)
        .or(warp::any().map(|| None))
        .unify()
}

/// The caller of `Authorization: Bearer <token>`; 401 saying what is wrong otherwise.
pub fn authenticated(
    journal: Journal,
) -> impl Filter<Extract = (Caller,), Error = Rejection> + Clone {
    warp::header::headers_cloned()
        .and(crate::connections::client_addr())
        .and_then(move |headers: HeaderMap, client: Option<SocketAddr>| {
            let journal = journal.clone();
            async move {
                let token = bearer_token(&headers).map_err(reject)?;
                let caller = journal.authenticate(token).await.map_err(reject)?;
                Ok::<_, Rejection>(
                    caller.with_client(crate::api::security_log::client_info(client)),
                )
            }
        })
}

pub(crate) fn bearer_token(headers: &HeaderMap) -> Result<&str, ApiError> {
    // Two headers could mean one caller to a proxy and another here: refuse both.
    if headers.get_all(AUTHORIZATION).iter().nth(1).is_some() {
        return Err(ApiError::bad_request(
            "the request has more than one Authorization header; send exactly one",
        ));
    }
    let value = headers
        .get(AUTHORIZATION)
        .ok_or(Error::Unauthenticated(TokenRejection::Missing))?;
    let value = value.to_str().map_err(|_| {
        ApiError::unauthorized(
            "the Authorization header is not plain text; send Authorization: Bearer <token>",
        )
    })?;
    let value = value.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::unauthorized(
            "the Authorization header must use the Bearer scheme: Authorization: Bearer <token>",
        ));
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(ApiError::unauthorized(
            "the Authorization header has no token after Bearer; log in to get one",
        ));
    }
    Ok(token)
}

/// How large a request body may be, how long it may take to arrive, and how many
/// bytes of bodies all requests together may hold while they arrive.
#[derive(Clone, Debug)]
pub struct BodyLimits {
    max: u64,
    timeout: Duration,
    /// Bytes of request bodies held at once, across all requests.
    budget: Arc<Semaphore>,
}

/// The bytes of request bodies all requests may hold at once: many clients that stall
/// mid-body wait for room (and time out) instead of growing the server's memory.
const BODY_BUDGET: usize = 24 << 20;

impl BodyLimits {
    /// At most `max` bytes per body, arriving within `timeout`.
    pub fn new(max: u64, timeout: Duration) -> BodyLimits {
        BodyLimits {
            max,
            timeout,
            // Room for two of the largest bodies at least, or none could ever arrive.
            budget: Arc::new(Semaphore::new(
                BODY_BUDGET.max(usize::try_from(max.saturating_mul(2)).unwrap_or(usize::MAX >> 4)),
            )),
        }
    }

    /// The largest body accepted, in bytes.
    pub fn max(&self) -> u64 {
        self.max
    }
}

/// A JSON body within `limits`, declared `Content-Type: application/json`. 413 when
/// larger (checked on `Content-Length` and while reading), 408 when it does not arrive
/// in time, 415 for another or no content type, 400 when it does not parse as `T`.
pub fn json_body<T: DeserializeOwned + Send + 'static>(
    limits: BodyLimits,
) -> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    warp::header::headers_cloned()
        .and(warp::body::stream())
        .and_then(move |headers: HeaderMap, body| read_json(headers, body, limits.clone()))
}

/// Like [`json_body`], for a body that may be left out (a `DELETE` that takes one): no
/// body at all is `T::default()`; a body is read and checked as [`json_body`] does.
pub fn optional_json_body<T: DeserializeOwned + Default + Send + 'static>(
    limits: BodyLimits,
) -> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    warp::header::headers_cloned()
        .and(warp::body::stream())
        .and_then(move |headers: HeaderMap, body| {
            let limits = limits.clone();
            async move {
                let length = headers
                    .get(CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .map(str::trim);
                let chunked = headers.contains_key(warp::http::header::TRANSFER_ENCODING);
                if length == Some("0") || (length.is_none() && !chunked) {
                    return Ok(T::default());
                }
                read_json(headers, body, limits).await
            }
        })
}

async fn read_json<T, S, B>(headers: HeaderMap, body: S, limits: BodyLimits) -> Result<T, Rejection>
where
    T: DeserializeOwned,
    S: Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf + Send,
{
    let max = limits.max;
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|len| len > max) {
        return Err(reject(ApiError::payload_too_large(max)));
    }
    if !is_json(&headers) {
        return Err(reject(unsupported_media_type()));
    }
    let (bytes, _held) = read_body_in_time(body, &limits).await?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        reject(ApiError::bad_request(format!(
            "the body is not valid JSON: {e}"
        )))
    })?;
    if !value.is_object() {
        return Err(reject(ApiError::bad_request(
            "the body must be a JSON object",
        )));
    }
    drop(value);
    // From the bytes again, not from `value`: a `Value` silently keeps the last of
    // duplicated keys, while the derived deserializer refuses a duplicated field, so
    // `{"title": "a", "title": "b"}` cannot mean one thing to a proxy and another here.
    serde_json::from_slice(&bytes).map_err(|e| {
        let message = if e.to_string().starts_with("duplicate field") {
            format!("the body repeats a field: {e}")
        } else {
            format!("the body has a field of the wrong type: {e}")
        };
        reject(ApiError::bad_request(message))
    })
}

/// A body of any type within `limits`, as bytes, with the request's headers (the
/// import route reads its format from them). 413 when larger, 408 when it does not
/// arrive in time.
pub fn raw_body(
    limits: BodyLimits,
) -> impl Filter<Extract = (HeaderMap, Vec<u8>), Error = Rejection> + Clone {
    warp::header::headers_cloned()
        .and(warp::body::stream())
        .and_then(move |headers: HeaderMap, body| {
            let limits = limits.clone();
            async move {
                let max = limits.max;
                let declared = headers
                    .get(CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok());
                if declared.is_some_and(|len| len > max) {
                    return Err(reject(ApiError::payload_too_large(max)));
                }
                let (bytes, _held) = read_body_in_time(body, &limits).await?;
                Ok::<_, Rejection>((headers, bytes))
            }
        })
        .untuple_one()
}

/// [`read_body`] within `limits.timeout`, or 408.
async fn read_body_in_time<S, B>(
    body: S,
    limits: &BodyLimits,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Rejection>
where
    S: Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf + Send,
{
    let timeout = limits.timeout;
    tokio::time::timeout(timeout, read_body(body, limits))
        .await
        .map_err(|_| {
            reject(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s; send it at once",
                    timeout.as_secs()
                ),
            ))
        })?
}

/// Reads a body of at most `limits.max` bytes, taking room for each chunk from the
/// shared budget first; returns the bytes and the room they hold.
async fn read_body<S, B>(
    body: S,
    limits: &BodyLimits,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Rejection>
where
    S: Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf + Send,
{
    let max = limits.max;
    // Chunks as they come, joined once the body is whole: the memory held while a body
    // arrives is what arrived (a Vec grown by doubling could hold twice that).
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut received = 0usize;
    let mut held: Option<OwnedSemaphorePermit> = None;
    let mut body = std::pin::pin!(body);
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|_| {
            reject(ApiError::bad_request(
                "the request body could not be read completely",
            ))
        })?;
        if (received + chunk.remaining()) as u64 > max {
            return Err(reject(ApiError::payload_too_large(max)));
        }
        let room = limits
            .budget
            .clone()
            .acquire_many_owned(u32::try_from(chunk.remaining()).unwrap_or(u32::MAX))
            .await
            .expect("the body budget is never closed");
        match &mut held {
            Some(held) => held.merge(room),
            None => held = Some(room),
        }
        received += chunk.remaining();
        chunks.push(chunk.copy_to_bytes(chunk.remaining()));
    }
    let mut bytes = Vec::with_capacity(received);
    for chunk in chunks {
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, held))
}

/// The media type of a request, lower-cased, without its parameters.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| !v.is_empty())
}

fn is_json(headers: &HeaderMap) -> bool {
    media_type(headers).is_some_and(|essence| {
        essence == "application/json"
            || (essence.starts_with("application/") && essence.ends_with("+json"))
    })
}

/// The query string as a map (last value wins for repeated keys).
pub fn query_map() -> impl Filter<Extract = (HashMap<String, String>,), Error = Rejection> + Clone {
    warp::query::<HashMap<String, String>>()
}

/// `page` and `limit` from the query string, validated; 400 naming the allowed range.
pub fn paging() -> impl Filter<Extract = (PageRequest,), Error = Rejection> + Clone {
    query_map().and_then(|query: HashMap<String, String>| async move {
        let page = PageRequest::from_query(
            query.get("page").map(String::as_str),
            query.get("limit").map(String::as_str),
        )
        .map_err(|e| reject(Error::Validation(e)))?;
        let after = query
            .get("after")
            .map(|a| Cursor::parse(a))
            .transpose()
            .map_err(|e| reject(Error::Validation(e)))?;
        Ok::<_, Rejection>(page.continuing(after))
    })
}

/// A list's filter (`from`, `to`, `tag`…, `starred`, `day`, `tz`), validated; 400
/// naming the parameter at fault. Also the parameters as given, for the `Link` URLs.
pub fn list_filter() -> impl Filter<Extract = (EntryFilter, FilterParams), Error = Rejection> + Clone
{
    warp::query::<Vec<(String, String)>>()
        .and_then(|pairs: Vec<(String, String)>| async move {
            let params =
                FilterParams::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            let filter = EntryFilter::parse(&params).map_err(|e| reject(Error::Validation(e)))?;
            Ok::<_, Rejection>((filter, params))
        })
        .untuple_one()
}

/// The `q` of a search; 400 when missing.
pub fn search_text() -> impl Filter<Extract = (String,), Error = Rejection> + Clone {
    query_map().and_then(|mut query: HashMap<String, String>| async move {
        query
            .remove("q")
            .ok_or_else(|| reject(Error::Validation(ValidationError::new("q", "is required"))))
    })
}

/// Counts an attempt from the client address against `limiter`; 429 with
/// `Retry-After` over the limit. Passes everything when the limit is off.
pub fn rate_limited(
    limiter: Option<Arc<RateLimiter>>,
) -> impl Filter<Extract = (), Error = Rejection> + Clone {
    crate::connections::client_addr()
        .and_then(move |addr: Option<SocketAddr>| {
            let limiter = limiter.clone();
            async move {
                match (limiter, addr) {
                    (Some(limiter), Some(addr)) => limiter
                        .check(addr.ip())
                        .map_err(|seconds| reject(ApiError::too_many_requests(seconds))),
                    _ => Ok(()),
                }
            }
        })
        .untuple_one()
}

/// Hands the per-account login throttle (`None` when off) to the login handler.
pub fn with_login_throttle(
    throttle: Option<Arc<LoginThrottle>>,
) -> impl Filter<Extract = (Option<Arc<LoginThrottle>>,), Error = Infallible> + Clone {
    warp::any().map(move || throttle.clone())
}

/// The last branch of a path: any other method is a 405 with `Allow: allow`.
pub fn not_allowed(
    allow: &'static str,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::any().and_then(move || async move {
        Err::<Response, Rejection>(warp::reject::custom(NotAllowed(allow)))
    })
}
