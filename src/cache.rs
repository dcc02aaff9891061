//! A bounded cache of replay state, so that a request whose move list
//! extends one seen recently replays only the new moves.
//!
//! A live game re-sends its whole move list after every move; without help
//! each request replays the game from the start. The cache keeps, for a
//! recently answered move list, the [`Replayed`] game after its legal prefix
//! (position, repetition history, clocks, and every accepted move with its
//! SAN), keyed by everything that decides that state: the start position,
//! the notation, strict mode and the move texts. A request looks for the
//! longest of its last few prefixes that is cached, takes that entry out,
//! plays only the moves that follow, answers, and puts the longer state
//! back. The answer is the one a full replay gives, byte for byte:
//!
//! - keys are compared in full, never by hash alone (a hash can be forged
//!   by whoever sends the moves), and the hash that spreads them is keyed
//!   at random per process;
//! - the options that only shape the answer (`plies_from`, FENs, legal
//!   moves) are not part of the key; FENs are not cached, so a request that
//!   wants FENs of plies inside the cached prefix replays from scratch;
//! - the final position's legal moves with their SAN are kept with the
//!   entry once a request repeating the list has asked for them (retries,
//!   several clients following one game); they are never carried over to a
//!   longer list.
//!
//! The bound is in bytes, counted from what each entry holds (key texts,
//! history, accepted moves); `quick_cache` evicts by its CLOCK-Pro-like
//! policy when the weight passes the bound.

use std::hash::{BuildHasher, Hash, Hasher};
use std::mem::size_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use metrics::{Counter, Gauge};
use quick_cache::sync::Cache;
use quick_cache::{Equivalent, Lifecycle, Weighter};

use crate::api::wire::MoveTexts;
use crate::chess::Bitboard;
use crate::chess::Position;
use crate::chess::game::{
    LegalMove, Notation, Replay, ReplayOptions, Replayed, legal_moves_with_san,
};
use crate::telemetry::prometheus::{
    CACHE_BYTES, CACHE_ENTRIES, CACHE_EVICTIONS, CACHE_HITS, CACHE_MISSES,
};

/// Legal prefixes shorter than this are not kept: they replay in about the
/// time a cache round trip takes, and would crowd out the long games.
pub const MIN_PLIES: usize = 8;

/// How many prefixes of a request are looked up, longest first: the whole
/// list, then one move shorter, and so on. A live game usually extends the
/// previous request by one or two plies, but behind a proxy that spreads a
/// game's calls over replicas a replica sees it again only every few plies.
/// Each probe hashes its prefix, so a request that misses pays for all of
/// them: about 4% of an 80-ply call. With 4 probes that halves, but the
/// hit rate behind a round-robin proxy over 3 replicas fell from 78% to
/// 59% (`.ci/scale-proof.py`), and every such miss replays a whole game.
pub const PROBES: usize = 8;

/// The cache's metric handles, registered on first use: every call
/// records a hit or a miss and the new size.
static HITS: OnceLock<Counter> = OnceLock::new();
static MISSES: OnceLock<Counter> = OnceLock::new();
static EVICTIONS: OnceLock<Counter> = OnceLock::new();
static BYTES: OnceLock<Gauge> = OnceLock::new();
static ENTRIES: OnceLock<Gauge> = OnceLock::new();

fn cached_counter(slot: &'static OnceLock<Counter>, name: &'static str) -> &'static Counter {
    slot.get_or_init(|| metrics::counter!(name))
}

/// Counts kept by the cache; also exported as Prometheus metrics
/// (`arbiter_cache_*`).
#[derive(Debug, Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

/// A snapshot of the cache's counters and size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests that resumed from a cached prefix.
    pub hits: u64,
    /// Requests that replayed from the start.
    pub misses: u64,
    /// Entries dropped to stay under the bound.
    pub evictions: u64,
    /// Weight of the entries held, in bytes.
    pub bytes: u64,
    /// Entries held.
    pub entries: u64,
}

/// The replay cache, shared by every call of a server.
pub struct ReplayCache {
    entries: Cache<Key, Arc<Entry>, ByBytes, ahash::RandomState, CountEvictions>,
    /// Keyed at random: callers cannot choose moves whose hashes collide.
    hasher: ahash::RandomState,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for ReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayCache").field("stats", &self.stats()).finish()
    }
}

