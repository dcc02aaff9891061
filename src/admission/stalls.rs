//! Answers that wait for their peer: a bound on how long an admitted call's
//! answer, or a stream's next message, may wait for the peer to take it,
//! and a newcomer's right to the slot of a call whose answer waits.
//!
//! The HTTP/2 layer asks a response body for its next frame only once the
//! peer's flow-control window has room for the frame before it. A peer that
//! announces a window of 0 and keeps answering pings can thus hold a call,
//! and its admission slots, for ever: the call is neither running nor
//! finished, the keepalive sees a live peer and the idle timeout sees a
//! call open. So every admitted call's body is [`Watched`]: each frame it
//! hands over starts a wait that its next poll ends. A call ends its hold
//! on the budgets in one of two ways (`arbiter_calls_stalled_total`, by
//! `reason`):
//!
//! - `timeout`: its wait lasts `--stall-timeout`.
//! - `displaced`: its wait has lasted [`GRACE`] and a newcomer finds a
//!   budget full. Without this, a client that keeps sending such calls
//!   refills the slots the bound frees as soon as they are free, and
//!   everyone else is shed for as long as it likes. A newcomer that finds
//!   a budget full while calls wait on their windows waits for one of them
//!   to pass the grace (at most [`ROOM_WAIT`]) and takes its slot; calls
//!   computing, and calls whose answers are moving, are never taken, and
//!   with no call waiting on its window the newcomer is shed at once, as
//!   before. One call per connection may wait so (a connection's further
//!   calls are shed at once), so that a client sending many calls on a
//!   few connections queues no more than one of each ahead of anyone else,
//!   and the waiters are served in order of arrival (the budgets'
//!   semaphores are fair). Nothing here looks at peer addresses: behind a
//!   proxy it works alike.
//!
//! Either way the call's permits (and its connection's and peer's share of
//! them) are given back at once. Its answer cannot be cut short from here
//! (the HTTP/2 layer does not poll the body until the window opens), so the
//! call ends with `DEADLINE_EXCEEDED` (timeout) or `RESOURCE_EXHAUSTED`
//! (displaced) the next time it is polled, or with its connection: a
//! connection whose every open call has stalled is closed
//! (`arbiter_connections_closed_total{reason="stalled"}`), like an idle
//! one. A stream whose reader merely reads slowly keeps its back-pressure
//! (it reads no further ahead while its answers wait); it loses its slot
//! only past the bound, or past the grace when a newcomer needs it.
//!
//! Waits are timed in ticks of the watch ([`Stalls::watch`]), a quarter of
//! the grace each, so that a frame costs an atomic store rather than a
//! clock read; a wait passes the grace or the bound at most a tick late.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tonic::Status;
use tonic::codegen::http;

use super::Permits;
use crate::listener::registry::{Activity, StalledCall};
use crate::telemetry::prometheus::{CALLS_STALLED, STALLED_REASONS, STALLED_RPCS};

/// How long an answer must have waited on its client's window before a
/// newcomer may take its call's slot (at most the stall bound). An honest
/// client's answer waits on its window only while the client is behind on
/// reading: at HTTP/2's default 64 KiB window a reader of 64 KiB/s or more
/// never waits this long. A newcomer that finds the budgets full waits up
/// to this long for room, so it is also the worst delay a normal call pays
/// while another client stalls every slot.
pub const GRACE: Duration = Duration::from_secs(1);

/// The longest a newcomer waits for the slot of a call whose answer waits:
/// the grace, a tick or two of the watch, and slack for a loaded machine.
pub const ROOM_WAIT: Duration = Duration::from_secs(3);

/// Ticks of the watch per grace period.
const TICKS_PER_GRACE: u64 = 4;

/// How a call lost its hold on the budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stall {
    /// Its answer waited past the stall bound.
    Timeout = 1,
    /// Its answer waited past the grace and a newcomer took its slot.
    Displaced = 2,
}

/// The admitted calls' waits for their peers, shared by every connection.
#[derive(Debug)]
pub(super) struct Stalls {
    bound: Duration,
    /// Ticks of the watch in the stall bound and in the grace.
    bound_ticks: u64,
    grace_ticks: u64,
    /// How often the watch ticks.
    every: Duration,
    /// Ticks of the watch so far.
    ticks: AtomicU64,
    next_id: AtomicU64,
    watched: Mutex<HashMap<u64, Arc<Watch>>>,
    /// The newcomers waiting for a slot, in order of arrival. Locked before
    /// `watched` where both are.
    waiting: Mutex<Vec<Waiter>>,
}

