//! `pgn_table`: a file's games as Arrow columns, one row per game, built
//! in Rust and handed to pyarrow through the Arrow C data interface (no
//! Python object per row). Each value is the one `arbiter pgn --json`
//! writes for the game, by the same names of the contract
//! ([`arbiter::proto`]). With `analysis=True` the table has the columns of
//! what each game was too ([`analysis`]); without, nothing of it is
//! computed and the clock record is left unread.

mod analysis;

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, to_ffi};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{ArrowError, Field, Schema};
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use arbiter::pgn_files::{self, Check};
use arbiter::proto;
use arbiter_pgn::{CheckOptions, GameReport, RawGame, check_game_with, game_analysis};

use analysis::AnalysisColumns;

/// The tags a row carries, by their PGN names, as its columns name them.
const TAGS: [(&str, &str); 5] = [
    ("White", "white"),
    ("Black", "black"),
    ("Result", "result"),
    ("TimeControl", "time_control"),
    ("Site", "site"),
];

/// The rows of a batch: small enough for 32-bit string offsets.
const BATCH_ROWS: usize = 1 << 16;

/// One game's row (its `index` is its place in the file).
#[derive(Debug, Default)]
struct Row {
    line: u64,
    plies: Option<u32>,
    outcome_result: Option<&'static str>,
    termination: Option<&'static str>,
    result_tag: Option<String>,
    result_consistent: Option<bool>,
    final_fen: Option<String>,
    illegal_move_index: Option<u32>,
    illegal_move: Option<String>,
    illegal_reason: Option<&'static str>,
    variation_errors: Option<u32>,
    error_reason: Option<&'static str>,
    error: Option<String>,
    tags: [Option<String>; TAGS.len()],
    /// What the game was, when asked for and the game has a verdict.
    analysis: Option<proto::GameAnalysis>,
}

/// What `pgn_table` makes of each game: with `analysed`, what it was too.
#[derive(Clone, Copy, Debug)]
struct Rows {
    analysed: bool,
}

impl Check for Rows {
    type Answer = Row;

    fn check(&self, raw: RawGame) -> GameReport {
        // The clock record is read only for the analysis's time use (the
        // table has no clock column), and the analysis made in the check's
        // one pass.
        let options = CheckOptions {
            read_clocks: self.analysed,
            include_analysis: self.analysed,
            ..CheckOptions::DEFAULT
        };
        check_game_with(raw, false, options)
    }

    fn answer(&self, report: &GameReport) -> Row {
        let mut row = Row { line: report.line as u64, ..Row::default() };
        if let Some(game) = &report.game {
            row.tags = TAGS.map(|(name, _)| game.tag(name).map(String::from));
        }
        match &report.verdict {
            Ok(verdict) => {
                let proto::Outcome { result, termination, .. } =
                    proto::Outcome::from(&verdict.outcome);
                row.plies = Some(u32::try_from(verdict.plies).unwrap_or(u32::MAX));
                row.outcome_result =
                    proto::GameResult::try_from(result).ok().map(|r| r.as_str_name());
                row.termination = (termination != proto::Termination::Unspecified as i32)
                    .then(|| {
                        proto::Termination::try_from(termination).ok().map(|t| t.as_str_name())
                    })
                    .flatten();
                row.result_tag.clone_from(&verdict.result_tag);
                row.result_consistent = Some(verdict.result_consistent);
                row.final_fen = Some(verdict.position.fen().to_string());
                if let Some(illegal) = &verdict.illegal_move {
                    row.illegal_move_index = Some(u32::try_from(illegal.index).unwrap_or(u32::MAX));
                    row.illegal_move = Some(illegal.text.clone());
                    row.illegal_reason =
                        Some(proto::IllegalMoveReason::from(illegal.reason).as_str_name());
                }
                row.variation_errors =
                    Some(u32::try_from(verdict.variation_errors.len()).unwrap_or(u32::MAX));
                if self.analysed {
                    // As `arbiter pgn --json --analysis` has it (its message).
                    row.analysis = report
                        .game
                        .as_ref()
                        .and_then(|game| game_analysis(game, verdict))
                        .map(|analysis| proto::GameAnalysis::from(&analysis));
                }
            }
            Err(error) => {
                row.error_reason = Some(error.reason());
                row.error = Some(error.to_string());
            }
        }
        row
    }
}

/// The columns being filled.
#[derive(Debug, Default)]
struct Columns {
    index: UInt64Builder,
    line: UInt64Builder,
    plies: UInt32Builder,
    outcome_result: StringBuilder,
    termination: StringBuilder,
    result_tag: StringBuilder,
    result_consistent: BooleanBuilder,
    final_fen: StringBuilder,
    illegal_move_index: UInt32Builder,
    illegal_move: StringBuilder,
    illegal_reason: StringBuilder,
    variation_errors: UInt32Builder,
    error_reason: StringBuilder,
    error: StringBuilder,
    tags: [StringBuilder; TAGS.len()],
    /// With `analysis=True`: what each game was.
    analysis: Option<AnalysisColumns>,
}

impl Columns {
    /// The columns of a table with the analysis's when `analysed`.
    fn new(analysed: bool) -> Columns {
        Columns { analysis: analysed.then(AnalysisColumns::default), ..Columns::default() }
    }

