//! The PGN reader, validation and export (`arbiter::pgn`) and the
//! `arbiter pgn` command:
//!
//! - every file of the shared `pgn/` data read, with what each must give
//!   (skipped with a message when the data is absent);
//! - the mainlines of the real games replayed by shakmaty 0.30.1 as well:
//!   same SAN, same stopping point, same final position;
//! - export then import gives the same games (a property test over random
//!   games with comments, NAGs and nested variations);
//! - the command line: compressed inputs, order with several jobs, JSON
//!   lines, the summary, exit statuses.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arbiter_chess::{IllegalReason, Move, Position, san};
use arbiter_pgn::{
    CheckOptions, GameReader, GameReport, Line, ReaderOptions, check_game, check_game_for_counts,
    check_game_with, read_in_chunks, write_canonical,
};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom as _;
use rand::{Rng, SeedableRng};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen};

use crate::common;
use crate::common::TestResult;

/// Reads and checks every game of `text`.
fn reports(text: &[u8]) -> Vec<GameReport> {
    GameReader::new(text, ReaderOptions::default())
        .map(|raw| check_game(raw.expect("reading from memory does not fail")))
        .collect()
}

/// Checks that the fast paths of `arbiter pgn` give what [`reports`] gives:
/// games read in pieces (of 4 KiB here: `--jobs N` reads pieces on N
/// threads) and joined are the same games, checking without writing the
/// mainline's SAN gives the same verdicts, and the summary's reading and
/// checking (no lines, comments or tags but the checks', a flag fall proven
/// only where the stated result turns on it) counts each game as they do.
fn assert_fast_paths_agree(text: &[u8], label: &str) {
    let summary: Vec<_> = GameReader::new(text, ReaderOptions::default()).for_summary().collect();
    let full = reports(text);
    assert_eq!(full.len(), summary.len(), "{label}");
    for (full, raw) in full.iter().zip(summary) {
        let counted = check_game_for_counts(
            raw.unwrap(),
            CheckOptions { read_clocks: false, ..CheckOptions::DEFAULT },
        );
        let counts = |report: &GameReport| {
            report
                .verdict
                .as_ref()
                .map(|v| {
                    (
                        v.plies,
                        v.is_valid(),
                        v.result_consistent,
                        v.illegal_move.clone(),
                        v.variation_errors.clone(),
                    )
                })
                .map_err(ToString::to_string)
        };
        assert_eq!(counts(full), counts(&counted), "{label}: game {}", full.index);
    }
    let whole: Vec<_> =
        GameReader::new(text, ReaderOptions::default()).map(Result::unwrap).collect();
    let only = read_in_chunks(text, ReaderOptions::default(), 4 << 10).unwrap();
    let cut = |g: &arbiter_pgn::RawGame| (g.index, g.line, g.text.clone());
    assert_eq!(
        whole.iter().map(cut).collect::<Vec<_>>(),
        only.iter().map(cut).collect::<Vec<_>>(),
        "{label}"
    );
    for (raw, raw_only) in whole.into_iter().zip(only) {
        let (loud, quiet) =
            (check_game(raw), check_game_with(raw_only, false, CheckOptions::DEFAULT));
        assert_eq!(loud.verdict, quiet.verdict, "{label}: game {}", loud.index);
    }
}

/// The canonical PGN of every readable game of `reports`.
fn canonical(reports: &[GameReport]) -> Vec<u8> {
    let mut out = Vec::new();
    for report in reports {
        if let (Some(game), Ok(verdict)) = (&report.game, &report.verdict) {
            write_canonical(game, verdict, &mut out);
        }
    }
    out
}

/// A line's moves as canonical SAN, its NAGs and normalised comments, and
/// its variations, for comparing games read twice.
fn shape(game: &arbiter_pgn::PgnGame, line: &Line) -> String {
    let words = |span| game.str(span).split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for &span in &line.comments {
        out += &format!("{{{}}} ", words(span));
    }
    for node in &line.moves {
        let Some(san) = node.san else { break };
        out += san.as_str();
        for nag in node.nags() {
            out += &format!(" ${nag}");
        }
        for span in node.comments() {
            out += &format!(" {{{}}}", words(span).replace('}', ")"));
        }
        for variation in node.variations() {
            if variation.moves.first().is_some_and(|m| m.san.is_some())
                || !variation.comments.is_empty()
            {
                out += &format!(" ({})", shape(game, variation));
            }
        }
        out += " ";
    }
    out
}