/// One admitted call, as the watch sees it.
#[derive(Debug)]
struct Watch {
    /// The tick (plus one) at which the body handed over a frame that has
    /// not been followed by a poll yet; 0 while it is not waiting.
    waiting_since: AtomicU64,
    /// 0 while the call holds its permits, else a [`Stall`].
    stalled: AtomicU8,
    /// Given back when the call stalls, else with the call.
    permits: Mutex<Option<Permits>>,
    /// The connection the call came on, where it is known.
    connection: Option<Arc<Activity>>,
    /// Counted on the connection while the call is stalled.
    stalled_call: Mutex<Option<StalledCall>>,
    stream: bool,
}

/// A newcomer waiting for a slot.
#[derive(Debug)]
struct Waiter {
    id: u64,
    connection: Option<u64>,
    /// Whether it lacks a unary permit (else only a call permit), so that
    /// only a unary call's slot makes room for it.
    needs_unary: bool,
    /// The tick at which a call was last displaced for it.
    room_made_at: Option<u64>,
}

/// A newcomer's place among the waiters, given up when dropped.
#[derive(Debug)]
pub(super) struct Waiting {
    id: u64,
    stalls: Arc<Stalls>,
}

impl Stalls {
    pub(super) fn new(bound: Duration) -> Stalls {
        let every = (GRACE.min(bound) / TICKS_PER_GRACE as u32).max(Duration::from_millis(1));
        let ticks_in = |span: Duration| {
            u64::try_from(span.as_nanos().div_ceil(every.as_nanos())).unwrap_or(u64::MAX).max(1)
        };
        Stalls {
            bound,
            bound_ticks: ticks_in(bound),
            grace_ticks: ticks_in(GRACE.min(bound)),
            every,
            ticks: AtomicU64::new(0),
            next_id: AtomicU64::new(0),
            watched: Mutex::default(),
            waiting: Mutex::default(),
        }
    }

    fn watched(&self) -> MutexGuard<'_, HashMap<u64, Arc<Watch>>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn waiting(&self) -> MutexGuard<'_, Vec<Waiter>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
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
            stalled: AtomicU8::new(0),
            permits: Mutex::new(Some(permits)),
            connection,
            stalled_call: Mutex::new(None),
            stream,
        });
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.watched().insert(id, Arc::clone(&watch));
        Watched { id, watch, stalls: Arc::clone(self) }
    }

    /// A place among the newcomers waiting for a slot, for a call of
    /// `connection` that lacks a unary permit (`needs_unary`) or only a call
    /// permit; none (the call is shed at once) if its connection already
    /// has a call waiting, or if no more calls can come to wait on their
    /// windows than newcomers wait for them already, so that no room can
    /// come of waiting. A call can come to wait on its window if it does,
    /// or if another call of its connection does: such a client's calls
    /// just admitted wait as soon as they have computed their answers.
    /// Makes room at once where a call has waited past the grace.
    pub(super) fn wait_for_room(
        self: &Arc<Stalls>,
        connection: Option<u64>,
        needs_unary: bool,
    ) -> Option<Waiting> {
        let mut waiting = self.waiting();
        if connection.is_some() && waiting.iter().any(|waiter| waiter.connection == connection) {
            return None;
        }
        let candidates = {
            let watched = self.watched();
            let holding = || watched.values().filter(|watch| watch.holds());
            let not_reading: HashSet<u64> = holding()
                .filter(|watch| watch.waits())
                .filter_map(|watch| watch.connection_id())
                .collect();
            holding()
                .filter(|watch| watch.unary() || !needs_unary)
                .filter(|watch| {
                    watch.waits()
                        || watch.connection_id().is_some_and(|id| not_reading.contains(&id))
                })
                .count()
        };
        if candidates <= waiting.len() {
            return None;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        waiting.push(Waiter { id, connection, needs_unary, room_made_at: None });
        self.make_room(&mut waiting);
        Some(Waiting { id, stalls: Arc::clone(self) })
    }

    /// For each waiter, in order of arrival, that needs room: displaces the
    /// call that has waited longest on its window, if it has waited past
    /// the grace and holds what the waiter lacks. A waiter needs room until
    /// some has been made for it, and again if it has not taken its slot
    /// within two ticks (a newcomer that came first took it).
    fn make_room(&self, waiting: &mut [Waiter]) {
        let now = self.ticks.load(Ordering::Acquire);
        let needs_room = |waiter: &Waiter| waiter.room_made_at.is_none_or(|made| now >= made + 2);
        if !waiting.iter().any(needs_room) {
            return;
        }
        let mut ripe: Vec<(u64, Arc<Watch>)> = self
            .watched()
            .values()
            .filter_map(|watch| {
                let since = watch.waiting_since.load(Ordering::Acquire);
                (since != 0 && now >= since + self.grace_ticks && watch.holds())
                    .then(|| (since, Arc::clone(watch)))
            })
            .collect();
        ripe.sort_by_key(|(since, _)| *since);
        for waiter in waiting.iter_mut().filter(|waiter| needs_room(waiter)) {
            let Some(at) = ripe.iter().position(|(_, watch)| watch.unary() || !waiter.needs_unary)
            else {
                continue;
            };
            let (_, victim) = ripe.remove(at);
            // Its permits go to the semaphores' first waiters: this one, or
            // one that came before it.
            victim.stall(Stall::Displaced);
            waiter.room_made_at = Some(now);
        }
    }

    /// Ticks until the watched calls' owner drops them, stalling the calls
    /// whose wait has lasted the bound and making room for waiters.
    pub(super) fn watch(self: &Arc<Stalls>) -> impl Future<Output = ()> + Send + 'static {
        let every = self.every;
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

    /// One tick: stalls every call that has waited the bound, then makes
    /// room for the waiters.
    fn tick(&self) {
        let now = self.ticks.fetch_add(1, Ordering::AcqRel) + 1;
        let late: Vec<Arc<Watch>> = self
            .watched()
            .values()
            .filter(|watch| {
                let since = watch.waiting_since.load(Ordering::Acquire);
                // `since` is the tick of the hand-over plus one: at least
                // `bound_ticks` whole ticks have passed since.
                since != 0 && now >= since + self.bound_ticks && watch.holds()
            })
            .cloned()
            .collect();
        for watch in late {
            watch.stall(Stall::Timeout);
        }
        self.make_room(&mut self.waiting());
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.stalls.waiting().retain(|waiter| waiter.id != self.id);
    }
}

