//! Arbiter in process for Python: `arbiter validate` and `arbiter pgn` as
//! the extension module `arbiter._arbiter`, which the package `arbiter`
//! (`python/arbiter/`) wraps. Every answer is written by the command
//! line's own JSON writers ([`arbiter::answer`]) and the package reads it
//! with `json.loads`, so its dicts equal the command line's output by
//! construction; the module `table` builds `pgn_table`'s Arrow columns.
//! The GIL is released while Rust works, and files are read and checked on
//! `jobs` threads as `arbiter pgn` does ([`arbiter::pgn_files`]). What a
//! game was (`analysis=True`: its opening, phases and time use) is the
//! command line's `--analysis`, asked for per call: a call without it
//! computes none.

mod table;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use arbiter::answer::json::write_game_analysed;
use arbiter::answer::pgn_json;
use arbiter::pgn_files::{self, Check, Games, OnError};
use arbiter_chess::{
    Analysis, ClockRecord, Color, GamePosition, MAX_SECONDS, Notation, ReplayOptions, Rules,
    TimeControl,
};
use arbiter_pgn::{CheckOptions, GameReader, GameReport, RawGame, ReaderOptions, check_game_with};

/// The answer of `arbiter validate` for one game, as its JSON line.
#[pyfunction]
#[pyo3(signature = (
    moves, fen=None, variant=None, chess960=None, notation="auto", strict=false,
    fens=false, legal_moves=true, flagged=None, winnability=false, shredder_fen=false,
    time_control=None, move_times=None, pending_time=None, analysis=false,
    illegal_moves="stop",
))]
#[allow(clippy::too_many_arguments)] // The keyword arguments of `arbiter.validate`.
fn validate_json<'py>(
    py: Python<'py>,
    moves: Vec<String>,
    fen: Option<&str>,
    variant: Option<&str>,
    chess960: Option<u32>,
    notation: &str,
    strict: bool,
    fens: bool,
    legal_moves: bool,
    flagged: Option<&str>,
    winnability: bool,
    shredder_fen: bool,
    time_control: Option<&str>,
    move_times: Option<Vec<f64>>,
    pending_time: Option<f64>,
    analysis: bool,
    illegal_moves: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let rules = variant.map(str::parse::<Rules>).transpose().map_err(value_error)?;
    // The core's one reading of (rules, FEN, number), as on every surface.
    let start = GamePosition::start(rules, fen, chess960).map_err(value_error)?;
    if let Rules::Variant(variant) = start.rules() {
        chess_only(winnability, "winnability", variant.cli_name())?;
        chess_only(shredder_fen, "shredder_fen", variant.cli_name())?;
    }
    let options = ReplayOptions {
        notation: match notation {
            "auto" => Notation::Auto,
            "uci" => Notation::Uci,
            "san" => Notation::San,
            _ => {
                return Err(value_error(format!(
                    "unknown notation {notation:?}: auto, uci or san"
                )));
            }
        },
        strict,
        include_fens: fens,
        skip_legal_moves: !legal_moves,
        plies_from: 0,
        shredder_fen,
        legal_moves_from: None,
        flagged: match flagged {
            None => None,
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            Some(other) => {
                return Err(value_error(format!("unknown side {other:?}: white or black")));
            }
        },
        winnability,
        analysis: Analysis::DEFAULT,
        illegal_moves: illegal_moves.parse().map_err(value_error)?,
    };
    let clock = match time_control {
        Some(tag) => {
            let control: TimeControl = tag
                .parse()
                .map_err(|e| value_error(format!("invalid time control {tag:?}: {e}")))?;
            let times = move_times
                .unwrap_or_default()
                .into_iter()
                .map(|seconds| millis("a move time", seconds))
                .collect::<PyResult<Vec<u64>>>()?;
            let pending =
                pending_time.map_or(Ok(0), |seconds| millis("the pending time", seconds))?;
            Some(ClockRecord::new(control, times, pending, moves.len()).map_err(value_error)?)
        }
        None if move_times.is_some() || pending_time.is_some() => {
            return Err(value_error("move_times and pending_time need a time_control"));
        }
        None => None,
    };
    let mut json = Vec::new();
    py.detach(|| {
        write_game_analysed(&mut json, start, &moves, &options, clock.as_ref(), analysis)
    })?;
    Ok(PyBytes::new(py, &json))
}

