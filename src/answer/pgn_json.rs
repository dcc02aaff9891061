//! One JSON object per game for `arbiter pgn --json`: the game's tags and
//! verdict, with `illegalMove`, `position` and `outcome` in the shape
//! `arbiter validate` prints (proto3 JSON names, enum values by name).
//!
//! The same answer's other forms: the generated messages ([`super`]), the
//! proto3 JSON of `arbiter validate` ([`super::json`]), and the wire bytes
//! the server writes ([`crate::api::wire::GameAnswer`]).

use std::io::{self, Write};

use crate::answer::json::AnalysisJson;
use crate::answer::millis::push_seconds;
use crate::proto;
use arbiter_chess::{Color, IllegalMove};
use arbiter_pgn::{ClockFinding, ClockReport, GameReport, VariationError, Verdict};

/// `value` as a JSON string.
fn string(out: &mut Vec<u8>, value: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)
}

/// Appends the JSON line (with its `\n`) of one game.
///
/// # Errors
///
/// None in practice: writing to a vector does not fail.
pub fn write_json(report: &GameReport, out: &mut Vec<u8>) -> io::Result<()> {
    write!(out, "{{\"index\":{},", report.index)?;
    write_json_fields(report, out)
}

/// Appends the JSON line of one game without its opening `{"index":N,`,
/// for a writer that numbers the games itself as it puts them in order.
///
/// # Errors
///
/// None in practice: writing to a vector does not fail.
pub fn write_json_fields(report: &GameReport, out: &mut Vec<u8>) -> io::Result<()> {
    write_json_fields_analysed(report, false, out)
}

