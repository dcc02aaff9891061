//! Idle and silent connections over real sockets on 127.0.0.1: they cannot
//! keep clients out of the gRPC port or scrapers out of the metrics port,
//! the server closes those that do not finish their handshake or stay idle,
//! and a client resetting streams in a burst gets GOAWAY ENHANCE_YOUR_CALM.
//!
//! Each test uses a small `--max-connections`, so a few dozen sockets are
//! enough to fill it, well within the usual 1,024 open files. The bounds
//! are generous: a loaded 2-core machine must not make them flaky.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::common::frames::{
    GOAWAY, PREFACE, RST_STREAM, frame, handshake, health_headers, read_frame,
};
use crate::common::server::TestServer;

/// How soon a new client must be served whatever idle sockets are open.
const SERVED_WITHIN: Duration = Duration::from_secs(15);
/// The most a socket may wait to be closed, loaded machines included.
const PATIENCE: Duration = Duration::from_secs(30);

/// One health check over a new connection, within `SERVED_WITHIN`.
async fn health(addr: SocketAddr) -> Result<i32, String> {
    let check = async {
        let channel = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await?;
        let reply =
            HealthClient::new(channel).check(HealthCheckRequest { service: String::new() }).await?;
        Ok::<_, Box<dyn std::error::Error>>(reply.into_inner().status)
    };
    match tokio::time::timeout(SERVED_WITHIN, check).await {
        Ok(Ok(status)) => Ok(status),
        Ok(Err(err)) => Err(err.to_string()),
        Err(_) => Err(format!("no answer in {SERVED_WITHIN:?}")),
    }
}

/// Health answers SERVING within `SERVED_WITHIN` of the first try,
/// retrying (as a client with a deadline would) while it is refused.
async fn served_within_bound(addr: SocketAddr, what: &str) {
    let started = Instant::now();
    loop {
        match health(addr).await {
            Ok(status) => {
                assert_eq!(status, ServingStatus::Serving as i32);
                eprintln!("{what}: health served after {:?}", started.elapsed());
                return;
            }
            Err(err) => assert!(
                started.elapsed() < SERVED_WITHIN,
                "{what}: health not served within {SERVED_WITHIN:?}: {err}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the server closes `socket` (end of file or reset),
/// reading and dropping whatever it sends first; the time it took.
async fn closed_by_server(socket: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    let closed = tokio::time::timeout(PATIENCE, async {
        while let Ok(n) = socket.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    });
    closed.await.expect("the server closes the connection");
    started.elapsed()
}

/// Whether the server has closed `socket` by now: reads what is there
/// without waiting for more.
async fn still_open(socket: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_millis(50), socket.read(&mut buf)).await {
            Err(_) => return true,
            Ok(Ok(0) | Err(_)) => return false,
            Ok(Ok(_)) => {}
        }
    }
}

/// More raw TCP connections than `--max-connections`, none of which ever
/// sends a byte, cannot keep a client out: the newcomer takes the place of
/// the one idle the longest. (Before, every slot stayed taken for ever.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_sockets_over_the_limit_do_not_lock_clients_out() {
    // A long handshake timeout: the room must come from eviction.
    let server = TestServer::start(&["--max-connections", "8", "--handshake-timeout", "5m"]).await;
    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(TcpStream::connect(server.addr).await.unwrap());
    }
    served_within_bound(server.addr, "20 silent sockets, limit 8").await;
    // Twice in a row: the first client's connection is idle now, and
    // silent ones are still open.
    let open = futures_util::future::join_all(silent.iter_mut().map(still_open)).await;
    assert!(open.iter().any(|&open| open), "some silent sockets are still open");
    served_within_bound(server.addr, "again").await;
    server.shutdown().await.unwrap();
}

/// More HTTP/2 connections than `--max-connections` that finish the
/// handshake and never open a stream cannot keep a client out either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_http2_connections_over_the_limit_do_not_lock_clients_out() {
    let server =
        TestServer::start(&["--max-connections", "8", "--max-connection-idle", "5m"]).await;
    let mut idle = Vec::new();
    for _ in 0..20 {
        let mut socket = TcpStream::connect(server.addr).await.unwrap();
        socket.write_all(&handshake()).await.unwrap();
        idle.push(socket);
    }
    // tonic channels too: real clients that connected and made no call.
    let mut channels = Vec::new();
    for _ in 0..10 {
        let channel = Channel::from_shared(format!("http://{}", server.addr)).unwrap();
        channels.push(channel.connect().await);
    }
    served_within_bound(server.addr, "30 idle HTTP/2 connections, limit 8").await;
    served_within_bound(server.addr, "again").await;
    server.shutdown().await.unwrap();
}

/// A connection that sends nothing, or only part of the HTTP/2 preface, is
/// closed once the handshake timeout is over (and not before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_do_not_finish_the_handshake_are_closed() {
    let server = TestServer::start(&["--handshake-timeout", "1s"]).await;
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let mut partial = TcpStream::connect(server.addr).await.unwrap();
    partial.write_all(&PREFACE[..10]).await.unwrap();
    // The preface but no SETTINGS.
    let mut preface_only = TcpStream::connect(server.addr).await.unwrap();
    preface_only.write_all(PREFACE).await.unwrap();
    for (name, socket) in
        [("silent", &mut silent), ("partial", &mut partial), ("preface", &mut preface_only)]
    {
        let waited = closed_by_server(socket).await;
        eprintln!("{name}: closed after {waited:?}");
    }
    server.shutdown().await.unwrap();
}