/// Refuses `option`, set for the lichess variant `variant`: it is chess's.
fn chess_only(set: bool, option: &str, variant: &str) -> PyResult<()> {
    if set {
        return Err(value_error(format!(
            "{option} is for standard chess and Chess960, not variant {variant:?}"
        )));
    }
    Ok(())
}

/// Seconds as whole milliseconds, rounded to the nearest.
fn millis(what: &str, seconds: f64) -> PyResult<u64> {
    let ms = (seconds * 1000.0).round();
    if !(0.0..=(MAX_SECONDS * 1000) as f64).contains(&ms) {
        return Err(value_error(format!("{what} of {seconds} s is not 0 to {MAX_SECONDS} s")));
    }
    // Within the bound, an f64 holds the integer exactly.
    Ok(ms as u64)
}

fn value_error(reason: impl ToString) -> PyErr {
    PyValueError::new_err(reason.to_string())
}

/// What `arbiter pgn --json` makes of each game: its JSON line without the
/// opening `{"index":N,` (written in order, by [`push_line`]), with what
/// the game was when `analysed` (`arbiter pgn --json --analysis`).
#[derive(Clone, Copy, Debug)]
struct JsonLines {
    analysed: bool,
}

impl Check for JsonLines {
    type Answer = Vec<u8>;

    fn check(&self, raw: RawGame) -> GameReport {
        // The analysis in the check's one pass, as `arbiter pgn` asks it.
        let options = CheckOptions { include_analysis: self.analysed, ..CheckOptions::DEFAULT };
        check_game_with(raw, false, options)
    }

    fn answer(&self, report: &GameReport) -> Vec<u8> {
        let mut json = Vec::new();
        // Writing to a vector does not fail.
        let _ = pgn_json::write_json_fields_analysed(report, self.analysed, &mut json);
        json
    }
}

/// Appends the game numbered `index`, as `arbiter pgn --json` prints it.
fn push_line(out: &mut Vec<u8>, index: u64, fields: &[u8]) {
    // Writing to a vector does not fail.
    let _ = write!(out, "{{\"index\":{index},");
    out.extend_from_slice(fields);
}

/// The bytes of a `str` (as UTF-8) or of a `bytes`.
fn text_of(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        Ok(bytes.as_bytes().to_vec())
    } else if let Ok(text) = data.cast::<PyString>() {
        Ok(text.to_cow()?.into_owned().into_bytes())
    } else {
        Err(value_error(format!(
            "PGN must be str or bytes, not {}",
            data.get_type().name()?.to_cow()?
        )))
    }
}

/// The JSON lines of `arbiter pgn --json` (with `--analysis` when
/// `analysis`) for the games of `data` (PGN text, `str` or `bytes`).
#[pyfunction]
#[pyo3(signature = (data, analysis=false))]
fn check_pgn_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    analysis: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let text = text_of(data)?;
    let check = JsonLines { analysed: analysis };
    let lines = py.detach(|| -> io::Result<Vec<u8>> {
        let mut reader = GameReader::new(&text[..], ReaderOptions::default());
        let (mut out, mut index) = (Vec::new(), 0);
        while let Some(raw) = reader.next_game()? {
            let report = check.check(raw);
            push_line(&mut out, index, &check.answer(&report));
            index += 1;
            if let Some(game) = report.game {
                reader.recycle(game);
            }
        }
        Ok(out)
    })?;
    Ok(PyBytes::new(py, &lines))
}

/// The threads of a run: `jobs`, else every core; 0 is refused.
fn jobs_of(jobs: Option<usize>) -> PyResult<usize> {
    match jobs {
        Some(0) => Err(value_error("jobs must be at least 1")),
        jobs => Ok(pgn_files::jobs(jobs)),
    }
}

