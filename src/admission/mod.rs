//! Admission control for the rules service, with two budgets shared by
//! every connection: calls open (`--max-concurrency`, a `ValidateGames`
//! stream counting for its whole life) and unary calls in flight
//! (`--max-unary-calls`, which bounds the queue an admitted call may wait
//! in). A call over either is answered RESOURCE_EXHAUSTED at once instead
//! of waiting in a queue until it times out, unless slots are held by
//! calls whose answers wait on their clients' windows: then it waits, a
//! grace at most, to take one of theirs (`stalls`). Two budgets, because streams
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
//! game, perft) counts until it answers. Two things bound what a client can
//! hold: the time its answers may wait for it to read them (`stalls`: past
//! a grace a newcomer may take the call's permits, past `--stall-timeout`
//! the call gives them back anyway, and either way it ends), and its share
//! of each budget (`shares`: per connection and per peer address), which
//! also bounds what it holds with calls that compute or are read.

mod shares;
mod stalls;

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::codegen::http;
use tower::{Layer, Service};

pub use self::shares::SharePolicy;
use self::shares::{OverShare, ShareGuard, Shares};
pub use self::stalls::{GRACE, ROOM_WAIT, WatchedBody};
use self::stalls::{Stalls, Watched};
use crate::listener::ConnectionInfo;
use crate::listener::registry::Activity;
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
    /// What each client holds of the budgets.
    shares: Arc<Shares>,
    /// The admitted calls' waits for their peers.
    stalls: Arc<Stalls>,
}

/// The budgets and bounds of [`AdmissionLayer`].
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Calls open at once, streams included.
    pub max_calls: usize,
    /// Unary calls in flight at once.
    pub max_unary: usize,
    /// The most one client may hold of each budget.
    pub shares: SharePolicy,
    /// How long an answer may wait for the peer to take it.
    pub stall_timeout: Duration,
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
    /// `streams` (as `/arbiter.v1.RulesService/ValidateGames`): at most
    /// `policy.max_calls` of its calls open, and at most
    /// `policy.max_unary` of them unary, each client within its share.
    /// The stall bound is kept by [`AdmissionLayer::watch_stalls`], which
    /// must run beside the server.
    pub fn new(service: &str, streams: &[&str], policy: Policy) -> AdmissionLayer {
        AdmissionLayer {
            budgets: Arc::new(Budgets {
                calls: Budget::new(policy.max_calls),
                unary: Budget::new(policy.max_unary),
                prefix: format!("/{service}/"),
                streams: streams.iter().map(|&path| path.to_owned()).collect(),
                shares: Arc::new(Shares::new(policy.shares, policy.max_calls, policy.max_unary)),
                stalls: Arc::new(Stalls::new(policy.stall_timeout)),
            }),
        }
    }

    /// Stalls the calls whose answers wait past the stall bound; runs until
    /// the layer and every service made from it are dropped.
    pub fn watch_stalls(&self) -> impl Future<Output = ()> + Send + 'static {
        self.budgets.stalls.watch()
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

/// The permits a call holds until its response has been sent, or until it
/// stalls.
#[derive(Debug)]
struct Permits {
    _call: OwnedSemaphorePermit,
    _unary: Option<OwnedSemaphorePermit>,
    _share: Option<ShareGuard>,
}

/// Why a call is shed.
#[derive(Debug)]
enum Shed {
    /// A budget is used up: its size.
    Busy(usize),
    /// Its client holds its share.
    OverShare(OverShare),
}

impl Shed {
    fn status(&self) -> Status {
        Status::resource_exhausted(match self {
            Shed::Busy(limit) => {
                format!("server busy: {limit} calls in flight; retry with backoff")
            }
            Shed::OverShare(over) => over.to_string(),
        })
    }
}

/// How a call that is not shed gets its permits.
enum Admit {
    /// At once.
    Now(Permits),
    /// Once a call whose answer waits on its client's window gives way.
    Wait(Room),
}

/// A wait for a slot: the permits, or why the call is shed after all.
pub struct Room(Pin<Box<dyn Future<Output = Result<Permits, Shed>> + Send>>);

impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Room")
    }
}

impl Budgets {
    fn is_stream(&self, path: &str) -> bool {
        self.streams.iter().any(|stream| stream == path)
    }

    /// The permits for a call of `connection` from `peer`, or why it is
    /// shed. With a budget full, the call may wait for the slot of a call
    /// whose answer waits on its client's window (see `stalls`).
    fn admit(
        self: &Arc<Self>,
        stream: bool,
        connection: Option<u64>,
        peer: Option<IpAddr>,
    ) -> Result<Admit, Shed> {
        let share = self.shares.take(connection, peer, !stream).map_err(Shed::OverShare)?;
        let (call, full) = match self.calls.take() {
            Ok(call) if stream => return Ok(Admit::Now(Permits::new(call, None, share))),
            Ok(call) => match self.unary.take() {
                Ok(unary) => return Ok(Admit::Now(Permits::new(call, Some(unary), share))),
                Err(limit) => (Some(call), limit),
            },
            Err(limit) => (None, limit),
        };
        let needs_unary =
            !stream && (call.is_some() || self.unary.permits.available_permits() == 0);
        let waiting = self.stalls.wait_for_room(connection, needs_unary).ok_or(Shed::Busy(full))?;
        let budgets = Arc::clone(self);
        Ok(Admit::Wait(Room(Box::pin(async move {
            let permits = async {
                let call = match call {
                    Some(call) => call,
                    None => Arc::clone(&budgets.calls.permits).acquire_owned().await.ok()?,
                };
                let unary = match stream {
                    true => None,
                    false => Some(Arc::clone(&budgets.unary.permits).acquire_owned().await.ok()?),
                };
                Some(Permits::new(call, unary, share))
            };
            let permits = tokio::time::timeout(ROOM_WAIT, permits).await.ok().flatten();
            drop(waiting);
            permits.ok_or(Shed::Busy(full))
        }))))
    }
}

