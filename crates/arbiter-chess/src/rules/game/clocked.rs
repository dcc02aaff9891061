//! A replay with a clock record: the clock says which move (if any) was
//! made after its mover's flag fell and each mover's time; the replay of
//! the moves before it says how the game went, and is completed here with
//! the clocks and that move, named as the illegal move.

use super::replay::{IllegalMove, Replay, ReplayOptions, replay};
use super::ruling::{IllegalMoves, replay_ruled};
use crate::notation::echo::echo;
use crate::notation::illegal::IllegalReason;
use crate::rules::clock::record::{ClockRecord, ClockRun};
use crate::rules::clock::running::FlagFell;
use crate::rules::outcome::{Outcome, Termination};
use crate::rules::start::GamePosition;

impl Replay {
    /// Completes a replay of the first [`ClockRun::plies`] of the `sent`
    /// moves, with [`ClockRun::flagged`] as its flagged side (`run` is
    /// `record`'s): the clocks, and the move made after its mover's flag
    /// fell (whose text is `late`) named as the illegal move, or, when the
    /// game had ended before it, as a move after the end, as the replay
    /// names any.
    pub fn complete(
        &mut self,
        run: ClockRun,
        record: &ClockRecord,
        sent: usize,
        late: Option<&str>,
        options: &ReplayOptions,
    ) {
        let played = run.plies(sent);
        if self.illegal_move.is_none()
            && let Some(flag) = run.fell()
        {
            self.illegal_move = Some(late_move(flag, &self.outcome, played, late));
        }
        let accepted = self.illegal_move.as_ref().map_or(played, |bad| bad.index);
        let timed_out = matches!(
            self.outcome.termination,
            Some(Termination::Timeout | Termination::TimeoutVsUnwinnable)
        );
        let goes_on = accepted == sent && !self.outcome.is_over();
        let (plies_from, turn) = (options.plies_from, self.position.turn());
        self.clocks = Some(run.clocks(record, accepted, plies_from, turn, timed_out, goes_on));
    }
}

/// The move at `index` (whose text is `late`), made after its mover's flag
/// fell, as the illegal move of a replay with `outcome`: the flag fall,
/// or a move after the end when the game had ended before it.
fn late_move(flag: FlagFell, outcome: &Outcome, index: usize, late: Option<&str>) -> IllegalMove {
    let (reason, message) = match outcome.termination {
        Some(Termination::Timeout | Termination::TimeoutVsUnwinnable) => {
            (IllegalReason::FlagFell, flag.to_string())
        }
        Some(ended) => (IllegalReason::GameOver, ended.game_over_message()),
        None => unreachable!("a flag fall ends a game that goes on"),
    };
    let text = echo(late.unwrap_or_default()).into_owned();
    IllegalMove { index, text, reason, message }
}

