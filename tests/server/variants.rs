//! Lichess's variants over a real socket: python-chess's games through a
//! `ValidateGames` stream, each variant's ends and illegal-move reasons
//! through `ValidateGame`, drops in `LegalMoves` and `Perft`, and the
//! errors of variant FENs and of chess's options sent with a variant.

use arbiter::proto::{self, validate_games_response};
use tonic::Code;

use crate::common::server::{TestServer, details};
use crate::common::variants::python_chess_games;

/// The contract's value of a variant named as the fixtures name it.
fn variant(name: &str) -> proto::Variant {
    match name {
        "crazyhouse" => proto::Variant::Crazyhouse,
        "atomic" => proto::Variant::Atomic,
        "antichess" => proto::Variant::Antichess,
        "king-of-the-hill" => proto::Variant::KingOfTheHill,
        "three-check" => proto::Variant::ThreeCheck,
        "horde" => proto::Variant::Horde,
        "racing-kings" => proto::Variant::RacingKings,
        other => panic!("no variant {other}"),
    }
}

/// The FEN's fields but crazyhouse's half-move clock, which python-chess
/// 1.11 leaves running over a pawn drop (see `tests/rules/variants.rs`).
fn comparable_fen(fen: &str, variant: proto::Variant) -> Vec<&str> {
    let mut fields: Vec<&str> = fen.split(' ').collect();
    if variant == proto::Variant::Crazyhouse {
        fields.remove(4);
    }
    fields
}

#[tokio::test]
async fn python_chess_variant_games_through_a_stream() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let games = python_chess_games();
    // Half the games in UCI, half in SAN.
    let requests = games.iter().enumerate().map(|(i, game)| proto::ValidateGamesRequest {
        id: i.to_string(),
        game: Some(proto::ValidateGameRequest {
            fen: game.fen.clone(),
            moves: game.plies.iter().map(|ply| ply[i % 2].clone()).collect(),
            variant: variant(&game.variant) as i32,
            ..Default::default()
        }),
    });
    let answers = client.validate_games(tokio_stream::iter(requests.collect::<Vec<_>>())).await;
    let answers: Vec<proto::ValidateGamesResponse> = tokio_stream::StreamExt::collect(
        tokio_stream::StreamExt::map(answers.unwrap().into_inner(), |answer| answer.unwrap()),
    )
    .await;
    assert_eq!(answers.len(), games.len());
    let variant_ends = [
        proto::Termination::Explosion,
        proto::Termination::KingOfTheHill,
        proto::Termination::ThirdCheck,
        proto::Termination::Race,
        proto::Termination::VariantWin,
    ]
    .map(|t| t as i32);
    let mut ended_by_a_variant_rule = 0;
    for (i, (game, answer)) in games.iter().zip(&answers).enumerate() {
        assert_eq!(answer.id, i.to_string());
        let Some(validate_games_response::Result::Game(answer)) = &answer.result else {
            panic!("game {i}: {answer:?}");
        };
        let context = format!("game {i} ({})", game.variant);
        assert!(answer.illegal_move.is_none(), "{context}: {:?}", answer.illegal_move);
        let sans: Vec<&str> = answer.plies.iter().map(|ply| ply.san.as_str()).collect();
        let theirs: Vec<&str> = game.plies.iter().map(|ply| ply[1].as_str()).collect();
        assert_eq!(sans, theirs, "{context}");
        let ucis: Vec<&str> = answer.plies.iter().map(|ply| ply.uci.as_str()).collect();
        let theirs: Vec<&str> = game.plies.iter().map(|ply| ply[0].as_str()).collect();
        assert_eq!(ucis, theirs, "{context}");
        let v = variant(&game.variant);
        let fen = &answer.position.as_ref().unwrap().fen;
        assert_eq!(comparable_fen(fen, v), comparable_fen(&game.final_fen, v), "{context}");
        let outcome = answer.outcome.as_ref().unwrap();
        assert_eq!(outcome.pgn_result, game.result, "{context}");
        // python-chess names every end by a variant's own rule VARIANT_*.
        let by_variant_rule = variant_ends.contains(&outcome.termination);
        let theirs = game.termination.as_deref().is_some_and(|t| t.starts_with("VARIANT_"));
        assert_eq!(by_variant_rule, theirs, "{context}: {outcome:?}");
        ended_by_a_variant_rule += usize::from(by_variant_rule);
    }
    assert!(ended_by_a_variant_rule >= 10, "{ended_by_a_variant_rule}");
    server.shutdown().await.unwrap();
}

