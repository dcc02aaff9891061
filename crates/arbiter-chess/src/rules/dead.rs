//! Dead positions in a game (FIDE 5.2.2): which positions of a replay get
//! the unwinnability analysis, with what budget, and the verdict.
//!
//! Three looks, each behind a gate of a few bitboard operations:
//!
//! - **Every ply** passing [`per_ply_gate`] (pawns on the board, all of them
//!   blocked with nothing to capture, no queen or rook) gets the analysis
//!   with the per-ply budget (by default its static tests alone: locked
//!   walls and material), once per pawn structure and material
//!   ([`structure`]): an endgame behind blocked pawns is analysed when it
//!   arises, not at every move of its pieces. Very few plies of real games
//!   pass the gate.
//! - **The start position** of a request, past the wide gate
//!   [`worth_a_full_look`] (pawns on the board and at most
//!   [`FULL_LOOK_PAWN_MOVES`] pawn moves for both sides), gets the full
//!   analysis: composed positions come in this way, and the gate lets
//!   through nearly all the dead positions among CHA's hard test vectors.
//! - **The final position** of a game that has moved, past
//!   [`per_ply_gate`], gets the full analysis too.
//!
//! The wide gate stays off the final positions of move lists: about half
//! of the positions of ordinary games pass it, and the analysis, quick as
//! it is to find a helpmate in most, costs more than replaying the whole
//! game on average. The
//! gates only decide where to look: a position is called dead only when
//! the analysis proves that neither side can mate.

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Rank, Role};
use crate::rules::unwinnable::{Analyser, SearchBudget, Winnability, replays_to_mate};

pub use crate::rules::unwinnable::may_be_dead;

/// How much the unwinnability analysis may do for one replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Per colour, for a ply that passes [`per_ply_gate`].
    pub per_ply: SearchBudget,
    /// Per colour, for the start and final positions, a flag fall and the
    /// verdicts an answer reports.
    pub full: SearchBudget,
}

impl Analysis {
    /// The static tests alone per ply (locked pawn walls, material: a ply
    /// is so cheap to replay that even a small search in the few games that
    /// reach a blocked structure slows a whole collection of games down),
    /// and [`SearchBudget::FULL`] at the ends.
    pub const DEFAULT: Analysis =
        Analysis { per_ply: SearchBudget { nodes: 0 }, full: SearchBudget::FULL };
}

impl Default for Analysis {
    fn default() -> Analysis {
        Analysis::DEFAULT
    }
}

/// The most pawn moves (pushes and captures of both sides, whoever is to
/// move) a position may have for [`worth_a_full_look`] to let it through:
/// dead positions with more are rare among CHA's test vectors, ordinary
/// ones common.
pub const FULL_LOOK_PAWN_MOVES: u32 = 8;

/// The gate of the per-ply check: pawns on the board, all of them blocked
/// with nothing to capture ([`may_be_dead`]), and no queen or rook (with
/// which a real game is next to never dead). It keeps the analysis off
/// nearly every ply of real games.
///
/// ```
/// use arbiter_chess::per_ply_gate;
/// use arbiter_chess::Position;
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(per_ply_gate(&wall));
/// let rook: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/R3K3 w - - 0 1".parse().unwrap();
/// assert!(!per_ply_gate(&rook));
/// ```
pub fn per_ply_gate(pos: &Position) -> bool {
    (pos.by_role(Role::Queen) | pos.by_role(Role::Rook)).is_empty() && may_be_dead(pos)
}

/// What the per-ply check remembers of a position it analysed: a hash of
/// each side's pawns and of how many pieces of each kind (bishops by square
/// colour) each side has. Positions that share it differ only in where the
/// pieces other than pawns stand. Never 0.
pub fn structure(pos: &Position) -> u64 {
    let pawns = pos.by_role(Role::Pawn);
    let mut h = (pawns & pos.by_color(Color::White)).0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (pawns & pos.by_color(Color::Black)).0.rotate_left(23);
    for color in Color::ALL {
        let ours = pos.by_color(color);
        let bishops = pos.by_role(Role::Bishop) & ours;
        for count in [
            (pos.by_role(Role::Knight) & ours).count(),
            (bishops & Bitboard::LIGHT_SQUARES).count(),
            (bishops & Bitboard::DARK_SQUARES).count(),
            (pos.by_role(Role::Rook) & ours).count(),
            (pos.by_role(Role::Queen) & ours).count(),
        ] {
            h = (h ^ u64::from(count)).wrapping_mul(0x2545_f491_4f6c_dd1d);
        }
    }
    h | 1
}

