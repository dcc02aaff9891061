//! The board: squares and bitboards, attack tables, positions and their
//! legal moves, which of them check, Zobrist keys, FEN and perft.

pub mod attacks;
pub(crate) mod bitboard;
pub(crate) mod checks;
pub(crate) mod fen;
pub(crate) mod movegen;
pub(crate) mod moves;
pub(crate) mod perft;
pub(crate) mod position;
pub(crate) mod types;
pub(crate) mod zobrist;
