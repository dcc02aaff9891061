//! PGN clock records (`[%clk]`, `[%emt]`, the TimeControl tag):
//!
//! - `fixtures/clock_records.pgn`, written by python-chess's exporter from
//!   a clock run apart (`fixtures/clock_records.py`), one anomaly a game at
//!   most: every finding and every elapsed time as the fixture says;
//! - the shared lichess sample: its four clock rises (moretime grants)
//!   and nothing else;
//! - what needs the control is not found without it, a tolerance moves
//!   what is found, and `arbiter pgn --json` writes the record's JSON.

use std::process::Command;

use arbiter_chess::Color;
use arbiter_pgn::{
    CheckOptions, ClockFinding, ClockReport, GameReader, ReaderOptions, check_game,
    check_game_with, parse_game, write_canonical,
};

use crate::common;
use crate::common::TestResult;

/// The clock reports of every game of a PGN text, with their tags.
fn reports(text: &[u8], options: CheckOptions) -> Vec<(arbiter_pgn::PgnGame, ClockReport)> {
    let mut reader = GameReader::new(text, ReaderOptions::default());
    let mut games = Vec::new();
    while let Some(raw) = reader.next_game().unwrap() {
        let report = check_game_with(raw, false, options);
        let verdict = report.verdict.unwrap();
        games.push((report.game.unwrap(), verdict.clock.expect("a clock record")));
    }
    games
}

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[test]
fn generated_records_give_their_findings_and_elapsed_times() {
    let text = include_bytes!("../fixtures/clock_records.pgn");
    let games = reports(text, CheckOptions::DEFAULT);
    assert_eq!(games.len(), 147);
    let mut found = 0;
    for (game, report) in &games {
        let event = game.tag("Event").unwrap();
        let findings: Vec<String> = report.findings.iter().map(written).collect();
        assert_eq!(findings.join(";"), game.tag("ExpectFindings").unwrap(), "{event}");
        let elapsed: Vec<String> = report
            .elapsed_ms
            .iter()
            .map(|ms| ms.map_or_else(|| "-".to_owned(), |ms| ms.to_string()))
            .collect();
        assert_eq!(elapsed.join(","), game.tag("ExpectElapsed").unwrap(), "{event}");
        assert!(report.error().is_none());
        found += findings.len();
    }
    assert_eq!(found, 70);
}

/// A finding as the fixtures' `ExpectFindings` tag writes it.
fn written(f: &ClockFinding) -> String {
    format!("{} {} {}", f.kind.as_str(), f.ply, side(f.side))
}

/// A tolerance of 7 s swallows every 6 s anomaly, save that a clock that
/// rose 6 s (within the tolerance: no `CLOCK_ROSE`) on a ply with an emt
/// implies a time taken of −6 s, signed, which the emt may miss by more than
/// 7 s (`EMT_MISMATCH` by |emt − implied| > tolerance: record 8's 6.352 s
/// misses it by 12.352 s). Two minutes swallow those too. A game lost on
/// time by the side not to move is still found, as it needs no tolerance.
#[test]
fn the_tolerance_decides_what_is_far_enough() {
    let text = include_bytes!("../fixtures/clock_records.pgn");
    let mut turned = 0;
    for tolerance_ms in [7_000, 120_000] {
        let loose = CheckOptions { clock_tolerance_ms: tolerance_ms, ..CheckOptions::DEFAULT };
        for (game, report) in reports(text, loose) {
            let event = game.tag("Event").unwrap();
            let expected = game.tag("ExpectFindings").unwrap();
            let kept: Vec<&str> =
                expected.split(';').filter(|f| f.starts_with("FORFEIT_NOT_ON_MOVE")).collect();
            let (forfeits, others): (Vec<String>, Vec<String>) =
                report.findings.iter().map(written).partition(|f| f.starts_with("FORFEIT"));
            assert_eq!(forfeits, kept, "{event} at {tolerance_ms} ms");
            for finding in &others {
                let rose = finding.replace("EMT_MISMATCH", "CLOCK_ROSE");
                assert!(
                    tolerance_ms == 7_000 && expected.split(';').any(|f| f == rose),
                    "{event} at {tolerance_ms} ms: {finding}"
                );
            }
            turned += others.len();
        }
    }
    // Seven of the fixtures' rises, records 8 and 29 among them.
    assert_eq!(turned, 7);
}

