//! What the analysis of a game costs: an [`Analyzer`] fed every ply of the
//! games of the shared lichess sample (438 games, `[%clk]` on every move),
//! against what the replay that produces the plies does anyway (count the
//! legal moves, play the move). Asserts what it measures: the openings
//! named. Without the shared data it measures the generated games of
//! `tests/data/analysis.jsonl` instead.
//!
//! Run: `cargo bench -p arbiter-chess --bench analysis`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter_chess::{Analyzer, Color, Move, Position, San, UciMove, load_openings};
use arbiter_pgn::{GameReader, ReaderOptions, clock_report, parse_game};

/// One ply as a replay hands it to the analyzer: the move, the board
/// after it, the legal moves before it and the time it took.
type Ply = (Move, Position, usize, Option<u64>);

/// One game: its start and its plies.
struct Game {
    start: Position,
    plies: Vec<Ply>,
}

fn lichess_sample() -> Option<Vec<Game>> {
    let dir = std::env::var_os("ARBITER_TEST_DATA").map(PathBuf::from).or_else(|| {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        here.ancestors().map(|d| d.join("shared/data")).find(|d| d.is_dir())
    })?;
    let text = std::fs::read(dir.join("pgn/shakmaty/lichess_db_1000k.pgn")).ok()?;
    let mut games = Vec::new();
    for raw in GameReader::new(&text[..], ReaderOptions::default()) {
        let game = parse_game(raw.ok()?.text.ok()?);
        let moves = &game.mainline.moves;
        let elapsed = clock_report(&game, moves.len(), Color::White, 1000)
            .map(|r| r.elapsed_ms)
            .unwrap_or_default();
        let mut pos = Position::default();
        let mut plies = Vec::new();
        for (i, node) in moves.iter().enumerate() {
            let san: San = game.str(node.text).parse().ok()?;
            let m = san.to_move(&pos).ok()?;
            let legal = pos.legal_moves().len();
            pos = pos.play(m);
            plies.push((m, pos.clone(), legal, elapsed.get(i).copied().flatten()));
        }
        games.push(Game { start: Position::default(), plies });
    }
    Some(games)
}

fn generated() -> Vec<Game> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis.jsonl");
    let text = std::fs::read_to_string(path).expect("tests/data/analysis.jsonl");
    let mut games = Vec::new();
    for line in text.lines().filter(|l| !l.contains("\"lichess\"")) {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let start: Position =
            record["fen"].as_str().map_or_else(Position::default, |f| f.parse().unwrap());
        let mut pos = start.clone();
        let mut plies = Vec::new();
        let times = record["times"].as_array().unwrap();
        for (uci, ms) in record["moves"].as_array().unwrap().iter().zip(times) {
            let m = uci.as_str().unwrap().parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            let legal = pos.legal_moves().len();
            pos = pos.play(m);
            plies.push((m, pos.clone(), legal, ms.as_u64()));
        }
        games.push(Game { start, plies });
    }
    games
}

/// The best of `rounds` timings of `f`, divided by `games`.
fn best(rounds: usize, games: usize, mut f: impl FnMut()) -> Duration {
    let fastest = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default();
    fastest / u32::try_from(games).unwrap_or(u32::MAX)
}

/// ARBITER_BENCH_SKIP_ANALYSED=1 leaves out the replay with the analyzer
/// (for counting instructions with and without it).
fn skip_analysed() -> bool {
    std::env::var_os("ARBITER_BENCH_SKIP_ANALYSED").is_some()
}

fn analyse(g: &Game) -> arbiter_chess::GameAnalysis {
    let mut analyzer = Analyzer::new(&g.start.clone().into());
    for (_, after, legal, ms) in &g.plies {
        analyzer.push(after, *legal, *ms);
    }
    analyzer.finish()
}

fn main() {
    let t = Instant::now();
    load_openings();
    let load = t.elapsed();
    let (source, games, expect_named) = match lichess_sample() {
        // 438 games, 5 of them without moves.
        Some(games) => ("lichess sample", games, 433),
        None => ("generated games", generated(), 204),
    };
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    let named = games.iter().filter(|g| analyse(g).opening.is_some()).count();
    assert_eq!(named, expect_named, "openings named in the {source}");

    // ARBITER_BENCH_ROUNDS=1 with `perf stat -e instructions` counts
    // instructions rather than time (each loop once).
    let rounds =
        std::env::var("ARBITER_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(30);
    // The analyzer over stored boards, as a caller with the positions at
    // hand would run it (every board read from memory).
    let stored = best(rounds, games.len(), || {
        for g in &games {
            black_box(analyse(black_box(g)));
        }
    });
    // What a replay does per ply anyway (count the legal moves, play the
    // move), without and with the analyzer fed the board it just made:
    // the difference is what the analysis adds to a replay.
    let replay = best(rounds, games.len(), || {
        for g in &games {
            let mut pos = g.start.clone();
            for (m, _, _, _) in &g.plies {
                black_box(pos.legal_moves().len());
                pos = pos.play(*m);
            }
            black_box(&pos);
        }
    });
    let replay_analysed = best(if skip_analysed() { 0 } else { rounds }, games.len(), || {
        for g in &games {
            let mut pos = g.start.clone();
            let mut analyzer = Analyzer::new(&pos.clone().into());
            for (m, _, _, ms) in &g.plies {
                let legal = black_box(pos.legal_moves().len());
                pos = pos.play(*m);
                analyzer.push(&pos, legal, *ms);
            }
            black_box(analyzer.finish());
        }
    });
    let analysis = replay_analysed.saturating_sub(replay);
    let per_ply = analysis.as_secs_f64() * 1e9 * games.len() as f64 / plies as f64;
    println!(
        "{source}: {} games, {plies} plies; table read in {:.1} ms",
        games.len(),
        load.as_secs_f64() * 1e3
    );
    println!(
        "analysis in a replay +{:.2} µs a game ({per_ply:.1} ns a ply): legal moves + play \
         {:.2} µs, with the analyzer {:.2} µs (+{:.0}%); over stored boards {:.2} µs",
        analysis.as_secs_f64() * 1e6,
        replay.as_secs_f64() * 1e6,
        replay_analysed.as_secs_f64() * 1e6,
        100.0 * analysis.as_secs_f64() / replay.as_secs_f64(),
        stored.as_secs_f64() * 1e6,
    );
}
