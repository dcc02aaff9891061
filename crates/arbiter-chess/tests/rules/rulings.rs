//! The arbiter's rulings on completed illegal moves (FIDE 7.5.5, and the
//! Laws of 2009, 7.4(b)) against a model written apart from the code:
//! shakmaty says which texts are legal moves, and the model below applies
//! the rules as the issue and docs/rules.md state them — the count, the
//! time added (60 s in rapid and blitz under the Laws of 2023, else 120 s),
//! the game lost at the count or drawn when the opponent has insufficient
//! material, each illegal move's time charged to its mover with no
//! increment and the flag falls of a plain `base+increment` clock.
//!
//! The games are seeded random games from the standard start and from
//! endings where the opponent has a bare king or too little to mate, with
//! illegal moves of every kind put in (into check, a pinned piece, a square
//! the piece cannot reach, castling without the right, a pawn's impossible
//! step), in SAN and in UCI, with and without a clock, under both rules.

use arbiter_chess::{
    ClockRecord, Color, GameResult, IllegalMoves, IllegalReason, Notation, Position, ReplayOptions,
    RulingAction, Termination, replay, replay_clocked,
};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom as _;
use rand::{Rng, SeedableRng};
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position as _, Role, Square};

use crate::common::shakmaty_position;

/// Start positions: the standard one, and endings whose side with more
/// material may lose on the count to an opponent who cannot mate.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pp3ppp/2n5/3pP3/1b6/2N5/PP3PPP/R3K2R w KQkq - 0 1",
    "4k3/8/8/8/8/8/3PPP2/R3K2R w KQ - 0 1",
    "4k3/8/8/8/8/8/8/RN2K3 b Q - 0 1",
    "7k/8/8/8/8/8/4NP2/4K3 w - - 0 1",
    "2b1k3/8/8/8/8/8/6PP/4K2R b K - 0 1",
];

/// Controls: none, blitz, rapid at its limit (2999 + 60 × 10 = 3599 s),
/// classical just past it, and a long classical game.
const CONTROLS: &[Option<(u64, u64)>] =
    &[None, Some((180, 2)), Some((2999, 10)), Some((3000, 10)), Some((5400, 30))];

/// One input of a generated game.
struct Input {
    text: String,
    time_ms: u64,
}

/// The model's answer, in the terms of [`arbiter_chess::Replay`].
#[derive(Debug, PartialEq, Eq)]
struct Expected {
    plies: Vec<String>,
    /// (index, side, count, action, time added).
    rulings: Vec<(usize, Color, u32, RulingAction, Option<u64>)>,
    illegal: Option<(usize, &'static str)>,
    result: GameResult,
    termination: Option<Termination>,
    clocks: Option<(Vec<u64>, [u64; 2])>,
}

fn color(c: shakmaty::Color) -> Color {
    if c.is_white() { Color::White } else { Color::Black }
}

fn role_letter(role: Role) -> &'static str {
    match role {
        Role::Pawn => "",
        Role::Knight => "N",
        Role::Bishop => "B",
        Role::Rook => "R",
        Role::Queen => "Q",
        Role::King => "K",
    }
}

