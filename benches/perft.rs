//! Perft throughput of arbiter against the Rust chess crates it is compared
//! with (DESIGN.md §4): shakmaty 0.30.1, cozy-chess 0.3 and chess 3.2.
//!
//! Each engine counts the leaves of the legal move tree of the five standard
//! perft positions in two modes:
//!
//! - **bulk**: the last ply is counted without playing its moves, each engine
//!   in its fastest idiomatic way (arbiter `perft`, shakmaty
//!   `legal_moves().len()`, cozy-chess the sum of `PieceMoves::len()`, chess
//!   `MoveGen::new_legal(..).len()`);
//! - **played**: every leaf move is made (copy-make) and counted as one, which
//!   measures move generation and move making together.
//!
//! Every run is checked against the known node count; a wrong count panics.
//! After one warm-up run each, engines are interleaved round-robin, in an
//! order that rotates from sample to sample, so that drift in machine load is
//! shared between them. The table reports the median of the samples as
//! Mnodes/s per engine and the ratios of arbiter's throughput to each other
//! engine's (above 1: arbiter is faster), then the median times with the
//! slowest/fastest sample ratio as a gauge of noise. Single-threaded; run it
//! on an otherwise idle machine.
//!
//! Run with:
//!
//! ```text
//! cargo bench --bench perft                 # full depths, 7 samples
//! cargo bench --bench perft -- --quick      # smoke test: a ply less, 3 samples
//! ARBITER_BENCH_QUICK=1 cargo bench --bench perft
//! cargo bench --bench perft -- --samples 11
//! ```
//!
//! Without `--bench` on the command line (as under `cargo test --benches`),
//! every engine runs once at depth 3 at most, only to check the counts.

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use common::Plan;

/// A perft position: its FEN, its known node counts by depth (index 0 is
/// depth 1), and for each mode the depth measured and how many times one
/// sample repeats it (so that a shallow tree still takes long enough to time).
struct Case {
    name: &'static str,
    fen: &'static str,
    nodes: &'static [u64],
    bulk: Depth,
    played: Depth,
}

#[derive(Clone, Copy)]
struct Depth {
    depth: u32,
    reps: u32,
}

const fn depth(depth: u32, reps: u32) -> Depth {
    Depth { depth, reps }
}

impl std::fmt::Display for Depth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reps {
            1 => write!(f, "{}", self.depth),
            reps => write!(f, "{} (×{reps})", self.depth),
        }
    }
}

impl Case {
    fn nodes(&self, depth: u32) -> u64 {
        self.nodes[depth as usize - 1]
    }
}

/// The five standard positions, from the Chess Programming Wiki "Perft
/// Results" page. Depths and repetitions are chosen so that one sample of one
/// engine takes roughly 0.2-1 s in an optimised build on a small machine.
const CASES: [Case; 5] = [
    Case {
        name: "start",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        nodes: &[20, 400, 8_902, 197_281, 4_865_609, 119_060_324],
        bulk: depth(6, 1),
        played: depth(5, 4),
    },
    Case {
        name: "kiwipete",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        nodes: &[48, 2_039, 97_862, 4_085_603, 193_690_690],
        bulk: depth(5, 1),
        played: depth(4, 4),
    },
    Case {
        name: "pos3",
        fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        nodes: &[14, 191, 2_812, 43_238, 674_624, 11_030_083, 178_633_661],
        bulk: depth(6, 10),
        played: depth(6, 1),
    },
    Case {
        name: "pos4",
        fen: "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        nodes: &[6, 264, 9_467, 422_333, 15_833_292, 706_045_033],
        bulk: depth(5, 8),
        played: depth(5, 1),
    },
    Case {
        name: "pos5",
        fen: "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        nodes: &[44, 1_486, 62_379, 2_103_487, 89_941_194],
        bulk: depth(5, 2),
        played: depth(4, 8),
    },
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bulk,
    Played,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Bulk => "bulk",
            Mode::Played => "played",
        }
    }
}

/// One chess library, seen through the two perft variants measured. Each
/// engine says how it counts legal moves and how it makes a child position
/// (its own idiomatic copy-make); the two perft shapes are written once.
trait Engine {
    const NAME: &'static str;
    type Board: 'static;

    fn parse(fen: &str) -> Self::Board;
    /// The number of legal moves, counted without making them.
    fn count_moves(board: &Self::Board) -> u64;
    /// Calls `f` with the position after each legal move.
    fn for_each_child(board: &Self::Board, f: impl FnMut(Self::Board));

    /// Perft with the last ply counted in bulk. `depth >= 1`.
    fn bulk(board: &Self::Board, depth: u32) -> u64 {
        if depth == 1 {
            return Self::count_moves(board);
        }
        let mut nodes = 0;
        Self::for_each_child(board, |child| nodes += Self::bulk(&child, depth - 1));
        nodes
    }

