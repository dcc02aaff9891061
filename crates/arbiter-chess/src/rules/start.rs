//! Where a game starts: the rules it is played by and its first position,
//! read from (rules, FEN, Chess960 start number) in this one place, so
//! that one input means the same on the command line, over gRPC, in the
//! Python wheel and in a PGN file's tags.

use std::fmt;
use std::str::FromStr;

use crate::board::fen::{Fen, FenError};
use crate::board::perft::{divide_until, perft};
use crate::board::position::{CastlingMode, Position};
use crate::board::types::Color;
use crate::notation::uci::UciMove;
use crate::rules::variant::{
    Variant, VariantFenError, VariantPosition, variant_divide_until, variant_perft,
};

/// The rules a game is played by: standard chess, Chess960 or one of
/// lichess's variants.
///
/// ```
/// use arbiter_chess::{Rules, Variant};
/// assert_eq!(Rules::Variant(Variant::Horde).to_string(), "horde");
/// assert_eq!(Rules::Chess960.to_string(), "chess960");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    Standard,
    Chess960,
    Variant(Variant),
}

impl Rules {
    /// The name on the command line and in the wheel: `standard`,
    /// `chess960` or the variant's (`king-of-the-hill`).
    pub const fn cli_name(self) -> &'static str {
        match self {
            Rules::Standard => "standard",
            Rules::Chess960 => "chess960",
            Rules::Variant(variant) => variant.cli_name(),
        }
    }
}

impl fmt::Display for Rules {
    /// The command-line name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// The text names no rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown variant {0:?} (expected standard, chess960, crazyhouse, atomic, antichess, \
     king-of-the-hill, three-check, horde or racing-kings)"
)]
pub struct ParseRulesError(pub String);

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Reads `standard`, `chess960` or a variant's name as
    /// [`Variant::from_str`] reads it.
    ///
    /// ```
    /// use arbiter_chess::{Rules, Variant};
    /// assert_eq!("chess960".parse(), Ok(Rules::Chess960));
    /// assert_eq!("king-of-the-hill".parse(), Ok(Rules::Variant(Variant::KingOfTheHill)));
    /// assert!("giveaway".parse::<Rules>().is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`ParseRulesError`] with the text when it names no rules.
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        match s {
            "standard" => Ok(Rules::Standard),
            "chess960" => Ok(Rules::Chess960),
            _ => s.parse().map(Rules::Variant).map_err(|_| ParseRulesError(s.to_owned())),
        }
    }
}

/// A position under a game's rules: chess's (standard or Chess960) or a
/// lichess variant's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GamePosition {
    Chess(Position),
    Variant(VariantPosition),
}

/// Why (rules, FEN, Chess960 number) names no start position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The FEN is not a legal position under the rules.
    #[error(transparent)]
    Fen(#[from] StartFenError),
    /// A Chess960 start number over 959.
    #[error("Chess960 start position {0} is out of range (0 to 959)")]
    NumberOutOfRange(u32),
    /// A Chess960 start number with rules other than Chess960's.
    #[error("a Chess960 start position is for the chess960 rules, not {0}")]
    NumberWithOtherRules(Rules),
    /// Both a Chess960 start number and a FEN.
    #[error("a Chess960 start position and a FEN are both given: send one")]
    NumberAndFen,
}

/// Why a FEN is not a legal position under a game's rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartFenError {
    /// Not a legal position of standard chess or Chess960.
    #[error(transparent)]
    Chess(FenError),
    /// Not a legal position of the variant.
    #[error("{error} ({variant})")]
    Variant { variant: Variant, error: VariantFenError },
}

impl GamePosition {
    /// The start position of a game: the FEN's under `rules` if there is
    /// one, else Chess960 start position `chess960` if given, else the
    /// rules' own start (Chess960's is the standard array, number 518).
    ///
    /// `rules` is `None` when the caller left them unsaid: standard chess,
    /// or Chess960 when a start number is given. A start number with rules
    /// said to be anything but Chess960 (standard chess included) is an
    /// error, as is a start number beside a FEN.
    ///
    /// ```
    /// use arbiter_chess::{GamePosition, Rules, StartError, Variant};
    /// let start = GamePosition::start(None, None, Some(518)).unwrap();
    /// assert_eq!(start.rules(), Rules::Chess960);
    /// let horde = GamePosition::start(Some(Rules::Variant(Variant::Horde)), None, None).unwrap();
    /// assert_eq!(horde.rules(), Rules::Variant(Variant::Horde));
    /// assert_eq!(
    ///     GamePosition::start(Some(Rules::Standard), None, Some(7)),
    ///     Err(StartError::NumberWithOtherRules(Rules::Standard))
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// [`StartError`] naming what is wrong: the FEN, the number, or the
    /// number with other rules or beside a FEN.
    pub fn start(
        rules: Option<Rules>,
        fen: Option<&str>,
        chess960: Option<u32>,
    ) -> Result<GamePosition, StartError> {
        let rules = match (rules, chess960) {
            (None, Some(_)) => Rules::Chess960,
            (None, None) => Rules::Standard,
            (Some(rules), _) => rules,
        };
        if let Some(number) = chess960 {
            if rules != Rules::Chess960 {
                return Err(StartError::NumberWithOtherRules(rules));
            }
            if fen.is_some() {
                return Err(StartError::NumberAndFen);
            }
            return Position::chess960_start(number)
                .map(GamePosition::Chess)
                .ok_or(StartError::NumberOutOfRange(number));
        }
        match fen {
            Some(fen) => Ok(GamePosition::from_fen(fen, rules)?),
            None => Ok(GamePosition::new(rules)),
        }
    }

