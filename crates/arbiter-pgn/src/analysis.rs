//! What a checked game was ([`GameAnalysis`]) for a verdict: the one the
//! check found when asked ([`crate::CheckOptions::include_analysis`],
//! found as it played the mainline: see `watch.rs`), else the accepted
//! mainline played again.

use arbiter_chess::{Analysis, GameAnalysis, Notation, ReplayOptions, Replayer, SearchBudget};

use super::check::Verdict;
use super::parse::PgnGame;
use super::start::start_position;

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
