//! An arbiter's rulings on completed illegal moves, for games played over
//! the board, where an illegal move is made, ruled on and the game goes on.
//!
//! The Laws of Chess of 2023, Article 7.5.5: after the first completed
//! illegal move by a player the arbiter gives the opponent two minutes
//! (one in rapid and blitz, Appendices A.3 and B.3); the second loses the
//! game, unless the opponent cannot checkmate by any series of legal
//! moves, which draws. The Laws of 2009, Article 7.4(b), lose on the third.
//! A move text that reads as a move but is illegal in its position
//! ([`IllegalReason::is_completed_move`]) is such a move: it is not
//! played, and its side's next move in the list replaces it.

use super::replay::{IllegalMove, Replay, ReplayOptions, ReplayTail, Replayer};
use crate::board::fen::Fen;
use crate::board::types::Color;
use crate::notation::echo::echo;
use crate::notation::illegal::IllegalReason;
use crate::rules::clock::control::TimeControl;
use crate::rules::clock::record::{ClockRecord, Clocks};
use crate::rules::clock::running::{Clock, FlagFell};
use crate::rules::outcome::Termination;
use crate::rules::start::GamePosition;

/// What a replay does with a completed illegal move.
///
/// ```
/// use arbiter_chess::IllegalMoves;
/// assert_eq!("fide-2009".parse::<IllegalMoves>(), Ok(IllegalMoves::Fide2009));
/// assert_eq!(IllegalMoves::Fide.limit(), Some(2));
/// assert_eq!(IllegalMoves::default(), IllegalMoves::Stop);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IllegalMoves {
    /// The first illegal move ends the replay, as an online server refuses
    /// it.
    #[default]
    Stop,
    /// The Laws of 2023 (7.5.5): the second completed illegal move loses.
    Fide,
    /// The Laws of 2009 (7.4(b)): the third completed illegal move loses.
    Fide2009,
}

/// The time given to the opponent of a completed illegal move in classical
/// chess, and under the Laws of 2009.
pub const PENALTY_MS: u64 = 120_000;

/// The time given in rapid and blitz under the Laws of 2023 (A.3, B.3).
pub const RAPID_PENALTY_MS: u64 = 60_000;

/// The longest first period, with 60 moves' increments, of a rapid game
/// (FIDE Appendix A.1: less than 60 minutes).
const RAPID_MAX_MS: u64 = 3_599_000;

impl IllegalMoves {
    /// The count of a player's completed illegal moves that loses the
    /// game; `None` under [`IllegalMoves::Stop`].
    pub const fn limit(self) -> Option<u32> {
        match self {
            IllegalMoves::Stop => None,
            IllegalMoves::Fide => Some(2),
            IllegalMoves::Fide2009 => Some(3),
        }
    }

    /// The time the opponent of a completed illegal move gets under
    /// `control`: a minute under [`IllegalMoves::Fide`] in rapid and blitz
    /// (the first period's time plus 60 increments at most 3,599 s),
    /// otherwise two (no time control included).
    ///
    /// ```
    /// use arbiter_chess::{IllegalMoves, TimeControl};
    /// let blitz: TimeControl = "180+2".parse().unwrap();
    /// let classical: TimeControl = "40/5400+30:1800+30".parse().unwrap();
    /// assert_eq!(IllegalMoves::Fide.penalty_ms(&blitz), 60_000);
    /// assert_eq!(IllegalMoves::Fide.penalty_ms(&classical), 120_000);
    /// assert_eq!(IllegalMoves::Fide2009.penalty_ms(&blitz), 120_000);
    /// assert_eq!(IllegalMoves::Fide.penalty_ms(&TimeControl::Unknown), 120_000);
    /// ```
    pub fn penalty_ms(self, control: &TimeControl) -> u64 {
        let base_ms = match control {
            TimeControl::Periods { periods, .. } => periods
                .first()
                .map(|first| first.time_ms.saturating_add(first.increment_ms.saturating_mul(60))),
            TimeControl::Sandclock { time_ms } => Some(*time_ms),
            TimeControl::Unknown | TimeControl::Unlimited => None,
        };
        match (self, base_ms) {
            (IllegalMoves::Fide, Some(ms)) if ms <= RAPID_MAX_MS => RAPID_PENALTY_MS,
            _ => PENALTY_MS,
        }
    }

