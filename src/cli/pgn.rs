//! `arbiter pgn`: PGN files (plain, zstd, gzip or bzip2) validated game by
//! game, in parallel chunks that keep the input's order, with progress and
//! a summary on standard error and, on request, a JSON line per game and the
//! canonical PGN of every readable game.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::remote;
use crate::config::{AnalysisArgs, ClockArgs};
use crate::pgn_files::{self, Check, Games};
use arbiter_pgn::{
    CheckOptions, GameReport, RawGame, ReaderOptions, check_game_for_counts, check_game_with,
    write_canonical,
};

/// Arguments of `arbiter pgn`.
#[derive(Debug, clap::Args)]
pub struct PgnArgs {
    /// Threads validating games (default: all cores). With 1, reading and
    /// validation share one thread.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Print one JSON object per game on standard output, in input order.
    #[arg(long)]
    pub json: bool,
    /// With --json: say what each game was (`"analysis"`): its opening,
    /// its phases and each side's time use from `[%emt]` or `[%clk]`.
    #[arg(long = "analysis", requires = "json")]
    pub what_it_was: bool,
    /// Write the canonical PGN of every readable game to OUT (`-`: standard
    /// output).
    #[arg(long, value_name = "OUT")]
    pub canonical: Option<PathBuf>,
    /// No progress on standard error (the summary is still printed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Largest game read, in bytes; a larger one is reported and skipped.
    #[arg(long, default_value_t = ReaderOptions::default().max_game_bytes, value_name = "BYTES")]
    pub max_game_bytes: usize,
    /// Send the games' rules work to a running Arbiter at HOST:PORT (one
    /// replica, or a Kubernetes Service in front of many) over ValidateGames
    /// streams, instead of checking them here; the output is the same when
    /// --unwinnable-nodes and --unwinnable-ply-nodes are the server's.
    #[arg(long, value_name = "HOST:PORT")]
    pub remote: Option<String>,
    /// With --remote: streams open at once, each on a connection of its own.
    #[arg(long, default_value_t = 4, requires = "remote",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// With --remote: PEM file of the certificates that sign the server's;
    /// connects over TLS.
    #[arg(long, value_name = "FILE", requires = "remote")]
    pub tls_ca: Option<PathBuf>,
    /// With --tls-ca: PEM certificate chain presented to the server (mutual
    /// TLS), with --tls-key.
    #[arg(long, value_name = "FILE", requires_all = ["tls_ca", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// With --tls-cert: its PEM private key.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// With --tls-ca: the name the server's certificate must carry
    /// (default: the host of --remote).
    #[arg(long, value_name = "NAME", requires = "tls_ca")]
    pub tls_domain: Option<String>,
    // The analysis's budgets for the games checked here (with --remote,
    // those the server refuses): clap shows no doc comment of a flattened
    // field, so --remote's help says to match the server's.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// PGN files, plain or compressed (.zst, .gz, .bz2, found by content);
    /// none or `-`: standard input.
    pub files: Vec<PathBuf>,
}

/// What one game came to, counted in the summary.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    games: u64,
    valid: u64,
    illegal: u64,
    inconsistent: u64,
    variation_errors: u64,
    unreadable: u64,
}

impl Counts {
    fn add(&mut self, report: &GameReport) {
        self.games += 1;
        match &report.verdict {
            Ok(verdict) => {
                self.valid += u64::from(verdict.is_valid());
                self.illegal += u64::from(verdict.illegal_move.is_some());
                self.inconsistent += u64::from(!verdict.result_consistent);
                self.variation_errors += u64::from(!verdict.variation_errors.is_empty());
            }
            Err(_) => self.unreadable += 1,
        }
    }

    fn invalid(&self) -> u64 {
        self.games - self.valid
    }
}

/// One game's output: its counts and the bytes for each output (the JSON
/// line without its opening `{"index":N,`: games are numbered as they are
/// written, in order).
struct GameOutput {
    counts: Counts,
    json: Vec<u8>,
    canonical: Vec<u8>,
}

/// What a run writes of each game, and how it checks them.
#[derive(Clone, Copy, Debug)]
struct Mode {
    json: bool,
    /// With `json`: each game's analysis.
    analysed: bool,
    canonical: bool,
    checking: CheckOptions,
}

impl Check for Mode {
    type Answer = GameOutput;

    fn check(&self, raw: RawGame) -> GameReport {
        if !self.json && !self.canonical {
            // Only counted: a flag fall is proven only where that counts.
            return check_game_for_counts(raw, self.checking);
        }
        // Only the canonical export writes the mainline's moves.
        check_game_with(raw, self.canonical, self.checking)
    }

