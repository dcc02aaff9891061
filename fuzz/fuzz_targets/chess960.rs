//! Chess960 round trips and invariants. The first byte picks the part:
//! even, a FEN read as Chess960 (X-FEN or Shredder-FEN) from the rest of the
//! input, which reads as a position or an error, never a panic, and prints
//! in both castling notations to FENs that read back as the same position;
//! odd, a walk from the start position numbered by the next two bytes
//! (modulo 960), each further byte picking the next legal move, where every
//! legal move's SAN and UCI (king takes rook, and the king's step when that
//! names the castling) read back as that move; the walk's UCI replays in
//! full to the same position.
#![no_main]

use arbiter_chess::{CastlingMode, Notation, Position, ReplayOptions, San, UciMove, replay};
use libfuzzer_sys::fuzz_target;

const MODE: CastlingMode = CastlingMode::Chess960;

/// Both FENs of `pos` read back as `pos`, in Chess960.
fn check_fens(pos: &Position) {
    for fen in [pos.fen(), pos.shredder_fen()] {
        let again = Position::from_fen(&fen, MODE).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(&again, pos, "{fen}");
    }
}

/// Every legal move's SAN and UCI read back as that move.
fn check_every_move(pos: &Position) {
    assert_eq!(pos.count_legal(), pos.legal_moves().len());
    for &m in pos.legal_moves().iter() {
        let written = arbiter_chess::san(pos, m);
        let parsed: San = written.parse().expect("canonical SAN parses");
        assert_eq!(parsed.to_move(pos), Ok(m), "{pos} {written}");
        let uci = UciMove::from_move_in(m, MODE);
        assert_eq!(uci.to_move(pos), Some(m), "{pos} {uci}");
        if m.is_castle() {
            // The king's step names this castling unless the king stays
            // put or the step is a plain king move of its own.
            let step = UciMove::Normal { from: m.from(), to: m.king_to(), promotion: None };
            match step.to_move(pos) {
                Some(found) => assert!(found == m || !found.is_castle(), "{pos} {step}"),
                None => assert_eq!(m.from(), m.king_to(), "{pos} {step}"),
            }
        }
        check_fens(&pos.play(m));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    if first % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else { return };
        if let Ok(pos) = Position::from_fen(text, MODE) {
            check_fens(&pos);
            check_every_move(&pos);
        }
        return;
    }
    let [a, b, choices @ ..] = rest else { return };
    let number = u32::from(u16::from_le_bytes([*a, *b])) % 960;
    let start = Position::chess960_start(number).expect("numbers below 960 exist");
    let mut pos = start.clone();
    let mut ucis = Vec::new();
    for &choice in choices.iter().take(200) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[usize::from(choice) % moves.len()];
        ucis.push(UciMove::from_move_in(m, MODE).to_string());
        pos = pos.play(m);
    }
    check_every_move(&pos);
    let options = ReplayOptions { notation: Notation::Uci, strict: true, ..Default::default() };
    let r = replay(start, &ucis, &options);
    // A game may end early (repetition, 75 moves, dead position).
    match &r.illegal_move {
        Some(bad) => assert_eq!(bad.index, r.plies.len()),
        None => assert_eq!(r.position, arbiter_chess::GamePosition::Chess(pos)),
    }
});
