//! UCI move notation (`e2e4`, `e7e8q`, castling as `e1g1`, a crazyhouse
//! drop as `N@f3`): reading text into a [`UciMove`] (syntax only) and
//! resolving it against a position.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayString;

use crate::board::bitboard::Bitboard;
use crate::board::moves::Move;
use crate::board::position::{CastlingMode, Position, castling_squares};
use crate::board::types::{Role, Square};
use crate::notation::san::SanMove;

/// A move as UCI writes it, not yet checked against a position: a move on
/// the board, or a piece put from the pocket (crazyhouse's drop).
///
/// ```
/// use arbiter_chess::{Role, Square, UciMove};
/// let m: UciMove = "e7e8q".parse().unwrap();
/// assert_eq!(m, UciMove::Normal { from: Square::E7, to: Square::E8, promotion: Some(Role::Queen) });
/// assert_eq!(m.to_string(), "e7e8q");
/// let drop: UciMove = "N@f3".parse().unwrap();
/// assert_eq!(drop, UciMove::Put { role: Role::Knight, to: Square::F3 });
/// assert_eq!(drop.to_string(), "N@f3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UciMove {
    /// A piece moved on the board.
    Normal {
        from: Square,
        to: Square,
        /// The promotion letter as written; `k` and `p` are read so that
        /// they can be rejected with a precise reason (a promotion to a
        /// king is antichess's).
        promotion: Option<Role>,
    },
    /// A piece from the pocket put on `to` (never a king).
    Put { role: Role, to: Square },
}

/// The text is not UCI move syntax.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a uci move (expected e.g. e2e4, e7e8q or N@f3)")]
pub struct ParseUciError;

impl FromStr for UciMove {
    type Err = ParseUciError;

    /// Reads `<from><to>[promotion]`, the promotion letter lower case, or
    /// `<piece>@<to>`, the piece letter upper case (not `K`).
    ///
    /// # Errors
    ///
    /// [`ParseUciError`] if the text is not of that form.
    // Inlined: a call a UCI ply, and its result packed into a register and
    // out again, for little work.
    #[inline(always)]
    fn from_str(s: &str) -> Result<UciMove, ParseUciError> {
        UciMove::read(s.as_bytes())
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_array_string())
    }
}

impl UciMove {
    /// [`UciMove::from_str`] from the text's bytes.
    #[inline(always)]
    pub(crate) fn read(bytes: &[u8]) -> Result<UciMove, ParseUciError> {
        let square = Square::from_name;
        let (from, to, promotion) = match *bytes {
            [p, b'@', c, d] => return UciMove::read_put(p, c, d),
            [a, b, c, d] => (square(a, b), square(c, d), None),
            [a, b, c, d, p] if p.is_ascii_lowercase() => {
                (square(a, b), square(c, d), Some(Role::from_char(p as char).ok_or(ParseUciError)?))
            }
            _ => return Err(ParseUciError),
        };
        Ok(UciMove::Normal {
            from: from.ok_or(ParseUciError)?,
            to: to.ok_or(ParseUciError)?,
            promotion,
        })
    }

    /// A drop, `<piece>@<to>`.
    #[cold]
    fn read_put(piece: u8, file: u8, rank: u8) -> Result<UciMove, ParseUciError> {
        let role = Role::from_char(piece as char)
            .filter(|&role| piece.is_ascii_uppercase() && role != Role::King)
            .ok_or(ParseUciError)?;
        Ok(UciMove::Put { role, to: Square::from_name(file, rank).ok_or(ParseUciError)? })
    }

    /// The UCI form of a legal move of standard chess (castling as the
    /// king's two-square step).
    pub fn from_move(m: Move) -> UciMove {
        UciMove::Normal { from: m.from(), to: m.king_to(), promotion: m.promotion() }
    }

