//! `arbiter pgn --remote`: the games read here, their rules work sent to a
//! running Arbiter (one replica, or a Kubernetes Service in front of many)
//! over `ValidateGames` streams, `--concurrency` of them at once, each on a
//! connection of its own so that a Service balances them across replicas.
//!
//! Each game becomes one request for its mainline and one per variation
//! (the mainline up to the move it replaces, then its moves, answered from
//! `plies_from`), so that the answers give back exactly what the local check
//! finds: the same verdicts, the same output. A stream that fails with a
//! status the documented retry policy retries (UNAVAILABLE,
//! RESOURCE_EXHAUSTED, and the UNKNOWN, CANCELLED or INTERNAL a client's own
//! transport makes of a closed connection) is opened again after a backoff
//! (50 ms doubling to 1 s, 4 attempts in all), and the games it had not
//! answered are sent again. A game the server will not take (more moves
//! than its limit) is checked here.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{Mutex, mpsc, oneshot};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic::{Code, Status};

use crate::proto::rules_service_client::RulesServiceClient;
use crate::proto::{self, validate_games_response};
use arbiter_chess::{
    CastlingMode, Color, GamePosition, GameResult, IllegalMove, IllegalReason, Outcome, Position,
    SanString, Termination, VariantPosition,
};
use arbiter_pgn::{
    CheckOptions, GameReport, Line, PgnGame, RawGame, VariationError, VariationReason, Verdict,
    check_parsed_with, clock_report, flagged_side, game_analysis, parse_game, result_consistent,
    start_position,
};

/// Attempts of a stream before its games are given up (the retry policy's
/// `maxAttempts`).
const MAX_ATTEMPTS: u32 = 4;
/// Games one stream has sent and not yet had answered.
const STREAM_GAMES_IN_FLIGHT: usize = 16;

/// Where and how to connect.
#[derive(Clone, Debug)]
pub struct Remote {
    /// `HOST:PORT`.
    pub addr: String,
    /// Streams (and connections) at once.
    pub concurrency: usize,
    /// PEM roots that sign the server's certificate: TLS when set.
    pub tls_ca: Option<PathBuf>,
    /// PEM certificate and key presented to the server (mutual TLS).
    pub tls_identity: Option<(PathBuf, PathBuf)>,
    /// The name the server's certificate must carry (default: the host).
    pub tls_domain: Option<String>,
}

impl Remote {
    /// The endpoint to connect each stream to.
    ///
    /// # Errors
    ///
    /// A message when a TLS file cannot be read or the address is invalid.
    fn endpoint(&self) -> Result<Endpoint, String> {
        let read = |path: &PathBuf| {
            std::fs::read(path).map_err(|err| format!("cannot read {}: {err}", path.display()))
        };
        let scheme = if self.tls_ca.is_some() { "https" } else { "http" };
        let mut endpoint = Endpoint::from_shared(format!("{scheme}://{}", self.addr))
            .map_err(|err| format!("invalid --remote {:?}: {err}", self.addr))?
            .connect_timeout(Duration::from_secs(10))
            .http2_keep_alive_interval(Duration::from_secs(30));
        if let Some(ca) = &self.tls_ca {
            let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(ca)?));
            if let Some((cert, key)) = &self.tls_identity {
                tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
            }
            if let Some(domain) = &self.tls_domain {
                tls = tls.domain_name(domain.clone());
            }
            endpoint = endpoint.tls_config(tls).map_err(|err| format!("TLS: {err}"))?;
        }
        Ok(endpoint)
    }
}

/// A game's answers, one per request, or why there are none.
type Answers = Result<Vec<validate_games_response::Result>, Status>;

/// A game to send: its requests, and where to say what they came to.
struct Work {
    requests: Vec<proto::ValidateGameRequest>,
    reply: oneshot::Sender<Answers>,
}

/// One variation to check: where it is and the request that checks it.
struct Planned {
    /// Its path, as `VariationError::path` names it.
    path: Vec<u32>,
    /// Moves of the request before the variation's first.
    offset: usize,
}

