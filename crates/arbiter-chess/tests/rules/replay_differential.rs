//! Differential test of [`Game`] against shakmaty on seeded random games:
//! every move is chosen from shakmaty's legal moves, written in its SAN and
//! fed to [`Game::play_text`] in strict mode. After every ply our SAN and FEN
//! must equal shakmaty's, and our outcome must equal the one computed here
//! independently: mate, stalemate and dead position from shakmaty (and our
//! insufficient-material rule recomputed from its board), repetitions and the
//! move rules from a count of position keys kept in the test.
//!
//! A dead position beyond insufficient material (FIDE 5.2.2), which
//! shakmaty does not know, is confirmed here by a plain breadth-first walk
//! over the positions shakmaty reaches from it: no mate for either side
//! among all of them, or among the first [`DEAD_WALK_LIMIT`] when there are
//! more.
//!
//! Some games are played to repeat positions (pieces shuffled back and
//! forth) and some to run the half-move clock out (quiet piece moves
//! preferred), so that every termination and claim occurs many times.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::thread;
use std::time::Instant;

use arbiter_chess::{
    Game, GameResult, IllegalReason, Notation, Outcome, Position, Termination,
    is_insufficient_material,
};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom as _;
use rand::{Rng, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Position as _, Role, Square,
};

use crate::common::shakmaty_position;

/// Positions a confirming walk over a dead position visits at most.
const DEAD_WALK_LIMIT: usize = 200_000;

/// Games from the standard start position.
const START_GAMES: usize = 5_000;
/// Games from each FEN of [`OTHER_STARTS`].
const GAMES_PER_OTHER_START: usize = 60;

/// Other start positions: rich middlegames, endgames where mates, stalemates
/// and dead positions come quickly, and clocks close to the move rules.
const OTHER_STARTS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/pp3ppp/8/3pP3/8/8/PP3PPP/R3K2R w KQkq d6 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "7k/8/8/8/8/8/2Q5/K7 w - - 0 1",
    "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
    "4k3/8/8/8/8/8/8/2B1KN2 w - - 0 1",
    "4k3/8/3n4/8/8/3B4/8/4K3 w - - 0 1",
    "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1",
    "2b1k3/8/8/8/8/8/8/2B1KB2 b - - 0 1",
    "r3k3/8/8/8/8/8/8/4K2R w Kq - 97 60",
    "4k3/8/8/3q4/8/3Q4/8/4K3 b - - 140 100",
    "rn2k1nr/8/8/8/8/8/8/RN2K1NR w KQkq - 90 70",
];

/// How a game picks its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Uniformly among the legal moves.
    Random,
    /// Mostly quiet piece moves, so that the half-move clock runs.
    Quiet,
    /// Stretches of pieces stepping back and forth, to repeat positions.
    Shuffle,
}

/// What the games ran into.
#[derive(Debug, Default)]
struct Seen {
    games: usize,
    plies: usize,
    terminations: BTreeMap<&'static str, usize>,
    /// Games in which a threefold claim / a fifty-move claim was available.
    threefold_games: usize,
    fifty_move_games: usize,
    /// Plies at which a claim was available.
    threefold_plies: usize,
    fifty_move_plies: usize,
    /// Positions where shakmaty's dead-position rule differs from ours.
    insufficient_disagreements: Vec<String>,
    /// Dead positions beyond insufficient material: confirmed by a walk
    /// over every reachable position, or by the first positions only.
    dead_confirmed: usize,
    dead_bounded: usize,
}

impl Seen {
    fn add(&mut self, other: Seen) {
        self.games += other.games;
        self.plies += other.plies;
        for (k, v) in other.terminations {
            *self.terminations.entry(k).or_default() += v;
        }
        self.threefold_games += other.threefold_games;
        self.fifty_move_games += other.fifty_move_games;
        self.threefold_plies += other.threefold_plies;
        self.fifty_move_plies += other.fifty_move_plies;
        self.insufficient_disagreements.extend(other.insufficient_disagreements);
        self.dead_confirmed += other.dead_confirmed;
        self.dead_bounded += other.dead_bounded;
    }
}

