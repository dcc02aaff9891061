//! A named test for every illegal-move reason and every rule of notation
//! and outcome that replay applies.

use arbiter_chess::{
    Game, GameResult, IllegalReason, Notation, Position, ReplayOptions, Termination, replay,
};

/// Replays `moves` from `fen` (lenient, auto notation) and returns the
/// reason and message of the rejected last move.
fn rejected(fen: &str, moves: &[&str]) -> (IllegalReason, String) {
    rejected_with(fen, moves, ReplayOptions::default())
}

fn rejected_with(fen: &str, moves: &[&str], options: ReplayOptions) -> (IllegalReason, String) {
    let pos: Position = fen.parse().expect("test FEN");
    let r = replay(pos, moves, &options);
    let bad = r.illegal_move.unwrap_or_else(|| panic!("{moves:?} accepted from {fen}"));
    assert_eq!(bad.index, moves.len() - 1, "{moves:?}: {}", bad.message);
    assert_eq!(r.plies.len(), moves.len() - 1);
    (bad.reason, bad.message)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const CASTLE: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

fn assert_reason(got: (IllegalReason, String), reason: IllegalReason, words: &str) {
    assert_eq!(got.0, reason, "{}", got.1);
    assert!(got.1.contains(words), "message {:?} lacks {words:?}", got.1);
}

#[test]
fn unparseable_text() {
    assert_reason(rejected(START, &["Zz9"]), IllegalReason::Unparseable, "not a move in san");
    let uci = ReplayOptions { notation: Notation::Uci, ..Default::default() };
    assert_reason(rejected_with(START, &["e4"], uci), IllegalReason::Unparseable, "not a uci move");
    assert_reason(rejected(START, &[""]), IllegalReason::Unparseable, "san");
}

#[test]
fn no_piece_on_the_square_or_none_that_reaches() {
    assert_reason(rejected(START, &["e3e4"]), IllegalReason::NoPiece, "no piece on e3");
    assert_reason(rejected(START, &["e7e5"]), IllegalReason::NoPiece, "black's");
    assert_reason(
        rejected(START, &["Kf3"]),
        IllegalReason::NoPiece,
        "no white king can move to f3",
    );
    assert_reason(
        rejected("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", &["Qd4"]),
        IllegalReason::NoPiece,
        "white has no queen",
    );
    assert_reason(rejected(START, &["Nhf3"]), IllegalReason::NoPiece, "on the h-file");
}

#[test]
fn the_piece_cannot_move_that_way() {
    assert_reason(
        rejected(START, &["g1g3"]),
        IllegalReason::CannotMoveThatWay,
        "knight cannot move",
    );
    assert_reason(rejected(START, &["e2e5"]), IllegalReason::CannotMoveThatWay, "pawn");
    assert_reason(rejected(START, &["e4", "e5", "e4e5"]), IllegalReason::PathBlocked, "e5");
    assert_reason(rejected(START, &["e4", "d5", "e4e3"]), IllegalReason::CannotMoveThatWay, "pawn");
}

#[test]
fn path_blocked() {
    assert_reason(rejected(START, &["a1a3"]), IllegalReason::PathBlocked, "a2");
    assert_reason(rejected(START, &["Ra3"]), IllegalReason::PathBlocked, "a2");
    assert_reason(rejected(START, &["f4", "f5", "f4f5"]), IllegalReason::PathBlocked, "f5");
    // A double step over a piece.
    assert_reason(rejected(START, &["Nc3", "e5", "c2c4"]), IllegalReason::PathBlocked, "c3");
}

#[test]
fn capturing_own_piece() {
    assert_reason(rejected(START, &["Nd2"]), IllegalReason::CaptureOwnPiece, "own pawn on d2");
    assert_reason(rejected(START, &["d1d2"]), IllegalReason::CaptureOwnPiece, "d2");
}

#[test]
fn leaving_the_king_in_check() {
    let check = "4r1k1/8/8/8/8/8/8/R3K3 w - - 0 1";
    assert_reason(rejected(check, &["Ra2"]), IllegalReason::KingInCheck, "in check");
}

#[test]
fn moving_a_pinned_piece() {
    let pin = "4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1";
    assert_reason(rejected(pin, &["Nc3"]), IllegalReason::PinnedPiece, "knight on e2 is pinned");
    // Capturing en passant through a horizontal pin on both pawns.
    let ep = "8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 2";
    assert_reason(rejected(ep, &["dxe6"]), IllegalReason::PinnedPiece, "en passant");
}

#[test]
fn stepping_into_check() {
    let pos = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    assert_reason(rejected(pos, &["Kf2"]), IllegalReason::KingIntoCheck, "f2");
    assert_reason(rejected(pos, &["e1e2"]), IllegalReason::KingIntoCheck, "e2");
}

#[test]
fn castling_without_the_right() {
    let pos = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1";
    assert_reason(rejected(pos, &["O-O"]), IllegalReason::CastlingWithoutRight, "king-side");
    assert_reason(rejected(pos, &["e1g1"]), IllegalReason::CastlingWithoutRight, "king-side");
    // The right is gone once the king has moved and come back.
    assert_reason(
        rejected(CASTLE, &["Kf1", "Kf8", "Ke1", "Ke8", "O-O-O"]),
        IllegalReason::CastlingWithoutRight,
        "queen-side",
    );
}

#[test]
fn castling_through_a_piece() {
    let pos = "r3k2r/8/8/8/8/8/8/R3K1NR w KQkq - 0 1";
    assert_reason(rejected(pos, &["O-O"]), IllegalReason::CastlingBlocked, "g1");
    let pos = "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1";
    assert_reason(rejected(pos, &["e1c1"]), IllegalReason::CastlingBlocked, "b1");
}

#[test]
fn castling_out_of_through_and_into_check() {
    let out = "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1";
    assert_reason(rejected(out, &["O-O"]), IllegalReason::CastlingOutOfCheck, "in check");
    let through = "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1";
    assert_reason(rejected(through, &["O-O"]), IllegalReason::CastlingThroughCheck, "f1");
    let into = "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1";
    assert_reason(rejected(into, &["0-0"]), IllegalReason::CastlingIntoCheck, "g1");
}

#[test]
fn a_promoted_rook_never_castles() {
    // The rook on h1 came from a promotion: FEN cannot give it a right.
    let pos = "4k3/8/8/8/8/8/8/4K2R w - - 0 1";
    assert_reason(rejected(pos, &["O-O"]), IllegalReason::CastlingWithoutRight, "no right");
    assert!("4k3/8/8/8/8/8/8/4K1R1 w K - 0 1".parse::<Position>().is_err());
}

#[test]
fn en_passant_not_available() {
    // The d-pawn did not just double-step.
    let pos = "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2";
    assert_reason(rejected(pos, &["exd6"]), IllegalReason::EnPassantUnavailable, "d5");
    // The chance passes after one move.
    assert_reason(
        rejected(START, &["e4", "a6", "e5", "d5", "a3", "a5", "exd6"]),
        IllegalReason::EnPassantUnavailable,
        "en passant",
    );
}

#[test]
fn en_passant_when_available() {
    let r = replay(
        Position::default(),
        &["e4", "a6", "e5", "d5", "exd6 e.p."],
        &ReplayOptions::default(),
    );
    assert!(r.illegal_move.is_none(), "{:?}", r.illegal_move);
    assert_eq!(r.plies[4].san.as_str(), "exd6");
    assert!(!r.plies[4].canonical_input);
}

#[test]
fn promotion_missing_invalid_or_unexpected() {
    let pos = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
    assert_reason(rejected(pos, &["a8"]), IllegalReason::PromotionMissing, "must promote");
    assert_reason(rejected(pos, &["a7a8"]), IllegalReason::PromotionMissing, "must promote");
    assert_reason(rejected(pos, &["a8=K"]), IllegalReason::InvalidPromotion, "king");
    assert_reason(rejected(pos, &["a7a8p"]), IllegalReason::InvalidPromotion, "pawn");
    assert_reason(rejected(START, &["e4=Q"]), IllegalReason::UnexpectedPromotion, "last rank");
    assert_reason(rejected(START, &["e2e4q"]), IllegalReason::UnexpectedPromotion, "last rank");
    assert_reason(rejected(START, &["Nf3=Q"]), IllegalReason::UnexpectedPromotion, "knight");
}

#[test]
fn promotions_to_every_piece() {
    let pos: Position = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
    for (text, san) in [("a8=Q+", "a8=Q+"), ("a8R+", "a8=R+"), ("a7a8b", "a8=B"), ("a8=N", "a8=N")]
    {
        let r = replay(pos.clone(), &[text], &ReplayOptions::default());
        assert!(r.illegal_move.is_none(), "{text}");
        assert_eq!(r.plies[0].san.as_str(), san);
    }
}

#[test]
fn ambiguous_san_is_never_guessed() {
    let pos = "4k3/8/8/8/8/8/K7/R6R w - - 0 1";
    assert_reason(rejected(pos, &["Rd1"]), IllegalReason::AmbiguousSan, "ambiguous");
    let r = replay(pos.parse::<Position>().unwrap(), &["Rad1"], &ReplayOptions::default());
    assert_eq!(r.plies[0].san.as_str(), "Rad1");
    // Over-disambiguation is read and flagged.
    let r = replay(Position::default(), &["Ngf3"], &ReplayOptions::default());
    assert_eq!(r.plies[0].san.as_str(), "Nf3");
    assert!(!r.plies[0].canonical_input);
}

#[test]
fn strict_mode_accepts_only_canonical_text() {
    let strict = ReplayOptions { strict: true, ..Default::default() };
    for text in ["Ng1f3", "ng1-f3", "Ngf3", "Nf3+", "Nxf3", "Nf3!"] {
        assert_reason(rejected_with(START, &[text], strict), IllegalReason::NonCanonical, "Nf3");
    }
    assert_reason(rejected_with(CASTLE, &["0-0"], strict), IllegalReason::NonCanonical, "O-O");
    assert_reason(rejected_with(CASTLE, &["e1h1"], strict), IllegalReason::NonCanonical, "e1g1");
    let r = replay(Position::default(), &["Nf3", "g8f6"], &strict);
    assert!(r.illegal_move.is_none());
    // An illegal move is reported as illegal, not as non-canonical.
    assert_reason(rejected_with(START, &["Nf4"], strict), IllegalReason::NoPiece, "f4");
}

#[test]
fn lenient_mode_reads_and_flags_variants() {
    let cases = [
        (START, "Nf3", "Nf3", true),
        (START, "g1f3", "Nf3", true),
        (START, "Ng1-f3", "Nf3", false),
        (START, "ng1-f3", "Nf3", false),
        (START, "Ng1f3", "Nf3", false),
        (START, "Nxf3", "Nf3", false),
        (START, "Nf3+", "Nf3", false),
        (START, "Nf3?!", "Nf3", false),
        (START, "e2-e4", "e4", false),
        (START, "e4", "e4", true),
        (CASTLE, "0-0", "O-O", false),
        (CASTLE, "O-O-O", "O-O-O", true),
        (CASTLE, "e1h1", "O-O", false),
        (CASTLE, "e1g1", "O-O", true),
        (CASTLE, "Rh1-h7", "Rh7", false),
        ("4k3/8/8/8/8/8/3P4/3RK3 w - - 0 1", "rd1xd2", "Rxd2", false),
    ];
    for (fen, text, san, canonical) in cases {
        let r = replay(fen.parse::<Position>().unwrap(), &[text], &ReplayOptions::default());
        if san == "Rxd2" {
            // Capturing one's own pawn stays illegal however it is written.
            assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::CaptureOwnPiece);
            continue;
        }
        assert!(r.illegal_move.is_none(), "{text}: {:?}", r.illegal_move);
        assert_eq!(r.plies[0].san.as_str(), san, "{text}");
        assert_eq!(r.plies[0].canonical_input, canonical, "{text}");
    }
    let r = replay(
        Position::default(),
        &["e4", "e5", "Nf3", "Nc6", "bb5", "a6", "bb5xc6"],
        &ReplayOptions::default(),
    );
    assert!(r.illegal_move.is_none(), "{:?}", r.illegal_move);
    assert_eq!(r.plies[6].san.as_str(), "Bxc6");
}

