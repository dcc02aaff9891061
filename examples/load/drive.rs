//! Sending the load: HTTP/2 connections shared round-robin by the workers,
//! the calls of each scenario with their retries and checks, the loop that
//! keeps every worker sending for a while (closed, or open at a fixed rate),
//! and what is counted.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use arbiter::proto::rules_service_client::RulesServiceClient;
use arbiter::proto::validate_games_response::Result as StreamResult;
use arbiter::proto::{
    GameError, LegalMovesRequest, ValidateGameRequest, ValidateGameResponse, ValidateGamesResponse,
};
use bytes::{Buf, BufMut, Bytes, BytesMut};
use hdrhistogram::Histogram;
use hyper_util::rt::TokioIo;
use prost::Message;
use prost::encoding::WireType;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::body::Body;
use tonic::client::Grpc;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http;
use tonic::codegen::http::Uri;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Code, Request, Status, Streaming};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use arbiter::status::{code_name, parse_code};

use crate::workload::Item;
use crate::{Error, chain};

/// Largest answer accepted: far above any real one, so that the client never
/// turns a big answer into an error of its own.
const MAX_DECODING_BYTES: usize = 64 << 20;
/// Distinct failures (code and message) printed per scenario; the rest are
/// only counted.
const PRINTED_FAILURES: usize = 20;
/// Wrong answers printed in full per scenario.
const PRINTED_MISMATCHES: usize = 3;
/// Latencies above this (in µs) are recorded as this.
const MAX_LATENCY_US: u64 = 60_000_000;

/// Failures after which a call is sent again (with `--retries`): a server
/// going away (UNAVAILABLE), a proxy whose upstream died mid-call (INTERNAL,
/// as nginx answers), or this client's connection failing under the call
/// (a status made from a transport error, not one the server sent: a
/// connection closed at `--max-connection-age` after its grace, or a call
/// dispatched just as it closed). The calls have no side effects, so this is
/// safe.
fn retryable(status: &Status) -> bool {
    use std::error::Error;
    match status.code() {
        Code::Unavailable | Code::Internal => true,
        Code::Unknown | Code::Cancelled => status.source().is_some(),
        _ => false,
    }
}

/// Wait before retry `attempt` (from 1): short, growing, capped.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(10 << attempt.min(5).saturating_sub(1))
}

/// The HTTP/2 connections to the server; worker `i` uses connection
/// `i % count`.
pub struct Connections {
    channels: Vec<Link>,
}

impl Connections {
    /// Opens `count` connections to `addr`.
    ///
    /// # Errors
    ///
    /// When a connection cannot be made.
    pub async fn open(addr: SocketAddr, count: usize) -> Result<Connections, Error> {
        let mut channels = Vec::with_capacity(count);
        for _ in 0..count {
            let endpoint = Channel::from_shared(format!("http://{addr}"))?;
            let connect = tower::service_fn(|uri: Uri| async move {
                let authority = uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_default();
                let stream = TcpStream::connect(authority).await?;
                stream.set_nodelay(true)?;
                Ok::<_, std::io::Error>(PlainWrites(TokioIo::new(stream)))
            });
            let channel = endpoint
                .connect_with_connector(connect)
                .await
                .map_err(|err| format!("cannot connect to {addr}: {}", chain(&err)))?;
            channels.push(Link::new(channel, short_frames));
        }
        Ok(Connections { channels })
    }

    fn channel(&self, worker: usize) -> Link {
        self.channels[worker % self.channels.len()].clone()
    }

    /// A client for `worker` that sends and reads `RulesService` messages
    /// as bytes (see [`RawCodec`]).
    pub fn raw(&self, worker: usize) -> Grpc<Link> {
        Grpc::new(self.channel(worker)).max_decoding_message_size(MAX_DECODING_BYTES)
    }

