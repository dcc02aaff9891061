//! The validate workload (DESIGN.md §4): seeded random games from the start
//! position, replayed move by move by arbiter, shakmaty 0.30.1 and
//! cozy-chess 0.3 in one run, and by the `arbiter validate --batch` binary.
//!
//! The workload is 2,000 games of up to 200 plies, each move chosen at
//! random among the legal ones (fixed seed) until the game ends by a rule or
//! the ply limit is reached. Per game, each engine starts from the start
//! position and, token by token, parses the move, finds the legal move it
//! names, plays it, writes it back and keeps what the outcome needs: the
//! game ends on checkmate, stalemate, a dead position, fivefold repetition
//! or the 75-move rule, and threefold repetition and the 50-move rule are
//! reported as claimable. Two rounds:
//!
//! - **SAN**: canonical SAN (with `+`/`#`) in, canonical SAN out;
//! - **UCI**: UCI in, UCI out.
//!
//! arbiter does it all in `Game::play_text` (SAN round), `Game::play_uci`
//! (UCI round, no SAN written) and `Game::outcome`. shakmaty parses with `SanPlus`/`UciMove`,
//! writes with `SanPlus::from_move_and_play_unchecked`/`to_uci`, takes mate,
//! stalemate and dead positions from its own rules, and counts repetitions
//! with its Zobrist hash. cozy-chess has no SAN: the reader and writer here
//! are built on its legal move generator, and repetitions are counted with
//! its hash. Every output string and final outcome is checked against the
//! workload (canonical SAN, hence output = input), so all engines are seen to
//! do the same work; a mismatch panics.
//!
//! Engines are interleaved round-robin, in an order that rotates from sample
//! to sample, after a warm-up run each; a sample of an engine replays the
//! workload 4 times (once in quick mode) and counts the thread's CPU time
//! per pass (on a shared machine, wall time counts other work too). The
//! report gives median times, million plies per second, and arbiter's
//! throughput over the others' against the goals: SAN at least 3× shakmaty
//! and 1.5× cozy-chess, UCI at least 2× shakmaty.
//!
//! The same games, one line of SAN (or UCI) tokens per game, are also
//! written to a temporary file and run through `arbiter validate --batch
//! FILE` (JSON to a null sink, process start-up included), interleaved with
//! the rest and timed by the child's CPU time (user + system: the command
//! checks games on every core, so its wall time would flatter it). Its
//! throughput is compared with the other engines, against the goals of the
//! command line (SAN at least 3× shakmaty and 1.5× cozy-chess, UCI at least
//! 1.2× shakmaty: its answers carry each move's SAN as well), and with `arbiter replay()`, the same replay in process
//! (`replay`: the plies kept with SAN and UCI, the final position's
//! dead-position analysis), on the same notation (goal: 0.85 or more). The
//! bench expects a
//! release binary: run `cargo build --release` first, or point `ARBITER_BIN`
//! at one (a missing binary skips this part; a binary older than the sources
//! is reported). The first run's JSON is checked against the workload.
//!
//! Run with:
//!
//! ```text
//! cargo build --release && cargo bench --bench validate
//! cargo bench --bench validate -- --quick       # 200 games, 3 samples
//! ARBITER_BENCH_QUICK=1 cargo bench --bench validate
//! cargo bench --bench validate -- --samples 11
//! ```
//!
//! Without `--bench` on the command line (as under `cargo test --benches`),
//! a few games run once per engine, only to check the results.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/process.rs"]
mod process;
mod rivals;

use rivals::{Cozy, Shakmaty};

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use arbiter_chess::{
    Game, GameResult, MoveKind, Notation, Outcome, Played, Position, ReplayOptions, Termination,
    UciMove, replay,
};
use common::Plan;

const SEED: u64 = 0x5eed_0000_2000_0200;
const MAX_PLIES: usize = 200;

/// How a game stands at its end, in terms every engine can express.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GameEnd {
    Ongoing { fifty_move: bool, threefold: bool },
    Checkmate { white_wins: bool },
    Stalemate,
    DeadPosition,
    FivefoldRepetition,
    SeventyFiveMoveRule,
}

