//! A game's clock record read against its time control: the `TimeControl`
//! tag, each mainline move's `[%clk]` (the mover's remaining time after
//! it) and `[%emt]` (the time it took). From them: the time each ply took
//! as the record implies it (what anti-cheat models take as input), and
//! the findings, one per event that the record and the control cannot
//! both be right about, or that shows time granted.
//!
//! With `tol` the tolerance (readings are often rounded to the second),
//! `inc` the increment of the period the move was made in and `bonus`
//! the next period's time when the move completes a period:
//!
//! - `START_ABOVE_BASE`: a side's first reading > the first period's time
//!   + `inc` + `tol`;
//! - `CLOCK_ROSE`: a reading > the side's previous reading + `inc` +
//!   `bonus` + `tol`: time was granted (lichess's "moretime", an arbiter's
//!   correction), a fact for the platform to judge;
//! - `EMT_MISMATCH`: |emt − (previous reading − reading + `inc` +
//!   `bonus`)| > `tol`, the implied time taken signed (a reading up to
//!   `tol` above what the side could have implies a negative time), on a
//!   ply without `CLOCK_ROSE` (time granted: that one finding stays);
//! - `PLAYED_AFTER_FLAG`: a reading < `inc` − `tol`, or an emt > the
//!   side's previous reading + `tol`;
//! - `FORFEIT_NOT_ON_MOVE`: `Termination "Time forfeit"` with a decisive
//!   result whose loser is not the side to move in the final position:
//!   only the side to move's clock runs.
//!
//! A sandclock, an unknown or unlimited control, or one that cannot be
//! read gives no periods: only the emts give times taken, and only
//! `FORFEIT_NOT_ON_MOVE` can be found.

use std::fmt;

use arbiter_chess::{Color, GameResult, Period, TimeControl, TimeControlError};

use super::parse::{ClockTime, MoveNode, PgnGame};
use super::terms::ResultToken;

/// What a clock finding says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockFindingKind {
    /// A side's first reading is above the time it started with.
    StartAboveBase,
    /// A reading is above what the side's previous reading allows: time
    /// was granted.
    ClockRose,
    /// The time a move took (`[%emt]`) is not what the readings imply.
    EmtMismatch,
    /// The move was made after its mover's flag fell.
    PlayedAfterFlag,
    /// Lost on time by a side that was not to move.
    ForfeitNotOnMove,
}

impl ClockFindingKind {
    /// Every kind, in declaration order.
    pub const ALL: [ClockFindingKind; 5] = [
        ClockFindingKind::StartAboveBase,
        ClockFindingKind::ClockRose,
        ClockFindingKind::EmtMismatch,
        ClockFindingKind::PlayedAfterFlag,
        ClockFindingKind::ForfeitNotOnMove,
    ];

    /// The stable name, as the contract's enum values end.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClockFindingKind::StartAboveBase => "START_ABOVE_BASE",
            ClockFindingKind::ClockRose => "CLOCK_ROSE",
            ClockFindingKind::EmtMismatch => "EMT_MISMATCH",
            ClockFindingKind::PlayedAfterFlag => "PLAYED_AFTER_FLAG",
            ClockFindingKind::ForfeitNotOnMove => "FORFEIT_NOT_ON_MOVE",
        }
    }
}

/// One event of a clock record, on a ply (from 1) and the side it
/// concerns, with the times that show it (in milliseconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockFinding {
    pub ply: usize,
    pub side: Color,
    pub kind: ClockFindingKind,
    /// The `[%clk]` reading at fault, or compared.
    pub reading_ms: Option<u64>,
    /// The `[%emt]` at fault, or compared.
    pub emt_ms: Option<u64>,
    /// The bound passed: the most a reading or an emt could be, the least
    /// a reading could be.
    pub limit_ms: Option<u64>,
    /// The time taken the readings imply, which the emt does not match;
    /// 0 where they imply less than nothing (a reading up to the
    /// tolerance above what the side could have).
    pub implied_ms: Option<u64>,
}

impl fmt::Display for ClockFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = self.side.name();
        let time = |ms: Option<u64>| ClockTime { millis: ms.unwrap_or_default() };
        let (reading, emt, limit) = (time(self.reading_ms), time(self.emt_ms), time(self.limit_ms));
        match self.kind {
            ClockFindingKind::StartAboveBase => {
                write!(f, "{side}'s first clock {reading} is above the {limit} it started with")
            }
            ClockFindingKind::ClockRose => {
                write!(f, "{side}'s clock rose to {reading}, above the {limit} it could have")
            }
            ClockFindingKind::EmtMismatch => write!(
                f,
                "{side}'s move took {emt} by its emt, {} by the clocks",
                time(self.implied_ms)
            ),
            ClockFindingKind::PlayedAfterFlag if self.reading_ms.is_some() => write!(
                f,
                "{side}'s clock {reading} is below the {limit} increment: its flag had fallen"
            ),
            ClockFindingKind::PlayedAfterFlag => {
                write!(f, "{side}'s move took {emt}, more than the {limit} it had left")
            }
            ClockFindingKind::ForfeitNotOnMove => {
                write!(f, "{side} lost on time, but its clock was not running: it was not to move")
            }
        }
    }
}

