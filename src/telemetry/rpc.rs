//! The tower layer around every gRPC call: counts it by method and status
//! code, times it, tracks calls in flight, and opens the call's span,
//! continuing the caller's trace from a W3C `traceparent` header.
//!
//! The status of a call is in the response headers only when the call fails
//! before any message (trailers-only); an OK call carries it in the
//! trailers, so the response body is wrapped and watched to its end. A call
//! whose response is dropped before a status was seen (the client went
//! away, a timeout layer outside gave up) counts as CANCELLED.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use http_body::{Body, Frame, SizeHint};
use metrics::{Counter, Gauge, Histogram, counter, gauge, histogram};
use opentelemetry::propagation::Extractor;
use tonic::Code;
use tonic::codegen::http::{self, HeaderMap};
use tower::{Layer, Service};
use tracing::Span;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::prometheus::{RPC_DURATION, RPC_HANDLED, RPC_IN_FLIGHT};
use crate::proto::routes::RULES_PATHS;
use crate::status::code_name;

/// The target of the RPC spans: they go to the trace exporter, not to the
/// log lines (each would cost formatting on every call).
pub const SPAN_TARGET: &str = "arbiter::rpc";

/// The paths served besides the rules service's.
const OTHER_PATHS: [&str; 4] = [
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

const KNOWN: usize = RULES_PATHS.len() + OTHER_PATHS.len();

/// The paths served, each counted under its own `grpc_service` and
/// `grpc_method`; any other path is counted as `unknown` so that callers
/// cannot create series at will.
const KNOWN_PATHS: [&str; KNOWN] = {
    let mut paths = [""; KNOWN];
    let mut i = 0;
    while i < KNOWN {
        paths[i] =
            if i < RULES_PATHS.len() { RULES_PATHS[i] } else { OTHER_PATHS[i - RULES_PATHS.len()] };
        i += 1;
    }
    paths
};

/// The gRPC status codes, `OK` (0) to `UNAUTHENTICATED` (16).
const CODES: usize = 17;

/// The metric handles of one method. Looking a series up by name and labels
/// costs a hash and an allocation, a tenth of a health check's cost when done
/// four times a call, so each method's handles are looked up on its first
/// call and kept. `server::serve` installs the recorder before any call, so
/// none of them is a no-op handle.
#[derive(Debug)]
struct Series {
    in_flight: Gauge,
    duration: Histogram,
    handled: [OnceLock<Counter>; CODES],
}

/// The handles of each known path, then those of `unknown`.
static SERIES: [OnceLock<Series>; KNOWN_PATHS.len() + 1] =
    [const { OnceLock::new() }; KNOWN_PATHS.len() + 1];

/// The labels of one method.
#[derive(Clone, Copy, Debug)]
struct Method {
    /// `service/method`, the span name OpenTelemetry's RPC conventions ask for.
    name: &'static str,
    service: &'static str,
    method: &'static str,
    /// Where its handles are in [`SERIES`].
    index: usize,
}

impl Method {
    fn of(path: &str) -> Method {
        let index = KNOWN_PATHS.iter().position(|known| *known == path);
        let name = index.map_or("unknown", |i| &KNOWN_PATHS[i][1..]);
        let (service, method) = name.split_once('/').unwrap_or(("unknown", "unknown"));
        Method { name, service, method, index: index.unwrap_or(KNOWN_PATHS.len()) }
    }

    fn series(self) -> &'static Series {
        let Method { service, method, .. } = self;
        SERIES[self.index].get_or_init(|| Series {
            in_flight: gauge!(RPC_IN_FLIGHT, "grpc_service" => service, "grpc_method" => method),
            duration: histogram!(RPC_DURATION, "grpc_service" => service, "grpc_method" => method),
            handled: [const { OnceLock::new() }; CODES],
        })
    }

    fn handled(self, code: Code) -> &'static Counter {
        let Method { service, method, .. } = self;
        self.series().handled[code as usize].get_or_init(|| {
            let code = code_name(code);
            counter!(RPC_HANDLED, "grpc_service" => service, "grpc_method" => method, "grpc_code" => code)
        })
    }
}

/// The codes a rules-service call is known to end with, registered at zero
/// for each of its methods; health and reflection calls get `OK`.
const EXPECTED_CODES: [Code; 6] = [
    Code::Ok,
    Code::Cancelled,
    Code::InvalidArgument,
    Code::DeadlineExceeded,
    Code::ResourceExhausted,
    Code::Internal,
];

/// Registers, at zero, the series of every served path (its in-flight gauge,
/// latency histogram and the counters of the codes it is expected to end
/// with), so that dashboards and `rate()` see them before the first call.
pub fn register_at_zero() {
    for (i, path) in KNOWN_PATHS.iter().enumerate() {
        let method = Method::of(path);
        let codes = if i < RULES_PATHS.len() { &EXPECTED_CODES[..] } else { &EXPECTED_CODES[..1] };
        for &code in codes {
            method.handled(code);
        }
    }
}

/// Whether a status means the server failed rather than the caller: those
/// are logged at ERROR and mark the span as an error; the rest (bad
/// requests, shed calls, deadlines the caller chose) are the caller's
/// business and logged at DEBUG.
fn server_fault(code: Code) -> bool {
    match code {
        Code::Unknown | Code::Internal | Code::DataLoss | Code::Unavailable => true,
        Code::Ok
        | Code::Cancelled
        | Code::InvalidArgument
        | Code::DeadlineExceeded
        | Code::NotFound
        | Code::AlreadyExists
        | Code::PermissionDenied
        | Code::ResourceExhausted
        | Code::FailedPrecondition
        | Code::Aborted
        | Code::OutOfRange
        | Code::Unimplemented
        | Code::Unauthenticated => false,
    }
}

