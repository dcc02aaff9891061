//! The proto3 JSON form of a `ValidateGameResponse` (lowerCamelCase names,
//! enum values as their names, defaults written out), so that scripts using
//! the command line and RPC clients see one shape. It is built from the
//! generated messages, destructured field by field, so a new field in the
//! contract must be given its JSON form here; only the plies, the bulk of a
//! long game, are taken from the replay itself, without a message and two
//! strings per ply in between (the message's fields are still named here),
//! and written by hand: their texts (SAN, UCI, FEN) are ASCII that JSON
//! never escapes, and going through serde for them cost about as much as
//! the replay itself.
//!
//! The same answer's other forms: the generated messages this is built
//! from ([`super`]), the PGN JSON line in the same shape
//! ([`super::pgn_json`]), and the wire bytes the server writes
//! ([`crate::api::wire::GameAnswer`]).

use std::io;
use std::mem::MaybeUninit;

use serde::Serialize;

use crate::answer::millis::{duration, push_duration_json};
use crate::answer::{final_position_listing, push_decimal};
use crate::proto;
use arbiter_chess::{
    ClockRecord, Fen, GameAnalysis, GamePosition, IllegalMoves, LegalMove, PlyRecord, Replay,
    ReplayOptions, Replayer, SanString, UciMove, played_times, replay, replay_clocked,
    replay_ruled,
};

/// A `ValidateGameResponse` as proto3 JSON, written by
/// [`GameJson::write_json`].
#[derive(Debug)]
pub struct GameJson<'a> {
    plies: Plies<'a>,
    /// Each returned ply's mover's time, with a clock record.
    clocks: Option<&'a [u64]>,
    illegal_move: Option<IllegalMoveJson<'a>>,
    position: Option<PositionJson<'a>>,
    outcome: Option<OutcomeJson<'a>>,
    analysis: Option<AnalysisJson<'a>>,
    rulings: Vec<RulingJson<'a>>,
}

/// A `GameAnalysis`, beside the outcome of `arbiter validate --analysis`
/// and in each game of `arbiter pgn --json --analysis`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    opening: Option<OpeningJson<'a>>,
    phases: PhasesJson,
    time_use: Vec<TimeUseJson>,
}

#[derive(Debug, Serialize)]
struct OpeningJson<'a> {
    eco: &'a str,
    name: &'a str,
    family: &'static str,
    ply: u32,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PhasesJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    middlegame_ply: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    endgame_ply: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TimeUseJson {
    side: &'static str,
    timed_moves: u32,
    total_ms: u64,
    mean_ms: f64,
    sd_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cv: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_window_cv: Option<f64>,
    fast_moves: u32,
    instant_moves: u32,
    forced_moves: u32,
    forced_ms: u64,
    opening_ms: u64,
    middlegame_ms: u64,
    endgame_ms: u64,
    no_fast_moves: bool,
    moderately_consistent: bool,
    highly_consistent: bool,
    consistent_streak: bool,
}

impl<'a> From<&'a proto::GameAnalysis> for AnalysisJson<'a> {
    fn from(analysis: &'a proto::GameAnalysis) -> AnalysisJson<'a> {
        let proto::GameAnalysis { opening, phases, time_use } = analysis;
        let proto::Phases { middlegame_ply, endgame_ply } = phases.unwrap_or_default();
        AnalysisJson {
            opening: opening.as_ref().map(|opening| {
                let proto::Opening { eco, name, family, ply } = opening;
                OpeningJson {
                    eco,
                    name,
                    family: enum_name(*family, |f: proto::OpeningFamily| f.as_str_name()),
                    ply: *ply,
                }
            }),
            phases: PhasesJson { middlegame_ply, endgame_ply },
            time_use: time_use.iter().map(TimeUseJson::from).collect(),
        }
    }
}

/// Straight from the analysis, without the message's copies of the
/// opening's strings: as [`AnalysisJson::from`] of its message.
impl From<&GameAnalysis> for AnalysisJson<'static> {
    fn from(analysis: &GameAnalysis) -> AnalysisJson<'static> {
        let GameAnalysis { opening, phases, time_use } = analysis;
        AnalysisJson {
            opening: opening.map(|opening| OpeningJson {
                eco: opening.eco,
                name: opening.name,
                family: proto::OpeningFamily::from(opening.family).as_str_name(),
                ply: opening.ply,
            }),
            phases: PhasesJson {
                middlegame_ply: phases.middlegame_ply,
                endgame_ply: phases.endgame_ply,
            },
            time_use: time_use
                .iter()
                .map(|side| TimeUseJson::from(&proto::TimeUse::from(side)))
                .collect(),
        }
    }
}

