//! The unwinnability analysis (`chess::unwinnable`) against the shared
//! vectors of the Chess Unwinnability Analyzer (CHA), and a property test on
//! random positions.
//!
//! Every helpmate found is replayed twice, by our rules and by shakmaty's,
//! and must end in the right colour checkmating; every verdict on a
//! labelled vector must agree with CHA's label (UNDETERMINED is allowed and
//! counted). The data tests skip without `ARBITER_TEST_DATA`.

use arbiter_chess::{Color, Move, Position, SearchBudget, Winnability, analyse, replays_to_mate};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove as ShakmatyUci;
use shakmaty::{CastlingMode, Chess, PositionError};

use crate::common;

/// The check of `replays_to_mate` with shakmaty, an independent
/// implementation of the rules.
fn shakmaty_replays_to_mate(fen: &str, winner: Color, line: &[Move]) -> bool {
    use shakmaty::Position as _;
    let Ok(fen) = Fen::from_ascii(fen.as_bytes()) else { return false };
    let Ok(mut pos) = fen
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(PositionError::ignore_too_much_material)
    else {
        return false;
    };
    for m in line {
        let Ok(uci) = m.to_string().parse::<ShakmatyUci>() else { return false };
        let Ok(m) = uci.to_move(&pos) else { return false };
        pos.play_unchecked(m);
    }
    let mated = winner.fold(shakmaty::Color::Black, shakmaty::Color::White);
    pos.is_checkmate() && pos.turn() == mated
}

/// A FEN with the fields CHA's vectors leave out filled in.
fn full_fen(text: &str) -> String {
    let mut fields: Vec<&str> = text.split_ascii_whitespace().take(6).collect();
    while (2..4).contains(&fields.len()) {
        fields.push("-");
    }
    fields.join(" ")
}

/// Analyses both colours of `fen` and checks each helpmate; returns the
/// verdicts or a description of what went wrong.
fn checked(fen: &str, budget: SearchBudget) -> Result<[Winnability; 2], String> {
    let pos = Position::from_fen_lenient_material(fen).map_err(|e| format!("{fen}: {e}"))?;
    let verdicts = Color::ALL.map(|c| analyse(&pos, c, budget));
    for (c, v) in Color::ALL.into_iter().zip(&verdicts) {
        if let Winnability::Winnable(line) = v
            && (!replays_to_mate(&pos, c, line) || !shakmaty_replays_to_mate(fen, c, line))
        {
            return Err(format!("{fen}: {c:?}'s helpmate {line:?} does not replay to mate"));
        }
    }
    Ok(verdicts)
}

#[test]
fn cha_dev_vectors_get_no_unsound_verdict() {
    let Some(dir) = common::data_dir_or_skip() else { return };
    let text = common::read_data(&dir, "unwinnability/cha/test-vector-dev.txt").unwrap();
    let cases: Vec<(&str, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && l.len() > 3)
        .map(|l| (&l[..2], full_fen(&l[3..])))
        .collect();
    assert!(cases.len() > 1000, "{} vectors", cases.len());
    let results = common::parallel_map(&cases, |(_, fen)| checked(fen, SearchBudget::FULL));
    let mut undetermined = 0;
    let mut failures = Vec::new();
    for ((label, fen), result) in cases.iter().zip(results) {
        let verdicts = match result {
            Ok(v) => v,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for (i, v) in verdicts.iter().enumerate() {
            let can = label.as_bytes()[i] != b'-';
            match v {
                Winnability::Undetermined => undetermined += 1,
                Winnability::Winnable(_) if !can => failures.push(format!("{fen}: {i} winnable")),
                Winnability::Unwinnable if can => failures.push(format!("{fen}: {i} unwinnable")),
                Winnability::Winnable(_) | Winnability::Unwinnable => {}
            }
        }
    }
    let queries = 2 * cases.len();
    eprintln!(
        "dev vectors, full mode: {undetermined} of {queries} colour queries undetermined ({:.2}%)",
        100.0 * undetermined as f64 / queries as f64
    );
    assert!(
        failures.is_empty(),
        "{} unsound: {:?}",
        failures.len(),
        &failures[..failures.len().min(20)]
    );
    // The goal is 2%; this bound is what the analysis reaches today
    // (45 of 2,162, 2.08%; the search is deterministic), so that it cannot
    // get worse unnoticed.
    assert!(undetermined <= 45, "{undetermined} of {queries} undetermined");
}

#[test]
fn lichess_positions_are_decided_in_full_mode() {
    let Some(dir) = common::data_dir_or_skip() else { return };
    let text = common::read_data(&dir, "unwinnability/cha/lichess-30K-games.txt").unwrap();
    let fens: Vec<String> = text.lines().filter(|l| !l.is_empty()).map(full_fen).collect();
    assert_eq!(fens.len(), 30_000);
    let results = common::parallel_map(&fens, |fen| checked(fen, SearchBudget::FULL));
    let mut undetermined = 0;
    for result in results {
        let verdicts = result.unwrap_or_else(|e| panic!("{e}"));
        undetermined += verdicts.iter().filter(|v| **v == Winnability::Undetermined).count();
    }
    eprintln!("lichess-30K, full mode: {undetermined} of 60000 colour queries undetermined");
    // The goal: every ordinary position decided.
    assert_eq!(undetermined, 0, "{undetermined} undetermined");
}

/// Positions reached by random legal moves from the start.
fn random_position(seed: u64, plies: usize) -> Position {
    let mut pos = Position::default();
    let mut state = seed | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        pos = pos.play(moves[(state % moves.len() as u64) as usize]);
    }
    pos
}

/// Whether `winner` mates within `depth` plies, by plain full-width search.
fn mates_within(pos: &Position, winner: Color, depth: u32) -> bool {
    if pos.turn() != winner && pos.is_check() && !pos.has_legal_moves() {
        return true;
    }
    depth > 0
        && pos.legal_moves().into_iter().any(|m| mates_within(&pos.play(m), winner, depth - 1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_positions_never_get_an_unsound_verdict(seed in any::<u64>(), plies in 0usize..200) {
        let pos = random_position(seed, plies);
        for winner in Color::ALL {
            match analyse(&pos, winner, SearchBudget::QUICK) {
                Winnability::Winnable(line) => prop_assert!(replays_to_mate(&pos, winner, &line)),
                Winnability::Unwinnable => prop_assert!(!mates_within(&pos, winner, 3), "{pos}"),
                Winnability::Undetermined => {}
            }
        }
    }
}
