//! What a game was: the opening, the phases and the time use
//! (`arbiter_chess::Analyzer`), against where each rule's numbers come from:
//!
//! - every line of the compiled-in table (`data/openings.tsv`), replayed by
//!   the core from its `pgn`, reaches the `epd` python-chess wrote for it and
//!   names itself;
//! - `tests/data/analysis.jsonl`, an independent oracle (python-chess 1.11.2
//!   and lichess's TSV files, `tests/data/analysis.py`): table lines extended
//!   by random moves, the same lines in other move orders, random games,
//!   FEN-start games, with generated move times (flat, whole seconds,
//!   instant, unknown, steady, varied) under one- and multi-period controls;
//!   and, with the shared data, every game of the lichess sample;
//! - the lichess sample's own `ECO`/`Opening` tags (shared data);
//! - scalachess's Divider test games and the ranges they state.

use std::path::Path;

use arbiter_chess::{
    Analyzer, CastlingMode, Color, GameAnalysis, GamePosition, Opening, OpeningFamily, Position,
    Rules, San, TimeControl, UciMove, Variant, find_opening, game_phases,
};
use arbiter_pgn::{clock_report, parse_game};
use serde_json::Value;

use crate::common;
use crate::common::TestResult;
use crate::common::pgn::parse_pgn;

/// The compiled-in table, as the crate ships it.
fn table() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.tsv");
    std::fs::read_to_string(path).expect("the crate's opening table")
}

/// The SAN tokens of a PGN line (`1. e4 e5 2. Nf3`).
fn san_tokens(pgn: &str) -> impl Iterator<Item = &str> {
    pgn.split_whitespace().filter(|t| !t.ends_with('.'))
}

/// Plays `san` in `pos`.
fn play_san(pos: &Position, san: &str) -> Position {
    let m = san.parse::<San>().unwrap().to_move(pos).unwrap_or_else(|e| panic!("{san}: {e}"));
    pos.play(m)
}

/// A position's EPD as the table writes it: the en passant square only
/// where a legal capture exists.
fn epd(pos: &Position) -> String {
    let fen = pos.to_string();
    let fields: Vec<&str> = fen.split(' ').collect();
    let ep = pos.legal_ep_square().map_or("-".to_owned(), |sq| sq.to_string());
    format!("{} {} {} {ep}", fields[0], fields[1], fields[2])
}

#[test]
fn every_table_line_reaches_its_epd_and_names_itself() {
    let table = table();
    let mut lines = 0;
    for row in table.lines().skip(1) {
        let [eco, name, pgn, expected]: [&str; 4] =
            row.split('\t').collect::<Vec<_>>().try_into().unwrap();
        let mut pos = Position::default();
        let mut positions = Vec::new();
        for san in san_tokens(pgn) {
            pos = play_san(&pos, san);
            positions.push(pos.clone());
        }
        assert_eq!(epd(&pos), expected, "{name}");
        let ply = positions.len() as u32;
        let found = Opening::at(&pos, ply).unwrap_or_else(|| panic!("{name} not found"));
        assert_eq!((found.eco, found.name, found.ply), (eco, name, ply));
        assert_eq!(Some(found.family), OpeningFamily::of_eco(eco));
        // A line's own moves name it, unless it falls under 20 pieces.
        if pos.occupied().count() >= 20 {
            assert_eq!(find_opening(&positions), Some(found), "{name}");
        }
        lines += 1;
    }
    assert_eq!(lines, 3_807);
}

/// Replays `moves` (UCI) from `start` through an [`Analyzer`].
fn analyse(
    start: &GamePosition,
    moves: &[&str],
    times: &[Option<u64>],
    control: Option<&TimeControl>,
) -> GameAnalysis {
    let mut analyzer = Analyzer::new(start);
    if let Some(control) = control {
        analyzer = analyzer.with_control(control);
    }
    let mut pos = start.board().clone();
    for (uci, &ms) in moves.iter().zip(times) {
        let legal = pos.legal_moves().len();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos = pos.play(m);
        analyzer.push(&pos, legal, ms);
    }
    analyzer.finish()
}

