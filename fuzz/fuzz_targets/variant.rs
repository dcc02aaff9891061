//! Lichess's variants: the first byte picks the variant, the first line is
//! a FEN and the rest moves in SAN or UCI. Any text reads as a position or
//! an error, never a panic; a position prints to a FEN that reads back as
//! the same position; every move read is legal, and every legal move's SAN
//! and UCI read back as that move.
#![no_main]

use arbiter_chess::{CastlingMode, Variant, VariantPosition};
use libfuzzer_sys::fuzz_target;

/// Legal moves whose notation is checked in each position: enough to cover
/// drops and promotions, few enough to keep runs fast.
const CHECKED_MOVES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let variant = Variant::ALL[usize::from(pick) % Variant::ALL.len()];
    let mode = if pick & 0x80 == 0 { CastlingMode::Standard } else { CastlingMode::Chess960 };
    let mut lines = text.lines();
    let Some(fen) = lines.next() else { return };
    let Ok(mut pos) = VariantPosition::from_fen(fen, variant, mode) else { return };
    for text in lines.flat_map(str::split_ascii_whitespace).take(256) {
        let printed = pos.fen();
        let again =
            VariantPosition::from_fen(&printed, variant, mode).expect("a printed FEN reads back");
        assert_eq!(again, pos, "{printed}");
        let legal = pos.legal_moves();
        for &m in legal.iter().take(CHECKED_MOVES) {
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m), "{printed}");
            assert_eq!(pos.parse_uci(&pos.uci(m).to_string()), Ok(m), "{printed}");
        }
        let _ = pos.variant_end();
        let Ok(m) = pos.parse_move(text) else { return };
        assert!(legal.contains(&m), "{text} read as an illegal move in {printed}");
        pos = pos.play(m);
    }
});
