//! Typed configuration of the server, from flags with environment twins,
//! validated at start-up.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::telemetry::LogFormat;
use arbiter_chess::{Analysis, SearchBudget};

/// The budgets of the unwinnability analysis (dead positions, flag fall):
/// the server's, and those of the commands that replay games locally
/// (`validate`, `pgn`), so that both can judge alike.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct AnalysisArgs {
    /// Positions the unwinnability analysis may visit per colour for a ply
    /// whose pawns are all blocked (the per-ply dead-position check); 0
    /// leaves only the analysis's static tests.
    #[arg(long, env = "ARBITER_UNWINNABLE_PLY_NODES", default_value_t = Analysis::DEFAULT.per_ply.nodes,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub unwinnable_ply_nodes: u64,

    /// Positions the unwinnability analysis may visit per colour for a
    /// game's start and final positions, a flag fall and the winnability
    /// verdicts asked for (about a second at most at the default).
    #[arg(long, env = "ARBITER_UNWINNABLE_NODES", default_value_t = Analysis::DEFAULT.full.nodes,
          value_parser = clap::value_parser!(u64).range(1_000..=100_000_000))]
    pub unwinnable_nodes: u64,
}

impl AnalysisArgs {
    /// The budgets these flags give.
    pub fn analysis(&self) -> Analysis {
        Analysis {
            per_ply: SearchBudget { nodes: self.unwinnable_ply_nodes },
            full: SearchBudget { nodes: self.unwinnable_nodes },
        }
    }
}

/// How a PGN game's clock record is judged (`[%clk]`, `[%emt]` against
/// the TimeControl tag): the server's, for `ValidatePgn`, and that of
/// `arbiter pgn`, so that both find alike.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct ClockArgs {
    /// How far a clock reading or an emt may be from what the record and
    /// the time control imply before it is a finding (lichess exports
    /// whole seconds), 0 to 10 minutes.
    #[arg(long, env = "ARBITER_CLOCK_TOLERANCE", default_value = "1s",
          value_parser = parse_clock_tolerance)]
    pub clock_tolerance: Duration,
}

impl ClockArgs {
    /// The tolerance in whole milliseconds.
    pub fn tolerance_ms(&self) -> u64 {
        // At most 10 minutes: it fits.
        self.clock_tolerance.as_millis() as u64
    }
}

/// A clock tolerance: whole milliseconds, at most 10 minutes.
fn parse_clock_tolerance(text: &str) -> Result<Duration, String> {
    let tolerance = humantime::parse_duration(text).map_err(|error| error.to_string())?;
    if tolerance > Duration::from_secs(600) {
        return Err("more than 10 minutes".to_owned());
    }
    if tolerance.subsec_nanos() % 1_000_000 != 0 {
        return Err("finer than a millisecond".to_owned());
    }
    Ok(tolerance)
}