/// Checks that exporting `reports` and reading the export back gives the
/// same games, and that exporting those gives the same text.
fn assert_round_trip(reports: &[GameReport], label: &str) {
    let exported = canonical(reports);
    for (i, line) in exported.split(|&b| b == b'\n').enumerate() {
        let is_tag = line.first() == Some(&b'[');
        assert!(is_tag || line.len() <= 80, "{label}: export line {i} is {} long", line.len());
    }
    let again = self::reports(&exported);
    let readable: Vec<&GameReport> =
        reports.iter().filter(|r| r.game.is_some() && r.verdict.is_ok()).collect();
    assert_eq!(again.len(), readable.len(), "{label}: games after the round trip");
    for (before, after) in readable.iter().zip(&again) {
        let (game, verdict) = (before.game.as_ref().unwrap(), before.verdict.as_ref().unwrap());
        let (game2, verdict2) = (after.game.as_ref().unwrap(), after.verdict.as_ref().unwrap());
        assert_eq!(
            shape(game2, &game2.mainline),
            shape(game, &game.mainline),
            "{label}: game {}",
            before.index
        );
        assert_eq!(verdict2.plies, verdict.plies, "{label}: game {}", before.index);
        assert_eq!(verdict2.position, verdict.position, "{label}: game {}", before.index);
        assert_eq!(verdict2.outcome, verdict.outcome, "{label}: game {}", before.index);
        for (name, value) in game.tags() {
            if name != "Result" {
                assert_eq!(game2.tag(&name).as_deref(), Some(&*value), "{label}: tag {name}");
            }
        }
    }
    assert_eq!(canonical(&again), exported, "{label}: the export of the export differs");
}

/// What a shared PGN file must give.
struct Expect {
    file: &'static str,
    games: usize,
    /// Games whose every line is legal and whose result fits.
    valid: usize,
}

const FILES: &[Expect] = &[
    Expect { file: "pgn/shakmaty/lichess_db_1000k.pgn", games: 438, valid: 438 },
    // Four games go on after a dead position (bare kings and a minor
    // piece): the moves after it are GAME_OVER, as ValidateGame says.
    Expect { file: "pgn/shakmaty/twic1599_1000k.pgn", games: 1110, valid: 1106 },
    Expect { file: "pgn/scalachess/FWWRC.pgn", games: 605, valid: 605 },
    Expect { file: "pgn/python-chess/kasparov-deep-blue-1997.pgn", games: 6, valid: 6 },
    Expect { file: "pgn/python-chess/molinari-bordais-1979.pgn", games: 1, valid: 1 },
    // `Z0`, a null move, is no move of the game.
    Expect { file: "pgn/python-chess/anastasian-lewis.pgn", games: 1, valid: 0 },
    // A blank line between its tags: one game.
    Expect { file: "pgn/python-chess/chessbase-empty-line.pgn", games: 1, valid: 1 },
    Expect { file: "pgn/python-chess/nepomniachtchi-liren-game1.pgn", games: 1, valid: 1 },
    Expect { file: "pgn/python-chess/stockfish-learning.pgn", games: 1, valid: 1 },
    Expect { file: "pgn/python-chess/uci-moves.pgn", games: 1, valid: 1 },
    Expect { file: "pgn/python-chess/utf8-bom.pgn", games: 2, valid: 2 },
    // Chess960 games (X-FEN start positions, O-O in the movetext).
    Expect { file: "pgn/python-chess/cutechess-fischerrandom.pgn", games: 4, valid: 4 },
];

fn read_file(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap_or_else(|err| panic!("{file}: {err}"))
}