/// A connection that finished the HTTP/2 handshake is not closed by the
/// handshake timeout, but once it has had no call open for
/// `--max-connection-idle`; a connection with a call open is not closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let server =
        TestServer::start(&["--handshake-timeout", "500ms", "--max-connection-idle", "3s"]).await;
    let started = Instant::now();
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    idle.write_all(&handshake()).await.unwrap();
    // A call that stays open: a health Watch stream.
    let channel = Channel::from_shared(format!("http://{}", server.addr)).unwrap();
    let mut watch = HealthClient::new(channel.connect().await.unwrap())
        .watch(HealthCheckRequest { service: String::new() })
        .await
        .unwrap()
        .into_inner();
    assert!(watch.message().await.unwrap().is_some());
    // Past the handshake timeout, well before the idle timeout (the
    // server cannot close it earlier than that, however loaded).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    if started.elapsed() < Duration::from_secs(3) {
        assert!(still_open(&mut idle).await, "closed by the handshake timeout");
    }
    let waited = closed_by_server(&mut idle).await;
    eprintln!("idle HTTP/2 connection closed {:?} after it opened", started.elapsed());
    assert!(started.elapsed() >= Duration::from_secs(3), "closed early, after {waited:?}");
    // The watch stream's connection is not idle: still open.
    let more = tokio::time::timeout(Duration::from_millis(500), watch.message()).await;
    assert!(more.is_err(), "the watch stream ended: {more:?}");
    server.shutdown().await.unwrap();
}

/// When every connection has a call open, a newcomer is refused at once
/// (there is nobody idle to close): busy connections are never evicted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_connections_are_not_evicted() {
    let server = TestServer::start(&["--max-connections", "2"]).await;
    let mut watches = Vec::new();
    for _ in 0..2 {
        let channel = Channel::from_shared(format!("http://{}", server.addr)).unwrap();
        let mut watch = HealthClient::new(channel.connect().await.unwrap())
            .watch(HealthCheckRequest { service: String::new() })
            .await
            .unwrap()
            .into_inner();
        assert!(watch.message().await.unwrap().is_some());
        watches.push(watch);
    }
    assert!(health(server.addr).await.is_err(), "a third connection was served");
    for watch in &mut watches {
        let more = tokio::time::timeout(Duration::from_millis(200), watch.message()).await;
        assert!(more.is_err(), "a busy connection was closed: {more:?}");
    }
    drop(watches);
    served_within_bound(server.addr, "once the watches ended").await;
    server.shutdown().await.unwrap();
}

/// A client that opens and at once resets stream after stream (the
/// "rapid reset" attack) gets GOAWAY with ENHANCE_YOUR_CALM and is cut
/// off; others are still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_stream_resets_get_goaway_enhance_your_calm() {
    const ENHANCE_YOUR_CALM: u32 = 0xb;
    let server = TestServer::start(&[]).await;
    let socket = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = socket.into_split();
    let attack = tokio::spawn(async move {
        writer.write_all(&handshake()).await?;
        for batch in 0..100u32 {
            let mut bytes = Vec::new();
            for i in 0..100 {
                let stream = 2 * (batch * 100 + i) + 1;
                bytes.extend(health_headers(stream));
                bytes.extend(frame(RST_STREAM, 0, stream, &8u32.to_be_bytes())); // CANCEL
            }
            writer.write_all(&bytes).await?;
        }
        Ok::<_, std::io::Error>(())
    });
    // Frames from the server until GOAWAY: its error code.
    let goaway = tokio::time::timeout(PATIENCE, async {
        loop {
            let (kind, _, payload) = read_frame(&mut reader).await?;
            if kind == GOAWAY {
                return Some(u32::from_be_bytes(payload[4..8].try_into().unwrap()));
            }
        }
    });
    let code = goaway.await.expect("an answer within the bound");
    assert_eq!(code, Some(ENHANCE_YOUR_CALM), "GOAWAY error code");
    // The attacker is cut off: its writes fail or its socket ends.
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(PATIENCE, reader.read_to_end(&mut rest)).await;
    assert!(ended.is_ok(), "the attacker's connection stays open");
    let _ = attack.await;
    served_within_bound(server.addr, "after a rapid-reset attack").await;
    server.shutdown().await.unwrap();
}

/// A plain HTTP/1.1 GET of `/metrics` on `socket`: the status code.
async fn scrape(mut socket: TcpStream) -> u16 {
    let request = "GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n";
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    socket.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("arbiter_connections_open"), "{text}");
    text.split(' ').nth(1).unwrap().parse().unwrap()
}

/// The metrics port: a client that sends its request headers slowly
/// (slowloris) or not at all is closed after the header timeout, and
/// scrapes are answered while more idle connections are open than the
/// endpoint keeps (32).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_endpoint_bounds_its_connections() {
    let server = TestServer::start(&["--handshake-timeout", "1s"]).await;
    let addr = server.metrics_addr;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\n").await.unwrap();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let waited = closed_by_server(&mut slow).await;
    eprintln!("slowloris closed after {waited:?}");
    closed_by_server(&mut silent).await;

    let mut idle = Vec::new();
    for _ in 0..60 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    let started = Instant::now();
    for _ in 0..3 {
        assert_eq!(scrape(TcpStream::connect(addr).await.unwrap()).await, 200);
    }
    eprintln!("3 scrapes with 60 idle connections open: {:?}", started.elapsed());
    assert!(started.elapsed() < SERVED_WITHIN);
    server.shutdown().await.unwrap();
}
