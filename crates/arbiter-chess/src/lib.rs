//! The rules core: positions, legal moves, FEN and perft, with no knowledge
//! of any transport. A Rust program can embed it directly.
//!
//! ```
//! use arbiter::chess::{perft, Position};
//! let pos: Position = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
//!     .parse()
//!     .unwrap();
//! assert_eq!(perft::perft(&pos, 2), 2_039);
//! ```

pub mod attacks;
pub mod bitboard;
pub mod dead;
pub mod echo;
pub mod fen;
pub mod game;
pub mod illegal;
mod move_texts;
pub mod movegen;
pub mod moves;
pub mod outcome;
pub mod perft;
pub mod position;
pub mod san;
pub mod types;
pub mod uci;
pub mod unwinnable;
mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, ParseFenError, PositionError};
pub use moves::{MAX_LEGAL_MOVES, Move, MoveKind, MoveList};
pub use position::{CastlingMode, Position};
pub use types::{Color, File, Piece, Rank, Role, Square};