#[test]
fn every_shared_pgn_file_reads_as_expected() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let listed = common::shared_pgn_files(&dir);
    assert_eq!(listed.len(), FILES.len(), "every file of pgn/ has its expectation: {listed:?}");
    for expect in FILES {
        let text = read_file(&dir, expect.file);
        let reports = reports(&text);
        let events = text
            .split(|&b| b == b'\n')
            .filter(|l| l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l).starts_with(b"[Event "))
            .count();
        assert_eq!(reports.len(), expect.games, "{}: games", expect.file);
        assert_eq!(events, expect.games, "{}: [Event tags", expect.file);
        let valid =
            reports.iter().filter(|r| r.verdict.as_ref().is_ok_and(|v| v.is_valid())).count();
        assert_eq!(valid, expect.valid, "{}: valid games", expect.file);
        for report in &reports {
            let game = report.game.as_ref().expect("no game over the limit");
            if let Ok(verdict) = &report.verdict {
                assert!(verdict.result_consistent, "{}: game {} result", expect.file, report.index);
                assert!(
                    verdict.variation_errors.is_empty(),
                    "{}: game {}",
                    expect.file,
                    report.index
                );
                if let Some(illegal) = &verdict.illegal_move {
                    let expected = if expect.file.contains("anastasian") {
                        IllegalReason::Unparseable
                    } else {
                        IllegalReason::GameOver
                    };
                    assert_eq!(illegal.reason, expected, "{}: game {}", expect.file, report.index);
                }
            } else {
                panic!("{}: game {} unreadable: {:?}", expect.file, report.index, report.verdict);
            }
            if expect.file.contains("lichess") {
                // lichess writes the clock after every move.
                assert!(
                    game.mainline.moves.iter().all(|m| game.times(m).clk.is_some()),
                    "{}: clocks",
                    expect.file
                );
            }
        }
        assert_round_trip(&reports, expect.file);
        assert_fast_paths_agree(&text, expect.file);
    }
    // The files' particular features.
    // The data's README promises variations here, but the file has none:
    // its comments are what is checked (variations: the property test).
    let engine = reports(&read_file(&dir, "pgn/python-chess/stockfish-learning.pgn"));
    let game = engine[0].game.as_ref().unwrap();
    assert!(game.mainline.moves.iter().all(|m| m.comments().count() == 1), "a comment a move");
    let from_fen = reports(&read_file(&dir, "pgn/python-chess/molinari-bordais-1979.pgn"));
    assert!(from_fen[0].verdict.as_ref().unwrap().plies > 0);
    let uci = reports(&read_file(&dir, "pgn/python-chess/uci-moves.pgn"));
    let uci_game = uci[0].game.as_ref().unwrap();
    assert_eq!(uci_game.str(uci_game.mainline.moves[0].text), "g1f3");
    assert_eq!(uci_game.mainline.moves[0].san.unwrap(), "Nf3");
    Ok(())
}

/// lichess ends a game lost on time with `[Termination "Time forfeit"]`
/// and its own verdict on whether the winner could still mate: the flag
/// fall Arbiter applies to the side to move must agree with every one of
/// them, the two draws included.
#[test]
fn lichess_losses_on_time_end_by_the_flag_fall_rule() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let text = read_file(&dir, "pgn/shakmaty/lichess_db_1000k.pgn");
    let mut terminations = std::collections::BTreeMap::new();
    for report in reports(&text) {
        let game = report.game.as_ref().expect("no game over the limit");
        if game.tag("Termination").as_deref() != Some("Time forfeit") {
            continue;
        }
        let verdict = report.verdict.as_ref().expect("a readable game");
        assert!(verdict.result_consistent, "game {}", report.index);
        let termination = verdict.outcome.termination.expect("a flag fall ends the game");
        *terminations.entry(termination.as_str()).or_insert(0) += 1;
    }
    let expected = [("timeout", 136), ("timeout_vs_unwinnable", 2)];
    assert_eq!(terminations.into_iter().collect::<Vec<_>>(), expected);
    Ok(())
}

