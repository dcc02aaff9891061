//! The `live` scenario: every worker owns a game and re-sends it as it grows,
//! the way a game platform has each new move checked (`plies_from` = the
//! newest ply). Workers go in lock-step rounds (round k: every worker sends
//! its first k moves, then all wait for each other), so that the server's CPU
//! time can be put down to ranges of plies: a replay cache should make late
//! rounds cost about what early ones do.

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use arbiter::proto::{ValidateGameRequest, ValidateGameResponse};
use arbiter_chess::Rules;
use bytes::Bytes;
use prost::Message;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::sync::mpsc;
use tonic::client::Grpc;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::{Request, Status};

use crate::Error;
use crate::drive::{Answer, Caller, Connections, Link, RawCodec, Sent, Tally, ready, send};
use crate::target::Target;
use crate::workload::{self, GameText, Item, LIVE_PLIES};

/// The early and late rounds (prefix lengths) whose server CPU is reported.
pub const EARLY: RangeInclusive<usize> = 10..=30;
pub const LATE: RangeInclusive<usize> = 280..=LIVE_PLIES;

/// Keeps the seeds of live games apart from those of the other games.
const SEED_OFFSET: u64 = 0x1173_0000;

/// Server CPU time spent over some rounds, and the calls of those rounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub cpu: Duration,
    pub calls: u64,
}

impl Span {
    fn add(&mut self, other: Span) {
        self.cpu += other.cpu;
        self.calls += other.calls;
    }

    /// Server CPU µs per call, when there were calls.
    pub fn micros_per_call(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.cpu.as_secs_f64() * 1e6 / self.calls as f64)
    }
}

/// What the live scenario measured, over all its passes.
pub struct LiveResult {
    pub tally: Tally,
    /// Time spent in rounds (not in making games and expected answers).
    pub elapsed: Duration,
    pub passes: u32,
    /// Server CPU, when measured: rounds [`EARLY`], [`LATE`], and all.
    pub early: Option<Span>,
    pub late: Option<Span>,
    pub whole: Option<Span>,
}

/// How the live scenario runs.
pub struct Live<'a> {
    pub connections: &'a Connections,
    pub target: &'a Target,
    pub workers: usize,
    pub retries: u32,
    pub seed: u64,
    pub verify: bool,
    /// The rules the games are played by.
    pub rules: Rules,
}

/// One worker's game; call `seq` sends its first `seq + 1` moves.
struct LiveCaller {
    client: Grpc<Link>,
    game: GameText,
    /// The calls' requests, encoded in advance (as `validate` sends them):
    /// made from generated messages at each call (every move's `String`
    /// copied twice), the late rounds' requests kept the load generator,
    /// which shares the cores with the server, busier than the early ones,
    /// and the server's late rounds measured dearer for it.
    requests: LiveRequests,
    /// With `--verify`, the encoded expected answer of each call.
    expected: Vec<Vec<u8>>,
}

impl Caller for LiveCaller {
    async fn call(&mut self, seq: usize) -> Result<Answer, Status> {
        let request = Request::new(self.requests.encoded(seq + 1, seq));
        ready(&mut self.client).await?;
        let path = PathAndQuery::from_static("/arbiter.v1.RulesService/ValidateGame");
        let answer = self.client.unary(request, path, RawCodec).await?.into_inner();
        let mismatch = self.expected.get(seq).and_then(|expected| {
            let request = workload::validate_request(&self.game, seq + 1, seq);
            let item = Item { request, plies: 1, expected: Some(expected.clone()) };
            item.check_encoded::<ValidateGameResponse>(&answer)
        });
        Ok(Answer { games: 0, plies: 0, mismatch })
    }
}

/// The encoded `ValidateGame` requests of every prefix of a game, made from
/// one encoding of its moves: the message's fields in order, the FEN, the
/// first `len` moves, then the notation and `plies_from`.
struct LiveRequests {
    /// The FEN field, then every move's field (the fields after them are
    /// written with each request).
    fields: Vec<u8>,
    /// Where the FEN field ends, then where each move's field ends.
    ends: Vec<usize>,
    /// The game's rules, a field after the moves.
    rules: Rules,
}

impl LiveRequests {
    /// The requests of `game`; checks one against the generated message's
    /// encoding.
    ///
    /// # Errors
    ///
    /// When the two encodings differ.
    fn new(game: &GameText) -> Result<LiveRequests, Error> {
        let head = ValidateGameRequest { fen: game.fen.clone(), ..ValidateGameRequest::default() };
        let mut fields = head.encode_to_vec();
        let mut ends = vec![fields.len()];
        for text in &game.moves {
            prost::encoding::string::encode(2, text, &mut fields);
            ends.push(fields.len());
        }
        let requests = LiveRequests { fields, ends, rules: game.rules };
        let len = game.moves.len();
        let generated = workload::validate_request(game, len, len - 1).encode_to_vec();
        if requests.encoded(len, len - 1) != generated {
            return Err("live: the requests encoded in advance differ from prost's".into());
        }
        Ok(requests)
    }

