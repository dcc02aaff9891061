//! Arbiter applies the Laws of Chess for other programs: it checks moves,
//! writes them in canonical notation and reports the state of the game.
//!
//! This crate is the service and the command line. The rules core is
//! [`arbiter_chess`] (board, notation, game rules, unwinnability) and the
//! PGN reader [`arbiter_pgn`] (reader, checker, export): crates of their
//! own, which know nothing of networks and can be embedded on their own.
//!
//! # Layout
//!
//! - [`proto`]: the generated `arbiter.v1` contract: messages and client,
//!   and the server, generated apart to read and write [`api::wire`]'s
//!   messages for the game calls.
//! - [`api`]: requests converted into the core's queries, the messages the
//!   server reads and writes by hand ([`api::wire`]) and their codec, the
//!   service (`ValidatePgn`'s answers from [`arbiter_pgn`]'s reports), and
//!   the one mapping from request errors to gRPC statuses.
//! - [`answer`]: the core's answers (plies, illegal moves, positions,
//!   outcomes) as contract messages, and beside them their other forms:
//!   the proto3 JSON that `arbiter validate` prints ([`answer::json`]) and
//!   the JSON line of `arbiter pgn --json` ([`answer::pgn_json`]); the
//!   wire bytes of the game calls are [`api::wire`]'s.
//! - [`move_texts`]: a request's move texts in one buffer, filled by the
//!   request decoder and kept by the cache as its key.
//! - [`status`]: the names of gRPC status codes, for metrics and JSON.
//! - [`cache`]: the bounded cache of replay state that lets a request
//!   extending a recently seen move list replay only the new moves.
//! - [`admission`]: the budgets of calls in flight, each client within its
//!   share; calls over them are shed with RESOURCE_EXHAUSTED at once, and a
//!   call whose answer the client does not read within the stall bound
//!   gives its slots back and ends.
//! - [`server`]: `server::run(listener, config, shutdown)` with health,
//!   reflection, gRPC-Web, limits and the graceful drain.
//! - [`listener`]: the accept loop, with a bound on open connections and a
//!   back-off when accepting fails (e.g. out of file descriptors), and the
//!   closing of silent, idle and stalled connections.
//! - [`telemetry`]: logs, Prometheus metrics with the tower layer that counts
//!   every call, and opt-in OpenTelemetry traces over OTLP.
//! - [`metrics_endpoint`]: the `/metrics` HTTP endpoint on its own port.
//! - [`config`]: typed server configuration from flags and environment.
//! - [`tls`]: the TLS and mutual-TLS files of the server, checked at start-up.
//! - [`cli`]: the `arbiter` command line, with the client that sends a PGN
//!   archive's games to a running server (`arbiter pgn --remote`).
//! - [`pgn_files`]: PGN files opened (plain or compressed) and their games
//!   checked on many threads in input order, for `arbiter pgn` and the
//!   Python wheel.
//!
//! # Features
//!
//! `service` (on by default) is everything above but [`proto`]'s messages,
//! [`answer`] and [`pgn_files`]: the Python wheel (`python/`) builds this
//! crate without it, so that it links neither tokio nor tonic and writes
//! its dicts with the command line's own JSON writers.

#[cfg(feature = "service")]
pub mod admission;
pub mod answer;
#[cfg(feature = "service")]
pub mod api;
#[cfg(feature = "service")]
pub mod cache;
#[cfg(feature = "service")]
pub mod cli;
#[cfg(feature = "service")]
pub mod config;
#[cfg(feature = "service")]
pub mod listener;
#[cfg(feature = "service")]
pub mod metrics_endpoint;
#[cfg(feature = "service")]
pub mod move_texts;
pub mod pgn_files;
pub mod proto;
#[cfg(feature = "service")]
pub mod server;
#[cfg(feature = "service")]
pub mod status;
#[cfg(feature = "service")]
pub mod telemetry;
#[cfg(feature = "service")]
pub mod tls;