/// An illegal move of the side to move that reads as a move: a piece to a
/// square it cannot reach, into check or while pinned, castling without
/// the right or through check, a pawn's impossible step. The text names
/// its piece's square, so that it can fit no legal move.
fn illegal_text(pos: &Chess, uci: bool, rng: &mut SmallRng) -> Option<String> {
    let us = pos.turn();
    let own = pos.board().by_color(us);
    let legal = pos.legal_moves();
    for _ in 0..64 {
        if rng.random_ratio(1, 10) {
            let text = if uci {
                let rank = if us.is_white() { "1" } else { "8" };
                format!("e{rank}{}{rank}", if rng.random() { "g" } else { "c" })
            } else if rng.random() {
                "O-O".to_owned()
            } else {
                "O-O-O".to_owned()
            };
            if !is_legal(pos, &text) && reads(&text) {
                return Some(text);
            }
            continue;
        }
        let from = *own.into_iter().collect::<Vec<_>>().choose(rng)?;
        let piece = pos.board().piece_at(from)?;
        let to = Square::new(rng.random_range(0..64));
        if to == from || own.contains(to) {
            continue;
        }
        // A pawn to the last rank would need its promotion: left out.
        if piece.role == Role::Pawn
            && (to.rank() == shakmaty::Rank::First || to.rank() == shakmaty::Rank::Eighth)
        {
            continue;
        }
        if legal.iter().any(|m| m.from() == Some(from) && m.to() == to) {
            continue;
        }
        let text = if uci {
            format!("{from}{to}")
        } else {
            let capture = if pos.board().piece_at(to).is_some() { "x" } else { "" };
            match piece.role {
                // A pawn's file is written only with a capture: `bd6`
                // could read as a bishop's move.
                Role::Pawn if capture.is_empty() => format!("{to}"),
                Role::Pawn => format!("{}x{to}", from.file()),
                role => format!("{}{from}{capture}{to}", role_letter(role)),
            }
        };
        if !is_legal(pos, &text) {
            return Some(text);
        }
    }
    None
}

/// Whether shakmaty reads `text` (SAN or UCI) as a move at all.
fn reads(text: &str) -> bool {
    text.parse::<San>().is_ok() || text.parse::<UciMove>().is_ok()
}

/// The legal move `text` names, by shakmaty.
fn legal_move(pos: &Chess, text: &str) -> Option<Move> {
    if let Ok(uci) = text.parse::<UciMove>()
        && let Ok(m) = uci.to_move(pos)
    {
        return Some(m);
    }
    text.parse::<San>().ok()?.to_move(pos).ok()
}

fn is_legal(pos: &Chess, text: &str) -> bool {
    legal_move(pos, text).is_some()
}

/// A generated game: legal moves chosen at random, with completed illegal
/// moves put in, sometimes a text that is no move, and random times (now
/// and then long enough to make a flag fall).
fn generate(start: &Chess, uci: bool, rng: &mut SmallRng) -> Vec<Input> {
    let mut pos = start.clone();
    let mut inputs = Vec::new();
    let length = rng.random_range(4..90);
    while inputs.len() < length {
        let time_ms = match rng.random_range(0..100) {
            0 => rng.random_range(100_000..400_000),
            1..20 => 0,
            _ => rng.random_range(0..20_000),
        };
        if rng.random_ratio(1, 120) {
            inputs.push(Input { text: "zz9".to_owned(), time_ms });
            continue;
        }
        let over = pos.is_game_over();
        if !over
            && rng.random_ratio(1, 8)
            && let Some(text) = illegal_text(&pos, uci, rng)
        {
            inputs.push(Input { text, time_ms });
            continue;
        }
        let legal = pos.legal_moves();
        let Some(m) = legal.choose(rng).cloned() else {
            // Over: one more move, after the end.
            inputs.push(Input { text: if uci { "a2a3" } else { "a3" }.to_owned(), time_ms });
            break;
        };
        let text = if uci {
            m.to_uci(CastlingMode::Standard).to_string()
        } else {
            San::from_move(&pos, m).to_string()
        };
        pos.play_unchecked(m);
        inputs.push(Input { text, time_ms });
    }
    inputs
}