impl From<&proto::TimeUse> for TimeUseJson {
    fn from(time_use: &proto::TimeUse) -> TimeUseJson {
        let proto::TimeUse {
            side,
            timed_moves,
            total_ms,
            mean_ms,
            sd_ms,
            cv,
            min_window_cv,
            fast_moves,
            instant_moves,
            forced_moves,
            forced_ms,
            opening_ms,
            middlegame_ms,
            endgame_ms,
            no_fast_moves,
            moderately_consistent,
            highly_consistent,
            consistent_streak,
        } = *time_use;
        TimeUseJson {
            side: enum_name(side, |c: proto::Color| c.as_str_name()),
            timed_moves,
            total_ms,
            mean_ms,
            sd_ms,
            cv,
            min_window_cv,
            fast_moves,
            instant_moves,
            forced_moves,
            forced_ms,
            opening_ms,
            middlegame_ms,
            endgame_ms,
            no_fast_moves,
            moderately_consistent,
            highly_consistent,
            consistent_streak,
        }
    }
}

impl AnalysisJson<'_> {
    /// Writes `,"analysis":{...}`, as serde writes it (the tests compare),
    /// field by field: its keys need no escaping, and escaping them was
    /// most of what writing it cost.
    ///
    /// # Errors
    ///
    /// What serializing a string or a number fails with.
    pub fn write_field(&self, out: &mut Vec<u8>) -> io::Result<()> {
        let AnalysisJson { opening, phases, time_use } = self;
        out.extend_from_slice(b",\"analysis\":{");
        if let Some(OpeningJson { eco, name, family, ply }) = opening {
            out.extend_from_slice(b"\"opening\":{\"eco\":");
            serde_json::to_writer(&mut *out, eco)?;
            out.extend_from_slice(b",\"name\":");
            serde_json::to_writer(&mut *out, name)?;
            out.extend_from_slice(b",\"family\":");
            serde_json::to_writer(&mut *out, family)?;
            out.extend_from_slice(b",\"ply\":");
            push_decimal(out, u64::from(*ply));
            out.extend_from_slice(b"},");
        }
        out.extend_from_slice(b"\"phases\":{");
        let PhasesJson { middlegame_ply, endgame_ply } = phases;
        if let Some(ply) = middlegame_ply {
            out.extend_from_slice(b"\"middlegamePly\":");
            push_decimal(out, u64::from(*ply));
        }
        if let Some(ply) = endgame_ply {
            if middlegame_ply.is_some() {
                out.push(b',');
            }
            out.extend_from_slice(b"\"endgamePly\":");
            push_decimal(out, u64::from(*ply));
        }
        out.extend_from_slice(b"},\"timeUse\":[");
        for (i, side) in time_use.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            side.write(out)?;
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

impl TimeUseJson {
    /// Writes `{...}` as serde writes it.
    fn write(&self, out: &mut Vec<u8>) -> io::Result<()> {
        // A field added to the struct and not written here fails the test
        // that compares with serde.
        out.extend_from_slice(b"{\"side\":");
        serde_json::to_writer(&mut *out, self.side)?;
        let number = |out: &mut Vec<u8>, key: &[u8], n: u64| {
            out.extend_from_slice(key);
            push_decimal(out, n);
        };
        number(out, b",\"timedMoves\":", u64::from(self.timed_moves));
        number(out, b",\"totalMs\":", self.total_ms);
        let float = |out: &mut Vec<u8>, key: &[u8], x: f64| {
            out.extend_from_slice(key);
            serde_json::to_writer(&mut *out, &x)
        };
        float(out, b",\"meanMs\":", self.mean_ms)?;
        float(out, b",\"sdMs\":", self.sd_ms)?;
        if let Some(cv) = self.cv {
            float(out, b",\"cv\":", cv)?;
        }
        if let Some(cv) = self.min_window_cv {
            float(out, b",\"minWindowCv\":", cv)?;
        }
        number(out, b",\"fastMoves\":", u64::from(self.fast_moves));
        number(out, b",\"instantMoves\":", u64::from(self.instant_moves));
        number(out, b",\"forcedMoves\":", u64::from(self.forced_moves));
        number(out, b",\"forcedMs\":", self.forced_ms);
        number(out, b",\"openingMs\":", self.opening_ms);
        number(out, b",\"middlegameMs\":", self.middlegame_ms);
        number(out, b",\"endgameMs\":", self.endgame_ms);
        for (key, flag) in [
            (&b",\"noFastMoves\":"[..], self.no_fast_moves),
            (b",\"moderatelyConsistent\":", self.moderately_consistent),
            (b",\"highlyConsistent\":", self.highly_consistent),
            (b",\"consistentStreak\":", self.consistent_streak),
        ] {
            out.extend_from_slice(key);
            out.extend_from_slice(if flag { b"true" } else { b"false" });
        }
        out.push(b'}');
        Ok(())
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct IllegalMoveJson<'a> {
    index: u32,
    #[serde(rename = "move")]
    text: &'a str,
    reason: &'static str,
    message: &'a str,
}

/// A `Ruling`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RulingJson<'a> {
    index: u32,
    side: &'static str,
    count: u32,
    reason: &'static str,
    message: &'a str,
    action: &'static str,
    /// The Duration's proto3 JSON string (`"60s"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    time_added: Option<String>,
}

impl<'a> From<&'a proto::Ruling> for RulingJson<'a> {
    fn from(ruling: &'a proto::Ruling) -> RulingJson<'a> {
        let proto::Ruling { index, side, count, reason, message, action, time_added } = ruling;
        RulingJson {
            index: *index,
            side: enum_name(*side, |c: proto::Color| c.as_str_name()),
            count: *count,
            reason: enum_name(*reason, |r: proto::IllegalMoveReason| r.as_str_name()),
            message,
            action: enum_name(*action, |a: proto::RulingAction| a.as_str_name()),
            time_added: time_added.as_ref().map(|time| {
                let mut text = Vec::new();
                push_duration_json(&mut text, time);
                // Without the quotes serde writes again.
                String::from_utf8_lossy(&text[1..text.len() - 1]).into_owned()
            }),
        }
    }
}

/// A `Position`, written by [`PositionJson::write`].
#[derive(Debug)]
struct PositionJson<'a> {
    fen: &'a str,
    turn: &'static str,
    in_check: bool,
    halfmove_clock: u32,
    fullmove_number: u32,
    legal_moves: LegalMovesJson<'a>,
    winnability: Option<WinnabilityJson<'a>>,
    clocks: Option<RemainingTimesJson<'a>>,
}

