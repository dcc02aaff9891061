//! What a game was: its opening (lichess's chess-openings table, compiled
//! in), its phases (lichess's Divider) and how each side spent its time
//! (lichess's move-time statistics). Engine-free, by stated rules; the
//! rules are in `docs/rules.md`.
//!
//! A replay feeds an [`Analyzer`] ply by ply, the board after each ply with
//! the legal moves its mover had and the time the move took, and keeps no
//! position: the analyzer holds a few counters and the known move times.
//! A check that learns the times only after its last move (a PGN game's
//! clock record) feeds it as it plays ([`Analyzer::push_untimed`]) and
//! gives the times at the end ([`Analyzer::finish_with_times`]): the game
//! is played once.

pub mod opening;
pub mod phases;
pub mod time_use;

use std::sync::LazyLock;

use crate::board::bitboard::Bitboard;
use crate::board::movegen::MoveSink;
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Role, Square};
use crate::rules::clock::control::TimeControl;
use crate::rules::game::Replayer;
use crate::rules::start::{GamePosition, Rules};

use opening::{Opening, OpeningSearch, same_epd};
use phases::{Divider, Phases};
use time_use::{MoveTime, TimeUse, long_enough};

/// What a game was.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// The opening: standard chess from the standard start only, and only
    /// when one of the first 40 positions is in the table.
    pub opening: Option<Opening>,
    /// Where the middlegame and the endgame start.
    pub phases: Phases,
    /// Each side's time use, White first; empty when no move's time is
    /// known.
    pub time_use: Vec<TimeUse>,
}

impl GameAnalysis {
    /// What the game of a replayer's accepted moves was: `start` is the
    /// position the replayer started from, `times_ms` the time each ply
    /// took where known (unknown past its end), `control` the time
    /// control that lichess's consistency flags need. It plays the kept
    /// moves again from `start`, reading no text: only its callers pay.
    ///
    /// ```
    /// use arbiter_chess::{GameAnalysis, GamePosition, Replayer, ReplayOptions, Rules};
    /// let options = ReplayOptions::default();
    /// let start = GamePosition::new(Rules::Standard);
    /// let mut replayer = Replayer::new(start.clone(), options.analysis);
    /// replayer.extend(&["e4", "c5", "Nf3", "d6"], &options);
    /// let times = [Some(0), Some(0), Some(900)];
    /// let analysis = GameAnalysis::of_replay(&start, &replayer, &times, None);
    /// assert_eq!(analysis.opening.unwrap().eco, "B50");
    /// assert_eq!(analysis.time_use[0].total_ms, 900);
    /// assert_eq!(analysis.time_use[1].timed_moves, 0);
    /// ```
    pub fn of_replay(
        start: &GamePosition,
        replayer: &Replayer,
        times_ms: &[Option<u64>],
        control: Option<&TimeControl>,
    ) -> GameAnalysis {
        let mut analyzer = Analyzer::new(start);
        if let Some(control) = control {
            analyzer = analyzer.with_control(control);
        }
        let time = |i: usize| times_ms.get(i).copied().flatten();
        let plies = replayer.plies(0).enumerate();
        match start {
            GamePosition::Chess(start) => {
                let mut pos = start.clone();
                for (i, ply) in plies {
                    let ms = time(i);
                    // The legal moves count only for a timed move.
                    let legal = if ms.is_some() { legal_moves_to_two(&pos) } else { 0 };
                    let Some(m) = ply.uci.to_move(&pos) else {
                        debug_assert!(false, "a kept ply is legal where it was played");
                        break;
                    };
                    pos.play_unchecked(m);
                    analyzer.push(&pos, legal, ms);
                }
            }
            GamePosition::Variant(start) => {
                let mut pos = start.clone();
                for (i, ply) in plies {
                    let ms = time(i);
                    let legal = if ms.is_some() { pos.legal_moves().len() } else { 0 };
                    let Ok(m) = pos.parse_uci(&ply.uci.to_string()) else {
                        debug_assert!(false, "a kept ply is legal where it was played");
                        break;
                    };
                    pos.play_unchecked(m);
                    analyzer.push(pos.board(), legal, ms);
                }
            }
        }
        analyzer.finish()
    }
}

