//! Chess960 end to end in the rules core: the 960 start positions, the
//! scalachess Chess960 perft suite, a differential test against shakmaty in
//! `CastlingMode::Chess960` (legal moves, SAN, UCI, FEN and perft(2) along
//! random games from random start positions), the cutechess Fischer Random
//! games, and the castling cases that break naive code.
//!
//! The data-driven parts read `ARBITER_TEST_DATA` and skip without it;
//! `ARBITER_PERFT_NODES` bounds the perft work beyond depth 4.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use arbiter_chess::{
    Bitboard, CastlingMode, IllegalReason, MoveKind, Notation, Position, ReplayOptions, Role,
    UciMove, perft, replay, san,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position as _};

use crate::common;
use crate::common::TestResult;
use crate::common::pgn;

fn chess960(fen: &str) -> Position {
    Position::from_fen(fen, CastlingMode::Chess960)
        .unwrap_or_else(|err| panic!("chess960 rejects {fen}: {err}"))
}

fn shakmaty960(fen: &str) -> shakmaty::Chess {
    Fen::from_ascii(fen.as_bytes())
        .expect("shakmaty reads our FEN")
        .into_position(shakmaty::CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("shakmaty rejects {fen}: {e}"))
}

/// Our X-FEN with the en-passant square only when a capture there is
/// legal, as shakmaty writes it with `EnPassantMode::Legal`.
fn comparable_fen(pos: &Position) -> String {
    let fen = pos.to_string();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    let ep = pos.legal_ep_square().map_or("-".to_owned(), |sq| sq.to_string());
    fields[3] = &ep;
    fields.join(" ")
}

fn their_comparable_fen(pos: &shakmaty::Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The sorted UCI (king takes rook) of our legal moves.
fn our_moves(pos: &Position) -> BTreeSet<String> {
    pos.legal_moves()
        .iter()
        .map(|&m| UciMove::from_move_in(m, CastlingMode::Chess960).to_string())
        .collect()
}

/// Start position N is Scharnagl's number N: 518 is the standard array,
/// and every placement agrees with shakmaty's `Board::chess960`.
#[test]
fn start_positions_by_number() {
    let standard = Position::chess960_start(518).unwrap();
    assert_eq!(standard.to_string(), arbiter_chess::STARTING_FEN);
    assert_eq!(standard.castling_mode(), CastlingMode::Chess960);
    let mut placements = BTreeSet::new();
    for n in 0..960 {
        let pos = Position::chess960_start(n).unwrap();
        let board = shakmaty::Board::chess960(n);
        let placement = pos.to_string().split(' ').next().unwrap().to_owned();
        assert_eq!(placement, board.to_string(), "start position {n}");
        // Twenty moves, plus castling where king and rook can swap or step
        // at once (BQNNRKRB: f1 and g1 swap).
        let theirs = shakmaty960(&pos.to_string());
        assert_eq!(pos.legal_moves().len(), theirs.legal_moves().len(), "{pos}");
        placements.insert(placement);
    }
    assert_eq!(placements.len(), 960);
    assert!(Position::chess960_start(960).is_none());
    assert!(Position::chess960_start(u32::MAX).is_none());
}

/// Line N of cozy-chess's `chess960_start_positions.sfens` is start position N.
#[test]
fn start_positions_match_cozy_chess() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let file = "fen/cozy-chess/chess960_start_positions.sfens";
    let text = common::read_data(&dir, file)?;
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 960, "{file}");
    for (n, line) in lines.iter().enumerate() {
        let pos = Position::chess960_start(n as u32).unwrap();
        assert_eq!(pos.shredder_fen().as_str(), *line, "{file}:{}", n + 1);
        assert_eq!(chess960(line), pos, "{file}:{}", n + 1);
    }
    Ok(())
}

