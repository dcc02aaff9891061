//! How a game stands: ongoing, won or drawn, by which rule, and which draws
//! a player could claim.

use std::fmt;

use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, Role};

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Ongoing,
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    /// The PGN result string: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn pgn(self) -> &'static str {
        match self {
            GameResult::Ongoing => "*",
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

/// The rule that ended the game without a claim: on its own, or by a flag
/// fall the caller reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    Checkmate,
    Stalemate,
    /// A dead position by material alone: king against king, a single
    /// minor piece against a bare king, or bishops of one square colour.
    InsufficientMaterial,
    /// 75 moves by each side without a capture or pawn move.
    SeventyFiveMoveRule,
    /// The same position for the fifth time.
    FivefoldRepetition,
    /// Any other dead position (FIDE 5.2.2): the unwinnability analysis
    /// proved that neither side can mate by any series of legal moves.
    DeadPosition,
    /// A flag fell (FIDE 6.9) and the opponent can mate (or it was not
    /// proven that they cannot): the opponent wins.
    Timeout,
    /// A flag fell but the opponent cannot mate by any series of legal
    /// moves (FIDE 6.9): drawn.
    TimeoutVsUnwinnable,
    /// A player's completed illegal moves reached the count that loses
    /// (FIDE 7.5.5: the second; Laws of 2009, 7.4(b): the third) and the
    /// opponent can mate (or it was not proven that they cannot): the
    /// opponent wins.
    IllegalMoves,
    /// The count of completed illegal moves was reached, but the opponent
    /// cannot mate by any series of legal moves: drawn.
    IllegalMovesVsUnwinnable,
    /// Atomic: a king exploded.
    Explosion,
    /// King of the hill: a king reached d4, e4, d5 or e5.
    KingOfTheHill,
    /// Three-check: the third check was given.
    ThirdCheck,
    /// Racing kings: a king reached the eighth rank (drawn when both did).
    Race,
    /// Antichess: the side to move has no pieces or no legal move and
    /// wins; horde: a side lost every piece.
    VariantWin,
}

impl Termination {
    /// A stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient_material",
            Termination::SeventyFiveMoveRule => "seventy_five_move_rule",
            Termination::FivefoldRepetition => "fivefold_repetition",
            Termination::DeadPosition => "dead_position",
            Termination::Timeout => "timeout",
            Termination::TimeoutVsUnwinnable => "timeout_vs_unwinnable",
            Termination::IllegalMoves => "illegal_moves",
            Termination::IllegalMovesVsUnwinnable => "illegal_moves_vs_unwinnable",
            Termination::Explosion => "explosion",
            Termination::KingOfTheHill => "king_of_the_hill",
            Termination::ThirdCheck => "third_check",
            Termination::Race => "race",
            Termination::VariantWin => "variant_win",
        }
    }

    /// Why a move after this end is rejected: "the game is over
    /// (checkmate)".
    pub fn game_over_message(self) -> String {
        format!("the game is over ({})", self.as_str().replace('_', " "))
    }
}

/// A draw the player to move may claim; the game goes on until they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimableDraw {
    /// 50 moves by each side without a capture or pawn move.
    FiftyMoveRule,
    /// The current position has stood on the board three times.
    ThreefoldRepetition,
}

/// The draws a player may claim: in the position on the board, or (for a
/// legal move) by stating that move (FIDE 9.2.1, 9.3.1).
///
/// ```
/// use arbiter_chess::{ClaimableDraw, DrawClaims};
/// let claims = DrawClaims { fifty_move: true, threefold: false };
/// assert_eq!(claims.iter().collect::<Vec<_>>(), [ClaimableDraw::FiftyMoveRule]);
/// assert_eq!(DrawClaims::NONE.iter().count(), 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrawClaims {
    /// 50 moves by each side without a capture or pawn move.
    pub fifty_move: bool,
    /// The position has stood on the board three times.
    pub threefold: bool,
}

impl DrawClaims {
    /// Nothing to claim.
    pub const NONE: DrawClaims = DrawClaims { fifty_move: false, threefold: false };

    /// Whether there is anything to claim.
    pub const fn any(self) -> bool {
        self.fifty_move || self.threefold
    }

