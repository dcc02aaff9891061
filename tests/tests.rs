//! The integration tests of the `arbiter` package, in one binary: one link
//! instead of one per suite. The suites are grouped by subject; run one
//! group or one suite with a filter, e.g. `cargo test --test tests pgn::`
//! or `cargo test --test tests server::tls::`. The rules core's suites are
//! the core's own (`cargo test -p arbiter-chess`, `crates/arbiter-chess/tests`).
//!
//! `tests/metrics.rs` is a binary of its own: the metrics recorder is
//! process-wide, and the calls of the suites here would move its counters.
//!
//! The suites over third-party vectors read `ARBITER_TEST_DATA` and skip
//! without it (see `common`).

mod common;

/// PGN: the reader, checker and export (`arbiter-pgn`), clock records, the
/// `arbiter pgn` command, locally and against a server, and the
/// `ValidatePgn` RPC.
mod pgn {
    mod clock;
    mod reader;
    mod remote;
    mod service;
    mod variants;
}

/// The gRPC service: every RPC over a real socket, hostile clients,
/// connection limits, overload, CORS, TLS, traces, the replay cache, the
/// clock and the hand-written wire code.
mod server {
    mod adversarial;
    mod analysis;
    mod cache;
    mod clock;
    mod clock_forms;
    mod connections;
    mod cors;
    mod overload;
    mod rulings;
    mod service;
    mod stalls;
    mod standin;
    mod tls;
    mod tracing;
    mod variants;
    mod wire_contract;
}

/// The `arbiter` binary's other commands, run as a user would run them.
mod cli {
    mod commands;
}