/// The gate of the full analysis: pawns on the board, and at most
/// [`FULL_LOOK_PAWN_MOVES`] moves among them. Dead positions beyond
/// insufficient material are nearly all pawn structures that are locked or
/// about to be.
///
/// ```
/// use arbiter_chess::worth_a_full_look;
/// use arbiter_chess::Position;
/// assert!(!worth_a_full_look(&Position::default()));
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(worth_a_full_look(&wall));
/// ```
pub fn worth_a_full_look(pos: &Position) -> bool {
    pos.by_role(Role::Pawn).any() && pawn_moves(pos, FULL_LOOK_PAWN_MOVES) <= FULL_LOOK_PAWN_MOVES
}

/// The pawn moves of both sides, whoever is to move (pushes and captures,
/// pins and en passant left out), counted up to a little over `cap`.
///
/// ```
/// use arbiter_chess::pawn_moves;
/// use arbiter_chess::Position;
/// assert_eq!(pawn_moves(&Position::default(), 100), 32);
/// ```
pub fn pawn_moves(pos: &Position, cap: u32) -> u32 {
    let pawns = pos.by_role(Role::Pawn);
    let empty = !pos.occupied();
    let mut moves = 0;
    for color in Color::ALL {
        let ours = pawns & pos.by_color(color);
        let up = color.fold(8, -8);
        let single = ours.shift(up) & empty;
        let double = (single & Bitboard::relative_rank(color, Rank::Third)).shift(up) & empty;
        moves += single.count() + double.count();
        if moves > cap {
            return moves;
        }
    }
    for color in Color::ALL {
        for sq in pos.pieces(Piece { color, role: Role::Pawn }) {
            moves += (attacks::pawn_attacks(color, sq) & pos.by_color(!color)).count();
        }
    }
    moves
}

/// The budget per colour of [`is_dead`]'s first look: measured on the
/// final positions of random games behind [`per_ply_gate`], starting at
/// 256 and growing fourfold cost less than starting at 128, 1,000 or
/// [`SearchBudget::QUICK`], or growing two- or eightfold.
pub const FIRST_LOOK: SearchBudget = SearchBudget { nodes: 256 };

/// Whether the analysis proves, within `budget` per colour, that neither
/// side can mate: [`examine`] found the position [`Finding::Dead`].
///
/// ```
/// use arbiter_chess::is_dead;
/// use arbiter_chess::SearchBudget;
/// use arbiter_chess::Position;
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(is_dead(&wall, SearchBudget::FULL));
/// assert!(!is_dead(&Position::default(), SearchBudget::FULL));
/// ```
pub fn is_dead(pos: &Position, budget: SearchBudget) -> bool {
    examine(pos, budget) == Finding::Dead
}

/// What [`examine`] found about a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Proven: neither side can mate.
    Dead,
    /// `winner` mates by `line` (legal moves from the position, both sides
    /// in turn): the proof that the position is not dead.
    Alive { winner: Color, line: Vec<Move> },
    /// The budget ran out before either: not proven dead.
    Undetermined,
}

/// The longest helpmate [`Finding::after`] carries over (the line grows by
/// three plies a move): checking one costs far less than a new analysis of
/// the blocked endings of random games.
pub const CARRIED_PLIES: usize = 128;

