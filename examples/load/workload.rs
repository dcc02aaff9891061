//! What the scenarios send: games (real ones from a PGN file, or seeded
//! random legal games made with the rules core), the requests built from
//! them, and, for `--verify`, the answers the rules core gives in process.

use std::path::Path;
use std::time::Duration;

use arbiter::api::Limits;
use arbiter::api::convert::GameRequest;
use arbiter::api::wire::PlyClockForm;
use arbiter::proto::{LegalMovesRequest, LegalMovesResponse, ValidateGameRequest};
use arbiter::proto::{Notation, ValidateGameResponse};
use arbiter_chess::{
    Analysis, GamePosition, Notation as Written, Replay, ReplayOptions, ReplayTail, Replayer,
    Rules, replay, replay_clocked,
};
use prost::Message;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::Error;
use crate::pgn;
use crate::target::thread_cpu_time;

/// Plies of a `validate` and `stream` game.
pub const GAME_PLIES: usize = 80;
/// Plies of a `live` game: it is sent as its prefixes 1..=LIVE_PLIES.
pub const LIVE_PLIES: usize = 300;
/// Random games that end early are thrown away; this many failures in a row
/// means something is wrong with the generator, not bad luck.
const MAX_ATTEMPTS: usize = 1_000;

/// A game to send: its rules, its start (empty FEN: the rules' start) and
/// its moves in SAN.
#[derive(Clone, Debug)]
pub struct GameText {
    pub fen: String,
    pub moves: Vec<String>,
    pub rules: Rules,
}

/// The games of `validate`, `stream` and `legal`, and where they came from.
pub struct Games {
    pub source: String,
    pub games: Vec<GameText>,
}

impl Games {
    /// The games of at least [`GAME_PLIES`] plies in the PGN file at `path`,
    /// cut to that length.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, a game has a bad `FEN` tag, or no game
    /// is long enough.
    pub fn from_pgn(path: &Path) -> Result<Games, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        let mut games = Vec::new();
        for game in pgn::parse_pgn(&text).into_iter().filter(|g| g.moves.len() >= GAME_PLIES) {
            if let Err(err) = game.start() {
                return Err(format!(
                    "{}: bad FEN tag: {err}",
                    game.label(&path.display().to_string())
                )
                .into());
            }
            let fen = game.tag("FEN").unwrap_or_default().to_owned();
            let moves = game.moves[..GAME_PLIES].to_vec();
            games.push(GameText { fen, moves, rules: Rules::Standard });
        }
        if games.is_empty() {
            return Err(format!("{}: no game of {GAME_PLIES} plies or more", path.display()).into());
        }
        let source = format!("{} games from {}", games.len(), path.display());
        Ok(Games { source, games })
    }

    /// `count` seeded random legal games of [`GAME_PLIES`] plies.
    ///
    /// # Errors
    ///
    /// When the generator keeps making games that end early.
    pub fn random(seed: u64, count: usize) -> Result<Games, Error> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let games = (0..count)
            .map(|_| {
                let moves = random_game(&mut rng, GAME_PLIES, Rules::Standard)?;
                Ok(GameText { fen: String::new(), moves, rules: Rules::Standard })
            })
            .collect::<Result<_, Error>>()?;
        let source = format!("{count} seeded random games (seed {seed})");
        Ok(Games { source, games })
    }
}

