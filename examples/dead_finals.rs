//! The dead-position analysis a replay gives a game's final position
//! (`is_dead` with the full budget, behind `per_ply_gate`),
//! timed on files of final positions, one FEN a line: the cost that
//! `arbiter validate --batch` pays at the end of the games that reach a
//! blocked pawn structure without queens or rooks.
//!
//! ```text
//! cargo build --release --example dead_finals
//! target/release/examples/dead_finals [--rounds N] [--list] [--check] FILE...
//! ```
//!
//! For each file: the gated positions, how many are dead, and the CPU time
//! of `is_dead` over all of them (the median of `--rounds` rounds, 5 by
//! default; process CPU time, single-threaded), the slowest position's
//! time and the five slowest positions (a position's time is its fastest
//! round's wall time: preemption on a shared machine only adds). `--list` prints every gated
//! position with its verdict and time (for comparing verdicts between two
//! builds); `--check` also asks `analyse` for each colour of each gated
//! position and checks that every helpmate replays to mate and that no
//! position called dead has a winnable colour (a failure exits with 1).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use arbiter_chess::{
    Color, Position, SearchBudget, Winnability, analyse, is_dead, per_ply_gate, replays_to_mate,
};

/// The CPU time this process has used so far.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: `ts` is a valid, writable timespec; the clock id is a constant
    // every Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn main() -> ExitCode {
    let mut rounds = 5;
    let mut list = false;
    let mut check = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).unwrap_or(5),
            "--list" => list = true,
            "--check" => check = true,
            _ => files.push(arg),
        }
    }
    let mut ok = true;
    println!(
        "| file | positions | gated | dead | CPU ms (median of {rounds}) | max ms/position (best round) | rounds' CPU ms |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let all: Vec<Position> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.parse().unwrap_or_else(|e| panic!("{l}: {e}")))
            .collect();
        let gated: Vec<&Position> = all.iter().filter(|p| per_ply_gate(p)).collect();
        let mut totals = Vec::new();
        let mut times = vec![Duration::MAX; gated.len()];
        let mut dead = vec![false; gated.len()];
        for _ in 0..rounds {
            let start = cpu_time();
            for (i, pos) in gated.iter().enumerate() {
                let t = Instant::now();
                dead[i] = is_dead(pos, SearchBudget::FULL);
                times[i] = times[i].min(t.elapsed());
            }
            totals.push(cpu_time() - start);
        }
        totals.sort();
        let median = totals[totals.len() / 2];
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let max = times.iter().max().copied().unwrap_or_default();
        let rounds_ms: Vec<String> = totals.iter().map(|d| format!("{:.1}", ms(*d))).collect();
        println!(
            "| {file} | {} | {} | {} | {:.1} | {:.2} | {} |",
            all.len(),
            gated.len(),
            dead.iter().filter(|d| **d).count(),
            ms(median),
            ms(max),
            rounds_ms.join(" ")
        );
        let mut order: Vec<usize> = (0..gated.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(times[i]));
        for &i in order.iter().take(5) {
            eprintln!("  slow: {:.2} ms {} {}", ms(times[i]), dead[i], gated[i]);
        }
        if list {
            for (i, pos) in gated.iter().enumerate() {
                eprintln!("  {} {:.3} {pos}", if dead[i] { "DEAD" } else { "ALIVE" }, ms(times[i]));
            }
        }
        if check {
            for (i, pos) in gated.iter().enumerate() {
                for c in Color::ALL {
                    match analyse(pos, c, SearchBudget::FULL) {
                        Winnability::Winnable(line) => {
                            if !replays_to_mate(pos, c, &line) {
                                eprintln!("BAD helpmate for {c:?}: {pos} {line:?}");
                                ok = false;
                            }
                            if dead[i] {
                                eprintln!("BAD: called dead, yet {c:?} mates: {pos}");
                                ok = false;
                            }
                        }
                        Winnability::Unwinnable | Winnability::Undetermined => {}
                    }
                }
            }
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
