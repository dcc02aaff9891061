//! Clients that take no answer, over real sockets on 127.0.0.1: raw HTTP/2
//! connections announcing a window of 0 (so that no answer can be sent)
//! and answering pings. Their calls hold admission slots only until the
//! stall bound; then the slots are free for others, the calls end and the
//! connections whose every call stalled are closed. Fairness keeps one
//! connection, or one peer address, from taking every slot meanwhile.
//!
//! Most servers here use a stall bound of a second or two and small budgets, so that a few
//! dozen calls fill them; the persistent attacker and the slow reader meet the defaults. The
//! bounds on time are generous, for loaded machines.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arbiter::proto::{self, ValidateGameRequest};
use prost::Message;
use tonic::Code;
use tonic::codegen::http;
use tonic::transport::Channel;

use crate::common::server::TestServer;
use crate::common::zero_window::{Headers, ZeroWindow, grpc_frame};

/// The normal client's address.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
/// Another client's address (all of 127.0.0.0/8 is the loopback on Linux).
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
/// What the issue asks: a normal client is served within this long of an
/// attack (with a stall bound of 1 or 2 s here).
const SERVED_WITHIN: Duration = Duration::from_secs(5);
/// The most a stalled connection may take to be closed, loaded machines
/// included.
const PATIENCE: Duration = Duration::from_secs(30);
/// `RESOURCE_EXHAUSTED`'s number.
const SHED: i32 = Code::ResourceExhausted as i32;

fn game() -> ValidateGameRequest {
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"];
    ValidateGameRequest {
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    }
}

/// `connections` zero-window connections from `from`, each sending `calls`
/// ValidateGame calls: the connections and how many calls each had
/// admitted (the others are shed).
async fn zero_window_calls(
    server: &TestServer,
    from: IpAddr,
    connections: usize,
    calls: usize,
) -> Vec<(ZeroWindow, usize)> {
    let message = game().encode_to_vec();
    let mut attackers = Vec::new();
    for _ in 0..connections {
        let mut connection = ZeroWindow::connect(server.addr, from).await;
        let mut admitted = 0;
        for _ in 0..calls {
            match connection.call("ValidateGame", &message, true).await {
                Headers::Admitted => admitted += 1,
                Headers::Status(code) => assert_eq!(code, SHED, "a call over the budget"),
            }
        }
        attackers.push((connection, admitted));
    }
    attackers
}

/// One ValidateGame over `channel`: OK with the whole game, or its status.
async fn validate(channel: &Channel) -> Result<(), tonic::Status> {
    let mut client = proto::rules_service_client::RulesServiceClient::new(channel.clone());
    let answer = client.validate_game(game()).await?.into_inner();
    assert_eq!(answer.plies.len(), game().moves.len());
    assert!(!answer.position.unwrap().legal_moves.is_empty());
    Ok(())
}

/// Calls until one is answered, each shed one RESOURCE_EXHAUSTED: how long
/// it took.
async fn served_after(channel: &Channel) -> Duration {
    let started = Instant::now();
    loop {
        match validate(channel).await {
            Ok(()) => return started.elapsed(),
            Err(status) => assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}"),
        }
        assert!(started.elapsed() < PATIENCE, "never served");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Zero-window calls on four connections fill the unary budget (each
/// connection at most half of it), each connection's calls taking the
/// slots of the calls before them once those have waited past the grace;
/// a normal client is served within 5 s, and the connections whose calls
/// all stalled are closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_window_calls_give_their_slots_back_and_their_connections_are_closed() {
    // 2 s: past the grace (1 s), so that it is the later connections'
    // calls that free the first ones' slots, however loaded the machine.
    let server = TestServer::start(&["--stall-timeout", "2s", "--max-unary-calls", "8"]).await;
    let normal = server.channel().await;
    let mut attackers = zero_window_calls(&server, LOCAL, 4, 16).await;
    let admitted: Vec<usize> = attackers.iter().map(|(_, admitted)| *admitted).collect();
    // The first two connections fill the budget; the later ones take the
    // slots of their calls once those have waited past the grace.
    assert!(admitted.iter().sum::<usize>() >= 8, "admitted per connection: {admitted:?}");
    assert!(admitted.iter().all(|&n| n <= 4), "a connection over its share: {admitted:?}");
    let waited = served_after(&normal).await;
    eprintln!("zero-window calls on 4 connections: a normal call served after {waited:?}");
    assert!(waited < SERVED_WITHIN, "served after {waited:?}");
    for (connection, admitted) in &mut attackers {
        if *admitted > 0 {
            assert!(connection.closed_within(PATIENCE).await, "a stalled connection stays open");
        }
    }
    // And again: the budget is whole.
    for _ in 0..8 {
        validate(&normal).await.expect("served once the stalled calls are gone");
    }
    server.shutdown().await.unwrap();
}

/// A stalled `ValidateGames` stream and a stalled `ValidatePgn` stream each
/// hold a slot of `--max-concurrency` (each on its own connection, since a
/// connection may hold half of it) until the stall bound; then others are
/// served and both connections are closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_streams_give_their_slots_back() {
    let server = TestServer::start(&["--stall-timeout", "1s", "--max-concurrency", "2"]).await;
    let games = proto::ValidateGamesRequest { id: "a".into(), game: Some(game()) };
    let pgn = proto::ValidatePgnRequest {
        chunk: b"[Event \"?\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n".to_vec(),
        include_analysis: false,
    };
    let mut streams = Vec::new();
    for (method, message) in
        [("ValidateGames", games.encode_to_vec()), ("ValidatePgn", pgn.encode_to_vec())]
    {
        let mut connection = ZeroWindow::connect(server.addr, LOCAL).await;
        // The request stays open: the stream waits for more, its answer
        // for the window.
        assert_eq!(connection.call(method, &message, false).await, Headers::Admitted, "{method}");
        streams.push(connection);
    }
    let normal = server.channel().await;
    let waited = served_after(&normal).await;
    eprintln!("two stalled streams: a normal call served after {waited:?}");
    assert!(waited < SERVED_WITHIN, "served after {waited:?}");
    for connection in &mut streams {
        assert!(
            connection.closed_within(PATIENCE).await,
            "a stalled stream's connection stays open"
        );
    }
    server.shutdown().await.unwrap();
}