    /// Perft with every leaf move made and counted as one. `depth >= 1`.
    fn played(board: &Self::Board, depth: u32) -> u64 {
        let mut nodes = 0;
        Self::for_each_child(board, |child| {
            if depth == 1 {
                black_box(&child);
                nodes += 1;
            } else {
                nodes += Self::played(&child, depth - 1);
            }
        });
        nodes
    }
}

struct Arbiter;

impl Engine for Arbiter {
    const NAME: &'static str = "arbiter";
    type Board = arbiter_chess::Position;

    fn parse(fen: &str) -> Self::Board {
        fen.parse().expect("arbiter parses the FEN")
    }

    fn count_moves(board: &Self::Board) -> u64 {
        board.count_legal() as u64
    }

    fn for_each_child(board: &Self::Board, mut f: impl FnMut(Self::Board)) {
        for &m in &board.legal_moves() {
            let mut child = board.clone();
            child.play_unchecked(m);
            f(child);
        }
    }

    /// The product's own perft (run-time `popcnt` dispatch included).
    fn bulk(board: &Self::Board, depth: u32) -> u64 {
        arbiter_chess::perft(board, depth)
    }
}

struct Shakmaty;

impl Engine for Shakmaty {
    const NAME: &'static str = "shakmaty";
    type Board = shakmaty::Chess;

    fn parse(fen: &str) -> Self::Board {
        fen.parse::<shakmaty::fen::Fen>()
            .expect("shakmaty parses the FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("shakmaty accepts the position")
    }

    fn count_moves(board: &Self::Board) -> u64 {
        use shakmaty::Position as _;
        board.legal_moves().len() as u64
    }

    fn for_each_child(board: &Self::Board, mut f: impl FnMut(Self::Board)) {
        use shakmaty::Position as _;
        for &m in &board.legal_moves() {
            let mut child = board.clone();
            child.play_unchecked(m);
            f(child);
        }
    }
}

struct Cozy;

impl Engine for Cozy {
    const NAME: &'static str = "cozy-chess";
    type Board = cozy_chess::Board;

    fn parse(fen: &str) -> Self::Board {
        fen.parse().expect("cozy-chess parses the FEN")
    }

    fn count_moves(board: &Self::Board) -> u64 {
        let mut nodes = 0;
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        nodes
    }

    fn for_each_child(board: &Self::Board, mut f: impl FnMut(Self::Board)) {
        board.generate_moves(|moves| {
            for m in moves {
                let mut child = board.clone();
                child.play_unchecked(m);
                f(child);
            }
            false
        });
    }
}

struct ChessCrate;

impl Engine for ChessCrate {
    const NAME: &'static str = "chess";
    type Board = chess::Board;

    fn parse(fen: &str) -> Self::Board {
        fen.parse().expect("chess parses the FEN")
    }

    fn count_moves(board: &Self::Board) -> u64 {
        chess::MoveGen::new_legal(board).len() as u64
    }