/// shakmaty's SAN of each mainline move, up to the first it cannot play,
/// and the position there.
fn shakmaty_mainline(start: Option<&str>, tokens: &[String]) -> (Vec<String>, String) {
    let mut pos: Chess = match start {
        Some(fen) => {
            Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap()
        }
        None => Chess::default(),
    };
    let mut sans = Vec::new();
    for token in tokens {
        if pos.is_game_over() {
            break;
        }
        let m = match token.parse::<shakmaty::uci::UciMove>() {
            Ok(uci) => uci.to_move(&pos).ok(),
            Err(_) => token.parse::<SanPlus>().ok().and_then(|s: SanPlus| s.san.to_move(&pos).ok()),
        };
        let Some(m) = m else { break };
        sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    (sans, Fen::from_position(&pos, EnPassantMode::Always).to_string())
}

#[test]
fn mainlines_agree_with_shakmaty() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let mut plies = 0;
    for expect in FILES.iter().filter(|e| !e.file.contains("fischerrandom")) {
        let text = read_file(&dir, expect.file);
        for report in reports(&text) {
            let game = report.game.as_ref().unwrap();
            let verdict = report.verdict.as_ref().unwrap();
            let tokens: Vec<String> =
                game.mainline.moves.iter().map(|m| game.str(m.text).into_owned()).collect();
            let fen = game.tag("FEN");
            let (sans, final_fen) = shakmaty_mainline(fen.as_deref(), &tokens);
            let ours: Vec<&str> = game
                .mainline
                .moves
                .iter()
                .filter_map(|m| m.san.as_ref().map(|s| s.as_str()))
                .collect();
            let label = format!("{} game {} (line {})", expect.file, report.index, report.line);
            assert_eq!(ours, sans, "{label}");
            assert_eq!(verdict.plies, sans.len(), "{label}");
            assert_eq!(verdict.position.to_string(), final_fen, "{label}");
            assert_eq!(verdict.illegal_move.is_some(), sans.len() < tokens.len(), "{label}");
            plies += sans.len();
        }
    }
    assert!(plies > 100_000, "{plies} plies compared");
    Ok(())
}

/// A random legal move of `pos`, if any.
fn random_move(pos: &Position, rng: &mut SmallRng) -> Option<Move> {
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    moves.choose(rng).copied()
}

const WORDS: &[&str] =
    &["good", "a (bracket)", "[%clk 0:01:02]", "{nested", "x;y", "long", "%", "\"q\""];

/// Writes a random line of up to `plies` moves from `pos` (ply `ply` of the
/// game), in the loose forms readers meet: numbers or none, glued or not,
/// suffixes, NAGs, comments, and variations `depth` levels deep.
fn random_line(
    pos: &Position,
    ply: usize,
    plies: usize,
    depth: usize,
    rng: &mut SmallRng,
    out: &mut String,
) {
    let mut pos = pos.clone();
    for i in 0..plies {
        let Some(m) = random_move(&pos, rng) else { break };
        let ply = ply + i;
        let number = ply / 2 + 1;
        match (ply % 2, rng.random_range(0..4)) {
            (0, 0) => *out += &format!("{number}."),
            (0, 1 | 2) => *out += &format!("{number}. "),
            (1, 0) => *out += &format!("{number}... "),
            (1, 1) => *out += &format!("{number}. ... "),
            _ => {}
        }
        let written =
            if rng.random_bool(0.2) { m.to_string() } else { san(&pos, m).as_str().to_owned() };
        *out += &written;
        if rng.random_bool(0.1) {
            *out += ["!", "?", "!!", "??", "!?", "?!"].choose(rng).unwrap();
        }
        *out += " ";
        if rng.random_bool(0.1) {
            *out += &format!("${} ", rng.random_range(0..256));
        }
        if rng.random_bool(0.2) {
            let words: Vec<&str> =
                (0..rng.random_range(0..12)).map(|_| *WORDS.choose(rng).unwrap()).collect();
            *out += &format!("{{{}}} ", words.join(" "));
        }
        if depth > 0 && rng.random_bool(0.15) {
            *out += "( ";
            random_line(&pos, ply, rng.random_range(1..6), depth - 1, rng, out);
            *out += ") ";
        }
        pos = pos.play(m);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn export_then_import_gives_the_same_games(seed: u64, games in 1usize..4) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut text = String::new();
        for g in 0..games {
            text += &format!("[Event \"g{g} \\\"quoted\\\" \\\\\"]\n[Site \"?\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[Annotator \"x\"]\n\n");
            random_line(&Position::default(), 0, rng.random_range(0..120), 3, &mut rng, &mut text);
            text += "*\n\n";
        }
        let reports = reports(text.as_bytes());
        prop_assert_eq!(reports.len(), games);
        for report in &reports {
            let verdict = report.verdict.as_ref().unwrap();
            prop_assert!(verdict.illegal_move.is_none(), "{:?}\n{}", verdict.illegal_move, text);
            prop_assert!(verdict.variation_errors.is_empty(), "{:?}\n{}", verdict.variation_errors, text);
        }
        assert_round_trip(&reports, &text);
        assert_fast_paths_agree(text.as_bytes(), &text);
    }
}

