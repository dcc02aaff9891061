//! The rules core's answers (plies, illegal moves, positions, outcomes) as
//! `arbiter.v1` messages, and beside them the other forms of the same
//! answer, so that a field added to the contract is one visible change in
//! one set of files:
//!
//! - this module: the generated messages, which the service sends for the
//!   calls it does not write by hand and from which [`json`] reads;
//! - [`json`]: the proto3 JSON of a `ValidateGameResponse`, printed by
//!   `arbiter validate`;
//! - [`pgn_json`]: the JSON line of a game of `arbiter pgn --json`, in the
//!   same shape;
//! - [`millis`]: the times in them, each form written in one place;
//! - the wire bytes of `ValidateGameResponse` and `ValidateGamesResponse`
//!   that the server writes straight from the replay for the game calls:
//!   [`GameAnswer`](crate::api::wire::GameAnswer) and
//!   [`StreamAnswer`](crate::api::wire::StreamAnswer), in
//!   `src/api/wire/answers.rs`, next to the codec that sends them.
//!
//! Each of them names every field of the generated messages it stands for
//! (a struct literal here, destructuring or a `const _` twin there), so a
//! new field does not compile until each has given it its form; the
//! byte-for-byte and JSON tests hold the hand-written forms to this one.

pub mod json;
pub mod millis;
pub mod pgn_json;

use crate::answer::millis::duration;
use crate::proto;
use arbiter_chess::{
    CastlingMode, ClaimableDraw, Color, GameAnalysis, GamePosition, GameResult, IllegalMove,
    IllegalReason, LegalMove, Opening, OpeningFamily, Outcome, Phases, PlyRecord, Replay, Rules,
    Ruling, RulingAction, Termination, TimeUse, UciMove, Variant, Winnability,
};
use arbiter_pgn::{ClockFinding, ClockFindingKind, ClockReport, VariationReason};

impl From<&Replay> for proto::ValidateGameResponse {
    fn from(replay: &Replay) -> proto::ValidateGameResponse {
        // The final position's fields go to `final_position`.
        let Replay {
            plies,
            illegal_move,
            position: _,
            legal_moves: _,
            outcome,
            winnability: _,
            shredder_fen: _,
            clocks,
            rulings,
        } = replay;
        let mut plies: Vec<proto::Ply> = plies.iter().map(proto::Ply::from).collect();
        if let Some(clocks) = clocks {
            for (ply, &ms) in plies.iter_mut().zip(&clocks.plies_ms) {
                ply.clock = Some(duration(ms));
            }
        }
        proto::ValidateGameResponse {
            plies,
            illegal_move: illegal_move.as_ref().map(proto::IllegalMove::from),
            position: Some(final_position(replay)),
            outcome: Some(proto::Outcome::from(outcome)),
            analysis: None,
            rulings: rulings.iter().map(proto::Ruling::from).collect(),
        }
    }
}

impl From<&Ruling> for proto::Ruling {
    fn from(ruling: &Ruling) -> proto::Ruling {
        let Ruling { index, side, count, reason, message, action, time_added_ms } = ruling;
        proto::Ruling {
            index: u32::try_from(*index).unwrap_or(u32::MAX),
            side: color(*side) as i32,
            count: *count,
            reason: proto::IllegalMoveReason::from(*reason) as i32,
            message: message.clone(),
            action: match action {
                RulingAction::TimeAdded => proto::RulingAction::TimeAdded,
                RulingAction::GameLost => proto::RulingAction::GameLost,
                RulingAction::GameDrawn => proto::RulingAction::GameDrawn,
            } as i32,
            time_added: time_added_ms.map(duration),
        }
    }
}

