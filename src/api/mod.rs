//! The gRPC face of the rules core: conversion between the `arbiter.v1`
//! messages and the domain ([`convert`]), the game messages the server
//! reads and writes by hand ([`wire`]) and their codec ([`codec`]),
//! `ValidatePgn`'s answers ([`pgn`]), the service itself ([`service`]),
//! and the one place where request errors become gRPC statuses.

pub mod codec;
pub mod convert;
pub mod pgn;
pub mod service;
pub mod wire;

use std::time::Duration;

use tonic::codegen::http;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::status::code_name;
use arbiter_chess::{Analysis, ClockRecordError, FenError, TimeControlError, VariantFenError};
use arbiter_pgn::CheckOptions;

/// Per-request limits, from the server configuration.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_moves: usize,
    pub max_fen_bytes: usize,
    pub max_perft_depth: u32,
    /// Longest a perft runs on the server, deadline or not.
    pub perft_budget: Duration,
    pub stream_games_in_flight: usize,
    pub blocking_moves: usize,
    /// The budgets of the unwinnability analysis (dead positions, flag
    /// fall, verdicts).
    pub analysis: Analysis,
    /// The tolerance of `ValidatePgn`'s clock findings, in milliseconds.
    pub clock_tolerance_ms: u64,
    /// Largest game of a `ValidatePgn` stream, in bytes.
    pub max_pgn_game_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_moves: 1024,
            max_fen_bytes: 128,
            max_perft_depth: 6,
            perft_budget: Duration::from_secs(10),
            stream_games_in_flight: 16,
            blocking_moves: 256,
            analysis: Analysis::DEFAULT,
            clock_tolerance_ms: CheckOptions::DEFAULT.clock_tolerance_ms,
            max_pgn_game_bytes: 1 << 20,
        }
    }
}

impl Limits {
    /// How `ValidatePgn` checks games: the analysis's budgets and the
    /// clock's tolerance.
    pub fn check_options(&self) -> CheckOptions {
        CheckOptions {
            analysis: self.analysis,
            clock_tolerance_ms: self.clock_tolerance_ms,
            read_clocks: true,
            include_analysis: false,
        }
    }

    /// Whether the analysis's budgets are above the defaults: then every
    /// replay's per-ply and final looks may run for longer than the
    /// defaults allow (about a second), and every game is replayed on the
    /// blocking pool rather than on an async worker.
    pub fn raised_analysis(&self) -> bool {
        let (this, default) = (self.analysis, Analysis::DEFAULT);
        this.per_ply.nodes > default.per_ply.nodes || this.full.nodes > default.full.nodes
    }
}

/// Domain of the `ErrorInfo` details Arbiter attaches.
pub const ERROR_DOMAIN: &str = "arbiter.v1";

/// A request that cannot be answered as asked. `field` is the request field
/// at fault, as `google.rpc.BadRequest` names it.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("fen is {len} bytes, more than the limit of {max}")]
    FenTooLong { field: String, len: usize, max: usize },
    #[error("{error}")]
    InvalidFen { field: String, error: FenError },
    #[error("{error}")]
    InvalidVariantFen { field: String, error: VariantFenError },
    #[error("{count} moves, more than the limit of {max}")]
    TooManyMoves { field: String, count: usize, max: usize },
    #[error("unknown value {value} for {field}")]
    UnknownEnumValue { field: String, value: i32 },
    #[error("chess960 start position {number} does not exist (numbers run 0 to 959)")]
    StartPositionOutOfRange { field: String, number: u32 },
    #[error("{field} {why}")]
    ConflictingFields { field: String, why: &'static str },
    #[error("invalid square {text:?} (expected e.g. e2)")]
    InvalidSquare { field: String, text: String },
    #[error("depth {depth} is more than the limit of {max}")]
    DepthTooLarge { field: String, depth: u32, max: u32 },
    #[error("{field} is missing")]
    MissingField { field: String },
    #[error("invalid time control: {error}")]
    InvalidTimeControl { field: String, error: TimeControlError },
    #[error("{field} {why}")]
    InvalidDuration { field: String, why: String },
    #[error("{error}")]
    InvalidClock { field: String, error: ClockRecordError },
    #[error(
        "a ply's remaining time of {ms} ms is more than Ply.clock_ms holds (uint32, {} ms): \
         send this game's move times as move_times",
        u32::MAX
    )]
    ClockPastMillis { field: String, ms: u64 },
}