    /// The name the command line takes: `stop`, `fide` or `fide-2009`.
    pub const fn as_str(self) -> &'static str {
        match self {
            IllegalMoves::Stop => "stop",
            IllegalMoves::Fide => "fide",
            IllegalMoves::Fide2009 => "fide-2009",
        }
    }
}

/// A name that is not one of [`IllegalMoves`]'.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown illegal-move rules {0:?}: use stop, fide or fide-2009")]
pub struct ParseIllegalMovesError(String);

impl std::str::FromStr for IllegalMoves {
    type Err = ParseIllegalMovesError;

    fn from_str(name: &str) -> Result<IllegalMoves, ParseIllegalMovesError> {
        [IllegalMoves::Stop, IllegalMoves::Fide, IllegalMoves::Fide2009]
            .into_iter()
            .find(|rules| rules.as_str() == name)
            .ok_or_else(|| ParseIllegalMovesError(echo(name).into_owned()))
    }
}

/// What the arbiter did about a completed illegal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RulingAction {
    /// The opponent got more time; the game goes on.
    TimeAdded,
    /// The count was reached: the player lost.
    GameLost,
    /// The count was reached, but the opponent cannot mate: drawn.
    GameDrawn,
}

/// The arbiter's ruling on one completed illegal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The move's place in the input list, from 0.
    pub index: usize,
    /// The player who made it.
    pub side: Color,
    /// The player's completed illegal moves so far in the game, this one
    /// included.
    pub count: u32,
    /// Why it was illegal.
    pub reason: IllegalReason,
    pub message: String,
    pub action: RulingAction,
    /// With [`RulingAction::TimeAdded`]: the time the opponent got.
    pub time_added_ms: Option<u64>,
}

/// How the ruled moves of a list ended.
enum End {
    /// Every move was played or ruled on, and the game may go on.
    Played,
    /// A move that is not a completed illegal move stopped the replay.
    Illegal(IllegalMove),
    /// This side's completed illegal moves reached the count.
    Count(Color),
}

/// The moves of a list played and ruled on.
struct Ruled {
    replayer: Replayer,
    /// The FENs the options ask for, of the plies played.
    fens: Vec<Fen>,
    rulings: Vec<Ruling>,
    end: End,
}

impl End {
    /// How many input moves were played or ruled on.
    fn consumed(&self, rulings: &[Ruling], sent: usize) -> usize {
        match self {
            End::Played => sent,
            End::Illegal(bad) => bad.index,
            End::Count(_) => rulings.last().map_or(sent, |last| last.index + 1),
        }
    }
}

/// Plays `moves` from `start`, ruling on each completed illegal move:
/// the opponent gets `penalty_ms`, until the offender's count reaches the
/// rules' limit.
fn rule<S: AsRef<str>>(
    start: GamePosition,
    moves: &[S],
    options: &ReplayOptions,
    penalty_ms: u64,
) -> Ruled {
    let mut replayer = Replayer::new(start, options.analysis);
    let (mut fens, mut rulings, mut counts) = (Vec::new(), Vec::new(), [0u32; 2]);
    let mut next = 0;
    let end = loop {
        let mut tail = replayer.extend(&moves[next..], options);
        fens.append(&mut tail.take_fens());
        let Some(mut bad) = tail.take_illegal_move() else { break End::Played };
        // The tail counts plies; each ruling before it was an input too.
        bad.index += rulings.len();
        let Some(limit) = options.illegal_moves.limit().filter(|_| bad.reason.is_completed_move())
        else {
            break End::Illegal(bad);
        };
        let side = replayer.turn();
        counts[side.index()] += 1;
        let count = counts[side.index()];
        let lost = count >= limit;
        rulings.push(Ruling {
            index: bad.index,
            side,
            count,
            reason: bad.reason,
            message: bad.message,
            action: if lost { RulingAction::GameLost } else { RulingAction::TimeAdded },
            time_added_ms: (!lost).then_some(penalty_ms),
        });
        if lost {
            break End::Count(side);
        }
        next = bad.index + 1;
    };
    Ruled { replayer, fens, rulings, end }
}

/// A clock record run over ruled moves: each ply's mover's time after it,
/// a completed illegal move charged to its mover and the opponent given
/// the penalty.
struct RuledClock {
    clock: Clock,
    /// The mover's time after each ply played.
    plies_ms: Vec<u64>,
    /// The first move (played or ruled on) made after its mover's flag
    /// fell, with its index in the input list.
    fell: Option<(usize, FlagFell)>,
}