impl From<&GameAnalysis> for proto::GameAnalysis {
    fn from(analysis: &GameAnalysis) -> proto::GameAnalysis {
        let GameAnalysis { opening, phases, time_use } = analysis;
        let Phases { middlegame_ply, endgame_ply } = *phases;
        proto::GameAnalysis {
            opening: opening.as_ref().map(|opening| {
                let Opening { eco, name, family, ply } = *opening;
                proto::Opening {
                    eco: eco.to_owned(),
                    name: name.to_owned(),
                    family: proto::OpeningFamily::from(family) as i32,
                    ply,
                }
            }),
            phases: Some(proto::Phases { middlegame_ply, endgame_ply }),
            time_use: time_use.iter().map(proto::TimeUse::from).collect(),
        }
    }
}

impl From<OpeningFamily> for proto::OpeningFamily {
    fn from(family: OpeningFamily) -> proto::OpeningFamily {
        match family {
            OpeningFamily::IrregularOpening => proto::OpeningFamily::IrregularOpening,
            OpeningFamily::FlankOpening => proto::OpeningFamily::FlankOpening,
            OpeningFamily::OtherD4Defence => proto::OpeningFamily::OtherD4Defence,
            OpeningFamily::IndianDefence => proto::OpeningFamily::IndianDefence,
            OpeningFamily::SemiOpenGame => proto::OpeningFamily::SemiOpenGame,
            OpeningFamily::OpenGame => proto::OpeningFamily::OpenGame,
            OpeningFamily::ClosedGame => proto::OpeningFamily::ClosedGame,
        }
    }
}