impl ReplayCache {
    /// A cache holding at most `capacity_bytes` of replay state, or `None`
    /// when the capacity is 0 (the cache is off).
    pub fn new(capacity_bytes: u64) -> Option<ReplayCache> {
        if capacity_bytes == 0 {
            return None;
        }
        let counters = Arc::new(Counters::default());
        // A 300-ply game weighs about 20 KiB; the estimate only sizes the map.
        let estimated_items = usize::try_from(capacity_bytes / 8192).unwrap_or(usize::MAX).max(64);
        let options = quick_cache::OptionsBuilder::new()
            .estimated_items_capacity(estimated_items)
            .weight_capacity(capacity_bytes)
            .build()
            .expect("estimated items and weight capacity are both set");
        let entries = Cache::with_options(
            options,
            ByBytes,
            ahash::RandomState::new(),
            CountEvictions(Arc::clone(&counters)),
        );
        Some(ReplayCache { entries, hasher: ahash::RandomState::new(), counters })
    }

    /// Replays `moves` from `start` as [`crate::chess::game::replay`] does,
    /// resuming from the longest cached prefix when there is one.
    pub fn replay(&self, start: Position, moves: &MoveTexts, options: &ReplayOptions) -> Replay {
        let resumed = self.resume(start, moves, options);
        self.finish(resumed, moves, options)
    }

    /// The first half of [`ReplayCache::replay`], cheap enough for any
    /// thread: takes the state of the longest cached prefix of `moves` out
    /// of the cache (or starts afresh), so that the caller knows how many
    /// moves remain before it decides where to play them.
    pub fn resume(&self, start: Position, moves: &MoveTexts, options: &ReplayOptions) -> Resumed {
        let id = GameId { start: &start, notation: options.notation, strict: options.strict };
        // FENs are not cached: with them, only a prefix that ends before the
        // first returned ply may be resumed.
        let longest =
            if options.include_fens { options.plies_from.min(moves.len()) } else { moves.len() };
        let probed = longest.saturating_sub(PROBES - 1).max(MIN_PLIES)..=longest;
        let mut hashes = PrefixHashes::default();
        let found = probed.rev().find_map(|len| {
            let probe = self.probe(id, moves, len);
            hashes.push((len, probe.hash));
            self.entries.remove(&probe)
        });
        let (entry, key) = match found {
            Some((key, entry)) => {
                self.counters.hits.fetch_add(1, Ordering::Relaxed);
                cached_counter(&HITS, CACHE_HITS).increment(1);
                (Arc::try_unwrap(entry).unwrap_or_else(|shared| (*shared).clone()), Some(key))
            }
            None => {
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                cached_counter(&MISSES, CACHE_MISSES).increment(1);
                (Entry { replayed: Replayed::new(start.clone()), legal_moves: None }, None)
            }
        };
        Resumed { start, entry, key, hashes }
    }

    /// The second half of [`ReplayCache::replay`]: plays the moves that
    /// remain after `resumed` (which [`ReplayCache::resume`] gave for the
    /// same `moves` and `options`), answers, and keeps the longer state.
    pub fn finish(&self, resumed: Resumed, moves: &MoveTexts, options: &ReplayOptions) -> Replay {
        let Resumed { start, entry: Entry { mut replayed, legal_moves }, key, hashes } = resumed;
        let done = replayed.plies().len();
        let tail = replayed.extend(&moves.tail(done), options);
        let len = replayed.plies().len();
        // The final position's legal moves stay with the entry once a request
        // has repeated its list (a retry, a second client of the same game),
        // so that the next repeat does not list them again. Most lists are
        // sent once: those keep nothing, and pay no copy.
        let repeated = len == done;
        let mut legal_moves = legal_moves.filter(|_| repeated);
        let answer = replayed.answer_with(tail, options, |position| match &legal_moves {
            Some(kept) => kept.clone(),
            None => {
                let listed = legal_moves_with_san(position, Bitboard::FULL);
                if repeated {
                    legal_moves = Some(listed.clone());
                }
                listed
            }
        });
        if len < MIN_PLIES {
            return answer;
        }
        let id = GameId { start: &start, notation: options.notation, strict: options.strict };
        let looked_up = hashes.iter().find(|(probed, _)| *probed == len);
        let key = match (key, looked_up) {
            (Some(key), _) if done == len => key,
            (_, Some(&(_, hash))) => Key::new(hash, &id, moves, len),
            _ => {
                // Not looked up by `resume`: an entry may be there, and
                // replacing it would count as an eviction.
                let probe = self.probe(id, moves, len);
                self.entries.remove(&probe);
                Key::new(probe.hash, &id, moves, len)
            }
        };
        self.entries.insert(key, Arc::new(Entry { replayed, legal_moves }));
        BYTES.get_or_init(|| metrics::gauge!(CACHE_BYTES)).set(self.entries.weight() as f64);
        ENTRIES.get_or_init(|| metrics::gauge!(CACHE_ENTRIES)).set(self.entries.len() as f64);
        answer
    }