/// Settings of `arbiter serve`. Every flag has an `ARBITER_*` twin.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeConfig {
    /// Address the gRPC server listens on.
    #[arg(long, env = "ARBITER_LISTEN", default_value = "0.0.0.0:50051")]
    pub listen: SocketAddr,

    /// Address of the Prometheus endpoint (`GET /metrics`, plain HTTP).
    #[arg(long, env = "ARBITER_METRICS_LISTEN", default_value = "0.0.0.0:9090")]
    pub metrics_listen: SocketAddr,

    /// Log line format on standard error; `RUST_LOG` filters the lines.
    #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Largest request message accepted, in bytes (larger: RESOURCE_EXHAUSTED).
    #[arg(long, env = "ARBITER_MAX_MESSAGE_BYTES", default_value_t = 4 << 20,
          value_parser = clap::value_parser!(u64).range(1024..=(256 << 20)))]
    pub max_message_bytes: u64,

    /// Most moves in one game (more: INVALID_ARGUMENT).
    #[arg(long, env = "ARBITER_MAX_MOVES", default_value_t = 1024,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_moves: u32,

    /// Longest FEN accepted, in bytes (longer: INVALID_ARGUMENT).
    #[arg(long, env = "ARBITER_MAX_FEN_BYTES", default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(64..=4096))]
    pub max_fen_bytes: u32,

    /// Deepest perft a caller may ask for.
    #[arg(long, env = "ARBITER_MAX_PERFT_DEPTH", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(0..=12))]
    pub max_perft_depth: u32,

    /// Longest a perft may run on the server, whether or not its caller set
    /// a deadline; over it the call ends RESOURCE_EXHAUSTED and the work
    /// stops (a caller's earlier deadline still ends it DEADLINE_EXCEEDED).
    #[arg(long, env = "ARBITER_PERFT_BUDGET", default_value = "10s",
          value_parser = parse_perft_budget)]
    pub perft_budget: Duration,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    #[command(flatten)]
    pub clock: ClockArgs,

    /// Rules-service calls open at once across all connections, from
    /// admission until the response has been sent; a ValidateGames stream
    /// counts for its whole life. More are shed at once with
    /// RESOURCE_EXHAUSTED rather than queued.
    #[arg(long, env = "ARBITER_MAX_CONCURRENCY", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_concurrency: u32,

    /// Unary rules-service calls in flight at once (queued for a worker,
    /// running, or on the blocking pool); more are shed at once with
    /// RESOURCE_EXHAUSTED. An admitted call waits behind at most about this
    /// many calls' work, shared by the async workers. Default: 32 per async
    /// worker thread.
    #[arg(long, env = "ARBITER_MAX_UNARY_CALLS",
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_unary_calls: Option<u32>,

    /// The most one connection may hold of each admission budget, in
    /// percent (of --max-concurrency and of --max-unary-calls, at least one
    /// call); past it that connection's new calls are shed
    /// (RESOURCE_EXHAUSTED), not everyone's.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_SHARE", value_name = "PERCENT", default_value_t = 50,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    pub max_connection_share: u8,

    /// The most one peer IP address may hold of each admission budget, in
    /// percent, all its connections together. 100 (the default) turns the
    /// check off: behind a proxy or a service mesh every call comes from
    /// the proxy's address. Lower it (e.g. 50) where clients connect
    /// directly.
    #[arg(long, env = "ARBITER_MAX_PEER_SHARE", value_name = "PERCENT", default_value_t = 100,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    pub max_peer_share: u8,

    /// How long a call's answer, or a stream's next message, may wait for
    /// the client to take it (HTTP/2 flow control) before the call stalls
    /// (e.g. `5s`): its admission slots are given back, it ends with
    /// DEADLINE_EXCEEDED, and a connection whose every open call has
    /// stalled is closed. Past a grace of 1 s (or this, if shorter) a
    /// newcomer that finds the budgets full takes the slots sooner.
    #[arg(long, env = "ARBITER_STALL_TIMEOUT", default_value = "5s", value_parser = humantime::parse_duration)]
    pub stall_timeout: Duration,

    /// Connections open at once on the gRPC port. A connection that finds
    /// them all open closes the one idle (no call open) the longest and
    /// takes its place; when every connection has a call open, it is closed
    /// on arrival (its client sees UNAVAILABLE and can go elsewhere). At
    /// start-up the soft limit of open files is raised to fit, up to the
    /// hard limit.
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = 1000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,

    /// How long a new connection has to finish its handshake (the HTTP/2
    /// preface and SETTINGS, or a first HTTP/1.1 request; under TLS, the
    /// TLS handshake) before it is closed (e.g. `5s`). Also how long the
    /// metrics endpoint waits for a request's headers.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = "5s", value_parser = humantime::parse_duration)]
    pub handshake_timeout: Duration,

    /// Connections with no call open for this long are closed (e.g. `2m`);
    /// their clients connect again for their next call.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_IDLE", default_value = "2m", value_parser = humantime::parse_duration)]
    pub max_connection_idle: Duration,

    /// HTTP/2 streams one connection may have open at once.
    #[arg(long, env = "ARBITER_MAX_STREAMS_PER_CONNECTION", default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_streams_per_connection: u32,

    /// Games of one ValidateGames stream checked at once; the stream reads
    /// no further ahead (back-pressure).
    #[arg(long, env = "ARBITER_STREAM_GAMES_IN_FLIGHT", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub stream_games_in_flight: u32,

    /// Games longer than this many moves are replayed on the blocking pool
    /// instead of an async worker.
    #[arg(long, env = "ARBITER_BLOCKING_MOVES", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub blocking_moves: u32,

    /// Largest game of a ValidatePgn stream, in bytes (tags, moves and
    /// comments); a larger game is answered with a GAME_TOO_LARGE error and
    /// skipped, and the stream goes on.
    #[arg(long, env = "ARBITER_MAX_PGN_GAME_BYTES", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u32).range(1024..=(64 << 20)))]
    pub max_pgn_game_bytes: u32,

    /// Bytes of replay state kept so that a request extending a recently
    /// seen move list (a live game) replays only the new moves; 0 turns the
    /// cache off.
    #[arg(long, env = "ARBITER_CACHE_BYTES", default_value_t = 64 << 20)]
    pub cache_bytes: u64,

    /// After SIGTERM/SIGINT: how long in-flight calls may finish before the
    /// server cuts off (e.g. `10s`).
    #[arg(long, env = "ARBITER_DRAIN", default_value = "10s", value_parser = humantime::parse_duration)]
    pub drain: Duration,

    /// HTTP/2 keepalive ping interval (e.g. `30s`).
    #[arg(long, env = "ARBITER_KEEPALIVE_INTERVAL", default_value = "30s", value_parser = humantime::parse_duration)]
    pub keepalive_interval: Duration,

    /// How long a keepalive ping may go unanswered before the connection is closed.
    #[arg(long, env = "ARBITER_KEEPALIVE_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    pub keepalive_timeout: Duration,

    /// Connections are closed (gracefully) after this age so that clients
    /// rebalance across replicas (e.g. `5m`).
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE", default_value = "5m", value_parser = humantime::parse_duration)]
    pub max_connection_age: Duration,

    /// How long calls still open on a connection past its maximum age may
    /// go on before the connection is cut (e.g. `1m`): a stream whose client
    /// never reads cannot hold its concurrency slot for ever.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE_GRACE", default_value = "1m", value_parser = humantime::parse_duration)]
    pub max_connection_age_grace: Duration,

    /// PEM certificate chain the server presents. With `--tls-key`, the gRPC
    /// port speaks TLS only; without both, plaintext.
    #[arg(long, env = "ARBITER_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "ARBITER_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,

    /// PEM CA certificates for mutual TLS: clients must present a certificate
    /// issued by one of them, or the handshake fails. Needs `--tls-cert`.
    #[arg(long, env = "ARBITER_TLS_CLIENT_CA", value_name = "FILE")]
    pub tls_client_ca: Option<PathBuf>,

    /// Web origins whose pages may call the server through gRPC-Web,
    /// comma-separated (`https://play.example.com,http://localhost:8080`),
    /// or `*` for any page. Empty (the default): no cross-origin access.
    #[arg(long, env = "ARBITER_GRPC_WEB_CORS_ORIGINS", value_name = "LIST", default_value = "")]
    pub grpc_web_cors_origins: String,
}

