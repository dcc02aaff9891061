//! What the replay cache costs and saves, in process, on the work a
//! `ValidateGame` call does beyond the transport: decode the request, replay
//! the moves through the service's handler, build the response (final
//! position's legal moves with SAN included) and encode it. Two workloads,
//! each with the cache off and on, interleaved:
//!
//! - **miss**: 400 distinct random games of 80 plies in SAN, each sent once,
//!   so every request misses (a fresh cache per pass): the cache's whole
//!   cost, lookups and insertions, with nothing to gain;
//! - **live**: 8 random games of 300 plies, each sent as its prefixes
//!   1..=300 with `plies_from` = the newest ply, the pattern of a platform
//!   validating live games; the time per request is reported for prefixes
//!   of 10–30 and 280–300 plies. Played once in standard chess, once in
//!   crazyhouse and once in three-check (the variants whose late positions
//!   cost the most: pockets full of drops, checks counted).
//!
//! Every cached response is checked byte for byte against the uncached one
//! once, before timing.
//!
//! ```text
//! cargo bench --bench cache
//! cargo bench --bench cache -- --quick
//! ```

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use arbiter::api::Limits;
use arbiter::api::codec::{Decode, Encode};
use arbiter::api::service::Handlers;
use arbiter::cache::ReplayCache;
use arbiter::proto::{self, rules_service_server::RulesService};
use arbiter_chess::{
    Analysis, GamePosition, Notation, ReplayOptions, ReplayTail, Replayer, Rules, Variant,
};
use common::Plan;
use prost::Message;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const SEED: u64 = 0x0cac_4e00_0300;
const DEFAULT_CACHE_BYTES: u64 = 64 << 20;
/// The prefix lengths whose requests are compared in the live workload.
const EARLY: std::ops::RangeInclusive<usize> = 10..=30;
const LATE: std::ops::RangeInclusive<usize> = 280..=300;

impl Plan {
    /// Games of the miss workload and of the live one.
    fn games(self) -> (usize, usize) {
        match self {
            Plan::Full { .. } => (400, 8),
            Plan::Quick { .. } => (100, 2),
            Plan::Test => (10, 1),
        }
    }
}

/// The rule sets the live workload is played in.
const LIVE_RULES: [Rules; 3] =
    [Rules::Standard, Rules::Variant(Variant::Crazyhouse), Rules::Variant(Variant::ThreeCheck)];

/// A random game of exactly `plies` plies in SAN under `rules`, drawn again
/// until no rule ends it early.
fn random_game(rng: &mut SmallRng, plies: usize, rules: Rules) -> Vec<String> {
    let options = ReplayOptions { notation: Notation::San, ..ReplayOptions::default() };
    let look = ReplayOptions { skip_legal_moves: true, plies_from: usize::MAX, ..options };
    'draw: loop {
        let mut game = Replayer::new(GamePosition::new(rules), Analysis::DEFAULT);
        let mut san = Vec::with_capacity(plies);
        while san.len() < plies {
            let moves = game.legal_moves(None);
            if moves.is_empty() || game.answer(ReplayTail::default(), &look).outcome.is_over() {
                continue 'draw;
            }
            san.push(moves[rng.random_range(0..moves.len())].san.to_string());
            game.extend(&san[san.len() - 1..], &options);
        }
        if !game.answer(ReplayTail::default(), &look).outcome.is_over() {
            return san;
        }
    }
}

/// The work of one call beyond the transport: decode, replay, build, encode.
#[inline(never)]
fn answer(rules: &Handlers, runtime: &tokio::runtime::Runtime, request: &[u8]) -> Vec<u8> {
    let request = Decode::decode(request).expect("a valid request");
    let response =
        runtime.block_on(rules.validate_game(tonic::Request::new(request))).expect("an answer");
    let mut bytes = Vec::new();
    response.into_inner().encode_raw(&mut bytes);
    bytes
}

/// One request of a workload, encoded, and its number of moves.
struct Call {
    request: Vec<u8>,
    plies: usize,
}

fn call(moves: &[String], plies_from: usize, rules: Rules) -> Call {
    let request = proto::ValidateGameRequest {
        moves: moves.to_vec(),
        notation: proto::Notation::San as i32,
        plies_from: u32::try_from(plies_from).expect("a short game"),
        variant: proto::Variant::from(rules) as i32,
        ..Default::default()
    };
    Call { request: request.encode_to_vec(), plies: moves.len() }
}

fn miss_calls(games: &[Vec<String>]) -> Vec<Call> {
    games.iter().map(|g| call(g, 0, Rules::Standard)).collect()
}

fn live_calls(games: &[Vec<String>], rules: Rules) -> Vec<Call> {
    // Games advance together, as live games on a platform do.
    let plies = games.iter().map(Vec::len).max().unwrap_or(0);
    (1..=plies)
        .flat_map(|len| {
            games
                .iter()
                .filter(move |g| g.len() >= len)
                .map(move |g| call(&g[..len], len - 1, rules))
        })
        .collect()
}