    /// A `RulesService` client for `worker`.
    pub fn rules(&self, worker: usize) -> RulesServiceClient<Link> {
        RulesServiceClient::new(self.channel(worker)).max_decoding_message_size(MAX_DECODING_BYTES)
    }

    /// A health client for `worker`.
    pub fn health(&self, worker: usize) -> HealthClient<Link> {
        HealthClient::new(self.channel(worker)).max_decoding_message_size(MAX_DECODING_BYTES)
    }
}

/// A load connection's socket, which tells hyper it has no vectored
/// writes. h2 then copies a message under 1 KiB (an 80-ply request is about
/// 600 bytes) into the connection's buffer and sends many in one write, as
/// grpc-go and grpc-core batch theirs. With vectored writes it sends each
/// message of 256 bytes or more with a write of its own, and on a machine
/// shared with the server that system time comes out of the server's.
struct PlainWrites(TokioIo<TcpStream>);

impl hyper::rt::Read for PlainWrites {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for PlainWrites {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// A connection whose requests go out in DATA frames under 1 KiB, which
/// h2 copies into its buffer and sends many to a write (see
/// [`arbiter::listener::ShortFrames`]), as grpc-go and grpc-core batch
/// their writes: a request of a live game past about 170 plies is over
/// 1 KiB.
pub type Link = tower::util::MapRequest<Channel, fn(http::Request<Body>) -> http::Request<Body>>;

fn short_frames(request: http::Request<Body>) -> http::Request<Body> {
    request.map(|body| Body::new(arbiter::listener::ShortFrames::new(body)))
}

/// An answered call: what it carried, and what was wrong with the answer
/// (with `--verify`).
pub struct Answer {
    pub games: u64,
    pub plies: u64,
    pub mismatch: Option<String>,
}

/// A call's end: its answer or its final status, after `attempts` sends.
pub struct Sent {
    pub attempts: u32,
    pub result: Result<Answer, Status>,
}

/// Sends call `seq` of `caller` until it answers, fails with a code that is
/// not retryable, or has been retried `retries` times.
pub async fn send(caller: &mut impl Caller, seq: usize, retries: u32) -> Sent {
    let mut attempts = 1;
    loop {
        match caller.call(seq).await {
            Err(status) if attempts <= retries && retryable(&status) => {
                tokio::time::sleep(backoff(attempts)).await;
                attempts += 1;
            }
            result => return Sent { attempts, result },
        }
    }
}

/// What a scenario counted.
pub struct Tally {
    /// Latency of the calls answered OK (retries included), in µs.
    pub latency: Histogram<u64>,
    /// Calls by final status code.
    pub codes: BTreeMap<&'static str, u64>,
    /// Games and plies carried by the calls answered OK.
    pub games: u64,
    pub plies: u64,
    /// Calls sent more than once.
    pub retried: u64,
    /// Calls that failed for good, and how often each of the first few
    /// distinct failures (code and message) happened.
    pub failed: u64,
    pub failures: Vec<(String, u64)>,
    /// Answers that differ from the rules core's, and the first few.
    pub mismatches: u64,
    pub mismatch_samples: Vec<String>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            latency: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .expect("constant histogram bounds are valid"),
            codes: BTreeMap::new(),
            games: 0,
            plies: 0,
            retried: 0,
            failed: 0,
            failures: Vec::new(),
            mismatches: 0,
            mismatch_samples: Vec::new(),
        }
    }

    /// All calls, whatever their status.
    pub fn calls(&self) -> u64 {
        self.codes.values().sum()
    }

    /// Calls answered OK.
    pub fn answered(&self) -> u64 {
        self.codes.get("OK").copied().unwrap_or(0)
    }

