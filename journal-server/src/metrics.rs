//! Prometheus metrics (`--metrics-bind`): the recorder, each request's count and time
//! by route template, and `GET /metrics` on an address of its own.
//!
//! Requests are labelled by the route's template as the OpenAPI document writes it
//! (`/api/journal-entries/{id}`), never by the path a client sent: whatever paths a
//! stranger makes up, the labels stay the API's own few dozen, `unmatched` for any
//! other path under `/api/`, and `web` for the web app's pages and files. The method is
//! `GET`, `POST`, `PUT`, `DELETE`, `OPTIONS`, `HEAD` or `other`. docs/OPERATIONS.md describes each metric.

use std::time::{Duration, Instant};

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use warp::Filter;
use warp::http::{Method, StatusCode};

use crate::AppState;

/// Requests answered (counter, by `method`, `route` and `status`).
pub const REQUESTS: &str = "journal_http_requests_total";
/// Time to answer a request, headers ready (histogram, by `method` and `route`).
pub const DURATION: &str = "journal_http_request_duration_seconds";
/// Requests being worked on (gauge).
pub const IN_FLIGHT: &str = "journal_http_requests_in_flight";

/// The buckets of every histogram in seconds: from a request served from memory to a
/// request at its deadline.
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// How often the recorder folds recorded histogram samples into its buckets when nobody
/// scrapes: the samples would otherwise pile up in memory.
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the process's recorder, with the buckets of its histograms; the handle
/// renders what was recorded. Call once, before the journal opens.
pub fn install() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
        .and_then(|b| {
            b.set_buckets_for_metric(
                Matcher::Full(journal_core::metrics::WRITE_BATCH.into()),
                journal_core::metrics::WRITE_BATCH_BUCKETS,
            )
        })
        .and_then(PrometheusBuilder::install_recorder)
        .map_err(|e| format!("cannot start the metrics: {e}"))?;
    describe();
    journal_core::metrics::describe();
    Ok(handle)
}

fn describe() {
    metrics::describe_counter!(REQUESTS, "Requests answered, by method, route and status.");
    metrics::describe_histogram!(
        DURATION,
        metrics::Unit::Seconds,
        "Time to answer a request (until its headers are ready), by method and route."
    );
    metrics::describe_gauge!(IN_FLIGHT, "Requests being worked on.");
}

/// Most connections open at once to the metrics' address: a scraper or two, and a
/// person with `curl`.
const MAX_CONNECTIONS: usize = 16;

/// Serves `GET /metrics` on `listener` until the process ends, within the API's
/// header, idle and request timeouts and with few connections: the store's and the
/// server's caches and pools, read at each scrape, then everything recorded. Every
/// other path is 404.
pub async fn serve(
    listener: TcpListener,
    handle: PrometheusHandle,
    state: AppState,
    limits: crate::connections::Limits,
) {
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(UPKEEP);
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    let journal = state.journal.clone();
    let rendered = state.rendered.clone();
    let scrape = warp::path!("metrics")
        .and(warp::get())
        .map(move || {
            journal.report_metrics();
            journal_core::metrics::report_caches(&[("renderedBodies", rendered.counts())]);
            warp::reply::with_header(
                handle.render(),
                "content-type",
                "text/plain; version=0.0.4; charset=utf-8",
            )
        })
        .or(warp::any().map(|| {
            crate::error::ApiError::new(
                StatusCode::NOT_FOUND,
                "only GET /metrics is served on this address".to_owned(),
            )
            .into_response()
        }));
    let limits = crate::connections::Limits {
        max_connections: MAX_CONNECTIONS,
        ..limits
    };
    let forever = std::future::pending::<()>();
    crate::connections::serve(listener, scrape, limits, None, forever, Duration::ZERO).await;
}

/// The route templates requests are counted under, matched in the order the routes
/// are tried.
pub struct RequestMetrics {
    templates: Vec<Template>,
}

/// One route's template, split into its segments (`None` for a `{parameter}`).
struct Template {
    label: &'static str,
    segments: Vec<Option<&'static str>>,
}

impl RequestMetrics {
    /// The templates of every route `state` serves.
    pub fn new(state: &AppState) -> RequestMetrics {
        let templates = crate::api::served(state)
            .into_iter()
            .map(|served| Template {
                label: served.path,
                segments: served
                    .path
                    .trim_start_matches('/')
                    .split('/')
                    .map(|segment| (!segment.starts_with('{')).then_some(segment))
                    .collect(),
            })
            .collect();
        RequestMetrics { templates }
    }

    /// The route label of `path`: its template, `unmatched` under `/api/`, else `web`.
    pub fn route(&self, path: &str) -> &'static str {
        if path != "/api" && !path.starts_with("/api/") {
            return "web";
        }
        // The routes take one trailing slash (`/api/user/profile/`), as warp's paths do.
        let path = path.strip_suffix('/').unwrap_or(path);
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        self.templates
            .iter()
            .find(|t| {
                t.segments.len() == segments.len()
                    && t.segments.iter().zip(&segments).all(|(t, s)| match t {
                        Some(literal) => literal == s,
                        None => !s.is_empty(),
                    })
            })
            .map_or("unmatched", |t| t.label)
    }

    /// A request starts: counted in flight until [`Observed::answered`] or its drop.
    pub fn start(&self, method: &Method, path: &str) -> Observed {
        metrics::gauge!(IN_FLIGHT).increment(1.0);
        let method = match *method {
            Method::GET => "GET",
            Method::POST => "POST",
            Method::PUT => "PUT",
            Method::DELETE => "DELETE",
            Method::OPTIONS => "OPTIONS",
            Method::HEAD => "HEAD",
            _ => "other",
        };
        Observed {
            method,
            route: self.route(path),
            since: Instant::now(),
        }
    }
}

/// A request being worked on, for the metrics.
pub struct Observed {
    method: &'static str,
    route: &'static str,
    since: Instant,
}

impl Observed {
    /// The request was answered with `status`.
    pub fn answered(self, status: StatusCode) {
        let labels = [("method", self.method), ("route", self.route)];
        metrics::histogram!(DURATION, &labels).record(self.since.elapsed().as_secs_f64());
        metrics::counter!(
            REQUESTS,
            "method" => self.method,
            "route" => self.route,
            "status" => status.as_str().to_owned()
        )
        .increment(1);
    }
}

impl Drop for Observed {
    fn drop(&mut self) {
        metrics::gauge!(IN_FLIGHT).decrement(1.0);
    }
}