    /// The counters and the current size.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.counters.hits.load(Ordering::Relaxed),
            misses: self.counters.misses.load(Ordering::Relaxed),
            evictions: self.counters.evictions.load(Ordering::Relaxed),
            bytes: self.entries.weight(),
            entries: self.entries.len() as u64,
        }
    }

    /// The largest weight the cache may hold, in bytes.
    pub fn capacity(&self) -> u64 {
        self.entries.capacity()
    }

    /// The lookup of the first `len` of `moves`: its hash covers the start,
    /// the options that decide the replay, the end of each text (so no two
    /// lists feed the hasher the same bytes) and the texts, in two slices.
    fn probe<'a>(&self, id: GameId<'a>, moves: &'a MoveTexts, len: usize) -> Probe<'a> {
        let (texts, ends) = moves.prefix(len);
        let mut hasher = self.hasher.build_hasher();
        id.hash(&mut hasher);
        ends.hash(&mut hasher);
        texts.hash(&mut hasher);
        Probe { id, texts, ends, hash: hasher.finish() }
    }
}

/// What the cache keeps of a move list: the replay, and the final
/// position's legal moves with their SAN once a repeat asked for them.
#[derive(Clone, Debug)]
struct Entry {
    replayed: Replayed,
    legal_moves: Option<Vec<LegalMove>>,
}

impl Entry {
    fn heap_bytes(&self) -> usize {
        self.replayed.heap_bytes()
            + self.legal_moves.as_ref().map_or(0, |legal| legal.capacity() * size_of::<LegalMove>())
    }
}

/// A replay taken out of the cache (or begun afresh) by
/// [`ReplayCache::resume`], to be finished by [`ReplayCache::finish`].
#[derive(Debug)]
pub struct Resumed {
    start: Position,
    entry: Entry,
    /// The key it was cached under, if it was.
    key: Option<Key>,
    /// The prefix lengths `resume` looked up, with their hashes.
    hashes: PrefixHashes,
}

impl Resumed {
    /// How many moves are already played.
    pub fn plies_done(&self) -> usize {
        self.entry.replayed.plies().len()
    }
}

/// Prefix lengths and their hashes.
type PrefixHashes = arrayvec::ArrayVec<(usize, u64), PROBES>;

/// What, besides the move texts, decides the state a replay reaches.
#[derive(Clone, Copy)]
struct GameId<'a> {
    start: &'a Position,
    notation: Notation,
    strict: bool,
}

impl Hash for GameId<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // The FEN fields that matter are all in the Zobrist key but the
        // clocks; equal keys are still compared in full.
        state.write_u64(self.start.zobrist());
        state.write_u32(self.start.halfmove_clock());
        state.write_u32(self.start.fullmove_number());
        self.notation.hash(state);
        self.strict.hash(state);
    }
}

/// A cached move list, owning its texts. Derived equality compares every
/// field, the hash first so that most unequal keys differ at once.
#[derive(Debug, PartialEq, Eq)]
struct Key {
    hash: u64,
    start: Position,
    notation: Notation,
    strict: bool,
    moves: MoveTexts,
}

impl Key {
    /// The key of the first `len` of `moves`.
    fn new(hash: u64, id: &GameId<'_>, moves: &MoveTexts, len: usize) -> Key {
        Key {
            hash,
            start: id.start.clone(),
            notation: id.notation,
            strict: id.strict,
            moves: moves.truncated(len),
        }
    }

    fn weight(&self) -> usize {
        size_of::<Key>() + self.moves.heap_bytes()
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A lookup of one prefix of a request, borrowing its texts.
struct Probe<'a> {
    id: GameId<'a>,
    texts: &'a str,
    ends: &'a [u32],
    hash: u64,
}

impl Hash for Probe<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Equivalent<Key> for Probe<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        let (texts, ends) = key.moves.prefix(key.moves.len());
        self.hash == key.hash
            && *self.id.start == key.start
            && self.id.notation == key.notation
            && self.id.strict == key.strict
            && self.ends == ends
            && self.texts == texts
    }
}

