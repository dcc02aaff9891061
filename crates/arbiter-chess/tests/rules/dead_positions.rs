//! Dead positions (FIDE 5.2.2) and flag fall (6.9) where a replay reports
//! them, against the labelled vectors of the Chess Unwinnability Analyzer
//! (CHA): a request's start position that is dead ends the game at once,
//! and a flag fall against a colour that cannot mate is a draw. Soundness
//! is absolute (never a dead position where a side can mate, never a draw
//! against a colour that can); recall has the goals of issue 19 (90%).
//! The data tests skip without `ARBITER_TEST_DATA`.

use arbiter_chess::{
    Analysis, Color, Game, GameResult, Position, ReplayOptions, Replayer, SearchBudget,
    Termination, replay,
};

use crate::common;

/// CHA's labelled vectors: `(white can mate, black can mate, FEN)`.
fn vectors() -> Option<Vec<(bool, bool, String)>> {
    let dir = common::data_dir_or_skip()?;
    let text = common::read_data(&dir, "unwinnability/cha/test-vector-dev.txt").unwrap();
    let vectors: Vec<(bool, bool, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && l.len() > 3)
        .map(|l| {
            let label = l.as_bytes();
            // A FEN with the fields CHA leaves out filled in.
            let mut fields: Vec<&str> = l[3..].split_ascii_whitespace().take(6).collect();
            while (2..4).contains(&fields.len()) {
                fields.push("-");
            }
            (label[0] == b'W', label[1] == b'B', fields.join(" "))
        })
        .collect();
    assert!(vectors.len() > 1000, "{} vectors", vectors.len());
    Some(vectors)
}

/// The vector's position; about 5% have material no game could produce,
/// which the analysis accepts (the service's FEN reader does not).
fn position(fen: &str) -> Position {
    Position::from_fen_lenient_material(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn dead_start_positions_end_the_game_and_live_ones_never_do() {
    let Some(vectors) = vectors() else { return };
    let outcomes = common::parallel_map(&vectors, |(_, _, fen)| {
        Game::with_analysis(position(fen), Analysis::DEFAULT).outcome()
    });
    let (mut dead, mut found) = (0, 0);
    for ((white, black, fen), outcome) in vectors.iter().zip(outcomes) {
        // Stalemate positions are among the vectors too: a draw at once.
        let ended_dead = outcome.is_over() && outcome.result == GameResult::Draw;
        if *white || *black {
            assert!(!ended_dead, "a side can mate, yet {outcome:?}: {fen}");
        } else {
            dead += 1;
            found += usize::from(ended_dead);
        }
    }
    println!("dead start positions found: {found} of {dead}");
    // The goal: at least 90% of the dead start positions found.
    assert!(found * 10 >= dead * 9, "only {found} of {dead} dead positions found");
}

#[test]
fn a_flag_fall_against_a_colour_that_cannot_mate_is_a_draw() {
    let Some(vectors) = vectors() else { return };
    // Every vector, each colour flagged in turn, through the replay's
    // answer (the final position of an empty move list).
    let cases: Vec<(bool, String, Color)> = vectors
        .iter()
        .flat_map(|(white, black, fen)| {
            [(*black, fen.clone(), Color::White), (*white, fen.clone(), Color::Black)]
        })
        .collect();
    let outcomes = common::parallel_map(&cases, |(_, fen, flagged)| {
        let options = ReplayOptions { flagged: Some(*flagged), ..ReplayOptions::default() };
        let replayer = Replayer::new(position(fen), options.analysis);
        replayer.answer(Default::default(), &options).outcome
    });
    let (mut unwinnable, mut drawn) = (0, 0);
    for ((opponent_can_mate, fen, flagged), outcome) in cases.iter().zip(outcomes) {
        if *opponent_can_mate {
            assert_ne!(outcome.result, GameResult::Draw, "{flagged:?} flagged: {fen}");
            assert!(outcome.is_over(), "{flagged:?} flagged: {fen}");
        } else {
            unwinnable += 1;
            drawn += usize::from(outcome.result == GameResult::Draw);
        }
    }
    println!("flag falls against a colour that cannot mate drawn: {drawn} of {unwinnable}");
    assert!(drawn * 10 >= unwinnable * 9, "only {drawn} of {unwinnable} drawn");
}

#[test]
fn a_flag_fall_is_a_timeout_win_unless_the_opponent_cannot_mate() {
    let options = |flagged| ReplayOptions { flagged: Some(flagged), ..ReplayOptions::default() };
    // The standard start: either side can mate, whoever is to move.
    for flagged in Color::ALL {
        let r = replay(Position::default(), &["e4"], &options(flagged));
        assert_eq!(r.outcome.termination, Some(Termination::Timeout));
        let winner = flagged.fold(GameResult::BlackWins, GameResult::WhiteWins);
        assert_eq!(r.outcome.result, winner);
        assert!(!r.outcome.unproven);
        assert!(r.legal_moves.is_empty(), "the game is over");
    }
    // King and rook against a bare king: the bare king cannot mate.
    let krk: Position = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1".parse().unwrap();
    let r = replay(krk.clone(), &[] as &[&str], &options(Color::White));
    assert_eq!(
        (r.outcome.result, r.outcome.termination),
        (GameResult::Draw, Some(Termination::TimeoutVsUnwinnable))
    );
    let r = replay(krk.clone(), &[] as &[&str], &options(Color::Black));
    assert_eq!(r.outcome.termination, Some(Termination::Timeout));
    // A game already over stays as it ended: mate, then a flag.
    let r = replay(Position::default(), &["f3", "e5", "g4", "Qh4#"], &options(Color::Black));
    assert_eq!(
        (r.outcome.result, r.outcome.termination),
        (GameResult::BlackWins, Some(Termination::Checkmate))
    );
    // An illegal move: the flag is not applied to the position before it.
    let r = replay(Position::default(), &["e4", "Ke9"], &options(Color::White));
    assert!(r.illegal_move.is_some());
    assert!(!r.outcome.is_over());
    // A budget too small to decide: the win stands, marked unproven.
    let tiny = ReplayOptions {
        analysis: Analysis { full: SearchBudget { nodes: 1 }, ..Analysis::DEFAULT },
        ..options(Color::White)
    };
    let wall_with_rook = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/r3K3 w - - 0 1";
    let r = replay(wall_with_rook.parse::<Position>().unwrap(), &[] as &[&str], &tiny);
    assert_eq!(r.outcome.termination, Some(Termination::Timeout));
    assert_eq!(r.outcome.result, GameResult::BlackWins);
    assert!(r.outcome.unproven, "{:?}", r.outcome);
}

#[test]
fn a_locked_wall_reached_by_a_move_ends_the_game_there() {
    // White's last pawn push locks the wall: dead at once, later moves are
    // refused as after a mate.
    let start: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/2P1P1P1/P7/4K3 w - - 0 1".parse().unwrap();
    let r = replay(start, &["a3", "Kd7", "Kd1"], &ReplayOptions::default());
    assert_eq!(r.plies.len(), 1);
    assert_eq!(r.outcome.termination, Some(Termination::DeadPosition));
    assert_eq!(r.outcome.result, GameResult::Draw);
    let illegal = r.illegal_move.expect("the game is over");
    assert_eq!(illegal.index, 1);
    assert_eq!(illegal.message, "the game is over (dead position)");
}
