//! A move list's clock record, as a platform sends it with the moves: the
//! time control, the time each ply took and the time the side to move has
//! used on its move in progress. Run on the clock, it says each mover's
//! remaining time, which move (if any) was made after its mover's flag
//! fell, and both sides' times in the final position.

use super::control::{MAX_SECONDS, TimeControl};
use super::running::{Clock, FlagFell};
use crate::board::types::Color;

// The quick test of [`ClockRecord::new`]: a time under 2^33 ms is within
// the bound.
const _: () = assert!(1 << 33 <= MAX_SECONDS * 1000);

/// A clock record that does not fit its move list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockRecordError {
    /// Not one time for each move.
    #[error("{times} move times for {moves} moves: send one for each move")]
    Misaligned { times: usize, moves: usize },
    /// A time past [`MAX_SECONDS`].
    #[error("{what} is {ms} ms, more than {MAX_SECONDS} s")]
    TooLong { what: TimeOf, ms: u64 },
}

/// Which time of a record is at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeOf {
    /// The time the ply at this index (from 0) took.
    Move(usize),
    /// The time used on the move in progress.
    Pending,
}

impl std::fmt::Display for TimeOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeOf::Move(index) => write!(f, "the time of move {index}"),
            TimeOf::Pending => f.write_str("the pending time"),
        }
    }
}

/// A move list's clock record: the control, the time each ply took (a
/// platform that does not run the clock for a side's first move sends 0
/// for it) and the time the side to move has used on its move in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockRecord {
    control: TimeControl,
    move_times_ms: Vec<u64>,
    pending_ms: u64,
}

impl ClockRecord {
    /// A record for a list of `moves` moves.
    ///
    /// ```
    /// use arbiter_chess::ClockRecord;
    /// assert!(ClockRecord::new("300+3".parse().unwrap(), vec![0, 0, 1_500], 0, 3).is_ok());
    /// let e = ClockRecord::new("300+3".parse().unwrap(), vec![0], 0, 3).unwrap_err();
    /// assert_eq!(e.to_string(), "1 move times for 3 moves: send one for each move");
    /// ```
    ///
    /// # Errors
    ///
    /// Not one time for each move, or a time past [`MAX_SECONDS`].
    pub fn new(
        control: TimeControl,
        move_times_ms: Vec<u64>,
        pending_ms: u64,
        moves: usize,
    ) -> Result<ClockRecord, ClockRecordError> {
        if move_times_ms.len() != moves {
            return Err(ClockRecordError::Misaligned { times: move_times_ms.len(), moves });
        }
        let max = MAX_SECONDS * 1000;
        // No time reaches 2^33 ms (under the bound) in a record that fits,
        // which one vectorised OR shows; the first past the bound is looked
        // for only otherwise.
        let high = move_times_ms.iter().fold(0, |high, &ms| high | ms) >> 33;
        if high != 0
            && let Some(i) = move_times_ms.iter().position(|&ms| ms > max)
        {
            return Err(ClockRecordError::TooLong { what: TimeOf::Move(i), ms: move_times_ms[i] });
        }
        if pending_ms > max {
            return Err(ClockRecordError::TooLong { what: TimeOf::Pending, ms: pending_ms });
        }
        Ok(ClockRecord { control, move_times_ms, pending_ms })
    }

    /// The time control.
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// The time each ply took, in milliseconds.
    pub fn move_times_ms(&self) -> &[u64] {
        &self.move_times_ms
    }

    /// The time the side to move has used on its move in progress, in
    /// milliseconds.
    pub fn pending_ms(&self) -> u64 {
        self.pending_ms
    }

    /// Runs the record on the clock from a start position with `turn` to
    /// move, up to the first move made after its mover's flag fell; `None`
    /// for an unknown or unlimited control, which runs no clock.
    pub fn run(&self, turn: Color) -> Option<ClockRun> {
        let mut clock = Clock::new(&self.control, turn)?;
        let mut plies_ms = Vec::with_capacity(self.move_times_ms.len());
        let mut fell = None;
        for &taken in &self.move_times_ms {
            match clock.play(taken) {
                Ok(after) => plies_ms.push(after),
                Err(flag) => {
                    fell = Some(flag);
                    break;
                }
            }
        }
        let pending_flag =
            (fell.is_none() && clock.flag_fell(self.pending_ms)).then_some(clock.turn());
        let pending_left = clock.remaining_while(self.pending_ms);
        let end_ms = Color::ALL.map(|side| clock.remaining_ms(side));
        Some(ClockRun { turn, plies_ms, end_ms, fell, pending_flag, pending_left })
    }

