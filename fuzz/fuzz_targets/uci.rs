//! UCI: any text parses or fails without panicking; a parsed move that is
//! legal prints back to the same text, or to the canonical castling form.
#![no_main]

use arbiter_chess::{Position, UciMove};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(uci) = text.parse::<UciMove>() {
        assert_eq!(uci.to_string(), text);
        let pos: Position = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse()
            .expect("kiwipete");
        if let Some(m) = uci.to_move(&pos) {
            assert!(pos.is_legal(m));
        }
    }
});