    /// The target square (for a move written as king takes own rook, the
    /// rook's).
    pub fn to(&self) -> Square {
        match *self {
            UciMove::Normal { to, .. } | UciMove::Put { to, .. } => to,
        }
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
                UciMove::Normal { from: m.from(), to: m.to(), promotion: m.promotion() }
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
        let UciMove::Normal { from, to, promotion } = *self else { return None };
        let role = pos.role_at(from)?;
        if pos.by_color(pos.turn()).contains(from) && pos.movers_to(role, from.into(), to).any() {
            let kind = pos.move_kind(role, from, to, promotion)?;
            return Some((Move::new(from, to, kind), role));
        }
        if role != Role::King || promotion.is_some() {
            return None;
        }
        find_castle(pos, from, to)
    }

    /// As [`UciMove::find`], as the move that SAN is written from: the
    /// pieces of the role that can move to the target, looked for once,
    /// give both the move and the rivals SAN tells it from.
    #[inline(always)]
    pub(crate) fn find_san(&self, pos: &Position) -> Option<SanMove> {
        let UciMove::Normal { from, to, promotion } = *self else { return None };
        let role = pos.role_at(from)?;
        let movers = pos.movers_to(role, Bitboard::FULL, to);
        if movers.contains(from) {
            let kind = pos.move_kind(role, from, to, promotion)?;
            return Some(SanMove::from_movers(Move::new(from, to, kind), role, movers));
        }
        if role != Role::King || promotion.is_some() {
            return None;
        }
        find_castle(pos, from, to).map(|(castle, role)| SanMove::from_movers(castle, role, movers))
    }

    /// The text, without allocating: `e2e4`, `e7e8q` or `N@f3`.
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
        let square = |sq: Square| [b'a' + (sq.index() as u8 & 7), b'1' + (sq.index() as u8 >> 3)];
        match *self {
            UciMove::Normal { from, to, promotion } => {
                let ([a, b], [c, d]) = (square(from), square(to));
                [a, b, c, d, promotion.map_or(0, |role| role.char() as u8)]
            }
            UciMove::Put { role, to } => {
                let [c, d] = square(to);
                [role.upper_char() as u8, b'@', c, d, 0]
            }
        }
    }

    /// The longest UCI text: from, to and a promotion (`e7e8q`).
    pub const MAX_LEN: usize = 5;

    /// The length of the text: 4, or 5 with a promotion.
    #[inline]
    pub fn text_len(&self) -> usize {
        match *self {
            UciMove::Normal { promotion, .. } => 4 + usize::from(promotion.is_some()),
            UciMove::Put { .. } => 4,
        }
    }
}

/// The castling move that the king move `from`-`to` means in `pos`, if any.
#[cold]
#[inline(never)]
fn find_castle(pos: &Position, from: Square, to: Square) -> Option<(Move, Role)> {
    // Castling, written as king takes own rook or as the king's step to
    // its destination; the first wins where both could be meant, and a
    // king that does not move is no step (Chess960).
    let moves = pos.legal_moves_filtered(from.into(), to.into());
    let castles = || moves.iter().copied().filter(|m| m.is_castle());
    let castle = castles().find(|m| to == m.to()).or_else(|| {
        castles().find(|m| to != from && to == castling_squares(pos.turn(), m.from(), m.to()).0)
    })?;
    Some((castle, Role::King))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax() {
        for bad in [
            "", "e2", "e2e", "e2e4qq", "e2e9", "i2e4", "e2e4Q", "e2e4x", "é2e4", "e2e4é", "K@e4",
            "n@f3", "@e4", "N@e9", "N@",
        ] {
            assert_eq!(bad.parse::<UciMove>(), Err(ParseUciError), "{bad:?}");
        }
        let UciMove::Normal { promotion, .. } = "a7a8k".parse::<UciMove>().unwrap() else {
            panic!("a move on the board")
        };
        assert_eq!(promotion, Some(Role::King));
        for text in ["P@e4", "N@f3", "Q@a1"] {
            let m = text.parse::<UciMove>().unwrap();
            assert_eq!((m.to_string(), m.text_len()), (text.to_owned(), 4));
        }
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
