//! Known perft counts of the standard test positions, typed in so that the
//! suite needs no data files.

use arbiter_chess::{Position, divide, perft};

/// (name, FEN, counts from depth 1 up).
const POSITIONS: &[(&str, &str, &[u64])] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8_902, 197_281, 4_865_609],
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2_039, 97_862, 4_085_603],
    ),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2_812, 43_238, 674_624]),
    (
        "position 4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9_467, 422_333],
    ),
    (
        "position 4 mirrored",
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        &[6, 264, 9_467, 422_333],
    ),
    (
        "position 5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1_486, 62_379, 2_103_487],
    ),
    (
        "position 6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2_079, 89_890, 3_894_594],
    ),
];

#[test]
fn known_perft_counts() {
    for (name, fen, counts) in POSITIONS {
        let pos: Position = fen.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        for (depth, &expected) in (1..).zip(counts.iter()) {
            assert_eq!(perft(&pos, depth), expected, "{name} at depth {depth}");
        }
    }
}

#[test]
fn divide_adds_up_to_perft() {
    for (name, fen, counts) in POSITIONS {
        let pos: Position = fen.parse().unwrap();
        let split = divide(&pos, 3);
        assert_eq!(split.len() as u64, counts[0], "{name}");
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), counts[2], "{name}");
    }
}

/// The moves of a position with 218 legal moves, the known maximum, fit the list.
#[test]
fn the_most_legal_moves_fit() {
    let pos: Position = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1".parse().unwrap();
    assert_eq!(pos.legal_moves().len(), 218);
    assert_eq!(pos.count_legal(), 218);
}