impl Finding {
    /// This finding about the position before `m`, carried over to `after`
    /// (the position `m` reaches) when a helpmate still proves it alive:
    /// the rest of the line if it began with `m`, else the line behind a
    /// tempo of the side to move, `m` taken back and the tempo taken back
    /// (`[n, m⁻¹, n⁻¹] ++ line`), either checked move by move from `after`
    /// to the mate ([`replays_to_mate`]). `None`
    /// when no such proof holds (a capture, a pawn move, a line grown past
    /// [`CARRIED_PLIES`], or a finding other than a helpmate): the position
    /// then needs an analysis of its own.
    ///
    /// A sound analysis never proves dead a position with a helpmate, so
    /// a carried finding answers whether `after` is dead as [`examine`]
    /// would, without the search: a live game re-sent after every move is
    /// analysed again only when its proof breaks.
    ///
    /// ```
    /// use arbiter_chess::{examine, Finding};
    /// use arbiter_chess::{replays_to_mate, SearchBudget};
    /// use arbiter_chess::{Move, MoveKind, Position, Square};
    /// let pos: Position = "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101".parse().unwrap();
    /// let found = examine(&pos, SearchBudget::FULL);
    /// let m = Move::new(Square::C3, Square::D3, MoveKind::Normal);
    /// let after = pos.play(m);
    /// let Some(Finding::Alive { winner, line }) = found.after(m, &after) else { panic!() };
    /// assert!(replays_to_mate(&after, winner, &line));
    /// ```
    pub fn after(self, m: Move, after: &Position) -> Option<Finding> {
        let Finding::Alive { winner, mut line } = self else { return None };
        if line.first() == Some(&m) {
            // Checked all the same: a carried finding rests on the line
            // alone, never on how it was found.
            line.remove(0);
            return replays_to_mate(after, winner, &line)
                .then_some(Finding::Alive { winner, line });
        }
        let reversible = |pos: &Position, m: Move| {
            m.kind() == MoveKind::Normal
                && pos.role_at(m.from()) != Some(Role::Pawn)
                && !pos.occupied().contains(m.to())
        };
        // `m` was a pawn move (its pawn now stands on `m.to()`) or no
        // plain move: it cannot be taken back.
        if m.kind() != MoveKind::Normal
            || after.role_at(m.to()) == Some(Role::Pawn)
            || line.len() + 3 > CARRIED_PLIES
        {
            return None;
        }
        let back = Move::new(m.to(), m.from(), MoveKind::Normal);
        // Every tempo whose three moves are legal leads to the same board
        // (the tempo undone, `m` taken back): one is enough.
        let undone =
            after.legal_moves().into_iter().filter(|&n| reversible(after, n)).find_map(|n| {
                let mut pos = after.play(n);
                let tempo_back = Move::new(n.to(), n.from(), MoveKind::Normal);
                for m in [back, tempo_back] {
                    if !pos.is_legal(m) {
                        return None;
                    }
                    pos.play_unchecked(m);
                }
                Some((n, tempo_back, pos))
            });
        let (n, tempo_back, pos) = undone?;
        if !replays_to_mate(&pos, winner, &line) {
            return None;
        }
        line.splice(0..0, [n, back, tempo_back]);
        Some(Finding::Alive { winner, line })
    }

    /// Bytes held beside the finding itself, for bounded caches.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Finding::Alive { line, .. } => line.capacity() * size_of::<Move>(),
            Finding::Dead | Finding::Undetermined => 0,
        }
    }
}

