//! A bounded cache of replay state, so that a request whose move list
//! extends one seen recently replays only the new moves.
//!
//! A live game re-sends its whole move list after every move; without help
//! each request replays the game from the start. The cache keeps, for a
//! recently answered move list, the [`Replayer`] of its legal prefix
//! (position, repetition history, clocks, and every accepted move with its
//! SAN), keyed by everything that decides that state: the start position,
//! the notation, strict mode and the move texts. A request looks for the
//! longest of its last few prefixes that is cached, takes that entry out,
//! plays only the moves that follow, answers, and puts the longer state
//! back; a list cached whole is answered from its entry in place. The
//! answer is the one a full replay gives, byte for byte:
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
//!   longer list;
//! - the final position's dead-position analysis is kept with the entry
//!   (what it found, with its helpmate: [`Replayer::look_at_end`]), so a
//!   repeat does not analyse again, and the next move answers from the
//!   helpmate carried over to it while the line holds; a helpmate proves a
//!   position alive, as a new analysis would find.
//!
//! A list that no entry helped is kept only when its game is being
//! followed: when the list, or one of the prefixes it probed, was answered
//! recently (a small table of their hashes remembers the lists answered
//! without an entry). Games sent once each, as a pipeline re-verifying
//! finished games sends them, take no entry then: a full cache that takes
//! an entry for every such list and evicts another costs the miss more in
//! memory traffic than the replay itself. A live
//! game is kept from its second request on, a repeated list from its
//! second sending.
//!
//! The bound is in bytes, counted from what each entry holds (key texts,
//! history, accepted moves, the final look's helpmate); `quick_cache`
//! evicts by its CLOCK-Pro-like policy when the weight passes the bound.

use std::hash::{BuildHasher, Hash, Hasher};
use std::mem::size_of;
use std::ops::{Range, RangeInclusive};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use metrics::Counter;
use quick_cache::sync::Cache;
use quick_cache::{Equivalent, Lifecycle, Weighter};

use crate::move_texts::MoveTexts;
use crate::telemetry::prometheus::{
    CACHE_BYTES, CACHE_ENTRIES, CACHE_EVICTIONS, CACHE_HITS, CACHE_MISSES, CACHE_NOT_KEPT,
};
use arbiter_chess::{
    GamePosition, LegalMove, Notation, Replay, ReplayOptions, ReplayTail, Replayer,
};

/// Legal prefixes shorter than this are not kept: they replay in about the
/// time a cache round trip takes, and would crowd out the long games.
pub const MIN_PLIES: usize = 8;

/// How many prefixes of a request are looked up, longest first: the whole
/// list, then one move shorter, and so on. A live game usually extends the
/// previous request by one or two plies, but behind a proxy that spreads a
/// game's calls over replicas a replica sees it again only every few plies.
/// The probes share their hashing (see `BLOCKS`), so more of them cost
/// little beyond a lookup each, while fewer lose many of the hits behind a
/// round-robin proxy over a few replicas (`.ci/scale-proof.py` measures
/// it), and every such miss replays a whole game.
pub const PROBES: usize = 8;

/// How a prefix's hash takes its moves: in whole blocks of 64, then whole
/// blocks of 8, then one by one, each block one write for its texts and one
/// for their ends. The prefixes a request probes differ only in their last
/// few moves, so they share the work of the blocks before: a request hashes
/// its texts about once, however many prefixes it probes, and a long list
/// in few writes.
const BLOCKS: [usize; 3] = [64, 8, 1];
// Each size divides the one before, and the last takes a single move.
const _: () = assert!(
    BLOCKS[0].is_multiple_of(BLOCKS[1]) && BLOCKS[1].is_multiple_of(BLOCKS[2]) && BLOCKS[2] == 1
);

/// The cache's counters, registered on first use: every call records a
/// hit or a miss.
static HITS: OnceLock<Counter> = OnceLock::new();
static MISSES: OnceLock<Counter> = OnceLock::new();
static EVICTIONS: OnceLock<Counter> = OnceLock::new();
static NOT_KEPT: OnceLock<Counter> = OnceLock::new();

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
    not_kept: AtomicU64,
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
    /// Replays from the start (of at least [`MIN_PLIES`] legal plies) not
    /// kept, their game not being followed.
    pub not_kept: u64,
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
    seen: Seen,
    counters: Arc<Counters>,
}

