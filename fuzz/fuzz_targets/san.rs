//! SAN: any text, in a position picked by the input, parses or fails without
//! panicking; a move found by it writes back to SAN that finds the same move.
#![no_main]

use arbiter_chess::{Position, San};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mut pos = Position::default();
    // Walk a few plies chosen by the first byte to vary the position.
    for i in 0..(choice % 16) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos = pos.play(moves[(usize::from(choice) + usize::from(i) * 7) % moves.len()]);
    }
    if let Ok(parsed) = text.parse::<San>()
        && let Ok(m) = parsed.to_move(&pos)
    {
        let written = arbiter_chess::san(&pos, m);
        let again: San = written.parse().expect("canonical SAN parses");
        assert_eq!(again.to_move(&pos), Ok(m));
    }
});
