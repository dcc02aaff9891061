//! Time per position of the unwinnability analysis (`chess::unwinnable`),
//! quick and full mode, on the shared CHA files: the 1,081 hard dev vectors
//! and the 30,000 lichess positions. Both colours are analysed per position.
//! Reports, per file and mode, the mean and the maximum time per position
//! and the verdict counts; checks every helpmate replays to mate (a wrong
//! one panics).
//!
//! Run with (the data directory from `ARBITER_TEST_DATA`):
//!
//! ```text
//! ARBITER_TEST_DATA=/path/to/shared/data cargo bench --bench unwinnable
//! ```
//!
//! Without `--bench` on the command line (as under `cargo test --benches`)
//! only the first 50 positions of each file are analysed. Single-threaded.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use arbiter_chess::{Color, Position, SearchBudget, Winnability, analyse, replays_to_mate};

fn full_fen(text: &str) -> String {
    let mut fields: Vec<&str> = text.split_ascii_whitespace().take(6).collect();
    while (2..4).contains(&fields.len()) {
        fields.push("-");
    }
    fields.join(" ")
}

fn main() {
    let Some(dir) = std::env::var_os("ARBITER_TEST_DATA").map(PathBuf::from) else {
        eprintln!("skipped: set ARBITER_TEST_DATA to the shared data directory");
        return;
    };
    let benching = std::env::args().any(|a| a == "--bench");
    let files = [
        ("dev vectors", "unwinnability/cha/test-vector-dev.txt", 3),
        ("lichess-30K", "unwinnability/cha/lichess-30K-games.txt", 0),
    ];
    println!(
        "| file | mode | positions | mean µs/position | max ms/position | WINNABLE | UNWINNABLE | UNDETERMINED |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, path, skip) in files {
        let text = std::fs::read_to_string(dir.join(path)).expect("shared data file");
        let mut positions: Vec<Position> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                Position::from_fen_lenient_material(&full_fen(&l[skip..])).expect("a valid FEN")
            })
            .collect();
        if !benching {
            positions.truncate(50);
        }
        for (mode, budget) in [("quick", SearchBudget::QUICK), ("full", SearchBudget::FULL)] {
            let mut total = Duration::ZERO;
            let mut max = Duration::ZERO;
            let mut counts = [0usize; 3];
            for pos in &positions {
                let start = Instant::now();
                let verdicts = Color::ALL.map(|c| analyse(pos, c, budget));
                let spent = start.elapsed();
                total += spent;
                max = max.max(spent);
                for (c, v) in Color::ALL.into_iter().zip(&verdicts) {
                    match v {
                        Winnability::Winnable(line) => {
                            assert!(replays_to_mate(pos, c, line), "{pos}: {line:?}");
                            counts[0] += 1;
                        }
                        Winnability::Unwinnable => counts[1] += 1,
                        Winnability::Undetermined => counts[2] += 1,
                    }
                }
            }
            let mean = total.as_secs_f64() * 1e6 / positions.len() as f64;
            println!(
                "| {name} | {mode} | {} | {mean:.1} | {:.1} | {} | {} | {} |",
                positions.len(),
                max.as_secs_f64() * 1e3,
                counts[0],
                counts[1],
                counts[2]
            );
        }
    }
}