/// The hashes of lists answered without an entry lately, one per slot (a
/// later list whose hash falls in the same slot replaces it). A false
/// answer either way only decides whether an entry is kept: entries are
/// still found by their texts.
struct Seen {
    slots: Box<[AtomicU64]>,
}

impl Seen {
    /// About four slots for each entry the cache may hold (8 KiB each, a
    /// 300-ply game weighing about 20 KiB): 32 Ki slots, 256 KiB, for the
    /// default 64 MiB.
    fn new(capacity_bytes: u64) -> Seen {
        let slots = (capacity_bytes / 2048).clamp(1024, 1 << 22).next_power_of_two();
        Seen { slots: (0..slots).map(|_| AtomicU64::new(0)).collect() }
    }

    fn slot(&self, hash: u64) -> &AtomicU64 {
        // The slots are a power of two, fewer than 2^32.
        &self.slots[(hash as usize) & (self.slots.len() - 1)]
    }

    fn contains(&self, hash: u64) -> bool {
        self.slot(hash).load(Ordering::Relaxed) == hash
    }

    fn insert(&self, hash: u64) {
        self.slot(hash).store(hash, Ordering::Relaxed);
    }
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
        Some(ReplayCache {
            entries,
            hasher: ahash::RandomState::new(),
            seen: Seen::new(capacity_bytes),
            counters,
        })
    }

    /// Replays `moves` from `start` as [`arbiter_chess::replay`] does,
    /// resuming from the longest cached prefix when there is one.
    pub fn replay(
        &self,
        start: impl Into<GamePosition>,
        moves: MoveTexts,
        options: &ReplayOptions,
    ) -> Replay {
        let prefix = self.resume(start.into(), &moves, options);
        self.finish(prefix, moves, options)
    }

    /// The first half of [`ReplayCache::replay`], cheap enough for any
    /// thread: takes the state of the longest cached prefix of `moves` out
    /// of the cache (or starts afresh), so that the caller knows how many
    /// moves remain before it decides where to play them. A list that is
    /// cached whole (a retry, a second client of the same game) is shared
    /// rather than taken, so that repeats sent at the same time all find
    /// it.
    pub fn resume(
        &self,
        start: GamePosition,
        moves: &MoveTexts,
        options: &ReplayOptions,
    ) -> CachedPrefix {
        let id = GameId { start: &start, notation: options.notation, strict: options.strict };
        // FENs are not cached: with them, only a prefix that ends before the
        // first returned ply may be resumed.
        let longest =
            if options.include_fens { options.plies_from.min(moves.len()) } else { moves.len() };
        let hashes = match longest.saturating_sub(PROBES - 1).max(MIN_PLIES) {
            shortest if shortest <= longest => self.prefix_hashes(id, moves, shortest..=longest),
            _ => PrefixHashes::new(),
        };
        let mut probes = hashes.iter().rev().peekable();
        let whole = probes.next_if(|&&(len, _)| len == moves.len());
        let shared =
            whole.and_then(|&(len, hash)| self.entries.get(&Probe::new(id, moves, len, hash)));
        let found = match shared {
            Some(entry) => Some(Found::Shared(entry)),
            None => probes.find_map(|&(len, hash)| {
                let (key, entry) = self.entries.remove(&Probe::new(id, moves, len, hash))?;
                Some(Found::Taken(
                    Arc::try_unwrap(entry).unwrap_or_else(|shared| (*shared).clone()),
                    key,
                ))
            }),
        };
        let found = match found {
            Some(found) => {
                self.counters.hits.fetch_add(1, Ordering::Relaxed);
                cached_counter(&HITS, CACHE_HITS).increment(1);
                found
            }
            None => {
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                cached_counter(&MISSES, CACHE_MISSES).increment(1);
                Found::Fresh
            }
        };
        CachedPrefix { start, found, hashes }
    }

    /// The second half of [`ReplayCache::replay`]: plays the moves that
    /// remain after `prefix` (which [`ReplayCache::resume`] gave for the
    /// same `moves` and `options`), answers, and keeps the longer state,
    /// with `moves` (cut to the legal prefix) as its key.
    pub fn finish(
        &self,
        prefix: CachedPrefix,
        moves: MoveTexts,
        options: &ReplayOptions,
    ) -> Replay {
        let played = self.play(prefix, moves, options);
        self.answer(played, options)
    }

    /// The moves of [`ReplayCache::finish`]: plays those that remain after
    /// `prefix`, and stops before the final position's look, which
    /// [`ReplayCache::answer`] takes ([`PlayedList::final_look_pending`] says
    /// whether it may run long).
    pub fn play(
        &self,
        prefix: CachedPrefix,
        moves: MoveTexts,
        options: &ReplayOptions,
    ) -> PlayedList {
        let CachedPrefix { start, found, hashes } = prefix;
        let (entry, key) = match found {
            Found::Shared(entry) => {
                let &(len, hash) = hashes.last().expect("a shared entry was looked up");
                let key = Key::new(hash, start, options, moves, len);
                return PlayedList(Resumed::Repeat(entry, key));
            }
            Found::Taken(entry, key) => (entry, Some(key)),
            // Started here, not in `resume`: the start position may get the
            // unwinnability analysis, work for where `play` runs.
            Found::Fresh => (
                Entry {
                    replayer: Replayer::new(start.clone(), options.analysis),
                    legal_moves: None,
                },
                None,
            ),
        };
        let Entry { mut replayer, legal_moves } = entry;
        let done = replayer.len();
        let tail = replayer.extend(&moves.tail(done), options);
        PlayedList(Resumed::Extended(Box::new(Extended {
            start,
            hashes,
            key,
            moves,
            entry: Entry { replayer, legal_moves },
            done,
            tail,
        })))
    }

    /// The answer to what [`ReplayCache::play`] played: the final
    /// position's look, the answer, and the longer state kept.
    pub fn answer(&self, played: PlayedList, options: &ReplayOptions) -> Replay {
        let extended = match played.0 {
            Resumed::Repeat(entry, key) => return self.answer_repeat(&entry, key, options),
            Resumed::Extended(extended) => *extended,
        };
        let Extended { start, hashes, key, moves, entry, done, tail } = extended;
        let Entry { mut replayer, legal_moves } = entry;
        // The final look's finding stays with the entry: a repeat answers
        // from it, the next move from the helpmate carried over.
        replayer.look_at_end();
        let len = replayer.len();
        // The final position's legal moves stay with the entry once a request
        // has repeated its list (a retry, a second client of the same game),
        // so that the next repeat does not list them again. Most lists are
        // sent once: those keep nothing, and pay no copy.
        let repeated = len == done;
        let mut legal_moves = legal_moves.filter(|_| repeated);
        let answer = replayer.answer_with(tail, options, |replayer| match &legal_moves {
            Some(kept) => kept.clone(),
            None => {
                let listed = replayer.legal_moves(None);
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
        let looked_up = hashes.iter().find(|(probed, _)| *probed == len).map(|&(_, hash)| hash);
        let hash = looked_up.unwrap_or_else(|| {
            let [(_, hash)] = self.prefix_hashes(id, &moves, len..=len)[..] else {
                unreachable!("one length, one hash")
            };
            hash
        });
        if key.is_none() && !self.followed(&hashes, hash) {
            return answer;
        }
        let key = match key {
            Some(key) if done == len => key,
            _ => {
                if looked_up.is_none() {
                    // Not looked up by `resume`: an entry may be there, and
                    // replacing it would count as an eviction.
                    self.entries.remove(&Probe::new(id, &moves, len, hash));
                }
                Key::new(hash, start, options, moves, len)
            }
        };
        self.entries.insert(key, Arc::new(Entry { replayer, legal_moves }));
        answer
    }

    /// Whether a list that no entry helped is worth an entry: whether its
    /// game is followed, the list (legal prefix `hash`) or one of the
    /// prefixes it `probed` having been answered lately. If not, it is
    /// remembered, so that the next request of its game keeps one.
    fn followed(&self, probed: &PrefixHashes, hash: u64) -> bool {
        if self.seen.contains(hash) || probed.iter().any(|&(_, probed)| self.seen.contains(probed))
        {
            return true;
        }
        self.seen.insert(hash);
        self.counters.not_kept.fetch_add(1, Ordering::Relaxed);
        cached_counter(&NOT_KEPT, CACHE_NOT_KEPT).increment(1);
        false
    }

    /// Answers a list cached whole from its `entry`, left in place. The
    /// first such repeat that asks for the final legal moves lists them and
    /// keeps them with a copy of the entry, under `key`.
    fn answer_repeat(&self, entry: &Entry, key: Key, options: &ReplayOptions) -> Replay {
        let mut listed = None;
        let answer = entry.replayer.answer_with(ReplayTail::default(), options, |replayer| {
            entry.legal_moves.clone().unwrap_or_else(|| {
                let legal_moves = replayer.legal_moves(None);
                listed = Some(legal_moves.clone());
                legal_moves
            })
        });
        if let Some(legal_moves) = listed {
            let kept = Entry { replayer: entry.replayer.clone(), legal_moves: Some(legal_moves) };
            // Replacing the entry in place would count as an eviction.
            self.entries.remove(&key);
            self.entries.insert(key, Arc::new(kept));
        }
        answer
    }

    /// Sets the size gauges (`arbiter_cache_bytes`, `arbiter_cache_entries`)
    /// from the cache as it is now. Called before each scrape rather than on
    /// every call: summing the size locks each of the cache's shards.
    pub fn publish_size(&self) {
        let CacheStats { bytes, entries, .. } = self.stats();
        metrics::gauge!(CACHE_BYTES).set(bytes as f64);
        metrics::gauge!(CACHE_ENTRIES).set(entries as f64);
    }

    /// The counters and the current size.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.counters.hits.load(Ordering::Relaxed),
            misses: self.counters.misses.load(Ordering::Relaxed),
            evictions: self.counters.evictions.load(Ordering::Relaxed),
            not_kept: self.counters.not_kept.load(Ordering::Relaxed),
            bytes: self.entries.weight(),
            entries: self.entries.len() as u64,
        }
    }

    /// The largest weight the cache may hold, in bytes.
    pub fn capacity(&self) -> u64 {
        self.entries.capacity()
    }

    /// The hashes of the first `lens` of `moves`, shortest first. A hash
    /// covers the start, the options that decide the replay, the texts and
    /// the end of each (so no two lists feed the hasher the same bytes), in
    /// [`BLOCKS`]: each prefix's hash depends on its own moves only,
    /// whatever else is probed with it.
    fn prefix_hashes(
        &self,
        id: GameId<'_>,
        moves: &MoveTexts,
        lens: RangeInclusive<usize>,
    ) -> PrefixHashes {
        let (texts, ends) = moves.span(0..*lens.end());
        let offset = |len: usize| len.checked_sub(1).map_or(0, |last| ends[last] as usize);
        let feed = |hasher: &mut ahash::AHasher, range: Range<usize>| {
            hasher.write(&texts.as_bytes()[offset(range.start)..offset(range.end)]);
            u32::hash_slice(&ends[range], hasher);
        };
        // The hasher after the blocks of each size so far: `at` moves in all.
        let mut hashers = [(); BLOCKS.len()].map(|()| self.hasher.build_hasher());
        id.hash(&mut hashers[0]);
        let mut at = 0;
        for (level, &size) in BLOCKS.iter().enumerate() {
            if level > 0 {
                hashers[level] = hashers[level - 1].clone();
            }
            while at + size <= *lens.start() {
                feed(&mut hashers[level], at..at + size);
                at += size;
            }
        }
        let finest = BLOCKS.len() - 1;
        let mut hashes = PrefixHashes::new();
        hashes.push((at, hashers[finest].clone().finish()));
        for len in at + 1..=*lens.end() {
            // The largest block ending here; the finer ones start after it.
            let level = BLOCKS.iter().position(|&size| len.is_multiple_of(size)).unwrap_or(finest);
            feed(&mut hashers[level], len - BLOCKS[level]..len);
            for finer in level + 1..BLOCKS.len() {
                hashers[finer] = hashers[level].clone();
            }
            hashes.push((len, hashers[finest].clone().finish()));
        }
        hashes
    }
}

