//! Overload over a real socket: a burst far over `--max-unary-calls` of
//! calls answered inline is shed with RESOURCE_EXHAUSTED rather than queued,
//! every call that is admitted gets the right answer, health and reflection
//! keep answering while the budgets are spent, and open streams do not take
//! the unary budget.

use arbiter::api::Limits;
use arbiter::api::convert::GameRequest;
use arbiter::proto::{self, ValidateGameRequest, ValidateGameResponse, validate_pgn_response};
use arbiter_chess::GamePosition;
use arbiter_chess::{Game, Position, replay, replay_clocked};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
use tonic_reflection::pb::v1::{ServerReflectionRequest, ServerReflectionResponse};

use crate::common::server::{self as test_server, TestServer};

/// Calls in the burst, and the budget they meet.
const BURST: usize = 3_000;
const MAX_UNARY_CALLS: &str = "4";

/// A seeded random game of up to `plies` plies (shorter if it ends), in
/// SAN: long enough that every call replays a real game.
fn random_game(rng: &mut SmallRng, plies: usize) -> Vec<String> {
    let mut game = Game::new(Position::default());
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies && !game.is_over() {
        let legal = game.position().legal_moves();
        moves.push(game.play(legal[rng.random_range(0..legal.len())]).to_string());
    }
    moves
}

/// What the server must answer to `request`, from the rules core in process.
fn expected(request: &ValidateGameRequest) -> ValidateGameResponse {
    let GameRequest { start, moves, options, clock, ply_clocks: _, analysis: _ } =
        GameRequest::from_proto(request.clone().into(), "", &Limits::default()).unwrap();
    let GamePosition::Chess(start) = start else {
        panic!("the overload test plays standard chess")
    };
    let replayed = match clock {
        Some(record) => replay_clocked(start, &moves.tail(0), &options, &record),
        None => replay(start, &moves.tail(0), &options),
    };
    ValidateGameResponse::from(&replayed)
}

async fn health_status(channel: Channel) -> ServingStatus {
    let request = HealthCheckRequest { service: "arbiter.v1.RulesService".into() };
    let answer = HealthClient::new(channel).check(request).await.expect("health answers");
    ServingStatus::try_from(answer.into_inner().status).unwrap()
}