    fn answer(&self, report: &GameReport) -> GameOutput {
        answer_of(report, *self)
    }
}

/// The output of a game checked.
fn answer_of(report: &GameReport, mode: Mode) -> GameOutput {
    let mut counts = Counts::default();
    counts.add(report);
    let mut json = Vec::new();
    if mode.json {
        // Writing to a vector does not fail.
        let _ =
            crate::answer::pgn_json::write_json_fields_analysed(report, mode.analysed, &mut json);
    }
    let mut canonical = Vec::new();
    if mode.canonical
        && let (Some(game), Ok(verdict)) = (&report.game, &report.verdict)
    {
        write_canonical(game, verdict, &mut canonical);
    }
    GameOutput { counts, json, canonical }
}

/// Progress on standard error: a bar on a terminal, a line every few
/// seconds otherwise, nothing when quiet.
enum Progress {
    Quiet,
    Bar(ProgressBar),
    Lines { last: Instant },
}

impl Progress {
    fn new(quiet: bool, total_bytes: Option<u64>) -> Progress {
        if quiet {
            return Progress::Quiet;
        }
        if !io::stderr().is_terminal() {
            return Progress::Lines { last: Instant::now() };
        }
        let bar = match total_bytes {
            Some(total) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = if total_bytes.is_some() {
            "{bar:30} {bytes}/{total_bytes} {msg} ({eta} left)"
        } else {
            "{spinner} {bytes} {msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress::Bar(bar)
    }

    fn update(&mut self, bytes: u64, counts: &Counts, started: Instant) {
        let rate = counts.games as f64 / started.elapsed().as_secs_f64().max(1e-9);
        match self {
            Progress::Quiet => {}
            Progress::Bar(bar) => {
                bar.set_position(bytes);
                bar.set_message(format!(
                    "{} games, {rate:.0} games/s, {} invalid",
                    counts.games,
                    counts.invalid()
                ));
            }
            Progress::Lines { last } => {
                if last.elapsed() >= Duration::from_secs(5) {
                    *last = Instant::now();
                    eprintln!(
                        "arbiter pgn: {} games, {rate:.0} games/s, {} invalid, {:.1} MB read",
                        counts.games,
                        counts.invalid(),
                        bytes as f64 / 1e6
                    );
                }
            }
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// Where the outputs go.
struct Outputs {
    json: Option<Box<dyn Write>>,
    canonical: Option<Box<dyn Write>>,
}

impl Outputs {
    /// Writes `answer` as the game numbered `index`.
    fn write(&mut self, answer: &GameOutput, index: u64) -> io::Result<()> {
        if let Some(out) = &mut self.json {
            write!(out, "{{\"index\":{index},")?;
            out.write_all(&answer.json)?;
        }
        if let Some(out) = &mut self.canonical {
            out.write_all(&answer.canonical)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        for out in [&mut self.json, &mut self.canonical].into_iter().flatten() {
            out.flush()?;
        }
        Ok(())
    }
}

/// Runs `arbiter pgn`.
pub fn run(args: &PgnArgs) -> ExitCode {
    let mut paths = args.files.clone();
    if paths.is_empty() {
        paths.push(PathBuf::from("-"));
    }
    let total_bytes =
        paths
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" { None } else { std::fs::metadata(p).ok().map(|m| m.len()) }
            })
            .sum::<Option<u64>>();
    let canonical: Option<Box<dyn Write>> = match &args.canonical {
        None => None,
        Some(path) if path.as_os_str() == "-" => Some(Box::new(BufWriter::new(io::stdout()))),
        Some(path) => match File::create(path) {
            Ok(file) => Some(Box::new(BufWriter::with_capacity(1 << 16, file))),
            Err(err) => {
                eprintln!("arbiter: cannot write {}: {err}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    let json: Option<Box<dyn Write>> = args
        .json
        .then(|| Box::new(BufWriter::with_capacity(1 << 16, io::stdout())) as Box<dyn Write>);
    let mut outputs = Outputs { json, canonical };
    let bytes = Arc::new(AtomicU64::new(0));
    let games = Games::new(
        paths,
        ReaderOptions { max_game_bytes: args.max_game_bytes },
        bytes.clone(),
        Arc::new(|path, err| eprintln!("arbiter: cannot read {}: {err}", path.display())),
    );
    // A summary prints no game's lines, comments or tags but those the
    // checks read: they are not kept. (A server is sent whole games.)
    let summary = !args.json && args.canonical.is_none() && args.remote.is_none();
    let games = if summary { games.for_summary() } else { games };
    let jobs = pgn_files::jobs(args.jobs.map(|jobs| jobs as usize));
    let started = Instant::now();
    let mut progress = Progress::new(args.quiet, total_bytes);
    let mode = Mode {
        json: args.json,
        analysed: args.what_it_was,
        canonical: args.canonical.is_some(),
        checking: CheckOptions {
            analysis: args.analysis.analysis(),
            clock_tolerance_ms: args.clock.tolerance_ms(),
            // Only the JSON lines carry the clock, and the analysis.
            read_clocks: args.json,
            include_analysis: args.json && args.what_it_was,
        },
    };
    let mut counts = Counts::default();
    let mut take = |answer: GameOutput, counts: &mut Counts, progress: &mut Progress| {
        let index = counts.games;
        let Counts { games, valid, illegal, inconsistent, variation_errors, unreadable } =
            answer.counts;
        counts.games += games;
        counts.valid += valid;
        counts.illegal += illegal;
        counts.inconsistent += inconsistent;
        counts.variation_errors += variation_errors;
        counts.unreadable += unreadable;
        if counts.games.is_multiple_of(1024) {
            progress.update(bytes.load(Ordering::Relaxed), counts, started);
        }
        outputs.write(&answer, index)
    };
    let written = if let Some(addr) = &args.remote {
        let remote = remote::Remote {
            addr: addr.clone(),
            concurrency: args.concurrency as usize,
            tls_ca: args.tls_ca.clone(),
            tls_identity: args.tls_cert.clone().zip(args.tls_key.clone()),
            tls_domain: args.tls_domain.clone(),
        };
        run_remote(games, &remote, |answer| take(answer, &mut counts, &mut progress), mode)
    } else {
        pgn_files::run(games, jobs, &mode, |answer| take(answer, &mut counts, &mut progress))
    };
    progress.finish();
    let written = written.and_then(|failed| outputs.flush().map(|()| failed));
    let failed = match written {
        Ok(failed) => failed,
        Err(err) => {
            eprintln!("arbiter: cannot write the output: {err}");
            return ExitCode::from(2);
        }
    };
    let elapsed = started.elapsed().as_secs_f64();
    let Counts { games, valid, illegal, inconsistent, variation_errors, unreadable } = counts;
    eprintln!(
        "arbiter pgn: {valid} valid, {illegal} with an illegal move, {inconsistent} with an \
         inconsistent result, {variation_errors} with variation errors, {unreadable} unreadable"
    );
    eprintln!(
        "arbiter pgn: {games} games in {elapsed:.2} s ({:.0} games/s)",
        games as f64 / elapsed.max(1e-9)
    );
    if failed {
        ExitCode::from(2)
    } else if counts.invalid() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads and plans games on a thread of their own while `remote` checks
/// them; answers are handed to `take` in input order. Returns whether some
/// input could not be read or the server could not check every game.
fn run_remote(
    mut games: Games,
    remote: &remote::Remote,
    mut take: impl FnMut(GameOutput) -> io::Result<()>,
    mode: Mode,
) -> io::Result<bool> {
    use futures_util::StreamExt;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let pool = match remote::Pool::start(remote) {
            Ok(pool) => pool,
            Err(err) => {
                eprintln!("arbiter: {err}");
                return Ok(true);
            }
        };
        let (send, receive) = tokio::sync::mpsc::channel(1024);
        let reader = std::thread::spawn(move || {
            while let Some(raw) = games.next_game() {
                if send.blocking_send(remote::plan(raw, mode.checking)).is_err() {
                    break;
                }
            }
            games.failed()
        });
        // Games being checked at once, answers kept back for the order.
        let window = remote.concurrency * 32;
        let reports = remote::receiver_stream(receive)
            .map(|planned| {
                let pool = &pool;
                async move {
                    match planned {
                        Ok(job) => pool.check(job).await,
                        Err(report) => Ok(*report),
                    }
                }
            })
            .buffered(window);
        let mut reports = Box::pin(reports);
        let mut result = Ok(false);
        while let Some(report) = reports.next().await {
            match report {
                Ok(report) => {
                    if let Err(err) = take(answer_of(&report, mode)) {
                        result = Err(err);
                        break;
                    }
                }
                Err(status) => {
                    let code = crate::status::code_name(status.code());
                    eprintln!("arbiter: {}: {code}: {}", remote.addr, status.message());
                    result = Ok(true);
                    break;
                }
            }
        }
        // Dropping the stream stops the reader at its next send.
        drop(reports);
        pool.close().await;
        let failed = reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        result.map(|remote_failed| remote_failed || failed)
    })
}
