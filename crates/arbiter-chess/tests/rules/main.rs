//! The rules core through its public API, in one binary: move generation
//! and perft, notation, FEN, outcomes and claims, dead positions and
//! unwinnability, Chess960, lichess's variants, the clock, and differential
//! tests against shakmaty and python-chess. Run one suite with a filter,
//! e.g. `cargo test -p arbiter-chess --test rules variants::`.
//!
//! The suites over third-party vectors read `ARBITER_TEST_DATA` and skip
//! without it (see `common`).

#[path = "../common/mod.rs"]
mod common;

mod analysis;
mod chess960;
mod claims;
mod clock_props;
mod dead_positions;
mod differential;
mod fen_props;
mod notation;
mod notation_props;
mod perft;
mod real_games;
mod replay_differential;
mod rulings;
mod shared_data;
mod time_control;
mod unwinnable;
mod variants;
