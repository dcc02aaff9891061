//! The `arbiter` command line: argument parsing and the subcommands that
//! run without a server.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde::Serialize;

use crate::answer::json::write_game_analysed;
use crate::config::{AnalysisArgs, ServeConfig};
use crate::telemetry::Telemetry;
use arbiter_chess::{
    ClockRecord, Color, GamePosition, IllegalMoves, Notation, Position, ReplayOptions, Rules,
    SearchBudget, TimeControl, Winnability, analyse, echo, seconds_ms,
};

mod batch;
mod pgn;
mod remote;
use batch::BatchLine;
pub use pgn::PgnArgs;

/// Arbiter: the Laws of Chess as a service.
///
/// With no subcommand, runs the gRPC server (as `arbiter serve`).
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeConfig,
}

/// What to run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gRPC server (the default).
    Serve(Box<ServeConfig>),
    /// Count the leaves of the legal move tree to DEPTH (perft).
    ///
    /// The last line of output is the node count; with --divide a
    /// `<uci>: <nodes>` line per legal move comes first.
    Perft(PerftArgs),
    /// Check a game move by move and print the result as JSON.
    ///
    /// Prints one JSON object (the proto3 JSON of ValidateGameResponse). With
    /// --batch, reads one game per line (`MOVE MOVE ...` from the standard
    /// start, or `FEN; MOVE MOVE ...`, then optionally `; TC T1,T2,...
    /// [PENDING]` for a clock record; an empty FEN is the start) and
    /// prints one JSON object per game. Illegal moves are results, not
    /// failures.
    Validate(ValidateArgs),
    /// Validate PGN files game by game (plain, .zst, .gz or .bz2).
    ///
    /// Progress and a summary go to standard error (its last line holds
    /// `N games`); with --json, one JSON object per game on standard output.
    /// Exit status: 0 when every game is valid, 1 when any is not, 2 when
    /// an input cannot be read.
    Pgn(PgnArgs),
    /// Say for each colour whether it can still checkmate (FIDE 5.2.2, 6.9).
    ///
    /// Prints one JSON line per position: `{"fen", "white": {"verdict",
    /// "helpmate"}, "black": {...}}`, verdicts WINNABLE (with a helpmate in
    /// UCI), UNWINNABLE or UNDETERMINED. With --batch, one FEN per line
    /// (clocks optional; anything after the sixth field is ignored); a line
    /// that is no FEN gets an error line and the run goes on.
    Winnable(WinnableArgs),
}

/// Arguments of `arbiter winnable`.
#[derive(Debug, clap::Args)]
pub struct WinnableArgs {
    /// The position as FEN (default: the standard starting position).
    #[arg(long, conflicts_with = "batch")]
    pub fen: Option<String>,
    /// Read positions from FILE, one FEN per line (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,
    /// Quick mode: the small per-ply budget.
    #[arg(long)]
    pub quick: bool,
    /// Positions one analysis may visit (default: 2000 in quick mode,
    /// 1000000 in full mode).
    #[arg(long, value_name = "NODES")]
    pub nodes: Option<u64>,
}

/// Where a game starts, shared by `perft` and `validate`.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    /// The rules in force: standard, chess960, crazyhouse, atomic,
    /// antichess, king-of-the-hill, three-check, horde or racing-kings
    /// [default: standard, or chess960 with --chess960].
    #[arg(long, value_name = "RULES", value_parser = str::parse::<Rules>)]
    pub variant: Option<Rules>,
    /// Chess960 start position by Scharnagl number, 0-959 (518 is the
    /// standard array), instead of --fen; the rules are Chess960 (any other
    /// --variant is an error).
    #[arg(long, value_name = "N", conflicts_with = "fen",
          value_parser = clap::value_parser!(u32).range(0..=959))]
    pub chess960: Option<u32>,
}

/// Prints `message` as the command's error: exit status 2, a usage error.
fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("arbiter: {message}");
    ExitCode::from(2)
}

impl StartArgs {
    /// The start position: `fen` read under the rules in force, or their
    /// default start (the core's one reading: [`GamePosition::start`]).
    fn start(&self, fen: Option<&str>) -> Result<GamePosition, ExitCode> {
        GamePosition::start(self.variant, fen, self.chess960).map_err(usage_error)
    }
}