/// A position's listed legal moves: a replay's own (dozens a position,
/// each written straight from its move), or a message's.
#[derive(Debug)]
enum LegalMovesJson<'a> {
    Replay(&'a [LegalMove]),
    Messages(&'a [proto::LegalMove]),
}

/// A `RemainingTimes`, written by [`RemainingTimesJson::write`].
#[derive(Debug)]
struct RemainingTimesJson<'a> {
    white: Option<&'a prost_types::Duration>,
    black: Option<&'a prost_types::Duration>,
}

#[derive(Debug, Serialize)]
struct WinnabilityJson<'a> {
    white: Option<ColorVerdictJson<'a>>,
    black: Option<ColorVerdictJson<'a>>,
}

#[derive(Debug, Serialize)]
struct ColorVerdictJson<'a> {
    verdict: &'static str,
    helpmate: &'a [String],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OutcomeJson<'a> {
    result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    termination: Option<&'static str>,
    claimable_draws: Vec<&'static str>,
    pgn_result: &'a str,
    unproven: bool,
}

/// The plies of an answer: its records, or the moves of the replay itself
/// (for a caller that asked the answer for none, to write them without a
/// record each in between).
#[derive(Debug)]
enum Plies<'a> {
    Records(&'a [PlyRecord]),
    /// The replayer's own plies from the first index on, and the FENs
    /// after them when asked for.
    Played(&'a Replayer, usize, &'a [Fen]),
}

