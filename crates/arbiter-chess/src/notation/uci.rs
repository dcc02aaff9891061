//! UCI move notation (`e2e4`, `e7e8q`, castling as `e1g1`): reading text
//! into a [`UciMove`] (syntax only) and resolving it against a position.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayString;

use crate::board::bitboard::Bitboard;
use crate::board::moves::Move;
use crate::board::position::{CastlingMode, Position, castling_squares};
use crate::board::types::{Role, Square};
use crate::notation::san::SanMove;

/// A move as UCI writes it, not yet checked against a position.
///
/// ```
/// use arbiter_chess::{Role, Square, UciMove};
/// let m: UciMove = "e7e8q".parse().unwrap();
/// assert_eq!((m.from, m.to, m.promotion), (Square::E7, Square::E8, Some(Role::Queen)));
/// assert_eq!(m.to_string(), "e7e8q");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UciMove {
    pub from: Square,
    pub to: Square,
    /// The promotion letter as written; `k` and `p` are read so that they
    /// can be rejected with a precise reason.
    pub promotion: Option<Role>,
}

/// The text is not UCI move syntax.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a uci move (expected e.g. e2e4 or e7e8q)")]
pub struct ParseUciError;

impl FromStr for UciMove {
    type Err = ParseUciError;

    /// Reads `<from><to>[promotion]`; the promotion letter is lower case.
    ///
    /// # Errors
    ///
    /// [`ParseUciError`] if the text is not of that form.
    // Inlined: a call a UCI ply, and its result packed into a register and
    // out again, for little work.
    #[inline(always)]
    fn from_str(s: &str) -> Result<UciMove, ParseUciError> {
        let square = Square::from_name;
        let (from, to, promotion) = match *s.as_bytes() {
            [a, b, c, d] => (square(a, b), square(c, d), None),
            [a, b, c, d, p] if p.is_ascii_lowercase() => {
                (square(a, b), square(c, d), Some(Role::from_char(p as char).ok_or(ParseUciError)?))
            }
            _ => return Err(ParseUciError),
        };
        Ok(UciMove { from: from.ok_or(ParseUciError)?, to: to.ok_or(ParseUciError)?, promotion })
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_array_string())
    }
}

impl UciMove {
    /// The UCI form of a legal move of standard chess (castling as the
    /// king's two-square step).
    pub fn from_move(m: Move) -> UciMove {
        UciMove { from: m.from(), to: m.king_to(), promotion: m.promotion() }
    }

    /// The UCI form of a legal move under `mode`'s convention: castling as
    /// the king's two-square step in standard chess, as king takes own rook
    /// in Chess960 (`UCI_Chess960`), where the king may not move at all.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, Move, MoveKind, Square, UciMove};
    /// let castle = Move::new(Square::E1, Square::H1, MoveKind::Castle);
    /// assert_eq!(UciMove::from_move_in(castle, CastlingMode::Standard).to_string(), "e1g1");
    /// assert_eq!(UciMove::from_move_in(castle, CastlingMode::Chess960).to_string(), "e1h1");
    /// ```
    #[inline]
    pub fn from_move_in(m: Move, mode: CastlingMode) -> UciMove {
        match mode {
            CastlingMode::Standard => UciMove::from_move(m),
            CastlingMode::Chess960 => {
                UciMove { from: m.from(), to: m.to(), promotion: m.promotion() }
            }
        }
    }

    /// The legal move this text means in `pos`, if there is one. Castling is
    /// read both as the king's step (`e1g1`) and as king takes own rook
    /// (`e1h1`). Why a move is illegal is answered by
    /// [`crate::notation::illegal::diagnose_uci`].
    ///
    /// ```
    /// use arbiter_chess::{Position, UciMove};
    /// let pos = Position::default();
    /// assert!("g1f3".parse::<UciMove>().unwrap().to_move(&pos).is_some());
    /// assert!("g1g3".parse::<UciMove>().unwrap().to_move(&pos).is_none());
    /// ```
    pub fn to_move(&self, pos: &Position) -> Option<Move> {
        self.find(pos).map(|(m, _)| m)
    }