/// Every position of scalachess's chess960.perft to depth 4, and deeper
/// ones (cheapest first) while the node budget lasts.
#[test]
fn chess960_perft_suite() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let file = "perft/scalachess/chess960.perft";
    let cases = common::parse_perft_file(file, &common::read_data(&dir, file)?)?;
    assert_eq!(cases.len(), 960, "{file}");
    let mut checks: Vec<(&str, &str, u32, u64)> = Vec::new();
    let mut deeper: Vec<(&str, &str, u32, u64)> = Vec::new();
    for case in &cases {
        for &(depth, nodes) in &case.counts {
            let check = (case.id.as_str(), case.epd.as_str(), depth, nodes);
            if depth <= 4 { checks.push(check) } else { deeper.push(check) }
        }
    }
    let always: u64 = checks.iter().map(|c| c.3).sum();
    deeper.sort_by_key(|c| c.3);
    let budget = common::node_budget();
    let mut spent = always;
    let affordable = deeper
        .iter()
        .take_while(|c| {
            spent = spent.saturating_add(c.3);
            spent <= budget.max(always)
        })
        .count();
    checks.extend_from_slice(&deeper[..affordable]);
    let failures: Vec<String> = common::parallel_map(&checks, |&(id, epd, depth, nodes)| {
        let pos = Position::from_fen(epd, CastlingMode::Chess960)
            .map_err(|err| format!("{id}: rejected {epd}: {err}"))?;
        let got = common::with_context(|| format!("perft {depth} of {epd}"), || perft(&pos, depth));
        if got == nodes {
            Ok(())
        } else {
            Err(format!("{id}: perft {depth} of {epd}: expected {nodes}, got {got}"))
        }
    })
    .into_iter()
    .filter_map(Result::err)
    .collect();
    let mut by_depth: BTreeMap<u32, usize> = BTreeMap::new();
    for check in &checks {
        *by_depth.entry(check.2).or_default() += 1;
    }
    eprintln!(
        "chess960 perft: {} positions; counts checked by depth {by_depth:?}, {} nodes \
         (depths 1-4: {always}; budget {budget}); {:.1?}",
        cases.len(),
        checks.iter().map(|c| c.3).sum::<u64>(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    Ok(())
}

/// The castling cases that break naive code, each with the legal castling
/// moves expected (UCI, king takes rook) and the ones expected absent.
#[test]
fn tricky_castling_cases() {
    let cases: &[(&str, &str, &[&str], &[&str])] = &[
        // King already on g1: castling moves only the rook, h1 to f1.
        ("king on its end square", "k7/8/8/8/8/8/8/4R1KR w H - 0 1", &["g1h1"], &[]),
        // Rook already on its end square: king f1 to c1, rook stays on d1.
        ("rook on its end square", "k7/8/8/8/8/8/8/3R1K2 w D - 0 1", &["f1d1"], &[]),
        // King and rook swap: king d1, rook c1 castle queen-side.
        ("king and rook swap", "7k/8/8/8/8/8/8/2RK4 w C - 0 1", &["d1c1"], &[]),
        // King b1 with rooks a1 and c1: the c1 rook castles king-side;
        // queen-side the c1 rook is in the way of the king.
        ("b1 king, a1 and c1 rooks", "4k3/8/8/8/8/8/8/RKR5 w CA - 0 1", &["b1c1"], &["b1a1"]),
        // The rook on b1 shields the king on c1 from the a1 queen along the
        // back rank; after O-O-O the rook is on d1 and the king on c1 is
        // attacked by the queen: illegal.
        ("shielding rook moves away", "4k3/8/8/8/8/8/8/qRK5 w B - 0 1", &[], &["c1b1"]),
        // An enemy rook attacks f1: the king may not pass it from e1, but
        // with the king already on g1 it is only the rook's end square,
        // which may be attacked.
        ("king passes an attacked square", "4kr2/8/8/8/8/8/8/4K2R w H - 0 1", &[], &["e1h1"]),
        ("rook's end square attacked", "3k1r2/8/8/8/8/8/8/6KR w H - 0 1", &["g1h1"], &[]),
        // The king passes d1 and c1 from f1: d1 attacked.
        ("through check", "3rk3/8/8/8/8/8/8/R4K2 w A - 0 1", &[], &["f1a1"]),
        // A knight on b1 in the rook's path blocks O-O-O.
        ("rook path blocked", "4k3/8/8/8/8/8/8/RN2K3 w A - 0 1", &[], &["e1a1"]),
    ];
    for &(name, fen, present, absent) in cases {
        let pos = chess960(fen);
        let ours = our_moves(&pos);
        let theirs: BTreeSet<String> = shakmaty960(fen)
            .legal_moves()
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Chess960).to_string())
            .collect();
        assert_eq!(ours, theirs, "{name}: {fen}");
        for m in present {
            assert!(ours.contains(*m), "{name}: {m} missing in {fen}");
        }
        for m in absent {
            assert!(!ours.contains(*m), "{name}: {m} should be illegal in {fen}");
        }
    }
}

