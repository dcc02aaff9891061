//! Adversarial requests over a real socket, against the built `arbiter`
//! binary so that its peak resident memory (VmHWM) is its own: huge fields,
//! invalid UTF-8, unknown enum values, absurd perft depths and deadlines,
//! thousands of concurrent calls, streams that are never read, idle
//! connections, header blocks that never end and HPACK bombs (other HTTP/2
//! attacks are in `connections` and `stalls`). Each attack gets a clear status or a correct answer within
//! a generous bound, and health answers between and during the attacks.
//! The tests that need a special configuration use the in-process server.

use std::marker::PhantomData;
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter::proto::rules_service_client::RulesServiceClient;
use arbiter::proto::{self, validate_games_response};
use prost::Message;
use prost::bytes::BufMut;
use prost::encoding::{WireType, encode_key, encode_varint};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_prost::{ProstCodec, ProstDecoder};
use tonic_types::StatusExt;

use crate::common::frames::{
    CONTINUATION, END_HEADERS, END_STREAM, GOAWAY, HEADERS, RST_STREAM, frame, handshake,
    health_block, read_frame,
};
use crate::common::server::{self as test_server, TestServer};

/// The most an attack may take, loaded 2-core machines included.
const PATIENCE: Duration = Duration::from_secs(60);

/// Peak resident memory the server may reach over all the attacks. Idle,
/// it holds about 18 MiB; the never-read streams cost the most (about
/// 150-300 MiB with mimalloc, which keeps freed pages, 45 MiB with glibc).
const PEAK_RSS_BOUND_KIB: u64 = 192 << 10;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// `arbiter serve` as a child process on a free port of 127.0.0.1, killed
/// when dropped.
struct Spawned {
    child: Child,
    addr: SocketAddr,
}

impl Spawned {
    async fn start(flags: &[&str]) -> Spawned {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        command.env("RUST_LOG", "error");
        Spawned::start_by(command, flags).await
    }

    /// Starts the server with `command`, which runs the binary (perhaps
    /// through a wrapper such as `prlimit`) with its environment and stderr.
    async fn start_by(mut command: Command, flags: &[&str]) -> Spawned {
        // A port the kernel just handed out and took back: free in practice.
        let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let child = command
            .args(["serve", "--listen", &addr.to_string(), "--metrics-listen", "127.0.0.1:0"])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("arbiter starts");
        let server = Spawned { child, addr };
        let started = Instant::now();
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            assert!(started.elapsed() < PATIENCE, "arbiter never listened on {addr}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        server
    }

    /// A number from the server's `/proc/PID/status` (KiB for sizes).
    fn status_field(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with(field)).expect("field in status");
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// CPU time the server has used, in clock ticks (user + system).
    fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the parenthesised command name; utime and stime are
        // the 14th and 15th fields of the whole line.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.unwrap()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Health over a fresh connection answers SERVING within the bound.
async fn assert_serving(addr: SocketAddr, when: &str) {
    let check = async {
        let channel = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await?;
        let reply = HealthClient::new(channel)
            .check(HealthCheckRequest { service: "arbiter.v1.RulesService".into() })
            .await?;
        Ok::<_, Box<dyn std::error::Error>>(reply.into_inner().status)
    };
    let status = tokio::time::timeout(PATIENCE, check)
        .await
        .unwrap_or_else(|_| panic!("health hung {when}"))
        .unwrap_or_else(|err| panic!("health failed {when}: {err}"));
    assert_eq!(status, ServingStatus::Serving as i32, "{when}");
}

/// Runs `attack` within the bound, says how long it took, and checks that
/// health still answers after it.
async fn survive(server: &Spawned, what: &str, attack: impl Future<Output = ()>) {
    let started = Instant::now();
    tokio::time::timeout(PATIENCE, attack)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {PATIENCE:?}"));
    let (rss, peak) = (server.status_field("VmRSS:"), server.status_field("VmHWM:"));
    let threads = server.status_field("Threads:");
    eprintln!(
        "{what}: {:?}; server VmRSS {rss} KiB, VmHWM {peak} KiB, {threads} threads",
        started.elapsed()
    );
    assert_serving(server.addr, &format!("after {what}")).await;
}

/// The ErrorInfo reason of an error status.
fn reason(status: &Status) -> String {
    status.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

fn assert_invalid(result: Result<impl std::fmt::Debug, Status>, expected_reason: &str) {
    let status = result.expect_err(expected_reason);
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(reason(&status), expected_reason, "{status:?}");
}

/// Sends request bytes exactly as given, for messages no well-behaved
/// client would write, and decodes the answer with prost.
struct RawCodec<U>(PhantomData<U>);

struct RawEncoder;

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl<U: Message + Default + Send + 'static> Codec for RawCodec<U> {
    type Encode = Vec<u8>;
    type Decode = U;
    type Encoder = RawEncoder;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> ProstDecoder<U> {
        ProstCodec::<U, U>::default().decoder()
    }
}

fn path(method: &str) -> PathAndQuery {
    PathAndQuery::try_from(format!("/arbiter.v1.RulesService/{method}")).unwrap()
}

pub(super) async fn raw_unary<U: Message + Default + Send + 'static>(
    channel: Channel,
    method: &str,
    bytes: Vec<u8>,
) -> Result<U, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.map_err(|err| Status::unavailable(err.to_string()))?;
    let response = grpc.unary(Request::new(bytes), path(method), RawCodec(PhantomData)).await?;
    Ok(response.into_inner())
}