    /// The request for the first `len` moves, returning plies from
    /// `plies_from` on.
    fn encoded(&self, len: usize, plies_from: usize) -> Bytes {
        // The fields after the moves: those of a request with no FEN and
        // no moves.
        let empty = GameText { fen: String::new(), moves: Vec::new(), rules: self.rules };
        let tail = workload::validate_request(&empty, 0, plies_from);
        let mut bytes = Vec::with_capacity(self.ends[len] + tail.encoded_len());
        bytes.extend_from_slice(&self.fields[..self.ends[len]]);
        tail.encode_raw(&mut bytes);
        Bytes::from(bytes)
    }
}

/// The encoded answers to every prefix of `game`, as the live calls send it.
fn expected_answers(game: &GameText) -> Result<Vec<Vec<u8>>, Error> {
    (1..=game.moves.len())
        .map(|len| {
            let request = workload::validate_request(game, len, len - 1);
            let item = workload::validate_item(request, true)?;
            Ok(item.expected.unwrap_or_default())
        })
        .collect()
}

impl Live<'_> {
    /// Warms up for `warmup` (one pass cut short), then runs whole passes of
    /// [`LIVE_PLIES`] rounds, each with new games, until `period` is spent
    /// in rounds (at least one pass).
    ///
    /// # Errors
    ///
    /// When games cannot be made or the server cannot be measured.
    pub async fn run(&self, warmup: Duration, period: Duration) -> Result<LiveResult, Error> {
        if !warmup.is_zero() {
            self.pass(u64::MAX, Some(warmup), false).await?;
        }
        let mut result = LiveResult {
            tally: Tally::new(),
            elapsed: Duration::ZERO,
            passes: 0,
            early: None,
            late: None,
            whole: None,
        };
        while result.passes == 0 || result.elapsed < period {
            let pass = self.pass(u64::from(result.passes), None, self.verify).await?;
            result.tally.merge(pass.tally);
            result.elapsed += pass.elapsed;
            result.passes += 1;
            for (sum, span) in [
                (&mut result.early, pass.early),
                (&mut result.late, pass.late),
                (&mut result.whole, pass.whole),
            ] {
                if let Some(span) = span {
                    sum.get_or_insert_default().add(span);
                }
            }
        }
        Ok(result)
    }

    /// One pass: new games, then rounds 1..=LIVE_PLIES (or until `cut`).
    async fn pass(
        &self,
        pass: u64,
        cut: Option<Duration>,
        verify: bool,
    ) -> Result<LiveResult, Error> {
        let mut rng =
            SmallRng::seed_from_u64(self.seed.wrapping_add(SEED_OFFSET).wrapping_add(pass));
        let mut callers = Vec::with_capacity(self.workers);
        let mut checks = Vec::new();
        for worker in 0..self.workers {
            let moves = workload::random_game(&mut rng, LIVE_PLIES, self.rules)?;
            let game = GameText { fen: String::new(), moves, rules: self.rules };
            if verify {
                // The answers are worked out on the blocking pool, on every
                // core, before the pass starts.
                let game = game.clone();
                checks.push(tokio::task::spawn_blocking(move || expected_answers(&game)));
            }
            let client = self.connections.raw(worker);
            let requests = LiveRequests::new(&game)?;
            callers.push(LiveCaller { client, game, requests, expected: Vec::new() });
        }
        for (caller, check) in callers.iter_mut().zip(checks) {
            caller.expected = check.await??;
        }

        let (done_tx, mut done) = mpsc::channel::<(Duration, Sent)>(self.workers);
        let rounds: Vec<_> = callers
            .into_iter()
            .map(|mut caller| {
                let (round_tx, mut round) = mpsc::channel::<usize>(1);
                let (done_tx, retries) = (done_tx.clone(), self.retries);
                tokio::spawn(async move {
                    while let Some(seq) = round.recv().await {
                        let sent_at = Instant::now();
                        let sent = send(&mut caller, seq, retries).await;
                        if done_tx.send((sent_at.elapsed(), sent)).await.is_err() {
                            break;
                        }
                    }
                });
                round_tx
            })
            .collect();

        // Server CPU before round k (index k - 1), and after the last.
        let mut cpu_before = Vec::with_capacity(LIVE_PLIES + 1);
        let mut tally = Tally::new();
        let started = Instant::now();
        for seq in 0..LIVE_PLIES {
            if cut.is_some_and(|cut| started.elapsed() >= cut) {
                break;
            }
            cpu_before.push(self.target.cpu()?);
            for round in &rounds {
                round.send(seq).await.map_err(|_| "a live worker stopped")?;
            }
            for _ in 0..self.workers {
                let (latency, sent) = done.recv().await.ok_or("the live workers stopped")?;
                tally.record(latency, sent);
            }
        }
        let elapsed = started.elapsed();
        cpu_before.push(self.target.cpu()?);
        let calls_per_round = self.workers as u64;
        let span = |rounds: RangeInclusive<usize>| -> Option<Span> {
            let before = (*cpu_before.get(rounds.start() - 1)?)?;
            let after = (*cpu_before.get(*rounds.end())?)?;
            let calls = calls_per_round * rounds.count() as u64;
            Some(Span { cpu: after.saturating_sub(before), calls })
        };
        Ok(LiveResult {
            early: span(EARLY),
            late: span(LATE),
            whole: span(1..=LIVE_PLIES),
            tally,
            elapsed,
            passes: 1,
        })
    }
}