/// Castling rights stay with the rook's square: a rook move, a capture on
/// the square or a king move drops them; a promoted rook on the square
/// never castles.
#[test]
fn rights_follow_the_rooks() {
    let pos = chess960("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1");
    assert_eq!(pos.to_string(), "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1");
    let play = |pos: &Position, uci: &str| {
        let m = uci.parse::<UciMove>().unwrap().to_move(pos).unwrap();
        pos.play(m)
    };
    assert_eq!(play(&pos, "g1g2").shredder_fen().split(' ').nth(2), Some("Bgb"));
    assert_eq!(play(&pos, "e1d1").shredder_fen().split(' ').nth(2), Some("gb"));
    let captured = play(&play(&pos, "g1g7"), "b8b1");
    assert_eq!(captured.shredder_fen().split(' ').nth(2), Some("g"));
    // A rook that comes back to the square of a lost right (as a promoted
    // rook would arrive) does not regain it: rights only ever shrink.
    let back = play(&play(&play(&pos, "g1g2"), "e8d8"), "g2g1");
    assert_eq!(back.shredder_fen().split(' ').nth(2), Some("B"));
    assert!(!our_moves(&back).contains("e1g1"), "{back}");
    // X-FEN inner rook: K names the outermost rook, G the inner one.
    let two = chess960("4k3/8/8/8/8/8/8/4K1RR w G - 0 1");
    assert_eq!(two.to_string(), "4k3/8/8/8/8/8/8/4K1RR w G - 0 1");
    assert_eq!(
        chess960("4k3/8/8/8/8/8/8/4K1RR w K - 0 1").shredder_fen().split(' ').nth(2),
        Some("H")
    );
    // Positions with different rights never hash alike.
    let g = chess960("4k3/8/8/8/8/8/8/4K1RR w G - 0 1");
    let h = chess960("4k3/8/8/8/8/8/8/4K1RR w H - 0 1");
    assert_ne!(g.zobrist(), h.zobrist());
}

/// Bad Chess960 castling fields get a precise rejection.
#[test]
fn bad_castling_rights_are_named() {
    use arbiter_chess::{FenError, PositionError};
    for (fen, letter) in [
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", 'K'),
        ("4k3/8/8/8/8/8/8/4K2R w B - 0 1", 'B'),
        ("4k3/8/8/8/8/8/8/4KR1R w HF - 0 1", 'F'),
        ("4k3/8/8/8/8/8/4K3/7R w H - 0 1", 'H'),
        ("4k3/8/8/8/8/8/8/4K2r w H - 0 1", 'H'),
        ("4k3/8/8/8/8/8/8/4K2R w E - 0 1", 'E'),
    ] {
        assert_eq!(
            Position::from_fen(fen, CastlingMode::Chess960),
            Err(FenError::Position(PositionError::InvalidCastlingRight(letter))),
            "{fen}"
        );
    }
}