/// A game read and planned, waiting for its answers.
pub struct Job {
    index: usize,
    line: usize,
    game: PgnGame,
    /// The start position, or why the game cannot be checked.
    start: Result<GamePosition, arbiter_pgn::GameError>,
    /// The mainline's request first, then one per variation, depth first.
    plan: Vec<Planned>,
    requests: Vec<proto::ValidateGameRequest>,
    /// The budgets of a check made here, when the server's answers do not
    /// fit.
    checking: CheckOptions,
}

/// A move's text as the local check takes it.
fn move_text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("\u{fffd}")
}

/// Plans the requests of `line` (after the `prefix` moves) and its
/// variations.
fn plan_line(
    text: &[u8],
    line: &Line,
    prefix: &mut Vec<String>,
    path: &mut Vec<u32>,
    base: &proto::ValidateGameRequest,
    job: &mut (Vec<Planned>, Vec<proto::ValidateGameRequest>),
) {
    let offset = prefix.len();
    let mut moves = prefix.clone();
    moves.extend(line.moves.iter().map(|m| move_text(m.text.bytes(text)).to_owned()));
    job.0.push(Planned { path: path.clone(), offset });
    job.1.push(proto::ValidateGameRequest {
        moves,
        plies_from: u32::try_from(offset).unwrap_or(u32::MAX),
        ..base.clone()
    });
    for (ply, node) in line.moves.iter().enumerate() {
        for (number, variation) in node.variations().iter().enumerate() {
            path.extend([ply as u32, number as u32]);
            plan_line(text, variation, prefix, path, base, job);
            path.truncate(path.len() - 2);
        }
        prefix.push(move_text(node.text.bytes(text)).to_owned());
    }
    prefix.truncate(offset);
}

/// Reads a game and plans its requests; should the game be checked here
/// after all, it gets `checking`.
pub fn plan(raw: RawGame, checking: CheckOptions) -> Result<Job, Box<GameReport>> {
    let (index, line, game) = raw.into_game();
    let game = match game {
        Ok(game) => game,
        Err(bytes) => {
            let verdict = Err(arbiter_pgn::GameError::TooLarge { bytes });
            return Err(Box::new(GameReport { index, line, game: None, verdict }));
        }
    };
    let start = start_position(&game);
    let mut job = (Vec::new(), Vec::new());
    if let Ok(start) = &start {
        let at_start = match start {
            GamePosition::Chess(pos) => *pos == Position::default(),
            GamePosition::Variant(pos) => *pos == VariantPosition::new(pos.variant()),
        };
        let base = proto::ValidateGameRequest {
            fen: if at_start { String::new() } else { start.fen().to_string() },
            variant: proto::Variant::from(start.rules()) as i32,
            skip_legal_moves: true,
            ..Default::default()
        };
        plan_line(&game.text, &game.mainline, &mut Vec::new(), &mut Vec::new(), &base, &mut job);
        // A game lost on time ends with the flag fall, as a local check
        // ends it: the server applies it to the mainline when every move
        // is legal.
        if let (Some(flagged), Some(mainline)) =
            (flagged_side(&game, start.turn()), job.1.first_mut())
        {
            mainline.flagged = match flagged {
                Color::White => proto::Color::White,
                Color::Black => proto::Color::Black,
            } as i32;
        }
    }
    let (plan, requests) = job;
    Ok(Job { index, line, game, start, plan, requests, checking })
}

