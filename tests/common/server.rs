//! A real `arbiter serve` in the test process: [`server::serve`] on
//! ephemeral ports of 127.0.0.1 (gRPC and metrics), configured by the same
//! flags as the binary. `tests/metrics.rs`, a binary of its own, includes
//! this file with `#[path = "common/server.rs"] mod test_server;`.

use std::net::SocketAddr;

use arbiter::config::ServeConfig;
use arbiter::proto::{self, rules_service_client::RulesServiceClient};
use clap::Parser;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;
use tonic::transport::Channel;
use tonic_types::StatusExt;

#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    config: ServeConfig,
}

/// A server on an ephemeral port, stopped when `stop` is sent or dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    /// Where `GET /metrics` answers.
    pub metrics_addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: JoinHandle<Result<(), arbiter::server::ServerError>>,
}

/// The configuration `arbiter serve` would take from these flags, unchecked.
pub fn config(flags: &[&str]) -> ServeConfig {
    let args = ["arbiter", "--listen", "127.0.0.1:0"].iter().chain(flags);
    Flags::parse_from(args).config
}

/// Sends one gRPC-Web call over HTTP/1.1 on `socket` (plain TCP or TLS), as
/// a browser or an HTTP/1 proxy would, with `headers` (e.g. `grpc-timeout`,
/// which a tonic client would also enforce itself) and returns the raw
/// response.
pub async fn grpc_web_call(
    mut socket: impl AsyncRead + AsyncWrite + Unpin,
    host: &str,
    method: &str,
    headers: &[(&str, &str)],
    message: &[u8],
) -> Vec<u8> {
    let mut body = vec![0u8];
    body.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    body.extend_from_slice(message);
    let extra: String =
        headers.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
    let head = format!(
        "POST /arbiter.v1.RulesService/{method} HTTP/1.1\r\nHost: {host}\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\n{extra}\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(&body).await.unwrap();
    let mut response = Vec::new();
    // A TLS peer may close without close_notify after `Connection: close`;
    // what was read up to then is the whole response.
    if let Err(err) = socket.read_to_end(&mut response).await {
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof, "{err}");
    }
    response
}

impl TestServer {
    pub async fn start(flags: &[&str]) -> TestServer {
        let config = config(flags);
        config.validate().expect("valid test configuration");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let metrics = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let metrics_addr = metrics.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(arbiter::server::serve(listener, metrics, config, async {
            let _ = stopped.await;
        }));
        TestServer { addr, metrics_addr, stop: Some(stop), handle }
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .connect()
            .await
            .expect("connect")
    }

    pub async fn client(&self) -> RulesServiceClient<Channel> {
        RulesServiceClient::new(self.channel().await)
    }

    /// One gRPC-Web call over plaintext HTTP/1.1.
    pub async fn grpc_web_call(&self, method: &str, message: &[u8]) -> Vec<u8> {
        let socket = TcpStream::connect(self.addr).await.expect("connect");
        grpc_web_call(socket, &self.addr.to_string(), method, &[], message).await
    }

    /// Sends the shutdown signal: the server starts draining.
    pub fn begin_shutdown(&mut self) {
        let _ = self.stop.take().map(|stop| stop.send(()));
    }

    /// Shuts the server down and waits until it has stopped.
    pub async fn shutdown(mut self) -> Result<(), arbiter::server::ServerError> {
        self.begin_shutdown();
        self.handle.await.expect("server task")
    }
}

/// Opens a `ValidateGames` stream and waits for the answer to its first game
/// (`e4`, id `a`): the stream holds a slot of `--max-concurrency` until the
/// sender is dropped and the stream has ended.
pub async fn hold_a_slot(
    client: &mut RulesServiceClient<Channel>,
) -> (mpsc::Sender<proto::ValidateGamesRequest>, Streaming<proto::ValidateGamesResponse>) {
    let (tx, rx) = mpsc::channel(4);
    let mut stream = client.validate_games(ReceiverStream::new(rx)).await.unwrap().into_inner();
    let game = proto::ValidateGameRequest { moves: vec!["e4".into()], ..Default::default() };
    tx.send(proto::ValidateGamesRequest { id: "a".into(), game: Some(game) }).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap().id, "a");
    (tx, stream)
}

/// The BadRequest field and ErrorInfo reason of an error status.
pub fn details(status: &tonic::Status) -> (String, String) {
    let details = status.get_error_details();
    let field = details.bad_request().expect("BadRequest").field_violations[0].field.clone();
    let reason = details.error_info().expect("ErrorInfo").reason.clone();
    (field, reason)
}
