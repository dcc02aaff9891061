//! What a game was, against pgn-extract (issue 48): the shared lichess and
//! TWIC files (`pgn/shakmaty/`, 438 + 1,110 games), their own `ECO`,
//! `Opening` and `Variation` tags taken out, concatenated many times, run
//! side by side by whole processes and timed by their CPU time (user +
//! system, from `getrusage(RUSAGE_CHILDREN)`), in turn:
//!
//! - `arbiter pgn --jobs 1 --json --analysis FILE`: opening, phases and
//!   time use of every game;
//! - `arbiter pgn --jobs 1 --json FILE`: the same without the analysis;
//! - `pgn-extract -s -e ECO_FILE FILE`: pgn-extract's ECO classification
//!   from its own `eco.pgn` (Debian package `pgn-extract`).
//!
//! Every run's game count is checked, and on one copy each game's ECO
//! code from arbiter (lichess's chess-openings table) is compared with
//! pgn-extract's: the tables differ, so the agreement is reported, not
//! assumed. The goals: arbiter with the analysis at least 6× pgn-extract's
//! games per CPU second, and at most 15 % more CPU than without it.
//!
//! ```text
//! cargo build --release --bin arbiter
//! cargo bench --bench pgn_extract                 # 10 copies, 5 samples
//! cargo bench --bench pgn_extract -- --copies 20 --samples 7
//! ```
//!
//! `PGN_EXTRACT` names the program (default: `pgn-extract` on the `PATH`,
//! else `/usr/games/pgn-extract`), `PGN_EXTRACT_ECO` its ECO file (default
//! `/usr/share/pgn-extract/eco.pgn`), `ARBITER_BIN` arbiter. Without any
//! of them, or without the shared data, the bench says so and skips.
//! Without `--bench` on the command line (as under `cargo test --benches`),
//! one copy runs once, only to check the counts and the agreement.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const FILES: [&str; 2] = ["pgn/shakmaty/lichess_db_1000k.pgn", "pgn/shakmaty/twic1599_1000k.pgn"];
const GAMES_PER_COPY: usize = 438 + 1110;

#[path = "common/process.rs"]
mod process;
use process::{children_cpu, data_dir, median};

/// One run: its CPU time and what it printed.
struct Run {
    cpu: Duration,
    stdout: String,
}

fn run(program: &Path, args: &[&str]) -> Run {
    let cpu_before = children_cpu();
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|err| panic!("{}: {err}", program.display()));
    let cpu = children_cpu() - cpu_before;
    Run { cpu, stdout: String::from_utf8_lossy(&out.stdout).into_owned() }
}