/// A game's analysis built ply by ply, as a replay plays it.
///
/// ```
/// use arbiter_chess::{Analyzer, GamePosition, Position, Rules, UciMove};
/// let mut analyzer = Analyzer::new(&GamePosition::new(Rules::Standard));
/// let mut pos = Position::default();
/// for (uci, ms) in [("e2e4", 0), ("c7c5", 0), ("g1f3", 1_200), ("d7d6", 800)] {
///     let legal = pos.legal_moves().len();
///     pos = pos.play(uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap());
///     analyzer.push(&pos, legal, Some(ms));
/// }
/// let analysis = analyzer.finish();
/// let opening = analysis.opening.unwrap();
/// assert_eq!(opening.name, "Sicilian Defense: Modern Variations");
/// assert_eq!((opening.eco, opening.ply), ("B50", 4));
/// assert_eq!(analysis.phases.middlegame_ply, None);
/// assert_eq!(analysis.time_use[0].total_ms, 1_200);
/// assert_eq!(analysis.time_use[1].timed_moves, 1);
/// ```
#[derive(Clone, Debug)]
pub struct Analyzer {
    /// The opening search, for standard chess from the standard start.
    opening: Option<OpeningSearch>,
    divider: Divider,
    /// Whether the divider still looks.
    dividing: bool,
    /// Plies pushed.
    plies: u32,
    /// Whether each side (by [`Color::index`]) has moved.
    moved: [bool; 2],
    /// Each side's moves of T: known times, its first move left out.
    timed: [Vec<MoveTime>; 2],
    /// Whether the control is long enough for lichess's consistency flags.
    long_enough: bool,
}

impl Analyzer {
    /// An analyzer of a game from `start`, under any rules: the phases and
    /// the time use read the board ([`GamePosition::board`]); the opening
    /// is named only in standard chess from the standard start (placement,
    /// side to move, castling and en passant; the move counters aside).
    ///
    /// ```
    /// use arbiter_chess::{Analyzer, GamePosition, Rules, Variant};
    /// let horde = GamePosition::new(Rules::Variant(Variant::Horde));
    /// let analysis = Analyzer::new(&horde).finish();
    /// assert_eq!(analysis.opening, None);
    /// // Black's 7 pieces beside the king are all of the board's: ≤ 10.
    /// assert_eq!(analysis.phases.middlegame_ply, Some(0));
    /// ```
    pub fn new(start: &GamePosition) -> Analyzer {
        let standard = &STANDARD.0;
        let standard_start = start.rules() == Rules::Standard && same_epd(start.board(), standard);
        if standard_start {
            // Same placement, same divider: the one made already.
            return STANDARD.1.clone();
        }
        Analyzer::of_board(start.board(), standard_start)
    }

    /// An analyzer of a game from the standard start: [`Analyzer::new`]
    /// of it, made once.
    ///
    /// ```
    /// use arbiter_chess::{Analyzer, GamePosition, Rules};
    /// let fresh = Analyzer::new(&GamePosition::new(Rules::Standard)).finish();
    /// assert_eq!(Analyzer::standard().finish(), fresh);
    /// ```
    pub fn standard() -> Analyzer {
        STANDARD.1.clone()
    }

    /// [`Analyzer::new`] of a start position whose board is `board`, the
    /// opening looked for when `standard_start`.
    fn of_board(board: &Position, standard_start: bool) -> Analyzer {
        let mut divider = Divider::default();
        let dividing = divider.see(board);
        Analyzer {
            opening: standard_start.then(OpeningSearch::default),
            divider,
            dividing,
            plies: 0,
            moved: [false; 2],
            timed: [Vec::new(), Vec::new()],
            long_enough: false,
        }
    }