/// The enum value's name, or `UNKNOWN` for a value this build does not know
/// (the server never sends one; the generated enums cover every value).
fn enum_name<E: TryFrom<i32>>(value: i32, name: impl Fn(E) -> &'static str) -> &'static str {
    E::try_from(value).map_or("UNKNOWN", name)
}

/// The messages of a replay's answer other than its plies, which
/// [`GameJson`] borrows.
#[derive(Debug)]
pub struct Messages {
    illegal_move: Option<proto::IllegalMove>,
    position: proto::Position,
    outcome: proto::Outcome,
    analysis: Option<proto::GameAnalysis>,
    rulings: Vec<proto::Ruling>,
}

impl Messages {
    /// The messages of `replay`'s answer, as the service sends them.
    pub fn new(replay: &Replay) -> Messages {
        Messages {
            illegal_move: replay.illegal_move.as_ref().map(proto::IllegalMove::from),
            // The legal moves go from the replay into the JSON.
            position: final_position_listing(replay, &[]),
            outcome: proto::Outcome::from(&replay.outcome),
            analysis: None,
            rulings: replay.rulings.iter().map(proto::Ruling::from).collect(),
        }
    }

    /// The messages with `analysis`, when there is one.
    pub fn with_analysis(self, analysis: Option<&GameAnalysis>) -> Messages {
        Messages { analysis: analysis.map(proto::GameAnalysis::from), ..self }
    }
}

impl<'a> GameJson<'a> {
    /// The answer for `replay`, whose other messages are `messages`.
    pub fn new(replay: &'a Replay, messages: &'a Messages) -> GameJson<'a> {
        // The fields of the message this JSON stands for, each given its
        // JSON form below.
        let _: fn(proto::ValidateGameResponse) =
            |proto::ValidateGameResponse {
                 plies: _,
                 illegal_move: _,
                 position: _,
                 outcome: _,
                 analysis: _,
                 rulings: _,
             }| {};
        let Messages { illegal_move, position, outcome, analysis, rulings } = messages;
        GameJson {
            plies: Plies::Records(&replay.plies),
            clocks: replay.clocks.as_ref().map(|clocks| clocks.plies_ms.as_slice()),
            illegal_move: illegal_move.as_ref().map(IllegalMoveJson::from),
            position: Some(PositionJson {
                legal_moves: LegalMovesJson::Replay(&replay.legal_moves),
                ..PositionJson::from(position)
            }),
            outcome: Some(OutcomeJson::from(outcome)),
            analysis: analysis.as_ref().map(AnalysisJson::from),
            rulings: rulings.iter().map(RulingJson::from).collect(),
        }
    }

    /// The answer with `replayer`'s plies from `from` on as its plies
    /// instead of `replay`'s (which has none: asked for from past the last
    /// ply): the replay's moves go into the JSON without a [`PlyRecord`]
    /// each in between.
    pub fn with_plies(self, replayer: &'a Replayer, from: usize, fens: &'a [Fen]) -> GameJson<'a> {
        debug_assert!(matches!(self.plies, Plies::Records([])));
        debug_assert!(fens.is_empty() || fens.len() == replayer.len().saturating_sub(from));
        GameJson { plies: Plies::Played(replayer, from, fens), ..self }
    }

    /// Writes the JSON object, on one line without its end: fields in the
    /// message's order, those at their default left out as proto3 JSON
    /// allows (an empty `fenAfter`, a missing message).
    ///
    /// # Errors
    ///
    /// What serializing the fields other than the plies fails with.
    pub fn write_json(&self, out: &mut Vec<u8>) -> io::Result<()> {
        let GameJson { plies, clocks, illegal_move, position, outcome, analysis, rulings } = self;
        out.extend_from_slice(b"{\"plies\":[");
        match *plies {
            Plies::Records(records)
                if clocks.is_some() || records.iter().any(|ply| ply.fen_after.is_some()) =>
            {
                for (i, ply) in records.iter().enumerate() {
                    let clock_ms = clocks.and_then(|ms| ms.get(i).copied());
                    write_ply(out, PlyParts::of(ply, clock_ms), i > 0);
                }
            }
            Plies::Records(records) => write_plain_plies(
                out,
                records.iter().map(|ply| (ply.san, ply.uci, ply.canonical_input)),
            ),
            Plies::Played(replayer, from, []) => write_plain_plies(
                out,
                replayer.plies(from).map(|ply| (ply.san, ply.uci, ply.canonical_input)),
            ),
            Plies::Played(replayer, from, fens) => {
                for (i, (ply, fen)) in replayer.plies(from).zip(fens).enumerate() {
                    let parts = PlyParts { fen_after: Some(fen), ..PlyParts::of(&ply, None) };
                    write_ply(out, parts, i > 0);
                }
            }
        }
        out.push(b']');
        write_field(out, "illegalMove", illegal_move.as_ref())?;
        if let Some(position) = position {
            out.extend_from_slice(b",\"position\":");
            position.write(out)?;
        }
        write_field(out, "outcome", outcome.as_ref())?;
        write_field(out, "analysis", analysis.as_ref())?;
        // A repeated field at its default (empty) is left out.
        write_field(out, "rulings", Some(rulings).filter(|list| !list.is_empty()))?;
        out.push(b'}');
        Ok(())
    }
}