/// Moves in and out: `O-O`/`O-O-O` and `0-0`, king takes rook, the king's
/// step when it is unambiguous; UCI out is king takes rook; the illegal
/// ones get castling reasons.
#[test]
fn castling_notation_in_and_out() {
    let start = chess960("4k3/8/8/8/8/8/8/RK4R1 w GA - 0 1");
    let options = ReplayOptions::default();
    for text in ["O-O", "0-0", "b1g1"] {
        let r = replay(start.clone(), &[text], &options);
        assert!(r.illegal_move.is_none(), "{text}: {:?}", r.illegal_move);
        assert_eq!(r.plies[0].san.as_str(), "O-O");
        assert_eq!(r.plies[0].uci.to_string(), "b1g1");
        assert_eq!(r.position.to_string(), "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1");
    }
    // King takes rook; the king's step to c1 is a plain king move here.
    let r = replay(start.clone(), &["b1a1"], &options);
    assert_eq!(r.plies[0].san.as_str(), "O-O-O");
    assert!(r.plies[0].canonical_input);
    let r = replay(start.clone(), &["b1c1"], &options);
    assert_eq!(r.plies[0].san.as_str(), "Kc1");
    // Legal moves list castling as king takes rook.
    let r = replay(start.clone(), &[] as &[&str], &options);
    let ucis: BTreeSet<String> = r.legal_moves.iter().map(|m| m.uci.to_string()).collect();
    assert!(ucis.contains("b1g1") && ucis.contains("b1a1"), "{ucis:?}");
    // Illegal castling gets the castling reasons.
    let uci = ReplayOptions { notation: Notation::Uci, ..ReplayOptions::default() };
    let cases = [
        ("4k3/8/8/8/8/8/8/RK4R1 w A - 0 1", "b1g1", IllegalReason::CastlingWithoutRight),
        ("4k3/8/8/8/8/8/8/RK2N1R1 w GA - 0 1", "b1g1", IllegalReason::CastlingBlocked),
        ("1r2k3/8/8/8/8/8/8/RK4R1 w GA - 0 1", "b1g1", IllegalReason::CastlingOutOfCheck),
        ("4kr2/8/8/8/8/8/8/RK4R1 w GA - 0 1", "b1g1", IllegalReason::CastlingThroughCheck),
        ("4k1r1/8/8/8/8/8/8/RK5R w HA - 0 1", "b1h1", IllegalReason::CastlingIntoCheck),
        ("2r1k3/8/8/8/8/8/8/RK4R1 w GA - 0 1", "b1a1", IllegalReason::CastlingIntoCheck),
    ];
    for (fen, text, reason) in cases {
        let r = replay(chess960(fen), &[text], &uci);
        let illegal = r.illegal_move.unwrap_or_else(|| panic!("{text} accepted in {fen}"));
        assert_eq!(illegal.reason, reason, "{text} in {fen}: {}", illegal.message);
    }
    let r = replay(chess960("1r2k3/8/8/8/8/8/8/RK4R1 w GA - 0 1"), &["O-O"], &options);
    assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::CastlingOutOfCheck);
}