/// What the cache keeps of a move list: the replay, and the final
/// position's legal moves with their SAN once a repeat asked for them.
#[derive(Clone, Debug)]
struct Entry {
    replayer: Replayer,
    legal_moves: Option<Vec<LegalMove>>,
}

impl Entry {
    fn heap_bytes(&self) -> usize {
        self.replayer.heap_bytes()
            + self.legal_moves.as_ref().map_or(0, |legal| legal.capacity() * size_of::<LegalMove>())
    }
}

/// The longest cached prefix of a move list that [`ReplayCache::resume`]
/// found (taken out of the cache, or shared when it is the whole list; or
/// none, and the replay starts afresh), with the start position and the
/// prefixes probed, to be finished by [`ReplayCache::finish`].
#[derive(Debug)]
pub struct CachedPrefix {
    start: GamePosition,
    found: Found,
    /// The prefix lengths `resume` looked up, with their hashes.
    hashes: PrefixHashes,
}

impl CachedPrefix {
    /// How many moves are already played.
    pub fn plies_done(&self) -> usize {
        match &self.found {
            Found::Shared(entry) => entry.replayer.len(),
            Found::Taken(entry, _) => entry.replayer.len(),
            Found::Fresh => 0,
        }
    }
}

/// What [`ReplayCache::resume`] found.
// Held for one call on the stack; boxing the entry taken would cost an
// allocation per hit.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Found {
    /// The whole list, left in the cache.
    Shared(Arc<Entry>),
    /// A prefix, taken out of the cache with its key, to be extended and
    /// put back.
    Taken(Entry, Key),
    /// Nothing: a replay from the start.
    Fresh,
}

