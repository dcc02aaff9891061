//! Conversion between `arbiter.v1` messages and the rules core. Requests are
//! destructured field by field (no `..`), so a new field in the contract
//! does not compile until it is given a meaning here.

use std::fmt;

use crate::move_texts::MoveTexts;
use crate::proto;
use arbiter_chess::{
    ClockRecord, Color, Delay, DelayKind, GamePosition, IllegalMoves, MAX_SECONDS, Notation,
    Period, ReplayOptions, Rules, StartError, StartFenError, TimeControl, TimeOf, Variant,
};

use super::wire::{self, PlyClockForm};
use super::{Limits, RequestError};

/// A game to replay, checked against the limits.
#[derive(Clone, Debug)]
pub struct GameRequest {
    pub start: GamePosition,
    pub moves: MoveTexts,
    pub options: ReplayOptions,
    /// The clock record, which decides flag falls, if any.
    pub clock: Option<ClockRecord>,
    /// How the answer writes each ply's clock: as the request sent its
    /// move times.
    pub ply_clocks: PlyClockForm,
    /// Whether the answer says what the game was.
    pub analysis: bool,
}

/// Reads the start position (the core's one reading: see
/// [`GamePosition::start`]), naming the field at fault.
fn start_position(
    fen: &str,
    number: Option<u32>,
    rules: Option<Rules>,
    field: FieldPath<'_>,
    number_field: FieldPath<'_>,
    limits: &Limits,
) -> Result<GamePosition, RequestError> {
    let fen = if fen.is_empty() {
        None
    } else {
        check_fen_length(fen, field, limits)?;
        Some(fen)
    };
    GamePosition::start(rules, fen, number).map_err(|error| {
        let conflict =
            |why| RequestError::ConflictingFields { field: number_field.to_string(), why };
        match error {
            StartError::Fen(StartFenError::Chess(error)) => {
                RequestError::InvalidFen { field: field.to_string(), error }
            }
            StartError::Fen(StartFenError::Variant { variant: _, error }) => {
                RequestError::InvalidVariantFen { field: field.to_string(), error }
            }
            StartError::NumberOutOfRange(number) => {
                RequestError::StartPositionOutOfRange { field: number_field.to_string(), number }
            }
            StartError::NumberWithOtherRules(_) => conflict("needs variant VARIANT_CHESS960"),
            StartError::NumberAndFen => conflict("and fen are both given: send one"),
        }
    })
}

fn check_fen_length(fen: &str, field: FieldPath<'_>, limits: &Limits) -> Result<(), RequestError> {
    if fen.len() > limits.max_fen_bytes {
        return Err(RequestError::FenTooLong {
            field: field.to_string(),
            len: fen.len(),
            max: limits.max_fen_bytes,
        });
    }
    Ok(())
}

/// Refuses `name`, a chess option, with a variant.
fn chess_only(set: bool, rules: Option<Rules>, field: FieldPath<'_>) -> Result<(), RequestError> {
    match rules {
        Some(Rules::Variant(_)) if set => Err(RequestError::ConflictingFields {
            field: field.to_string(),
            why: "is for standard chess and Chess960, not lichess's variants",
        }),
        _ => Ok(()),
    }
}

fn check_moves(
    moves: &MoveTexts,
    field: FieldPath<'_>,
    limits: &Limits,
) -> Result<(), RequestError> {
    if moves.len() > limits.max_moves {
        return Err(RequestError::TooManyMoves {
            field: field.to_string(),
            count: moves.len(),
            max: limits.max_moves,
        });
    }
    Ok(())
}

