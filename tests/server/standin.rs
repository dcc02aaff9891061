//! The stand-in service `ValidateGame`'s throughput is measured against
//! (`examples/standin`, tonic + shakmaty) answers as arbiter does wherever
//! it claims to do the same work, so that the figure compares like with
//! like: the same seeded random games (SAN, UCI, some texts spoiled, some
//! moves after the end) sent to both servers over 127.0.0.1 give the same
//! plies, the same first illegal move, the same final position with the
//! same legal moves (as sets: the two list them in different orders) and
//! the same outcome. Where arbiter does more (dead positions beyond
//! insufficient material, claims per legal move, reasons for illegal
//! moves), the test leaves that part out and says how often it did.

#[path = "../../examples/standin/service.rs"]
mod service;

use arbiter::proto::{self, rules_service_client::RulesServiceClient};
use arbiter_chess::{Game, Notation, Position, Termination, UciMove};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

use crate::common::server::TestServer;

/// Games sent to both servers.
const GAMES: usize = 200;

/// A random game from the start: up to `plies` moves, each written in SAN
/// or UCI at random, now and then a spoiled text, or a move after the end.
fn random_moves(rng: &mut SmallRng, plies: usize) -> Vec<String> {
    let mut game = Game::new(Position::default());
    let mut texts = Vec::new();
    for _ in 0..plies {
        if game.is_over() {
            // A move after a mate, stalemate or draw by rule (not after a
            // dead position, which the stand-in plays on from).
            let dead = game.outcome().termination == Some(Termination::DeadPosition);
            if !dead && rng.random_bool(0.5) {
                texts.push("e4".to_owned());
            }
            break;
        }
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        if rng.random_ratio(1, 600) {
            // A text no rule accepts: a square off the board, or nonsense.
            texts.push(if rng.random_bool(0.5) { "Qh9".to_owned() } else { "Ke8e1".to_owned() });
            break;
        }
        let uci = UciMove::from_move(m).to_string();
        let played = game.play_text(&uci, Notation::Uci, false).expect("a legal move");
        texts.push(if rng.random_bool(0.5) { played.san.to_string() } else { uci });
    }
    texts
}

/// The legal moves of a final position as a sorted list of (UCI, SAN).
fn legal_moves(position: &proto::Position) -> Vec<(String, String)> {
    let mut moves: Vec<_> =
        position.legal_moves.iter().map(|m| (m.uci.clone(), m.san.clone())).collect();
    moves.sort();
    moves
}

#[tokio::test]
async fn the_stand_in_answers_as_arbiter_does() {
    let arbiter = TestServer::start(&[]).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let standin_addr = listener.local_addr().unwrap();
    let standin = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service::StandIn)
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    let mut ours = arbiter.client().await;
    let mut theirs = RulesServiceClient::connect(format!("http://{standin_addr}"))
        .await
        .expect("the stand-in answers");

    let mut rng = SmallRng::seed_from_u64(0x5741_4e44);
    let (mut illegal, mut after_end, mut dead, mut ended) = (0, 0, 0, 0);
    for i in 0..GAMES {
        let moves = random_moves(&mut rng, if i % 3 == 0 { 400 } else { 80 });
        let request = proto::ValidateGameRequest {
            moves: moves.clone(),
            skip_legal_moves: i % 10 == 9,
            ..Default::default()
        };
        let a = ours.validate_game(request.clone()).await.expect("arbiter answers").into_inner();
        let s = theirs.validate_game(request).await.expect("the stand-in answers").into_inner();
        let context = format!("game {i}: {}", moves.join(" "));

        let plies = |r: &proto::ValidateGameResponse| -> Vec<(String, String, bool)> {
            r.plies.iter().map(|p| (p.san.clone(), p.uci.clone(), p.canonical_input)).collect()
        };
        assert_eq!(plies(&a), plies(&s), "{context}");
        let illegal_at = |r: &proto::ValidateGameResponse| {
            r.illegal_move.as_ref().map(|m| (m.index, m.r#move.clone()))
        };
        assert_eq!(illegal_at(&a), illegal_at(&s), "{context}");
        if let Some(m) = &a.illegal_move {
            illegal += 1;
            after_end += usize::from(m.index as usize == a.plies.len() && m.r#move == "e4");
        }

        let (pa, ps) = (a.position.as_ref().unwrap(), s.position.as_ref().unwrap());
        let (oa, os) = (a.outcome.as_ref().unwrap(), s.outcome.as_ref().unwrap());
        assert_eq!(
            (&pa.fen, pa.turn, pa.in_check, pa.halfmove_clock, pa.fullmove_number),
            (&ps.fen, ps.turn, ps.in_check, ps.halfmove_clock, ps.fullmove_number),
            "{context}"
        );
        if oa.termination == proto::Termination::DeadPosition as i32 {
            // Arbiter's own rule: the stand-in plays on.
            dead += 1;
            assert_eq!(os.result, proto::GameResult::Ongoing as i32, "{context}");
            continue;
        }
        assert_eq!(legal_moves(pa), legal_moves(ps), "{context}");
        let claims = |o: &proto::Outcome| {
            let mut claims = o.claimable_draws.clone();
            claims.sort_unstable();
            claims
        };
        assert_eq!(
            (oa.result, oa.termination, claims(oa), &oa.pgn_result),
            (os.result, os.termination, claims(os), &os.pgn_result),
            "{context}"
        );
        ended += usize::from(oa.result != proto::GameResult::Ongoing as i32);
    }
    // The workload reaches what it means to: illegal texts, moves after
    // the end, and games ended by a rule.
    assert!(illegal >= 10 && after_end >= 3 && ended >= 10, "{illegal} {after_end} {ended}");
    eprintln!(
        "{GAMES} games: {illegal} with an illegal move ({after_end} after the end), \
         {ended} ended by a rule, {dead} dead positions the stand-in does not know"
    );
    standin.abort();
}
