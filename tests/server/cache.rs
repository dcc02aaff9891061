//! The replay cache never changes an answer: random workloads of live games
//! (growing prefixes), random jumps, mixed notations and options, injected
//! illegal moves and a bound small enough to evict all the time give
//! byte-identical responses with the cache and without it, and the cache
//! stays under its bound. The cached answers are written as the server
//! writes them (`api::wire`), the uncached ones through the generated
//! message: the same bytes.

use arbiter::api::codec::Encode;
use arbiter::api::wire;
use arbiter::cache::{CacheStats, ReplayCache};
use arbiter::proto;
use arbiter_chess::{
    Color, Notation, Position, ReplayOptions, Role, UciMove, per_ply_gate, replay, san_with_after,
};
use prost::Message;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Start positions: the standard one, Kiwipete, and one with an en-passant
/// capture to make.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
];

/// A game as every notation writes it: canonical SAN, a lenient SAN form,
/// and UCI, move by move.
struct Game {
    start: Position,
    san: Vec<String>,
    lenient: Vec<String>,
    uci: Vec<String>,
}

/// A random game of up to `plies` plies; `shuffle` games prefer quiet piece
/// moves, so positions repeat and the clocks run.
fn random_game(rng: &mut SmallRng, plies: usize, shuffle: bool) -> Game {
    let start: Position = STARTS[rng.random_range(0..STARTS.len())].parse().unwrap();
    let mut game = Game { start: start.clone(), san: vec![], lenient: vec![], uci: vec![] };
    let mut pos = start;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let quiet: Vec<_> = moves
            .iter()
            .copied()
            .filter(|m| pos.role_at(m.from()) != Some(Role::Pawn) && pos.piece_at(m.to()).is_none())
            .collect();
        let m = if shuffle && !quiet.is_empty() && rng.random_bool(0.9) {
            quiet[rng.random_range(0..quiet.len())]
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        let after = pos.play(m);
        let san = san_with_after(&pos, m, &after).to_string();
        let lenient = match rng.random_range(0..3) {
            0 => san.trim_end_matches(['+', '#']).to_owned(),
            1 => format!("{san}!"),
            _ => san.replace("O-O", "0-0"),
        };
        game.san.push(san);
        game.lenient.push(lenient);
        game.uci.push(UciMove::from_move(m).to_string());
        pos = after;
    }
    game
}

/// One request of the workload.
struct Request {
    start: Position,
    moves: Vec<String>,
    options: ReplayOptions,
}

/// Sends each game as growing prefixes (steps of 1–3 plies, sometimes a
/// jump back or ahead), in one notation per game with a few requests in
/// another, random answer options, and now and then an illegal token.
fn workload(seed: u64, games: usize, requests: usize) -> Vec<Request> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let pool: Vec<Game> = (0..games)
        .map(|i| {
            let plies = rng.random_range(10..220);
            random_game(&mut rng, plies, i % 3 == 0)
        })
        .collect();
    let notations = [Notation::Auto, Notation::San, Notation::Uci];
    let mut sent = vec![0usize; games];
    let mut notation: Vec<Notation> =
        (0..games).map(|_| notations[rng.random_range(0..3)]).collect();
    (0..requests)
        .map(|_| {
            let g = rng.random_range(0..games);
            let game = &pool[g];
            sent[g] = match rng.random_range(0..20) {
                0 => rng.random_range(0..=game.san.len()),
                _ => (sent[g] + rng.random_range(1..=3)).min(game.san.len()),
            };
            if rng.random_range(0..30) == 0 {
                notation[g] = notations[rng.random_range(0..3)];
            }
            let len = sent[g];
            let mut moves: Vec<String> = (0..len)
                .map(|i| match notation[g] {
                    Notation::Uci => game.uci[i].clone(),
                    Notation::San => game.lenient[i].clone(),
                    Notation::Auto if i % 2 == 0 => game.uci[i].clone(),
                    Notation::Auto => game.san[i].clone(),
                })
                .collect();
            if len > 0 && rng.random_range(0..8) == 0 {
                let at = rng.random_range(0..len);
                moves
                    .insert(at, ["Ke9", "Qxh8", "e1g1", "O-O-O", "a3a4", "Nf3"][at % 6].to_owned());
            }
            let options = ReplayOptions {
                notation: notation[g],
                strict: rng.random_range(0..10) == 0,
                include_fens: rng.random_range(0..6) == 0,
                skip_legal_moves: rng.random_bool(0.5),
                plies_from: match rng.random_range(0..4) {
                    0 => 0,
                    1 => rng.random_range(0..=len),
                    _ => len.saturating_sub(1),
                },
                shredder_fen: rng.random_range(0..4) == 0,
                flagged: match rng.random_range(0..20) {
                    0 => Some(Color::White),
                    1 => Some(Color::Black),
                    _ => None,
                },
                ..ReplayOptions::default()
            };
            Request { start: game.start.clone(), moves, options }
        })
        .collect()
}

