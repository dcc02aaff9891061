//! Rulings on completed illegal moves over a real socket on 127.0.0.1
//! (`illegal_moves`, FIDE 7.5.5 and the Laws of 2009, 7.4(b)). Every
//! expected figure is worked out here from the rules as docs/rules.md
//! states them: the count, the time added (60 s in rapid and blitz under
//! the Laws of 2023, else 120 s), the game lost at the count or drawn
//! when the opponent cannot mate, an illegal move's time charged to its
//! mover with no increment. Also: `ValidateGames`, a variant, the answers
//! of STOP unchanged, and bad requests.

use arbiter::proto::{self, validate_games_response};
use prost_types::Duration;
use tokio_stream::StreamExt;
use tonic::Code;

use crate::common::server::TestServer;

fn secs(s: i64) -> Option<Duration> {
    Some(Duration { seconds: s, nanos: 0 })
}

fn request(fen: &str, moves: &[&str], rules: proto::IllegalMoves) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest {
        fen: fen.into(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        illegal_moves: rules as i32,
        skip_legal_moves: true,
        ..Default::default()
    }
}

fn clocked(
    mut request: proto::ValidateGameRequest,
    tag: &str,
    secs: &[i64],
) -> proto::ValidateGameRequest {
    request.clock = Some(proto::GameClock {
        time_control: Some(proto::TimeControl { tag: tag.into(), ..Default::default() }),
        move_times: secs.iter().map(|&s| Duration { seconds: s, nanos: 0 }).collect(),
        ..Default::default()
    });
    request
}

/// (index, side, count, action, time added) of each ruling.
type Row = (u32, proto::Color, u32, proto::RulingAction, Option<Duration>);

fn rulings(r: &proto::ValidateGameResponse) -> Vec<Row> {
    r.rulings
        .iter()
        .map(|ruling| {
            (ruling.index, ruling.side(), ruling.count, ruling.action(), ruling.time_added)
        })
        .collect()
}

fn sans(r: &proto::ValidateGameResponse) -> Vec<&str> {
    r.plies.iter().map(|ply| ply.san.as_str()).collect()
}

fn ending(r: &proto::ValidateGameResponse) -> (proto::GameResult, proto::Termination) {
    let outcome = r.outcome.as_ref().unwrap();
    (outcome.result(), outcome.termination())
}

use proto::Color::{Black, White};
use proto::IllegalMoves::{Fide, Fide2009, Stop};
use proto::RulingAction::{GameDrawn, GameLost, TimeAdded};

/// White tries the king to e3 twice; the list goes on after.
const TWICE: [&str; 7] = ["e4", "e5", "Ke3", "Nf3", "Nc6", "Ke1e3", "Nf6"];