impl RequestError {
    /// The machine-readable reason, as `ErrorInfo.reason`, and the field.
    fn reason_and_field(&self) -> (&'static str, &str) {
        match self {
            RequestError::FenTooLong { field, .. } => ("FEN_TOO_LONG", field),
            RequestError::InvalidFen { field, error: FenError::Syntax(_) } => {
                ("INVALID_FEN", field)
            }
            RequestError::InvalidFen { field, error: FenError::Position(_) } => {
                ("ILLEGAL_POSITION", field)
            }
            RequestError::InvalidVariantFen { field, error } => match error {
                VariantFenError::Fen(FenError::Syntax(_))
                | VariantFenError::Pocket(_)
                | VariantFenError::Checks(_) => ("INVALID_FEN", field),
                _ => ("ILLEGAL_POSITION", field),
            },
            RequestError::TooManyMoves { field, .. } => ("TOO_MANY_MOVES", field),
            RequestError::UnknownEnumValue { field, .. } => ("UNKNOWN_ENUM_VALUE", field),
            RequestError::StartPositionOutOfRange { field, .. } => {
                ("START_POSITION_OUT_OF_RANGE", field)
            }
            RequestError::ConflictingFields { field, .. } => ("CONFLICTING_FIELDS", field),
            RequestError::InvalidSquare { field, .. } => ("INVALID_SQUARE", field),
            RequestError::DepthTooLarge { field, .. } => ("DEPTH_TOO_LARGE", field),
            RequestError::MissingField { field } => ("MISSING_FIELD", field),
            RequestError::InvalidTimeControl { field, .. } => ("INVALID_TIME_CONTROL", field),
            RequestError::InvalidDuration { field, .. } => ("INVALID_DURATION", field),
            RequestError::InvalidClock { field, .. }
            | RequestError::ClockPastMillis { field, .. } => ("INVALID_CLOCK", field),
        }
    }

    /// The gRPC code: every request error is the caller's, never INTERNAL.
    pub fn code(&self) -> Code {
        // One exhaustive match: a new error must choose its code here.
        match self {
            RequestError::FenTooLong { .. }
            | RequestError::InvalidFen { .. }
            | RequestError::InvalidVariantFen { .. }
            | RequestError::TooManyMoves { .. }
            | RequestError::UnknownEnumValue { .. }
            | RequestError::StartPositionOutOfRange { .. }
            | RequestError::ConflictingFields { .. }
            | RequestError::InvalidSquare { .. }
            | RequestError::DepthTooLarge { .. }
            | RequestError::MissingField { .. }
            | RequestError::InvalidTimeControl { .. }
            | RequestError::InvalidDuration { .. }
            | RequestError::InvalidClock { .. }
            | RequestError::ClockPastMillis { .. } => Code::InvalidArgument,
        }
    }

    /// The per-game error of a `ValidateGames` stream.
    pub fn to_game_error(&self) -> crate::proto::GameError {
        let (reason, field) = self.reason_and_field();
        crate::proto::GameError {
            code: code_name(self.code()).to_owned(),
            message: self.to_string(),
            reason: reason.to_owned(),
            field: field.to_owned(),
        }
    }
}

impl From<RequestError> for Status {
    fn from(err: RequestError) -> Status {
        let (reason, field) = err.reason_and_field();
        let mut details = ErrorDetails::with_bad_request_violation(field, err.to_string());
        details.set_error_info(reason, ERROR_DOMAIN, std::collections::HashMap::new());
        Status::with_error_details(err.code(), err.to_string(), details)
    }
}

/// tonic answers a request message over the size limit with OUT_OF_RANGE;
/// the gRPC status code list says RESOURCE_EXHAUSTED for it, and so does the
/// contract. Other statuses pass unchanged.
pub fn size_limit_status(status: Status) -> Status {
    if status.code() == Code::OutOfRange && status.message().contains("message length too large") {
        Status::resource_exhausted(status.message().to_owned())
    } else {
        status
    }
}

/// The same rewrite on a whole HTTP response, for calls that tonic answers
/// before any handler runs (a unary request over the limit gets a
/// trailers-only response whose status is in the headers).
pub fn size_limit_response<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    let over_size = headers.get("grpc-status").is_some_and(|v| v == "11")
        && headers
            .get("grpc-message")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|m| m.contains("message%20length%20too%20large"));
    if over_size {
        let code = (Code::ResourceExhausted as i32).to_string();
        if let Ok(value) = http::HeaderValue::from_str(&code) {
            headers.insert("grpc-status", value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_chess::SearchBudget;

    #[test]
    fn budgets_above_the_defaults_are_raised() {
        let with = |per_ply, full| Limits {
            analysis: Analysis {
                per_ply: SearchBudget { nodes: per_ply },
                full: SearchBudget { nodes: full },
            },
            ..Limits::default()
        };
        assert!(!Limits::default().raised_analysis());
        assert!(!with(0, 1_000).raised_analysis(), "smaller budgets are cheaper");
        assert!(with(1, 1_000_000).raised_analysis());
        assert!(with(0, 1_000_001).raised_analysis());
    }
}
