//! # journal-server
//!
//! The HTTP API of Journal on warp: every operation of the journaling service at its
//! exact path, over [`journal_core::Journal`]. The binary (`main.rs`) only parses the
//! [`Config`], opens the journal and calls [`serve`].
//!
//! - [`api`](mod@api): one module per resource, each with its paths, methods and
//!   handlers (each calling one core operation), and [`routes`], all of them in order;
//! - [`api()`]: the routes with everything around them: the one [`handle_rejection`] that
//!   turns every failure into `{"statusCode", "error", "message"}`, CORS when origins are
//!   configured, and one log line per request;
//! - [`web`]: the web app at `/`, tried after every API route (never for `/api/…`);
//! - [`serve`]: runs the API on a bound listener until a shutdown signal, then finishes
//!   the requests in flight.

#![warn(missing_docs)]

pub mod api;
pub mod atom;
pub mod config;
pub mod connections;
mod entries_json;
pub mod entry_attachments;
pub mod error;
pub mod filters;
pub mod housekeeping;
pub mod metrics;
pub mod openapi;
pub mod public_address;
pub mod rate_limit;
pub mod render_cache;
pub mod request_id;
mod streamed_body;
pub mod web;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use journal_core::{Journal, JournalOptions};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

pub use api::routes;
pub use config::Config;
pub use error::{ApiError, handle_rejection};
pub use rate_limit::{LoginThrottle, RateLimiter};

/// What the routes share: the journal, the auth rate limiter and the limits.
#[derive(Clone)]
pub struct AppState {
    /// The service.
    pub journal: Journal,
    /// Limits login and register per client address; `None` when off.
    pub limiter: Option<Arc<RateLimiter>>,
    /// Limits failed logins per account; `None` when off.
    pub login_throttle: Option<Arc<LoginThrottle>>,
    /// How large a request body may be, and how long it may take to arrive.
    pub body: filters::BodyLimits,
    /// The same for the import route, which takes whole exports.
    pub import_body: filters::BodyLimits,
    /// Origins allowed by CORS; CORS is off when empty.
    pub cors_origins: Vec<String>,
    /// The first pages of the public feed and of authors' lists, rendered.
    pub rendered: Arc<render_cache::RenderedPages>,
    /// `--public-url`: the origin feeds and link previews write links under.
    pub public_url: Option<String>,
}

impl AppState {
    /// The state for `journal` as `config` asks.
    pub fn new(journal: Journal, config: &Config) -> AppState {
        AppState {
            journal,
            limiter: (config.auth_rate_limit > 0).then(|| {
                Arc::new(RateLimiter::new(
                    config.auth_rate_limit,
                    config.auth_rate_window,
                ))
            }),
            login_throttle: (config.login_failure_limit > 0).then(|| {
                Arc::new(LoginThrottle::new(
                    config.login_failure_limit,
                    config.login_failure_window,
                ))
            }),
            body: filters::BodyLimits::new(config.max_body, config.body_timeout),
            import_body: filters::BodyLimits::new(config.import_max_body, config.import_timeout),
            cors_origins: config.cors_origins.clone(),
            rendered: Arc::default(),
            public_url: config.public_url.clone(),
        }
    }
}

/// The options `config` gives the journal; an error is a one-line message for the
/// operator (a place for attachments that cannot be).
pub fn journal_options(config: &Config) -> Result<JournalOptions, String> {
    let (place, fallback) = config.attachment_places()?;
    Ok(JournalOptions {
        jwt_secret: config.jwt_secret.clone(),
        token_ttl: config.token_ttl,
        recent_login: config.recent_login,
        session_max: config.session_max,
        db_pool_size: config.db_pool_size.map(|n| n as usize),
        registration: config.registration,
        attachments: journal_core::AttachmentOptions {
            place,
            fallback,
            max_size: config.max_attachment,
            quota: config.attachment_quota,
            keep_photo_metadata: config.keep_photo_metadata,
        },
        ..JournalOptions::default()
    })
}

/// The whole API: [`routes`], every rejection as the JSON error body, CORS when
/// configured, and a log line per request (method, path without query, status, time;
/// never headers or bodies).
pub fn api(
    state: &AppState,
) -> impl Filter<Extract = (impl warp::Reply,), Error = warp::Rejection> + Clone + Send + Sync + 'static
{
    let mut api: BoxedFilter<(Response,)> = routes(state)
        .or(web::app(state))
        .unify()
        .recover(handle_rejection)
        .unify()
        .boxed();
    if !state.cors_origins.is_empty() {
        let cors = warp::cors()
            .allow_origins(state.cors_origins.iter().map(String::as_str))
            .allow_methods(["GET", "POST", "PUT", "DELETE"])
            .allow_headers(["authorization", "content-type"])
            .expose_headers([
                "x-total-count",
                "x-total-count-exact",
                "link",
                "retry-after",
                "location",
                "x-request-id",
            ])
            .max_age(Duration::from_secs(600))
            .build();
        // CORS refusals are rejections too; they get the same error body.
        api = api
            .with(cors)
            .map(warp::Reply::into_response)
            .recover(handle_rejection)
            .unify()
            .boxed();
    }
    api.with(warp::log::custom(|info| {
        tracing::info!(
            target: "journal_server::request",
            method = %info.method(),
            path = %info.path(),
            status = info.status().as_u16(),
            elapsed_ms = format_args!("{:.1}", info.elapsed().as_secs_f64() * 1000.0),
            "request"
        );
    }))
}

/// Serves the API on `listener` until `shutdown` completes, then stops accepting and
/// finishes the requests in flight (giving up on them after `grace`). Connections are
/// bounded as `config` says (see [`connections`]). With `metrics` (the recorder
/// installed), each request is counted and timed by its route.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    config: &Config,
    metrics: bool,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) {
    let limits = limits(config);
    let signal = async move {
        shutdown.await;
        tracing::info!("shutting down: finishing requests in flight");
    };
    let metrics = metrics.then(|| Arc::new(metrics::RequestMetrics::new(&state)));
    connections::serve(listener, api(&state), limits, metrics, signal, grace).await;
}

/// How connections are bounded, as `config` says.
pub fn limits(config: &Config) -> connections::Limits {
    connections::Limits {
        max_connections: config.max_connections as usize,
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
        request_timeout: config.request_timeout,
        query_timeout_anonymous: config.query_timeout_anonymous,
        query_timeout: config.query_timeout,
        import_timeout: config.import_timeout,
        upload_timeout: config.upload_timeout,
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