    /// Judges the consistency flags under `control` (without one, they
    /// stay false).
    #[must_use]
    pub fn with_control(mut self, control: &TimeControl) -> Analyzer {
        self.long_enough = long_enough(control);
        self
    }

    /// The next ply: the board after it ([`GamePosition::board`] in a
    /// variant), the legal moves its mover had (in the position it was
    /// played from; counting to two is enough, see [`legal_moves_to_two`])
    /// and the time it took, if known.
    #[inline]
    pub fn push(&mut self, after: &Position, legal_moves: usize, ms: Option<u64>) {
        if let Some((mover, ply)) = self.see(after)
            && ms.is_some()
        {
            let legal_moves = u32::try_from(legal_moves).unwrap_or(u32::MAX);
            self.timed[mover.index()].push(MoveTime { ply, ms, legal_moves });
        }
    }

    /// The next ply, as [`Analyzer::push`] takes it, before its time is
    /// known: `legal_moves` is `None` for a ply whose time cannot be known
    /// (a PGN move without a comment), which then counts as untimed. The
    /// times come with [`Analyzer::finish_with_times`]. The two ways do
    /// not mix: an analyzer fed so is finished so.
    ///
    /// ```
    /// use arbiter_chess::{Analyzer, GamePosition, Position, Rules, UciMove};
    /// let (mut now, mut later) = (Analyzer::standard(), Analyzer::standard());
    /// let mut pos = Position::default();
    /// let times = [Some(0), Some(0), Some(1_200), None, Some(700)];
    /// for (i, uci) in ["d2d4", "g8f6", "c2c4", "e7e6", "b1c3"].into_iter().enumerate() {
    ///     let legal = pos.legal_moves().len();
    ///     pos = pos.play(uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    ///     now.push(&pos, legal, times[i]);
    ///     later.push_untimed(&pos, times[i].map(|_| legal));
    /// }
    /// let analysis = later.finish_with_times(&times);
    /// assert_eq!(analysis, now.finish());
    /// assert_eq!(analysis.time_use[0].total_ms, 1_900);
    /// ```
    #[inline(always)]
    pub fn push_untimed(&mut self, after: &Position, legal_moves: Option<usize>) {
        if let Some((mover, ply)) = self.see(after)
            && let Some(legal_moves) = legal_moves
        {
            let legal_moves = u32::try_from(legal_moves).unwrap_or(u32::MAX);
            self.timed[mover.index()].push(MoveTime { ply, ms: None, legal_moves });
        }
    }

    /// Room for the move times of `plies` more plies, ahead of their
    /// pushes.
    pub fn reserve(&mut self, plies: usize) {
        for timed in &mut self.timed {
            timed.reserve(plies / 2 + 1);
        }
    }

    /// Looks at the board after the next ply: its mover and its index,
    /// unless it was the mover's first move (which T leaves out).
    #[inline(always)]
    fn see(&mut self, after: &Position) -> Option<(Color, u32)> {
        let ply = self.plies;
        self.plies += 1;
        if let Some(search) = &mut self.opening {
            search.see(after);
        }
        if self.dividing {
            self.dividing = self.divider.see(after);
        }
        let mover = !after.turn();
        let first = !std::mem::replace(&mut self.moved[mover.index()], true);
        (!first).then_some((mover, ply))
    }

    /// The analysis of the plies pushed by [`Analyzer::push_untimed`],
    /// with the time each ply took where known (`times_ms[i]` for the
    /// ply played from the position after `i` plies; unknown past its
    /// end).
    pub fn finish_with_times(mut self, times_ms: &[Option<u64>]) -> GameAnalysis {
        for timed in &mut self.timed {
            timed.retain_mut(|m| {
                m.ms = times_ms.get(m.ply as usize).copied().flatten();
                m.ms.is_some()
            });
        }
        self.finish()
    }

