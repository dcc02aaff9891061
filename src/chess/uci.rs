//! UCI move notation (`e2e4`, `e7e8q`, castling as `e1g1`): reading text
//! into a [`UciMove`] (syntax only) and resolving it against a position.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayString;

use super::movegen::{Move, MoveKind};
use super::position::{Position, castling_squares};
use super::types::{Role, Square};

/// A move as UCI writes it, not yet checked against a position.
///
/// ```
/// use arbiter::chess::{uci::UciMove, Role, Square};
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
    fn from_str(s: &str) -> Result<UciMove, ParseUciError> {
        let (squares, promotion) = match s.len() {
            4 => (s, None),
            5 if s.is_char_boundary(4) => {
                let c = s[4..].chars().next().ok_or(ParseUciError)?;
                if !c.is_ascii_lowercase() {
                    return Err(ParseUciError);
                }
                (&s[..4], Some(Role::from_char(c).ok_or(ParseUciError)?))
            }
            _ => return Err(ParseUciError),
        };
        if !squares.is_char_boundary(2) {
            return Err(ParseUciError);
        }
        let from = squares[..2].parse().map_err(|_| ParseUciError)?;
        let to = squares[2..].parse().map_err(|_| ParseUciError)?;
        Ok(UciMove { from, to, promotion })
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_array_string())
    }
}

impl UciMove {
    /// The UCI form of a legal move (castling as the king's two-square step).
    pub fn from_move(m: Move) -> UciMove {
        UciMove { from: m.from(), to: m.king_to(), promotion: m.promotion() }
    }

    /// The legal move this text means in `pos`, if there is one. Castling is
    /// read both as the king's step (`e1g1`) and as king takes own rook
    /// (`e1h1`). Why a move is illegal is answered by
    /// [`crate::chess::illegal::diagnose_uci`].
    ///
    /// ```
    /// use arbiter::chess::{uci::UciMove, Position};
    /// let pos = Position::default();
    /// assert!("g1f3".parse::<UciMove>().unwrap().to_move(&pos).is_some());
    /// assert!("g1g3".parse::<UciMove>().unwrap().to_move(&pos).is_none());
    /// ```
    pub fn to_move(&self, pos: &Position) -> Option<Move> {
        let moves = pos.legal_moves_filtered(self.from.into(), self.to.into());
        moves.iter().copied().find(|m| match m.kind() {
            MoveKind::Castle => {
                self.promotion.is_none()
                    && (self.to == m.to()
                        || self.to == castling_squares(pos.turn(), m.from(), m.to()).0)
            }
            MoveKind::Promotion(role) => self.to == m.to() && self.promotion == Some(role),
            MoveKind::Normal | MoveKind::EnPassant => self.to == m.to() && self.promotion.is_none(),
        })
    }

    /// The text, without allocating: `e2e4` or `e7e8q`.
    ///
    /// ```
    /// use arbiter::chess::uci::UciMove;
    /// let m: UciMove = "e7e8q".parse().unwrap();
    /// assert_eq!(m.to_array_string().as_str(), "e7e8q");
    /// ```
    pub fn to_array_string(&self) -> ArrayString<5> {
        let mut out = ArrayString::new();
        let squares = [self.from, self.to];
        for c in squares.into_iter().flat_map(|sq| [sq.file().char(), sq.rank().char()]) {
            out.push(c);
        }
        if let Some(role) = self.promotion {
            out.push(role.char());
        }
        out
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