/// The rules as stated, on shakmaty's board.
fn model(
    start: &Chess,
    inputs: &[Input],
    rules: IllegalMoves,
    control: Option<(u64, u64)>,
) -> Expected {
    let limit = if rules == IllegalMoves::Fide { 2 } else { 3 };
    let penalty = match control {
        Some((base, inc)) if rules == IllegalMoves::Fide && base + 60 * inc <= 3599 => 60_000,
        _ => 120_000,
    };
    let mut pos = start.clone();
    let mut remaining = control.map(|(base, _)| [base * 1000; 2]);
    let (mut plies, mut plies_ms, mut rulings, mut counts) = (vec![], vec![], vec![], [0u32; 2]);
    let mut illegal = None;
    let mut ended: Option<(GameResult, Termination)> = None;
    // The opponent of a side that lost (on the count or the flag) wins
    // unless it has too little material to mate.
    let loss = |pos: &Chess, loser: shakmaty::Color, win: Termination, draw: Termination| {
        if pos.has_insufficient_material(!loser) {
            (GameResult::Draw, draw)
        } else if loser.is_white() {
            (GameResult::BlackWins, win)
        } else {
            (GameResult::WhiteWins, win)
        }
    };
    for (index, input) in inputs.iter().enumerate() {
        if ended.is_some() {
            illegal = Some((index, "game_over"));
            break;
        }
        let mover = pos.turn();
        let side = usize::from(mover.is_black());
        if let Some(remaining) = &remaining
            && input.time_ms > remaining[side]
        {
            illegal = Some((index, "flag_fell"));
            ended = Some(loss(&pos, mover, Termination::Timeout, Termination::TimeoutVsUnwinnable));
            break;
        }
        if let Some(m) = legal_move(&pos, &input.text) {
            plies.push(SanPlus::from_move(pos.clone(), m).to_string());
            pos.play_unchecked(m);
            if let (Some(remaining), Some((_, inc))) = (&mut remaining, control) {
                remaining[side] = remaining[side] - input.time_ms + inc * 1000;
                plies_ms.push(remaining[side]);
            }
            ended = if pos.is_checkmate() {
                Some(loss(&pos, pos.turn(), Termination::Checkmate, Termination::Checkmate))
            } else if pos.is_stalemate() {
                Some((GameResult::Draw, Termination::Stalemate))
            } else if pos.is_insufficient_material() {
                Some((GameResult::Draw, Termination::InsufficientMaterial))
            } else {
                None
            };
            continue;
        }
        if !reads(&input.text) {
            illegal = Some((index, "unparseable"));
            break;
        }
        if let Some(remaining) = &mut remaining {
            remaining[side] -= input.time_ms;
        }
        counts[side] += 1;
        if counts[side] < limit {
            if let Some(remaining) = &mut remaining {
                remaining[1 - side] += penalty;
            }
            rulings.push((
                index,
                color(mover),
                counts[side],
                RulingAction::TimeAdded,
                Some(penalty),
            ));
            continue;
        }
        let (result, termination) =
            loss(&pos, mover, Termination::IllegalMoves, Termination::IllegalMovesVsUnwinnable);
        let action = if result == GameResult::Draw {
            RulingAction::GameDrawn
        } else {
            RulingAction::GameLost
        };
        rulings.push((index, color(mover), counts[side], action, None));
        ended = Some((result, termination));
    }
    let clocks = remaining.map(|mut remaining| {
        if let Some((_, Termination::Timeout | Termination::TimeoutVsUnwinnable)) = ended {
            remaining[usize::from(pos.turn().is_black())] = 0;
        }
        (plies_ms, remaining)
    });
    let (result, termination) = match ended {
        Some((result, termination)) => (result, Some(termination)),
        None => (GameResult::Ongoing, None),
    };
    Expected { plies, rulings, illegal, result, termination, clocks }
}

fn run(
    fen: &str,
    inputs: &[Input],
    rules: IllegalMoves,
    notation: Notation,
    control: Option<(u64, u64)>,
) -> Expected {
    let start: Position = fen.parse().unwrap();
    let texts: Vec<&str> = inputs.iter().map(|input| input.text.as_str()).collect();
    let options = ReplayOptions { illegal_moves: rules, notation, ..Default::default() };
    let r = match control {
        None => replay(start, &texts, &options),
        Some((base, inc)) => {
            let times = inputs.iter().map(|input| input.time_ms).collect();
            let tc = format!("{base}+{inc}").parse().unwrap();
            let record = ClockRecord::new(tc, times, 0, texts.len()).unwrap();
            replay_clocked(start, &texts, &options, &record)
        }
    };
    for ruling in &r.rulings {
        assert!(ruling.reason.is_completed_move(), "{ruling:?}");
    }
    Expected {
        plies: r.plies.iter().map(|ply| ply.san.to_string()).collect(),
        rulings: r
            .rulings
            .iter()
            .map(|ruling| {
                (ruling.index, ruling.side, ruling.count, ruling.action, ruling.time_added_ms)
            })
            .collect(),
        illegal: r.illegal_move.map(|bad| (bad.index, bad.reason.as_str())),
        result: r.outcome.result,
        termination: r.outcome.termination,
        clocks: r.clocks.map(|clocks| (clocks.plies_ms, clocks.remaining_ms)),
    }
}

