//! How each side spent its time: lichess's move-time statistics (lila
//! `Statistics.scala` and `PlayerAssessment.scala`), as stated facts.
//!
//! T is a side's move times in milliseconds, in order, without its first
//! move (lichess never clocks it) and without any move whose time is
//! unknown. Over T: the count, the total and the mean; the sample standard
//! deviation (n − 1; 0 under two moves); `cv = sd / (mean + 100)`, the
//! coefficient of variation of the times plus 0.1 s (absent under two
//! moves); the least cv over windows of [`WINDOW`] consecutive entries
//! holding fewer than [`WINDOW_ZEROS`] zeros; the moves under 500 ms, of
//! 0 ms, and those played with a single legal move; the time spent in each
//! phase (of the position a move was played from). Then lichess's
//! thresholds: no more fast moves than `timed / 20 + 2`; cv under 0.4;
//! cv under 0.25 and a window cv under 0.13, both only for games whose
//! control gives more than 60 s by `time + 40 × increment`.
//!
//! The sums are exact (integers); only the square root and the quotients
//! are floating point, so the figures do not depend on the order of the
//! moves.

use crate::analysis::phases::{GamePhase, Phases};
use crate::board::types::Color;
use crate::rules::clock::control::TimeControl;

/// The moves in a window of [`TimeUse::min_window_cv`].
pub const WINDOW: usize = 15;

/// A window holds fewer zeros than this, or is left out.
pub const WINDOW_ZEROS: usize = 4;

/// A move faster than this many milliseconds is fast.
pub const FAST_MS: u64 = 500;

/// What lichess adds to each time before taking the coefficient of
/// variation: 10 centiseconds.
const CV_OFFSET_MS: f64 = 100.0;

/// One move of a side, as the time statistics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    /// The plies played before it: the index of the position it was played
    /// from.
    pub ply: u32,
    /// The time it took, if known.
    pub ms: Option<u64>,
    /// The legal moves its mover had: only whether it had exactly one
    /// counts, so counting to two is enough ([`legal_moves_to_two`]).
    ///
    /// [`legal_moves_to_two`]: crate::legal_moves_to_two
    pub legal_moves: u32,
}

/// A side's move-time statistics.
///
/// ```
/// use arbiter_chess::{Color, MoveTime, Phases, TimeUse};
/// let moves: Vec<MoveTime> = [0, 2_000, 1_000, 3_000, 0]
///     .iter()
///     .enumerate()
///     .map(|(i, &ms)| MoveTime { ply: 2 * i as u32, ms: Some(ms), legal_moves: 20 })
///     .collect();
/// let t = TimeUse::of(Color::White, &moves, &Phases::default(), None);
/// // The first move is left out: T = [2000, 1000, 3000, 0].
/// assert_eq!((t.timed_moves, t.total_ms, t.mean_ms), (4, 6_000, 1_500.0));
/// assert_eq!((t.fast_moves, t.instant_moves), (1, 1));
/// assert!((t.sd_ms - 1_290.994).abs() < 1e-3);
/// assert!((t.cv.unwrap() - 1_290.994 / 1_600.0).abs() < 1e-6);
/// assert_eq!(t.min_window_cv, None);
/// assert!(t.no_fast_moves && !t.moderately_consistent && !t.highly_consistent);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TimeUse {
    /// The side.
    pub side: Color,
    /// The moves of T.
    pub timed_moves: u32,
    /// Their total time.
    pub total_ms: u64,
    /// Their mean time (0 without moves).
    pub mean_ms: f64,
    /// The sample standard deviation of their times (n − 1; 0 under two
    /// moves).
    pub sd_ms: f64,
    /// `sd / (mean + 100)`; `None` under two moves.
    pub cv: Option<f64>,
    /// The least cv over windows of [`WINDOW`] consecutive moves of T with
    /// fewer than [`WINDOW_ZEROS`] zeros; `None` if no window qualifies.
    pub min_window_cv: Option<f64>,
    /// Moves under [`FAST_MS`].
    pub fast_moves: u32,
    /// Moves of 0 ms: premove candidates.
    pub instant_moves: u32,
    /// Moves played with a single legal move.
    pub forced_moves: u32,
    /// Their total time.
    pub forced_ms: u64,
    /// The time of the moves played from opening positions.
    pub opening_ms: u64,
    /// From middlegame positions.
    pub middlegame_ms: u64,
    /// From endgame positions.
    pub endgame_ms: u64,
    /// `fast_moves ≤ timed_moves / 20 + 2`.
    pub no_fast_moves: bool,
    /// `cv < 0.4`.
    pub moderately_consistent: bool,
    /// `cv < 0.25`, in a game whose control is [long enough](long_enough).
    pub highly_consistent: bool,
    /// `min_window_cv < 0.13`, in a game whose control is [long
    /// enough](long_enough).
    pub consistent_streak: bool,
}

