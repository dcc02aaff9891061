//! The JSON writer's tests: plies and positions written as proto3 JSON,
//! and the same text whichever form of the plies the writer is given.

use rand::rngs::SmallRng;
use rand::{RngCore as _, SeedableRng as _};

use super::*;
use arbiter_chess::{Game, Position, replay, replay_clocked};

fn json_of(moves: &[&str], options: &ReplayOptions) -> String {
    let replay = replay(Position::default(), moves, options);
    let messages = Messages::new(&replay);
    let mut out = Vec::new();
    GameJson::new(&replay, &messages).write_json(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn plies_are_written_as_proto3_json() {
    let options = ReplayOptions { skip_legal_moves: true, ..Default::default() };
    let text = json_of(&["e4", "e7e5", "Ng1-f3", "Ke3"], &options);
    let plies = r#"{"plies":[{"san":"e4","uci":"e2e4","canonicalInput":true},{"san":"e5","uci":"e7e5","canonicalInput":true},{"san":"Nf3","uci":"g1f3","canonicalInput":false}],"illegalMove":{"index":3,"move":"Ke3","#;
    assert!(text.starts_with(plies), "{text}");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["position"]["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    assert_eq!(value["outcome"]["pgnResult"], "*");
    assert!(!text.contains('\n'));

    let options =
        ReplayOptions { include_fens: true, skip_legal_moves: true, ..Default::default() };
    let text = json_of(&["f3", "e5", "g4", "Qh4#"], &options);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["plies"][3]["san"], "Qh4#");
    assert_eq!(
        value["plies"][0]["fenAfter"],
        "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(value["outcome"]["termination"], "TERMINATION_CHECKMATE");
    assert!(value.get("illegalMove").is_none());
    assert!(text.ends_with("}}"), "{text}");
}

/// The final position written straight from the replay's legal moves
/// is the position written from its message, as a variant's is, and
/// holds the message's fields: positions with threefold and fifty-move
/// claims, both colours' verdicts, a clock record, a check, Chess960.
#[test]
fn the_final_position_writes_as_its_message() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
    let fifty: Position = "8/8/3k4/8/8/3K4/8/R7 w - - 99 80".parse().unwrap();
    let verdicts = ReplayOptions { winnability: true, ..Default::default() };
    let cases: [(Position, &[&str], ReplayOptions); 6] = [
        (Position::default(), &shuffle, ReplayOptions::default()),
        (fifty.clone(), &[], ReplayOptions::default()),
        (fifty, &["Kc3"], verdicts),
        (Position::default(), &["f3", "e5", "g4"], verdicts),
        (
            Position::default(),
            &["e4", "d5", "Bb5+"],
            ReplayOptions { shredder_fen: true, ..Default::default() },
        ),
        (Position::chess960_start(0).unwrap(), &["g3", "g6"], ReplayOptions::default()),
    ];
    let mut claims = 0;
    for (start, moves, options) in cases {
        let record =
            ClockRecord::new("300+3".parse().unwrap(), vec![1_500; moves.len()], 0, moves.len());
        for clock in [None, Some(record.unwrap())] {
            let replay = match &clock {
                None => replay(start.clone(), moves, &options),
                Some(record) => replay_clocked(start.clone(), moves, &options, record),
            };
            let messages = Messages::new(&replay);
            let mut written = Vec::new();
            GameJson::new(&replay, &messages).write_json(&mut written).unwrap();
            let message = crate::answer::final_position(&replay);
            let mut from_message = Vec::new();
            let json = GameJson {
                position: Some(PositionJson::from(&message)),
                ..GameJson::new(&replay, &messages)
            };
            json.write_json(&mut from_message).unwrap();
            let text = String::from_utf8(written).unwrap();
            assert_eq!(text, String::from_utf8(from_message).unwrap());

            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let position = &value["position"];
            let proto::Position {
                fen,
                turn,
                in_check,
                halfmove_clock,
                fullmove_number,
                legal_moves,
                winnability,
                clocks,
            } = &message;
            assert_eq!(position["fen"], fen.as_str());
            let turn = proto::Color::try_from(*turn).unwrap().as_str_name();
            assert_eq!(position["turn"], turn);
            assert_eq!(position["inCheck"], *in_check);
            assert_eq!(position["halfmoveClock"], *halfmove_clock);
            assert_eq!(position["fullmoveNumber"], *fullmove_number);
            let listed = position["legalMoves"].as_array().unwrap();
            assert_eq!(listed.len(), legal_moves.len());
            for (json, m) in listed.iter().zip(legal_moves) {
                assert_eq!(json["uci"], m.uci.as_str());
                assert_eq!(json["san"], m.san.as_str());
                let draws = json.get("claimableDraws").map_or(Vec::new(), |d| {
                    d.as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect()
                });
                assert_eq!(draws, draw_names(&m.claimable_draws));
                claims += draws.len();
            }
            assert_eq!(position.get("winnability").is_some(), winnability.is_some());
            if let Some(proto::Winnability { white, black }) = winnability {
                for (json, verdict) in [("white", white), ("black", black)] {
                    let name = proto::Verdict::try_from(verdict.as_ref().unwrap().verdict);
                    assert_eq!(
                        position["winnability"][json]["verdict"],
                        name.unwrap().as_str_name()
                    );
                }
            }
            assert_eq!(position.get("clocks").is_some(), clocks.is_some());
            if let Some(proto::RemainingTimes { white, black }) = clocks {
                for (name, time) in [("white", white), ("black", black)] {
                    let mut text = Vec::new();
                    push_duration_json(&mut text, time.as_ref().unwrap());
                    let expected: serde_json::Value = serde_json::from_slice(&text).unwrap();
                    assert_eq!(position["clocks"][name], expected);
                }
            }
        }
    }
    // Threefold claims after the shuffle, fifty-move claims at 99.
    assert!(claims >= 4, "{claims} claims listed");
}

/// The plies taken from the replay itself ([`GameJson::with_plies`],
/// as [`write_game`] writes them, with the FENs taken from the tail)
/// are written as the answer's records are, and as the service's
/// messages have them: random games in standard chess and Chess960
/// (castling both ways, promotions, en passant, checks and mates),
/// moves sent as SAN or as UCI, some not canonical; with and without
/// FENs (X-FEN and Shredder-FEN), from the first ply or a later one.
#[test]
fn plies_from_the_replay_write_as_the_records_do() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_0000_0000_0001);
    let mut next = move || rng.next_u32() as usize;
    let (mut castles, mut promotions, mut fens) = (0, 0, 0);
    for game_number in 0..60 {
        let start = if game_number % 2 == 0 {
            Position::default()
        } else {
            Position::chess960_start(next() as u32 % 960).unwrap()
        };
        let mode = start.castling_mode();
        let mut game = Game::new(start.clone());
        let mut moves = Vec::new();
        while moves.len() < 200 && !game.outcome().is_over() {
            let legal = game.position().legal_moves();
            let m = legal[next() % legal.len()];
            castles += usize::from(m.is_castle());
            promotions += usize::from(m.promotion().is_some());
            let uci = UciMove::from_move_in(m, mode).to_string();
            let san = game.play(m).to_string();
            moves.push(match next() % 4 {
                0 => uci,
                // Not canonical: no check mark.
                1 => san.trim_end_matches(['+', '#']).to_owned(),
                _ => san,
            });
        }
        // An illegal move after the game, sometimes.
        if next() % 2 == 0 {
            moves.push("Ke9".to_owned());
        }
        let plain = ReplayOptions { skip_legal_moves: true, ..Default::default() };
        let from = next() % (moves.len() + 2);
        let with_fens = ReplayOptions { include_fens: true, ..plain };
        for options in [
            plain,
            ReplayOptions { plies_from: from, ..plain },
            with_fens,
            ReplayOptions { shredder_fen: true, plies_from: from, ..with_fens },
        ] {
            let full = replay(start.clone(), &moves, &options);
            let messages = Messages::new(&full);
            let mut expected = Vec::new();
            GameJson::new(&full, &messages).write_json(&mut expected).unwrap();
            expected.push(b'\n');
            let mut written = Vec::new();
            write_game(&mut written, start.clone().into(), &moves, &options, None).unwrap();
            let text = String::from_utf8(written).unwrap();
            assert_eq!(text, String::from_utf8(expected).unwrap(), "{options:?} {moves:?}");

            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let empty = Vec::new();
            let plies = value.get("plies").and_then(|p| p.as_array()).unwrap_or(&empty);
            assert_eq!(plies.len(), full.plies.len());
            for (json, record) in plies.iter().zip(&full.plies) {
                let proto::Ply { san, uci, fen_after, canonical_input, clock, clock_ms } =
                    proto::Ply::from(record);
                assert!(clock.is_none() && clock_ms.is_none());
                assert_eq!(json["san"], san.as_str());
                assert_eq!(json["uci"], uci.as_str());
                assert_eq!(options.include_fens, !fen_after.is_empty());
                if options.include_fens {
                    assert_eq!(json["fenAfter"], fen_after.as_str());
                    fens += 1;
                } else {
                    assert!(json.get("fenAfter").is_none());
                }
                assert_eq!(json["canonicalInput"], canonical_input);
                let fields = 3 + usize::from(options.include_fens);
                assert_eq!(json.as_object().unwrap().len(), fields, "{json}");
            }
        }
    }
    assert!(fens > 5_000, "{fens} FENs");
    assert!(castles > 5 && promotions > 20, "{castles} castles, {promotions} promotions");
}

