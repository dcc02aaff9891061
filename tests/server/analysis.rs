//! What the game was, over a real socket on 127.0.0.1: `ValidateGame` and
//! `ValidateGames` with `include_analysis` answer what the rules core's
//! [`Analyzer`] says of the same game, fed ply by ply here (the opening
//! from lichess's table, the phases, each side's time use from the clock
//! record), through the replay cache or not; without it, no analysis.

use arbiter::proto::{self, validate_games_response};
use arbiter_chess::{
    Analyzer, GameAnalysis, GamePosition, OpeningFamily, Position, Rules, TimeControl, UciMove,
};
use prost_types::Duration;
use tokio_stream::StreamExt;

use crate::common::server::TestServer;

/// The Ruy Lopez, Closed, to move 10 (lichess's c.tsv names it at 9. h3),
/// then on into the middlegame.
const MOVES: [&str; 24] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5",
    "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7", "b1d2", "c8b7", "b3c2", "f8e8",
];

/// Move times in ms: the first of each side 0 (not clocked), some
/// instant, some fast, one long think.
const TIMES: [u64; 24] = [
    0, 0, 1_000, 2_000, 1_500, 0, 3_000, 2_500, 400, 7_000, 12_000, 3_000, 0, 800, 2_000, 45_000,
    5_000, 6_000, 9_000, 1_100, 300, 2_200, 4_000, 8_000,
];

const CONTROL: &str = "300+3";

/// The core's analysis of the game, fed ply by ply from a position played
/// here, not through any replay of the service.
fn core_analysis() -> GameAnalysis {
    let control: TimeControl = CONTROL.parse().unwrap();
    let mut analyzer = Analyzer::new(&GamePosition::new(Rules::Standard)).with_control(&control);
    let mut pos = Position::default();
    for (uci, &ms) in MOVES.iter().zip(&TIMES) {
        let legal = pos.legal_moves().len();
        pos = pos.play(uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap());
        analyzer.push(&pos, legal, Some(ms));
    }
    analyzer.finish()
}

fn duration(ms: u64) -> Duration {
    Duration { seconds: (ms / 1000) as i64, nanos: (ms % 1000 * 1_000_000) as i32 }
}

fn request(include_analysis: bool) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest {
        moves: MOVES.iter().map(|m| (*m).to_owned()).collect(),
        clock: Some(proto::GameClock {
            time_control: Some(proto::TimeControl { tag: CONTROL.into(), ..Default::default() }),
            move_times: TIMES.iter().map(|&t| duration(t)).collect(),
            pending: None,
            move_times_ms: Vec::new(),
        }),
        include_analysis,
        ..Default::default()
    }
}