    pub fn record(&mut self, latency: Duration, sent: Sent) {
        self.retried += u64::from(sent.attempts > 1);
        match sent.result {
            Ok(answer) => {
                *self.codes.entry("OK").or_default() += 1;
                let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
                self.latency.saturating_record(micros.max(1));
                self.games += answer.games;
                self.plies += answer.plies;
                if let Some(mismatch) = answer.mismatch {
                    self.mismatches += 1;
                    if self.mismatch_samples.len() < PRINTED_MISMATCHES {
                        self.mismatch_samples.push(mismatch);
                    }
                }
            }
            Err(status) => {
                let code = code_name(status.code());
                *self.codes.entry(code).or_default() += 1;
                self.failed += 1;
                self.add_failure(format!("{code}: {}", status.message()), 1);
            }
        }
    }

    /// Counts `n` more of `failure` among the first few distinct ones.
    fn add_failure(&mut self, failure: String, n: u64) {
        if let Some((_, count)) = self.failures.iter_mut().find(|(known, _)| *known == failure) {
            *count += n;
        } else if self.failures.len() < PRINTED_FAILURES {
            self.failures.push((failure, n));
        }
    }

    pub fn merge(&mut self, other: Tally) {
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
        for (code, n) in other.codes {
            *self.codes.entry(code).or_default() += n;
        }
        self.games += other.games;
        self.plies += other.plies;
        self.retried += other.retried;
        self.failed += other.failed;
        for (failure, n) in other.failures {
            self.add_failure(failure, n);
        }
        self.mismatches += other.mismatches;
        self.mismatch_samples.extend(other.mismatch_samples);
        self.mismatch_samples.truncate(PRINTED_MISMATCHES);
    }
}

/// One worker's side of a scenario: it sends call after call.
pub trait Caller: Send + 'static {
    /// Sends call number `seq` once and checks its answer.
    fn call(
        &mut self,
        seq: usize,
    ) -> impl std::future::Future<Output = Result<Answer, Status>> + Send;
}

/// How the workers send their calls.
#[derive(Clone, Copy)]
pub struct Loop {
    pub workers: usize,
    pub retries: u32,
    /// Open loop: calls per second over all workers, each worker sending on
    /// a fixed schedule. `None`: closed loop, each worker sends its next call
    /// as soon as the last one ended.
    pub rate: Option<f64>,
}

impl Loop {
    /// Runs `workers` callers made by `caller(worker)` for `period`. Calls
    /// in flight at the end are finished and counted. Returns the tally and
    /// the time until the last call ended.
    ///
    /// In an open loop a call's latency counts from when it was due, not
    /// from when it was sent: a worker still waiting for its last answer
    /// sends late, and that wait is the server's doing (no coordinated
    /// omission).
    pub async fn run<C: Caller>(
        self,
        period: Duration,
        caller: impl Fn(usize) -> C,
    ) -> (Tally, Duration) {
        let started = Instant::now();
        let end = started + period;
        // Each worker sends every `pace`; their first calls are spread over
        // one pace so that the calls of all workers come evenly.
        let pace = self.rate.map(|rate| Duration::from_secs_f64(self.workers as f64 / rate));
        let workers: Vec<_> = (0..self.workers)
            .map(|worker| {
                let mut caller = caller(worker);
                let (stride, retries) = (self.workers, self.retries);
                let first = pace.map(|pace| started + pace.mul_f64(worker as f64 / stride as f64));
                tokio::spawn(async move {
                    let mut tally = Tally::new();
                    let mut seq = worker;
                    let mut due = first;
                    loop {
                        let due_at = due.unwrap_or_else(Instant::now);
                        if due_at >= end {
                            break;
                        }
                        if due.is_some() {
                            tokio::time::sleep_until(due_at.into()).await;
                        }
                        let sent = send(&mut caller, seq, retries).await;
                        tally.record(due_at.elapsed(), sent);
                        seq += stride;
                        due = due.zip(pace).map(|(due, pace)| due + pace);
                    }
                    tally
                })
            })
            .collect();
        let mut tally = Tally::new();
        for worker in workers {
            match worker.await {
                Ok(done) => tally.merge(done),
                Err(err) => tally.record(
                    Duration::ZERO,
                    Sent {
                        attempts: 1,
                        result: Err(Status::unknown(format!("worker task failed: {err}"))),
                    },
                ),
            }
        }
        (tally, started.elapsed())
    }
}