/// Replays `moves` from `start`, on the `clock` record if there is one,
/// and writes the answer as its proto3 JSON line (with its `\n`), as
/// `arbiter validate` prints it.
///
/// # Errors
///
/// What serializing the answer fails with.
pub fn write_game<S: AsRef<str>>(
    out: &mut Vec<u8>,
    start: GamePosition,
    moves: &[S],
    options: &ReplayOptions,
    clock: Option<&ClockRecord>,
) -> io::Result<()> {
    write_game_analysed(out, start, moves, options, clock, false)
}

/// [`write_game`], with the game's analysis (`"analysis"`, after the
/// outcome) when `analysed`: its time use from the clock record's move
/// times.
///
/// # Errors
///
/// What serializing the answer fails with.
pub fn write_game_analysed<S: AsRef<str>>(
    out: &mut Vec<u8>,
    start: GamePosition,
    moves: &[S],
    options: &ReplayOptions,
    clock: Option<&ClockRecord>,
    analysed: bool,
) -> io::Result<()> {
    if options.illegal_moves != IllegalMoves::Stop {
        // Ruled on: the moves played are not a prefix of those sent.
        let (replay, played) = replay_ruled(start.clone(), moves, options, clock);
        let analysis = analysed.then(|| {
            let times = clock
                .map(|record| played_times(&replay.rulings, record.move_times_ms()))
                .unwrap_or_default();
            GameAnalysis::of_replay(&start, &played, &times, clock.map(ClockRecord::control))
        });
        let messages = Messages::new(&replay).with_analysis(analysis.as_ref());
        GameJson::new(&replay, &messages).write_json(out)?;
        out.push(b'\n');
        return Ok(());
    }
    if analysed {
        // The analysis plays the accepted moves again from the start.
        let mut replayer = Replayer::new(start.clone(), options.analysis);
        let played = clock
            .and_then(|record| record.run(start.turn()))
            .map_or(moves.len(), |run| run.plies(moves.len()));
        replayer.extend(&moves[..played], options);
        let times: Vec<Option<u64>> = clock
            .map(|record| record.move_times_ms().iter().copied().map(Some).collect())
            .unwrap_or_default();
        let control = clock.map(ClockRecord::control);
        let analysis = GameAnalysis::of_replay(&start, &replayer, &times, control);
        let replay = match clock {
            Some(record) => replay_clocked(start, moves, options, record),
            None => replay(start, moves, options),
        };
        let messages = Messages::new(&replay).with_analysis(Some(&analysis));
        GameJson::new(&replay, &messages).write_json(out)?;
        out.push(b'\n');
        return Ok(());
    }
    if let Some(record) = clock {
        let replay = replay_clocked(start, moves, options, record);
        let messages = Messages::new(&replay);
        GameJson::new(&replay, &messages).write_json(out)?;
        out.push(b'\n');
        return Ok(());
    }
    let mut replayer = Replayer::new(start, options.analysis);
    let mut tail = replayer.extend(moves, options);
    // The plies go from the replay into the JSON, their FENs from the
    // tail: the answer is asked for none (from past the last), not for a
    // record of each (and a boxed FEN, when FENs are asked for).
    let fens = tail.take_fens();
    let rest = replayer.answer(tail, &ReplayOptions { plies_from: usize::MAX, ..*options });
    let messages = Messages::new(&rest);
    GameJson::new(&rest, &messages)
        .with_plies(&replayer, options.plies_from, &fens)
        .write_json(out)?;
    out.push(b'\n');
    Ok(())
}

/// `"name":value` after a comma, unless `value` is `None`.
fn write_field(out: &mut Vec<u8>, name: &str, value: Option<&impl Serialize>) -> io::Result<()> {
    let Some(value) = value else { return Ok(()) };
    // Not `write!`: its formatting machinery costs more than the rest of
    // the field's prefix.
    for part in [&b",\""[..], name.as_bytes(), b"\":"] {
        out.extend_from_slice(part);
    }
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)
}

/// The most bytes [`write_plain_plies`] writes for a ply: a comma, the
/// longest SAN and UCI, and `false`.
const PLAIN_PLY_BYTES: usize = 1 + 8 + 7 + 9 + 5 + 25;