    /// Both sides' times after the first `plies` moves, which were played
    /// before any flag fell, from a start with `turn` to move.
    fn times_after(&self, turn: Color, plies: usize) -> [u64; 2] {
        let Some(mut clock) = Clock::new(&self.control, turn) else { return [0; 2] };
        for &taken in &self.move_times_ms[..plies] {
            if clock.play(taken).is_err() {
                break;
            }
        }
        Color::ALL.map(|side| clock.remaining_ms(side))
    }
}

/// A clock record run on the clock: each mover's time after each ply
/// played before a flag fell, both sides' times after the last of them,
/// and what ended the clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockRun {
    /// The side to move at the start.
    turn: Color,
    /// The mover's time after each ply played (increment and any period
    /// bonus included).
    plies_ms: Vec<u64>,
    /// Both sides' times after those plies, by [`Color::index`].
    end_ms: [u64; 2],
    /// The first move made after its mover's flag fell; its index is
    /// `plies_ms.len()`.
    fell: Option<FlagFell>,
    /// With no such move: the side to move, if its time ran out on the
    /// move in progress.
    pending_flag: Option<Color>,
    /// With no such move: the side to move's time left on the move in
    /// progress.
    pending_left: u64,
}

/// The clocks of a replayed game: each returned ply's mover's time after
/// the move (increment and any period bonus included) and both sides'
/// times in the final position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// The mover's time after each returned ply, in milliseconds.
    pub plies_ms: Vec<u64>,
    /// Both sides' times in the final position, by [`Color::index`]: 0 for
    /// a side whose flag fell; the side to move's less the time it has
    /// used on its move in progress while the game goes on.
    pub remaining_ms: [u64; 2],
}

impl ClockRun {
    /// How many plies to replay: those before the first move made after
    /// its mover's flag fell, or all of them.
    pub fn plies(&self, moves: usize) -> usize {
        if self.fell.is_some() { self.plies_ms.len() } else { moves }
    }

    /// The side whose flag fell once the plies are played: the mover of
    /// the move made after its flag fell, or the side to move past its
    /// time on the move in progress (FIDE 6.9 then decides the game, as
    /// for [`ReplayOptions::flagged`](crate::ReplayOptions::flagged)).
    pub fn flagged(&self) -> Option<Color> {
        self.fell.map(|flag| flag.mover).or(self.pending_flag)
    }

    /// The first move made after its mover's flag fell, if any: the ply
    /// at [`ClockRun::plies`].
    pub fn fell(&self) -> Option<FlagFell> {
        self.fell
    }

    /// The clocks of a replay of `record` that accepted the first
    /// `accepted` plies, returning those from `plies_from`, whose final
    /// position has `turn` to move: each returned ply's mover's time after
    /// it, and both sides' times at the end. A side that lost on time
    /// (`timed_out`) has 0; the side to move of a game that goes on over
    /// every sent move (`goes_on`) has its time less the time used on its
    /// move in progress. The run's own times become the answer's: a replay
    /// that stopped before the clock (at an illegal move or the game's
    /// end) runs the record again for the times there.
    pub fn clocks(
        self,
        record: &ClockRecord,
        accepted: usize,
        plies_from: usize,
        turn: Color,
        timed_out: bool,
        goes_on: bool,
    ) -> Clocks {
        let flagged = self.flagged();
        let ClockRun { turn: start, mut plies_ms, end_ms, pending_left, .. } = self;
        let mut remaining_ms =
            if accepted == plies_ms.len() { end_ms } else { record.times_after(start, accepted) };
        if timed_out && let Some(flagged) = flagged {
            remaining_ms[flagged.index()] = 0;
        } else if goes_on {
            remaining_ms[turn.index()] = pending_left;
        }
        plies_ms.truncate(accepted);
        plies_ms.drain(..plies_from.min(accepted));
        Clocks { plies_ms, remaining_ms }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_must_fit_their_moves() {
        let tc = || "60".parse::<TimeControl>().unwrap();
        assert_eq!(
            ClockRecord::new(tc(), vec![0, 10_000_000_001], 0, 2),
            Err(ClockRecordError::TooLong { what: TimeOf::Move(1), ms: 10_000_000_001 })
        );
        let e = ClockRecord::new(tc(), vec![], 10_000_000_001, 0).unwrap_err();
        assert_eq!(e.to_string(), "the pending time is 10000000001 ms, more than 10000000 s");
    }
}