/// Answers the workload with a cache of `capacity` bytes, checking every
/// answer against the uncached one byte for byte and the cache's weight
/// against its bound after every request.
fn run(seed: u64, capacity: u64, games: usize, requests: usize) -> CacheStats {
    let cache = ReplayCache::new(capacity).expect("a cache");
    for (i, request) in workload(seed, games, requests).iter().enumerate() {
        check(&cache, request, &format!("request {i} (seed {seed})"));
        let stats = cache.stats();
        assert!(stats.bytes <= cache.capacity(), "request {i}: {stats:?} over {capacity}");
    }
    cache.stats()
}

/// Answers `request` through `cache` and checks the answer against the
/// uncached one byte for byte; returns the uncached one.
fn check(cache: &ReplayCache, request: &Request, label: &str) -> proto::ValidateGameResponse {
    let Request { start, moves, options } = request;
    let texts = moves.iter().collect();
    let mut cached = Vec::new();
    wire::GameAnswer::from(cache.replay(start.clone(), texts, options)).encode_raw(&mut cached);
    let direct = proto::ValidateGameResponse::from(&replay(start.clone(), moves, options));
    assert_eq!(cached, direct.encode_to_vec(), "{label}: {} moves, {options:?}", moves.len());
    direct
}

#[test]
fn a_roomy_cache_answers_as_a_full_replay_and_mostly_resumes() {
    let stats = run(1, 64 << 20, 40, 6000);
    assert_eq!(stats.evictions, 0, "{stats:?}");
    assert!(stats.hits > 3000, "live games should mostly resume: {stats:?}");
}

#[test]
fn a_tiny_cache_evicts_all_the_time_and_still_answers_right() {
    let stats = run(2, 48 << 10, 60, 6000);
    assert!(stats.evictions > 100, "{stats:?}");
    assert!(stats.hits > 0, "{stats:?}");
}

#[test]
fn many_seeds_of_short_workloads_agree() {
    for seed in 10..30 {
        run(seed, 1 << 20, 6, 400);
    }
}

/// Blocked endings, where the final position of nearly every request gets
/// the full dead-position analysis, sent as live games (one ply more each
/// time, now and then twice): the cache answers from the final look it
/// keeps with each entry, or the helpmate it carries over to the next
/// move, as a full replay does.
#[test]
fn kept_final_looks_answer_as_a_full_replay() {
    const ENDINGS: [&str; 4] = [
        "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101",
        "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101",
        "5k2/1bB5/6p1/6P1/8/7p/3K3P/8 w - - 28 101",
        "8/8/8/1p6/1P2b1n1/8/2k1K3/8 w - - 30 101",
    ];
    let mut rng = SmallRng::seed_from_u64(22);
    let cache = ReplayCache::new(64 << 20).expect("a cache");
    let mut gated = 0;
    for (g, fen) in ENDINGS.iter().cycle().take(12).enumerate() {
        let start: Position = fen.parse().unwrap();
        let (mut pos, mut moves) = (start.clone(), Vec::new());
        for _ in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.random_range(0..legal.len())];
            let after = pos.play(m);
            moves.push(san_with_after(&pos, m, &after).to_string());
            pos = after;
            gated += usize::from(per_ply_gate(&pos));
            let mut over = false;
            for _ in 0..rng.random_range(1..=2) {
                let options = ReplayOptions {
                    plies_from: moves.len() - 1,
                    skip_legal_moves: rng.random_bool(0.5),
                    ..ReplayOptions::default()
                };
                let request = Request { start: start.clone(), moves: moves.clone(), options };
                let answer = check(&cache, &request, &format!("game {g}"));
                over =
                    answer.outcome.is_some_and(|o| o.result != proto::GameResult::Ongoing as i32);
            }
            if over {
                break;
            }
        }
    }
    assert!(gated > 300, "{gated} final positions behind the gate");
    assert!(cache.stats().hits > 300, "{:?}", cache.stats());
}