    /// The start position of `rules` (Chess960's is the standard array,
    /// number 518).
    pub fn new(rules: Rules) -> GamePosition {
        match rules {
            Rules::Standard => GamePosition::Chess(Position::default()),
            Rules::Chess960 => GamePosition::Chess(
                Position::chess960_start(518).expect("518 is a Chess960 start number"),
            ),
            Rules::Variant(variant) => GamePosition::Variant(VariantPosition::new(variant)),
        }
    }

    /// Reads `fen` as a position under `rules` (X-FEN or Shredder-FEN
    /// castling in Chess960, a variant's own fields in a variant).
    ///
    /// # Errors
    ///
    /// [`StartFenError`] naming the defect.
    pub fn from_fen(fen: &str, rules: Rules) -> Result<GamePosition, StartFenError> {
        let chess = |mode| Position::from_fen(fen, mode).map(GamePosition::Chess);
        match rules {
            Rules::Standard => chess(CastlingMode::Standard).map_err(StartFenError::Chess),
            Rules::Chess960 => chess(CastlingMode::Chess960).map_err(StartFenError::Chess),
            Rules::Variant(variant) => {
                VariantPosition::from_fen(fen, variant, CastlingMode::Standard)
                    .map(GamePosition::Variant)
                    .map_err(|error| StartFenError::Variant { variant, error })
            }
        }
    }

    /// The rules it is played by.
    pub fn rules(&self) -> Rules {
        match self {
            GamePosition::Chess(pos) => match pos.castling_mode() {
                CastlingMode::Standard => Rules::Standard,
                CastlingMode::Chess960 => Rules::Chess960,
            },
            GamePosition::Variant(pos) => Rules::Variant(pos.variant()),
        }
    }

    /// Its FEN (a variant's with its pockets or checks).
    pub fn fen(&self) -> Fen {
        self.fen_in(false)
    }

    /// Its FEN, a chess position's with Shredder-FEN castling letters when
    /// `shredder` (a variant's has none).
    pub fn fen_in(&self, shredder: bool) -> Fen {
        match self {
            GamePosition::Chess(pos) if shredder => pos.shredder_fen(),
            GamePosition::Chess(pos) => pos.fen(),
            GamePosition::Variant(pos) => pos.fen(),
        }
    }

    /// Its Zobrist key: placement, side to move, castling rights, the
    /// en-passant square, and a variant's pockets and remaining checks.
    pub fn zobrist(&self) -> u64 {
        match self {
            GamePosition::Chess(pos) => pos.zobrist(),
            GamePosition::Variant(pos) => pos.zobrist(),
        }
    }

    /// How castling is written: Chess960's way only in Chess960.
    pub fn castling_mode(&self) -> CastlingMode {
        match self {
            GamePosition::Chess(pos) => pos.castling_mode(),
            GamePosition::Variant(pos) => pos.castling_mode(),
        }
    }

    /// The number of legal move sequences of length `depth` from here.
    ///
    /// ```
    /// use arbiter_chess::{GamePosition, Rules, Variant};
    /// assert_eq!(GamePosition::new(Rules::Standard).perft(3), 8_902);
    /// assert_eq!(GamePosition::new(Rules::Variant(Variant::Antichess)).perft(2), 400);
    /// ```
    pub fn perft(&self, depth: u32) -> u64 {
        match self {
            GamePosition::Chess(pos) => perft(pos, depth),
            GamePosition::Variant(pos) => variant_perft(pos, depth),
        }
    }

    /// The count below each legal move at `depth`, each move in UCI:
    /// `None` as soon as `stop` says so, which it asks before each subtree
    /// deeper than two plies.
    ///
    /// ```
    /// use arbiter_chess::{GamePosition, Rules, Variant};
    /// let horde = GamePosition::new(Rules::Variant(Variant::Horde));
    /// let split = horde.divide_until(3, &|| false).unwrap();
    /// assert_eq!(split.len(), 8);
    /// assert!(horde.divide_until(5, &|| true).is_none());
    /// ```
    pub fn divide_until(&self, depth: u32, stop: &dyn Fn() -> bool) -> Option<Vec<(UciMove, u64)>> {
        let mode = self.castling_mode();
        match self {
            GamePosition::Chess(pos) => divide_until(pos, depth, stop).map(|split| {
                split.into_iter().map(|(m, n)| (UciMove::from_move_in(m, mode), n)).collect()
            }),
            GamePosition::Variant(pos) => variant_divide_until(pos, depth, stop)
                .map(|split| split.into_iter().map(|(m, n)| (m.uci(mode), n)).collect()),
        }
    }

