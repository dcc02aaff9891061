//! What a replay says of a move under any rules: the notation its texts
//! are read in, each accepted move's record and the final position's legal
//! moves. Below both the game and the variants, which write them.

use crate::board::fen::Fen;
use crate::notation::san::SanString;
use crate::notation::uci::UciMove;
use crate::rules::outcome::DrawClaims;

/// How move texts are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Each move is read as UCI when it is UCI syntax, else as SAN.
    #[default]
    Auto,
    /// UCI only (`e2e4`, `e7e8q`, `e1g1` or `e1h1`).
    Uci,
    /// SAN and the variants of it people write.
    San,
}

/// One accepted move, in any rules (a crazyhouse drop's UCI is `N@f3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    pub san: SanString,
    pub uci: UciMove,
    /// Boxed: most answers have no FENs, and a record without one stays
    /// small to build and read.
    pub fen_after: Option<Box<Fen>>,
    pub canonical_input: bool,
}

/// A legal move of the final position, in any rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegalMove {
    pub uci: UciMove,
    pub san: SanString,
    /// The draws its player could claim by stating it.
    pub claims: DrawClaims,
}
