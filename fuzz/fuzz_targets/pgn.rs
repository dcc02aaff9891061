//! The PGN reader on any bytes: no panic; no game kept over the size limit
//! (bounded memory), read through a small buffer so that lines cross its
//! refills; every readable game's canonical export reads back to the same
//! mainline, plies and final position; the push-based `Splitter` (fed in
//! pieces of 7 bytes) and the reading in chunks of `arbiter pgn --jobs N`
//! (chunks of 1 to 64 bytes, joined) cut the same games as `GameReader`, a
//! game read while it was cut is the game its text reads as, and checking
//! without the mainline's SAN gives the same verdict; games read into the
//! vectors of games handed back read as their texts do; the export keeps
//! the clock record (control and times); the input read as a TimeControl
//! tag never panics.
#![no_main]

use std::io::BufReader;

use std::collections::VecDeque;

use arbiter_chess::{MAX_PERIODS, TimeControl};
use arbiter_pgn::{
    CheckOptions, GameReader, ReaderOptions, Splitter, check_game, check_game_with, parse_game,
    read_in_chunks, write_canonical,
};
use libfuzzer_sys::fuzz_target;

/// A small limit, so that inputs reach it.
const MAX_GAME_BYTES: usize = 2048;

fuzz_target!(|data: &[u8]| {
    // The input as a TimeControl tag: read or refused, never more periods
    // than allowed.
    if let Ok(tag) = std::str::from_utf8(data)
        && let Ok(control) = tag.parse::<TimeControl>()
    {
        assert!(control.periods().len() <= MAX_PERIODS, "{tag:?}");
    }
    let options = ReaderOptions { max_game_bytes: MAX_GAME_BYTES };
    let input = BufReader::with_capacity(64, data);
    let mut splitter = Splitter::new(options);
    let mut pushed = VecDeque::new();
    for piece in data.chunks(7) {
        splitter.push(piece, &mut pushed);
    }
    splitter.finish(&mut pushed);
    let size = 1 + data.first().map_or(0, |&b| usize::from(b % 64));
    let mut chunked = read_in_chunks(data, options, size).expect("from memory").into_iter();
    let mut cut = 0;
    // Every game is handed back once checked: the next are read into its
    // vectors, and must read as their texts do.
    let mut reader = GameReader::new(input, options);
    while let Some(raw) = reader.next_game().expect("reading from memory does not fail") {
        let same = pushed.pop_front().expect("the splitter cut as many games");
        assert_eq!((same.index, same.line, &same.text), (raw.index, raw.line, &raw.text));
        // Read in chunks, then checked without the mainline's SAN (as
        // `arbiter pgn` does): the same game, the same verdict.
        let from_chunks = chunked.next().expect("as many games read in chunks");
        assert_eq!((from_chunks.line, &from_chunks.text), (raw.line, &raw.text));
        assert_eq!(
            check_game_with(from_chunks, false, CheckOptions::DEFAULT).verdict,
            check_game(raw.clone()).verdict
        );
        cut += 1;
        let (index, line, read) = raw.clone().into_game();
        if let (Ok(read), Ok(text)) = (&read, &raw.text) {
            assert_eq!(read, &parse_game(text.clone()), "game {index} at line {line}");
        }
        if let Ok(text) = &raw.text {
            assert!(text.len() <= MAX_GAME_BYTES, "a game of {} bytes kept", text.len());
        }
        let report = check_game(raw);
        let (Some(game), Ok(verdict)) = (&report.game, &report.verdict) else {
            if let Some(game) = report.game {
                reader.recycle(game);
            }
            continue;
        };
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
        // The export keeps the clock record: its control and its times.
        let times = |v: &arbiter_pgn::Verdict| {
            v.clock.as_ref().map(|c| (c.control.clone(), c.elapsed_ms.clone()))
        };
        assert_eq!(times(verdict2), times(verdict), "{}", String::from_utf8_lossy(&exported));
        let sans =
            |g: &arbiter_pgn::PgnGame| g.mainline.moves.iter().map(|m| m.san).collect::<Vec<_>>();
        assert_eq!(sans(game2)[..verdict.plies], sans(game)[..verdict.plies]);
        if let Some(game) = report.game {
            reader.recycle(game);
        }
    }
    assert!(pushed.is_empty(), "the splitter cut more games than the {cut} read");
    assert!(chunked.next().is_none(), "in chunks: more games");
});
