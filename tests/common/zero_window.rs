//! A client that takes no answer: raw HTTP/2 (the `h2` crate) announcing a
//! flow-control window of 0 for every stream (`SETTINGS_INITIAL_WINDOW_SIZE
//! = 0`), so that the server can send headers but no DATA, while its
//! connection task keeps answering pings. `tests/metrics.rs` includes this
//! file too.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use h2::SendStream;
use h2::client::{ResponseFuture, SendRequest};
use tokio::net::TcpSocket;
use tokio::task::JoinHandle;
use tonic::codegen::http;

/// One connection of the client.
pub struct ZeroWindow {
    send: SendRequest<Bytes>,
    /// The connection task: it ends when the server closes the connection.
    connection: JoinHandle<()>,
    /// The streams open, kept so that none is reset by being dropped.
    open: Vec<(ResponseFuture, SendStream<Bytes>)>,
}

/// What the server's headers said of a call.
#[derive(Debug, PartialEq, Eq)]
pub enum Headers {
    /// Headers without a status: the call was admitted and its answer waits
    /// for the window.
    Admitted,
    /// A trailers-only answer with this `grpc-status`.
    Status(i32),
}

/// A gRPC message: flag, length and bytes.
pub fn grpc_frame(message: &[u8]) -> Bytes {
    let mut framed = vec![0u8];
    framed.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(message);
    Bytes::from(framed)
}

impl ZeroWindow {
    /// Connects to `server` from the address `from` (any of 127.0.0.0/8 on
    /// Linux, so that tests can play clients on different addresses).
    pub async fn connect(server: SocketAddr, from: IpAddr) -> ZeroWindow {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(from, 0)).expect("bind the client's address");
        let tcp = socket.connect(server).await.expect("connect");
        tcp.set_nodelay(true).unwrap();
        let (send, connection) = h2::client::Builder::new()
            .initial_window_size(0)
            .handshake::<_, Bytes>(tcp)
            .await
            .expect("HTTP/2 handshake");
        let connection = tokio::spawn(async move {
            let _ = connection.await;
        });
        ZeroWindow { send, connection, open: Vec::new() }
    }

    /// Sends a call of `method` (as `ValidateGame`) with `message`, ending
    /// the request when `end` (a unary call) or leaving it open (a stream),
    /// without waiting for any answer, as a client that pipelines its calls
    /// does; false once the server has closed the connection.
    pub async fn send(&mut self, method: &str, message: &[u8], end: bool) -> bool {
        let request =
            http::Request::post(format!("http://127.0.0.1/arbiter.v1.RulesService/{method}"))
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                .body(())
                .unwrap();
        let Ok(mut send) = self.send.clone().ready().await else { return false };
        let Ok((response, mut body)) = send.send_request(request, false) else { return false };
        // A call shed on its headers may be answered, and its stream
        // closed, before its message goes out: the answer tells.
        let _ = body.send_data(grpc_frame(message), end);
        self.open.push((response, body));
        true
    }

    /// Sends a call as [`ZeroWindow::send`] does and waits for the server's
    /// headers.
    pub async fn call(&mut self, method: &str, message: &[u8], end: bool) -> Headers {
        assert!(self.send(method, message, end).await, "a stream may be opened");
        let (response, _) = self.open.last_mut().expect("the call just sent");
        let response = response.await.expect("the server's headers");
        let status = response
            .headers()
            .get("grpc-status")
            .map(|value| value.to_str().unwrap().parse::<i32>().expect("a grpc-status number"));
        status.map_or(Headers::Admitted, Headers::Status)
    }

    /// Whether the server closes the connection within `patience`.
    pub async fn closed_within(&mut self, patience: Duration) -> bool {
        tokio::time::timeout(patience, &mut self.connection).await.is_ok()
    }
}

impl Drop for ZeroWindow {
    fn drop(&mut self) {
        self.connection.abort();
    }
}