#[test]
fn generated_games_are_ruled_as_the_rules_state() {
    let mut rng = SmallRng::seed_from_u64(0x7_5_5);
    let (mut games, mut lost, mut drawn, mut added, mut flags) = (0, 0, 0, 0, 0);
    for fen in STARTS {
        let start = shakmaty_position(fen);
        for round in 0..120 {
            let uci = round % 2 == 1;
            let inputs = generate(&start, uci, &mut rng);
            let notation = if uci { Notation::Uci } else { Notation::San };
            for rules in [IllegalMoves::Fide, IllegalMoves::Fide2009] {
                let control = *CONTROLS.choose(&mut rng).unwrap();
                let expected = model(&start, &inputs, rules, control);
                let got = run(fen, &inputs, rules, notation, control);
                let texts: Vec<_> = inputs.iter().map(|i| (&i.text, i.time_ms)).collect();
                assert_eq!(got, expected, "{fen} {rules:?} {control:?} {texts:?}");
                games += 1;
                for ruling in &expected.rulings {
                    match ruling.3 {
                        RulingAction::TimeAdded => added += 1,
                        RulingAction::GameLost => lost += 1,
                        RulingAction::GameDrawn => drawn += 1,
                    }
                }
                flags += usize::from(expected.termination == Some(Termination::Timeout));
            }
        }
    }
    // The generator reaches every ruling.
    eprintln!("{games} games: {lost} lost, {drawn} drawn, {added} time added, {flags} flags");
    assert!(
        lost > 100 && drawn > 20 && added > 500 && flags > 10,
        "{games} games: {lost} lost, {drawn} drawn, {added} time added, {flags} flags"
    );
}

#[test]
fn each_kind_of_illegal_move_is_ruled_with_its_reason() {
    // (start, move, reason): into check, a pinned piece, out of reach,
    // castling without the right and through check, a pawn's step.
    use IllegalReason::*;
    let cases = [
        ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "Kd2", KingIntoCheck, "e1d2", KingIntoCheck),
        ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "Nc3", PinnedPiece, "e2c3", PinnedPiece),
        // In SAN no knight reaches g3; in UCI the knight on g1 cannot.
        ("4k3/8/8/8/8/8/P7/4K1N1 w - - 0 1", "Ng3", NoPiece, "g1g3", CannotMoveThatWay),
        (
            "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
            "O-O",
            CastlingWithoutRight,
            "e1g1",
            CastlingWithoutRight,
        ),
        (
            "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1",
            "O-O",
            CastlingThroughCheck,
            "e1g1",
            CastlingThroughCheck,
        ),
        ("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", "a5", NoPiece, "a2a5", CannotMoveThatWay),
    ];
    for (fen, san, san_reason, uci, uci_reason) in cases {
        for (text, notation, reason) in
            [(san, Notation::San, san_reason), (uci, Notation::Uci, uci_reason)]
        {
            let start: Position = fen.parse().unwrap();
            let options =
                ReplayOptions { illegal_moves: IllegalMoves::Fide, notation, ..Default::default() };
            let r = replay(start, &[text], &options);
            assert_eq!(r.illegal_move, None, "{fen} {text}");
            assert_eq!(r.rulings.len(), 1, "{fen} {text}");
            let ruling = &r.rulings[0];
            assert_eq!((ruling.index, ruling.side, ruling.count), (0, Color::White, 1));
            assert_eq!(
                (ruling.reason, ruling.action),
                (reason, RulingAction::TimeAdded),
                "{fen} {text}"
            );
            assert_eq!(ruling.time_added_ms, Some(120_000));
            assert!(r.plies.is_empty() && !r.outcome.is_over() && !r.legal_moves.is_empty());
        }
    }
}

