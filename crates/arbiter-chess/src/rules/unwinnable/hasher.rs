//! Hashing of positions for the analysis's sets and maps: two independent
//! hashes of what makes a position, and a hasher for keys that are hashes
//! already.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::board::position::Position;
use crate::board::types::Color;

/// A hasher for keys that are already hashes (Zobrist keys): it only
/// mixes them, which is much cheaper than the standard library's SipHash.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Sets and maps of position keys.
pub(super) type KeySet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;
pub(super) type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// Two independent hashes of what makes a position (placement, side to
/// move, castling rights, a legal en-passant capture), so that a walk
/// takes two positions for one only with negligible probability.
pub(super) fn keys(pos: &Position) -> (u64, u64) {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    let mut mix = |x: u64| {
        h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
    };
    for bb in pos.by_role {
        mix(bb.0);
    }
    mix(pos.by_color[0].0);
    mix(pos.castling.0);
    mix(u64::from(pos.turn == Color::White)
        | (pos.legal_ep_square().map_or(64, |s| s.index() as u64) << 1));
    (pos.zobrist(), h)
}