fn illegal_reason(reason: i32) -> Option<IllegalReason> {
    use proto::IllegalMoveReason as P;
    Some(match P::try_from(reason).ok()? {
        P::Unspecified => return None,
        P::Unparseable => IllegalReason::Unparseable,
        P::NoPiece => IllegalReason::NoPiece,
        P::CannotMoveThatWay => IllegalReason::CannotMoveThatWay,
        P::PathBlocked => IllegalReason::PathBlocked,
        P::CaptureOwnPiece => IllegalReason::CaptureOwnPiece,
        P::KingInCheck => IllegalReason::KingInCheck,
        P::PinnedPiece => IllegalReason::PinnedPiece,
        P::KingIntoCheck => IllegalReason::KingIntoCheck,
        P::CastlingWithoutRight => IllegalReason::CastlingWithoutRight,
        P::CastlingBlocked => IllegalReason::CastlingBlocked,
        P::CastlingOutOfCheck => IllegalReason::CastlingOutOfCheck,
        P::CastlingThroughCheck => IllegalReason::CastlingThroughCheck,
        P::CastlingIntoCheck => IllegalReason::CastlingIntoCheck,
        P::EnPassantUnavailable => IllegalReason::EnPassantUnavailable,
        P::PromotionMissing => IllegalReason::PromotionMissing,
        P::InvalidPromotion => IllegalReason::InvalidPromotion,
        P::UnexpectedPromotion => IllegalReason::UnexpectedPromotion,
        P::AmbiguousSan => IllegalReason::AmbiguousSan,
        P::NonCanonical => IllegalReason::NonCanonical,
        P::GameOver => IllegalReason::GameOver,
        P::FlagFell => IllegalReason::FlagFell,
        P::InvalidDrop => IllegalReason::InvalidDrop,
        P::CaptureRequired => IllegalReason::CaptureRequired,
        P::ExplodesOwnKing => IllegalReason::ExplodesOwnKing,
        P::GivesCheck => IllegalReason::GivesCheck,
    })
}

fn outcome(outcome: &proto::Outcome) -> Option<Outcome> {
    let proto::Outcome { result, termination, claimable_draws, pgn_result: _, unproven } = outcome;
    let result = match proto::GameResult::try_from(*result).ok()? {
        proto::GameResult::Unspecified => return None,
        proto::GameResult::Ongoing => GameResult::Ongoing,
        proto::GameResult::WhiteWins => GameResult::WhiteWins,
        proto::GameResult::BlackWins => GameResult::BlackWins,
        proto::GameResult::Draw => GameResult::Draw,
    };
    let termination = match proto::Termination::try_from(*termination).ok()? {
        proto::Termination::Unspecified => None,
        proto::Termination::Checkmate => Some(Termination::Checkmate),
        proto::Termination::Stalemate => Some(Termination::Stalemate),
        proto::Termination::InsufficientMaterial => Some(Termination::InsufficientMaterial),
        proto::Termination::SeventyFiveMoveRule => Some(Termination::SeventyFiveMoveRule),
        proto::Termination::FivefoldRepetition => Some(Termination::FivefoldRepetition),
        proto::Termination::DeadPosition => Some(Termination::DeadPosition),
        proto::Termination::Timeout => Some(Termination::Timeout),
        proto::Termination::TimeoutVsUnwinnable => Some(Termination::TimeoutVsUnwinnable),
        proto::Termination::IllegalMoves => Some(Termination::IllegalMoves),
        proto::Termination::IllegalMovesVsUnwinnable => Some(Termination::IllegalMovesVsUnwinnable),
        proto::Termination::Explosion => Some(Termination::Explosion),
        proto::Termination::KingOfTheHill => Some(Termination::KingOfTheHill),
        proto::Termination::ThirdCheck => Some(Termination::ThirdCheck),
        proto::Termination::Race => Some(Termination::Race),
        proto::Termination::VariantWin => Some(Termination::VariantWin),
    };
    let claims = |draw: proto::ClaimableDraw| claimable_draws.contains(&(draw as i32));
    Some(Outcome {
        result,
        termination,
        fifty_move_claimable: claims(proto::ClaimableDraw::FiftyMoveRule),
        threefold_claimable: claims(proto::ClaimableDraw::ThreefoldRepetition),
        unproven: *unproven,
    })
}

