//! Differential test against an independent implementation (shakmaty) on
//! positions reached by seeded random play: identical legal move sets and
//! identical perft(2) counts. Play favours the rare moves — promotions, en
//! passant, castling — so that every rule is exercised many times.

use std::collections::BTreeSet;

use arbiter_chess::{MoveKind, Position, Role, perft};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shakmaty::{CastlingMode, Position as _, fen::Fen};

use crate::common::{RANDOM_PLAY_STARTS as STARTS, shakmaty_position};

const POSITIONS: usize = 20_000;

#[derive(Default, Debug)]
struct Seen {
    promotions: usize,
    en_passant: usize,
    castles: usize,
    checks: usize,
}

#[test]
fn legal_moves_and_perft_match_shakmaty() {
    let mut rng = SmallRng::seed_from_u64(0x00a7_b17e);
    let mut seen = Seen::default();
    let mut compared = 0;
    while compared < POSITIONS {
        let start = STARTS[rng.random_range(0..STARTS.len())];
        let mut pos: Position = start.parse().unwrap();
        for _ in 0..rng.random_range(1..160) {
            let fen = pos.to_string();
            let theirs = shakmaty_position(&fen);
            let ours: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            let expected: BTreeSet<String> = theirs
                .legal_moves()
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect();
            assert_eq!(ours, expected, "legal moves of {fen}");
            assert_eq!(perft(&pos, 2), shakmaty::perft(&theirs, 2), "perft(2) of {fen}");
            assert_eq!(pos.is_check(), theirs.is_check(), "check in {fen}");
            assert_eq!(pos.has_legal_moves(), !expected.is_empty(), "any move in {fen}");
            compared += 1;
            seen.checks += usize::from(pos.is_check());

            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let special: Vec<_> = moves.iter().filter(|m| m.kind() != MoveKind::Normal).collect();
            // Double steps give en passant its chances.
            let double_steps: Vec<_> = moves
                .iter()
                .filter(|m| {
                    pos.role_at(m.from()) == Some(Role::Pawn)
                        && m.from().index().abs_diff(m.to().index()) == 16
                })
                .collect();
            let m = if !special.is_empty() && rng.random_bool(0.7) {
                *special[rng.random_range(0..special.len())]
            } else if !double_steps.is_empty() && rng.random_bool(0.3) {
                *double_steps[rng.random_range(0..double_steps.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            match m.kind() {
                MoveKind::Promotion(_) => seen.promotions += 1,
                MoveKind::EnPassant => seen.en_passant += 1,
                MoveKind::Castle => seen.castles += 1,
                MoveKind::Normal => {}
            }
            pos = pos.play(m);
        }
    }
    eprintln!("compared {compared} positions; moves played: {seen:?}");
    assert!(seen.promotions >= 100 && seen.en_passant >= 100 && seen.castles >= 100, "{seen:?}");
}

/// Hashes agree with a fresh parse of the FEN, and positions that shakmaty
/// calls equal for repetition have equal hashes here.
#[test]
fn zobrist_hashes_follow_repetition_identity() {
    use shakmaty::EnPassantMode;
    use std::collections::HashMap;
    let mut rng = SmallRng::seed_from_u64(7);
    let mut by_key: HashMap<String, u64> = HashMap::new();
    for _ in 0..300 {
        let mut pos = Position::default();
        for _ in 0..rng.random_range(1..80) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play(moves[rng.random_range(0..moves.len())]);
            let theirs = shakmaty_position(&pos.to_string());
            // Placement, turn, castling and the en-passant square only when legal.
            let key = Fen::from_position(&theirs, EnPassantMode::Legal).to_string();
            let key: String = key.split(' ').take(4).collect::<Vec<_>>().join(" ");
            let hash = pos.zobrist();
            assert_eq!(*by_key.entry(key.clone()).or_insert(hash), hash, "{key}");
            let reparsed: Position = pos.to_string().parse().unwrap();
            assert_eq!(reparsed.zobrist(), hash);
        }
    }
    let distinct: std::collections::HashSet<u64> = by_key.values().copied().collect();
    assert_eq!(distinct.len(), by_key.len(), "hash collision among {} positions", by_key.len());
}
