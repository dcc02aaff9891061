//! Property tests: any text given as a FEN yields a position or an error,
//! never a panic, and every accepted FEN prints back to a FEN that reads as
//! the same position.

use arbiter_chess::Position;
use proptest::prelude::*;

fn check(text: &str) {
    if let Ok(pos) = text.parse::<Position>() {
        let printed = pos.to_string();
        let again: Position = printed.parse().expect("a printed FEN reads back");
        assert_eq!(again, pos);
        assert_eq!(again.to_string(), printed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,100}") {
        check(&text);
    }

    /// Text from the FEN alphabet, so that many inputs get deep into the parser.
    #[test]
    fn fen_shaped_text_never_panics(
        ranks in prop::collection::vec("[pnbrqkPNBRQK1-8]{0,9}", 7..=9),
        turn in "[wbx]",
        castling in "-|[KQkqA-Ha-h]{1,5}",
        ep in "-|[a-h][1-8]",
        clocks in "( [0-9]{1,3}( [0-9]{1,3})?)?",
    ) {
        check(&format!("{} {turn} {castling} {ep}{clocks}", ranks.join("/")));
    }

    /// Kings placed at random with a few pieces: many legal positions, many
    /// illegal ones, all handled.
    #[test]
    fn sparse_boards_round_trip(
        squares in prop::collection::vec((0usize..64, "[pnbrqkPNBRQK]"), 2..12),
        turn in "[wb]",
    ) {
        let mut board = ['.'; 64];
        for (sq, piece) in &squares {
            board[*sq] = piece.chars().next().unwrap();
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    '.' => empty += 1,
                    c => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(c);
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        check(&format!("{fen} {turn} - - 0 1"));
    }
}
