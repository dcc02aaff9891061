//! The JSON form of a replayed game: the proto3 JSON mapping of the
//! contract's `ValidateGameResponse` (lowerCamelCase names, enum values as
//! their prefixed names), so that scripts and RPC clients see one shape.

use serde::Serialize;

use crate::chess::game::{IllegalMove, LegalMove, PlyRecord, Replay};
use crate::chess::outcome::{GameResult, Outcome};
use crate::chess::{Color, Position};

/// `ValidateGameResponse`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateGameResponse {
    pub plies: Vec<Ply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub illegal_move: Option<Illegal>,
    pub position: PositionReport,
    pub outcome: OutcomeReport,
}

/// One accepted move.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ply {
    pub san: String,
    pub uci: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fen_after: Option<String>,
    pub canonical_input: bool,
}

/// The first rejected move.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Illegal {
    pub index: u32,
    #[serde(rename = "move")]
    pub text: String,
    pub reason: String,
    pub message: String,
}

/// The final position.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionReport {
    pub fen: String,
    pub turn: &'static str,
    pub in_check: bool,
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
    pub legal_moves: Vec<LegalMoveReport>,
}

/// A legal move of the final position.
#[derive(Debug, Serialize)]
pub struct LegalMoveReport {
    pub uci: String,
    pub san: String,
}

/// The outcome.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeReport {
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination: Option<String>,
    pub claimable_draws: Vec<&'static str>,
    pub pgn_result: &'static str,
}

impl From<&Replay> for ValidateGameResponse {
    fn from(replay: &Replay) -> ValidateGameResponse {
        let Replay { plies, illegal_move, position, legal_moves, outcome } = replay;
        ValidateGameResponse {
            plies: plies.iter().map(Ply::from).collect(),
            illegal_move: illegal_move.as_ref().map(Illegal::from),
            position: PositionReport::new(position, legal_moves),
            outcome: OutcomeReport::from(outcome),
        }
    }
}

impl From<&PlyRecord> for Ply {
    fn from(ply: &PlyRecord) -> Ply {
        let PlyRecord { san, uci, fen_after, canonical_input } = ply;
        Ply {
            san: san.to_string(),
            uci: uci.to_string(),
            fen_after: fen_after.clone(),
            canonical_input: *canonical_input,
        }
    }
}

impl From<&IllegalMove> for Illegal {
    fn from(illegal: &IllegalMove) -> Illegal {
        let IllegalMove { index, text, reason, message } = illegal;
        Illegal {
            index: u32::try_from(*index).unwrap_or(u32::MAX),
            text: text.clone(),
            reason: format!("ILLEGAL_MOVE_REASON_{}", reason.as_str().to_ascii_uppercase()),
            message: message.clone(),
        }
    }
}

impl PositionReport {
    fn new(position: &Position, legal_moves: &[LegalMove]) -> PositionReport {
        PositionReport {
            fen: position.to_string(),
            turn: match position.turn() {
                Color::White => "COLOR_WHITE",
                Color::Black => "COLOR_BLACK",
            },
            in_check: position.is_check(),
            halfmove_clock: position.halfmove_clock(),
            fullmove_number: position.fullmove_number(),
            legal_moves: legal_moves
                .iter()
                .map(|m| LegalMoveReport { uci: m.uci.to_string(), san: m.san.to_string() })
                .collect(),
        }
    }
}

impl From<&Outcome> for OutcomeReport {
    fn from(outcome: &Outcome) -> OutcomeReport {
        OutcomeReport {
            result: match outcome.result {
                GameResult::Ongoing => "GAME_RESULT_ONGOING",
                GameResult::WhiteWins => "GAME_RESULT_WHITE_WINS",
                GameResult::BlackWins => "GAME_RESULT_BLACK_WINS",
                GameResult::Draw => "GAME_RESULT_DRAW",
            },
            termination: outcome
                .termination
                .map(|t| format!("TERMINATION_{}", t.as_str().to_ascii_uppercase())),
            claimable_draws: outcome
                .claimable_draws()
                .map(|d| match d {
                    crate::chess::outcome::ClaimableDraw::FiftyMoveRule => {
                        "CLAIMABLE_DRAW_FIFTY_MOVE_RULE"
                    }
                    crate::chess::outcome::ClaimableDraw::ThreefoldRepetition => {
                        "CLAIMABLE_DRAW_THREEFOLD_REPETITION"
                    }
                })
                .collect(),
            pgn_result: outcome.result.pgn(),
        }
    }
}
