//! Response bodies streamed past warp: warp 0.4 answers whole bodies only, but an
//! attachment may be a gigabyte. A handler leaves the stream in its response's
//! extensions; the connection layer ([`crate::connections`]) sends it, chunk by chunk,
//! so the server holds one chunk at a time whatever the file's size.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::TryStreamExt;
use futures_util::stream::BoxStream;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use warp::reply::Response;

/// What a connection sends: warp's body, or a streamed one.
pub type WireBody = UnsyncBoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// The stream a handler left for the connection to send.
#[derive(Clone)]
struct Streamed(Arc<Mutex<Option<BoxStream<'static, std::io::Result<Bytes>>>>>);

/// A response whose body is `stream`.
pub fn response(stream: BoxStream<'static, std::io::Result<Bytes>>) -> Response {
    let mut response = Response::default();
    response
        .extensions_mut()
        .insert(Streamed(Arc::new(Mutex::new(Some(stream)))));
    response
}

/// The response as the connection sends it.
pub fn on_the_wire(response: Response) -> hyper::Response<WireBody> {
    let (mut parts, body) = response.into_parts();
    let streamed = parts
        .extensions
        .remove::<Streamed>()
        .and_then(|s| s.0.lock().ok().and_then(|mut s| s.take()));
    let body = match streamed {
        Some(stream) => StreamBody::new(
            stream
                .map_ok(hyper::body::Frame::data)
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>),
        )
        .boxed_unsync(),
        None => body
            .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
            .boxed_unsync(),
    };
    hyper::Response::from_parts(parts, body)
}