/// Arguments of `arbiter perft`.
#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    /// Start position as FEN (default: the standard starting position).
    #[arg(long)]
    pub fen: Option<String>,
    #[command(flatten)]
    pub start: StartArgs,
    /// Print the count below each legal move first.
    #[arg(long)]
    pub divide: bool,
    /// Depth in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
    pub depth: u32,
}

/// A side.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorArg {
    White,
    Black,
}

/// What a completed illegal move does ([`IllegalMoves`]).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum IllegalMovesArg {
    Stop,
    Fide,
    #[value(name = "fide-2009")]
    Fide2009,
}

/// How the moves are written.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NotationArg {
    /// Each move as UCI when it is UCI syntax, else as SAN.
    Auto,
    /// UCI only.
    Uci,
    /// SAN only.
    San,
}

/// Arguments of `arbiter validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Start position as FEN (default: the standard starting position).
    #[arg(long, conflicts_with = "batch")]
    pub fen: Option<String>,
    /// With --batch, the start of the lines without a FEN.
    #[command(flatten)]
    pub start: StartArgs,
    /// Write FENs with Shredder-FEN castling letters (`HAha`), not X-FEN.
    #[arg(long)]
    pub shredder_fen: bool,
    /// Notation of the moves.
    #[arg(long, value_enum, default_value = "auto")]
    pub notation: NotationArg,
    /// Accept only canonical SAN or exact UCI.
    #[arg(long)]
    pub strict: bool,
    /// Include the FEN after every move.
    #[arg(long)]
    pub fens: bool,
    /// Leave out the legal moves of the final position.
    #[arg(long)]
    pub no_legal_moves: bool,
    /// The side whose flag fell after the last move (FIDE 6.9): the
    /// opponent wins by timeout, or it is a draw if the opponent cannot
    /// mate by any series of legal moves. Applies to every game of a batch.
    #[arg(long, value_enum, value_name = "COLOR")]
    pub flagged: Option<ColorArg>,
    /// The time control, as a PGN TimeControl tag (`300+3`,
    /// `40/5400+30:1800+30`, `*60`): with --move-times, the clock decides
    /// flag falls, and each ply gets its mover's remaining time.
    #[arg(long, value_name = "TC", conflicts_with_all = ["batch", "flagged"])]
    pub time_control: Option<String>,
    /// The time each move took, in seconds (decimals down to the
    /// millisecond), comma-separated, one for each move.
    #[arg(long, value_name = "T1,T2,...", requires = "time_control")]
    pub move_times: Option<String>,
    /// The time the side to move has used on its move in progress, in
    /// seconds: past its remaining time, its flag has fallen.
    #[arg(long, value_name = "SECONDS", requires = "time_control")]
    pub pending_time: Option<String>,
    /// Report whether each colour can still mate in the final position,
    /// with helpmates (`position.winnability`).
    #[arg(long)]
    pub winnability: bool,
    /// What a completed illegal move does: `stop` the replay (as online
    /// servers refuse it), or be ruled on as an arbiter does over the
    /// board: `fide` (Laws of 2023, 7.5.5: time to the opponent, the second
    /// loses) or `fide-2009` (the third loses). Rulings go in `"rulings"`.
    #[arg(long, value_enum, default_value = "stop", value_name = "RULES")]
    pub illegal_moves: IllegalMovesArg,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Say what the game was, beside the outcome (`"analysis"`): its
    /// opening, its phases and, with a clock record (--move-times, or a
    /// batch line's), each side's time use.
    #[arg(long = "analysis")]
    pub what_it_was: bool,
    /// Read games from FILE, one per line (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,
    /// Longest input line accepted in --batch mode, in bytes.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    pub max_line_bytes: usize,
    /// The moves, in order.
    #[arg(conflicts_with = "batch")]
    pub moves: Vec<String>,
}

/// Runs the parsed command line, writing to standard output and error.
pub fn run(cli: Cli) -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let code = match cli.command {
        None => return run_serve(cli.serve),
        Some(Command::Serve(config)) => return run_serve(*config),
        Some(Command::Perft(args)) => run_perft(&args, &mut out),
        Some(Command::Validate(args)) => run_validate(&args, &mut out),
        Some(Command::Pgn(args)) => return pgn::run(&args),
        Some(Command::Winnable(args)) => run_winnable(&args, &mut out),
    };
    match out.flush() {
        Ok(()) => code,
        Err(_) => ExitCode::FAILURE,
    }
}