/// [`replay`] with a clock record: the moves up to the first one made
/// after its mover's flag fell, which is named as the illegal move and
/// ends the game (FIDE 6.9: the opponent wins, or a draw when they cannot
/// mate), a pending time past the side to move's time ending it the same
/// way, and the clocks in the answer. `options.flagged` is the clock's.
///
/// ```
/// use arbiter_chess::{ClockRecord, IllegalReason, Position, ReplayOptions, Termination, Variant, VariantPosition, replay_clocked};
/// let record = ClockRecord::new("60".parse().unwrap(), vec![1_000, 2_000, 59_500], 0, 3).unwrap();
/// let r = replay_clocked(Position::default(), &["e4", "e5", "Nf3"], &ReplayOptions::default(), &record);
/// assert_eq!(r.plies.len(), 2);
/// assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::FlagFell);
/// assert_eq!(r.outcome.termination, Some(Termination::Timeout));
/// assert_eq!(r.clocks.unwrap().remaining_ms, [0, 58_000]);
/// // The same in crazyhouse.
/// let zh = VariantPosition::new(Variant::Crazyhouse);
/// let r = replay_clocked(zh, &["e4", "e5", "Nf3"], &ReplayOptions::default(), &record);
/// assert_eq!((r.plies.len(), r.outcome.termination), (2, Some(Termination::Timeout)));
/// ```
pub fn replay_clocked<S: AsRef<str>>(
    start: impl Into<GamePosition>,
    moves: &[S],
    options: &ReplayOptions,
    record: &ClockRecord,
) -> Replay {
    let start = start.into();
    if options.illegal_moves != IllegalMoves::Stop {
        return replay_ruled(start, moves, options, Some(record)).0;
    }
    let Some(run) = record.run(start.turn()) else {
        return replay(start, moves, options);
    };
    let options = ReplayOptions { flagged: run.flagged(), ..*options };
    let played = run.plies(moves.len());
    let mut answer = replay(start, &moves[..played], &options);
    answer.complete(run, record, moves.len(), moves.get(played).map(AsRef::as_ref), &options);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::Position;
    use crate::rules::game::replay;
    use crate::rules::outcome::GameResult;

    fn record(tag: &str, times: &[u64], pending: u64) -> ClockRecord {
        ClockRecord::new(tag.parse().unwrap(), times.to_vec(), pending, times.len()).unwrap()
    }

    fn run(fen: &str, moves: &[&str], record: &ClockRecord, options: &ReplayOptions) -> Replay {
        let start = if fen.is_empty() { Position::default() } else { fen.parse().unwrap() };
        replay_clocked(start, moves, options, record)
    }

    const OPENING: [&str; 4] = ["e4", "e5", "Nf3", "Nc6"];

    /// 3 minutes + 2: each mover's time after its move (the first moves
    /// not timed), and the final position's with White thinking for 10 s.
    #[test]
    fn each_ply_carries_its_movers_time() {
        let r = run(
            "",
            &OPENING,
            &record("180+2", &[0, 0, 5_000, 12_500], 10_000),
            &ReplayOptions::default(),
        );
        assert!(r.illegal_move.is_none());
        let clocks = r.clocks.unwrap();
        assert_eq!(clocks.plies_ms, [182_000, 182_000, 179_000, 171_500]);
        assert_eq!(clocks.remaining_ms, [169_000, 171_500]);
        assert!(!r.outcome.is_over());
    }

    /// Only the plies from `plies_from` are returned, with their own times.
    #[test]
    fn plies_from_returns_the_later_plies_clocks() {
        let options = ReplayOptions { plies_from: 3, ..ReplayOptions::default() };
        let r = run("", &OPENING, &record("180+2", &[0, 0, 5_000, 12_500], 0), &options);
        assert_eq!(r.clocks.unwrap().plies_ms, [171_500]);
    }

    /// The third move took longer than White's minute: it is not played,
    /// it is the illegal move, and Black, who can mate, wins on time.
    #[test]
    fn a_move_after_the_flag_fell_is_not_played() {
        let r =
            run("", &OPENING, &record("60", &[30_000, 1_000, 30_001, 0], 0), &Default::default());
        assert_eq!(r.plies.len(), 2);
        let bad = r.illegal_move.unwrap();
        assert_eq!((bad.index, bad.text.as_str(), bad.reason), (2, "Nf3", IllegalReason::FlagFell));
        assert_eq!(bad.message, "white's flag fell: the move took 30001 ms with 30000 ms left");
        assert_eq!(r.outcome.result, GameResult::BlackWins);
        assert_eq!(r.outcome.termination, Some(Termination::Timeout));
        assert!(r.legal_moves.is_empty());
        assert_eq!(r.clocks.unwrap().remaining_ms, [0, 59_000]);
    }

    /// White's flag falls while Black has a bare king: a draw (FIDE 6.9).
    #[test]
    fn a_flag_fall_against_a_bare_king_draws() {
        let fen = "8/8/4k3/8/8/4K3/4Q3/8 w - - 0 60";
        let r = run(fen, &["Qe2d2"], &record("10", &[10_001], 0), &Default::default());
        assert_eq!(r.outcome.result, GameResult::Draw);
        assert_eq!(r.outcome.termination, Some(Termination::TimeoutVsUnwinnable));
        assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::FlagFell);
    }

    /// A move after mate stays a move after the end, however long it took.
    #[test]
    fn a_move_after_mate_is_after_the_end_not_after_the_flag() {
        let moves = ["f3", "e5", "g4", "Qh4", "a3"];
        let r = run("", &moves, &record("60", &[0, 0, 0, 0, 90_000], 0), &Default::default());
        assert_eq!(r.outcome.termination, Some(Termination::Checkmate));
        let bad = r.illegal_move.unwrap();
        assert_eq!((bad.index, bad.reason), (4, IllegalReason::GameOver));
        assert_eq!(bad.message, "the game is over (checkmate)");
        // The clock stopped with the mate: nobody's time is taken to 0.
        assert_eq!(r.clocks.unwrap().remaining_ms, [60_000, 60_000]);
    }

    /// An illegal move before the flag fell is the answer, as without a
    /// clock; the clocks stop before it and the pending time is not used.
    #[test]
    fn an_illegal_move_before_the_flag_comes_first() {
        let r = run(
            "",
            &["e4", "Ke7", "Nf3"],
            &record("60", &[1_000, 0, 90_000], 0),
            &Default::default(),
        );
        let bad = r.illegal_move.unwrap();
        assert_eq!((bad.index, bad.reason), (1, IllegalReason::CaptureOwnPiece));
        assert_eq!(r.clocks.unwrap().remaining_ms, [59_000, 60_000]);
        assert!(!r.outcome.is_over());
    }

    /// The side to move thinking past its time loses once the moves are in.
    #[test]
    fn a_pending_time_past_the_clock_ends_the_game() {
        let r = run("", &["e4"], &record("60", &[1_000], 60_001), &Default::default());
        assert!(r.illegal_move.is_none());
        assert_eq!(r.outcome.result, GameResult::WhiteWins);
        assert_eq!(r.outcome.termination, Some(Termination::Timeout));
        assert_eq!(r.clocks.unwrap().remaining_ms, [59_000, 0]);
        let r = run("", &["e4"], &record("60", &[1_000], 60_000), &Default::default());
        assert!(!r.outcome.is_over());
        assert_eq!(r.clocks.unwrap().remaining_ms, [59_000, 0]);
    }

    /// An unknown or unlimited control runs no clock: the plain replay.
    #[test]
    fn no_clock_without_a_known_limit() {
        for tag in ["?", "-"] {
            let r = run("", &OPENING, &record(tag, &[99_999_999; 4], 0), &Default::default());
            assert_eq!(r, replay(Position::default(), &OPENING, &ReplayOptions::default()));
        }
    }

    /// Every record whose flag never falls answers the plain replay, plus
    /// clocks (here on games of every length up to a mate).
    #[test]
    fn a_clock_that_never_falls_changes_only_the_clocks() {
        let moves = ["f3", "e5", "g4", "Qh4"];
        for len in 0..=moves.len() {
            let r =
                run("", &moves[..len], &record("1+1", &vec![1_000; len], 0), &Default::default());
            let mut plain = replay(Position::default(), &moves[..len], &ReplayOptions::default());
            let clocks = r.clocks.clone().unwrap();
            assert_eq!(clocks.plies_ms, vec![1_000; len]);
            plain.clocks = Some(clocks);
            assert_eq!(r, plain);
        }
    }
}
