//! The gRPC port's accept loop: a bound on the connections open at once
//! (`--max-connections`), timeouts for connections that say nothing, and a
//! back-off when accepting fails.
//!
//! tonic's own loop retries a failed `accept` at once: out of file
//! descriptors (`EMFILE`), the listener stays readable and the server spins
//! on a core while it cannot take anyone. Here a failure that is not about
//! one connection (a peer that reset before being accepted) waits 5 ms,
//! doubling to 1 s while it lasts, with one warning per attempt.
//!
//! Every accepted connection holds a slot until it closes. Neither hyper
//! nor tonic bounds the time before a client's first bytes (hyper-util's
//! version detection waits for ever) nor closes a connection with no call
//! open, so idle sockets could hold every slot. Here ([`registry`]) a
//! connection that has not finished the HTTP/2 handshake (the preface and
//! SETTINGS, read by [`handshake`]) or sent a first HTTP/1.1 request within
//! `--handshake-timeout` is closed, as is one with no call open for
//! `--max-connection-idle`; and a connection that finds every slot taken
//! closes the connection idle the longest and takes its slot. Only when
//! every connection has a call open is a newcomer closed at once, so that
//! its client fails fast (UNAVAILABLE) and can go to another replica,
//! instead of waiting unseen in the kernel's backlog until its deadline.
//! `arbiter_connections_open`, `arbiter_connections_refused_total` and
//! `arbiter_connections_closed_total` count them.
//!
//! Answers go out many per `write`. The HTTP/2 layer (h2) copies a DATA
//! frame into its write buffer only when the frame is short: under 256
//! bytes on a socket that takes vectored writes, under 1 KiB on one that
//! does not. A longer frame is written on its own, with a `writev` for each
//! answer, and an 80-ply game's answer is about 2 KB. So a [`Connection`]
//! tells h2 that it has no vectored writes, and [`ShortFrames`] cuts the
//! answers' DATA frames under 1 KiB: h2 then copies the answers of the
//! calls it has ready into its 16 KiB buffer and writes them together (about
//! seven 2 KB answers a write). Not under TLS (see
//! [`ShortFrames::responses`]). A stream's block of answers (16 KiB or
//! more at a time) is the exception: cutting it cost more in h2's work per
//! frame than the write of its own that a 16 KiB frame takes.

pub mod handshake;
pub mod registry;

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tonic::codegen::http;
use tonic::transport::server::Connected;

use self::handshake::Handshake;
use self::registry::{Activity, Registry};
pub use self::registry::{ConnectionInfo, ConnectionLimits, StreamsLayer};

use crate::telemetry::prometheus::{CONNECTIONS_OPEN, CONNECTIONS_REFUSED};

/// First wait after a failed `accept`.
const MIN_BACKOFF: Duration = Duration::from_millis(5);
/// Longest wait between attempts while `accept` keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// Open files kept for everything but gRPC connections: the listeners, the
/// metrics endpoint's connections, the runtime, the OTLP exporter.
const SPARE_FILES: u64 = 64;

/// Raises the soft limit of open files so that `max_connections` fit (up
/// to the hard limit; Rust programs start with whatever soft limit they are
/// given, 1024 on many systems). Warns when they cannot fit: accepting
/// would then fail, and back off, before the bound is reached.
pub fn fit_open_files(max_connections: u32) {
    let wanted = u64::from(max_connections) + SPARE_FILES;
    match rlimit::increase_nofile_limit(wanted) {
        Ok(limit) if limit >= wanted => tracing::debug!(limit, "open files limit"),
        Ok(limit) => tracing::warn!(
            limit,
            max_connections,
            "the open files limit is too low for --max-connections: raise the hard limit"
        ),
        Err(error) => tracing::warn!(%error, "cannot raise the open files limit"),
    }
}

/// Which port a listener serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port {
    /// The gRPC port, under TLS or not; its connections are counted in the
    /// `arbiter_connections_*` metrics.
    Grpc {
        /// Whether tonic speaks TLS over the connections: the HTTP/2
        /// handshake is then out of sight, and the TLS handshake (bounded
        /// by tonic) stands for it.
        tls: bool,
    },
    /// The plaintext HTTP/1.1 metrics port.
    Metrics,
}