impl GameEnd {
    fn from_arbiter(outcome: Outcome) -> GameEnd {
        match outcome.termination {
            None => GameEnd::Ongoing {
                fifty_move: outcome.fifty_move_claimable,
                threefold: outcome.threefold_claimable,
            },
            Some(Termination::Checkmate) => {
                GameEnd::Checkmate { white_wins: outcome.result == GameResult::WhiteWins }
            }
            Some(Termination::Stalemate) => GameEnd::Stalemate,
            Some(Termination::InsufficientMaterial | Termination::DeadPosition) => {
                GameEnd::DeadPosition
            }
            Some(
                Termination::Timeout
                | Termination::TimeoutVsUnwinnable
                | Termination::IllegalMoves
                | Termination::IllegalMovesVsUnwinnable,
            ) => {
                unreachable!("no flag falls or rulings in the benchmark's games")
            }
            Some(Termination::FivefoldRepetition) => GameEnd::FivefoldRepetition,
            Some(Termination::SeventyFiveMoveRule) => GameEnd::SeventyFiveMoveRule,
            Some(
                Termination::Explosion
                | Termination::KingOfTheHill
                | Termination::ThirdCheck
                | Termination::Race
                | Termination::VariantWin,
            ) => unreachable!("the benchmark's games are standard chess"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            GameEnd::Ongoing { .. } => "ply limit",
            GameEnd::Checkmate { .. } => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::DeadPosition => "dead position",
            GameEnd::FivefoldRepetition => "fivefold",
            GameEnd::SeventyFiveMoveRule => "75-move rule",
        }
    }

    /// The game ends by the rule that holds after a move, in arbiter's order
    /// of precedence: mate, stalemate, dead position, fivefold, 75 moves.
    /// `no_moves` is asked only when one of the other rules holds.
    fn after_move(
        mated: bool,
        white_to_move: bool,
        dead: bool,
        repetitions: usize,
        halfmoves: u32,
        no_moves: impl FnOnce() -> (bool, bool),
    ) -> Option<GameEnd> {
        if mated {
            return Some(GameEnd::Checkmate { white_wins: !white_to_move });
        }
        if !(dead || repetitions >= 5 || halfmoves >= 150) {
            return None;
        }
        Some(match no_moves() {
            (true, true) => GameEnd::Checkmate { white_wins: !white_to_move },
            (true, false) => GameEnd::Stalemate,
            _ if dead => GameEnd::DeadPosition,
            _ if repetitions >= 5 => GameEnd::FivefoldRepetition,
            _ => GameEnd::SeventyFiveMoveRule,
        })
    }
}

/// One game of the workload and what every engine must make of it.
struct GameCase {
    san: Vec<String>,
    uci: Vec<String>,
    /// The tokens joined, each followed by a space: the expected output.
    san_out: String,
    uci_out: String,
    verdict: GameEnd,
    en_passant: usize,
}

/// SplitMix64: a small, portable, seeded generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// `count` random games from the start position, played with arbiter.
fn workload(count: usize) -> Vec<GameCase> {
    let mut rng = Rng(SEED);
    (0..count)
        .map(|_| {
            let mut game = Game::new(Position::default());
            let (mut san, mut uci, mut en_passant) = (Vec::new(), Vec::new(), 0);
            while san.len() < MAX_PLIES && !game.is_over() {
                let moves = game.position().legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                en_passant += usize::from(m.kind() == MoveKind::EnPassant);
                uci.push(UciMove::from_move(m).to_string());
                san.push(game.play(m).to_string());
            }
            let joined = |tokens: &[String]| tokens.iter().map(|t| format!("{t} ")).collect();
            GameCase {
                san_out: joined(&san),
                uci_out: joined(&uci),
                san,
                uci,
                verdict: GameEnd::from_arbiter(game.outcome()),
                en_passant,
            }
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Round {
    San,
    Uci,
}

impl Round {
    fn name(self) -> &'static str {
        match self {
            Round::San => "SAN",
            Round::Uci => "UCI",
        }
    }
}

/// One chess library replaying one game: appends each accepted move, written
/// back, and a space to `out`; stops at the first move it does not accept.
/// Returns the plies accepted and the final verdict.
trait Engine {
    const NAME: &'static str;
    fn san_game(tokens: &[String], out: &mut String) -> (usize, GameEnd);
    fn uci_game(tokens: &[String], out: &mut String) -> (usize, GameEnd);
}

struct Arbiter;

impl Engine for Arbiter {
    const NAME: &'static str = "arbiter";

    fn san_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        let mut game = Game::new(Position::default());
        let mut plies = 0;
        for token in tokens {
            // Only the SAN is bound: moving the whole `Played` out would copy
            // its 16 bytes at once, right after they were written field by
            // field, and wait on store forwarding every ply (perf).
            let Ok(Played { san, .. }) = game.play_text(token, Notation::San, false) else {
                break;
            };
            out.push_str(&san);
            out.push(' ');
            plies += 1;
        }
        (plies, GameEnd::from_arbiter(game.outcome()))
    }

    fn uci_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        let mut game = Game::new(Position::default());
        let mut plies = 0;
        for token in tokens {
            let Ok((m, _)) = game.play_uci(token, false) else { break };
            // Written as the service's wire encoder writes it, and as
            // cozy-chess's round writes its squares: byte by byte.
            let uci = UciMove::from_move(m);
            uci.ascii()[..uci.text_len()].iter().for_each(|&b| out.push(char::from(b)));
            out.push(' ');
            plies += 1;
        }
        (plies, GameEnd::from_arbiter(game.outcome()))
    }
}

/// arbiter's whole replay as the command line and the service run it
/// (`replay` with legal moves skipped): every ply kept with its SAN
/// and UCI, and the final position given the dead-position analysis. What
/// `arbiter validate --batch` does beyond it is reading and writing.
struct ArbiterReplay;

impl ArbiterReplay {
    fn game(tokens: &[String], notation: Notation, out: &mut String) -> (usize, GameEnd) {
        let options = ReplayOptions { notation, skip_legal_moves: true, ..Default::default() };
        let replay = replay(Position::default(), tokens, &options);
        for ply in &replay.plies {
            match notation {
                Notation::Uci => out.push_str(&ply.uci.to_string()),
                _ => out.push_str(&ply.san),
            }
            out.push(' ');
        }
        (replay.plies.len(), GameEnd::from_arbiter(replay.outcome))
    }
}

impl Engine for ArbiterReplay {
    const NAME: &'static str = "arbiter replay()";

