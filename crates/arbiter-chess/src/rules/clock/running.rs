//! The clock's arithmetic, in whole milliseconds.

use super::control::{DelayKind, Period, TimeControl};
use crate::board::types::Color;

/// A move made after its mover's flag fell: it took longer than the time
/// the mover had (and, with a simple delay, the delay).
///
/// ```
/// use arbiter_chess::{Clock, Color, FlagFell};
/// let mut clock = Clock::new(&"60".parse().unwrap(), Color::White).unwrap();
/// let fell = clock.play(60_001).unwrap_err();
/// assert_eq!(fell, FlagFell { mover: Color::White, remaining_ms: 60_000, taken_ms: 60_001 });
/// assert_eq!(fell.to_string(), "white's flag fell: the move took 60001 ms with 60000 ms left");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}'s flag fell: the move took {taken_ms} ms with {remaining_ms} ms left", .mover.name())]
pub struct FlagFell {
    /// The side whose flag fell.
    pub mover: Color,
    /// The time it had left before the move.
    pub remaining_ms: u64,
    /// The time the move took.
    pub taken_ms: u64,
}

/// Both sides' clocks under a time control, move by move.
///
/// A side starts with the first period's time. After each of its moves
/// it has its time less the time taken, plus the period's increment; with
/// a delay, the time taken up to the delay is not charged. When a move
/// completes a period's move count, the next period's time is added (a
/// last period with a move count repeats). Under a sandclock the time a
/// side takes flows to its opponent. A move that took more than the
/// mover's time (plus the delay, for a simple delay) was made after its
/// flag fell.
///
/// ```
/// use arbiter_chess::{Clock, Color};
/// let mut clock = Clock::new(&"2/60+1:30".parse().unwrap(), Color::White).unwrap();
/// assert_eq!(clock.play(10_000), Ok(51_000)); // white: 60 - 10 + 1
/// assert_eq!(clock.play(0), Ok(61_000)); // black
/// assert_eq!(clock.play(5_000), Ok(77_000)); // 51 - 5 + 1, + 30 for the next period
/// assert_eq!(clock.remaining_ms(Color::White), 77_000);
/// assert!(clock.flag_fell(61_001)); // black to move, thinking
/// ```
#[derive(Clone, Debug)]
pub struct Clock {
    timing: Timing,
    turn: Color,
    remaining: [u64; 2],
    /// Moves each side has made in its current period.
    moves: [u32; 2],
    /// Each side's current period.
    period: [usize; 2],
}

#[derive(Clone, Debug)]
enum Timing {
    Sandclock,
    Periods { periods: Vec<Period>, delay_ms: u64, simple: bool },
}

impl Clock {
    /// A clock at the start of a game with `turn` to move; `None` for an
    /// unknown or unlimited control, which runs no clock.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color, TimeControl};
    /// let clock = Clock::new(&"*90".parse().unwrap(), Color::Black).unwrap();
    /// assert_eq!(clock.remaining_ms(Color::White), 90_000);
    /// assert!(Clock::new(&TimeControl::Unlimited, Color::White).is_none());
    /// ```
    pub fn new(control: &TimeControl, turn: Color) -> Option<Clock> {
        let (timing, start) = match control {
            TimeControl::Unknown | TimeControl::Unlimited => return None,
            TimeControl::Sandclock { time_ms } => (Timing::Sandclock, *time_ms),
            TimeControl::Periods { periods, delay } => {
                let timing = Timing::Periods {
                    periods: periods.clone(),
                    delay_ms: delay.map_or(0, |d| d.ms),
                    simple: delay.is_some_and(|d| d.kind == DelayKind::Simple),
                };
                (timing, periods.first().map_or(0, |p| p.time_ms))
            }
        };
        Some(Clock { timing, turn, remaining: [start; 2], moves: [0; 2], period: [0; 2] })
    }

    /// The side to move.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color};
    /// let mut clock = Clock::new(&"60".parse().unwrap(), Color::White).unwrap();
    /// clock.play(1_000).unwrap();
    /// assert_eq!(clock.turn(), Color::Black);
    /// ```
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// A side's remaining time, in milliseconds.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color};
    /// let clock = Clock::new(&"300+3".parse().unwrap(), Color::White).unwrap();
    /// assert_eq!(clock.remaining_ms(Color::Black), 300_000);
    /// ```
    pub fn remaining_ms(&self, side: Color) -> u64 {
        self.remaining[side.index()]
    }