/// Which web origins get a CORS grant for gRPC-Web (`--grpc-web-cors-origins`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No cross-origin access: no CORS layer at all.
    None,
    /// Any origin (`*`).
    Any,
    /// These origins, each as a browser writes it in `Origin`
    /// (`scheme://host[:port]`, lowercase).
    List(Vec<String>),
}

/// Default budget of unary calls in flight per async worker thread: enough
/// to keep the worker busy, few enough that under overload an admitted call
/// does not wait long behind the others (larger budgets let the tail latency
/// of admitted calls grow many times over; the README's "Overload" section
/// has the measurements).
const UNARY_CALLS_PER_WORKER: usize = 32;

/// Connections open at once on the metrics port; a new one closes the one
/// idle the longest (see [`crate::listener`]).
pub const METRICS_MAX_CONNECTIONS: usize = 32;

/// A setting that makes no sense, found at start-up.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A duration that must be positive is zero.
    #[error("{0} must be greater than zero")]
    ZeroDuration(&'static str),
    /// The keepalive timeout is not shorter than the interval.
    #[error("keepalive timeout ({timeout:?}) must be shorter than the interval ({interval:?})")]
    Keepalive { interval: Duration, timeout: Duration },
    /// One of a pair of flags that only make sense together.
    #[error("{given} needs {missing}")]
    Incomplete { given: &'static str, missing: &'static str },
    /// A TLS file that cannot serve.
    #[error("{0}")]
    Tls(#[from] crate::tls::TlsError),
    /// An entry of `--grpc-web-cors-origins` that no browser would send.
    #[error("--grpc-web-cors-origins: {entry:?} is not a web origin: {reason}")]
    CorsOrigin { entry: String, reason: &'static str },
}

impl ServeConfig {
    /// Checks what clap's per-flag ranges cannot.
    ///
    /// # Errors
    ///
    /// The first [`ConfigError`] found.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, value) in [
            ("--keepalive-interval", self.keepalive_interval),
            ("--keepalive-timeout", self.keepalive_timeout),
            ("--max-connection-age", self.max_connection_age),
            ("--max-connection-age-grace", self.max_connection_age_grace),
            ("--handshake-timeout", self.handshake_timeout),
            ("--max-connection-idle", self.max_connection_idle),
            ("--stall-timeout", self.stall_timeout),
        ] {
            if value.is_zero() {
                return Err(ConfigError::ZeroDuration(name));
            }
        }
        if self.keepalive_timeout >= self.keepalive_interval {
            return Err(ConfigError::Keepalive {
                interval: self.keepalive_interval,
                timeout: self.keepalive_timeout,
            });
        }
        self.tls()?;
        self.cors_origins()?;
        Ok(())
    }

    /// `--grpc-web-cors-origins`, parsed.
    ///
    /// # Errors
    ///
    /// [`ConfigError::CorsOrigin`] naming the first entry that is not an
    /// origin a browser sends (`scheme://host[:port]`, scheme `http` or
    /// `https`, no path, no default port), an empty entry, or `*` beside
    /// other entries.
    pub fn cors_origins(&self) -> Result<CorsOrigins, ConfigError> {
        parse_cors_origins(&self.grpc_web_cors_origins)
    }

    /// `--max-unary-calls`, or its default for a runtime of `workers` async
    /// worker threads: the queue an admitted call may find ahead of it is
    /// then about `UNARY_CALLS_PER_WORKER` calls' work per worker, whatever
    /// the size of the machine.
    pub fn max_unary_calls(&self, workers: usize) -> usize {
        self.max_unary_calls.map_or(UNARY_CALLS_PER_WORKER * workers.max(1), |n| n as usize)
    }

    /// The admission budgets, shares and stall bound for a runtime of
    /// `workers` async worker threads.
    pub fn admission(&self, workers: usize) -> crate::admission::Policy {
        crate::admission::Policy {
            max_calls: self.max_concurrency as usize,
            max_unary: self.max_unary_calls(workers),
            shares: crate::admission::SharePolicy {
                connection: self.max_connection_share,
                peer: self.max_peer_share,
            },
            stall_timeout: self.stall_timeout,
        }
    }

    /// The TLS settings, read from their files, or `None` for plaintext.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Incomplete`] for a certificate without a key (or the
    /// reverse, or a client CA without both); [`ConfigError::Tls`] naming a
    /// file that cannot be read or used.
    pub fn tls(&self) -> Result<Option<tonic::transport::ServerTlsConfig>, ConfigError> {
        let incomplete = |given, missing| Err(ConfigError::Incomplete { given, missing });
        match (&self.tls_cert, &self.tls_key, &self.tls_client_ca) {
            (Some(cert), Some(key), client_ca) => {
                Ok(Some(crate::tls::server_config(cert, key, client_ca.as_deref())?))
            }
            (Some(_), None, _) => incomplete("--tls-cert", "--tls-key"),
            (None, Some(_), _) => incomplete("--tls-key", "--tls-cert"),
            (None, None, Some(_)) => incomplete("--tls-client-ca", "--tls-cert and --tls-key"),
            (None, None, None) => Ok(None),
        }
    }

    /// The bounds on the gRPC port's connections.
    pub fn connection_limits(&self) -> crate::listener::ConnectionLimits {
        crate::listener::ConnectionLimits {
            max_connections: self.max_connections as usize,
            handshake_timeout: self.handshake_timeout,
            idle_timeout: self.max_connection_idle,
        }
    }

    /// The bounds on the metrics port's connections: a few scrapers need
    /// a few connections.
    pub fn metrics_limits(&self) -> crate::listener::ConnectionLimits {
        crate::listener::ConnectionLimits {
            max_connections: METRICS_MAX_CONNECTIONS,
            ..self.connection_limits()
        }
    }

    /// The limits the service applies to each request.
    pub fn limits(&self) -> crate::api::Limits {
        crate::api::Limits {
            max_moves: self.max_moves as usize,
            max_fen_bytes: self.max_fen_bytes as usize,
            max_perft_depth: self.max_perft_depth,
            perft_budget: self.perft_budget,
            stream_games_in_flight: self.stream_games_in_flight as usize,
            blocking_moves: self.blocking_moves as usize,
            analysis: self.analysis.analysis(),
            clock_tolerance_ms: self.clock.tolerance_ms(),
            max_pgn_game_bytes: self.max_pgn_game_bytes as usize,
        }
    }
}