/// The analysis's own writer writes what serde writes, whichever of its
/// optional parts a game has: an opening or none, either phase or both,
/// time use with and without a cv and a window.
#[test]
fn the_analysis_is_written_as_serde_writes_it() {
    use arbiter_pgn::{CheckOptions, GameReader, check_game_with};
    let clocks: String = (0..40)
        .map(|i| {
            let s = 59 - i % 50;
            format!("{}. e4 {{[%clk 0:09:{s:02}]}} e5 {{[%clk 0:09:{:02}]}} ", i + 1, 59 - i)
        })
        .take(1)
        .collect();
    let shuffle: String = (0..20)
        .map(|i| {
            let s = 59 - (i * 7) % 50;
            format!("Nf3 {{[%clk 0:09:{s:02}]}} Nf6 {{[%emt 0:00:0{}]}} Ng1 Ng8 ", i % 10)
        })
        .collect();
    let texts = [
        format!("[TimeControl \"600+5\"]\n\n{clocks} *\n"),
        format!("[TimeControl \"600\"]\n\n1. e4 e5 {shuffle} *\n"),
        "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 0 1\"]\n\n1. Ra8+ Kd7 *\n".to_owned(),
        "1. d4 d5 2. c4 c6 3. Nc3 Nf6 4. e3 e6 *\n".to_owned(),
    ];
    let asked = CheckOptions { include_analysis: true, ..CheckOptions::DEFAULT };
    for text in &texts {
        let raw = GameReader::new(text.as_bytes(), Default::default()).next().unwrap().unwrap();
        let report = check_game_with(raw, false, asked);
        let analysis = *report.verdict.unwrap().analysis.unwrap();
        let message = proto::GameAnalysis::from(&analysis);
        let json = AnalysisJson::from(&message);
        let (mut ours, mut serde) = (Vec::new(), Vec::new());
        json.write_field(&mut ours).unwrap();
        write_field(&mut serde, "analysis", Some(&json)).unwrap();
        assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(serde).unwrap(), "{text}");
        let (mut direct, mut through) = (Vec::new(), Vec::new());
        AnalysisJson::from(&analysis).write_field(&mut direct).unwrap();
        json.write_field(&mut through).unwrap();
        assert_eq!(direct, through, "{text}");
    }
}