#[test]
fn a_bad_or_missing_control_finds_only_what_needs_none() {
    let game = |tags: &str| {
        let text = format!(
            "{tags}[Termination \"Time forfeit\"]\n[Result \"1-0\"]\n\n\
             1. e4 {{[%clk 0:09:00]}} e5 {{[%clk 0:20:00]}} 2. Nf3 {{[%emt 0:00:05]}} 1-0\n"
        );
        let report = check_game(
            GameReader::new(text.as_bytes(), ReaderOptions::default())
                .next_game()
                .unwrap()
                .unwrap(),
        );
        report.verdict.unwrap().clock.unwrap()
    };
    // Black is to move and lost: nothing; the bad tag is the error.
    let bad = game("[TimeControl \"40/x\"]\n");
    assert_eq!(bad.error().unwrap().to_string(), "period 1: seconds \"x\": not a number");
    assert!(bad.findings.is_empty() && bad.periods().is_empty());
    assert_eq!(bad.elapsed_ms, [None, None, Some(5_000)]);
    // No tag at all: the emt still says what the move took.
    let none = game("");
    assert_eq!((none.tag.as_deref(), none.elapsed_ms.len()), (None, 3));
    // With a control: black's first reading is above its 10 minutes.
    let timed = game("[TimeControl \"600\"]\n");
    assert_eq!(timed.findings.len(), 1, "{:?}", timed.findings);
    assert_eq!(
        timed.findings[0].to_string(),
        "black's first clock 0:20:00 is above the 0:10:00 it started with"
    );
    // Lost on time by White, who was not to move.
    let text = "[Termination \"Time forfeit\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 0-1\n";
    let mut parsed = parse_game(text.as_bytes().to_vec());
    let verdict = arbiter_pgn::check_parsed(&mut parsed).unwrap();
    let clock = verdict.clock.unwrap();
    let forfeit = &clock.findings[0];
    assert_eq!(
        (forfeit.ply, forfeit.side, forfeit.kind.as_str()),
        (3, Color::White, "FORFEIT_NOT_ON_MOVE")
    );
    // A game without a tag or a clock has no record.
    let mut plain = parse_game(b"1. e4 e5 *".to_vec());
    assert!(arbiter_pgn::check_parsed(&mut plain).unwrap().clock.is_none());
}

/// The shared lichess sample: 438 games with `[%clk]` after every move;
/// its four clock rises are moretime grants, and nothing else is found.
#[test]
fn the_lichess_sample_gives_its_four_clock_rises() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let text = std::fs::read(dir.join("pgn/shakmaty/lichess_db_1000k.pgn"))?;
    let games = reports(&text, CheckOptions::DEFAULT);
    assert_eq!(games.len(), 438);
    let found: Vec<String> = games
        .iter()
        .flat_map(|(game, report)| {
            let site = game.tag("Site").unwrap().into_owned();
            report
                .findings
                .iter()
                .map(move |f| format!("{site} {} {} {}", f.kind.as_str(), f.ply, side(f.side)))
        })
        .collect();
    assert_eq!(
        found,
        [
            "https://lichess.org/SZqwweVz CLOCK_ROSE 68 black",
            "https://lichess.org/ptkZzl31 CLOCK_ROSE 21 white",
            "https://lichess.org/ptkZzl31 CLOCK_ROSE 71 white",
            "https://lichess.org/Gg0t3rPW CLOCK_ROSE 73 white",
        ]
    );
    // Every ply but each side's first has its time from the readings.
    for (game, report) in &games {
        let unknown = report.elapsed_ms.iter().filter(|ms| ms.is_none()).count();
        let rises = report.findings.len();
        assert_eq!(
            unknown,
            report.elapsed_ms.len().min(2) + rises,
            "{}",
            game.tag("Site").unwrap()
        );
    }
    Ok(())
}

/// The canonical export keeps the record: read back, the same report.
#[test]
fn the_canonical_export_keeps_the_record() {
    let text = include_bytes!("../fixtures/clock_records.pgn");
    let mut reader = GameReader::new(&text[..], ReaderOptions::default());
    let mut checked = 0;
    while let Some(raw) = reader.next_game().unwrap() {
        let report = check_game(raw);
        let (game, verdict) = (report.game.unwrap(), report.verdict.unwrap());
        let mut exported = Vec::new();
        write_canonical(&game, &verdict, &mut exported);
        let again = check_game(
            GameReader::new(&exported[..], ReaderOptions::default()).next_game().unwrap().unwrap(),
        );
        assert_eq!(
            again.verdict.unwrap().clock,
            verdict.clock,
            "{}",
            String::from_utf8_lossy(&exported)
        );
        checked += 1;
    }
    assert_eq!(checked, 147);
}

/// `arbiter pgn --json` writes the record: the periods, the elapsed times
/// in seconds (null where unknown) and the findings.
#[test]
fn arbiter_pgn_json_writes_the_clock() {
    let dir = std::env::temp_dir().join(format!("arbiter-clock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("clock.pgn");
    std::fs::write(
        &file,
        "[TimeControl \"40/5400+30:1800+30\"]\n\n1. e4 {[%clk 1:30:30]} e5 {[%clk 1:30:30] [%emt 0:00:00]} \
         2. Nf3 {[%clk 1:30:50.5]} {[%emt 0:00:09.5]} Nc6 {[%clk 1:35:00]} *\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["pgn", "--json", "--quiet", "--clock-tolerance", "500ms"])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let clock = &value["clock"];
    assert_eq!(clock["timeControl"]["tag"], "40/5400+30:1800+30");
    assert_eq!(
        clock["timeControl"]["periods"],
        serde_json::json!([{"moves": 40, "seconds": 5400, "increment": 30}, {"moves": 0, "seconds": 1800, "increment": 30}])
    );
    assert_eq!(clock["elapsed"], serde_json::json!([null, 0, 9.5, null]));
    let findings = clock["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{clock}");
    assert_eq!(findings[0]["kind"], "CLOCK_FINDING_KIND_CLOCK_ROSE");
    assert_eq!(findings[0]["side"], "COLOR_BLACK");
    assert_eq!(
        (findings[0]["ply"].as_u64(), findings[0]["reading"].as_f64()),
        (Some(4), Some(5700.0))
    );
    assert_eq!(findings[0]["limit"], 5460);
}