    /// The draws, fifty-move rule first.
    pub fn iter(self) -> impl Iterator<Item = ClaimableDraw> {
        [
            (self.fifty_move, ClaimableDraw::FiftyMoveRule),
            (self.threefold, ClaimableDraw::ThreefoldRepetition),
        ]
        .into_iter()
        .filter_map(|(on, draw)| on.then_some(draw))
    }
}

/// The state of a game.
///
/// ```
/// use arbiter_chess::{GameResult, Outcome};
/// assert_eq!(Outcome::ONGOING.result, GameResult::Ongoing);
/// assert_eq!(Outcome::ONGOING.to_string(), "*");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub result: GameResult,
    /// Set when the game has ended.
    pub termination: Option<Termination>,
    /// The 50-move rule can be claimed (only while the game goes on).
    pub fifty_move_claimable: bool,
    /// Threefold repetition can be claimed (only while the game goes on).
    pub threefold_claimable: bool,
    /// With [`Termination::Timeout`] (or [`Termination::IllegalMoves`]):
    /// the analysis ran out of budget before it could prove whether the
    /// opponent of the flagged side (the offender) can mate; the win is
    /// given as 6.9 (7.5.5) gives it unless a draw is proven.
    pub unproven: bool,
}

impl Outcome {
    /// A game in progress with nothing to claim.
    pub const ONGOING: Outcome = Outcome {
        result: GameResult::Ongoing,
        termination: None,
        fifty_move_claimable: false,
        threefold_claimable: false,
        unproven: false,
    };

    /// A finished game.
    pub const fn ended(result: GameResult, termination: Termination) -> Outcome {
        Outcome {
            result,
            termination: Some(termination),
            fifty_move_claimable: false,
            threefold_claimable: false,
            unproven: false,
        }
    }

    /// Whether the game has ended.
    pub const fn is_over(&self) -> bool {
        self.termination.is_some()
    }

    /// The draws that may be claimed, fifty-move rule first.
    pub fn claimable_draws(&self) -> impl Iterator<Item = ClaimableDraw> {
        DrawClaims { fifty_move: self.fifty_move_claimable, threefold: self.threefold_claimable }
            .iter()
    }
}

impl fmt::Display for Outcome {
    /// The PGN result string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.result.pgn())
    }
}

/// Whether neither side can ever mate: king against king, a single minor
/// piece against a bare king, or bishops of one square colour only.
///
/// ```
/// use arbiter_chess::{Position, is_insufficient_material};
/// let kbk: Position = "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1".parse().unwrap();
/// assert!(is_insufficient_material(&kbk));
/// assert!(!is_insufficient_material(&Position::default()));
/// ```
pub fn is_insufficient_material(pos: &Position) -> bool {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if heavy.any() {
        return false;
    }
    let knights = pos.by_role(Role::Knight);
    let bishops = pos.by_role(Role::Bishop);
    if knights.any() {
        return knights.count() == 1 && bishops.is_empty();
    }
    (bishops & Bitboard::LIGHT_SQUARES).is_empty() || (bishops & Bitboard::DARK_SQUARES).is_empty()
}

/// The winner when `loser` is mated.
pub(crate) fn win_for(loser: Color) -> GameResult {
    loser.fold(GameResult::BlackWins, GameResult::WhiteWins)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(fen: &str) -> bool {
        is_insufficient_material(&fen.parse().unwrap())
    }

    #[test]
    fn insufficient_material() {
        assert!(dead("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
        assert!(dead("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1"));
        assert!(dead("4kb2/8/8/8/8/8/8/4K3 w - - 0 1"));
        // Bishops of one square colour, however many and on either side.
        assert!(dead("4k3/8/8/8/8/8/8/3BKB2 w - - 0 1"));
        assert!(dead("4kb2/6b1/8/8/8/8/8/B3K3 w - - 0 1"));
        // Bishops on both colours can mate.
        assert!(!dead("4kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1"));
        assert!(!dead("4kb2/8/8/8/8/8/8/3K1B2 w - - 0 1"));
        // Two knights, knight against bishop, and any pawn can still mate.
        assert!(!dead("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"));
        assert!(!dead("4kb2/8/8/8/8/8/8/1N2K3 w - - 0 1"));
        assert!(!dead("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
    }

    #[test]
    fn pgn_strings() {
        assert_eq!(GameResult::WhiteWins.pgn(), "1-0");
        assert_eq!(GameResult::BlackWins.pgn(), "0-1");
        assert_eq!(GameResult::Draw.pgn(), "1/2-1/2");
    }
}
