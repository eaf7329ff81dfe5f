//! Every failure as HTTP: the one place that maps core errors to status codes, and the
//! one `recover` handler that turns every rejection into the JSON error body.

use std::convert::Infallible;
use std::error::Error as _;

use journal_core::Error;
use journal_core::api::ErrorBody;
use warp::http::StatusCode;
use warp::http::header::{ALLOW, HeaderValue, RETRY_AFTER};
use warp::reply::Response;
use warp::{Rejection, Reply};

/// An HTTP failure: status, message, and the headers some statuses need.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    allow: Option<&'static str>,
    retry_after: Option<u64>,
    /// The entry's current revision id, on a 412.
    etag: Option<String>,
}

impl warp::reject::Reject for ApiError {}

impl ApiError {
    /// A failure with `status` and a message a person can act on.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            allow: None,
            retry_after: None,
            etag: None,
        }
    }

    /// 400 with `message`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 401 with `message`.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 405 for a known path, listing the methods it has in `Allow`.
    pub fn method_not_allowed(allow: &'static str) -> ApiError {
        ApiError {
            allow: Some(allow),
            ..ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("this path accepts only {allow}"),
            )
        }
    }

    /// 413 for a body over `max` bytes.
    pub fn payload_too_large(max: u64) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than the limit of {max} bytes"),
        )
    }

    /// 429 with `Retry-After: seconds`.
    pub fn too_many_requests(seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many login or register attempts from this address; try again in {seconds} s"
                ),
            )
        }
    }

    /// 429 with `Retry-After: seconds` for an account with too many failed logins.
    pub fn account_throttled(seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("too many wrong passwords for this account; try again in {seconds} s"),
            )
        }
    }

    /// The status code.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The JSON error response.
    pub fn into_response(self) -> Response {
        let body = ErrorBody {
            status_code: self.status.as_u16(),
            error: self.status.canonical_reason().unwrap_or("Error").to_owned(),
            message: self.message,
        };
        let mut response =
            warp::reply::with_status(warp::reply::json(&body), self.status).into_response();
        if let Some(allow) = self.allow {
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static(allow));
        }
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let Some(revision) = &self.etag {
            crate::api::preconditions::set_etag(&mut response, revision);
        }
        response
    }
}

/// The one mapping of core errors to HTTP.
impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let status = match &e {
            Error::Validation(_) => StatusCode::BAD_REQUEST,
            Error::InvalidCredentials
            | Error::WrongPassword
            | Error::SecondFactorRequired
            | Error::InvalidSecondFactor
            | Error::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            Error::Forbidden(_) | Error::RecentLoginRequired(_) => StatusCode::FORBIDDEN,
            Error::NotFound { .. } => StatusCode::NOT_FOUND,
            Error::Conflict(_) => StatusCode::CONFLICT,
            Error::Stale { .. } => StatusCode::PRECONDITION_FAILED,
            Error::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Error::OverQuota(_) => StatusCode::INSUFFICIENT_STORAGE,
            Error::UnsupportedType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Error::Unavailable(_) | Error::FilesUnavailable(_) | Error::AttachmentsOff => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            // Only opening a database says Config, and the server opens it at start.
            Error::Internal(_) | Error::Config(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if matches!(
            e,
            Error::Internal(_)
                | Error::Unavailable(_)
                | Error::FilesUnavailable(_)
                | Error::Config(_)
        ) {
            tracing::error!(error = %cause_chain(&e), "request failed");
        }
        let message = match &e {
            Error::Internal(_) | Error::Config(_) => {
                "internal error; the server log has the details".to_owned()
            }
            other => other.to_string(),
        };
        let etag = match &e {
            Error::Stale { revision_id, .. } => Some(revision_id.clone()),
            _ => None,
        };
        ApiError {
            etag,
            ..ApiError::new(status, message)
        }
    }
}

fn cause_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A core error as a rejection, for `?`-style use in filters.
pub fn reject(e: impl Into<ApiError>) -> Rejection {
    warp::reject::custom(e.into())
}

/// Turns every rejection, ours and warp's, into the JSON error body.
///
/// A request can collect several rejections as `or` tries each route; the most specific
/// one wins: our own errors first, then body and header problems, then a wrong method on
/// a known path, and only then "no such path".
pub async fn handle_rejection(rejection: Rejection) -> Result<Response, Infallible> {
    Ok(api_error(&rejection).into_response())
}

fn api_error(rejection: &Rejection) -> ApiError {
    use warp::reject::{
        InvalidHeader, InvalidQuery, LengthRequired, MethodNotAllowed, MissingHeader,
        PayloadTooLarge, UnsupportedMediaType,
    };

    if let Some(e) = rejection.find::<ApiError>() {
        return ApiError {
            status: e.status,
            message: e.message.clone(),
            allow: e.allow,
            retry_after: e.retry_after,
            etag: e.etag.clone(),
        };
    }
    if let Some(e) = rejection.find::<warp::filters::body::BodyDeserializeError>() {
        let detail = e.source().map_or_else(|| e.to_string(), |s| s.to_string());
        return ApiError::bad_request(format!("the body is not valid JSON: {detail}"));
    }
    if rejection.find::<PayloadTooLarge>().is_some() {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large",
        );
    }
    if rejection.find::<UnsupportedMediaType>().is_some() {
        return unsupported_media_type();
    }
    if rejection.find::<LengthRequired>().is_some() {
        return ApiError::new(
            StatusCode::LENGTH_REQUIRED,
            "send a Content-Length header with the body",
        );
    }
    if let Some(e) = rejection.find::<MissingHeader>() {
        return ApiError::bad_request(format!("the {} header is missing", e.name()));
    }
    if let Some(e) = rejection.find::<InvalidHeader>() {
        return ApiError::bad_request(format!("the {} header is not valid", e.name()));
    }
    if rejection.find::<InvalidQuery>().is_some() {
        return ApiError::bad_request("the query string is not valid");
    }
    if let Some(e) = rejection.find::<warp::filters::cors::CorsForbidden>() {
        return ApiError::new(StatusCode::FORBIDDEN, format!("CORS request refused: {e}"));
    }
    if let Some(NotAllowed(allow)) = rejection.find::<NotAllowed>() {
        return ApiError::method_not_allowed(allow);
    }
    if rejection.find::<MethodNotAllowed>().is_some() {
        return ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
    }
    if rejection.is_not_found() {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            "no such path; see /api/openapi.json for the routes",
        );
    }
    tracing::error!(?rejection, "unhandled rejection");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error; the server log has the details",
    )
}

/// A known path asked with a method it does not have; carries the `Allow` value. Kept
/// apart from [`ApiError`] so that it only wins when no route of the path got further.
#[derive(Debug)]
pub struct NotAllowed(pub &'static str);

impl warp::reject::Reject for NotAllowed {}

/// 415 for a body that is not declared as JSON.
pub fn unsupported_media_type() -> ApiError {
    ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "the body must be JSON; send Content-Type: application/json",
    )
}