impl Watch {
    /// Whether the call still holds its permits.
    fn holds(&self) -> bool {
        self.stalled.load(Ordering::Acquire) == 0
    }

    /// How the call lost its permits, if it has.
    fn stalled(&self) -> Option<Stall> {
        match self.stalled.load(Ordering::Acquire) {
            1 => Some(Stall::Timeout),
            2 => Some(Stall::Displaced),
            _ => None,
        }
    }

    /// Whether its answer waits on the peer's window.
    fn waits(&self) -> bool {
        self.waiting_since.load(Ordering::Acquire) != 0
    }

    fn unary(&self) -> bool {
        !self.stream
    }

    fn connection_id(&self) -> Option<u64> {
        self.connection.as_ref().map(|connection| connection.id())
    }

    fn stall(&self, how: Stall) {
        if self.stalled.compare_exchange(0, how as u8, Ordering::AcqRel, Ordering::Acquire).is_err()
        {
            return;
        }
        drop(self.permits.lock().unwrap_or_else(PoisonError::into_inner).take());
        let rpc = STALLED_RPCS[usize::from(self.stream)];
        let reason = STALLED_REASONS[how as usize - 1];
        metrics::counter!(CALLS_STALLED, "rpc" => rpc, "reason" => reason).increment(1);
        tracing::debug!(rpc, reason, "call stalled: its peer took no answer");
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

    /// The status a call that stalled so ends with.
    fn stalled_status(&self, how: Stall) -> Status {
        match how {
            Stall::Timeout => Status::deadline_exceeded(format!(
                "the answer waited more than {:?} (--stall-timeout) for the client to read it",
                self.stalls.bound
            )),
            Stall::Displaced => Status::resource_exhausted(format!(
                "server busy: the answer waited more than {GRACE:?} for the client to read it, \
                 and its slot went to another call"
            )),
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.stalls.watched().remove(&self.id);
    }
}

pin_project_lite::pin_project! {
    /// A response body under the watch: a call that has stalled ends with
    /// its stall's status at its next poll.
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
        if let Some(how) = watch.watch.stalled() {
            if std::mem::replace(this.ended, true) {
                return Poll::Ready(None);
            }
            let mut trailers = http::HeaderMap::new();
            // A status message is plain ASCII: it always fits in a header.
            let _ = watch.stalled_status(how).add_header(&mut trailers);
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
            Some(watch) if !watch.watch.holds() => self.ended,
            _ => self.inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