/// Writes plies without a FEN, given as their SAN, UCI and whether the input
/// was canonical, as [`write_ply`] does, with a comma between them. Each
/// part of a ply is one copy of fixed width into the buffer's spare room
/// (what a part copies past its text is written over by the next, or left
/// past the end): a ply is a dozen short parts, and growing the buffer by
/// each, or zeroing room for each ply first (a `memset` call a ply), cost
/// more than writing them.
fn write_plain_plies(
    out: &mut Vec<u8>,
    plies: impl ExactSizeIterator<Item = (SanString, UciMove, bool)>,
) {
    /// A ply's window, with room for what the widest copy into it carries
    /// past its end (the SAN's padding, the UCI's promotion byte).
    const ROOM: usize = PLAIN_PLY_BYTES + 8;
    out.reserve(plies.len() * PLAIN_PLY_BYTES + ROOM);
    let start = out.len();
    let room = out.spare_capacity_mut();
    let mut end = 0;
    for (i, (san, uci, canonical_input)) in plies.enumerate() {
        // In bounds: every ply before took at most `PLAIN_PLY_BYTES`. A
        // window of fixed size, and lengths known to be small (masked), let
        // the copies below go without a bounds check each.
        let window: &mut [MaybeUninit<u8>; ROOM] =
            (&mut room[end..end + ROOM]).try_into().expect("room for a ply");
        let comma = usize::from(i > 0);
        window[0].write(b',');
        window[comma..comma + 8].write_copy_of_slice(b"{\"san\":\"");
        let mut len = comma + 8;
        window[len..len + 8].write_copy_of_slice(&san.padded());
        len += san.len() & 7;
        window[len..len + 9].write_copy_of_slice(b"\",\"uci\":\"");
        len += 9;
        window[len..len + 5].write_copy_of_slice(&uci.ascii());
        len += uci.text_len() & 7;
        let (tail, tail_len): (&[u8; 25], usize) = if canonical_input {
            (b"\",\"canonicalInput\":true}\0", 24)
        } else {
            (b"\",\"canonicalInput\":false}", 25)
        };
        window[len..len + 25].write_copy_of_slice(tail);
        end += len + tail_len;
    }
    // Safety: the `end` bytes after `start` are initialised: each ply's
    // parts were written one after the other from where the last ply's
    // text ended, up to where its own ends, and the capacity reserved holds
    // them all (`Vec::reserve`, and the bounds-checked slices above).
    unsafe { out.set_len(start + end) };
}

/// A short run of bytes written straight into the end of a buffer that
/// has room for [`ShortRun::ROOM`] more: a ply is a dozen short parts, each
/// one copy of fixed width. (Assembled in an array on the stack and then
/// copied, the array's read-back waited on its stores every ply.)
struct ShortRun<'a> {
    out: &'a mut Vec<u8>,
    end: usize,
}

impl<'a> ShortRun<'a> {
    const ROOM: usize = 64;

    /// A run at the end of `out`.
    fn new(out: &'a mut Vec<u8>) -> ShortRun<'a> {
        let end = out.len();
        out.resize(end + Self::ROOM, 0);
        ShortRun { out, end }
    }

    /// Appends `text`.
    #[inline]
    fn push(&mut self, text: &[u8]) {
        self.out[self.end..self.end + text.len()].copy_from_slice(text);
        self.end += text.len();
    }

    /// Appends the first `len` bytes of `text`, copying all of it (a fixed
    /// width is one move; what is past `len` is written over next).
    #[inline]
    fn push_prefix<const N: usize>(&mut self, text: [u8; N], len: usize) {
        self.out[self.end..self.end + N].copy_from_slice(&text);
        self.end += len;
    }

    /// Cuts the buffer back to the end of the run.
    fn finish(self) -> &'a mut Vec<u8> {
        self.out.truncate(self.end);
        self.out
    }
}

