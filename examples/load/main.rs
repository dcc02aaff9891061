//! A gRPC load generator for `arbiter serve`, over real sockets: closed
//! loop by default, open loop at a fixed rate with `--rate`.
//! The scenarios run one after another against one server, so that their
//! figures compare side by side; see "The load tool" in docs/performance.md.
//!
//! ```sh
//! cargo build --release && cargo build --release --example load
//! target/release/examples/load --spawn target/release/arbiter --verify
//! ```

mod drive;
mod live;
mod report;
mod target;
mod workload;

// The real-games test uses the parts of the reader that this tool does not.
#[allow(dead_code)]
#[path = "../../crates/arbiter-chess/tests/common/pgn.rs"]
mod pgn;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgGroup, Parser, ValueEnum};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tonic::Code;

use arbiter::status::{code_name, parse_code};
use arbiter_chess::Rules;
use drive::{
    Caller, Connections, HealthCaller, LegalCaller, Loop, StreamCaller, Tally, ValidateCaller,
};
use live::Live;
use report::{Measured, Report, ScenarioReport};
use target::Target;
use workload::{GAME_PLIES, Games};

/// What goes wrong before or around the load: a message for the user.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The shared data's real games, used when `ARBITER_TEST_DATA` is set.
const DEFAULT_PGN: &str = "pgn/shakmaty/lichess_db_1000k.pgn";

/// What the load is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Scenario {
    /// grpc.health.v1 Check: the transport's baseline.
    Health,
    /// ValidateGame of 80-ply games in SAN, with the final legal moves.
    Validate,
    /// Live games re-sent as they grow, in lock-step rounds.
    Live,
    /// ValidateGames: one stream per worker, 80-ply games.
    Stream,
    /// LegalMoves after random prefixes of the games.
    Legal,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::Health => "health",
            Scenario::Validate => "validate",
            Scenario::Live => "live",
            Scenario::Stream => "stream",
            Scenario::Legal => "legal",
        }
    }
}

/// How the clock record of `--clock` sends its move times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ClockForm {
    /// `GameClock.move_times`: a `google.protobuf.Duration` a move.
    Durations,
    /// `GameClock.move_times_ms`: packed milliseconds.
    Packed,
}

/// A gRPC load generator for `arbiter serve`.
#[derive(Debug, Parser)]
#[command(name = "load")]
#[command(group(ArgGroup::new("server").required(true).args(["addr", "spawn"])))]
struct Flags {
    /// An arbiter server that is already running (HOST:PORT).
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// With --addr: the server's process id, to measure its CPU time and memory.
    #[arg(long, requires = "addr", value_name = "PID")]
    server_pid: Option<u32>,
    /// Start this arbiter binary on a free port of 127.0.0.1, measure it, and
    /// stop it (SIGTERM) at the end.
    #[arg(long, value_name = "PATH")]
    spawn: Option<PathBuf>,
    /// With --spawn: one more argument for `arbiter serve`, repeatable
    /// (e.g. --server-arg=--max-concurrency=64).
    #[arg(long = "server-arg", value_name = "ARG", requires = "spawn", allow_hyphen_values = true)]
    server_args: Vec<String>,
    /// Scenarios to run, in this order.
    #[arg(long, value_delimiter = ',', default_value = "health,validate,live,stream,legal")]
    scenario: Vec<Scenario>,
    /// Warm-up before each scenario's measured period.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    warmup: Duration,
    /// Measured period of each scenario (live runs whole passes of its games).
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// Workers, each with at most one call in flight.
    #[arg(long, default_value_t = 64, value_parser = positive)]
    concurrency: usize,
    /// Open loop: send this many calls per second in all, on a fixed
    /// schedule spread over the workers, whatever the answers (overload
    /// runs); latency counts from when a call was due. The live scenario
    /// keeps its lock-step rounds.
    #[arg(long, value_name = "CALLS_PER_S", value_parser = positive_rate)]
    rate: Option<f64>,
    /// Games a `stream` call sends back to back on its stream before it
    /// waits for their verdicts (1: one game in flight per stream).
    #[arg(long, default_value_t = 1, value_parser = positive)]
    stream_batch: usize,
    /// HTTP/2 connections the workers share round-robin.
    #[arg(long, default_value_t = 4, value_parser = positive)]
    connections: usize,
    /// Real games: those of 80 plies or more, cut to 80 (default: the shared
    /// data's lichess games when ARBITER_TEST_DATA is set, else random games).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Seed of the random games and prefixes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random games made when no PGN file is given. The default's games are
    /// sent over and over, so the cache answers repeats; many more than the
    /// cache holds (e.g. 40000 with the default cache) make every request
    /// of `validate` a miss.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Compare every answer with the rules core's in process; a difference
    /// makes the exit status non-zero.
    #[arg(long)]
    verify: bool,
    /// The rules of the `live` scenario's games: standard, chess960 or a
    /// lichess variant (crazyhouse, three-check, ...).
    #[arg(long, default_value = "standard", value_parser = str::parse::<Rules>)]
    live_rules: Rules,
    /// The games of `validate` and `stream` carry a clock record (5 min +
    /// 2 s, each move up to 5 s: no flag falls), to measure its cost; its
    /// move times as Durations (`--clock`, `--clock=durations`) or packed
    /// (`--clock=packed`: `move_times_ms`, the plies' `clock_ms`).
    #[arg(long, value_name = "FORM", num_args = 0..=1, require_equals = true,
          default_missing_value = "durations")]
    clock: Option<ClockForm>,
    /// Send a call that failed with UNAVAILABLE or INTERNAL again, up to N times.
    #[arg(long, default_value_t = 0, value_name = "N")]
    retries: u32,
    /// A status code that does not fail the run (repeatable), e.g. resource-exhausted.
    #[arg(long = "allow-code", value_name = "CODE", value_parser = parse_code)]
    allowed_codes: Vec<Code>,
    /// Also write the figures as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn positive(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(0) | Err(_) => Err(format!("{text:?} is not a positive whole number")),
        Ok(n) => Ok(n),
    }
}