fn illegal_move(illegal: &proto::IllegalMove, offset: usize) -> Option<IllegalMove> {
    let proto::IllegalMove { index, r#move, reason, message } = illegal;
    Some(IllegalMove {
        index: (*index as usize).checked_sub(offset)?,
        text: r#move.clone(),
        reason: illegal_reason(*reason)?,
        message: message.clone(),
    })
}

/// Fills in the SAN of `line` and its variations from their answers
/// (`answers[next..]`, in plan order), and collects the variations' errors
/// in the order the local check finds them. Returns `None` when an answer
/// does not fit the game.
fn fill_line(
    line: &mut Line,
    answers: &[proto::ValidateGameResponse],
    plan: &[Planned],
    next: &mut usize,
    errors: &mut Vec<VariationError>,
    own_errors: bool,
) -> Option<()> {
    let here = *next;
    *next += 1;
    let (answer, planned) = (answers.get(here)?, plan.get(here)?);
    if answer.plies.len() > line.moves.len() {
        return None;
    }
    for (node, ply) in line.moves.iter_mut().zip(&answer.plies) {
        node.san = Some(SanString::from_text(&ply.san)?);
    }
    let illegal = match &answer.illegal_move {
        Some(illegal) => Some(illegal_move(illegal, planned.offset)?),
        None => None,
    };
    for ply in 0..line.moves.len() {
        if let Some(illegal) = illegal.as_ref().filter(|m| m.index == ply) {
            if own_errors {
                errors.push(VariationError {
                    path: planned.path.clone(),
                    index: ply,
                    text: illegal.text.clone(),
                    reason: VariationReason::Illegal(illegal.reason),
                    message: illegal.message.clone(),
                });
            }
            // Nothing after an illegal move is checked, side lines
            // included: their answers are skipped.
            *next += count_variations(&line.moves[ply..]);
            return Some(());
        }
        for variation in line.moves[ply].variations_mut() {
            fill_line(variation, answers, plan, next, errors, true)?;
        }
    }
    Some(())
}

/// The variations at every depth below `moves`.
fn count_variations(moves: &[arbiter_pgn::MoveNode]) -> usize {
    moves.iter().flat_map(|m| m.variations()).map(|line| 1 + count_variations(&line.moves)).sum()
}

/// The report of a job from its answers; a game whose answers do not fit
/// (the server refused a request, say over its moves limit) is checked
/// here instead.
pub fn report(job: Job, answers: Vec<validate_games_response::Result>) -> GameReport {
    let Job { index, line, mut game, start, plan, requests: _, checking } = job;
    let start = match start {
        Ok(start) => start,
        Err(error) => return GameReport { index, line, game: Some(game), verdict: Err(error) },
    };
    let answered: Option<Vec<proto::ValidateGameResponse>> = answers
        .into_iter()
        .map(|answer| match answer {
            validate_games_response::Result::Game(game) => Some(game),
            validate_games_response::Result::Error(_) => None,
        })
        .collect();
    let verdict =
        answered.and_then(|answers| verdict(&mut game, &start, &answers, &plan, checking));
    let verdict = match verdict {
        Some(verdict) => Ok(verdict),
        None => {
            // The answers' SAN may be half filled in: start again.
            let mut fresh = parse_game(std::mem::take(&mut game.text));
            let verdict = check_parsed_with(&mut fresh, true, checking);
            game = fresh;
            verdict
        }
    };
    GameReport { index, line, game: Some(game), verdict }
}

fn verdict(
    game: &mut PgnGame,
    start: &GamePosition,
    answers: &[proto::ValidateGameResponse],
    plan: &[Planned],
    checking: CheckOptions,
) -> Option<Verdict> {
    let main = answers.first()?;
    let mut variation_errors = game.syntax_errors.clone();
    let mut next = 0;
    fill_line(&mut game.mainline, answers, plan, &mut next, &mut variation_errors, false)?;
    let illegal_move = match &main.illegal_move {
        Some(illegal) => Some(illegal_move(illegal, 0)?),
        None => None,
    };
    let fen = &main.position.as_ref()?.fen;
    let position = match start {
        GamePosition::Chess(start) => {
            GamePosition::Chess(Position::from_fen(fen, start.castling_mode()).ok()?)
        }
        GamePosition::Variant(start) => GamePosition::Variant(
            VariantPosition::from_fen(fen, start.variant(), CastlingMode::Standard).ok()?,
        ),
    };
    let outcome = outcome(main.outcome.as_ref()?)?;
    let result_tag = game.tag("Result").map(std::borrow::Cow::into_owned);
    let result_consistent = result_consistent(result_tag.as_deref(), game.result_token, &outcome);
    // The clock record is read here, as a local check reads it.
    let plies = main.plies.len();
    let clock = checking
        .read_clocks
        .then(|| clock_report(game, plies, start.turn(), checking.clock_tolerance_ms))
        .flatten();
    let mut verdict = Verdict {
        plies,
        illegal_move,
        variation_errors,
        position,
        outcome,
        result_tag,
        result_consistent,
        clock,
        analysis: None,
    };
    // What the game was is found here, from the moves the server
    // accepted: its time use reads the PGN's clock record, which a
    // `ValidateGame` request cannot carry when a time is unknown, and
    // the positions its moves were played from.
    if checking.include_analysis {
        verdict.analysis = game_analysis(game, &verdict).map(Box::new);
    }
    Some(verdict)
}

/// Whether a stream that failed with `status` is opened again: the retry
/// policy's codes, and what tonic's transport makes of a closed connection.
fn retryable(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::ResourceExhausted
            | Code::Unknown
            | Code::Cancelled
            | Code::Internal
    )
}

