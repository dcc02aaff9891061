//! Standard Algebraic Notation: reading the forms people write (leniently,
//! never guessing) and writing the one canonical form.
//!
//! Reading is split in two: [`San::from_str`](std::str::FromStr::from_str)
//! checks syntax only ([`ParseSanError`]); [`San::to_move`] finds the move
//! in a position and fails with [`SanError::Illegal`] or
//! [`SanError::Ambiguous`].
//!
//! The parts: `read` (text to [`San`] to the legal move), `write` (a legal
//! move to its canonical [`SanString`]), and here the types they share,
//! among them [`SanMove`], which carries what finding a move learned to the
//! writing of its SAN.

mod read;
mod write;

pub(crate) use read::castling_rooks;
pub use write::{SanString, san, san_with_after};
pub(crate) use write::{push_check_mark, san_without_mark, sans_of_all};

use std::fmt;

use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{File, Rank, Role, Square};

/// Which side a castling move goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// `O-O`, towards the h-file.
    KingSide,
    /// `O-O-O`, towards the a-file.
    QueenSide,
}

/// A move in SAN, read but not yet checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move.
    Normal {
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
    /// Castling.
    Castle(CastlingSide),
    /// A piece from the pocket put on `to` (crazyhouse): `N@f3`, and for a
    /// pawn `@e4`.
    Put { role: Role, to: Square },
}

/// The text is not a move in SAN, nor a variant of it that Arbiter reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a move in san (expected e.g. e4, Nf3, exd5, e8=Q or O-O)")]
pub struct ParseSanError;

/// A well-formed SAN that does not name exactly one legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// No legal move fits.
    #[error("no legal move fits")]
    Illegal,
    /// More than one legal move fits.
    #[error("more than one legal move fits")]
    Ambiguous,
}

/// A legal move with what its canonical SAN depends on besides its squares:
/// the role of the moving piece and its rivals, the other pieces of that
/// role that could legally go to the same square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SanMove {
    pub(crate) mv: Move,
    pub(crate) role: Role,
    rivals: Bitboard,
}

impl SanMove {
    /// The legal move `mv` of a piece of `role` in `pos`.
    #[inline]
    pub(crate) fn new(pos: &Position, mv: Move, role: Role) -> SanMove {
        let rivals = match (mv.kind(), role) {
            (MoveKind::Normal, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) => {
                pos.movers_to(role, Bitboard::FULL.without(mv.from()), mv.to())
            }
            _ => Bitboard::EMPTY,
        };
        SanMove { mv, role, rivals }
    }

    /// The legal move `mv` of a piece of `role` in `pos`, given `movers`:
    /// every piece of `role` that can legally move to its target
    /// (`movers_to` from the whole board), `mv`'s own included.
    /// One look at the target gives both the move and its rivals, where
    /// [`SanMove::new`] takes a second.
    #[inline(always)]
    pub(crate) fn from_movers(mv: Move, role: Role, movers: Bitboard) -> SanMove {
        let rivals = match (mv.kind(), role) {
            (MoveKind::Normal, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) => {
                movers.without(mv.from())
            }
            _ => Bitboard::EMPTY,
        };
        SanMove { mv, role, rivals }
    }

    fn castle(mv: Move) -> SanMove {
        SanMove { mv, role: Role::King, rivals: Bitboard::EMPTY }
    }
}

impl San {
    /// Each character of the SAN in its normalised form (upper-case piece
    /// letters, `x` for captures, `=` before a promotion), keeping the
    /// disambiguation that was read: what `Display` writes, given to `put`
    /// one by one so that a [`SanString`] is built without formatting.
    pub(crate) fn each_char(&self, mut put: impl FnMut(char)) {
        fn square(sq: Square, put: &mut impl FnMut(char)) {
            put(sq.file().char());
            put(sq.rank().char());
        }
        match *self {
            San::Castle(side) => {
                let text = if side == CastlingSide::KingSide { "O-O" } else { "O-O-O" };
                text.chars().for_each(put);
            }
            San::Put { role, to } => {
                if role != Role::Pawn {
                    put(role.upper_char());
                }
                put('@');
                square(to, &mut put);
            }
            San::Normal { role, file, rank, capture, to, promotion } => {
                if role != Role::Pawn {
                    put(role.upper_char());
                }
                file.into_iter().for_each(|file| put(file.char()));
                rank.into_iter().for_each(|rank| put(rank.char()));
                if capture {
                    put('x');
                }
                square(to, &mut put);
                if let Some(p) = promotion {
                    put('=');
                    put(p.upper_char());
                }
            }
        }
    }
}

impl fmt::Display for San {
    /// Writes the SAN back in its normalised form (upper-case piece letters,
    /// `x` for captures, `=` before a promotion), keeping the
    /// disambiguation that was read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut result = Ok(());
        self.each_char(|c| result = result.and_then(|()| fmt::Write::write_char(f, c)));
        result
    }
}
