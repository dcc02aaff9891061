//! Who can still checkmate: a sound unwinnability analysis for dead
//! positions (FIDE 5.2.2) and flag fall (6.9).
//!
//! The question is cooperative: can `winner` checkmate by *any* series of
//! legal moves, both sides helping? The answer is one of
//! [`Winnability::Winnable`] with a helpmate (the proof: legal moves ending in
//! `winner` mating), [`Winnability::Unwinnable`] (proven) or
//! [`Winnability::Undetermined`] (the node budget ran out).
//!
//! The method follows the idea of M. Ambrona, "A Practical Algorithm for
//! Chess Unwinnability" (FUN 2022), with its own design:
//!
//! 1. Static tests that prove unwinnability: material that cannot mate
//!    (a bare king; a lone knight against a bare king or against queens
//!    only; bishops of one square colour against nothing that could block
//!    on the other colour, or against queens and rooks only, with no pawn
//!    on the board), and pawn walls locked for good or bound to lock
//!    (every pawn meets an enemy pawn on its file and none can ever
//!    capture; no piece able to reach a square where a pawn could capture
//!    it or be captured; and no square the losing king can reach where the
//!    winner could check it while covering, or the loser filling, every
//!    way out, one man a square).
//! 2. Guided play-outs: lines in which the winner's pieces head for the
//!    losing king and the losing king heads for a corner where the
//!    winner's material can mate, with a random tie-break, a mate in one
//!    taken whenever there is one. The loser's pieces gather next to the
//!    corner or the king as blockers, or (in some play-outs) its queens and
//!    rooks are given to the winning king, or the winning king goes for
//!    the loser's pawns that block its own (more often when none of its
//!    pawns can move), then back to help mate. Near the corner, a full
//!    search of a winner's move, a reply and a mate. Most ordinary
//!    positions get their helpmate here.
//! 3. A short full-width search (mate within three plies) with a
//!    transposition table.
//! 4. A breadth-first walk over every position reachable from the start,
//!    pruned where a static test proves the winner cannot mate. A walk that
//!    runs out of positions proves [`Winnability::Unwinnable`]; one that meets a
//!    mate gives a shortest helpmate.
//!
//! Play-outs and walk take turns with doubling shares of the budget (the
//! walk resumes where it stopped), so that an easy helpmate costs little
//! walking and a small world little play.
//!
//! The parts have a module each: `static_proofs` (1), `playouts` (2 and
//! 3), `walk` (4), and `hasher` for the sets and maps of positions they
//! keep; this one holds the API and the driver that shares the budget out.
//!
//! Every phase counts the positions it visits against one node budget
//! ([`SearchBudget`]). As in the paper, the clocks and repetitions are not part of
//! the question (the 50- and 75-move rules and fivefold repetition are left
//! out), and positions are told apart by two independent 64-bit hashes.

mod hasher;
mod playouts;
mod static_proofs;
mod walk;

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Role};

use playouts::Search;
use static_proofs::{FloodCache, material_cannot_mate, walled_in};
use walk::{Walk, Walker};

/// The answer for one colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Winnability {
    /// The colour can mate: the moves (from the position analysed, both
    /// sides in turn) end with that colour checkmating.
    Winnable(Vec<Move>),
    /// Proven: no series of legal moves lets the colour checkmate.
    Unwinnable,
    /// The budget ran out before a proof either way.
    Undetermined,
}

impl Winnability {
    /// The name used on the wire and in the CLI: `WINNABLE`, `UNWINNABLE`
    /// or `UNDETERMINED`.
    pub const fn name(&self) -> &'static str {
        match self {
            Winnability::Winnable(_) => "WINNABLE",
            Winnability::Unwinnable => "UNWINNABLE",
            Winnability::Undetermined => "UNDETERMINED",
        }
    }
}

/// How much work one analysis (one position, one colour) may do, in
/// positions visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchBudget {
    /// Positions visited before giving up with [`Winnability::Undetermined`].
    pub nodes: u64,
}

impl SearchBudget {
    /// The default for per-ply use (quick mode): small, as it may be spent
    /// at every ply.
    pub const QUICK: SearchBudget = SearchBudget { nodes: 2_000 };
    /// The default for a final position or a single query (full mode):
    /// large, as it is spent once per colour and the hardest composed
    /// positions need it; ordinary ones are decided with a small part of
    /// it.
    pub const FULL: SearchBudget = SearchBudget { nodes: 1_000_000 };
}

impl Default for SearchBudget {
    fn default() -> SearchBudget {
        SearchBudget::FULL
    }
}

/// Whether `winner` can still checkmate in `pos`.
///
/// ```
/// use arbiter_chess::{analyse, SearchBudget, Winnability};
/// use arbiter_chess::{Color, Position};
/// // A locked pawn wall: neither king can ever get through.
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert_eq!(analyse(&wall, Color::White, SearchBudget::FULL), Winnability::Unwinnable);
/// let start = Position::default();
/// assert!(matches!(analyse(&start, Color::Black, SearchBudget::FULL), Winnability::Winnable(_)));
/// ```
pub fn analyse(pos: &Position, winner: Color, budget: SearchBudget) -> Winnability {
    Analyser::new(pos, winner, budget).run(budget)
}