#[test]
fn reading_survives_bad_games_and_goes_on() {
    let text = "[Event \"a\"]\n[FEN \"not a fen\"]\n\n1. e4 *\n\
                [Event \"b\"]\n[Variant \"bughouse\"]\n\n1. e4 *\n\
                [Event \"c\"]\n\n1. e4 e5 2. Qh5 Ke7 3. Qxe5# 1-0\n\
                [Event \"d\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Ke7 3. Qxe5# 0-1\n\
                [Event \"e\"]\n\n1. e4 {unclosed comment 1-0\n";
    let reports = reports(text.as_bytes());
    assert_eq!(reports.len(), 5);
    assert_eq!(reports[0].verdict.as_ref().unwrap_err().reason(), "INVALID_FEN");
    assert_eq!(reports[1].verdict.as_ref().unwrap_err().reason(), "UNKNOWN_VARIANT");
    assert!(reports[2].verdict.as_ref().unwrap().is_valid());
    assert!(!reports[3].verdict.as_ref().unwrap().result_consistent);
    assert_eq!(reports[4].verdict.as_ref().unwrap().plies, 1);
    assert_fast_paths_agree(text.as_bytes(), "bad games");
}

// ---- the command line ----

fn arbiter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

/// Runs `arbiter pgn ARGS` with `stdin`; returns status, stdout, stderr.
fn run_pgn(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = arbiter()
        .arg("pgn")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A PGN text of `n` games, game `i` ending in mate when `i % 3 == 0`,
/// with an illegal move when `i % 3 == 1`, unfinished otherwise.
fn sample_pgn(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let (moves, result) = match i % 3 {
            0 => ("1. f3 e5 2. g4 Qh4#", "0-1"),
            1 => ("1. e4 e5 2. Ke3", "*"),
            _ => ("1. d4 d5 2. c4", "1/2-1/2"),
        };
        text += &format!("[Event \"game {i}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n");
    }
    text
}

