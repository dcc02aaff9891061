//! Replay invariants: any list of move texts, in any notation and mode,
//! replays without panicking; the answer keeps exactly the accepted prefix,
//! and every accepted ply is legal and canonical when written back.
#![no_main]

use arbiter::chess::game::{Notation, ReplayOptions, replay};
use arbiter::chess::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let moves: Vec<&str> = text.split_whitespace().take(400).collect();
    let options = ReplayOptions {
        notation: match flags % 3 {
            0 => Notation::Auto,
            1 => Notation::Uci,
            _ => Notation::San,
        },
        strict: flags & 4 != 0,
        include_fens: flags & 8 != 0,
        skip_legal_moves: flags & 16 != 0,
        plies_from: 0,
    };
    let r = replay(Position::default(), &moves, &options);
    match &r.illegal_move {
        Some(bad) => assert_eq!(bad.index, r.plies.len()),
        None => assert_eq!(r.plies.len(), moves.len()),
    }
    // The canonical SAN of the accepted plies replays to the same position.
    let sans: Vec<String> = r.plies.iter().map(|p| p.san.to_string()).collect();
    let strict = ReplayOptions { notation: Notation::San, strict: true, ..ReplayOptions::default() };
    let again = replay(Position::default(), &sans, &strict);
    assert!(again.illegal_move.is_none());
    assert_eq!(again.position, r.position);
});
