//! Accepting connections: HTTP/1.1, a capped number of connections, and none held
//! forever.
//!
//! - At most `max_connections` at once; past that, new ones wait in the kernel's
//!   backlog until one closes.
//! - A request's headers must arrive within `header_timeout` (hyper closes the
//!   connection otherwise).
//! - A connection with no bytes read or written for `idle_timeout` is closed: a client
//!   that stalls mid-request, or keeps an idle connection open, holds nothing for long.
//!   (A request body has its own deadline, in `filters::json_body`.) While the server
//!   works on a request (an import may take minutes) the connection is not idle: the
//!   request's own deadline bounds it.
//! - HTTP/2 without TLS (h2c) is not spoken: no browser uses it, and each of its streams
//!   would be a request to bound on its own.
//!
//! The client's address reaches the filters as a [`ClientAddr`] request extension, and
//! answers that may carry someone's data get `Cache-Control: no-store` here, where the
//! request is at hand without copying its headers. Each request runs in a `tracing`
//! span carrying its [`RequestId`], which its answer returns in `X-Request-Id`.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tracing::Instrument;
use warp::Filter;

use crate::metrics::RequestMetrics;
use crate::request_id::{self, RequestId};

/// How connections are bounded.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Longest wait for a request's headers.
    pub header_timeout: Duration,
    /// Longest a connection may go without a byte read or written.
    pub idle_timeout: Duration,
    /// Longest the server works on one request; past it the answer is 503.
    pub request_timeout: Duration,
    /// Longest one statement of an anonymous request may run (see
    /// `journal_core::budget`).
    pub query_timeout_anonymous: Duration,
    /// Longest one statement of a signed-in request may run.
    pub query_timeout: Duration,
    /// The deadline, and the statements' limit, of an import
    /// ([`IMPORT_PATH`]), which writes a whole export in one transaction.
    pub import_timeout: Duration,
    /// The deadline of an upload of an attachment ([`is_upload`]).
    pub upload_timeout: Duration,
}

/// Whether a request uploads an attachment, which may take minutes to arrive.
fn is_upload<B>(request: &hyper::Request<B>) -> bool {
    let path = request.uri().path();
    (request.method() == hyper::Method::POST
        && (path == "/api/attachments"
            || (path.starts_with("/api/journal-entries/") && path.ends_with("/attachments"))))
        || (request.method() == hyper::Method::PUT && path.starts_with("/api/sync/files/"))
}

/// The import route, whose requests have [`Limits::import_timeout`].
pub const IMPORT_PATH: &str = "/api/journal-entries/import";

/// The sync route, whose pushes (`POST`) have [`Limits::import_timeout`] too: a push
/// writes up to 100 entries, each with its history.
pub const SYNC_PATH: &str = "/api/sync/changes";

/// Whether `request` writes many entries at once: an import or a sync's push.
fn is_bulk_write<B>(request: &hyper::Request<B>) -> bool {
    let path = request.uri().path();
    path == IMPORT_PATH || (request.method() == hyper::Method::POST && path == SYNC_PATH)
}

/// Whether the answer to `request` may carry someone's data or a token, and so must
/// not be kept by caches or browsers (`Cache-Control: no-store`): every request with an
/// `Authorization` header, and every route under `/api/user/` (login and register
/// answer without one) but an author's public Atom feed, which caches revalidate.
fn is_private<B>(request: &hyper::Request<B>) -> bool {
    let path = request.uri().path();
    request
        .headers()
        .contains_key(warp::http::header::AUTHORIZATION)
        || (path.starts_with("/api/user/") && !path.ends_with("/feed.atom"))
}

/// The answer to a request the server could not finish in time (a database that stops
/// answering, say): 503 with the error body, and the work dropped.
fn past_deadline(deadline: Duration) -> warp::reply::Response {
    tracing::warn!(?deadline, "request past its deadline");
    crate::error::ApiError::new(
        warp::http::StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the server could not answer within {} s; try again later",
            deadline.as_secs()
        ),
    )
    .into_response()
}

/// The address of the client that sent a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// The client's address, for filters.
pub fn client_addr() -> impl Filter<Extract = (Option<SocketAddr>,), Error = Infallible> + Clone {
    warp::ext::optional::<ClientAddr>().map(|addr: Option<ClientAddr>| addr.map(|a| a.0))
}