    fn san_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        Self::game(tokens, Notation::San, out)
    }

    fn uci_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        Self::game(tokens, Notation::Uci, out)
    }
}

/// Replays every game of one round with engine `E` `passes` times, returning
/// the time per pass; then checks every output and verdict against the
/// workload.
fn run<E: Engine>(games: &[GameCase], round: Round, outs: &mut [String], passes: u32) -> Duration {
    let replay = match round {
        Round::San => E::san_game,
        Round::Uci => E::uci_game,
    };
    let mut results = Vec::with_capacity(games.len());
    let start = process::thread_cpu();
    for _ in 0..passes {
        results.clear();
        for (game, out) in games.iter().zip(outs.iter_mut()) {
            out.clear();
            let tokens = match round {
                Round::San => &game.san,
                Round::Uci => &game.uci,
            };
            results.push(replay(black_box(tokens), out));
        }
    }
    let elapsed = (process::thread_cpu() - start) / passes;
    for (i, ((game, out), &(plies, verdict))) in games.iter().zip(&*outs).zip(&results).enumerate()
    {
        let (tokens, expected) = match round {
            Round::San => (&game.san, &game.san_out),
            Round::Uci => (&game.uci, &game.uci_out),
        };
        let name = E::NAME;
        let round = round.name();
        assert_eq!(plies, tokens.len(), "{name} {round} game {i}: plies accepted");
        assert_eq!(out, expected, "{name} {round} game {i}: moves written");
        assert_eq!(verdict, game.verdict, "{name} {round} game {i}: outcome");
    }
    elapsed
}

/// The workload of each plan.
impl Plan {
    /// Games in the workload: all of them in full, fewer in quick, a few in
    /// test (only to check the results).
    fn games(self) -> usize {
        match self {
            Plan::Full { .. } => 2_000,
            Plan::Quick { .. } => 200,
            Plan::Test => 30,
        }
    }

    /// Passes over the workload per sample of an engine, so that a sample
    /// takes long enough to time steadily.
    fn passes(self) -> u32 {
        match self {
            Plan::Full { .. } => 4,
            Plan::Quick { .. } | Plan::Test => 1,
        }
    }
}

/// Something timed: an engine in a round, or a command line.
struct Job<'a> {
    name: String,
    run: Box<dyn FnMut() -> Duration + 'a>,
}

fn engine_job<'a, E: Engine>(games: &'a [GameCase], round: Round, passes: u32) -> Job<'a> {
    let mut outs: Vec<String> =
        games.iter().map(|g| String::with_capacity(g.san_out.len())).collect();
    Job {
        name: format!("{} {}", round.name(), E::NAME),
        run: Box::new(move || run::<E>(games, round, &mut outs, passes)),
    }
}