/// One ply as `proto::Ply` from the service's conversion, without the
/// strings. SAN, UCI and FEN are made of letters, digits and `x=+#-/ `
/// only: nothing in them needs escaping.
/// Its mover's clock after it (`clock_ms`) as a Duration. A comma comes
/// first when `comma`.
fn write_ply(out: &mut Vec<u8>, ply: PlyParts<'_>, comma: bool) {
    // `clock_ms` is the wire's packed form of `clock`, for requests that
    // send `move_times_ms`; the command line's JSON writes the Duration.
    let _: fn(proto::Ply) =
        |proto::Ply { san: _, uci: _, fen_after: _, canonical_input: _, clock: _, clock_ms: _ }| {};
    let PlyParts { san, uci, fen_after, canonical_input, clock_ms } = ply;
    debug_assert!(plain(san.as_bytes()));
    // At most 1 + 9 + 8 + 9 + 5 + 1 + 24 bytes.
    let mut run = ShortRun::new(out);
    run.push(&b","[..usize::from(comma)]);
    run.push(b"{\"san\":\"");
    run.push_prefix(san.padded(), san.len());
    run.push(b"\",\"uci\":\"");
    run.push_prefix(uci.ascii(), uci.text_len());
    run.push(b"\"");
    if let Some(fen) = fen_after {
        debug_assert!(plain(fen.as_bytes()));
        let out = run.finish();
        out.extend_from_slice(b",\"fenAfter\":\"");
        out.extend_from_slice(fen.as_bytes());
        run = ShortRun::new(out);
        run.push(b"\"");
    }
    run.push(if canonical_input {
        b",\"canonicalInput\":true"
    } else {
        b",\"canonicalInput\":false"
    });
    let out = run.finish();
    if let Some(ms) = clock_ms {
        out.extend_from_slice(b",\"clock\":");
        push_duration_json(out, &duration(ms));
    }
    out.push(b'}');
}

/// A ply's fields as [`write_ply`] writes them: from a [`PlyRecord`],
/// with a FEN from the replay's tail or its own.
#[derive(Clone, Copy)]
struct PlyParts<'a> {
    san: SanString,
    uci: UciMove,
    fen_after: Option<&'a Fen>,
    canonical_input: bool,
    /// The mover's clock after the ply.
    clock_ms: Option<u64>,
}

impl<'a> PlyParts<'a> {
    fn of(ply: &'a PlyRecord, clock_ms: Option<u64>) -> PlyParts<'a> {
        let PlyRecord { san, uci, fen_after, canonical_input } = ply;
        PlyParts {
            san: *san,
            uci: *uci,
            fen_after: fen_after.as_deref(),
            canonical_input: *canonical_input,
            clock_ms,
        }
    }
}

impl<'a> From<&'a proto::IllegalMove> for IllegalMoveJson<'a> {
    fn from(illegal: &'a proto::IllegalMove) -> IllegalMoveJson<'a> {
        let proto::IllegalMove { index, r#move, reason, message } = illegal;
        IllegalMoveJson {
            index: *index,
            text: r#move,
            reason: enum_name(*reason, |r: proto::IllegalMoveReason| r.as_str_name()),
            message,
        }
    }
}

impl<'a> From<&'a proto::Position> for PositionJson<'a> {
    fn from(position: &'a proto::Position) -> PositionJson<'a> {
        let proto::Position {
            fen,
            turn,
            in_check,
            halfmove_clock,
            fullmove_number,
            legal_moves,
            winnability,
            clocks,
        } = position;
        PositionJson {
            fen,
            turn: enum_name(*turn, |c: proto::Color| c.as_str_name()),
            in_check: *in_check,
            halfmove_clock: *halfmove_clock,
            fullmove_number: *fullmove_number,
            legal_moves: LegalMovesJson::Messages(legal_moves),
            winnability: winnability.as_ref().map(|w| {
                let proto::Winnability { white, black } = w;
                WinnabilityJson {
                    white: white.as_ref().map(ColorVerdictJson::from),
                    black: black.as_ref().map(ColorVerdictJson::from),
                }
            }),
            clocks: clocks.as_ref().map(|times| {
                let proto::RemainingTimes { white, black } = times;
                RemainingTimesJson { white: white.as_ref(), black: black.as_ref() }
            }),
        }
    }
}

impl PositionJson<'_> {
    /// Writes the object, in the message's field order: the FEN, SAN and
    /// UCI need no escaping ([`plain`]), and a position lists dozens of
    /// moves, each a few short parts here rather than a message and a
    /// serializer's struct.
    ///
    /// # Errors
    ///
    /// What serializing the verdicts or the clocks fails with.
    fn write(&self, out: &mut Vec<u8>) -> io::Result<()> {
        let PositionJson {
            fen,
            turn,
            in_check,
            halfmove_clock,
            fullmove_number,
            legal_moves,
            winnability,
            clocks,
        } = self;
        debug_assert!(plain(fen.as_bytes()));
        for part in [
            &b"{\"fen\":\""[..],
            fen.as_bytes(),
            b"\",\"turn\":\"",
            turn.as_bytes(),
            if *in_check { b"\",\"inCheck\":true" } else { b"\",\"inCheck\":false" },
            b",\"halfmoveClock\":",
        ] {
            out.extend_from_slice(part);
        }
        push_decimal(out, u64::from(*halfmove_clock));
        out.extend_from_slice(b",\"fullmoveNumber\":");
        push_decimal(out, u64::from(*fullmove_number));
        out.extend_from_slice(b",\"legalMoves\":[");
        match legal_moves {
            LegalMovesJson::Replay(moves) => {
                for (i, m) in moves.iter().enumerate() {
                    let LegalMove { uci, san, claims } = m;
                    let names = claims.iter().map(|d| proto::ClaimableDraw::from(d).as_str_name());
                    let uci = &uci.ascii()[..uci.text_len()];
                    write_legal_move(out, i > 0, uci, san.as_bytes(), names);
                }
            }
            LegalMovesJson::Messages(moves) => {
                for (i, m) in moves.iter().enumerate() {
                    let proto::LegalMove { uci, san, claimable_draws } = m;
                    let names = draw_names(claimable_draws).into_iter();
                    write_legal_move(out, i > 0, uci.as_bytes(), san.as_bytes(), names);
                }
            }
        }
        out.push(b']');
        write_field(out, "winnability", winnability.as_ref())?;
        if let Some(clocks) = clocks {
            clocks.write(out);
        }
        out.push(b'}');
        Ok(())
    }
}

impl RemainingTimesJson<'_> {
    /// Writes the field after a comma, both times always (`null` for a
    /// missing one, as a serializer would).
    fn write(&self, out: &mut Vec<u8>) {
        let RemainingTimesJson { white, black } = self;
        for (name, time) in [(&b",\"clocks\":{\"white\":"[..], white), (b",\"black\":", black)] {
            out.extend_from_slice(name);
            match time {
                Some(time) => push_duration_json(out, time),
                None => out.extend_from_slice(b"null"),
            }
        }
        out.push(b'}');
    }
}

