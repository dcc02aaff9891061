//! Prometheus metrics: the names Arbiter records, the process-wide
//! recorder and the domain counters (`crate::metrics_endpoint` serves them).
//!
//! One recorder serves the whole process. The `metrics` facade has a single
//! global recorder, and the domain code and the cache record through that
//! facade, so a per-server recorder could not see them;
//! `metrics::with_local_recorder` only covers code running on the calling
//! thread, not the tasks a server spawns. [`install`] therefore installs the
//! recorder on first use and hands every later caller the same handle:
//! servers started in one process (tests do) share one registry, and each
//! `/metrics` endpoint shows the process's totals, as one process per replica
//! has in production.

use std::sync::{Mutex, OnceLock, PoisonError};

use metrics::{
    Counter, Gauge, counter, describe_counter, describe_gauge, describe_histogram, gauge,
};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use super::{GameSummary, TelemetryError};
use crate::proto;
use arbiter_chess::{IllegalReason, Notation, Ruling, RulingAction, Termination};
use arbiter_pgn::ClockReport;

/// gRPC calls finished, by `grpc_service`, `grpc_method` and `grpc_code`.
pub const RPC_HANDLED: &str = "arbiter_grpc_server_handled_total";
/// Time from request headers to the end of the response, by service and method.
pub const RPC_DURATION: &str = "arbiter_grpc_server_handling_seconds";
/// gRPC calls being served, by service and method.
pub const RPC_IN_FLIGHT: &str = "arbiter_grpc_server_in_flight_calls";
/// Moves checked (each legal move, and the illegal one that stops a game).
pub const MOVES_VALIDATED: &str = "arbiter_moves_validated_total";
/// Illegal moves, by `reason`.
pub const ILLEGAL_MOVES: &str = "arbiter_illegal_moves_total";
/// Games whose final position ends the game, by `termination`.
pub const GAMES_FINISHED: &str = "arbiter_games_finished_total";
/// Games asked about (ValidateGame, LegalMoves, each game of a stream), by
/// requested `notation`.
/// Clock findings of `ValidatePgn` games, by `kind`.
pub const CLOCK_FINDINGS: &str = "arbiter_clock_findings_total";
/// Analyses asked for (`include_analysis`), by `source`: `game` for a
/// game of `ValidateGame` or `ValidateGames`, `pgn` for a `ValidatePgn`
/// stream.
pub const ANALYSIS_REQUESTS: &str = "arbiter_analysis_requests_total";
/// The `source` labels of [`ANALYSIS_REQUESTS`].
pub const ANALYSIS_SOURCES: [&str; 2] = ["game", "pgn"];
/// Rulings on completed illegal moves (`illegal_moves` FIDE or
/// FIDE_2009), by `action`.
pub const RULINGS: &str = "arbiter_rulings_total";
/// Games checked on a clock record (`ValidateGame`, `ValidateGames`).
pub const CLOCKED_GAMES: &str = "arbiter_clocked_games_total";
pub const GAME_REQUESTS: &str = "arbiter_game_requests_total";
/// Games of `ValidateGames` and `ValidatePgn` streams being checked right now.
pub const STREAM_GAMES_IN_FLIGHT: &str = "arbiter_stream_games_in_flight";
/// Replay cache lookups answered from the cache (recorded by the cache).
pub const CACHE_HITS: &str = "arbiter_cache_hits_total";
/// Replay cache lookups that had to replay (recorded by the cache).
pub const CACHE_MISSES: &str = "arbiter_cache_misses_total";
/// Replay cache entries evicted to stay within the size bound.
pub const CACHE_EVICTIONS: &str = "arbiter_cache_evictions_total";
/// Replays the cache did not keep: no entry helped them and their game was
/// not followed (recorded by the cache).
pub const CACHE_NOT_KEPT: &str = "arbiter_cache_not_kept_total";
/// Weighted size of the replay cache.
pub const CACHE_BYTES: &str = "arbiter_cache_bytes";
/// Entries in the replay cache.
pub const CACHE_ENTRIES: &str = "arbiter_cache_entries";
/// Connections open on the gRPC port (recorded by [`crate::listener`]).
pub const CONNECTIONS_OPEN: &str = "arbiter_connections_open";
/// Connections closed on arrival because `--max-connections` were open.
pub const CONNECTIONS_REFUSED: &str = "arbiter_connections_refused_total";
/// Answers that could not be written (a length mistake in a hand-written
/// encoder): the call ends INTERNAL rather than the process aborting.
pub const ENCODE_ERRORS: &str = "arbiter_encode_errors_total";
/// Calls whose answer (or a stream's next message) waited for the peer to
/// take it until they gave their admission slots back, by `rpc` (`unary`
/// or `stream`) and `reason`: `timeout` past `--stall-timeout`, or
/// `displaced` past the grace when a newcomer needed the slot.
pub const CALLS_STALLED: &str = "arbiter_calls_stalled_total";
/// The `rpc` labels of [`CALLS_STALLED`].
pub const STALLED_RPCS: [&str; 2] = ["unary", "stream"];
/// The `reason` labels of [`CALLS_STALLED`].
pub const STALLED_REASONS: [&str; 2] = ["timeout", "displaced"];
/// Connections the server closed, by `reason`: `handshake_timeout`,
/// `idle_timeout`, `evicted` to make room for a new one, or `stalled` when
/// every call open on it waited past the stall bound.
pub const CONNECTIONS_CLOSED: &str = "arbiter_connections_closed_total";
/// The `reason`s of [`CONNECTIONS_CLOSED`] (`crate::listener` closes for
/// these and no others).
pub const CLOSE_REASONS: [&str; 4] = ["handshake_timeout", "idle_timeout", "evicted", "stalled"];