/// The `arbiter` release binary: `ARBITER_BIN`, else `target/release/arbiter`.
fn arbiter_bin() -> PathBuf {
    if let Some(bin) = env::var_os("ARBITER_BIN") {
        return bin.into();
    }
    let target = env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"), PathBuf::from);
    target.join("release").join(format!("arbiter{}", env::consts::EXE_SUFFIX))
}

/// The newest modification time of the files under `path`.
fn newest(path: &Path) -> Option<SystemTime> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    fs::read_dir(path).ok()?.filter_map(|e| newest(&e.ok()?.path())).max()
}

/// A batch file of the games in a round's notation, removed when dropped.
struct BatchFile(PathBuf);

impl BatchFile {
    fn new(games: &[GameCase], round: Round) -> BatchFile {
        let name = format!(
            "arbiter-validate-bench-{}-{:x}-{}.txt",
            std::process::id(),
            SEED,
            round.name()
        );
        let path = env::temp_dir().join(name);
        let tokens = |g: &GameCase| match round {
            Round::San => g.san.join(" "),
            Round::Uci => g.uci.join(" "),
        };
        let text: String = games.iter().map(|g| format!("{}\n", tokens(g))).collect();
        fs::write(&path, text).expect("write the batch file");
        BatchFile(path)
    }
}

impl Drop for BatchFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Checks the JSON lines of `arbiter validate --batch` against the workload.
fn check_cli_output(games: &[GameCase], stdout: &[u8], args: &[&str]) {
    let text = std::str::from_utf8(stdout).expect("the CLI writes utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), games.len(), "arbiter {args:?}: one line per game");
    for (i, (line, game)) in lines.iter().zip(games).enumerate() {
        let json: serde_json::Value = serde_json::from_str(line).expect("the CLI writes JSON");
        let sans: Vec<&str> = json["plies"]
            .as_array()
            .expect("plies")
            .iter()
            .map(|p| p["san"].as_str().expect("san"))
            .collect();
        assert_eq!(sans, game.san, "arbiter {args:?} game {i}: moves written");
        let outcome = &json["outcome"];
        let termination = outcome["termination"].as_str().unwrap_or("");
        let claims = outcome["claimableDraws"].as_array().expect("claimableDraws").len();
        let expected = match game.verdict {
            GameEnd::Ongoing { fifty_move, threefold } => {
                ("", usize::from(fifty_move) + usize::from(threefold))
            }
            GameEnd::Checkmate { .. } => ("TERMINATION_CHECKMATE", 0),
            GameEnd::Stalemate => ("TERMINATION_STALEMATE", 0),
            GameEnd::DeadPosition => ("TERMINATION_INSUFFICIENT_MATERIAL", 0),
            GameEnd::FivefoldRepetition => ("TERMINATION_FIVEFOLD_REPETITION", 0),
            GameEnd::SeventyFiveMoveRule => ("TERMINATION_SEVENTY_FIVE_MOVE_RULE", 0),
        };
        assert_eq!((termination, claims), expected, "arbiter {args:?} game {i}: outcome");
        let legal = json["position"]["legalMoves"].as_array().map_or(0, Vec::len);
        let over = !matches!(game.verdict, GameEnd::Ongoing { .. });
        let skipped = args.contains(&"--no-legal-moves");
        assert_eq!(legal == 0, skipped || over, "arbiter {args:?} game {i}: legal moves");
    }
}

/// A job running `arbiter validate --batch FILE ARGS`, output to a null
/// sink and timed by the child's CPU time; the output of a first, untimed
/// run is checked.
fn cli_job<'a>(
    bin: &'a Path,
    file: &'a Path,
    games: &'a [GameCase],
    args: &'a [&'a str],
) -> Job<'a> {
    let command = move || {
        let mut command = Command::new(bin);
        command.arg("validate").arg("--batch").arg(file).args(args);
        command
    };
    let output = command().output().expect("run the arbiter binary");
    assert!(output.status.success(), "arbiter {args:?} failed: {output:?}");
    check_cli_output(games, &output.stdout, args);
    Job {
        name: cli_name(args),
        run: Box::new(move || {
            let before = process::children_cpu();
            let status = command().stdout(Stdio::null()).status().expect("run the arbiter binary");
            let cpu = process::children_cpu() - before;
            assert!(status.success(), "arbiter {args:?} failed: {status}");
            cpu
        }),
    }
}

/// The command line of a CLI job, as reported.
fn cli_name(args: &[&str]) -> String {
    ["arbiter validate --batch FILE"].iter().chain(args).copied().collect::<Vec<_>>().join(" ")
}

