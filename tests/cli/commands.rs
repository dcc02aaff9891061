//! The `arbiter` binary, run as a user would run it.

use std::process::Command;

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter")).args(args).output().expect("arbiter runs")
}

/// Runs `arbiter ARGS` with `input` on its standard input, written from a
/// thread of its own so that a large input cannot block on a full output
/// pipe.
fn arbiter_with_input(args: &[&str], input: Vec<u8>) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn perft_prints_the_count_last() {
    let out = arbiter(&["perft", "4"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("197281"));
}

#[test]
fn perft_divide_prints_a_line_per_move() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = arbiter(&["perft", "--fen", kiwipete, "--divide", "2"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 49);
    assert_eq!(lines.last(), Some(&"2039"));
    assert!(lines.contains(&"e1g1: 43"), "{stdout}");
    let sum: u64 = lines[..48]
        .iter()
        .map(|l| l.split_once(": ").expect("<uci>: <nodes>").1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 2039);
}

#[test]
fn perft_rejects_an_invalid_fen_on_stderr() {
    let out = arbiter(&["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "1"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("white has no king"), "{stderr}");
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("one JSON object")
}

#[test]
fn validate_prints_the_response_as_json() {
    let out = arbiter(&["validate", "--fens", "e4", "e5", "Ng1-f3", "Ke7", "Bb5", "Ke6", "Bxe8"]);
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["plies"].as_array().unwrap().len(), 6);
    assert_eq!(v["plies"][2]["san"], "Nf3");
    assert_eq!(v["plies"][2]["uci"], "g1f3");
    assert_eq!(v["plies"][2]["canonicalInput"], false);
    assert_eq!(
        v["plies"][0]["fenAfter"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    assert_eq!(v["illegalMove"]["index"], 6);
    assert_eq!(v["illegalMove"]["move"], "Bxe8");
    assert_eq!(v["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_PATH_BLOCKED");
    assert_eq!(v["position"]["turn"], "COLOR_WHITE");
    assert_eq!(v["position"]["inCheck"], false);
    assert_eq!(v["position"]["fullmoveNumber"], 4);
    let legal = v["position"]["legalMoves"].as_array().unwrap();
    assert!(legal.iter().any(|m| m["san"] == "Bxd7+" && m["uci"] == "b5d7"));
    assert_eq!(v["outcome"]["result"], "GAME_RESULT_ONGOING");
    assert_eq!(v["outcome"]["pgnResult"], "*");
}

#[test]
fn validate_reports_mate() {
    let out = arbiter(&["validate", "--notation", "uci", "f2f3", "e7e5", "g2g4", "d8h4"]);
    let v = json(&out.stdout);
    assert_eq!(v["plies"][3]["san"], "Qh4#");
    assert_eq!(v["outcome"]["termination"], "TERMINATION_CHECKMATE");
    assert_eq!(v["outcome"]["result"], "GAME_RESULT_BLACK_WINS");
    assert_eq!(v["outcome"]["pgnResult"], "0-1");
    assert_eq!(v["position"]["inCheck"], true);
}

#[test]
fn validate_batch_keeps_order_and_goes_on_after_errors() {
    let input = "e4 e5 Nf3\n\n8/8/8/8/8/8/8/8 w - - 0 1; e4\n4k3/8/8/8/8/8/8/R3K3 w Q - 0 1; O-O-O Kf7\nxx\n";
    let args = ["validate", "--batch", "-", "--no-legal-moves"];
    let out = arbiter_with_input(&args, input.as_bytes().to_vec());
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(json).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["plies"].as_array().unwrap().len(), 3);
    assert_eq!(lines[1]["error"]["code"], "INVALID_ARGUMENT");
    assert!(lines[1]["error"]["message"].as_str().unwrap().contains("no king"));
    assert_eq!(lines[2]["plies"][0]["san"], "O-O-O");
    assert_eq!(lines[2]["position"]["fen"], "8/5k2/8/8/8/8/8/2KR4 w - - 2 2");
    assert_eq!(lines[3]["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_UNPARSEABLE");
}

#[test]
fn validate_rejects_an_invalid_fen_on_stderr() {
    let out = arbiter(&["validate", "--fen", "8/8/8/8/8/8/8/8 w - -", "e4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("no king"));
}

#[test]
fn serve_refuses_an_invalid_configuration_at_start_up() {
    let out = arbiter(&["serve", "--keepalive-interval", "5s", "--keepalive-timeout", "10s"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("keepalive timeout"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["--max-moves", "0"])
        .output()
        .expect("arbiter runs");
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("--max-moves"));
}

#[test]
fn validate_batch_keeps_order_across_chunks_and_bounds_lines() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut input = Vec::new();
    for i in 0..2500 {
        match i % 500 {
            7 => input.extend_from_slice(b"e4 \xff\xfe\n"),
            9 => input.extend_from_slice(format!("{}\n", "e4 ".repeat(400)).as_bytes()),
            _ => {
                let moves: Vec<&str> = shuffle.iter().cycle().take(i % 13 + 1).copied().collect();
                input.extend_from_slice(format!("{}\n", moves.join(" ")).as_bytes());
            }
        }
    }
    let args = ["validate", "--batch", "-", "--no-legal-moves", "--max-line-bytes", "1000"];
    let out = arbiter_with_input(&args, input);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(json).collect();
    assert_eq!(lines.len(), 2500);
    for (i, line) in lines.iter().enumerate() {
        match i % 500 {
            7 => assert_eq!(line["error"]["message"], "line is not valid utf-8"),
            9 => assert_eq!(line["error"]["message"], "line longer than 1000 bytes"),
            _ => assert_eq!(line["plies"].as_array().unwrap().len(), i % 13 + 1, "line {i}"),
        }
    }
}

#[test]
fn winnable_prints_both_verdicts_with_helpmates() {
    let out = arbiter(&["winnable", "--fen", "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"]);
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["white"]["verdict"], "WINNABLE");
    assert!(!v["white"]["helpmate"].as_array().unwrap().is_empty());
    assert_eq!(v["black"]["verdict"], "UNWINNABLE");
    assert!(v["black"].get("helpmate").is_none());
}

#[test]
fn winnable_batch_goes_on_after_a_bad_line() {
    let dir = std::env::temp_dir().join(format!("arbiter-winnable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.txt");
    // A locked wall (dead), a bad FEN, composed material (three light bishops and eight pawns) that
    // only the analysis accepts, and a lichess-style line with a game id.
    let lines = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - -\n\
                 not a fen\n\
                 4k3/8/8/8/8/8/PPPPPPPP/1B1BKB2 w - - 0 1\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 QzZqHm8A\n";
    std::fs::write(&file, lines).unwrap();
    let out = arbiter(&["winnable", "--quick", "--batch", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = stdout.lines().map(|l| json(l.as_bytes())).collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert_eq!(rows[0]["white"]["verdict"], "UNWINNABLE");
    assert_eq!(rows[0]["black"]["verdict"], "UNWINNABLE");
    assert_eq!(rows[1]["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(rows[2]["black"]["verdict"], "UNWINNABLE");
    assert_eq!(rows[3]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(rows[3]["white"]["verdict"], "WINNABLE");
}

#[test]
fn winnable_rejects_an_invalid_fen_on_stderr() {
    let out = arbiter(&["winnable", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("white has no king"));
}

#[test]
fn chess960_perft_by_number_and_by_fen() {
    // Position 518 is the standard array: the standard count.
    let out = arbiter(&["perft", "--chess960", "518", "3"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().last(), Some("8902"));
    // scalachess chess960.perft, position 0, perft 3.
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let out = arbiter(&["perft", "--variant", "chess960", "--fen", fen, "3"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().last(), Some("12189"));
    // Divide writes castling as king takes rook.
    let out = arbiter(&[
        "perft",
        "--variant",
        "chess960",
        "--fen",
        "4k3/8/8/8/8/8/8/RK4R1 w GA - 0 1",
        "--divide",
        "1",
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("b1g1: 1") && stdout.contains("b1a1: 1"), "{stdout}");
    // Chess960 rights are refused in standard chess; numbers stop at 959.
    let out = arbiter(&["perft", "--fen", fen, "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("chess960"));
    assert!(!arbiter(&["perft", "--chess960", "960", "1"]).status.success());
}

#[test]
fn chess960_validate_and_batch() {
    let fen = "4k3/8/8/8/8/8/8/RK4R1 w GA - 0 1";
    let out =
        arbiter(&["validate", "--variant", "chess960", "--fen", fen, "--shredder-fen", "b1a1"]);
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["plies"][0]["san"], "O-O-O");
    assert_eq!(v["plies"][0]["uci"], "b1a1");
    assert_eq!(v["position"]["fen"], "4k3/8/8/8/8/8/8/2KR2R1 b - - 1 1");
    // The standard array as Chess960: castling is written king takes rook.
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"];
    let out = arbiter(&[&["validate", "--chess960", "518"][..], &moves].concat());
    let v = json(&out.stdout);
    assert_eq!(v["plies"][6]["san"], "O-O");
    assert_eq!(v["plies"][6]["uci"], "e1h1");
    let dir = std::env::temp_dir().join(format!("arbiter-cli-960-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.txt");
    std::fs::write(&file, format!("{fen}; O-O\n4k3/8/8/8/8/8/8/RK6 w G -; Kc1\ne4\n")).unwrap();
    let out = arbiter(&["validate", "--variant", "chess960", "--batch", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| json(l.as_bytes())).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["plies"][0]["uci"], "b1g1");
    assert!(lines[1]["error"]["message"].as_str().unwrap().contains("castling right G"));
    assert_eq!(lines[2]["plies"][0]["san"], "e4");
}

#[test]
fn variant_perft_from_the_start_and_by_fen() {
    // scalachess's perft files: each variant's start position.
    for (variant, depth, nodes) in
        [("horde", "3", "1274"), ("racing-kings", "3", "11264"), ("antichess", "3", "8067")]
    {
        let out = arbiter(&["perft", "--variant", variant, depth]);
        assert!(out.status.success(), "{variant}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().last(), Some(nodes), "{variant}");
    }
    // Divide writes drops as `N@f3`; a pocket of one knight has 1 + 61 moves.
    let fen = "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1";
    let out = arbiter(&["perft", "--variant", "crazyhouse", "--fen", fen, "--divide", "1"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("N@f3: 1"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("67"));
    // A variant's FEN defects and a Chess960 number with a variant are
    // usage errors.
    let out = arbiter(&[
        "perft",
        "--variant",
        "crazyhouse",
        "--fen",
        "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("pocket"));
    // A Chess960 start number is for the Chess960 rules: said, or unsaid.
    for rules in ["atomic", "standard"] {
        let out = arbiter(&["perft", "--variant", rules, "--chess960", "518", "1"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&format!("for the chess960 rules, not {rules}")), "{stderr}");
    }
    let out = arbiter(&["validate", "--chess960", "0", "--no-legal-moves"]);
    assert!(out.status.success());
    let fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
    assert_eq!(json(&out.stdout)["position"]["fen"], fen);
}

#[test]
fn variant_validate_and_batch() {
    // Atomic: the capture on f7 explodes the black king.
    let moves = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"];
    let out = arbiter(&[&["validate", "--variant", "atomic"][..], &moves].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out.stdout);
    assert_eq!(v["outcome"]["result"], "GAME_RESULT_WHITE_WINS");
    assert_eq!(v["outcome"]["termination"], "TERMINATION_EXPLOSION");
    // Antichess: a capture is compulsory, so a quiet move is refused.
    let out = arbiter(&["validate", "--variant", "antichess", "e4", "d5", "Nc3"]);
    let v = json(&out.stdout);
    assert_eq!(v["illegalMove"]["index"], 2);
    assert_eq!(v["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_CAPTURE_REQUIRED");
    assert_eq!(v["position"]["legalMoves"].as_array().unwrap().len(), 1);
    // Chess's options are refused with a variant.
    for option in ["--shredder-fen", "--winnability"] {
        let out = arbiter(&["validate", "--variant", "horde", option, "e4"]);
        assert_eq!(out.status.code(), Some(2), "{option}");
        assert!(String::from_utf8(out.stderr).unwrap().contains(option));
    }
    // A batch of crazyhouse games: drops in SAN and UCI, a FEN with a
    // pocket, a bad pocket named on its own line.
    let input = "e4 d5 exd5 Qxd5 Nc3 Qa5 P@d5\n\
                 4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1; Q@e7\n\
                 4k3/8/8/8/8/8/8/4K3[Kq] w - - 0 1; Q@e7\n";
    let out = arbiter_with_input(
        &["validate", "--variant", "crazyhouse", "--batch", "-", "--no-legal-moves"],
        input.as_bytes().to_vec(),
    );
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| json(l.as_bytes())).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["plies"][6]["uci"], "P@d5");
    assert_eq!(
        lines[0]["position"]["fen"],
        "rnb1kbnr/ppp1pppp/8/q2P4/8/2N5/PPPP1PPP/R1BQKBNR[p] b KQkq - 0 4"
    );
    assert_eq!(lines[1]["plies"][0]["san"], "Q@e7+");
    assert!(lines[2]["error"]["message"].as_str().unwrap().contains("pocket"), "{}", lines[2]);
}

#[test]
fn validate_applies_a_flag_fall_and_reports_verdicts_and_claims() {
    let krk = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let out = arbiter(&["validate", "--fen", krk, "--flagged", "white", "--winnability"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value = json(&out.stdout);
    assert_eq!(value["outcome"]["result"], "GAME_RESULT_DRAW");
    assert_eq!(value["outcome"]["termination"], "TERMINATION_TIMEOUT_VS_UNWINNABLE");
    assert_eq!(value["outcome"]["unproven"], false);
    let winnability = &value["position"]["winnability"];
    assert_eq!(winnability["black"]["verdict"], "VERDICT_UNWINNABLE");
    assert_eq!(winnability["white"]["verdict"], "VERDICT_WINNABLE");
    assert!(winnability["white"]["helpmate"].as_array().is_some_and(|line| !line.is_empty()));

    let out = arbiter(&["validate", "--flagged", "black", "e4"]);
    let value = json(&out.stdout);
    assert_eq!(value["outcome"]["termination"], "TERMINATION_TIMEOUT");
    assert_eq!(value["outcome"]["pgnResult"], "1-0");

    // Knights out and back twice: Ng8 would stand the start on the board a
    // third time; the other moves claim nothing and say nothing.
    let out = arbiter(&["validate", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
    let value = json(&out.stdout);
    let moves = value["position"]["legalMoves"].as_array().unwrap();
    let claiming: Vec<&serde_json::Value> =
        moves.iter().filter(|m| m.get("claimableDraws").is_some()).collect();
    assert_eq!(claiming.len(), 1, "{moves:?}");
    assert_eq!(claiming[0]["san"], "Ng8");
    assert_eq!(claiming[0]["claimableDraws"][0], "CLAIMABLE_DRAW_THREEFOLD_REPETITION");

    let out = arbiter(&["validate", "--flagged", "green", "e4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("green"));
}

/// `arbiter validate --time-control` runs the clock on the moves' times:
/// Durations as proto3 JSON, a move after the flag fell, a pending time,
/// batch lines with a record of their own, and bad records refused.
#[test]
fn validate_runs_the_clock() {
    let out = arbiter(&[
        "validate",
        "--time-control",
        "180+2",
        "--move-times",
        "0,0,5,12.5",
        "--pending-time",
        "10",
        "--no-legal-moves",
        "e4",
        "e5",
        "Nf3",
        "Nc6",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value = json(&out.stdout);
    let clocks: Vec<&str> =
        value["plies"].as_array().unwrap().iter().map(|p| p["clock"].as_str().unwrap()).collect();
    assert_eq!(clocks, ["182s", "182s", "179s", "171.500s"]);
    assert_eq!(value["position"]["clocks"]["white"], "169s");
    assert_eq!(value["position"]["clocks"]["black"], "171.500s");
    assert_eq!(value["outcome"]["result"], "GAME_RESULT_ONGOING");

    let out = arbiter(&[
        "validate",
        "--time-control",
        "60",
        "--move-times",
        "1,2,59.5",
        "e4",
        "e5",
        "Nf3",
    ]);
    let value = json(&out.stdout);
    assert_eq!(value["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_FLAG_FELL");
    assert_eq!(value["illegalMove"]["index"], 2);
    assert_eq!(value["outcome"]["termination"], "TERMINATION_TIMEOUT");
    assert_eq!(value["position"]["clocks"]["white"], "0s");

    let input = "; e4 e5; 60 1,61\ne4\n8/8/4k3/8/8/4K3/4Q3/8 w - - 0 60; Qd2; 10 10.001\n; e4; 60 1 0.5 extra\n; e4; 60 1,2\n";
    let out = arbiter_with_input(&["validate", "--batch", "-", "--no-legal-moves"], input.into());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| json(l.as_bytes())).collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["illegalMove"]["reason"], "ILLEGAL_MOVE_REASON_FLAG_FELL");
    assert_eq!(lines[0]["outcome"]["result"], "GAME_RESULT_WHITE_WINS");
    assert!(lines[1]["plies"][0].get("clock").is_none());
    assert_eq!(lines[2]["outcome"]["termination"], "TERMINATION_TIMEOUT_VS_UNWINNABLE");
    assert_eq!(lines[3]["error"]["message"], "unexpected \"extra\" after the clock record");
    assert_eq!(lines[4]["error"]["message"], "2 move times for 1 moves: send one for each move");

    for (args, error) in [
        (&["--time-control", "40/x", "--move-times", "1", "e4"][..], "period 1: seconds"),
        (&["--time-control", "60", "--move-times", "1,-1", "e4", "e5"], "move time \"-1\""),
        (&["--time-control", "60", "--move-times", "0.0001", "e4"], "finer than a millisecond"),
        (&["--time-control", "60", "--flagged", "white"], "cannot be used with"),
        (&["--move-times", "1", "e4"], "--time-control"),
    ] {
        let out = arbiter(&[&["validate"], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(error), "{args:?}: {stderr}");
    }
}

/// `arbiter validate` and `arbiter pgn` take the server's budgets of the
/// unwinnability analysis: White's flag falls where Black, with a king and
/// a pawn, can mate only by a long helpmate, which the default budget finds
/// and 1,000 positions do not (Black then wins unproven).
#[test]
fn the_commands_take_the_analysis_budgets_the_server_takes() {
    let fen = "8/8/8/p5k1/4P2R/2N2P2/P1P2KP1/8 w - - 0 40";
    let pgn = format!(
        "[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Termination \"Time forfeit\"]\n[Result \"0-1\"]\n\n0-1\n"
    );
    // The outcome of the game on standard input, through each of the
    // commands' paths: one game, a batch, PGN on one thread and on two.
    let piped = |args: &[&str], input: &str| {
        let out = arbiter_with_input(args, input.as_bytes().to_vec());
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        json(&out.stdout)["outcome"].clone()
    };
    let outcomes = |budget: &[&str]| {
        let one = ["validate", "--fen", fen, "--flagged", "white", "--no-legal-moves"];
        let batch = ["validate", "--batch", "-", "--flagged", "white", "--no-legal-moves"];
        [
            piped(&[&one[..], budget].concat(), ""),
            piped(&[&batch[..], budget].concat(), &format!("{fen};\n")),
            piped(&[&["pgn", "--json", "--quiet", "--jobs", "1"][..], budget].concat(), &pgn),
            piped(&[&["pgn", "--json", "--quiet", "--jobs", "2"][..], budget].concat(), &pgn),
        ]
    };
    for outcome in outcomes(&[]) {
        assert_eq!(outcome["termination"], "TERMINATION_TIMEOUT");
        assert_eq!(outcome["pgnResult"], "0-1");
        assert_eq!(outcome["unproven"], false, "{outcome}");
    }
    for outcome in outcomes(&["--unwinnable-nodes", "1000", "--unwinnable-ply-nodes", "0"]) {
        assert_eq!(outcome["termination"], "TERMINATION_TIMEOUT");
        assert_eq!(outcome["pgnResult"], "0-1");
        assert_eq!(outcome["unproven"], true, "{outcome}");
    }
    let out = arbiter(&["validate", "--unwinnable-nodes", "10", "e4"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--unwinnable-nodes") && stderr.contains("1000.."), "{stderr}");
}

/// `validate --analysis`: the opening, the phases and each side's time use
/// from the clock record, beside the outcome.
#[test]
fn validate_says_what_the_game_was() {
    let moves = ["e4", "c5", "Nf3", "d6", "d4"];
    let out = arbiter(
        &[
            &["validate", "--analysis", "--time-control", "300+3", "--move-times", "0,0,1.2,0.8,3"]
                [..],
            &moves[..],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out.stdout);
    assert_eq!(v["outcome"]["result"], "GAME_RESULT_ONGOING");
    let analysis = &v["analysis"];
    // lichess's b.tsv: `B50 Sicilian Defense 1. e4 c5 2. Nf3 d6 3. d4`.
    assert_eq!(analysis["opening"]["eco"], "B50");
    assert_eq!(analysis["opening"]["name"], "Sicilian Defense");
    assert_eq!(analysis["opening"]["family"], "OPENING_FAMILY_SEMI_OPEN_GAME");
    assert_eq!(analysis["opening"]["ply"], 5);
    assert_eq!(analysis["phases"], serde_json::json!({}));
    let time_use = analysis["timeUse"].as_array().unwrap();
    assert_eq!(time_use.len(), 2);
    // White's moves of T: 1.2 s and 3 s (its first move left out).
    assert_eq!(time_use[0]["side"], "COLOR_WHITE");
    assert_eq!(
        (time_use[0]["timedMoves"].as_u64(), time_use[0]["totalMs"].as_u64()),
        (Some(2), Some(4_200))
    );
    assert_eq!(time_use[0]["meanMs"].as_f64(), Some(2_100.0));
    assert_eq!(
        (time_use[1]["timedMoves"].as_u64(), time_use[1]["totalMs"].as_u64()),
        (Some(1), Some(800))
    );
    assert!(time_use[1].get("cv").is_none(), "no cv under two moves");
    // Without the flag, no analysis.
    let plain = json(&arbiter(&[&["validate"][..], &moves[..]].concat()).stdout);
    assert!(plain.get("analysis").is_none());
    // A batch: the same game with its clock record on a line, and a FEN
    // start, which names no opening.
    let lines = "; e4 c5 Nf3 d6 d4; 300+3 0,0,1.2,0.8,3\n4k3/8/8/8/8/8/4P3/4K3 w - - 0 1; e4\n";
    let out = arbiter_with_input(&["validate", "--analysis", "--batch", "-"], lines.into());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["analysis"], *analysis);
    assert!(lines[1]["analysis"].get("opening").is_none());
    assert_eq!(lines[1]["analysis"]["phases"]["endgamePly"], 0);
}

/// `pgn --json --analysis`: each game's analysis, its times from `[%clk]`
/// readings (less the increment) or `[%emt]`.
#[test]
fn pgn_json_says_what_each_game_was() {
    let pgn = "[Event \"clocked\"]\n[TimeControl \"300+3\"]\n\n\
        1. e4 { [%clk 0:05:00] } c5 { [%clk 0:05:00] } 2. Nf3 { [%clk 0:04:58] } \
        d6 { [%clk 0:04:55] } 3. d4 { [%emt 0:00:07] } *\n\n\
        [Event \"bare\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 *\n";
    let out = arbiter_with_input(&["pgn", "--json", "--analysis", "-q"], pgn.as_bytes().to_vec());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let games: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(games.len(), 2);
    let analysis = &games[0]["analysis"];
    // lichess's b.tsv: `B50 Sicilian Defense 1. e4 c5 2. Nf3 d6 3. d4`.
    assert_eq!(analysis["opening"]["name"], "Sicilian Defense");
    assert_eq!(analysis["opening"]["ply"], 5);
    let time_use = analysis["timeUse"].as_array().unwrap();
    // White: 2. Nf3 took 5 s (300 + 3 - 298), 3. d4 7 s by its emt.
    assert_eq!(time_use[0]["totalMs"], 12_000);
    assert_eq!(time_use[0]["timedMoves"], 2);
    // Black: 2... d6 took 8 s.
    assert_eq!(time_use[1]["totalMs"], 8_000);
    // A FEN start: no opening; the endgame from the start; no times.
    let bare = &games[1]["analysis"];
    assert!(bare.get("opening").is_none());
    assert_eq!(bare["phases"], serde_json::json!({"endgamePly": 0}));
    assert_eq!(bare["timeUse"], serde_json::json!([]));
    // Without --analysis, none.
    let plain = arbiter_with_input(&["pgn", "--json", "-q"], pgn.as_bytes().to_vec());
    assert!(!String::from_utf8(plain.stdout).unwrap().contains("\"analysis\""));
}

/// `--illegal-moves`: the rulings worked out from the rules (docs/rules.md,
/// "Over the board"), on a rapid clock (25 minutes + 10 s: 1500 + 600 ≤
/// 3599 s, one minute added under the Laws of 2023, two under 2009's),
/// and an unknown profile refused.
#[test]
fn validate_rules_on_completed_illegal_moves() {
    let moves = ["e2e4", "e7e5", "e1e3", "g1f3", "b8c6", "e1e3", "g8f6"];
    let times = "1,2,3,4,5,6,7";
    let run = |rules: &str| {
        let mut args = vec!["validate", "--illegal-moves", rules, "--time-control", "1500+10"];
        args.extend(["--move-times", times, "--no-legal-moves"]);
        args.extend(moves);
        let out = arbiter(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        json(&out.stdout)
    };
    let fide = run("fide");
    let rulings = fide["rulings"].as_array().unwrap();
    assert_eq!(rulings.len(), 2);
    assert_eq!(rulings[0]["index"], 2);
    assert_eq!(rulings[0]["side"], "COLOR_WHITE");
    assert_eq!(rulings[0]["action"], "RULING_ACTION_TIME_ADDED");
    assert_eq!(rulings[0]["timeAdded"], "60s");
    assert_eq!(rulings[1]["action"], "RULING_ACTION_GAME_LOST");
    assert_eq!(fide["outcome"]["termination"], "TERMINATION_ILLEGAL_MOVES");
    assert_eq!(fide["illegalMove"]["index"], 6);
    // White 1500 - 1 + 10, less 3 (no increment), then - 4 + 10; Black
    // 1500 - 2 + 10 + 60, then - 5 + 10; White's second foul took 6.
    let clocks: Vec<&str> =
        fide["plies"].as_array().unwrap().iter().map(|p| p["clock"].as_str().unwrap()).collect();
    assert_eq!(clocks, ["1509s", "1508s", "1512s", "1573s"]);
    assert_eq!(fide["position"]["clocks"]["white"], "1506s");

    // 2009: two minutes each, and g8f6 (White's turn: no white piece on
    // g8) is the third foul.
    let old = run("fide-2009");
    let rulings = old["rulings"].as_array().unwrap();
    assert_eq!(rulings.len(), 3);
    assert_eq!(rulings[1]["timeAdded"], "120s");
    assert_eq!(rulings[2]["count"], 3);
    assert!(old.get("illegalMove").is_none());
    assert_eq!(old["outcome"]["result"], "GAME_RESULT_BLACK_WINS");

    // The default stops at the first, as before.
    let out = arbiter(&["validate", "--no-legal-moves", "e4", "e5", "Ke3"]);
    let stop = json(&out.stdout);
    assert!(stop.get("rulings").is_none());
    assert_eq!(stop["illegalMove"]["index"], 2);

    let out = arbiter(&["validate", "--illegal-moves", "uscf", "e4"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stop, fide, fide-2009"), "{stderr}");
}