/// Upper bounds of the latency buckets, in seconds: most calls take well
/// under a millisecond, perft and long streams take seconds.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
];

static HANDLE: Mutex<Option<PrometheusHandle>> = Mutex::new(None);

/// The process-wide Prometheus recorder, installed as the `metrics` global
/// recorder on the first call; later calls return the same handle.
///
/// # Errors
///
/// [`TelemetryError::Recorder`] if some other recorder was installed first.
pub fn install() -> Result<PrometheusHandle, TelemetryError> {
    let mut slot = HANDLE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(handle) = slot.as_ref() {
        return Ok(handle.clone());
    }
    // Buckets for every histogram: without them the exporter writes
    // summaries, which cannot be aggregated across replicas.
    let recorder = PrometheusBuilder::new()
        .set_buckets(LATENCY_BUCKETS)
        .map_err(|_| TelemetryError::Recorder)?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).map_err(|_| TelemetryError::Recorder)?;
    describe();
    register_at_zero();
    *slot = Some(handle.clone());
    Ok(handle)
}

fn describe() {
    use metrics::Unit;
    describe_counter!(RPC_HANDLED, "gRPC calls finished, by method and status code");
    describe_histogram!(RPC_DURATION, Unit::Seconds, "time to answer a gRPC call, by method");
    describe_gauge!(RPC_IN_FLIGHT, "gRPC calls being served, by method");
    describe_counter!(MOVES_VALIDATED, "moves checked: the legal ones and the first illegal one");
    describe_counter!(ILLEGAL_MOVES, "illegal moves, by reason");
    describe_counter!(GAMES_FINISHED, "games whose final position ends the game, by termination");
    describe_counter!(GAME_REQUESTS, "games asked about, by requested notation and variant");
    describe_counter!(CLOCK_FINDINGS, "clock findings of ValidatePgn games, by kind");
    describe_counter!(CLOCKED_GAMES, "games checked on a clock record that runs");
    describe_counter!(ANALYSIS_REQUESTS, "analyses asked for (include_analysis), by source");
    describe_counter!(RULINGS, "rulings on completed illegal moves, by action");
    describe_gauge!(
        STREAM_GAMES_IN_FLIGHT,
        "games of ValidateGames and ValidatePgn streams being checked"
    );
    describe_counter!(CACHE_HITS, "replay cache lookups answered from the cache");
    describe_counter!(CACHE_MISSES, "replay cache lookups that had to replay");
    describe_counter!(CACHE_EVICTIONS, "replay cache entries evicted to stay within the bound");
    describe_counter!(
        CACHE_NOT_KEPT,
        "replays from the start not kept by the replay cache: their game was not followed"
    );
    describe_gauge!(CACHE_BYTES, Unit::Bytes, "weighted size of the replay cache");
    describe_gauge!(CACHE_ENTRIES, "entries in the replay cache");
    describe_gauge!(CONNECTIONS_OPEN, "connections open on the gRPC port");
    describe_counter!(
        CONNECTIONS_REFUSED,
        "connections closed on arrival because --max-connections were open"
    );
    describe_counter!(ENCODE_ERRORS, "answers that could not be written (answered INTERNAL)");
    describe_counter!(
        CALLS_STALLED,
        "calls whose answer waited for the peer until they gave their slots back, by rpc kind \
         and reason: timeout (--stall-timeout) or displaced (a newcomer took the slot)"
    );
    describe_counter!(
        CONNECTIONS_CLOSED,
        "connections the server closed, by reason: handshake or idle timeout, evicted, stalled"
    );
}