/// Our dead-position rule, from shakmaty's board: K v K, K+N v K, or any
/// number of bishops all on one square colour with nothing else.
fn insufficient_by_our_rule(pos: &Chess) -> bool {
    let board = pos.board();
    if (board.pawns() | board.rooks() | board.queens()).any() {
        return false;
    }
    let knights = board.knights();
    let bishops = board.bishops();
    if knights.any() {
        return knights.count() == 1 && bishops.is_empty();
    }
    (bishops & Bitboard::LIGHT_SQUARES).is_empty() || (bishops & Bitboard::DARK_SQUARES).is_empty()
}

/// A move that leaves the half-move clock running.
fn is_quiet(m: &Move) -> bool {
    !m.is_zeroing()
}

/// Picks the next move for `style`. `last` holds each side's previous move
/// (white, black) as from/to, so that a shuffle can step back.
fn choose(
    pos: &Chess,
    legal: &[Move],
    style: Style,
    shuffling: bool,
    last: &[Option<(Square, Square)>; 2],
    rng: &mut SmallRng,
) -> Move {
    let quiet: Vec<Move> = match style {
        Style::Random => Vec::new(),
        Style::Quiet | Style::Shuffle => legal.iter().filter(|m| is_quiet(m)).copied().collect(),
    };
    match style {
        Style::Random => *legal.choose(rng).unwrap(),
        Style::Quiet => {
            if !quiet.is_empty() && rng.random_bool(0.97) {
                *quiet.choose(rng).unwrap()
            } else {
                *legal.choose(rng).unwrap()
            }
        }
        Style::Shuffle if shuffling && !quiet.is_empty() => {
            let side = usize::from(pos.turn().is_black());
            let back = last[side].and_then(|(from, to)| {
                quiet.iter().find(|m| m.from() == Some(to) && m.to() == from && !m.is_castle())
            });
            if let Some(m) = back
                && rng.random_bool(0.95)
            {
                return *m;
            }
            let knights: Vec<Move> =
                quiet.iter().filter(|m| m.role() == Role::Knight).copied().collect();
            *knights.choose(rng).or(quiet.choose(rng)).unwrap()
        }
        Style::Shuffle => *legal.choose(rng).unwrap(),
    }
}

/// The outcome the rules give, computed without our code; `no_moves` says
/// whether shakmaty finds no legal move.
fn expected_outcome(pos: &Chess, no_moves: bool, repetitions: usize) -> Outcome {
    let clock = pos.halfmoves();
    let ended = if no_moves && pos.is_check() {
        let winner = pos.turn().fold_wb(GameResult::BlackWins, GameResult::WhiteWins);
        Some((winner, Termination::Checkmate))
    } else if no_moves {
        Some((GameResult::Draw, Termination::Stalemate))
    } else if insufficient_by_our_rule(pos) {
        Some((GameResult::Draw, Termination::InsufficientMaterial))
    } else if repetitions >= 5 {
        Some((GameResult::Draw, Termination::FivefoldRepetition))
    } else if clock >= 150 {
        Some((GameResult::Draw, Termination::SeventyFiveMoveRule))
    } else {
        None
    };
    match ended {
        Some((result, termination)) => Outcome::ended(result, termination),
        None => Outcome {
            result: GameResult::Ongoing,
            termination: None,
            fifty_move_claimable: clock >= 100,
            threefold_claimable: repetitions >= 3,
            unproven: false,
        },
    }
}

/// Whether no mate by either side is reachable from `pos`: `Some(true)`
/// when every reachable position was visited without one, `None` when
/// there are more than [`DEAD_WALK_LIMIT`] and none of those mates.
fn walk_finds_no_mate(pos: &Chess) -> Option<bool> {
    use shakmaty::zobrist::Zobrist64;
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from([pos.clone()]);
    seen.insert(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
    while let Some(pos) = queue.pop_front() {
        if pos.is_checkmate() {
            return Some(false);
        }
        for m in pos.legal_moves() {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if seen.insert(next.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)) {
                if seen.len() > DEAD_WALK_LIMIT {
                    return None;
                }
                queue.push_back(next);
            }
        }
    }
    Some(true)
}

/// What repetition compares: placement, side to move, castling rights, and
/// the en-passant square only when an en-passant capture is legal.
type RepetitionKey = (Board, Color, Bitboard, Option<Square>);

fn repetition_key(pos: &Chess) -> RepetitionKey {
    (pos.board().clone(), pos.turn(), pos.castles().castling_rights(), pos.legal_ep_square())
}