impl Permits {
    fn new(
        call: OwnedSemaphorePermit,
        unary: Option<OwnedSemaphorePermit>,
        share: Option<ShareGuard>,
    ) -> Permits {
        Permits { _call: call, _unary: unary, _share: share }
    }
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for Admission<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>> + Clone,
    ResBody: Default,
{
    type Response = http::Response<WatchedBody<ResBody>>;
    type Error = S::Error;
    type Future = AdmissionFuture<S, http::Request<ReqBody>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<ReqBody>) -> Self::Future {
        let path = request.uri().path();
        if !path.starts_with(&self.budgets.prefix) {
            let call = self.inner.call(request);
            return AdmissionFuture::Call { call, watch: None, yield_first: false };
        }
        let stream = self.budgets.is_stream(path);
        let connection = ConnectionInfo::of(&request);
        let activity = connection.map(|info| Arc::clone(&info.activity));
        let peer = connection.and_then(|info| info.tcp.remote_addr()).map(|addr| addr.ip());
        let id = activity.as_ref().map(|activity| activity.id());
        match self.budgets.admit(stream, id, peer) {
            Ok(Admit::Now(permits)) => {
                // A stream's handler only sets the stream up, and a unary call
                // alone has nothing to queue behind: giving up the worker
                // would only wake another one.
                let yield_first = !stream && self.budgets.unary.others_in_flight();
                request.extensions_mut().insert(Admitted(Instant::now()));
                let watch = self.budgets.stalls.watch_call(permits, activity, stream);
                let call = self.inner.call(request);
                AdmissionFuture::Call { call, watch: Some(watch), yield_first }
            }
            Ok(Admit::Wait(wait)) => {
                // The service that was made ready goes with the call; this
                // one takes its clone's place.
                let clone = self.inner.clone();
                let inner = std::mem::replace(&mut self.inner, clone);
                let deferred = Deferred {
                    budgets: Arc::clone(&self.budgets),
                    stream,
                    activity,
                    inner,
                    request,
                };
                AdmissionFuture::Wait { wait, deferred: Some(deferred) }
            }
            Err(shed) => AdmissionFuture::Shed { status: Some(shed.status()) },
        }
    }
}

/// What a call waiting for a slot needs to start once it has one.
pub struct Deferred<S, Q> {
    budgets: Arc<Budgets>,
    stream: bool,
    activity: Option<Arc<Activity>>,
    inner: S,
    request: Q,
}

impl<S, Q> std::fmt::Debug for Deferred<S, Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deferred").field("stream", &self.stream).finish_non_exhaustive()
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Admission`].
    #[project = Step]
    pub enum AdmissionFuture<S, Q>
    where
        S: Service<Q>,
    {
        /// A call, watched with its permits if it is counted; an admitted
        /// unary call that is not alone gives up its worker once before it
        /// runs.
        Call { #[pin] call: S::Future, watch: Option<Watched>, yield_first: bool },
        /// A call waiting for the slot of a call whose answer waits.
        Wait {
            wait: Room,
            deferred: Option<Deferred<S, Q>>,
        },
        /// Over a budget or its client's share.
        Shed { status: Option<Status> },
    }
}

impl<S, Q> std::fmt::Debug for AdmissionFuture<S, Q>
where
    S: Service<Q>,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AdmissionFuture::Call { .. } => "AdmissionFuture::Call",
            AdmissionFuture::Wait { .. } => "AdmissionFuture::Wait",
            AdmissionFuture::Shed { .. } => "AdmissionFuture::Shed",
        })
    }
}

impl<S, ReqBody, B> Future for AdmissionFuture<S, http::Request<ReqBody>>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<B>>,
    B: Default,
{
    type Output = Result<http::Response<WatchedBody<B>>, S::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            match self.as_mut().project() {
                Step::Call { call, watch, yield_first } => {
                    if std::mem::take(yield_first) {
                        // Woken from within its own poll, a tokio task goes to
                        // the back of the run queue: it waits there holding its
                        // permit.
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                    let response = ready!(call.poll(cx))?;
                    let watch = watch.take();
                    return Poll::Ready(Ok(response.map(|inner| WatchedBody::new(inner, watch))));
                }
                Step::Wait { wait, deferred } => {
                    let admitted = ready!(wait.0.as_mut().poll(cx));
                    let Some(Deferred { budgets, stream, activity, mut inner, mut request }) =
                        deferred.take()
                    else {
                        return Poll::Ready(Ok(shed(Status::internal("polled again"))));
                    };
                    let next = match admitted {
                        Ok(permits) => {
                            request.extensions_mut().insert(Admitted(Instant::now()));
                            let watch = budgets.stalls.watch_call(permits, activity, stream);
                            // It has waited already: it runs at once.
                            AdmissionFuture::Call {
                                call: inner.call(request),
                                watch: Some(watch),
                                yield_first: false,
                            }
                        }
                        Err(over) => AdmissionFuture::Shed { status: Some(over.status()) },
                    };
                    self.set(next);
                }
                Step::Shed { status } => {
                    let status = status.take().unwrap_or_else(|| Status::internal("polled again"));
                    return Poll::Ready(Ok(shed(status)));
                }
            }
        }
    }
}

/// A shed call's answer: its status alone.
fn shed<B: Default>(status: Status) -> http::Response<WatchedBody<B>> {
    status.into_http().map(|inner| WatchedBody::new(inner, None))
}