/// Random games from random start positions, castling made likely, compared
/// move by move with shakmaty in Chess960 mode: legal move sets, the SAN and
/// UCI of every move, the FEN, and perft(2).
#[test]
fn differential_against_shakmaty_chess960() {
    const POSITIONS: usize = 20_000;
    let mut rng = SmallRng::seed_from_u64(0x0960_0960);
    let (mut compared, mut castles, mut moves_compared, mut castling_positions) = (0, 0, 0, 0);
    while compared < POSITIONS {
        let n = rng.random_range(0..960);
        let mut pos = Position::chess960_start(n).unwrap();
        let mut theirs = shakmaty960(&pos.to_string());
        for _ in 0..rng.random_range(1..50) {
            let fen = pos.to_string();
            assert_eq!(comparable_fen(&pos), their_comparable_fen(&theirs), "from start {n}");
            let ours = our_moves(&pos);
            let their_moves = theirs.legal_moves();
            let expected: BTreeSet<String> = their_moves
                .iter()
                .map(|m| m.to_uci(shakmaty::CastlingMode::Chess960).to_string())
                .collect();
            assert_eq!(ours, expected, "legal moves of {fen}");
            assert_eq!(perft(&pos, 2), shakmaty::perft(&theirs, 2), "perft(2) of {fen}");
            for their in &their_moves {
                let uci = their.to_uci(shakmaty::CastlingMode::Chess960).to_string();
                let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                let their_san = shakmaty::san::SanPlus::from_move(theirs.clone(), *their);
                assert_eq!(san(&pos, m).as_str(), their_san.to_string(), "{uci} in {fen}");
                moves_compared += 1;
            }
            compared += 1;
            let moves = pos.legal_moves();
            castling_positions += usize::from(moves.iter().any(|m| m.is_castle()));
            if moves.is_empty() {
                break;
            }
            let castling: Vec<_> = moves.iter().filter(|m| m.kind() == MoveKind::Castle).collect();
            // Castling made likely: castle when possible, else clear the
            // back rank with the pieces between king and rooks, and keep
            // king and rooks at home.
            let back_rank = Bitboard::from_rank(pos.turn().back_rank());
            let homebound = pos.by_role(Role::King) | pos.by_role(Role::Rook);
            let clearing: Vec<_> = moves
                .iter()
                .filter(|m| back_rank.contains(m.from()) && !homebound.contains(m.from()))
                .collect();
            let quiet: Vec<_> = moves.iter().filter(|m| !homebound.contains(m.from())).collect();
            let m = if !castling.is_empty() && rng.random_bool(0.3) {
                *castling[rng.random_range(0..castling.len())]
            } else if !clearing.is_empty() && rng.random_bool(0.6) {
                *clearing[rng.random_range(0..clearing.len())]
            } else if !quiet.is_empty() && rng.random_bool(0.8) {
                *quiet[rng.random_range(0..quiet.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            castles += usize::from(m.is_castle());
            let uci = UciMove::from_move_in(m, CastlingMode::Chess960).to_string();
            let their = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&theirs)
                .unwrap_or_else(|e| panic!("shakmaty rejects {uci} in {fen}: {e}"));
            theirs.play_unchecked(their);
            pos = pos.play(m);
        }
    }
    eprintln!(
        "compared {compared} positions, {moves_compared} moves' SAN; {castling_positions} \
         positions could castle, {castles} castles played"
    );
    assert!(castling_positions > 3_000, "only {castling_positions} positions could castle");
    assert!(castles > 800, "only {castles} castling moves played");
}

/// The cutechess Fischer Random games replay without an error, to the same
/// final position as shakmaty reaches.
#[test]
fn cutechess_fischer_random_games_replay() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let file = "pgn/python-chess/cutechess-fischerrandom.pgn";
    let games = pgn::parse_pgn(&common::read_data(&dir, file)?);
    assert_eq!(games.len(), 4, "{file}");
    let mut castles = 0;
    for game in &games {
        let label = game.label(file);
        let start = game.start()?;
        assert_eq!(start.castling_mode(), CastlingMode::Chess960, "{label}");
        let r = replay(start.clone(), &game.moves, &ReplayOptions::default());
        assert!(r.illegal_move.is_none(), "{label}: {:?}", r.illegal_move);
        assert_eq!(r.plies.len(), game.moves.len(), "{label}");
        let mut theirs = shakmaty960(&start.to_string());
        for text in &game.moves {
            let san: shakmaty::san::San = text.parse()?;
            let m = san.to_move(&theirs)?;
            castles += usize::from(m.is_castle());
            theirs.play_unchecked(m);
        }
        assert_eq!(
            comparable_fen(common::chess(&r.position)),
            their_comparable_fen(&theirs),
            "{label}"
        );
    }
    assert!(castles >= 4, "only {castles} castling moves in {file}");
    Ok(())
}