#[test]
fn check_and_mate_marks() {
    let r = replay(
        Position::default(),
        &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"],
        &ReplayOptions::default(),
    );
    assert_eq!(r.plies[6].san.as_str(), "Qxf7#");
    let r = replay(Position::default(), &["e4", "f5", "Qh5"], &ReplayOptions::default());
    assert_eq!(r.plies[2].san.as_str(), "Qh5+");
}

#[test]
fn the_game_is_over_after_mate() {
    let r =
        replay(Position::default(), &["f3", "e5", "g4", "Qh4#", "e4"], &ReplayOptions::default());
    assert_eq!(r.outcome.result, GameResult::BlackWins);
    assert_eq!(r.outcome.termination, Some(Termination::Checkmate));
    assert_eq!(r.outcome.to_string(), "0-1");
    let bad = r.illegal_move.unwrap();
    assert_eq!((bad.index, bad.reason), (4, IllegalReason::GameOver));
    assert!(r.legal_moves.is_empty());
}

#[test]
fn stalemate_ends_the_game() {
    let pos = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let r = replay(pos.parse::<Position>().unwrap(), &[] as &[&str], &ReplayOptions::default());
    assert_eq!(r.outcome.termination, Some(Termination::Stalemate));
    assert_eq!(r.outcome.result, GameResult::Draw);
    assert_reason(rejected(pos, &["Kh7"]), IllegalReason::GameOver, "stalemate");
    assert_reason(rejected(pos, &["garbage"]), IllegalReason::GameOver, "stalemate");
    // Reached by a move.
    let r = replay(
        "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1".parse::<Position>().unwrap(),
        &["Qf7"],
        &ReplayOptions::default(),
    );
    assert_eq!(r.outcome.termination, Some(Termination::Stalemate));
}

