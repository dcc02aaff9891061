//! What a checked game was ([`GameAnalysis`]), found as the check plays its
//! mainline: a check asked for it ([`CheckOptions::include_analysis`](crate::CheckOptions::include_analysis))
//! gives each accepted move's board to an [`Analyzer`], with whether the
//! mover was forced where the move's time may be known, and the times
//! come at the end from the clock record (`[%emt]`, else consecutive
//! `[%clk]` readings: [`ClockReport::elapsed_ms`]). Nothing is played
//! twice, and a check that does not ask pays nothing.

use arbiter_chess::{
    Analysis, Analyzer, GameAnalysis, Notation, ReplayOptions, Replayer, SearchBudget,
};

use super::check::{PlaysText, Verdict};
use super::clock::ClockReport;
use super::parse::{MoveNode, PgnGame};
use super::start::start_position;

/// What sees each accepted mainline move as the check plays it.
pub(crate) trait Watch<G> {
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
impl<G: PlaysText> Watch<G> for Option<PlyWatch> {
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

/// What `game`, checked to `verdict`, was: its opening, its phases and
/// each side's time use where the clock record says. `None` when the game
/// has no start to play from (the verdict is then an error anyway).
///
/// A verdict checked with
/// [`CheckOptions::include_analysis`](crate::CheckOptions::include_analysis) carries it
/// ([`Verdict::analysis`]), and this returns a copy. For one checked
/// without, this plays the accepted mainline again from its start: a
/// caller that knows before the check should ask the check.
///
/// ```
/// use arbiter_pgn::{check_game_with, game_analysis, CheckOptions, GameReader};
/// let pgn = b"[TimeControl \"300+3\"]\n\n1. e4 { [%clk 0:05:00] } c5 { [%clk 0:05:00] } \
///     2. Nf3 { [%clk 0:04:58] } d6 { [%clk 0:04:55] } *\n";
/// let read = || GameReader::new(&pgn[..], Default::default()).next().unwrap().unwrap();
/// let report = check_game_with(read(), false, CheckOptions::DEFAULT);
/// let analysis = game_analysis(report.game.as_ref().unwrap(), report.verdict.as_ref().unwrap());
/// let analysis = analysis.unwrap();
/// assert_eq!(analysis.opening.unwrap().eco, "B50");
/// // 2. Nf3 took 5 s: 2 s off the clock and the 3 s increment; 2... d6 8 s.
/// assert_eq!(analysis.time_use[0].total_ms, 5_000);
/// assert_eq!(analysis.time_use[1].total_ms, 8_000);
/// // Asked of the check, the same, found in the one pass.
/// let asked = CheckOptions { include_analysis: true, ..CheckOptions::DEFAULT };
/// let report = check_game_with(read(), false, asked);
/// assert_eq!(report.verdict.unwrap().analysis.as_deref(), Some(&analysis));
/// ```
pub fn game_analysis(game: &PgnGame, verdict: &Verdict) -> Option<GameAnalysis> {
    if let Some(analysis) = &verdict.analysis {
        return Some(GameAnalysis::clone(analysis));
    }
    let start = start_position(game).ok()?;
    let moves: Vec<&str> = game
        .mainline
        .moves
        .iter()
        .take(verdict.plies)
        .map(|node| std::str::from_utf8(node.text.bytes(&game.text)).unwrap_or_default())
        .collect();
    // Only the positions are wanted: no unwinnability search.
    let none = SearchBudget { nodes: 0 };
    let analysis = Analysis { per_ply: none, full: none };
    let options = ReplayOptions {
        notation: Notation::Auto,
        skip_legal_moves: true,
        analysis,
        ..ReplayOptions::default()
    };
    let mut replayer = Replayer::new(start.clone(), analysis);
    replayer.extend(&moves, &options);
    let (times, control) = match &verdict.clock {
        Some(report) => (
            report.elapsed_ms.as_slice(),
            report.control.as_ref().and_then(|control| control.as_ref().ok()),
        ),
        None => (&[][..], None),
    };
    Some(GameAnalysis::of_replay(&start, &replayer, times, control))
}
