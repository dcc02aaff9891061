//! Real games from the shared test data (`pgn/scalachess/FWWRC.pgn`,
//! `pgn/shakmaty/lichess_db_1000k.pgn`): every move of every game is replayed
//! in strict SAN mode and must come back as exactly the PGN's token (the
//! files hold canonical SAN); mates and stalemates must end the game with the
//! right termination and result. Then seeded illegal tokens are planted in
//! the games and [`replay`] must stop exactly there.
//!
//! Without the shared data the tests skip (see `tests/common/mod.rs`).

use std::fmt::Write as _;
use std::time::Instant;

use arbiter_chess::{
    Game, GameResult, IllegalReason, Notation, ReplayOptions, Termination, replay,
};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom as _;
use rand::{Rng, SeedableRng};
use shakmaty::san::{San as ShakSan, SanPlus};
use shakmaty::uci::UciMove as ShakUci;
use shakmaty::{CastlingMode, Chess, Position as _, Role as ShakRole, fen::Fen};

use crate::common;
use crate::common::TestResult;
use crate::common::pgn::{PgnGame, parse_pgn};

const PGN_FILES: [&str; 2] = ["pgn/scalachess/FWWRC.pgn", "pgn/shakmaty/lichess_db_1000k.pgn"];

/// Failures listed in a panic message; the rest are only counted.
const MAX_REPORTED: usize = 20;

#[test]
fn pgn_reader_reads_the_awkward_parts() {
    let text = "[Event \"a \\\"quoted\\\" name\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n\
                1. e4 {a comment ( with ) brackets} 1... Kd7 $1 (1... Kf7 2. e5 (2. Ke2)) \
                ; rest of line 2. Kd2\n% escaped 3. Kc3\n2... Kd6!? 3.Ke3 1/2-1/2\n\n\
                [Event \"b\"]\n\n1. d4 d5 *\n[Event \"c\"]\n1. Nf3 0-1\n\n\
                [Event \"no moves\"]\n[Result \"1-0\"]\n\n[Event \"no moves either\"]\n";
    let games = parse_pgn(text);
    assert_eq!(games.len(), 5, "{games:#?}");
    assert_eq!(games[0].tag("Event"), Some("a \"quoted\" name"));
    assert_eq!(games[0].moves, ["e4", "Kd7", "Kd6", "Ke3"]);
    assert_eq!(games[0].result_token.as_deref(), Some("1/2-1/2"));
    assert_eq!(games[0].start().expect("FEN tag").to_string(), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(games[1].moves, ["d4", "d5"]);
    assert_eq!(games[1].line, 8);
    assert_eq!(games[2].moves, ["Nf3"]);
    assert_eq!(games[2].result_token.as_deref(), Some("0-1"));
    assert_eq!(games[3].tag("Result"), Some("1-0"));
    assert!(games[3].moves.is_empty() && games[3].result_token.is_none());
    assert_eq!(games[4].tag("Event"), Some("no moves either"));
}

#[derive(Debug, Default)]
struct Counts {
    games: usize,
    games_with_moves: usize,
    plies: usize,
    mates: usize,
    stalemates: usize,
}

/// Replays one game in strict SAN; returns the problems found.
fn check_game(game: &PgnGame, label: &str, counts: &mut Counts) -> Vec<String> {
    let start = match game.start() {
        Ok(start) => start,
        Err(err) => return vec![format!("{label}: bad FEN tag: {err}")],
    };
    let mut problems = Vec::new();
    let mut replayed = Game::new(start);
    for (index, token) in game.moves.iter().enumerate() {
        match replayed.play_text(token, Notation::San, true) {
            Ok(played) if played.san.as_str() == token && played.canonical_input => {}
            Ok(played) => problems.push(format!(
                "{label}: ply {index} {token:?} came back as {:?} (canonical_input {})",
                played.san.as_str(),
                played.canonical_input
            )),
            Err(illegal) => {
                problems.push(format!(
                    "{label}: ply {index} {token:?} rejected in {}: {:?} {}",
                    replayed.position(),
                    illegal.reason,
                    illegal.message
                ));
                return problems;
            }
        }
    }
    counts.plies += game.moves.len();
    counts.games_with_moves += usize::from(!game.moves.is_empty());

    let outcome = replayed.outcome();
    let pos = replayed.position();
    let result_tag = game.tag("Result").unwrap_or("*");
    let mated = game.moves.last().is_some_and(|m| m.ends_with('#'));
    if mated {
        counts.mates += 1;
        // The side to move is the one mated.
        let winner = pos.turn().fold(GameResult::BlackWins, GameResult::WhiteWins);
        if outcome.termination != Some(Termination::Checkmate) || outcome.result != winner {
            problems.push(format!("{label}: ends in mate but the outcome is {outcome:?}"));
        }
        if result_tag != winner.pgn() {
            problems.push(format!("{label}: mate for {winner:?} but Result is {result_tag}"));
        }
    } else if outcome.termination == Some(Termination::Checkmate) {
        problems.push(format!("{label}: checkmate without a '#' on the last move"));
    }
    let stalemate = !pos.is_check() && !pos.has_legal_moves();
    if stalemate {
        counts.stalemates += 1;
        if result_tag != "1/2-1/2" {
            problems.push(format!("{label}: stalemate but Result is {result_tag}"));
        }
        if outcome.termination != Some(Termination::Stalemate) || outcome.result != GameResult::Draw
        {
            problems.push(format!("{label}: ends in stalemate but the outcome is {outcome:?}"));
        }
    } else if outcome.termination == Some(Termination::Stalemate) {
        problems.push(format!("{label}: reported stalemate in {pos}"));
    }
    if let Some(token) = &game.result_token
        && token != result_tag
    {
        problems.push(format!("{label}: result token {token} but Result tag {result_tag}"));
    }
    problems
}

fn load_games(dir: &std::path::Path, file: &str) -> Result<Vec<PgnGame>, common::DataError> {
    Ok(parse_pgn(&common::read_data(dir, file)?))
}

#[test]
fn every_game_replays_with_its_own_san() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut total = Counts::default();
    for file in PGN_FILES {
        let games = load_games(&dir, file)?;
        let mut counts = Counts { games: games.len(), ..Counts::default() };
        for game in &games {
            problems.extend(check_game(game, &game.label(file), &mut counts));
        }
        assert!(!games.is_empty(), "{file}: no games read");
        let tagged = common::read_data(&dir, file)?.matches("[Event ").count();
        assert_eq!(games.len(), tagged, "{file}: games read vs [Event tags");
        println!(
            "{file}: {} games ({} with moves), {} plies, {} mates, {} stalemates",
            counts.games, counts.games_with_moves, counts.plies, counts.mates, counts.stalemates
        );
        total.games += counts.games;
        total.games_with_moves += counts.games_with_moves;
        total.plies += counts.plies;
        total.mates += counts.mates;
        total.stalemates += counts.stalemates;
    }
    println!("total: {total:?} in {:.2?}", started.elapsed());
    let mut report = String::new();
    for p in problems.iter().take(MAX_REPORTED) {
        writeln!(report, "  {p}")?;
    }
    assert!(problems.is_empty(), "{} problems:\n{report}", problems.len());
    assert!(total.plies > 10_000, "too few plies replayed: {total:?}");
    assert!(total.mates > 0, "no mates seen: {total:?}");
    Ok(())
}

