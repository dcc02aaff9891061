//! Property tests for move notation: no text, however odd, makes the SAN or
//! UCI readers or [`Game::play_text`] panic; and every legal move's SAN
//! (and UCI, and the lenient variants of SAN) reads back as that move.

use arbiter_chess::{Game, IllegalReason, Move, MoveKind, Notation, Position, Role, San, UciMove};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom as _;
use rand::{Rng, SeedableRng};

use crate::common;

/// Start positions for random play besides [`common::RANDOM_PLAY_STARTS`],
/// rich in castling, en passant, promotions and ambiguous piece moves.
const MORE_STARTS: &[&str] = &[
    "n1n3k1/PPPP4/8/8/8/8/4pppp/1K4N1 w - - 0 1",
    "4k3/8/8/2N1N3/8/2N1N3/8/4K3 w - - 0 1",
    "3qk3/8/8/Q7/7Q/8/8/Q3K2Q w - - 0 1",
    "rnbqkbnr/1pp1pppp/8/p2pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
    "4k3/8/8/1pPpPp2/8/8/8/4K3 w - d6 0 1",
    "4k3/p1p1p1p1/8/1P1P1P1P/1p1p4/8/P1P1P3/4K3 b - - 0 1",
];

const ALL_NOTATIONS: [Notation; 3] = [Notation::Auto, Notation::Uci, Notation::San];

/// A position reached by `plies` random legal moves from one of
/// [`common::RANDOM_PLAY_STARTS`] or [`MORE_STARTS`] (fewer if the game ends
/// first). Pawn moves are favoured, for more en passant and promotions.
fn random_position(seed: u64, plies: usize) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    let starts: Vec<&str> = common::RANDOM_PLAY_STARTS.iter().chain(MORE_STARTS).copied().collect();
    let mut pos: Position = starts.choose(&mut rng).unwrap().parse().unwrap();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        let pawns = pos.by_role(Role::Pawn);
        let pawn_moves: Vec<Move> =
            moves.iter().filter(|m| pawns.contains(m.from())).copied().collect();
        let choice = if rng.random_bool(0.5) { pawn_moves.choose(&mut rng) } else { None };
        let Some(&m) = choice.or_else(|| moves.as_slice().choose(&mut rng)) else { break };
        pos = pos.play(m);
    }
    pos
}

/// Feeds `text` to every reader; any answer is fine, a panic is not.
fn read_everywhere(pos: &Position, text: &str) {
    if let Ok(san) = text.parse::<San>() {
        let _ = san.to_move(pos);
        let _ = san.to_string();
    }
    if let Ok(uci) = text.parse::<UciMove>() {
        let _ = uci.to_move(pos);
        let _ = uci.to_string();
    }
    for notation in ALL_NOTATIONS {
        for strict in [false, true] {
            let mut game = Game::new(pos.clone());
            let before = game.position().clone();
            match game.play_text(text, notation, strict) {
                Ok(played) => {
                    assert!(before.is_legal(played.mv), "{text:?} played an illegal move");
                    assert!(!strict || played.canonical_input, "{text:?} strict");
                }
                Err(illegal) => {
                    assert!(!illegal.message.is_empty());
                    assert_eq!(game.position(), &before, "{text:?} changed the position");
                }
            }
        }
    }
}

proptest! {
    // Failures print their minimal input; no regression files in tests/.
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,24}", seed: u64, plies in 0usize..60) {
        read_everywhere(&random_position(seed, plies), &text);
    }

    /// Text from the SAN alphabet in SAN's shape, so that most inputs get
    /// deep into the reader and many are legal moves.
    #[test]
    fn san_shaped_text_never_panics(
        text in "[KQRBNPkqrbnpO0o]?[a-h]?[1-8]?[-x:]?[a-h][1-8]([=/]?[QRBNKPqrbnkpx])?\
                 [+#!?]{0,2}( ?e\\.p\\.)?",
        seed: u64,
        plies in 0usize..60,
    ) {
        read_everywhere(&random_position(seed, plies), &text);
    }

    #[test]
    fn uci_and_castling_shaped_text_never_panics(
        text in "[a-i][0-9][a-i][0-9][qrbnkpQx]?|[O0o]-[O0o](-[O0o])?[+#]?|--|0000",
        seed: u64,
        plies in 0usize..60,
    ) {
        read_everywhere(&random_position(seed, plies), &text);
    }

    /// Multi-byte characters where the readers slice by byte.
    #[test]
    fn non_ascii_text_never_panics(
        text in "[a-h1-8NxQ=é€😀\u{0}\u{7f} ]{0,8}",
        seed: u64,
    ) {
        read_everywhere(&random_position(seed, 20), &text);
    }
}

