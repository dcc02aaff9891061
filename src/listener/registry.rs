//! The connections open on a port, and which of them may be closed: those
//! that have not finished their handshake in time, those idle (no call
//! open) for too long, when a newcomer finds every slot taken, the one
//! idle the longest, so that idle sockets cannot keep clients out, and
//! those whose every open call is stalled (a peer that takes no answer:
//! [`crate::admission`] finds them).
//!
//! A connection is idle while no call is open on it: the calls are counted
//! by [`StreamsLayer`], which finds the connection's [`Activity`] in the
//! request's extensions (tonic puts each connection's
//! [`ConnectionInfo`] there). Closing a connection means failing its next
//! read (its reader is woken for that): the HTTP layer then drops it, which
//! closes the socket. Only idle connections are closed, so no answer is cut
//! short; a client whose connection was closed while idle connects again
//! for its next call.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::task::AtomicWaker;
use http_body::{Body, Frame, SizeHint};
use tonic::codegen::http;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};

use crate::telemetry::prometheus::{CLOSE_REASONS, CONNECTIONS_CLOSED};

/// How many connections a port keeps open and for how long.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time from accept to the end of the handshake (the HTTP/2 preface
    /// and SETTINGS, or a first HTTP/1.1 request).
    pub handshake_timeout: Duration,
    /// Time a connection may stay with no call open.
    pub idle_timeout: Duration,
}

/// Why the server closed a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// It had not finished its handshake within the handshake timeout.
    HandshakeTimeout,
    /// It had no call open for the idle timeout.
    IdleTimeout,
    /// Every slot was taken and it was the one idle the longest.
    Evicted,
    /// Every call open on it had waited past the stall bound for the peer
    /// to take its answer (see [`crate::admission`]).
    Stalled,
}

impl Closed {
    /// The `reason` label of `arbiter_connections_closed_total`.
    pub fn label(self) -> &'static str {
        match self {
            Closed::HandshakeTimeout => CLOSE_REASONS[0],
            Closed::IdleTimeout => CLOSE_REASONS[1],
            Closed::Evicted => CLOSE_REASONS[2],
            Closed::Stalled => CLOSE_REASONS[3],
        }
    }
}

/// The open connections of one port.
#[derive(Debug)]
pub(super) struct Registry {
    limits: ConnectionLimits,
    epoch: Instant,
    /// Whether closings are counted in the gRPC port's metrics.
    counted: bool,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    next_id: u64,
    by_id: HashMap<u64, Arc<Activity>>,
}