/// The kinds of illegal token planted in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    /// Text that is no move at all.
    Garbage,
    /// Well-formed SAN for a piece of the side to move that has no legal
    /// move to that square.
    PieceCannotGo,
    /// A from-to move from an empty square.
    FromEmpty,
    /// Castling to a side where it is not legal now.
    Castling,
}

const KINDS: [Kind; 4] = [Kind::Garbage, Kind::PieceCannotGo, Kind::FromEmpty, Kind::Castling];

/// Characters no SAN or UCI reading accepts anywhere in a move.
const POISON: &[u8] = b"zjuvwyZJUVWY@%&*~^|";
const NOISE: &[u8] = b"abcdefgh12345678xKQRBNO-=+#!?zj@ ";

/// Whether `token` names a legal move in `pos` by shakmaty's reading of SAN
/// or UCI.
fn shakmaty_accepts(pos: &Chess, token: &str) -> bool {
    let san = ShakSan::from_ascii(token.as_bytes()).ok().and_then(|s| s.to_move(pos).ok());
    let uci = ShakUci::from_ascii(token.as_bytes()).ok().and_then(|u| u.to_move(pos).ok());
    san.is_some() || uci.is_some()
}

/// A token of `kind` that is no legal move in `pos`, if one can be made here.
fn illegal_token(pos: &Chess, kind: Kind, rng: &mut SmallRng) -> Option<String> {
    let legal = pos.legal_moves();
    let ours = pos.us();
    let theirs = pos.them();
    let token = match kind {
        Kind::Garbage => {
            let len = rng.random_range(0..8);
            let mut bytes: Vec<u8> = (0..len).map(|_| *NOISE.choose(rng).unwrap()).collect();
            let at = rng.random_range(0..=bytes.len());
            bytes.insert(at, *POISON.choose(rng).unwrap());
            String::from_utf8(bytes).unwrap()
        }
        Kind::PieceCannotGo => {
            let role = *[
                ShakRole::Pawn,
                ShakRole::Knight,
                ShakRole::Bishop,
                ShakRole::Rook,
                ShakRole::Queen,
                ShakRole::King,
            ]
            .choose(rng)
            .unwrap();
            if role == ShakRole::King && legal.iter().any(|m| m.is_castle()) {
                return None;
            }
            let to = shakmaty::Square::new(rng.random_range(0..64));
            if ours.contains(to) || legal.iter().any(|m| m.role() == role && m.to() == to) {
                return None;
            }
            let capture = theirs.contains(to);
            let mut text = String::new();
            if role == ShakRole::Pawn {
                if capture {
                    let file = to.file().offset(if rng.random_bool(0.5) { 1 } else { -1 })?;
                    write!(text, "{}x", file.char()).unwrap();
                }
                write!(text, "{to}").unwrap();
                if matches!(to.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth) {
                    text += "=Q";
                }
            } else {
                text.push(role.upper_char());
                if capture {
                    text.push('x');
                }
                write!(text, "{to}").unwrap();
            }
            text
        }
        Kind::FromEmpty => {
            let occupied = pos.board().occupied();
            let from = shakmaty::Square::new(rng.random_range(0..64));
            let to = shakmaty::Square::new(rng.random_range(0..64));
            if occupied.contains(from) || from == to {
                return None;
            }
            format!("{from}{to}")
        }
        Kind::Castling => {
            let king = pos.board().king_of(pos.turn())?;
            let long = rng.random_bool(0.5);
            let available = legal.iter().any(|m| match m {
                shakmaty::Move::Castle { rook, .. } => (rook.file() < king.file()) == long,
                _ => false,
            });
            if available {
                return None;
            }
            (if long { "O-O-O" } else { "O-O" }).to_owned()
        }
    };
    (!shakmaty_accepts(pos, &token)).then_some(token)
}