fn positive_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!("{text:?} is not a positive number")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let flags = Flags::parse();
    match run(&flags).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("load: {}", chain(err.as_ref()));
            ExitCode::from(2)
        }
    }
}

/// `err` with its causes: transport errors say little at the top
/// ("transport error"), the reason is further down the chain.
pub fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // Some layers repeat their cause's text; say it once.
        if !message.ends_with(&cause_text) {
            message = format!("{message}: {cause_text}");
        }
        source = cause.source();
    }
    message
}

/// The requests of the scenarios that send fixed sets of them.
struct Workload {
    source: String,
    validate: Arc<Vec<workload::Item<arbiter::proto::ValidateGameRequest>>>,
    /// The `validate` requests encoded once, as the byte clients send them.
    validate_encoded: Arc<Vec<bytes::Bytes>>,
    legal: Arc<Vec<workload::Item<arbiter::proto::LegalMovesRequest>>>,
}

impl Workload {
    fn new(flags: &Flags) -> Result<Workload, Error> {
        let pgn = flags.pgn.clone().or_else(|| {
            let path = PathBuf::from(std::env::var_os("ARBITER_TEST_DATA")?).join(DEFAULT_PGN);
            path.is_file().then_some(path)
        });
        let Games { source, games } = match pgn {
            Some(path) => Games::from_pgn(&path)?,
            None => Games::random(flags.seed, flags.games as usize)?,
        };
        let validate: Vec<_> = games
            .iter()
            .map(|game| {
                let mut request = workload::validate_request(game, GAME_PLIES, 0);
                if let Some(form) = flags.clock {
                    let packed = form == ClockForm::Packed;
                    request.clock = Some(workload::clock_record(GAME_PLIES, packed));
                }
                workload::validate_item(request, flags.verify)
            })
            .collect::<Result<_, _>>()?;
        let mut rng = SmallRng::seed_from_u64(flags.seed);
        let legal = games
            .iter()
            .map(|game| workload::legal_item(game, rng.random_range(0..=GAME_PLIES), flags.verify))
            .collect::<Result<_, _>>()?;
        let validate_encoded = Arc::new(
            validate
                .iter()
                .map(|item| bytes::Bytes::from(prost::Message::encode_to_vec(&item.request)))
                .collect(),
        );
        Ok(Workload {
            source,
            validate: Arc::new(validate),
            validate_encoded,
            legal: Arc::new(legal),
        })
    }
}

/// Makes the workload, runs the scenarios against the server, stops a
/// spawned server, reports. `Ok(false)` when a call failed for good with a
/// code not allowed, or an answer was wrong.
async fn run(flags: &Flags) -> Result<bool, Error> {
    let workload = Workload::new(flags)?;
    let target = match (&flags.addr, &flags.spawn) {
        (Some(addr), _) => Target::existing(*addr, flags.server_pid),
        (None, Some(binary)) => Target::spawn(binary, &flags.server_args).await?,
        (None, None) => return Err("give --addr or --spawn".into()),
    };
    eprintln!("load: server {}", target.description);
    let description = target.description.clone();
    // The reference, measured before the load while the server idles: only
    // a measured server's plies per CPU-second compare with it.
    let reference = target.measured()
        && flags.scenario.iter().any(|s| matches!(s, Scenario::Validate | Scenario::Stream));
    let in_process =
        reference.then(|| workload::in_process_speed(&workload.validate)).transpose()?;
    let scenarios = measure(flags, &target, &workload).await;
    // The server is stopped whatever happened to the scenarios.
    let stopped = target.stop().await;
    let scenarios = scenarios?;
    stopped?;

    let report = Report {
        target: description,
        games: workload.source,
        concurrency: flags.concurrency,
        rate: flags.rate,
        connections: flags.connections,
        warmup_s: flags.warmup.as_secs_f64(),
        duration_s: flags.duration.as_secs_f64(),
        in_process_plies_per_s: in_process,
        scenarios,
    };
    print!("{}", report.markdown());
    if let Some(path) = &flags.json {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json + "\n")
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    }
    let mut good = true;
    for s in &report.scenarios {
        let refused: Vec<_> = s
            .codes
            .keys()
            .filter(|&&code| {
                code != "OK" && !flags.allowed_codes.iter().any(|&c| code_name(c) == code)
            })
            .collect();
        if !refused.is_empty() {
            eprintln!(
                "load: {}: calls failed with {refused:?} (allow with --allow-code)",
                s.scenario
            );
            good = false;
        }
        if s.wrong_answers > 0 {
            eprintln!("load: {}: {} wrong answers", s.scenario, s.wrong_answers);
            good = false;
        }
    }
    Ok(good)
}

