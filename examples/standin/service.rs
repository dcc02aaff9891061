//! The stand-in's rules service: `ValidateGame` answered by shakmaty
//! 0.30.1 behind tonic's prost codec (see `main.rs`). A module of its own
//! so that the test suite (`tests/server/standin.rs`) can serve it too and
//! hold its answers to arbiter's.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::pin::Pin;
use std::task::{Context, Poll};

use arbiter::proto;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};
use tonic::body::Body;
use tonic::codegen::http;
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};

/// The rules service, `ValidateGame` only.
#[derive(Clone, Copy, Debug)]
pub struct StandIn;

impl NamedService for StandIn {
    const NAME: &'static str = "arbiter.v1.RulesService";
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl tower::Service<http::Request<Body>> for StandIn {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<http::Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        if request.uri().path() == "/arbiter.v1.RulesService/ValidateGame" {
            Box::pin(async move {
                let mut grpc = Grpc::new(tonic_prost::ProstCodec::default());
                Ok(grpc.unary(Validate, request).await)
            })
        } else {
            Box::pin(ready(Ok(
                Status::unimplemented("the stand-in answers ValidateGame only").into_http()
            )))
        }
    }
}

/// The `ValidateGame` handler.
struct Validate;

impl UnaryService<proto::ValidateGameRequest> for Validate {
    type Response = proto::ValidateGameResponse;
    type Future = Ready<Result<Response<proto::ValidateGameResponse>, Status>>;

    fn call(&mut self, request: Request<proto::ValidateGameRequest>) -> Self::Future {
        ready(validate(request.into_inner()).map(Response::new))
    }
}

/// A game replayed by shakmaty, with the hashes the repetition rules need.
struct Game {
    pos: Chess,
    /// The positions since the last capture or pawn move.
    history: Vec<u64>,
    repetitions: usize,
}

impl Game {
    fn hash(pos: &Chess) -> u64 {
        pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    /// Plays `text`, returning the ply; `None` when it is not a legal move.
    fn play(&mut self, text: &str) -> Option<proto::Ply> {
        let bytes = text.as_bytes();
        let uci_syntax = matches!(bytes, [_, b'1'..=b'8', _, b'1'..=b'8', ..]) && bytes.len() <= 5;
        let m = match UciMove::from_ascii(bytes) {
            Ok(uci) if uci_syntax => uci.to_move(&self.pos).ok()?,
            _ => SanPlus::from_ascii(bytes).ok()?.san.to_move(&self.pos).ok()?,
        };
        let uci = m.to_uci(CastlingMode::Standard).to_string();
        let san = SanPlus::from_move_and_play_unchecked(&mut self.pos, m).to_string();
        if self.pos.halfmoves() == 0 {
            self.history.clear();
        }
        let hash = Self::hash(&self.pos);
        self.repetitions =
            1 + self.history.iter().rev().skip(1).step_by(2).filter(|&&h| h == hash).count();
        self.history.push(hash);
        let canonical_input = san == text || uci == text;
        Some(proto::Ply { san, uci, canonical_input, ..Default::default() })
    }

    /// How the game stands: result and termination, or the claimable draws.
    fn outcome(&self) -> proto::Outcome {
        use proto::{GameResult, Termination};
        let pos = &self.pos;
        let ended = |result: GameResult, termination: Termination| (result, termination);
        let (result, termination) = if pos.is_checkmate() {
            let result =
                if pos.turn().is_white() { GameResult::BlackWins } else { GameResult::WhiteWins };
            ended(result, Termination::Checkmate)
        } else if pos.is_stalemate() {
            ended(GameResult::Draw, Termination::Stalemate)
        } else if pos.is_insufficient_material() {
            ended(GameResult::Draw, Termination::InsufficientMaterial)
        } else if self.repetitions >= 5 {
            ended(GameResult::Draw, Termination::FivefoldRepetition)
        } else if pos.halfmoves() >= 150 {
            ended(GameResult::Draw, Termination::SeventyFiveMoveRule)
        } else {
            let mut claimable_draws = Vec::new();
            if pos.halfmoves() >= 100 {
                claimable_draws.push(proto::ClaimableDraw::FiftyMoveRule as i32);
            }
            if self.repetitions >= 3 {
                claimable_draws.push(proto::ClaimableDraw::ThreefoldRepetition as i32);
            }
            return proto::Outcome {
                result: GameResult::Ongoing as i32,
                claimable_draws,
                pgn_result: "*".into(),
                ..Default::default()
            };
        };
        let pgn_result = match result {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            _ => "1/2-1/2",
        };
        proto::Outcome {
            result: result as i32,
            termination: termination as i32,
            pgn_result: pgn_result.into(),
            ..Default::default()
        }
    }

    /// Whether a rule has ended the game.
    fn is_over(&self) -> bool {
        self.outcome().termination != proto::Termination::Unspecified as i32
    }

    /// The final position, with its legal moves unless `skip_legal_moves`
    /// or the game is over.
    fn position(&self, skip_legal_moves: bool) -> proto::Position {
        let pos = &self.pos;
        let legal_moves = if skip_legal_moves || self.is_over() {
            Vec::new()
        } else {
            pos.legal_moves()
                .iter()
                .map(|&m| proto::LegalMove {
                    uci: m.to_uci(CastlingMode::Standard).to_string(),
                    san: SanPlus::from_move(pos.clone(), m).to_string(),
                    claimable_draws: Vec::new(),
                })
                .collect()
        };
        let turn = if pos.turn().is_white() { proto::Color::White } else { proto::Color::Black };
        proto::Position {
            fen: Fen::from_position(pos, EnPassantMode::Always).to_string(),
            turn: turn as i32,
            in_check: pos.is_check(),
            halfmove_clock: pos.halfmoves(),
            fullmove_number: pos.fullmoves().get(),
            legal_moves,
            ..Default::default()
        }
    }
}

/// The answer to one `ValidateGame` request.
fn validate(request: proto::ValidateGameRequest) -> Result<proto::ValidateGameResponse, Status> {
    let pos = if request.fen.is_empty() {
        Chess::default()
    } else {
        let fen = Fen::from_ascii(request.fen.as_bytes())
            .map_err(|e| Status::invalid_argument(format!("fen: {e}")))?;
        fen.into_position(CastlingMode::Standard)
            .map_err(|e| Status::invalid_argument(format!("fen: {e}")))?
    };
    let history = vec![Game::hash(&pos)];
    let mut game = Game { pos, history, repetitions: 1 };
    let mut plies = Vec::with_capacity(request.moves.len());
    let mut illegal_move = None;
    for (index, text) in request.moves.iter().enumerate() {
        let over = game.is_over();
        match game.play(text).filter(|_| !over) {
            Some(ply) => plies.push(ply),
            None => {
                illegal_move = Some(proto::IllegalMove {
                    index: index as u32,
                    r#move: text.clone(),
                    message: format!("{text} is not a legal move here"),
                    ..Default::default()
                });
                break;
            }
        }
    }
    Ok(proto::ValidateGameResponse {
        plies,
        illegal_move,
        position: Some(game.position(request.skip_legal_moves)),
        outcome: Some(game.outcome()),
        // The stand-in says nothing of what the game was, and stops at
        // the first illegal move.
        analysis: None,
        rulings: Vec::new(),
    })
}
