//! Answers that wait for their peer: a bound on how long an admitted call's
//! answer, or a stream's next message, may wait for the peer to take it.
//!
//! The HTTP/2 layer asks a response body for its next frame only once the
//! peer's flow-control window has room for the frame before it. A peer that
//! announces a window of 0 and keeps answering pings can thus hold a call,
//! and its admission slots, for ever: the call is neither running nor
//! finished, the keepalive sees a live peer and the idle timeout sees a
//! call open. So every admitted call's body is [`Watched`]: each frame it
//! hands over starts a wait that its next poll ends. A call whose wait
//! lasts `--stall-timeout` is stalled: its permits (and its connection's
//! and peer's share of them) are given back at once and it is counted in
//! `arbiter_calls_stalled_total`. Its answer cannot be cut short from here
//! (the HTTP/2 layer does not poll the body until the window opens), so
//! the call ends with `DEADLINE_EXCEEDED` the next time it is polled, or
//! with its connection: a connection whose every open call is stalled is
//! closed (`arbiter_connections_closed_total{reason="stalled"}`), like an
//! idle one. A stream whose reader merely reads slowly keeps its
//! back-pressure (it reads no further ahead while its answers wait) and is
//! stalled only past the bound.
//!
//! Waits are timed in ticks of the watch ([`Stalls::watch`]), a quarter of
//! the bound each, so that a frame costs an atomic store rather than a
//! clock read; a call is stalled between the bound and the bound plus a
//! tick after its wait began.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tonic::Status;
use tonic::codegen::http;

use super::Permits;
use crate::listener::registry::{Activity, StalledCall};
use crate::telemetry::prometheus::{CALLS_STALLED, STALLED_RPCS};

/// Ticks of the watch per stall bound.
const TICKS_PER_BOUND: u64 = 4;

/// The admitted calls' waits for their peers, shared by every connection.
#[derive(Debug)]
pub(super) struct Stalls {
    bound: Duration,
    /// Ticks of the watch so far.
    ticks: AtomicU64,
    next_id: AtomicU64,
    watched: Mutex<HashMap<u64, Arc<Watch>>>,
}

/// One admitted call, as the watch sees it.
#[derive(Debug)]
struct Watch {
    /// The tick (plus one) at which the body handed over a frame that has
    /// not been followed by a poll yet; 0 while it is not waiting.
    waiting_since: AtomicU64,
    stalled: AtomicBool,
    /// Given back when the call stalls, else with the call.
    permits: Mutex<Option<Permits>>,
    /// The connection the call came on, where it is known.
    connection: Option<Arc<Activity>>,
    /// Counted on the connection while the call is stalled.
    stalled_call: Mutex<Option<StalledCall>>,
    stream: bool,
}

impl Stalls {
    pub(super) fn new(bound: Duration) -> Stalls {
        Stalls {
            bound,
            ticks: AtomicU64::new(0),
            next_id: AtomicU64::new(0),
            watched: Mutex::default(),
        }
    }

    fn watched(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Watch>>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Watches an admitted call until the returned guard is dropped.
    pub(super) fn watch_call(
        self: &Arc<Stalls>,
        permits: Permits,
        connection: Option<Arc<Activity>>,
        stream: bool,
    ) -> Watched {
        let watch = Arc::new(Watch {
            waiting_since: AtomicU64::new(0),
            stalled: AtomicBool::new(false),
            permits: Mutex::new(Some(permits)),
            connection,
            stalled_call: Mutex::new(None),
            stream,
        });
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.watched().insert(id, Arc::clone(&watch));
        Watched { id, watch, stalls: Arc::clone(self) }
    }

    /// Ticks until the watched calls' owner drops them, stalling the calls
    /// whose wait has lasted the bound.
    pub(super) fn watch(self: &Arc<Stalls>) -> impl Future<Output = ()> + Send + 'static {
        let every = (self.bound / TICKS_PER_BOUND as u32).max(Duration::from_millis(1));
        let stalls: Weak<Stalls> = Arc::downgrade(self);
        async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(stalls) = stalls.upgrade() else { return };
                stalls.tick();
            }
        }
    }

    /// One tick: stalls every call that has waited `TICKS_PER_BOUND` whole
    /// ticks.
    fn tick(&self) {
        let now = self.ticks.fetch_add(1, Ordering::AcqRel) + 1;
        let late: Vec<Arc<Watch>> = self
            .watched()
            .values()
            .filter(|watch| {
                let since = watch.waiting_since.load(Ordering::Acquire);
                // `since` is the tick of the hand-over plus one: at least
                // TICKS_PER_BOUND whole ticks have passed since.
                since != 0 && now >= since + TICKS_PER_BOUND && !watch.is_stalled()
            })
            .cloned()
            .collect();
        for watch in late {
            watch.stall(self.bound);
        }
    }
}

