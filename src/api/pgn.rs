//! `ValidatePgn`'s answers: a game of [`arbiter_pgn`] as the contract's
//! `ValidatePgnResponse`, and the per-game error of a game that cannot be
//! read.

use tonic::Code;

use crate::answer::position_message;
use crate::proto;
use crate::status::code_name;
use arbiter_pgn::{GameError, GameReport, VariationError, Verdict};

/// The code, reason and tag of a game that cannot be read.
fn error_parts(error: &GameError) -> (Code, &'static str) {
    // One exhaustive match: a new kind of unreadable game chooses its code
    // and the tag it blames here.
    match error {
        GameError::TooLarge { .. } => (Code::ResourceExhausted, ""),
        GameError::InvalidFen { .. }
        | GameError::InvalidVariantFen { .. }
        | GameError::MissingFen => (Code::InvalidArgument, "FEN"),
        GameError::UnknownVariant { .. } => (Code::InvalidArgument, "Variant"),
    }
}

/// The per-game error of a game that cannot be read.
pub fn game_error(error: &GameError) -> proto::GameError {
    let (code, field) = error_parts(error);
    proto::GameError {
        code: code_name(code).to_owned(),
        message: error.to_string(),
        reason: error.reason().to_owned(),
        field: field.to_owned(),
    }
}

fn variation_error(error: &VariationError) -> proto::VariationError {
    let VariationError { path, index, text, reason, message } = error;
    proto::VariationError {
        path: path.clone(),
        index: u32::try_from(*index).unwrap_or(u32::MAX),
        r#move: text.clone(),
        reason: crate::answer::variation_reason_name(*reason).to_owned(),
        message: message.clone(),
    }
}

fn verdict(verdict: &Verdict) -> proto::PgnVerdict {
    let Verdict {
        plies,
        illegal_move,
        variation_errors,
        position,
        outcome,
        result_tag,
        result_consistent,
        clock,
        analysis,
    } = verdict;
    proto::PgnVerdict {
        plies: u32::try_from(*plies).unwrap_or(u32::MAX),
        illegal_move: illegal_move.as_ref().map(proto::IllegalMove::from),
        variation_errors: variation_errors.iter().map(variation_error).collect(),
        position: Some(position_message(position, &[], false)),
        outcome: Some(proto::Outcome::from(outcome)),
        result_tag: result_tag.clone(),
        result_consistent: *result_consistent,
        clock: clock.as_ref().map(crate::answer::pgn_clock_message),
        // Found by the check when the stream asks for it.
        analysis: analysis.as_deref().map(proto::GameAnalysis::from),
    }
}

/// The answer for one game.
pub fn response(report: &GameReport) -> proto::ValidatePgnResponse {
    let GameReport { index, line, game, verdict: checked } = report;
    let tags = game
        .iter()
        .flat_map(|game| game.tags())
        .map(|(name, value)| proto::PgnTag { name: name.into_owned(), value: value.into_owned() })
        .collect();
    let result = match checked {
        Ok(found) => proto::validate_pgn_response::Result::Verdict(verdict(found)),
        Err(error) => proto::validate_pgn_response::Result::Error(game_error(error)),
    };
    proto::ValidatePgnResponse {
        index: *index as u64,
        line: *line as u64,
        tags,
        result: Some(result),
    }
}
