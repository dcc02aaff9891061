//! Arbiter applies the Laws of Chess for other programs: it checks moves,
//! writes them in canonical notation and reports the state of the game.
//!
//! # Layout
//!
//! - [`chess`]: the rules core — squares and bitboards, compile-time attack
//!   tables, positions, legal move generation, FEN and perft. It knows
//!   nothing of networks and can be embedded on its own.
//! - [`report`]: the JSON form of a replayed game, as the contract maps it.
//! - [`cli`]: the `arbiter` command line.

pub mod chess;
pub mod cli;
pub mod report;