/// Whether lichess judges the consistency of a game's times under
/// `control`: its first period's time plus 40 increments is over 60 s.
///
/// ```
/// use arbiter_chess::long_enough;
/// assert!(long_enough(&"60+1".parse().unwrap()));
/// assert!(!long_enough(&"60".parse().unwrap()));
/// assert!(!long_enough(&"-".parse().unwrap()));
/// ```
pub fn long_enough(control: &TimeControl) -> bool {
    control.periods().first().is_some_and(|p| p.time_ms + 40 * p.increment_ms > 60_000)
}

impl TimeUse {
    /// The statistics of `side`'s moves, all of them in order (its first
    /// one included: it is left out here), with the game's phases and its
    /// control, if known.
    pub fn of(
        side: Color,
        moves: &[MoveTime],
        phases: &Phases,
        control: Option<&TimeControl>,
    ) -> TimeUse {
        let timed: Vec<MoveTime> =
            moves.iter().skip(1).filter(|m| m.ms.is_some()).copied().collect();
        TimeUse::of_timed(side, &timed, phases, control.is_some_and(long_enough))
    }

    /// The statistics of T: moves whose time is known, the side's first
    /// one left out.
    pub(crate) fn of_timed(
        side: Color,
        timed: &[MoveTime],
        phases: &Phases,
        long_enough: bool,
    ) -> TimeUse {
        let ms = |m: &MoveTime| m.ms.unwrap_or_default();
        let (mut total_ms, mut square_sum) = (0u64, 0u128);
        let (mut fast_moves, mut instant_moves, mut forced_moves, mut forced_ms) = (0, 0, 0, 0);
        let mut by_phase = [0u64; 3];
        for m in timed {
            let t = ms(m);
            total_ms += t;
            square_sum += u128::from(t) * u128::from(t);
            fast_moves += u32::from(t < FAST_MS);
            instant_moves += u32::from(t == 0);
            if m.legal_moves == 1 {
                forced_moves += 1;
                forced_ms += t;
            }
            by_phase[phases.phase_at(m.ply) as usize] += t;
        }
        let n = timed.len();
        let (mean_ms, sd_ms) = moments(n, u128::from(total_ms), square_sum);
        let cv = (n >= 2).then(|| sd_ms / (mean_ms + CV_OFFSET_MS));
        let min_window_cv = min_window_cv(timed);
        TimeUse {
            side,
            timed_moves: u32::try_from(n).unwrap_or(u32::MAX),
            total_ms,
            mean_ms,
            sd_ms,
            cv,
            min_window_cv,
            fast_moves,
            instant_moves,
            forced_moves,
            forced_ms,
            opening_ms: by_phase[GamePhase::Opening as usize],
            middlegame_ms: by_phase[GamePhase::Middlegame as usize],
            endgame_ms: by_phase[GamePhase::Endgame as usize],
            no_fast_moves: fast_moves as usize <= n / 20 + 2,
            moderately_consistent: cv.is_some_and(|cv| cv < 0.4),
            highly_consistent: long_enough && cv.is_some_and(|cv| cv < 0.25),
            consistent_streak: long_enough && min_window_cv.is_some_and(|cv| cv < 0.13),
        }
    }
}