    /// As [`UciMove::to_move`], with the role of the piece that moves.
    // Inlined, with castling apart: as a call, it saved and restored
    // registers and set up a frame big enough for the legal move list
    // castling is looked for in, every ply, for little work.
    #[inline(always)]
    pub(crate) fn find(&self, pos: &Position) -> Option<(Move, Role)> {
        let role = pos.role_at(self.from)?;
        if pos.by_color(pos.turn()).contains(self.from)
            && pos.movers_to(role, self.from.into(), self.to).any()
        {
            let kind = pos.move_kind(role, self.from, self.to, self.promotion)?;
            return Some((Move::new(self.from, self.to, kind), role));
        }
        if role != Role::King || self.promotion.is_some() {
            return None;
        }
        self.find_castle(pos)
    }

    /// As [`UciMove::find`], as the move that SAN is written from: the
    /// pieces of the role that can move to the target, looked for once,
    /// give both the move and the rivals SAN tells it from.
    #[inline(always)]
    pub(crate) fn find_san(&self, pos: &Position) -> Option<SanMove> {
        let role = pos.role_at(self.from)?;
        let movers = pos.movers_to(role, Bitboard::FULL, self.to);
        if movers.contains(self.from) {
            let kind = pos.move_kind(role, self.from, self.to, self.promotion)?;
            return Some(SanMove::from_movers(Move::new(self.from, self.to, kind), role, movers));
        }
        if role != Role::King || self.promotion.is_some() {
            return None;
        }
        self.find_castle(pos).map(|(castle, role)| SanMove::from_movers(castle, role, movers))
    }

    /// The castling move this king move means, if any.
    #[cold]
    #[inline(never)]
    fn find_castle(&self, pos: &Position) -> Option<(Move, Role)> {
        // Castling, written as king takes own rook or as the king's step to
        // its destination; the first wins where both could be meant, and a
        // king that does not move is no step (Chess960).
        let moves = pos.legal_moves_filtered(self.from.into(), self.to.into());
        let castles = || moves.iter().copied().filter(|m| m.is_castle());
        let castle = castles().find(|m| self.to == m.to()).or_else(|| {
            castles().find(|m| {
                self.to != self.from && self.to == castling_squares(pos.turn(), m.from(), m.to()).0
            })
        })?;
        Some((castle, Role::King))
    }

    /// The text, without allocating: `e2e4` or `e7e8q`.
    ///
    /// ```
    /// use arbiter_chess::UciMove;
    /// let m: UciMove = "e7e8q".parse().unwrap();
    /// assert_eq!(m.to_array_string().as_str(), "e7e8q");
    /// ```
    pub fn to_array_string(&self) -> ArrayString<{ UciMove::MAX_LEN }> {
        let ascii = self.ascii();
        // The bytes are ASCII letters and digits, and at most five: neither
        // fallback is ever taken.
        let text = std::str::from_utf8(&ascii[..self.text_len()]).unwrap_or_default();
        ArrayString::from(text).unwrap_or_default()
    }

    /// The text as ASCII bytes, the first [`UciMove::text_len`] of them,
    /// for writers of bytes.
    ///
    /// ```
    /// use arbiter_chess::UciMove;
    /// let m: UciMove = "e7e8q".parse().unwrap();
    /// assert_eq!(&m.ascii()[..m.text_len()], b"e7e8q");
    /// ```
    #[inline]
    pub fn ascii(&self) -> [u8; 5] {
        // Squares count from a1 along the ranks: file in the low 3 bits.
        let [from, to] = [self.from.index() as u8, self.to.index() as u8];
        [
            b'a' + (from & 7),
            b'1' + (from >> 3),
            b'a' + (to & 7),
            b'1' + (to >> 3),
            self.promotion.map_or(0, |role| role.char() as u8),
        ]
    }

    /// The longest UCI text: from, to and a promotion (`e7e8q`).
    pub const MAX_LEN: usize = 5;

    /// The length of the text: 4, or 5 with a promotion.
    #[inline]
    pub fn text_len(&self) -> usize {
        4 + usize::from(self.promotion.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax() {
        for bad in ["", "e2", "e2e", "e2e4qq", "e2e9", "i2e4", "e2e4Q", "e2e4x", "é2e4", "e2e4é"]
        {
            assert_eq!(bad.parse::<UciMove>(), Err(ParseUciError), "{bad:?}");
        }
        assert_eq!("a7a8k".parse::<UciMove>().unwrap().promotion, Some(Role::King));
    }

    #[test]
    fn castling_both_ways() {
        let pos: Position = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        for text in ["e1g1", "e1h1"] {
            let m = text.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            assert!(m.is_castle());
            assert_eq!(m.to_string(), "e1g1");
        }
        let m = "e1c1".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert_eq!(m.to(), Square::A1);
    }
}
