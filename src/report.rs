//! The proto3 JSON form of a `ValidateGameResponse` (lowerCamelCase names,
//! enum values as their names, defaults written out), so that scripts using
//! the command line and RPC clients see one shape. It is built from the
//! generated message itself, destructured field by field, so a new field in
//! the contract must be given its JSON form here.

use serde::Serialize;

use crate::proto;

/// `ValidateGameResponse`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateGameResponse<'a> {
    plies: Vec<Ply<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    illegal_move: Option<IllegalMove<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<Position<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Ply<'a> {
    san: &'a str,
    uci: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    fen_after: &'a str,
    canonical_input: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct IllegalMove<'a> {
    index: u32,
    #[serde(rename = "move")]
    text: &'a str,
    reason: &'static str,
    message: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Position<'a> {
    fen: &'a str,
    turn: &'static str,
    in_check: bool,
    halfmove_clock: u32,
    fullmove_number: u32,
    legal_moves: Vec<LegalMove<'a>>,
}

#[derive(Debug, Serialize)]
struct LegalMove<'a> {
    uci: &'a str,
    san: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome<'a> {
    result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    termination: Option<&'static str>,
    claimable_draws: Vec<&'static str>,
    pgn_result: &'a str,
}

/// The enum value's name, or `UNKNOWN` for a value this build does not know
/// (the server never sends one; the generated enums cover every value).
fn enum_name<E: TryFrom<i32>>(value: i32, name: impl Fn(E) -> &'static str) -> &'static str {
    E::try_from(value).map_or("UNKNOWN", name)
}

impl<'a> From<&'a proto::ValidateGameResponse> for ValidateGameResponse<'a> {
    fn from(response: &'a proto::ValidateGameResponse) -> ValidateGameResponse<'a> {
        let proto::ValidateGameResponse { plies, illegal_move, position, outcome } = response;
        ValidateGameResponse {
            plies: plies.iter().map(Ply::from).collect(),
            illegal_move: illegal_move.as_ref().map(IllegalMove::from),
            position: position.as_ref().map(Position::from),
            outcome: outcome.as_ref().map(Outcome::from),
        }
    }
}

impl<'a> From<&'a proto::Ply> for Ply<'a> {
    fn from(ply: &'a proto::Ply) -> Ply<'a> {
        let proto::Ply { san, uci, fen_after, canonical_input } = ply;
        Ply { san, uci, fen_after, canonical_input: *canonical_input }
    }
}

impl<'a> From<&'a proto::IllegalMove> for IllegalMove<'a> {
    fn from(illegal: &'a proto::IllegalMove) -> IllegalMove<'a> {
        let proto::IllegalMove { index, r#move, reason, message } = illegal;
        IllegalMove {
            index: *index,
            text: r#move,
            reason: enum_name(*reason, |r: proto::IllegalMoveReason| r.as_str_name()),
            message,
        }
    }
}

impl<'a> From<&'a proto::Position> for Position<'a> {
    fn from(position: &'a proto::Position) -> Position<'a> {
        let proto::Position { fen, turn, in_check, halfmove_clock, fullmove_number, legal_moves } =
            position;
        Position {
            fen,
            turn: enum_name(*turn, |c: proto::Color| c.as_str_name()),
            in_check: *in_check,
            halfmove_clock: *halfmove_clock,
            fullmove_number: *fullmove_number,
            legal_moves: legal_moves
                .iter()
                .map(|m| {
                    let proto::LegalMove { uci, san } = m;
                    LegalMove { uci, san }
                })
                .collect(),
        }
    }
}

impl<'a> From<&'a proto::Outcome> for Outcome<'a> {
    fn from(outcome: &'a proto::Outcome) -> Outcome<'a> {
        let proto::Outcome { result, termination, claimable_draws, pgn_result } = outcome;
        Outcome {
            result: enum_name(*result, |r: proto::GameResult| r.as_str_name()),
            termination: (*termination != proto::Termination::Unspecified as i32)
                .then(|| enum_name(*termination, |t: proto::Termination| t.as_str_name())),
            claimable_draws: claimable_draws
                .iter()
                .map(|&d| enum_name(d, |d: proto::ClaimableDraw| d.as_str_name()))
                .collect(),
            pgn_result,
        }
    }
}