/// Registers every series whose labels are known in advance, at zero: a
/// family missing until its first event breaks `rate()` and dashboards.
fn register_at_zero() {
    for counter in
        [MOVES_VALIDATED, CACHE_HITS, CACHE_MISSES, CACHE_EVICTIONS, CACHE_NOT_KEPT, ENCODE_ERRORS]
    {
        counter!(counter).increment(0);
    }
    counter!(CONNECTIONS_REFUSED).increment(0);
    counter!(CLOCKED_GAMES).increment(0);
    for source in ANALYSIS_SOURCES {
        counter!(ANALYSIS_REQUESTS, "source" => source).increment(0);
    }
    for rpc in STALLED_RPCS {
        for reason in STALLED_REASONS {
            counter!(CALLS_STALLED, "rpc" => rpc, "reason" => reason).increment(0);
        }
    }
    for reason in CLOSE_REASONS {
        counter!(CONNECTIONS_CLOSED, "reason" => reason).increment(0);
    }
    for gauge in [STREAM_GAMES_IN_FLIGHT, CACHE_BYTES, CACHE_ENTRIES, CONNECTIONS_OPEN] {
        gauge!(gauge).increment(0.0);
    }
    for notation in [Notation::Auto, Notation::Uci, Notation::San] {
        for variant in (1..).map_while(|value| proto::Variant::try_from(value).ok()) {
            counter!(
                GAME_REQUESTS,
                "notation" => notation_label(notation),
                "variant" => variant_label(variant)
            )
            .increment(0);
        }
    }
    // Every value the contract names, so that a new reason or termination
    // is registered as soon as the contract has it.
    for reason in (1..).map_while(|value| proto::IllegalMoveReason::try_from(value).ok()) {
        counter!(ILLEGAL_MOVES, "reason" => strip(reason.as_str_name(), "ILLEGAL_MOVE_REASON_"))
            .increment(0);
    }
    for termination in (1..).map_while(|value| proto::Termination::try_from(value).ok()) {
        counter!(GAMES_FINISHED, "termination" => strip(termination.as_str_name(), "TERMINATION_"))
            .increment(0);
    }
    for kind in (1..).map_while(|value| proto::ClockFindingKind::try_from(value).ok()) {
        counter!(CLOCK_FINDINGS, "kind" => strip(kind.as_str_name(), "CLOCK_FINDING_KIND_"))
            .increment(0);
    }
    for action in (1..).map_while(|value| proto::RulingAction::try_from(value).ok()) {
        counter!(RULINGS, "action" => strip(action.as_str_name(), "RULING_ACTION_")).increment(0);
    }
}

/// Counts a PGN game's clock findings, by kind.
pub fn count_clock_findings(report: &ClockReport) {
    for finding in &report.findings {
        let kind = proto::ClockFindingKind::from(finding.kind).as_str_name();
        counter!(CLOCK_FINDINGS, "kind" => strip(kind, "CLOCK_FINDING_KIND_")).increment(1);
    }
}

/// Counts a request for the analysis, from `source` (one of
/// [`ANALYSIS_SOURCES`]).
pub fn count_analysis(source: &'static str) {
    debug_assert!(ANALYSIS_SOURCES.contains(&source));
    counter!(ANALYSIS_REQUESTS, "source" => source).increment(1);
}