/// Runs the gRPC server until SIGTERM or SIGINT, then drains.
fn run_serve(config: ServeConfig) -> ExitCode {
    if let Err(err) = config.validate() {
        eprintln!("arbiter: invalid configuration: {err}");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("arbiter: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    // The OTLP exporter's connection lives on the runtime.
    let telemetry = match runtime.block_on(async { Telemetry::init(config.log_format) }) {
        Ok(telemetry) => telemetry,
        Err(err) => {
            eprintln!("arbiter: {err}");
            return ExitCode::from(2);
        }
    };
    crate::listener::fit_open_files(config.max_connections);
    if telemetry.exports_traces() {
        tracing::info!("exporting traces over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT is set)");
    }
    let code = runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(config.listen).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("arbiter: cannot listen on {}: {err}", config.listen);
                return ExitCode::FAILURE;
            }
        };
        // The bound address, so that `--listen 127.0.0.1:0` says its port.
        let listen = listener.local_addr().unwrap_or(config.listen);
        tracing::info!(%listen, "serving arbiter.v1.RulesService");
        match crate::server::run(listener, config, crate::server::shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("arbiter: {err}");
                ExitCode::FAILURE
            }
        }
    });
    // Outside block_on: the exporter needs the runtime's threads to flush.
    telemetry.shutdown();
    code
}

fn run_perft(args: &PerftArgs, out: &mut impl Write) -> ExitCode {
    let start = match args.start.start(args.fen.as_deref()) {
        Ok(start) => start,
        Err(code) => return code,
    };
    let (split, total) = if args.divide {
        // Never stopped: the command line has no deadline.
        let split = start.divide_until(args.depth, &|| false).unwrap_or_default();
        let total = if args.depth == 0 { 1 } else { split.iter().map(|(_, n)| n).sum() };
        (split, total)
    } else {
        (Vec::new(), start.perft(args.depth))
    };
    let lines = split.iter().try_for_each(|(uci, nodes)| writeln!(out, "{uci}: {nodes}"));
    match lines.and_then(|()| writeln!(out, "{total}")) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

impl ValidateArgs {
    /// An error for an option of chess's with a lichess variant.
    fn check_rules(&self, rules: Rules) -> Result<(), ExitCode> {
        let Rules::Variant(variant) = rules else { return Ok(()) };
        let option = match (self.shredder_fen, self.winnability) {
            (true, _) => "--shredder-fen",
            (_, true) => "--winnability",
            (false, false) => return Ok(()),
        };
        Err(usage_error(format_args!(
            "{option} is for standard chess and Chess960, not --variant {}",
            variant.cli_name()
        )))
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            notation: match self.notation {
                NotationArg::Auto => Notation::Auto,
                NotationArg::Uci => Notation::Uci,
                NotationArg::San => Notation::San,
            },
            strict: self.strict,
            include_fens: self.fens,
            skip_legal_moves: self.no_legal_moves,
            plies_from: 0,
            shredder_fen: self.shredder_fen,
            legal_moves_from: None,
            flagged: self.flagged.map(|color| match color {
                ColorArg::White => Color::White,
                ColorArg::Black => Color::Black,
            }),
            winnability: self.winnability,
            analysis: self.analysis.analysis(),
            illegal_moves: match self.illegal_moves {
                IllegalMovesArg::Stop => IllegalMoves::Stop,
                IllegalMovesArg::Fide => IllegalMoves::Fide,
                IllegalMovesArg::Fide2009 => IllegalMoves::Fide2009,
            },
        }
    }
}

/// A clock record from text: a TimeControl tag, the moves' times in
/// seconds (comma-separated; empty for none) and the pending time.
fn clock_record(
    control: &str,
    times: &str,
    pending: Option<&str>,
    moves: usize,
) -> Result<ClockRecord, String> {
    let control: TimeControl =
        control.parse().map_err(|e| format!("invalid time control {control:?}: {e}"))?;
    let seconds = |what: &str, text: &str| {
        seconds_ms(text).map_err(|e| format!("{what} {:?}: {e}", echo(text)))
    };
    let mut read = Vec::with_capacity(moves);
    if !times.is_empty() {
        // Split on the byte: a batch line has a time a move.
        for time in times.as_bytes().split(|&b| b == b',') {
            // Cut at an ASCII comma: still UTF-8.
            let time = std::str::from_utf8(time).unwrap_or_default();
            read.push(seconds("move time", time.trim())?);
        }
    }
    let times = read;
    let pending = pending.map_or(Ok(0), |p| seconds("pending time", p))?;
    ClockRecord::new(control, times, pending, moves).map_err(|e| e.to_string())
}