    /// Whether the side to move, having used `pending_ms` on its move in
    /// progress, is past its time: its flag has fallen.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color, Delay, DelayKind, Period, TimeControl};
    /// let g1 = vec![Period { moves: 0, time_ms: 60_000, increment_ms: 0 }];
    /// let delay = Some(Delay { kind: DelayKind::Simple, ms: 5_000 });
    /// let clock = Clock::new(&TimeControl::structured(g1, delay).unwrap(), Color::White).unwrap();
    /// assert!(!clock.flag_fell(65_000)); // the clock ran 60 s after the delay
    /// assert!(clock.flag_fell(65_001));
    /// ```
    pub fn flag_fell(&self, pending_ms: u64) -> bool {
        pending_ms > self.allowance()
    }

    /// The side to move's time left once it has used `pending_ms` on its
    /// move in progress: its remaining time less what the clock has run
    /// (with a simple delay, only past the delay), 0 once its flag fell.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color, Delay, DelayKind, Period, TimeControl};
    /// let g1 = vec![Period { moves: 0, time_ms: 60_000, increment_ms: 0 }];
    /// let delay = Some(Delay { kind: DelayKind::Simple, ms: 5_000 });
    /// let clock = Clock::new(&TimeControl::structured(g1, delay).unwrap(), Color::White).unwrap();
    /// assert_eq!(clock.remaining_while(3_000), 60_000);
    /// assert_eq!(clock.remaining_while(15_000), 50_000);
    /// assert_eq!(clock.remaining_while(70_000), 0);
    /// ```
    pub fn remaining_while(&self, pending_ms: u64) -> u64 {
        let run = match self.timing {
            Timing::Periods { delay_ms, simple: true, .. } => pending_ms.saturating_sub(delay_ms),
            _ => pending_ms,
        };
        self.remaining[self.turn.index()].saturating_sub(run)
    }

    /// Plays a move of the side to move that took `taken_ms`, and gives
    /// the mover's remaining time after it (increment and any period
    /// bonus included). A move made after the flag fell is an error and
    /// leaves the clock as it was.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color, Delay, DelayKind, Period, TimeControl};
    /// let g1 = vec![Period { moves: 0, time_ms: 60_000, increment_ms: 0 }];
    /// let delay = Some(Delay { kind: DelayKind::Bronstein, ms: 5_000 });
    /// let mut clock = Clock::new(&TimeControl::structured(g1, delay).unwrap(), Color::White).unwrap();
    /// assert_eq!(clock.play(3_000), Ok(60_000)); // within the delay: all given back
    /// assert_eq!(clock.play(8_000), Ok(57_000)); // 5 s of 8 given back
    /// assert!(clock.play(60_001).is_err()); // a Bronstein clock runs from the start
    /// ```
    #[inline]
    pub fn play(&mut self, taken_ms: u64) -> Result<u64, FlagFell> {
        let mover = self.turn.index();
        self.spend(taken_ms)?;
        if let Timing::Periods { periods, .. } = &self.timing {
            let period = periods[self.period[mover]];
            let mut after = self.remaining[mover].saturating_add(period.increment_ms);
            // Counted only in a period with a move count: no overflow.
            if period.moves > 0 {
                self.moves[mover] += 1;
            }
            if period.moves > 0 && self.moves[mover] == period.moves {
                self.moves[mover] = 0;
                self.period[mover] = (self.period[mover] + 1).min(periods.len() - 1);
                after = after.saturating_add(periods[self.period[mover]].time_ms);
            }
            self.remaining[mover] = after;
        }
        self.turn = !self.turn;
        Ok(self.remaining[mover])
    }