    fn push(&mut self, index: u64, row: Row) {
        let Row {
            line,
            plies,
            outcome_result,
            termination,
            result_tag,
            result_consistent,
            final_fen,
            illegal_move_index,
            illegal_move,
            illegal_reason,
            variation_errors,
            error_reason,
            error,
            tags,
            analysis,
        } = row;
        self.index.append_value(index);
        self.line.append_value(line);
        self.plies.append_option(plies);
        self.outcome_result.append_option(outcome_result);
        self.termination.append_option(termination);
        self.result_tag.append_option(result_tag);
        self.result_consistent.append_option(result_consistent);
        self.final_fen.append_option(final_fen);
        self.illegal_move_index.append_option(illegal_move_index);
        self.illegal_move.append_option(illegal_move);
        self.illegal_reason.append_option(illegal_reason);
        self.variation_errors.append_option(variation_errors);
        self.error_reason.append_option(error_reason);
        self.error.append_option(error);
        for (builder, tag) in self.tags.iter_mut().zip(tags) {
            builder.append_option(tag);
        }
        if let Some(columns) = &mut self.analysis {
            columns.push(analysis.as_ref());
        }
    }

    /// The rows so far as a batch, the builders emptied.
    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<(&str, ArrayRef)> = vec![
            ("index", Arc::new(self.index.finish())),
            ("line", Arc::new(self.line.finish())),
            ("plies", Arc::new(self.plies.finish())),
            ("outcome_result", Arc::new(self.outcome_result.finish())),
            ("termination", Arc::new(self.termination.finish())),
            ("result_tag", Arc::new(self.result_tag.finish())),
            ("result_consistent", Arc::new(self.result_consistent.finish())),
            ("final_fen", Arc::new(self.final_fen.finish())),
            ("illegal_move_index", Arc::new(self.illegal_move_index.finish())),
            ("illegal_move", Arc::new(self.illegal_move.finish())),
            ("illegal_reason", Arc::new(self.illegal_reason.finish())),
            ("variation_errors", Arc::new(self.variation_errors.finish())),
            ("error_reason", Arc::new(self.error_reason.finish())),
            ("error", Arc::new(self.error.finish())),
        ];
        for ((_, name), builder) in TAGS.iter().zip(&mut self.tags) {
            columns.push((name, Arc::new(builder.finish())));
        }
        if let Some(analysis) = &mut self.analysis {
            columns.extend(analysis.finish());
        }
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, column)| {
                // Only the two columns every row has are not nullable.
                let nullable = !matches!(*name, "index" | "line");
                Field::new(*name, column.data_type().clone(), nullable)
            })
            .collect();
        let schema = Arc::new(Schema::new(fields));
        RecordBatch::try_new(schema, columns.into_iter().map(|(_, column)| column).collect())
    }
}

/// A batch in the Arrow C data interface's structs, for pyarrow to take.
type Exported = (Box<FFI_ArrowArray>, Box<FFI_ArrowSchema>);

fn export(batch: RecordBatch) -> Result<Exported, ArrowError> {
    let (array, schema) = to_ffi(&StructArray::from(batch).to_data())?;
    Ok((Box::new(array), Box::new(schema)))
}

/// The games of the file at `path` as a `pyarrow.Table`, checked on `jobs`
/// threads, with the analysis's columns when `analysis`.
#[pyfunction]
#[pyo3(signature = (path, jobs=None, analysis=false))]
pub fn pgn_table<'py>(
    py: Python<'py>,
    path: PathBuf,
    jobs: Option<usize>,
    analysis: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let pyarrow = py
        .import("pyarrow")
        .map_err(|err| PyImportError::new_err(format!("pgn_table needs pyarrow: {err}")))?;
    let jobs = super::jobs_of(jobs)?;
    let (games, errors) = super::games_of(path)?;
    let exported = py.detach(|| -> Result<Vec<Exported>, String> {
        let (mut columns, mut batches, mut index) = (Columns::new(analysis), Vec::new(), 0);
        let arrow = |err: ArrowError| std::io::Error::other(err.to_string());
        pgn_files::run(games, jobs, &Rows { analysed: analysis }, |row| {
            columns.push(index, row);
            index += 1;
            if index % BATCH_ROWS as u64 == 0 {
                batches.push(columns.finish().and_then(export).map_err(arrow)?);
            }
            Ok(())
        })
        .map_err(|err| err.to_string())?;
        // The last batch, empty for a file of no games: the table has its
        // columns all the same.
        batches.push(columns.finish().and_then(export).map_err(|err| err.to_string())?);
        Ok(batches)
    });
    super::read_errors(&errors)?;
    let exported = exported.map_err(super::value_error)?;
    let record_batch = pyarrow.getattr("RecordBatch")?;
    let batches = PyList::empty(py);
    for (mut array, mut schema) in exported {
        // pyarrow moves the structs' contents out (their release callbacks
        // become its own); the boxes are dropped empty.
        let addresses =
            (std::ptr::addr_of_mut!(*array) as usize, std::ptr::addr_of_mut!(*schema) as usize);
        batches.append(record_batch.call_method1("_import_from_c", addresses)?)?;
    }
    pyarrow.getattr("Table")?.call_method1("from_batches", (batches,))
}