/// The wait before attempt `failures + 1`.
fn backoff(failures: u32) -> Duration {
    Duration::from_millis(50u64 << failures.min(5).saturating_sub(1)).min(Duration::from_secs(1))
}

/// The answers of the front game, while they come in.
struct Pending {
    work: Work,
    answers: Vec<validate_games_response::Result>,
}

fn requests_of(n: u64, work: &Work) -> impl Iterator<Item = proto::ValidateGamesRequest> + '_ {
    work.requests.iter().enumerate().map(move |(i, game)| proto::ValidateGamesRequest {
        id: format!("{n}.{i}"),
        game: Some(game.clone()),
    })
}

/// The items of a channel as a stream.
pub fn receiver_stream<T: Send>(receive: mpsc::Receiver<T>) -> impl futures_util::Stream<Item = T> {
    futures_util::stream::unfold(receive, |mut receive| async move {
        receive.recv().await.map(|item| (item, receive))
    })
}

/// One stream's worker: takes games from `queue`, sends them, hands their
/// answers back; opens the stream again on a retryable failure.
async fn stream_worker(
    endpoint: Endpoint,
    queue: Arc<Mutex<mpsc::Receiver<Work>>>,
    last_error: Arc<std::sync::Mutex<Option<Status>>>,
) {
    let mut pending: VecDeque<Pending> = VecDeque::new();
    let mut failures = 0u32;
    let mut queue_open = true;
    loop {
        if !queue_open && pending.is_empty() {
            return;
        }
        let mut answered = 0u64;
        let attempt = run_stream(&endpoint, &queue, &mut pending, &mut queue_open, &mut answered);
        let Err(status) = attempt.await else { continue };
        // A game answered since the last failure starts the count again.
        failures = if answered > 0 { 1 } else { failures + 1 };
        if !retryable(&status) || failures >= MAX_ATTEMPTS {
            if let Ok(mut last) = last_error.lock() {
                *last = Some(status.clone());
            }
            for p in pending.drain(..) {
                let _ = p.work.reply.send(Err(status.clone()));
            }
            // The other streams go on with the rest, if they can.
            return;
        }
        for p in &mut pending {
            p.answers.clear();
        }
        tokio::time::sleep(backoff(failures)).await;
    }
}