/// Plays one seeded game from `start` and checks every ply; panics with the
/// game's seed and move list on the first difference.
fn play_game(start: &str, style: Style, seed: u64, seen: &mut Seen) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut theirs = shakmaty_position(start);
    let ours_start: Position = start.parse().unwrap();
    let mut game = Game::new(ours_start);
    // Position keys since the last irreversible move, the current one last.
    let mut keys = vec![repetition_key(&theirs)];
    let mut legal = theirs.legal_moves();
    let mut last = [None, None];
    let mut shuffling = false;
    let mut sans: Vec<SanPlus> = Vec::new();
    let mut san = String::new();
    let (mut our_fen, mut their_fen) = (String::new(), String::new());
    let mut claimed_threefold = false;
    let mut claimed_fifty = false;
    seen.games += 1;
    let context = |sans: &[SanPlus]| {
        let moves: Vec<String> = sans.iter().map(ToString::to_string).collect();
        format!("seed {seed:#x} {style:?} from {start}: {}", moves.join(" "))
    };
    let start_outcome = expected_outcome(&theirs, legal.is_empty(), 1);
    assert_eq!(game.outcome(), start_outcome, "start of {}", context(&sans));
    let mut outcome = game.outcome();
    while !outcome.is_over() {
        if style == Style::Shuffle && rng.random_bool(if shuffling { 0.04 } else { 0.08 }) {
            shuffling = !shuffling;
        }
        let m = choose(&theirs, &legal, style, shuffling, &last, &mut rng);
        let side = usize::from(theirs.turn().is_black());
        last[side] = m.from().map(|from| (from, m.to()));
        let san_plus = SanPlus::from_move_and_play_unchecked(&mut theirs, m);
        san.clear();
        write!(san, "{san_plus}").unwrap();
        sans.push(san_plus);
        let played = game
            .play_text(&san, Notation::San, true)
            .unwrap_or_else(|e| panic!("{san} rejected ({e:?}) in {}", context(&sans)));
        assert_eq!(played.san.as_str(), san, "{}", context(&sans));
        assert!(played.canonical_input, "{}", context(&sans));
        their_fen.clear();
        write!(their_fen, "{}", Fen::from_position(&theirs, EnPassantMode::Always)).unwrap();
        our_fen.clear();
        write!(our_fen, "{}", game.position()).unwrap();
        assert_eq!(our_fen, their_fen, "{}", context(&sans));
        seen.plies += 1;

        legal = theirs.legal_moves();
        if theirs.halfmoves() == 0 {
            keys.clear();
        }
        let now = repetition_key(&theirs);
        let repetitions = 1 + keys.iter().filter(|k| **k == now).count();
        keys.push(now);

        let ours_dead = insufficient_by_our_rule(&theirs);
        if theirs.is_insufficient_material() != ours_dead {
            seen.insufficient_disagreements.push(their_fen.clone());
        }
        assert_eq!(is_insufficient_material(game.position()), ours_dead, "{}", context(&sans));
        let mut expected = expected_outcome(&theirs, legal.is_empty(), repetitions);
        outcome = game.outcome();
        if outcome.termination == Some(Termination::DeadPosition) && !expected.is_over() {
            match walk_finds_no_mate(&theirs) {
                Some(true) => seen.dead_confirmed += 1,
                None => seen.dead_bounded += 1,
                Some(false) => panic!("a mate is reachable: {}", context(&sans)),
            }
            expected = Outcome::ended(GameResult::Draw, Termination::DeadPosition);
        }
        assert_eq!(outcome, expected, "after {}", context(&sans));
        // Mate and stalemate as shakmaty sees them (both need an empty move
        // list, which spares generating it twice more on every ply).
        let termination = outcome.termination;
        let (mate, stalemate) = if legal.is_empty() {
            (theirs.is_checkmate(), theirs.is_stalemate())
        } else {
            (false, false)
        };
        assert_eq!(termination == Some(Termination::Checkmate), mate, "{}", context(&sans));
        assert_eq!(termination == Some(Termination::Stalemate), stalemate, "{}", context(&sans));
        if let Some(t) = termination
            && t != Termination::Stalemate
        {
            assert!(game.is_over(), "{t:?} but not over: {}", context(&sans));
        }
        claimed_threefold |= outcome.threefold_claimable;
        claimed_fifty |= outcome.fifty_move_claimable;
        seen.threefold_plies += usize::from(outcome.threefold_claimable);
        seen.fifty_move_plies += usize::from(outcome.fifty_move_claimable);
    }
    let termination = outcome.termination.unwrap();
    *seen.terminations.entry(termination.as_str()).or_default() += 1;
    seen.threefold_games += usize::from(claimed_threefold);
    seen.fifty_move_games += usize::from(claimed_fifty);

    // Nothing more may be played, whether legal on the board or not.
    let mut texts: Vec<(String, Notation)> = theirs
        .legal_moves()
        .iter()
        .take(3)
        .map(|m| (SanPlus::from_move(theirs.clone(), *m).to_string(), Notation::San))
        .collect();
    if let Some(m) = theirs.legal_moves().first() {
        texts.push((m.to_uci(CastlingMode::Standard).to_string(), Notation::Uci));
    }
    texts.push(("e4".to_owned(), Notation::Auto));
    texts.push(("zz".to_owned(), Notation::San));
    let before = game.position().to_string();
    for (text, notation) in texts {
        for strict in [false, true] {
            let err = game.play_text(&text, notation, strict).expect_err(&text);
            assert_eq!(
                err.reason,
                IllegalReason::GameOver,
                "{text} after {termination:?}: {}",
                context(&sans)
            );
        }
    }
    assert_eq!(game.position().to_string(), before);
    assert_eq!(game.outcome(), outcome);
}