#[tokio::test]
async fn validate_game_answers_the_cores_analysis() {
    let expected = core_analysis();
    // The core's own facts about this game, so that the test cannot pass
    // on an empty analysis.
    let opening = expected.opening.unwrap();
    assert_eq!(opening.family, OpeningFamily::OpenGame);
    assert!(opening.name.starts_with("Ruy Lopez"), "{opening:?}");
    assert_eq!(expected.time_use.len(), 2);
    assert_eq!(expected.time_use[0].timed_moves, 11);
    let expected = proto::GameAnalysis::from(&expected);

    // The cache on (the default) and off: the same answer, twice each (the
    // second call would be the cache's hit).
    for flags in [&[][..], &["--cache-bytes", "0"][..]] {
        let server = TestServer::start(flags).await;
        let mut client = server.client().await;
        for _ in 0..2 {
            let answer = client.validate_game(request(true)).await.unwrap().into_inner();
            assert_eq!(answer.plies.len(), MOVES.len());
            assert_eq!(answer.analysis.as_ref(), Some(&expected), "{flags:?}");
            // Without the option, no analysis, though the game is cached.
            let plain = client.validate_game(request(false)).await.unwrap().into_inner();
            assert_eq!(plain.analysis, None);
            assert_eq!(plain.plies, answer.plies);
        }
        // The tail of a live game (plies_from) still analyses all of it.
        let tail = proto::ValidateGameRequest { plies_from: 20, ..request(true) };
        let answer = client.validate_game(tail).await.unwrap().into_inner();
        assert_eq!(answer.plies.len(), 4);
        assert_eq!(answer.analysis.as_ref(), Some(&expected));

        // The same in a stream, beside a game that does not ask.
        let games = vec![
            proto::ValidateGamesRequest { id: "a".into(), game: Some(request(true)) },
            proto::ValidateGamesRequest { id: "b".into(), game: Some(request(false)) },
        ];
        let mut stream =
            client.validate_games(tokio_stream::iter(games)).await.unwrap().into_inner();
        let mut analyses = Vec::new();
        while let Some(answer) = stream.next().await {
            match answer.unwrap().result {
                Some(validate_games_response::Result::Game(game)) => analyses.push(game.analysis),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(analyses, [Some(expected.clone()), None]);
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn a_chess960_or_fen_start_has_phases_and_no_opening() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let chess960 = proto::ValidateGameRequest {
        moves: vec!["e2e4".into(), "e7e5".into()],
        variant: proto::Variant::Chess960 as i32,
        chess960_position: Some(0),
        include_analysis: true,
        ..Default::default()
    };
    let answer = client.validate_game(chess960).await.unwrap().into_inner();
    let analysis = answer.analysis.unwrap();
    assert_eq!(analysis.opening, None);
    assert_eq!(analysis.phases, Some(proto::Phases::default()));
    assert!(analysis.time_use.is_empty(), "no clock record, no time use");
    // A bare endgame: the endgame from the start, no middlegame kept.
    let bare = proto::ValidateGameRequest {
        fen: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".into(),
        moves: vec!["e2e4".into()],
        include_analysis: true,
        ..Default::default()
    };
    let analysis = client.validate_game(bare).await.unwrap().into_inner().analysis.unwrap();
    assert_eq!(analysis.opening, None);
    assert_eq!(analysis.phases, Some(proto::Phases { middlegame_ply: None, endgame_ply: Some(0) }));
    server.shutdown().await.unwrap();
}

/// The same game as PGN, each move's time in its `[%emt]`.
fn pgn() -> String {
    let replayed = arbiter_chess::replay(
        Position::default(),
        &MOVES,
        &arbiter_chess::ReplayOptions::default(),
    );
    let mut text = format!("[Event \"analysed\"]\n[TimeControl \"{CONTROL}\"]\n\n");
    for (i, (ply, ms)) in replayed.plies.iter().zip(TIMES).enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(&format!(
            "{} {{ [%emt 0:{:02}:{:02}.{:03}] }} ",
            ply.san,
            ms / 60_000,
            ms / 1000 % 60,
            ms % 1000
        ));
    }
    text.push_str("*\n\n");
    text
}

#[tokio::test]
async fn validate_pgn_answers_the_cores_analysis() {
    let expected = proto::GameAnalysis::from(&core_analysis());
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let text = pgn();
    for include_analysis in [true, false] {
        // The option is read from the first request; the game spans two.
        let (head, tail) = text.as_bytes().split_at(40);
        let chunks = vec![
            proto::ValidatePgnRequest { chunk: head.to_vec(), include_analysis },
            proto::ValidatePgnRequest { chunk: tail.to_vec(), include_analysis: false },
        ];
        let mut stream =
            client.validate_pgn(tokio_stream::iter(chunks)).await.unwrap().into_inner();
        let answer = stream.next().await.unwrap().unwrap();
        let Some(proto::validate_pgn_response::Result::Verdict(verdict)) = answer.result else {
            panic!("{answer:?}");
        };
        assert_eq!(verdict.plies as usize, MOVES.len());
        let wanted = include_analysis.then(|| expected.clone());
        assert_eq!(verdict.analysis, wanted);
        assert!(stream.next().await.is_none());
    }
    server.shutdown().await.unwrap();
}
