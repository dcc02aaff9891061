//! The `/metrics` endpoint: Prometheus text over HTTP/1.1 on its own port,
//! its connections bounded by the same accept loop as the gRPC port's.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// How often histogram samples are folded into their buckets when nobody
/// scrapes, so that they do not pile up.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Serves the Prometheus text format at `GET /metrics` on `listener` over
/// HTTP/1.1 until the returned future is dropped, which also closes the
/// connections it opened. It never completes on its own. `before_scrape`
/// runs before each rendering, to set gauges that are read rather than
/// kept up to date on every call.
///
/// The connections are bounded as the gRPC port's are (see
/// [`crate::listener`]), within `limits`: at most so many open, a newcomer
/// closing the one idle the longest, and a request's headers read within
/// the handshake timeout (hyper's `header_read_timeout`, which bounds every
/// request, and also the wait for the next one on a kept-alive connection:
/// a scraper connects again for its next scrape).
pub async fn serve(
    listener: TcpListener,
    limits: crate::listener::ConnectionLimits,
    handle: PrometheusHandle,
    before_scrape: impl Fn() + Clone + Send + Sync + 'static,
) -> Infallible {
    let incoming = crate::listener::incoming(listener, limits, crate::listener::Port::Metrics);
    let mut incoming = std::pin::pin!(incoming);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.handshake_timeout);
    let mut connections = JoinSet::new();
    let mut upkeep = tokio::time::interval(UPKEEP_EVERY);
    loop {
        tokio::select! {
            Some(Ok(stream)) = incoming.next() => {
                let (handle, before_scrape) = (handle.clone(), before_scrape.clone());
                let activity = std::sync::Arc::clone(stream.activity());
                let service = hyper::service::service_fn(move |request| {
                    let _call = activity.call_opened();
                    let response = respond(&request, &handle, &before_scrape);
                    async move { Ok::<_, Infallible>(response) }
                });
                let connection = http.serve_connection(TokioIo::new(stream), service);
                connections.spawn(async move {
                    if let Err(err) = connection.await {
                        tracing::debug!(%err, "metrics endpoint: connection ended");
                    }
                });
            }
            _ = upkeep.tick() => handle.run_upkeep(),
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

fn respond(
    request: &Request<Incoming>,
    handle: &PrometheusHandle,
    before_scrape: &impl Fn(),
) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        response
    };
    if request.uri().path() != "/metrics" {
        return text(StatusCode::NOT_FOUND, "not found: metrics are at /metrics\n".to_owned());
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "use GET\n".to_owned());
        response.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    before_scrape();
    let mut response = text(StatusCode::OK, handle.render());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
