//! The `arbiter.v1.RulesService` implementation: every RPC is a pure
//! function of its request. CPU-heavy work (long games, perft) runs on the
//! blocking pool so that the async workers keep serving.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::admission::Admitted;
use crate::cache::{self, CachedPrefix, ReplayCache};
use crate::move_texts::MoveTexts;
use crate::proto::{self, rules_service_server::RulesService};
use crate::telemetry::GameSummary;
use crate::telemetry::prometheus::{self, StreamGame};
use arbiter_chess::{
    ClockRecord, GameAnalysis, GamePosition, IllegalMoves, Replay, ReplayOptions, ReplayTail,
    Replayer, TimeControl, played_times, replay_ruled, worth_a_full_look,
};
use arbiter_pgn::{
    CheckOptions, RawGame, ReaderOptions, Splitter, check_game_with, may_analyse_fully,
    play_read_game,
};

use super::convert::{GameRequest, LegalMovesQuery, PerftQuery};
use super::{Limits, RequestError, wire};
use crate::answer::position_message;

/// The service, with its limits and the replay cache. Calls in flight are
/// bounded outside it, by [`crate::admission`].
#[derive(Clone, Debug)]
pub struct Handlers {
    limits: Limits,
    cache: Option<Arc<ReplayCache>>,
}

impl Handlers {
    /// A service applying `limits`, replaying through `cache` if there is one.
    pub fn new(limits: Limits, cache: Option<ReplayCache>) -> Handlers {
        Handlers { limits, cache: cache.map(Arc::new) }
    }

    /// The replay cache it shares with its clones, if it has one.
    pub fn cache(&self) -> Option<&Arc<ReplayCache>> {
        self.cache.as_ref()
    }
}

/// Runs `work` on the blocking pool when `heavy`, else right here.
async fn run<T: Send + 'static>(
    heavy: bool,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Status> {
    if heavy {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|err| Status::internal(format!("worker failed: {err}")))
    } else {
        Ok(work())
    }
}

/// Replays `game` with `options`, through the cache when there is one,
/// counts it in the domain metrics and makes the answer with `respond`. The
/// cache lookup is cheap and done here; the moves left to play after it,
/// and whether the full unwinnability analysis will run, decide whether
/// the rest runs on the blocking pool, for every rule set alike.
///
/// A game whose request asks what it was (`include_analysis`) bypasses the
/// cache: the analysis plays the accepted moves again from the start, and
/// a cached prefix keeps no such list once it is extended in place. Such a
/// call replays in full, and leaves the cache as it was; a call without it
/// does no work more than before (one `bool` tested).
async fn replay_then<T: Send + 'static>(
    game: GameRequest,
    options: ReplayOptions,
    cache: Option<Arc<ReplayCache>>,
    limits: &Limits,
    respond: impl FnOnce(Replay, Option<GameAnalysis>) -> T + Send + 'static,
) -> Result<(T, GameSummary), Status> {
    let GameRequest { start, mut moves, options: _, clock, ply_clocks: _, analysis: analysed } =
        game;
    let sent = moves.len();
    // What the analysis needs: the start, and the clock record's times and
    // control.
    let wanted = analysed.then(|| {
        prometheus::count_analysis("game");
        let times: Vec<Option<u64>> = clock
            .as_ref()
            .map(|record| record.move_times_ms().iter().copied().map(Some).collect())
            .unwrap_or_default();
        (start.clone(), times, clock.as_ref().map(|record| record.control().clone()))
    });
    if options.illegal_moves != IllegalMoves::Stop {
        return run(true, move || rule_then(start, moves, options, clock, wanted, respond)).await;
    }
    let cache = if analysed { None } else { cache };
    // A clock record decides the flag fall, and ends the moves to play
    // before a move made after it: that move's text is kept for the answer.
    let clock = clock.and_then(|record| Some((record.run(start.turn())?, record)));
    let mut options = options;
    let mut late = None;
    if let Some((run, _)) = &clock {
        options.flagged = run.flagged();
        let played = run.plies(sent);
        if played < sent {
            late = Some(moves.get(played).to_owned());
            moves.truncate(played);
        }
    }
    let prefix = cache.as_ref().map(|cache| cache.resume(start.clone(), &moves, &options));
    let remaining = moves.len() - prefix.as_ref().map_or(0, CachedPrefix::plies_done);
    // A flag fall, reported verdicts and a start position past the wide
    // gate get the full unwinnability analysis, up to about a second (any
    // replay may take longer with budgets above the defaults): not on an
    // async worker.
    let analysis = match &start {
        GamePosition::Chess(start) => {
            options.flagged.is_some()
                || options.winnability
                || worth_a_full_look(start)
                || limits.raised_analysis()
        }
        // A variant's dead positions are its insufficient material.
        GamePosition::Variant(_) => false,
    };
    let answer = move |played: PlayedMoves| {
        let analysis = wanted
            .and_then(|(start, times, control)| played.analysis(&start, &times, control.as_ref()));
        let mut replay = played.answer(&options);
        if let Some((run, record)) = clock {
            replay.complete(run, &record, sent, late.as_deref(), &options);
            prometheus::count_clocked_game();
        }
        let variant = proto::Variant::from(replay.position.rules());
        let (illegal, outcome) = (replay.illegal_move.as_ref(), &replay.outcome);
        let report = GameSummary::new(options.notation, variant, sent, illegal, outcome);
        report.count();
        (respond(replay, analysis), report)
    };
    let play = move || PlayedMoves::play(cache, prefix, start, moves, &options);
    if remaining > limits.blocking_moves || analysis {
        return run(true, move || answer(play())).await;
    }
    // A short game is played here; the final position's full look, which
    // a game ending in a blocked pawn structure may make long, is not.
    let played = play();
    run(played.final_look_pending(), move || answer(played)).await
}