impl From<&TimeUse> for proto::TimeUse {
    fn from(time_use: &TimeUse) -> proto::TimeUse {
        let TimeUse {
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
        proto::TimeUse {
            side: color(side) as i32,
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

/// The `Position` message of a replay's final position: its listed legal
/// moves, both colours' verdicts when they were asked for, and both
/// clocks when the game had a clock record.
pub fn final_position(replay: &Replay) -> proto::Position {
    final_position_listing(replay, &replay.legal_moves)
}

/// [`final_position`] listing `legal_moves` rather than the replay's (the
/// JSON answer writes those from the replay itself, and lists none here).
pub fn final_position_listing(replay: &Replay, legal_moves: &[LegalMove]) -> proto::Position {
    let Replay { position, winnability, shredder_fen, clocks, .. } = replay;
    let mut message = position_message(position, legal_moves, *shredder_fen);
    message.winnability = winnability
        .as_ref()
        .map(|verdicts| winnability_message(verdicts, position.castling_mode()));
    message.clocks = clocks.as_ref().map(|clocks| remaining_times(clocks.remaining_ms));
    message
}

/// `n` in decimal digits, without the formatting machinery.
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A PGN game's clock record as `PgnClock`.
pub fn pgn_clock_message(report: &ClockReport) -> proto::PgnClock {
    let ClockReport { tag, control: _, elapsed_ms, findings } = report;
    proto::PgnClock {
        time_control: Some(proto::TimeControl {
            tag: tag.clone().unwrap_or_default(),
            periods: report
                .periods()
                .iter()
                .map(|period| proto::TimePeriod {
                    moves: period.moves,
                    time: Some(duration(period.time_ms)),
                    increment: Some(duration(period.increment_ms)),
                })
                .collect(),
            delay: None,
        }),
        elapsed: elapsed_ms.iter().map(|ms| proto::Elapsed { time: ms.map(duration) }).collect(),
        findings: findings
            .iter()
            .map(|finding| {
                let ClockFinding { ply, side, kind, reading_ms, emt_ms, limit_ms, implied_ms } =
                    finding;
                proto::ClockFinding {
                    ply: u32::try_from(*ply).unwrap_or(u32::MAX),
                    side: color(*side) as i32,
                    kind: proto::ClockFindingKind::from(*kind) as i32,
                    reading: reading_ms.map(duration),
                    emt: emt_ms.map(duration),
                    limit: limit_ms.map(duration),
                    implied: implied_ms.map(duration),
                    message: finding.to_string(),
                }
            })
            .collect(),
        error: report.error().map(|error| error.to_string()).unwrap_or_default(),
    }
}

impl From<ClockFindingKind> for proto::ClockFindingKind {
    fn from(kind: ClockFindingKind) -> proto::ClockFindingKind {
        match kind {
            ClockFindingKind::StartAboveBase => proto::ClockFindingKind::StartAboveBase,
            ClockFindingKind::ClockRose => proto::ClockFindingKind::ClockRose,
            ClockFindingKind::EmtMismatch => proto::ClockFindingKind::EmtMismatch,
            ClockFindingKind::PlayedAfterFlag => proto::ClockFindingKind::PlayedAfterFlag,
            ClockFindingKind::ForfeitNotOnMove => proto::ClockFindingKind::ForfeitNotOnMove,
        }
    }
}

/// A colour as the contract's.
pub fn color(color: Color) -> proto::Color {
    match color {
        Color::White => proto::Color::White,
        Color::Black => proto::Color::Black,
    }
}

/// White's and black's times (by [`Color::index`]) as `RemainingTimes`.
pub fn remaining_times([white, black]: [u64; 2]) -> proto::RemainingTimes {
    proto::RemainingTimes { white: Some(duration(white)), black: Some(duration(black)) }
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
            // Set from the replay's clocks, which a ply does not hold.
            clock: None,
            clock_ms: None,
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
            IllegalReason::FlagFell => P::FlagFell,
            IllegalReason::InvalidDrop => P::InvalidDrop,
            IllegalReason::CaptureRequired => P::CaptureRequired,
            IllegalReason::ExplodesOwnKing => P::ExplodesOwnKing,
            IllegalReason::GivesCheck => P::GivesCheck,
        }
    }
}

/// A variation error's stable machine-readable reason: the illegal-move
/// reason's contract name, or one of the variation's own.
pub fn variation_reason_name(reason: VariationReason) -> &'static str {
    match reason {
        VariationReason::Illegal(reason) => proto::IllegalMoveReason::from(reason).as_str_name(),
        VariationReason::NoMoveBefore => "VARIATION_WITHOUT_MOVE",
        VariationReason::TooDeep => "VARIATION_TOO_DEEP",
    }
}

/// The `Position` message of a position and its listed legal moves, its
/// FEN (a variant's with its pockets or checks, as python-chess writes it)
/// with Shredder-FEN castling letters if `shredder_fen`, without the
/// verdicts (set apart when asked for).
pub fn position_message(
    position: &GamePosition,
    legal_moves: &[LegalMove],
    shredder_fen: bool,
) -> proto::Position {
    proto::Position {
        fen: position.fen_in(shredder_fen).as_str().to_owned(),
        turn: color(position.turn()) as i32,
        in_check: position.is_check(),
        halfmove_clock: position.halfmove_clock(),
        fullmove_number: position.fullmove_number(),
        legal_moves: legal_moves.iter().map(legal_move).collect(),
        winnability: None,
        clocks: None,
    }
}

fn legal_move(legal: &LegalMove) -> proto::LegalMove {
    let LegalMove { uci, san, claims } = legal;
    proto::LegalMove {
        uci: uci.to_array_string().as_str().to_owned(),
        san: san.as_str().to_owned(),
        claimable_draws: claims.iter().map(|d| proto::ClaimableDraw::from(d) as i32).collect(),
    }
}

/// The `Winnability` message of white's and black's verdicts (in
/// [`Color::index`] order), helpmates written as UCI under `mode`.
pub fn winnability_message(verdicts: &[Winnability; 2], mode: CastlingMode) -> proto::Winnability {
    let [white, black] = verdicts;
    let color = |verdict: &Winnability| {
        let (value, helpmate) = match verdict {
            Winnability::Winnable(line) => (proto::Verdict::Winnable, line.as_slice()),
            Winnability::Unwinnable => (proto::Verdict::Unwinnable, &[][..]),
            Winnability::Undetermined => (proto::Verdict::Undetermined, &[][..]),
        };
        proto::ColorVerdict {
            verdict: value as i32,
            helpmate: helpmate
                .iter()
                .map(|&m| UciMove::from_move_in(m, mode).to_array_string().as_str().to_owned())
                .collect(),
        }
    };
    proto::Winnability { white: Some(color(white)), black: Some(color(black)) }
}

impl From<Variant> for proto::Variant {
    fn from(variant: Variant) -> proto::Variant {
        match variant {
            Variant::Crazyhouse => proto::Variant::Crazyhouse,
            Variant::Atomic => proto::Variant::Atomic,
            Variant::Antichess => proto::Variant::Antichess,
            Variant::KingOfTheHill => proto::Variant::KingOfTheHill,
            Variant::ThreeCheck => proto::Variant::ThreeCheck,
            Variant::Horde => proto::Variant::Horde,
            Variant::RacingKings => proto::Variant::RacingKings,
        }
    }
}

impl From<Rules> for proto::Variant {
    /// The rules a game is played by.
    fn from(rules: Rules) -> proto::Variant {
        match rules {
            Rules::Standard => proto::Variant::Standard,
            Rules::Chess960 => proto::Variant::Chess960,
            Rules::Variant(variant) => proto::Variant::from(variant),
        }
    }
}

impl From<ClaimableDraw> for proto::ClaimableDraw {
    fn from(draw: ClaimableDraw) -> proto::ClaimableDraw {
        match draw {
            ClaimableDraw::FiftyMoveRule => proto::ClaimableDraw::FiftyMoveRule,
            ClaimableDraw::ThreefoldRepetition => proto::ClaimableDraw::ThreefoldRepetition,
        }
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
            Termination::DeadPosition => proto::Termination::DeadPosition,
            Termination::Timeout => proto::Termination::Timeout,
            Termination::TimeoutVsUnwinnable => proto::Termination::TimeoutVsUnwinnable,
            Termination::IllegalMoves => proto::Termination::IllegalMoves,
            Termination::IllegalMovesVsUnwinnable => proto::Termination::IllegalMovesVsUnwinnable,
            Termination::Explosion => proto::Termination::Explosion,
            Termination::KingOfTheHill => proto::Termination::KingOfTheHill,
            Termination::ThirdCheck => proto::Termination::ThirdCheck,
            Termination::Race => proto::Termination::Race,
            Termination::VariantWin => proto::Termination::VariantWin,
        }
    }
}

