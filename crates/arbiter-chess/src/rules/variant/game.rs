//! A variant game as it is played: the position, the positions seen (for
//! repetition), and the rules python-chess applies beside the variant's
//! own: the 75-move rule and fivefold repetition end the game, the 50-move
//! rule and threefold repetition may be claimed, also by stating the move
//! that brings them about. Crazyhouse has no move-count rules (a captured
//! piece comes back, so a capture settles nothing).

use std::collections::HashMap;

use crate::rules::outcome::{DrawClaims, GameResult};
use crate::rules::variant::Variant;
use crate::rules::variant::notation::ParseVariantMoveError;
use crate::rules::variant::outcome::VariantEnd;
use crate::rules::variant::position::{Standing, VariantMove, VariantPosition};

/// Why a move was not played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VariantGameError {
    /// The game had already ended.
    #[error("the game is already over")]
    GameOver,
    /// The text names no legal move.
    #[error(transparent)]
    Move(#[from] ParseVariantMoveError),
}

/// A variant game in progress.
///
/// ```
/// use arbiter_chess::{GameResult, Variant, VariantEnd, VariantGame, VariantPosition};
/// let mut game = VariantGame::new(VariantPosition::new(Variant::ThreeCheck));
/// for text in ["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Kxf7", "Qh5+", "Ke7", "Qxe5+"] {
///     game.play_text(text).unwrap();
/// }
/// assert_eq!(game.outcome(), Some((GameResult::WhiteWins, VariantEnd::ThirdCheck)));
/// assert!(game.play_text("Kd6").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct VariantGame {
    position: VariantPosition,
    /// How often each position has stood on the board, told apart by all
    /// that the repetition rules compare, not by its hash alone.
    seen: HashMap<Standing, u32>,
    /// How often the current position has stood on the board.
    repetitions: u32,
    /// Set once a rule other than a claim has ended the game.
    ended: Option<(GameResult, VariantEnd)>,
}

/// Half-moves without a capture or pawn move that end the game (75 moves
/// by each side) and that let a player claim a draw (50 each).
const SEVENTY_FIVE_MOVES: u32 = 150;
const FIFTY_MOVES: u32 = 100;

impl VariantGame {
    /// A game starting from `start`.
    pub fn new(start: VariantPosition) -> VariantGame {
        let mut game =
            VariantGame { position: start, seen: HashMap::new(), repetitions: 0, ended: None };
        game.record();
        game
    }

    /// The current position.
    pub fn position(&self) -> &VariantPosition {
        &self.position
    }

    /// How the game ended, if it has: the variant's own end, checkmate,
    /// stalemate or insufficient material first, then the 75-move rule,
    /// then fivefold repetition.
    pub fn outcome(&self) -> Option<(GameResult, VariantEnd)> {
        self.ended
    }

    /// The draws the player to move may claim now.
    pub fn claims(&self) -> DrawClaims {
        if self.ended.is_some() {
            return DrawClaims::NONE;
        }
        DrawClaims {
            fifty_move: self.counts_moves() && self.position.halfmove_clock() >= FIFTY_MOVES,
            threefold: self.repetitions >= 3,
        }
    }

    /// The draws the player to move may claim by stating the legal move
    /// `m` (FIDE 9.2.1, 9.3.1): the position after it would stand for the
    /// third time, or the move completes 50 moves each without a capture or
    /// pawn move.
    pub fn claims_with(&self, m: VariantMove) -> DrawClaims {
        if self.ended.is_some() {
            return DrawClaims::NONE;
        }
        let after = self.position.play(m);
        let seen = self.seen.get(&after.standing()).copied().unwrap_or(0);
        DrawClaims { fifty_move: after.halfmove_clock() >= FIFTY_MOVES, threefold: seen + 1 >= 3 }
    }

    /// Plays the legal move `m`.
    ///
    /// # Errors
    ///
    /// [`VariantGameError::GameOver`] once the game has ended;
    /// [`VariantGameError::Move`] with [`ParseVariantMoveError::Illegal`]
    /// if `m` is not legal here.
    pub fn play(&mut self, m: VariantMove) -> Result<(), VariantGameError> {
        if self.ended.is_some() {
            return Err(VariantGameError::GameOver);
        }
        if !self.position.is_legal(m) {
            return Err(ParseVariantMoveError::Illegal.into());
        }
        self.play_legal(m);
        Ok(())
    }

    /// Plays `m`, known to be legal in a game that goes on.
    pub(crate) fn play_legal(&mut self, m: VariantMove) {
        self.position.play_unchecked(m);
        self.record();
    }

    /// Whether a move may let its player claim a draw
    /// ([`VariantGame::claims_with`]): the 50-move count is one move short,
    /// or a position has stood on the board twice (a position that stands
    /// for the third time has).
    pub(crate) fn may_claim(&self) -> bool {
        self.position.halfmove_clock() + 1 >= FIFTY_MOVES
            || self.seen.values().any(|&count| count >= 2)
    }