/// A game's clock record against its time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockReport {
    /// The `TimeControl` tag as written, if the game has one.
    pub tag: Option<String>,
    /// The `TimeControl` tag's control, or why it could not be read;
    /// `None` without the tag.
    pub control: Option<Result<TimeControl, TimeControlError>>,
    /// The time each accepted mainline ply took, as its `[%emt]` says,
    /// else as its reading and the mover's previous one imply (`None`
    /// where neither can say).
    pub elapsed_ms: Vec<Option<u64>>,
    /// The events, in ply order.
    pub findings: Vec<ClockFinding>,
}

impl ClockReport {
    /// The control's periods: none without a readable tag of them.
    pub fn periods(&self) -> &[Period] {
        match &self.control {
            Some(Ok(control)) => control.periods(),
            _ => &[],
        }
    }

    /// Why the `TimeControl` tag could not be read, if it could not.
    pub fn error(&self) -> Option<&TimeControlError> {
        self.control.as_ref().and_then(|control| control.as_ref().err())
    }
}

/// Where a side stands in the control, and its last reading.
#[derive(Clone, Copy, Debug, Default)]
struct Side {
    /// Moves made.
    moves: u32,
    /// Its current period, and the moves made in it.
    period: usize,
    in_period: u32,
    /// Its reading after its last move, when that move had one.
    reading: Option<u64>,
    /// Its time after its last move by the record: the reading, else the
    /// time before less the emt (plus increment and bonus), when known.
    time: Option<u64>,
}

impl Side {
    /// The increment of the move it makes now, and the time added when
    /// that move completes its period; moves on to the next period then.
    fn play(&mut self, periods: &[Period]) -> (u64, u64) {
        self.moves += 1;
        let Some(period) = periods.get(self.period) else { return (0, 0) };
        if period.moves == 0 {
            return (period.increment_ms, 0);
        }
        self.in_period += 1;
        if self.in_period < period.moves {
            return (period.increment_ms, 0);
        }
        self.in_period = 0;
        self.period = (self.period + 1).min(periods.len() - 1);
        (period.increment_ms, periods[self.period].time_ms)
    }
}

/// Reads the clock record of `game`'s first `plies` mainline moves (those
/// accepted), from a start with `turn` to move, with `tolerance_ms`.
/// `None` when the game has no `TimeControl` tag, no clock comment and no
/// finding.
///
/// ```
/// use arbiter_chess::Color;
/// use arbiter_pgn::{ClockFindingKind, clock_report, parse_game};
/// let game = parse_game(
///     b"[TimeControl \"60+1\"]\n\n1. e4 {[%clk 0:01:00]} e5 {[%clk 0:01:00]} \
///       2. Nf3 {[%clk 0:00:55]} Nc6 {[%clk 0:01:30]} *"
///         .to_vec(),
/// );
/// let report = clock_report(&game, 4, Color::White, 1000).unwrap();
/// assert_eq!(report.elapsed_ms, [None, None, Some(6_000), None]);
/// let rose = &report.findings[0];
/// assert_eq!((rose.ply, rose.side, rose.kind), (4, Color::Black, ClockFindingKind::ClockRose));
/// assert_eq!(rose.to_string(), "black's clock rose to 0:01:30, above the 0:01:01 it could have");
/// ```
pub fn clock_report(
    game: &PgnGame,
    plies: usize,
    turn: Color,
    tolerance_ms: u64,
) -> Option<ClockReport> {
    let tag = game.tag("TimeControl").map(std::borrow::Cow::into_owned);
    let control = tag.as_deref().map(|tag| tag.trim().parse::<TimeControl>());
    let periods = match &control {
        Some(Ok(control)) => control.periods(),
        _ => &[],
    };
    let base = periods.first().map(|p| p.time_ms);
    let moves = &game.mainline.moves[..plies.min(game.mainline.moves.len())];
    // Most games without a control have no comment either (a database's):
    // nothing to read.
    let commented = control.is_some() || moves.iter().any(MoveNode::has_comment);
    let mut sides = [Side::default(); 2];
    let mut elapsed_ms = Vec::with_capacity(plies);
    let mut findings = Vec::new();
    let mut read_any = false;
    for (i, node) in moves.iter().enumerate().take(if commented { plies } else { 0 }) {
        let mover = if i.is_multiple_of(2) { turn } else { !turn };
        let times = game.times(node);
        let (clk, emt) = (times.clk.map(|c| c.millis), times.emt.map(|c| c.millis));
        read_any |= clk.is_some() || emt.is_some();
        let side = &mut sides[mover.index()];
        let first = side.moves == 0;
        let previous = side.reading;
        // The time it had: by the record, or the base at its first move.
        let had = if first { base } else { side.time };
        let (inc, bonus) = side.play(periods);
        side.reading = clk;
        side.time =
            clk.or_else(|| had.zip(emt).and_then(|(h, e)| (h + inc + bonus).checked_sub(e)));
        let mut find = |kind, limit_ms, implied_ms| {
            findings.push(ClockFinding {
                ply: i + 1,
                side: mover,
                kind,
                reading_ms: clk,
                emt_ms: emt,
                limit_ms,
                implied_ms,
            });
        };
        // The time taken the readings imply, signed: a reading above what
        // the side could have implies less than nothing.
        let granted = previous.map(|p| p + inc + bonus);
        let implied = granted.zip(clk).map(|(granted, r)| i128::from(granted) - i128::from(r));
        let taken = implied.and_then(|t| u64::try_from(t).ok());
        elapsed_ms.push(emt.or(taken.filter(|_| base.is_some())));
        let Some(base) = base else { continue };
        let mut rose = false;
        if let Some(r) = clk {
            if first && r > base + inc + tolerance_ms {
                find(ClockFindingKind::StartAboveBase, Some(base + inc), None);
            }
            if let Some(granted) = granted
                && r > granted + tolerance_ms
            {
                find(ClockFindingKind::ClockRose, Some(granted), None);
                rose = true;
            }
            if r + tolerance_ms < inc {
                find(ClockFindingKind::PlayedAfterFlag, Some(inc), None);
            }
        }
        if let Some(e) = emt {
            // Time was granted where the clock rose: the emt cannot be
            // checked against the readings, and that one finding stays.
            if let Some(implied) = implied
                && !rose
                && (i128::from(e) - implied).unsigned_abs() > u128::from(tolerance_ms)
            {
                find(ClockFindingKind::EmtMismatch, None, Some(taken.unwrap_or(0)));
            }
            if let Some(had) = had
                && e > had + tolerance_ms
            {
                find(ClockFindingKind::PlayedAfterFlag, Some(had), None);
            }
        }
    }
    let final_turn = if plies.is_multiple_of(2) { turn } else { !turn };
    if lost_on_time(game)
        && let Some(loser) = decisive_loser(game)
        && loser != final_turn
    {
        findings.push(ClockFinding {
            ply: plies,
            side: loser,
            kind: ClockFindingKind::ForfeitNotOnMove,
            reading_ms: None,
            emt_ms: None,
            limit_ms: None,
            implied_ms: None,
        });
    }
    (control.is_some() || read_any || !findings.is_empty()).then_some(ClockReport {
        tag,
        control,
        elapsed_ms,
        findings,
    })
}