/// `health`: grpc.health.v1 Check, the transport's baseline.
pub struct HealthCaller(pub HealthClient<Link>);

impl Caller for HealthCaller {
    async fn call(&mut self, _seq: usize) -> Result<Answer, Status> {
        self.0.check(HealthCheckRequest { service: String::new() }).await?;
        Ok(Answer { games: 0, plies: 0, mismatch: None })
    }
}

/// `validate`: `ValidateGame`, cycling through the games.
pub struct ValidateCaller {
    pub client: Grpc<Link>,
    pub items: Arc<Vec<Item<ValidateGameRequest>>>,
    /// The requests of `items`, encoded.
    pub encoded: Arc<Vec<Bytes>>,
}

impl Caller for ValidateCaller {
    async fn call(&mut self, seq: usize) -> Result<Answer, Status> {
        let item = &self.items[seq % self.items.len()];
        let request = Request::new(self.encoded[seq % self.items.len()].clone());
        ready(&mut self.client).await?;
        let path = PathAndQuery::from_static("/arbiter.v1.RulesService/ValidateGame");
        let answer = self.client.unary(request, path, RawCodec).await?.into_inner();
        Ok(Answer {
            games: 1,
            plies: item.plies,
            mismatch: item.check_encoded::<ValidateGameResponse>(&answer),
        })
    }
}

/// Waits until the connection can take a call, as generated clients do.
pub async fn ready(client: &mut Grpc<Link>) -> Result<(), Status> {
    client.ready().await.map_err(|err| Status::unknown(format!("service was not ready: {err}")))
}

/// A codec for requests encoded in advance and answers kept as bytes. The
/// load generator shares the machine with the server: decoding the hundreds
/// of strings of an answer into generated messages would cost it more CPU
/// than the server spends on the call. Answers are decoded only to be
/// checked (`--verify`) or, in streams, for the few fields the tool needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(buf.copy_to_bytes(buf.remaining())))
    }
}

/// `legal`: `LegalMoves`, cycling through the positions.
pub struct LegalCaller {
    pub client: RulesServiceClient<Link>,
    pub items: Arc<Vec<Item<LegalMovesRequest>>>,
}

impl Caller for LegalCaller {
    async fn call(&mut self, seq: usize) -> Result<Answer, Status> {
        let item = &self.items[seq % self.items.len()];
        let answer = self.client.legal_moves(item.request.clone()).await?.into_inner();
        Ok(Answer { games: 0, plies: 0, mismatch: item.check(&answer) })
    }
}

/// An open `ValidateGames` stream: where games go, where verdicts come from.
struct OpenStream {
    games: mpsc::Sender<Bytes>,
    verdicts: Streaming<Bytes>,
}

/// What the load tool reads of a `ValidateGames` verdict: its id and, when
/// the game was refused, the error; the game's answer is skipped unless it
/// is to be checked.
#[derive(Clone, PartialEq, prost::Message)]
struct VerdictHead {
    #[prost(string, tag = "1")]
    id: String,
    #[prost(message, optional, tag = "3")]
    error: Option<GameError>,
}

/// `stream`: `ValidateGames`, one stream per worker. A call is a batch of
/// games sent back to back, and ends when all their verdicts are in: with a
/// batch of 1 (the default) a stream has one game in flight, so that it
/// compares with `validate` at the same number of games in flight; larger
/// batches are how a bulk client uses a stream.
/// A stream that fails is opened again for the next call.
pub struct StreamCaller {
    client: Grpc<Link>,
    items: Arc<Vec<Item<ValidateGameRequest>>>,
    /// The requests of `items`, encoded.
    encoded: Arc<Vec<Bytes>>,
    batch: usize,
    stream: Option<OpenStream>,
}