/// The moves of a list played by [`ReplayCache::play`], waiting for
/// [`ReplayCache::answer`].
#[derive(Debug)]
pub struct PlayedList(Resumed);

#[derive(Debug)]
enum Resumed {
    /// The whole list was cached: its entry, left in place, and its key.
    Repeat(Arc<Entry>, Key),
    /// The moves after a cached prefix (or all of them), played.
    Extended(Box<Extended>),
}

/// A list whose moves were played past what the cache held.
#[derive(Debug)]
struct Extended {
    start: GamePosition,
    hashes: PrefixHashes,
    /// The key of the entry the replay resumed from, if any.
    key: Option<Key>,
    moves: MoveTexts,
    entry: Entry,
    /// The plies the entry held before.
    done: usize,
    tail: ReplayTail,
}

impl PlayedList {
    /// Whether the answer will give the final position the full
    /// dead-position analysis, which may take up to about a second: then it
    /// belongs on the blocking pool. A repeat answers from its entry's
    /// finding.
    pub fn final_look_pending(&self) -> bool {
        match &self.0 {
            Resumed::Repeat(..) => false,
            Resumed::Extended(extended) => extended.entry.replayer.final_look_pending(),
        }
    }
}

/// Prefix lengths and their hashes, shortest first.
type PrefixHashes = arrayvec::ArrayVec<(usize, u64), PROBES>;