#[tokio::test]
async fn the_laws_of_2023_and_2009_rule_as_stated() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;

    // 2023: the second loses. No clock: two minutes. Black can mate.
    let r = client.validate_game(request("", &TWICE, Fide)).await.unwrap().into_inner();
    assert_eq!(sans(&r), ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(rulings(&r), [(2, White, 1, TimeAdded, secs(120)), (5, White, 2, GameLost, None)]);
    assert_eq!(ending(&r), (proto::GameResult::BlackWins, proto::Termination::IllegalMoves));
    let after = r.illegal_move.as_ref().unwrap();
    assert_eq!((after.index, after.reason()), (6, proto::IllegalMoveReason::GameOver));
    assert_eq!(r.rulings[0].reason(), proto::IllegalMoveReason::NoPiece);
    assert_eq!(r.rulings[0].message, "no white king can move to e3");

    // 2009: the third loses, and White's "Nf6" (no white knight reaches
    // f6) is that third one: it replaced the move taken back.
    let r = client.validate_game(request("", &TWICE, Fide2009)).await.unwrap().into_inner();
    assert_eq!(
        rulings(&r),
        [
            (2, White, 1, TimeAdded, secs(120)),
            (5, White, 2, TimeAdded, secs(120)),
            (6, White, 3, GameLost, None)
        ]
    );
    assert!(r.illegal_move.is_none());
    assert_eq!(ending(&r).0, proto::GameResult::BlackWins);

    // In UCI, on a blitz clock (180+2: one minute added). Times in s:
    // White 180 - 1 + 2 = 181; Black 180 - 2 + 2 = 180; White's illegal
    // move 3 s, no increment: 178, Black + 60 = 240; White 178 - 4 + 2 =
    // 176; Black 240 - 5 + 2 = 237; White's second illegal move 6 s: 170.
    let uci = ["e2e4", "e7e5", "e1e3", "g1f3", "b8c6", "e1e3"];
    let r = client
        .validate_game(clocked(request("", &uci, Fide), "180+2", &[1, 2, 3, 4, 5, 6]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rulings(&r), [(2, White, 1, TimeAdded, secs(60)), (5, White, 2, GameLost, None)]);
    let clocks: Vec<_> = r.plies.iter().map(|ply| ply.clock.unwrap().seconds).collect();
    assert_eq!(clocks, [181, 180, 176, 237]);
    let end = r.position.as_ref().unwrap().clocks.unwrap();
    assert_eq!((end.white, end.black), (secs(170), secs(237)));
    assert!(r.illegal_move.is_none());

    // Classical (90 minutes + 30 s: 5400 + 60 × 30 > 3599): two minutes.
    let r = client
        .validate_game(clocked(request("", &uci[..3], Fide), "5400+30", &[10, 20, 30]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rulings(&r), [(2, White, 1, TimeAdded, secs(120))]);
    // White 5400 - 10 + 30 - 30 (the illegal move); Black 5400 - 20 + 30
    // + 120. White to move, with no time used on it.
    let end = r.position.as_ref().unwrap().clocks.unwrap();
    assert_eq!((end.white, end.black), (secs(5390), secs(5530)));
    assert_eq!(ending(&r).0, proto::GameResult::Ongoing);

    // The illegal move itself took longer than White had: the flag fell
    // first, and Black, who can mate, wins on time.
    let r = client
        .validate_game(clocked(request("", &uci[..3], Fide), "60", &[10, 20, 51]))
        .await
        .unwrap()
        .into_inner();
    assert!(r.rulings.is_empty());
    assert_eq!(ending(&r), (proto::GameResult::BlackWins, proto::Termination::Timeout));
    let bad = r.illegal_move.unwrap();
    assert_eq!((bad.index, bad.reason()), (2, proto::IllegalMoveReason::FlagFell));
}

#[tokio::test]
async fn the_count_against_an_opponent_who_cannot_mate_is_a_draw() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    // White: king and rook. Black: a bare king, who cannot mate.
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let moves = ["Ke1e3", "Ra8+", "Kd7", "Ke1e3", "Ke7e5"];
    let r = client.validate_game(request(fen, &moves, Fide)).await.unwrap().into_inner();
    assert_eq!(rulings(&r), [(0, White, 1, TimeAdded, secs(120)), (3, White, 2, GameDrawn, None)]);
    assert_eq!(ending(&r), (proto::GameResult::Draw, proto::Termination::IllegalMovesVsUnwinnable));
    assert_eq!(r.illegal_move.as_ref().unwrap().index, 4);
    assert_eq!(r.illegal_move.unwrap().message, "the game is over (illegal moves vs unwinnable)");
    // The bare king's own two fouls lose: White can mate.
    let moves = ["Kd2", "Ke8e6", "Kd7", "Kd3", "Kd7d5"];
    let r = client.validate_game(request(fen, &moves, Fide)).await.unwrap().into_inner();
    assert_eq!(rulings(&r)[1], (4, Black, 2, GameLost, None));
    assert_eq!(ending(&r), (proto::GameResult::WhiteWins, proto::Termination::IllegalMoves));
    assert!(!r.outcome.unwrap().unproven);
}

#[tokio::test]
async fn stop_answers_as_before_and_bad_requests_are_named() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let default = client.validate_game(request("", &TWICE, Stop)).await.unwrap().into_inner();
    let mut unspecified = request("", &TWICE, Stop);
    unspecified.illegal_moves = 0;
    let same = client.validate_game(unspecified).await.unwrap().into_inner();
    assert_eq!(default, same);
    assert!(default.rulings.is_empty());
    assert_eq!(default.illegal_move.unwrap().index, 2);

    // Text that reads as no move still stops a ruled game.
    let r = client
        .validate_game(request("", &["e4", "Ke3", "hello", "e5"], Fide))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rulings(&r), [(1, Black, 1, TimeAdded, secs(120))]);
    let bad = r.illegal_move.unwrap();
    assert_eq!((bad.index, bad.reason()), (2, proto::IllegalMoveReason::Unparseable));

    let mut unknown = request("", &TWICE, Fide);
    unknown.illegal_moves = 9;
    let status = client.validate_game(unknown).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("illegal_moves"), "{}", status.message());

    // One time for each sent move, illegal ones included.
    let short = clocked(request("", &TWICE, Fide), "180+2", &[1, 2, 3, 4, 5, 6]);
    let status = client.validate_game(short).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("6 move times for 7 moves"), "{}", status.message());
}

#[tokio::test]
async fn streams_and_variants_are_ruled_too() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    // Crazyhouse: a knight dropped from an empty pocket is a completed
    // illegal move; Black's second foul loses.
    let mut zh = request("", &["e4", "N@f6", "e5", "Nf3", "Q@e4"], Fide);
    zh.variant = proto::Variant::Crazyhouse as i32;
    let games = [("chess", request("", &TWICE, Fide)), ("zh", zh)];
    let requests = games.iter().map(|(id, game)| proto::ValidateGamesRequest {
        id: (*id).into(),
        game: Some(game.clone()),
    });
    let mut answers = client
        .validate_games(tokio_stream::iter(requests.collect::<Vec<_>>()))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while let Some(answer) = answers.next().await {
        let answer = answer.unwrap();
        let Some(validate_games_response::Result::Game(game)) = answer.result else {
            panic!("{answer:?}")
        };
        seen.push((answer.id, rulings(&game), ending(&game)));
    }
    assert_eq!(seen[0].1.len(), 2);
    assert_eq!(seen[1].0, "zh");
    assert_eq!(seen[1].1, [(1, Black, 1, TimeAdded, secs(120)), (4, Black, 2, GameLost, None)]);
    assert_eq!(seen[1].2, (proto::GameResult::WhiteWins, proto::Termination::IllegalMoves));
}
