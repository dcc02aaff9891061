//! What a checked game was ([`GameAnalysis`]), found as the check plays its
//! mainline: a check asked for it
//! ([`CheckOptions::include_analysis`](crate::CheckOptions::include_analysis))
//! gives each accepted move's board to an [`Analyzer`], with whether the
//! mover was forced where the move's time may be known, and the times
//! come at the end from the clock record (`[%emt]`, else consecutive
//! `[%clk]` readings: [`ClockReport::elapsed_ms`]). Nothing is played
//! twice, and a check that does not ask pays one test a move.

use arbiter_chess::{Analyzer, GameAnalysis};

use super::clock::ClockReport;
use super::parse::MoveNode;
use super::plays::PlaysText;

/// What sees each accepted mainline move as the check plays it.
pub(crate) trait MainlineWatch<G> {
    /// After a move was played in `game` (it was legal).
    fn played(&mut self, game: &G);
}

/// The analysis fed ply by ply.
pub(crate) struct PlyWatch {
    analyzer: Box<Analyzer>,
    /// Which of the mainline's moves may have a known time: only a move
    /// with a comment has a clock reading or an emt.
    commented: Vec<bool>,
    /// The legal moves (to two) of the next move, if it is commented.
    legal_moves: Option<usize>,
    /// Moves played.
    plies: usize,
}

impl PlyWatch {
    /// The watch of the mainline `moves`, played from `start`.
    pub(crate) fn new<G: PlaysText>(
        mut analyzer: Box<Analyzer>,
        moves: &[MoveNode],
        start: &G,
    ) -> PlyWatch {
        let commented: Vec<bool> = moves.iter().map(MoveNode::has_comment).collect();
        // A game whose first move has a comment has its clock on most
        // moves, each with a time to keep.
        if commented.first() == Some(&true) {
            analyzer.reserve(moves.len());
        }
        let legal_moves = (commented.first() == Some(&true)).then(|| start.legal_moves_to_two());
        PlyWatch { analyzer, commented, legal_moves, plies: 0 }
    }

    pub(crate) fn into_analyzer(self) -> Box<Analyzer> {
        self.analyzer
    }
}

/// The analysis fed ply by ply, or none: the check as it runs without it
/// tests one `Option` a ply.
impl<G: PlaysText> MainlineWatch<G> for Option<PlyWatch> {
    #[inline(always)]
    fn played(&mut self, game: &G) {
        if let Some(watch) = self {
            watch.see(game);
        }
    }
}

impl PlyWatch {
    /// The board after the next move. Out of line: inlined, it held
    /// registers in the loop of every check, analysed or not.
    #[inline(never)]
    fn see<G: PlaysText>(&mut self, game: &G) {
        self.analyzer.push_untimed(game.board(), self.legal_moves);
        self.plies += 1;
        // The next move is played from here.
        let next_commented = self.commented.get(self.plies) == Some(&true);
        self.legal_moves = next_commented.then(|| game.legal_moves_to_two());
    }
}

/// The analysis of a checked mainline, with the plies' times and the time
/// control from its clock record, if it has one.
pub(crate) fn finish_analysis(analyzer: Analyzer, clock: Option<&ClockReport>) -> GameAnalysis {
    let Some(report) = clock else { return analyzer.finish_with_times(&[]) };
    let analyzer = match report.control.as_ref().and_then(|control| control.as_ref().ok()) {
        Some(control) => analyzer.with_control(control),
        None => analyzer,
    };
    analyzer.finish_with_times(&report.elapsed_ms)
}