/// The file `var` names, else the first of `defaults` that exists (a bare
/// name is looked up on the `PATH`).
fn program(var: &str, defaults: &[&str]) -> Option<PathBuf> {
    if let Some(path) = env::var_os(var) {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let on_path = |name: &str| {
        env::split_paths(&env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
    };
    defaults.iter().find_map(|name| {
        if name.contains('/') {
            Some(PathBuf::from(name)).filter(|p| p.is_file())
        } else {
            on_path(name)
        }
    })
}

fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

/// The PGN text without its opening tags, which pgn-extract would keep or
/// replace and arbiter does not read.
fn without_opening_tags(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        let tag = [&b"[ECO "[..], b"[Opening ", b"[Variation ", b"[SubVariation "];
        if !tag.iter().any(|t| line.starts_with(t)) {
            out.extend_from_slice(line);
        }
    }
    out
}

/// Each game's ECO code in arbiter's JSON lines (`None` where it names no
/// opening).
fn arbiter_ecos(json: &str) -> Vec<Option<String>> {
    json.lines()
        .map(|line| {
            let game: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            game.pointer("/analysis/opening/eco").and_then(|v| v.as_str()).map(str::to_owned)
        })
        .collect()
}

/// Each game's `ECO` tag in pgn-extract's output (`None` where it has
/// none), a game starting at each `[Event ` tag.
fn extract_ecos(pgn: &str) -> Vec<Option<String>> {
    let mut ecos: Vec<Option<String>> = Vec::new();
    for line in pgn.lines() {
        if line.starts_with("[Event ") {
            ecos.push(None);
        } else if let (Some(eco), Some(last)) =
            (line.strip_prefix("[ECO \"").and_then(|r| r.strip_suffix("\"]")), ecos.last_mut())
        {
            *last = Some(eco.to_owned());
        }
    }
    ecos
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let (copies, samples) =
        if bench { (flag(&args, "--copies", 10), flag(&args, "--samples", 5)) } else { (1, 1) };
    let Some(dir) = data_dir().filter(|dir| FILES.iter().all(|file| dir.join(file).is_file()))
    else {
        eprintln!("skipped: the shared lichess and TWIC files not found (set ARBITER_TEST_DATA)");
        return;
    };
    let Some(extract) = program("PGN_EXTRACT", &["pgn-extract", "/usr/games/pgn-extract"]) else {
        eprintln!(
            "skipped: pgn-extract not found (apt-get install pgn-extract, or set PGN_EXTRACT)"
        );
        return;
    };
    let Some(eco_file) = program("PGN_EXTRACT_ECO", &["/usr/share/pgn-extract/eco.pgn"]) else {
        eprintln!("skipped: pgn-extract's eco.pgn not found (set PGN_EXTRACT_ECO)");
        return;
    };
    let default_arbiter = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/arbiter");
    let Some(arbiter) = program("ARBITER_BIN", &[default_arbiter.to_str().unwrap_or_default()])
    else {
        eprintln!("skipped: run `cargo build --release --bin arbiter` first (or set ARBITER_BIN)");
        return;
    };
    let mut one_copy = Vec::new();
    for file in FILES {
        one_copy.extend(without_opening_tags(&fs::read(dir.join(file)).expect("shared PGN file")));
        one_copy.push(b'\n');
    }
    let input = env::temp_dir().join(format!("arbiter-eco-bench-{}.pgn", std::process::id()));
    fs::write(&input, one_copy.repeat(copies)).expect("temporary file");
    let games = GAMES_PER_COPY * copies;
    let input_arg = input.to_str().expect("a UTF-8 temporary path");
    let eco_arg = format!("-e{}", eco_file.display());
    println!(
        "{games} games ({copies} copies, {} MB), {samples} samples",
        one_copy.len() * copies / 1_000_000
    );

    let (mut analysed, mut plain, mut extracted) = (vec![], vec![], vec![]);
    let mut outputs = (String::new(), String::new());
    for sample in 0..samples {
        // Rotate the order from sample to sample.
        for step in 0..3 {
            match (sample + step) % 3 {
                0 => {
                    let r =
                        run(&arbiter, &["pgn", "--jobs", "1", "--json", "--analysis", input_arg]);
                    assert_eq!(r.stdout.lines().count(), games, "arbiter --analysis's games");
                    analysed.push(r.cpu.as_secs_f64());
                    outputs.0 = r.stdout;
                }
                1 => {
                    let r = run(&arbiter, &["pgn", "--jobs", "1", "--json", input_arg]);
                    assert_eq!(r.stdout.lines().count(), games, "arbiter --json's games");
                    plain.push(r.cpu.as_secs_f64());
                }
                _ => {
                    let r = run(&extract, &["-s", &eco_arg, input_arg]);
                    assert_eq!(extract_ecos(&r.stdout).len(), games, "pgn-extract's games");
                    extracted.push(r.cpu.as_secs_f64());
                    outputs.1 = r.stdout;
                }
            }
        }
    }
    let _ = fs::remove_file(&input);

    // The agreement, on the first copy (every copy is the same).
    let ours = &arbiter_ecos(&outputs.0)[..GAMES_PER_COPY];
    let theirs = &extract_ecos(&outputs.1)[..GAMES_PER_COPY];
    let both: Vec<(&str, &str)> =
        ours.iter().zip(theirs).filter_map(|(a, b)| Some((a.as_deref()?, b.as_deref()?))).collect();
    let same = both.iter().filter(|(a, b)| a == b).count();
    let same_volume = both.iter().filter(|(a, b)| a.get(..2) == b.get(..2)).count();
    let named = |ecos: &[Option<String>]| ecos.iter().filter(|e| e.is_some()).count();
    println!(
        "ECO named: arbiter {} and pgn-extract {} of {GAMES_PER_COPY} games; both {}: \
         the same code {same} ({:.1} %), the same letter and tens {same_volume} ({:.1} %)",
        named(ours),
        named(theirs),
        both.len(),
        100.0 * same as f64 / both.len().max(1) as f64,
        100.0 * same_volume as f64 / both.len().max(1) as f64,
    );
    // Both tables descend from the ECO's own volumes: a game both name is
    // mostly put under the same letter and tens, whatever finer line each
    // table holds.
    assert!(2 * same_volume > both.len(), "the tables disagree on most games");

    let rate = |cpu: Vec<f64>| games as f64 / median(cpu);
    let (with, without, theirs) = (rate(analysed), rate(plain), rate(extracted));
    println!("arbiter pgn --jobs 1 --json --analysis: {with:>9.0} games per CPU second");
    println!("arbiter pgn --jobs 1 --json:            {without:>9.0} games per CPU second");
    println!("pgn-extract -e:                         {theirs:>9.0} games per CPU second");
    println!(
        "--analysis / pgn-extract: {:.2}x (goal >= 6x); --analysis CPU / --json CPU: {:.3} \
         (goal <= 1.15)",
        with / theirs,
        without / with
    );
}