/// [`replay_then`] for a game whose completed illegal moves are ruled on
/// ([`IllegalMoves::Fide`], [`IllegalMoves::Fide2009`]): replayed whole,
/// not through the cache (whose kept replays stop at an illegal move), off
/// the async workers (a ruling at the count analyses who can still mate).
fn rule_then<T>(
    start: GamePosition,
    moves: MoveTexts,
    options: ReplayOptions,
    clock: Option<ClockRecord>,
    wanted: Option<(GamePosition, Vec<Option<u64>>, Option<TimeControl>)>,
    respond: impl FnOnce(Replay, Option<GameAnalysis>) -> T,
) -> (T, GameSummary) {
    let sent = moves.len();
    let (replay, played) = replay_ruled(start, &moves.tail(0), &options, clock.as_ref());
    let analysis = wanted.map(|(start, times, control)| {
        let times = match &clock {
            Some(record) => played_times(&replay.rulings, record.move_times_ms()),
            None => times,
        };
        GameAnalysis::of_replay(&start, &played, &times, control.as_ref())
    });
    if replay.clocks.is_some() {
        prometheus::count_clocked_game();
    }
    prometheus::count_rulings(&replay.rulings);
    let variant = proto::Variant::from(replay.position.rules());
    let (illegal, outcome) = (replay.illegal_move.as_ref(), &replay.outcome);
    let report = GameSummary::new(options.notation, variant, sent, illegal, outcome);
    report.count();
    (respond(replay, analysis), report)
}

/// A game's moves played, through the cache or not, before the final
/// position's look and the answer.
// Held for one call; boxing the cache's list would cost an allocation per
// cached call.
#[allow(clippy::large_enum_variant)]
enum PlayedMoves {
    Cached(Arc<ReplayCache>, cache::PlayedList),
    Fresh(Box<(Replayer, ReplayTail)>),
}

impl PlayedMoves {
    /// Plays `moves` from `start`, resuming from `prefix` with the cache.
    fn play(
        cache: Option<Arc<ReplayCache>>,
        prefix: Option<CachedPrefix>,
        start: GamePosition,
        moves: MoveTexts,
        options: &ReplayOptions,
    ) -> PlayedMoves {
        match (cache, prefix) {
            (Some(cache), Some(prefix)) => {
                let played = cache.play(prefix, moves, options);
                PlayedMoves::Cached(cache, played)
            }
            _ => {
                let mut replayer = Replayer::new(start, options.analysis);
                let tail = replayer.extend(&moves.tail(0), options);
                PlayedMoves::Fresh(Box::new((replayer, tail)))
            }
        }
    }

    /// What the game of the moves played was; `None` from the cache,
    /// which an analysed call bypasses.
    fn analysis(
        &self,
        start: &GamePosition,
        times: &[Option<u64>],
        control: Option<&TimeControl>,
    ) -> Option<GameAnalysis> {
        match self {
            PlayedMoves::Cached(..) => None,
            PlayedMoves::Fresh(fresh) => {
                Some(GameAnalysis::of_replay(start, &fresh.0, times, control))
            }
        }
    }

