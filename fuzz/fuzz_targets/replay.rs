//! Replay invariants, two ways. Text: any list of move texts, in any
//! notation and mode (the first illegal move stopping the replay, or ruled
//! on as over the board), replays without panicking; the answer accounts
//! for every move sent up to where it stopped (played, ruled on, or the
//! illegal move), and every accepted ply is legal and canonical when
//! written back. Walk: the input picks a game through the generated legal
//! moves (up to 200 plies); at every ply perft(1) equals the legal-move
//! count; in the last plies every legal move's SAN and UCI parse back to
//! that move and playing it keeps a valid position (its FEN reads back);
//! replaying the game in SAN and in UCI accepts every move and reaches the
//! same position and outcome.
#![no_main]

use arbiter_chess::{
    Analysis, Color, Game, GamePosition, IllegalMoves, Notation, Position, ReplayOptions,
    RulingAction, San, SearchBudget, Termination, UciMove, Winnability, perft, replay,
};
use libfuzzer_sys::fuzz_target;

/// Starts rich in castling, en passant, promotions and pins (the standard
/// perft suite).
const STARTS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
];

fn replay_text(flags: u8, text: &str) {
    let moves: Vec<&str> = text.split_whitespace().take(400).collect();
    let options = ReplayOptions {
        notation: match flags % 3 {
            0 => Notation::Auto,
            1 => Notation::Uci,
            _ => Notation::San,
        },
        strict: flags & 4 != 0,
        include_fens: flags & 8 != 0,
        skip_legal_moves: flags & 16 != 0,
        plies_from: 0,
        shredder_fen: flags & 32 != 0,
        legal_moves_from: None,
        flagged: (flags & 64 != 0).then_some(if flags & 1 == 0 {
            Color::White
        } else {
            Color::Black
        }),
        winnability: flags & 128 != 0,
        // Small budgets: a run stays fast, and soundness does not depend on them.
        analysis: Analysis {
            per_ply: SearchBudget { nodes: 100 },
            full: SearchBudget { nodes: 2_000 },
        },
        // The flags are all taken: the text's length picks the rules.
        illegal_moves: match text.len() % 3 {
            0 => IllegalMoves::Stop,
            1 => IllegalMoves::Fide,
            _ => IllegalMoves::Fide2009,
        },
    };
    let r = replay(Position::default(), &moves, &options);
    // Each move sent up to the stop was played or ruled on.
    let accounted = r.plies.len() + r.rulings.len();
    match &r.illegal_move {
        Some(bad) => assert_eq!(bad.index, accounted),
        None => assert_eq!(accounted, moves.len()),
    }
    let limit = options.illegal_moves.limit().unwrap_or(0);
    assert!(limit > 0 || r.rulings.is_empty());
    for (i, ruling) in r.rulings.iter().enumerate() {
        assert!(ruling.reason.is_completed_move() && ruling.count <= limit, "{ruling:?}");
        // Only the last may end the game, and it ends it.
        let ends = ruling.action != RulingAction::TimeAdded;
        assert_eq!(ends, ruling.count == limit, "{ruling:?}");
        assert!(!ends || i + 1 == r.rulings.len());
    }
    let by_count = matches!(
        r.outcome.termination,
        Some(Termination::IllegalMoves | Termination::IllegalMovesVsUnwinnable)
    );
    assert_eq!(by_count, r.rulings.last().is_some_and(|last| last.count == limit));
    // A flag fall after legal moves always ends the game.
    if options.flagged.is_some() && r.illegal_move.is_none() {
        assert!(r.outcome.is_over() && r.legal_moves.is_empty());
    }
    // Every helpmate reported replays to that colour's mate.
    for (color, verdict) in Color::ALL.into_iter().zip(r.winnability.iter().flatten()) {
        if let Winnability::Winnable(line) = verdict {
            let GamePosition::Chess(mut pos) = r.position.clone() else { panic!("a chess game") };
            for &m in line {
                assert!(pos.is_legal(m), "{line:?}");
                pos.play_unchecked(m);
            }
            assert!(pos.turn() == !color && pos.is_check() && !pos.has_legal_moves());
        }
    }
    // The canonical SAN of the accepted plies replays to the same position.
    let sans: Vec<String> = r.plies.iter().map(|p| p.san.to_string()).collect();
    let strict =
        ReplayOptions { notation: Notation::San, strict: true, ..ReplayOptions::default() };
    let again = replay(Position::default(), &sans, &strict);
    assert!(again.illegal_move.is_none());
    assert_eq!(again.position, r.position);
}

/// Plies at the end of a walk whose every legal move is checked in full;
/// the plies before only count perft(1), which keeps a run fast.
const FULLY_CHECKED_PLIES: usize = 4;

/// Every legal move of `pos`: its SAN and UCI parse back to it, and the
/// position after it prints to a FEN that reads back as the same position.
fn check_every_move(pos: &Position) {
    for &m in pos.legal_moves().iter() {
        let written = arbiter_chess::san(pos, m);
        let parsed: San = written.parse().expect("canonical SAN parses");
        assert_eq!(parsed.to_move(pos), Ok(m), "{pos} {written}");
        let text = UciMove::from_move(m).to_string();
        assert_eq!(text.parse::<UciMove>().ok().and_then(|u| u.to_move(pos)), Some(m));
        let after = pos.play(m);
        let fen = after.to_string();
        let again: Position = fen.parse().unwrap_or_else(|e| panic!("{pos} {text}: {fen}: {e}"));
        assert_eq!(again, after, "{fen}");
    }
}

fn walk(start: &Position, choices: &[u8]) {
    let choices = &choices[..choices.len().min(200)];
    let mut game = Game::new(start.clone());
    let (mut sans, mut ucis) = (Vec::new(), Vec::new());
    for (ply, &choice) in choices.iter().enumerate() {
        if game.is_over() {
            break;
        }
        let pos = game.position().clone();
        let legal = pos.legal_moves();
        assert_eq!(perft(&pos, 1), legal.len() as u64, "{pos}");
        if ply + FULLY_CHECKED_PLIES >= choices.len() {
            check_every_move(&pos);
        }
        let Some(&m) = legal.get(usize::from(choice) % legal.len().max(1)) else { break };
        ucis.push(UciMove::from_move(m).to_string());
        sans.push(game.play(m).to_string());
    }
    for (notation, moves) in [(Notation::San, &sans), (Notation::Uci, &ucis)] {
        let options = ReplayOptions { notation, strict: true, ..ReplayOptions::default() };
        let r = replay(start.clone(), moves, &options);
        assert!(r.illegal_move.is_none(), "{start} {moves:?}: {:?}", r.illegal_move);
        assert_eq!(r.position, GamePosition::Chess(game.position().clone()));
        assert_eq!(r.outcome, game.outcome());
        let listed = if game.is_over() { 0 } else { game.position().legal_moves().len() };
        assert_eq!(r.legal_moves.len(), listed);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    if flags & 32 == 0 {
        replay_text(flags, &String::from_utf8_lossy(rest));
    } else {
        let start: Position = STARTS[usize::from(flags) % STARTS.len()].parse().expect("start");
        walk(&start, rest);
    }
});