/// Counts the rulings on a game's completed illegal moves, by action.
pub fn count_rulings(rulings: &[Ruling]) {
    for ruling in rulings {
        let action = match ruling.action {
            RulingAction::TimeAdded => proto::RulingAction::TimeAdded,
            RulingAction::GameLost => proto::RulingAction::GameLost,
            RulingAction::GameDrawn => proto::RulingAction::GameDrawn,
        };
        counter!(RULINGS, "action" => strip(action.as_str_name(), "RULING_ACTION_")).increment(1);
    }
}

/// Counts a game checked on a clock record that runs.
pub fn count_clocked_game() {
    static CLOCKED: OnceLock<Counter> = OnceLock::new();
    CLOCKED.get_or_init(|| counter!(CLOCKED_GAMES)).increment(1);
}

/// An enum value's name without its enum's prefix.
fn strip(name: &'static str, prefix: &str) -> &'static str {
    name.strip_prefix(prefix).unwrap_or(name)
}

/// The `notation` label: the notation the request asked for.
fn notation_label(notation: Notation) -> &'static str {
    match notation {
        Notation::Auto => "AUTO",
        Notation::Uci => "UCI",
        Notation::San => "SAN",
    }
}

/// The `variant` label: the contract's name of the rules, without the enum
/// prefix (`STANDARD`, `CHESS960`, `CRAZYHOUSE`...).
fn variant_label(variant: proto::Variant) -> &'static str {
    strip(variant.as_str_name(), "VARIANT_")
}

/// Adds one replayed game to the domain metrics: the request by notation
/// and variant,
/// the moves checked, the illegal move by reason, the ending by termination.
/// Every game of every call counts its request and moves, so those handles
/// are registered once (as [`super::rpc`] does) rather than looked up by
/// name and labels each time.
pub fn count_game(game: &GameSummary) {
    // By the contract's value of the variant (1 to 9; 0 is never counted).
    static REQUESTS: [[OnceLock<Counter>; 3]; 10] = [const { [const { OnceLock::new() }; 3] }; 10];
    static MOVES: OnceLock<Counter> = OnceLock::new();
    let (notation, variant) = (game.notation, game.variant);
    let by_variant = &REQUESTS[(variant as usize).min(REQUESTS.len() - 1)];
    let requests = match notation {
        Notation::Auto => &by_variant[0],
        Notation::Uci => &by_variant[1],
        Notation::San => &by_variant[2],
    };
    requests
        .get_or_init(|| {
            counter!(
                GAME_REQUESTS,
                "notation" => notation_label(notation),
                "variant" => variant_label(variant)
            )
        })
        .increment(1);
    MOVES.get_or_init(|| counter!(MOVES_VALIDATED)).increment(game.checked as u64);
    if let Some(reason) = game.illegal {
        counter!(ILLEGAL_MOVES, "reason" => reason_label(reason)).increment(1);
    }
    if let Some(termination) = game.termination {
        counter!(GAMES_FINISHED, "termination" => termination_label(termination)).increment(1);
    }
}

/// The contract's name of an illegal-move reason, without the enum prefix.
pub fn reason_label(reason: IllegalReason) -> &'static str {
    strip(proto::IllegalMoveReason::from(reason).as_str_name(), "ILLEGAL_MOVE_REASON_")
}

/// The contract's name of a termination, without the enum prefix.
pub fn termination_label(termination: Termination) -> &'static str {
    strip(proto::Termination::from(termination).as_str_name(), "TERMINATION_")
}

/// Marks one game of a stream as being checked until dropped.
#[derive(Debug)]
pub struct StreamGame(());

impl StreamGame {
    /// Counts a stream game in [`STREAM_GAMES_IN_FLIGHT`] until dropped.
    pub fn start() -> StreamGame {
        stream_games().increment(1.0);
        StreamGame(())
    }
}

impl Drop for StreamGame {
    fn drop(&mut self) {
        stream_games().decrement(1.0);
    }
}

fn stream_games() -> &'static Gauge {
    static IN_FLIGHT: OnceLock<Gauge> = OnceLock::new();
    IN_FLIGHT.get_or_init(|| gauge!(STREAM_GAMES_IN_FLIGHT))
}