/// The connections accepted on `listener` within `limits` (see the
/// module's documentation), with `TCP_NODELAY` set (without it every reply
/// waits for a delayed ACK, ~40 ms). The stream never ends and never yields
/// an error: tonic ends it by dropping it, which closes the listener.
pub fn incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
    port: Port,
) -> impl Stream<Item = io::Result<Connection>> {
    let registry = Arc::new(Registry::new(limits, port != Port::Metrics));
    let mut reaper = tokio::time::interval(registry.reap_every());
    reaper.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    futures_util::stream::unfold(
        (listener, registry, reaper),
        move |(listener, registry, mut reaper)| async move {
            let connection = accept(&listener, &registry, &mut reaper, port).await;
            Some((Ok(connection), (listener, registry, reaper)))
        },
    )
}

/// The next connection with a slot, closing the connections past their
/// timeouts while it waits.
async fn accept(
    listener: &TcpListener,
    registry: &Arc<Registry>,
    reaper: &mut tokio::time::Interval,
    port: Port,
) -> Connection {
    let counted = port != Port::Metrics;
    let tls = port == Port::Grpc { tls: true };
    let mut backoff = MIN_BACKOFF;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = reaper.tick() => {
                registry.reap();
                continue;
            }
        };
        match accepted {
            Ok((stream, peer)) => {
                let Some(activity) = registry.admit(tls) else {
                    if counted {
                        metrics::counter!(CONNECTIONS_REFUSED).increment(1);
                    }
                    tracing::debug!(%peer, ?port, "connection closed: every connection has a call open");
                    continue;
                };
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::warn!(%peer, %error, "cannot set TCP_NODELAY");
                }
                if counted {
                    metrics::gauge!(CONNECTIONS_OPEN).increment(1.0);
                }
                // Under TLS the bytes are not HTTP: nothing to watch.
                let handshake = if tls { Handshake::NotHttp2 } else { Handshake::default() };
                return Connection {
                    stream,
                    activity,
                    registry: Arc::clone(registry),
                    handshake,
                    counted,
                };
            }
            // The peer gave up before it was accepted: nothing to wait for.
            Err(error) if is_connection_error(&error) => {}
            Err(error) => {
                tracing::warn!(%error, retry_in = ?backoff, "cannot accept connections");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// An error about the one connection being accepted, not the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// An accepted TCP connection; its slot is given back when it is dropped,
/// and it fails to read or write once the server has closed it.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    activity: Arc<Activity>,
    registry: Arc<Registry>,
    handshake: Handshake,
    counted: bool,
}

impl Connection {
    /// What the connection is doing: a server that does not go through
    /// [`StreamsLayer`] marks its calls with it.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }

    /// The error a closed connection's reads and writes fail with.
    fn closed() -> io::Error {
        io::Error::new(io::ErrorKind::ConnectionAborted, "connection closed by the server")
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.registry.remove(&self.activity);
        if self.counted {
            metrics::gauge!(CONNECTIONS_OPEN).decrement(1.0);
        }
    }
}

impl Connected for Connection {
    type ConnectInfo = ConnectionInfo;

