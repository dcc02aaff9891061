//! Lichess's variants beside standard chess and Chess960: crazyhouse,
//! atomic, antichess, king of the hill, three-check, horde and racing
//! kings, played as lichess and python-chess play them.
//!
//! A variant game lives in a [`VariantPosition`], a type of its own: the
//! standard [`Position`](crate::Position) and everything built on it stay as
//! they were, so standard chess pays nothing for the variants. Inside, a
//! variant position keeps its placement in a `Position` (which gives it the
//! attack tables, FEN fields and hashing) and adds what the variant needs
//! (pockets and promoted marks, remaining checks); its moves come from the
//! standard generator where the variant's rules agree with chess, and from
//! a pseudo-legal generator with a per-variant filter where they do not.
//!
//! The parts: `position` (the position, its moves and playing them),
//! `fen` (variant FEN read and written), `notation` (SAN and UCI, with
//! drops, in the same [`San`](crate::San) and [`UciMove`](crate::UciMove)
//! as chess), `outcome` (variant game ends and insufficient material),
//! `game` (a game: repetitions, the move-count rules and draw claims),
//! `replay` (its part in the one [`replay`](crate::replay): a move read
//! and played, the legal moves, the final outcome) and `illegal` (why a
//! text names no legal move).

mod fen;
mod game;
mod illegal;
mod notation;
mod outcome;
mod position;
mod replay;

pub(crate) use position::{variant_divide_until, variant_perft};

pub use fen::VariantFenError;
pub use game::{VariantGame, VariantGameError};
pub use notation::ParseVariantMoveError;
pub use outcome::VariantEnd;
pub use position::{Pocket, VariantMove, VariantPosition};

use std::fmt;
use std::str::FromStr;

/// One of lichess's variants (standard chess and Chess960 are played with
/// [`Position`](crate::Position)).
///
/// ```
/// use arbiter_chess::Variant;
/// let v: Variant = "King of the Hill".parse().unwrap();
/// assert_eq!(v, Variant::KingOfTheHill);
/// assert_eq!(v.pgn_name(), "King of the Hill");
/// assert_eq!(v.cli_name(), "king-of-the-hill");
/// assert_eq!("3check".parse::<Variant>(), Ok(Variant::ThreeCheck));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Captured pieces change sides and may be dropped back on the board.
    Crazyhouse,
    /// Captures explode; exploding the enemy king wins.
    Atomic,
    /// Capturing is compulsory; losing every piece (or having no move) wins.
    Antichess,
    /// A king reaching the centre wins.
    KingOfTheHill,
    /// The third check wins.
    ThreeCheck,
    /// White's 36 pawns against Black's army.
    Horde,
    /// No checks; the first king on the eighth rank wins.
    RacingKings,
}

impl Variant {
    /// Every variant, in lichess's order.
    pub const ALL: [Variant; 7] = [
        Variant::Crazyhouse,
        Variant::Atomic,
        Variant::Antichess,
        Variant::KingOfTheHill,
        Variant::ThreeCheck,
        Variant::Horde,
        Variant::RacingKings,
    ];

    /// The name the PGN `Variant` tag carries on lichess and in python-chess.
    pub const fn pgn_name(self) -> &'static str {
        match self {
            Variant::Crazyhouse => "Crazyhouse",
            Variant::Atomic => "Atomic",
            Variant::Antichess => "Antichess",
            Variant::KingOfTheHill => "King of the Hill",
            Variant::ThreeCheck => "Three-check",
            Variant::Horde => "Horde",
            Variant::RacingKings => "Racing Kings",
        }
    }

    /// The name on the command line, lower case with hyphens.
    pub const fn cli_name(self) -> &'static str {
        match self {
            Variant::Crazyhouse => "crazyhouse",
            Variant::Atomic => "atomic",
            Variant::Antichess => "antichess",
            Variant::KingOfTheHill => "king-of-the-hill",
            Variant::ThreeCheck => "three-check",
            Variant::Horde => "horde",
            Variant::RacingKings => "racing-kings",
        }
    }

    /// The starting position's FEN.
    pub const fn starting_fen(self) -> &'static str {
        match self {
            Variant::Crazyhouse => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
            Variant::Atomic | Variant::KingOfTheHill => crate::STARTING_FEN,
            Variant::Antichess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            Variant::ThreeCheck => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
            Variant::Horde => {
                "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"
            }
            Variant::RacingKings => "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1",
        }
    }
}

impl fmt::Display for Variant {
    /// The PGN name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pgn_name())
    }
}

/// The text names none of the variants.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown variant {0:?} (expected crazyhouse, atomic, antichess, king-of-the-hill, \
     three-check, horde or racing-kings)"
)]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;

    /// Reads a variant's name as lichess, python-chess, PGN tags and the
    /// command line write it, in any case, with or without spaces, hyphens
    /// or underscores (`King of the Hill`, `kingOfTheHill`, `koth`,
    /// `Three-check`, `3check`, `racing-kings`, ...).
    ///
    /// # Errors
    ///
    /// [`ParseVariantError`] with the text when it names no variant.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        let key: String = s
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        Ok(match key.as_str() {
            "crazyhouse" | "zh" => Variant::Crazyhouse,
            "atomic" => Variant::Atomic,
            "antichess" | "anti" => Variant::Antichess,
            "kingofthehill" | "koth" => Variant::KingOfTheHill,
            "threecheck" | "3check" => Variant::ThreeCheck,
            "horde" => Variant::Horde,
            "racingkings" => Variant::RacingKings,
            _ => return Err(ParseVariantError(s.to_owned())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for v in Variant::ALL {
            assert_eq!(v.pgn_name().parse::<Variant>(), Ok(v));
            assert_eq!(v.cli_name().parse::<Variant>(), Ok(v));
        }
        assert!("chess960".parse::<Variant>().is_err());
    }
}