impl From<GameResult> for proto::GameResult {
    fn from(result: GameResult) -> proto::GameResult {
        match result {
            GameResult::Ongoing => proto::GameResult::Ongoing,
            GameResult::WhiteWins => proto::GameResult::WhiteWins,
            GameResult::BlackWins => proto::GameResult::BlackWins,
            GameResult::Draw => proto::GameResult::Draw,
        }
    }
}

impl From<&Outcome> for proto::Outcome {
    fn from(outcome: &Outcome) -> proto::Outcome {
        proto::Outcome {
            result: proto::GameResult::from(outcome.result) as i32,
            termination: outcome
                .termination
                .map_or(proto::Termination::Unspecified, proto::Termination::from)
                as i32,
            claimable_draws: outcome
                .claimable_draws()
                .map(|draw| proto::ClaimableDraw::from(draw) as i32)
                .collect(),
            pgn_result: outcome.result.pgn().to_owned(),
            unproven: outcome.unproven,
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

    /// Clock finding kinds too: the contract's names end with the kind's.
    #[test]
    fn clock_finding_kinds_map_one_to_one_onto_the_contract() {
        for (i, kind) in ClockFindingKind::ALL.into_iter().enumerate() {
            let value = proto::ClockFindingKind::from(kind);
            assert_eq!(value as usize, i + 1);
            assert_eq!(value.as_str_name(), format!("CLOCK_FINDING_KIND_{}", kind.as_str()));
        }
        let past = ClockFindingKind::ALL.len() as i32 + 1;
        assert!(proto::ClockFindingKind::try_from(past).is_err());
    }
}