/// One analysis (one position, one colour) that can be given more budget
/// and then resumes where it stopped, up to a ceiling fixed at the start:
/// [`crate::rules::dead::is_dead`] asks both colours with growing budgets,
/// since a helpmate for either settles its question. Run once with the
/// ceiling as its budget, it is [`analyse`], step for step.
pub(crate) struct Analyser {
    state: State,
}

/// Where an [`Analyser`] stands.
enum State {
    Decided(Winnability),
    Open(Box<OpenAnalysis>),
}

/// The work of an analysis still open.
struct OpenAnalysis {
    pos: Position,
    search: Search,
    walk: Walker,
    /// The share of the budget each phase gets this turn.
    share: u64,
    /// Whose turn it is: the play-outs' or the walk's.
    walking: bool,
    /// Where the current phase's share ends, in positions visited (`None`
    /// until the phase has started).
    end: Option<u64>,
    /// The most positions the analysis may ever visit.
    ceiling: u64,
}

impl Analyser {
    /// An analysis of whether `winner` can mate in `pos` that will never
    /// visit more than `ceiling` positions. The static tests run here.
    pub(crate) fn new(pos: &Position, winner: Color, ceiling: SearchBudget) -> Analyser {
        let state = if pos.turn() != winner && pos.is_check() && !pos.has_legal_moves() {
            // Already mated: the empty line is the proof.
            State::Decided(Winnability::Winnable(Vec::new()))
        } else if statically_unwinnable(pos, winner) {
            State::Decided(Winnability::Unwinnable)
        } else {
            State::Open(Box::new(OpenAnalysis {
                pos: pos.clone(),
                search: Search::new(pos, winner, ceiling.nodes),
                walk: Walker::new(pos),
                share: 64,
                walking: false,
                end: None,
                ceiling: ceiling.nodes,
            }))
        };
        Analyser { state }
    }

    /// Goes on until a verdict or `budget` positions visited in all (at
    /// most the ceiling); an open question stays open for a later call.
    pub(crate) fn run(&mut self, budget: SearchBudget) -> Winnability {
        let open = match &mut self.state {
            State::Decided(verdict) => return verdict.clone(),
            State::Open(open) => open,
        };
        let verdict = open.run(budget.nodes.min(open.ceiling));
        if verdict != Winnability::Undetermined {
            self.state = State::Decided(verdict.clone());
        }
        verdict
    }
}

impl OpenAnalysis {
    fn run(&mut self, limit: u64) -> Winnability {
        let (pos, search, walk) = (&self.pos, &mut self.search, &mut self.walk);
        search.limit = limit;
        // Play-outs find most helpmates; the exhaustive walk proves the
        // positions whose reachable set is small. Neither knows in advance
        // which kind of position it faces, so they take turns with growing
        // shares of the budget, the walk resuming where it stopped: an easy
        // answer of either kind costs little of the other.
        loop {
            if !self.walking {
                let end = *self.end.get_or_insert(search.used + self.share);
                if let Some(line) = search.playouts(pos, end) {
                    return Winnability::Winnable(line);
                }
                if search.used >= end {
                    (self.walking, self.end) = (true, None);
                }
                if search.used >= search.limit {
                    return Winnability::Undetermined;
                }
                continue;
            }
            let end = match self.end {
                Some(end) => end,
                None => {
                    if self.share == 256
                        && let Some(line) = search.mate_in_three(pos)
                    {
                        return Winnability::Winnable(line);
                    }
                    // A walk whose queue outgrows what is left of the
                    // budget will not finish: its shares go to the
                    // play-outs instead.
                    let left = self.ceiling.saturating_sub(search.used);
                    if walk.queue.len() as u64 > left.saturating_mul(2) {
                        (self.walking, self.share) = (false, self.share * 2);
                        if search.used >= search.limit {
                            return Winnability::Undetermined;
                        }
                        continue;
                    }
                    *self.end.insert(search.used + self.share)
                }
            };
            match walk.resume(search, end) {
                Walk::Mate(line) => return Winnability::Winnable(line),
                Walk::Exhausted => return Winnability::Unwinnable,
                Walk::OutOfBudget => {}
            }
            if search.used >= end {
                (self.walking, self.end, self.share) = (false, None, self.share * 2);
            }
            if search.used >= search.limit {
                return Winnability::Undetermined;
            }
        }
    }
}

/// Whether `line`, played from `start`, is legal move by move and ends
/// with `winner` checkmating: the check of a [`Winnability::Winnable`]
/// helpmate.
///
/// ```
/// use arbiter_chess::{analyse, replays_to_mate, SearchBudget, Winnability};
/// use arbiter_chess::{Color, Position};
/// let start = Position::default();
/// let Winnability::Winnable(line) = analyse(&start, Color::Black, SearchBudget::FULL) else { panic!() };
/// assert!(replays_to_mate(&start, Color::Black, &line));
/// assert!(!replays_to_mate(&start, Color::White, &line));
/// ```
pub fn replays_to_mate(start: &Position, winner: Color, line: &[Move]) -> bool {
    let mut pos = start.clone();
    for &m in line {
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
    }
    pos.turn() == !winner && pos.is_check() && !pos.has_legal_moves()
}