/// A random legal game from the start of `rules` that has not ended after
/// `plies` plies. Moves that would end the game are avoided, and a game that
/// cannot go on (say, only moves that reach the 75-move rule) is started again.
///
/// # Errors
///
/// After [`MAX_ATTEMPTS`] games that ended early.
pub fn random_game(rng: &mut SmallRng, plies: usize, rules: Rules) -> Result<Vec<String>, Error> {
    'attempt: for _ in 0..MAX_ATTEMPTS {
        let mut game = Replayer::new(GamePosition::new(rules), Analysis::DEFAULT);
        let mut moves: Vec<String> = Vec::with_capacity(plies);
        let options = ReplayOptions { notation: Written::San, ..ReplayOptions::default() };
        while moves.len() < plies {
            let legal = game.legal_moves(None);
            if legal.is_empty() {
                continue 'attempt;
            }
            // Try the moves from a random one on, so that the choice stays
            // uniform among the moves that keep the game going.
            let first = rng.random_range(0..legal.len());
            let next = (0..legal.len()).find_map(|i| {
                let mut after = game.clone();
                let san = legal[(first + i) % legal.len()].san.to_string();
                after.extend(&[&san], &options);
                let over = after.answer(
                    ReplayTail::default(),
                    &ReplayOptions { skip_legal_moves: true, plies_from: usize::MAX, ..options },
                );
                (!over.outcome.is_over()).then_some((after, san))
            });
            let Some((after, san)) = next else { continue 'attempt };
            game = after;
            moves.push(san);
        }
        return Ok(moves);
    }
    Err(format!("no random game of {plies} plies in {MAX_ATTEMPTS} attempts").into())
}

/// A request and what it should get back.
pub struct Item<R> {
    pub request: R,
    /// Plies the request carries, for the plies/s figure.
    pub plies: u64,
    /// With `--verify`: the encoded answer of the rules core in process.
    /// Encoded, so that the many answers of `live` take little memory.
    pub expected: Option<Vec<u8>>,
}

impl<R: std::fmt::Debug> Item<R> {
    /// `None` when `actual` is what was expected (or nothing was), else a
    /// description of the difference for the report.
    pub fn check<M: Message + Default + std::fmt::Debug>(&self, actual: &M) -> Option<String> {
        self.check_encoded::<M>(&actual.encode_to_vec())
    }

    /// As [`Item::check`], for an answer as the server encoded it: its bytes
    /// must be those of the expected message.
    pub fn check_encoded<M: Message + Default + std::fmt::Debug>(
        &self,
        actual: &[u8],
    ) -> Option<String> {
        let expected = self.expected.as_deref()?;
        if actual == expected {
            return None;
        }
        let show = |bytes: &[u8]| {
            M::decode(bytes).map_or_else(|err| format!("<{err}>"), |m| format!("{m:?}"))
        };
        Some(format!(
            "request {:?}\n  expected {}\n  got      {}",
            self.request,
            show(expected),
            show(actual)
        ))
    }
}

/// A clock record for `plies` moves that never runs out: 5 minutes + 2 s,
/// each move taking up to 5 s (whole milliseconds, varied), its move times
/// as Durations (`move_times`) or, when `packed`, as `move_times_ms`.
pub fn clock_record(plies: usize, packed: bool) -> arbiter::proto::GameClock {
    let times_ms = (0..plies as u32).map(|i| i % 5 * 1000 + i * 37 % 1000);
    arbiter::proto::GameClock {
        time_control: Some(arbiter::proto::TimeControl {
            tag: "300+2".to_owned(),
            ..Default::default()
        }),
        move_times: if packed {
            Vec::new()
        } else {
            times_ms
                .clone()
                .map(|ms| prost_types::Duration {
                    seconds: i64::from(ms / 1000),
                    nanos: (ms % 1000 * 1_000_000) as i32,
                })
                .collect()
        },
        move_times_ms: if packed { times_ms.collect() } else { Vec::new() },
        pending: Some(prost_types::Duration { seconds: 1, nanos: 0 }),
    }
}

/// `ValidateGame` of `game`'s first `len` moves in SAN with the final legal
/// moves, returning the plies from `plies_from` on.
pub fn validate_request(game: &GameText, len: usize, plies_from: usize) -> ValidateGameRequest {
    ValidateGameRequest {
        fen: game.fen.clone(),
        variant: arbiter::proto::Variant::from(game.rules).into(),
        moves: game.moves[..len].to_vec(),
        notation: Notation::San.into(),
        skip_legal_moves: false,
        plies_from: u32::try_from(plies_from).unwrap_or(u32::MAX),
        ..ValidateGameRequest::default()
    }
}