    /// Whether the answer will run the final position's full look.
    fn final_look_pending(&self) -> bool {
        match self {
            PlayedMoves::Cached(_, played) => played.final_look_pending(),
            PlayedMoves::Fresh(fresh) => fresh.0.final_look_pending(),
        }
    }

    /// The answer, the final look included.
    fn answer(self, options: &ReplayOptions) -> Replay {
        match self {
            PlayedMoves::Cached(cache, played) => cache.answer(played, options),
            PlayedMoves::Fresh(fresh) => {
                let (replayer, tail) = *fresh;
                replayer.answer(tail, options)
            }
        }
    }
}

/// The answer to one game of a PGN text, its clock findings counted (with
/// what the game was when the check was asked for it).
fn pgn_answer(report: &arbiter_pgn::GameReport) -> proto::ValidatePgnResponse {
    if let Ok(verdict) = &report.verdict
        && let Some(clock) = &verdict.clock
    {
        prometheus::count_clock_findings(clock);
    }
    super::pgn::response(report)
}

/// The answer to a `ValidateGame` call, or to a stream's game at
/// `prefix` (`game.`), each ply's clock in `form`. A ply's remaining time
/// past `uint32` cannot be written as `Ply.clock_ms`: INVALID_CLOCK, on
/// the request's `clock.move_times_ms`, rather than a wrong time.
fn validate_response(
    form: wire::PlyClockForm,
    prefix: &'static str,
) -> impl FnOnce(Replay, Option<GameAnalysis>) -> Result<wire::GameAnswer, RequestError> {
    move |replay, analysis| {
        wire::GameAnswer::new(replay, form, analysis.as_ref()).map_err(|ms| {
            let field = format!("{prefix}clock.move_times_ms");
            RequestError::ClockPastMillis { field, ms }
        })
    }
}

/// The answer to one game of a stream: a verdict or a per-game error.
async fn answer(
    request: wire::ValidateGamesRequest,
    limits: Limits,
    cache: Option<Arc<ReplayCache>>,
) -> Result<wire::StreamAnswer, Status> {
    let wire::ValidateGamesRequest { id, game } = request;
    let checked = match game {
        Some(game) => GameRequest::from_proto(game, "game", &limits),
        None => Err(RequestError::MissingField { field: "game".to_owned() }),
    };
    let result = match checked {
        Ok(game) => {
            let _in_flight = StreamGame::start();
            let (options, form) = (game.options, game.ply_clocks);
            let respond = validate_response(form, "game.");
            match replay_then(game, options, cache, &limits, respond).await?.0 {
                Ok(verdict) => wire::StreamResult::Game(verdict),
                Err(err) => wire::StreamResult::Error(err.to_game_error()),
            }
        }
        Err(err) => wire::StreamResult::Error(err.to_game_error()),
    };
    Ok(wire::StreamAnswer { id, result })
}

/// When to give up on the deadline a client sent in `grpc-timeout`, if any:
/// a little before it, so that the caller gets DEADLINE_EXCEEDED from us
/// rather than the transport's own CANCELLED at the deadline itself. The
/// timeout counts from admission, as tonic's timer does, not from now: the
/// call may have waited for a worker since.
fn deadline<T>(request: &Request<T>) -> Option<Instant> {
    let value = request.metadata().get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    let amount: u64 = digits.parse().ok()?;
    let timeout = match unit {
        "H" => Duration::from_secs(amount.saturating_mul(3600)),
        "M" => Duration::from_secs(amount.saturating_mul(60)),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    };
    // A tenth of the timeout, but at least 2 ms (timers tick in whole
    // milliseconds), at most 50 ms, and never more than half of it.
    let margin =
        (timeout / 10).clamp(Duration::from_millis(2), Duration::from_millis(50)).min(timeout / 2);
    let admitted = request.extensions().get::<Admitted>().map_or_else(Instant::now, |a| a.0);
    admitted.checked_add(timeout - margin)
}

/// Sets its flag when dropped: tonic drops the handler when the client goes.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

type GameStream = Pin<Box<dyn Stream<Item = Result<wire::StreamAnswer, Status>> + Send>>;

