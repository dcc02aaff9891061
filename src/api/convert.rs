//! Conversion between `arbiter.v1` messages and the rules core. Requests are
//! destructured field by field (no `..`), so a new field in the contract
//! does not compile until it is given a meaning here.

use std::fmt;

use crate::chess::game::{MoveTexts, Notation, ReplayOptions};
use crate::chess::{Position, Square};
use crate::proto;

use super::wire;
use super::{Limits, RequestError};

/// A game to replay, checked against the limits.
#[derive(Clone, Debug)]
pub struct GameRequest {
    pub start: Position,
    pub moves: MoveTexts,
    pub options: ReplayOptions,
}

/// Reads the start position: empty means the standard start.
fn start_position(fen: &str, field: Field<'_>, limits: &Limits) -> Result<Position, RequestError> {
    if fen.is_empty() {
        return Ok(Position::default());
    }
    if fen.len() > limits.max_fen_bytes {
        return Err(RequestError::FenTooLong {
            field: field.to_string(),
            len: fen.len(),
            max: limits.max_fen_bytes,
        });
    }
    fen.parse().map_err(|error| RequestError::InvalidFen { field: field.to_string(), error })
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

fn standard_variant(value: i32, field: Field<'_>) -> Result<(), RequestError> {
    match proto::Variant::try_from(value) {
        Ok(proto::Variant::Unspecified | proto::Variant::Standard) => Ok(()),
        Ok(proto::Variant::Chess960) => {
            Err(RequestError::UnsupportedVariant { field: field.to_string() })
        }
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
            variant,
            strict_san,
            include_fens,
            skip_legal_moves,
            plies_from,
        } = request;
        let field = |name| Field { prefix, name };
        standard_variant(variant, field("variant"))?;
        let notation = notation(notation_value, field("notation"))?;
        check_moves(&moves, field("moves"), limits)?;
        let start = start_position(&fen, field("fen"), limits)?;
        Ok(GameRequest {
            start,
            moves,
            options: ReplayOptions {
                notation,
                strict: strict_san,
                include_fens,
                skip_legal_moves,
                plies_from: plies_from as usize,
                shredder_fen: false,
            },
        })
    }
}

/// A `LegalMovesRequest`, checked.
#[derive(Clone, Debug)]
pub struct LegalMovesQuery {
    pub game: GameRequest,
    pub from: Option<Square>,
}

impl LegalMovesQuery {
    /// # Errors
    ///
    /// A [`RequestError`] naming the first field at fault.
    pub fn from_proto(
        request: wire::LegalMovesRequest,
        limits: &Limits,
    ) -> Result<LegalMovesQuery, RequestError> {
        let wire::LegalMovesRequest { fen, moves, notation: notation_value, variant, from_square } =
            request;
        standard_variant(variant, Field::top("variant"))?;
        let notation = notation(notation_value, Field::top("notation"))?;
        check_moves(&moves, Field::top("moves"), limits)?;
        let start = start_position(&fen, Field::top("fen"), limits)?;
        let from = match from_square.as_str() {
            "" => None,
            text => Some(text.parse().map_err(|_| RequestError::InvalidSquare {
                field: "from_square".to_owned(),
                text: text.chars().take(16).collect(),
            })?),
        };
        // The service lists the (filtered) legal moves itself.
        let options = ReplayOptions {
            notation,
            strict: false,
            include_fens: false,
            skip_legal_moves: true,
            plies_from: moves.len(),
            shredder_fen: false,
        };
        Ok(LegalMovesQuery { game: GameRequest { start, moves, options }, from })
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
        let proto::PerftRequest { fen, depth, divide, variant } = request;
        standard_variant(variant, Field::top("variant"))?;
        if depth > limits.max_perft_depth {
            return Err(RequestError::DepthTooLarge {
                field: "depth".to_owned(),
                depth,
                max: limits.max_perft_depth,
            });
        }
        Ok(PerftQuery { start: start_position(&fen, Field::top("fen"), limits)?, depth, divide })
    }
}