/// Whether `text` may go into a JSON string as it is: printable ASCII
/// (spaces included) but for `"` and `\`, as SAN, UCI and FEN are.
fn plain(text: &[u8]) -> bool {
    text.iter().all(|&b| (b.is_ascii_graphic() && b != b'"' && b != b'\\') || b == b' ')
}

/// A `LegalMove`, after a comma when `comma`; its `claimableDraws` left out
/// when empty, as proto3 JSON allows (most moves claim nothing).
fn write_legal_move<'a>(
    out: &mut Vec<u8>,
    comma: bool,
    uci: &[u8],
    san: &[u8],
    claims: impl Iterator<Item = &'a str>,
) {
    debug_assert!(plain(uci) && plain(san));
    for part in [&b","[..usize::from(comma)], b"{\"uci\":\"", uci, b"\",\"san\":\"", san, b"\""] {
        out.extend_from_slice(part);
    }
    let mut listed = false;
    for name in claims {
        out.extend_from_slice(if listed { b",\"" } else { b",\"claimableDraws\":[\"" });
        out.extend_from_slice(name.as_bytes());
        out.push(b'"');
        listed = true;
    }
    out.extend_from_slice(if listed { b"]}" } else { b"}" });
}

impl<'a> From<&'a proto::Outcome> for OutcomeJson<'a> {
    fn from(outcome: &'a proto::Outcome) -> OutcomeJson<'a> {
        let proto::Outcome { result, termination, claimable_draws, pgn_result, unproven } = outcome;
        OutcomeJson {
            result: enum_name(*result, |r: proto::GameResult| r.as_str_name()),
            termination: (*termination != proto::Termination::Unspecified as i32)
                .then(|| enum_name(*termination, |t: proto::Termination| t.as_str_name())),
            claimable_draws: draw_names(claimable_draws),
            pgn_result,
            unproven: *unproven,
        }
    }
}

impl<'a> From<&'a proto::ColorVerdict> for ColorVerdictJson<'a> {
    fn from(verdict: &'a proto::ColorVerdict) -> ColorVerdictJson<'a> {
        let proto::ColorVerdict { verdict, helpmate } = verdict;
        ColorVerdictJson {
            verdict: enum_name(*verdict, |v: proto::Verdict| v.as_str_name()),
            helpmate,
        }
    }
}

/// The names of claimable draws.
fn draw_names(draws: &[i32]) -> Vec<&'static str> {
    draws.iter().map(|&d| enum_name(d, |d: proto::ClaimableDraw| d.as_str_name())).collect()
}

#[cfg(test)]
mod tests;
