//! The PGN workload (issue 20): the shared lichess and TWIC files
//! (`pgn/shakmaty/`, 438 + 1,110 games) concatenated many times, read and
//! validated by whole processes, timed by their CPU time (user + system,
//! from `getrusage(RUSAGE_CHILDREN)`) and wall time:
//!
//! - `arbiter pgn --jobs 1 -q FILE` (one thread in all, reading included);
//! - `arbiter pgn --jobs 2 -q FILE`;
//! - the anchor, `examples/pgn_anchor.rs`: pgn-reader 0.29 with shakmaty
//!   0.30.1 resolving and playing each mainline SAN, one thread;
//! - python-chess's `chess.pgn.read_game` over one copy, for scale, when
//!   `python3 -c "import chess"` works (or the interpreter `PYTHON` names).
//!
//! Every run's game count is checked. The goals: arbiter `--jobs 1` at least
//! 1.5× the anchor's games per CPU second, and `--jobs 2` at most 0.6× the
//! wall time of `--jobs 1`.
//!
//! ```text
//! cargo build --release --bin arbiter --example pgn_anchor
//! cargo bench --bench pgn                 # 20 copies, 5 samples
//! cargo bench --bench pgn -- --copies 40 --samples 7
//! ```
//!
//! Without `--bench` on the command line (as under `cargo test --benches`),
//! one copy runs once, only to check the counts.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILES: [&str; 2] = ["pgn/shakmaty/lichess_db_1000k.pgn", "pgn/shakmaty/twic1599_1000k.pgn"];
const GAMES_PER_COPY: u64 = 438 + 1110;

#[path = "common/process.rs"]
mod process;
use process::{children_cpu, data_dir, median};

/// One timed run: wall and CPU time, and what it printed.
struct Run {
    wall: Duration,
    cpu: Duration,
    stdout: String,
    stderr: String,
}

fn run(program: &Path, args: &[&str]) -> Run {
    let cpu_before = children_cpu();
    let started = Instant::now();
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|err| panic!("{}: {err}", program.display()));
    let wall = started.elapsed();
    let cpu = children_cpu() - cpu_before;
    Run {
        wall,
        cpu,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn binary(var: &str, default: &str) -> Option<PathBuf> {
    let path = env::var_os(var)
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(default), PathBuf::from);
    path.is_file().then_some(path)
}

fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let (copies, samples) =
        if bench { (flag(&args, "--copies", 20), flag(&args, "--samples", 5)) } else { (1, 1) };
    let Some(dir) = data_dir() else {
        eprintln!("skipped: shared test data not found (set ARBITER_TEST_DATA)");
        return;
    };
    let (Some(arbiter), Some(anchor)) = (
        binary("ARBITER_BIN", "target/release/arbiter"),
        binary("ANCHOR_BIN", "target/release/examples/pgn_anchor"),
    ) else {
        eprintln!("skipped: run `cargo build --release --bin arbiter --example pgn_anchor` first");
        return;
    };
    let mut one_copy = Vec::new();
    for file in FILES {
        one_copy.extend(fs::read(dir.join(file)).expect("shared PGN file"));
        one_copy.push(b'\n');
    }
    let input = env::temp_dir().join(format!("arbiter-pgn-bench-{}.pgn", std::process::id()));
    let single = env::temp_dir().join(format!("arbiter-pgn-bench-{}-1.pgn", std::process::id()));
    fs::write(&input, one_copy.repeat(copies)).expect("temporary file");
    fs::write(&single, &one_copy).expect("temporary file");
    let games = GAMES_PER_COPY * copies as u64;
    let input_arg = input.to_str().expect("a UTF-8 temporary path");
    println!(
        "{games} games ({copies} copies, {} MB), {samples} samples",
        one_copy.len() * copies / 1_000_000
    );

    let arbiter_games = |run: &Run| {
        let last = run.stderr.lines().last().unwrap_or_default().to_owned();
        assert!(last.contains(&format!("{games} games")), "arbiter pgn said: {}", run.stderr);
    };
    let (mut j1_rate, mut j1_wall, mut j2_wall, mut anchor_rate) = (vec![], vec![], vec![], vec![]);
    for sample in 0..samples {
        // Rotate the order from sample to sample.
        for step in 0..3 {
            match (sample + step) % 3 {
                0 => {
                    let r = run(&arbiter, &["pgn", "--jobs", "1", "-q", input_arg]);
                    arbiter_games(&r);
                    j1_rate.push(games as f64 / r.cpu.as_secs_f64());
                    j1_wall.push(r.wall.as_secs_f64());
                }
                1 => {
                    let r = run(&arbiter, &["pgn", "--jobs", "2", "-q", input_arg]);
                    arbiter_games(&r);
                    j2_wall.push(r.wall.as_secs_f64());
                }
                _ => {
                    let r = run(&anchor, &[input_arg]);
                    assert!(
                        r.stdout.starts_with(&format!("{games} games")),
                        "anchor said: {}",
                        r.stdout
                    );
                    anchor_rate.push(games as f64 / r.cpu.as_secs_f64());
                }
            }
        }
    }
    let (j1, anchor_median) = (median(j1_rate), median(anchor_rate));
    let (w1, w2) = (median(j1_wall), median(j2_wall));
    println!("arbiter pgn --jobs 1: {j1:>9.0} games per CPU second, {w1:.2} s wall");
    println!("arbiter pgn --jobs 2: {:>9} {w2:.2} s wall", "");
    println!("pgn-reader + shakmaty: {anchor_median:>8.0} games per CPU second");
    println!(
        "jobs 1 / anchor: {:.2}x (goal >= 1.5x); jobs 2 / jobs 1 wall: {:.2} (goal <= 0.6)",
        j1 / anchor_median,
        w2 / w1
    );
    // `PYTHON` names an interpreter with python-chess, if `python3` has none.
    let python = env::var_os("PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let has_chess = Command::new(&python)
        .args(["-c", "import chess.pgn"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if bench && has_chess {
        let script = "import sys, chess.pgn\nf = open(sys.argv[1], encoding='utf-8', errors='replace')\n\
                      n = 0\nwhile chess.pgn.read_game(f) is not None:\n    n += 1\nprint(n, 'games')\n";
        let r = run(&python, &["-c", script, single.to_str().expect("UTF-8 path")]);
        assert!(
            r.stdout.starts_with(&format!("{GAMES_PER_COPY} games")),
            "python-chess said: {}",
            r.stdout
        );
        println!(
            "python-chess read_game: {:>7.0} games per CPU second (one copy)",
            GAMES_PER_COPY as f64 / r.cpu.as_secs_f64()
        );
    }
    let _ = fs::remove_file(&input);
    let _ = fs::remove_file(&single);
}