impl StreamCaller {
    pub fn new(
        client: Grpc<Link>,
        items: Arc<Vec<Item<ValidateGameRequest>>>,
        encoded: Arc<Vec<Bytes>>,
        batch: usize,
    ) -> StreamCaller {
        StreamCaller { client, items, encoded, batch, stream: None }
    }

    async fn open(&mut self) -> Result<OpenStream, Status> {
        let (games, queue) = mpsc::channel(self.batch);
        ready(&mut self.client).await?;
        let path = PathAndQuery::from_static("/arbiter.v1.RulesService/ValidateGames");
        let request = Request::new(ReceiverStream::new(queue));
        let verdicts = self.client.streaming(request, path, RawCodec).await?.into_inner();
        Ok(OpenStream { games, verdicts })
    }
}

/// Checks one verdict of a stream against the game sent as `id`.
fn check_verdict(
    verdict: &[u8],
    id: &str,
    item: &Item<ValidateGameRequest>,
) -> Result<Option<String>, Status> {
    let head = VerdictHead::decode(verdict)
        .map_err(|err| Status::internal(format!("undecodable verdict: {err}")))?;
    if let Some(error) = head.error {
        let code = parse_code(&error.code).unwrap_or(Code::Unknown);
        return Err(Status::new(code, format!("{} ({})", error.message, error.reason)));
    }
    if head.id != id {
        return Ok(Some(format!("answer for id {:?}, sent {id:?}", head.id)));
    }
    if item.expected.is_none() {
        return Ok(None);
    }
    let verdict = ValidateGamesResponse::decode(verdict)
        .map_err(|err| Status::internal(format!("undecodable verdict: {err}")))?;
    Ok(match verdict.result {
        Some(StreamResult::Game(answer)) => item.check(&answer),
        _ => Some(format!("answer for id {id:?} has no game")),
    })
}

impl Caller for StreamCaller {
    async fn call(&mut self, seq: usize) -> Result<Answer, Status> {
        // Taken out, and put back only when the call went well.
        let mut open = match self.stream.take() {
            Some(open) => open,
            None => self.open().await?,
        };
        let games: Vec<_> = (0..self.batch)
            .map(|k| {
                let n = seq * self.batch + k;
                (n.to_string(), n % self.items.len())
            })
            .collect();
        // `ValidateGamesRequest { id, game }`, written around the game's
        // bytes encoded in advance.
        let requests: Vec<_> = games
            .iter()
            .map(|(id, i)| {
                let game = &self.encoded[*i];
                let mut request = BytesMut::with_capacity(id.len() + game.len() + 16);
                prost::encoding::string::encode(1, id, &mut request);
                prost::encoding::encode_key(2, WireType::LengthDelimited, &mut request);
                prost::encoding::encode_varint(game.len() as u64, &mut request);
                request.put_slice(game);
                request.freeze()
            })
            .collect();
        let sender = open.games.clone();
        // Sent while the verdicts are read, so that neither side waits on
        // the other's flow control. A send fails when the server has ended
        // the stream: its status comes with the next read.
        let send = async move {
            for request in requests {
                if sender.send(request).await.is_err() {
                    break;
                }
            }
        };
        let receive = async {
            let mut answer = Answer { games: 0, plies: 0, mismatch: None };
            for (id, i) in &games {
                let item = &self.items[*i];
                let verdict = open.verdicts.message().await?.ok_or_else(|| {
                    Status::unknown("the server ended the stream without an answer")
                })?;
                let mismatch = check_verdict(&verdict, id, item)?;
                answer.games += 1;
                answer.plies += item.plies;
                answer.mismatch = answer.mismatch.or(mismatch);
            }
            Ok::<_, Status>(answer)
        };
        let ((), answer) = tokio::join!(send, receive);
        let answer = answer?;
        self.stream = Some(open);
        Ok(answer)
    }
}
