//! Admission control for the rules service, with two budgets shared by
//! every connection: calls open (`--max-concurrency`, a `ValidateGames`
//! stream counting for its whole life) and unary calls in flight
//! (`--max-unary-calls`, which bounds the queue an admitted call may wait
//! in). A call over either is answered RESOURCE_EXHAUSTED at once instead
//! of waiting in a queue until it times out. Two budgets, because streams
//! are long-lived and may sit idle: if they shared the unary budget, a few
//! dozen open streams would shut out every unary caller. Health and
//! reflection are never counted nor shed, so probes get answers under
//! overload.
//!
//! Where a call waits decides where it must be counted. hyper spawns a task
//! per HTTP/2 stream, and tower's `poll_ready` and `call` run at that task's
//! first poll, not when the connection reads the request: the wait in the
//! run queue before it is seen by no layer. A unary call answered inline
//! then runs to its end within that same poll once its request body is
//! there. A permit taken inside the handler would never be held while
//! anything else ran, so unary calls would never be shed; one taken
//! at the first poll (tower's `GlobalConcurrencyLimitLayer` with
//! `LoadShedLayer`) is held across other work only while a request body is
//! still unread, which has little to do with how long the queue is.
//!
//! So an admitted unary call gives up its worker once, to the back of the
//! run queue, before its handler runs: it holds its permits while it waits,
//! the calls queued after admission count, and the unary budget bounds the
//! work an admitted call can find ahead of it. A unary call admitted while
//! no other is in flight runs at once: there is no queue to wait in, and
//! giving up the worker would only wake another one.
//!
//! Permits are held until the response body has been sent or dropped: a
//! stream counts for its whole life, and a call on the blocking pool (a long
//! game, perft) counts until it answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use http_body::{Body, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::codegen::http;
use tower::{Layer, Service};

/// When a call was admitted, in its request's extensions. A handler that
/// works to the caller's deadline counts from here: tonic's own timer for
/// `grpc-timeout` starts about now too, and the admitted call may then wait
/// for a worker before its handler runs.
#[derive(Clone, Copy, Debug)]
pub struct Admitted(pub Instant);

/// One budget of permits, with its size for the shed answer.
#[derive(Debug)]
struct Budget {
    permits: Arc<Semaphore>,
    limit: usize,
}

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget { permits: Arc::new(Semaphore::new(limit)), limit }
    }

    fn take(&self) -> Result<OwnedSemaphorePermit, usize> {
        Arc::clone(&self.permits).try_acquire_owned().map_err(|_| self.limit)
    }

    /// Whether calls other than the one holding a permit are in flight.
    fn others_in_flight(&self) -> bool {
        self.permits.available_permits() + 1 < self.limit
    }
}

/// What the budgets are and which calls they count, shared by the service
/// of every connection.
#[derive(Debug)]
struct Budgets {
    /// Every call of the service, streams included: what may be open.
    calls: Budget,
    /// Unary calls: what may be queued for, or running on, the workers.
    unary: Budget,
    /// Paths under this prefix (`/package.Service/`) are admitted or shed;
    /// any other passes untouched.
    prefix: String,
    /// The paths of the service's streaming methods.
    streams: Vec<String>,
}

/// Admits the calls of one gRPC service within two budgets: calls open,
/// streams included, and unary calls in flight.
#[derive(Clone, Debug)]
pub struct AdmissionLayer {
    budgets: Arc<Budgets>,
}

impl AdmissionLayer {
    /// Budgets for the gRPC service named `service` (as
    /// `arbiter.v1.RulesService`) whose streaming methods have the paths
    /// `streams` (as `/arbiter.v1.RulesService/ValidateGames`): at
    /// most `max_calls` of its calls open, and at most `max_unary` of them
    /// unary.
    pub fn new(
        service: &str,
        streams: &[&str],
        max_calls: usize,
        max_unary: usize,
    ) -> AdmissionLayer {
        AdmissionLayer {
            budgets: Arc::new(Budgets {
                calls: Budget::new(max_calls),
                unary: Budget::new(max_unary),
                prefix: format!("/{service}/"),
                streams: streams.iter().map(|&path| path.to_owned()).collect(),
            }),
        }
    }
}

impl<S> Layer<S> for AdmissionLayer {
    type Service = Admission<S>;

    fn layer(&self, inner: S) -> Admission<S> {
        Admission { inner, budgets: Arc::clone(&self.budgets) }
    }
}

/// The service of [`AdmissionLayer`].
#[derive(Clone, Debug)]
pub struct Admission<S> {
    inner: S,
    budgets: Arc<Budgets>,
}

/// The permits a call holds until its response has been sent.
#[derive(Debug)]
pub struct Permits {
    _call: OwnedSemaphorePermit,
    _unary: Option<OwnedSemaphorePermit>,
}

impl Budgets {
    fn is_stream(&self, path: &str) -> bool {
        self.streams.iter().any(|stream| stream == path)
    }

    /// The permits for a call, or the limit it is over.
    fn admit(&self, stream: bool) -> Result<Permits, usize> {
        let call = self.calls.take()?;
        let unary = if stream { None } else { Some(self.unary.take()?) };
        Ok(Permits { _call: call, _unary: unary })
    }
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for Admission<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    ResBody: Default,
{
    type Response = http::Response<PermitBody<ResBody>>;
    type Error = S::Error;
    type Future = AdmissionFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<ReqBody>) -> AdmissionFuture<S::Future> {
        let path = request.uri().path();
        if !path.starts_with(&self.budgets.prefix) {
            let call = self.inner.call(request);
            return AdmissionFuture::Call { call, permits: None, yield_first: false };
        }
        let stream = self.budgets.is_stream(path);
        match self.budgets.admit(stream) {
            Ok(permits) => {
                // A stream's handler only sets the stream up, and a unary call
                // alone has nothing to queue behind: giving up the worker
                // would only wake another one.
                let yield_first = !stream && self.budgets.unary.others_in_flight();
                request.extensions_mut().insert(Admitted(Instant::now()));
                let call = self.inner.call(request);
                AdmissionFuture::Call { call, permits: Some(permits), yield_first }
            }
            Err(limit) => AdmissionFuture::Shed { limit },
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Admission`].
    #[project = Step]
    #[derive(Debug)]
    pub enum AdmissionFuture<F> {
        /// A call, with its permits if it is counted; an admitted unary call
        /// that is not alone gives up its worker once before it runs.
        Call { #[pin] call: F, permits: Option<Permits>, yield_first: bool },
        /// Over the budget.
        Shed { limit: usize },
    }
}

impl<F, B, E> Future for AdmissionFuture<F>
where
    F: Future<Output = Result<http::Response<B>, E>>,
    B: Default,
{
    type Output = Result<http::Response<PermitBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            Step::Call { call, permits, yield_first } => {
                if std::mem::take(yield_first) {
                    // Woken from within its own poll, a tokio task goes to the
                    // back of the run queue: it waits there holding its permit.
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                let response = ready!(call.poll(cx))?;
                let permits = permits.take();
                Poll::Ready(Ok(response.map(|inner| PermitBody { inner, _permits: permits })))
            }
            Step::Shed { limit } => {
                let status = Status::resource_exhausted(format!(
                    "server busy: {limit} calls in flight; retry with backoff"
                ));
                Poll::Ready(Ok(status
                    .into_http()
                    .map(|inner| PermitBody { inner, _permits: None })))
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// A response body that holds its call's permits until it is dropped.
    #[derive(Debug)]
    pub struct PermitBody<B> {
        #[pin]
        inner: B,
        _permits: Option<Permits>,
    }
}

impl<B: Body> Body for PermitBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