#[test]
fn stop_answers_as_before_and_unreadable_text_still_stops() {
    let start = Position::default();
    let moves = ["e4", "e5", "Ke3", "Nf3"];
    let stop = replay(start.clone(), &moves, &ReplayOptions::default());
    assert!(stop.rulings.is_empty());
    assert_eq!(stop.illegal_move.as_ref().map(|bad| bad.index), Some(2));
    let fide = ReplayOptions { illegal_moves: IllegalMoves::Fide, ..Default::default() };
    let ruled = replay(start.clone(), &moves, &fide);
    assert_eq!(ruled.plies.len(), 3);
    assert_eq!(ruled.rulings[0].index, 2);
    // Text that is no move, an ambiguous SAN and a move after the end stop
    // the replay as before.
    for (moves, index, reason) in [
        (&["e4", "e5", "Ke3", "hello"][..], 3, IllegalReason::Unparseable),
        (&["e4", "e5", "Nc3", "Nc6", "Ne2"][..], 4, IllegalReason::AmbiguousSan),
        (&["f3", "e5", "g4", "Qh4#", "Ke3"][..], 4, IllegalReason::GameOver),
    ] {
        let r = replay(start.clone(), moves, &fide);
        let bad = r.illegal_move.unwrap();
        assert_eq!((bad.index, bad.reason), (index, reason), "{moves:?}");
    }
}

#[test]
fn the_count_against_a_bare_king_is_a_draw_and_moves_after_it_are_after_the_end() {
    // White has a rook, Black a bare king: White's second illegal move
    // draws under the Laws of 2023; Black's loses.
    let start: Position = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1".parse().unwrap();
    let fide = ReplayOptions { illegal_moves: IllegalMoves::Fide, ..Default::default() };
    let r = replay(start.clone(), &["Ke1e3", "Ra8+", "Kd7", "Ke1e3", "Ke2"], &fide);
    assert_eq!(r.plies.len(), 2);
    assert_eq!(
        r.rulings.iter().map(|ruling| ruling.action).collect::<Vec<_>>(),
        [RulingAction::TimeAdded, RulingAction::GameDrawn]
    );
    assert_eq!(r.outcome.result, GameResult::Draw);
    assert_eq!(r.outcome.termination, Some(Termination::IllegalMovesVsUnwinnable));
    let bad = r.illegal_move.unwrap();
    assert_eq!((bad.index, bad.reason), (4, IllegalReason::GameOver));
    assert_eq!(bad.message, "the game is over (illegal moves vs unwinnable)");
    assert!(r.legal_moves.is_empty());
    // Black errs twice: White wins.
    let r = replay(start, &["Kd2", "Ke8e6", "Kd7", "Kd3", "Kd7d5"], &fide);
    assert_eq!(
        (r.outcome.result, r.outcome.termination),
        (GameResult::WhiteWins, Some(Termination::IllegalMoves))
    );
    assert_eq!(r.rulings[1].action, RulingAction::GameLost);
    // The Laws of 2009 need a third.
    let fide_2009 = ReplayOptions { illegal_moves: IllegalMoves::Fide2009, ..fide };
    let r = replay(Position::default(), &["Ke2", "e5", "Ke3", "d4"], &fide_2009);
    assert_eq!(r.rulings.iter().map(|ruling| ruling.count).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        r.illegal_move.map(|bad| (bad.index, bad.reason)),
        Some((3, IllegalReason::GameOver))
    );
    assert_eq!(r.outcome.termination, Some(Termination::IllegalMoves));
    assert_eq!(r.outcome.result, GameResult::BlackWins);
}