fn notation(value: i32, field: FieldPath<'_>) -> Result<Notation, RequestError> {
    match proto::Notation::try_from(value) {
        Ok(proto::Notation::Unspecified) => Ok(Notation::Auto),
        Ok(proto::Notation::Uci) => Ok(Notation::Uci),
        Ok(proto::Notation::San) => Ok(Notation::San),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

/// What to do with completed illegal moves: stop at the first for
/// ILLEGAL_MOVES_UNSPECIFIED.
fn illegal_moves(value: i32, field: FieldPath<'_>) -> Result<IllegalMoves, RequestError> {
    match proto::IllegalMoves::try_from(value) {
        Ok(proto::IllegalMoves::Unspecified | proto::IllegalMoves::Stop) => Ok(IllegalMoves::Stop),
        Ok(proto::IllegalMoves::Fide) => Ok(IllegalMoves::Fide),
        Ok(proto::IllegalMoves::Fide2009) => Ok(IllegalMoves::Fide2009),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

/// The flagged side: none for COLOR_UNSPECIFIED.
fn flagged(value: i32, field: FieldPath<'_>) -> Result<Option<Color>, RequestError> {
    match proto::Color::try_from(value) {
        Ok(proto::Color::Unspecified) => Ok(None),
        Ok(proto::Color::White) => Ok(Some(Color::White)),
        Ok(proto::Color::Black) => Ok(Some(Color::Black)),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

/// The rules `variant` names, `None` for VARIANT_UNSPECIFIED.
fn variant(value: i32, field: FieldPath<'_>) -> Result<Option<Rules>, RequestError> {
    use proto::Variant as V;
    Ok(Some(match V::try_from(value) {
        Ok(V::Unspecified) => return Ok(None),
        Ok(V::Standard) => Rules::Standard,
        Ok(V::Chess960) => Rules::Chess960,
        Ok(V::Crazyhouse) => Rules::Variant(Variant::Crazyhouse),
        Ok(V::Atomic) => Rules::Variant(Variant::Atomic),
        Ok(V::Antichess) => Rules::Variant(Variant::Antichess),
        Ok(V::KingOfTheHill) => Rules::Variant(Variant::KingOfTheHill),
        Ok(V::ThreeCheck) => Rules::Variant(Variant::ThreeCheck),
        Ok(V::Horde) => Rules::Variant(Variant::Horde),
        Ok(V::RacingKings) => Rules::Variant(Variant::RacingKings),
        Err(_) => return Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }))
}

/// A field path: `fen` at the top level, `game.fen` inside a stream
/// request. Written out only for an error: a stream checks four per game.
#[derive(Clone, Copy)]
struct FieldPath<'a> {
    prefix: &'a str,
    name: &'static str,
}

impl FieldPath<'_> {
    const fn top(name: &'static str) -> FieldPath<'static> {
        FieldPath { prefix: "", name }
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.prefix.is_empty() {
            write!(f, "{}.", self.prefix)?;
        }
        f.write_str(self.name)
    }
}

/// A `google.protobuf.Duration` in whole milliseconds: not negative, at
/// most [`MAX_SECONDS`], no finer than a millisecond.
#[inline]
fn duration_ms(
    duration: &prost_types::Duration,
    field: impl FnOnce() -> String,
) -> Result<u64, RequestError> {
    let prost_types::Duration { seconds, nanos } = *duration;
    let why = if seconds < 0 || nanos < 0 {
        "is negative"
    } else if nanos >= 1_000_000_000 {
        "has nanos of a second or more"
    } else if nanos % 1_000_000 != 0 {
        "is finer than a millisecond: times are whole milliseconds"
    } else if seconds.unsigned_abs() > MAX_SECONDS {
        "is more than 10000000 s"
    } else {
        return Ok(seconds.unsigned_abs() * 1000 + nanos.unsigned_abs() as u64 / 1_000_000);
    };
    Err(RequestError::InvalidDuration { field: field(), why: why.to_owned() })
}

/// An optional Duration, 0 when absent.
fn optional_ms(
    duration: Option<&prost_types::Duration>,
    field: impl FnOnce() -> String,
) -> Result<u64, RequestError> {
    duration.map_or(Ok(0), |duration| duration_ms(duration, field))
}

/// A `TimeControl` message, `time_control` of the clock at `clock`: the
/// tag, or the periods and the delay.
fn time_control(
    control: Option<proto::TimeControl>,
    clock: FieldPath<'_>,
) -> Result<TimeControl, RequestError> {
    let proto::TimeControl { tag, periods, delay } = control.unwrap_or_default();
    let field = format_args!("{clock}.time_control");
    let at = |name: &str| format!("{field}.{name}");
    // The field's name is written only on an error: a valid control (every
    // clocked call's) costs no `format!`.
    let invalid = |name: &'static str| {
        move |error| RequestError::InvalidTimeControl { field: at(name), error }
    };
    if !tag.is_empty() {
        if !periods.is_empty() || delay.is_some() {
            return Err(RequestError::ConflictingFields {
                field: at("tag"),
                why: "and periods or delay are both given: send one",
            });
        }
        return tag.parse().map_err(invalid("tag"));
    }
    if periods.is_empty() {
        return Err(RequestError::MissingField { field: format!("{field}.tag") });
    }
    let periods = periods
        .iter()
        .enumerate()
        .map(|(i, period)| {
            let proto::TimePeriod { moves, time, increment } = period;
            Ok(Period {
                moves: *moves,
                time_ms: optional_ms(time.as_ref(), || at(&format!("periods[{i}].time")))?,
                increment_ms: optional_ms(increment.as_ref(), || {
                    at(&format!("periods[{i}].increment"))
                })?,
            })
        })
        .collect::<Result<Vec<_>, RequestError>>()?;
    let delay = match delay {
        None => None,
        Some(proto::TimeDelay { kind, time }) => {
            let ms = optional_ms(time.as_ref(), || at("delay.time"))?;
            let kind = match proto::DelayKind::try_from(kind) {
                Ok(proto::DelayKind::Bronstein) => Some(DelayKind::Bronstein),
                Ok(proto::DelayKind::Simple) => Some(DelayKind::Simple),
                Ok(proto::DelayKind::Unspecified) => None,
                Err(_) => {
                    return Err(RequestError::UnknownEnumValue {
                        field: at("delay.kind"),
                        value: kind,
                    });
                }
            };
            match (kind, ms) {
                (_, 0) => None,
                (Some(kind), ms) => Some(Delay { kind, ms }),
                (None, _) => {
                    return Err(RequestError::MissingField { field: at("delay.kind") });
                }
            }
        }
    };
    TimeControl::structured(periods, delay).map_err(invalid("periods"))
}

/// A `GameClock` message for a list of `moves` moves, with the form its
/// move times came in, which the answer's ply clocks take.
fn clock_record(
    clock: wire::GameClockFields,
    moves: usize,
    field: FieldPath<'_>,
) -> Result<(ClockRecord, PlyClockForm), RequestError> {
    let wire::GameClockFields { time_control: control, move_times, pending, move_times_ms } = clock;
    let (form, times_field) = match (move_times.is_empty(), move_times_ms.is_empty()) {
        (false, false) => {
            return Err(RequestError::ConflictingFields {
                field: format!("{field}.move_times_ms"),
                why: "and move_times are both given: send the move times in one form",
            });
        }
        (true, false) => (PlyClockForm::Millis, "move_times_ms"),
        _ => (PlyClockForm::Duration, "move_times"),
    };
    let control = time_control(control, field)?;
    let times = match form {
        // Whole milliseconds, read from the wire into this vector.
        PlyClockForm::Millis => move_times_ms,
        PlyClockForm::Duration => {
            // A loop, not a collect of results: one time a move.
            let mut times = Vec::with_capacity(move_times.len());
            for (i, time) in move_times.iter().enumerate() {
                times.push(duration_ms(time, || format!("{field}.move_times[{i}]"))?);
            }
            times
        }
    };
    let pending = optional_ms(pending.as_ref(), || format!("{field}.pending"))?;
    let record = ClockRecord::new(control, times, pending, moves).map_err(|error| {
        let field = match error {
            arbiter_chess::ClockRecordError::TooLong { what: TimeOf::Move(i), .. } => {
                format!("{field}.{times_field}[{i}]")
            }
            arbiter_chess::ClockRecordError::TooLong { what: TimeOf::Pending, .. } => {
                format!("{field}.pending")
            }
            arbiter_chess::ClockRecordError::Misaligned { .. } => {
                format!("{field}.{times_field}")
            }
        };
        RequestError::InvalidClock { field, error }
    })?;
    Ok((record, form))
}

impl GameRequest {
    /// Checks a `ValidateGameRequest`; `prefix` names where it sits in the
    /// message (empty at the top level, `game` in a stream request).
    ///
    /// # Errors
    ///
    /// A [`RequestError`] naming the first field at fault.
    pub fn from_proto(
        request: wire::ValidateGameRequest,
        prefix: &str,
        limits: &Limits,
    ) -> Result<GameRequest, RequestError> {
        let wire::ValidateGameRequest {
            fen,
            moves,
            notation: notation_value,
            variant: variant_value,
            strict_san,
            include_fens,
            skip_legal_moves,
            plies_from,
            chess960_position,
            shredder_fen,
            flagged: flagged_value,
            include_winnability,
            clock,
            include_analysis,
            illegal_moves: illegal_moves_value,
        } = request;
        let field = |name| FieldPath { prefix, name };
        let rules = variant(variant_value, field("variant"))?;
        let notation = notation(notation_value, field("notation"))?;
        let flagged = flagged(flagged_value, field("flagged"))?;
        let illegal_moves = illegal_moves(illegal_moves_value, field("illegal_moves"))?;
        check_moves(&moves, field("moves"), limits)?;
        chess_only(shredder_fen, rules, field("shredder_fen"))?;
        chess_only(include_winnability, rules, field("include_winnability"))?;
        let start = start_position(
            &fen,
            chess960_position,
            rules,
            field("fen"),
            field("chess960_position"),
            limits,
        )?;
        let (clock, ply_clocks) = match clock {
            Some(_) if flagged.is_some() => {
                return Err(RequestError::ConflictingFields {
                    field: field("clock").to_string(),
                    why: "and flagged are both given: the clock decides flag falls",
                });
            }
            Some(clock) => {
                let (record, form) = clock_record(clock, moves.len(), field("clock"))?;
                (Some(record), form)
            }
            None => (None, PlyClockForm::Duration),
        };
        Ok(GameRequest {
            start,
            clock,
            ply_clocks,
            analysis: include_analysis,
            moves,
            options: ReplayOptions {
                notation,
                strict: strict_san,
                include_fens,
                skip_legal_moves,
                plies_from: plies_from as usize,
                shredder_fen,
                legal_moves_from: None,
                flagged,
                winnability: include_winnability,
                analysis: limits.analysis,
                illegal_moves,
            },
        })
    }
}

/// A `LegalMovesRequest`, checked: the game, whose options say which
/// legal moves to list.
#[derive(Clone, Debug)]
pub struct LegalMovesQuery {
    pub game: GameRequest,
}

impl LegalMovesQuery {
    /// # Errors
    ///
    /// A [`RequestError`] naming the first field at fault.
    pub fn from_proto(
        request: wire::LegalMovesRequest,
        limits: &Limits,
    ) -> Result<LegalMovesQuery, RequestError> {
        let wire::LegalMovesRequest {
            fen,
            moves,
            notation: notation_value,
            variant: variant_value,
            from_square,
            chess960_position,
            shredder_fen,
        } = request;
        let rules = variant(variant_value, FieldPath::top("variant"))?;
        let notation = notation(notation_value, FieldPath::top("notation"))?;
        check_moves(&moves, FieldPath::top("moves"), limits)?;
        chess_only(shredder_fen, rules, FieldPath::top("shredder_fen"))?;
        let start = start_position(
            &fen,
            chess960_position,
            rules,
            FieldPath::top("fen"),
            FieldPath::top("chess960_position"),
            limits,
        )?;
        let legal_moves_from = match from_square.as_str() {
            "" => None,
            text => Some(text.parse().map_err(|_| RequestError::InvalidSquare {
                field: "from_square".to_owned(),
                text: text.chars().take(16).collect(),
            })?),
        };
        let options = ReplayOptions {
            notation,
            plies_from: moves.len(),
            shredder_fen,
            legal_moves_from,
            analysis: limits.analysis,
            ..ReplayOptions::default()
        };
        Ok(LegalMovesQuery {
            game: GameRequest {
                start,
                moves,
                options,
                clock: None,
                ply_clocks: PlyClockForm::Duration,
                analysis: false,
            },
        })
    }
}

/// A `PerftRequest`, checked.
#[derive(Clone, Debug)]
pub struct PerftQuery {
    pub start: GamePosition,
    pub depth: u32,
    pub divide: bool,
}

impl PerftQuery {
    /// # Errors
    ///
    /// A [`RequestError`] naming the first field at fault.
    pub fn from_proto(
        request: proto::PerftRequest,
        limits: &Limits,
    ) -> Result<PerftQuery, RequestError> {
        let proto::PerftRequest { fen, depth, divide, variant: variant_value, chess960_position } =
            request;
        let rules = variant(variant_value, FieldPath::top("variant"))?;
        if depth > limits.max_perft_depth {
            return Err(RequestError::DepthTooLarge {
                field: "depth".to_owned(),
                depth,
                max: limits.max_perft_depth,
            });
        }
        let start = start_position(
            &fen,
            chess960_position,
            rules,
            FieldPath::top("fen"),
            FieldPath::top("chess960_position"),
            limits,
        )?;
        Ok(PerftQuery { start, depth, divide })
    }
}