/// [`write_json_fields`], with what the game was (`"analysis"`, after the
/// clock) when `analysed` and the game has a verdict.
///
/// # Errors
///
/// None in practice: writing to a vector does not fail.
pub fn write_json_fields_analysed(
    report: &GameReport,
    analysed: bool,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let GameReport { index: _, line, game, verdict } = report;
    write!(out, "\"line\":{line},\"tags\":{{")?;
    if let Some(game) = game {
        let mut seen = std::collections::HashSet::new();
        for (name, value) in game.tags() {
            // A repeated tag keeps its first value, as the validation does
            // (a set: a game may hold a great many tags).
            if seen.contains(&name) {
                continue;
            }
            if !seen.is_empty() {
                out.push(b',');
            }
            string(out, &name)?;
            out.push(b':');
            string(out, &value)?;
            seen.insert(name);
        }
    }
    out.push(b'}');
    match verdict {
        Ok(verdict) => {
            write_verdict(verdict, out)?;
            if analysed && let Some(analysis) = &verdict.analysis {
                AnalysisJson::from(&**analysis).write_field(out)?;
            }
        }
        Err(error) => {
            out.extend_from_slice(b",\"error\":{\"reason\":");
            string(out, error.reason())?;
            out.extend_from_slice(b",\"message\":");
            string(out, &error.to_string())?;
            out.push(b'}');
        }
    }
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// The generated twins of the messages whose JSON is written here field by
/// field, each field named: a field added to the contract does not compile
/// until it is written here too (or left out on purpose: a game's position
/// lists no legal moves and no verdicts).
const _: fn(proto::IllegalMove) =
    |proto::IllegalMove { index: _, r#move: _, reason: _, message: _ }| {};
const _: fn(proto::Position) = |proto::Position {
                                    fen: _,
                                    turn: _,
                                    in_check: _,
                                    halfmove_clock: _,
                                    fullmove_number: _,
                                    legal_moves: _,
                                    winnability: _,
                                    clocks: _,
                                }| {};

fn write_verdict(verdict: &Verdict, out: &mut Vec<u8>) -> io::Result<()> {
    let Verdict {
        plies,
        illegal_move,
        variation_errors,
        position,
        outcome,
        result_tag,
        result_consistent,
        clock,
        // Written by the caller, after the clock, when asked.
        analysis: _,
    } = verdict;
    write!(out, ",\"plies\":{plies}")?;
    if let Some(IllegalMove { index, text, reason, message }) = illegal_move {
        write!(out, ",\"illegalMove\":{{\"index\":{index},\"move\":")?;
        string(out, text)?;
        out.extend_from_slice(b",\"reason\":");
        string(out, proto::IllegalMoveReason::from(*reason).as_str_name())?;
        out.extend_from_slice(b",\"message\":");
        string(out, message)?;
        out.push(b'}');
    }
    out.extend_from_slice(b",\"variationErrors\":[");
    for (i, error) in variation_errors.iter().enumerate() {
        let VariationError { path, index, text, reason, message } = error;
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"path\":");
        serde_json::to_writer(&mut *out, path).map_err(io::Error::from)?;
        write!(out, ",\"index\":{index},\"move\":")?;
        string(out, text)?;
        out.extend_from_slice(b",\"reason\":");
        string(out, crate::answer::variation_reason_name(*reason))?;
        out.extend_from_slice(b",\"message\":");
        string(out, message)?;
        out.push(b'}');
    }
    out.push(b']');
    let turn = match position.turn() {
        Color::White => proto::Color::White,
        Color::Black => proto::Color::Black,
    };
    // A FEN has no character JSON escapes (a crazyhouse pocket's brackets
    // and promoted marks included).
    write!(
        out,
        ",\"position\":{{\"fen\":\"{}\",\"turn\":\"{}\",\"inCheck\":{},\"halfmoveClock\":{},\
         \"fullmoveNumber\":{},\"legalMoves\":[]}}",
        position.fen(),
        turn.as_str_name(),
        position.is_check(),
        position.halfmove_clock(),
        position.fullmove_number(),
    )?;
    let proto::Outcome { result, termination, claimable_draws, pgn_result, unproven } =
        proto::Outcome::from(outcome);
    let name = |value: i32, f: fn(i32) -> Option<&'static str>| f(value).unwrap_or("UNKNOWN");
    write!(
        out,
        ",\"outcome\":{{\"result\":\"{}\"",
        name(result, |v| proto::GameResult::try_from(v).ok().map(|r| r.as_str_name()))
    )?;
    if termination != proto::Termination::Unspecified as i32 {
        let termination =
            name(termination, |v| proto::Termination::try_from(v).ok().map(|t| t.as_str_name()));
        write!(out, ",\"termination\":\"{termination}\"")?;
    }
    out.extend_from_slice(b",\"claimableDraws\":[");
    for (i, &draw) in claimable_draws.iter().enumerate() {
        let draw = name(draw, |v| proto::ClaimableDraw::try_from(v).ok().map(|d| d.as_str_name()));
        write!(out, "{}\"{draw}\"", if i > 0 { "," } else { "" })?;
    }
    write!(out, "],\"pgnResult\":\"{pgn_result}\",\"unproven\":{unproven}}}")?;
    if let Some(tag) = result_tag {
        out.extend_from_slice(b",\"resultTag\":");
        string(out, tag)?;
    }
    write!(out, ",\"resultConsistent\":{result_consistent}")?;
    if let Some(report) = clock {
        write_clock(report, out)?;
    }
    Ok(())
}

/// `"name":seconds` after a comma, when there is a time.
fn seconds_field(out: &mut Vec<u8>, name: &str, ms: Option<u64>) -> io::Result<()> {
    let Some(ms) = ms else { return Ok(()) };
    write!(out, ",\"{name}\":")?;
    push_seconds(out, ms);
    Ok(())
}

/// The game's `clock`: the control's periods, the time each ply took and
/// the findings, times in seconds (as JSON numbers: what anti-cheat models
/// read), the contract's names for the kinds and sides.
fn write_clock(report: &ClockReport, out: &mut Vec<u8>) -> io::Result<()> {
    let _: fn(proto::PgnClock) =
        |proto::PgnClock { time_control: _, elapsed: _, findings: _, error: _ }| {};
    let _: fn(proto::ClockFinding) = |proto::ClockFinding {
                                          ply: _,
                                          side: _,
                                          kind: _,
                                          reading: _,
                                          emt: _,
                                          limit: _,
                                          implied: _,
                                          message: _,
                                      }| {};
    out.extend_from_slice(b",\"clock\":{\"timeControl\":{\"tag\":");
    string(out, report.tag.as_deref().unwrap_or_default())?;
    out.extend_from_slice(b",\"periods\":[");
    for (i, period) in report.periods().iter().enumerate() {
        write!(out, "{}{{\"moves\":{},\"seconds\":", if i > 0 { "," } else { "" }, period.moves)?;
        push_seconds(out, period.time_ms);
        out.extend_from_slice(b",\"increment\":");
        push_seconds(out, period.increment_ms);
        out.push(b'}');
    }
    out.extend_from_slice(b"]},\"elapsed\":[");
    for (i, elapsed) in report.elapsed_ms.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match elapsed {
            Some(ms) => push_seconds(out, *ms),
            None => out.extend_from_slice(b"null"),
        }
    }
    out.extend_from_slice(b"],\"findings\":[");
    for (i, finding) in report.findings.iter().enumerate() {
        let ClockFinding { ply, side, kind, reading_ms, emt_ms, limit_ms, implied_ms } = finding;
        write!(
            out,
            "{}{{\"ply\":{ply},\"side\":\"{}\",\"kind\":\"{}\"",
            if i > 0 { "," } else { "" },
            crate::answer::color(*side).as_str_name(),
            proto::ClockFindingKind::from(*kind).as_str_name(),
        )?;
        seconds_field(out, "reading", *reading_ms)?;
        seconds_field(out, "emt", *emt_ms)?;
        seconds_field(out, "limit", *limit_ms)?;
        seconds_field(out, "implied", *implied_ms)?;
        out.extend_from_slice(b",\"message\":");
        string(out, &finding.to_string())?;
        out.push(b'}');
    }
    out.push(b']');
    if let Some(error) = report.error() {
        out.extend_from_slice(b",\"error\":");
        string(out, &error.to_string())?;
    }
    out.push(b'}');
    Ok(())
}