/// A cheap gate for per-ply checks: `false` means `pos` is certainly not
/// dead beyond what [`crate::rules::outcome::is_insufficient_material`]
/// sees, so the analysis can be skipped. It holds when there are pawns and
/// none of them can move now (every pawn stands in front of a pawn and has
/// nothing to capture), the shape of a locked wall.
///
/// ```
/// use arbiter_chess::may_be_dead;
/// use arbiter_chess::Position;
/// assert!(!may_be_dead(&Position::default()));
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(may_be_dead(&wall));
/// ```
pub fn may_be_dead(pos: &Position) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() {
        return false;
    }
    let white = pawns & pos.by_color(Color::White);
    let black = pawns & pos.by_color(Color::Black);
    // Every pawn has a pawn right in front of it.
    let blocked =
        (white.shift(8) & pawns).shift(-8) == white && (black.shift(-8) & pawns).shift(8) == black;
    blocked
        && pawn_captures(pos, Color::White).is_empty()
        && pawn_captures(pos, Color::Black).is_empty()
}

/// Squares `color`'s pawns attack that hold an enemy piece.
fn pawn_captures(pos: &Position, color: Color) -> Bitboard {
    let mut attacked = Bitboard::EMPTY;
    for sq in pos.pieces(Piece { color, role: Role::Pawn }) {
        attacked |= attacks::pawn_attacks(color, sq);
    }
    attacked & pos.by_color(!color)
}

/// The static tests: material that cannot mate, or a pawn wall locked for
/// good that the winner's pieces cannot get through.
///
/// ```
/// use arbiter_chess::statically_unwinnable;
/// use arbiter_chess::{Color, Position};
/// let kn_k: Position = "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1".parse().unwrap();
/// assert!(statically_unwinnable(&kn_k, Color::White));
/// assert!(statically_unwinnable(&kn_k, Color::Black));
/// ```
pub fn statically_unwinnable(pos: &Position, winner: Color) -> bool {
    material_cannot_mate(pos, winner) || walled_in(pos, winner, &mut FloodCache::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen_lenient_material(fen).unwrap()
    }

    fn verdict(fen: &str, winner: Color) -> Winnability {
        let p = pos(fen);
        let v = analyse(&p, winner, SearchBudget::FULL);
        if let Winnability::Winnable(line) = &v {
            assert!(replays_to_mate(&p, winner, line), "{fen}: {line:?}");
        }
        v
    }

    #[test]
    fn blockers_make_minor_pieces_winnable() {
        assert!(matches!(
            verdict("k7/8/8/8/8/8/8/1N2K1b1 w - - 0 1", Color::White),
            Winnability::Winnable(_)
        ));
        // The loser's own knight on g8 makes Bg7 mate. (From far away, a
        // bishop against a knight is often left UNDETERMINED.)
        assert!(matches!(
            verdict("5Bnk/8/6K1/8/8/8/8/8 w - - 0 1", Color::White),
            Winnability::Winnable(_)
        ));
    }

    #[test]
    fn a_resumed_analysis_reaches_the_same_verdicts() {
        for fen in [
            "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1",
            "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
            "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101",
            "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101",
            "5k2/1bB5/6p1/6P1/8/7p/3K3P/8 w - - 28 101",
            crate::board::fen::STARTING_FEN,
        ] {
            let p = pos(fen);
            for winner in Color::ALL {
                let whole = analyse(&p, winner, SearchBudget::FULL);
                let mut analyser = Analyser::new(&p, winner, SearchBudget::FULL);
                let mut nodes = 1;
                let resumed = loop {
                    match analyser.run(SearchBudget { nodes }) {
                        Winnability::Undetermined if nodes < SearchBudget::FULL.nodes => nodes *= 3,
                        v => break v,
                    }
                };
                match (&whole, &resumed) {
                    (Winnability::Winnable(a), Winnability::Winnable(b)) => {
                        assert!(replays_to_mate(&p, winner, a), "{fen} {winner:?}");
                        assert!(replays_to_mate(&p, winner, b), "{fen} {winner:?}");
                    }
                    _ => assert_eq!(whole, resumed, "{fen} {winner:?}"),
                }
                // A decided analysis keeps its verdict.
                assert_eq!(analyser.run(SearchBudget { nodes: 1 }), resumed);
            }
        }
    }

    #[test]
    fn ordinary_positions_are_winnable() {
        for fen in [
            crate::board::fen::STARTING_FEN,
            "8/8/8/1R4B1/4k1p1/2P5/5PKP/8 b - - 1 45",
            "6k1/6pp/8/1p1N4/8/p6P/5PPK/8 b - - 1 45",
        ] {
            for c in Color::ALL {
                assert!(matches!(verdict(fen, c), Winnability::Winnable(_)), "{fen} {c:?}");
            }
        }
    }
}
