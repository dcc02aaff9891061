//! A move: its squares and its kind, as the generator makes it and a
//! position plays it, and the list that holds every legal move of a position.

use std::fmt;

use arrayvec::ArrayVec;

use crate::board::types::{File, Role, Square};

/// What kind of move a [`Move`] is, beyond its squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A plain move or capture (including pawn double steps).
    Normal,
    /// A pawn reaching the last rank, becoming this role.
    Promotion(Role),
    /// A pawn capturing en passant; `to` is the en-passant square.
    EnPassant,
    /// Castling, encoded as the king "taking" its own rook: `from` is the
    /// king, `to` the rook.
    Castle,
}

/// A move: from-square, to-square and kind. It means something only in the
/// position it was generated or parsed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(align(4))]
pub struct Move {
    from: Square,
    to: Square,
    kind: MoveKind,
}

impl Move {
    /// A move from its parts.
    #[inline]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        Move { from, to, kind }
    }

    /// The square the moving piece leaves (the king's, for castling).
    #[inline]
    pub const fn from(self) -> Square {
        self.from
    }

    /// The target square (the castling rook's square, for castling).
    #[inline]
    pub const fn to(self) -> Square {
        self.to
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        self.kind
    }

    /// The promotion role, if any.
    #[inline]
    pub const fn promotion(self) -> Option<Role> {
        match self.kind {
            MoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }

    /// Whether the move is castling.
    #[inline]
    pub const fn is_castle(self) -> bool {
        matches!(self.kind, MoveKind::Castle)
    }

    /// The square the king lands on, for castling; `to` otherwise.
    #[inline]
    pub fn king_to(self) -> Square {
        if self.is_castle() {
            let file = if self.to > self.from { File::G } else { File::C };
            Square::from_coords(file, self.from.rank())
        } else {
            self.to
        }
    }
}

impl fmt::Display for Move {
    /// UCI notation as standard chess writes it: `e2e4`, `e7e8q`, and
    /// castling as the king's two-square step (`e1g1`).
    ///
    /// ```
    /// use arbiter_chess::{Move, MoveKind, Square};
    /// assert_eq!(Move::new(Square::E1, Square::H1, MoveKind::Castle).to_string(), "e1g1");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.king_to())?;
        if let Some(role) = self.promotion() {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

/// The most legal moves any chess position has.
pub const MAX_LEGAL_MOVES: usize = 218;

/// A list of moves with room for every legal move of any position, kept on
/// the stack.
pub type MoveList = ArrayVec<Move, MAX_LEGAL_MOVES>;