/// Whether two floats of the oracle and ours agree (the oracle keeps 12
/// significant digits).
fn close(ours: f64, oracle: &Value) -> bool {
    let oracle = oracle.as_f64().unwrap();
    (ours - oracle).abs() <= 1e-9 * oracle.abs().max(1.0)
}

fn close_opt(ours: Option<f64>, oracle: &Value) -> bool {
    match ours {
        None => oracle.is_null(),
        Some(x) => !oracle.is_null() && close(x, oracle),
    }
}

/// The differences between our analysis and the oracle's record.
fn differences(ours: &GameAnalysis, oracle: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let opening = ours.opening.map(|o| (o.eco.to_owned(), o.name.to_owned(), u64::from(o.ply)));
    let expected = oracle["opening"].as_object().map(|o| {
        let s = |k: &str| o[k].as_str().unwrap().to_owned();
        (s("eco"), s("name"), o["ply"].as_u64().unwrap())
    });
    if opening != expected {
        out.push(format!("opening {opening:?}, oracle {expected:?}"));
    }
    let phases =
        (ours.phases.middlegame_ply.map(u64::from), ours.phases.endgame_ply.map(u64::from));
    let expected = (oracle["phases"]["middlegame"].as_u64(), oracle["phases"]["endgame"].as_u64());
    if phases != expected {
        out.push(format!("phases {phases:?}, oracle {expected:?}"));
    }
    let expected = oracle["timeUse"].as_array().unwrap();
    if ours.time_use.len() != expected.len() {
        out.push(format!("{} time uses, oracle {}", ours.time_use.len(), expected.len()));
        return out;
    }
    for (t, e) in ours.time_use.iter().zip(expected) {
        let u = |i: usize| e[i].as_u64().unwrap();
        let flags = u64::from(t.no_fast_moves)
            | u64::from(t.moderately_consistent) << 1
            | u64::from(t.highly_consistent) << 2
            | u64::from(t.consistent_streak) << 3;
        let same = u64::from(t.timed_moves) == u(0)
            && t.total_ms == u(1)
            && close(t.mean_ms, &e[2])
            && close(t.sd_ms, &e[3])
            && close_opt(t.cv, &e[4])
            && close_opt(t.min_window_cv, &e[5])
            && [t.fast_moves, t.instant_moves, t.forced_moves].map(u64::from) == [u(6), u(7), u(8)]
            && [t.forced_ms, t.opening_ms, t.middlegame_ms, t.endgame_ms]
                == [u(9), u(10), u(11), u(12)]
            && flags == u(13);
        if !same {
            out.push(format!("{:?}: {t:?}, oracle {e}", t.side));
        }
    }
    out
}

