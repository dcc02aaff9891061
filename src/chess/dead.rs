//! Dead positions in a game (FIDE 5.2.2): which positions of a replay get
//! the unwinnability analysis, with what budget, and the verdict.
//!
//! Every ply is looked at through a cheap gate ([`may_be_dead`]: pawns on
//! the board and none of them can move) and, past it, the quick analysis.
//! The start position of a request and its final position get the full
//! analysis behind a wider gate ([`worth_a_full_look`]: pawns on the board
//! and at most [`FULL_LOOK_PAWN_MOVES`] pawn moves for both sides), which
//! lets through 453 of the 470 dead positions among CHA's hard test vectors
//! and about half of the positions of ordinary lichess games; for those the
//! analysis usually finds a helpmate at once (median 27 µs, 99th percentile
//! 4 ms, 0.4 s at most over 30,000 lichess positions). Both gates only
//! decide where to look: a position is called dead only when the analysis
//! proves that neither side can mate.

use super::attacks;
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Color, Piece, Rank, Role};
use super::unwinnable::{Budget, Verdict, analyse};

pub use super::unwinnable::may_be_dead;

/// How much the unwinnability analysis may do for one replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Per position, for every ply that passes [`may_be_dead`].
    pub per_ply: Budget,
    /// Per colour, for the start and final positions, a flag fall and the
    /// verdicts an answer reports.
    pub full: Budget,
}

impl Analysis {
    /// [`Budget::QUICK`] per ply, [`Budget::FULL`] at the ends.
    pub const DEFAULT: Analysis = Analysis { per_ply: Budget::QUICK, full: Budget::FULL };
}

impl Default for Analysis {
    fn default() -> Analysis {
        Analysis::DEFAULT
    }
}

/// The most pawn moves (pushes and captures of both sides, whoever is to
/// move) a position may have for [`worth_a_full_look`] to let it through:
/// dead positions with more are rare (17 of CHA's 470), ordinary ones
/// common.
pub const FULL_LOOK_PAWN_MOVES: u32 = 8;

/// The gate of the full analysis: pawns on the board, and at most
/// [`FULL_LOOK_PAWN_MOVES`] moves among them. Dead positions beyond
/// insufficient material are nearly all pawn structures that are locked or
/// about to be.
///
/// ```
/// use arbiter::chess::dead::worth_a_full_look;
/// use arbiter::chess::Position;
/// assert!(!worth_a_full_look(&Position::default()));
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(worth_a_full_look(&wall));
/// ```
pub fn worth_a_full_look(pos: &Position) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() {
        return false;
    }
    let empty = !pos.occupied();
    let mut moves = 0;
    for color in Color::ALL {
        let ours = pawns & pos.by_color(color);
        let up = color.fold(8, -8);
        let single = ours.shift(up) & empty;
        let double = (single & Bitboard::relative_rank(color, Rank::Third)).shift(up) & empty;
        moves += single.count() + double.count();
        if moves > FULL_LOOK_PAWN_MOVES {
            return false;
        }
    }
    for color in Color::ALL {
        for sq in pos.pieces(Piece { color, role: Role::Pawn }) {
            moves += (attacks::pawn_attacks(color, sq) & pos.by_color(!color)).count();
        }
    }
    moves <= FULL_LOOK_PAWN_MOVES
}

/// Whether the analysis proves, within `budget` per colour, that neither
/// side can mate. A helpmate for either side settles the question, so both
/// are first asked with at most the quick budget (an ordinary position
/// gives one up in a few hundred nodes); only then does an open question
/// get the rest.
///
/// ```
/// use arbiter::chess::dead::is_dead;
/// use arbiter::chess::unwinnable::Budget;
/// use arbiter::chess::Position;
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(is_dead(&wall, Budget::FULL));
/// assert!(!is_dead(&Position::default(), Budget::FULL));
/// ```
pub fn is_dead(pos: &Position, budget: Budget) -> bool {
    let first = Budget { nodes: budget.nodes.min(Budget::QUICK.nodes) };
    let mut open = [false; 2];
    for color in Color::ALL {
        match analyse(pos, color, first) {
            Verdict::Winnable(_) => return false,
            Verdict::Unwinnable => {}
            Verdict::Undetermined => open[color.index()] = true,
        }
    }
    Color::ALL
        .into_iter()
        .filter(|color| open[color.index()])
        .all(|color| first != budget && analyse(pos, color, budget) == Verdict::Unwinnable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_gate_counts_pushes_and_captures_of_both_sides() {
        let gate = |fen: &str| worth_a_full_look(&fen.parse().unwrap());
        // Kings alone: nothing to look at beyond insufficient material.
        assert!(!gate("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
        // One pawn each, both free: two pushes each, one double step each.
        assert!(gate("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1"));
        // Four free pawns a side: too many moves.
        assert!(!gate("4k3/4pppp/8/8/8/8/4PPPP/4K3 w - - 0 1"));
        // A locked pair and a capture each way: two moves.
        assert!(gate("4k3/8/8/3p4/2pP4/2P5/8/4K3 w - - 0 1"));
        // Captures of pieces count: two and a push, then fourteen.
        assert!(gate("4k3/8/8/n1n5/1P6/8/8/4K3 w - - 0 1"));
        assert!(!gate("4k3/8/8/nnnnnnnn/PPPPPPPP/8/8/4K3 w - - 0 1"));
    }

    #[test]
    fn a_helpmate_for_either_side_means_alive() {
        // Black can still mate with the rook even though White cannot.
        let pos: Position = "4k3/8/8/8/8/8/8/r3K3 w - - 0 1".parse().unwrap();
        assert!(!is_dead(&pos, Budget::FULL));
        let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 1".parse().unwrap();
        assert!(is_dead(&wall, Budget::QUICK));
    }
}