type PgnStream = Pin<Box<dyn Stream<Item = Result<proto::ValidatePgnResponse, Status>> + Send>>;

/// The games of a `ValidatePgn` stream, cut from its chunks as they come:
/// each chunk's complete games, the last game when the stream ends, and
/// the stream's error (which ends it) in its place. A chunk is taken only
/// when the games of the one before have all been taken. Each game comes
/// with whether the stream's first request asked for the analysis.
fn pgn_games(
    chunks: Streaming<proto::ValidatePgnRequest>,
    options: ReaderOptions,
) -> impl Stream<Item = Result<(RawGame, bool), Status>> + Send {
    futures_util::stream::unfold(
        (chunks, Some(Splitter::new(options)), None::<bool>),
        |(mut chunks, mut splitter, mut analysed)| async move {
            let cutting = splitter.as_mut()?;
            let mut games = VecDeque::new();
            let next = match chunks.next().await {
                Some(Ok(proto::ValidatePgnRequest { chunk, include_analysis })) => {
                    let analysed = *analysed.get_or_insert_with(|| {
                        if include_analysis {
                            prometheus::count_analysis("pgn");
                        }
                        include_analysis
                    });
                    cutting.push(&chunk, &mut games);
                    games.into_iter().map(|game| Ok((game, analysed))).collect()
                }
                Some(Err(status)) => {
                    // tonic's `Streaming` yields a decode error again on
                    // every poll after the first: the games end here.
                    splitter = None;
                    vec![Err(super::size_limit_status(status))]
                }
                None => {
                    cutting.finish(&mut games);
                    splitter = None;
                    let analysed = analysed.unwrap_or(false);
                    games.into_iter().map(|game| Ok((game, analysed))).collect()
                }
            };
            Some((futures_util::stream::iter(next), (chunks, splitter, analysed)))
        },
    )
    .flatten()
}

#[tonic::async_trait]
impl RulesService for Handlers {
    async fn validate_game(
        &self,
        request: Request<wire::ValidateGameRequest>,
    ) -> Result<Response<wire::GameAnswer>, Status> {
        let game = GameRequest::from_proto(request.into_inner(), "", &self.limits)?;
        let (options, cache) = (game.options, self.cache.clone());
        let respond = validate_response(game.ply_clocks, "");
        let (response, report) = replay_then(game, options, cache, &self.limits, respond).await?;
        report.annotate(&tracing::Span::current());
        Ok(Response::new(response?))
    }

    type ValidateGamesStream = GameStream;

    async fn validate_games(
        &self,
        request: Request<Streaming<wire::ValidateGamesRequest>>,
    ) -> Result<Response<GameStream>, Status> {
        let limits = self.limits.clone();
        let cache = self.cache.clone();
        let in_flight = limits.stream_games_in_flight;
        let span = tracing::Span::current();
        let mut games: i64 = 0;
        // `buffered` keeps request order and reads at most `in_flight` games
        // ahead: a slow reader slows the stream instead of filling memory.
        let responses = request
            .into_inner()
            // tonic's `Streaming` yields a decode error again on every poll
            // after the first: end the games at the first error, rather than
            // rely on the transport to stop reading there.
            .scan(false, |failed, item| {
                let next = (!*failed).then_some(item);
                *failed = next.as_ref().is_some_and(Result::is_err);
                std::future::ready(next)
            })
            .map(move |item| {
                let (limits, cache) = (limits.clone(), cache.clone());
                async move { answer(item.map_err(super::size_limit_status)?, limits, cache).await }
            })
            .buffered(in_flight)
            .map(move |item| {
                games += 1;
                span.record("arbiter.games", games);
                item
            });
        Ok(Response::new(Box::pin(responses)))
    }

    type ValidatePgnStream = PgnStream;