/// Weighs an entry by the bytes it holds.
#[derive(Clone, Copy)]
struct ByBytes;

/// What an entry costs beyond its key and value: the `Arc`'s counts and the
/// cache's own slot.
const ENTRY_OVERHEAD: usize = 64;

impl Weighter<Key, Arc<Entry>> for ByBytes {
    fn weight(&self, key: &Key, value: &Arc<Entry>) -> u64 {
        let bytes = key.weight() + size_of::<Entry>() + value.heap_bytes() + ENTRY_OVERHEAD;
        bytes as u64
    }
}

/// Counts evictions; the evicted entry is dropped at once.
#[derive(Clone)]
struct CountEvictions(Arc<Counters>);

impl Lifecycle<Key, Arc<Entry>> for CountEvictions {
    type RequestState = ();

    fn begin_request(&self) -> Self::RequestState {}

    fn on_evict(&self, _state: &mut Self::RequestState, _key: Key, _value: Arc<Entry>) {
        self.0.evictions.fetch_add(1, Ordering::Relaxed);
        cached_counter(&EVICTIONS, CACHE_EVICTIONS).increment(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::game::replay;

    fn texts(moves: &[&str]) -> MoveTexts {
        moves.iter().collect()
    }

    const GAME: &[&str] =
        &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3"];

    #[test]
    fn an_extended_list_resumes_and_answers_as_a_full_replay() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        for len in 1..=GAME.len() {
            let moves = texts(&GAME[..len]);
            let cached = cache.replay(Position::default(), &moves, &options);
            assert_eq!(cached, replay(Position::default(), &GAME[..len], &options), "{len} plies");
        }
        let stats = cache.stats();
        // Prefixes of MIN_PLIES and more are kept; each later one resumes.
        assert_eq!(stats.hits as usize, GAME.len() - MIN_PLIES);
        assert_eq!(stats.entries, 1, "a resumed entry is replaced, not copied");
    }

    #[test]
    fn a_repeated_list_answers_its_legal_moves_as_a_full_replay() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let full = ReplayOptions::default();
        let skip = ReplayOptions { skip_legal_moves: true, ..full };
        let with_illegal: Vec<&str> = GAME.iter().copied().chain(["Ke9"]).collect();
        let longer: Vec<&str> = GAME.iter().copied().chain(["Na5"]).collect();
        let requests: [(&[&str], ReplayOptions); 6] = [
            (GAME, skip),
            (GAME, full),
            (GAME, full),
            (&with_illegal, full),
            (&longer, skip),
            (&longer, full),
        ];
        for (i, (moves, options)) in requests.into_iter().enumerate() {
            let cached = cache.replay(Position::default(), &texts(moves), &options);
            assert_eq!(cached, replay(Position::default(), moves, &options), "request {i}");
        }
        assert_eq!(cache.stats().hits, 5);
    }

    #[test]
    fn the_texts_are_compared_not_only_their_hash() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        let moves = texts(&GAME[..10]);
        cache.replay(Position::default(), &moves, &options);
        let id = GameId { start: &Position::default(), notation: Notation::Auto, strict: false };
        let mut other = GAME[..10].to_vec();
        other[3] = "Nf6";
        let other = texts(&other);
        let hash = cache.probe(id, &moves, 10).hash;
        // The right hash with other texts does not match.
        assert!(cache.entries.peek(&Probe { hash, ..cache.probe(id, &other, 10) }).is_none());
        assert!(cache.entries.peek(&cache.probe(id, &moves, 10)).is_some());
    }

    #[test]
    fn fens_inside_the_cached_prefix_are_replayed() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let moves = texts(GAME);
        cache.replay(Position::default(), &texts(&GAME[..10]), &ReplayOptions::default());
        for plies_from in [0, 9, 10, 12] {
            let options = ReplayOptions { include_fens: true, plies_from, ..Default::default() };
            let cached = cache.replay(Position::default(), &moves, &options);
            assert_eq!(cached, replay(Position::default(), GAME, &options), "from {plies_from}");
        }
    }

    #[test]
    fn a_zero_capacity_is_no_cache() {
        assert!(ReplayCache::new(0).is_none());
    }
}