impl Watch {
    fn is_stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire)
    }

    fn stall(&self, bound: Duration) {
        if self.stalled.swap(true, Ordering::AcqRel) {
            return;
        }
        drop(self.permits.lock().unwrap_or_else(PoisonError::into_inner).take());
        let rpc = STALLED_RPCS[usize::from(self.stream)];
        metrics::counter!(CALLS_STALLED, "rpc" => rpc).increment(1);
        tracing::debug!(rpc, ?bound, "call stalled: its peer took no answer");
        if let Some(connection) = &self.connection {
            *self.stalled_call.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(connection.call_stalled());
        }
    }
}

/// An admitted call being watched; it leaves the watch when dropped, giving
/// its permits back if it still holds them.
#[derive(Debug)]
pub struct Watched {
    id: u64,
    watch: Arc<Watch>,
    stalls: Arc<Stalls>,
}

impl Watched {
    /// The body is being polled: it is not waiting for the peer.
    fn polled(&self) {
        self.watch.waiting_since.store(0, Ordering::Release);
    }

    /// The body handed a frame over: it waits for its next poll.
    fn handed_over(&self) {
        let now = self.stalls.ticks.load(Ordering::Acquire);
        self.watch.waiting_since.store(now + 1, Ordering::Release);
    }

    /// The status a stalled call ends with.
    fn stalled_status(&self) -> Status {
        Status::deadline_exceeded(format!(
            "the answer waited more than {:?} (--stall-timeout) for the client to read it",
            self.stalls.bound
        ))
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.stalls.watched().remove(&self.id);
    }
}

pin_project_lite::pin_project! {
    /// A response body under the watch: a call that has stalled ends with
    /// `DEADLINE_EXCEEDED` at its next poll.
    #[derive(Debug)]
    pub struct WatchedBody<B> {
        #[pin]
        inner: B,
        watch: Option<Watched>,
        // Whether the stalled call's status has been sent.
        ended: bool,
    }
}

impl<B> WatchedBody<B> {
    /// `inner`, watched by `watch` (none for calls not admitted: shed calls,
    /// health, reflection).
    pub(super) fn new(inner: B, watch: Option<Watched>) -> WatchedBody<B> {
        WatchedBody { inner, watch, ended: false }
    }
}

impl<B: Body> Body for WatchedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        let Some(watch) = this.watch.as_ref() else {
            return this.inner.poll_frame(cx);
        };
        if watch.watch.is_stalled() {
            if std::mem::replace(this.ended, true) {
                return Poll::Ready(None);
            }
            let mut trailers = http::HeaderMap::new();
            // A status message is plain ASCII: it always fits in a header.
            let _ = watch.stalled_status().add_header(&mut trailers);
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        watch.polled();
        let frame = ready!(this.inner.poll_frame(cx));
        if matches!(frame, Some(Ok(_))) {
            watch.handed_over();
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        match &self.watch {
            Some(watch) if watch.watch.is_stalled() => self.ended,
            _ => self.inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