/// The mean and the sample standard deviation of `n` numbers from their
/// sum and the sum of their squares, exactly up to the last division and
/// the square root: n·Σx² − (Σx)² is n² times the variance about the mean
/// and never negative.
fn moments(n: usize, sum: u128, square_sum: u128) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum as f64 / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let n = n as u128;
    let spread = n * square_sum - sum * sum;
    (mean, (spread as f64 / (n * (n - 1)) as f64).sqrt())
}

/// The least cv over the windows of [`WINDOW`] consecutive times with
/// fewer than [`WINDOW_ZEROS`] zeros, the window's sums slid along.
fn min_window_cv(timed: &[MoveTime]) -> Option<f64> {
    if timed.len() < WINDOW {
        return None;
    }
    let ms = |i: usize| timed[i].ms.unwrap_or_default();
    let (mut sum, mut square_sum, mut zeros) = (0u128, 0u128, 0usize);
    let mut best: Option<f64> = None;
    for i in 0..timed.len() {
        let t = ms(i);
        sum += u128::from(t);
        square_sum += u128::from(t) * u128::from(t);
        zeros += usize::from(t == 0);
        if i >= WINDOW {
            let old = ms(i - WINDOW);
            sum -= u128::from(old);
            square_sum -= u128::from(old) * u128::from(old);
            zeros -= usize::from(old == 0);
        }
        if i + 1 >= WINDOW && zeros < WINDOW_ZEROS {
            let (mean, sd) = moments(WINDOW, sum, square_sum);
            let cv = sd / (mean + CV_OFFSET_MS);
            best = Some(best.map_or(cv, |b| b.min(cv)));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(times: &[u64]) -> Vec<MoveTime> {
        times
            .iter()
            .enumerate()
            .map(|(i, &ms)| MoveTime { ply: 2 * i as u32 + 2, ms: Some(ms), legal_moves: 30 })
            .collect()
    }

    #[test]
    fn flat_times_are_consistent() {
        let t = TimeUse::of_timed(Color::Black, &timed(&[2_000; 30]), &Phases::default(), true);
        assert_eq!((t.sd_ms, t.cv, t.min_window_cv), (0.0, Some(0.0), Some(0.0)));
        assert!(t.moderately_consistent && t.highly_consistent && t.consistent_streak);
        let short =
            TimeUse::of_timed(Color::Black, &timed(&[2_000; 30]), &Phases::default(), false);
        assert!(short.moderately_consistent && !short.highly_consistent);
        assert!(!short.consistent_streak);
    }

    #[test]
    fn windows_with_four_zeros_are_left_out() {
        let mut times = vec![1_000; 15];
        times[..4].fill(0);
        let t = TimeUse::of_timed(Color::White, &timed(&times), &Phases::default(), true);
        assert_eq!(t.min_window_cv, None);
        times[0] = 1_000;
        let t = TimeUse::of_timed(Color::White, &timed(&times), &Phases::default(), true);
        assert!(t.min_window_cv.is_some());
        // Fourteen moves make no window.
        let t = TimeUse::of_timed(Color::White, &timed(&[1_000; 14]), &Phases::default(), true);
        assert_eq!(t.min_window_cv, None);
    }

    #[test]
    fn one_move_has_no_cv() {
        let t = TimeUse::of_timed(Color::White, &timed(&[700]), &Phases::default(), true);
        assert_eq!((t.timed_moves, t.mean_ms, t.sd_ms, t.cv), (1, 700.0, 0.0, None));
        let t = TimeUse::of_timed(Color::White, &[], &Phases::default(), true);
        assert_eq!((t.timed_moves, t.mean_ms, t.cv), (0, 0.0, None));
        assert!(t.no_fast_moves && !t.moderately_consistent);
    }

    #[test]
    fn huge_times_do_not_overflow() {
        let max = crate::rules::clock::control::MAX_SECONDS * 1000;
        let t = TimeUse::of_timed(Color::White, &timed(&[max; 600]), &Phases::default(), true);
        assert_eq!(t.sd_ms, 0.0);
        let t = TimeUse::of_timed(Color::White, &timed(&[0, max]), &Phases::default(), true);
        assert!((t.sd_ms - max as f64 / 2f64.sqrt()).abs() < 1.0);
    }
}