    /// The analysis of the plies pushed.
    pub fn finish(self) -> GameAnalysis {
        let phases = self.divider.phases();
        let time_use = if self.timed.iter().any(|t| !t.is_empty()) {
            Color::ALL
                .iter()
                .map(|&side| {
                    TimeUse::of_timed(side, &self.timed[side.index()], &phases, self.long_enough)
                })
                .collect()
        } else {
            Vec::new()
        };
        GameAnalysis { opening: self.opening.and_then(|search| search.found), phases, time_use }
    }
}

/// The standard start, and an analyzer of a game from it.
static STANDARD: LazyLock<(Position, Analyzer)> = LazyLock::new(|| {
    let start = Position::default();
    let analyzer = Analyzer::of_board(&start, true);
    (start, analyzer)
});

/// How many legal moves the side to move has, counted to two: 0, 1, or 2
/// for two or more. All the time use asks of a position is whether its
/// move was forced (exactly one legal move), and most positions show a
/// second move among their first pieces, long before a full count ends.
///
/// ```
/// use arbiter_chess::{Position, legal_moves_to_two};
/// assert_eq!(legal_moves_to_two(&Position::default()), 2);
/// // Only the king may move, and to one square: a7.
/// let forced: Position = "k7/8/8/8/8/8/8/1R5K b - - 0 1".parse().unwrap();
/// assert_eq!((legal_moves_to_two(&forced), forced.legal_moves().len()), (1, 1));
/// let mate: Position = "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1".parse().unwrap();
/// assert_eq!(legal_moves_to_two(&mate), 0);
/// ```
#[inline]
pub fn legal_moves_to_two(pos: &Position) -> usize {
    let us = pos.turn();
    if pos.checkers().is_empty() {
        // Out of check, an unpinned pawn's step to an empty square is
        // legal: two of them settle it, as they do in most positions.
        let pawns = pos.pieces(Piece { color: us, role: Role::Pawn }) - pos.pinned();
        let steps = pawns.shift(us.fold(8, -8)) & !pos.occupied();
        if steps.0 & steps.0.wrapping_sub(1) != 0 {
            return 2;
        }
    }
    let king = Bitboard::from(pos.king_of(us));
    let mut count = ToTwo(0);
    // The other pieces first: their moves cost no test of the king's
    // squares, and a second one ends the count.
    pos.generate(!king, Bitboard::FULL, &mut count);
    if count.0 < 2 {
        pos.generate(king, Bitboard::FULL, &mut count);
    }
    count.0.min(2)
}

/// Counts moves to two, and asks for no more once it has two: each set of
/// targets counts as none, one or two (a population count a piece would
/// cost more than the rest of the count).
struct ToTwo(usize);

impl ToTwo {
    #[inline(always)]
    fn add(&mut self, targets: Bitboard) {
        let bits = targets.0;
        self.0 += usize::from(bits != 0) + usize::from(bits & bits.wrapping_sub(1) != 0);
    }
}

impl MoveSink for ToTwo {
    #[inline]
    fn piece(&mut self, _: Square, targets: Bitboard) {
        self.add(targets);
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _: i32) {
        self.add(targets);
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, _: i32) {
        // Four moves a target.
        self.0 += 2 * usize::from(targets.any());
    }
    #[inline]
    fn en_passant(&mut self, _: Square, to: Square) {
        self.add(to.into());
    }
    #[inline]
    fn castle(&mut self, _: Square, rook: Square) {
        self.add(rook.into());
    }
    #[inline]
    fn satisfied(&self) -> bool {
        self.0 >= 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted to two, the legal moves are the full count capped at two, in
    /// the positions of seeded random games (checks, pins and mates among
    /// them).
    #[test]
    fn legal_moves_to_two_is_the_count_capped() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut positions = 0;
        for _ in 0..200 {
            let mut pos = Position::default();
            for _ in 0..300 {
                let moves = pos.legal_moves();
                assert_eq!(legal_moves_to_two(&pos), moves.len().min(2), "{pos}");
                positions += 1;
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos = pos.play(moves[(seed % moves.len() as u64) as usize]);
            }
        }
        assert!(positions > 10_000);
    }
}
