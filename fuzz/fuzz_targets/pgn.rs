//! The PGN reader on any bytes: no panic; no game kept over the size limit
//! (bounded memory), read through a small buffer so that lines cross its
//! refills; every readable game's canonical export reads back to the same
//! mainline, plies and final position.
#![no_main]

use std::io::BufReader;

use arbiter::pgn::{GameReader, ReaderOptions, check_game, write_canonical};
use libfuzzer_sys::fuzz_target;

/// A small limit, so that inputs reach it.
const MAX_GAME_BYTES: usize = 2048;

fuzz_target!(|data: &[u8]| {
    let options = ReaderOptions { max_game_bytes: MAX_GAME_BYTES };
    let input = BufReader::with_capacity(64, data);
    for raw in GameReader::new(input, options) {
        let raw = raw.expect("reading from memory does not fail");
        if let Ok(text) = &raw.text {
            assert!(text.len() <= MAX_GAME_BYTES, "a game of {} bytes kept", text.len());
        }
        let report = check_game(raw);
        let (Some(game), Ok(verdict)) = (&report.game, &report.verdict) else { continue };
        let mut exported = Vec::new();
        write_canonical(game, verdict, &mut exported);
        let again: Vec<_> =
            GameReader::new(&exported[..], ReaderOptions { max_game_bytes: 1 << 24 })
                .map(|raw| check_game(raw.unwrap()))
                .collect();
        assert_eq!(again.len(), 1, "{}", String::from_utf8_lossy(&exported));
        let (Some(game2), Ok(verdict2)) = (&again[0].game, &again[0].verdict) else {
            panic!("the export does not read back: {}", String::from_utf8_lossy(&exported));
        };
        assert_eq!(verdict2.plies, verdict.plies, "{}", String::from_utf8_lossy(&exported));
        assert_eq!(verdict2.position, verdict.position);
        let sans =
            |g: &arbiter::pgn::PgnGame| g.mainline.moves.iter().map(|m| m.san).collect::<Vec<_>>();
        assert_eq!(sans(game2)[..verdict.plies], sans(game)[..verdict.plies]);
    }
});
