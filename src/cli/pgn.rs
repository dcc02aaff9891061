//! `arbiter pgn`: PGN files (plain, zstd, gzip or bzip2) validated game by
//! game, in parallel batches that keep the input's order, with progress and
//! a summary on standard error and, on request, a JSON line per game and the
//! canonical PGN of every readable game.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::remote;
use crate::pgn::{
    GameReader, GameReport, RawGame, ReaderOptions, TextRange, check_game_with, json,
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
    /// streams, instead of checking them here; the output is the same.
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
    /// PGN files, plain or compressed (.zst, .gz, .bz2, found by content);
    /// none or `-`: standard input.
    pub files: Vec<PathBuf>,
}

/// Games handed to the workers at once, and the most bytes in a batch.
const BATCH_GAMES: usize = 256;
const BATCH_BYTES: usize = 4 << 20;

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

/// One game's output: its counts and the bytes for each output.
struct Answer {
    counts: Counts,
    json: Vec<u8>,
    canonical: Vec<u8>,
}

fn answer(raw: RawGame, index: u64, json_out: bool, canonical_out: bool) -> Answer {
    // Only the canonical export writes the mainline's moves.
    answer_of(check_game_with(raw, canonical_out), index, json_out, canonical_out)
}

/// The output of a game checked, numbered `index` across the inputs.
fn answer_of(mut report: GameReport, index: u64, json_out: bool, canonical_out: bool) -> Answer {
    report.index = index as usize;
    let mut counts = Counts::default();
    counts.add(&report);
    let mut json = Vec::new();
    if json_out {
        // Writing to a vector does not fail.
        let _ = json::write_json(&report, &mut json);
    }
    let mut canonical = Vec::new();
    if canonical_out && let (Some(game), Ok(verdict)) = (&report.game, &report.verdict) {
        write_canonical(game, verdict, &mut canonical);
    }
    Answer { counts, json, canonical }
}

/// A reader that counts the bytes read through it, for progress.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

type Input = Box<dyn BufRead + Send>;

/// Opens `path` (`-`: standard input), decompressing what its first bytes
/// say is zstd, gzip or bzip2.
fn open(path: &Path, count: &Arc<AtomicU64>) -> io::Result<Input> {
    let raw: Box<dyn Read + Send> =
        if path.as_os_str() == "-" { Box::new(io::stdin()) } else { Box::new(File::open(path)?) };
    let mut input =
        BufReader::with_capacity(1 << 16, Counting { inner: raw, count: count.clone() });
    let head = input.fill_buf()?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    Ok(if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || (head.is_empty() && extension == "zst") {
        let mut decoder = zstd::Decoder::with_buffer(input)?;
        // lichess's archives are written with long-distance matching.
        decoder.window_log_max(31)?;
        Box::new(BufReader::with_capacity(1 << 16, decoder))
    } else if head.starts_with(&[0x1f, 0x8b]) || extension == "gz" {
        Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(input)))
    } else if head.starts_with(b"BZh") || extension == "bz2" {
        Box::new(BufReader::with_capacity(1 << 16, bzip2::bufread::MultiBzDecoder::new(input)))
    } else {
        Box::new(input)
    })
}

/// Reads the inputs in turn, game by game; a file that cannot be read is
/// reported and the next one read.
struct Games {
    paths: Vec<PathBuf>,
    next_path: usize,
    current: Option<(PathBuf, GameReader<Input>)>,
    options: ReaderOptions,
    bytes: Arc<AtomicU64>,
    /// Whether some input could not be read.
    failed: bool,
    /// Whether the games are only cut (see [`GameReader::cut_only`]), to be
    /// read where they are checked.
    cut_only: bool,
}

/// Games cut on the reader thread, their texts one after another in one
/// buffer: a worker copies a game's text into memory of its own, so that
/// what a worker allocates it also frees (the allocator's locks cost more
/// than the copy). A batch goes back to the reader once written, and is
/// filled again: its buffer is allocated once for the whole run.
#[derive(Default)]
struct Batch {
    text: Vec<u8>,
    /// Each game's first line and where its text is in `text`, or the
    /// size of a game over the limit.
    games: Vec<(usize, TextRange)>,
}