impl RuledClock {
    /// Runs the first `consumed` times of `times` on `clock`, the moves at
    /// the rulings' indices as completed illegal moves.
    fn run(mut clock: Clock, times: &[u64], rulings: &[Ruling], consumed: usize) -> RuledClock {
        let mut plies_ms = Vec::with_capacity(consumed);
        let mut rulings = rulings.iter().peekable();
        let mut fell = None;
        for (index, &taken) in times[..consumed].iter().enumerate() {
            let done = match rulings.next_if(|ruling| ruling.index == index) {
                Some(ruling) => clock.charge_illegal(taken).map(|_| {
                    if let Some(ms) = ruling.time_added_ms {
                        clock.add_ms(!ruling.side, ms);
                    }
                }),
                None => clock.play(taken).map(|after| plies_ms.push(after)),
            };
            if let Err(flag) = done {
                fell = Some((index, flag));
                break;
            }
        }
        RuledClock { clock, plies_ms, fell }
    }
}

/// [`crate::replay`], or with a clock record [`crate::replay_clocked`], as
/// they answer under rules other than [`IllegalMoves::Stop`]: the completed
/// illegal moves ruled on, the clock (when its control runs one) charging
/// each one's time to its mover and adding the time given to the
/// opponent's. With it, the replayer of the moves played, for what else a
/// caller asks of them (the game's analysis, with the times of
/// [`played_times`]).
///
/// ```
/// use arbiter_chess::{IllegalMoves, Position, ReplayOptions, RulingAction, replay_ruled};
/// let options = ReplayOptions { illegal_moves: IllegalMoves::Fide, ..Default::default() };
/// let (r, played) = replay_ruled(Position::default(), &["e4", "e5", "Ke3", "Ke2"], &options, None);
/// assert_eq!((r.plies.len(), played.len()), (3, 3));
/// assert_eq!(r.rulings[0].index, 2);
/// assert_eq!(r.rulings[0].action, RulingAction::TimeAdded);
/// assert_eq!(r.rulings[0].message, "no white king can move to e3");
/// ```
pub fn replay_ruled<S: AsRef<str>>(
    start: impl Into<GamePosition>,
    moves: &[S],
    options: &ReplayOptions,
    record: Option<&ClockRecord>,
) -> (Replay, Replayer) {
    let start = start.into();
    let penalty_ms =
        options.illegal_moves.penalty_ms(record.map_or(&TimeControl::Unknown, |r| r.control()));
    let clock =
        record.and_then(|record| Some((record, Clock::new(record.control(), start.turn())?)));
    let mut ruled = rule(start.clone(), moves, options, penalty_ms);
    let Some((record, clock)) = clock else {
        let flagged = match ruled.end {
            End::Played => options.flagged,
            _ => None,
        };
        return answer(ruled, moves, options, flagged, None);
    };
    let consumed = ruled.end.consumed(&ruled.rulings, moves.len());
    let mut run = RuledClock::run(clock, record.move_times_ms(), &ruled.rulings, consumed);
    // A move that stopped the replay (not one after the end) was still
    // made on the clock: past the mover's time, its flag fell first.
    if run.fell.is_none()
        && let End::Illegal(bad) = &ruled.end
        && bad.reason != IllegalReason::GameOver
        && run.clock.flag_fell(record.move_times_ms()[bad.index])
    {
        let mover = run.clock.turn();
        let (remaining_ms, taken_ms) =
            (run.clock.remaining_ms(mover), record.move_times_ms()[bad.index]);
        run.fell = Some((bad.index, FlagFell { mover, remaining_ms, taken_ms }));
    }
    let flagged = match run.fell {
        Some((index, flag)) => {
            // The game of the moves before it, which went on.
            ruled = rule(start, &moves[..index], options, penalty_ms);
            Some(flag.mover)
        }
        None if matches!(ruled.end, End::Played) => {
            let turn = run.clock.turn();
            run.clock.flag_fell(record.pending_ms()).then_some(turn)
        }
        None => None,
    };
    answer(ruled, moves, options, flagged, Some((run, record.pending_ms())))
}

