//! `pgn_table(..., analysis=True)`'s columns: what each game was, as the
//! `"analysis"` of its `arbiter pgn --json --analysis` line says, flattened
//! to one value per column. A game without an analysis (unreadable), an
//! opening (not from the standard start, or in no table line) or a time
//! record has nulls there.

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{Float64Builder, StringBuilder, UInt32Builder};

use arbiter::proto;

/// The columns of the opening and the phases, in the table's order.
const GAME_COLUMNS: [&str; 6] =
    ["eco", "opening", "opening_family", "opening_ply", "middlegame_ply", "endgame_ply"];

/// Each side's time-use columns, White's then Black's: the `timeUse`
/// entry's `timedMoves`, `meanMs`, `cv`, `minWindowCv`, `fastMoves`,
/// `instantMoves` and `forcedMoves`.
const SIDE_COLUMNS: [[&str; 7]; 2] = [
    [
        "white_timed_moves",
        "white_mean_ms",
        "white_cv",
        "white_min_window_cv",
        "white_fast_moves",
        "white_instant_moves",
        "white_forced_moves",
    ],
    [
        "black_timed_moves",
        "black_mean_ms",
        "black_cv",
        "black_min_window_cv",
        "black_fast_moves",
        "black_instant_moves",
        "black_forced_moves",
    ],
];

/// The sides, in the order of [`SIDE_COLUMNS`].
const SIDES: [proto::Color; 2] = [proto::Color::White, proto::Color::Black];

/// One side's time-use columns being filled.
#[derive(Debug, Default)]
struct SideColumns {
    timed_moves: UInt32Builder,
    mean_ms: Float64Builder,
    cv: Float64Builder,
    min_window_cv: Float64Builder,
    fast_moves: UInt32Builder,
    instant_moves: UInt32Builder,
    forced_moves: UInt32Builder,
}

impl SideColumns {
    fn push(&mut self, time_use: Option<&proto::TimeUse>) {
        self.timed_moves.append_option(time_use.map(|t| t.timed_moves));
        self.mean_ms.append_option(time_use.map(|t| t.mean_ms));
        self.cv.append_option(time_use.and_then(|t| t.cv));
        self.min_window_cv.append_option(time_use.and_then(|t| t.min_window_cv));
        self.fast_moves.append_option(time_use.map(|t| t.fast_moves));
        self.instant_moves.append_option(time_use.map(|t| t.instant_moves));
        self.forced_moves.append_option(time_use.map(|t| t.forced_moves));
    }

    fn finish(&mut self) -> [ArrayRef; 7] {
        [
            Arc::new(self.timed_moves.finish()),
            Arc::new(self.mean_ms.finish()),
            Arc::new(self.cv.finish()),
            Arc::new(self.min_window_cv.finish()),
            Arc::new(self.fast_moves.finish()),
            Arc::new(self.instant_moves.finish()),
            Arc::new(self.forced_moves.finish()),
        ]
    }
}

/// The analysis columns being filled.
#[derive(Debug, Default)]
pub struct AnalysisColumns {
    eco: StringBuilder,
    opening: StringBuilder,
    opening_family: StringBuilder,
    opening_ply: UInt32Builder,
    middlegame_ply: UInt32Builder,
    endgame_ply: UInt32Builder,
    sides: [SideColumns; 2],
}

impl AnalysisColumns {
    /// Appends one game's values: `analysis`'s, or nulls without one.
    pub fn push(&mut self, analysis: Option<&proto::GameAnalysis>) {
        let opening = analysis.and_then(|a| a.opening.as_ref());
        self.eco.append_option(opening.map(|o| &o.eco));
        self.opening.append_option(opening.map(|o| &o.name));
        // The family by its enum value's name, as the JSON line has it.
        self.opening_family.append_option(
            opening.and_then(|o| {
                proto::OpeningFamily::try_from(o.family).ok().map(|f| f.as_str_name())
            }),
        );
        self.opening_ply.append_option(opening.map(|o| o.ply));
        let phases = analysis.and_then(|a| a.phases);
        self.middlegame_ply.append_option(phases.and_then(|p| p.middlegame_ply));
        self.endgame_ply.append_option(phases.and_then(|p| p.endgame_ply));
        for (columns, side) in self.sides.iter_mut().zip(SIDES) {
            let time_use = analysis
                .and_then(|a| a.time_use.iter().find(|time_use| time_use.side == side as i32));
            columns.push(time_use);
        }
    }

    /// The columns so far, by name in the table's order, the builders
    /// emptied.
    pub fn finish(&mut self) -> Vec<(&'static str, ArrayRef)> {
        let game: [ArrayRef; 6] = [
            Arc::new(self.eco.finish()),
            Arc::new(self.opening.finish()),
            Arc::new(self.opening_family.finish()),
            Arc::new(self.opening_ply.finish()),
            Arc::new(self.middlegame_ply.finish()),
            Arc::new(self.endgame_ply.finish()),
        ];
        let mut columns: Vec<(&'static str, ArrayRef)> =
            GAME_COLUMNS.into_iter().zip(game).collect();
        for (names, side) in SIDE_COLUMNS.iter().zip(&mut self.sides) {
            columns.extend(names.iter().copied().zip(side.finish()));
        }
        columns
    }
}