/// The command lines timed, each with the round whose batch file it reads
/// and whose in-process figure it is compared with.
const CLI_ARGS: [(Round, &[&str]); 4] = [
    (Round::San, &["--notation", "san", "--no-legal-moves"]),
    (Round::Uci, &["--notation", "uci", "--no-legal-moves"]),
    (Round::San, &["--no-legal-moves"]),
    (Round::San, &[]),
];

/// Goals: (round, other engine, arbiter's throughput over theirs).
const GOALS: [(Round, &str, f64); 3] = [
    (Round::San, Shakmaty::NAME, 3.0),
    (Round::San, Cozy::NAME, 1.5),
    (Round::Uci, Shakmaty::NAME, 2.0),
];

/// The command line's goals, as [`GOALS`]: in UCI, 1.2× shakmaty, since
/// its answers carry every move's SAN too and the engines write UCI only.
const CLI_GOALS: [(Round, &str, f64); 3] = [
    (Round::San, Shakmaty::NAME, 3.0),
    (Round::San, Cozy::NAME, 1.5),
    (Round::Uci, Shakmaty::NAME, 1.2),
];

fn main() {
    let plan = Plan::from_args();
    let load_before = common::load_average();
    let games = workload(plan.games());
    let plies: usize = games.iter().map(|g| g.san.len()).sum();

    let bin = arbiter_bin();
    let batches = match plan {
        Plan::Test => None,
        _ => Some([BatchFile::new(&games, Round::San), BatchFile::new(&games, Round::Uci)]),
    };
    let mut jobs = Vec::new();
    for round in [Round::San, Round::Uci] {
        jobs.push(engine_job::<Arbiter>(&games, round, plan.passes()));
        jobs.push(engine_job::<Shakmaty>(&games, round, plan.passes()));
        jobs.push(engine_job::<Cozy>(&games, round, plan.passes()));
        jobs.push(engine_job::<ArbiterReplay>(&games, round, plan.passes()));
    }
    // Warm-up, and the result check for the test plan.
    for job in &mut jobs {
        (job.run)();
    }
    if let Plan::Test = plan {
        println!(
            "validate bench: results checked for all engines (run with `cargo bench` to time)"
        );
        return;
    }

    let mut notes = Vec::new();
    if let Some(batches) = batches.as_ref().filter(|_| bin.is_file()) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let sources =
            [root.join("src"), root.join("Cargo.lock")].iter().filter_map(|p| newest(p)).max();
        if newest(&bin) < sources {
            notes.push(format!("{} is older than the sources: rebuild it", bin.display()));
        }
        for (round, args) in CLI_ARGS {
            let batch = &batches[usize::from(round == Round::Uci)];
            jobs.push(cli_job(&bin, &batch.0, &games, args));
        }
    } else {
        notes.push(format!(
            "no binary at {}: run `cargo build --release` (or set ARBITER_BIN) for the CLI figures",
            bin.display()
        ));
    }

    let times = common::interleave(plan.samples(), jobs.len(), |i| (jobs[i].run)());
    let mut medians = Vec::with_capacity(jobs.len());
    for (job, times) in jobs.iter().zip(times) {
        let (t, spread) = common::median_and_spread(times);
        eprintln!("{:>40}: {:.1} ms (spread {spread:.2})", job.name, t.as_secs_f64() * 1e3);
        medians.push((job.name.clone(), t, spread));
    }
    let time_of = |name: &str| {
        medians.iter().find(|(n, ..)| n == name).map(|&(_, t, _)| t).expect("a measured job")
    };
    let mpps = |t: Duration| plies as f64 / t.as_secs_f64() / 1e6;

    let mut out = String::new();
    let engines = [Arbiter::NAME, Shakmaty::NAME, Cozy::NAME];
    let _ = writeln!(
        out,
        "{} games, {plies} plies ({:.1} per game), seed {SEED:#x}; {} samples, median.\n",
        games.len(),
        plies as f64 / games.len() as f64,
        plan.samples()
    );
    let _ = write!(out, "| round |");
    for e in engines {
        let _ = write!(out, " {e} Mplies/s |");
    }
    for e in &engines[1..] {
        let _ = write!(out, " arbiter/{e} (goal) |");
    }
    out.push_str("\n|---|---|---|---|---|---|\n");
    for round in [Round::San, Round::Uci] {
        let times: Vec<Duration> =
            engines.iter().map(|e| time_of(&format!("{} {e}", round.name()))).collect();
        let _ = write!(out, "| {} |", round.name());
        for &t in &times {
            let _ = write!(out, " {:.2} |", mpps(t));
        }
        for (e, &t) in engines[1..].iter().zip(&times[1..]) {
            let ratio = t.as_secs_f64() / times[0].as_secs_f64();
            let goal = GOALS.iter().find(|(r, g, _)| *r == round && g == e);
            let _ = match goal {
                Some(&(.., goal)) => {
                    let met = if ratio >= goal { "met" } else { "**missed**" };
                    write!(out, " {ratio:.2}× (≥{goal}×: {met}) |")
                }
                None => write!(out, " {ratio:.2}× (no goal) |"),
            };
        }
        out.push('\n');
    }

    let _ =
        writeln!(out, "\nMedian CPU time per pass in ms (slowest sample / fastest in brackets):\n");
    out.push_str("| job | ms | Mplies/s |\n|---|---|---|\n");
    for (name, t, spread) in &medians {
        let _ = writeln!(
            out,
            "| {name} | {:.1} ({spread:.2}) | {:.2} |",
            t.as_secs_f64() * 1e3,
            mpps(*t)
        );
    }

    if bin.is_file() {
        out.push_str(
            "\n`arbiter validate --batch FILE` (one game per line, JSON to a null sink, process \
             start included), by CPU time, against the other engines and against `arbiter \
             replay()` in process on the same notation:\n\n| command line | CPU ms | Mplies/s | \
             over shakmaty (goal) | over cozy-chess (goal) | CLI/in-process replay (goal ≥0.85) \
             |\n|---|---|---|---|---|---|\n",
        );
        let judged = |ratio: f64, goal: Option<f64>| match goal {
            Some(goal) if ratio >= goal => format!("{ratio:.2} (≥{goal}: met)"),
            Some(goal) => format!("{ratio:.2} (≥{goal}: **missed**)"),
            None => format!("{ratio:.2} (no goal)"),
        };
        for (round, args) in CLI_ARGS {
            let t = time_of(&cli_name(args));
            let over = |engine: &str| {
                time_of(&format!("{} {engine}", round.name())).as_secs_f64() / t.as_secs_f64()
            };
            // The goals hold for the bulk form, without legal moves.
            let bulk = args.contains(&"--no-legal-moves") && args.contains(&"--notation");
            let goal = |engine: &str| {
                CLI_GOALS
                    .iter()
                    .find(|&&(r, e, _)| bulk && r == round && e == engine)
                    .map(|&(.., goal)| goal)
            };
            let _ = writeln!(
                out,
                "| `{}` | {:.1} | {:.2} | {} | {} | {} |",
                cli_name(args),
                t.as_secs_f64() * 1e3,
                mpps(t),
                judged(over(Shakmaty::NAME), goal(Shakmaty::NAME)),
                judged(over(Cozy::NAME), goal(Cozy::NAME)),
                judged(over(ArbiterReplay::NAME), bulk.then_some(0.85)),
            );
        }
    }

    let mut endings: Vec<(&str, usize)> = Vec::new();
    for g in &games {
        match endings.iter_mut().find(|(name, _)| *name == g.verdict.name()) {
            Some((_, count)) => *count += 1,
            None => endings.push((g.verdict.name(), 1)),
        }
    }
    let endings: Vec<String> = endings.iter().map(|(name, c)| format!("{name} {c}")).collect();
    let _ = writeln!(out, "\nGames ended by: {}.", endings.join(", "));
    let tokens = || games.iter().flat_map(|g| &g.san);
    let count = |f: fn(&str) -> bool| tokens().filter(|t| f(t)).count();
    let _ = writeln!(
        out,
        "Moves: {} checks, {} mates, {} captures, {} castles, {} promotions, {} en passant, \
         {} disambiguated.",
        count(|t| t.ends_with('+')),
        count(|t| t.ends_with('#')),
        count(|t| t.contains('x')),
        count(|t| t.starts_with('O')),
        count(|t| t.contains('=')),
        games.iter().map(|g| g.en_passant).sum::<usize>(),
        count(|t| {
            let t = t.trim_end_matches(['+', '#']).replace('x', "");
            t.starts_with(['N', 'B', 'R', 'Q']) && t.len() > 3
        }),
    );
    for note in notes {
        let _ = writeln!(out, "Note: {note}.");
    }
    print!("{out}");
    println!("Load average before: {load_before}; after: {}.", common::load_average());
}