impl Batch {
    /// The `i`-th game of the batch, numbered `index`.
    fn game(&self, i: usize, index: u64) -> RawGame {
        let (line, text) = &self.games[i];
        let text = text.clone().map(|range| self.text[range].to_vec());
        RawGame::new(index as usize, *line, text)
    }
}

impl Games {
    fn next_game(&mut self) -> Option<RawGame> {
        self.next_with(GameReader::next_game)
    }

    /// What `read` takes from the current input, going on to the next
    /// input at the end of one; `None` once every input is read.
    fn next_with<T>(
        &mut self,
        mut read: impl FnMut(&mut GameReader<Input>) -> io::Result<Option<T>>,
    ) -> Option<T> {
        loop {
            if let Some((path, reader)) = &mut self.current {
                match read(reader) {
                    Ok(Some(game)) => return Some(game),
                    Ok(None) => self.current = None,
                    Err(err) => {
                        eprintln!("arbiter: cannot read {}: {err}", path.display());
                        self.failed = true;
                        self.current = None;
                    }
                }
            }
            let path = self.paths.get(self.next_path)?.clone();
            self.next_path += 1;
            match open(&path, &self.bytes) {
                Ok(input) => {
                    let reader = if self.cut_only {
                        GameReader::cut_only(input, self.options)
                    } else {
                        GameReader::new(input, self.options)
                    };
                    self.current = Some((path, reader));
                }
                Err(err) => {
                    eprintln!("arbiter: cannot read {}: {err}", path.display());
                    self.failed = true;
                }
            }
        }
    }

