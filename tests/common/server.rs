//! A real `arbiter serve` in the test process: [`server::serve`] on
//! ephemeral ports of 127.0.0.1 (gRPC and metrics), configured by the same
//! flags as the binary.
//! Included by the tests that talk to the server with
//! `#[path = "common/server.rs"] mod test_server;`.

use std::net::SocketAddr;

use arbiter::config::ServeConfig;
use arbiter::proto::{self, rules_service_client::RulesServiceClient};
use clap::Parser;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;
use tonic::transport::Channel;

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

impl TestServer {
    pub async fn start(flags: &[&str]) -> TestServer {
        let args = ["arbiter", "--listen", "127.0.0.1:0"].iter().chain(flags);
        let config = Flags::parse_from(args).config;
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
