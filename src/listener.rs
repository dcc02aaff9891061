//! The gRPC port's accept loop: a bound on the connections open at once
//! (`--max-connections`) and a back-off when accepting fails.
//!
//! tonic's own loop retries a failed `accept` at once: out of file
//! descriptors (`EMFILE`), the listener stays readable and the server spins
//! on a core while it cannot take anyone. Here a failure that is not about
//! one connection (a peer that reset before being accepted) waits 5 ms,
//! doubling to 1 s while it lasts, with one warning per attempt.
//!
//! A connection over the bound is accepted and closed at once, so that its
//! client fails fast (UNAVAILABLE) and can go to another replica, instead of
//! waiting unseen in the kernel's backlog until its deadline. Every accepted
//! connection holds a slot until it closes; `arbiter_connections_open` and
//! `arbiter_connections_refused_total` count them.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::transport::server::{Connected, TcpConnectInfo};

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

/// The connections accepted on `listener`, at most `max_connections` open
/// at once, with `TCP_NODELAY` set (without it every reply waits for a
/// delayed ACK, ~40 ms). The stream never ends and never yields an error:
/// tonic ends it by dropping it, which closes the listener.
pub fn incoming(
    listener: TcpListener,
    max_connections: usize,
) -> impl Stream<Item = io::Result<Connection>> {
    let slots = Arc::new(Semaphore::new(max_connections));
    futures_util::stream::unfold((listener, slots), |(listener, slots)| async move {
        let connection = accept(&listener, &slots).await;
        Some((Ok(connection), (listener, slots)))
    })
}

/// The next connection with a free slot.
async fn accept(listener: &TcpListener, slots: &Arc<Semaphore>) -> Connection {
    let mut backoff = MIN_BACKOFF;
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let Ok(slot) = Arc::clone(slots).try_acquire_owned() else {
                    metrics::counter!(CONNECTIONS_REFUSED).increment(1);
                    tracing::debug!(%peer, "connection closed: --max-connections are open");
                    continue;
                };
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::warn!(%peer, %error, "cannot set TCP_NODELAY");
                }
                metrics::gauge!(CONNECTIONS_OPEN).increment(1.0);
                return Connection { stream, _slot: slot };
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

/// An accepted TCP connection; its slot is given back when it is dropped.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
}

impl Drop for Connection {
    fn drop(&mut self) {
        metrics::gauge!(CONNECTIONS_OPEN).decrement(1.0);
    }
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