/// What the server answers to `request`: read by the server's own request
/// conversion, replayed by the rules core.
fn answer(request: &ValidateGameRequest) -> Result<ValidateGameResponse, Error> {
    let game = GameRequest::from_proto(request.clone().into(), "", &Limits::default())
        .map_err(|err| format!("bad request in the workload: {err}"))?;
    let mut response = ValidateGameResponse::from(&replay_game(&game)?);
    // Move times sent packed: each ply's clock comes back as `clock_ms`.
    if game.ply_clocks == PlyClockForm::Millis {
        for ply in &mut response.plies {
            ply.clock_ms = ply.clock.take().map(|time| {
                u32::try_from(time.seconds * 1000 + i64::from(time.nanos / 1_000_000))
                    .unwrap_or(u32::MAX)
            });
        }
    }
    Ok(response)
}

/// A checked request replayed as the server replays it on a cache miss,
/// on its clock record when it has one.
fn replay_game(game: &GameRequest) -> Result<Replay, Error> {
    let GameRequest { start, moves, options, clock, ply_clocks: _, analysis: _ } = game;
    Ok(match clock {
        Some(record) => replay_clocked(start.clone(), &moves.tail(0), options, record),
        None => replay(start.clone(), &moves.tail(0), options),
    })
}

/// The rules core's speed on `items`, in plies per second of this thread's
/// CPU time (as the server's figures are per second of its CPU time, so
/// that a loaded machine slows neither): each game replayed from its
/// request as the server replays it on a cache miss (final legal moves
/// included, no protobuf), the median of 9 rounds of at least 100 ms each.
///
/// # Errors
///
/// When a request is one the server would refuse.
pub fn in_process_speed(items: &[Item<ValidateGameRequest>]) -> Result<f64, Error> {
    let games = items
        .iter()
        .map(|item| {
            GameRequest::from_proto(item.request.clone().into(), "", &Limits::default())
                .map_err(|err| format!("bad request in the workload: {err}").into())
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let plies: u64 = items.iter().map(|item| item.plies).sum();
    let mut rounds = (0..9)
        .map(|_| {
            let started = thread_cpu_time()?;
            let mut passes = 0;
            let mut spent = Duration::ZERO;
            while passes == 0 || spent < Duration::from_millis(100) {
                for game in &games {
                    std::hint::black_box(replay_game(game)?);
                }
                passes += 1;
                spent = thread_cpu_time()?.saturating_sub(started);
            }
            Ok((plies * passes) as f64 / spent.as_secs_f64().max(1e-9))
        })
        .collect::<Result<Vec<f64>, Error>>()?;
    rounds.sort_by(f64::total_cmp);
    Ok(rounds[rounds.len() / 2])
}

/// `request` as an [`Item`], with its expected answer when `verify`.
///
/// # Errors
///
/// When the request is one the server would refuse.
pub fn validate_item(
    request: ValidateGameRequest,
    verify: bool,
) -> Result<Item<ValidateGameRequest>, Error> {
    let expected = verify.then(|| answer(&request)).transpose()?.map(|r| r.encode_to_vec());
    let plies = request.moves.len() as u64;
    Ok(Item { request, plies, expected })
}

/// `LegalMoves` after `game`'s first `len` moves, as an [`Item`]. Its
/// expected answer is the final position, outcome and illegal move of the
/// same moves sent to `ValidateGame`.
///
/// # Errors
///
/// When the request is one the server would refuse.
pub fn legal_item(
    game: &GameText,
    len: usize,
    verify: bool,
) -> Result<Item<LegalMovesRequest>, Error> {
    let expected = if verify {
        let ValidateGameResponse {
            position,
            outcome,
            illegal_move,
            plies: _,
            analysis: _,
            rulings: _,
        } = answer(&validate_request(game, len, len))?;
        Some(LegalMovesResponse { position, outcome, illegal_move }.encode_to_vec())
    } else {
        None
    };
    let request = LegalMovesRequest {
        fen: game.fen.clone(),
        moves: game.moves[..len].to_vec(),
        notation: Notation::San.into(),
        ..LegalMovesRequest::default()
    };
    Ok(Item { request, plies: len as u64, expected })
}