/// The games to play: (start FEN, style, seed).
fn schedule() -> Vec<(&'static str, Style, u64)> {
    let styles = [Style::Random, Style::Random, Style::Quiet, Style::Shuffle, Style::Shuffle];
    let mut games = Vec::new();
    let standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for i in 0..START_GAMES {
        games.push((standard, styles[i % styles.len()], 0x0a7b_17e0_0000 + i as u64));
    }
    for (s, &start) in OTHER_STARTS.iter().enumerate() {
        for i in 0..GAMES_PER_OTHER_START {
            let seed = 0x0a7b_17e1_0000 + (s * GAMES_PER_OTHER_START + i) as u64;
            games.push((start, styles[i % styles.len()], seed));
        }
    }
    games
}

#[test]
fn random_games_agree_with_shakmaty_and_the_rules() {
    let started = Instant::now();
    let games = schedule();
    let workers = thread::available_parallelism().map_or(1, |n| n.get()).min(16);
    let seen = thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let games = &games;
                scope.spawn(move || {
                    let mut seen = Seen::default();
                    for &(start, style, seed) in games.iter().skip(w).step_by(workers) {
                        play_game(start, style, seed, &mut seen);
                    }
                    seen
                })
            })
            .collect();
        let mut total = Seen::default();
        for handle in handles {
            total.add(handle.join().expect("a game failed"));
        }
        total
    });
    println!(
        "{} games, {} plies on {workers} threads in {:.2?}",
        seen.games,
        seen.plies,
        started.elapsed()
    );
    println!("terminations: {:?}", seen.terminations);
    println!(
        "threefold claimable in {} games ({} plies), fifty-move claimable in {} games ({} plies)",
        seen.threefold_games, seen.threefold_plies, seen.fifty_move_games, seen.fifty_move_plies
    );
    assert!(
        seen.insufficient_disagreements.is_empty(),
        "shakmaty's dead-position rule differs from ours in {} positions, e.g. {:?}",
        seen.insufficient_disagreements.len(),
        &seen.insufficient_disagreements[..seen.insufficient_disagreements.len().min(10)]
    );
    for t in [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::InsufficientMaterial,
        Termination::FivefoldRepetition,
        Termination::SeventyFiveMoveRule,
    ] {
        let n = seen.terminations.get(t.as_str()).copied().unwrap_or(0);
        assert!(n >= 20, "only {n} games ended by {t:?}: {:?}", seen.terminations);
    }
    println!(
        "dead positions beyond material: {} confirmed by a whole walk, {} by a bounded one",
        seen.dead_confirmed, seen.dead_bounded
    );
    assert!(seen.threefold_games >= 100, "threefold claims: {}", seen.threefold_games);
    assert!(seen.fifty_move_games >= 100, "fifty-move claims: {}", seen.fifty_move_games);
}