#[test]
fn planted_illegal_tokens_are_found_where_planted() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let mut games = Vec::new();
    for file in PGN_FILES {
        games.extend(load_games(&dir, file)?.into_iter().filter(|g| !g.moves.is_empty()));
    }
    if games.is_empty() {
        println!("no games with moves: nothing to plant tokens in");
        return Ok(());
    }
    let mut rng = SmallRng::seed_from_u64(0x05ee_db4d_70c3);
    let mut planted = std::collections::BTreeMap::<Kind, usize>::new();
    let mut reasons = std::collections::BTreeMap::<&str, usize>::new();
    let mut problems = Vec::new();
    const TRIALS: usize = 1_500;
    for _ in 0..TRIALS {
        let game = games.choose(&mut rng).unwrap();
        let index = rng.random_range(0..game.moves.len());
        // The position before `index`, by shakmaty.
        let mut pos: Chess = match game.tag("FEN") {
            Some(fen) => Fen::from_ascii(fen.as_bytes())?.into_position(CastlingMode::Standard)?,
            None => Chess::default(),
        };
        for token in &game.moves[..index] {
            let m = SanPlus::from_ascii(token.as_bytes())?.san.to_move(&pos)?;
            pos.play_unchecked(m);
        }
        let kind = *KINDS.choose(&mut rng).unwrap();
        let Some(token) = (0..20).find_map(|_| illegal_token(&pos, kind, &mut rng)) else {
            continue;
        };
        *planted.entry(kind).or_default() += 1;
        let mut moves = game.moves.clone();
        moves[index] = token.clone();
        let label = format!("{} ply {index}, {kind:?} token {token:?}", game.label("pgn"));
        let modes = [
            ReplayOptions { notation: Notation::San, strict: true, ..ReplayOptions::default() },
            ReplayOptions { notation: Notation::San, strict: false, ..ReplayOptions::default() },
            ReplayOptions { notation: Notation::Auto, strict: false, ..ReplayOptions::default() },
        ];
        for options in modes {
            let r = replay(game.start()?, &moves, &options);
            let mode = format!("{:?} strict {}", options.notation, options.strict);
            match &r.illegal_move {
                Some(bad) if bad.index == index && bad.text == token => {
                    *reasons.entry(bad.reason.as_str()).or_default() += 1;
                    let bad_reason = match kind {
                        Kind::Garbage => bad.reason != IllegalReason::Unparseable,
                        _ => matches!(
                            bad.reason,
                            IllegalReason::Unparseable
                                | IllegalReason::NonCanonical
                                | IllegalReason::GameOver
                                | IllegalReason::AmbiguousSan
                        ),
                    };
                    if bad_reason {
                        problems.push(format!("{label} ({mode}): reason {:?}", bad.reason));
                    }
                }
                other => problems.push(format!("{label} ({mode}): illegal_move {other:?}")),
            }
            if r.plies.len() != index {
                problems.push(format!("{label} ({mode}): {} plies kept", r.plies.len()));
            }
            if r.plies.iter().zip(&game.moves).any(|(p, m)| p.san.as_str() != m) {
                problems.push(format!("{label} ({mode}): prefix differs"));
            }
            let expected_fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Always);
            if r.position.to_string() != expected_fen.to_string() {
                problems.push(format!("{label} ({mode}): stopped at {}", r.position));
            }
        }
    }
    println!("planted: {planted:?}");
    println!("reasons: {reasons:?}");
    println!("in {:.2?}", started.elapsed());
    let mut report = String::new();
    for p in problems.iter().take(MAX_REPORTED) {
        writeln!(report, "  {p}")?;
    }
    assert!(problems.is_empty(), "{} problems:\n{report}", problems.len());
    for kind in KINDS {
        assert!(planted.get(&kind).copied().unwrap_or(0) >= 50, "too few {kind:?}: {planted:?}");
    }
    Ok(())
}
