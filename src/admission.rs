//! Admission control: one budget of calls in flight for the rules service,
//! shared by every connection. A call over the budget is answered
//! RESOURCE_EXHAUSTED at once instead of waiting in a queue until it times
//! out; health and reflection are never counted nor shed, so probes get
//! answers under overload.
//!
//! Where a call waits decides where it must be counted. hyper spawns a task
//! per HTTP/2 stream, and tower's `poll_ready` and `call` run at that task's
//! first poll, not when the connection reads the request: the wait in the
//! run queue before it is seen by no layer. A unary call answered inline
//! then runs to its end within that same poll once its request body is
//! there. A permit taken inside the handler, as it used to be, was never
//! held while anything else ran, so unary calls were never shed; one taken
//! at the first poll (tower's `GlobalConcurrencyLimitLayer` with
//! `LoadShedLayer`) is held across other work only while a request body is
//! still unread, which has little to do with how long the queue is.
//!
//! So an admitted call gives up its worker once, to the back of the run
//! queue, before its handler runs: it holds its permit while it waits, the
//! calls queued after admission count, and the budget bounds the work an
//! admitted call can find ahead of it. A call admitted while no other is in
//! flight runs at once: there is no queue to wait in, and giving up the
//! worker would only wake another one.
//!
//! A permit is held until the response body has been sent or dropped: a
//! `ValidateGames` stream counts as one call for its whole life, and a call
//! on the blocking pool (a long game, perft) counts until it answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use http_body::{Body, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::codegen::http;
use tower::{Layer, Service};

/// The budget, shared by the service of every connection.
#[derive(Debug)]
struct Budget {
    permits: Arc<Semaphore>,
    limit: usize,
    /// Paths under this prefix (`/package.Service/`) are admitted or shed;
    /// any other passes untouched.
    prefix: String,
}

/// Admits at most `limit` calls of one gRPC service at once.
#[derive(Clone, Debug)]
pub struct AdmissionLayer {
    budget: Arc<Budget>,
}

impl AdmissionLayer {
    /// A budget of `limit` calls in flight for the gRPC service named
    /// `service` (as `arbiter.v1.RulesService`).
    pub fn new(service: &str, limit: usize) -> AdmissionLayer {
        AdmissionLayer {
            budget: Arc::new(Budget {
                permits: Arc::new(Semaphore::new(limit)),
                limit,
                prefix: format!("/{service}/"),
            }),
        }
    }
}

impl<S> Layer<S> for AdmissionLayer {
    type Service = Admission<S>;

    fn layer(&self, inner: S) -> Admission<S> {
        Admission { inner, budget: Arc::clone(&self.budget) }
    }
}

/// The service of [`AdmissionLayer`].
#[derive(Clone, Debug)]
pub struct Admission<S> {
    inner: S,
    budget: Arc<Budget>,
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

    fn call(&mut self, request: http::Request<ReqBody>) -> AdmissionFuture<S::Future> {
        if !request.uri().path().starts_with(&self.budget.prefix) {
            let call = self.inner.call(request);
            return AdmissionFuture::Call { call, permit: None, yield_first: false };
        }
        match Arc::clone(&self.budget.permits).try_acquire_owned() {
            Ok(permit) => AdmissionFuture::Call {
                call: self.inner.call(request),
                permit: Some(permit),
                yield_first: self.budget.permits.available_permits() + 1 < self.budget.limit,
            },
            Err(_) => AdmissionFuture::Shed { limit: self.budget.limit },
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Admission`].
    #[project = Step]
    #[derive(Debug)]
    pub enum AdmissionFuture<F> {
        /// A call, with its permit if it is counted; an admitted call that is
        /// not alone gives up its worker once before it runs.
        Call { #[pin] call: F, permit: Option<OwnedSemaphorePermit>, yield_first: bool },
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
            Step::Call { call, permit, yield_first } => {
                if std::mem::take(yield_first) {
                    // Woken from within its own poll, a tokio task goes to the
                    // back of the run queue: it waits there holding its permit.
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                let response = ready!(call.poll(cx))?;
                let permit = permit.take();
                Poll::Ready(Ok(response.map(|inner| PermitBody { inner, _permit: permit })))
            }
            Step::Shed { limit } => {
                let status = Status::resource_exhausted(format!(
                    "server busy: {limit} calls in flight; retry with backoff"
                ));
                Poll::Ready(Ok(status.into_http().map(|inner| PermitBody { inner, _permit: None })))
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// A response body that holds its call's permit until it is dropped.
    #[derive(Debug)]
    pub struct PermitBody<B> {
        #[pin]
        inner: B,
        _permit: Option<OwnedSemaphorePermit>,
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