/// For a minute, another address keeps sending zero-window calls on four
/// connections, reconnecting as they are closed; with `--max-peer-share 50`
/// it never holds more than half of the budget, and every call of a
/// normal client is served at once throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_minute_of_zero_window_calls_from_another_address_shuts_no_one_out() {
    const ATTACK: Duration = Duration::from_secs(60);
    let server = Arc::new(
        TestServer::start(&[
            "--stall-timeout",
            "1s",
            "--max-unary-calls",
            "8",
            "--max-peer-share",
            "50",
        ])
        .await,
    );
    let stop = Arc::new(AtomicBool::new(false));
    let (rounds, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let attack = {
        let (server, stop, rounds, most) =
            (Arc::clone(&server), Arc::clone(&stop), Arc::clone(&rounds), Arc::clone(&most));
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let mut attackers = zero_window_calls(&server, OTHER, 4, 16).await;
                let admitted: usize = attackers.iter().map(|(_, admitted)| admitted).sum();
                most.fetch_max(admitted, Ordering::Relaxed);
                rounds.fetch_add(1, Ordering::Relaxed);
                // Those with calls admitted are closed once the calls stall;
                // the others have nothing open and are dropped.
                for (connection, admitted) in &mut attackers {
                    if *admitted > 0 {
                        assert!(connection.closed_within(PATIENCE).await, "a stalled connection");
                    }
                }
            }
        })
    };
    let normal = server.channel().await;
    let started = Instant::now();
    let mut served = 0;
    while started.elapsed() < ATTACK {
        validate(&normal).await.unwrap_or_else(|status| {
            panic!("shut out after {:?} of the attack: {status:?}", started.elapsed())
        });
        served += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    attack.await.unwrap();
    let (rounds, most) = (rounds.load(Ordering::Relaxed), most.load(Ordering::Relaxed));
    eprintln!("a minute of zero-window calls: {rounds} rounds, {served} normal calls served");
    assert!(rounds >= 10, "the attack ran {rounds} rounds");
    assert_eq!(most, 4, "the other address held {most} of the 8 slots at most");
    Arc::into_inner(server).unwrap().shutdown().await.unwrap();
}

/// When the normal client calls during the persistent attack, from its
/// start: the schedule (1, 5, 20 and 60 s), or the seconds listed
/// in `ARBITER_TEST_ATTACK_AT` (e.g. `1,5`) for a shorter run.
fn attack_schedule() -> Vec<Duration> {
    let listed = std::env::var("ARBITER_TEST_ATTACK_AT").unwrap_or_else(|_| "1,5,20,60".into());
    listed
        .split(',')
        .map(|secs| Duration::from_secs(secs.trim().parse().expect("seconds, comma-separated")))
        .collect()
}

/// What the persistent attacker did.
#[derive(Default)]
struct Attack {
    stop: AtomicBool,
    calls: AtomicUsize,
    connections: AtomicUsize,
}

/// One of the persistent attacker's connections, for as long as the attack
/// lasts: 128 ValidateGame calls sent at once, a window of 0, pings
/// answered; when the server closes it, another one does the same.
async fn keep_attacking(addr: std::net::SocketAddr, attack: Arc<Attack>) {
    let message = game().encode_to_vec();
    while !attack.stop.load(Ordering::Relaxed) {
        let mut connection = ZeroWindow::connect(addr, LOCAL).await;
        attack.connections.fetch_add(1, Ordering::Relaxed);
        for _ in 0..128 {
            if !connection.send("ValidateGame", &message, true).await {
                break;
            }
            attack.calls.fetch_add(1, Ordering::Relaxed);
        }
        while !attack.stop.load(Ordering::Relaxed) {
            if connection.closed_within(Duration::from_millis(100)).await {
                break;
            }
        }
    }
}