#[test]
fn insufficient_material_ends_the_game() {
    let r = replay(
        "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1".parse::<Position>().unwrap(),
        &["Kxd2"],
        &ReplayOptions::default(),
    );
    assert_eq!(r.outcome.termination, Some(Termination::InsufficientMaterial));
    assert_eq!(r.outcome.to_string(), "1/2-1/2");
    assert_reason(
        rejected("4k3/8/8/8/8/8/8/2B1K3 b - - 0 1", &["Kd7"]),
        IllegalReason::GameOver,
        "insufficient material",
    );
}

#[test]
fn seventy_five_move_rule_ends_the_game_unless_the_move_mates() {
    let pos = "4k3/8/8/8/8/8/R7/4K3 w - - 149 100";
    let r = replay(pos.parse::<Position>().unwrap(), &["Ra3"], &ReplayOptions::default());
    assert_eq!(r.outcome.termination, Some(Termination::SeventyFiveMoveRule));
    assert_eq!(r.outcome.result, GameResult::Draw);
    // A mate on the 150th half-move stands.
    let pos = "6k1/5ppp/8/8/8/8/8/R3K3 w - - 149 100";
    let r = replay(pos.parse::<Position>().unwrap(), &["Ra8#"], &ReplayOptions::default());
    assert_eq!(r.outcome.termination, Some(Termination::Checkmate));
    assert_eq!(r.outcome.result, GameResult::WhiteWins);
}

