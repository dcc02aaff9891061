//! The rules of chess for other programs: positions, legal moves, FEN,
//! SAN and UCI, game replay with every outcome the Laws of Chess name, and
//! the analysis that proves a position dead or a side unable to mate.
//!
//! The crate knows nothing of networks, files or async runtimes: a program
//! embeds it as it is. Its modules are private; everything public is
//! re-exported here. The layers, bottom up:
//!
//! - board: squares, bitboards, attack tables, positions, legal move
//!   generation, Zobrist keys, FEN and perft;
//! - notation: SAN and UCI, read and written, and why a move is illegal;
//! - rules: a game as it is played (repetitions, claims, game ends), the
//!   replay of a move list, dead positions and unwinnability, the clock
//!   (time controls, remaining times, flag falls); lichess's variants
//!   (crazyhouse, atomic, antichess, king of the hill, three-check, horde,
//!   racing kings) in a position type of their own; and the one start
//!   position ([`GamePosition`]) that a replay, its clock, its answer and
//!   perft take under any of these rules;
//! - analysis: what a game was, on top of the rules: its opening (lichess's
//!   CC0 table, compiled in), its phases and each side's time use.
//!
//! ```
//! use arbiter_chess::{Position, perft};
//! let pos: Position = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
//!     .parse()
//!     .unwrap();
//! assert_eq!(perft(&pos, 2), 2_039);
//! ```

mod analysis;
mod board;
mod notation;
mod rules;

pub use analysis::opening::{
    OPENING_MAX_PLIES, OPENING_MIN_PIECES, Opening, OpeningFamily, find_opening, load_openings,
};
pub use analysis::phases::{GamePhase, Phases, game_phases};
pub use analysis::time_use::{FAST_MS, MoveTime, TimeUse, WINDOW, WINDOW_ZEROS, long_enough};
pub use analysis::{Analyzer, GameAnalysis, legal_moves_to_two};
pub use board::attacks;
pub use board::bitboard::{Bitboard, Squares};
pub use board::fen::{Fen, FenError, MAX_FEN_LEN, ParseFenError, PositionError, STARTING_FEN};
pub use board::moves::{MAX_LEGAL_MOVES, Move, MoveKind, MoveList};
pub use board::perft::{divide, divide_until, perft};
pub use board::position::{CastlingMode, Position};
pub use board::types::{Color, File, ParseSquareError, Piece, Rank, Role, Square};
pub use notation::echo::{ECHO_CHARS, MoveText, Quoted, echo};
pub use notation::illegal::{
    Illegal, IllegalReason, diagnose_castling, diagnose_san, diagnose_uci,
};
pub use notation::san::{
    CastlingSide, ParseSanError, San, SanError, SanString, san, san_with_after,
};
pub use notation::uci::{ParseUciError, UciMove};
pub use rules::clock::control::{
    Delay, DelayKind, Field, MAX_PERIOD_MOVES, MAX_PERIODS, MAX_SECONDS, NumberError, Period,
    TimeControl, TimeControlError, seconds_ms,
};
pub use rules::clock::record::{ClockRecord, ClockRecordError, ClockRun, Clocks, TimeOf};
pub use rules::clock::running::{Clock, FlagFell};
pub use rules::dead::{
    Analysis, CARRIED_PLIES, FIRST_LOOK, FULL_LOOK_PAWN_MOVES, Finding, examine, is_dead,
    pawn_moves, per_ply_gate, worth_a_full_look,
};
pub use rules::game::{
    Game, IllegalMove, IllegalMoves, LegalMove, Notation, PENALTY_MS, ParseIllegalMovesError,
    Played, PlyRecord, RAPID_PENALTY_MS, Replay, ReplayOptions, ReplayTail, Replayer, Ruling,
    RulingAction, played_times, replay, replay_clocked, replay_ruled,
};
pub use rules::outcome::{
    ClaimableDraw, DrawClaims, GameResult, Outcome, Termination, is_insufficient_material,
};
pub use rules::start::{GamePosition, ParseRulesError, Rules, StartError, StartFenError};
pub use rules::unwinnable::{
    SearchBudget, Winnability, analyse, may_be_dead, replays_to_mate, statically_unwinnable,
};
pub use rules::variant::{
    ParseVariantError, ParseVariantMoveError, Pocket, Variant, VariantEnd, VariantFenError,
    VariantGame, VariantGameError, VariantMove, VariantPosition,
};