fn oracle_records() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis.jsonl");
    let text = std::fs::read_to_string(path).expect("tests/data/analysis.jsonl");
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn generated_games_agree_with_the_python_oracle() {
    let mut kinds = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    let records = oracle_records();
    for (i, record) in records.iter().enumerate() {
        let kind = record["kind"].as_str().unwrap();
        if kind == "lichess" {
            continue;
        }
        *kinds.entry(kind).or_insert(0) += 1;
        let start = record["fen"].as_str().map_or_else(Position::default, |f| f.parse().unwrap());
        let moves: Vec<&str> =
            record["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let times: Vec<Option<u64>> =
            record["times"].as_array().unwrap().iter().map(Value::as_u64).collect();
        let control = record["tc"].as_str().unwrap().parse::<TimeControl>().ok();
        let ours = analyse(&start.into(), &moves, &times, control.as_ref());
        let found = differences(&ours, record);
        if !found.is_empty() {
            failures.push(format!("line {} ({kind}): {}", i + 1, found.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
    let counts: Vec<(&str, i32)> = kinds.into_iter().collect();
    assert_eq!(counts, [("fen", 24), ("line", 120), ("random", 30), ("transposed", 60)]);
}

/// The lichess sample's games: tags, SAN moves and the clock record's
/// elapsed times, analysed.
/// A game's tag pairs.
type Tags = Vec<(String, String)>;

fn lichess_sample() -> Option<Vec<(Tags, GameAnalysis)>> {
    let dir = common::data_dir_or_skip()?;
    let text = common::read_data(&dir, "pgn/shakmaty/lichess_db_1000k.pgn").unwrap();
    let games = parse_pgn(&text);
    let raw: Vec<_> = arbiter_pgn::GameReader::new(text.as_bytes(), Default::default())
        .map(|g| parse_game(g.unwrap().text.unwrap()))
        .collect();
    assert_eq!(games.len(), raw.len());
    let mut out = Vec::new();
    for (game, raw) in games.iter().zip(&raw) {
        let start = Position::default();
        let plies = game.moves.len();
        let report = clock_report(raw, plies, Color::White, 1000);
        let elapsed = report.as_ref().map(|r| r.elapsed_ms.clone()).unwrap_or_default();
        let control = report.as_ref().and_then(|r| r.control.clone()).and_then(Result::ok);
        let mut analyzer = Analyzer::new(&start.clone().into());
        if let Some(control) = &control {
            analyzer = analyzer.with_control(control);
        }
        let mut pos = start;
        for (i, san) in game.moves.iter().enumerate() {
            let legal = pos.legal_moves().len();
            pos = play_san(&pos, san);
            analyzer.push(&pos, legal, elapsed.get(i).copied().flatten());
        }
        out.push((game.tags.clone(), analyzer.finish()));
    }
    Some(out)
}

/// The 16 games of the lichess sample whose `ECO` and `Opening` tags are
/// not the table's eco and name for them today, in file order: site, the
/// tags, ours ("" for none). Eleven are lines lichess has renamed or split
/// since the games were exported (e.g. "Four Knights Game: Italian
/// Variation" is now "Italian Game: Two Knights Defense"); five are games
/// without moves, tagged `?`, where we name no opening either, so that in
/// meaning 427 of the 438 agree. The oracle finds the same 16.
const NOT_AS_TAGGED: [(&str, &str, &str, &str, &str); 16] = [
    (
        "2n8rTST7",
        "C47",
        "Four Knights Game: Italian Variation",
        "C55",
        "Italian Game: Two Knights Defense",
    ),
    ("HKkJYOOO", "A45", "Indian Defense", "A45", "Indian Defense: Accelerated London System"),
    (
        "2UL6K3Ms",
        "C50",
        "Italian Game: Giuoco Pianissimo, Italian Four Knights Variation",
        "C50",
        "Italian Game: Giuoco Pianissimo",
    ),
    (
        "v6UgJvHC",
        "C50",
        "Four Knights Game: Italian Variation",
        "C50",
        "Italian Game: Giuoco Pianissimo",
    ),
    ("S4Qhi1KU", "A07", "King's Indian Attack", "A07", "King's Indian Attack, with e6"),
    ("oT6Ph1bm", "A00", "Polish Opening", "A00", "Polish Opening, with d5"),
    (
        "aoB8IqLu",
        "D02",
        "Queen's Pawn Game: London System",
        "D02",
        "Queen's Pawn Game: London System, with e6",
    ),
    ("2vpXk6AJ", "?", "?", "", ""),
    (
        "06BDd1Cq",
        "C47",
        "Four Knights Game: Italian Variation",
        "C55",
        "Italian Game: Two Knights Defense",
    ),
    ("l8i5KWmH", "?", "?", "", ""),
    ("sda1J9lq", "?", "?", "", ""),
    ("jxW1Muxi", "?", "?", "", ""),
    ("i2Qe69mu", "?", "?", "", ""),
    (
        "Nj0naWzg",
        "D02",
        "Queen's Pawn Game: London System",
        "D02",
        "Queen's Pawn Game: London System, with e6",
    ),
    (
        "iiWdtWoj",
        "A52",
        "Indian Defense: Budapest Defense",
        "A52",
        "Indian Defense: Budapest Gambit Accepted, Main Line",
    ),
    (
        "cbGurN8Q",
        "B27",
        "Sicilian Defense: Hyperaccelerated Fianchetto",
        "B27",
        "Sicilian Defense: Hyperaccelerated Dragon",
    ),
];

#[test]
fn the_lichess_sample_agrees_with_its_tags_and_the_oracle() -> TestResult {
    let Some(games) = lichess_sample() else { return Ok(()) };
    let records: Vec<Value> =
        oracle_records().into_iter().filter(|r| r["kind"] == "lichess").collect();
    assert_eq!((games.len(), records.len()), (438, 438));
    let mut failures = Vec::new();
    let mut renamed = Vec::new();
    for ((tags, ours), record) in games.iter().zip(&records) {
        let tag = |k: &str| tags.iter().find(|(n, _)| n == k).map_or("", |(_, v)| v.as_str());
        let site = tag("Site").rsplit('/').next().unwrap_or_default();
        assert_eq!(site, record["site"].as_str().unwrap());
        let found = differences(ours, record);
        if !found.is_empty() {
            failures.push(format!("{site}: {}", found.join("; ")));
        }
        let (eco, name) = ours.opening.map_or(("", ""), |o| (o.eco, o.name));
        if (eco, name) != (tag("ECO"), tag("Opening")) {
            renamed.push((site.to_owned(), tag("ECO"), tag("Opening"), eco, name));
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
    let renamed: Vec<_> =
        renamed.iter().map(|(s, a, b, c, d)| (s.as_str(), *a, *b, *c, *d)).collect();
    assert_eq!(renamed, NOT_AS_TAGGED);
    assert_eq!(games.len() - renamed.len(), 422);
    Ok(())
}

/// scalachess's Divider test games (test-kit/src/test/scala/DividerTest.scala
/// at lichess-org/scalachess cbffc9d7) with the ranges it asserts, inclusive
/// (munit's assertBetween): middlegame, endgame (`None`: none). scalachess
/// divides the positions before each move; we divide those after plies
/// 0..=n, one more, which changes none of these.
/// An inclusive range of plies.
type Plies = (u32, u32);

const DIVIDER_GAMES: [(&str, Plies, Option<Plies>); 7] = [
    // http://l.org/KrTnOvuD
    (
        "1. e3 g6 2. d4 Bg7 3. Nf3 Nf6 4. Bd3 O-O 5. O-O b6 6. c4 Bb7 7. Nbd2 d5 8. b3 Nbd7 9. Bb2 Re8 10. Qc2 dxc4 11. bxc4 c5 12. d5 e5 13. e4 h5 14. a4 Nf8 15. h3 Qd6 16. Nxe5 Rxe5 17. Nf3 N6d7 18. Nxe5 Bxe5 19. Bxe5 Nxe5 20. Be2 Bc8 21. f4 Ned7 22. e5 Qe7 23. Bf3 Rb8 24. Rae1 f5 25. d6 Qh4 26. e6 Nxe6 27. Rxe6 Nf6 28. Ree1 Qxf4 29. Bd5+ Nxd5 30. Rxf4 Nxf4 31. Qd2 g5 32. d7 Bb7 33. d8=Q+ Rxd8 34. Qxd8+ Kh7 35. Qc7+ Kh6 36. Qxb7 g4 37. Qc6+ Ng6 38. Re6 gxh3 39. Rxg6+ Kh7 40. Rh6+ Kg7 41. Qf6+ Kg8 42. Rh8#",
        (18, 40),
        Some((50, 65)),
    ),
    // http://l.org/gk3gNFN7/black
    (
        "1. e4 c5 2. Nf3 d6 3. Bc4 Nf6 4. d3 g6 5. c3 Bg7 6. Bg5 O-O 7. h3 Nc6 8. Nbd2 a6 9. Bb3 b5 10. Bc2 Bb7 11. O-O Nd7 12. Nh2 f6 13. Be3 e5 14. Ndf3 Ne7 15. Qd2 f5 16. Qe2 h6 17. Bd2 g5 18. g4 f4 19. Bb3+ d5 20. exd5 Bxd5 21. c4 Bf7 22. cxb5 axb5 23. Bxf7+ Rxf7 24. Bc3 Ng6 25. a3 b4 26. axb4 Rxa1 27. Rxa1 cxb4 28. Bxb4 Qb6 29. Bc3 Re7 30. Ra8+ Kh7 31. Kg2 Nc5 32. Qc2 Qb3 33. Qxb3 Nxb3 34. Rb8 Nc5 35. Rb5 Nxd3 36. Nf1 e4 37. Ng1 Nh4+ 38. Kh2 Bxc3 39. bxc3 Nxf2 40. Rd5 e3 41. Ne2 Nf3+ 42. Kg2 Ne1+ 43. Kh2 f3 44. Neg3 e2 45. Nd2 Ng2 46. Nxf3 e1=Q 47. Nxe1 Nxe1 48. c4 Nc2 49. c5 Ne4 50. c6 Nxg3 51. Kxg3 Re3+ 52. Kf2 Rc3 53. Rd7+ Kg6 54. c7 Nb4 55. Rd6+ Kf7 56. Rxh6 Rxc7 57. Rh7+ Ke6 58. Rxc7 Nd3+ 59. Kf3 Nf4 60. Kg3 Ne2+ 61. Kf2 Nf4 62. Kg3 Ne2+ 63. Kh2 Nf4 64. Rc5 Kf6 65. Rf5+ Kg6 66. Kg3 Ne2+ 67. Kf3 Nd4+ 68. Ke4 Nxf5 69. gxf5+ Kf6 70. h4 gxh4 71. Kf4 h3 72. Kg3 Kxf5 73. Kxh3",
        (17, 30),
        Some((65, 80)),
    ),
    // http://l.org/v9drYYoa
    (
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nc6 5. Nc3 e5 6. Nb3 Nf6 7. f3 Be7 8. Be3 O-O 9. Qd2 b6 10. O-O-O Bb7 11. g4 Rc8 12. h4 a5 13. h5 Nb4 14. g5 Nd7 15. g6 Nc5 16. h6 Nxb3+ 17. axb3 fxg6 18. hxg7 Rxf3 19. Bxb6 Qxb6 20. Qh6 Qe3+ 21. Qxe3 Rxe3 22. Bd3 Nxd3+ 23. cxd3 Bg5 24. Kb1 Kxg7 25. Rh2 Bf4 26. Rh4 h5 27. Rhh1 Rf8 28. Rhg1 g5 29. Rg2 g4 30. Nb5 Rf6 31. Nc7 Rg3 32. Rxg3 Bxg3 33. Ne8+ Kf7 34. Nxf6 Kxf6 35. Rf1+ Kg5 36. Rf7 Ba6 37. Ra7 Bxd3+ 38. Kc1 Bf4+ 39. Kd1 Bxe4 40. Rxa5 g3 41. Ke2 g2 42. Ra1 h4 43. Kf2 h3 44. b4 Kg4 45. b5 h2 46. b6 h1=Q 47. Rg1 Be3+ 48. Kxe3 Qxg1+ 49. Kxe4 Qxb6 50. Kd5 g1=Q 51. Ke6 Qgf2 52. Kd5 Qf3+ 53. Ke6 Qbb3+ 54. Ke7 Qff7+ 55. Kxd6 Qbd5#",
        (20, 28),
        Some((50, 65)),
    ),
    // http://l.org/v9drYYoa (the test's link; another game)
    (
        "1. f3 g6 2. e4 Bg7 3. d4 d5 4. Qe2 Bxd4 5. c3 Bg7 6. Nd2 Nc6 7. exd5 Qxd5 8. Ne4 Nf6 9. Nxf6+ Bxf6 10. Be3 O-O 11. Rd1 Qxa2 12. Qd2 Rd8 13. Qc2 Rxd1+ 14. Kxd1 Bf5 15. Qc1 Rd8+ 16. Ke1 Ne5 17. Kf2 Bd3 18. Ne2 Ba6 19. Nd4 Bxf1 20. Kxf1 Nd3 21. Qc2 Qa1+ 22. Ke2 Qxh1 23. Qxd3 c5 24. Qb5 Qxg2+ 25. Kd3 Qf1+ 26. Kc2 Qxb5 27. Nxb5 a6 28. Na3 Rc8 29. Nc4 b5 30. Nd2 h5 31. Ne4 Be5 32. f4 Bd6 33. b3 f5 34. Ng5 e5 35. fxe5 Bxe5 36. Bg1 Bf4 37. Ne6 Bd6 38. h3 c4 39. b4 Re8 40. Nd4 Be5 41. Nf3 Bg7 42. Nd2 Re2 43. Kd1 Rg2 44. Bc5 Bxc3 45. Nf3 Rg3 46. Ke2 Rxh3 47. Ng5 Rh2+ 48. Kd1 Bf6 49. Ne6 Rh1+ 50. Ke2 Kf7 51. Nc7 Rh2+ 52. Kf3 g5 53. Nxa6 g4+ 54. Kg3 Be5#",
        (16, 34),
        Some((40, 47)),
    ),
    // http://l.org/PaaBKHRO
    (
        "1. c4 e5 2. Nc3 f5 3. d3 Nf6 4. g3 Bb4 5. Bd2 O-O 6. Bg2 c6 7. Nf3 d5 8. cxd5 Bxc3 9. Bxc3 e4 10. dxe4 Nxe4 11. dxc6 Nxc6 12. Qb3+ Kh8 13. Rd1 Qc7 14. O-O Nxc3 15. Qxc3 Be6 16. a3 Rac8 17. Nd4 Nxd4 18. Qxd4 b6 19. e4 fxe4 20. Bxe4 Rcd8 21. Qe3 Qe5 22. b4 Bc4 23. Rfe1 Qh5 24. Rxd8 Rxd8 25. Bf3 Qf5 26. Rd1 Rf8 27. Bg2 h6 28. Qd4 Qf6 29. Qxc4 Qxf2+ 30. Kh1 Qb2 31. Qd3 h5 32. h4 Qf6 33. Rf1 Qe7 34. Rxf8+ Qxf8 35. Qf3 Qe7 36. Qxh5+ Kg8 37. Bd5+",
        (19, 26),
        Some((36, 48)),
    ),
    // http://l.org/PaaBKHRO (the test's link; another game)
    (
        "1. d4 Nf6 2. c4 g6 3. Nc3 d5 4. cxd5 Nxd5 5. Bd2 Bg7 6. e4 Nxc3 7. Bxc3 O-O 8. Qd2 Nc6 9. Nf3 Bg4 10. d5 Bxf3 11. Bxg7 Kxg7 12. gxf3 Ne5 13. O-O-O c6 14. Qc3 f6 15. Bh3 cxd5 16. exd5 Nf7 17. f4 Qd6 18. Qd4 Rad8 19. Be6 Qb6 20. Qd2 Rd6 21. Rhe1 Nd8 22. f5 Nxe6 23. Rxe6 Qc7+ 24. Kb1 Rc8 25. Rde1 Rxe6 26. Rxe6 Rd8 27. Qe3 Rd7 28. d6 exd6 29. Qd4 Rf7 30. fxg6 hxg6 31. Rxd6 a6 32. a3 Qa5 33. f4 Qh5 34. Qd2 Qc5 35. Rd5 Qc4 36. Rd7 Qc6 37. Rd6 Qe4+ 38. Ka2 Re7 39. Qc1 a5 40. Qf1 a4 41. Rd1 Qc2 42. Rd4 Re2 43. Rb4 b5 44. Qh1 Re7 45. Qd5 Re1 46. Qd7+ Kh6 47. Qh3+ Kg7 48. Qd7+",
        (19, 26),
        Some((36, 48)),
    ),
    // http://l.org/W2RS81OY
    (
        "1. e4 e5 2. f4 d6 3. Nf3 exf4 4. Bc4 h6 5. O-O Bg4 6. d4 Nc6 7. Bxf4 Nf6 8. Nc3 Be7 9. e5 dxe5 10. dxe5 Nh5 11. Be3 O-O 12. h3 Bxf3 13. Qxf3 Nxe5 14. Bxf7+ Rxf7 15. Qxh5 Qf8",
        (19, 25),
        None,
    ),
];

#[test]
fn scalachess_divider_games_fall_in_their_ranges() {
    for (i, (pgn, (mid_low, mid_high), end)) in DIVIDER_GAMES.iter().enumerate() {
        let mut positions = vec![Position::default()];
        for san in san_tokens(pgn) {
            positions.push(play_san(positions.last().unwrap(), san));
        }
        let phases = game_phases(&positions);
        let middle =
            phases.middlegame_ply.unwrap_or_else(|| panic!("game {}: no middlegame", i + 1));
        assert!((mid_low..=mid_high).contains(&&middle), "game {}: {phases:?}", i + 1);
        match end {
            Some((low, high)) => {
                let e = phases.endgame_ply.unwrap_or_else(|| panic!("game {}: no endgame", i + 1));
                assert!((*low..=*high).contains(&e), "game {}: {phases:?}", i + 1);
            }
            None => assert_eq!(phases.endgame_ply, None, "game {}", i + 1),
        }
        // The same through the analyzer, fed ply by ply.
        let mut analyzer = Analyzer::new(&positions[0].clone().into());
        for pos in &positions[1..] {
            analyzer.push(pos, 20, None);
        }
        let analysis = analyzer.finish();
        assert_eq!(analysis.phases, phases);
        assert!(analysis.time_use.is_empty());
    }
}

#[test]
fn only_standard_games_from_the_standard_start_name_an_opening() {
    let sicilian = ["e2e4", "c7c5", "g1f3", "d7d6"];
    let times = [None; 4];
    let start = GamePosition::new(Rules::Standard);
    let named = analyse(&start, &sicilian, &times, None).opening.unwrap();
    assert_eq!((named.eco, named.ply), ("B50", 4));
    // A variant or Chess960 game from the same placement: no opening.
    let three_check = GamePosition::from_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
        Rules::Variant(Variant::ThreeCheck),
    )
    .unwrap();
    assert_eq!(analyse(&three_check, &sicilian, &times, None).opening, None);
    let chess960 = GamePosition::new(Rules::Chess960);
    assert_eq!(
        chess960.board(),
        &Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Chess960,
        )
        .unwrap()
    );
    assert_eq!(analyse(&chess960, &sicilian, &times, None).opening, None);
    // The start with other counters is the start; with black to move it is not.
    let counters: Position =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5 9".parse().unwrap();
    assert_eq!(analyse(&counters.into(), &sicilian, &times, None).opening, Some(named));
    let black: Position =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1".parse().unwrap();
    assert_eq!(analyse(&black.into(), &["e7e5"], &[None], None).opening, None);
    // No moves, no opening; not an error.
    assert_eq!(analyse(&start, &[], &[], None).opening, None);
}

/// The phases and the time use under every rule set: a variant's board is
/// divided as a chess board is, and its times are counted the same way.
#[test]
fn phases_and_time_use_work_under_every_rule_set() {
    let moves = ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7"];
    let times = [Some(0), Some(0), Some(1_000), Some(2_000), Some(3_000), Some(4_000)];
    let standard = analyse(&GamePosition::new(Rules::Standard), &moves, &times, None);
    for rules in [
        Rules::Chess960,
        Rules::Variant(Variant::ThreeCheck),
        Rules::Variant(Variant::KingOfTheHill),
        Rules::Variant(Variant::Crazyhouse),
    ] {
        let start = GamePosition::new(rules);
        let ours = analyse(&start, &moves, &times, None);
        assert_eq!(ours.opening, None, "{rules}");
        assert_eq!(ours.phases, standard.phases, "{rules}");
        assert_eq!(ours.time_use, standard.time_use, "{rules}");
    }
    assert_eq!(standard.phases.middlegame_ply, None);
    // White's second and third moves, Black's second and third.
    assert_eq!((standard.time_use[0].total_ms, standard.time_use[1].total_ms), (4_000, 6_000));
    // Horde: White's rank 1 is full of pawns and stays so.
    let horde = GamePosition::new(Rules::Variant(Variant::Horde));
    let ours = analyse(&horde, &["d4d5", "e7e6"], &[Some(0), Some(0)], None);
    assert_eq!(ours.opening, None);
    assert_eq!(ours.time_use.len(), 0);
}

#[test]
fn the_opening_looks_no_further_than_forty_plies() {
    // Knights out and back for 40 plies (the start again at ply 40), then
    // 1. e4's position at ply 41: not looked at, while at ply 1 it names
    // the King's Pawn Game. (Pieces never come back in standard chess, so
    // the 20-piece cut is the same as passing over smaller positions.)
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let mut moves: Vec<&str> = shuffle.iter().copied().cycle().take(40).collect();
    let start = Position::default();
    let within = analyse(&start.clone().into(), &moves, &[None; 40], None).opening.unwrap();
    assert!(within.ply <= 40 && within.ply > 36, "{within:?}");
    moves.push("e2e4");
    let past = analyse(&start.clone().into(), &moves, &[None; 41], None).opening;
    assert_eq!(past, Some(within));
    let e4 = analyse(&start.clone().into(), &["e2e4"], &[None], None).opening.unwrap();
    assert_eq!((e4.eco, e4.name, e4.ply), ("B00", "King's Pawn Game", 1));
}

/// [`GameAnalysis::of_replay`] plays a replayer's kept moves again: the
/// same analysis as an [`Analyzer`] fed here, in a variant (crazyhouse
/// drops) and in Chess960 (castling written king takes rook).
#[test]
fn the_analysis_of_a_replay_is_the_analyzers() {
    use arbiter_chess::{ReplayOptions, Replayer, VariantPosition};
    let options = ReplayOptions::default();
    let times: Vec<Option<u64>> = (0..12).map(|i| (i != 7).then_some(i * 300)).collect();
    // Crazyhouse: a capture, then the piece dropped back.
    let crazyhouse = GamePosition::new(Rules::Variant(Variant::Crazyhouse));
    let moves = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d5", "P@e5", "Nf3", "Nc6", "d4"];
    let mut replayer = Replayer::new(crazyhouse.clone(), options.analysis);
    assert!(replayer.extend(&moves, &options).illegal_move().is_none());
    let ours = GameAnalysis::of_replay(&crazyhouse, &replayer, &times, None);
    let GamePosition::Variant(start) = &crazyhouse else { unreachable!() };
    let mut analyzer = Analyzer::new(&crazyhouse);
    let mut pos: VariantPosition = start.clone();
    for (san, &ms) in moves.iter().zip(&times) {
        let legal = pos.legal_moves().len();
        pos = pos.play(pos.parse_san(san).unwrap());
        analyzer.push(pos.board(), legal, ms);
    }
    let theirs = analyzer.finish();
    assert_eq!(ours, theirs);
    assert_eq!(ours.opening, None);
    assert_eq!(ours.time_use.len(), 2);

    // Chess960 position 518 (the standard array), both sides castling
    // king-side, king takes rook.
    let chess960 = GamePosition::start(None, None, Some(518)).unwrap();
    let moves = ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1h1", "e8h8"];
    let mut replayer = Replayer::new(chess960.clone(), options.analysis);
    let tail = replayer.extend(&moves, &options);
    assert!(tail.illegal_move().is_none(), "{:?}", tail.illegal_move());
    let ours = GameAnalysis::of_replay(&chess960, &replayer, &times, None);
    let expected = analyse(&chess960, &moves, &times[..moves.len()], None);
    assert_eq!(ours, expected);
}