/// Reads the W3C trace context from request headers.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// One call from its request headers until its status is known.
#[derive(Debug)]
struct Call {
    method: Method,
    started: Instant,
    span: Span,
    finished: bool,
}

impl Call {
    fn start(path: &str, headers: &HeaderMap) -> Call {
        let method = Method::of(path);
        let span = tracing::info_span!(
            target: SPAN_TARGET,
            "rpc",
            otel.name = method.name,
            otel.kind = "server",
            otel.status_code = Empty,
            rpc.system = "grpc",
            rpc.service = method.service,
            rpc.method = method.method,
            rpc.grpc.status_code = Empty,
            arbiter.moves = Empty,
            arbiter.games = Empty,
            arbiter.outcome = Empty,
            arbiter.illegal_reason = Empty,
        );
        // Without a traceparent there is nothing to continue; with no OTLP
        // exporter the propagator is a no-op and the span has no OTel layer.
        if headers.contains_key("traceparent") {
            let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
                propagator.extract(&Headers(headers))
            });
            let _ = span.set_parent(parent);
        }
        method.series().in_flight.increment(1.0);
        Call { method, started: Instant::now(), span, finished: false }
    }

    /// Finishes the call if `headers` (response headers or trailers) carry
    /// its status; says whether they did.
    fn finish_from(&mut self, headers: &HeaderMap) -> bool {
        let Some(status) = headers.get("grpc-status") else { return false };
        let message = headers.get("grpc-message").and_then(|value| value.to_str().ok());
        self.finish(Code::from_bytes(status.as_bytes()), message.unwrap_or(""));
        true
    }

    fn finish(&mut self, code: Code, message: &str) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let code_label = code_name(code);
        self.method.handled(code).increment(1);
        let series = self.method.series();
        series.duration.record(self.started.elapsed());
        series.in_flight.decrement(1.0);
        self.span.record("rpc.grpc.status_code", code as i32);
        // The level of a tracing event is fixed where it is written.
        macro_rules! log_end {
            ($level:ident, $text:literal) => {
                tracing::$level!(
                    parent: &self.span,
                    grpc.method = self.method.name,
                    grpc.code = code_label,
                    grpc.message = message,
                    $text
                )
            };
        }
        if server_fault(code) {
            self.span.record("otel.status_code", "ERROR");
            log_end!(error, "call failed");
        } else if code != Code::Ok {
            log_end!(debug, "call refused");
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.finish(Code::Cancelled, "the response was dropped before its status");
    }
}

/// Wraps a service with [`RpcService`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RpcLayer;

impl<S> Layer<S> for RpcLayer {
    type Service = RpcService<S>;

    fn layer(&self, inner: S) -> RpcService<S> {
        RpcService { inner }
    }
}

/// Metrics and a span for every call to the wrapped service.
#[derive(Clone, Debug)]
pub struct RpcService<S> {
    inner: S,
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for RpcService<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
{
    type Response = http::Response<RpcBody<ResBody>>;
    type Error = S::Error;
    type Future = RpcFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<ReqBody>) -> RpcFuture<S::Future> {
        let call = Call::start(request.uri().path(), request.headers());
        let inner = call.span.in_scope(|| self.inner.call(request));
        RpcFuture { inner, call: Some(call) }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`RpcService`].
    #[derive(Debug)]
    pub struct RpcFuture<F> {
        #[pin]
        inner: F,
        call: Option<Call>,
    }
}

impl<F, B, E> Future for RpcFuture<F>
where
    F: Future<Output = Result<http::Response<B>, E>>,
{
    type Output = Result<http::Response<RpcBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = {
            let _entered = this.call.as_ref().map(|call| call.span.enter());
            ready!(this.inner.poll(cx))
        };
        let mut call = this.call.take();
        match result {
            Ok(response) => {
                // A trailers-only response (every error) has its status here.
                if call.as_mut().is_some_and(|call| call.finish_from(response.headers())) {
                    call = None;
                }
                Poll::Ready(Ok(response.map(|inner| RpcBody { inner, call })))
            }
            Err(err) => {
                if let Some(call) = call.as_mut() {
                    call.finish(Code::Unknown, "the service failed");
                }
                Poll::Ready(Err(err))
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// A response body that finishes its call when the trailers go by.
    #[derive(Debug)]
    pub struct RpcBody<B> {
        #[pin]
        inner: B,
        call: Option<Call>,
    }
}

impl<B: Body> Body for RpcBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        // A stream's work happens while its body is polled: keep it in the span.
        let frame = {
            let _entered = this.call.as_ref().map(|call| call.span.enter());
            ready!(this.inner.poll_frame(cx))
        };
        if let Some(call) = this.call.as_mut() {
            let finished = match &frame {
                Some(Ok(frame)) => frame.trailers_ref().is_some_and(|t| call.finish_from(t)),
                Some(Err(_)) => {
                    call.finish(Code::Unknown, "the response body failed");
                    true
                }
                None => {
                    call.finish(Code::Unknown, "the response ended without a status");
                    true
                }
            };
            if finished {
                *this.call = None;
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_served_paths_get_their_own_labels() {
        let m = Method::of("/arbiter.v1.RulesService/ValidateGame");
        assert_eq!(
            (m.name, m.service, m.method),
            ("arbiter.v1.RulesService/ValidateGame", "arbiter.v1.RulesService", "ValidateGame")
        );
        let m = Method::of("/arbiter.v1.RulesService/e2e4-and-anything-else");
        assert_eq!((m.name, m.service, m.method), ("unknown", "unknown", "unknown"));
    }
}
