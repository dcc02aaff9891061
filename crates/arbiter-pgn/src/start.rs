//! What game a PGN game's tags set up: the `Variant` tag's rules, the
//! start position from the `SetUp` and `FEN` tags, and why a game cannot be
//! validated at all.

use thiserror::Error;

use super::parse::PgnGame;
use arbiter_chess::{FenError, GamePosition, Rules, StartFenError, Variant, VariantFenError};

/// Why a game cannot be validated at all.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GameError {
    #[error("game of {bytes} bytes is over the size limit")]
    TooLarge { bytes: u64 },
    #[error("FEN tag {fen:?}: {error}")]
    InvalidFen { fen: String, error: FenError },
    #[error("FEN tag {fen:?} of {variant}: {error}")]
    InvalidVariantFen { fen: String, variant: Variant, error: VariantFenError },
    #[error("SetUp tag is 1 but there is no FEN tag")]
    MissingFen,
    #[error("unknown variant {name:?}")]
    UnknownVariant { name: String },
}

impl GameError {
    /// A stable machine-readable name.
    pub const fn reason(&self) -> &'static str {
        match self {
            GameError::TooLarge { .. } => "GAME_TOO_LARGE",
            GameError::InvalidFen { .. } | GameError::InvalidVariantFen { .. } => "INVALID_FEN",
            GameError::MissingFen => "MISSING_FEN",
            GameError::UnknownVariant { .. } => "UNKNOWN_VARIANT",
        }
    }
}

/// The rules a `Variant` tag names: Chess960 in any of the spellings in
/// use (`Chess960`, `chess 960`, `Fischerandom`, `Fischer Random` ...), the
/// standard game by its usual names, and lichess's variants by lichess's
/// names and python-chess's aliases (`Crazyhouse`, `House`, `ZH`, `Atomic`,
/// `Atom`, `Antichess`, `Anti`, `King of the Hill`, `KOTH`, `Three-check`,
/// `3-check`, `Horde`, `Racing Kings`, `Race` ...), in any case, spaces and
/// hyphens aside.
///
/// python-chess's `Giveaway` and `Suicide` are other games (castling, and
/// another ending) and stay unknown.
///
/// ```
/// use arbiter_chess::{Rules, Variant};
/// use arbiter_pgn::rules_of;
/// assert_eq!(rules_of("King of the Hill"), Ok(Rules::Variant(Variant::KingOfTheHill)));
/// assert_eq!(rules_of("3-check"), Ok(Rules::Variant(Variant::ThreeCheck)));
/// assert!(rules_of("Giveaway").is_err());
/// ```
///
/// # Errors
///
/// [`GameError::UnknownVariant`] for any other variant.
pub fn rules_of(tag: &str) -> Result<Rules, GameError> {
    use arbiter_chess::Variant as Lichess;
    let key: String =
        tag.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    let lichess = match key.as_str() {
        "" | "standard" | "chess" | "normal" | "standardchess" | "fromposition" => {
            return Ok(Rules::Standard);
        }
        "chess960"
        | "960"
        | "fischerandom"
        | "fischerrandom"
        | "fischerrandomchess"
        | "frc"
        | "chess960fischerandom" => return Ok(Rules::Chess960),
        // python-chess's aliases beyond the names the core reads.
        "house" => Lichess::Crazyhouse,
        "atom" | "atomicchess" => Lichess::Atomic,
        "threecheckchess" => Lichess::ThreeCheck,
        "hordechess" => Lichess::Horde,
        "racing" | "race" => Lichess::RacingKings,
        _ => key.parse().map_err(|_| GameError::UnknownVariant { name: tag.to_owned() })?,
    };
    Ok(Rules::Variant(lichess))
}

/// The start position of `game` from its `Variant`, `SetUp` and `FEN` tags.
///
/// This is the one place that decides which variants can be replayed. A
/// Chess960 game reads its FEN tag as X-FEN or Shredder-FEN; without one it
/// starts from the standard array (position 518), as the service does. A
/// lichess variant's game reads its FEN tag as that variant's FEN; without
/// one it starts from the variant's start.
///
/// # Errors
///
/// A [`GameError`] for a variant that cannot be played, a bad `FEN` tag or
/// a `SetUp` tag without one.
pub fn start_position(game: &PgnGame) -> Result<GamePosition, GameError> {
    Ok(set_up(game)?.unwrap_or_else(|| GamePosition::new(Rules::Standard)))
}

/// The start position of `game` as [`start_position`] reads it, `None`
/// for the standard one.
pub(crate) fn set_up(game: &PgnGame) -> Result<Option<GamePosition>, GameError> {
    let rules = game.tag("Variant").map_or(Ok(Rules::Standard), |v| rules_of(&v))?;
    let Some(fen) = game.tag("FEN") else {
        if game.tag("SetUp").as_deref() == Some("1") {
            return Err(GameError::MissingFen);
        }
        return Ok((rules != Rules::Standard).then(|| GamePosition::new(rules)));
    };
    GamePosition::from_fen(fen.trim(), rules).map(Some).map_err(|error| {
        let fen = fen.into_owned();
        match error {
            StartFenError::Chess(error) => GameError::InvalidFen { fen, error },
            StartFenError::Variant { variant, error } => {
                GameError::InvalidVariantFen { fen, variant, error }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_tags_name_chess960_and_the_standard_game_in_their_spellings() {
        for name in ["chess960", "Chess 960", "FISCHERRANDOM", "fischer random", "Chess960"] {
            assert_eq!(rules_of(name), Ok(Rules::Chess960), "{name}");
        }
        for name in ["Standard", "From Position", "chess"] {
            assert_eq!(rules_of(name), Ok(Rules::Standard), "{name}");
        }
    }

    #[test]
    fn variant_tags_name_lichess_variants_by_lichess_and_python_chess_names() {
        use arbiter_chess::Variant as V;
        let names: [(&str, V); 27] = [
            ("Crazyhouse", V::Crazyhouse),
            ("Crazy House", V::Crazyhouse),
            ("house", V::Crazyhouse),
            ("ZH", V::Crazyhouse),
            ("Atomic", V::Atomic),
            ("Atom", V::Atomic),
            ("Atomic chess", V::Atomic),
            ("Antichess", V::Antichess),
            ("Anti chess", V::Antichess),
            ("anti", V::Antichess),
            ("King of the Hill", V::KingOfTheHill),
            ("KOTH", V::KingOfTheHill),
            ("kingOfTheHill", V::KingOfTheHill),
            ("Three-check", V::ThreeCheck),
            ("Three check", V::ThreeCheck),
            ("Threecheck", V::ThreeCheck),
            ("Three check chess", V::ThreeCheck),
            ("3-check", V::ThreeCheck),
            ("3 check", V::ThreeCheck),
            ("3check", V::ThreeCheck),
            ("Horde", V::Horde),
            ("Horde chess", V::Horde),
            ("Racing Kings", V::RacingKings),
            ("racing kings", V::RacingKings),
            ("Racing", V::RacingKings),
            ("Race", V::RacingKings),
            ("racingkings", V::RacingKings),
        ];
        for (name, variant) in names {
            assert_eq!(rules_of(name), Ok(Rules::Variant(variant)), "{name}");
        }
        for variant in V::ALL {
            assert_eq!(rules_of(variant.pgn_name()), Ok(Rules::Variant(variant)));
        }
        // python-chess's giveaway and suicide chess are other games.
        for name in ["Giveaway", "Suicide", "Bughouse", "Crazy"] {
            assert!(matches!(rules_of(name), Err(GameError::UnknownVariant { .. })), "{name}");
        }
    }
}