/// A per-game error line of a batch.
#[derive(Serialize)]
struct ErrorLine<'a> {
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'static str,
    message: &'a str,
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

fn run_validate(args: &ValidateArgs, out: &mut impl Write) -> ExitCode {
    let options = args.options();
    // Without a FEN: the default start, which batch lines without one share.
    let default_start = match args.start.start(None) {
        Ok(start) => start,
        Err(code) => return code,
    };
    if let Err(code) = args.check_rules(default_start.rules()) {
        return code;
    }
    let result = match &args.batch {
        None => {
            let start = match args.fen.as_deref() {
                None => default_start,
                fen => match args.start.start(fen) {
                    Ok(start) => start,
                    Err(code) => return code,
                },
            };
            let clock = match &args.time_control {
                Some(control) => {
                    let times = args.move_times.as_deref().unwrap_or_default();
                    match clock_record(
                        control,
                        times,
                        args.pending_time.as_deref(),
                        args.moves.len(),
                    ) {
                        Ok(record) => Some(record),
                        Err(message) => {
                            eprintln!("arbiter: {message}");
                            return ExitCode::from(2);
                        }
                    }
                }
                None => None,
            };
            let mut json = Vec::new();
            write_game_analysed(
                &mut json,
                start,
                &args.moves,
                &options,
                clock.as_ref(),
                args.what_it_was,
            )
            .and_then(|()| out.write_all(&json))
        }
        Some(path) => {
            // Set up once: a copy is cheaper than setting up a position per game.
            return run_batch(path, |input| {
                validate_batch(input, args, &default_start, &options, out)
            });
        }
    };
    exit_code(result)
}

/// Runs `batch` over standard input (`-`) or the file at `path`: exit status
/// 2 when the file cannot be opened, 1 when the batch fails.
fn run_batch(path: &Path, batch: impl FnOnce(&mut dyn BufRead) -> io::Result<()>) -> ExitCode {
    let result = if path.as_os_str() == "-" {
        batch(&mut io::stdin().lock())
    } else {
        match File::open(path) {
            Ok(file) => batch(&mut BufReader::new(file)),
            Err(err) => {
                eprintln!("arbiter: cannot read {}: {err}", path.display());
                return ExitCode::from(2);
            }
        }
    };
    exit_code(result)
}

/// Exit status 0, or 1 with the error on standard error.
fn exit_code(result: io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("arbiter: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the error line of a batch's input line.
fn error_line(out: &mut Vec<u8>, message: &str) -> io::Result<()> {
    write_json(out, &ErrorLine { error: ErrorBody { code: "INVALID_ARGUMENT", message } })
}

/// The trimmed text of a batch's input line, or `None` with its error line
/// written (a line over `max_line` bytes or not UTF-8) or nothing written (a
/// blank line).
fn line_text<'a>(
    line: BatchLine<'a>,
    max_line: usize,
    out: &mut Vec<u8>,
) -> io::Result<Option<&'a str>> {
    let BatchLine::Text(bytes) = line else {
        error_line(out, &format!("line longer than {max_line} bytes"))?;
        return Ok(None);
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        error_line(out, "line is not valid utf-8")?;
        return Ok(None);
    };
    let text = text.trim();
    Ok((!text.is_empty()).then_some(text))
}

