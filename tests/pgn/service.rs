//! `ValidatePgn` over a real socket on 127.0.0.1: PGN text in chunks of any
//! size, one answer per game in input order, per-game errors (a bad FEN
//! tag, an unknown variant, a game over the size limit) that leave the
//! stream going, an over-size chunk, back-pressure, the analysis's budget
//! as the server was given it, and the shared PGN files answered as the
//! local reader answers them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arbiter::proto::{self, validate_pgn_response};
use arbiter_pgn::{GameReader, ReaderOptions, check_game};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::common;
use crate::common::server::TestServer;

/// Sends `text` in chunks of `size` bytes; the answers, or the status that
/// ended the stream.
async fn validate(
    server: &TestServer,
    text: &[u8],
    size: usize,
) -> Result<Vec<proto::ValidatePgnResponse>, tonic::Status> {
    let mut client = server.client().await;
    let chunks: Vec<proto::ValidatePgnRequest> = text
        .chunks(size.max(1))
        .map(|chunk| proto::ValidatePgnRequest { chunk: chunk.to_vec(), include_analysis: false })
        .collect();
    let mut answers = client.validate_pgn(tokio_stream::iter(chunks)).await?.into_inner();
    let mut out = Vec::new();
    while let Some(answer) = answers.next().await {
        out.push(answer?);
    }
    Ok(out)
}

/// What the local reader and checker say of `text`, as the RPC's answers.
fn local(text: &[u8], max_game_bytes: usize) -> Vec<proto::ValidatePgnResponse> {
    GameReader::new(text, ReaderOptions { max_game_bytes })
        .map(|raw| arbiter::api::pgn::response(&check_game(raw.unwrap())))
        .collect()
}

fn verdict(answer: &proto::ValidatePgnResponse) -> &proto::PgnVerdict {
    match answer.result.as_ref() {
        Some(validate_pgn_response::Result::Verdict(verdict)) => verdict,
        other => panic!("game {}: no verdict: {other:?}", answer.index),
    }
}

fn error(answer: &proto::ValidatePgnResponse) -> &proto::GameError {
    match answer.result.as_ref() {
        Some(validate_pgn_response::Result::Error(error)) => error,
        other => panic!("game {}: no error: {other:?}", answer.index),
    }
}

const GAMES: &str = "\u{feff}[Event \"mate\"]\r\n[Result \"0-1\"]\r\n\r\n\
    1. f3 {weak} e5 2. g4?? (2. e4 Nc6) Qh4# 0-1\r\n\r\n\
    [Event \"illegal\"]\n[White \"A \\\"B\\\"\"]\n[Result \"*\"]\n\n\
    1. e4 e5 (1... Nf6 2. Ke3) 2. Ke3 Nc6 *\n\n\
    [Event \"bad fen\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n\n\
    [Event \"bughouse\"]\n[Variant \"Bughouse\"]\n\n1. e4 *\n\n\
    [Event \"stalemate claimed as a win\"]\n[FEN \"k7/8/8/2Q5/8/8/8/2K5 w - - 0 1\"]\n\
    [Result \"1-0\"]\n\n1. Qb6 1-0\n\n\
    [Event \"unfinished\"]\n\n1. d4 d5 2. c4";

