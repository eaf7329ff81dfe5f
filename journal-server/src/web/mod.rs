//! The web app at `/`: the files under `journal-server/web/`, embedded in the binary.
//!
//! - `GET /assets/<name>.<hash>.<ext>`: an app file under its content-hashed name
//!   ([`assets`]), cached for a year (`immutable`); an unknown name is the JSON 404.
//! - `GET` of any other path outside `/api`: `index.html`, never cached without asking
//!   (`no-cache` with an `ETag`), so the app's own URLs (`/entries/<id>`, `/feed`,
//!   `/settings`) survive a reload; the app routes them with the history API.
//! - Anything under `/api`, and other methods, are left to the API's routes and its JSON
//!   404 and 405 (this filter rejects them as "not found", the weakest rejection).
//!
//! Every answer carries the app's security headers ([`CONTENT_SECURITY_POLICY`] and
//! the rest, see `docs/SECURITY.md`), and is gzipped, compressed once at startup, when
//! the client's `Accept-Encoding` allows it.

pub mod assets;
mod previews;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::filters::path::FullPath;
use warp::http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY as CSP, CONTENT_TYPE, ETAG, HeaderMap,
    HeaderName, HeaderValue, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::{AppState, public_address};

pub use assets::{Asset, Assets};

/// The app's Content-Security-Policy: scripts, styles and connections from this origin
/// only (no inline script or style, no `eval`), pictures from here or `data:` (profile
/// pictures are data URIs), no framing, no `<base>`, forms only to here, and Trusted
/// Types: the DOM's HTML sinks (`innerHTML` and the like) take only values made by
/// DOMPurify's policy, so a string cannot reach them by mistake.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; \
     require-trusted-types-for 'script'; trusted-types dompurify";

/// `Cache-Control` of a hashed file: its name changes with its contents.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The app's filter, to be tried after every API route. The files are prepared (hashed,
/// compressed) when it is built, so at startup. The page of a public entry or author
/// carries its link preview ([`previews`]).
pub fn app(state: &AppState) -> BoxedFilter<(Response,)> {
    let assets = Assets::get();
    let journal = state.journal.clone();
    let public_url = state.public_url.clone();
    warp::method()
        .and(warp::path::full())
        .and(warp::header::headers_cloned())
        .and_then(move |method: Method, path: FullPath, headers: HeaderMap| {
            let journal = journal.clone();
            let public_url = public_url.clone();
            async move {
                let path = path.as_str();
                if is_page(&method, path)
                    && let Some(preview) = previews::lookup(&journal, path).await
                {
                    let origin = public_address::origin(public_url.as_deref(), &headers);
                    let index = std::str::from_utf8(&assets.index.body).unwrap_or_default();
                    let page = previews::page(index, &preview, &origin, path);
                    let asset = Asset::page(page);
                    return Ok(respond(&asset, "no-cache", &headers));
                }
                serve(assets, &method, path, &headers).ok_or_else(warp::reject::not_found)
            }
        })
        .boxed()
}

/// Whether `method path` asks for the app's page (not a file, not the API).
fn is_page(method: &Method, path: &str) -> bool {
    (method == Method::GET || method == Method::HEAD)
        && !(path == "/api" || path.starts_with("/api/") || path.starts_with("/assets/"))
}

/// The answer to `method path`, or `None` when the app has nothing there.
fn serve(assets: &Assets, method: &Method, path: &str, headers: &HeaderMap) -> Option<Response> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    if path == "/api" || path.starts_with("/api/") {
        return None;
    }
    let (asset, cache_control) = if path.starts_with("/assets/") {
        (assets.files.get(path)?, IMMUTABLE)
    } else {
        (&assets.index, "no-cache")
    };
    Some(respond(asset, cache_control, headers))
}

fn respond(asset: &Asset, cache_control: &'static str, request: &HeaderMap) -> Response {
    let not_modified = request
        .get_all(warp::http::header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|tag| tag.trim() == asset.etag || tag.trim() == "*");
    let gzip = asset.gzip.as_ref().filter(|_| {
        request
            .get_all(warp::http::header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(accepts_gzip)
    });
    let mut response = if not_modified {
        let mut response = Response::new(bytes::Bytes::new().into());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        Response::new(gzip.unwrap_or(&asset.body).clone().into())
    };
    let headers = response.headers_mut();
    if !not_modified {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
        if gzip.is_some() {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
    }
    if asset.gzip.is_some() {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Ok(etag) = HeaderValue::from_str(&asset.etag) {
        headers.insert(ETAG, etag);
    }
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
    security_headers(headers);
    response
}

/// The headers every answer of the app carries (see `docs/SECURITY.md`).
fn security_headers(headers: &mut HeaderMap) {
    headers.insert(CSP, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-resource-policy"),
        HeaderValue::from_static("same-origin"),
    );
}

/// Whether an `Accept-Encoding` value accepts gzip: `gzip` or `*` listed without
/// `q=0`.
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|coding| {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or("").trim();
        let refused = parts.any(|param| {
            param
                .trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_accepted_unless_refused() {
        assert!(accepts_gzip("gzip"));
        assert!(accepts_gzip("gzip, deflate, br, zstd"));
        assert!(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("br"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("gzip; q=0.0, br"));
        assert!(!accepts_gzip(""));
    }

    fn get(path: &str, accept_encoding: Option<&str>) -> Option<Response> {
        let mut headers = HeaderMap::new();
        if let Some(value) = accept_encoding {
            headers.insert(
                warp::http::header::ACCEPT_ENCODING,
                HeaderValue::from_str(value).unwrap(),
            );
        }
        serve(Assets::get(), &Method::GET, path, &headers)
    }

    #[test]
    fn api_paths_and_other_methods_are_left_to_the_api() {
        assert!(get("/api", None).is_none());
        assert!(get("/api/nothing", None).is_none());
        assert!(get("/assets/app.js", None).is_none(), "only hashed names");
        let headers = HeaderMap::new();
        assert!(serve(Assets::get(), &Method::POST, "/", &headers).is_none());
        assert!(get("/apiary", None).is_some(), "not under /api/");
    }

    #[test]
    fn app_urls_serve_the_page_and_files_are_immutable() {
        let page = get("/entries/abc", None).expect("the page");
        assert_eq!(page.headers()[CACHE_CONTROL], "no-cache");
        assert_eq!(page.headers()[CSP], CONTENT_SECURITY_POLICY);
        let url = &Assets::get().urls["app.js"];
        let file = get(url, Some("gzip")).expect("app.js");
        assert_eq!(file.headers()[CACHE_CONTROL], IMMUTABLE);
        assert_eq!(file.headers()[CONTENT_ENCODING], "gzip");
    }
}
