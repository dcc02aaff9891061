//! FEN round trip: any text reads as a position or an error, never a panic;
//! a position prints to a FEN that reads back as the same position.
#![no_main]

use arbiter_chess::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(pos) = text.parse::<Position>() {
        let fen = pos.to_string();
        let again: Position = fen.parse().expect("a printed FEN reads back");
        assert_eq!(again, pos);
        assert_eq!(again.to_string(), fen);
        // Invariants of a legal position.
        assert_eq!(pos.count_legal(), pos.legal_moves().len());
    }
});