    fn for_each_child(board: &Self::Board, mut f: impl FnMut(Self::Board)) {
        for m in chess::MoveGen::new_legal(board) {
            f(board.make_move_new(m));
        }
    }
}

/// An engine with one position already parsed: runs perft in either mode.
type Runner = Box<dyn Fn(Mode, u32) -> u64>;

fn runner<E: Engine>(fen: &str) -> Runner {
    let board = E::parse(fen);
    Box::new(move |mode, depth| match mode {
        Mode::Bulk => E::bulk(&board, depth),
        Mode::Played => E::played(&board, depth),
    })
}

/// Parses a FEN into a [`Runner`].
type NewRunner = fn(&str) -> Runner;

/// Engine names and constructors, arbiter first: the ratio columns compare
/// it with each of the others.
const ENGINES: [(&str, NewRunner); 4] = [
    (Arbiter::NAME, runner::<Arbiter>),
    (Shakmaty::NAME, runner::<Shakmaty>),
    (Cozy::NAME, runner::<Cozy>),
    (ChessCrate::NAME, runner::<ChessCrate>),
];

/// The depths of each plan.
impl Plan {
    /// The depth of `case` in `mode`: in full, the one given in `CASES`; in
    /// quick, one ply shallower and not repeated, for a smoke test; in test,
    /// depth 3 at most, not repeated, only to check the counts.
    fn depth(self, case: &Case, mode: Mode) -> Depth {
        let full = match mode {
            Mode::Bulk => case.bulk,
            Mode::Played => case.played,
        };
        match self {
            Plan::Full { .. } => full,
            Plan::Quick { .. } => depth(full.depth - 1, 1),
            Plan::Test => depth(full.depth.min(3), 1),
        }
    }
}

/// Median times of one position in one mode, one per engine, in `ENGINES`
/// order.
struct Row {
    case: &'static str,
    mode: Mode,
    depth: Depth,
    /// Nodes counted per sample: the perft count times the repetitions.
    nodes: u64,
    medians: Vec<Duration>,
    /// Slowest sample over fastest, per engine: a rough noise gauge.
    spreads: Vec<f64>,
}

/// Runs one sample of `runner`, checking every count, and returns how long
/// it took.
fn sample(runner: &Runner, engine: &str, case: &Case, mode: Mode, d: Depth) -> Duration {
    let expected = case.nodes(d.depth);
    let start = Instant::now();
    for _ in 0..d.reps {
        let nodes = black_box(runner(black_box(mode), black_box(d.depth)));
        assert_eq!(
            nodes,
            expected,
            "{engine} counts {nodes} nodes for {} {} at depth {}, expected {expected}",
            case.name,
            mode.name(),
            d.depth,
        );
    }
    start.elapsed()
}

fn measure(plan: Plan, case: &Case, mode: Mode) -> Row {
    let d = plan.depth(case, mode);
    let runners: Vec<Runner> = ENGINES.iter().map(|(_, new)| new(case.fen)).collect();

    // Warm-up, and the count check for the test plan.
    for (runner, (name, _)) in runners.iter().zip(ENGINES) {
        sample(runner, name, case, mode, d);
    }

    let times = common::interleave(plan.samples(), runners.len(), |i| {
        sample(&runners[i], ENGINES[i].0, case, mode, d)
    });
    let (medians, spreads) = times.into_iter().map(common::median_and_spread).unzip();
    let nodes = case.nodes(d.depth) * u64::from(d.reps);
    Row { case: case.name, mode, depth: d, nodes, medians, spreads }
}

fn mnps(nodes: u64, time: Duration) -> f64 {
    nodes as f64 / time.as_secs_f64() / 1e6
}

/// One markdown table line: position, mode, depth, nodes, Mnodes/s per
/// engine, then arbiter's throughput over each other engine's.
fn table_line(
    out: &mut String,
    case: &str,
    mode: &str,
    depth: &str,
    nodes: u64,
    times: &[Duration],
) {
    let _ = write!(out, "| {case} | {mode} | {depth} | {nodes} |");
    for &t in times {
        let _ = write!(out, " {:.1} |", mnps(nodes, t));
    }
    for &t in &times[1..] {
        let _ = write!(out, " {:.2} |", t.as_secs_f64() / times[0].as_secs_f64());
    }
    out.push('\n');
}

fn report(plan: Plan, rows: &[Row]) -> String {
    let mut out = String::new();
    let names: Vec<&str> = ENGINES.iter().map(|(name, _)| *name).collect();

    let _ = write!(out, "| position | mode | depth | nodes |");
    for name in &names {
        let _ = write!(out, " {name} Mnps |");
    }
    for name in &names[1..] {
        let _ = write!(out, " arbiter/{name} |");
    }
    out.push('\n');
    out.push_str(&"|---".repeat(4 + names.len() * 2 - 1));
    out.push_str("|\n");

    for mode in [Mode::Bulk, Mode::Played] {
        let rows: Vec<&Row> = rows.iter().filter(|r| r.mode == mode).collect();
        for r in &rows {
            table_line(&mut out, r.case, mode.name(), &r.depth.to_string(), r.nodes, &r.medians);
        }
        let nodes = rows.iter().map(|r| r.nodes).sum();
        let totals: Vec<Duration> =
            (0..names.len()).map(|i| rows.iter().map(|r| r.medians[i]).sum()).collect();
        table_line(&mut out, "**total**", mode.name(), "", nodes, &totals);
    }

    let _ = writeln!(out, "\nMedian time in ms (slowest sample / fastest in brackets):\n");
    let _ = write!(out, "| position | mode |");
    for name in &names {
        let _ = write!(out, " {name} |");
    }
    out.push('\n');
    out.push_str(&"|---".repeat(2 + names.len()));
    out.push_str("|\n");
    for r in rows {
        let _ = write!(out, "| {} | {} |", r.case, r.mode.name());
        for (t, s) in r.medians.iter().zip(&r.spreads) {
            let _ = write!(out, " {:.1} ({s:.2}) |", t.as_secs_f64() * 1e3);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\n{} samples per engine, median reported. Depth d (×k): perft(d) runs k times per \
         sample; nodes are per sample. Mnps = million nodes per second. arbiter/X is \
         arbiter's throughput over X's: above 1, arbiter is faster.",
        plan.samples()
    );
    out
}

fn main() {
    let plan = Plan::from_args();
    if let Plan::Test = plan {
        for case in &CASES {
            for mode in [Mode::Bulk, Mode::Played] {
                measure(plan, case, mode);
            }
        }
        println!("perft bench: counts checked for all engines (run with `cargo bench` to time)");
        return;
    }

    let load_before = common::load_average();
    let mut rows = Vec::new();
    for mode in [Mode::Bulk, Mode::Played] {
        for case in &CASES {
            let row = measure(plan, case, mode);
            eprintln!(
                "{:>8} {:<6} depth {}: {}",
                row.case,
                mode.name(),
                row.depth,
                ENGINES
                    .iter()
                    .zip(&row.medians)
                    .map(|((name, _), t)| format!("{name} {:.1} ms", t.as_secs_f64() * 1e3))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            rows.push(row);
        }
    }
    print!("{}", report(plan, &rows));
    println!("Load average before: {load_before}; after: {}.", common::load_average());
}