/// The services the server lists through reflection v1.
async fn reflected_services(channel: Channel) -> Vec<String> {
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::once(request))
        .await
        .expect("reflection answers")
        .into_inner();
    let answer: ServerReflectionResponse = answers.next().await.unwrap().unwrap();
    match answer.message_response {
        Some(MessageResponse::ListServicesResponse(list)) => {
            list.service.into_iter().map(|s| s.name).collect()
        }
        other => panic!("not a service list: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_over_the_budget_is_shed_and_every_admitted_call_is_right() {
    // No cache: every call replays its whole game. Enough streams per
    // connection that the burst reaches the server instead of queueing in
    // the client.
    let server = TestServer::start(&[
        "--max-unary-calls",
        MAX_UNARY_CALLS,
        "--cache-bytes",
        "0",
        "--max-streams-per-connection",
        "4096",
    ])
    .await;
    let mut rng = SmallRng::seed_from_u64(8);
    let games: Vec<(ValidateGameRequest, ValidateGameResponse)> = (0..16)
        .map(|_| {
            let request =
                ValidateGameRequest { moves: random_game(&mut rng, 200), ..Default::default() };
            let answer = expected(&request);
            (request, answer)
        })
        .collect();
    let mut connections = Vec::new();
    for _ in 0..4 {
        connections.push(server.client().await);
    }
    let burst: Vec<_> = (0..BURST)
        .map(|i| {
            let mut client = connections[i % connections.len()].clone();
            let (request, answer) = games[i % games.len()].clone();
            tokio::spawn(async move {
                match client.validate_game(request).await {
                    Ok(reply) => {
                        assert_eq!(reply.into_inner(), answer, "call {i}");
                        Code::Ok
                    }
                    Err(status) => {
                        assert_eq!(status.code(), Code::ResourceExhausted, "call {i}: {status:?}");
                        assert!(
                            status.message().contains("busy")
                                && status.message().contains("retry with backoff"),
                            "{status:?}"
                        );
                        Code::ResourceExhausted
                    }
                }
            })
        })
        .collect();
    // Health and reflection are answered while the burst is in flight, on a
    // connection of their own.
    let probe = server.channel().await;
    assert_eq!(health_status(probe.clone()).await, ServingStatus::Serving);
    assert!(reflected_services(probe.clone()).await.iter().any(|s| s == "arbiter.v1.RulesService"));
    let (mut answered, mut shed) = (0, 0);
    for call in burst {
        match call.await.expect("call task") {
            Code::Ok => answered += 1,
            _ => shed += 1,
        }
    }
    assert!(answered > 0 && shed > 0, "{answered} answered, {shed} shed");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_and_reflection_are_answered_when_the_budget_is_spent() {
    let server = TestServer::start(&["--max-concurrency", "1"]).await;
    let mut client = server.client().await;
    let (games, _verdicts) = test_server::hold_a_slot(&mut client).await;
    let game = ValidateGameRequest { moves: vec!["e4".into()], ..Default::default() };
    let status = client.validate_game(game).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");

    let probe = server.channel().await;
    assert_eq!(health_status(probe.clone()).await, ServingStatus::Serving);
    assert!(reflected_services(probe).await.iter().any(|s| s == "grpc.health.v1.Health"));
    drop(games);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn open_streams_leave_the_unary_budget_to_unary_calls() {
    let server = TestServer::start(&["--max-unary-calls", "1"]).await;
    let mut client = server.client().await;
    let held =
        [test_server::hold_a_slot(&mut client).await, test_server::hold_a_slot(&mut client).await];
    let game = ValidateGameRequest { moves: vec!["e4".into()], ..Default::default() };
    let answer = client.validate_game(game).await.unwrap().into_inner();
    assert_eq!(answer.plies[0].san, "e4");
    drop(held);
    server.shutdown().await.unwrap();
}

/// A short game that ends in a blocked pawn structure whose full
/// dead-position look runs to its budget (about a second, two colours'
/// searches left undecided): the start has too many pawn moves for the
/// wide gate, so nothing but the final position asks for the look.
const LONG_LOOK_START: &str = "8/1p2B1B1/2pB1B1p/kPP5/p7/8/P1P2K2/8 w - - 0 1";
const LONG_LOOK_MOVES: [&str; 12] =
    ["Bxh6", "Kb4", "Bhg7", "Ka5", "b6", "Ka6", "a3", "Ka5", "c3", "Ka6", "c4", "Ka5"];

/// The final position's look runs on the blocking pool: on a runtime of
/// one thread, which serves the server and this test, health keeps being
/// answered while the game's call waits for its look, for `ValidateGame`
/// (through the replay cache and without it) and for `ValidatePgn`. On the
/// async worker, the look would hold the only thread until it ended.
#[tokio::test]
async fn a_long_final_look_leaves_the_async_worker_free() {
    let start: Position = LONG_LOOK_START.parse().unwrap();
    assert!(!arbiter_chess::worth_a_full_look(&start), "the start must not ask for the look");
    let pgn = long_look_pgn();
    let game = arbiter_pgn::parse_game(pgn.clone().into_bytes());
    assert!(!arbiter_pgn::may_analyse_fully(&game), "the PGN game must not ask for the look");
    for (call, flags) in [
        ("ValidateGame", &[][..]),
        ("ValidateGame", &["--cache-bytes", "0"][..]),
        ("ValidatePgn", &[][..]),
    ] {
        let server = TestServer::start(flags).await;
        let mut client = server.client().await;
        let request = ValidateGameRequest {
            fen: LONG_LOOK_START.into(),
            moves: LONG_LOOK_MOVES.map(str::to_owned).to_vec(),
            skip_legal_moves: true,
            ..Default::default()
        };
        let expected = expected(&request);
        let chunk =
            proto::ValidatePgnRequest { chunk: pgn.clone().into_bytes(), include_analysis: false };
        let game = tokio::spawn(async move {
            if call == "ValidatePgn" {
                let answers = client.validate_pgn(tokio_stream::iter([chunk])).await.unwrap();
                let answers: Vec<_> = answers.into_inner().collect().await;
                let [Ok(answer)] = &answers[..] else { panic!("one game: {answers:?}") };
                let Some(validate_pgn_response::Result::Verdict(verdict)) = &answer.result else {
                    panic!("no verdict: {answer:?}")
                };
                assert_eq!(verdict.plies as usize, LONG_LOOK_MOVES.len());
                let fen =
                    |position: &Option<proto::Position>| position.as_ref().unwrap().fen.clone();
                assert_eq!(fen(&verdict.position), fen(&expected.position));
                assert_eq!(verdict.outcome, expected.outcome);
            } else {
                let answer = client.validate_game(request).await.expect("the game is answered");
                assert_eq!(answer.into_inner(), expected);
            }
        });
        let channel = server.channel().await;
        let mut answered = 0;
        while !game.is_finished() {
            assert_eq!(health_status(channel.clone()).await, ServingStatus::Serving);
            answered += 1;
        }
        game.await.unwrap();
        // A look of about a second leaves room for many health checks;
        // one held by it, for none but the few before it started.
        assert!(answered >= 20, "{call} {flags:?}: {answered} health answers during the look");
        server.shutdown().await.unwrap();
    }
}

/// The long-look game as PGN.
fn long_look_pgn() -> String {
    let mut text = format!("[SetUp \"1\"]\n[FEN \"{LONG_LOOK_START}\"]\n\n");
    for (ply, mv) in LONG_LOOK_MOVES.iter().enumerate() {
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(mv);
        text.push(' ');
    }
    text.push_str("*\n");
    text
}
