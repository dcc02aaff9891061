//! Zobrist keys for hashing positions, generated at compile time from a fixed
//! seed so that hashes are stable across builds and runs.

use crate::board::types::{Color, Piece, Role, Square};

/// SplitMix64: small, fast and good enough to fill a key table.
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// 12 × 64 piece-square keys, then 64 castling keys (one per rook square
/// holding a right), 8 en-passant file keys and the side key.
const KEY_COUNT: usize = 12 * 64 + 64 + 8 + 1;

/// `N` keys drawn from SplitMix64 started at `seed`.
const fn key_table<const N: usize>(seed: u64) -> [u64; N] {
    let mut keys = [0; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, k) = splitmix(state);
        state = s;
        keys[i] = k;
        i += 1;
    }
    keys
}

static KEYS: [u64; KEY_COUNT] = key_table(0x4172_6269_7465_7221); // "Arbiter!"

/// The piece-square part of [`KEYS`], shaped for lookups without bounds checks.
static PIECE_KEYS: [[[u64; 64]; 6]; 2] = {
    let mut table = [[[0; 64]; 6]; 2];
    let mut i = 0;
    while i < 12 * 64 {
        table[i / (6 * 64)][(i / 64) % 6][i % 64] = KEYS[i];
        i += 1;
    }
    table
};

/// Key of `piece` standing on `sq`.
#[inline]
pub(crate) fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_KEYS[piece.color.index()][piece.role.index()][sq.index()]
}

/// Key of a castling right with its rook on `rook`.
#[inline]
pub(crate) fn castling_key(rook: Square) -> u64 {
    KEYS[12 * 64 + rook.index()]
}

/// Key of a legal en-passant capture onto `ep_square`'s file.
#[inline]
pub(crate) fn en_passant_key(ep_square: Square) -> u64 {
    KEYS[12 * 64 + 64 + ep_square.file().index() as usize]
}

/// Key folded in when black is to move.
#[inline]
pub(crate) fn turn_key(turn: Color) -> u64 {
    match turn {
        Color::White => 0,
        Color::Black => KEYS[KEY_COUNT - 1],
    }
}

/// Keys for what variants add to a position: a count in a crazyhouse
/// pocket (2 colours × 5 roles × counts 0–63), a crazyhouse promoted mark
/// (64 squares) and three-check's remaining checks (2 colours × 0–3).
const VARIANT_KEY_COUNT: usize = 2 * 5 * 64 + 64 + 2 * 4;

static VARIANT_KEYS: [u64; VARIANT_KEY_COUNT] = key_table(0x5661_7269_616e_7473); // "Variants"

/// Key of `count` pieces of `role` (a pawn to a queen) in `color`'s pocket;
/// counts over 63 share a key.
#[inline]
pub(crate) fn pocket_key(color: Color, role: Role, count: u8) -> u64 {
    VARIANT_KEYS[(color.index() * 5 + role.index()) * 64 + usize::from(count.min(63))]
}

/// Key of a promoted piece standing on `sq`.
#[inline]
pub(crate) fn promoted_key(sq: Square) -> u64 {
    VARIANT_KEYS[2 * 5 * 64 + sq.index()]
}

/// Key of `color` having `remaining` checks (0 to 3) left to give.
#[inline]
pub(crate) fn remaining_checks_key(color: Color, remaining: u8) -> u64 {
    VARIANT_KEYS[2 * 5 * 64 + 64 + color.index() * 4 + usize::from(remaining.min(3))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut sorted = KEYS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), KEY_COUNT);
        assert!(!sorted.contains(&0));
    }
}