/// Writes the JSON line answering one input line; nothing for a blank line.
fn answer_line(
    line: BatchLine<'_>,
    out: &mut Vec<u8>,
    max_line: usize,
    default_start: &GamePosition,
    options: &ReplayOptions,
    analysed: bool,
) -> io::Result<()> {
    let Some(text) = line_text(line, max_line, out)? else { return Ok(()) };
    // `memchr`, not `split_once`: most lines have no `;`, so the whole line
    // is searched, which `split_once` does a word at a time.
    let (fen, moves) = match memchr::memchr(b';', text.as_bytes()) {
        Some(at) => (Some(text[..at].trim()), &text[at + 1..]),
        None => (None, text),
    };
    let (moves, clock) = match fen.and_then(|_| moves.split_once(';')) {
        Some((moves, clock)) => (moves, Some(clock.trim())),
        None => (moves, None),
    };
    // A line's FEN is read under the rules of the default start.
    let rules = default_start.rules();
    let start =
        match fen.filter(|fen| !fen.is_empty()).map(|fen| GamePosition::from_fen(fen, rules)) {
            Some(Err(error)) => return error_line(out, &error.to_string()),
            Some(Ok(start)) => start,
            None => default_start.clone(),
        };
    let moves: Vec<&str> =
        if moves.is_ascii() { ascii_tokens(moves) } else { moves.split_whitespace().collect() };
    let clock = match clock.map(|clock| {
        let mut fields = clock.split_ascii_whitespace();
        let control = fields.next().unwrap_or_default();
        let (times, pending) = (fields.next().unwrap_or_default(), fields.next());
        match fields.next() {
            Some(extra) => Err(format!("unexpected {:?} after the clock record", echo(extra))),
            None => clock_record(control, times, pending, moves.len()),
        }
    }) {
        Some(Err(message)) => return error_line(out, &message),
        Some(Ok(record)) => Some(record),
        None => None,
    };
    write_game_analysed(out, start, &moves, options, clock.as_ref(), analysed)
}

/// The tokens of ASCII `text` between ASCII whitespace, as
/// `split_ascii_whitespace` gives them. ASCII whitespace is all a move list
/// has in practice, and a plain loop over its bytes is much faster than the
/// iterator (whose per-byte closure and filter do not unroll), itself much
/// faster than splitting on all of Unicode's whitespace; a token's end is
/// found eight bytes at a time ([`token_end`]).
fn ascii_tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::with_capacity(bytes.len() / 4 + 1);
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        let start = i;
        i = token_end(bytes, i);
        if start < i {
            tokens.push(&text[start..i]);
        }
    }
    tokens
}

/// Whether `b` is ASCII whitespace: space, tab, line feed, form feed or
/// carriage return.
#[inline(always)]
fn is_space(b: u8) -> bool {
    const WHITESPACE: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << 0x0c | 1 << b'\r';
    b <= b' ' && WHITESPACE >> b & 1 == 1
}

/// The index of the first ASCII whitespace byte of ASCII `bytes` from `i`
/// on, or their length. Eight bytes at a time while eight remain: a byte
/// `b` of ASCII is at most `b' '` when `b + 0x5f` (which never carries
/// into the next byte) has its high bit clear, and the first such byte is
/// whitespace unless it is another control character (then the search goes
/// on past it). A move is four to seven bytes: about one word a token,
/// where the byte loop took a dozen instructions a byte.
#[inline(always)]
fn token_end(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    while let Some(&word) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let low = !u64::from_le_bytes(word).wrapping_add(0x5f * ONES) & (0x80 * ONES);
        if low == 0 {
            i += 8;
            continue;
        }
        i += (low.trailing_zeros() / 8) as usize;
        if is_space(bytes[i]) {
            return i;
        }
        i += 1;
    }
    while i < bytes.len() && !is_space(bytes[i]) {
        i += 1;
    }
    i
}

/// Validates one game per non-empty line, writing one JSON line per game in
/// input order. A line that cannot be a game gets an error line; the batch
/// goes on. Games are checked on every core ([`batch::run`]).
fn validate_batch(
    input: &mut dyn BufRead,
    args: &ValidateArgs,
    default_start: &GamePosition,
    options: &ReplayOptions,
    out: &mut impl Write,
) -> io::Result<()> {
    let max_line = args.max_line_bytes;
    batch::run(input, max_line, workers(), out, |line, out| {
        answer_line(line, out, max_line, default_start, options, args.what_it_was)
    })
}

/// One batch worker per core.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One colour's answer in `arbiter winnable`'s JSON.
#[derive(Serialize)]
struct SideVerdict {
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    helpmate: Option<Vec<String>>,
}

/// A line of `arbiter winnable`'s output.
#[derive(Serialize)]
struct WinnableLine<'a> {
    fen: &'a str,
    white: SideVerdict,
    black: SideVerdict,
}