    /// Plays the move `text` names, in UCI or SAN.
    ///
    /// # Errors
    ///
    /// As [`VariantGame::play`], and [`VariantGameError::Move`] when the
    /// text names no legal move.
    pub fn play_text(&mut self, text: &str) -> Result<VariantMove, VariantGameError> {
        if self.ended.is_some() {
            return Err(VariantGameError::GameOver);
        }
        let m = self.position.parse_move(text)?;
        self.position.play_unchecked(m);
        self.record();
        Ok(m)
    }

    /// A rough count of the bytes it holds on the heap, for bounded caches.
    pub fn heap_bytes(&self) -> usize {
        self.seen.capacity() * (std::mem::size_of::<(Standing, u32)>() + 1)
    }

    /// Whether the 50- and 75-move rules apply: in every variant but
    /// crazyhouse.
    fn counts_moves(&self) -> bool {
        self.position.variant() != Variant::Crazyhouse
    }

    /// Counts the current position and sees whether the game has ended.
    fn record(&mut self) {
        let count = self.seen.entry(self.position.standing()).or_default();
        *count += 1;
        self.repetitions = *count;
        self.ended = self.position.variant_end().or_else(|| {
            if self.counts_moves() && self.position.halfmove_clock() >= SEVENTY_FIVE_MOVES {
                Some((GameResult::Draw, VariantEnd::SeventyFiveMoveRule))
            } else if self.repetitions >= 5 {
                Some((GameResult::Draw, VariantEnd::FivefoldRepetition))
            } else {
                None
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;

    #[test]
    fn repetitions_are_claimed_at_three_and_end_the_game_at_five() {
        let mut game = VariantGame::new(VariantPosition::new(Variant::KingOfTheHill));
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for text in shuffle {
            game.play_text(text).unwrap();
        }
        assert!(!game.claims().threefold);
        for text in shuffle {
            game.play_text(text).unwrap();
        }
        assert!(game.claims().threefold);
        for text in shuffle.iter().chain(&shuffle) {
            game.play_text(text).unwrap();
        }
        assert_eq!(game.outcome(), Some((GameResult::Draw, VariantEnd::FivefoldRepetition)));
        assert_eq!(game.play_text("e4"), Err(VariantGameError::GameOver));
    }

    #[test]
    fn a_position_sharing_a_hash_is_no_repetition() {
        let mut game = VariantGame::new(VariantPosition::new(Variant::KingOfTheHill));
        // Another position under the start's 64-bit hash, as a collision
        // would give, seen four times already.
        let mut other = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            Variant::KingOfTheHill,
            CastlingMode::Standard,
        )
        .unwrap()
        .standing();
        other.hash = game.position.standing().hash;
        game.seen.insert(other, 4);
        for text in ["Nf3", "Nf6", "Ng1", "Ng8"] {
            game.play_text(text).unwrap();
        }
        assert_eq!(game.repetitions, 2);
        assert_eq!(game.outcome(), None);
        assert!(!game.claims().threefold);
    }

    #[test]
    fn pockets_tell_positions_apart() {
        // Crazyhouse: the same placement with other pieces in hand is
        // another position.
        let a = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1",
            Variant::Crazyhouse,
            CastlingMode::Standard,
        )
        .unwrap();
        let b = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/4K3[n] w - - 0 1",
            Variant::Crazyhouse,
            CastlingMode::Standard,
        )
        .unwrap();
        assert_ne!(a.zobrist(), b.zobrist());
    }

    #[test]
    fn seventy_five_moves_end_the_game_and_fifty_may_be_claimed() {
        let start = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/Q3K3 w - - 99 80",
            Variant::Atomic,
            CastlingMode::Standard,
        )
        .unwrap();
        let game = VariantGame::new(start.clone());
        assert!(!game.claims().fifty_move);
        let queen_move = start.parse_uci("a1a2").unwrap();
        assert!(game.claims_with(queen_move).fifty_move);
        let late = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/Q3K3 w - - 150 100",
            Variant::Atomic,
            CastlingMode::Standard,
        )
        .unwrap();
        assert_eq!(
            VariantGame::new(late).outcome(),
            Some((GameResult::Draw, VariantEnd::SeventyFiveMoveRule))
        );
        // Not in crazyhouse.
        let zh = VariantPosition::from_fen(
            "4k3/8/8/8/8/8/8/Q3K3[] w - - 150 100",
            Variant::Crazyhouse,
            CastlingMode::Standard,
        )
        .unwrap();
        let game = VariantGame::new(zh);
        assert_eq!(game.outcome(), None);
        assert_eq!(game.claims(), DrawClaims::NONE);
    }
}
