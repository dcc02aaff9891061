//! Conversion between `arbiter.v1` messages and the rules core. Requests are
//! destructured field by field (no `..`), so a new field in the contract
//! does not compile until it is given a meaning here.

use std::fmt;

use crate::chess::game::{IllegalMove, LegalMove, Notation, PlyRecord, Replay, ReplayOptions};
use crate::chess::illegal::IllegalReason;
use crate::chess::outcome::{ClaimableDraw, GameResult, Outcome, Termination};
use crate::chess::{Color, Position, Square};
use crate::proto;

use super::wire::{self, MoveTexts};
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

impl From<&Replay> for proto::ValidateGameResponse {
    fn from(replay: &Replay) -> proto::ValidateGameResponse {
        let Replay { plies, illegal_move, position, legal_moves, outcome } = replay;
        proto::ValidateGameResponse {
            plies: plies.iter().map(proto::Ply::from).collect(),
            illegal_move: illegal_move.as_ref().map(proto::IllegalMove::from),
            position: Some(position_message(position, legal_moves)),
            outcome: Some(proto::Outcome::from(outcome)),
        }
    }
}

impl From<&PlyRecord> for proto::Ply {
    fn from(ply: &PlyRecord) -> proto::Ply {
        let PlyRecord { san, uci, fen_after, canonical_input } = ply;
        proto::Ply {
            // `as_str().to_owned()`, not `to_string()`: no formatting
            // machinery for the hundreds of short strings of a response.
            san: san.as_str().to_owned(),
            uci: uci.to_array_string().as_str().to_owned(),
            fen_after: fen_after.as_ref().map_or("", |fen| fen.as_str()).to_owned(),
            canonical_input: *canonical_input,
        }
    }
}

impl From<&IllegalMove> for proto::IllegalMove {
    fn from(illegal: &IllegalMove) -> proto::IllegalMove {
        let IllegalMove { index, text, reason, message } = illegal;
        proto::IllegalMove {
            index: u32::try_from(*index).unwrap_or(u32::MAX),
            r#move: text.clone(),
            reason: proto::IllegalMoveReason::from(*reason) as i32,
            message: message.clone(),
        }
    }
}

impl From<IllegalReason> for proto::IllegalMoveReason {
    fn from(reason: IllegalReason) -> proto::IllegalMoveReason {
        use proto::IllegalMoveReason as P;
        match reason {
            IllegalReason::Unparseable => P::Unparseable,
            IllegalReason::NoPiece => P::NoPiece,
            IllegalReason::CannotMoveThatWay => P::CannotMoveThatWay,
            IllegalReason::PathBlocked => P::PathBlocked,
            IllegalReason::CaptureOwnPiece => P::CaptureOwnPiece,
            IllegalReason::KingInCheck => P::KingInCheck,
            IllegalReason::PinnedPiece => P::PinnedPiece,
            IllegalReason::KingIntoCheck => P::KingIntoCheck,
            IllegalReason::CastlingWithoutRight => P::CastlingWithoutRight,
            IllegalReason::CastlingBlocked => P::CastlingBlocked,
            IllegalReason::CastlingOutOfCheck => P::CastlingOutOfCheck,
            IllegalReason::CastlingThroughCheck => P::CastlingThroughCheck,
            IllegalReason::CastlingIntoCheck => P::CastlingIntoCheck,
            IllegalReason::EnPassantUnavailable => P::EnPassantUnavailable,
            IllegalReason::PromotionMissing => P::PromotionMissing,
            IllegalReason::InvalidPromotion => P::InvalidPromotion,
            IllegalReason::UnexpectedPromotion => P::UnexpectedPromotion,
            IllegalReason::AmbiguousSan => P::AmbiguousSan,
            IllegalReason::NonCanonical => P::NonCanonical,
            IllegalReason::GameOver => P::GameOver,
        }
    }
}

/// The `Position` message of a position and its listed legal moves.
pub fn position_message(position: &Position, legal_moves: &[LegalMove]) -> proto::Position {
    proto::Position {
        fen: position.fen().as_str().to_owned(),
        turn: match position.turn() {
            Color::White => proto::Color::White,
            Color::Black => proto::Color::Black,
        } as i32,
        in_check: position.is_check(),
        halfmove_clock: position.halfmove_clock(),
        fullmove_number: position.fullmove_number(),
        legal_moves: legal_moves
            .iter()
            .map(|m| proto::LegalMove {
                uci: m.uci.to_array_string().as_str().to_owned(),
                san: m.san.as_str().to_owned(),
            })
            .collect(),
    }
}

impl From<Termination> for proto::Termination {
    fn from(termination: Termination) -> proto::Termination {
        match termination {
            Termination::Checkmate => proto::Termination::Checkmate,
            Termination::Stalemate => proto::Termination::Stalemate,
            Termination::InsufficientMaterial => proto::Termination::InsufficientMaterial,
            Termination::SeventyFiveMoveRule => proto::Termination::SeventyFiveMoveRule,
            Termination::FivefoldRepetition => proto::Termination::FivefoldRepetition,
        }
    }
}

impl From<&Outcome> for proto::Outcome {
    fn from(outcome: &Outcome) -> proto::Outcome {
        proto::Outcome {
            result: match outcome.result {
                GameResult::Ongoing => proto::GameResult::Ongoing,
                GameResult::WhiteWins => proto::GameResult::WhiteWins,
                GameResult::BlackWins => proto::GameResult::BlackWins,
                GameResult::Draw => proto::GameResult::Draw,
            } as i32,
            termination: outcome
                .termination
                .map_or(proto::Termination::Unspecified, proto::Termination::from)
                as i32,
            claimable_draws: outcome
                .claimable_draws()
                .map(|draw| match draw {
                    ClaimableDraw::FiftyMoveRule => proto::ClaimableDraw::FiftyMoveRule,
                    ClaimableDraw::ThreefoldRepetition => proto::ClaimableDraw::ThreefoldRepetition,
                } as i32)
                .collect(),
            pgn_result: outcome.result.pgn().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason maps to its own contract value, named after it.
    #[test]
    fn illegal_reasons_map_one_to_one_onto_the_contract() {
        let mut seen = std::collections::HashSet::new();
        for reason in IllegalReason::ALL {
            let value = proto::IllegalMoveReason::from(reason);
            assert!(seen.insert(value as i32), "{reason:?} shares a value");
            let expected = format!("ILLEGAL_MOVE_REASON_{}", reason.as_str().to_ascii_uppercase());
            assert_eq!(value.as_str_name(), expected);
        }
        // Every contract value except UNSPECIFIED is reached.
        assert_eq!(seen.len(), IllegalReason::ALL.len());
        assert!(proto::IllegalMoveReason::try_from(IllegalReason::ALL.len() as i32 + 1).is_err());
    }
}
