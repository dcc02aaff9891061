//! PGN: a streaming reader that cuts any `Read` into games in bounded
//! memory, a parser of one game's tags and movetext (comments, NAGs, nested
//! variations, clocks), validation of every line through the replay of
//! [`arbiter_chess`], and the canonical export. No transport, no files:
//! callers bring a reader and a writer.
//!
//! ```
//! use arbiter_pgn::{GameReader, ReaderOptions, check_game};
//! let text = "[Event \"x\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
//! let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
//! let raw = reader.next_game().unwrap().unwrap();
//! let report = check_game(raw);
//! let verdict = report.verdict.as_ref().unwrap();
//! assert_eq!(verdict.plies, 4);
//! assert!(verdict.result_consistent);
//! assert!(reader.next_game().unwrap().is_none());
//! ```

mod analysis;
mod check;
mod chunks;
mod clock;
mod export;
mod parse;
mod plays;
mod reader;
mod start;
mod terms;
mod watch;

pub use analysis::game_analysis;
pub use check::{
    CheckOptions, GameReport, PlayedReport, ResultToken, VariationError, VariationReason, Verdict,
    check_game, check_game_for_counts, check_game_with, check_parsed, check_parsed_with,
    flagged_side, may_analyse_fully, play_read_game, result_consistent,
};
pub use chunks::{Chunk, ChunkGames, ChunkReader, Ending, Joiner, Split, read_in_chunks};
pub use clock::{ClockFinding, ClockFindingKind, ClockReport, clock_report};
pub use export::write_canonical;
pub use parse::{ClockTime, Line, MAX_VARIATION_DEPTH, MoveNode, PgnGame, Span, Times, parse_game};
pub use reader::{GameReader, RawGame, ReaderOptions, Splitter};
pub use start::{GameError, rules_of, start_position};
