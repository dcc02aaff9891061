//! Lichess's variants in PGN: the games python-chess played and wrote
//! (`crates/arbiter-chess/tests/data/variants.jsonl`) written as PGN with their `Variant`
//! tags, read back with the same SAN and outcome, exported and read again;
//! and `arbiter pgn --json` on a variant game.

use std::io::Write as _;
use std::process::{Command, Stdio};

use arbiter_chess::GamePosition;
use arbiter_chess::{GameResult, Variant};
use arbiter_pgn::{GameReader, ReaderOptions, check_game, write_canonical};

use crate::common::variants::{PythonChessGame, python_chess_games};

/// The PGN of a python-chess game: its variant by lichess's name, a FEN tag
/// only when it is not the variant's start (none is), its SAN numbered.
fn pgn_of(case: &PythonChessGame, variant: Variant) -> String {
    let mut text = format!("[Variant \"{}\"]\n[Result \"{}\"]\n", variant.pgn_name(), case.result);
    if case.fen != variant.starting_fen() {
        text.push_str(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", case.fen));
    }
    text.push('\n');
    for (i, [_, san]) in case.plies.iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(san);
        text.push(' ');
    }
    text.push_str(&case.result);
    text.push_str("\n\n");
    text
}

/// The SAN the check wrote into each game's mainline, with the verdicts.
fn read(text: &str) -> Vec<(Vec<String>, arbiter_pgn::Verdict)> {
    GameReader::new(text.as_bytes(), ReaderOptions::default())
        .map(|raw| {
            let report = check_game(raw.unwrap());
            let game = report.game.unwrap();
            let sans = game.mainline.moves.iter().filter_map(|m| m.san).map(|s| s.to_string());
            (sans.collect(), report.verdict.unwrap())
        })
        .collect()
}

#[test]
fn python_chess_variant_games_read_back_with_their_san_and_outcome() {
    let cases: Vec<(PythonChessGame, Variant)> = python_chess_games()
        .into_iter()
        .map(|case| {
            let variant = case.variant.parse().unwrap();
            (case, variant)
        })
        .collect();
    assert_eq!(cases.len(), 84);
    let text: String = cases.iter().map(|(case, variant)| pgn_of(case, *variant)).collect();
    let read_back = read(&text);
    assert_eq!(read_back.len(), cases.len());
    let mut canonical = Vec::new();
    for (index, ((case, variant), (sans, verdict))) in cases.iter().zip(&read_back).enumerate() {
        let context = format!("game {index}: {variant}");
        let theirs: Vec<&str> = case.plies.iter().map(|[_, san]| san.as_str()).collect();
        assert_eq!(sans, &theirs, "{context}");
        assert!(verdict.is_valid(), "{context}: {verdict:?}");
        assert_eq!(verdict.outcome.result.pgn(), case.result, "{context}");
        let GamePosition::Variant(pos) = &verdict.position else { panic!("{context}: chess") };
        assert_eq!(pos.variant(), *variant, "{context}");
        // python-chess leaves the half-move clock running over a pawn drop
        // (see tests/rules/variants.rs): the rest of the FEN agrees.
        let fields = |fen: &str| -> Vec<String> {
            let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
            if *variant == Variant::Crazyhouse && fields.len() == 6 {
                fields.remove(4);
            }
            fields
        };
        assert_eq!(fields(&pos.fen()), fields(&case.final_fen), "{context}");
        if verdict.outcome.result != GameResult::Ongoing {
            assert!(verdict.outcome.termination.is_some(), "{context}");
        }
    }
    // The canonical export reads back as the same games.
    for raw in GameReader::new(text.as_bytes(), ReaderOptions::default()) {
        let report = check_game(raw.unwrap());
        write_canonical(
            report.game.as_ref().unwrap(),
            report.verdict.as_ref().unwrap(),
            &mut canonical,
        );
    }
    let exported = String::from_utf8(canonical).unwrap();
    assert!(exported.contains("[Variant \"King of the Hill\"]\n"));
    let again = read(&exported);
    assert_eq!(again.len(), read_back.len());
    for (index, (a, b)) in read_back.iter().zip(&again).enumerate() {
        assert_eq!(a, b, "game {index} after export");
    }
}

/// A crazyhouse game with a drop, a side line and a bad drop in it, an
/// atomic game won by an explosion, and an antichess game with a refused
/// move, as `arbiter pgn --json` prints them.
const VARIANT_GAMES: &str = "[Event \"zh\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n\
    1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 (4. N@f3) @e4 *\n\n\
    [Event \"atomic\"]\n[Variant \"Atomic\"]\n[Result \"1-0\"]\n\n\
    1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7 1-0\n\n\
    [Event \"anti\"]\n[Variant \"antichess\"]\n[Result \"0-1\"]\n\n1. e3 b5 2. Nf3 0-1\n";

#[test]
fn cli_json_carries_variant_games() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["pgn", "--json", "--quiet", "--jobs", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(VARIANT_GAMES.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{}", String::from_utf8_lossy(&out.stderr));

    let zh = &lines[0];
    assert_eq!(zh["plies"], 8);
    assert_eq!(
        zh["position"]["fen"],
        "rnb1kbnr/ppp1pppp/8/q7/3Pp3/2N5/PPPP1PPP/R1BQKBNR[] w KQkq - 0 5"
    );
    assert_eq!(zh["variationErrors"][0]["reason"], "ILLEGAL_MOVE_REASON_NO_PIECE");
    assert_eq!(zh["outcome"]["result"], "GAME_RESULT_ONGOING");

    let atomic = &lines[1];
    assert_eq!(atomic["outcome"]["termination"], "TERMINATION_EXPLOSION");
    assert_eq!(atomic["outcome"]["pgnResult"], "1-0");
    assert_eq!(atomic["resultConsistent"], true);

    let anti = &lines[2];
    assert_eq!(anti["illegalMove"]["index"], 2);
    assert_eq!(anti["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_CAPTURE_REQUIRED");
    assert_eq!(anti["plies"], 2);
}