/// The games of the file at `path`, to be read with [`pgn_files::run`]:
/// [`FileNotFoundError`](std::io::ErrorKind::NotFound) and the like at
/// once for a file that cannot be opened; the errors met later are kept in
/// the list returned.
fn games_of(path: PathBuf) -> PyResult<(Games, Arc<Mutex<Vec<String>>>)> {
    File::open(&path).map_err(|err| {
        // The same kind (FileNotFoundError, PermissionError, ...), the path named.
        io::Error::new(err.kind(), format!("cannot read {}: {err}", path.display()))
    })?;
    let errors = Arc::new(Mutex::new(Vec::new()));
    let on_error: OnError = {
        let errors = errors.clone();
        Arc::new(move |path, err| {
            if let Ok(mut errors) = errors.lock() {
                errors.push(format!("cannot read {}: {err}", path.display()));
            }
        })
    };
    let games =
        Games::new(vec![path], ReaderOptions::default(), Arc::new(AtomicU64::new(0)), on_error);
    Ok((games, errors))
}

/// An `OSError` for the inputs that could not be read to their end.
fn read_errors(errors: &Mutex<Vec<String>>) -> PyResult<()> {
    match errors.lock().map(|errors| errors.join("; ")) {
        Ok(message) if message.is_empty() => Ok(()),
        Ok(message) => Err(PyOSError::new_err(message)),
        Err(_) => Err(PyOSError::new_err("a reading thread failed")),
    }
}

/// The JSON lines of a file's games (with their analysis when asked for),
/// in batches, checked on a thread of their own (and its `jobs` workers)
/// while Python takes them.
#[pyclass(module = "arbiter._arbiter")]
struct PgnLines {
    batches: Mutex<mpsc::Receiver<Vec<u8>>>,
    run: Mutex<Option<JoinHandle<()>>>,
    errors: Arc<Mutex<Vec<String>>>,
}

/// A batch is sent once it holds this many bytes of JSON lines.
const BATCH_BYTES: usize = 256 << 10;

#[pymethods]
impl PgnLines {
    #[new]
    #[pyo3(signature = (path, jobs=None, analysis=false))]
    fn new(path: PathBuf, jobs: Option<usize>, analysis: bool) -> PyResult<PgnLines> {
        let jobs = jobs_of(jobs)?;
        let (games, errors) = games_of(path)?;
        // A few batches ahead: memory stays bounded when Python is slower.
        let (send, batches) = mpsc::sync_channel::<Vec<u8>>(4);
        let run = std::thread::spawn(move || {
            let (mut batch, mut index) = (Vec::new(), 0);
            let sent = pgn_files::run(games, jobs, &JsonLines { analysed: analysis }, |fields| {
                push_line(&mut batch, index, &fields);
                index += 1;
                if batch.len() >= BATCH_BYTES {
                    // The iterator was dropped: stop reading.
                    send.send(std::mem::take(&mut batch)).map_err(io::Error::other)?;
                }
                Ok(())
            });
            if sent.is_ok() && !batch.is_empty() {
                let _ = send.send(batch);
            }
        });
        Ok(PgnLines { batches: Mutex::new(batches), run: Mutex::new(Some(run)), errors })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch of JSON lines; at the end, an `OSError` if the file
    /// could not be read to its end.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let next = py.detach(|| self.batches.lock().ok()?.recv().ok());
        if let Some(batch) = next {
            return Ok(Some(PyBytes::new(py, &batch)));
        }
        let run = self.run.lock().ok().and_then(|mut run| run.take());
        if let Some(run) = run {
            py.detach(|| run.join())
                .map_err(|_| PyOSError::new_err("the thread reading the file failed"))?;
        }
        read_errors(&self.errors)?;
        Ok(None)
    }
}

/// The package's native half.
#[pymodule]
fn _arbiter(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(validate_json, module)?)?;
    module.add_function(wrap_pyfunction!(check_pgn_json, module)?)?;
    module.add_function(wrap_pyfunction!(table::pgn_table, module)?)?;
    module.add_class::<PgnLines>()?;
    Ok(())
}