/// The attacker, with the default settings: four connections of
/// 128 zero-window calls each, from the normal client's own address, each
/// connection opened again as soon as the server closes it. Calls whose
/// answers wait on the window give their slots to newcomers, so the normal
/// client's single call at each time of the schedule is served (it may
/// wait up to the grace for a slot; RESOURCE_EXHAUSTED fails the test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persistent_zero_window_attacker_on_the_same_address_shuts_no_one_out() {
    let server = TestServer::start(&[]).await;
    let normal = server.channel().await;
    validate(&normal).await.expect("served before the attack");
    let attack = Arc::new(Attack::default());
    let attackers: Vec<_> =
        (0..4).map(|_| tokio::spawn(keep_attacking(server.addr, Arc::clone(&attack)))).collect();
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for at in attack_schedule() {
        tokio::time::sleep_until((started + at).into()).await;
        let called = Instant::now();
        let outcome = validate(&normal).await;
        eprintln!(
            "persistent attack, call at {at:?} (sent at {:?}): {} after {:?}; so far {} attacking \
             calls on {} connections",
            called - started,
            outcome.as_ref().map_or_else(|status| format!("{:?}", status.code()), |()| "OK".into()),
            called.elapsed(),
            attack.calls.load(Ordering::Relaxed),
            attack.connections.load(Ordering::Relaxed),
        );
        outcomes.push((at, outcome));
    }
    attack.stop.store(true, Ordering::Relaxed);
    for attacker in attackers {
        attacker.await.unwrap();
    }
    assert!(attack.calls.load(Ordering::Relaxed) >= 4 * 128, "the attack sent too little");
    for (at, outcome) in outcomes {
        outcome.unwrap_or_else(|status| panic!("the normal call at {at:?} failed: {status:?}"));
    }
    server.shutdown().await.unwrap();
}

/// A client that reads its answers at about 10 KB/s, with the default
/// settings and nobody else waiting for a slot: a `ValidateGames` stream
/// of 40 games with their FENs (tens of KB of answers) over a window of
/// 15 KB, given back a chunk at a time after as long as reading it takes at
/// that pace. Each window's worth waits about 1.5 s on the client, longer
/// than the grace; every answer still comes, and the stream ends OK.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_gets_every_answer_while_no_one_waits() {
    const WINDOW: u32 = 15_000;
    const BYTES_PER_SEC: f64 = 10_000.0;
    const GAMES: usize = 40;
    let server = TestServer::start(&[]).await;
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (send, connection) = h2::client::Builder::new()
        .initial_window_size(WINDOW)
        .handshake::<_, bytes::Bytes>(tcp)
        .await
        .unwrap();
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = http::Request::post("http://127.0.0.1/arbiter.v1.RulesService/ValidateGames")
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let (response, mut body) = send.ready().await.unwrap().send_request(request, false).unwrap();
    for id in 0..GAMES {
        let game = proto::ValidateGameRequest { include_fens: true, ..game() };
        let message = proto::ValidateGamesRequest { id: id.to_string(), game: Some(game) };
        body.send_data(grpc_frame(&message.encode_to_vec()), id + 1 == GAMES).unwrap();
    }
    let started = Instant::now();
    let mut answers = response.await.unwrap().into_body();
    let mut received = Vec::new();
    while let Some(chunk) = answers.data().await {
        let chunk = chunk.expect("the stream goes on");
        tokio::time::sleep(Duration::from_secs_f64(chunk.len() as f64 / BYTES_PER_SEC)).await;
        answers.flow_control().release_capacity(chunk.len()).unwrap();
        received.extend_from_slice(&chunk);
    }
    let trailers = answers.trailers().await.unwrap().expect("trailers");
    assert_eq!(trailers.get("grpc-status").map(|v| v.to_str().unwrap()), Some("0"), "{trailers:?}");
    let mut ids = Vec::new();
    let mut rest = &received[..];
    while !rest.is_empty() {
        let length = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        let answer = proto::ValidateGamesResponse::decode(&rest[5..5 + length]).unwrap();
        ids.push(answer.id);
        rest = &rest[5 + length..];
    }
    eprintln!(
        "slow reader: {} answers, {} bytes in {:?}",
        ids.len(),
        received.len(),
        started.elapsed()
    );
    assert_eq!(ids, (0..GAMES).map(|id| id.to_string()).collect::<Vec<_>>());
    assert!(received.len() > 3 * WINDOW as usize, "answers of {} bytes", received.len());
    connection.abort();
    server.shutdown().await.unwrap();
}