fn winnability_json(pos: &Position, color: Color, budget: SearchBudget) -> SideVerdict {
    let verdict = analyse(pos, color, budget);
    let helpmate = match &verdict {
        Winnability::Winnable(line) => Some(line.iter().map(ToString::to_string).collect()),
        Winnability::Unwinnable | Winnability::Undetermined => None,
    };
    SideVerdict { verdict: verdict.name(), helpmate }
}

/// Writes the JSON line for one FEN (or its error line).
fn winnable_line(out: &mut impl Write, text: &str, budget: SearchBudget) -> io::Result<()> {
    // Clock fields are optional; whatever follows the sixth field (a game id
    // in the shared vectors) is not part of the position.
    let mut fields: Vec<&str> = text.split_ascii_whitespace().take(6).collect();
    // Castling and en passant may be missing too, as in composed positions.
    while (2..4).contains(&fields.len()) {
        fields.push("-");
    }
    let fen = fields.join(" ");
    match Position::from_fen_lenient_material(&fen) {
        Ok(pos) => write_json(
            out,
            &WinnableLine {
                fen: &fen,
                white: winnability_json(&pos, Color::White, budget),
                black: winnability_json(&pos, Color::Black, budget),
            },
        ),
        Err(err) => write_json(
            out,
            &ErrorLine { error: ErrorBody { code: "INVALID_ARGUMENT", message: &err.to_string() } },
        ),
    }
}

fn run_winnable(args: &WinnableArgs, out: &mut impl Write) -> ExitCode {
    let mut budget = if args.quick { SearchBudget::QUICK } else { SearchBudget::FULL };
    if let Some(nodes) = args.nodes {
        budget.nodes = nodes;
    }
    let result = match &args.batch {
        None => {
            let fen = args.fen.as_deref().unwrap_or(arbiter_chess::STARTING_FEN);
            if let Err(err) = Position::from_fen_lenient_material(fen) {
                eprintln!("arbiter: {err}");
                return ExitCode::from(2);
            }
            winnable_line(out, fen, budget)
        }
        Some(path) => return run_batch(path, |input| winnable_batch(input, budget, out)),
    };
    exit_code(result)
}

/// One position per non-empty line, one JSON line each, in input order,
/// analysed on every core ([`batch::run`]).
fn winnable_batch(
    input: &mut dyn BufRead,
    budget: SearchBudget,
    out: &mut impl Write,
) -> io::Result<()> {
    const MAX_LINE: usize = 4096;
    batch::run(input, MAX_LINE, workers(), out, |line, out| match line_text(line, MAX_LINE, out)? {
        Some(text) => winnable_line(out, text, budget),
        None => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{RngCore as _, SeedableRng as _};

    use super::ascii_tokens;

    #[test]
    fn ascii_tokens_split_as_the_standard_library_does() {
        for text in ["", " ", "e4", " e4  e5\t\tNf3 \r\n", "\x0ce4\x0c\x0b e5", "a\x00b c"] {
            let std: Vec<&str> = text.split_ascii_whitespace().collect();
            assert_eq!(ascii_tokens(text), std, "{text:?}");
        }
        // Every string of up to five bytes over separators, a vertical tab
        // (not ASCII whitespace) and a letter.
        let alphabet = [" ", "\t", "\n", "\x0c", "\r", "\x0b", "a"];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            for text in &longer {
                let std: Vec<&str> = text.split_ascii_whitespace().collect();
                assert_eq!(ascii_tokens(text), std, "{text:?}");
            }
            texts = longer;
        }
    }

    /// Longer texts, which the search for a token's end reads a word at a
    /// time: bytes on both sides of the bounds it tests (`' '` and `'!'`,
    /// control characters that are not whitespace, DEL) at every offset.
    #[test]
    fn long_ascii_texts_split_as_the_standard_library_does() {
        let alphabet = b" \t\n\x0c\r\x0b\x00\x1f!a~\x7f";
        let mut rng = SmallRng::seed_from_u64(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u32() as usize;
        for _ in 0..50_000 {
            let len = next() % 40;
            let text: String = (0..len)
                .map(|_| {
                    // Mostly letters, as moves are.
                    let pick = next();
                    char::from(if pick % 3 == 0 {
                        alphabet[pick / 3 % alphabet.len()]
                    } else {
                        b'a'
                    })
                })
                .collect();
            let std: Vec<&str> = text.split_ascii_whitespace().collect();
            assert_eq!(ascii_tokens(&text), std, "{text:?}");
        }
    }
}