/// Serves `filter` on `listener` within `limits` until `shutdown` completes; then stops
/// accepting and returns once the open connections have finished (or `grace` passed).
/// With `metrics`, each request is counted and timed.
pub async fn serve<F>(
    listener: TcpListener,
    filter: F,
    limits: Limits,
    metrics: Option<Arc<RequestMetrics>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) where
    F: Filter + Clone + Send + Sync + 'static,
    F::Extract: warp::Reply,
{
    let service = warp::service(filter);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was
                    // taken: wait a moment rather than spin.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let io = Watched::new(stream);
        let activity = io.activity.clone();
        let service = service.clone();
        let deadline = limits.request_timeout;
        let working = activity.clone();
        let metrics = metrics.clone();
        let handler = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                // Not idle while the server works on it: the request has its deadline.
                let working = Working::start(working.clone());
                let observed = metrics
                    .as_ref()
                    .map(|m| m.start(request.method(), request.uri().path()));
                request.extensions_mut().insert(ClientAddr(addr));
                // Every line the request logs, its own and the request line, names it.
                let id = RequestId::of(request.headers());
                // At error level: a span's level decides only whether it exists, and
                // it must exist whenever anything is logged, warnings included.
                let span = tracing::error_span!("request", id = %id);
                let private = is_private(&request);
                let importing = is_bulk_write(&request);
                let (deadline, query_timeout) = if importing {
                    (limits.import_timeout, limits.import_timeout)
                } else if is_upload(&request) {
                    (limits.upload_timeout, limits.query_timeout)
                } else {
                    (deadline, limits.query_timeout)
                };
                let mut service = service.clone();
                let answer =
                    tower_service::Service::call(&mut service, request).instrument(span.clone());
                // Dropped at the deadline, the request's statements are stopped too.
                let answer = journal_core::budget::scope(
                    journal_core::budget::QueryBudget::new(
                        limits.query_timeout_anonymous,
                        query_timeout,
                    ),
                    answer,
                );
                async move {
                    let _working = working;
                    let mut answer = match tokio::time::timeout(deadline, answer).await {
                        Ok(answer) => answer,
                        Err(_) => {
                            // The request's own log line never comes: this one names it.
                            tracing::warn!(
                                deadline_ms = deadline.as_millis(),
                                "request past its deadline: answered 503"
                            );
                            Ok(past_deadline(deadline))
                        }
                    };
                    if let Ok(answer) = &mut answer {
                        if let Some(observed) = observed {
                            observed.answered(answer.status());
                        }
                        let headers = answer.headers_mut();
                        headers.insert(request_id::HEADER, id.header_value());
                        if private {
                            headers.insert(
                                warp::http::header::CACHE_CONTROL,
                                warp::http::HeaderValue::from_static("no-store"),
                            );
                        }
                    }
                    answer.map(crate::streamed_body::on_the_wire)
                }
                .instrument(span)
            },
        );
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_buf_size(64 * 1024)
            .serve_connection(TokioIo::new(io), handler);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _slot = slot;
            tokio::select! {
                result = connection => {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = idle(&activity, limits.idle_timeout) => {
                    tracing::debug!(%addr, "closing an idle connection");
                }
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(grace) => {
            tracing::warn!("requests still running after {grace:?}; closing them");
        }
    }
}

/// Completes once `activity` has not moved for `timeout`, and no request of the
/// connection is being worked on.
async fn idle(activity: &Activity, timeout: Duration) {
    loop {
        let since = activity.since_last();
        if since >= timeout && activity.working.load(Ordering::Relaxed) == 0 {
            return;
        }
        tokio::time::sleep(
            timeout
                .saturating_sub(since)
                .max(Duration::from_millis(100)),
        )
        .await;
    }
}

/// When a connection last read or wrote a byte, and how many of its requests the
/// server is working on.
struct Activity {
    start: Instant,
    /// Milliseconds after `start`.
    last: AtomicU64,
    working: AtomicUsize,
}

/// A request being worked on, from its call until its answer (or its drop at the
/// deadline); the connection's idle clock starts again when it ends.
struct Working(Arc<Activity>);

impl Working {
    fn start(activity: Arc<Activity>) -> Working {
        activity.working.fetch_add(1, Ordering::Relaxed);
        Working(activity)
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        self.0.touch();
        self.0.working.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn since_last(&self) -> Duration {
        self.start
            .elapsed()
            .saturating_sub(Duration::from_millis(self.last.load(Ordering::Relaxed)))
    }
}

/// A TCP stream that records when it last moved a byte.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl Watched {
    fn new(stream: TcpStream) -> Watched {
        Watched {
            stream,
            activity: Arc::new(Activity {
                start: Instant::now(),
                last: AtomicU64::new(0),
                working: AtomicUsize::new(0),
            }),
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