#[tokio::test]
async fn answers_each_game_in_order_whatever_the_chunks() {
    let server = TestServer::start(&[]).await;
    let expected = local(GAMES.as_bytes(), 1 << 20);
    assert_eq!(expected.len(), 6);
    for size in [1, 2, 7, 64, 1000, GAMES.len()] {
        let answers = validate(&server, GAMES.as_bytes(), size).await.unwrap();
        assert_eq!(answers, expected, "chunks of {size} bytes");
    }
    let answers = expected;
    let indices: Vec<u64> = answers.iter().map(|a| a.index).collect();
    assert_eq!(indices, [0, 1, 2, 3, 4, 5]);
    assert_eq!(answers[0].line, 1);
    assert_eq!(answers[1].line, 6);

    let mate = verdict(&answers[0]);
    assert_eq!(answers[0].tags[0], proto::PgnTag { name: "Event".into(), value: "mate".into() });
    assert_eq!(mate.plies, 4);
    assert!(mate.illegal_move.is_none() && mate.variation_errors.is_empty());
    let outcome = mate.outcome.as_ref().unwrap();
    assert_eq!(outcome.termination, proto::Termination::Checkmate as i32);
    assert_eq!(outcome.pgn_result, "0-1");
    assert_eq!(mate.result_tag.as_deref(), Some("0-1"));
    assert!(mate.result_consistent);

    let illegal = verdict(&answers[1]);
    assert_eq!(answers[1].tags[1].value, "A \"B\"");
    assert_eq!(illegal.plies, 2);
    let bad = illegal.illegal_move.as_ref().unwrap();
    assert_eq!((bad.index, bad.r#move.as_str()), (2, "Ke3"));
    assert_eq!(bad.reason, proto::IllegalMoveReason::NoPiece as i32);
    let side = &illegal.variation_errors[..];
    assert_eq!(side.len(), 1);
    assert_eq!((side[0].path.as_slice(), side[0].index), (&[1, 0][..], 1));
    assert_eq!(
        (side[0].r#move.as_str(), side[0].reason.as_str()),
        ("Ke3", "ILLEGAL_MOVE_REASON_NO_PIECE")
    );
    assert_eq!(
        illegal.position.as_ref().unwrap().fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    );

    let fen = error(&answers[2]);
    assert_eq!(
        (fen.code.as_str(), fen.reason.as_str(), fen.field.as_str()),
        ("INVALID_ARGUMENT", "INVALID_FEN", "FEN")
    );
    assert_eq!(answers[2].tags.len(), 3);
    let variant = error(&answers[3]);
    assert_eq!((variant.reason.as_str(), variant.field.as_str()), ("UNKNOWN_VARIANT", "Variant"));

    let stalemate = verdict(&answers[4]);
    let outcome = stalemate.outcome.as_ref().unwrap();
    assert_eq!(outcome.termination, proto::Termination::Stalemate as i32);
    assert!(!stalemate.result_consistent);

    let unfinished = verdict(&answers[5]);
    assert_eq!(unfinished.plies, 3);
    assert!(unfinished.result_tag.is_none() && unfinished.result_consistent);
    server.shutdown().await.unwrap();
}

/// Lichess's variants: each game by its own rules, a drop, an explosion,
/// a refused move with the variant's reason, a bad variant FEN named.
const VARIANT_GAMES: &str = "[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n\
    1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 @e4 *\n\n\
    [Variant \"Atomic\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7 1-0\n\n\
    [Variant \"Racing Kings\"]\n\n1. Nc3 *\n\n\
    [Variant \"Horde\"]\n[FEN \"4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1\"]\n\n*\n";

#[tokio::test]
async fn variant_games_are_answered_by_their_rules() {
    let server = TestServer::start(&[]).await;
    let answers = validate(&server, VARIANT_GAMES.as_bytes(), 17).await.unwrap();
    assert_eq!(answers, local(VARIANT_GAMES.as_bytes(), 1 << 20));
    assert_eq!(answers.len(), 4);

    let zh = verdict(&answers[0]);
    assert_eq!(zh.plies, 8);
    assert!(zh.illegal_move.is_none() && zh.result_consistent);
    assert_eq!(
        zh.position.as_ref().unwrap().fen,
        "rnb1kbnr/ppp1pppp/8/q7/3Pp3/2N5/PPPP1PPP/R1BQKBNR[] w KQkq - 0 5"
    );

    let atomic = verdict(&answers[1]);
    let outcome = atomic.outcome.as_ref().unwrap();
    assert_eq!(outcome.termination, proto::Termination::Explosion as i32);
    assert_eq!(outcome.result, proto::GameResult::WhiteWins as i32);
    assert!(atomic.result_consistent);

    let race = verdict(&answers[2]);
    let bad = race.illegal_move.as_ref().unwrap();
    assert_eq!((bad.index, bad.r#move.as_str()), (0, "Nc3"));
    assert_eq!(bad.reason, proto::IllegalMoveReason::GivesCheck as i32);

    let horde = error(&answers[3]);
    assert_eq!(
        (horde.code.as_str(), horde.reason.as_str(), horde.field.as_str()),
        ("INVALID_ARGUMENT", "INVALID_FEN", "FEN")
    );
    assert!(horde.message.contains("horde"), "{}", horde.message);
    server.shutdown().await.unwrap();
}

/// A game lost on time by White whose winner, Black (a king and a pawn
/// against White's army), can mate only by a long helpmate: the analysis
/// finds it within its default budget, not within 1,000 positions.
const LONG_PROOF: &str = "[Event \"lost on time\"]\n[SetUp \"1\"]\n\
    [FEN \"8/8/8/p5k1/4P2R/2N2P2/P1P2KP1/8 w - - 0 40\"]\n\
    [Termination \"Time forfeit\"]\n[Result \"0-1\"]\n\n0-1\n";

#[tokio::test]
async fn the_flag_fall_analysis_has_the_budget_the_server_was_given() {
    let outcome = |answers: &[proto::ValidatePgnResponse]| {
        assert_eq!(answers.len(), 1);
        verdict(&answers[0]).outcome.clone().expect("an outcome")
    };
    let default = TestServer::start(&[]).await;
    let answers = validate(&default, LONG_PROOF.as_bytes(), 16).await.unwrap();
    assert_eq!(answers, local(LONG_PROOF.as_bytes(), 1 << 20));
    let proven = outcome(&answers);
    assert_eq!(proven.result, proto::GameResult::BlackWins as i32);
    assert_eq!(proven.termination, proto::Termination::Timeout as i32);
    assert!(!proven.unproven, "a helpmate proves that Black can mate");

    let bounded = TestServer::start(&["--unwinnable-nodes", "1000"]).await;
    let answers = validate(&bounded, LONG_PROOF.as_bytes(), 16).await.unwrap();
    let unproven = outcome(&answers);
    assert_eq!(unproven.result, proto::GameResult::BlackWins as i32);
    assert_eq!(unproven.termination, proto::Termination::Timeout as i32);
    assert!(unproven.unproven, "1,000 positions are too few to find Black's helpmate");
    assert!(verdict(&answers[0]).result_consistent);
}

#[tokio::test]
async fn a_game_over_the_limit_is_an_error_and_the_stream_goes_on() {
    let server = TestServer::start(&["--max-pgn-game-bytes", "1024"]).await;
    let long = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(100);
    let text = format!(
        "[Event \"a\"]\n\n1. e4 *\n\n[Event \"long\"]\n\n{long}*\n\n[Event \"c\"]\n\n1. d4 *\n"
    );
    let answers = validate(&server, text.as_bytes(), 100).await.unwrap();
    assert_eq!(answers, local(text.as_bytes(), 1024));
    assert_eq!(answers.len(), 3);
    let too_large = error(&answers[1]);
    assert_eq!(
        (too_large.code.as_str(), too_large.reason.as_str()),
        ("RESOURCE_EXHAUSTED", "GAME_TOO_LARGE")
    );
    assert!(answers[1].tags.is_empty());
    assert_eq!(verdict(&answers[2]).plies, 1);
    assert_eq!(answers[2].tags[0].value, "c");
    // An empty text has no games.
    assert!(validate(&server, b"", 10).await.unwrap().is_empty());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_chunk_over_the_message_limit_ends_the_stream() {
    let server = TestServer::start(&["--max-message-bytes", "4096"]).await;
    let text = format!("[Event \"a\"]\n\n1. e4 *\n{{{}}}", "x".repeat(10_000));
    let status = validate(&server, text.as_bytes(), text.len()).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    server.shutdown().await.unwrap();
}

/// A client that sends text without reading the answers is held back: the
/// server reads a bounded number of games ahead of what it could deliver.
#[tokio::test]
async fn validate_pgn_applies_back_pressure() {
    let server = TestServer::start(&["--stream-games-in-flight", "2"]).await;
    let mut client = server.client().await;
    // A game with many tags: its answer is a few kilobytes.
    let tags: String = (0..100).map(|i| format!("[Tag{i} \"{}\"]\n", "v".repeat(20))).collect();
    let game = format!("{tags}\n1. e4 e5 2. Nf3 Nc6 *\n\n");
    let total = 5000;
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&pulled);
    let requests = tokio_stream::iter(0..total).map(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        proto::ValidatePgnRequest { chunk: game.clone().into_bytes(), include_analysis: false }
    });
    let mut answers = client.validate_pgn(requests).await.unwrap().into_inner();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled_at = pulled.load(Ordering::SeqCst);
    eprintln!("sender stalled after {stalled_at} of {total} chunks");
    assert!(stalled_at < total / 2, "the client could send {stalled_at} of {total} games unread");
    let mut next = 0;
    while let Some(answer) = answers.next().await {
        let answer = answer.unwrap();
        assert_eq!(answer.index, next);
        assert_eq!(verdict(&answer).plies, 4);
        next += 1;
    }
    assert_eq!(next, total as u64);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shared_pgn_files_are_answered_as_the_local_reader_answers() {
    let Some(dir) = common::data_dir_or_skip() else { return };
    let server = TestServer::start(&[]).await;
    let files = common::shared_pgn_files(&dir);
    assert!(!files.is_empty());
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read(path).unwrap();
        let expected = local(&text, 1 << 20);
        // Chunks of an odd size, cutting lines and characters anywhere.
        let answers = validate(&server, &text, 1009 + 4096 * (i % 3)).await.unwrap();
        assert_eq!(answers.len(), expected.len(), "{}", path.display());
        assert_eq!(answers, expected, "{}", path.display());
    }
    server.shutdown().await.unwrap();
}