    /// Charges the side to move for a completed illegal move that took
    /// `taken_ms` (FIDE 7.5.5): the clock ran while it was made, as on
    /// any move (a delay spares it the same way, a sandclock's time flows
    /// to the opponent), but the move is taken back, so no increment is
    /// added, no move of a period is counted and the turn stays. Taking
    /// longer than the mover had is a flag fall, and leaves the clock as
    /// it was.
    ///
    /// ```
    /// use arbiter_chess::{Clock, Color};
    /// let mut clock = Clock::new(&"60+2".parse().unwrap(), Color::White).unwrap();
    /// assert_eq!(clock.charge_illegal(5_000), Ok(55_000)); // no increment
    /// assert_eq!(clock.turn(), Color::White);
    /// clock.add_ms(Color::Black, 60_000);
    /// assert_eq!(clock.remaining_ms(Color::Black), 120_000);
    /// assert!(clock.charge_illegal(55_001).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// The move took longer than the mover's time: its flag fell.
    pub fn charge_illegal(&mut self, taken_ms: u64) -> Result<u64, FlagFell> {
        self.spend(taken_ms)?;
        Ok(self.remaining_ms(self.turn))
    }

    /// Charges the side to move for `taken_ms` on its clock (less a delay;
    /// under a sandclock, given to the opponent), the turn unchanged.
    fn spend(&mut self, taken_ms: u64) -> Result<(), FlagFell> {
        let mover = self.turn.index();
        let remaining_ms = self.remaining[mover];
        if taken_ms > self.allowance() {
            return Err(FlagFell { mover: self.turn, remaining_ms, taken_ms });
        }
        match &self.timing {
            Timing::Sandclock => {
                self.remaining[mover] = remaining_ms - taken_ms;
                self.remaining[1 - mover] = self.remaining[1 - mover].saturating_add(taken_ms);
            }
            Timing::Periods { delay_ms, .. } => {
                self.remaining[mover] = remaining_ms - (taken_ms - taken_ms.min(*delay_ms));
            }
        }
        Ok(())
    }

    /// Gives `side` `ms` more time: the arbiter's award to the opponent
    /// of a completed illegal move.
    pub fn add_ms(&mut self, side: Color, ms: u64) {
        self.remaining[side.index()] = self.remaining[side.index()].saturating_add(ms);
    }