    /// The board: the placement, the side to move, castling, en passant
    /// and the move counters (a variant's pockets and checks aside). In a
    /// variant, its check information is chess's, not the variant's.
    ///
    /// ```
    /// use arbiter_chess::{GamePosition, Role, Rules, Variant};
    /// let horde = GamePosition::new(Rules::Variant(Variant::Horde));
    /// assert_eq!(horde.board().by_role(Role::Pawn).count(), 44);
    /// ```
    pub fn board(&self) -> &Position {
        match self {
            GamePosition::Chess(pos) => pos,
            GamePosition::Variant(pos) => pos.board(),
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        match self {
            GamePosition::Chess(pos) => pos.turn(),
            GamePosition::Variant(pos) => pos.turn(),
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        match self {
            GamePosition::Chess(pos) => pos.is_check(),
            GamePosition::Variant(pos) => pos.is_check(),
        }
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        match self {
            GamePosition::Chess(pos) => pos.halfmove_clock(),
            GamePosition::Variant(pos) => pos.halfmove_clock(),
        }
    }

    /// The number of the move to be played, from 1.
    pub fn fullmove_number(&self) -> u32 {
        match self {
            GamePosition::Chess(pos) => pos.fullmove_number(),
            GamePosition::Variant(pos) => pos.fullmove_number(),
        }
    }
}

impl From<Position> for GamePosition {
    fn from(pos: Position) -> GamePosition {
        GamePosition::Chess(pos)
    }
}

impl From<VariantPosition> for GamePosition {
    fn from(pos: VariantPosition) -> GamePosition {
        GamePosition::Variant(pos)
    }
}

impl fmt::Display for GamePosition {
    /// The FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GamePosition::Chess(pos) => pos.fmt(f),
            GamePosition::Variant(pos) => pos.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsaid_rules_are_standard_or_chess960_by_number() {
        let standard = GamePosition::start(None, None, None).unwrap();
        assert_eq!(standard, GamePosition::Chess(Position::default()));
        let numbered = GamePosition::start(None, None, Some(0)).unwrap();
        assert_eq!(
            numbered.fen().as_str(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(numbered.rules(), Rules::Chess960);
    }

    #[test]
    fn chess960_without_a_fen_or_number_starts_from_the_standard_array() {
        let start = GamePosition::start(Some(Rules::Chess960), None, None).unwrap();
        assert_eq!(start.rules(), Rules::Chess960);
        assert_eq!(start, GamePosition::start(None, None, Some(518)).unwrap());
    }

    #[test]
    fn a_number_needs_chess960_and_no_fen() {
        let fen = Some(crate::STARTING_FEN);
        for rules in [Rules::Standard, Rules::Variant(Variant::Atomic)] {
            assert_eq!(
                GamePosition::start(Some(rules), None, Some(5)),
                Err(StartError::NumberWithOtherRules(rules))
            );
        }
        assert_eq!(GamePosition::start(None, fen, Some(5)), Err(StartError::NumberAndFen));
        assert_eq!(
            GamePosition::start(Some(Rules::Chess960), None, Some(960)),
            Err(StartError::NumberOutOfRange(960))
        );
    }

    #[test]
    fn rules_read_back_from_their_names() {
        let all =
            [Rules::Standard, Rules::Chess960].into_iter().chain(Variant::ALL.map(Rules::Variant));
        for rules in all {
            assert_eq!(rules.cli_name().parse(), Ok(rules));
        }
    }

    #[test]
    fn fens_are_read_under_the_rules() {
        let zh = GamePosition::start(
            Some(Rules::Variant(Variant::Crazyhouse)),
            Some("4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1"),
            None,
        )
        .unwrap();
        assert_eq!(zh.fen().as_str(), "4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1");
        let bad =
            GamePosition::start(Some(Rules::Standard), Some("8/8/8/8/8/8/8/8 w - - 0 1"), None);
        assert!(matches!(bad, Err(StartError::Fen(StartFenError::Chess(_)))));
        let racing = GamePosition::start(
            Some(Rules::Variant(Variant::RacingKings)),
            Some(crate::STARTING_FEN),
            None,
        );
        let variant = Variant::RacingKings;
        assert!(
            matches!(racing, Err(StartError::Fen(StartFenError::Variant { variant: v, .. })) if v == variant)
        );
    }
}