/// The service with a fresh cache of the default size, or none.
fn rules(cached: bool) -> Handlers {
    Handlers::new(
        Limits::default(),
        cached.then(|| ReplayCache::new(DEFAULT_CACHE_BYTES).expect("a cache")),
    )
}

/// Time of one pass over `calls` with a fresh cache (or none), and the time
/// spent on calls whose move lists are in `EARLY` and in `LATE`.
#[inline(never)]
fn pass(
    calls: &[Call],
    cached: bool,
    runtime: &tokio::runtime::Runtime,
) -> (Duration, Duration, Duration) {
    let rules = rules(cached);
    let (mut early, mut late) = (Duration::ZERO, Duration::ZERO);
    let started = Instant::now();
    for call in calls {
        let t = Instant::now();
        black_box(answer(&rules, runtime, black_box(&call.request)));
        let spent = t.elapsed();
        if EARLY.contains(&call.plies) {
            early += spent;
        } else if LATE.contains(&call.plies) {
            late += spent;
        }
    }
    (started.elapsed(), early, late)
}

fn main() {
    let plan = Plan::from_args();
    let load_before = common::load_average();
    let mut rng = SmallRng::seed_from_u64(SEED);
    let (misses, lives) = plan.games();
    let miss_games: Vec<_> =
        (0..misses).map(|_| random_game(&mut rng, 80, Rules::Standard)).collect();
    let mut workloads = vec![("miss".to_owned(), miss_calls(&miss_games))];
    for rules in LIVE_RULES {
        let games: Vec<_> = (0..lives).map(|_| random_game(&mut rng, 300, rules)).collect();
        workloads.push((format!("live {}", rules.cli_name()), live_calls(&games, rules)));
    }

    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    // The cache never changes an answer.
    for (name, calls) in &workloads {
        let (plain, cached) = (rules(false), rules(true));
        for call in calls {
            let answer = |rules| answer(rules, &runtime, &call.request);
            assert_eq!(answer(&cached), answer(&plain), "{name} workload");
        }
    }
    if let Plan::Test = plan {
        println!("cache bench: answers checked (run with `cargo bench` to time)");
        return;
    }

    let jobs: Vec<(usize, bool)> =
        (0..workloads.len()).flat_map(|w| [(w, false), (w, true)]).collect();
    for &(w, cached) in &jobs {
        pass(&workloads[w].1, cached, &runtime);
    }
    let mut samples = vec![Vec::new(); jobs.len()];
    let totals = common::interleave(plan.samples(), jobs.len(), |i| {
        let (w, cached) = jobs[i];
        let (total, early, late) = pass(&workloads[w].1, cached, &runtime);
        samples[i].push((early, late));
        total
    });
    let median = |times: Vec<Duration>| common::median_and_spread(times).0;
    let per_call = |t: Duration, calls: usize| t.as_secs_f64() * 1e6 / calls as f64;

    let mut out = String::new();
    let _ =
        writeln!(out, "{} samples, medians; load average before: {load_before}.\n", plan.samples());
    out.push_str("| workload | calls | cache off µs/call | cache on µs/call | on/off |\n");
    out.push_str("|---|---|---|---|---|\n");
    for (w, (name, calls)) in workloads.iter().enumerate() {
        let off = median(totals[2 * w].clone());
        let on = median(totals[2 * w + 1].clone());
        let _ = writeln!(
            out,
            "| {name} | {} | {:.2} | {:.2} | {:.3} |",
            calls.len(),
            per_call(off, calls.len()),
            per_call(on, calls.len()),
            on.as_secs_f64() / off.as_secs_f64()
        );
    }
    let _ = writeln!(out, "\nLive games, µs per call by prefix length:\n");
    out.push_str("| workload | cache | 10–30 plies | 280–300 plies | late/early |\n");
    out.push_str("|---|---|---|---|---|\n");
    for (w, (name, calls)) in workloads.iter().enumerate().skip(1) {
        let calls_in = |range: &std::ops::RangeInclusive<usize>| {
            calls.iter().filter(|c| range.contains(&c.plies)).count()
        };
        let (early_calls, late_calls) = (calls_in(&EARLY), calls_in(&LATE));
        for (i, label) in [(2 * w, "off"), (2 * w + 1, "on")] {
            let early = median(samples[i].iter().map(|s| s.0).collect());
            let late = median(samples[i].iter().map(|s| s.1).collect());
            let (e, l) = (per_call(early, early_calls), per_call(late, late_calls));
            let _ = writeln!(out, "| {name} | {label} | {e:.2} | {l:.2} | {:.2} |", l / e);
        }
    }
    print!("{out}");
    println!("Load average after: {}.", common::load_average());
}