/// One attempt of a stream: sends the pending games again, then new ones,
/// until the queue is empty and every game answered, or the stream fails.
/// Answers come in request order, so each belongs to the oldest game.
async fn run_stream(
    endpoint: &Endpoint,
    queue: &Mutex<mpsc::Receiver<Work>>,
    pending: &mut VecDeque<Pending>,
    queue_open: &mut bool,
    answered: &mut u64,
) -> Result<(), Status> {
    let channel = endpoint
        .connect()
        .await
        .map_err(|err| Status::unavailable(format!("cannot connect: {err}")))?;
    let mut client = RulesServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    let (send, receive) = mpsc::channel::<proto::ValidateGamesRequest>(64);
    let again: Vec<proto::ValidateGamesRequest> = pending
        .iter()
        .enumerate()
        .flat_map(|(n, p)| requests_of(n as u64, &p.work).collect::<Vec<_>>())
        .collect();
    let mut sent = pending.len() as u64;
    let requests = futures_util::stream::iter(again).chain(receiver_stream(receive));
    // With no games left to take, the requests end after the ones sent
    // again.
    let mut send = queue_open.then_some(send);
    let mut answers = client.validate_games(requests).await?.into_inner();
    loop {
        let room = send.is_some() && pending.len() < STREAM_GAMES_IN_FLIGHT;
        tokio::select! {
            work = async { queue.lock().await.recv().await }, if room => match (work, &send) {
                (Some(work), Some(sender)) => {
                    for request in requests_of(sent, &work) {
                        sender.send(request).await.map_err(|_| {
                            Status::unavailable("the stream closed while sending")
                        })?;
                    }
                    sent += 1;
                    pending.push_back(Pending { work, answers: Vec::new() });
                }
                _ => {
                    *queue_open = false;
                    // Closing the requests ends the stream after the last
                    // answer.
                    send = None;
                    if pending.is_empty() {
                        return Ok(());
                    }
                }
            },
            answer = answers.next() => match answer {
                Some(Ok(proto::ValidateGamesResponse { id: _, result })) => {
                    let (Some(front), Some(result)) = (pending.front_mut(), result) else {
                        return Err(Status::internal("an answer that fits no game"));
                    };
                    front.answers.push(result);
                    if front.answers.len() == front.work.requests.len()
                        && let Some(done) = pending.pop_front()
                    {
                        *answered += 1;
                        let _ = done.work.reply.send(Ok(done.answers));
                    }
                }
                Some(Err(status)) => return Err(status),
                None if pending.is_empty() && send.is_none() => return Ok(()),
                None => return Err(Status::unavailable("the stream ended before its answers")),
            },
        }
    }
}

/// The connections: `concurrency` streams sharing one queue of games.
pub struct Pool {
    queue: mpsc::Sender<Work>,
    /// What ended the last stream that gave up.
    last_error: Arc<std::sync::Mutex<Option<Status>>>,
    workers: Vec<tokio::task::JoinHandle<()>>,
}

impl Pool {
    /// Starts the workers (on the current runtime).
    ///
    /// # Errors
    ///
    /// A message when the endpoint cannot be made (TLS files, address).
    pub fn start(remote: &Remote) -> Result<Pool, String> {
        let endpoint = remote.endpoint()?;
        let (queue, receive) = mpsc::channel(remote.concurrency.max(1));
        let receive = Arc::new(Mutex::new(receive));
        let last_error = Arc::new(std::sync::Mutex::new(None));
        let workers = (0..remote.concurrency.max(1))
            .map(|_| {
                let worker =
                    stream_worker(endpoint.clone(), Arc::clone(&receive), Arc::clone(&last_error));
                tokio::spawn(worker)
            })
            .collect();
        Ok(Pool { queue, last_error, workers })
    }

    /// Checks a planned game on the server.
    ///
    /// # Errors
    ///
    /// The status that ended the last attempt, when every attempt failed.
    pub async fn check(&self, job: Job) -> Result<GameReport, Status> {
        if job.requests.is_empty() {
            // Unreadable here already: nothing to send.
            return Ok(report(job, Vec::new()));
        }
        let (reply, answer) = oneshot::channel();
        let work = Work { requests: job.requests.clone(), reply };
        let gone = || {
            let last = self.last_error.lock().ok().and_then(|last| last.clone());
            last.unwrap_or_else(|| Status::unavailable("every stream to the server has failed"))
        };
        self.queue.send(work).await.map_err(|_| gone())?;
        let answers = answer.await.map_err(|_| gone())??;
        Ok(report(job, answers))
    }

    /// Closes the queue and waits for the workers.
    pub async fn close(self) {
        drop(self.queue);
        for worker in self.workers {
            let _ = worker.await;
        }
    }
}
