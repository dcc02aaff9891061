//! PGN files (plain, zstd, gzip or bzip2) read game by game and checked on
//! one thread or many, the games' answers handed on in input order: the
//! engine of `arbiter pgn` and of the Python wheel's `check_pgn_file` and
//! `pgn_table`, which differ only in what they make of each game
//! ([`Check`]) and where it goes.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use arbiter_pgn::{
    Chunk, ChunkGames, ChunkReader, Ending, GameReader, GameReport, Joiner, PgnGame, RawGame,
    ReaderOptions, Split,
};

/// What a run makes of each game: the game checked, and its answer.
pub trait Check: Sync {
    /// One game's answer, made on a worker thread.
    type Answer: Send;

    /// The report of a game read.
    fn check(&self, raw: RawGame) -> GameReport;

    /// The answer of a game checked.
    fn answer(&self, report: &GameReport) -> Self::Answer;
}

/// What is done with an input that cannot be read (opened, or read to its
/// end): the run goes on with the next.
pub type OnError = Arc<dyn Fn(&Path, &io::Error) + Send + Sync>;

/// The threads a run checks games on: `requested`, else all cores.
pub fn jobs(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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

/// An input, decompressed.
pub type Input = Box<dyn BufRead + Send>;

/// Opens `path` (`-`: standard input), decompressing what its first bytes
/// say is zstd, gzip or bzip2, counting the bytes read from it in `count`.
///
/// # Errors
///
/// What opening the file, or reading its first bytes, fails with.
pub fn open(path: &Path, count: &Arc<AtomicU64>) -> io::Result<Input> {
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
pub struct Games {
    paths: Vec<PathBuf>,
    next_path: usize,
    current: Option<(PathBuf, GameReader<Input>)>,
    options: ReaderOptions,
    bytes: Arc<AtomicU64>,
    on_error: OnError,
    /// Whether some input could not be read.
    failed: bool,
    /// Whether the games are read for a summary only (see
    /// [`GameReader::for_summary`]).
    summary: bool,
}

impl std::fmt::Debug for Games {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Games").field("paths", &self.paths).field("failed", &self.failed).finish()
    }
}

impl Games {
    /// The games of `paths` (`-`: standard input), read with `options`,
    /// the bytes read counted in `bytes`; `on_error` is told of each input
    /// that cannot be read.
    pub fn new(
        paths: Vec<PathBuf>,
        options: ReaderOptions,
        bytes: Arc<AtomicU64>,
        on_error: OnError,
    ) -> Games {
        Games {
            paths,
            next_path: 0,
            current: None,
            options,
            bytes,
            on_error,
            failed: false,
            summary: false,
        }
    }

    /// These games, read for an output that is a summary of their checks:
    /// no line numbers, comments or tags the checks do not read (see
    /// [`GameReader::for_summary`]).
    pub fn for_summary(mut self) -> Games {
        self.summary = true;
        self
    }

    /// The next game, from this input or the next; `None` once every input
    /// is read.
    pub fn next_game(&mut self) -> Option<RawGame> {
        self.next_with(GameReader::next_game)
    }

    /// Whether some input could not be read.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Hands a game read back to the current input's reader, to read the
    /// next games into its vectors (see [`GameReader::recycle`]).
    pub fn recycle(&mut self, game: PgnGame) {
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
                        (self.on_error)(path, &err);
                        self.failed = true;
                        self.current = None;
                    }
                }
            }
            let path = self.paths.get(self.next_path)?.clone();
            self.next_path += 1;
            match open(&path, &self.bytes) {
                Ok(input) => {
                    let reader = GameReader::new(input, self.options);
                    let reader = if self.summary { reader.for_summary() } else { reader };
                    self.current = Some((path, reader));
                }
                Err(err) => {
                    (self.on_error)(&path, &err);
                    self.failed = true;
                }
            }
        }
    }
}

/// Checks the games of `games` with `check` on `jobs` threads (with 1,
/// reading and checking share this one; see [`run_parallel`] for more),
/// handing their answers to `take` in input order. Returns whether some
/// input could not be read.
///
/// # Errors
///
/// The first error of `take`, which stops the run.
pub fn run<C: Check>(
    mut games: Games,
    jobs: usize,
    check: &C,
    mut take: impl FnMut(C::Answer) -> io::Result<()>,
) -> io::Result<bool> {
    if jobs > 1 {
        return run_parallel(games, jobs, check, take);
    }
    while let Some(raw) = games.next_game() {
        let report = check.check(raw);
        let answer = check.answer(&report);
        // The game handed back to be read into.
        if let Some(game) = report.game {
            games.recycle(game);
        }
        take(answer)?;
    }
    Ok(games.failed)
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
///
/// # Errors
///
/// The first error of `take`, which stops the run.
pub fn run_parallel<C: Check>(
    games: Games,
    jobs: usize,
    check: &C,
    mut take: impl FnMut(C::Answer) -> io::Result<()>,
) -> io::Result<bool> {
    let Games { paths, options, bytes, on_error, .. } = games;
    let in_flight = 4 * jobs;
    let (ticket_send, tickets) = mpsc::sync_channel::<Chunk>(in_flight);
    for _ in 0..in_flight {
        // The channel has room for every ticket.
        let _ = ticket_send.send(Chunk::default());
    }
    let (chunk_send, chunks) = mpsc::sync_channel::<(u64, Chunk)>(jobs);
    let chunks = std::sync::Mutex::new(chunks);
    let (done_send, done) = mpsc::channel::<(u64, Chunk, Vec<C::Answer>, Ending)>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let (mut number, mut failed) = (0u64, false);
            let mut spare = None;
            for path in &paths {
                let input = match open(path, &bytes) {
                    Ok(input) => input,
                    Err(err) => {
                        on_error(path, &err);
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
                            on_error(path, &err);
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
                        // As `run` does, the game then handed back.
                        let report = check.check(raw);
                        let answer = check.answer(&report);
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
        let mut write = |reread: &mut std::collections::VecDeque<RawGame>, own: Vec<C::Answer>| {
            reread
                .drain(..)
                .try_for_each(|raw| take(check.answer(&check.check(raw))))
                .and_then(|()| own.into_iter().try_for_each(&mut take))
        };
        let mut result = Ok(());
        'write: for (number, chunk, answers, ending) in done.iter() {
            waiting.insert(number, (chunk, answers, ending));
            while let Some((chunk, mut answers, ending)) = waiting.remove(&next) {
                next += 1;
                answers.truncate(joiner.join(&chunk, ending, &mut reread));
                if let Err(err) = write(&mut reread, answers) {
                    result = Err(err);
                    break 'write;
                }
                // The chunk is written: another may be read into it.
                let _ = ticket_send.send(chunk);
            }
        }
        if result.is_ok() {
            joiner.finish(&mut reread);
            result = write(&mut reread, Vec::new());
        }
        // On an error, dropping the tickets and the answers' receiver stops
        // the reader at its next ticket and the workers at their next send.
        drop(ticket_send);
        drop(done);
        let failed = reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        result.map(|()| failed)
    })
}