/// What, besides the move texts, decides the state a replay reaches.
#[derive(Clone, Copy)]
struct GameId<'a> {
    start: &'a GamePosition,
    notation: Notation,
    strict: bool,
}

impl Hash for GameId<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // The FEN fields that matter are all in the Zobrist key (a
        // variant's pockets and checks too) but the clocks; equal keys are
        // still compared in full.
        state.write_u64(self.start.zobrist());
        state.write_u32(self.start.halfmove_clock());
        state.write_u32(self.start.fullmove_number());
        // Games under other rules from one placement answer differently
        // (castling in UCI, the variant's own rules): the rules are part of
        // the key.
        self.start.rules().hash(state);
        self.notation.hash(state);
        self.strict.hash(state);
    }
}

/// A cached move list, owning its texts. Derived equality compares every
/// field, the hash first so that most unequal keys differ at once.
#[derive(Debug, PartialEq, Eq)]
struct Key {
    hash: u64,
    start: GamePosition,
    notation: Notation,
    strict: bool,
    moves: MoveTexts,
}

impl Key {
    /// The key of the first `len` of `moves`, which it keeps.
    fn new(
        hash: u64,
        start: GamePosition,
        options: &ReplayOptions,
        mut moves: MoveTexts,
        len: usize,
    ) -> Key {
        moves.truncate(len);
        Key { hash, start, notation: options.notation, strict: options.strict, moves }
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

impl<'a> Probe<'a> {
    /// The lookup of the first `len` of `moves`, whose hash is `hash`.
    fn new(id: GameId<'a>, moves: &'a MoveTexts, len: usize, hash: u64) -> Probe<'a> {
        let (texts, ends) = moves.span(0..len);
        Probe { id, texts, ends, hash }
    }
}

impl Hash for Probe<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Equivalent<Key> for Probe<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        let (texts, ends) = key.moves.span(0..key.moves.len());
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
    use arbiter_chess::{Position, replay};

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
            let cached = cache.replay(Position::default(), moves, &options);
            assert_eq!(cached, replay(Position::default(), &GAME[..len], &options), "{len} plies");
        }
        let stats = cache.stats();
        // The first prefix of MIN_PLIES is remembered, the next one kept;
        // each later one resumes.
        assert_eq!(stats.hits as usize, GAME.len() - MIN_PLIES - 1);
        assert_eq!(stats.entries, 1, "a resumed entry is replaced, not copied");
    }

    #[test]
    fn a_repeated_list_answers_its_legal_moves_as_a_full_replay() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let full = ReplayOptions::default();
        let skip = ReplayOptions { skip_legal_moves: true, ..full };
        let with_illegal: Vec<&str> = GAME.iter().copied().chain(["Ke9"]).collect();
        let longer: Vec<&str> = GAME.iter().copied().chain(["Na5"]).collect();
        let requests: [(&[&str], ReplayOptions); 7] = [
            (GAME, skip),
            (GAME, skip),
            (GAME, full),
            (GAME, full),
            (&with_illegal, full),
            (&longer, skip),
            (&longer, full),
        ];
        for (i, (moves, options)) in requests.into_iter().enumerate() {
            let cached = cache.replay(Position::default(), texts(moves), &options);
            assert_eq!(cached, replay(Position::default(), moves, &options), "request {i}");
        }
        assert_eq!(cache.stats().hits, 5);
    }

    #[test]
    fn repeats_in_flight_together_all_find_the_list() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        for _ in 0..2 {
            cache.replay(Position::default(), texts(GAME), &options);
        }
        let first = cache.resume(Position::default().into(), &texts(GAME), &options);
        let second = cache.resume(Position::default().into(), &texts(GAME), &options);
        assert_eq!((first.plies_done(), second.plies_done()), (GAME.len(), GAME.len()));
        for prefix in [first, second] {
            let answer = cache.finish(prefix, texts(GAME), &options);
            assert_eq!(answer, replay(Position::default(), GAME, &options));
        }
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.entries, stats.evictions), (2, 1, 0), "{stats:?}");
    }

    #[test]
    fn the_texts_are_compared_not_only_their_hash() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        let moves = texts(&GAME[..10]);
        for _ in 0..2 {
            cache.replay(Position::default(), moves.clone(), &options);
        }
        let id = GameId {
            start: &GamePosition::from(Position::default()),
            notation: Notation::Auto,
            strict: false,
        };
        let mut other = GAME[..10].to_vec();
        other[3] = "Nf6";
        let other = texts(&other);
        let [(10, hash)] = cache.prefix_hashes(id, &moves, 10..=10)[..] else { panic!() };
        // The right hash with other texts does not match.
        assert!(cache.entries.peek(&Probe::new(id, &other, 10, hash)).is_none());
        assert!(cache.entries.peek(&Probe::new(id, &moves, 10, hash)).is_some());
    }

    #[test]
    fn a_prefix_hashes_alike_whatever_is_probed_with_it() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let id = GameId {
            start: &GamePosition::from(Position::default()),
            notation: Notation::San,
            strict: true,
        };
        let moves: MoveTexts = GAME.iter().cycle().take(2 * BLOCKS[0] + 3).collect();
        let alone: Vec<u64> =
            (0..=moves.len()).map(|len| cache.prefix_hashes(id, &moves, len..=len)[0].1).collect();
        for shortest in 0..=moves.len() {
            for longest in shortest..(shortest + PROBES).min(moves.len() + 1) {
                let hashes = cache.prefix_hashes(id, &moves, shortest..=longest);
                let lens: Vec<usize> = hashes.iter().map(|&(len, _)| len).collect();
                assert_eq!(lens, (shortest..=longest).collect::<Vec<_>>());
                for (len, hash) in hashes {
                    assert_eq!(hash, alone[len], "{len} in {shortest}..={longest}");
                }
            }
        }
        // Every prefix hashes apart, and so do other options.
        let distinct: std::collections::HashSet<u64> = alone.iter().copied().collect();
        assert_eq!(distinct.len(), alone.len());
        let other = GameId { strict: false, ..id };
        assert_ne!(cache.prefix_hashes(other, &moves, 9..=9)[0].1, alone[9]);
    }

    #[test]
    fn fens_inside_the_cached_prefix_are_replayed() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let moves = texts(GAME);
        for _ in 0..2 {
            cache.replay(Position::default(), texts(&GAME[..10]), &ReplayOptions::default());
        }
        for plies_from in [0, 9, 10, 12] {
            let options = ReplayOptions { include_fens: true, plies_from, ..Default::default() };
            let cached = cache.replay(Position::default(), moves.clone(), &options);
            assert_eq!(cached, replay(Position::default(), GAME, &options), "from {plies_from}");
        }
    }

    #[test]
    fn only_followed_games_take_an_entry() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        let replay = |moves: &[&str]| cache.replay(Position::default(), texts(moves), &options);
        // Lists sent once each, none the extension of another by up to
        // PROBES - 1 plies, take no entry.
        let other = ["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7", "e3", "O-O"];
        for moves in [&GAME[..10], &other[..], &GAME[..9]] {
            replay(moves);
        }
        assert_eq!((cache.stats().entries, cache.stats().not_kept), (0, 3));
        // A list extending one answered lately (here by 2 plies) is kept,
        // and the next extension resumes from it.
        replay(&GAME[..12]);
        assert_eq!((cache.stats().entries, cache.stats().hits), (1, 0));
        replay(GAME);
        assert_eq!((cache.stats().entries, cache.stats().hits), (1, 1));
        // A list sent again is kept the second time.
        replay(&other[..]);
        assert_eq!(cache.stats().entries, 2);
        // A list is remembered at its legal prefix.
        let illegal: Vec<&str> = GAME[..8].iter().copied().chain(["Ke9", "Ke8"]).collect();
        replay(&illegal);
        assert_eq!(cache.stats().not_kept, 4);
        replay(&illegal[..9]);
        assert_eq!((cache.stats().entries, cache.stats().not_kept), (3, 4));
    }

    #[test]
    fn standard_and_chess960_games_do_not_share_entries() {
        let cache = ReplayCache::new(1 << 20).unwrap();
        let options = ReplayOptions::default();
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        let standard: Position = fen.parse().unwrap();
        let chess960 = Position::from_fen(fen, arbiter_chess::CastlingMode::Chess960).unwrap();
        let moves = ["O-O", "O-O-O", "a3", "a6", "b3", "b6", "c3", "c6", "d3"];
        for start in [&standard, &chess960, &standard, &chess960] {
            for len in [moves.len() - 2, moves.len()] {
                let cached = cache.replay(start.clone(), texts(&moves[..len]), &options);
                assert_eq!(cached, replay(start.clone(), &moves[..len], &options));
            }
        }
        let answer = cache.replay(chess960.clone(), texts(&moves), &options);
        assert_eq!(answer.plies[0].uci.to_string(), "e1h1");
        assert!(cache.stats().hits > 0);
    }

    #[test]
    fn a_zero_capacity_is_no_cache() {
        assert!(ReplayCache::new(0).is_none());
    }
}
