//! The gRPC service over a real socket on 127.0.0.1: every RPC, every status
//! code with its details, stream order and per-game errors, perft deadlines,
//! load shedding, message size limits and the graceful drain.

use std::time::{Duration, Instant};

use arbiter::proto::rules_service_client::RulesServiceClient;
use arbiter::proto::{self, validate_games_response};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::common::server::{self as test_server, TestServer, details};

/// A Chess960 position where white may castle both ways: king b1, rooks a1
/// and g1.
const CHESS960_FEN: &str = "4k3/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GA - 0 1";

fn game(moves: &[&str]) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest {
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    }
}

/// The answers of a `ValidateGames` stream that sends `requests`, all OK.
async fn stream_answers(
    client: &mut RulesServiceClient<tonic::transport::Channel>,
    requests: Vec<proto::ValidateGamesRequest>,
) -> Vec<proto::ValidateGamesResponse> {
    let answers = client.validate_games(tokio_stream::iter(requests)).await.unwrap();
    answers.into_inner().map(|r| r.unwrap()).collect().await
}

#[tokio::test]
async fn validate_game_answers_move_by_move() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let r = client.validate_game(game(&["e4", "e5", "Ng1-f3"])).await.unwrap().into_inner();
    let sans: Vec<&str> = r.plies.iter().map(|p| p.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3"]);
    assert!(!r.plies[2].canonical_input);
    let position = r.position.unwrap();
    assert_eq!(position.fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    assert_eq!(position.turn, proto::Color::Black as i32);
    assert_eq!(position.legal_moves.len(), 29);
    let outcome = r.outcome.unwrap();
    assert_eq!(outcome.result, proto::GameResult::Ongoing as i32);
    assert_eq!(outcome.pgn_result, "*");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_illegal_move_is_an_answer_not_an_error() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let r =
        client.validate_game(game(&["f3", "e5", "g4", "Qh4#", "e4"])).await.unwrap().into_inner();
    assert_eq!(r.plies.len(), 4);
    assert_eq!(r.plies[3].san, "Qh4#");
    let illegal = r.illegal_move.unwrap();
    assert_eq!((illegal.index, illegal.r#move.as_str()), (4, "e4"));
    assert_eq!(illegal.reason, proto::IllegalMoveReason::GameOver as i32);
    let outcome = r.outcome.unwrap();
    assert_eq!(outcome.termination, proto::Termination::Checkmate as i32);
    assert_eq!(outcome.pgn_result, "0-1");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn dead_positions_flag_falls_verdicts_and_move_claims() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let outcome = |r: &proto::ValidateGameResponse| {
        let o = r.outcome.clone().unwrap();
        (o.result, o.termination, o.unproven)
    };
    // A locked pawn wall, no moves: a drawn, finished game.
    let wall = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1";
    let request = proto::ValidateGameRequest { fen: wall.into(), ..game(&["Kd2"]) };
    let r = client.validate_game(request).await.unwrap().into_inner();
    let draw = proto::GameResult::Draw as i32;
    assert_eq!(outcome(&r), (draw, proto::Termination::DeadPosition as i32, false));
    assert_eq!(r.illegal_move.unwrap().reason, proto::IllegalMoveReason::GameOver as i32);
    assert!(r.position.unwrap().legal_moves.is_empty());

    // White's flag falls with black to move: black can mate, black wins.
    let flagged = |color: proto::Color, fen: &str, moves: &[&str]| proto::ValidateGameRequest {
        fen: fen.into(),
        flagged: color as i32,
        include_winnability: true,
        ..game(moves)
    };
    let r = client.validate_game(flagged(proto::Color::White, "", &["e4"])).await.unwrap();
    let r = r.into_inner();
    let black_wins = proto::GameResult::BlackWins as i32;
    assert_eq!(outcome(&r), (black_wins, proto::Termination::Timeout as i32, false));
    let winnability = r.position.unwrap().winnability.unwrap();
    for verdict in [winnability.white.unwrap(), winnability.black.unwrap()] {
        assert_eq!(verdict.verdict, proto::Verdict::Winnable as i32);
        assert!(!verdict.helpmate.is_empty());
    }
    // Against a bare king: a draw, and the verdicts say why.
    let krk = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let r = client.validate_game(flagged(proto::Color::White, krk, &[])).await.unwrap();
    let r = r.into_inner();
    assert_eq!(outcome(&r), (draw, proto::Termination::TimeoutVsUnwinnable as i32, false));
    let winnability = r.position.unwrap().winnability.unwrap();
    assert_eq!(winnability.black.unwrap().verdict, proto::Verdict::Unwinnable as i32);
    let white = winnability.white.unwrap();
    assert_eq!(white.verdict, proto::Verdict::Winnable as i32);
    assert!(!white.helpmate.is_empty(), "{white:?}");

    // The same flag fall in a stream.
    let (tx, rx) = mpsc::channel(4);
    tx.send(proto::ValidateGamesRequest {
        id: "flag".into(),
        game: Some(flagged(proto::Color::White, krk, &[])),
    })
    .await
    .unwrap();
    drop(tx);
    let mut answers = client.validate_games(ReceiverStream::new(rx)).await.unwrap().into_inner();
    let answer = answers.next().await.unwrap().unwrap();
    let Some(validate_games_response::Result::Game(r)) = answer.result else { panic!() };
    assert_eq!(outcome(&r).1, proto::Termination::TimeoutVsUnwinnable as i32);

    // Knights out and back twice: the move that brings the start position
    // back a third time carries the threefold claim.
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
    let r = client.validate_game(game(&shuffle)).await.unwrap().into_inner();
    let moves = r.position.unwrap().legal_moves;
    let threefold = proto::ClaimableDraw::ThreefoldRepetition as i32;
    let claiming: Vec<&str> =
        moves.iter().filter(|m| m.claimable_draws == [threefold]).map(|m| m.san.as_str()).collect();
    assert_eq!(claiming, ["Ng8"]);

    // A flagged colour the contract does not know.
    let request = proto::ValidateGameRequest { flagged: 99, ..game(&[]) };
    let status = client.validate_game(request).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(details(&status), ("flagged".to_owned(), "UNKNOWN_ENUM_VALUE".to_owned()));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_requests_are_invalid_argument_with_details() {
    let server = TestServer::start(&["--max-moves", "4"]).await;
    let mut client = server.client().await;
    let cases = [
        (
            proto::ValidateGameRequest {
                fen: "8/8/8/8/8/8/8/8 w - - 0 1".into(),
                ..Default::default()
            },
            ("fen", "ILLEGAL_POSITION"),
        ),
        (
            proto::ValidateGameRequest { fen: "not a fen".into(), ..Default::default() },
            ("fen", "INVALID_FEN"),
        ),
        (
            proto::ValidateGameRequest { fen: "x".repeat(200), ..Default::default() },
            ("fen", "FEN_TOO_LONG"),
        ),
        (game(&["e4", "e5", "Nf3", "Nc6", "Bb5"]), ("moves", "TOO_MANY_MOVES")),
        (
            proto::ValidateGameRequest { notation: 99, ..Default::default() },
            ("notation", "UNKNOWN_ENUM_VALUE"),
        ),
        (
            proto::ValidateGameRequest { variant: 99, ..Default::default() },
            ("variant", "UNKNOWN_ENUM_VALUE"),
        ),
        (
            proto::ValidateGameRequest {
                variant: proto::Variant::Chess960 as i32,
                chess960_position: Some(960),
                ..Default::default()
            },
            ("chess960_position", "START_POSITION_OUT_OF_RANGE"),
        ),
        (
            // Said to be standard chess: a Chess960 number contradicts it.
            proto::ValidateGameRequest {
                variant: proto::Variant::Standard as i32,
                chess960_position: Some(3),
                ..Default::default()
            },
            ("chess960_position", "CONFLICTING_FIELDS"),
        ),
        (
            proto::ValidateGameRequest {
                variant: proto::Variant::Chess960 as i32,
                chess960_position: Some(3),
                fen: CHESS960_FEN.into(),
                ..Default::default()
            },
            ("chess960_position", "CONFLICTING_FIELDS"),
        ),
        (
            proto::ValidateGameRequest {
                variant: proto::Variant::Chess960 as i32,
                fen: "4k3/8/8/8/8/8/8/RK6 w G - 0 1".into(),
                ..Default::default()
            },
            ("fen", "ILLEGAL_POSITION"),
        ),
        (
            // Standard chess still refuses Chess960 castling rights.
            proto::ValidateGameRequest { fen: CHESS960_FEN.into(), ..Default::default() },
            ("fen", "ILLEGAL_POSITION"),
        ),
    ];
    for (request, (field, reason)) in cases {
        let status = client.validate_game(request).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert_eq!(details(&status), (field.to_owned(), reason.to_owned()));
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn oversized_messages_are_refused() {
    let server = TestServer::start(&["--max-message-bytes", "2048"]).await;
    let mut client = server.client().await;
    let moves = vec!["e4".to_owned(); 1000];
    let status = client
        .validate_game(proto::ValidateGameRequest { moves, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    // In a stream too.
    let request = proto::ValidateGamesRequest {
        id: "big".into(),
        game: Some(proto::ValidateGameRequest {
            moves: vec!["e4".to_owned(); 1000],
            ..Default::default()
        }),
    };
    let mut stream =
        client.validate_games(tokio_stream::iter([request])).await.unwrap().into_inner();
    let status = stream.next().await.unwrap().unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn validate_games_keeps_order_and_reports_per_game_errors() {
    let server = TestServer::start(&["--stream-games-in-flight", "4"]).await;
    let mut client = server.client().await;
    let mut requests: Vec<proto::ValidateGamesRequest> = (0..200)
        .map(|i| proto::ValidateGamesRequest {
            id: format!("g{i}"),
            game: Some(game(&["e4", "e5", "Nf3", "Nc6"][..(i % 5)])),
        })
        .collect();
    requests[7].game.as_mut().unwrap().fen = "8/8/8/8/8/8/8/8 w - - 0 1".into();
    requests[9].game = None;
    let responses = stream_answers(&mut client, requests).await;
    assert_eq!(responses.len(), 200);
    for (i, r) in responses.iter().enumerate() {
        assert_eq!(r.id, format!("g{i}"));
        match r.result.as_ref().unwrap() {
            validate_games_response::Result::Game(g) if i != 7 && i != 9 => {
                assert_eq!(g.plies.len(), i % 5)
            }
            validate_games_response::Result::Error(e) if i == 7 => {
                assert_eq!(
                    (e.code.as_str(), e.reason.as_str(), e.field.as_str()),
                    ("INVALID_ARGUMENT", "ILLEGAL_POSITION", "game.fen")
                );
            }
            validate_games_response::Result::Error(e) if i == 9 => assert_eq!(e.field, "game"),
            other => panic!("{i}: {other:?}"),
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn legal_moves_from_one_square() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let r = client
        .legal_moves(proto::LegalMovesRequest {
            moves: vec!["e4".into(), "e5".into()],
            from_square: "g1".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut sans: Vec<String> =
        r.position.unwrap().legal_moves.into_iter().map(|m| m.san).collect();
    sans.sort();
    assert_eq!(sans, ["Ne2", "Nf3", "Nh3"]);
    let status = client
        .legal_moves(proto::LegalMovesRequest { from_square: "z9".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(details(&status), ("from_square".to_owned(), "INVALID_SQUARE".to_owned()));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn perft_counts_divides_and_respects_limits() {
    let server = TestServer::start(&["--max-perft-depth", "6"]).await;
    let mut client = server.client().await;
    let r = client
        .perft(proto::PerftRequest { depth: 3, divide: true, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.nodes, 8_902);
    assert_eq!(r.divide.len(), 20);
    assert_eq!(r.divide.iter().map(|d| d.nodes).sum::<u64>(), 8_902);
    let status =
        client.perft(proto::PerftRequest { depth: 7, ..Default::default() }).await.unwrap_err();
    assert_eq!(details(&status), ("depth".to_owned(), "DEPTH_TOO_LARGE".to_owned()));
    server.shutdown().await.unwrap();
}

/// A Chess960 game through every RPC: X-FEN and Shredder-FEN in and out,
/// start positions by number, castling read as SAN, king takes rook and
/// the king's step, written as king takes rook.
#[tokio::test]
async fn chess960_through_every_rpc() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let chess960 = proto::Variant::Chess960 as i32;
    let request = proto::ValidateGameRequest {
        fen: CHESS960_FEN.into(),
        moves: vec!["O-O".into(), "e5".into(), "Rf1e1".into()],
        variant: chess960,
        include_fens: true,
        ..Default::default()
    };
    let r = client.validate_game(request.clone()).await.unwrap().into_inner();
    assert!(r.illegal_move.is_none(), "{:?}", r.illegal_move);
    assert_eq!((r.plies[0].san.as_str(), r.plies[0].uci.as_str()), ("O-O", "b1g1"));
    assert_eq!(r.plies[0].fen_after, "4k3/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b - - 1 1");
    // Black keeps no rights; white's a1 rook lost its with the king move.
    let position = r.position.unwrap();
    assert_eq!(position.fen, "4k3/pppp1ppp/8/4p3/8/8/PPPPPPPP/R3R1K1 b - - 1 2");
    // Shredder-FEN out, and castling queen-side as king takes rook.
    let shredder = proto::ValidateGameRequest {
        moves: vec!["b1a1".into()],
        shredder_fen: true,
        ..request.clone()
    };
    let r = client.validate_game(shredder).await.unwrap().into_inner();
    assert_eq!((r.plies[0].san.as_str(), r.plies[0].uci.as_str()), ("O-O-O", "b1a1"));
    assert!(r.plies[0].canonical_input);
    let before =
        proto::ValidateGameRequest { moves: vec![], shredder_fen: true, ..request.clone() };
    let r = client.validate_game(before).await.unwrap().into_inner();
    let position = r.position.unwrap();
    assert_eq!(position.fen, "4k3/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GA - 0 1");
    let ucis: Vec<&str> = position.legal_moves.iter().map(|m| m.uci.as_str()).collect();
    assert!(ucis.contains(&"b1g1") && ucis.contains(&"b1a1"), "{ucis:?}");
    // Through check: the c8 rook would attack the king on c1.
    let through = proto::ValidateGameRequest {
        fen: "2r1k3/8/8/8/8/8/8/RK4R1 w GA - 0 1".into(),
        moves: vec!["O-O-O".into()],
        ..request.clone()
    };
    let r = client.validate_game(through).await.unwrap().into_inner();
    let illegal = r.illegal_move.unwrap();
    assert_eq!(illegal.reason, proto::IllegalMoveReason::CastlingIntoCheck as i32);

    // A start position by number, in a stream; with the variant unsaid,
    // the number makes it Chess960, as on the command line and in the wheel.
    let games = vec![
        proto::ValidateGamesRequest {
            id: "518".into(),
            game: Some(proto::ValidateGameRequest {
                variant: chess960,
                chess960_position: Some(518),
                moves: vec!["e4".into()],
                ..Default::default()
            }),
        },
        proto::ValidateGamesRequest {
            id: "0".into(),
            game: Some(proto::ValidateGameRequest {
                chess960_position: Some(0),
                moves: vec!["O-O".into()],
                ..Default::default()
            }),
        },
        proto::ValidateGamesRequest { id: "x".into(), game: Some(request.clone()) },
    ];
    let responses: Vec<proto::ValidateGamesResponse> = client
        .validate_games(tokio_stream::iter(games))
        .await
        .unwrap()
        .into_inner()
        .map(|r| r.unwrap())
        .collect()
        .await;
    let fens: Vec<String> = responses
        .iter()
        .map(|r| match r.result.as_ref().unwrap() {
            validate_games_response::Result::Game(g) => g.position.as_ref().unwrap().fen.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(fens[0], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    // Position 0 (bbqnnrkr): O-O, the first move, is illegal there.
    let legal = |i: usize| match responses[i].result.as_ref().unwrap() {
        validate_games_response::Result::Game(g) => g.illegal_move.is_none(),
        other => panic!("{other:?}"),
    };
    assert_eq!(fens[1], "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    assert!(!legal(1));
    assert_eq!(fens[2], "4k3/pppp1ppp/8/4p3/8/8/PPPPPPPP/R3R1K1 b - - 1 2");

    // Legal moves of the king, castling as king takes rook.
    let r = client
        .legal_moves(proto::LegalMovesRequest {
            fen: CHESS960_FEN.into(),
            variant: chess960,
            from_square: "b1".into(),
            shredder_fen: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let position = r.position.unwrap();
    assert_eq!(position.fen, "4k3/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GA - 0 1");
    let mut moves: Vec<(String, String)> =
        position.legal_moves.into_iter().map(|m| (m.uci, m.san)).collect();
    moves.sort();
    let expected = [("b1a1", "O-O-O"), ("b1c1", "Kc1"), ("b1g1", "O-O")];
    assert_eq!(moves, expected.map(|(u, s)| (u.to_owned(), s.to_owned())));

    // Perft from start position 0 (bbqnnrkr), and a divide that castles.
    let r = client
        .perft(proto::PerftRequest {
            depth: 3,
            variant: chess960,
            chess960_position: Some(0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        r.nodes,
        shakmaty_perft("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", 3)
    );
    let r = client
        .perft(proto::PerftRequest {
            fen: CHESS960_FEN.into(),
            depth: 1,
            divide: true,
            variant: chess960,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(r.divide.iter().any(|d| d.uci == "b1g1") && r.divide.iter().any(|d| d.uci == "b1a1"));
    let status = client
        .perft(proto::PerftRequest {
            depth: 1,
            variant: chess960,
            chess960_position: Some(1000),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        details(&status),
        ("chess960_position".to_owned(), "START_POSITION_OUT_OF_RANGE".to_owned())
    );
    server.shutdown().await.unwrap();
}

fn shakmaty_perft(fen: &str, depth: u32) -> u64 {
    use shakmaty::fen::Fen;
    let pos: shakmaty::Chess = Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_position(shakmaty::CastlingMode::Chess960)
        .unwrap();
    shakmaty::perft(&pos, depth)
}

#[tokio::test]
async fn perft_stops_when_the_deadline_passes() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    // perft(6) of Kiwipete is eight billion nodes: it cannot finish in time.
    let mut request =
        Request::new(proto::PerftRequest { fen: kiwipete.into(), depth: 6, ..Default::default() });
    request.metadata_mut().insert("grpc-timeout", "1S".parse().unwrap());
    let started = Instant::now();
    let status = client.perft(request).await.unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "stopped after {:?}", started.elapsed());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn over_the_concurrency_limit_calls_are_shed_at_once() {
    let server = TestServer::start(&["--max-concurrency", "1"]).await;
    let mut client = server.client().await;
    // An open stream holds the only slot for as long as it is open.
    let (tx, mut stream) = test_server::hold_a_slot(&mut client).await;
    let status = client.validate_game(game(&["e4"])).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    drop(tx);
    assert!(stream.next().await.is_none());
    // The slot is free again once the stream has ended.
    let mut ok = false;
    for _ in 0..50 {
        if client.validate_game(game(&["e4"])).await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok, "the slot was never released");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_reports_serving_for_the_server_and_the_service() {
    let server = TestServer::start(&[]).await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "arbiter.v1.RulesService"] {
        let r = health
            .check(HealthCheckRequest { service: service.into() })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{service:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn drain_flips_health_first_finishes_in_flight_calls_then_cuts_off() {
    let mut server = TestServer::start(&["--drain", "1s"]).await;
    let channel = server.channel().await;
    let mut health = HealthClient::new(channel.clone());
    let mut watch = health
        .watch(HealthCheckRequest { service: "arbiter.v1.RulesService".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(watch.next().await.unwrap().unwrap().status, ServingStatus::Serving as i32);
    // An in-flight stream.
    let mut client = RulesServiceClient::new(channel);
    let (tx, rx) = mpsc::channel(4);
    let mut stream = client.validate_games(ReceiverStream::new(rx)).await.unwrap().into_inner();
    tx.send(proto::ValidateGamesRequest { id: "before".into(), game: Some(game(&["e4"])) })
        .await
        .unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap().id, "before");

    let addr = server.addr;
    let started = Instant::now();
    server.begin_shutdown();
    // Health turns NOT_SERVING first.
    assert_eq!(watch.next().await.unwrap().unwrap().status, ServingStatus::NotServing as i32);
    // The call in flight still gets its answers.
    tx.send(proto::ValidateGamesRequest { id: "during".into(), game: Some(game(&["d4"])) })
        .await
        .unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap().id, "during");
    drop(tx);
    // The open health watch would hold the server forever: the drain cuts it off.
    server.shutdown().await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    // Nobody listens any more.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn grpc_web_over_http1() {
    use prost::Message;
    let server = TestServer::start(&[]).await;
    let message = proto::PerftRequest { depth: 2, ..Default::default() }.encode_to_vec();
    let response = server.grpc_web_call("Perft", &message).await;
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("grpc-status:0"), "{text}");
    // The data frame holds PerftResponse { nodes: 400 }.
    let expected = proto::PerftResponse { nodes: 400, divide: vec![] }.encode_to_vec();
    assert!(response.windows(expected.len()).any(|w| w == expected.as_slice()));
    server.shutdown().await.unwrap();
}

/// A string field holding invalid UTF-8 is the caller's fault.
#[tokio::test]
async fn malformed_messages_are_invalid_argument_not_internal() {
    let server = TestServer::start(&[]).await;
    // Field 2 (moves), length-delimited, two bytes that are not UTF-8.
    let response = server.grpc_web_call("ValidateGame", &[0x12, 0x02, 0xff, 0xfe]).await;
    let text = String::from_utf8_lossy(&response);
    // Trailers-only answer: the status is in the HTTP headers.
    assert!(text.contains("grpc-status: 3"), "{text}");
    assert!(text.contains("malformed%20request%20message"), "{text}");
    assert!(text.contains("grpc-status-details-bin"), "{text}");
    server.shutdown().await.unwrap();
}

/// A client that sends games without reading the answers is slowed down:
/// the server reads only a bounded number of games ahead of what it could
/// deliver, instead of buffering the whole stream.
#[tokio::test]
async fn validate_games_applies_back_pressure() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let server = TestServer::start(&["--stream-games-in-flight", "2"]).await;
    let mut client = server.client().await;
    // One long legal game whose answer, with a FEN per ply, is large.
    let mut game_state = arbiter_chess::Game::new(Default::default());
    let mut moves = Vec::new();
    while moves.len() < 150 && !game_state.is_over() {
        let legal = game_state.position().legal_moves();
        let Some(&m) = legal.get(moves.len() * 7 % legal.len().max(1)) else { break };
        moves.push(game_state.play(m).to_string());
    }
    // More than the HTTP/2 windows (about 1 MiB each way) can hold.
    let total = 5000;
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&pulled);
    let requests = tokio_stream::iter(0..total).map(move |i| {
        counter.fetch_add(1, Ordering::SeqCst);
        proto::ValidateGamesRequest {
            id: i.to_string(),
            game: Some(proto::ValidateGameRequest {
                moves: moves.clone(),
                include_fens: true,
                ..Default::default()
            }),
        }
    });
    let mut responses = client.validate_games(requests).await.unwrap().into_inner();
    // Read nothing for a while: the sender must stall far short of the end.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled_at = pulled.load(Ordering::SeqCst);
    eprintln!("sender stalled after {stalled_at} of {total} games");
    assert!(stalled_at < total / 2, "the client could send {stalled_at} of {total} games unread");
    // Reading lets everything through, in order.
    let mut next = 0;
    while let Some(response) = responses.next().await {
        assert_eq!(response.unwrap().id, next.to_string());
        next += 1;
    }
    assert_eq!(next, total);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_live_game_gets_the_same_answers_with_and_without_the_cache() {
    let cached = TestServer::start(&[]).await;
    let uncached = TestServer::start(&["--cache-bytes", "0"]).await;
    let (mut with_cache, mut without) = (cached.client().await, uncached.client().await);
    let moves = [
        "e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3",
        "Be6", "f3", "Be7", "Qd2", "O-O", "O-O-O", "Nbd7", "g4", "b5", "g5", "b4", "Ne2", "Ne8",
    ];
    for len in 1..=moves.len() {
        let mut request = game(&moves[..len]);
        request.plies_from = u32::try_from(len - 1).unwrap();
        let a = with_cache.validate_game(request.clone()).await.unwrap().into_inner();
        let b = without.validate_game(request).await.unwrap().into_inner();
        assert_eq!(a, b, "{len} plies");
        assert_eq!(a.plies.len(), 1);
        assert_eq!(a.plies[0].san, moves[len - 1]);
    }
    cached.shutdown().await.unwrap();
    uncached.shutdown().await.unwrap();
}

/// A long stream of games of every size, some with a FEN per ply (answers
/// from about a hundred bytes to several KiB): every answer arrives whole
/// and in order, as the rules core gives it in process, whatever the
/// server's blocks of answers and their frames.
#[tokio::test]
async fn a_long_stream_answers_every_game_as_the_rules_core_does() {
    use arbiter_chess::{Game, ReplayOptions, replay};
    let server = TestServer::start(&["--cache-bytes", "0"]).await;
    let mut client = server.client().await;
    let games: Vec<proto::ValidateGameRequest> = (0..400usize)
        .map(|i| {
            let mut state = Game::new(Default::default());
            let mut moves = Vec::new();
            while moves.len() < i % 121 && !state.is_over() {
                let legal = state.position().legal_moves();
                let m = legal[(i * 7 + moves.len() * 13) % legal.len()];
                moves.push(state.play(m).to_string());
            }
            proto::ValidateGameRequest { moves, include_fens: i % 3 == 0, ..Default::default() }
        })
        .collect();
    let requests: Vec<proto::ValidateGamesRequest> = games
        .iter()
        .enumerate()
        .map(|(i, game)| proto::ValidateGamesRequest {
            id: i.to_string(),
            game: Some(game.clone()),
        })
        .collect();
    let responses = stream_answers(&mut client, requests).await;
    assert_eq!(responses.len(), games.len());
    let mut bytes = 0;
    for (i, (response, game)) in responses.iter().zip(&games).enumerate() {
        assert_eq!(response.id, i.to_string());
        let options = ReplayOptions { include_fens: game.include_fens, ..Default::default() };
        let expected = proto::ValidateGameResponse::from(&replay(
            arbiter_chess::Position::default(),
            &game.moves,
            &options,
        ));
        match response.result.as_ref().unwrap() {
            validate_games_response::Result::Game(answer) => {
                assert_eq!(answer, &expected, "game {i}");
                bytes += prost::Message::encoded_len(answer);
            }
            other => panic!("{i}: {other:?}"),
        }
    }
    // Many blocks of answers, each longer than the longest frame.
    assert!(bytes > 16 * 16384, "{bytes} bytes of answers");
    server.shutdown().await.unwrap();
}