    async fn validate_pgn(
        &self,
        request: Request<Streaming<proto::ValidatePgnRequest>>,
    ) -> Result<Response<PgnStream>, Status> {
        let options = ReaderOptions { max_game_bytes: self.limits.max_pgn_game_bytes };
        // A game's text is about eight bytes a move, more with comments.
        let heavy_bytes = self.limits.blocking_moves.saturating_mul(16);
        let checking = self.limits.check_options();
        let raised = self.limits.raised_analysis();
        let span = tracing::Span::current();
        let mut games: i64 = 0;
        // As in `validate_games`: order kept, at most `in_flight` games read
        // ahead of the answers the client has taken.
        let responses = pgn_games(request.into_inner(), options)
            .map(move |game| async move {
                let (raw, analysed) = game?;
                // The check finds what the game was as it plays the moves.
                let checking = CheckOptions { include_analysis: analysed, ..checking };
                let _in_flight = StreamGame::start();
                // A long game is read and checked on the blocking pool; a
                // short one is read here, and checked there when it may
                // get the full unwinnability analysis (a flag fall, a
                // set-up start past the gate, budgets above the
                // defaults), as `ValidateGame` is.
                if raw.text.as_ref().map_or(0, Vec::len) > heavy_bytes {
                    return run(true, move || pgn_answer(&check_game_with(raw, true, checking)))
                        .await;
                }
                let (index, line, game) = raw.into_game();
                let heavy = raised || game.as_ref().is_ok_and(may_analyse_fully);
                let play = move || play_read_game(index, line, game, true, checking);
                if heavy {
                    return run(true, move || pgn_answer(&play().finish())).await;
                }
                // Its moves are played here; the final position's full
                // look, which a game ending in a blocked pawn structure
                // may make long, is not.
                let played = play();
                run(played.final_look_pending(), move || pgn_answer(&played.finish())).await
            })
            .buffered(self.limits.stream_games_in_flight)
            .map(move |item| {
                games += 1;
                span.record("arbiter.games", games);
                item
            });
        Ok(Response::new(Box::pin(responses)))
    }

    async fn legal_moves(
        &self,
        request: Request<wire::LegalMovesRequest>,
    ) -> Result<Response<proto::LegalMovesResponse>, Status> {
        let LegalMovesQuery { game } =
            LegalMovesQuery::from_proto(request.into_inner(), &self.limits)?;
        let options = game.options;
        let (response, report) =
            replay_then(game, options, self.cache.clone(), &self.limits, |r, _| {
                proto::LegalMovesResponse {
                    position: Some(position_message(&r.position, &r.legal_moves, r.shredder_fen)),
                    outcome: Some(proto::Outcome::from(&r.outcome)),
                    illegal_move: r.illegal_move.as_ref().map(proto::IllegalMove::from),
                }
            })
            .await?;
        report.annotate(&tracing::Span::current());
        Ok(Response::new(response))
    }

    async fn perft(
        &self,
        request: Request<proto::PerftRequest>,
    ) -> Result<Response<proto::PerftResponse>, Status> {
        let deadline = deadline(&request);
        let PerftQuery { start, depth, divide } =
            PerftQuery::from_proto(request.into_inner(), &self.limits)?;
        // The server's own budget applies whatever the caller asked for; the
        // earlier of the two ends the work.
        let budget = self.limits.perft_budget;
        let over_budget = Instant::now() + budget;
        let (stop_at, caller_first) = match deadline {
            Some(deadline) if deadline <= over_budget => (deadline, true),
            _ => (over_budget, false),
        };
        let cancelled = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(Arc::clone(&cancelled));
        // Each first move with its UCI and count.
        let work = run(true, move || {
            let stop = || cancelled.load(Ordering::Relaxed) || Instant::now() >= stop_at;
            start
                .divide_until(depth, &stop)
                .map(|split| split.into_iter().map(|(m, n)| (m.to_string(), n)).collect::<Vec<_>>())
        });
        // The worker stops itself in time, but its answer still has to come
        // back from the blocking pool: a timer here answers in time even for
        // a deadline of a millisecond, before tonic's own `grpc-timeout`
        // handling would answer CANCELLED. Leaving drops the guard, which
        // stops the worker.
        let split = tokio::select! {
            biased;
            split = work => split?,
            () = tokio::time::sleep_until(stop_at.into()) => None,
        };
        let Some(split) = split else {
            return Err(if caller_first {
                Status::deadline_exceeded("perft stopped: the deadline passed")
            } else {
                Status::resource_exhausted(format!(
                    "perft stopped: over the server's budget of {} (--perft-budget)",
                    humantime::format_duration(budget)
                ))
            });
        };
        let nodes = if depth == 0 { 1 } else { split.iter().map(|(_, n)| n).sum() };
        let divide = if divide {
            split.into_iter().map(|(uci, nodes)| proto::PerftDivideEntry { uci, nodes }).collect()
        } else {
            Vec::new()
        };
        Ok(Response::new(proto::PerftResponse { nodes, divide }))
    }
}