#[test]
fn fifty_move_rule_is_claimable() {
    let pos = "4k3/8/8/8/8/8/R7/4K3 w - - 98 80";
    let r = replay(pos.parse::<Position>().unwrap(), &["Ra3"], &ReplayOptions::default());
    assert!(!r.outcome.fifty_move_claimable);
    let r = replay(pos.parse::<Position>().unwrap(), &["Ra3", "Kd7"], &ReplayOptions::default());
    assert!(r.outcome.fifty_move_claimable);
    assert_eq!(r.outcome.result, GameResult::Ongoing);
    assert_eq!(r.outcome.to_string(), "*");
}

#[test]
fn threefold_is_claimable_and_fivefold_ends_the_game() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let moves: Vec<&str> = shuffle.iter().cycle().take(8).copied().collect();
    let r = replay(Position::default(), &moves, &ReplayOptions::default());
    assert!(r.outcome.threefold_claimable, "start position three times");
    assert_eq!(r.outcome.result, GameResult::Ongoing);
    let r = replay(Position::default(), &moves[..7], &ReplayOptions::default());
    assert!(!r.outcome.threefold_claimable);
    let moves: Vec<&str> = shuffle.iter().cycle().take(16).copied().collect();
    let r = replay(Position::default(), &moves, &ReplayOptions::default());
    assert_eq!(r.outcome.termination, Some(Termination::FivefoldRepetition));
    assert_eq!(r.outcome.result, GameResult::Draw);
    let more: Vec<&str> = moves.iter().copied().chain(["e4"]).collect();
    let r = replay(Position::default(), &more, &ReplayOptions::default());
    assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::GameOver);
}