/// A directory of the test's own (tests run at once: none removes
/// another's files).
fn temp_dir(test: &str) -> PathBuf {
    let name = format!("arbiter-pgn-test-{}-{test}", std::process::id());
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn cli_reads_compressed_files_and_keeps_the_order() {
    let text = sample_pgn(700);
    let dir = temp_dir("compressed");
    let plain = dir.join("games.pgn");
    std::fs::write(&plain, &text).unwrap();
    let zst = dir.join("games.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let gz = dir.join("games.pgn.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    let bz2 = dir.join("games.pgn.bz2");
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap();
    std::fs::write(&bz2, encoder.finish().unwrap()).unwrap();
    // Compressed content is found without the extension too.
    let hidden = dir.join("zstd-without-extension");
    std::fs::copy(&zst, &hidden).unwrap();

    let (status, expected, stderr) =
        run_pgn(&["--jobs", "1", "--json", plain.to_str().unwrap()], b"");
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.lines().last().unwrap().contains("700 games"), "{stderr}");
    assert!(stderr.contains("233 with an illegal move"), "{stderr}");
    let lines: Vec<serde_json::Value> =
        expected.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 700);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["index"], i);
        assert_eq!(line["tags"]["Event"], format!("game {i}"));
        assert_eq!(line["resultConsistent"], true);
        match i % 3 {
            0 => {
                assert_eq!(line["outcome"]["termination"], "TERMINATION_CHECKMATE");
                assert_eq!(line["plies"], 4);
            }
            1 => {
                assert_eq!(line["illegalMove"]["index"], 2);
                assert_eq!(line["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_NO_PIECE");
            }
            _ => assert!(line.get("illegalMove").is_none()),
        }
    }
    for file in [&plain, &zst, &gz, &bz2, &hidden] {
        let (status, out, stderr) =
            run_pgn(&["--jobs", "2", "--json", "-q", file.to_str().unwrap()], b"");
        assert_eq!((status, out.as_str()), (1, expected.as_str()), "{file:?}: {stderr}");
    }
    // Standard input, `-` or no file at all.
    let (_, out, _) = run_pgn(&["--json", "-"], text.as_bytes());
    assert_eq!(out, expected);
    let (_, out, _) = run_pgn(&["--json"], text.as_bytes());
    assert_eq!(out, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Games split across the reading threads' pieces (hundreds of kilobytes
/// each) at lines that look like a game's first tag but sit in a comment:
/// every thread count gives the one thread's output, JSON and export.
#[test]
fn cli_jobs_agree_where_pieces_split_inside_comments() {
    let mut text = String::new();
    for i in 0..12_000 {
        text += &format!("[Event \"game {i}\"]\n[Result \"*\"]\n\n1. e4 {{a comment\n");
        text += &format!("[Event \"in a comment {i}\"]\n}} e5 2. Nf3 *\n\n");
        if i % 7 == 0 {
            // A game without tags, after a result line.
            text += "1. d4 d5 1/2-1/2\n";
        }
    }
    assert!(text.len() > 1 << 20);
    let dir = temp_dir("pieces");
    let file = dir.join("comments.pgn");
    std::fs::write(&file, &text).unwrap();
    let file = file.to_str().unwrap();
    let run = |jobs: &str| {
        let canonical = dir.join(format!("canonical-{jobs}.pgn"));
        let (status, out, stderr) = run_pgn(
            &["--jobs", jobs, "--json", "-q", "--canonical", canonical.to_str().unwrap(), file],
            b"",
        );
        (status, out, stderr, std::fs::read(canonical).unwrap())
    };
    let (status, expected, stderr, export) = run("1");
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.lines().last().unwrap().contains("13715 games"), "{stderr}");
    for jobs in ["2", "3"] {
        let (status, out, stderr, canonical) = run(jobs);
        assert_eq!(status, 0, "{stderr}");
        assert!(out == expected, "--jobs {jobs}: the JSON differs");
        assert!(canonical == export, "--jobs {jobs}: the export differs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_json_matches_validate() {
    let (_, out, _) = run_pgn(&["--json"], b"1. f3 e5 2. g4 Qh4# 0-1\n");
    let pgn: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let validate = arbiter()
        .args(["validate", "--no-legal-moves", "f3", "e5", "g4", "Qh4#"])
        .output()
        .unwrap();
    let validate: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    assert_eq!(pgn["position"], validate["position"]);
    assert_eq!(pgn["outcome"], validate["outcome"]);
    let (_, out, _) = run_pgn(&["--json"], b"1. e4 e5 2. Ke3 *\n");
    let pgn: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let validate =
        arbiter().args(["validate", "--no-legal-moves", "e4", "e5", "Ke3"]).output().unwrap();
    let validate: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    assert_eq!(pgn["illegalMove"], validate["illegalMove"]);
    assert_eq!(pgn["position"], validate["position"]);
}

#[test]
fn cli_exit_statuses_and_outputs() {
    let dir = temp_dir("status");
    let good = dir.join("good.pgn");
    std::fs::write(&good, "[Event \"x\"]\n\n1. e4 e5 {[%clk 0:01:00]} 2. Nf3 $1 (2. Nc3) 1-0\n")
        .unwrap();
    let canonical = dir.join("out.pgn");
    let (status, out, stderr) =
        run_pgn(&["--canonical", canonical.to_str().unwrap(), good.to_str().unwrap()], b"");
    assert_eq!(status, 0, "{stderr}");
    assert!(out.is_empty(), "only results on standard output: {out}");
    assert!(stderr.lines().last().unwrap().contains("1 games"), "{stderr}");
    let written = std::fs::read_to_string(&canonical).unwrap();
    assert_eq!(
        written,
        "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
         [Black \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 {[%clk 0:01:00]} 2. Nf3 $1 (2. Nc3) 1-0\n\n"
    );
    let (status, _, stderr) =
        run_pgn(&[good.to_str().unwrap(), dir.join("missing.pgn").to_str().unwrap()], b"");
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("missing.pgn"), "{stderr}");
    let (status, _, _) = run_pgn(&["--quiet"], b"1. e4 e5 2. Ke3 *\n");
    assert_eq!(status, 1);
    // A game over the size limit is reported and skipped; the next is read.
    let big = format!(
        "[Event \"big\"]\n\n{} *\n[Event \"small\"]\n\n1. e4 *\n",
        "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(100)
    );
    let (status, out, stderr) = run_pgn(&["--json", "--max-game-bytes", "1000"], big.as_bytes());
    assert_eq!(status, 1, "{stderr}");
    let lines: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["error"]["reason"], "GAME_TOO_LARGE");
    assert_eq!(lines[1]["tags"]["Event"], "small");
    assert!(stderr.contains("1 unreadable"), "{stderr}");
    let corrupt = dir.join("corrupt.pgn.zst");
    std::fs::write(&corrupt, b"\x28\xb5\x2f\xfd garbage").unwrap();
    let (status, _, stderr) = run_pgn(&[corrupt.to_str().unwrap()], b"");
    assert_eq!(status, 2, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bytes a PGN reader must expect, and some it must survive.
const PGN_BYTES: &[u8] = b"[]{}()\";%$!?.-/*\\ \n\n\r\t10254eNBRQKOx=+#abcdefgh\xef\xbb\xbf\xff";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// What the `pgn` fuzz target checks, on PGN-like noise: no panic, no
    /// game kept over the limit, and readable games export and read back.
    #[test]
    fn noise_never_breaks_the_reader(picks in proptest::collection::vec(0..PGN_BYTES.len(), 0..600), seed: u64) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut data: Vec<u8> = picks.iter().map(|&i| PGN_BYTES[i]).collect();
        // Real moves now and then, so that some games get far.
        let moves = ["e4 ", "e5 ", "Nf3 ", "Nc6 ", "Bb5 ", "a6 ", "O-O ", "1. ", "2... "];
        for _ in 0..rng.random_range(0..40) {
            let at = rng.random_range(0..=data.len());
            let mv = moves.choose(&mut rng).unwrap().as_bytes();
            data.splice(at..at, mv.iter().copied());
        }
        let options = ReaderOptions { max_game_bytes: 256 };
        let input = std::io::BufReader::with_capacity(16, &data[..]);
        for raw in GameReader::new(input, options) {
            let raw = raw.unwrap();
            if let Ok(text) = &raw.text {
                prop_assert!(text.len() <= 256);
            }
            let report = check_game(raw);
            if let (Some(game), Ok(verdict)) = (&report.game, &report.verdict) {
                let mut exported = Vec::new();
                write_canonical(game, verdict, &mut exported);
                let again = reports(&exported);
                prop_assert_eq!(again.len(), 1, "{}", String::from_utf8_lossy(&exported));
                let verdict2 = again[0].verdict.as_ref().unwrap();
                prop_assert_eq!(verdict2.plies, verdict.plies, "{}", String::from_utf8_lossy(&exported));
                prop_assert_eq!(&verdict2.position, &verdict.position);
            }
        }
    }
}

#[test]
fn a_game_of_many_tags_is_read_in_one_piece() {
    // Tags separated by blank lines, none repeated: one game (the reader
    // keeps a set of names, so this is linear, not quadratic).
    let text: String =
        (0..20_000).map(|i| format!("[T{i} \"v\"]\n\n")).collect::<String>() + "1. e4 *\n";
    let reports = reports(text.as_bytes());
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].game.as_ref().unwrap().tags().count(), 20_000);
    let mut json = Vec::new();
    arbiter::answer::pgn_json::write_json(&reports[0], &mut json).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(value["tags"].as_object().unwrap().len(), 20_000);
}