/// A length-delimited field holding `bytes`, encoded by hand.
fn field(tag: u32, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_key(tag, WireType::LengthDelimited, &mut out);
    encode_varint(bytes.len() as u64, &mut out);
    out.extend_from_slice(bytes);
    out
}

/// A long legal game, up to `plies` moves, in canonical SAN.
fn long_game(plies: usize) -> Vec<String> {
    let mut game = arbiter_chess::Game::new(Default::default());
    let mut moves = Vec::new();
    while moves.len() < plies && !game.is_over() {
        let legal = game.position().legal_moves();
        let m = legal[moves.len() * 7 % legal.len()];
        moves.push(game.play(m).to_string());
    }
    moves
}

fn game_request(moves: Vec<String>) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest { moves, include_fens: true, ..Default::default() }
}

async fn huge_fields(server: &Spawned) {
    let mut client = RulesServiceClient::new(server.channel().await);
    let fen = "8/".repeat(1 << 19); // 1 MiB
    let status = client
        .validate_game(proto::ValidateGameRequest { fen: fen.clone(), ..Default::default() })
        .await;
    assert_invalid(status, "FEN_TOO_LONG");
    let status =
        client.legal_moves(proto::LegalMovesRequest { fen: fen.clone(), ..Default::default() });
    assert_invalid(status.await, "FEN_TOO_LONG");
    let status =
        client.perft(proto::PerftRequest { fen: fen.clone(), depth: 1, ..Default::default() });
    assert_invalid(status.await, "FEN_TOO_LONG");
    let request = proto::ValidateGamesRequest {
        id: "big-fen".into(),
        game: Some(proto::ValidateGameRequest { fen, ..Default::default() }),
    };
    let mut answers =
        client.validate_games(tokio_stream::iter([request])).await.unwrap().into_inner();
    match answers.next().await.unwrap().unwrap().result.unwrap() {
        validate_games_response::Result::Error(e) => assert_eq!(e.reason, "FEN_TOO_LONG"),
        other => panic!("{other:?}"),
    }
    // 200,000 moves: short ones fit the message limit and are too many...
    let moves = vec!["e4".to_owned(); 200_000];
    let status = client.validate_game(game_request(moves.clone())).await;
    assert_invalid(status, "TOO_MANY_MOVES");
    let status = client.legal_moves(proto::LegalMovesRequest { moves, ..Default::default() });
    assert_invalid(status.await, "TOO_MANY_MOVES");
    // ...long ones are over the 4 MiB message limit.
    let moves = vec!["Ng1-f3+!?".repeat(3); 200_000];
    let status = client.validate_game(game_request(moves)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    // The longest game the limit allows is answered in full.
    let moves = long_game(1024);
    let answer = client.validate_game(game_request(moves.clone())).await.unwrap().into_inner();
    assert!(answer.illegal_move.is_none());
    assert_eq!(answer.plies.len(), moves.len());
}

/// Caller text comes back only in part: a 3 MiB move of control characters
/// (whose escapes would grow six-fold) is answered in well under 64 KiB,
/// alone and as each game of a stream.
async fn echoed_text(server: &Spawned) {
    const ANSWER_BOUND: usize = 64 << 10;
    let mut client = RulesServiceClient::new(server.channel().await);
    let request = game_request(vec!["e4".to_owned(), "\u{1}".repeat(3 << 20)]);
    let answer = client.validate_game(request.clone()).await.unwrap().into_inner();
    let illegal = answer.illegal_move.as_ref().expect("the control characters are no move");
    assert_eq!((illegal.index, illegal.reason()), (1, proto::IllegalMoveReason::Unparseable));
    assert!(illegal.r#move.len() < 100 && illegal.message.len() < 1000, "{illegal:?}");
    assert!(answer.encoded_len() < ANSWER_BOUND, "{} bytes", answer.encoded_len());
    let games = (0..3).map(move |i| proto::ValidateGamesRequest {
        id: i.to_string(),
        game: Some(request.clone()),
    });
    let mut answers = client.validate_games(tokio_stream::iter(games)).await.unwrap().into_inner();
    let mut count = 0;
    while let Some(answer) = answers.next().await {
        let answer = answer.unwrap();
        assert!(answer.encoded_len() < ANSWER_BOUND, "{} bytes", answer.encoded_len());
        count += 1;
    }
    assert_eq!(count, 3);
}

async fn malformed_messages(server: &Spawned) {
    let channel = server.channel().await;
    let not_utf8: &[u8] = &[0xc3, 0x28, 0xff, 0xfe];
    let nested = [field(1, b"id"), field(2, &field(1, not_utf8))].concat();
    let cases: [(&str, Vec<u8>); 6] = [
        ("ValidateGame", field(1, not_utf8)),
        ("ValidateGame", [field(2, b"e4"), field(2, not_utf8)].concat()),
        ("LegalMoves", field(5, not_utf8)),
        ("Perft", field(1, not_utf8)),
        // Truncated: a length that runs past the end of the message.
        ("ValidateGame", vec![0x12, 0x40, b'e', b'4']),
        // A varint that never ends.
        ("Perft", vec![0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ];
    for (method, bytes) in cases {
        let status = match method {
            "ValidateGame" => {
                raw_unary::<proto::ValidateGameResponse>(channel.clone(), method, bytes).await.err()
            }
            "LegalMoves" => {
                raw_unary::<proto::LegalMovesResponse>(channel.clone(), method, bytes).await.err()
            }
            _ => raw_unary::<proto::PerftResponse>(channel.clone(), method, bytes).await.err(),
        };
        let status = status.expect("malformed message refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{method}: {status:?}");
        assert_eq!(reason(&status), "MALFORMED_MESSAGE", "{method}: {status:?}");
    }
    // In a stream, a game with invalid UTF-8 deep inside.
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let codec = RawCodec::<proto::ValidateGamesResponse>(PhantomData);
    let requests = tokio_stream::iter([nested]);
    let status = match grpc.streaming(Request::new(requests), path("ValidateGames"), codec).await {
        Ok(response) => response.into_inner().next().await.expect("an answer").unwrap_err(),
        Err(status) => status,
    };
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    // Unknown fields are skipped, as proto3 says: a correct answer.
    let unknown = [field(99, b"whatever"), field(2, b"e4")].concat();
    let answer: proto::ValidateGameResponse =
        raw_unary(channel, "ValidateGame", unknown).await.unwrap();
    assert_eq!(answer.plies[0].san, "e4");
}

async fn unknown_enums_and_depths(server: &Spawned) {
    let mut client = RulesServiceClient::new(server.channel().await);
    for value in [99, -1, i32::MAX, i32::MIN] {
        let game = proto::ValidateGameRequest { notation: value, ..Default::default() };
        assert_invalid(client.validate_game(game).await, "UNKNOWN_ENUM_VALUE");
        let game = proto::ValidateGameRequest { variant: value, ..Default::default() };
        assert_invalid(client.validate_game(game).await, "UNKNOWN_ENUM_VALUE");
        let query = proto::LegalMovesRequest { notation: value, ..Default::default() };
        assert_invalid(client.legal_moves(query).await, "UNKNOWN_ENUM_VALUE");
        let perft = proto::PerftRequest { variant: value, depth: 1, ..Default::default() };
        assert_invalid(client.perft(perft).await, "UNKNOWN_ENUM_VALUE");
    }
    for depth in [30, u32::MAX] {
        let perft = proto::PerftRequest { depth, ..Default::default() };
        assert_invalid(client.perft(perft).await, "DEPTH_TOO_LARGE");
    }
}

/// Deadlines of 1 ms on perfts of billions of nodes: DEADLINE_EXCEEDED at
/// once, and the server stops the work (it is idle again right after).
/// The calls go as gRPC-Web over raw HTTP/1.1 so that the answer is the
/// server's: a tonic client enforces `grpc-timeout` itself (CANCELLED).
async fn tiny_deadlines(server: &Spawned) {
    let perft = proto::PerftRequest { fen: KIWIPETE.into(), depth: 6, ..Default::default() };
    let message = perft.encode_to_vec();
    let calls = (0..20).map(|_| {
        let (addr, message) = (server.addr, message.clone());
        tokio::spawn(async move {
            let socket = tokio::net::TcpStream::connect(addr).await.unwrap();
            let host = addr.to_string();
            let headers = [("grpc-timeout", "1m")];
            test_server::grpc_web_call(socket, &host, "Perft", &headers, &message).await
        })
    });
    for call in calls.collect::<Vec<_>>() {
        let response = String::from_utf8_lossy(&call.await.unwrap()).into_owned();
        // DEADLINE_EXCEEDED is code 4, in the headers of a trailers-only
        // answer or in the trailer frame.
        let code = response.lines().find_map(|l| l.trim().strip_prefix("grpc-status:"));
        assert_eq!(code.map(str::trim), Some("4"), "{response}");
    }
    assert_idle(server, "after deadlines").await;
    // A caller that gives up (drops the call) stops the work as well.
    let mut abandoned = RulesServiceClient::new(server.channel().await);
    let call = tokio::spawn(async move {
        abandoned
            .perft(proto::PerftRequest { fen: KIWIPETE.into(), depth: 6, ..Default::default() })
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    call.abort();
    assert_idle(server, "after an abandoned perft").await;
}

/// The server uses well under one core over the next two seconds: no perft
/// left running (one would take a whole core).
async fn assert_idle(server: &Spawned, when: &str) {
    // Let the cancellation reach the worker first.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.cpu_ticks();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let used = server.cpu_ticks() - before;
    // 200 ticks would be one core busy throughout.
    assert!(used < 100, "{when}: the server used {used} ticks in 2 s");
}

/// 5,000 calls at once over four connections, half of them perfts on the
/// blocking pool: each is answered OK or shed with RESOURCE_EXHAUSTED.
async fn thousands_of_calls(server: &Spawned) {
    let mut clients = Vec::new();
    for _ in 0..4 {
        clients.push(RulesServiceClient::new(server.channel().await));
    }
    let moves = long_game(120);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..5_000 {
        let mut client = clients[i % clients.len()].clone();
        let moves = moves.clone();
        calls.spawn(async move {
            let result = if i % 2 == 0 {
                client.validate_game(game_request(moves)).await.map(|r| r.into_inner().plies.len())
            } else {
                let perft = proto::PerftRequest { depth: 4, ..Default::default() };
                client.perft(perft).await.map(|r| r.into_inner().nodes as usize)
            };
            (i, result)
        });
    }
    let health = tokio::spawn(health_while(server.addr));
    let (mut ok, mut shed) = (0, 0);
    while let Some(joined) = calls.join_next().await {
        match joined.unwrap() {
            (i, Ok(n)) => {
                assert_eq!(n, if i % 2 == 0 { moves.len() } else { 197_281 });
                ok += 1;
            }
            (_, Err(status)) => {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                shed += 1;
            }
        }
    }
    health.abort();
    eprintln!("5,000 concurrent calls: {ok} OK, {shed} RESOURCE_EXHAUSTED");
}

/// Checks health every 200 ms until aborted.
async fn health_while(addr: SocketAddr) {
    loop {
        assert_serving(addr, "during an attack").await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// 200 streams that send games with a FEN per ply and never read the
/// answers; the server keeps serving others, and frees everything when
/// the client goes away.
async fn streams_never_read(server: &Spawned) {
    let moves = long_game(300);
    let mut held = Vec::new();
    let mut senders = Vec::new();
    for _ in 0..2 {
        let mut client = RulesServiceClient::new(server.channel().await);
        for _ in 0..100 {
            let (tx, rx) = mpsc::channel(64);
            let responses =
                client.validate_games(ReceiverStream::new(rx)).await.unwrap().into_inner();
            let moves = moves.clone();
            // Offers games until the server stops taking them.
            senders.push(tokio::spawn(async move {
                for i in 0..1_000 {
                    let game = Some(game_request(moves.clone()));
                    if tx
                        .send(proto::ValidateGamesRequest { id: i.to_string(), game })
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
            }));
            held.push(responses);
        }
    }
    // Give the server time to fill every buffer it is willing to fill.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_serving(server.addr, "with 200 unread streams").await;
    let mut client = RulesServiceClient::new(server.channel().await);
    let answer = client.validate_game(game_request(moves.clone())).await.unwrap().into_inner();
    assert_eq!(answer.plies.len(), moves.len());
    drop(held);
    for sender in senders {
        sender.abort();
    }
}

/// Hundreds of connections that say nothing (raw TCP) or open HTTP/2 and
/// make no call: the server goes on answering others.
async fn idle_connections(server: &Spawned) {
    let mut raw = Vec::new();
    for _ in 0..300 {
        raw.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    let mut channels = Vec::new();
    for _ in 0..200 {
        channels.push(server.channel().await);
    }
    assert_serving(server.addr, "with 500 idle connections").await;
    let mut client = RulesServiceClient::new(server.channel().await);
    let answer = client.perft(proto::PerftRequest { depth: 3, ..Default::default() }).await;
    assert_eq!(answer.unwrap().into_inner().nodes, 8_902);
}

/// The most the server's resident memory may grow over one header-block
/// attack (the attacks send 64 MiB, or decode to as much).
const FLAT_KIB: u64 = 16 << 10;

/// How the server ended a connection that sent `attack` (written
/// concurrently): whether it closed the connection (GOAWAY, whose error
/// code is returned too, or end of file)
/// and whether it took the request on stream 1 (answered `:status 200`),
/// read until one of these or a reset of stream 1; and how many bytes of
/// `attack` went out before the connection closed. The connection stays
/// open for writing until then: no end of file from this side.
async fn send_frames(server: &Spawned, attack: Vec<Vec<u8>>) -> (bool, bool, usize, Option<u32>) {
    let socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = socket.into_split();
    let writing = tokio::spawn(async move {
        let mut sent = 0;
        for bytes in attack {
            if writer.write_all(&bytes).await.is_err() {
                break;
            }
            sent += bytes.len();
        }
        (sent, writer)
    });
    let (mut closed, mut accepted, mut goaway) = (true, false, None);
    while let Some((kind, stream, payload)) = read_frame(&mut reader).await {
        match (kind, stream) {
            (GOAWAY, _) => {
                goaway = payload.get(4..8).map(|code| u32::from_be_bytes(code.try_into().unwrap()));
                break;
            }
            (RST_STREAM, 1) => {
                closed = false;
                break;
            }
            (HEADERS, 1) => {
                // An indexed `:status 200` first: the request was taken.
                (closed, accepted) = (false, payload.first() == Some(&0x88));
                break;
            }
            _ => {}
        }
    }
    let sent = if closed {
        writing.await.unwrap().0
    } else {
        writing.abort();
        0
    };
    (closed, accepted, sent, goaway)
}

/// HEADERS without END_HEADERS, then 16 KiB CONTINUATION frames that never
/// end the block (64 MiB offered): the server closes the connection within
/// a few MB, and its memory stays flat.
async fn continuation_flood(server: &Spawned) {
    let before = server.status_field("VmRSS:");
    // The block opens a literal whose value (1 MiB: 127, then 1,048,449 in
    // three bytes) the CONTINUATION frames go on writing.
    let mut block = health_block();
    block.extend_from_slice(&[0x40, 6]);
    block.extend_from_slice(b"x-long");
    block.extend_from_slice(&[0x7f, 0x81, 0xff, 0x3f]);
    let mut attack = vec![[handshake(), frame(HEADERS, 0, 1, &block)].concat()];
    let filler = frame(CONTINUATION, 0, 1, &[b'a'; 16 << 10]);
    attack.extend(std::iter::repeat_n(filler, 4096));
    let (closed, accepted, sent, goaway) = send_frames(server, attack).await;
    let grown = server.status_field("VmRSS:").saturating_sub(before);
    eprintln!(
        "CONTINUATION flood: closed (GOAWAY {goaway:?}) after {} KiB sent; VmRSS grew {grown} KiB",
        sent >> 10
    );
    assert!(closed && !accepted, "closed {closed}, accepted {accepted}");
    assert!(sent < 8 << 20, "the server took {sent} bytes of one header block");
    assert!(grown < FLAT_KIB, "VmRSS grew {grown} KiB");
}

/// One 4 KB header put in the HPACK dynamic table, then referenced 16,000
/// times in one header block (64 MB once decoded): the request is refused,
/// and the server's memory stays flat.
async fn hpack_bomb(server: &Spawned) {
    let before = server.status_field("VmRSS:");
    let mut block = health_block();
    // Literal with incremental indexing, new name, a 4,000-byte value (7-bit
    // prefix 127, then 3,873 in two bytes): with its name and the 32 bytes
    // HPACK counts per entry it fits the default 4,096-byte table.
    block.extend_from_slice(&[0x40, 6]);
    block.extend_from_slice(b"x-bomb");
    block.extend_from_slice(&[0x7f, 0xa1, 0x1e]);
    block.extend_from_slice(&[b'b'; 4000]);
    // Dynamic table index 62: the header just added.
    block.extend(std::iter::repeat_n(0xbe, 16_000));
    let (first, rest) = block.split_at(16 << 10);
    let attack = vec![
        [
            handshake(),
            frame(HEADERS, END_STREAM, 1, first),
            frame(CONTINUATION, END_HEADERS, 1, rest),
        ]
        .concat(),
    ];
    let (closed, accepted, _, goaway) = send_frames(server, attack).await;
    let grown = server.status_field("VmRSS:").saturating_sub(before);
    let how = if closed { "connection closed" } else { "stream answered or reset" };
    eprintln!("HPACK bomb: {how} (GOAWAY {goaway:?}); VmRSS grew {grown} KiB");
    assert!(!accepted, "a 64 MiB header list was taken");
    assert!(grown < FLAT_KIB, "VmRSS grew {grown} KiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_survives_every_attack_with_bounded_memory() {
    let server = Spawned::start(&[]).await;
    assert_serving(server.addr, "at start").await;
    let idle = server.status_field("VmHWM:");
    survive(&server, "1 MiB FEN and 200,000 moves", huge_fields(&server)).await;
    survive(&server, "3 MiB moves echoed", echoed_text(&server)).await;
    survive(&server, "malformed messages", malformed_messages(&server)).await;
    survive(&server, "unknown enums and depths", unknown_enums_and_depths(&server)).await;
    survive(&server, "1 ms deadlines on deep perfts", tiny_deadlines(&server)).await;
    survive(&server, "5,000 concurrent calls", thousands_of_calls(&server)).await;
    survive(&server, "200 streams never read", streams_never_read(&server)).await;
    survive(&server, "500 idle connections", idle_connections(&server)).await;
    survive(&server, "a CONTINUATION flood", continuation_flood(&server)).await;
    survive(&server, "an HPACK bomb", hpack_bomb(&server)).await;
    let peak = server.status_field("VmHWM:");
    eprintln!("server peak RSS (VmHWM): {peak} KiB (idle at start: {idle} KiB)");
    assert!(peak < PEAK_RSS_BOUND_KIB, "peak RSS {peak} KiB");
}

/// Out of file descriptors, the server cannot accept: it waits between
/// attempts instead of spinning, keeps serving the connections it has, and
/// takes new ones once descriptors are free again. Each failed attempt logs
/// one warning, so the log counts the attempts: waits of 5 ms doubling to
/// 1 s make about ten in three seconds, where a spinning loop makes tens of
/// thousands however loaded the machine is (CPU time would not tell: a
/// spinning server on a busy machine may get less than half a core).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_file_descriptors_the_server_backs_off() {
    let log = std::env::temp_dir().join(format!("arbiter-emfile-{}.log", std::process::id()));
    // util-linux's prlimit starts the binary with at most 64 open files.
    let mut command = Command::new("prlimit");
    command
        .args(["--nofile=64:64", "--", env!("CARGO_BIN_EXE_arbiter")])
        .env("RUST_LOG", "warn")
        .stderr(std::fs::File::create(&log).unwrap());
    let server = Spawned::start_by(command, &[]).await;
    assert_serving(server.addr, "at start").await;
    let kept = RulesServiceClient::new(server.channel().await);
    let mut raw = Vec::new();
    for _ in 0..100 {
        raw.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let failed = text.lines().filter(|line| line.contains("cannot accept connections")).count();
    assert!((1..=40).contains(&failed), "{failed} failed accepts in 3 s");
    let mut client = kept.clone();
    let answer = client.perft(proto::PerftRequest { depth: 2, ..Default::default() }).await;
    assert_eq!(answer.unwrap().into_inner().nodes, 400, "on a connection it had");
    drop(raw);
    assert_serving(server.addr, "once descriptors are free").await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("the open files limit is too low for --max-connections"), "{text}");
    drop(server);
    let _ = std::fs::remove_file(&log);
}

/// A stream that is never read holds its concurrency slot at most until its
/// connection is past `--max-connection-age` plus the grace period (sooner
/// if a newcomer takes it once its answers have waited past the stall
/// grace); then the slot is free for others and the stream ends.
#[tokio::test]
async fn an_unread_stream_is_cut_off_after_the_connection_age_grace() {
    let server = TestServer::start(&[
        "--max-concurrency",
        "1",
        // Long enough that the slot is surely still taken when checked below.
        "--max-connection-age",
        "2s",
        "--max-connection-age-grace",
        "1s",
    ])
    .await;
    let mut client = server.client().await;
    let moves = long_game(300);
    let (tx, rx) = mpsc::channel(16);
    let mut responses = client.validate_games(ReceiverStream::new(rx)).await.unwrap().into_inner();
    let sender = tokio::spawn(async move {
        for i in 0..10_000 {
            let game = Some(game_request(moves.clone()));
            if tx.send(proto::ValidateGamesRequest { id: i.to_string(), game }).await.is_err() {
                break;
            }
        }
    });
    // The only slot is taken: a newcomer is shed, or takes the slot once the
    // stream's answers have waited on its window past the grace.
    let mut other = server.client().await;
    if let Err(status) = other.validate_game(game_request(vec![])).await {
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    }
    // Past age + grace at the latest the slot comes back, though the stream
    // was never read.
    let started = Instant::now();
    loop {
        let mut fresh = server.client().await;
        match fresh.validate_game(game_request(vec![])).await {
            Ok(_) => break,
            Err(status) => assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}"),
        }
        assert!(started.elapsed() < PATIENCE, "the unread stream kept its slot");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!("slot free again after {:?}", started.elapsed());
    // The reader that comes back finds its stream cut off, not hanging.
    let ended =
        tokio::time::timeout(PATIENCE, async { while let Some(Ok(_)) = responses.next().await {} });
    ended.await.expect("the cut-off stream ends");
    sender.abort();
    server.shutdown().await.unwrap();
}

/// A perft of 8e9 nodes (Kiwipete to depth 6, many seconds of a core) with
/// no deadline from its caller: the server's budget ends it
/// RESOURCE_EXHAUSTED, naming the setting, and the work stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_perft_without_a_deadline_stops_at_the_servers_budget() {
    let server = Spawned::start(&["--perft-budget", "500ms"]).await;
    let mut client = RulesServiceClient::new(server.channel().await);
    let perft = proto::PerftRequest { fen: KIWIPETE.into(), depth: 6, ..Default::default() };
    let status = tokio::time::timeout(PATIENCE, client.perft(perft))
        .await
        .expect("the perft was not stopped")
        .expect_err("a perft of 8e9 nodes finished within its budget");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("--perft-budget"), "{status:?}");
    assert_idle(&server, "after a perft over budget").await;
}