/// One game's answer: the SANs, the illegal move's reason, the termination
/// and the final position's legal moves.
struct Answer {
    sans: Vec<String>,
    illegal: Option<proto::IllegalMoveReason>,
    termination: Option<proto::Termination>,
    result: proto::GameResult,
    legal_moves: Vec<String>,
}

async fn play(server: &TestServer, v: proto::Variant, fen: &str, moves: &[&str]) -> Answer {
    let request = proto::ValidateGameRequest {
        fen: fen.into(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        variant: v as i32,
        ..Default::default()
    };
    let answer = server.client().await.validate_game(request).await.unwrap().into_inner();
    let outcome = answer.outcome.unwrap();
    Answer {
        sans: answer.plies.into_iter().map(|ply| ply.san).collect(),
        illegal: answer.illegal_move.map(|m| m.reason()),
        termination: (outcome.termination != 0).then(|| outcome.termination()),
        result: outcome.result(),
        legal_moves: answer.position.unwrap().legal_moves.into_iter().map(|m| m.san).collect(),
    }
}

#[tokio::test]
async fn each_variant_ends_by_its_own_rule() {
    use proto::Termination as T;
    use proto::Variant as V;
    let server = TestServer::start(&[]).await;
    let white = proto::GameResult::WhiteWins;
    let cases: [(V, &str, &[&str], T); 6] = [
        (V::Atomic, "", &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"], T::Explosion),
        (V::KingOfTheHill, "", &["e3", "e6", "Ke2", "Ke7", "Kd3", "Kd6", "Kd4"], T::KingOfTheHill),
        (
            V::ThreeCheck,
            "",
            &["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Kxf7", "Qh5+", "g6", "Qxg6+"],
            T::ThirdCheck,
        ),
        (V::RacingKings, "8/6K1/8/8/8/8/k7/8 w - - 0 1", &["Kg8"], T::Race),
        // The last black piece takes the rook and becomes a king: white,
        // with no piece left, wins.
        (V::Antichess, "8/8/8/8/8/8/p7/1R6 b - - 0 1", &["axb1=K"], T::VariantWin),
        // Black's queen takes the last white pawn: horde's black wins by
        // it, and a white win here would be the wrong side.
        (V::Horde, "4k3/8/8/8/8/8/8/q6P b - - 0 1", &["Qxh1"], T::VariantWin),
    ];
    for (v, fen, moves, termination) in cases {
        let answer = play(&server, v, fen, moves).await;
        assert_eq!(answer.illegal, None, "{v:?}");
        assert_eq!(answer.termination, Some(termination), "{v:?}");
        let winner = if v == V::Horde { proto::GameResult::BlackWins } else { white };
        assert_eq!(answer.result, winner, "{v:?}");
        assert!(answer.legal_moves.is_empty(), "{v:?}: the game is over");
        // python-chess's SAN marks a variant's win as mate.
        assert!(answer.sans.last().unwrap().ends_with('#'), "{v:?}: {:?}", answer.sans);
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn variant_moves_are_refused_with_their_own_reasons() {
    use proto::IllegalMoveReason as R;
    use proto::Variant as V;
    let server = TestServer::start(&[]).await;
    let pocket = "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1";
    let cases: [(V, &str, &[&str], R); 5] = [
        (V::Crazyhouse, pocket, &["P@a8"], R::InvalidDrop),
        (V::Crazyhouse, pocket, &["B@d4"], R::NoPiece),
        (V::Antichess, "", &["e4", "d5", "Nc3"], R::CaptureRequired),
        // The white king may not take: in atomic, a king cannot capture.
        (V::Atomic, "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", &["Kxd2"], R::ExplodesOwnKing),
        (V::RacingKings, "", &["Nc3"], R::GivesCheck),
    ];
    for (v, fen, moves, reason) in cases {
        let answer = play(&server, v, fen, moves).await;
        assert_eq!(answer.illegal, Some(reason), "{v:?} {moves:?}");
        assert_eq!(answer.sans.len(), moves.len() - 1, "{v:?}");
    }
    // A drop answers a check by a rook only by blocking or by moving away.
    let answer = play(&server, V::Crazyhouse, "4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1", &["N@d6"]).await;
    assert_eq!(answer.sans, ["N@d6+"]);
    assert_eq!(answer.legal_moves.len(), 4, "{:?}", answer.legal_moves);
    assert!(answer.legal_moves.iter().all(|san| san.starts_with('K')));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn legal_moves_and_perft_in_variants() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    // Horde's start: the eight pawn moves of white's front rank.
    let r = client
        .legal_moves(proto::LegalMovesRequest {
            variant: proto::Variant::Horde as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let position = r.position.unwrap();
    assert_eq!(
        position.fen,
        "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"
    );
    assert_eq!(position.legal_moves.len(), 8);
    // Crazyhouse, after moves: the queen dropped on d5 checks along the d
    // file; the knight in hand blocks on d3 or d4, or the king steps off.
    let r = client
        .legal_moves(proto::LegalMovesRequest {
            fen: "4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1".into(),
            moves: vec!["Kd2".into(), "Q@d5".into()],
            variant: proto::Variant::Crazyhouse as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(r.illegal_move.is_none(), "{:?}", r.illegal_move);
    let position = r.position.unwrap();
    assert_eq!(position.fen, "4k3/8/8/3q4/8/8/3K4/8[N] w - - 2 2");
    assert!(position.in_check);
    let mut moves: Vec<(&str, &str)> =
        position.legal_moves.iter().map(|m| (m.uci.as_str(), m.san.as_str())).collect();
    moves.sort();
    assert_eq!(&moves[..2], [("N@d3", "N@d3"), ("N@d4", "N@d4")]);
    assert_eq!(moves.len(), 8, "{moves:?}");
    // A drop comes from no square: the moves from d2 are the king's.
    let r = client
        .legal_moves(proto::LegalMovesRequest {
            fen: position.fen.clone(),
            from_square: "d2".into(),
            variant: proto::Variant::Crazyhouse as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.position.unwrap().legal_moves.len(), 6);
    // Perft: scalachess's racing kings start, and a divide with drops.
    let r = client
        .perft(proto::PerftRequest {
            depth: 3,
            variant: proto::Variant::RacingKings as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.nodes, 11264);
    let r = client
        .perft(proto::PerftRequest {
            fen: "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1".into(),
            depth: 1,
            divide: true,
            variant: proto::Variant::Crazyhouse as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.nodes, 67);
    assert!(r.divide.iter().any(|d| d.uci == "N@f3" && d.nodes == 1), "{:?}", r.divide);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn variant_fens_and_chess_options_are_refused_by_name() {
    use proto::Variant as V;
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let request = |v: V, fen: &str| proto::ValidateGameRequest {
        fen: fen.into(),
        variant: v as i32,
        ..Default::default()
    };
    let cases = [
        (request(V::Crazyhouse, "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1"), "fen", "pocket"),
        (request(V::ThreeCheck, "4k3/8/8/8/8/8/8/4K3 w - - 4+3 0 1"), "fen", "three-check"),
        (request(V::Horde, "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"), "fen", "king"),
        (
            proto::ValidateGameRequest { shredder_fen: true, ..request(V::Atomic, "") },
            "shredder_fen",
            "lichess's variants",
        ),
        (
            proto::ValidateGameRequest { include_winnability: true, ..request(V::Atomic, "") },
            "include_winnability",
            "lichess's variants",
        ),
        (
            proto::ValidateGameRequest { chess960_position: Some(518), ..request(V::Horde, "") },
            "chess960_position",
            "VARIANT_CHESS960",
        ),
    ];
    for (request, field, message) in cases {
        let status = client.validate_game(request.clone()).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        let (named, reason) = details(&status);
        assert_eq!(named, field, "{status:?}");
        let expected = if field == "fen" {
            ["INVALID_FEN", "ILLEGAL_POSITION"].as_slice()
        } else {
            ["CONFLICTING_FIELDS"].as_slice()
        };
        assert!(expected.contains(&reason.as_str()), "{status:?}");
        assert!(status.message().contains(message), "{request:?}: {status:?}");
    }
    server.shutdown().await.unwrap();
}
