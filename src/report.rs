//! The proto3 JSON form of a `ValidateGameResponse` (lowerCamelCase names,
//! enum values as their names, defaults written out), so that scripts using
//! the command line and RPC clients see one shape. It is built from the
//! generated messages, destructured field by field, so a new field in the
//! contract must be given its JSON form here; only the plies, the bulk of a
//! long game, are taken from the replay itself, without a message and two
//! strings per ply in between (the message's fields are still named here).

use arrayvec::ArrayString;
use serde::Serialize;

use crate::api::convert::position_message;
use crate::chess::game::{PlyRecord, Replay};
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
    #[serde(serialize_with = "as_str")]
    uci: ArrayString<5>,
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

fn as_str<S: serde::Serializer>(text: &ArrayString<5>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text)
}

/// The enum value's name, or `UNKNOWN` for a value this build does not know
/// (the server never sends one; the generated enums cover every value).
fn enum_name<E: TryFrom<i32>>(value: i32, name: impl Fn(E) -> &'static str) -> &'static str {
    E::try_from(value).map_or("UNKNOWN", name)
}

/// The messages of a replay's answer other than its plies, which
/// [`ValidateGameResponse`] borrows.
#[derive(Debug)]
pub struct Messages {
    illegal_move: Option<proto::IllegalMove>,
    position: proto::Position,
    outcome: proto::Outcome,
}

impl Messages {
    /// The messages of `replay`'s answer, as the service sends them.
    pub fn new(replay: &Replay) -> Messages {
        let Replay { plies: _, illegal_move, position, legal_moves, outcome } = replay;
        Messages {
            illegal_move: illegal_move.as_ref().map(proto::IllegalMove::from),
            position: position_message(position, legal_moves),
            outcome: proto::Outcome::from(outcome),
        }
    }
}

impl<'a> ValidateGameResponse<'a> {
    /// The answer for `replay`, whose other messages are `messages`.
    pub fn new(replay: &'a Replay, messages: &'a Messages) -> ValidateGameResponse<'a> {
        // The fields of the message this JSON stands for, each given its
        // JSON form below.
        let _: fn(proto::ValidateGameResponse) =
            |proto::ValidateGameResponse { plies: _, illegal_move: _, position: _, outcome: _ }| {};
        let Messages { illegal_move, position, outcome } = messages;
        ValidateGameResponse {
            plies: replay.plies.iter().map(Ply::from).collect(),
            illegal_move: illegal_move.as_ref().map(IllegalMove::from),
            position: Some(Position::from(position)),
            outcome: Some(Outcome::from(outcome)),
        }
    }
}

impl<'a> From<&'a PlyRecord> for Ply<'a> {
    /// As `proto::Ply` from the service's conversion, without the strings.
    fn from(ply: &'a PlyRecord) -> Ply<'a> {
        let _: fn(proto::Ply) =
            |proto::Ply { san: _, uci: _, fen_after: _, canonical_input: _ }| {};
        let PlyRecord { san, uci, fen_after, canonical_input } = ply;
        Ply {
            san,
            uci: uci.to_array_string(),
            fen_after: fen_after.as_ref().map_or("", |fen| fen.as_str()),
            canonical_input: *canonical_input,
        }
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