/// The times of the moves played, by ply: the record's `times` (one per
/// sent move) without those of the ruled-on illegal moves.
///
/// ```
/// use arbiter_chess::{IllegalMoves, Position, ReplayOptions, played_times, replay_ruled};
/// let options = ReplayOptions { illegal_moves: IllegalMoves::Fide, ..Default::default() };
/// let (r, _) = replay_ruled(Position::default(), &["e4", "Ke3", "e5"], &options, None);
/// assert_eq!(played_times(&r.rulings, &[1_000, 2_000, 3_000]), [Some(1_000), Some(3_000)]);
/// ```
pub fn played_times(rulings: &[Ruling], times: &[u64]) -> Vec<Option<u64>> {
    let mut rulings = rulings.iter().peekable();
    times
        .iter()
        .enumerate()
        .filter(|&(index, _)| rulings.next_if(|ruling| ruling.index == index).is_none())
        .map(|(_, &ms)| Some(ms))
        .collect()
}

/// The answer to ruled moves, `flagged` the side whose flag fell when the
/// clock says one did, with the clocks of `clock` (and the time used on
/// the move in progress).
fn answer<S: AsRef<str>>(
    ruled: Ruled,
    moves: &[S],
    options: &ReplayOptions,
    flagged: Option<Color>,
    clock: Option<(RuledClock, u64)>,
) -> (Replay, Replayer) {
    let Ruled { replayer, fens, mut rulings, end } = ruled;
    // The count ends the game as a flag fall of the offender does: the
    // opponent wins unless it is proven that they cannot mate.
    let offender = match end {
        End::Count(side) => Some(side),
        _ => None,
    };
    let flagged = offender.or(flagged);
    let answer_options = ReplayOptions { flagged, ..*options };
    let mut replay = replayer.answer(ReplayTail::with_fens(fens), &answer_options);

    if offender.is_some()
        && let Some(last) = rulings.last_mut()
    {
        let termination = match replay.outcome.termination {
            Some(Termination::TimeoutVsUnwinnable) => {
                last.action = RulingAction::GameDrawn;
                Termination::IllegalMovesVsUnwinnable
            }
            _ => Termination::IllegalMoves,
        };
        replay.outcome.termination = Some(termination);
    }
    let fell = clock.as_ref().and_then(|(run, _)| run.fell);
    replay.illegal_move = match (end, fell) {
        (_, Some((index, flag))) => Some(IllegalMove {
            index,
            text: echo(moves[index].as_ref()).into_owned(),
            reason: IllegalReason::FlagFell,
            message: flag.to_string(),
        }),
        (End::Illegal(bad), None) => Some(bad),
        (End::Count(_), None) => {
            let after = rulings.last().map_or(moves.len(), |last| last.index + 1);
            moves.get(after).map(|text| IllegalMove {
                index: after,
                text: echo(text.as_ref()).into_owned(),
                reason: IllegalReason::GameOver,
                message: replay
                    .outcome
                    .termination
                    .map(Termination::game_over_message)
                    .unwrap_or_default(),
            })
        }
        (End::Played, None) => None,
    };
    if let Some((run, pending_ms)) = clock {
        replay.clocks = Some(clocks(run, pending_ms, &replay, options.plies_from));
    }
    replay.rulings = rulings;
    (replay, replayer)
}

/// The clocks of a ruled replay: each returned ply's mover's time, and
/// both sides' times at the end (0 for a side that lost on time, the side
/// to move's less its time on the move in progress while the game goes
/// on).
fn clocks(run: RuledClock, pending_ms: u64, replay: &Replay, plies_from: usize) -> Clocks {
    let RuledClock { clock, plies_ms, .. } = run;
    let mut remaining_ms = Color::ALL.map(|side| clock.remaining_ms(side));
    let timed_out = matches!(
        replay.outcome.termination,
        Some(Termination::Timeout | Termination::TimeoutVsUnwinnable)
    );
    if timed_out {
        // The flagged side is the one to move: a flag fall ends the game
        // before the move that was made after it.
        remaining_ms[clock.turn().index()] = 0;
    } else if replay.illegal_move.is_none() && !replay.outcome.is_over() {
        remaining_ms[clock.turn().index()] = clock.remaining_while(pending_ms);
    }
    Clocks { plies_ms: plies_ms.get(plies_from..).unwrap_or_default().to_vec(), remaining_ms }
}