/// The side a decisive result says lost: the `Result` tag's, else the
/// result token's.
fn decisive_loser(game: &PgnGame) -> Option<Color> {
    let tag = game.tag("Result").and_then(|tag| ResultToken::parse(&tag));
    match tag.or(game.result_token)?.result() {
        GameResult::WhiteWins => Some(Color::Black),
        GameResult::BlackWins => Some(Color::White),
        _ => None,
    }
}

/// Whether the `Termination` tag says that `game` was lost on time (`time
/// forfeit` in the PGN standard, any case; lichess writes `Time forfeit`).
pub(crate) fn lost_on_time(game: &PgnGame) -> bool {
    game.tag("Termination").is_some_and(|t| t.trim().eq_ignore_ascii_case("time forfeit"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_game;

    /// The findings of a 60+0 game's record, as (ply, kind).
    fn findings(movetext: &str) -> Vec<(usize, ClockFindingKind)> {
        let pgn = format!("[TimeControl \"60\"]\n\n{movetext} *");
        let game = parse_game(pgn.into_bytes());
        let report = clock_report(&game, 4, Color::White, 1000).unwrap();
        report.findings.iter().map(|f| (f.ply, f.kind)).collect()
    }

    #[test]
    fn an_emt_is_checked_against_a_clock_that_did_not_go_down() {
        // White's clock stays at 0:50 while its emt says the move took 5 s:
        // the readings imply 0 s.
        let still = "1. e4 {[%clk 0:00:50]} e5 {[%clk 0:00:59]} \
                     2. Nf3 {[%clk 0:00:50] [%emt 0:00:05]} Nc6 {[%clk 0:00:58]}";
        assert_eq!(findings(still), [(3, ClockFindingKind::EmtMismatch)]);
        // Up to the tolerance above what it could have: -1 s implied.
        let above = "1. e4 {[%clk 0:00:50]} e5 {[%clk 0:00:59]} \
                     2. Nf3 {[%clk 0:00:51] [%emt 0:00:05]} Nc6 {[%clk 0:00:58]}";
        assert_eq!(findings(above), [(3, ClockFindingKind::EmtMismatch)]);
        // Within the tolerance: no finding.
        let near = "1. e4 {[%clk 0:00:50]} e5 {[%clk 0:00:59]} \
                    2. Nf3 {[%clk 0:00:51] [%emt 0:00:00]} Nc6 {[%clk 0:00:58]}";
        assert_eq!(findings(near), []);
    }

    #[test]
    fn a_clock_that_rose_keeps_its_single_finding() {
        let rose = "1. e4 {[%clk 0:00:50]} e5 {[%clk 0:00:59]} \
                    2. Nf3 {[%clk 0:01:05] [%emt 0:00:05]} Nc6 {[%clk 0:00:58]}";
        assert_eq!(findings(rose), [(3, ClockFindingKind::ClockRose)]);
    }
}