/// The analysis of whether `pos` is dead, within `budget` per colour, with
/// what it found. A helpmate for either side settles the question, so both
/// are first asked with at most [`FIRST_LOOK`] (an ordinary position gives
/// one up in a few hundred positions visited); then the open questions get
/// budgets that grow fourfold in turn, each analysis resuming where it
/// stopped (`Analyser`), until a helpmate, both proofs, or
/// `budget`. A live position whose easier helpmate costs `n` positions
/// so costs a few times `n`, whichever colour has it, where a full
/// analysis of the other colour first could cost many times more.
///
/// ```
/// use arbiter_chess::{examine, Finding};
/// use arbiter_chess::{replays_to_mate, SearchBudget};
/// use arbiter_chess::Position;
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert_eq!(examine(&wall, SearchBudget::FULL), Finding::Dead);
/// let start = Position::default();
/// let Finding::Alive { winner, line } = examine(&start, SearchBudget::FULL) else { panic!() };
/// assert!(replays_to_mate(&start, winner, &line));
/// ```
pub fn examine(pos: &Position, budget: SearchBudget) -> Finding {
    let mut analysers = Color::ALL.map(|color| Analyser::new(pos, color, budget));
    let mut open = [true; 2];
    let mut nodes = budget.nodes.min(FIRST_LOOK.nodes);
    loop {
        for winner in Color::ALL {
            if !open[winner.index()] {
                continue;
            }
            match analysers[winner.index()].run(SearchBudget { nodes }) {
                Winnability::Winnable(line) => return Finding::Alive { winner, line },
                Winnability::Unwinnable => open[winner.index()] = false,
                Winnability::Undetermined => {}
            }
        }
        if open == [false; 2] {
            return Finding::Dead;
        }
        if nodes >= budget.nodes {
            return Finding::Undetermined;
        }
        nodes = nodes.saturating_mul(4).min(budget.nodes);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::unwinnable::statically_unwinnable;

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
        assert!(!is_dead(&pos, SearchBudget::FULL));
        let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 1".parse().unwrap();
        assert!(is_dead(&wall, SearchBudget::QUICK));
    }

    /// Final positions of random games behind the per-ply gate: each is
    /// alive, one colour's helpmate much cheaper than the other's.
    pub(crate) const LIVE_BLOCKED_ENDINGS: [&str; 4] = [
        "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101",
        "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101",
        "5k2/1bB5/6p1/6P1/8/7p/3K3P/8 w - - 28 101",
        "8/8/8/1p6/1P2b1n1/8/2k1K3/8 w - - 30 101",
    ];

    /// A random legal move of `pos` (xorshift64 on `rng`), if it has one.
    pub(crate) fn random_move(pos: &Position, rng: &mut u64) -> Option<Move> {
        let moves = pos.legal_moves();
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        (!moves.is_empty()).then(|| moves[(*rng % moves.len() as u64) as usize])
    }

    #[test]
    fn live_blocked_endings_are_not_dead_and_walls_are() {
        for fen in LIVE_BLOCKED_ENDINGS {
            let pos: Position = fen.parse().unwrap();
            assert!(per_ply_gate(&pos), "{fen}");
            assert!(!is_dead(&pos, SearchBudget::FULL), "{fen}");
        }
        // Dead: a wall the kings cannot pass, a bishop that never gets
        // near the king (proven by the walk, which the growing budgets
        // resume rather than restart).
        for fen in [
            "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
            "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1",
        ] {
            let pos: Position = fen.parse().unwrap();
            assert!(is_dead(&pos, SearchBudget::FULL), "{fen}");
            // With no budget, only the static tests prove anything.
            let statically = Color::ALL.into_iter().all(|c| statically_unwinnable(&pos, c));
            assert_eq!(is_dead(&pos, SearchBudget { nodes: 0 }), statically, "{fen}");
        }
    }

    /// Random games from blocked endings: wherever a helpmate is carried
    /// over to the next position, it mates from there and a new analysis
    /// does not find that position dead; only helpmates are carried.
    #[test]
    fn carried_helpmates_hold_and_agree_with_a_new_analysis() {
        let mut rng = 0x9e37_79b9_7f4a_7c15;
        let (mut carried, mut examined, mut taken_back) = (0, 0, 0);
        for fen in LIVE_BLOCKED_ENDINGS {
            let mut pos: Position = fen.parse().unwrap();
            let mut finding = examine(&pos, SearchBudget::FULL);
            for _ in 0..60 {
                let Some(m) = random_move(&pos, &mut rng) else { break };
                let after = pos.play(m);
                let line_began_with_m =
                    matches!(&finding, Finding::Alive { line, .. } if line.first() == Some(&m));
                finding = match finding.after(m, &after) {
                    Some(Finding::Alive { winner, line }) => {
                        assert!(replays_to_mate(&after, winner, &line), "{}", after.fen());
                        assert_ne!(
                            examine(&after, SearchBudget::FULL),
                            Finding::Dead,
                            "{}",
                            after.fen()
                        );
                        assert!(line.len() <= CARRIED_PLIES);
                        carried += 1;
                        taken_back += usize::from(!line_began_with_m);
                        Finding::Alive { winner, line }
                    }
                    Some(other) => panic!("carried {other:?}"),
                    None => {
                        examined += 1;
                        examine(&after, SearchBudget::FULL)
                    }
                };
                pos = after;
            }
        }
        assert!(carried > 2 * examined && taken_back > 0, "{carried} {examined} {taken_back}");
        // A verdict other than a helpmate is never carried.
        let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
        let m = Move::new(crate::Square::E1, crate::Square::D1, MoveKind::Normal);
        assert_eq!(Finding::Dead.after(m, &wall.play(m)), None);
        assert_eq!(Finding::Undetermined.after(m, &wall.play(m)), None);
    }
}
