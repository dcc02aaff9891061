//! `arbiter pgn`: PGN files (plain, zstd, gzip or bzip2) validated game by
//! game, in parallel chunks that keep the input's order, with progress and
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
use crate::config::AnalysisArgs;
use arbiter_chess::Analysis;
use arbiter_pgn::{
    Chunk, ChunkGames, ChunkReader, Ending, GameReader, GameReport, Joiner, PgnGame, RawGame,
    ReaderOptions, Split, check_game_with, write_canonical,
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
struct Answer {
    counts: Counts,
    json: Vec<u8>,
    canonical: Vec<u8>,
}

/// What a run writes of each game, and the budgets of the unwinnability
/// analysis it checks games with.
#[derive(Clone, Copy, Debug)]
struct Mode {
    json: bool,
    canonical: bool,
    analysis: Analysis,
}

impl Mode {
    fn check(&self, raw: RawGame) -> GameReport {
        // Only the canonical export writes the mainline's moves.
        check_game_with(raw, self.canonical, self.analysis)
    }
}

fn answer(raw: RawGame, mode: Mode) -> Answer {
    answer_of(&mode.check(raw), mode)
}

/// The output of a game checked.
fn answer_of(report: &GameReport, mode: Mode) -> Answer {
    let mut counts = Counts::default();
    counts.add(report);
    let mut json = Vec::new();
    if mode.json {
        // Writing to a vector does not fail.
        let _ = crate::answer::pgn_json::write_json_fields(report, &mut json);
    }
    let mut canonical = Vec::new();
    if mode.canonical
        && let (Some(game), Ok(verdict)) = (&report.game, &report.verdict)
    {
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
}

impl Games {
    fn next_game(&mut self) -> Option<RawGame> {
        self.next_with(GameReader::next_game)
    }

    /// Hands a game read back to the current input's reader, to read the
    /// next games into its vectors (see [`GameReader::recycle`]).
    fn recycle(&mut self, game: PgnGame) {
        if let Some((_, reader)) = &mut self.current {
            reader.recycle(game);
        }
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
                Ok(input) => self.current = Some((path, GameReader::new(input, self.options))),
                Err(err) => {
                    eprintln!("arbiter: cannot read {}: {err}", path.display());
                    self.failed = true;
                }
            }
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
    /// Writes `answer` as the game numbered `index`.
    fn write(&mut self, answer: &Answer, index: u64) -> io::Result<()> {
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
    let mut games = Games {
        paths,
        next_path: 0,
        current: None,
        options: ReaderOptions { max_game_bytes: args.max_game_bytes },
        bytes: bytes.clone(),
        failed: false,
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |jobs| jobs as usize,
    );
    let started = Instant::now();
    let mut progress = Progress::new(args.quiet, total_bytes);
    let mode = Mode {
        json: args.json,
        canonical: args.canonical.is_some(),
        analysis: args.analysis.analysis(),
    };
    let mut counts = Counts::default();
    let mut take = |answer: &Answer, counts: &mut Counts, progress: &mut Progress| {
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
        outputs.write(answer, index)
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
    } else if jobs <= 1 {
        // One thread in all: read, validate, write.
        let mut result = Ok(());
        while let Some(raw) = games.next_game() {
            // As `answer` does, the game then handed back to be read into.
            let report = mode.check(raw);
            let answer = answer_of(&report, mode);
            if let Some(game) = report.game {
                games.recycle(game);
            }
            if let Err(err) = take(&answer, &mut counts, &mut progress) {
                result = Err(err);
                break;
            }
        }
        result.map(|()| games.failed)
    } else {
        run_parallel(games, jobs, |answer| take(answer, &mut counts, &mut progress), mode)
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

/// Reads the inputs in chunks on a thread of their own while `jobs` threads
/// cut and validate them, each a whole chunk at a time (see
/// [`arbiter_pgn::ChunkReader`]); answers are handed to `take` in input
/// order. Returns whether some input could not be read.
///
/// The reading thread only looks for likely game starts, by a byte search:
/// the cutting is spread over the workers with the rest. Where a chunk's end
/// proves no game boundary, this thread cuts the stream itself from that
/// chunk's last game until a chunk starts at one again ([`Joiner`]).
///
/// A pipeline without a barrier: a worker takes the next chunk as soon as it
/// is done with one (a pool working on one chunk at a time waits at every
/// chunk's end for its slowest game, and on a busy machine for a descheduled
/// thread). Chunks out of order wait for their turn; tickets (the chunks'
/// buffers, refilled once written) bound the chunks in flight, and so the
/// memory.
fn run_parallel(
    games: Games,
    jobs: usize,
    mut take: impl FnMut(&Answer) -> io::Result<()>,
    mode: Mode,
) -> io::Result<bool> {
    let Games { paths, options, bytes, .. } = games;
    let in_flight = 4 * jobs;
    let (ticket_send, tickets) = mpsc::sync_channel::<Chunk>(in_flight);
    for _ in 0..in_flight {
        // The channel has room for every ticket.
        let _ = ticket_send.send(Chunk::default());
    }
    let (chunk_send, chunks) = mpsc::sync_channel::<(u64, Chunk)>(jobs);
    let chunks = std::sync::Mutex::new(chunks);
    let (done_send, done) = mpsc::channel::<(u64, Chunk, Vec<Answer>, Ending)>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let (mut number, mut failed) = (0u64, false);
            let mut spare = None;
            for path in &paths {
                let input = match open(path, &bytes) {
                    Ok(input) => input,
                    Err(err) => {
                        eprintln!("arbiter: cannot read {}: {err}", path.display());
                        failed = true;
                        continue;
                    }
                };
                let mut reader = ChunkReader::new(input, options);
                loop {
                    // A ticket per chunk: none comes back once the writer stops.
                    let Some(mut chunk) = spare.take().or_else(|| tickets.recv().ok()) else {
                        return failed;
                    };
                    match reader.next_into(&mut chunk) {
                        Ok(true) => {}
                        Ok(false) => {
                            spare = Some(chunk);
                            break;
                        }
                        Err(err) => {
                            eprintln!("arbiter: cannot read {}: {err}", path.display());
                            failed = true;
                        }
                    }
                    let last = matches!(chunk.split, Split::End | Split::Broken);
                    if chunk_send.send((number, chunk)).is_err() {
                        return failed;
                    }
                    number += 1;
                    if last {
                        break;
                    }
                }
            }
            failed
        });
        for _ in 0..jobs {
            let done_send = done_send.clone();
            let chunks = &chunks;
            scope.spawn(move || {
                loop {
                    // The lock is held only to take a chunk.
                    let next = chunks.lock().map_or(None, |receiver| receiver.recv().ok());
                    let Some((number, chunk)) = next else { return };
                    let mut read = ChunkGames::new(&chunk, options);
                    let answers = std::iter::from_fn(|| {
                        let raw = read.next_game()?;
                        // As `answer` does, the game then handed back.
                        let report = mode.check(raw);
                        let answer = answer_of(&report, mode);
                        if let Some(game) = report.game {
                            read.recycle(game);
                        }
                        Some(answer)
                    })
                    .collect();
                    let ending = read.ending();
                    // Once the writer has stopped, chunks are still taken
                    // (and dropped) so that the reader is never stuck on a
                    // full channel; it stops when its tickets run out.
                    let _ = done_send.send((number, chunk, answers, ending));
                }
            });
        }
        drop(done_send);
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0u64;
        let mut joiner = Joiner::new(options);
        let mut reread = std::collections::VecDeque::new();
        let mut write = |reread: &mut std::collections::VecDeque<RawGame>, own: &[Answer]| {
            reread
                .drain(..)
                .try_for_each(|raw| take(&answer(raw, mode)))
                .and_then(|()| own.iter().try_for_each(&mut take))
        };
        let mut result = Ok(());
        'write: for (number, chunk, answers, ending) in done.iter() {
            waiting.insert(number, (chunk, answers, ending));
            while let Some((chunk, answers, ending)) = waiting.remove(&next) {
                next += 1;
                let keep = joiner.join(&chunk, ending, &mut reread).min(answers.len());
                if let Err(err) = write(&mut reread, &answers[..keep]) {
                    result = Err(err);
                    break 'write;
                }
                // The chunk is written: another may be read into it.
                let _ = ticket_send.send(chunk);
            }
        }
        if result.is_ok() {
            joiner.finish(&mut reread);
            result = write(&mut reread, &[]);
        }
        // On an error, dropping the tickets and the answers' receiver stops
        // the reader at its next ticket and the workers at their next send.
        drop(ticket_send);
        drop(done);
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
                if send.blocking_send(remote::plan(raw, mode.analysis)).is_err() {
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
        let mut result = Ok(false);
        while let Some(report) = reports.next().await {
            match report {
                Ok(report) => {
                    let answer = answer_of(&report, mode);
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
