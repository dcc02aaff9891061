//! Conversion between `arbiter.v1` messages and the rules core. Requests are
//! destructured field by field (no `..`), so a new field in the contract
//! does not compile until it is given a meaning here.

use std::fmt;

use crate::move_texts::MoveTexts;
use crate::proto;
use arbiter_chess::{CastlingMode, Color, Notation, Position, ReplayOptions};

use super::wire;
use super::{Limits, RequestError};

/// A game to replay, checked against the limits.
#[derive(Clone, Debug)]
pub struct GameRequest {
    pub start: Position,
    pub moves: MoveTexts,
    pub options: ReplayOptions,
}

/// Reads the start position under `mode`: a Chess960 start position by
/// number (`chess960_position`, which needs Chess960 and no FEN), else the
/// FEN, else the standard start (position 518 in Chess960).
fn start_position(
    fen: &str,
    number: Option<u32>,
    mode: CastlingMode,
    field: Field<'_>,
    number_field: Field<'_>,
    limits: &Limits,
) -> Result<Position, RequestError> {
    if let Some(number) = number {
        let why = match (mode, fen.is_empty()) {
            (CastlingMode::Standard, _) => "needs variant VARIANT_CHESS960",
            (CastlingMode::Chess960, false) => "and fen are both given: send one",
            (CastlingMode::Chess960, true) => {
                return Position::chess960_start(number).ok_or_else(|| {
                    RequestError::StartPositionOutOfRange {
                        field: number_field.to_string(),
                        number,
                    }
                });
            }
        };
        return Err(RequestError::ConflictingFields { field: number_field.to_string(), why });
    }
    if fen.is_empty() {
        return Ok(match mode {
            CastlingMode::Standard => Position::default(),
            CastlingMode::Chess960 => Position::chess960_start(518).unwrap_or_default(),
        });
    }
    if fen.len() > limits.max_fen_bytes {
        return Err(RequestError::FenTooLong {
            field: field.to_string(),
            len: fen.len(),
            max: limits.max_fen_bytes,
        });
    }
    Position::from_fen(fen, mode)
        .map_err(|error| RequestError::InvalidFen { field: field.to_string(), error })
}

fn check_moves(moves: &MoveTexts, field: Field<'_>, limits: &Limits) -> Result<(), RequestError> {
    if moves.len() > limits.max_moves {
        return Err(RequestError::TooManyMoves {
            field: field.to_string(),
            count: moves.len(),
            max: limits.max_moves,
        });
    }
    Ok(())
}

fn notation(value: i32, field: Field<'_>) -> Result<Notation, RequestError> {
    match proto::Notation::try_from(value) {
        Ok(proto::Notation::Unspecified) => Ok(Notation::Auto),
        Ok(proto::Notation::Uci) => Ok(Notation::Uci),
        Ok(proto::Notation::San) => Ok(Notation::San),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

/// The flagged side: none for COLOR_UNSPECIFIED.
fn flagged(value: i32, field: Field<'_>) -> Result<Option<Color>, RequestError> {
    match proto::Color::try_from(value) {
        Ok(proto::Color::Unspecified) => Ok(None),
        Ok(proto::Color::White) => Ok(Some(Color::White)),
        Ok(proto::Color::Black) => Ok(Some(Color::Black)),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

fn variant(value: i32, field: Field<'_>) -> Result<CastlingMode, RequestError> {
    match proto::Variant::try_from(value) {
        Ok(proto::Variant::Unspecified | proto::Variant::Standard) => Ok(CastlingMode::Standard),
        Ok(proto::Variant::Chess960) => Ok(CastlingMode::Chess960),
        Err(_) => Err(RequestError::UnknownEnumValue { field: field.to_string(), value }),
    }
}

/// A field path: `fen` at the top level, `game.fen` inside a stream
/// request. Written out only for an error: a stream checks four per game.
#[derive(Clone, Copy)]
struct Field<'a> {
    prefix: &'a str,
    name: &'static str,
}

impl Field<'_> {
    const fn top(name: &'static str) -> Field<'static> {
        Field { prefix: "", name }
    }
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.prefix.is_empty() {
            write!(f, "{}.", self.prefix)?;
        }
        f.write_str(self.name)
    }
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
        } = request;
        let field = |name| Field { prefix, name };
        let mode = variant(variant_value, field("variant"))?;
        let notation = notation(notation_value, field("notation"))?;
        let flagged = flagged(flagged_value, field("flagged"))?;
        check_moves(&moves, field("moves"), limits)?;
        let start = start_position(
            &fen,
            chess960_position,
            mode,
            field("fen"),
            field("chess960_position"),
            limits,
        )?;
        Ok(GameRequest {
            start,
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
        let mode = variant(variant_value, Field::top("variant"))?;
        let notation = notation(notation_value, Field::top("notation"))?;
        check_moves(&moves, Field::top("moves"), limits)?;
        let start = start_position(
            &fen,
            chess960_position,
            mode,
            Field::top("fen"),
            Field::top("chess960_position"),
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
        Ok(LegalMovesQuery { game: GameRequest { start, moves, options } })
    }
}

/// A `PerftRequest`, checked.
#[derive(Clone, Debug)]
pub struct PerftQuery {
    pub start: Position,
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
        let mode = variant(variant_value, Field::top("variant"))?;
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
            mode,
            Field::top("fen"),
            Field::top("chess960_position"),
            limits,
        )?;
        Ok(PerftQuery { start, depth, divide })
    }
}