    fn connect_info(&self) -> ConnectionInfo {
        ConnectionInfo { tcp: self.stream.connect_info(), activity: Arc::clone(&self.activity) }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.activity.is_closed(cx) {
            return Poll::Ready(Err(Connection::closed()));
        }
        let before = buf.filled().len();
        std::task::ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
        if this.handshake.is_open() {
            this.handshake = this.handshake.feed(&buf.filled()[before..]);
            if this.handshake == Handshake::Done {
                this.activity.handshake_done();
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.activity.was_closed() {
            return Poll::Ready(Err(Connection::closed()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.activity.was_closed() {
            return Poll::Ready(Err(Connection::closed()));
        }
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    /// No, so that h2 copies frames of up to 1 KiB into its buffer (see
    /// the module's documentation); its writes of that buffer are whole.
    fn is_write_vectored(&self) -> bool {
        false
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The longest DATA frame h2 copies into its write buffer on a connection
/// without vectored writes (its `CHAIN_THRESHOLD_WITHOUT_VECTORED_IO` is
/// 1,024: a frame of that length or more is written on its own).
const SHORT_FRAME: usize = 1023;

/// A DATA frame of the largest size a peer must accept (HTTP/2's initial
/// `SETTINGS_MAX_FRAME_SIZE`): a stream's block of answers goes out in
/// frames this long, each written on its own, rather than in short frames.
const LONG_FRAME: usize = 16 << 10;

pin_project_lite::pin_project! {
    /// A response body whose data goes out in frames of at most
    /// [`SHORT_FRAME`] bytes, but for data of [`LONG_FRAME`] bytes or
    /// more, which goes out in frames that long first.
    #[derive(Debug)]
    pub struct ShortFrames<B> {
        #[pin]
        inner: B,
        // What is left of the inner body's last data frame.
        rest: Bytes,
        // The longest frame it lets out.
        longest: usize,
    }
}

impl<B> ShortFrames<B> {
    /// `inner`, its data in short frames.
    pub fn new(inner: B) -> ShortFrames<B> {
        ShortFrames { inner, rest: Bytes::new(), longest: SHORT_FRAME }
    }

    /// What the server does to each response: its body in short frames
    /// when `cut`, else as it is. Without TLS, cut: under TLS h2 writes to
    /// the TLS stream, which says it has vectored writes, so that a frame
    /// of 256 bytes or more goes out with a write of its own whatever its
    /// length, and cutting it would only add writes.
    pub fn responses(
        cut: bool,
    ) -> impl Fn(http::Response<B>) -> http::Response<ShortFrames<B>> + Clone {
        let longest = if cut { SHORT_FRAME } else { usize::MAX };
        move |response| response.map(|inner| ShortFrames { inner, rest: Bytes::new(), longest })
    }
}

impl<B: Body<Data = Bytes>> Body for ShortFrames<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        if this.rest.is_empty() {
            match std::task::ready!(this.inner.poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => *this.rest = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return Poll::Ready(other),
            }
        }
        let len = this.rest.len();
        let piece = if len >= LONG_FRAME && *this.longest < LONG_FRAME {
            LONG_FRAME
        } else {
            len.min(*this.longest)
        };
        let piece = this.rest.split_to(piece);
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let (inner, rest) = (self.inner.size_hint(), self.rest.len() as u64);
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(rest));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(rest));
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full, StreamBody};

    /// Data goes out in order, in frames under h2's copy threshold; other
    /// frames (trailers) as they came.
    #[tokio::test]
    async fn answers_go_out_in_short_frames() {
        let long: Bytes = (0..2500u32).map(|i| i as u8).collect();
        let mut trailers = http::HeaderMap::new();
        trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
        let frames = [
            Frame::data(long.clone()),
            Frame::data(Bytes::from_static(b"short")),
            Frame::trailers(trailers.clone()),
        ];
        let inner = StreamBody::new(futures_util::stream::iter(
            frames.into_iter().map(Ok::<_, std::convert::Infallible>),
        ));
        let mut body = ShortFrames::responses(true)(http::Response::new(inner)).into_body();
        let (mut sizes, mut data) = (Vec::new(), Vec::new());
        while let Some(frame) = body.frame().await {
            match frame.unwrap().into_data() {
                Ok(piece) => {
                    sizes.push(piece.len());
                    data.extend_from_slice(&piece);
                }
                Err(frame) => assert_eq!(frame.into_trailers().unwrap(), trailers),
            }
        }
        assert_eq!(sizes, [SHORT_FRAME, SHORT_FRAME, 2500 - 2 * SHORT_FRAME, 5]);
        assert_eq!(data, [&long[..], b"short"].concat());

        // What is left of a frame counts as what is left of the body.
        let mut body =
            ShortFrames::responses(true)(http::Response::new(Full::new(long.clone()))).into_body();
        let mut left = 2500;
        while !body.is_end_stream() {
            assert_eq!(body.size_hint().exact(), Some(left));
            left -= body.frame().await.unwrap().unwrap().into_data().unwrap().len() as u64;
        }
        assert_eq!(left, 0);

        // A block of answers as long as the longest frame goes out in
        // frames that long (written on their own), then its rest in short
        // frames.
        let block: Bytes = (0..40_000u32).map(|i| (i % 251) as u8).collect();
        let mut body =
            ShortFrames::responses(true)(http::Response::new(Full::new(block.clone()))).into_body();
        let (mut sizes, mut data) = (Vec::new(), Vec::new());
        while let Some(frame) = body.frame().await {
            let piece = frame.unwrap().into_data().unwrap();
            sizes.push(piece.len());
            data.extend_from_slice(&piece);
        }
        let rest = 40_000 - 2 * LONG_FRAME;
        let mut expected = vec![LONG_FRAME, LONG_FRAME];
        expected.extend(std::iter::repeat_n(SHORT_FRAME, rest / SHORT_FRAME));
        expected.push(rest % SHORT_FRAME);
        assert_eq!(sizes, expected);
        assert_eq!(data, block);

        // Not cut (under TLS): as it came.
        let mut body =
            ShortFrames::responses(false)(http::Response::new(Full::new(long.clone()))).into_body();
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), long);
        assert!(body.frame().await.is_none());
    }
}