    /// The most the side to move may take on its move.
    fn allowance(&self) -> u64 {
        let remaining = self.remaining[self.turn.index()];
        match self.timing {
            Timing::Periods { delay_ms, simple: true, .. } => remaining.saturating_add(delay_ms),
            _ => remaining,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::clock::control::Delay;

    fn clock(tag: &str) -> Clock {
        Clock::new(&tag.parse().unwrap(), Color::White).unwrap()
    }

    fn delayed(kind: DelayKind) -> Clock {
        let g60 = vec![Period { moves: 0, time_ms: 60_000, increment_ms: 1_000 }];
        let delay = Some(Delay { kind, ms: 5_000 });
        Clock::new(&TimeControl::structured(g60, delay).unwrap(), Color::White).unwrap()
    }

    /// Plays the times in turn, giving each mover's remaining time.
    fn play(clock: &mut Clock, times: &[u64]) -> Vec<u64> {
        times.iter().map(|&t| clock.play(t).unwrap()).collect()
    }

    #[test]
    fn no_clock_without_a_control() {
        assert!(Clock::new(&TimeControl::Unknown, Color::White).is_none());
        assert!(Clock::new(&TimeControl::Unlimited, Color::White).is_none());
    }

    #[test]
    fn sudden_death_and_increment() {
        let mut c = clock("60");
        assert_eq!(play(&mut c, &[0, 0, 10_000, 20_500]), [60_000, 60_000, 50_000, 39_500]);
        let mut c = clock("180+2");
        // 180 - 0 + 2, 180 - 3 + 2, 182 - 4.5 + 2, 179 - 179 + 2
        assert_eq!(play(&mut c, &[0, 3_000, 4_500, 179_000]), [182_000, 179_000, 179_500, 2_000]);
        let mut c = clock("60+0.5");
        assert_eq!(play(&mut c, &[1_000]), [59_500]);
    }

    #[test]
    fn periods_add_their_time_when_a_move_completes_one() {
        // 90 minutes for 40 moves, then 30 for the rest, 30 s a move.
        let mut c = clock("40/5400+30:1800+30");
        let times = [60_000, 1_000].repeat(40);
        let after = play(&mut c, &times);
        // White: 5400 - 40 × 60 + 40 × 30 + 1800 = 6000 s after move 40.
        assert_eq!(after[78], 6_000_000);
        assert_eq!(after[38], 5_400_000 - 20 * 30_000);
        // Black: 5400 - 40 × 1 + 40 × 30 + 1800.
        assert_eq!(after[79], 8_360_000);
        // Move 41 is in the second period: 30 s still added, no bonus.
        assert_eq!(c.play(10_000), Ok(6_020_000));
    }

    #[test]
    fn a_last_period_with_a_move_count_repeats() {
        let mut c = clock("2/60");
        let after = play(&mut c, &[10_000, 0, 10_000, 0, 10_000, 0, 10_000, 0]);
        // 60 - 10 = 50; 50 - 10 + 60 = 100; 90; 90 - 10 + 60 = 140.
        assert_eq!(
            after.iter().step_by(2).copied().collect::<Vec<_>>(),
            [50_000, 100_000, 90_000, 140_000]
        );
        let mut c = clock("1/10:2/20");
        // 10 - 1 + 20 = 29; 28; 28 - 1 + 20 = 47; 46; 46 - 1 + 20.
        let after = play(&mut c, &[1_000, 0, 1_000, 0, 1_000, 0, 1_000, 0, 1_000, 0]);
        assert_eq!(
            after.iter().step_by(2).copied().collect::<Vec<_>>(),
            [29_000, 28_000, 47_000, 46_000, 65_000]
        );
    }

    #[test]
    fn bronstein_and_simple_delays_leave_the_same_time() {
        for kind in [DelayKind::Bronstein, DelayKind::Simple] {
            let mut c = delayed(kind);
            // 60 - 0 + 1; 60 - (3 - 3) + 1; 61 - (8 - 5) + 1 = 59.
            assert_eq!(play(&mut c, &[0, 3_000, 8_000]), [61_000, 61_000, 59_000], "{kind:?}");
        }
    }

    #[test]
    fn a_simple_delay_holds_the_flag_a_bronstein_clock_does_not() {
        let mut bronstein = delayed(DelayKind::Bronstein);
        assert!(!bronstein.flag_fell(60_000));
        assert!(bronstein.flag_fell(60_001));
        assert_eq!(bronstein.play(60_001).unwrap_err().remaining_ms, 60_000);
        // Exactly all its time: a Bronstein clock gives back the delay, plus the increment.
        assert_eq!(bronstein.play(60_000), Ok(6_000));

        let mut simple = delayed(DelayKind::Simple);
        assert!(!simple.flag_fell(65_000));
        assert!(simple.flag_fell(65_001));
        assert!(simple.play(65_001).is_err());
        assert_eq!(simple.play(65_000), Ok(1_000));
    }

    #[test]
    fn a_move_after_the_flag_fell_is_not_played() {
        let mut c = clock("60+1");
        assert_eq!(c.play(60_000), Ok(1_000)); // exactly all of it: in time
        let fell = c.play(60_001).unwrap_err();
        assert_eq!(fell, FlagFell { mover: Color::Black, remaining_ms: 60_000, taken_ms: 60_001 });
        // The clock is as it was: black to move, with its time.
        assert_eq!(c.turn(), Color::Black);
        assert_eq!(c.remaining_ms(Color::Black), 60_000);
        assert!(c.flag_fell(60_001) && !c.flag_fell(60_000));
        assert_eq!(c.play(u64::MAX).unwrap_err().taken_ms, u64::MAX);
    }

    #[test]
    fn black_may_move_first() {
        let mut c = Clock::new(&"60".parse().unwrap(), Color::Black).unwrap();
        assert_eq!(c.play(5_000), Ok(55_000));
        assert_eq!(c.remaining_ms(Color::Black), 55_000);
        assert_eq!(c.remaining_ms(Color::White), 60_000);
        assert_eq!(c.turn(), Color::White);
    }

    #[test]
    fn a_sandclock_passes_time_to_the_opponent() {
        let mut c = clock("*60");
        assert_eq!(play(&mut c, &[10_000, 5_000]), [50_000, 65_000]);
        assert_eq!(c.remaining_ms(Color::White), 55_000);
        assert!(c.flag_fell(55_001));
        assert_eq!(c.play(55_000), Ok(0));
        assert_eq!(c.remaining_ms(Color::Black), 120_000);
    }
}