/// Variants of `m`'s SAN that the lenient reader must map to `m`: long
/// algebraic with and without a dash, over-disambiguation, no check mark,
/// `0-0`, a bare promotion letter.
fn lenient_forms(pos: &Position, m: Move, canonical: &str) -> Vec<String> {
    let bare = canonical.trim_end_matches(['+', '#']);
    let mut forms = vec![bare.to_owned(), format!("{bare}!?")];
    let (from, to) = (m.from(), m.to());
    match m.kind() {
        MoveKind::Castle => forms.push(bare.replace('O', "0")),
        MoveKind::Promotion(role) => {
            let letter = role.upper_char();
            if pos.occupied().contains(to) {
                forms.push(format!("{from}x{to}={letter}"));
                forms.push(bare.replace('=', ""));
            } else {
                forms.push(format!("{from}-{to}={letter}"));
                forms.push(format!("{from}{to}={letter}"));
                forms.push(format!("{to}{letter}"));
                forms.push(format!("{to}({letter})"));
                forms.push(format!("{to}/{letter}"));
            }
        }
        MoveKind::Normal | MoveKind::EnPassant => {
            let role = pos.role_at(from).unwrap();
            let capture = pos.occupied().contains(to) || m.kind() == MoveKind::EnPassant;
            let letter = if role == Role::Pawn { String::new() } else { role.upper_char().into() };
            let sep = if capture { "x" } else { "-" };
            forms.push(format!("{letter}{from}{sep}{to}"));
            if !capture {
                forms.push(format!("{letter}{from}{to}"));
            }
            if m.kind() == MoveKind::EnPassant {
                forms.push(format!("{bare} e.p."));
            }
        }
    }
    forms
}

#[test]
fn every_legal_move_reads_back_from_its_san_and_uci() {
    let mut rng = SmallRng::seed_from_u64(0x5a4_2027);
    let (mut positions, mut moves, mut variants) = (0, 0, 0);
    let mut kinds = [0usize; 4];
    // Enough positions, and enough of the rare moves among their moves.
    while positions < 4_000 || kinds.iter().any(|&n| n < 100) {
        assert!(positions < 40_000, "rare moves too rare: {kinds:?}");
        let pos = random_position(rng.random(), rng.random_range(0..60));
        positions += 1;
        // A dead position or a run-out clock ends the game: moves are then
        // read but not played.
        let playable = !Game::new(pos.clone()).is_over();
        for m in pos.legal_moves() {
            moves += 1;
            kinds[match m.kind() {
                MoveKind::Normal => 0,
                MoveKind::EnPassant => 1,
                MoveKind::Castle => 2,
                MoveKind::Promotion(_) => 3,
            }] += 1;
            let text = arbiter_chess::san(&pos, m);
            let parsed: San =
                text.parse().unwrap_or_else(|e| panic!("{text} in {pos} does not parse: {e}"));
            assert_eq!(parsed.to_move(&pos), Ok(m), "{text} in {pos}");

            let uci = UciMove::from_move(m).to_string();
            let back = uci.parse::<UciMove>().unwrap().to_move(&pos);
            assert_eq!(back, Some(m), "{uci} in {pos}");

            if !playable {
                continue;
            }
            let mut game = Game::new(pos.clone());
            let played = game.play_text(text.as_str(), Notation::San, true).unwrap();
            assert_eq!((played.mv, played.san), (m, text), "{text} in {pos}");
            let mut game = Game::new(pos.clone());
            let played = game.play_text(&uci, Notation::Uci, true).unwrap();
            assert_eq!(played.mv, m, "{uci} in {pos}");

            for form in lenient_forms(&pos, m, &text) {
                if form == text.as_str() {
                    continue;
                }
                variants += 1;
                let read = form.parse::<San>().map(|s| s.to_move(&pos));
                assert_eq!(read, Ok(Ok(m)), "{form:?} (for {text}) in {pos}");
                let mut game = Game::new(pos.clone());
                let played = game.play_text(&form, Notation::San, false).unwrap();
                assert!(!played.canonical_input, "{form:?} (for {text}) in {pos}");
                assert_eq!(played.san, text);
                let mut game = Game::new(pos.clone());
                let err = game.play_text(&form, Notation::San, true).unwrap_err();
                assert_eq!(err.reason, IllegalReason::NonCanonical, "{form:?} in {pos}");
            }
        }
    }
    println!(
        "{positions} positions, {moves} moves (normal, ep, castle, promotion: {kinds:?}), \
         {variants} lenient variants"
    );
}