    /// Fills `batch` with the next games: up to [`BATCH_GAMES`] games or
    /// [`BATCH_BYTES`].
    fn fill_batch(&mut self, batch: &mut Batch) {
        batch.text.clear();
        batch.games.clear();
        while batch.games.len() < BATCH_GAMES && batch.text.len() < BATCH_BYTES {
            let text = &mut batch.text;
            let Some(game) = self.next_with(|reader| reader.next_game_into(text)) else { break };
            batch.games.push(game);
        }
    }
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
    fn write(&mut self, answer: &Answer) -> io::Result<()> {
        if let Some(out) = &mut self.json {
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
    let mut games = Games {
        paths,
        next_path: 0,
        current: None,
        options: ReaderOptions { max_game_bytes: args.max_game_bytes },
        bytes: bytes.clone(),
        failed: false,
        cut_only: false,
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |jobs| jobs as usize,
    );
    let started = Instant::now();
    let mut progress = Progress::new(args.quiet, total_bytes);
    let (json_out, canonical_out) = (args.json, args.canonical.is_some());
    let mut counts = Counts::default();
    let mut take = |answer: &Answer, counts: &mut Counts, progress: &mut Progress| {
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
        outputs.write(answer)
    };
    let written = if let Some(addr) = &args.remote {
        let remote = remote::Remote {
            addr: addr.clone(),
            concurrency: args.concurrency as usize,
            tls_ca: args.tls_ca.clone(),
            tls_identity: args.tls_cert.clone().zip(args.tls_key.clone()),
            tls_domain: args.tls_domain.clone(),
        };
        run_remote(
            games,
            &remote,
            |answer| take(answer, &mut counts, &mut progress),
            json_out,
            canonical_out,
        )
    } else if jobs <= 1 {
        // One thread in all: read, validate, write.
        let mut result = Ok(());
        while let Some(raw) = games.next_game() {
            let answer = answer(raw, counts.games, json_out, canonical_out);
            if let Err(err) = take(&answer, &mut counts, &mut progress) {
                result = Err(err);
                break;
            }
        }
        result.map(|()| games.failed)
    } else {
        run_parallel(
            games,
            jobs,
            |answer| take(answer, &mut counts, &mut progress),
            json_out,
            canonical_out,
        )
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

/// Reads batches on a thread of their own while `jobs` threads validate
/// them, each a whole batch at a time; answers are handed to `take` in
/// input order. Returns whether some input could not be read.
///
/// A pipeline without a barrier: a worker takes the next batch as soon as
/// it is done with one (a pool working on one batch at a time waits at
/// every batch's end for its slowest game, and on a busy machine for a
/// descheduled thread). Batches out of order wait for their turn; tickets
/// bound the batches in flight, and so the memory.
fn run_parallel(
    mut games: Games,
    jobs: usize,
    mut take: impl FnMut(&Answer) -> io::Result<()>,
    json_out: bool,
    canonical_out: bool,
) -> io::Result<bool> {
    let in_flight = 4 * jobs;
    // The tickets are the batches themselves, empty, to be filled again.
    let (ticket_send, tickets) = mpsc::sync_channel::<Batch>(in_flight);
    for _ in 0..in_flight {
        // The channel has room for every ticket.
        let _ = ticket_send.send(Batch::default());
    }
    let (batch_send, batches) = mpsc::sync_channel::<(u64, u64, Batch)>(jobs);
    let batches = std::sync::Mutex::new(batches);
    let (answer_send, answers) = mpsc::channel::<(u64, Vec<Answer>, Batch)>();
    games.cut_only = true;
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let (mut number, mut first) = (0u64, 0u64);
            // A ticket per batch: none comes back once the writer stops.
            while let Ok(mut batch) = tickets.recv() {
                games.fill_batch(&mut batch);
                let count = batch.games.len() as u64;
                if count == 0 || batch_send.send((number, first, batch)).is_err() {
                    break;
                }
                number += 1;
                first += count;
            }
            games.failed
        });
        for _ in 0..jobs {
            let answer_send = answer_send.clone();
            let batches = &batches;
            scope.spawn(move || {
                loop {
                    // The lock is held only to take a batch.
                    let next = batches.lock().map_or(None, |receiver| receiver.recv().ok());
                    let Some((number, first, batch)) = next else { return };
                    let answers = (0..batch.games.len())
                        .map(|i| {
                            let index = first + i as u64;
                            answer(batch.game(i, index), index, json_out, canonical_out)
                        })
                        .collect();
                    // Once the writer has stopped, batches are still taken
                    // (and dropped) so that the reader is never stuck on a
                    // full channel; it stops when its tickets run out.
                    let _ = answer_send.send((number, answers, batch));
                }
            });
        }
        drop(answer_send);
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0u64;
        let mut result = Ok(());
        'write: for (number, answers, batch) in answers.iter() {
            waiting.insert(number, (answers, batch));
            while let Some((answers, batch)) = waiting.remove(&next) {
                next += 1;
                if let Err(err) = answers.iter().try_for_each(&mut take) {
                    result = Err(err);
                    break 'write;
                }
                // The batch is written: another may be read into it.
                let _ = ticket_send.send(batch);
            }
        }
        // On an error, dropping the tickets and the answers' receiver stops
        // the reader at its next ticket and the workers at their next send.
        drop(ticket_send);
        drop(answers);
        let failed = reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        result.map(|()| failed)
    })
}

/// Reads and plans games on a thread of their own while `remote` checks
/// them; answers are handed to `take` in input order. Returns whether some
/// input could not be read or the server could not check every game.
fn run_remote(
    mut games: Games,
    remote: &remote::Remote,
    mut take: impl FnMut(&Answer) -> io::Result<()>,
    json_out: bool,
    canonical_out: bool,
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
                if send.blocking_send(remote::plan(raw)).is_err() {
                    break;
                }
            }
            games.failed
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
        let mut index = 0;
        let mut result = Ok(false);
        while let Some(report) = reports.next().await {
            match report {
                Ok(report) => {
                    let answer = answer_of(report, index, json_out, canonical_out);
                    index += 1;
                    if let Err(err) = take(&answer) {
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