impl Registry {
    pub(super) fn new(limits: ConnectionLimits, counted: bool) -> Registry {
        Registry { limits, epoch: Instant::now(), counted, open: Mutex::default() }
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How often [`Registry::reap`] should run: a quarter of the shorter
    /// timeout (so a connection is closed at most a quarter late), at least
    /// every second and at most every 10 ms.
    pub(super) fn reap_every(&self) -> Duration {
        let shorter = self.limits.handshake_timeout.min(self.limits.idle_timeout);
        (shorter / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
    }

    /// A slot for a new connection: a free one, or the slot of the
    /// connection idle the longest, which is closed. `None` when every
    /// connection has a call open. `handshaken` says whether the handshake
    /// is already known to be over (under TLS, whose own handshake tonic
    /// bounds, the bytes cannot be read).
    pub(super) fn admit(&self, handshaken: bool) -> Option<Arc<Activity>> {
        let mut open = self.open();
        if open.by_id.len() >= self.limits.max_connections {
            let (&id, _) =
                open.by_id.iter().filter(|(_, activity)| activity.is_idle()).min_by_key(
                    |&(&id, activity)| (activity.last_active.load(Ordering::Relaxed), id),
                )?;
            let victim = open.by_id.remove(&id)?;
            victim.close(Closed::Evicted);
        }
        let id = open.next_id;
        open.next_id += 1;
        let activity = Arc::new(Activity {
            id,
            epoch: self.epoch,
            accepted: self.now(),
            counted: self.counted,
            streams: AtomicUsize::new(0),
            stalled: AtomicUsize::new(0),
            handshaken: AtomicBool::new(handshaken),
            last_active: AtomicU64::new(self.now()),
            closed: AtomicBool::new(false),
            reader: AtomicWaker::new(),
        });
        open.by_id.insert(id, Arc::clone(&activity));
        Some(activity)
    }

    /// Closes the connections past their handshake or idle timeout.
    pub(super) fn reap(&self) {
        let now = self.now();
        let handshake = millis(self.limits.handshake_timeout);
        let idle = millis(self.limits.idle_timeout);
        self.open().by_id.retain(|_, activity| {
            let reason = if !activity.handshaken.load(Ordering::Acquire) {
                (now.saturating_sub(activity.accepted) >= handshake)
                    .then_some(Closed::HandshakeTimeout)
            } else {
                let quiet = now.saturating_sub(activity.last_active.load(Ordering::Relaxed));
                (activity.is_idle() && quiet >= idle).then_some(Closed::IdleTimeout)
            };
            match reason {
                Some(reason) => {
                    activity.close(reason);
                    false
                }
                None => true,
            }
        });
    }

    /// Forgets a connection that has closed (if it is still counted).
    pub(super) fn remove(&self, activity: &Activity) {
        self.open().by_id.remove(&activity.id);
    }

    fn now(&self) -> u64 {
        millis(self.epoch.elapsed())
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// What one connection is doing, shared by its socket and its calls.
#[derive(Debug)]
pub struct Activity {
    id: u64,
    epoch: Instant,
    /// Milliseconds from the registry's epoch to the accept.
    accepted: u64,
    /// Whether closings are counted in the gRPC port's metrics.
    counted: bool,
    /// Calls open.
    streams: AtomicUsize,
    /// Calls open whose answers have waited past the stall bound.
    stalled: AtomicUsize,
    handshaken: AtomicBool,
    /// Milliseconds from the registry's epoch to the handshake's end or the
    /// last call's end, whichever came last.
    last_active: AtomicU64,
    closed: AtomicBool,
    /// Whoever waits to read the socket, woken to find it closed.
    reader: AtomicWaker,
}

impl Activity {
    /// The connection's number, unique on its port.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Marks a call open until the returned guard is dropped; a call also
    /// ends the handshake (an HTTP/1.1 client's first request does).
    pub fn call_opened(self: &Arc<Activity>) -> OpenCall {
        self.streams.fetch_add(1, Ordering::AcqRel);
        self.handshake_done();
        OpenCall(Arc::clone(self))
    }

    /// Marks the handshake over.
    pub(super) fn handshake_done(&self) {
        self.touch();
        self.handshaken.store(true, Ordering::Release);
    }

    /// Whether the server has closed the connection; if not, `cx` is woken
    /// when it does.
    pub(super) fn is_closed(&self, cx: &Context<'_>) -> bool {
        if self.closed.load(Ordering::Acquire) {
            return true;
        }
        self.reader.register(cx.waker());
        self.closed.load(Ordering::Acquire)
    }

    /// Whether the server has closed the connection (without waiting
    /// for it: writers are not woken, the reader is).
    pub(super) fn was_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn is_idle(&self) -> bool {
        self.streams.load(Ordering::Acquire) == 0
    }

    fn touch(&self) {
        self.last_active.store(millis(self.epoch.elapsed()), Ordering::Relaxed);
    }

    /// Marks one of the connection's open calls as stalled until the
    /// returned guard is dropped. When every call open on the connection is
    /// stalled, nothing more will come of it: the connection is closed
    /// (reason `stalled`), as an idle one would be, which ends its calls.
    pub fn call_stalled(self: &Arc<Activity>) -> StalledCall {
        let stalled = self.stalled.fetch_add(1, Ordering::AcqRel) + 1;
        if stalled >= self.streams.load(Ordering::Acquire) && !self.was_closed() {
            self.close(Closed::Stalled);
        }
        StalledCall(Arc::clone(self))
    }

    fn close(&self, reason: Closed) {
        tracing::debug!(reason = reason.label(), "closing a connection");
        if self.counted {
            metrics::counter!(CONNECTIONS_CLOSED, "reason" => reason.label()).increment(1);
        }
        self.closed.store(true, Ordering::Release);
        self.reader.wake();
    }
}

/// A stalled call, until dropped (see [`Activity::call_stalled`]).
#[derive(Debug)]
pub struct StalledCall(Arc<Activity>);

impl Drop for StalledCall {
    fn drop(&mut self) {
        self.0.stalled.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A call open on a connection, until dropped.
#[derive(Debug)]
pub struct OpenCall(Arc<Activity>);

impl Drop for OpenCall {
    fn drop(&mut self) {
        self.0.touch();
        self.0.streams.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What tonic puts in each request's extensions for a connection: its
/// addresses and its [`Activity`].
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    /// The TCP addresses, as tonic's own listener gives them.
    pub tcp: TcpConnectInfo,
    /// What the connection is doing.
    pub activity: Arc<Activity>,
}

impl ConnectionInfo {
    /// The connection a request came on, plaintext or under TLS.
    pub fn of<B>(request: &http::Request<B>) -> Option<&ConnectionInfo> {
        let extensions = request.extensions();
        extensions
            .get::<ConnectionInfo>()
            .or_else(|| extensions.get::<TlsConnectInfo<ConnectionInfo>>().map(|tls| tls.get_ref()))
    }
}

/// Counts each call as open on its connection from its request until its
/// response has been sent or dropped; outermost, so that every call counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamsLayer;

impl<S> tower::Layer<S> for StreamsLayer {
    type Service = Streams<S>;

    fn layer(&self, inner: S) -> Streams<S> {
        Streams { inner }
    }
}

/// The service of [`StreamsLayer`].
#[derive(Clone, Debug)]
pub struct Streams<S> {
    inner: S,
}

impl<S, ReqBody, ResBody> tower::Service<http::Request<ReqBody>> for Streams<S>
where
    S: tower::Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
{
    type Response = http::Response<WithCall<ResBody>>;
    type Error = S::Error;
    type Future = StreamsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<ReqBody>) -> Self::Future {
        let call = ConnectionInfo::of(&request).map(|info| info.activity.call_opened());
        StreamsFuture { inner: self.inner.call(request), call }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Streams`]; the call stays open while it
    /// is pending.
    #[derive(Debug)]
    pub struct StreamsFuture<F> {
        #[pin]
        inner: F,
        call: Option<OpenCall>,
    }
}

impl<F, B, E> std::future::Future for StreamsFuture<F>
where
    F: std::future::Future<Output = Result<http::Response<B>, E>>,
{
    type Output = Result<http::Response<WithCall<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = std::task::ready!(this.inner.poll(cx))?;
        let call = this.call.take();
        Poll::Ready(Ok(response.map(|inner| WithCall { inner, _call: call })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that keeps its call open until it is dropped.
    #[derive(Debug)]
    pub struct WithCall<B> {
        #[pin]
        inner: B,
        _call: Option<OpenCall>,
    }
}

impl<B: Body<Data = Bytes>> Body for WithCall<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        self.project().inner.poll_frame(cx)
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
    use std::task::Waker;

    const LONG: Duration = Duration::from_secs(3600);

    fn limits(max_connections: usize) -> ConnectionLimits {
        ConnectionLimits { max_connections, handshake_timeout: LONG, idle_timeout: LONG }
    }

    fn closed(activity: &Activity) -> bool {
        activity.is_closed(&Context::from_waker(Waker::noop()))
    }

    /// At the limit, a newcomer takes the slot of the connection idle the
    /// longest; with a call open on every connection it is refused.
    #[test]
    fn the_longest_idle_connection_makes_room() {
        let registry = Registry::new(limits(3), false);
        let first = registry.admit(false).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let second = registry.admit(false).unwrap();
        let third = registry.admit(false).unwrap();
        // `first` is busy: `second` is the longest idle.
        let call = first.call_opened();
        let fourth = registry.admit(false).unwrap();
        assert!(!closed(&first) && closed(&second) && !closed(&third));
        let _calls = [third.call_opened(), fourth.call_opened()];
        assert!(registry.admit(false).is_none(), "every connection has a call open");
        // A call that ends makes its connection idle again, and evictable.
        drop(call);
        assert!(registry.admit(true).is_some());
        assert!(closed(&first));
    }

    /// Past the handshake timeout a connection that has not finished its
    /// handshake is closed, and one that has is not; past the idle timeout
    /// an idle connection is closed, and one with a call open is not. (The
    /// other timeout is an hour each time, so that a slow machine cannot
    /// close what must stay open.)
    #[test]
    fn timeouts_close_silent_and_idle_connections() {
        let short = Duration::from_millis(50);
        let registry =
            Registry::new(ConnectionLimits { handshake_timeout: short, ..limits(10) }, false);
        let silent = registry.admit(false).unwrap();
        let quiet = registry.admit(false).unwrap();
        quiet.handshake_done();
        std::thread::sleep(2 * short);
        registry.reap();
        assert!(closed(&silent) && !closed(&quiet));
        assert_eq!(registry.open().by_id.len(), 1);

        let registry = Registry::new(ConnectionLimits { idle_timeout: short, ..limits(10) }, false);
        let quiet = registry.admit(true).unwrap();
        let busy = registry.admit(true).unwrap();
        let _call = busy.call_opened();
        std::thread::sleep(2 * short);
        registry.reap();
        assert!(closed(&quiet) && !closed(&busy));
        assert_eq!(registry.open().by_id.len(), 1);
        assert_eq!(registry.reap_every(), Duration::from_micros(12_500));
    }
}