#[test]
fn repetition_ignores_an_en_passant_square_without_a_legal_capture() {
    // After 1. e4 the e3 square is recorded but no capture is possible, so
    // the position equals the one reached later with no en-passant square.
    let mut game = Game::new("4k3/8/8/8/8/8/4P3/4K1N1 w - - 0 1".parse().unwrap());
    for m in ["e4", "Kd7", "Nf3", "Ke8", "Ng1", "Kd7", "Nf3", "Ke8", "Ng1"] {
        game.play_text(m, Notation::San, false).unwrap();
    }
    // Position after 1. e4 (black to move) has stood there three times.
    assert!(game.outcome().threefold_claimable);
}

#[test]
fn repetition_counts_castling_rights() {
    // Moving the king loses the right: the start position does not repeat.
    let mut game = Game::new(CASTLE.parse().unwrap());
    for m in ["Kf1", "Kf8", "Ke1", "Ke8", "Kf1", "Kf8", "Ke1", "Ke8"] {
        game.play_text(m, Notation::San, false).unwrap();
    }
    // Without rights, the position after Ke1 Ke8 stands twice, not three times.
    assert!(!game.outcome().threefold_claimable);
}

#[test]
fn plies_from_and_fens() {
    let options = ReplayOptions { plies_from: 2, include_fens: true, ..Default::default() };
    let r = replay(Position::default(), &["e4", "e5", "Nf3", "Nc6"], &options);
    assert_eq!(r.plies.len(), 2);
    assert_eq!(r.plies[0].san.as_str(), "Nf3");
    assert_eq!(
        r.plies[1].fen_after.as_ref().map(|fen| fen.as_str()),
        Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    );
    // Earlier moves are still checked.
    let r = replay(Position::default(), &["e5", "e5", "Nf3"], &options);
    assert_eq!(r.illegal_move.unwrap().index, 0);
    assert!(r.plies.is_empty());
}

#[test]
fn final_position_lists_legal_moves_with_san() {
    let r = replay(Position::default(), &["e4"], &ReplayOptions::default());
    assert_eq!(r.legal_moves.len(), 20);
    assert!(r.legal_moves.iter().any(|m| m.uci.to_string() == "g8f6" && m.san.as_str() == "Nf6"));
    let skip = ReplayOptions { skip_legal_moves: true, ..Default::default() };
    assert!(replay(Position::default(), &["e4"], &skip).legal_moves.is_empty());
}
