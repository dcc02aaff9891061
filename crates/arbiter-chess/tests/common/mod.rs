//! Helpers for the data-driven tests: finding the shared third-party test
//! data, reading its perft files, and spreading work over threads; and for
//! the tests that play random games or compare with shakmaty: start
//! positions, and our FEN read by shakmaty. Its submodules: the games of a
//! PGN file ([`pgn`]) and the games python-chess played in lichess's
//! variants ([`variants`]).
//!
//! Declared in `tests/rules.rs`; the suites use `crate::common::...`. The
//! root package's integration tests include this file too (by path, from
//! their own `common`), so that both read the shared data one way.

pub mod pgn;
pub mod variants;

use std::env;
use std::error::Error;
use std::fmt;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use shakmaty::{CastlingMode, Chess, fen::Fen};

/// What every data-driven test returns, so a test can end early with `Ok`.
pub type TestResult = Result<(), Box<dyn Error>>;

/// Names the directory of third-party vectors; CI always sets it.
pub const DATA_ENV: &str = "ARBITER_TEST_DATA";

/// Start positions for random play: the standard one and a few rich in
/// special moves (Kiwipete, the perft suite's positions 4 and 3, and one with
/// castling on both sides and an en-passant capture to make).
pub const RANDOM_PLAY_STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/pp3ppp/8/3pP3/8/8/PP3PPP/R3K2R w KQkq d6 0 1",
];

/// Total perft nodes a test may spend; CI sets a larger value.
pub const NODES_ENV: &str = "ARBITER_PERFT_NODES";

/// The node budget when `ARBITER_PERFT_NODES` is unset: a few seconds.
pub const DEFAULT_NODE_BUDGET: u64 = 200_000_000;

const SKIP_MESSAGE: &str = "skipped: shared test data not found (set ARBITER_TEST_DATA)";

/// The shared test data directory, or `None` when it is absent and nobody
/// asked for it.
///
/// When `ARBITER_TEST_DATA` is set, the directory must exist: CI sets the
/// variable, and a wrong path there must fail rather than skip silently.
/// Unset, `shared/data` beside the repository (the nearest one above the
/// package) is used if present.
///
/// # Panics
///
/// If `ARBITER_TEST_DATA` is set but does not name a directory.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = env::var_os(DATA_ENV) {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "{DATA_ENV} is set to {dir:?}, which is not a directory; \
             unset it to skip the shared-data tests"
        );
        return Some(dir);
    }
    // The package is the repository's root or one of its `crates/`.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().map(|dir| dir.join("shared/data")).find(|dir| dir.is_dir())
}

/// Like [`data_dir`], but prints the skip notice when there is no data.
pub fn data_dir_or_skip() -> Option<PathBuf> {
    let dir = data_dir();
    if dir.is_none() {
        eprintln!("{SKIP_MESSAGE}");
    }
    dir
}

/// The perft node budget from `ARBITER_PERFT_NODES`, default
/// [`DEFAULT_NODE_BUDGET`].
///
/// # Panics
///
/// If the variable is set but is not a whole number (underscores allowed).
pub fn node_budget() -> u64 {
    match env::var(NODES_ENV) {
        Ok(value) => value.replace('_', "").trim().parse().unwrap_or_else(|err| {
            panic!("{NODES_ENV}={value:?} is not a whole number of nodes: {err}")
        }),
        Err(env::VarError::NotPresent) => DEFAULT_NODE_BUDGET,
        Err(err) => panic!("{NODES_ENV} is not valid: {err}"),
    }
}

/// A data file that could not be read or understood, with its location.
#[derive(Debug)]
pub struct DataError(String);

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for DataError {}

/// Reads a data file given relative to the data directory.
///
/// # Errors
///
/// A [`DataError`] naming the path if the file cannot be read.
pub fn read_data(dir: &Path, relative: &str) -> Result<String, DataError> {
    let path = dir.join(relative);
    fs::read_to_string(&path)
        .map_err(|err| DataError(format!("cannot read {}: {err}", path.display())))
}

/// The non-empty lines of a one-FEN-per-line file, with 1-based line numbers.
pub fn fen_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty())
}

/// One block of a `.perft` file: a position and its expected node counts.
#[derive(Clone, Debug)]
pub struct PerftCase {
    /// The `id` line, as `gentest-1`.
    pub id: String,
    /// The FEN from the `epd` line (clocks may be absent).
    pub epd: String,
    /// `(depth, nodes)` pairs in file order.
    pub counts: Vec<(u32, u64)>,
}

/// Reads the `.perft` format: blocks of `id`, `epd` and `perft <depth>
/// <nodes>` lines, `#` comments, blank lines between blocks.
///
/// # Errors
///
/// A [`DataError`] naming `source` and the line for anything else, and for a
/// block without an `epd` or without `perft` lines.
pub fn parse_perft_file(source: &str, text: &str) -> Result<Vec<PerftCase>, DataError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    let error = |line: usize, what: &str| DataError(format!("{source}:{line}: {what}"));
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match keyword {
            "id" => {
                cases.push(PerftCase { id: rest.to_owned(), epd: String::new(), counts: vec![] })
            }
            "epd" => match cases.last_mut() {
                Some(case) if case.epd.is_empty() => case.epd = rest.to_owned(),
                _ => return Err(error(line_no, "epd line without a preceding id")),
            },
            "perft" => {
                let case = cases
                    .last_mut()
                    .filter(|case| !case.epd.is_empty())
                    .ok_or_else(|| error(line_no, "perft line before the epd line"))?;
                let (depth, nodes) = rest
                    .split_once(' ')
                    .and_then(|(d, n)| Some((d.parse().ok()?, n.trim().parse().ok()?)))
                    .ok_or_else(|| error(line_no, "expected `perft <depth> <nodes>`"))?;
                case.counts.push((depth, nodes));
            }
            _ => return Err(error(line_no, &format!("unknown keyword {keyword:?}"))),
        }
    }
    if let Some(case) = cases.iter().find(|case| case.epd.is_empty() || case.counts.is_empty()) {
        return Err(DataError(format!("{source}: block {:?} lacks epd or perft lines", case.id)));
    }
    Ok(cases)
}

/// Applies `f` to every item on all available cores, keeping input order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = thread::available_parallelism().map_or(1, |n| n.get()).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break done };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| {
                handle.join().unwrap_or_else(|payload| panic::resume_unwind(payload))
            })
            .collect()
    });
    results.sort_unstable_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The position of a FEN we wrote (or a test's own), as shakmaty reads it
/// with standard castling, for comparing our rules with an independent
/// implementation.
///
/// # Panics
///
/// If shakmaty cannot read the FEN or rejects the position, naming the FEN
/// in the latter case.
pub fn shakmaty_position(fen: &str) -> Chess {
    Fen::from_ascii(fen.as_bytes())
        .expect("shakmaty reads our FEN")
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("shakmaty rejects {fen}: {e}"))
}

/// Runs `f`, adding `context` (say, the FEN) to any panic inside it, so a
/// panic deep in the rules core names the input that caused it.
pub fn with_context<R>(context: impl FnOnce() -> String, f: impl FnOnce() -> R) -> R {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_owned());
        panic!("{}: panicked: {message}", context())
    })
}

/// The chess position of a replay's final position (which a chess game's
/// always is).
pub fn chess(position: &arbiter_chess::GamePosition) -> &arbiter_chess::Position {
    match position {
        arbiter_chess::GamePosition::Chess(pos) => pos,
        arbiter_chess::GamePosition::Variant(pos) => panic!("a {} position", pos.variant()),
    }
}
