//! What the benches share (each includes it with `mod common;`): the run
//! plan read from the command line, round-robin sampling, the median and
//! spread of the samples, and the machine's load average.
//!
//! What a plan measures is each bench's own: it adds the methods that say so
//! (depths, workload sizes) in an `impl Plan` block of its own.

use std::env;
use std::fs;
use std::time::Duration;

/// How a bench was asked to run.
#[derive(Clone, Copy)]
pub enum Plan {
    /// `--bench` alone: the full workload, with a warm-up run and `samples`
    /// timed runs (7 unless `--samples N`).
    Full { samples: usize },
    /// `--bench` with `--quick` or a non-empty `ARBITER_BENCH_QUICK` other
    /// than `0`: a smaller workload for a smoke test (3 samples unless
    /// `--samples N`).
    Quick { samples: usize },
    /// No `--bench` (as under `cargo test --benches`): a small workload, one
    /// run each, results checked and nothing reported.
    Test,
}

impl Plan {
    /// The plan the command line and `ARBITER_BENCH_QUICK` ask for.
    ///
    /// # Panics
    ///
    /// On an unknown argument, or `--samples` without a positive integer.
    pub fn from_args() -> Plan {
        let mut bench = false;
        let mut quick = env::var("ARBITER_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let mut samples = None;
        let mut args = env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--bench" => bench = true,
                "--quick" => quick = true,
                "--samples" => {
                    let n = args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0);
                    samples = Some(n.expect("--samples takes a positive integer"));
                }
                other => panic!("unknown argument {other:?} (expected --quick or --samples N)"),
            }
        }
        match (bench, quick) {
            (false, _) => Plan::Test,
            (true, true) => Plan::Quick { samples: samples.unwrap_or(3) },
            (true, false) => Plan::Full { samples: samples.unwrap_or(7) },
        }
    }

    /// Timed runs per job after the warm-up: none in the test plan.
    pub fn samples(self) -> usize {
        match self {
            Plan::Full { samples } | Plan::Quick { samples } => samples,
            Plan::Test => 0,
        }
    }
}

/// Times `jobs` jobs `samples` times each, where `run(i)` runs job `i` once
/// and returns how long it took. The jobs are interleaved round-robin, in an
/// order that rotates from sample to sample, so that drift in machine load
/// is shared between them. Returns the times of each job, in job order.
pub fn interleave(
    samples: usize,
    jobs: usize,
    mut run: impl FnMut(usize) -> Duration,
) -> Vec<Vec<Duration>> {
    let mut times = vec![Vec::with_capacity(samples); jobs];
    for s in 0..samples {
        for i in (0..jobs).map(|k| (s + k) % jobs) {
            times[i].push(run(i));
        }
    }
    times
}

/// The median of one job's sample times (zero if there are none) and their
/// spread: the slowest sample over the fastest, a rough gauge of noise (1 if
/// there are none).
pub fn median_and_spread(mut times: Vec<Duration>) -> (Duration, f64) {
    times.sort_unstable();
    let spread = times
        .last()
        .zip(times.first())
        .map_or(1.0, |(hi, lo)| hi.as_secs_f64() / lo.as_secs_f64().max(f64::MIN_POSITIVE));
    (median(&times), spread)
}

/// The median of sorted durations (the mean of the middle two if even).
fn median(sorted: &[Duration]) -> Duration {
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2,
    }
}

/// The 1, 5 and 15 minute load averages, or `unknown` where the system does
/// not tell.
pub fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}