/// Runs every scenario asked for, one after another.
async fn measure(
    flags: &Flags,
    target: &Target,
    workload: &Workload,
) -> Result<Vec<ScenarioReport>, Error> {
    let connections = Connections::open(target.addr, flags.connections).await?;
    let mut reports = Vec::with_capacity(flags.scenario.len());
    for &scenario in &flags.scenario {
        eprintln!(
            "load: {}: warm-up {}, then {} with {} calls in flight",
            scenario.name(),
            humantime::format_duration(flags.warmup),
            humantime::format_duration(flags.duration),
            flags.concurrency
        );
        let calls = Calls { flags, target };
        let report = match scenario {
            Scenario::Health => {
                calls.run(scenario, |w| HealthCaller(connections.health(w))).await?
            }
            Scenario::Validate => {
                calls
                    .run(scenario, |w| ValidateCaller {
                        client: connections.raw(w),
                        items: Arc::clone(&workload.validate),
                        encoded: Arc::clone(&workload.validate_encoded),
                    })
                    .await?
            }
            Scenario::Stream => {
                calls
                    .run(scenario, |w| {
                        StreamCaller::new(
                            connections.raw(w),
                            Arc::clone(&workload.validate),
                            Arc::clone(&workload.validate_encoded),
                            flags.stream_batch,
                        )
                    })
                    .await?
            }
            Scenario::Legal => {
                calls
                    .run(scenario, |w| LegalCaller {
                        client: connections.rules(w),
                        items: Arc::clone(&workload.legal),
                    })
                    .await?
            }
            Scenario::Live => {
                let live = Live {
                    connections: &connections,
                    target,
                    workers: flags.concurrency,
                    retries: flags.retries,
                    seed: flags.seed,
                    verify: flags.verify,
                    rules: flags.live_rules,
                };
                let result = live.run(flags.warmup, flags.duration).await?;
                print_problems(scenario, &result.tally);
                ScenarioReport::live(&result, target.memory()?)
            }
        };
        reports.push(report);
    }
    Ok(reports)
}

/// A scenario of independent calls: warm-up, then the measured period with
/// the server's CPU time read around it.
struct Calls<'a> {
    flags: &'a Flags,
    target: &'a Target,
}

impl Calls<'_> {
    async fn run<C: Caller>(
        &self,
        scenario: Scenario,
        caller: impl Fn(usize) -> C,
    ) -> Result<ScenarioReport, Error> {
        let flags = self.flags;
        let run = Loop { workers: flags.concurrency, retries: flags.retries, rate: flags.rate };
        if !flags.warmup.is_zero() {
            run.run(flags.warmup, &caller).await;
        }
        let before = self.target.cpu()?;
        let (tally, elapsed) = run.run(flags.duration, &caller).await;
        let after = self.target.cpu()?;
        print_problems(scenario, &tally);
        let measured = Measured {
            tally: &tally,
            elapsed,
            server_cpu: before.zip(after).map(|(before, after)| after.saturating_sub(before)),
            memory: self.target.memory()?,
            carries_games: matches!(scenario, Scenario::Validate | Scenario::Stream),
        };
        Ok(ScenarioReport::new(scenario.name(), &measured))
    }
}

/// Prints the first failures and wrong answers of a scenario on stderr.
fn print_problems(scenario: Scenario, tally: &Tally) {
    let name = scenario.name();
    if tally.failed > 0 {
        eprintln!("load: {name}: {} calls failed for good:", tally.failed);
        for (failure, n) in &tally.failures {
            eprintln!("  {n} × {failure}");
        }
        let shown: u64 = tally.failures.iter().map(|(_, n)| n).sum();
        if tally.failed > shown {
            eprintln!("  {} more, of other kinds", tally.failed - shown);
        }
    }
    if tally.mismatches > 0 {
        eprintln!("load: {name}: {} answers differ from the rules core's:", tally.mismatches);
        for mismatch in &tally.mismatch_samples {
            eprintln!("  {mismatch}");
        }
    }
}