/// A perft budget: a duration from 1 ms to 1 hour.
fn parse_perft_budget(text: &str) -> Result<Duration, String> {
    let budget = humantime::parse_duration(text).map_err(|error| error.to_string())?;
    if (Duration::from_millis(1)..=Duration::from_secs(3600)).contains(&budget) {
        Ok(budget)
    } else {
        Err(format!("{text:?} is outside 1ms..=1h"))
    }
}

/// Parses a comma-separated origin list (see [`ServeConfig::cors_origins`]).
fn parse_cors_origins(list: &str) -> Result<CorsOrigins, ConfigError> {
    if list.trim().is_empty() {
        return Ok(CorsOrigins::None);
    }
    let entries: Vec<&str> = list.split(',').map(str::trim).collect();
    if entries == ["*"] {
        return Ok(CorsOrigins::Any);
    }
    let origins = entries
        .iter()
        .map(|&entry| {
            parse_origin(entry)
                .map_err(|reason| ConfigError::CorsOrigin { entry: entry.to_owned(), reason })
        })
        .collect::<Result<_, _>>()?;
    Ok(CorsOrigins::List(origins))
}

/// One origin in the form browsers serialise it into the `Origin` header
/// (RFC 6454): the grant is an exact byte match, so anything else would
/// silently never match.
fn parse_origin(entry: &str) -> Result<String, &'static str> {
    match entry {
        "" => return Err("empty entry (a stray comma?)"),
        "*" => return Err("`*` allows every origin and must stand alone"),
        _ => {}
    }
    let (scheme, rest) = entry.split_once("://").ok_or("expected scheme://host[:port]")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return Err("the scheme must be http or https"),
    };
    if rest.contains(['/', '?', '#']) {
        return Err("an origin has no path, query or fragment (not even a trailing `/`)");
    }
    if rest.contains('@') {
        return Err("an origin has no user information");
    }
    let authority: tonic::codegen::http::uri::Authority =
        rest.parse().map_err(|_| "the host or port is malformed")?;
    if authority.host().is_empty() {
        return Err("the host is missing");
    }
    // `Authority` takes any digits after the host and then reports no port
    // when they are not a u16; a browser only sends 1-65535.
    let port = authority.port();
    let parsed_len =
        authority.host().len() + port.as_ref().map_or(0, |port| 1 + port.as_str().len());
    if parsed_len != authority.as_str().len() || port.is_some_and(|port| port.as_u16() == 0) {
        return Err("the host or port is malformed");
    }
    if authority.port().is_some_and(|port| port.as_str() == default_port) {
        return Err("browsers leave the scheme's default port out of `Origin`: drop it");
    }
    Ok(format!("{scheme}://{}", authority.as_str().to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        config: ServeConfig,
    }

    fn parse(flags: &[&str]) -> Result<ServeConfig, clap::Error> {
        Flags::try_parse_from(["arbiter"].iter().chain(flags)).map(|flags| flags.config)
    }

    /// With the defaults, a perft with no deadline ends within 10 seconds.
    #[test]
    fn perft_budget_defaults_to_ten_seconds_and_is_bounded() {
        assert_eq!(parse(&[]).unwrap().perft_budget, Duration::from_secs(10));
        assert_eq!(
            parse(&["--perft-budget", "250ms"]).unwrap().limits().perft_budget.as_millis(),
            250
        );
        for bad in ["0s", "2h", "soon"] {
            let error = parse(&["--perft-budget", bad]).unwrap_err().to_string();
            assert!(error.contains("--perft-budget"), "{bad}: {error}");
        }
    }

    fn parse_origins(list: &str) -> Result<CorsOrigins, String> {
        parse_cors_origins(list).map_err(|err| err.to_string())
    }

    #[test]
    fn cors_origin_lists() {
        assert_eq!(parse_origins(""), Ok(CorsOrigins::None));
        assert_eq!(parse_origins("  "), Ok(CorsOrigins::None));
        assert_eq!(parse_origins("*"), Ok(CorsOrigins::Any));
        assert_eq!(
            parse_origins("https://Play.Example.com, http://localhost:8080,http://[::1]:3000"),
            Ok(CorsOrigins::List(vec![
                "https://play.example.com".into(),
                "http://localhost:8080".into(),
                "http://[::1]:3000".into(),
            ]))
        );
    }

    #[test]
    fn malformed_cors_origins_are_named() {
        for (list, entry, reason) in [
            ("https://a.example,", "", "empty entry"),
            ("*,https://a.example", "*", "must stand alone"),
            ("a.example", "a.example", "scheme://host"),
            ("ftp://a.example", "ftp://a.example", "http or https"),
            ("https://a.example/", "https://a.example/", "no path"),
            ("https://a.example/app", "https://a.example/app", "no path"),
            ("https://u@a.example", "https://u@a.example", "user information"),
            ("https://a.example:99999", "https://a.example:99999", "malformed"),
            ("https://a.example:0", "https://a.example:0", "malformed"),
            ("https://a example", "https://a example", "malformed"),
            ("https://", "https://", "malformed"),
            ("http://a.example:80", "http://a.example:80", "default port"),
            ("https://a.example:443", "https://a.example:443", "default port"),
        ] {
            let message = parse_origins(list).expect_err(list);
            assert!(
                message.starts_with(&format!("--grpc-web-cors-origins: {entry:?} is not")),
                "{list}: {message}"
            );
            assert!(message.contains(reason), "{list}: {message}");
        }
    }
}
